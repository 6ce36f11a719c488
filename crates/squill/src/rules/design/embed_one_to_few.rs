//! `embed-one-to-few`: Embed the children in the parent when there are only a few and they are never needed on their own.

crate::rules::declare_rule! {
    id: "embed-one-to-few",
    summary: "Embed the children in the parent when there are only a few and they are never needed on their own",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports embedding one-to-few children that never stand alone.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::Embed)
        && cx.class() == CardinalityClass::OneToFew
        && !cx.child_standalone())
    .then(|| {
        Judgement::Support(format!(
            "a {} has {} {}s and they are never used on their own: one-to-few, embed them",
            cx.parent(),
            cx.max_words(),
            cx.child()
        ))
    })
}
