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
    /// The most children the count shown can lag by: `every - 1` for
    /// children that come one at a time, less for batches.
    pub lag: Figure,
    /// A parent's typical children: the lag's share is `lag / typical`.
    pub typical: Figure,
    /// New children per second, and their batches when inserts bring many.
    pub inserts: Figure,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<super::subset::Batches>,
}

explain!(Approximate, |w| {
    let (child, parent, every) = (words::plural(&w.child), &w.parent, w.every.value);
    let arriving = match &w.batches {
        Some(b) => format!(
            "; {child} arrive {}",
            super::subset::arrive(&w.inserts, Some(b))
        ),
        None => String::new(),
    };
    // Every insert brings at least `every` children to its parent: each
    // batch is one `$inc` by its number, exact, at an exact counter's
    // writes. Batching saves nothing, and nothing is approximate.
    if let (0.0, Some(b)) = (w.lag.value, &w.batches) {
        return format!(
            "the readers accept an error, but batching saves nothing: {child} arrive {}, each batch at least the {every} the error lets a write wait for, so each is one $inc of {parent}.{} by its number, {} writes/s as for an exact counter, and the count shown is exact",
            super::subset::arrive(&w.inserts, Some(b)),
            w.field,
            words::num(w.exact.value),
        );
    }
    format!(
        "the readers accept an error: add up {every} {child} and $inc {parent}.{} by their number, {} writes/s instead of {} for an exact counter{arriving}; the count shown lags by at most {} {child}, {} of a typical {parent}'s {}",
        w.field,
        words::num(w.batched.value),
        words::num(w.exact.value),
        words::num(w.lag.value),
        words::percent(w.lag.value / w.typical.value.max(1.0)),
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
    let writes = rf.counter_writes(*every);
    Some(Reason::new(Approximate {
        parent: model.entity(rel.parent).name.clone(),
        child: model.entity(rel.child).name.clone(),
        field: name.clone(),
        every: Figure::count(*every as f64),
        batched: Figure::per_second(writes.approximate),
        exact: Figure::per_second(writes.exact),
        lag: Figure::count(writes.lag),
        typical: Figure::count(facts.typical(*relationship)),
        inserts: Figure::per_second(rf.child_inserts),
        batches: super::subset::Batches::of(rf),
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
                lag: Figure::count(199.0),
                typical: Figure::count(20_000.0),
                inserts: Figure::per_second(200_000.0),
                batches: None,
            }]
        );
    }

    /// Views inserted 1,000 at a time into one article: each batch is one
    /// `$inc` of 1,000 whatever the counter's batch, so the exact and the
    /// approximate counter both write 200 times a second, the count never
    /// lags, and the reason says the views come in batches (issue 41).
    #[test]
    fn a_batch_as_large_as_the_counters_saves_nothing_and_says_so() {
        let yaml = example("scenarios/s10-view-counts.yaml").replace(
            "    links: [views]\n    rate: 200000",
            "    links: [views]\n    rate: 200\n    count: 1000",
        );
        let [a] = &entity_support::<Approximate>(&RULE, &yaml)[..] else {
            panic!("one approximate counter");
        };
        assert_eq!((a.exact.value, a.batched.value, a.lag.value), (200.0, 200.0, 0.0));
        // Review 40, finding 10.4: no claim of an error or a saving, and
        // no parentheses inside parentheses.
        let text = crate::design::reason::Explain::words(a);
        insta::assert_snapshot!(text, @"the readers accept an error, but batching saves nothing: views arrive 200,000/s, in batches of 1,000 (200 batches/s), each batch at least the 200 the error lets a write wait for, so each is one $inc of article.views_count by its number, 200 writes/s as for an exact counter, and the count shown is exact");
    }

    /// Views in batches of 100 against a counter's 200: every other batch
    /// is written, so the counter saves half the writes and lags by up to
    /// a batch; the rate of batches is not in parentheses inside others.
    #[test]
    fn a_batch_smaller_than_the_counters_is_added_up() {
        let yaml = example("scenarios/s10-view-counts.yaml").replace(
            "    links: [views]\n    rate: 200000",
            "    links: [views]\n    rate: 2000\n    count: 100",
        );
        let [a] = &entity_support::<Approximate>(&RULE, &yaml)[..] else {
            panic!("one approximate counter");
        };
        assert_eq!((a.exact.value, a.batched.value, a.lag.value), (2_000.0, 1_000.0, 100.0));
        let text = crate::design::reason::Explain::words(a);
        insta::assert_snapshot!(text, @"the readers accept an error: add up 200 views and $inc article.views_count by their number, 1,000 writes/s instead of 2,000 for an exact counter; views arrive 200,000/s, in batches of 100 (2,000 batches/s); the count shown lags by at most 100 views, 0.5% of a typical article's 20,000");
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
