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
use crate::design::reason::explain;
use crate::design::{Figure, Reason};
use crate::words;
use serde::Serialize;

/// An aggregate the reads ask for, kept in the parent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Computed {
    pub parent: String,
    pub child: String,
    /// `count`, `sum`, `avg`, … of `of` (`null`: of the children).
    pub function: String,
    pub of: Option<String>,
    /// The parent's field that keeps it, and for an average the count beside it.
    pub field: String,
    pub count_field: Option<String>,
    /// Reads that ask for it, and children arriving, per second.
    pub reads: Figure,
    pub inserts: Figure,
    /// How the new children come when an insert brings many at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<super::subset::Batches>,
}

explain!(Computed, |w| {
    let (child, parent) = (&w.child, &w.parent);
    let what = w
        .of
        .as_ref()
        .map_or_else(|| words::plural(child), |f| format!("{child}.{f}"));
    // An average is kept as its sum and its count, which a child moves
    // with an `$inc` each; the reader divides.
    let kept = match &w.count_field {
        Some(c) => format!(
            "keep its sum in {parent}.{} and the count in {parent}.{c}",
            w.field
        ),
        None => format!("keep it in {parent}.{}", w.field),
    };
    format!(
        "reads ask for the {} of {what} {}/s while {} arrive {}: {kept}, maintained on write",
        w.function,
        words::num(w.reads.value),
        words::plural(child),
        super::subset::arrive(&w.inserts, w.batches.as_ref()),
    )
});

/// Supports keeping an aggregate of a relationship's children in the parent
/// when reads ask for it: the reason gives its read rate and the writes that
/// would maintain it.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<Reason> {
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
    Some(Reason::new(Computed {
        parent: model.entity(rel.parent).name.clone(),
        child: model.entity(rel.child).name.clone(),
        function: fn_name(*function).to_string(),
        of: field.clone(),
        field: name.clone(),
        count_field: count.clone(),
        reads: Figure::per_second(reads),
        inserts: Figure::per_second(rf.child_inserts),
        batches: super::subset::Batches::of(rf),
    }))
}

#[cfg(test)]
mod tests {
    use super::{Computed, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{entity_support, example, judge_entities};

    #[test]
    fn fires() {
        assert_eq!(
            entity_support::<Computed>(&RULE, &example("page-views.yaml")),
            [Computed {
                parent: "page".into(),
                child: "view".into(),
                function: "count".into(),
                of: None,
                field: "views_count".into(),
                count_field: None,
                reads: Figure::per_second(10.0),
                inserts: Figure::per_second(10.0),
                batches: None,
            }]
        );
    }

    /// Issue 41: reviews inserted 1,000 at a time arrive 1.2/s on
    /// average; the reason says the batches.
    #[test]
    fn children_inserted_in_batches_say_their_batches() {
        use crate::design::reason::Explain;
        let model = example("product-reviews.yaml").replace(
            "    links: [reviews]\n    rate: 1.2\n",
            "    links: [reviews]\n    rate: 0.0012\n    count: 1000\n",
        );
        let got = entity_support::<Computed>(&RULE, &model);
        let words: Vec<String> = got.iter().map(Explain::words).collect();
        assert!(
            words.iter().any(|w| w.contains(
                "while reviews arrive 1.2/s, in batches of 1,000 (0.0012 batches/s): keep it in product.reviews_count"
            )),
            "{words:?}"
        );
    }

    /// Near miss: the same view count, with the page that shows it never
    /// read: a counter nobody reads is not worth keeping.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("page-views.yaml").replace("    rate: 10\n    filter: {url: eq}", "    rate: 0\n    filter: {url: eq}");
        assert!(model.contains("rate: 0\n"));
        let verdicts = judge_entities(&RULE, &model);
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
