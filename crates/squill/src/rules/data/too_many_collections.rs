//! `too-many-collections`: A database or a dump has more collections than the profile allows.

crate::rules::declare_rule! {
    id: "too-many-collections",
    summary: "A database or a dump has more collections than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["Compass performance insights", "Atlas schema advice", "Schaefer & Coupal anti-patterns"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::Analysis;

const HELP: &str = "Many small collections each carry their own indexes and files: merge \
collections that hold the same kind of document into one with a field that says which \
(polymorphic pattern), and group time-partitioned collections into buckets (bucket pattern).";

/// Databases (and the whole input) with more collections than the limits.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limits = a.settings.scan.too_many_collections;
    let mut dbs: Vec<&Option<String>> = a.collections.iter().map(|c| &c.database).collect();
    dbs.sort();
    dbs.dedup();
    if let Some(limit) = limits.per_database {
        for db in dbs {
            let n = a.collections.iter().filter(|c| &c.database == db).count() as u64;
            if n <= limit.value {
                continue;
            }
            out.push(finding(
                &RULE,
                limits.severity,
                format!("{n} collections in one database (limit {})", limit.value),
                crate::finding::Location::Collection {
                    file: None,
                    database: db.clone(),
                    collection: "*".to_string(),
                    field: None,
                    example_id: None,
                },
                vec![
                    Evidence::new("collections", n),
                    Evidence::new("limit", limit.value),
                    Evidence::new("limit_source", limit.source),
                ],
                HELP,
            ));
        }
    }
    if let Some(limit) = limits.per_dump {
        let n = a.collections.len() as u64;
        if n > limit.value {
            out.push(finding(
                &RULE,
                limits.severity,
                format!("{n} collections in the input (limit {})", limit.value),
                crate::finding::Location::Collection {
                    file: None,
                    database: None,
                    collection: "*".to_string(),
                    field: None,
                    example_id: None,
                },
                vec![
                    Evidence::new("collections", n),
                    Evidence::new("limit", limit.value),
                    Evidence::new("limit_source", limit.source),
                ],
                HELP,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    fn colls(n: usize) -> Vec<crate::rules::data::testing::Coll> {
        let names: &'static [String] = Box::leak(
            (0..n)
                .map(|i| format!("c{i}"))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        names
            .iter()
            .map(|name| coll("d", name, vec![doc(&[("_id", B::I32(1))])]))
            .collect()
    }

    #[test]
    fn fires_above_a_hundred_per_database() {
        let r = scan(colls(101), &Default::default());
        let f = fired(&r, "too-many-collections");
        assert_eq!(f.len(), 1);
        assert!(f[0].message.starts_with("101 collections in one database"));
    }

    #[test]
    fn quiet_at_a_hundred() {
        assert!(
            fired(
                &scan(colls(100), &Default::default()),
                "too-many-collections"
            )
            .is_empty()
        );
    }
}
