//! A parent's max, min, first or last of its children, read again from
//! the children after one of them was lowered or removed (issue 41). An
//! insert keeps such a figure with `$max` (or `$min`, or `$set` for the
//! latest); an edit did the same, so a lowered rating kept the old max,
//! and a delete left the figure as it was.
//!
//! Only the child that held the figure can make it wrong, and about one
//! child in the parent's children holds it. So the plan does not read it
//! again on every write: a conditional update of the parent, on its `_id`
//! and the figure still equal to the value the changed child held
//! (`{_id: p, reviews_max_rating: old}`, which `$set`s the figure to that
//! same value: it changes nothing, and the parent's validator keeps the
//! figure required), matches only when that child may have held it (another child with the same
//! value matches too: the read then finds the same figure). Only when it
//! matched does the plan read the figure from the children (one key of an
//! index led by the child's reference, `{product: 1, rating: -1}`; `_id`
//! orders arrival for first and last) and `$set` it. Those two steps are
//! priced at the share of writes whose child held the figure:
//! `1 / children per parent` (docs/cost-model.md).

use super::*;

impl Planner<'_> {
    /// The steps that keep `function` of `field` over the children of one
    /// parent through `r` true after a child (`e`) was edited or deleted:
    /// the conditional test of the parent's computed field `name`, then,
    /// only when it matched, the read of the figure from the children and
    /// the parent's `$set` from it. Nothing for a figure an `$inc` keeps
    /// (count, sum). `parent`: where the parent's id comes from (the
    /// caller, or the find that read the deleted child's reference).
    pub(super) fn reread_when_held(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (e, r, parent): (EntityId, RelationshipId, &ValueSource),
        (function, field, name): (AggregateFn, &str, &str),
    ) {
        let Some((by, descending)) = extreme_order(function, field) else {
            return;
        };
        let f = self.facts;
        let rel = f.model.relationship(r);
        let pacc = self.access(rel.parent);
        let figure = pacc.path(name);
        let (entity, pname) = (self.name(e).to_string(), self.name(rel.parent).to_string());
        let id_test = || match parent {
            ValueSource::FromStep { .. } => filt(pacc.path("_id"), FilterOp::In, parent.clone()),
            _ => filt(pacc.path("_id"), FilterOp::Eq, parent.clone()),
        };
        // The parent, while its figure still holds the child's old value:
        // the test and the `$set` after the read both match by it.
        let still_held = || {
            vec![
                id_test(),
                filt(
                    figure.clone(),
                    FilterOp::Eq,
                    ValueSource::Old {
                        field: field.to_string(),
                    },
                ),
            ]
        };
        // The share of writes whose child held the figure.
        let held = held_share(f.typical(r));
        let every = insert::every_one_in(held);
        let (mut clear, mut cost, index) = self.root_write(
            plan,
            RootWrite {
                entity: rel.parent,
                action: Action::UpdateOne,
                filter: still_held(),
                updates: vec![UpdateOp::SetOld {
                    path: figure.clone(),
                    field: field.to_string(),
                }],
                docs: 1.0,
                sync: 0.0,
                purpose: Purpose::TestHeldComputed {
                    field: name.to_string(),
                    entity: entity.clone(),
                    parent: pname.clone(),
                },
            },
        );
        // It examines the parent always, matches it only when the child
        // held the figure, and changes nothing.
        clear.documents = held;
        cost.docs_written = 0.0;
        cost.bytes_written = 0.0;
        let gate = self.push(plan, op, clear, cost, index);
        let filter = [Filter::new(
            f.model,
            e,
            vec![rel.child_field.clone()],
            FilterOp::Eq,
        )];
        let sort = [SortKey {
            field: by.to_string(),
            descending,
        }];
        let fields = [field.to_string()];
        let read = Read {
            filter: &filter,
            sort: &sort,
            limit: Some(1),
            fields: &fields,
            paging: None,
            count: false,
            most: None,
        };
        let before = plan.cost;
        let purpose = Purpose::RereadComputed {
            function: crate::candidates::fn_name(function).to_string(),
            field: field.to_string(),
            entity,
            parent: pname.clone(),
        };
        // Children in buckets that keep the same figure: the parent's is the
        // extreme of its buckets' own (`min_votes`), one key of
        // `{post: 1, min_votes: 1}` and one bucket; its last (first) is the
        // newest (oldest) bucket's own. Sorting the buckets by the
        // children's field (`comments.votes`) walks a multikey index, and
        // the bucket's first key there is not its extreme.
        let kept = self.bucket_kept(r, function, field);
        let (n, by_ref, read_field) = match &kept {
            Some(path) => {
                let n = self.reread_buckets(plan, op, r, (path, function), purpose);
                (n, rel.child_field.clone(), path.clone())
            }
            None => {
                let (_, n) = self.find(plan, op, e, &read, purpose);
                (
                    n,
                    self.access(e).path(&rel.child_field),
                    self.access(e).path(field),
                )
            }
        };
        let mut found = plan.cost;
        found.add_scaled(&before, -1.0);
        plan.cost = before;
        plan.cost.add_scaled(&found, held);
        if let Some(step) = plan.steps.get_mut(n.wrapping_sub(1)) {
            step.every = Some(every);
            step.if_matched = Some(gate);
            if let Some(test) = step.filter.iter_mut().find(|t| t.path == by_ref)
                && matches!(parent, ValueSource::FromStep { .. })
            {
                test.value_from = parent.clone();
                test.op = FilterOp::In;
            }
        }
        // The `$set` repeats the test's condition: a write between the
        // test and the `$set` that moved the figure (an insert's `$max` of
        // a greater value) is kept rather than overwritten by the value
        // read before it. The figure then stays as that write left it,
        // which is true when the write was an insert's `$max`/`$min`.
        let (mut set, cost, index) = self.root_write(
            plan,
            RootWrite {
                entity: rel.parent,
                action: Action::UpdateOne,
                filter: still_held(),
                updates: vec![UpdateOp::SetFrom {
                    path: figure,
                    step: n,
                    field: read_field,
                    function,
                }],
                docs: 1.0,
                sync: 0.0,
                purpose: Purpose::MaintainComputed {
                    field: name.to_string(),
                    parent: pname,
                },
            },
        );
        set.every = Some(every);
        set.if_matched = Some(gate);
        self.push(plan, op, set, cost, index);
    }
}

impl Planner<'_> {
    /// The bucket field that keeps `function` of `field` over each bucket
    /// of `r`'s children (`min_votes`), when `r` is a bucket that keeps it.
    fn bucket_kept(&self, r: RelationshipId, function: AggregateFn, field: &str) -> Option<String> {
        let Layout::Bucket { aggregates, .. } = self.layout(r) else {
            return None;
        };
        super::bucket::bucket_figures(aggregates)
            .into_iter()
            .find(|(func, x, _)| *func == function && x == field)
            .map(|(_, _, path)| path)
    }

    /// The parent's figure read again from its buckets' own at `path`:
    /// a max or min from the bucket whose own is the extreme (`find {post:
    /// p} sort {min_votes: 1} limit 1`, through `{post: 1, min_votes: 1}`),
    /// a last or first from the newest or oldest bucket in the buckets'
    /// order (their page, or their time unit: `sort {page: -1}`). The
    /// greatest `last_votes` is the last child of no bucket in particular.
    /// Among the buckets that hold children only (`count > 0`), through an
    /// index over those alone (partial): a bucket a delete emptied stays
    /// (one of a count, whose page numbers the later buckets' count on, or
    /// a time bucket emptied by a filter that names no bucket key) with
    /// null figures, which sort before every number, and which of them a
    /// workload empties (all the oldest, when children go by age) the
    /// model does not say. In that index the read is one key and one
    /// bucket, whatever the deletes left. Returns the step's number.
    fn reread_buckets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        r: RelationshipId,
        (path, function): (&str, AggregateFn),
        purpose: Purpose,
    ) -> usize {
        let rel = self.facts.model.relationship(r);
        let acc = self.access(rel.child);
        let by_ref = rel.child_field.clone();
        let (key, dir) = match (function, self.layout(r)) {
            (AggregateFn::Last | AggregateFn::First, Layout::Bucket { by, .. }) => (
                match by {
                    BucketBy::Count => crate::design::PAGE.to_string(),
                    BucketBy::Time { unit, .. } => unit.clone(),
                },
                if function == AggregateFn::Last { -1 } else { 1 },
            ),
            (AggregateFn::Max, _) => (path.to_string(), -1),
            _ => (path.to_string(), 1),
        };
        let mut read = Self::step(&acc.collection, Action::Find, purpose);
        read.filter = vec![filt(by_ref.clone(), FilterOp::Eq, ValueSource::Param)];
        read.filter.push(filt(
            "count",
            FilterOp::Range,
            ValueSource::Above { limit: 0 },
        ));
        read.sort = vec![(key.clone(), dir)];
        read.limit = Some(1);
        read.projection = vec![path.to_string()];
        read.documents = 1.0;
        let cost = StepCost {
            keys: 1.0,
            docs: 1.0,
            bytes_read: acc.root_bytes,
            ..StepCost::default()
        };
        let n = self.push(
            plan,
            op,
            read,
            cost,
            Some((vec![(by_ref, 1), (key, 1)], rel.child, acc.docs)),
        );
        if let Some(need) = plan.indexes.iter_mut().find(|x| x.step + 1 == n) {
            need.partial = vec![PartialCondition::Positive {
                path: "count".to_string(),
            }];
        }
        n
    }
}

impl Planner<'_> {
    /// A delete of `m` children whose parents' ids the find at `from`
    /// returned: every parent it touched may have lost the child that
    /// held its figure, and one gate cannot say which. One aggregation
    /// reads the figure again for each of them (`$match` the children of
    /// the parents, `$sort` by the reference and the figure's order,
    /// `$group` by the reference keeping the `$first`: a key and a
    /// document a parent, through the index `{product: 1, rating: -1}`),
    /// then one `bulkWrite` `$set`s the figure of each parent the deleted
    /// children named (their references, which the find at `from`
    /// returned): from its group, or to null where it has none (a parent
    /// left with no child has no group; the figure it kept was the deleted
    /// children's). Priced by the parents touched: `P × (1 − (1 − 1/P)^m)`
    /// of the `P` parents, `m` children deleted at random among them; an
    /// emptied parent is one of them, so the price is the one the groups
    /// alone had (it assumed every parent touched kept a child).
    pub(super) fn reread_per_parent(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (e, r, from, m): (EntityId, RelationshipId, usize, f64),
        (function, field, name): (AggregateFn, &str, &str),
    ) {
        let Some((by, descending)) = extreme_order(function, field) else {
            return;
        };
        let f = self.facts;
        let rel = f.model.relationship(r);
        let acc = self.access(e);
        let by_ref = acc.path(&rel.child_field);
        let parents = parents_touched(self.access(rel.parent).docs, m);
        let (entity, pname) = (self.name(e).to_string(), self.name(rel.parent).to_string());
        let mut read = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::RereadComputed {
                function: crate::candidates::fn_name(function).to_string(),
                field: field.to_string(),
                entity,
                parent: pname.clone(),
            },
        );
        read.filter = vec![filt(
            by_ref.clone(),
            FilterOp::In,
            ValueSource::FromStep { step: from },
        )];
        // The reference in the figure's direction too: the index of the
        // one-parent read (`{product: 1, rating: 1}`) serves it, walked
        // backwards for a max or a last.
        let dir = if descending { -1 } else { 1 };
        read.sort = vec![(by_ref.clone(), dir), (acc.path(by), dir)];
        read.projection = vec![acc.path(field)];
        read.group_first = Some(by_ref.clone());
        read.documents = parents;
        let cost = StepCost {
            keys: parents,
            docs: parents,
            bytes_read: parents * acc.root_bytes,
            ..StepCost::default()
        };
        let n = self.push(
            plan,
            op,
            read,
            cost,
            Some((vec![(by_ref.clone(), 1), (acc.path(by), 1)], e, acc.docs)),
        );
        let pacc = self.access(rel.parent);
        let touched = crate::design::IdsFrom {
            step: from,
            path: by_ref,
        };
        self.push_per_group(
            plan,
            op,
            (rel.parent, n, parents, Some(touched)),
            vec![UpdateOp::Set {
                path: pacc.path(name),
            }],
            Purpose::MaintainComputed {
                field: name.to_string(),
                parent: pname,
            },
            (
                Vec::new(),
                vec![crate::design::EachSet {
                    path: pacc.path(name),
                    from: acc.path(field),
                    zero: false,
                }],
            ),
        );
    }
}

/// The parents `m` children deleted at random touch, of `parents` in all:
/// each parent is missed by all of them with `(1 − 1/P)^m`.
pub(super) fn parents_touched(parents: f64, m: f64) -> f64 {
    if parents <= 1.0 {
        return parents.max(0.0).min(m);
    }
    (parents * (1.0 - (1.0 - 1.0 / parents).powf(m))).max(1.0_f64.min(m))
}

/// The share of a parent's children edits or deletes whose child held the
/// parent's max (min, first, last): one child in `children`, the typical
/// children per parent (every write when a parent has one or fewer).
pub(super) fn held_share(children: f64) -> f64 {
    if children > 1.0 { 1.0 / children } else { 1.0 }
}

impl Planner<'_> {
    /// Before a delete of `m` children whose ids and references the find at
    /// `from` returned: one aggregation of those children (`$match` their
    /// ids, `$group` by the reference to the parent through `r`) that
    /// counts (and sums) the ones each parent loses, under the names of the
    /// parent's counters. Each parent's counters then go down by its own
    /// amount in one `bulkWrite` (`count_down_per_parent`); one
    /// `updateMany … $inc -1` took one child off a parent that lost
    /// several. `None` when the parent keeps no count or sum through `r`,
    /// or keeps it in copies (every copy of a parent must follow, which an
    /// update by the parent's `_id` does not reach).
    pub(super) fn count_removed_per_parent(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (e, r, from, m): (EntityId, RelationshipId, usize, f64),
    ) -> Option<usize> {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let child_ref = self.parent_ref_path(r)?;
        if self.child_ids_path(r).is_some()
            || self.copies(rel.parent) > 1.0
            || matches!(self.layout(r), Layout::Subset { .. })
        {
            return None;
        }
        let acc = self.access(e);
        let sums: Vec<crate::design::GroupSum> = self
            .computed(r)
            .filter_map(|(func, field, name)| match func {
                AggregateFn::Count => Some(crate::design::GroupSum {
                    name: name.clone(),
                    field: None,
                }),
                AggregateFn::Sum => Some(crate::design::GroupSum {
                    name: name.clone(),
                    field: field.map(|x| acc.path(x)),
                }),
                _ => None,
            })
            .collect();
        if sums.is_empty() {
            return None;
        }
        let by_ref = acc.path(&child_ref);
        let parents = parents_touched(self.access(rel.parent).docs, m);
        let mut read = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::CountRemovedPerParent {
                entity: self.name(e).to_string(),
                parent: self.name(rel.parent).to_string(),
            },
        );
        read.filter = vec![filt(
            acc.path("_id"),
            FilterOp::In,
            ValueSource::FromStep { step: from },
        )];
        read.group_first = Some(by_ref);
        read.group_sums = sums;
        read.documents = parents;
        // The children the find just read, again by `_id`: a key and a
        // document each.
        let cost = StepCost {
            keys: m,
            docs: m,
            bytes_read: m * acc.root_bytes,
            ..StepCost::default()
        };
        Some(self.push(
            plan,
            op,
            read,
            cost,
            Some((vec![("_id".to_string(), 1)], e, acc.docs)),
        ))
    }

    /// Each parent's counters (`ups`, the `$inc`s down) taken down by the
    /// totals of its group at step `n` (`count_removed_per_parent`): one
    /// `bulkWrite` with an `updateOne` per parent touched.
    pub(super) fn count_down_per_parent(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (r, n, m): (RelationshipId, usize, f64),
        ups: Vec<UpdateOp>,
        why: Vec<Purpose>,
    ) {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let pacc = self.access(rel.parent);
        let parents = parents_touched(pacc.docs, m);
        let amounts = plan.steps[n - 1]
            .group_sums
            .iter()
            .map(|s| crate::design::EachAmount {
                path: pacc.path(&s.name),
                from: s.name.clone(),
                negative: true,
            })
            .collect();
        self.push_per_group(
            plan,
            op,
            (rel.parent, n, parents, None),
            ups,
            why,
            (amounts, Vec::new()),
        );
    }

    /// After a delete of `m` children whose ids and references the find
    /// at `from` returned, the `deleteMany` at `deleted`: when that delete
    /// deleted every child the find returned, each parent's counters go
    /// down by what the group counted (the `bulkWrite` at `down`): no
    /// other run took any of them, so none is counted twice. When it
    /// deleted fewer, another delete took some first and took its own
    /// down; which ones is not known, so each parent touched is counted
    /// again from the children it has left (`$match` by the references,
    /// `$group` by parent) and its counters `$set` from that, 0 where none
    /// is left. The recount is not priced: it runs only when deletes
    /// overlap, a rate the model does not give (docs/cost-model.md).
    pub(super) fn recount_unless_all_deleted(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (e, r, from, m): (EntityId, RelationshipId, usize, f64),
        (deleted, down): (usize, usize),
    ) {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let Some(child_ref) = self.parent_ref_path(r) else {
            return;
        };
        let gate = |holds| crate::design::DeletedAll {
            delete: deleted,
            found: from,
            holds,
        };
        if let Some(step) = plan.steps.get_mut(down - 1) {
            step.if_deleted_all = Some(gate(true));
        }
        let acc = self.access(e);
        let pacc = self.access(rel.parent);
        let sums = plan.steps[down - 1]
            .each
            .as_deref()
            .and_then(|x| x.from_step)
            .map(|g| plan.steps[g - 1].group_sums.clone())
            .unwrap_or_default();
        if sums.is_empty() {
            return;
        }
        let by_ref = acc.path(&child_ref);
        let parents = parents_touched(pacc.docs, m);
        let (entity, pname) = (self.name(e).to_string(), self.name(rel.parent).to_string());
        let mut read = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::RecountPerParent {
                entity: entity.clone(),
                parent: pname.clone(),
            },
        );
        read.filter = vec![filt(
            by_ref.clone(),
            FilterOp::In,
            ValueSource::FromStep { step: from },
        )];
        read.group_first = Some(by_ref.clone());
        read.group_sums = sums.clone();
        read.documents = parents;
        read.if_deleted_all = Some(gate(false));
        let n = self.push(
            plan,
            op,
            read,
            StepCost::default(),
            Some((vec![(by_ref.clone(), 1)], e, acc.docs)),
        );
        // Not priced, its round trip neither (see above), nor the entries
        // of the index it asks for: an index led by the reference, which
        // the reads of a parent's children have (`product_1__id_1` serves
        // `{product: 1}`); counted by its keys, it was one more index.
        plan.cost.round_trips -= 1.0;
        for need in plan.indexes.iter_mut().filter(|x| x.step + 1 == n) {
            need.held = 0.0;
        }
        let sets: Vec<crate::design::EachSet> = sums
            .iter()
            .map(|s| crate::design::EachSet {
                path: pacc.path(&s.name),
                from: s.name.clone(),
                zero: true,
            })
            .collect();
        let why: Vec<Purpose> = self
            .computed(r)
            .filter(|(func, _, _)| matches!(func, AggregateFn::Count | AggregateFn::Sum))
            .map(|(func, field, _)| Purpose::KeepComputed {
                function: crate::candidates::fn_name(func).to_string(),
                field: field.map(|x| x.to_string()),
                entity: entity.clone(),
                parent: pname.clone(),
            })
            .collect();
        let (mut step, _, index) = self.root_write(
            plan,
            RootWrite {
                entity: rel.parent,
                action: Action::BulkWrite,
                filter: vec![filt(
                    pacc.path("_id"),
                    FilterOp::In,
                    ValueSource::FromStep { step: from },
                )],
                updates: sets
                    .iter()
                    .map(|x| UpdateOp::Set {
                        path: x.path.clone(),
                    })
                    .collect(),
                docs: parents,
                sync: 0.0,
                purpose: why,
            },
        );
        step.each = Some(Box::new(crate::design::StepEach {
            from_step: Some(n),
            id: "_id".to_string(),
            amounts: Vec::new(),
            sets,
            ids_from: Some(crate::design::IdsFrom {
                step: from,
                path: by_ref,
            }),
        }));
        step.if_deleted_all = Some(gate(false));
        self.push(plan, op, step, StepCost::default(), index);
        plan.cost.round_trips -= 1.0;
    }

    /// One `bulkWrite` on the parents the groups of step `n` name, an
    /// `updateOne` by `_id` per group (`parents` of them), each taking its
    /// `$inc` amounts and `$set` values from its group. With `ids`, on the
    /// parents those ids name instead, each `$set` from its group or to
    /// null where it has none.
    fn push_per_group(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (parent, n, parents, ids): (EntityId, usize, f64, Option<crate::design::IdsFrom>),
        updates: Vec<UpdateOp>,
        purpose: impl Into<Vec<Purpose>>,
        (amounts, sets): (Vec<crate::design::EachAmount>, Vec<crate::design::EachSet>),
    ) {
        let pacc = self.access(parent);
        let (mut step, mut cost, index) = self.root_write(
            plan,
            RootWrite {
                entity: parent,
                action: Action::BulkWrite,
                filter: vec![filt(
                    pacc.path("_id"),
                    FilterOp::In,
                    ValueSource::FromStep {
                        step: ids.as_ref().map_or(n, |i| i.step),
                    },
                )],
                updates,
                docs: parents,
                sync: 0.0,
                purpose,
            },
        );
        step.each = Some(Box::new(crate::design::StepEach {
            from_step: Some(n),
            id: "_id".to_string(),
            amounts,
            sets,
            ids_from: ids,
        }));
        cost.keys = parents;
        self.push(plan, op, step, cost, index);
    }
}

/// The order whose first child holds a kept figure: `field` descending for
/// a max, ascending for a min, `_id` (insertion order) for the last and the
/// first. `None` for a count, sum or average, which no single child holds.
fn extreme_order(function: AggregateFn, field: &str) -> Option<(&str, bool)> {
    match function {
        AggregateFn::Max => Some((field, true)),
        AggregateFn::Min => Some((field, false)),
        AggregateFn::Last => Some(("_id", true)),
        AggregateFn::First => Some(("_id", false)),
        AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg => None,
    }
}
