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

explain!(OneToFew, |w| format!(
    "{} has {} {} and they are never used on their own: one-to-few, embed them",
    words::a(&w.parent),
    words::at_most(w.max.map(|m| m.value)),
    words::items(w.items.as_deref(), &w.child)
));

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

    /// Near miss: 11 addresses, one past `cardinality.few-max` (10).
    #[test]
    fn stays_quiet_just_under() {
        let model = example("person-addresses.yaml").replace("max: 5}", "max: 11}");
        assert_eq!(judge(&RULE, &model, "addresses", "embed"), "-");
    }
}
