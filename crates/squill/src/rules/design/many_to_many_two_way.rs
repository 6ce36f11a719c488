//! `many-to-many-two-way`: Keep id arrays on both sides of a many-to-many when both sides are small.

crate::rules::declare_rule! {
    id: "many-to-many-two-way",
    summary: "Keep id arrays on both sides of a many-to-many when both sides are small",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
    check: Relationship { order: 100, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A many-to-many small and read on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BothSmall {
    pub parent: String,
    pub child: String,
    /// At most this many children per parent, and parents per child.
    pub children: Figure,
    pub parents: Figure,
}

explain!(BothSmall, |w| format!(
    "{} has at most {} {} and {} at most {} {}, and both directions are read: ids on both sides",
    words::a(&w.parent),
    words::num(w.children.value),
    words::plural(&w.child),
    words::a(&w.child),
    words::num(w.parents.value),
    words::plural(&w.parent)
));

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
        Judgement::support(BothSmall {
            parent: cx.parent(),
            child: cx.child(),
            children: Figure::count(a as f64),
            parents: Figure::count(b as f64),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{BothSmall, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<BothSmall>(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-two-way"),
            BothSmall {
                parent: "book".into(),
                child: "author".into(),
                children: Figure::count(5.0),
                parents: Figure::count(20.0)
            }
        );
    }

    /// Near miss: 5,001 books an author, one past what an id array may hold.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("books-authors.yaml").replace("max: 20}", "max: 5001}");
        assert_eq!(judge(&RULE, &model, "authors", "many-to-many-two-way"), "-");
    }
}
