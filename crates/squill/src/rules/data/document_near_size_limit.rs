//! `document-near-size-limit`: Documents come close to the 16 MiB limit.

crate::rules::declare_rule! {
    id: "document-near-size-limit",
    summary: "Documents come close to the 16 MiB limit",
    kind: Data,
    severity: Error,
    sources: ["MongoDB manual: limits"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Move what makes the document grow out of it before writes start failing at \
16 MiB: unbounded arrays into their own collection (parent-reference or bucket pattern), large \
files into GridFS, rarely read parts into another collection (subset pattern).";

/// Documents close to the 16 MiB limit.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.document_near_size_limit;
    for c in a.collections {
        if c.documents == 0 || c.size.max <= limit.max.value {
            continue;
        }
        out.push(finding(
            &RULE,
            limit.severity,
            format!(
                "a document is {} bytes, {:.0} % of the 16 MiB limit",
                c.size.max,
                c.size.max as f64 * 100.0 / crate::inputs::bson::MAX_DOCUMENT_BYTES as f64
            ),
            location(c, None, c.largest_example_id.as_ref()),
            vec![
                Evidence::new("max_bytes", c.size.max),
                Evidence::new("limit_bytes", crate::inputs::bson::MAX_DOCUMENT_BYTES),
                Evidence::new("warn_above", limit.max.value),
                Evidence::new("warn_above_source", limit.max.source),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    fn sized(bytes: usize) -> Vec<Vec<u8>> {
        vec![doc(&[
            ("_id", B::I32(1)),
            ("blob", B::Owned("x".repeat(bytes))),
        ])]
    }

    #[test]
    fn fires_over_half_the_limit() {
        let r = scan(vec![coll("d", "c", sized(9_000_000))], &Default::default());
        assert_eq!(fired(&r, "document-near-size-limit").len(), 1);
    }

    #[test]
    fn quiet_below() {
        let r = scan(vec![coll("d", "c", sized(3_000_000))], &Default::default());
        assert!(fired(&r, "document-near-size-limit").is_empty());
    }
}
