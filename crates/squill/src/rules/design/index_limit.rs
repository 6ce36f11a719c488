//! `index-limit`: A collection may not have more than 64 indexes: MongoDB refuses the 65th.

crate::rules::declare_rule! {
    id: "index-limit",
    summary: "A collection may not have more than 64 indexes: MongoDB refuses the 65th",
    kind: Design,
    severity: Error,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB manual: limits"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;
use crate::words;

/// MongoDB's limit on indexes per collection, `_id_` included (MongoDB
/// manual, limits: "a single collection can have no more than 64 indexes").
pub const MAX_INDEXES: usize = 64;

/// Reports every collection of the design with more indexes than the server
/// accepts.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for c in &cx.design.collections {
        // `_id_` always exists, whether or not a step names it.
        let count = c.indexes.iter().filter(|i| i.name != "_id_").count() + 1;
        if count <= MAX_INDEXES {
            continue;
        }
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{} needs {} with _id_, over MongoDB's limit of {MAX_INDEXES}: creating the {} fails",
                c.name,
                words::count(count as f64, "index"),
                ordinal(MAX_INDEXES + 1)
            ),
            location: DesignCheck::at(format!("collections.{}", c.name)),
            evidence: vec![
                Evidence::new("indexes", count),
                Evidence::new("limit", MAX_INDEXES),
            ],
            help: Some(
                "serve several queries with one compound index (equality fields first, then the sort, then ranges), or move rarely run queries to a scan or to a search index".to_string(),
            ),
        });
    }
    out
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_design, reads_on_own_fields as reads_on};

    #[test]
    fn fires_past_64() {
        assert_eq!(
            judge_design(&RULE, &reads_on(64)),
            ["thing needs 65 indexes with _id_, over MongoDB's limit of 64: creating the 65th fails"]
        );
    }

    #[test]
    fn stays_quiet_at_64_and_on_the_examples() {
        assert!(judge_design(&RULE, &reads_on(63)).is_empty());
        assert!(judge_design(&RULE, &example("rubis.yaml")).is_empty());
    }
}
