//! `unbounded-array`: Arrays must not grow without bound: no embedding beyond a couple of hundred, no id array beyond a few thousand.

crate::rules::declare_rule! {
    id: "unbounded-array",
    summary: "Arrays must not grow without bound: no embedding beyond a couple of hundred, no id array beyond a few thousand",
    kind: Design,
    severity: Error,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 30, check },
}

use crate::design::Layout;
use crate::model::Count;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Forbids arrays that grow without bound: embedded children beyond
/// `cardinality.embed-max`, id arrays beyond `cardinality.reference-array-max`.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let s = &cx.facts.settings.cardinality;
    let rel = cx.rel();
    let (count, bound, what, holder, item) = match cx.layout {
        Layout::Embed if rel.kind != crate::model::RelationshipKind::OneToOne => (
            rel.children.max,
            cx.facts.embed_bound(cx.r),
            "embedded",
            cx.parent(),
            cx.child(),
        ),
        l if matches!(l, Layout::ChildReferences | Layout::TwoWayReferences)
            || l.many_sides().is_some_and(|(p, _)| p.is_some()) =>
        {
            (
            rel.children.max,
            s.reference_array_max,
            "referenced",
            cx.parent(),
            cx.child(),
            )
        }
        _ => (Count::Finite(0), 0, "", String::new(), String::new()),
    };
    let too_many = |c: Count, b: u64| c.finite().is_none_or(|n| n > b);
    if !what.is_empty() && too_many(count, bound) {
        return Some(Judgement::Forbid(format!(
            "{} can have {} {}; an array of {what} {} must stay within {}",
            words::a(&holder),
            match count {
                Count::Finite(n) => words::num(n as f64),
                Count::Unbounded => "an unbounded number of".to_string(),
            },
            words::plural(&item),
            words::plural(&item),
            words::num(bound as f64)
        )));
    }
    // Ids of the parents in each child (N:M one-way into the child, two-way).
    if cx.layout.many_sides().is_some_and(|(_, c)| c.is_some())
        && too_many(rel.parents.max, s.reference_array_max)
    {
        return Some(Judgement::Forbid(format!(
"{} can belong to {} {}; an array of their ids must stay within {}", words::a(&cx.child()), match rel.parents.max {
                Count::Finite(n) => words::num(n as f64),
                Count::Unbounded => "an unbounded number of".to_string(),
            }, words::plural(&cx.parent()), words::num(s.reference_array_max as f64)
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
            judge(&RULE, &example("page-views.yaml"), "views", "embed"),
            "forbid: a page can have an unbounded number of views; an array of embedded views must stay within 1,011"
        );
    }

    /// The bound follows the child's size: at most 300 small invoice lines
    /// fit the budget; an unbounded number of comments never does.
    #[test]
    fn small_children_fit_more() {
        assert_eq!(judge(&RULE, &example("scenarios/s07-invoices.yaml"), "lines", "embed"), "-");
        assert!(
            judge(&RULE, &example("blog-comments-link.yaml"), "comments", "embed")
                .starts_with("forbid:")
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("page-views.yaml"), "views", "embed-parent-in-child"), "-");
    }
}
