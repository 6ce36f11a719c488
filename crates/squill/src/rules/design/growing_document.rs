//! `growing-document`: A document that keeps growing is rewritten in full on every update; bound it or move the growth out.

crate::rules::declare_rule! {
    id: "growing-document",
    summary: "A document that keeps growing is rewritten in full on every update; bound it or move the growth out",
    kind: Design,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "003_8caca105590b9080.txt"],
    check: Relationship { order: 200, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Children that keep arriving, kept out of the parent document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeepsGrowing {
    pub parent: String,
    pub child: String,
    /// New children per parent per day.
    pub per_day: Figure,
    /// When the growth has a spread: the busiest parent's children a day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busiest: Option<Figure>,
}

explain!(KeepsGrowing, |w| format!(
    "each {} gains {} {} a day{}: this layout keeps the {} document from growing with them",
    w.parent,
    words::num(w.per_day.value),
    words::plural(&w.child),
    w.busiest
        .map(|b| format!(" (the busiest {}: {})", w.parent, words::num(b.value)))
        .unwrap_or_default(),
    w.parent
));

/// Supports layouts that keep the parent document from growing when children
/// keep arriving (the parent is otherwise rewritten, larger, on every insert).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let spread = cx.facts.growth(cx.r)?;
    let growth = Some(spread.typical).filter(|g| *g > 0.0)?;
    matches!(
        cx.layout,
        Layout::ParentReference | Layout::Bucket { .. } | Layout::Subset { .. }
    )
    .then(|| {
        Judgement::support(KeepsGrowing {
            parent: cx.parent(),
            child: cx.child(),
            per_day: Figure::count(growth),
            busiest: spread
                .has_spread()
                .then(|| Figure::count(spread.busiest().1)),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{KeepsGrowing, RULE};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        let got: KeepsGrowing = support(&RULE, &example("page-views.yaml"), "views", "parent-reference");
        assert_eq!((got.parent.as_str(), got.child.as_str()), ("page", "view"));
        assert!((8.5..8.7).contains(&got.per_day.value), "{got:?}");
    }

    /// Near miss: the same pages, gaining no views a day (none recorded:
    /// inserts of 10/s would say they gain 8.64, and be followed).
    #[test]
    fn stays_quiet_just_under() {
        let model = example("page-views.yaml")
            .replace("growth_per_day: 8.64", "growth_per_day: 0")
            .replace("links: [views]\n    rate: 10", "links: [views]\n    rate: 0");
        assert!(model.contains("rate: 0"));
        assert_eq!(judge(&RULE, &model, "views", "parent-reference"), "-");
    }
}
