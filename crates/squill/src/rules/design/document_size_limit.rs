//! `document-size-limit`: A document may not exceed 16 MiB at the relationship's maximum cardinality.

crate::rules::declare_rule! {
    id: "document-size-limit",
    summary: "A document may not exceed 16 MiB at the relationship's maximum cardinality",
    kind: Design,
    severity: Error,
    sources: ["000_34acd10fa9a500cb.txt", "003_8caca105590b9080.txt", "MongoDB manual: limits"],
    check: Relationship { order: 10, check },
}

use crate::candidates::facts::EMBEDDED_ELEMENT_OVERHEAD;
use crate::candidates::placement::copy_bytes;
use crate::design::reason::explain;
use crate::design::{Figure, Layout, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A parent document past the size limit at the most children.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TooLarge {
    pub parent: String,
    pub child: String,
    /// The relationship's maximum number of children.
    pub children: Figure,
    /// What a count of the children calls them, where the relationship
    /// names them better than the child's plural (`followers`), as the
    /// other reasons of the relationship do; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    /// The parent's document with that many.
    pub size: Figure,
    /// `design.max-document-bytes`.
    pub limit: Figure,
}

explain!(TooLarge, |w| format!(
    "{} with {} {} would take {} (limit {})",
    words::a(&w.parent),
    words::num(w.children.value),
    words::items(w.items.as_deref(), &w.child),
    words::bytes(w.size.value),
    words::bytes(w.limit.value)
));

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
        Layout::Embed => f.own_bytes[rel.child.index()] + EMBEDDED_ELEMENT_OVERHEAD,
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
        Judgement::forbid(TooLarge {
            parent: cx.parent(),
            child: cx.child(),
            children: Figure::count(max),
            items: cx.items(),
            size: Figure::bytes(at_max),
            limit: Figure::bytes(limit),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, TooLarge};
    use crate::design::Figure;
    use crate::rules::testing::{forbid, judge};

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
        let got: TooLarge = forbid(&RULE, MODEL, "comments", "embed");
        assert_eq!((got.parent.as_str(), got.child.as_str()), ("post", "comment"));
        assert_eq!(got.children, Figure::count(20_000.0));
        assert_eq!(got.limit, Figure::bytes(16.0 * 1024.0 * 1024.0));
        // 20,000 comments of about 2 KB each, and the post's own fields.
        assert!((40.0e6..41.0e6).contains(&got.size.value), "{got:?}");
    }

    /// Issue 41: a user's `followers` (each a `follow`) past the limit
    /// are counted as followers, as the relationship's other reasons
    /// count them, not as "80,000,000 follows".
    #[test]
    fn counts_the_children_by_the_relationship_s_name() {
        use crate::design::reason::Explain;
        let model = crate::rules::testing::example("scenarios/s14-follow-graph.yaml");
        let got: TooLarge = forbid(&RULE, &model, "followers", "embed");
        let words = got.words();
        assert!(
            words.starts_with("a user with 80,000,000 followers would take "),
            "{words}"
        );
    }

    /// Near miss: 8,200 comments of about 2 KB take just under 16 MiB.
    #[test]
    fn stays_quiet_just_under() {
        let model = MODEL.replace("max: 20000", "max: 8200");
        assert_eq!(judge(&RULE, &model, "comments", "embed"), "-");
    }
}
