//! `document-size-limit`: A document may not exceed 16 MiB at the relationship's maximum cardinality.

crate::rules::declare_rule! {
    id: "document-size-limit",
    summary: "A document may not exceed 16 MiB at the relationship's maximum cardinality",
    kind: Design,
    severity: Error,
    sources: ["000_34acd10fa9a500cb.txt", "003_8caca105590b9080.txt", "MongoDB manual: limits"],
}

use crate::candidates::placement::copy_bytes;
use crate::design::{Layout, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Forbids a layout whose document would pass the size limit at the
/// relationship's maximum cardinality (the parent's own fields plus the array
/// this layout puts in it).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let rel = cx.rel();
    let limit = f.settings.design.max_document_bytes as f64;
    let max = rel.children.max.finite()? as f64;
    let parent = f.own_bytes[rel.parent.index()];
    let per_item = match cx.layout {
        Layout::Embed => f.own_bytes[rel.child.index()] + 10.0,
        Layout::ChildReferences
        | Layout::TwoWayReferences
        | Layout::ManyToManyTwoWay
        | Layout::ManyToManyOneWay {
            ids_in: Side::Parent,
        } => 17.0,
        Layout::ExtendedReference {
            copies_into: Side::Parent,
            fields,
        } => copy_bytes(f, rel.child, fields) + 5.0,
        _ => return None,
    };
    let at_max = parent + max * per_item;
    (at_max > limit).then(|| {
        Judgement::Forbid(format!(
            "a {} with {} {}s would take {} (limit {})",
            cx.parent(),
            words::num(max),
            cx.child(),
            words::bytes(at_max),
            words::bytes(limit)
        ))
    })
}
