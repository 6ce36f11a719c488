//! `denormalize-into-squillions`: Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query.

crate::rules::declare_rule! {
    id: "denormalize-into-squillions",
    summary: "Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
    check: Relationship { order: 120, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout, Side};
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A one-to-squillions relationship, and the denormalization it supports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "layout", rename_all = "snake_case")]
pub enum Squillions {
    /// The one side's `fields` copied into each child.
    CopyIntoChildren {
        relationship: String,
        parent: String,
        child: String,
        /// At most this many children per parent (`null`: unbounded).
        max: Option<Figure>,
        fields: Vec<String>,
        /// What a count of the children calls them, where the
        /// relationship does not call them by the child's plural
        /// (`RelCheck::items`); absent otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        items: Option<String>,
    },
    /// The one side folded into each child.
    FoldParent { parent: String, child: String },
}

explain!(Squillions, |w| match w {
    Squillions::CopyIntoChildren {
        relationship: _,
        parent,
        child,
        max,
        fields,
        items,
    } => format!(
        "{} has {} {}: copying {} into each {child} answers reads of {} with the {}'s {} in one query",
        words::a(parent),
        words::at_most(max.map(|m| m.value)),
        words::items(items.as_deref(), child),
        fields.join(", "),
        words::plural(child),
        words::singular(parent),
        fields.join(", ")
    ),
    Squillions::FoldParent { parent, child } => format!(
        "the {parent} side is small and only read with its {}: folding it into each {child} drops a collection and a query",
        words::plural(child)
    ),
});

/// Supports copying the one side's fields into each child of a one-to-squillions
/// relationship (or folding the one side into them).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if cx.class() != CardinalityClass::OneToSquillions {
        return None;
    }
    match cx.layout {
        Layout::ExtendedReference {
            copies_into: Side::Child,
            fields,
        } => Some(Judgement::support(Squillions::CopyIntoChildren {
            relationship: cx.rel().name.clone(),
            parent: cx.parent(),
            child: cx.child(),
            max: Figure::max(cx.max_children()),
            fields: fields.clone(),
            items: cx.items(),
        })),
        Layout::EmbedParentInChild => Some(Judgement::support(Squillions::FoldParent {
            parent: cx.parent(),
            child: cx.child(),
        })),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{RULE, Squillions};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Squillions>(&RULE, &example("page-views.yaml"), "views", "embed-parent-in-child"),
            Squillions::FoldParent {
                parent: "page".into(),
                child: "view".into()
            }
        );
    }

    /// Near miss: at most 5,000 views a page, still one-to-many.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("page-views.yaml").replace("typical: 20000, max: unbounded", "typical: 2000, max: 5000");
        assert_eq!(judge(&RULE, &model, "views", "embed-parent-in-child"), "-");
    }
}
