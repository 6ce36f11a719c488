//! `standalone-child`: A child that is read or updated on its own is a compelling reason not to embed it.

crate::rules::declare_rule! {
    id: "standalone-child",
    summary: "A child that is read or updated on its own is a compelling reason not to embed it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 170, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports keeping a child that is used on its own in its own collection.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if matches!(cx.layout, Layout::Embed | Layout::Bucket { .. }) || !cx.child_standalone() {
        return None;
    }
    let own = cx.rf().child_own_ops;
    Some(Judgement::Support(if own > 0.0 {
        format!(
"{} are used on their own ({}/s operations start from {}): they keep their own documents", words::plural(&cx.child()), words::num(own), words::a(&cx.child())
)
    } else {
        format!(
"{} are used on their own: they keep their own documents", words::plural(&cx.child())
)
    }))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-one-way"),
            "support: authors are used on their own (60/s operations start from an author): they keep their own documents"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "embed"), "-");
    }
}
