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
