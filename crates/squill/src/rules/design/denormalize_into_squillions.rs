//! `denormalize-into-squillions`: Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query.

crate::rules::declare_rule! {
    id: "denormalize-into-squillions",
    summary: "Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
    check: Relationship { order: 120, check },
}

use crate::design::{Layout, Side};
use crate::model::CardinalityClass;
use crate::words;
use crate::rules::judge::{Judgement, RelCheck};

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
        } => Some(Judgement::Support(format!(
"{} has {} {} per {}: copying {} into each {} answers reads of {} with the {}'s {} in one query", cx.rel().name, cx.max_words(), words::plural(&cx.child()), cx.parent(), fields.join(", "), cx.child(), words::plural(&cx.child()), words::singular(&cx.parent()), fields.join(", ")
))),
        Layout::EmbedParentInChild => Some(Judgement::Support(format!(
"the {} side is small and only read with its {}: folding it into each {} drops a collection and a query", cx.parent(), words::plural(&cx.child()), cx.child()
))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("page-views.yaml"), "views", "embed-parent-in-child"),
            "support: the page side is small and only read with its views: folding it into each view drops a collection and a query"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("page-views.yaml"), "views", "embed"), "-");
    }
}
