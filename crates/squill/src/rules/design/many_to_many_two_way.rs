//! `many-to-many-two-way`: Keep id arrays on both sides of a many-to-many when both sides are small.

crate::rules::declare_rule! {
    id: "many-to-many-two-way",
    summary: "Keep id arrays on both sides of a many-to-many when both sides are small",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
    check: Relationship { order: 100, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports id arrays on both sides of a many-to-many whose both sides are small
/// and both read.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(
        cx.layout,
        Layout::ManyToManyTwoWay | Layout::TwoWayExtendedReference { .. }
    ) {
        return None;
    }
    let rel = cx.rel();
    let bound = cx.facts.settings.cardinality.reference_array_max;
    let a = rel.children.max.finite()?;
    let b = rel.parents.max.finite()?;
    (a <= bound && b <= bound && cx.rf().reads_down > 0.0 && cx.rf().reads_up > 0.0).then(|| {
        Judgement::Support(format!(
"{} has at most {} {} and {} at most {} {}, and both directions are read: ids on both sides", words::a(&cx.parent()), words::num(a as f64), words::plural(&cx.child()), words::a(&cx.child()), words::num(b as f64), words::plural(&cx.parent())
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
            judge(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-two-way"),
            "support: a book has at most 5 authors and an author at most 20 books, and both directions are read: ids on both sides"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-one-way"), "-");
    }
}
