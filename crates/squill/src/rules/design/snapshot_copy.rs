//! `snapshot-copy`: Keep the fields a child must show as they were when it was written as copies in the child, never through a reference.

crate::rules::declare_rule! {
    id: "snapshot-copy",
    summary: "Keep the fields a child must show as they were when it was written as copies in the child, never through a reference",
    kind: Design,
    severity: Error,
    sources: ["001_5782b55841006ac6.txt"],
    // A requirement of the model, asked with the other limits.
    check: Relationship { order: 15, check },
}

use crate::design::reason::explain;
use crate::design::{Layout, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Fields the child must keep as they were when it was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    pub parent: String,
    pub child: String,
    pub fields: Vec<String>,
}

explain!(Snapshot, |w| format!(
    "{} must keep the {}'s {} as they were when it was written; only a copy in the {} does, a reference shows today's",
    words::a(&w.child),
    w.parent,
    w.fields.join(", "),
    w.child
));

/// Forbids every layout that does not copy the relationship's snapshot
/// fields into the child: a reference would show the parent as it is now.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let snapshot = &cx.rel().snapshot;
    if snapshot.is_empty() {
        return None;
    }
    let kept = matches!(
        cx.layout,
        Layout::ExtendedReference { copies_into: Side::Child, fields }
            if snapshot.iter().all(|f| fields.contains(f))
    );
    (!kept).then(|| {
        Judgement::forbid(Snapshot {
            parent: cx.parent(),
            child: cx.child(),
            fields: snapshot.clone(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, Snapshot};
    use crate::design::{Layout, Side};
    use crate::rules::testing::{example, forbid, judge_layout};

    #[test]
    fn fires() {
        assert_eq!(
            forbid::<Snapshot>(&RULE, &example("scenarios/s07-invoices.yaml"), "sold", "parent-reference"),
            Snapshot {
                parent: "product".into(),
                child: "line".into(),
                fields: vec!["name".into(), "price".into()]
            }
        );
    }

    /// Near miss: the same line and product, with the product's name and
    /// price copied into the line: the snapshot is kept.
    #[test]
    fn stays_quiet_just_under() {
        let layout = Layout::ExtendedReference {
            copies_into: Side::Child,
            fields: vec!["name".into(), "price".into()],
        };
        assert_eq!(judge_layout(&RULE, &example("scenarios/s07-invoices.yaml"), "sold", &layout), "-");
    }
}
