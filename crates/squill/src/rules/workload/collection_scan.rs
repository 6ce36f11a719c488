//! `collection-scan`: A hot query shape reads the whole collection.

crate::rules::declare_rule! {
    id: "collection-scan",
    summary: "A hot query shape reads the whole collection",
    kind: Workload,
    severity: Warning,
    sources: ["MongoDB manual: Analyze query performance", "MongoDB manual: The ESR (Equality, Sort, Range) guideline"],
    check: Workload(check),
}

use super::{Analysis, finding, index_for, is_hot};
use crate::finding::{Evidence, Finding};

/// Scans that read fewer documents than this per execution cost little: a
/// small collection is read faster whole than through an index.
pub const MIN_DOCS_PER_SCAN: u64 = 100;

const HELP: &str = "Create an index on the fields the shape filters and sorts on, equality \
fields first, then the sort keys, then the range fields (the suggested indexes below follow \
that order); or add the filter the query is missing.";

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        let scans = s.collection_scans();
        if scans == 0 || !is_hot(s) || s.shape.kind.is_write() && s.shape.filter.is_empty() {
            continue;
        }
        let per_execution = s.docs_examined / (s.count + s.getmores).max(1);
        if per_execution < MIN_DOCS_PER_SCAN {
            continue;
        }
        let index = index_for(s)
            .map(|keys| format!("; an index {keys} would serve it"))
            .unwrap_or_default();
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!(
                "scanned the collection in {scans} of {} executions, {} documents each{index}",
                s.count,
                crate::words::int(per_execution)
            ),
            vec![
                Evidence::new("collection_scans", scans),
                Evidence::new("docs_examined_per_execution", per_execution),
                Evidence::new("min_docs_per_scan", MIN_DOCS_PER_SCAN),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, fired, judged};

    #[test]
    fn fires_on_a_hot_scan_with_the_index_that_serves_it() {
        let r = judged(&find(
            "{ status: \"A\" }",
            ", sort: { at: -1 }",
            "COLLSCAN",
            "docsExamined:5000 nreturned:5",
            90,
        ));
        let f = fired(&r, "collection-scan");
        assert_eq!(f.len(), 1);
        insta::assert_json_snapshot!(f[0]);
    }

    #[test]
    fn quiet_on_small_scans_and_index_scans() {
        let small = judged(&find(
            "{ status: \"A\" }",
            "",
            "COLLSCAN",
            "docsExamined:20 nreturned:5",
            90,
        ));
        assert!(fired(&small, "collection-scan").is_empty());
        let indexed = judged(&find(
            "{ status: \"A\" }",
            "",
            "IXSCAN { status: 1 }",
            "keysExamined:5 docsExamined:5 nreturned:5",
            90,
        ));
        assert!(fired(&indexed, "collection-scan").is_empty());
    }
}
