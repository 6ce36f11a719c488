//! `standalone-child`: A child that is read or updated on its own is a compelling reason not to embed it.

crate::rules::declare_rule! {
    id: "standalone-child",
    summary: "A child that is read or updated on its own is a compelling reason not to embed it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports keeping a child that is used on its own in its own collection.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if matches!(cx.layout, Layout::Embed | Layout::Bucket { .. }) || !cx.child_standalone() {
        return None;
    }
    let own = cx.rf().child_own_ops;
    Some(Judgement::Support(if own > 0.0 {
        format!(
            "{}s are used on their own ({}/s operations start from a {}): they keep their own documents",
            cx.child(),
            words::num(own),
            cx.child()
        )
    } else {
        format!(
            "{}s are used on their own: they keep their own documents",
            cx.child()
        )
    }))
}
