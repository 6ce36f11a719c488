//! Fan-out on write: a feed read from the reader's timeline document, and
//! the writes that keep timelines (a new item pushed into its parent's
//! followers' timelines, a new reader's empty timeline, a followed outlier
//! noted, an item's copies refreshed or pulled).

use super::*;
use crate::candidates::feed::Feed;
use crate::candidates::placement::{CHECKPOINT_SECONDS, TimelineSize, timeline_size};

/// An enabled timeline: its feed, collection and threshold.
pub(super) struct Timeline<'s> {
    pub feed: &'s Feed,
    pub collection: &'s str,
    pub threshold: Option<u64>,
}

impl<'a> Planner<'a> {
    /// The enabled timelines of the placement.
    pub(super) fn timelines(&self) -> Vec<Timeline<'a>> {
        self.p
            .timelines
            .iter()
            .filter_map(|&i| match &self.space.entity[i] {
                EntityCandidate::Timeline {
                    feed,
                    collection,
                    threshold,
                } => Some(Timeline {
                    feed,
                    collection,
                    threshold: *threshold,
                }),
                _ => None,
            })
            .collect()
    }

    /// The feed `op` read from its timeline: the reader's document by id,
    /// then, when the reader follows outliers, their newest items.
    pub(super) fn timeline_read(&self, plan: &mut OpPlan, op: OperationId) -> bool {
        let Some(t) = self
            .timelines()
            .into_iter()
            .find(|t| t.feed.operation == op)
        else {
            return false;
        };
        let model = self.facts.model;
        let size = timeline_size(self.facts, t.feed, t.threshold);
        let reader = model.relationship(t.feed.following).parent;
        let item = model.relationship(t.feed.items).child;
        let mut step = Self::step(
            t.collection,
            Action::Find,
            Purpose::ReadTimeline {
                entity: self.name(item).to_string(),
                reader: self.name(reader).to_string(),
            },
        );
        step.filter = vec![filt("_id", FilterOp::Eq, ValueSource::Param)];
        step.documents = 1.0;
        let cost = StepCost {
            keys: 1.0,
            docs: 1.0,
            bytes_read: size.document,
            ..StepCost::default()
        };
        let n = self.push(plan, op, step, cost, by_id(reader));
        if t.threshold.is_none() || size.outliers_followed <= 0.0 {
            return true;
        }
        // The outliers' newest items: a reader who follows none skips it.
        let acc = self.access(item);
        let Some(by) = self.parent_ref_path(t.feed.items) else {
            return true;
        };
        let by = acc.path(&by);
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::OutliersItems {
                entity: self.name(item).to_string(),
            },
        );
        step.filter = vec![filt(
            by.clone(),
            FilterOp::In,
            ValueSource::FromStep { step: n },
        )];
        step.sort = t
            .feed
            .sort
            .iter()
            .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
            .collect();
        step.limit = Some(t.feed.limit);
        let docs = t.feed.limit as f64;
        step.documents = docs;
        if size.outliers_followed < 1.0 {
            step.every = Some(insert::every_one_in(size.outliers_followed));
        }
        let mut keys = vec![(by, 1)];
        keys.extend(step.sort.iter().cloned());
        let cost = StepCost {
            keys: docs,
            docs,
            bytes_read: docs * acc.root_bytes,
            ..StepCost::default()
        };
        self.push(plan, op, step, cost, Some((keys, item, acc.docs)));
        true
    }

    /// The timeline writes operation `op` needs besides its own.
    pub(super) fn timeline_upkeep(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        for t in self.timelines() {
            let size = timeline_size(self.facts, t.feed, t.threshold);
            let reader = model.relationship(t.feed.following).parent;
            let item = model.relationship(t.feed.items).child;
            let edge = model.relationship(t.feed.followers).child;
            match &model.operation(op).kind {
                OperationKind::Insert { entity, links, .. }
                    if *entity == item && links.contains(&t.feed.items) =>
                {
                    self.push_to_timelines(plan, op, &t, &size);
                }
                OperationKind::Insert { entity, .. } if *entity == reader => {
                    let mut step = Self::step(
                        t.collection,
                        Action::InsertOne,
                        Purpose::CreateTimeline {
                            reader: self.name(reader).to_string(),
                        },
                    );
                    step.documents = 1.0;
                    let empty = size.document - t.feed.limit as f64 * size.item;
                    let cost = StepCost {
                        docs_written: 1.0,
                        bytes_written: empty,
                        ..StepCost::default()
                    };
                    self.push(plan, op, step, cost, None);
                }
                OperationKind::Insert { entity, links, .. }
                    if *entity == edge
                        && t.threshold.is_some()
                        && size.outlier_edges > 0.0
                        && (links.contains(&t.feed.followers)
                            || links.contains(&t.feed.following)) =>
                {
                    let add = UpdateOp::AddToSet {
                        path: "outliers".to_string(),
                    };
                    self.keep_outliers(plan, op, &t, &size, add);
                }
                // An unfollow: the parent leaves the follower's outliers
                // when it was one.
                OperationKind::Delete { entity, .. }
                    if *entity == edge && t.threshold.is_some() && size.outlier_edges > 0.0 =>
                {
                    let pull = UpdateOp::Pull {
                        path: "outliers".to_string(),
                    };
                    self.keep_outliers(plan, op, &t, &size, pull);
                }
                OperationKind::Update {
                    entity, changes, ..
                } if *entity == item => {
                    let copied: Vec<String> = changes
                        .iter()
                        .filter(|c| model.entity(item).field(c).is_some())
                        .cloned()
                        .collect();
                    if copied.is_empty() {
                        continue;
                    }
                    let updates = copied
                        .iter()
                        .map(|c| UpdateOp::Set {
                            path: format!("items.$[e].{c}"),
                        })
                        .collect();
                    self.rewrite_timelines(plan, op, &t, &size, updates, copied);
                }
                OperationKind::Delete { entity, .. } if *entity == item => {
                    let updates = vec![UpdateOp::Pull {
                        path: "items".to_string(),
                    }];
                    self.rewrite_timelines(plan, op, &t, &size, updates, Vec::new());
                }
                _ => {}
            }
        }
    }

    /// A follow or unfollow of an outlier: `update` (add or pull the
    /// parent) on the follower's timeline, in as many runs as edges point
    /// at outliers.
    fn keep_outliers(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        size: &TimelineSize,
        update: UpdateOp,
    ) {
        let model = self.facts.model;
        let mut step = Self::step(
            t.collection,
            Action::UpdateOne,
            Purpose::NoteOutlier {
                parent: self
                    .name(model.relationship(t.feed.followers).parent)
                    .to_string(),
            },
        );
        step.filter = vec![filt("_id", FilterOp::Eq, ValueSource::Param)];
        step.updates = vec![update];
        step.documents = 1.0;
        step.every = Some(insert::every_one_in(size.outlier_edges));
        let cost = StepCost {
            keys: 1.0,
            docs: 1.0,
            docs_written: 1.0,
            bytes_written: size.document,
            ..StepCost::default()
        };
        let reader = model.relationship(t.feed.following).parent;
        self.push(plan, op, step, cost, by_id(reader));
    }

    /// A new item into its parent's followers' timelines: the followers
    /// (up to the threshold: past it the parent is an outlier, not pushed
    /// to), then one `updateMany` that pushes the item, keeps the feed's
    /// order and cuts the timeline to the feed's limit.
    fn push_to_timelines(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        size: &TimelineSize,
    ) {
        let Some(n) = self.find_followers(plan, op, t, size) else {
            return;
        };
        let model = self.facts.model;
        let item = model.relationship(t.feed.items).child;
        let readers = self
            .facts
            .count(model.relationship(t.feed.following).parent);
        let pushed = size.pushed * size.pushed_share;
        // A push adds an item; a timeline changed since the last
        // checkpoint is written whole again (as a bucket's push is priced).
        let new_per_second = self.facts.rels[t.feed.items.index()].child_inserts;
        let every = readers / (new_per_second * pushed).max(f64::MIN_POSITIVE);
        let rewritten = (CHECKPOINT_SECONDS / every).max(1.0).recip();
        let bytes = size.item + rewritten * size.document;
        let purpose = Purpose::PushToTimelines {
            entity: self.name(item).to_string(),
            timelines: pushed,
        };
        let push = UpdateOp::Push {
            path: "items".to_string(),
            sort: t
                .feed
                .sort
                .first()
                .map(|s| (s.field.clone(), if s.descending { -1 } else { 1 })),
            slice: Some(t.feed.limit as i64),
        };
        self.write_timelines(plan, op, t, (n, pushed), purpose, vec![push], bytes);
    }

    /// The copies of an item changed or removed in the timelines it was
    /// pushed into: its parent's followers, then one `updateMany`.
    fn rewrite_timelines(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        size: &TimelineSize,
        updates: Vec<UpdateOp>,
        fields: Vec<String>,
    ) {
        let Some(n) = self.find_followers(plan, op, t, size) else {
            return;
        };
        let model = self.facts.model;
        let item = model.relationship(t.feed.items).child;
        let pushed = size.pushed * size.pushed_share;
        let purpose = if fields.is_empty() {
            Purpose::PullFromTimelines {
                entity: self.name(item).to_string(),
                timelines: pushed,
            }
        } else {
            Purpose::RefreshCopy {
                source: self.name(item).to_string(),
                fields,
                holders: pushed,
                holder: t.collection.to_string(),
                at_most: t.threshold,
            }
        };
        self.write_timelines(plan, op, t, (n, pushed), purpose, updates, size.document);
    }

    /// One `updateMany` of the `pushed` timelines of the followers the
    /// steps `n` names found, each a sync write of `bytes` (the item's copy is kept there).
    #[allow(clippy::too_many_arguments)]
    fn write_timelines(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        (n, pushed): (ValueSource, f64),
        purpose: Purpose,
        updates: Vec<UpdateOp>,
        bytes: f64,
    ) {
        let model = self.facts.model;
        let item = model.relationship(t.feed.items).child;
        let mut step = Self::step(t.collection, Action::UpdateMany, purpose);
        step.filter = vec![filt("_id", FilterOp::In, n)];
        step.updates = updates;
        step.documents = pushed;
        step.copy_of = Some(self.name(item).to_string());
        let cost = StepCost {
            keys: pushed,
            docs: pushed,
            docs_written: pushed,
            bytes_written: pushed * bytes,
            sync: pushed,
            ..StepCost::default()
        };
        let reader = model.relationship(t.feed.following).parent;
        self.push(plan, op, step, cost, by_id(reader));
    }

    /// The followers of the item's parent: in the parent's own array when
    /// the edges are embedded there (all, or an outlier's first ones, with
    /// the rest apart), else by the edges' reference to the followed side;
    /// at most the threshold and one more (more: an outlier). Returns
    /// where the timelines' ids come from.
    fn find_followers(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        size: &TimelineSize,
    ) -> Option<ValueSource> {
        let model = self.facts.model;
        let edge = model.relationship(t.feed.followers).child;
        match (self.layout(t.feed.followers), self.p.home[edge.index()]) {
            (Layout::Outlier { threshold }, _) => {
                return self.followers_in_parent(plan, op, t, size, Some(*threshold));
            }
            (_, Home::Embedded { rel, .. }) if rel == t.feed.followers => {
                return self.followers_in_parent(plan, op, t, size, None);
            }
            _ => {}
        }
        let acc = self.access(edge);
        let followed = acc.path(&self.parent_ref_path(t.feed.followers)?);
        // Edges kept inside their follower: the follower is the document.
        let follower = match self.p.home[edge.index()] {
            Home::Embedded { rel, .. } if rel == t.feed.following => "_id".to_string(),
            _ => match self.parent_ref_path(t.feed.following) {
                Some(p) => acc.path(&p),
                None => return self.followers_keeping_ids(plan, op, t, size, followed),
            },
        };
        let n = self.edges_apart(plan, op, t, (followed, follower), size.pushed);
        Some(ValueSource::FromStep { step: n })
    }

    /// The edges kept apart whose `followed` field is the item's parent,
    /// for their `follower` (both keys in the index: the followers come
    /// from its entries), about `n` of them; returns the step's number.
    fn edges_apart(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        (followed, follower): (String, String),
        n: f64,
    ) -> usize {
        let model = self.facts.model;
        let edge = model.relationship(t.feed.followers).child;
        let acc = self.access(edge);
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::FindFollowers {
                parent: self
                    .name(model.relationship(t.feed.followers).parent)
                    .to_string(),
            },
        );
        step.filter = vec![filt(followed.clone(), FilterOp::Eq, ValueSource::Param)];
        step.projection = vec![follower.clone()];
        step.limit = t.threshold.map(|x| x + 1);
        step.documents = n;
        let cost = StepCost {
            keys: n,
            docs: 0.0,
            bytes_read: n * 30.0,
            ..StepCost::default()
        };
        self.push(
            plan,
            op,
            step,
            cost,
            Some((
                vec![(followed, 1), (follower, 1)],
                edge,
                acc.docs * acc.per_root.max(1.0),
            )),
        )
    }

    /// The followers of the item's parent where each follower keeps its
    /// edges' ids (`following: [follow ids]`) and the edges name only the
    /// followed side: the parent's edges (their ids, from the index), then
    /// the followers whose kept ids hold one of them (a multikey index on
    /// the array), each read for its `_id`.
    fn followers_keeping_ids(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        size: &TimelineSize,
        followed: String,
    ) -> Option<ValueSource> {
        let model = self.facts.model;
        let ids = self.child_ids_path(t.feed.following)?;
        let reader = model.relationship(t.feed.following).parent;
        let edge = model.relationship(t.feed.following).child;
        let a = self.edges_apart(plan, op, t, (followed, "_id".to_string()), size.pushed);
        let host = self.access(reader);
        let path = host.path(&ids);
        let mut step = Self::step(
            &host.collection,
            Action::Find,
            Purpose::FindMatching {
                entity: self.name(reader).to_string(),
                field: ids.clone(),
            },
        );
        step.filter = vec![filt(
            path.clone(),
            FilterOp::In,
            ValueSource::FromStep { step: a },
        )];
        step.projection = vec![host.path("_id")];
        step.documents = size.pushed;
        // Each follower found is one document read whole for its id.
        let cost = StepCost {
            keys: size.pushed,
            docs: size.pushed,
            bytes_read: size.pushed * host.root_bytes,
            ..StepCost::default()
        };
        let entries = self.facts.count(edge);
        let b = self.push(plan, op, step, cost, Some((vec![(path, 1)], edge, entries)));
        Some(ValueSource::FromStep { step: b })
    }

    /// The followers of the item's parent where the edges are embedded in
    /// it: the parent's document by its id, for its array's followers;
    /// for an outlier (`cap` embedded at most) also the edges apart, when
    /// a parent past the cap is still pushed to (no timeline threshold,
    /// or one at or past the cap; below it such a parent is an outlier of
    /// the timeline, which no push reaches).
    fn followers_in_parent(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        t: &Timeline<'_>,
        size: &TimelineSize,
        cap: Option<u64>,
    ) -> Option<ValueSource> {
        let model = self.facts.model;
        let rel = model.relationship(t.feed.followers);
        let follower = self.parent_ref_path(t.feed.following)?;
        let host = self.access(rel.parent);
        let array = host.path(&rel.parent_field);
        let mut step = Self::step(
            &host.collection,
            Action::Find,
            Purpose::FindFollowers {
                parent: self.name(rel.parent).to_string(),
            },
        );
        step.filter = vec![filt(host.path("_id"), FilterOp::Eq, ValueSource::Param)];
        step.projection = vec![format!("{array}.{follower}")];
        step.documents = 1.0;
        // One document read whole, its array with it.
        let cost = StepCost {
            keys: 1.0,
            docs: 1.0,
            bytes_read: host.root_bytes,
            ..StepCost::default()
        };
        let a = self.push(plan, op, step, cost, by_id(rel.parent));
        let Some(cap) = cap.filter(|&c| t.threshold.is_none_or(|x| x >= c)) else {
            return Some(ValueSource::FromStep { step: a });
        };
        let apart = rel.children.items_share_above(cap).unwrap_or(1.0);
        let b = self.edges_apart(
            plan,
            op,
            t,
            (rel.child_field.clone(), follower),
            size.pushed * apart,
        );
        Some(ValueSource::FromSteps { steps: vec![a, b] })
    }
}

/// The `_id` index a step by id uses.
fn by_id(e: EntityId) -> Option<IndexUse> {
    Some((vec![("_id".to_string(), 1)], e, 1.0))
}
