//! `polymorphic-collection`: Entities read together by one query can share a collection, told apart by a type field.

crate::rules::declare_rule! {
    id: "polymorphic-collection",
    summary: "Entities read together by one query can share a collection, told apart by a type field",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
    check: Entity(check),
}

use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;

/// Supports one collection for entities that one read fetches together.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<String> {
    let EntityCandidate::Polymorphic {
        entities,
        collection,
        discriminator,
        read_by,
    } = candidate
    else {
        return None;
    };
    let model = facts.model;
    let names: Vec<&str> = entities
        .iter()
        .map(|e| model.entity(*e).name.as_str())
        .collect();
    let ops: Vec<&str> = read_by
        .iter()
        .map(|o| model.operation(*o).name.as_str())
        .collect();
    Some(format!(
        "{} reads {} together: one `{collection}` collection told apart by `{discriminator}` answers it with one query",
        ops.join(", "),
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_entities};

    #[test]
    fn fires() {
        assert_eq!(
            judge_entities(&RULE, &example("notifications.yaml")),
            [
            "feed reads email_notification, sms_notification, push_notification together: one `notification` collection told apart by `kind` answers it with one query"
            ]
        );
    }

    #[test]
    fn stays_quiet() {
        let verdicts = judge_entities(&RULE, &example("auction-catalog.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
