//! `many-to-many-one-way`: Keep ids only on the small side of an uneven many-to-many (a book's categories, not a category's books).

crate::rules::declare_rule! {
    id: "many-to-many-one-way",
    summary: "Keep ids only on the small side of an uneven many-to-many (a book's categories, not a category's books)",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
    check: Relationship { order: 110, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// An uneven many-to-many: small arrays on one side, large on the other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Uneven {
    /// The side that keeps the ids, and how many it keeps at most.
    pub holder: String,
    pub holds: Figure,
    /// The other side, and how many holders one of it can have (`null`: unbounded).
    pub other: String,
    pub other_has: Option<Figure>,
    /// `cardinality.reference-array-max`.
    pub bound: Figure,
    /// What the counts call the other side's instances and the holders,
    /// where the relationship's fields do not call them by the entities'
    /// plurals (a folder's `shares`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub others_named: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holders_named: Option<String>,
}

explain!(Uneven, |w| format!(
    "{} has at most {} {} but {} can have {} {}: keep the ids in the {} only",
    words::a(&w.holder),
    words::num(w.holds.value),
    words::items(w.others_named.as_deref(), &w.other),
    words::a(&w.other),
    words::how_many(w.other_has.map(|m| m.value)),
    words::items(w.holders_named.as_deref(), &w.holder),
    w.holder
));

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
    let (others_named, holders_named) = match ids_in {
        Side::Parent => (cx.items(), cx.parent_items()),
        Side::Child => (cx.parent_items(), cx.items()),
    };
    let holds = small.finite().filter(|n| *n <= bound)?;
    let large_big = large.finite().is_none_or(|n| n > bound);
    large_big.then(|| {
        Judgement::support(Uneven {
            holder,
            holds: Figure::count(holds as f64),
            other,
            other_has: Figure::max(large),
            bound: Figure::count(bound as f64),
            others_named,
            holders_named,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, Uneven};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Uneven>(&RULE, &example("books-categories.yaml"), "categories", "many-to-many-one-way"),
            Uneven {
                holder: "book".into(),
                holds: Figure::count(3.0),
                other: "category".into(),
                other_has: Some(Figure::count(500_000.0)),
                bound: Figure::count(5_000.0),
                others_named: None,
                holders_named: None,
            }
        );
    }

    /// Near miss: 5,000 books a category, what an id array may still hold:
    /// the categories could keep their books' ids too.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("books-categories.yaml").replace("typical: 10000, max: 500000}", "typical: 1000, max: 5000}");
        assert_eq!(judge(&RULE, &model, "categories", "many-to-many-one-way"), "-");
    }
}
