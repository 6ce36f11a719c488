//! `many-to-many-one-way`: Keep ids only on the small side of an uneven many-to-many (a book's categories, not a category's books).

crate::rules::declare_rule! {
    id: "many-to-many-one-way",
    summary: "Keep ids only on the small side of an uneven many-to-many (a book's categories, not a category's books)",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
    check: Relationship { order: 110, check },
}

use crate::design::{Layout, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports ids on one side only of an uneven many-to-many: the side whose
/// arrays stay small, when the other side's would not.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::ManyToManyOneWay { ids_in } = cx.layout else {
        return None;
    };
    let rel = cx.rel();
    let bound = cx.facts.settings.cardinality.reference_array_max;
    let (small, large, holder, other) = match ids_in {
        Side::Parent => (rel.children.max, rel.parents.max, cx.parent(), cx.child()),
        Side::Child => (rel.parents.max, rel.children.max, cx.child(), cx.parent()),
    };
    let small_ok = small.finite().is_some_and(|n| n <= bound);
    let large_big = large.finite().is_none_or(|n| n > bound);
    (small_ok && large_big).then(|| {
        Judgement::Support(format!(
            "{} has at most {} {} but {} can have {} {}: keep the ids in the {holder} only",
            words::a(&holder),
            words::num(small.finite().unwrap_or(0) as f64),
            words::plural(&other),
            words::a(&other),
            large.finite().map_or("an unbounded number of".to_string(), |n| words::num(n as f64)),
            words::plural(&holder)
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
            judge(&RULE, &example("books-categories.yaml"), "categories", "many-to-many-one-way"),
            "support: a book has at most 3 categories but a category can have 500,000 books: keep the ids in the book only"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("books-categories.yaml"), "categories", "many-to-many-two-way"), "-");
    }
}
