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
use crate::words;

/// Supports a computed count (or sum) that every read asks for within a
/// tolerance: the reason gives the batch, the writes it saves against an
/// exact counter and the lag it allows.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<String> {
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
    let child = words::plural(&model.entity(rel.child).name);
    let parent = &model.entity(rel.parent).name;
    let exact = rf.child_inserts;
    let batched = exact / *every as f64;
    let typical = facts.typical(*relationship);
    Some(format!(
        "the readers accept an error: add up {every} {child} and $inc {parent}.{name} by their number, {} writes/s instead of {} for an exact counter; the count shown lags by at most {} {child}, {} of a typical {parent}'s {}",
        words::num(batched),
        words::num(exact),
        words::num((*every - 1) as f64),
        words::percent((*every - 1) as f64 / typical.max(1.0)),
        words::num(typical),
    ))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_entities};

    #[test]
    fn fires() {
        assert_eq!(
            judge_entities(&RULE, &example("scenarios/s10-view-counts.yaml")),
            [
                "the readers accept an error: add up 200 views and $inc article.views_count by their number, 1,000 writes/s instead of 200,000 for an exact counter; the count shown lags by at most 199 views, 1.0% of a typical article's 20,000"
            ]
        );
    }

    /// An exact count (page-views shows its count as it is) is not batched.
    #[test]
    fn stays_quiet() {
        let verdicts = judge_entities(&RULE, &example("page-views.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
