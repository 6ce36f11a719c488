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
use crate::words;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports embedding whenever nothing compelling argues against it (the child
/// is not used on its own, not shared, not many-to-many).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::Embed) && !cx.child_standalone() && !cx.many_to_many()).then(
        || {
            Judgement::Support(format!(
"nothing requires {} on their own: embedding is the default", words::plural(&cx.child())
))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("user-address.yaml"), "address", "embed"),
            "support: nothing requires addresses on their own: embedding is the default"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "embed-parent-in-child"), "-");
    }
}
