//! `embed-one-to-few`: Embed the children in the parent when there are only a few and they are never needed on their own.

crate::rules::declare_rule! {
    id: "embed-one-to-few",
    summary: "Embed the children in the parent when there are only a few and they are never needed on their own",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 60, check },
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::words;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports embedding one-to-few children that never stand alone.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::Embed)
        && cx.class() == CardinalityClass::OneToFew
        && !cx.child_standalone())
    .then(|| {
        Judgement::Support(format!(
"{} has {} {} and they are never used on their own: one-to-few, embed them", words::a(&cx.parent()), cx.max_words(), words::plural(&cx.child())
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
            judge(&RULE, &example("person-addresses.yaml"), "addresses", "embed"),
            "support: a person has at most 5 addresses and they are never used on their own: one-to-few, embed them"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("person-addresses.yaml"), "addresses", "embed-parent-in-child"), "-");
    }
}
