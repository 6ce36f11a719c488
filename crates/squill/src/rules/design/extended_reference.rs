//! `extended-reference`: Copy the few fields a read needs from the referenced document next to the reference.

crate::rules::declare_rule! {
    id: "extended-reference",
    summary: "Copy the few fields a read needs from the referenced document next to the reference",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt", "001_5782b55841006ac6.txt"],
    check: Relationship { order: 130, check },
}

use crate::design::Layout;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use serde::Serialize;

/// The fields of the other side that reads need, copied beside the reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CopyBeside {
    pub relationship: String,
    pub fields: Vec<String>,
}

explain!(CopyBeside, |w| format!(
    "reads through {} need only {} of the other side: a copy next to the reference saves the join",
    w.relationship,
    w.fields.join(", ")
));

/// Supports copying, next to a reference, the few fields a read needs.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let fields: Vec<&String> = match cx.layout {
        Layout::ExtendedReference { fields, .. } => fields.iter().collect(),
        // Copies on both sides: each side's reads, one sentence.
        Layout::TwoWayExtendedReference {
            copies_in_parent,
            copies_in_child,
        } => {
            let mut all: Vec<&String> = copies_in_parent.iter().collect();
            all.extend(copies_in_child.iter().filter(|f| !copies_in_parent.contains(f)));
            all
        }
        _ => return None,
    };
    cx.answers_reads_without_join().then(|| {
        Judgement::support(CopyBeside {
            relationship: cx.rel().name.clone(),
            fields: fields.into_iter().cloned().collect(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{CopyBeside, RULE};
    use crate::design::{Layout, Side};
    use crate::rules::testing::{example, judge_layout, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<CopyBeside>(&RULE, &example("host-ip-in-logs.yaml"), "messages", "extended-reference"),
            CopyBeside {
                relationship: "messages".into(),
                fields: vec!["ipaddr".into()]
            }
        );
    }

    /// Near miss: the same extended reference, copying the host's name
    /// where the read filters on its address: a join is still needed.
    #[test]
    fn stays_quiet_just_under() {
        let layout = Layout::ExtendedReference {
            copies_into: Side::Child,
            fields: vec!["name".into()],
        };
        assert_eq!(judge_layout(&RULE, &example("host-ip-in-logs.yaml"), "messages", &layout), "-");
    }
}
