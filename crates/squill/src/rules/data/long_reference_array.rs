//! `long-reference-array`: An array of references holds more ids than a few thousand.

crate::rules::declare_rule! {
    id: "long-reference-array",
    summary: "An array of references holds more ids than a few thousand",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Past a few thousand ids, stop growing the array: store a reference to the \
parent in each child instead (parent-reference, the one-to-squillions layout) and index that \
field; keep only a bounded subset of ids in the parent if it reads them often.";

/// Child-reference arrays with more references than the limit.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.long_reference_array;
    for r in a.relationships {
        if r.direction != crate::scan::report::Direction::ChildReferenceArray
            || r.fan_out.max <= limit.max.value
        {
            continue;
        }
        let Some(c) = a.collection(&r.from) else {
            continue;
        };
        let example = c
            .fields
            .iter()
            .find(|f| f.path == r.field)
            .and_then(|f| f.array.as_ref())
            .and_then(|arr| arr.longest_example_id.as_ref());
        out.push(finding(
            &RULE,
            limit.severity,
            format!(
                "`{}` holds up to {} references to {} (limit {})",
                r.field, r.fan_out.max, r.to, limit.max.value
            ),
            location(c, Some(&r.field), example),
            vec![
                Evidence::new("max_references", r.fan_out.max),
                Evidence::new("p95_references", r.fan_out.p95),
                Evidence::new("p50_references", r.fan_out.p50),
                Evidence::new("target", r.to.to_string()),
                Evidence::new("limit", limit.max.value),
                Evidence::new("limit_source", limit.max.source),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, oid, scan};

    fn input(refs: u64) -> Vec<crate::rules::data::testing::Coll> {
        let children = (0..refs).map(|i| doc(&[("_id", B::Oid(oid(i)))])).collect();
        let parent = doc(&[
            ("_id", B::I32(1)),
            ("parts", B::Arr((0..refs).map(|i| B::Oid(oid(i))).collect())),
        ]);
        vec![
            coll("d", "products", vec![parent]),
            coll("d", "parts", children),
        ]
    }

    #[test]
    fn fires_beyond_a_few_thousand() {
        let r = scan(input(5_001), &Default::default());
        let f = fired(&r, "long-reference-array");
        assert_eq!(f.len(), 1, "{:#?}", r.findings);
        assert!(
            fired(&r, "massive-array").is_empty(),
            "judged as a reference array"
        );
    }

    #[test]
    fn quiet_within_a_few_thousand() {
        let r = scan(input(300), &Default::default());
        assert!(fired(&r, "long-reference-array").is_empty());
        assert_eq!(r.relationships.len(), 1);
    }
}
