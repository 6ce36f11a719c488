//! `document-size-limit`: A document may not exceed 16 MiB at the relationship's maximum cardinality.

crate::rules::declare_rule! {
    id: "document-size-limit",
    summary: "A document may not exceed 16 MiB at the relationship's maximum cardinality",
    kind: Design,
    severity: Error,
    sources: ["000_34acd10fa9a500cb.txt", "003_8caca105590b9080.txt", "MongoDB manual: limits"],
    check: Relationship { order: 10, check },
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
        Layout::ChildReferences | Layout::TwoWayReferences => 17.0,
        l => match l.many_sides() {
            Some((Some(copies), _)) => {
                let attrs: f64 = f
                    .attributes_on(cx.r, Side::Parent, l)
                    .map(|a| a.element_bytes() as f64)
                    .sum();
                if copies.is_empty() && attrs == 0.0 {
                    17.0
                } else {
                    copy_bytes(f, rel.child, copies) + attrs + 5.0
                }
            }
            _ => return None,
        },
    };
    let at_max = parent + max * per_item;
    (at_max > limit).then(|| {
        Judgement::Forbid(format!(
"{} with {} {} would take {} (limit {})", words::a(&cx.parent()), words::num(max), words::plural(&cx.child()), words::bytes(at_max), words::bytes(limit)
))
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::judge;

    const MODEL: &str = r"
entities:
  post: {count: 1000, fields: {title: string(80)}}
  comment: {count: 1000000, fields: {text: string(2000)}}
relationships:
  comments: {parent: post, child: comment, children: {min: 0, typical: 20, max: 20000}}
operations:
  view: {read: post, rate: 10, include: [comments]}
";

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, MODEL, "comments", "embed"),
            "forbid: a post with 20,000 comments would take 38.9 MiB (limit 16.0 MiB)"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, MODEL, "comments", "parent-reference"), "-");
    }
}
