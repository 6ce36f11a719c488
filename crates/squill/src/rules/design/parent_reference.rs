//! `parent-reference`: Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it.

crate::rules::declare_rule! {
    id: "parent-reference",
    summary: "Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 80, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A one-to-squillions relationship: the parent's id in each child.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OneToSquillions {
    pub parent: String,
    pub child: String,
    /// At most this many children per parent (`null`: unbounded).
    pub max: Option<Figure>,
    /// What a count of the children calls them, where the relationship's
    /// name is not the child's plural (`followers`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    /// No operation of the design looks children up by the reference, so
    /// the design has no index on it (the reason then does not say
    /// "indexed"); absent from the evidence when it is indexed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unindexed: bool,
}

explain!(OneToSquillions, |w| format!(
    "{} has {} {}: one-to-squillions, each {} keeps its {}'s id{}",
    words::a(&w.parent),
    words::at_most(w.max.map(|m| m.value)),
    words::items(w.items.as_deref(), &w.child),
    w.child,
    words::singular(&w.parent),
    if w.unindexed {
        " (no operation looks them up by it: no index)"
    } else {
        " (indexed)"
    }
));

/// The reason for a design that keeps the parent's id in each child but
/// has no index on it: the rule supports the layout before the plans are
/// known, and only the design knows which indexes it builds.
pub fn unindexed(cx: &RelCheck<'_>) -> crate::design::Reason {
    crate::design::Reason::new(OneToSquillions {
        parent: cx.parent(),
        child: cx.child(),
        max: Figure::max(cx.max_children()),
        items: cx.items(),
        unindexed: true,
    })
}

/// Supports the parent's id in each child for one-to-squillions.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::ParentReference)
        && cx.class() == CardinalityClass::OneToSquillions)
        .then(|| {
            Judgement::support(OneToSquillions {
                parent: cx.parent(),
                child: cx.child(),
                max: Figure::max(cx.max_children()),
                items: cx.items(),
                unindexed: false,
            })
        })
}

#[cfg(test)]
mod tests {
    use super::{OneToSquillions, RULE};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<OneToSquillions>(&RULE, &example("page-views.yaml"), "views", "parent-reference"),
            OneToSquillions {
                parent: "page".into(),
                child: "view".into(),
                max: None,
                items: None,
                unindexed: false,
            }
        );
    }

    /// Issue 41: a user's `followers` (each a `follow`) are counted by
    /// the relationship's name, not as "80,000,000 follows"; the user's
    /// `following`, no plural of its own, keeps the child's plural.
    #[test]
    fn counts_the_children_by_the_relationship_where_it_names_them() {
        use crate::design::reason::Explain;
        let model = example("scenarios/s14-follow-graph.yaml");
        let followers = support::<OneToSquillions>(&RULE, &model, "followers", "parent-reference");
        assert_eq!(followers.items.as_deref(), Some("followers"));
        assert!(
            followers.words().starts_with("a user has at most 80,000,000 followers: "),
            "{}",
            followers.words()
        );
        let model = model.replace("max: 8000}", "max: 800000}");
        let following = support::<OneToSquillions>(&RULE, &model, "following", "parent-reference");
        assert_eq!(following.items, None);
        assert!(
            following.words().starts_with("a user has at most 800,000 follows: "),
            "{}",
            following.words()
        );
    }

    /// Near miss: at most 5,000 views a page, the most that is still
    /// one-to-many (`cardinality.reference-array-max`), not one-to-squillions.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("page-views.yaml").replace("typical: 20000, max: unbounded", "typical: 2000, max: 5000");
        assert_eq!(judge(&RULE, &model, "views", "parent-reference"), "-");
    }
}
