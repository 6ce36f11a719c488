//! `computed-field`: Keep an aggregate the reads need up to date with $inc on write instead of computing it on every read.

crate::rules::declare_rule! {
    id: "computed-field",
    summary: "Keep an aggregate the reads need up to date with $inc on write instead of computing it on every read",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "002_6843193bac1933d0.txt"],
    check: Entity(check),
}

use crate::candidates::facts::Facts;
use crate::candidates::{EntityCandidate, fn_name};
use crate::words;

/// Supports keeping an aggregate of a relationship's children in the parent
/// when reads ask for it: the reason gives its read rate and the writes that
/// would maintain it.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<String> {
    let EntityCandidate::Computed {
        relationship,
        function,
        field,
        name,
        count,
        ..
    } = candidate
    else {
        return None;
    };
    let model = facts.model;
    let rel = model.relationship(*relationship);
    let rf = facts.rel(*relationship);
    let reads: f64 = rf
        .aggregates
        .iter()
        .filter(|(f, x, _)| f == function && x == field)
        .map(|(_, _, r)| r)
        .sum();
    if reads <= 0.0 {
        return None;
    }
    let child = &model.entity(rel.child).name;
    let parent = &model.entity(rel.parent).name;
    let what = field
        .as_ref()
        .map_or_else(|| words::plural(child), |f| format!("{child}.{f}"));
    // An average is kept as its sum and its count, which a child moves
    // with an `$inc` each; the reader divides.
    let kept = match count {
        Some(c) => format!("keep its sum in {parent}.{name} and the count in {parent}.{c}"),
        None => format!("keep it in {parent}.{name}"),
    };
    let (f, n, k, arrive) = (
        fn_name(*function),
        words::num(reads),
        words::plural(child),
        words::num(rf.child_inserts),
    );
    Some(format!(
        "reads ask for the {f} of {what} {n}/s while {k} arrive {arrive}/s: {kept}, maintained on write"
    ))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_entities};

    #[test]
    fn fires() {
        assert_eq!(
            judge_entities(&RULE, &example("page-views.yaml")),
            [
                "reads ask for the count of views 10/s while views arrive 10/s: keep it in page.views_count, maintained on write"
            ]
        );
    }

    #[test]
    fn stays_quiet() {
        let verdicts = judge_entities(&RULE, &example("notifications.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
