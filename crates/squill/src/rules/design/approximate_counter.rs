//! `approximate-counter`: A count the readers accept within an error is written in batches, not on every child.

crate::rules::declare_rule! {
    id: "approximate-counter",
    summary: "A count the readers accept within an error is written in batches, not on every child",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB blog: Building with Patterns: The Approximation Pattern"],
    check: Entity(check),
}

use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::design::reason::explain;
use crate::design::{Figure, Reason};
use crate::words;
use serde::Serialize;

/// A count the readers accept approximate: batched increments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Approximate {
    pub parent: String,
    pub child: String,
    /// The computed field.
    pub field: String,
    /// Children added up per `$inc`.
    pub every: Figure,
    /// Writes per second batched, and for an exact counter.
    pub batched: Figure,
    pub exact: Figure,
    /// A parent's typical children: the lag's share is `(every - 1) / typical`.
    pub typical: Figure,
}

explain!(Approximate, |w| {
    let (child, parent, every) = (words::plural(&w.child), &w.parent, w.every.value);
    format!(
        "the readers accept an error: add up {every} {child} and $inc {parent}.{} by their number, {} writes/s instead of {} for an exact counter; the count shown lags by at most {} {child}, {} of a typical {parent}'s {}",
        w.field,
        words::num(w.batched.value),
        words::num(w.exact.value),
        words::num(every - 1.0),
        words::percent((every - 1.0) / w.typical.value.max(1.0)),
        words::num(w.typical.value),
    )
});

/// Supports a computed count (or sum) that every read asks for within a
/// tolerance: the reason gives the batch, the writes it saves against an
/// exact counter and the lag it allows.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<Reason> {
    let EntityCandidate::Computed {
        relationship,
        name,
        every,
        ..
    } = candidate
    else {
        return None;
    };
    if *every <= 1 {
        return None;
    }
    let model = facts.model;
    let rel = model.relationship(*relationship);
    let rf = facts.rel(*relationship);
    let exact = rf.child_inserts;
    Some(Reason::new(Approximate {
        parent: model.entity(rel.parent).name.clone(),
        child: model.entity(rel.child).name.clone(),
        field: name.clone(),
        every: Figure::count(*every as f64),
        batched: Figure::per_second(exact / *every as f64),
        exact: Figure::per_second(exact),
        typical: Figure::count(facts.typical(*relationship)),
    }))
}

#[cfg(test)]
mod tests {
    use super::{Approximate, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{entity_support, example, judge_entities};

    #[test]
    fn fires() {
        assert_eq!(
            entity_support::<Approximate>(&RULE, &example("scenarios/s10-view-counts.yaml")),
            [Approximate {
                parent: "article".into(),
                child: "view".into(),
                field: "views_count".into(),
                every: Figure::count(200.0),
                batched: Figure::per_second(1_000.0),
                exact: Figure::per_second(200_000.0),
                typical: Figure::count(20_000.0)
            }]
        );
    }

    /// Near miss: a view counter like s10's, kept exact (page-views shows
    /// its count as it is, a batch of 1): nothing is batched.
    #[test]
    fn stays_quiet_just_under() {
        let verdicts = judge_entities(&RULE, &example("page-views.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
