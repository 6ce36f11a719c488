//! `one-to-one-embed`: Embed a one-to-one relationship as a sub-document (linking is the exception).

crate::rules::declare_rule! {
    id: "one-to-one-embed",
    summary: "Embed a one-to-one relationship as a sub-document (linking is the exception)",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 50, check },
}

use crate::design::Layout;
use crate::design::reason::explain;
use crate::model::RelationshipKind;
use crate::rules::judge::{Judgement, RelCheck};
use serde::Serialize;

/// A one-to-one relationship kept as a sub-document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubDocument {
    pub parent: String,
    pub child: String,
}

explain!(SubDocument, |w| format!(
    "one {} per {}: a sub-document reads in the same query as its owner",
    w.child, w.parent
));

/// Supports a one-to-one relationship kept as a sub-document.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (cx.rel().kind == RelationshipKind::OneToOne
        && matches!(cx.layout, Layout::Embed | Layout::EmbedParentInChild))
    .then(|| {
        Judgement::support(SubDocument {
            parent: cx.parent(),
            child: cx.child(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, SubDocument};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<SubDocument>(&RULE, &example("user-address.yaml"), "address", "embed"),
            SubDocument {
                parent: "user".into(),
                child: "address".into()
            }
        );
    }

    /// Near miss: the same model with at most 2 addresses a user (one-to-few,
    /// not one-to-one), embedded.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("user-address.yaml").replace(
            "kind: one-to-one\n",
            "children: {min: 0, typical: 1, max: 2}\n",
        );
        assert_eq!(judge(&RULE, &model, "address", "embed"), "-");
    }
}
