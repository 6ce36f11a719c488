//! `shared-id`: A one-to-one child kept apart can take its parent's _id: no reference field, no index, found by the id the application has.

crate::rules::declare_rule! {
    id: "shared-id",
    summary: "A one-to-one child kept apart can take its parent's _id: no reference field, no index, found by the id the application has",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "MongoDB manual: the _id field"],
    check: Relationship { order: 85, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::model::RelationshipKind;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Whether the child can live under its parent's `_id`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "because", rename_all = "snake_case")]
pub enum SharedId {
    /// Several children per parent cannot share one `_id`.
    SeveralChildren { parent: String, child: String },
    /// Children move to another parent this often; an `_id` cannot change.
    Moves {
        parent: String,
        child: String,
        relinks: Figure,
    },
    /// At most one child per parent: it can live under the parent's `_id`.
    OnePerParent { parent: String, child: String },
}

explain!(SharedId, |w| match w {
    SharedId::SeveralChildren { parent, child } => format!(
        "{} has several {}: they cannot all take its _id",
        words::a(parent),
        words::plural(child)
    ),
    SharedId::Moves {
        parent,
        child,
        relinks,
    } => format!(
        "{} moves to another {parent} {}: a document's _id cannot change",
        words::a(child),
        words::rate(relinks.value)
    ),
    SharedId::OnePerParent { parent, child } => format!(
        "each {parent} has at most one {child}: it can live under the {parent}'s _id, with no reference field and no index, found by the id the application already has"
    ),
});

/// Supports the shared `_id` for a one-to-one; forbids it where the child
/// moves to another parent (its `_id` cannot change).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::SharedId) {
        return None;
    }
    let (parent, child) = (cx.parent(), cx.child());
    if cx.rel().kind != RelationshipKind::OneToOne {
        return Some(Judgement::forbid(SharedId::SeveralChildren { parent, child }));
    }
    let relinks = cx.rf().relinks;
    if relinks > 0.0 {
        return Some(Judgement::forbid(SharedId::Moves {
            parent,
            child,
            relinks: Figure::per_second(relinks),
        }));
    }
    Some(Judgement::support(SharedId::OnePerParent { parent, child }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, SharedId};
    use crate::design::Figure;
    use crate::rules::testing::{example, forbid, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<SharedId>(&RULE, &example("scenarios/s13-user-profile.yaml"), "user_settings", "shared-id"),
            SharedId::OnePerParent {
                parent: "user".into(),
                child: "setting".into()
            }
        );
    }

    /// Near miss: the same settings under the user's id, moved to another
    /// user once in a long while: any move breaks the shared id, so the
    /// support is gone (and the layout forbidden).
    #[test]
    fn stays_quiet_just_under() {
        let model = format!(
            "{}  move_settings:\n    update: settings\n    filter: {{_id: eq}}\n    relinks: [user_settings]\n    rate: 0.000001\n",
            example("scenarios/s13-user-profile.yaml")
        );
        assert_eq!(
            forbid::<SharedId>(&RULE, &model, "user_settings", "shared-id"),
            SharedId::Moves {
                parent: "user".into(),
                child: "setting".into(),
                relinks: Figure::per_second(0.000001)
            }
        );
    }
}
