//! `subset`: Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection.

crate::rules::declare_rule! {
    id: "subset",
    summary: "Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "002_6843193bac1933d0.txt"],
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports keeping the latest K children in the parent when they are read
/// more often than new children arrive.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Subset { k, .. } = cx.layout else {
        return None;
    };
    let rf = cx.rf();
    let reads: f64 = rf
        .limits
        .iter()
        .filter(|(l, _, _)| l <= k)
        .map(|(_, _, r)| r)
        .sum();
    (reads > 0.0 && reads >= rf.child_inserts).then(|| {
        Judgement::Support(format!(
            "the latest {} {}s are read {}/s and new ones arrive {}/s: keep them in the {}, all of them in their own collection",
            words::num(*k as f64),
            cx.child(),
            words::num(reads),
            words::num(rf.child_inserts),
            cx.parent()
        ))
    })
}
