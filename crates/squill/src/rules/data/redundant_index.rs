//! `redundant-index`: An index duplicates another or is a prefix of another.

crate::rules::declare_rule! {
    id: "redundant-index",
    summary: "An index duplicates another or is a prefix of another",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};
use crate::scan::report::IndexReport;

const HELP: &str = "Drop the redundant index: a query that can use an index on (a) can use the \
compound index on (a, b) as well, and an identical index only doubles the write cost. Keep a \
prefix only when it is unique, partial, sparse or has a TTL (different behaviour, not only speed).";

/// Whether an index is a plain ascending/descending one with no options that
/// change behaviour (those are not redundant even when their keys are).
fn plain(i: &IndexReport) -> bool {
    !i.unique
        && !i.sparse
        && !i.partial
        && i.expire_after_seconds.is_none()
        && i.name != "_id_"
        && i.key
            .iter()
            .all(|(_, v)| v.as_f64().is_some_and(|d| d == 1.0 || d == -1.0))
}

fn direction(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or(0.0).signum()
}

/// Whether `short`'s keys are a prefix of `long`'s, in the same or the fully
/// reversed directions (an index can be walked either way).
fn is_prefix(short: &IndexReport, long: &IndexReport) -> bool {
    if short.key.len() > long.key.len() || short.key.is_empty() {
        return false;
    }
    let same = short.key.iter().zip(&long.key);
    let fields = same.clone().all(|((a, _), (b, _))| a == b);
    let forward = same
        .clone()
        .all(|((_, x), (_, y))| direction(x) == direction(y));
    let backward = same
        .clone()
        .all(|((_, x), (_, y))| direction(x) == -direction(y));
    fields && (forward || backward)
}

/// Duplicate indexes and indexes that are a prefix of another.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let severity = a.settings.scan.redundant_index;
    for c in a.collections {
        let Some(indexes) = &c.indexes else { continue };
        for (i, short) in indexes.iter().enumerate() {
            if !plain(short) {
                continue;
            }
            let covering = indexes.iter().enumerate().find(|(j, long)| {
                *j != i
                    && is_prefix(short, long)
                    && (long.key.len() > short.key.len() || *j < i || !plain(long))
            });
            let Some((_, long)) = covering else { continue };
            let duplicate = long.key.len() == short.key.len();
            let keys =
                |ix: &IndexReport| serde_json::Value::Object(ix.key.iter().cloned().collect());
            out.push(finding(
                &RULE,
                severity,
                if duplicate {
                    format!("index `{}` duplicates `{}`", short.name, long.name)
                } else {
                    format!("index `{}` is a prefix of `{}`", short.name, long.name)
                },
                location(c, short.key.first().map(|(k, _)| k.as_str()), None),
                vec![
                    Evidence::new("index", short.name.clone()),
                    Evidence::new("key", keys(short)),
                    Evidence::new("covered_by", long.name.clone()),
                    Evidence::new("covered_by_key", keys(long)),
                ],
                HELP,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, index, scan};

    fn with(indexes: Vec<crate::scan::report::IndexReport>) -> crate::scan::report::ScanReport {
        let mut c = coll("d", "c", vec![doc(&[("_id", B::I32(1))])]);
        c.indexes = Some(indexes);
        scan(vec![c], &Default::default())
    }

    #[test]
    fn fires_on_a_prefix_and_on_a_duplicate() {
        let r = with(vec![
            index("_id_", &[("_id", 1)]),
            index("a_1", &[("a", 1)]),
            index("a_1_b_1", &[("a", 1), ("b", 1)]),
            index("c_1", &[("c", 1)]),
            index("c_1_again", &[("c", 1)]),
        ]);
        let f = fired(&r, "redundant-index");
        let messages: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "index `a_1` is a prefix of `a_1_b_1`",
                "index `c_1_again` duplicates `c_1`"
            ]
        );
    }

    #[test]
    fn quiet_on_unique_prefixes_different_fields_and_mixed_directions() {
        let mut unique = index("a_1", &[("a", 1)]);
        unique.unique = true;
        let r = with(vec![
            index("_id_", &[("_id", 1)]),
            unique,
            index("a_1_b_1", &[("a", 1), ("b", 1)]),
            index("b_1_a_1", &[("b", 1), ("a", -1)]),
            index("b_1_a_1_c_1", &[("b", 1), ("a", 1), ("c", 1)]),
        ]);
        assert!(fired(&r, "redundant-index").is_empty(), "{:#?}", r.findings);
    }
}
