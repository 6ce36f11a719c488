//! `bloated-document`: Documents are larger than the profile allows.

crate::rules::declare_rule! {
    id: "bloated-document",
    summary: "Documents are larger than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "Compass performance insights", "Atlas schema advice"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Keep together only what is read together: move large or rarely read fields \
and arrays to their own collection and keep a few frequently read fields in the document \
(subset or extended-reference pattern), so the working set holds what the queries need.";

/// Documents larger than the profile allows.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.bloated_document;
    for c in a.collections {
        if c.documents == 0 || c.size.max <= limit.max.value {
            continue;
        }
        out.push(finding(
            &RULE,
            limit.severity,
            format!(
                "documents reach {} bytes (limit {})",
                c.size.max, limit.max.value
            ),
            location(c, None, c.largest_example_id.as_ref()),
            vec![
                Evidence::new("max_bytes", c.size.max),
                Evidence::new("p95_bytes", c.size.p95),
                Evidence::new("mean_bytes", c.size.mean),
                Evidence::new("documents", c.documents),
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

    fn sized(bytes: usize) -> Vec<Vec<u8>> {
        let s = "x".repeat(bytes);
        vec![doc(&[("_id", B::I32(7)), ("blob", B::Owned(s))])]
    }

    #[test]
    fn fires_over_two_megabytes() {
        let r = scan(vec![coll("d", "c", sized(2_000_100))], &Default::default());
        let f = fired(&r, "bloated-document");
        assert_eq!(f.len(), 1);
        assert!(format!("{:?}", f[0].location).contains("numberInt"));
    }

    #[test]
    fn quiet_below() {
        let r = scan(vec![coll("d", "c", sized(1_000_000))], &Default::default());
        assert!(fired(&r, "bloated-document").is_empty());
    }
}
