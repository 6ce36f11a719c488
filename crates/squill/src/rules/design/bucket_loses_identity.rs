//! `bucket-loses-identity`: A child kept in buckets is an element of a page
//! or a time slice, with no identity of its own: one that other documents
//! reference, or that operations find by its own id, keeps its own documents.

crate::rules::declare_rule! {
    id: "bucket-loses-identity",
    summary: "A child kept in buckets has no identity of its own: one that other documents reference, or that is found by its own id, keeps documents of its own",
    kind: Design,
    severity: Error,
    sources: ["002_6843193bac1933d0.txt", "000_34acd10fa9a500cb.txt"],
    // Asked with the other limits, before the rules that support layouts.
    check: Relationship { order: 38, check },
}

use crate::design::Layout;
use crate::design::reason::explain;
use crate::model::OperationKind;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A child that needs an identity a bucket element does not have.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NeedsIdentity {
    pub child: String,
    /// Relationships in which the child is the parent: their children
    /// keep its id (or would live inside it).
    pub referenced_by: Vec<String>,
    /// Operations on the child that find it by its own `_id`.
    pub found_by_id: Vec<String>,
}

explain!(NeedsIdentity, |w| {
    let mut needs = Vec::new();
    if !w.referenced_by.is_empty() {
        needs.push(format!(
            "other documents keep {}'s id ({})",
            words::a(&w.child),
            w.referenced_by.join(", ")
        ));
    }
    if !w.found_by_id.is_empty() {
        let verb = if w.found_by_id.len() == 1 { "finds" } else { "find" };
        needs.push(format!(
            "{} {verb} one by its own id",
            w.found_by_id.join(", ")
        ));
    }
    format!(
        "{}: an element of a bucket has no id of its own, so {} keep documents of their own",
        needs.join(", and "),
        words::plural(&w.child)
    )
});

/// Forbids every bucket of a relationship whose child is the parent of
/// another relationship, or is read, updated or deleted by its own `_id`.
/// A bucket's `_id` is the bucket's: the elements carry none, so an update
/// by the child's id matches nothing and a reference to it names no
/// document.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::Bucket { .. }) {
        return None;
    }
    let model = cx.facts.model;
    let child = cx.rel().child;
    let referenced_by: Vec<String> = cx.facts.rels_from[child.index()]
        .iter()
        .filter(|&&r| r != cx.r)
        .map(|&r| model.relationship(r).name.clone())
        .collect();
    let found_by_id: Vec<String> = model
        .workload
        .operations
        .iter()
        .filter(|op| match &op.kind {
            OperationKind::Read { entity, filter, .. }
            | OperationKind::Update { entity, filter, .. }
            | OperationKind::Delete { entity, filter } => {
                *entity == child && filter.iter().any(|f| f.path == ["_id"])
            }
            _ => false,
        })
        .map(|op| op.name.clone())
        .collect();
    if referenced_by.is_empty() && found_by_id.is_empty() {
        return None;
    }
    Some(Judgement::forbid(NeedsIdentity {
        child: cx.child(),
        referenced_by,
        found_by_id,
    }))
}

#[cfg(test)]
mod tests {
    use super::{NeedsIdentity, RULE};
    use crate::rules::testing::{forbid, judge};

    /// audit49 A1: posts paged 25 at a time oldest first, each with likes
    /// that keep its id, and edited by their own id.
    const FORUM: &str = "
entities:
  thread: {count: 2000000, fields: {title: string(80)}}
  post: {count: 60000000, fields: {text: string(600), created_at: date}}
  like: {count: 600000000, fields: {at: date}}
relationships:
  posts: {parent: thread, child: post, children: {min: 1, typical: 30, max: 50000}, child_field: thread}
  likes: {parent: post, child: like, children: {min: 0, typical: 10, max: unbounded}, child_field: post}
operations:
  thread_page: {read: post, filter: {thread: eq}, sort: created_at, limit: 25, rate: 10000}
  new_post: {insert: post, links: [posts], rate: 300}
  like_post: {insert: like, links: [likes], rate: 2000}
  edit_post: {update: post, filter: {_id: eq}, changes: [text], rate: 20}
";

    #[test]
    fn fires() {
        let got: NeedsIdentity = forbid(&RULE, FORUM, "posts", "bucket");
        assert_eq!(got.referenced_by, ["likes"]);
        assert_eq!(got.found_by_id, ["edit_post"]);
        insta::assert_snapshot!(
            crate::design::reason::Explain::words(&got),
            @"other documents keep a post's id (likes), and edit_post finds one by its own id: an element of a bucket has no id of its own, so posts keep documents of their own"
        );
    }

    /// Either need alone forbids: the likes without the edit.
    #[test]
    fn fires_on_a_reference_alone() {
        let model = FORUM.replace(
            "  edit_post: {update: post, filter: {_id: eq}, changes: [text], rate: 20}\n",
            "",
        );
        let got: NeedsIdentity = forbid(&RULE, &model, "posts", "bucket");
        assert_eq!((got.referenced_by.len(), got.found_by_id.len()), (1, 0));
    }

    /// Near miss: the same posts, with neither likes nor an edit by id
    /// (the edit finds a post by its thread and date instead).
    #[test]
    fn stays_quiet_just_under() {
        let model = FORUM
            .replace(
                "  likes: {parent: post, child: like, children: {min: 0, typical: 10, max: unbounded}, child_field: post}\n",
                "",
            )
            .replace("  like_post: {insert: like, links: [likes], rate: 2000}\n", "")
            .replace("filter: {_id: eq}", "filter: {thread: eq, created_at: eq}");
        assert_eq!(judge(&RULE, &model, "posts", "bucket"), "-");
    }
}
