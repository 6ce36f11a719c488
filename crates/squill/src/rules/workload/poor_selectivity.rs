//! `poor-selectivity`: A query shape examines far more than it returns.

crate::rules::declare_rule! {
    id: "poor-selectivity",
    summary: "A query shape examines far more documents or keys than it returns",
    kind: Workload,
    severity: Warning,
    sources: ["MongoDB manual: Analyze query performance", "Atlas: Query Targeting metric"],
    check: Workload(check),
}

use super::{Analysis, finding, is_hot};
use crate::finding::{Evidence, Finding};
use crate::workload::report::ShapeReport;

/// Documents (or keys) examined per document returned above which the
/// index does not narrow the query enough.
pub const MAX_EXAMINED_PER_RETURNED: f64 = 100.0;
/// Executions that examine fewer than this cost little whatever the ratio.
pub const MIN_EXAMINED_PER_EXECUTION: u64 = 1000;

const HELP: &str = "Make the index match the filter: put the equality fields first and the \
most selective ones before the others (equality, sort, range), or add the field the filter \
tests but the index lacks, so the scan stops at the documents it returns.";

/// A read that used an index yet examined far more than it returned.
/// Collection scans are `collection-scan`'s; writes return nothing.
pub fn is_poorly_selective(s: &ShapeReport) -> bool {
    if s.shape.kind.is_write() || s.collection_scans() > 0 {
        return false;
    }
    let examined = s.docs_examined.max(s.keys_examined);
    let executions = (s.count + s.getmores).max(1);
    if examined / executions < MIN_EXAMINED_PER_EXECUTION {
        return false;
    }
    examined as f64 / s.returned.max(1) as f64 > MAX_EXAMINED_PER_RETURNED
}

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        if !is_hot(s) || !is_poorly_selective(s) {
            continue;
        }
        let examined = s.docs_examined.max(s.keys_examined);
        let ratio = examined as f64 / s.returned.max(1) as f64;
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!(
                "examined {} documents or keys per document returned ({} for {})",
                crate::words::num(ratio),
                crate::words::int(examined),
                crate::words::int(s.returned)
            ),
            vec![
                Evidence::new("keys_examined", s.keys_examined),
                Evidence::new("docs_examined", s.docs_examined),
                Evidence::new("returned", s.returned),
                Evidence::new("limit", MAX_EXAMINED_PER_RETURNED),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, fired, judged};

    #[test]
    fn fires_when_the_index_does_not_narrow() {
        let r = judged(&find(
            "{ status: \"A\", sku: 3 }",
            "",
            "IXSCAN { status: 1 }",
            "keysExamined:20000 docsExamined:20000 nreturned:2",
            70,
        ));
        assert_eq!(fired(&r, "poor-selectivity").len(), 1);
    }

    #[test]
    fn quiet_when_selective_small_or_a_scan() {
        for (plan, metrics) in [
            (
                "IXSCAN { sku: 1 }",
                "keysExamined:2 docsExamined:2 nreturned:2",
            ),
            (
                "IXSCAN { status: 1 }",
                "keysExamined:500 docsExamined:500 nreturned:1",
            ),
            ("COLLSCAN", "docsExamined:20000 nreturned:2"),
        ] {
            let r = judged(&find("{ status: \"A\", sku: 3 }", "", plan, metrics, 70));
            assert!(fired(&r, "poor-selectivity").is_empty(), "{plan} {metrics}");
        }
    }
}
