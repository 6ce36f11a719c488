//! `outlier`: When the percentiles fit an embedded array but the maximum does not, embed up to a threshold and keep an outlier's rest apart.

crate::rules::declare_rule! {
    id: "outlier",
    summary: "When the percentiles fit an embedded array but the maximum does not, embed up to a threshold and keep an outlier's rest apart",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB blog: Building with Patterns: The Outlier Pattern"],
    check: Relationship { order: 145, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A skewed count: most parents have few children, a few have very many.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skewed {
    pub parent: String,
    pub child: String,
    /// `p95` or `p99`, and the children per parent at it.
    pub percentile: String,
    pub at_percentile: Figure,
    /// The most children a parent has (`null`: no bound).
    pub max: Option<Figure>,
    /// Children embedded before the rest overflow (what an array may hold).
    pub threshold: Figure,
    /// The share of parents with more than `threshold` children.
    pub share_above: Figure,
}

explain!(Skewed, |w| {
    let (parent, child) = (&w.parent, words::plural(&w.child));
    let one_in = if w.share_above.value > 0.0 {
        format!(
            "{} {parent} in {} has more",
            1,
            words::num((1.0 / w.share_above.value).round())
        )
    } else {
        format!("no {parent} has more")
    };
    format!(
        "{} of {child} per {parent} is {}, the largest has {}: {} {child} are embedded (what an array may hold) and {one_in}, keeping the rest in the {} collection; no {parent} document grows past {} {child}",
        w.percentile,
        words::num(w.at_percentile.value),
        w.max.map_or("no bound".to_string(), |m| words::num(m.value)),
        words::num(w.threshold.value),
        w.child,
        words::num(w.threshold.value),
    )
});

/// Supports the outlier layout with the percentile that justifies it, the
/// share of parents past the threshold, and how many reads take one
/// document.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Outlier { threshold } = cx.layout else {
        return None;
    };
    let children = &cx.rel().children;
    let (name, p) = children.highest_percentile()?;
    let share = children.share_above(*threshold)?;
    Some(Judgement::support(Skewed {
        parent: cx.parent(),
        child: cx.child(),
        percentile: name.to_string(),
        at_percentile: Figure::count(p as f64),
        max: Figure::max(children.max),
        threshold: Figure::count(*threshold as f64),
        share_above: Figure::ratio(share),
    }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, Skewed};
    use crate::design::Figure;
    use crate::design::Layout;
    use crate::rules::testing::{example, judge_layout, support};

    #[test]
    fn fires() {
        let got: Skewed = support(&RULE, &example("scenarios/s05-attendees.yaml"), "attendees", "outlier");
        assert_eq!((got.parent.as_str(), got.child.as_str()), ("event", "attendee"));
        assert_eq!((got.percentile.as_str(), got.at_percentile), ("p99", Figure::count(400.0)));
        assert_eq!(got.max, Some(Figure::count(2_000_000.0)));
        assert_eq!(got.threshold, Figure::count(1_133.0));
        // About 1 event in 1,804 has more than the threshold.
        assert_eq!((1.0 / got.share_above.value).round(), 1_804.0);
    }

    /// Near miss: the same outlier layout, on attendee counts given
    /// without a percentile: no skew the rule can measure. (The search
    /// offers the layout only on skewed counts, so it is given here.)
    #[test]
    fn stays_quiet_just_under() {
        let model = example("scenarios/s05-attendees.yaml").replace("typical: 30, p99: 400,", "typical: 30,");
        let layout = Layout::Outlier { threshold: 1_133 };
        assert_eq!(judge_layout(&RULE, &model, "attendees", &layout), "-");
    }
}
