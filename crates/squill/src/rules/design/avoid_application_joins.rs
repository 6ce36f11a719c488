//! `avoid-application-joins`: Every application-level join is another round trip; denormalize when reads depend on many joins.

crate::rules::declare_rule! {
    id: "avoid-application-joins",
    summary: "Every application-level join is another round trip; denormalize when reads depend on many joins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 220, check },
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

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("user-address.yaml"), "address", "embed"),
            "support: 100/s reads through address need no second query"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "child-references"), "-");
    }
}
