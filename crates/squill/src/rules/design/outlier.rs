//! `outlier`: When the percentiles fit an embedded array but the maximum does not, embed up to a threshold and keep an outlier's rest apart.

crate::rules::declare_rule! {
    id: "outlier",
    summary: "When the percentiles fit an embedded array but the maximum does not, embed up to a threshold and keep an outlier's rest apart",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB blog: Building with Patterns: The Outlier Pattern"],
    check: Relationship { order: 145, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

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
    let parent = cx.parent();
    let child = words::plural(&cx.child());
    let one_in = if share > 0.0 {
        format!(
            "{} {parent} in {} has more",
            1,
            words::num((1.0 / share).round())
        )
    } else {
        format!("no {parent} has more")
    };
    Some(Judgement::Support(format!(
        "{name} of {child} per {parent} is {}, the largest has {}: {} {child} are embedded (what an array may hold) and {one_in}, keeping the rest in the {} collection; no {parent} document grows past {} {child}",
        words::num(p as f64),
        children
            .max
            .finite()
            .map_or("no bound".to_string(), |m| words::num(m as f64)),
        words::num(*threshold as f64),
        cx.child(),
        words::num(*threshold as f64),
    )))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("scenarios/s05-attendees.yaml"), "attendees", "outlier"),
            "support: p99 of attendees per event is 400, the largest has 2,000,000: 1,133 attendees are embedded (what an array may hold) and 1 event in 1,804 has more, keeping the rest in the attendee collection; no event document grows past 1,133 attendees"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("scenarios/s05-attendees.yaml"), "attendees", "embed"), "-");
    }
}
