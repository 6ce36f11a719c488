//! The timelines (fan-out on write) of a design, worked out from the
//! numbering once per population: who follows whom, each parent's
//! followers and whether it is an outlier, and where the originals of the
//! copied items live. The documents are built in `timeline`.

use super::numbering::{Numbering, is_shared};
use crate::design::{Collection, EntityDecision};
use crate::model::{EntityId, RelationshipId, SortKey};
use std::collections::BTreeSet;
use std::ops::Range;

/// One timeline of the design, with its relationships resolved and the
/// follower counts its threshold is compared with.
#[derive(Debug)]
pub(super) struct TimelineGen {
    pub collection: String,
    /// The feed operation's name.
    pub feed: String,
    pub reader: EntityId,
    /// The followed side (an author).
    pub parent: EntityId,
    pub item: EntityId,
    following: RelationshipId,
    followers: RelationshipId,
    pub(super) items: RelationshipId,
    pub limit: u64,
    pub(super) sort: Vec<SortKey>,
    threshold: Option<u64>,
    /// Followers of each parent (edges whose followed side it is); empty
    /// without a threshold, where nobody is an outlier.
    follower_counts: Vec<u64>,
    /// Each reader's edges, when `following` does not number the edges
    /// (then they are found by their reference, all edges once).
    edges_by_reader: Option<Vec<Vec<u64>>>,
    /// Each parent's items, when `items` does not number the items.
    pub(super) items_by_parent: Option<Vec<Vec<u64>>>,
}

impl TimelineGen {
    /// Whether parent `p` has more followers than the threshold.
    pub(super) fn is_outlier(&self, p: u64) -> bool {
        match self.threshold {
            Some(t) => self.follower_counts.get(p as usize).is_some_and(|n| *n > t),
            None => false,
        }
    }
}

/// The timelines of `pop`'s design whose feed the model still has.
pub(super) fn timelines(pop: &Numbering<'_>) -> Vec<TimelineGen> {
    let model = pop.model;
    let feeds = crate::candidates::feed::feeds(model);
    pop.design
        .entities
        .iter()
        .filter_map(|d| {
            let EntityDecision::Timeline {
                collection,
                feed,
                limit,
                threshold,
                ..
            } = d
            else {
                return None;
            };
            let op = model.operation_by_name(feed)?;
            let f = feeds.iter().find(|f| f.operation == op)?;
            let edge = model.relationship(f.followers).child;
            let item = model.relationship(f.items).child;
            let reader = model.relationship(f.following).parent;
            let parent = model.relationship(f.followers).parent;
            let mut follower_counts = Vec::new();
            if threshold.is_some() {
                follower_counts = vec![0u64; pop.count(parent) as usize];
                for j in 0..pop.count(edge) {
                    for p in referenced(pop, f.followers, j) {
                        if let Some(n) = follower_counts.get_mut(p as usize) {
                            *n += 1;
                        }
                    }
                }
            }
            let edges_by_reader = (pop.owner(edge) != Some(f.following))
                .then(|| inverted(pop, f.following, reader, edge));
            let items_by_parent =
                (pop.owner(item) != Some(f.items)).then(|| inverted(pop, f.items, parent, item));
            Some(TimelineGen {
                collection: collection.clone(),
                feed: feed.clone(),
                reader,
                parent,
                item,
                following: f.following,
                followers: f.followers,
                items: f.items,
                limit: *limit,
                sort: f.sort.clone(),
                threshold: *threshold,
                follower_counts,
                edges_by_reader,
                items_by_parent,
            })
        })
        .collect()
}

/// The parents child `j` references through `r`, as its document writes
/// them (`Builder::reference` on the child's side).
fn referenced(pop: &Numbering<'_>, r: RelationshipId, j: u64) -> Vec<u64> {
    let rel = pop.model.relationship(r);
    if pop.owner(rel.child) == Some(r) {
        vec![pop.parent_of(r, j)]
    } else if is_shared(rel) {
        pop.parents(r, j)
    } else {
        vec![pop.first_parent(r, j)]
    }
}

/// Per parent of `r`, the children that reference it.
fn inverted(
    pop: &Numbering<'_>,
    r: RelationshipId,
    parent: EntityId,
    child: EntityId,
) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); pop.count(parent) as usize];
    for j in 0..pop.count(child) {
        for p in referenced(pop, r, j) {
            if let Some(v) = out.get_mut(p as usize) {
                v.push(j);
            }
        }
    }
    out
}

/// Children of `p` through `r`: its numbered range, or the inverted list.
pub(super) fn children_of(
    pop: &Numbering<'_>,
    r: RelationshipId,
    p: u64,
    inverted: Option<&Vec<Vec<u64>>>,
) -> Vec<u64> {
    match inverted {
        Some(lists) => lists.get(p as usize).cloned().unwrap_or_default(),
        None => {
            let Range { start, end } = pop.owned_range(r, p);
            (start..end).collect()
        }
    }
}

/// The parents reader `i` follows, in order, each once.
pub(super) fn followed(pop: &Numbering<'_>, t: &TimelineGen, i: u64) -> BTreeSet<u64> {
    children_of(pop, t.following, i, t.edges_by_reader.as_ref())
        .into_iter()
        .flat_map(|j| referenced(pop, t.followers, j))
        .collect()
}

/// The design's collection of an entity's own documents (one per instance,
/// not buckets): where the originals of a timeline's copies are.
pub(super) fn own_collection<'a>(pop: &Numbering<'a>, e: EntityId) -> Option<&'a Collection> {
    let name = &pop.model.entity(e).name;
    pop.design
        .collections
        .iter()
        .find(|c| c.entities.first() == Some(name) && pop.bucket_of(c).is_none())
}

/// The parent an instance is numbered under, as `for_each_run` gives it.
pub(super) fn root_parent(
    pop: &Numbering<'_>,
    e: EntityId,
    j: u64,
) -> Option<(RelationshipId, u64)> {
    pop.owner(e).map(|r| (r, pop.parent_of(r, j)))
}

/// The outliers reader `i` follows, in order.
pub(super) fn outliers(pop: &Numbering<'_>, t: &TimelineGen, i: u64) -> Vec<u64> {
    followed(pop, t, i)
        .into_iter()
        .filter(|p| t.is_outlier(*p))
        .collect()
}
