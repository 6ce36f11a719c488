//! `parent-reference`: Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it.

crate::rules::declare_rule! {
    id: "parent-reference",
    summary: "Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 80, check },
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::words;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports the parent's id in each child for one-to-squillions.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::ParentReference)
        && cx.class() == CardinalityClass::OneToSquillions)
        .then(|| {
            Judgement::Support(format!(
"{} has {} {}: one-to-squillions, each {} keeps its {}'s id (indexed)", words::a(&cx.parent()), cx.max_words(), words::plural(&cx.child()), cx.child(), words::singular(&cx.parent())
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
            judge(&RULE, &example("page-views.yaml"), "views", "parent-reference"),
            "support: a page has an unbounded number of views: one-to-squillions, each view keeps its page's id (indexed)"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("page-views.yaml"), "views", "embed"), "-");
    }
}
