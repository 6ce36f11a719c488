//! `covered-query`: A query answered from an index alone never reads documents.

crate::rules::declare_rule! {
    id: "covered-query",
    summary: "A query answered from an index alone never reads documents",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Design(check),
}

use crate::design::Action;
use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;

/// Reports finds whose projection lies inside the index they use: with `_id`
/// excluded from the projection the index alone answers them. Only when
/// every path the find tests or sorts by is a key of that index too: a
/// test on another field (a bucket's `count`) is made on the document,
/// which is then read, even when the index is partial on that very test
/// (a covered query, in MongoDB's words, has all its query's fields in the
/// index; the partial filter is not among its keys).
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in &cx.design.operations {
        for (n, step) in op.steps.iter().enumerate() {
            let Some(index) = &step.index else { continue };
            if step.action != Action::Find || step.projection.is_empty() || index == "_id_" {
                continue;
            }
            let Some(ix) = cx
                .design
                .collections
                .iter()
                .find(|c| c.name == step.collection)
                .and_then(|c| {
                    c.indexes.iter().find(|i| {
                        let key = |p: &String| i.keys.iter().any(|(k, _)| k == p);
                        // The step's own index: another one the operation
                        // uses does not answer this step.
                        i.name == *index
                            && i.used_by.contains(&op.operation)
                            && step.projection.iter().all(key)
                            && step.filter.iter().all(|t| key(&t.path))
                            && step.conditions.iter().all(|t| key(&t.path))
                            && step.sort.iter().all(|(p, _)| key(p))
                    })
                })
            else {
                continue;
            };
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "step {} of {} returns only {}, all in index {}: project out _id and the index alone answers it",
                    n + 1,
                    op.operation,
                    step.projection.join(", "),
                    ix.name
                ),
                location: DesignCheck::at(format!("operations.{}", op.operation)),
                evidence: vec![Evidence::new("index", ix.name.clone()), Evidence::new("rate_per_second", op.rate)],
                help: Some("add `_id: 0` to the projection".to_string()),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::judge_design;

    /// Is this email taken? Only the email is read, through its index.
    const EMAIL_TAKEN: &str = r"
entities:
  user: {count: 1000000, fields: {email: string(30), name: string(20), bio: string(500)}}
operations:
  email_taken: {read: user, rate: 100, filter: {email: eq}, fields: [email]}
  add_user: {insert: user, rate: 1}
";

    #[test]
    fn fires() {
        assert_eq!(
            judge_design(&RULE, EMAIL_TAKEN),
            [
                "step 1 of email_taken returns only email, all in index email_1: project out _id and the index alone answers it"
            ]
        );
    }

    /// Near miss: the same lookup by email, returning the name as well,
    /// which the email index does not hold.
    #[test]
    fn stays_quiet_just_under() {
        let yaml = EMAIL_TAKEN.replace("fields: [email]}", "fields: [email, name]}");
        assert!(judge_design(&RULE, &yaml).is_empty());
    }

    /// Near miss: a bucket's figure read again through an index partial on
    /// `count > 0` returns only that figure, an index key, but its filter
    /// also tests `count`, which the index does not hold: each bucket is
    /// read to test it (issue 41).
    #[test]
    fn stays_quiet_when_the_filter_tests_a_field_outside_the_index() {
        let yaml = include_str!("../../../tests/fixtures/bucket-count-parent-figures.yaml");
        let found = judge_design(&RULE, yaml);
        assert!(found.iter().all(|m| !m.contains("_partial")), "{found:?}");
    }
}
