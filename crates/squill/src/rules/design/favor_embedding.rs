//! `favor-embedding`: Embed unless there is a compelling reason not to.

crate::rules::declare_rule! {
    id: "favor-embedding",
    summary: "Embed unless there is a compelling reason not to",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 230, check },
}

use crate::design::Layout;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Children nothing needs on their own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbedByDefault {
    pub child: String,
}

explain!(EmbedByDefault, |w| format!(
    "nothing requires {} on their own: embedding is the default",
    words::plural(&w.child)
));

/// Supports embedding whenever nothing compelling argues against it (the child
/// is not used on its own, not shared, not many-to-many).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::Embed) && !cx.child_standalone() && !cx.many_to_many())
        .then(|| Judgement::support(EmbedByDefault { child: cx.child() }))
}

#[cfg(test)]
mod tests {
    use super::{EmbedByDefault, RULE};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<EmbedByDefault>(&RULE, &example("user-address.yaml"), "address", "embed"),
            EmbedByDefault {
                child: "address".into()
            }
        );
    }

    /// Near miss: the same embedding, with the address used on its own.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("user-address.yaml")
            .replace("child_field: user_id\n", "child_field: user_id\n    standalone: true\n");
        assert_eq!(judge(&RULE, &model, "address", "embed"), "-");
    }
}
