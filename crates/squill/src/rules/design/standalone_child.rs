//! `standalone-child`: A child that is read or updated on its own is a compelling reason not to embed it.

crate::rules::declare_rule! {
    id: "standalone-child",
    summary: "A child that is read or updated on its own is a compelling reason not to embed it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 170, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Children used on their own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standalone {
    pub child: String,
    /// Operations per second that start from a child (`null`: none measured;
    /// the model says the child stands alone).
    pub own_operations: Option<Figure>,
}

explain!(Standalone, |w| match w.own_operations {
    Some(own) => format!(
        "{} are used on their own ({}/s operations start from {}): they keep their own documents",
        words::plural(&w.child),
        words::num(own.value),
        words::a(&w.child)
    ),
    None => format!(
        "{} are used on their own: they keep their own documents",
        words::plural(&w.child)
    ),
});

/// Supports keeping a child that is used on its own in its own collection.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if matches!(cx.layout, Layout::Embed | Layout::Bucket { .. }) || !cx.child_standalone() {
        return None;
    }
    let own = cx.rf().child_own_ops;
    Some(Judgement::support(Standalone {
        child: cx.child(),
        own_operations: (own > 0.0).then(|| Figure::per_second(own)),
    }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, Standalone};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Standalone>(&RULE, &example("books-authors.yaml"), "authors", "many-to-many-one-way"),
            Standalone {
                child: "author".into(),
                own_operations: Some(Figure::per_second(60.0))
            }
        );
    }

    /// Near miss: the same address in its own documents, but never used on
    /// its own (the model says nothing of it standing alone).
    #[test]
    fn stays_quiet_just_under() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "child-references"), "-");
    }
}
