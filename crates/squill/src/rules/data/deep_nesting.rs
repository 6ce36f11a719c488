//! `deep-nesting`: Documents nest deeply (or beyond the 100-level limit).

crate::rules::declare_rule! {
    id: "deep-nesting",
    summary: "Documents nest deeply (or beyond the 100-level limit)",
    kind: Data,
    severity: Warning,
    sources: ["MongoDB manual: limits"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Flatten: promote deeply nested sub-documents to top-level fields or to their \
own collection; long paths are hard to index, query and update, and nesting stops at 100 levels.";

/// Documents nesting deeper than the limit.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.deep_nesting;
    for c in a.collections {
        if c.documents == 0 || c.depth.max <= limit.max.value {
            continue;
        }
        let deepest = c
            .fields
            .iter()
            .max_by_key(|f| f.level)
            .map(|f| f.path.as_str());
        out.push(finding(
            &RULE,
            limit.severity,
            format!(
                "documents nest {} levels deep (limit {})",
                c.depth.max, limit.max.value
            ),
            location(c, deepest, c.deepest_example_id.as_ref()),
            vec![
                Evidence::new("max_depth", c.depth.max),
                Evidence::new("p95_depth", c.depth.p95),
                Evidence::new("limit", limit.max.value),
                Evidence::new("limit_source", limit.max.source),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    fn nested(levels: usize) -> Vec<Vec<u8>> {
        let mut v = B::I32(1);
        for _ in 0..levels {
            v = B::Doc(vec![("n", v)]);
        }
        vec![doc(&[("_id", B::I32(1)), ("root", v)])]
    }

    #[test]
    fn fires_deeper_than_ten() {
        let r = scan(vec![coll("d", "c", nested(11))], &Default::default());
        let f = fired(&r, "deep-nesting");
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("11 levels"), "{}", f[0].message);
    }

    #[test]
    fn quiet_at_ten() {
        let r = scan(vec![coll("d", "c", nested(9))], &Default::default());
        assert!(fired(&r, "deep-nesting").is_empty());
    }
}
