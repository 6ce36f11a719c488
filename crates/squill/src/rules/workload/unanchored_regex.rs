//! `unanchored-regex`: A filter uses a regex no index can bound.

crate::rules::declare_rule! {
    id: "unanchored-regex",
    summary: "A filter uses a regular expression that no index can bound (unanchored or case-insensitive)",
    kind: Workload,
    severity: Warning,
    sources: ["MongoDB manual: $regex, index use"],
    check: Workload(check),
}

use super::{Analysis, finding};
use crate::finding::{Evidence, Finding};

const HELP: &str = "Anchor the pattern at the start (`^prefix`) and drop the `i` option so an \
index bounds the scan: store a lower-cased copy of the field for case-insensitive matching, \
use a case-insensitive collation index, or a text or Atlas Search index for words inside \
the value.";

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        if s.unanchored_regex == 0 && s.case_insensitive_regex == 0 {
            continue;
        }
        let what = match (s.unanchored_regex > 0, s.case_insensitive_regex > 0) {
            (true, true) => "unanchored and case-insensitive",
            (true, false) => "unanchored",
            _ => "case-insensitive",
        };
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!(
                "matches with an {what} regular expression, which reads every index key or document"
            ),
            vec![
                Evidence::new("unanchored", s.unanchored_regex),
                Evidence::new("case_insensitive", s.case_insensitive_regex),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, fired, judged};

    #[test]
    fn fires_on_unanchored_or_case_insensitive() {
        for filter in [
            "{ name: /smith/ }",
            "{ name: /^smith/i }",
            "{ name: { $regex: \"smith\" } }",
        ] {
            let r = judged(&find(
                filter,
                "",
                "IXSCAN { name: 1 }",
                "keysExamined:9 nreturned:1",
                5,
            ));
            assert_eq!(fired(&r, "unanchored-regex").len(), 1, "{filter}");
        }
    }

    #[test]
    fn quiet_on_an_anchored_prefix() {
        let r = judged(&find(
            "{ name: /^smith/ }",
            "",
            "IXSCAN { name: 1 }",
            "keysExamined:1 nreturned:1",
            5,
        ));
        assert!(fired(&r, "unanchored-regex").is_empty());
    }
}
