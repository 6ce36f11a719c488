//! `reference-independent`: Reference what is large, updated on its own, shared by several parents, or many-to-many.

crate::rules::declare_rule! {
    id: "reference-independent",
    summary: "Reference what is large, updated on its own, shared by several parents, or many-to-many",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports referencing what is shared by several parents or many-to-many.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if cx.embeds() || matches!(cx.layout, Layout::Bucket { .. }) {
        return None;
    }
    let rel = cx.rel();
    if cx.many_to_many() || rel.shared {
        return Some(Judgement::Support(format!(
            "a {} can belong to several {}s: a reference keeps one copy of it",
            cx.child(),
            cx.parent()
        )));
    }
    None
}
