//! `too-many-indexes`: A collection has more indexes than the profile allows.

crate::rules::declare_rule! {
    id: "too-many-indexes",
    summary: "A collection has more indexes than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "Compass performance insights", "Atlas schema advice", "Schaefer & Coupal anti-patterns", "MongoDB manual: limits"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Every index costs work on each write and memory for its keys: drop the \
indexes no query uses (check $indexStats), fold prefixes into compound indexes, and replace \
many per-attribute indexes with one index on an array of {k, v} pairs (attribute pattern).";

/// Collections whose metadata lists more indexes than the limit.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.too_many_indexes;
    for c in a.collections {
        let Some(indexes) = &c.indexes else { continue };
        if indexes.len() as u64 <= limit.max.value {
            continue;
        }
        out.push(finding(
            &RULE,
            limit.severity,
            format!("{} indexes (limit {})", indexes.len(), limit.max.value),
            location(c, None, None),
            vec![
                Evidence::new("indexes", indexes.len()),
                Evidence::new(
                    "names",
                    indexes.iter().map(|i| i.name.clone()).collect::<Vec<_>>(),
                ),
                Evidence::new("limit", limit.max.value),
                Evidence::new("limit_source", limit.max.source),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, index, scan};

    fn with_indexes(n: usize) -> crate::rules::data::testing::Coll {
        let mut c = coll("d", "c", vec![doc(&[("_id", B::I32(1))])]);
        let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
        let mut idx = vec![index("_id_", &[("_id", 1)])];
        idx.extend(names.iter().map(|n| index(&format!("{n}_1"), &[(n, 1)])));
        c.indexes = Some(idx);
        c
    }

    #[test]
    fn fires_above_thirty() {
        let r = scan(vec![with_indexes(30)], &Default::default());
        assert_eq!(fired(&r, "too-many-indexes").len(), 1);
    }

    #[test]
    fn quiet_at_thirty() {
        let r = scan(vec![with_indexes(29)], &Default::default());
        assert!(fired(&r, "too-many-indexes").is_empty());
    }
}
