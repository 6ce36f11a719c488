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
use crate::design::Reason;
use crate::design::reason::explain;
use serde::Serialize;

/// Entities one read fetches together, kept in one collection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadTogether {
    /// The reads, the entities, the collection and the field that tells them apart.
    pub operations: Vec<String>,
    pub entities: Vec<String>,
    pub collection: String,
    pub discriminator: String,
}

explain!(ReadTogether, |w| format!(
    "{} reads {} together: one `{}` collection told apart by `{}` answers it with one query",
    w.operations.join(", "),
    w.entities.join(", "),
    w.collection,
    w.discriminator
));

/// Supports one collection for entities that one read fetches together.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<Reason> {
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
    Some(Reason::new(ReadTogether {
        operations: read_by
            .iter()
            .map(|o| model.operation(*o).name.clone())
            .collect(),
        entities: entities
            .iter()
            .map(|e| model.entity(*e).name.clone())
            .collect(),
        collection: collection.clone(),
        discriminator: discriminator.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, ReadTogether};
    use crate::rules::testing::{entity_support, example, judge_entities};

    #[test]
    fn fires() {
        assert_eq!(
            entity_support::<ReadTogether>(&RULE, &example("notifications.yaml")),
            [ReadTogether {
                operations: vec!["feed".into()],
                entities: vec![
                    "email_notification".into(),
                    "sms_notification".into(),
                    "push_notification".into()
                ],
                collection: "notification".into(),
                discriminator: "kind".into()
            }]
        );
    }

    /// The rule has no threshold: it describes every such candidate the
    /// search offers. What can be checked is that it says nothing of
    /// the other entity candidates (a guard test, named as one).
    #[test]
    fn says_nothing_of_other_candidates() {
        let verdicts = judge_entities(&RULE, &example("auction-catalog.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
