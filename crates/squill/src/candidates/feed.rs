//! Feeds: reads of the newest children of the parents a reader follows
//! (posts whose author the user follows), written as a filter of two hops
//! (`author.followers.follower: eq`). Both the timeline candidate (fan-out
//! on write) and rule `fan-out` start from them.

use crate::model::{Model, OperationId, OperationKind, RelationshipId, SortKey};

/// One feed read and the relationships it goes through.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Feed {
    pub operation: OperationId,
    /// Parent → item (an author's posts): the items are its children.
    pub items: RelationshipId,
    /// Parent → edge by the followed side (an author's followers).
    pub followers: RelationshipId,
    /// Reader → edge by the following side (the accounts a user follows).
    pub following: RelationshipId,
    /// Items a feed shows; a timeline keeps as many.
    pub limit: u64,
    /// The feed's order (newest first); a timeline keeps it.
    pub sort: Vec<SortKey>,
}

/// Every feed read of the model: a read of a relationship's children with
/// a filter `parent.followers.following` of exactly two hops, the second
/// ending at the reader's reference, and no other condition.
pub fn feeds(model: &Model) -> Vec<Feed> {
    let mut out = Vec::new();
    for op_id in model.operation_ids() {
        let OperationKind::Read {
            entity,
            filter,
            limit,
            sort,
            include,
            aggregates,
            family,
            ..
        } = &model.operation(op_id).kind
        else {
            continue;
        };
        if filter.len() != 1 || !include.is_empty() || !aggregates.is_empty() || !family.is_empty()
        {
            continue;
        }
        let f = &filter[0];
        let Some(related) = f.related.as_ref() else {
            continue;
        };
        let rel = model.relationship(related.relationship);
        if rel.child != *entity {
            continue;
        }
        // `followers.following` (or `….following._id`): two hops.
        let hops: Vec<&String> = related.further.iter().filter(|s| *s != "_id").collect();
        if hops.len() != 2 {
            continue;
        }
        let Some(followers) = model
            .relationships_from(rel.parent)
            .find(|&e| model.relationship(e).name == *hops[0])
        else {
            continue;
        };
        let edge = model.relationship(followers).child;
        let Some(following) = model.relationships_to(edge).find(|&g| {
            let g_rel = model.relationship(g);
            g != followers && (g_rel.name == *hops[1] || g_rel.child_field == *hops[1])
        }) else {
            continue;
        };
        out.push(Feed {
            operation: op_id,
            items: related.relationship,
            followers,
            following,
            limit: limit.unwrap_or(1),
            sort: sort.clone(),
        });
    }
    out
}
