//! `embed-one-to-few`: Embed the children in the parent when there are only a few and they are never needed on their own.

crate::rules::declare_rule! {
    id: "embed-one-to-few",
    summary: "Embed the children in the parent when there are only a few and they are never needed on their own",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 60, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A few children that never stand alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OneToFew {
    pub parent: String,
    pub child: String,
    /// At most this many children per parent.
    pub max: Option<Figure>,
    /// What a count of the children calls them, where the relationship's
    /// name is not the child's plural (`followers`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
}

explain!(OneToFew, |w| {
    let items = words::items(w.items.as_deref(), &w.child);
    if w.max.is_some_and(|m| m.value == 1.0) {
        return format!(
            "{} has at most one {} and it is never used on its own: embed it",
            words::a(&w.parent),
            words::singular(&items)
        );
    }
    format!(
        "{} has {} {items} and they are never used on their own: one-to-few, embed them",
        words::a(&w.parent),
        words::at_most(w.max.map(|m| m.value)),
    )
});

/// Supports embedding one-to-few children that never stand alone.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::Embed)
        && cx.class() == CardinalityClass::OneToFew
        && !cx.child_standalone())
    .then(|| {
        Judgement::support(OneToFew {
            parent: cx.parent(),
            child: cx.child(),
            max: Figure::max(cx.max_children()),
            items: cx.items(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{OneToFew, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<OneToFew>(&RULE, &example("person-addresses.yaml"), "addresses", "embed"),
            OneToFew {
                parent: "person".into(),
                child: "address".into(),
                max: Some(Figure::count(5.0)),
                items: None,
            }
        );
    }

    /// At most one child reads in the singular (issue 41's English: "a
    /// scooter has at most 1 reservations").
    #[test]
    fn at_most_one_is_singular() {
        let w = OneToFew {
            parent: "scooter".into(),
            child: "reservation".into(),
            max: Some(Figure::count(1.0)),
            items: None,
        };
        assert_eq!(
            crate::design::reason::Explain::words(&w),
            "a scooter has at most one reservation and it is never used on its own: embed it"
        );
    }

    /// Near miss: 11 addresses, one past `cardinality.few-max` (10).
    #[test]
    fn stays_quiet_just_under() {
        let model = example("person-addresses.yaml").replace("max: 5}", "max: 11}");
        assert_eq!(judge(&RULE, &model, "addresses", "embed"), "-");
    }
}
