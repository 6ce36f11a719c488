//! `shared-id`: A one-to-one child kept apart can take its parent's _id: no reference field, no index, found by the id the application has.

crate::rules::declare_rule! {
    id: "shared-id",
    summary: "A one-to-one child kept apart can take its parent's _id: no reference field, no index, found by the id the application has",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "MongoDB manual: the _id field"],
    check: Relationship { order: 85, check },
}

use crate::design::Layout;
use crate::model::RelationshipKind;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports the shared `_id` for a one-to-one; forbids it where the child
/// moves to another parent (its `_id` cannot change).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::SharedId) {
        return None;
    }
    if cx.rel().kind != RelationshipKind::OneToOne {
        return Some(Judgement::Forbid(format!(
            "{} has several {}: they cannot all take its _id",
            words::a(&cx.parent()),
            words::plural(&cx.child())
        )));
    }
    let relinks = cx.rf().relinks;
    if relinks > 0.0 {
        return Some(Judgement::Forbid(format!(
            "{} moves to another {} {}: a document's _id cannot change",
            words::a(&cx.child()),
            cx.parent(),
            words::rate(relinks)
        )));
    }
    Some(Judgement::Support(format!(
        "each {} has at most one {}: it can live under the {}'s _id, with no reference field and no index, found by the id the application already has",
        cx.parent(),
        cx.child(),
        cx.parent()
    )))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("scenarios/s13-user-profile.yaml"), "user_settings", "shared-id"),
            "support: each user has at most one setting: it can live under the user's _id, with no reference field and no index, found by the id the application already has"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(
            judge(&RULE, &example("scenarios/s13-user-profile.yaml"), "user_settings", "embed"),
            "-"
        );
    }
}
