//! Deletes: the instance, and what refers to it.

use super::*;

impl<'a> Planner<'a> {
    /// A delete, priced (`steady`) at what a run finds once the backlog is
    /// gone when it purges by age alone: each run deletes only what aged
    /// past its filter since the run before. The steps that find and
    /// delete them keep the first run's backlog.
    pub(super) fn delete(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
    ) {
        let today = self.matched(e, filter, None);
        let steady = self.steady(op, e, today);
        self.delete_priced(plan, op, e, filter, steady);
        if steady.is_some() {
            let coll = self.access(e).collection;
            for s in plan.steps.iter_mut().filter(|s| {
                s.collection == coll
                    && s.purpose
                        .iter()
                        .any(|p| matches!(p, Purpose::Delete { .. } | Purpose::FindToDelete { .. }))
            }) {
                s.backlog = Some(today);
            }
        }
    }

    fn delete_priced(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
        steady: Option<f64>,
    ) {
        let f = self.facts;
        // Every bucketed child of its parents: their buckets go (their
        // own children, found by no id here, are warned of).
        if self.clear_buckets(plan, op, e, filter) {
            self.warn_unreached_below(plan, e);
            return;
        }
        // Owned children kept apart go first, by the deleted parents' ids
        // (cascade.rs): a delete by a filter reads those ids first.
        let cascade = self.deletes_children(e);
        let acc = self.access(e);
        let name = self.name(e).to_string();
        // By the caller's id alone (and the tenant); with any other
        // condition beside `_id` the write tests the whole filter (audit44 A).
        let by_id = filter.is_empty() || crate::model::by_id_alone(f.model, e, filter);
        // By one id, or by the ids the caller holds (`_id: in`), or every
        // instance a filter that pins none matches: many by the filter,
        // whatever the estimate (`pins_one`); `m` prices them.
        let m = steady.unwrap_or_else(|| self.matched(e, filter, None));
        let many = !self.pins_one(e, filter);
        let one_or_in = if many { FilterOp::In } else { FilterOp::Eq };
        // A count (or sum) kept in the parent, or a subset of the latest
        // children, needs the parent's id, which only the child knows when
        // the child holds the reference: a delete by id then reads the child
        // first (an id array in the parent is found by the child's own id
        // instead).
        let needs_parent_id = f.rels_to[e.index()].iter().any(|&r| {
            let layout = self.layout(r);
            self.child_ids_path(r).is_none()
                && self.parent_ref_path(r).is_some()
                && (self.computed(r).next().is_some() || matches!(layout, Layout::Subset { .. }))
        });
        // Nothing to keep up elsewhere (no id in a parent's array, no
        // counter, no outlier's array): one deleteMany with the filter
        // itself, no step that only finds the ids first.
        // A child kept in a bucket: its elements dropped and the bucket's
        // figures computed again, in one update pipeline (issue 41).
        let rewrite = self.bucket_rewrite(e, None);
        // The figures a parent keeps over its bucketed children (one child
        // deleted): written by the parent's id the caller gives, which the
        // pipeline does not need a find for. The buckets hold no array of
        // ids in the parent and no reference in each child.
        let rewrites = rewrite.is_some();
        let bucket_figures = |r: RelationshipId| {
            rewrites
                && !many
                && matches!(self.p.home[e.index()], Home::Bucketed { rel } if rel == r)
                && self.child_ids_path(r).is_none()
                && self.copies(f.model.relationship(r).parent) <= 1.0
        };
        let upkeep = f.rels_to[e.index()].iter().any(|&r| {
            self.child_ids_path(r).is_some()
                || matches!(self.layout(r), Layout::Subset { .. })
                || (self.computed(r).next().is_some() && !bucket_figures(r))
        });
        // Elements of an array of their root document (a purchase's
        // lines) are pulled by their own tests in one write where found:
        // `$pull` takes the filter's tests of the array as the element's
        // condition (cookbook `PullWhere`). A find of their ids first
        // read every element's id of each holder, and the pull by those
        // ids took the whole array (review47 item 1).
        let pulled = self.elements_in_root_array(e) && rewrite.is_none();
        if !by_id
            && !upkeep
            && !cascade
            && (matches!(self.p.home[e.index()], Home::Own) || rewrite.is_some() || pulled)
            && self.outlier_of(e).is_none()
        {
            let mut tests = Vec::new();
            for c in filter {
                let (path, from) = self.filter_path(plan, op, e, &acc, c);
                tests.push(super::filter_keys::test_of(path, c, from));
            }
            let action = match (&rewrite, many) {
                (Some(_), true) => Action::UpdateMany,
                (Some(_), false) => Action::UpdateOne,
                (None, true) if pulled => Action::UpdateMany,
                (None, false) if pulled => Action::UpdateOne,
                (None, true) => Action::DeleteMany,
                (None, false) => Action::DeleteOne,
            };
            // One write of each document holding a match: priced by
            // those documents, not by the elements.
            let docs = if pulled {
                let eq: Vec<(String, FilterOp, ValueSource)> = tests
                    .iter()
                    .map(|t| (t.path.clone(), t.op, t.value_from.clone()))
                    .collect();
                super::find_keys::parents_holding(&acc, &eq, m)
            } else {
                m
            };
            let updates = match (rewrite, pulled) {
                (Some(ups), _) => Some(ups),
                (None, true) => Some(vec![UpdateOp::Pull {
                    path: acc.prefix.clone(),
                }]),
                (None, false) => None,
            };
            let purpose = match updates.is_some() {
                true if pulled => vec![Purpose::Pull {
                    entity: name.clone(),
                }],
                true => vec![
                    Purpose::Pull {
                        entity: name.clone(),
                    },
                    Purpose::RecomputeBucket {
                        entity: name.clone(),
                    },
                ],
                false => vec![Purpose::Delete {
                    entity: name.clone(),
                }],
            };
            // A time bucket the drop would empty goes instead.
            if updates.is_some() && !pulled && !many {
                self.drop_emptied_bucket(plan, op, e, &tests);
            }
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: e,
                    action,
                    filter: tests,
                    updates: updates.unwrap_or_default(),
                    docs,
                    sync: 0.0,
                    purpose,
                },
            );
            let written = plan.steps.len();
            // Then the parent's figures: its count and sums down by the
            // caller's amounts, its extremes read again from the buckets'
            // own when the deleted child held them.
            for &r in &f.rels_to[e.index()] {
                if bucket_figures(r) && self.computed(r).next().is_some() {
                    let param = ValueSource::Param;
                    let from = plan.steps.len();
                    self.remove_from_parent(
                        plan,
                        op,
                        (e, r, None),
                        (m, FilterOp::Eq),
                        (&param, &param),
                    );
                    gate_counters(&mut plan.steps[from..], written, false);
                }
            }
            self.warn_unreached_below(plan, e);
            return;
        }
        // A conditional delete of a parent with children to delete finds
        // the parents that meet its conditions first: deleting children of
        // a parent the condition then keeps would leave it without them.
        // So does one under a tenant whose children do not all carry the
        // tenant's id: an id of another tenant's parent would take that
        // tenant's children while the parent's scoped delete matched
        // nothing. Where every document the children's steps touch
        // carries it, those steps test it too (tenant.rs), and the
        // caller's id is enough (issue 41).
        let conditions = &f.model.operation(op).terms.conditions;
        let tested_first = cascade
            && (!conditions.is_empty()
                || (self.within_tenant(e)
                    && !(by_id && self.children_carry_tenant(op, e, (m, one_or_in)))));
        let from = if by_id && !needs_parent_id && !tested_first {
            ValueSource::Param
        } else {
            let id_only;
            let filter = if filter.is_empty() {
                id_only = [Filter::new(
                    f.model,
                    e,
                    vec!["_id".to_string()],
                    FilterOp::Eq,
                )];
                &id_only[..]
            } else {
                filter
            };
            let (_, n) = self.find(
                plan,
                op,
                e,
                &Read {
                    most: steady,
                    ..Read::by(filter, &["_id".to_string()])
                },
                Purpose::FindToDelete {
                    entity: name.clone(),
                },
            );
            // The later writes take the parents' ids from this step, so it
            // returns them: the reference each child holds (`repo._id` in a
            // star), not only the child's own id.
            if needs_parent_id {
                let acc = self.access(e);
                let refs = f.rels_to[e.index()].iter().filter_map(|&r| {
                    (self.child_ids_path(r).is_none() && self.computed(r).next().is_some()
                        || matches!(self.layout(r), Layout::Subset { .. }))
                    .then(|| self.parent_ref_path(r))
                    .flatten()
                });
                let paths: Vec<String> = refs.map(|p| acc.path(&p)).collect();
                if let Some(step) = plan.steps.get_mut(n.saturating_sub(1)) {
                    for p in paths {
                        if !step.projection.contains(&p) {
                            step.projection.push(p);
                        }
                    }
                }
            }
            if tested_first && let Some(step) = plan.steps.get_mut(n.saturating_sub(1)) {
                let acc = self.access(e);
                step.conditions = conditions
                    .iter()
                    .map(|c| crate::design::StepCondition {
                        path: acc.path(&c.field),
                        plus: c.plus.clone(),
                        test: c.test,
                        value: c.value.clone(),
                    })
                    .collect();
            }
            ValueSource::FromStep { step: n }
        };
        let own_from = if by_id {
            ValueSource::Param
        } else {
            from.clone()
        };
        // The children first (cascade.rs says why), by the ids the find
        // read, or the caller's.
        let parents = if tested_first { &from } else { &own_from };
        self.delete_found(
            plan,
            op,
            e,
            (m, many, one_or_in),
            (&from, &own_from, parents),
            (None, &[]),
        );
        let _ = RelationshipKind::OneToOne;
    }

    /// The delete of `m` instances of `e` once their ids are known (`from`:
    /// the find that read them, or the caller's; `own_from`: the ids their
    /// own delete takes; `parents`: the ids their owned children are found
    /// by): what each of their parents loses counted first, their owned
    /// children, their documents, then their parents' ids and figures.
    /// `skip`: a parent the delete takes too (the children of a deleted
    /// parent, cascade.rs), whose ids and figures go with it; `above`: the
    /// entities the delete takes above `e`.
    pub(super) fn delete_found(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        (m, many, one_or_in): (f64, bool, FilterOp),
        (from, own_from, parents): (&ValueSource, &ValueSource, &ValueSource),
        (skip, above): (Option<RelationshipId>, &[EntityId]),
    ) {
        let f = self.facts;
        // Several children deleted: what each parent loses is counted
        // before they go, so each count goes down by its own amount.
        let counted: Vec<Option<usize>> = f.rels_to[e.index()]
            .iter()
            .map(|&r| match from {
                ValueSource::FromStep { step } if many && skip != Some(r) => {
                    self.count_removed_per_parent(plan, op, (e, r, *step, m))
                }
                _ => None,
            })
            .collect();
        self.delete_owned_children(plan, op, e, (m, parents, one_or_in), above);
        self.delete_document(plan, op, e, (m, one_or_in), own_from);
        let deleted = plan.steps.len();
        let many = plan.steps.last().map(|s| s.action) == Some(Action::DeleteMany);
        for (r, counted) in f.rels_to[e.index()].iter().copied().zip(counted) {
            if skip == Some(r) {
                continue;
            }
            let before = plan.steps.len();
            self.remove_from_parent(plan, op, (e, r, counted), (m, one_or_in), (from, own_from));
            // The counters taken down by the group's amounts only when
            // this delete deleted every child the find returned; counted
            // again from what is left otherwise (issue 41).
            if let (Some(n), ValueSource::FromStep { step }, true) = (counted, from, many)
                && let Some(down) = plan.steps[before..]
                    .iter()
                    .position(|s| s.each.as_ref().is_some_and(|x| x.from_step == Some(n)))
            {
                self.recount_unless_all_deleted(
                    plan,
                    op,
                    (e, r, *step, m),
                    (deleted, before + down + 1),
                );
            }
        }
    }

    /// The deleted instance's own document, or its element pulled from the
    /// document it is embedded in.
    fn delete_document(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        (m, one_or_in): (f64, FilterOp),
        own_from: &ValueSource,
    ) {
        let acc = self.access(e);
        let name = self.name(e).to_string();
        match self.p.home[e.index()] {
            Home::Own => {
                let action = if one_or_in == FilterOp::In {
                    Action::DeleteMany
                } else {
                    Action::DeleteOne
                };
                let fallback = self.outlier_first(
                    plan,
                    op,
                    e,
                    own_from.clone(),
                    |holder| {
                        vec![UpdateOp::Pull {
                            path: holder.to_string(),
                        }]
                    },
                    Purpose::Pull {
                        entity: name.clone(),
                    },
                );
                let (mut step, cost, index) = self.root_write(
                    plan,
                    RootWrite {
                        entity: e,
                        action,
                        filter: vec![filt("_id", one_or_in, own_from.clone())],
                        updates: Vec::new(),
                        docs: m,
                        sync: 0.0,
                        purpose: Purpose::Delete {
                            entity: name.clone(),
                        },
                    },
                );
                Self::as_fallback(&mut step, fallback);
                self.push(plan, op, step, cost, index);
            }
            _ => {
                let host_path = acc.prefix.clone();
                let (updates, purpose) = match self.bucket_rewrite(e, None) {
                    Some(ups) => (
                        ups,
                        vec![
                            Purpose::Pull {
                                entity: name.clone(),
                            },
                            Purpose::RecomputeBucket {
                                entity: name.clone(),
                            },
                        ],
                    ),
                    None => (
                        vec![UpdateOp::Pull { path: host_path }],
                        vec![Purpose::Pull {
                            entity: name.clone(),
                        }],
                    ),
                };
                self.write_root(
                    plan,
                    op,
                    RootWrite {
                        entity: e,
                        action: if one_or_in == FilterOp::In {
                            Action::UpdateMany
                        } else {
                            Action::UpdateOne
                        },
                        filter: vec![filt(acc.path("_id"), one_or_in, own_from.clone())],
                        updates,
                        docs: m,
                        sync: 0.0,
                        purpose,
                    },
                );
            }
        }
    }

    /// What a deleted child leaves in its parent through `r`: its id in the
    /// parent's array, the parent's counters (taken down by each parent's
    /// own totals when the step `counted` grouped the deleted children).
    fn remove_from_parent(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (e, r, counted): (EntityId, RelationshipId, Option<usize>),
        (m, one_or_in): (f64, FilterOp),
        (from, own_from): (&ValueSource, &ValueSource),
    ) {
        let f = self.facts;
        let name = self.name(e).to_string();
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        let mut ups = Vec::new();
        let pacc = self.access(rel.parent);
        let ids_in_parent = self.child_ids_path(r);
        // The child's id where the parent keeps it: a bare id in the
        // array, or the `_id` of an element (copies, attributes, a
        // subset's children), which `$pull` matches as `{_id: id}`.
        let held = match (&ids_in_parent, layout) {
            (Some(path), _) => Some(path.clone()),
            (None, Layout::Subset { .. }) => Some(format!("{}._id", rel.parent_field)),
            _ => None,
        };
        // Why each update runs: the id removed, and each counter kept
        // (a count taken down is no removal of the child from its parent).
        let mut why = Vec::new();
        if let Some(path) = &held {
            ups.push(remove_id(rel, layout, pacc.path(path)));
            why.push(Purpose::RemoveFromParent {
                entity: name.clone(),
                parent: self.name(rel.parent).to_string(),
            });
        }
        // The parent's id as the parent's write takes it (one parent: the
        // find by the deleted child's id read its reference).
        let parent_id = match (&ids_in_parent, self.parent_ref_path(r)) {
            (None, Some(_)) => from.clone(),
            _ => ValueSource::Param,
        };
        // A max (min, first, last) the deleted child may have held: read
        // again from the children left when it held it, after the write.
        let mut rereads = Vec::new();
        for (func, field, cname) in self.computed(r) {
            if let Some(x) = field
                && !matches!(
                    func,
                    AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg
                )
            {
                rereads.push((func, x, cname));
            }
            if matches!(
                func,
                AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg
            ) {
                ups.push(UpdateOp::Dec {
                    path: pacc.path(cname),
                });
                why.push(Purpose::KeepComputed {
                    function: crate::candidates::fn_name(func).to_string(),
                    field: field.map(|x| x.to_string()),
                    entity: name.clone(),
                    parent: self.name(rel.parent).to_string(),
                });
            }
        }
        if let (Some(n), None) = (counted, &held) {
            self.count_down_per_parent(plan, op, (r, n, m), ups, why);
        } else if !ups.is_empty() {
            // A parent folded into its children is kept in every copy (the
            // repository's star count in each of its stars), as the insert
            // that raised the count wrote it: one copy lowered would leave
            // the copies disagreeing.
            let parents = f.typical_parents(r) * m;
            let holders = parents * self.copies(rel.parent);
            // The parent found by the child's id in its array, or by the
            // reference the child holds (a subset holds only the latest
            // children: the child's id may not be there).
            let test = match (&ids_in_parent, self.parent_ref_path(r)) {
                (None, Some(_)) => filt(pacc.path("_id"), one_or_in, from.clone()),
                // Buckets: the parent by the id the caller gives (the
                // bucket's reference; its children hold none).
                (None, None) if matches!(layout, Layout::Bucket { .. }) => {
                    filt(pacc.path("_id"), FilterOp::Eq, ValueSource::Param)
                }
                _ => filt(
                    pacc.path(held.as_deref().unwrap_or(&rel.parent_field)),
                    one_or_in,
                    own_from.clone(),
                ),
            };
            // The parents of several children (`in`) are each written.
            let action = if holders > 1.0 || test.op == FilterOp::In {
                Action::UpdateMany
            } else {
                Action::UpdateOne
            };
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: rel.parent,
                    action,
                    filter: vec![test],
                    updates: ups,
                    docs: holders,
                    sync: holders - parents,
                    purpose: why,
                },
            );
        }
        for (func, x, cname) in rereads {
            match &parent_id {
                // Several children deleted, their parents found by the
                // find that read their references: each parent touched.
                ValueSource::FromStep { step } if one_or_in == FilterOp::In => {
                    self.reread_per_parent(plan, op, (e, r, *step, m), (func, x, cname));
                }
                _ => self.reread_when_held(plan, op, (e, r, &parent_id), (func, x, cname)),
            }
        }
    }
}
