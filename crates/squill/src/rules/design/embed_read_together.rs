//! `embed-read-together`: Data read together, one-to-one or one-to-few and bounded, belongs in one document.

crate::rules::declare_rule! {
    id: "embed-read-together",
    summary: "Data read together, one-to-one or one-to-few and bounded, belongs in one document",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
    check: Relationship { order: 160, check },
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports embedding what the workload reads together when it is one-to-one
/// or one-to-few and bounded.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let bounded_small = matches!(
        cx.class(),
        CardinalityClass::OneToOne | CardinalityClass::OneToFew
    );
    (matches!(cx.layout, Layout::Embed) && bounded_small && cx.rf().reads_down > 0.0).then(|| {
        Judgement::Support(format!(
"{}/s reads take {} with its {}, which are bounded ({}): one document answers them", words::num(cx.rf().reads_down), words::a(&cx.parent()), words::plural(&cx.child()), cx.max_words()
))
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("user-address.yaml"), "address", "embed"),
            "support: 100/s reads take a user with its addresses, which are bounded (at most 1): one document answers them"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "embed-parent-in-child"), "-");
    }
}
