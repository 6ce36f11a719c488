//! `update-with-operators`: Change documents with update operators, never by replacing the whole document.

crate::rules::declare_rule! {
    id: "update-with-operators",
    summary: "Change documents with update operators, never by replacing the whole document",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    // Asked after `favor-embedding` (230): it explains a plan, it forbids nothing.
    check: Relationship { order: 240, check },
}

use crate::design::{Layout, Side};
use crate::model::OperationKind;
use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Updates of fields kept inside the parent, done in place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InPlace {
    pub parent: String,
    pub child: String,
    /// The fields the updates change, and how often they run together.
    pub fields: Vec<String>,
    pub updates: Figure,
}

explain!(InPlace, |w| format!(
    "a change to {}'s {} ({}/s) is a $set on its element inside {}, never a rewrite of the whole {}",
    words::a(&w.child),
    w.fields.join(", "),
    words::num(w.updates.value),
    words::a(&w.parent),
    w.parent
));

/// Supports a layout that keeps the child's fields (or copies of them) inside
/// the parent when the workload changes those fields: each change is a `$set`
/// on the element through the positional operator, not a new parent document.
/// squill's plans always write that way; the reason says so where it matters,
/// rather than a finding that repeats the plan.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let fields: Vec<String> = match cx.layout {
        Layout::Embed => cx
            .facts
            .model
            .entity(cx.rel().child)
            .fields
            .iter()
            .map(|f| f.name.clone())
            .collect(),
        Layout::ExtendedReference {
            copies_into: Side::Parent,
            fields,
        }
        | Layout::Subset { fields, .. } => fields.clone(),
        _ => return None,
    };
    let child = cx.rel().child;
    let (model, mix) = (cx.facts.model, cx.facts.mix);
    // The updates of the child that change any of those fields, each once.
    let mut names: Vec<&str> = Vec::new();
    let mut rate = 0.0;
    // The operations touching the child (an update of it among them), in
    // the workload's order, each once: a pass over every operation per
    // relationship and layout was quadratic in the model (issue 45).
    let touching = &cx.facts.ops_touching[child.index()];
    let ops = touching
        .iter()
        .enumerate()
        .filter(|(i, o)| *i == 0 || touching[i - 1] != **o)
        .map(|(_, o)| model.operation(*o));
    for op in ops {
        if let OperationKind::Update {
            entity, changes, ..
        } = &op.kind
            && *entity == child
        {
            let hit: Vec<&String> = changes.iter().filter(|c| fields.contains(c)).collect();
            if !hit.is_empty() && op.rate(mix) > 0.0 {
                rate += op.rate(mix);
                for c in hit {
                    if !names.contains(&c.as_str()) {
                        names.push(c);
                    }
                }
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    Some(Judgement::support(InPlace {
        parent: cx.parent(),
        child: cx.child(),
        fields: names.into_iter().map(str::to_string).collect(),
        updates: Figure::per_second(rate),
    }))
}

#[cfg(test)]
mod tests {
    use super::{InPlace, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<InPlace>(&RULE, &example("person-addresses.yaml"), "addresses", "embed"),
            InPlace {
                parent: "person".into(),
                child: "address".into(),
                fields: vec!["street".into(), "city".into()],
                updates: Figure::per_second(0.2)
            }
        );
    }

    /// Near miss: the same embedding, with the addresses never edited.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("person-addresses.yaml").replace("rate: 0.2", "rate: 0");
        assert_eq!(judge(&RULE, &model, "addresses", "embed"), "-");
    }
}
