//! `in-memory-sort`: A hot query shape sorts its results in memory.

crate::rules::declare_rule! {
    id: "in-memory-sort",
    summary: "A hot query shape sorts its results in memory",
    kind: Workload,
    severity: Warning,
    sources: ["MongoDB manual: Use indexes to sort query results", "MongoDB manual: The ESR (Equality, Sort, Range) guideline"],
    check: Workload(check),
}

use super::{Analysis, finding, index_for, is_hot};
use crate::finding::{Evidence, Finding};

const HELP: &str = "Give the sort an index: the equality fields of the filter first, then the \
sort keys in the query's order and directions, then the range fields. The index then returns \
documents in order and the query can stop at its limit.";

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        if s.in_memory_sorts == 0 || !is_hot(s) {
            continue;
        }
        let index = index_for(s)
            .map(|keys| format!("; an index {keys} would return it in order"))
            .unwrap_or_default();
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!(
                "sorted in memory in {} of {} executions{index}",
                s.in_memory_sorts, s.count
            ),
            vec![Evidence::new("in_memory_sorts", s.in_memory_sorts)],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, fired, judged};

    #[test]
    fn fires_on_a_blocking_sort() {
        let r = judged(&find(
            "{ status: \"A\" }",
            ", sort: { at: -1 }",
            "IXSCAN { status: 1 }",
            "keysExamined:50 docsExamined:50 hasSortStage:1 nreturned:50",
            40,
        ));
        let f = fired(&r, "in-memory-sort");
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("an index {status: 1, at: -1}"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn quiet_when_the_index_gives_the_order() {
        let r = judged(&find(
            "{ status: \"A\" }",
            ", sort: { at: -1 }",
            "IXSCAN { status: 1, at: -1 }",
            "keysExamined:50 docsExamined:50 nreturned:50",
            40,
        ));
        assert!(fired(&r, "in-memory-sort").is_empty());
    }
}
