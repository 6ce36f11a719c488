//! `subset`: Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection.

crate::rules::declare_rule! {
    id: "subset",
    summary: "Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "002_6843193bac1933d0.txt"],
    check: Relationship { order: 140, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// The latest children, read more often than new ones arrive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latest {
    pub parent: String,
    pub child: String,
    /// The children the parent keeps.
    pub kept: Figure,
    /// Reads of at most `kept` children, and new children, per second.
    pub reads: Figure,
    pub inserts: Figure,
}

explain!(Latest, |w| format!(
    "the latest {} {} are read {}/s and new ones arrive {}/s: keep them in the {}, all of them in their own collection",
    words::num(w.kept.value),
    words::plural(&w.child),
    words::num(w.reads.value),
    words::num(w.inserts.value),
    w.parent
));

/// Supports keeping the latest K children in the parent when they are read
/// more often than new children arrive.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Subset { k, .. } = cx.layout else {
        return None;
    };
    let rf = cx.rf();
    let reads: f64 = rf
        .limits
        .iter()
        .filter(|(l, _, _)| l <= k)
        .map(|(_, _, r)| r)
        .sum();
    (reads > 0.0 && reads >= rf.child_inserts).then(|| {
        Judgement::support(Latest {
            parent: cx.parent(),
            child: cx.child(),
            kept: Figure::count(*k as f64),
            reads: Figure::per_second(reads),
            inserts: Figure::per_second(rf.child_inserts),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{Latest, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Latest>(&RULE, &example("host-last-1000.yaml"), "messages", "subset"),
            Latest {
                parent: "host".into(),
                child: "logmsg".into(),
                kept: Figure::count(1_000.0),
                reads: Figure::per_second(100.0),
                inserts: Figure::per_second(20.0)
            }
        );
    }

    /// Near miss: the host page read 19 times a second, just under the 20
    /// messages that arrive: the subset would be rewritten more than read.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("host-last-1000.yaml").replace("rate: 100\n", "rate: 19\n");
        assert_eq!(judge(&RULE, &model, "messages", "subset"), "-");
    }
}
