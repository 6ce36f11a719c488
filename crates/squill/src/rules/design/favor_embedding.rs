//! `favor-embedding`: Embed unless there is a compelling reason not to.

crate::rules::declare_rule! {
    id: "favor-embedding",
    summary: "Embed unless there is a compelling reason not to",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports embedding whenever nothing compelling argues against it (the child
/// is not used on its own, not shared, not many-to-many).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::Embed) && !cx.child_standalone() && !cx.many_to_many()).then(
        || {
            Judgement::Support(format!(
                "nothing requires {}s on their own: embedding is the default",
                cx.child()
            ))
        },
    )
}
