//! `two-way-references`: Reference both ways when both directions are queried; reassigning then takes two non-atomic updates.

crate::rules::declare_rule! {
    id: "two-way-references",
    summary: "Reference both ways when both directions are queried; reassigning then takes two non-atomic updates",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports references both ways when both directions are read.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let rf = cx.rf();
    (matches!(cx.layout, Layout::TwoWayReferences) && rf.reads_down > 0.0 && rf.reads_up > 0.0)
        .then(|| {
            Judgement::Support(format!(
                "both directions are read: {}/s from a {} to its {}s and {}/s from a {} to its {}",
                words::num(rf.reads_down),
                cx.parent(),
                cx.child(),
                words::num(rf.reads_up),
                cx.child(),
                cx.parent()
            ))
        })
}
