//! `parent-reference`: Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it.

crate::rules::declare_rule! {
    id: "parent-reference",
    summary: "Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports the parent's id in each child for one-to-squillions.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::ParentReference)
        && cx.class() == CardinalityClass::OneToSquillions)
        .then(|| {
            Judgement::Support(format!(
                "a {} has {} {}s: one-to-squillions, each {} keeps its {}'s id (indexed)",
                cx.parent(),
                cx.max_words(),
                cx.child(),
                cx.child(),
                cx.parent()
            ))
        })
}
