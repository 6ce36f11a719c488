//! `child-references`: Keep an array of child ids in the parent for one-to-many (up to a few thousand) or stand-alone children, joined with $in.

crate::rules::declare_rule! {
    id: "child-references",
    summary: "Keep an array of child ids in the parent for one-to-many (up to a few thousand) or stand-alone children, joined with $in",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 70, check },
}

use crate::design::Layout;
use crate::model::CardinalityClass;
use crate::words;
use crate::rules::judge::{Judgement, RelCheck};

/// Supports an array of child ids for one-to-many (bounded by a few thousand),
/// or for children that stand alone or are shared.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::ChildReferences) {
        return None;
    }
    match cx.class() {
        CardinalityClass::OneToMany => Some(Judgement::Support(format!(
"{} has {} {}: one-to-many, an array of their ids in the {} fetches them with one $in", words::a(&cx.parent()), cx.max_words(), words::plural(&cx.child()), cx.parent()
))),
        CardinalityClass::OneToFew if cx.child_standalone() => Some(Judgement::Support(format!(
"{} stand alone: the {} keeps their ids and fetches them with one $in", words::plural(&cx.child()), cx.parent()
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
            judge(&RULE, &example("blog-comments-embed.yaml"), "comments", "child-references"),
            "support: a post has at most 30 comments: one-to-many, an array of their ids in the post fetches them with one $in"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("blog-comments-embed.yaml"), "comments", "embed"), "-");
    }
}
