//! `avoid-application-joins`: Every application-level join is another round trip; denormalize when reads depend on many joins.

crate::rules::declare_rule! {
    id: "avoid-application-joins",
    summary: "Every application-level join is another round trip; denormalize when reads depend on many joins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
}

use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports layouts that answer the reads through the relationship without an
/// application-level join (a round trip each).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (cx.reads() > 0.0 && cx.answers_reads_without_join()).then(|| {
        Judgement::Support(format!(
            "{}/s reads through {} need no second query",
            words::num(cx.reads()),
            cx.rel().name
        ))
    })
}
