//! `reference-independent`: Reference what is large, updated on its own, shared by several parents, or many-to-many.

crate::rules::declare_rule! {
    id: "reference-independent",
    summary: "Reference what is large, updated on its own, shared by several parents, or many-to-many",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
    check: Relationship { order: 180, check },
}

use crate::design::Layout;
use crate::words;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports referencing what is shared by several parents or many-to-many.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if cx.embeds() || matches!(cx.layout, Layout::Bucket { .. }) {
        return None;
    }
    let rel = cx.rel();
    if cx.many_to_many() || rel.shared {
        return Some(Judgement::Support(format!(
"{} can belong to several {}: a reference keeps one copy of it", words::a(&cx.child()), words::plural(&cx.parent())
)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-one-way"),
            "support: an author can belong to several books: a reference keeps one copy of it"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "embed"), "-");
    }
}
