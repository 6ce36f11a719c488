//! `denormalize-into-squillions`: Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query.

crate::rules::declare_rule! {
    id: "denormalize-into-squillions",
    summary: "Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
}

use crate::design::{Layout, Side};
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports copying the one side's fields into each child of a one-to-squillions
/// relationship (or folding the one side into them).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if cx.class() != CardinalityClass::OneToSquillions {
        return None;
    }
    match cx.layout {
        Layout::ExtendedReference {
            copies_into: Side::Child,
            fields,
        } => Some(Judgement::Support(format!(
            "{} has {} {}s per {}: copying {} into each {} answers reads of {}s with the {}'s {} in one query",
            cx.rel().name,
            cx.max_words(),
            cx.child(),
            cx.parent(),
            fields.join(", "),
            cx.child(),
            cx.child(),
            cx.parent(),
            fields.join(", ")
        ))),
        Layout::EmbedParentInChild => Some(Judgement::Support(format!(
            "the {} side is small and only read with its {}s: folding it into each {} drops a collection and a query",
            cx.parent(),
            cx.child(),
            cx.child()
        ))),
        _ => None,
    }
}
