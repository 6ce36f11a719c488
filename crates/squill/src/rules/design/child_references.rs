//! `child-references`: Keep an array of child ids in the parent for one-to-many (up to a few thousand) or stand-alone children, joined with $in.

crate::rules::declare_rule! {
    id: "child-references",
    summary: "Keep an array of child ids in the parent for one-to-many (up to a few thousand) or stand-alone children, joined with $in",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 70, check },
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::words;
use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use serde::Serialize;

/// Why the parent keeps an array of its children's ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "because", rename_all = "snake_case")]
pub enum IdArray {
    /// One-to-many: at most `max` children (`null`: unbounded).
    OneToMany {
        parent: String,
        child: String,
        max: Option<Figure>,
        /// What a count of the children calls them, where the
        /// relationship's name is not the child's plural; absent otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        items: Option<String>,
    },
    /// One-to-few children that stand alone.
    Standalone { parent: String, child: String },
}

explain!(IdArray, |w| match w {
    IdArray::OneToMany {
        parent,
        child,
        max,
        items,
    } => format!(
        "{} has {} {}: one-to-many, an array of their ids in the {parent} fetches them with one $in",
        words::a(parent),
        words::at_most(max.map(|m| m.value)),
        words::items(items.as_deref(), child)
    ),
    IdArray::Standalone { parent, child } => format!(
        "{} stand alone: the {parent} keeps their ids and fetches them with one $in",
        words::plural(child)
    ),
});

/// Supports an array of child ids for one-to-many (bounded by a few thousand),
/// or for children that stand alone or are shared.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::ChildReferences) {
        return None;
    }
    match cx.class() {
        CardinalityClass::OneToMany => Some(Judgement::support(IdArray::OneToMany {
            parent: cx.parent(),
            child: cx.child(),
            max: Figure::max(cx.max_children()),
            items: cx.items(),
        })),
        CardinalityClass::OneToFew if cx.child_standalone() => {
            Some(Judgement::support(IdArray::Standalone {
                parent: cx.parent(),
                child: cx.child(),
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{IdArray, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<IdArray>(&RULE, &example("blog-comments-embed.yaml"), "comments", "child-references"),
            IdArray::OneToMany {
                parent: "post".into(),
                child: "comment".into(),
                max: Some(Figure::count(30.0)),
                items: None,
            }
        );
    }

    /// Near miss: 5,001 comments a post, one past
    /// `cardinality.reference-array-max`: one-to-squillions, not one-to-many.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("blog-comments-embed.yaml").replace("max: 30}", "max: 5001}");
        assert_eq!(judge(&RULE, &model, "comments", "child-references"), "-");
    }
}
