//! `two-way-references`: Reference both ways when both directions are queried; reassigning then takes two non-atomic updates.

crate::rules::declare_rule! {
    id: "two-way-references",
    summary: "Reference both ways when both directions are queried; reassigning then takes two non-atomic updates",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
    check: Relationship { order: 90, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports references both ways when both directions are read.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let rf = cx.rf();
    (matches!(cx.layout, Layout::TwoWayReferences) && rf.reads_down > 0.0 && rf.reads_up > 0.0)
        .then(|| {
            Judgement::Support(format!(
"both directions are read: {}/s from {} to its {} and {}/s from {} to its {}", words::num(rf.reads_down), words::a(&cx.parent()), words::plural(&cx.child()), words::num(rf.reads_up), words::a(&cx.child()), cx.parent()
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
            judge(&RULE, &example("person-tasks.yaml"), "tasks", "two-way-references"),
            "support: both directions are read: 50/s from a person to its tasks and 80/s from a task to its person"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("person-tasks.yaml"), "tasks", "embed"), "-");
    }
}
