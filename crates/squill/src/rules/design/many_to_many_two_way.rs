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
    /// What the counts call the children and the parents, where the
    /// relationship's fields do not call them by the entities' plurals
    /// (a team's `members`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_items: Option<String>,
}

explain!(BothSmall, |w| format!(
    "{} has at most {} {} and {} at most {} {}, and both directions are read: ids on both sides",
    words::a(&w.parent),
    words::num(w.children.value),
    words::items(w.items.as_deref(), &w.child),
    words::a(&w.child),
    words::num(w.parents.value),
    words::items(w.parent_items.as_deref(), &w.parent)
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
            items: cx.items(),
            parent_items: cx.parent_items(),
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
                parents: Figure::count(20.0),
                items: None,
                parent_items: None,
            }
        );
    }

    /// Issue 41: S9's teams count their `members` (the field that holds
    /// them), not "500 users"; a user's `teams` are the parents' plural.
    #[test]
    fn counts_by_the_fields_that_hold_the_links() {
        use crate::design::reason::Explain;
        let found = support::<BothSmall>(
            &RULE,
            &example("scenarios/s09-teams.yaml"),
            "memberships",
            "many-to-many-two-way",
        );
        assert_eq!(found.items.as_deref(), Some("members"));
        assert_eq!(found.parent_items, None);
        assert!(
            found
                .words()
                .starts_with("a team has at most 500 members and a user at most 50 teams,"),
            "{}",
            found.words()
        );
    }

    /// Near miss: 5,001 books an author, one past what an id array may hold.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("books-authors.yaml").replace("max: 20}", "max: 5001}");
        assert_eq!(judge(&RULE, &model, "authors", "many-to-many-two-way"), "-");
    }
}
