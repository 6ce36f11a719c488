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
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Reads both ways through the relationship.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BothWays {
    pub parent: String,
    pub child: String,
    /// Reads from a parent to its children, and from a child to its parent.
    pub down: crate::design::Figure,
    pub up: crate::design::Figure,
}

explain!(BothWays, |w| format!(
    "both directions are read: {}/s from {} to its {} and {}/s from {} to its {}",
    words::num(w.down.value),
    words::a(&w.parent),
    words::plural(&w.child),
    words::num(w.up.value),
    words::a(&w.child),
    w.parent
));

/// Supports references both ways when both directions are read.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let rf = cx.rf();
    (matches!(cx.layout, Layout::TwoWayReferences) && rf.reads_down > 0.0 && rf.reads_up > 0.0)
        .then(|| {
            Judgement::support(BothWays {
                parent: cx.parent(),
                child: cx.child(),
                down: crate::design::Figure::per_second(rf.reads_down),
                up: crate::design::Figure::per_second(rf.reads_up),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::{BothWays, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<BothWays>(&RULE, &example("person-tasks.yaml"), "tasks", "two-way-references"),
            BothWays {
                parent: "person".into(),
                child: "task".into(),
                down: Figure::per_second(50.0),
                up: Figure::per_second(80.0)
            }
        );
    }

    /// Near miss: the same references both ways, with the project's task
    /// list no longer reading each task's owner: one direction read.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("person-tasks.yaml").replace("    rate: 80\n", "    rate: 0\n");
        assert_eq!(judge(&RULE, &model, "tasks", "two-way-references"), "-");
    }
}
