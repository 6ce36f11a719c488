//! `large-in-list`: A filter's `$in` list is long.

crate::rules::declare_rule! {
    id: "large-in-list",
    summary: "A filter's $in list is long enough to slow planning and sorting",
    kind: Workload,
    severity: Info,
    sources: ["MongoDB server parameter internalQueryMaxScansToExplode"],
    check: Workload(check),
}

use super::{Analysis, finding};
use crate::finding::{Evidence, Finding};

/// The planner turns `$in` plus a sort into one index scan per element up
/// to 200 scans (`internalQueryMaxScansToExplode`); past that it sorts in memory.
pub const MAX_IN: u64 = 200;

const HELP: &str = "Keep `$in` lists short: batch the values into several queries, or model \
the relationship so one equality finds the documents (a reference to the group they share, \
or the values embedded where they are read).";

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        if s.largest_in <= MAX_IN {
            continue;
        }
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!(
                "has an $in list of up to {} values (limit {MAX_IN})",
                s.largest_in
            ),
            vec![
                Evidence::new("largest_in", s.largest_in),
                Evidence::new("limit", MAX_IN),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, fired, judged};

    fn with_in(n: usize) -> String {
        let values: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        find(
            &format!("{{ sku: {{ $in: [ {} ] }} }}", values.join(", ")),
            "",
            "IXSCAN { sku: 1 }",
            "keysExamined:9 nreturned:9",
            5,
        )
    }

    #[test]
    fn fires_above_the_limit_only() {
        assert_eq!(fired(&judged(&with_in(201)), "large-in-list").len(), 1);
        assert!(fired(&judged(&with_in(200)), "large-in-list").is_empty());
    }
}
