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
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A child several parents share.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shared {
    pub parent: String,
    pub child: String,
}

explain!(Shared, |w| format!(
    "{} can belong to several {}: a reference keeps one copy of it",
    words::a(&w.child),
    words::plural(&w.parent)
));

/// Supports referencing what is shared by several parents or many-to-many.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if cx.embeds() || matches!(cx.layout, Layout::Bucket { .. }) {
        return None;
    }
    (cx.many_to_many() || cx.rel().shared).then(|| {
        Judgement::support(Shared {
            parent: cx.parent(),
            child: cx.child(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, Shared};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Shared>(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-one-way"),
            Shared {
                parent: "book".into(),
                child: "author".into()
            }
        );
    }

    /// Near miss: an array of ids of children that only one parent has
    /// (comments of a post: neither shared nor many-to-many).
    #[test]
    fn stays_quiet_just_under() {
        assert_eq!(judge(&RULE, &example("blog-comments-embed.yaml"), "comments", "child-references"), "-");
    }
}
