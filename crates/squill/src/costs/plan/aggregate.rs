//! Aggregates a read asks for: computed fields and bucket pre-aggregates, or counting on read.

use super::*;

impl<'a> Planner<'a> {
    pub(super) fn computed(
        &self,
        r: RelationshipId,
    ) -> impl Iterator<Item = (AggregateFn, Option<&'a String>, &'a String)> + '_ {
        self.p
            .computed
            .iter()
            .filter_map(move |&i| match &self.space.entity[i] {
                EntityCandidate::Computed {
                    relationship,
                    function,
                    field,
                    name,
                    ..
                } if *relationship == r => Some((*function, field.as_ref(), name)),
                _ => None,
            })
    }

    /// Children per write of the computed field `name` through `r` (1 when
    /// it is kept exact).
    pub(super) fn batch(&self, r: RelationshipId, name: &str) -> u64 {
        self.p
            .computed
            .iter()
            .find_map(|&i| match &self.space.entity[i] {
                EntityCandidate::Computed {
                    relationship,
                    name: n,
                    every,
                    ..
                } if *relationship == r && n == name => Some(*every),
                _ => None,
            })
            .unwrap_or(1)
    }

    pub(super) fn aggregate(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        m: f64,
        from_step: usize,
        agg: &crate::model::Aggregate,
    ) {
        // The parents' ids: those the read's step found.
        let here = ValueSource::FromStep { step: from_step };
        let f = self.facts;
        let r = agg.relationship;
        if self
            .computed(r)
            .any(|(func, field, _)| func == agg.function && field == agg.field.as_ref())
        {
            return;
        }
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        let n = f.typical(r);
        let fname = crate::candidates::fn_name(agg.function);
        match layout {
            Layout::Embed => {}
            // A subset answers only when it holds every child: a parent with
            // more than `k` would need the query anyway.
            Layout::Subset { k, .. } if rel.children.max.finite().is_some_and(|max| max <= *k) => {}
            Layout::ChildReferences if agg.function == AggregateFn::Count => {}
            Layout::Bucket {
                per_bucket,
                aggregates,
                ..
            } => {
                let acc = self.access(rel.child);
                let buckets = m * (n / (*per_bucket as f64).max(1.0)).ceil().max(1.0);
                let stored = aggregates
                    .iter()
                    .any(|a| a.function == agg.function && a.field == agg.field);
                let mut step = Self::step(
                    &acc.collection,
                    Action::Find,
                    if stored {
                        Purpose::AddUpBuckets {
                            function: fname.to_string(),
                        }
                    } else {
                        Purpose::ComputeOverBuckets {
                            function: fname.to_string(),
                        }
                    },
                );
                step.filter
                    .push(filt(rel.child_field.clone(), FilterOp::In, here.clone()));
                step.documents = buckets;
                let cost = StepCost {
                    keys: buckets + if stored { 0.0 } else { m * n },
                    docs: buckets,
                    bytes_read: buckets * acc.root_bytes,
                    ..StepCost::default()
                };
                self.push(
                    plan,
                    op,
                    step,
                    cost,
                    Some((vec![(rel.child_field.clone(), 1)], rel.child, acc.docs)),
                );
            }
            l => {
                let acc = self.access(rel.child);
                // Where each child holds its parent's id: its reference, or
                // the id of the parent folded into it.
                let path = match l {
                    Layout::EmbedParentInChild => Some(format!("{}._id", rel.child_field)),
                    l => parent_ref_path(l, &rel.child_field),
                }
                .unwrap_or_else(|| "_id".to_string());
                let mut step = Self::step(
                    &acc.collection,
                    Action::Find,
                    Purpose::ComputeOverChildren {
                        function: fname.to_string(),
                        child: self.name(rel.child).to_string(),
                        parent: self.name(e).to_string(),
                    },
                );
                step.filter
                    .push(filt(acc.path(&path), FilterOp::In, here.clone()));
                if let Some(x) = &agg.field {
                    step.projection.push(acc.path(x));
                }
                let total = m * n;
                step.documents = total;
                let covered = agg.function == AggregateFn::Count;
                let roots = (total / acc.per_root.max(1.0)).ceil();
                let cost = StepCost {
                    keys: total,
                    docs: if covered { 0.0 } else { roots },
                    bytes_read: if covered { 0.0 } else { roots * acc.root_bytes },
                    ..StepCost::default()
                };
                self.push(
                    plan,
                    op,
                    step,
                    cost,
                    Some((vec![(acc.path(&path), 1)], rel.child, acc.docs)),
                );
            }
        }
    }
}
