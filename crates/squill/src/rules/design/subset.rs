//! `subset`: Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection.

crate::rules::declare_rule! {
    id: "subset",
    summary: "Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "002_6843193bac1933d0.txt"],
    check: Relationship { order: 140, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

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
        Judgement::Support(format!(
"the latest {} {} are read {}/s and new ones arrive {}/s: keep them in the {}, all of them in their own collection", words::num(*k as f64), words::plural(&cx.child()), words::num(reads), words::num(rf.child_inserts), cx.parent()
))
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("host-last-1000.yaml"), "messages", "subset"),
            "support: the latest 1,000 logmsgs are read 100/s and new ones arrive 20/s: keep them in the host, all of them in their own collection"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("host-last-1000.yaml"), "messages", "embed"), "-");
    }
}
