//! The bucket layout's planning in one place (the worked example of a
//! layout's pricing kept together): a child added to its parent's open
//! bucket.

use super::*;

impl Planner<'_> {
    /// A new child upserted into its parent's open bucket (by count or by
    /// time unit), with the bucket's running aggregates; `None` when `rel`
    /// is not a bucket (the insert then writes nothing more).
    pub(super) fn add_to_bucket(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        rel: RelationshipId,
        count: f64,
    ) -> Option<()> {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let r = f.model.relationship(rel);
        let Layout::Bucket {
            by,
            per_bucket,
            aggregates,
        } = self.layout(rel)
        else {
            return None;
        };
        let mut updates = vec![
            UpdateOp::Push {
                path: r.parent_field.clone(),
                sort: None,
                slice: None,
            },
            UpdateOp::Inc {
                path: "count".to_string(),
            },
        ];
        for a in aggregates {
            let field = a.field.clone().unwrap_or_default();
            match a.function {
                AggregateFn::Count => {}
                AggregateFn::Sum | AggregateFn::Avg => updates.push(UpdateOp::Inc {
                    path: format!("sum_{field}"),
                }),
                AggregateFn::Min => updates.push(UpdateOp::Min {
                    path: format!("min_{field}"),
                }),
                AggregateFn::Max => updates.push(UpdateOp::Max {
                    path: format!("max_{field}"),
                }),
                // The first child opens the bucket; each later one
                // is the latest so far.
                AggregateFn::First => updates.push(UpdateOp::SetOnInsert {
                    path: format!("first_{field}"),
                }),
                AggregateFn::Last => updates.push(UpdateOp::Set {
                    path: format!("last_{field}"),
                }),
            }
        }
        let mut filter = vec![filt(
            r.child_field.clone(),
            FilterOp::Eq,
            ValueSource::Param,
        )];
        match by {
            BucketBy::Count => filter.push(filt(
                "count",
                FilterOp::Range,
                ValueSource::Below { limit: *per_bucket },
            )),
            BucketBy::Time { field, unit } => filter.push(filt(
                unit.clone(),
                FilterOp::Eq,
                ValueSource::Truncated {
                    field: field.clone(),
                    unit: unit.clone(),
                },
            )),
        }
        let mut step = Self::step(
            &acc.collection,
            Action::Upsert,
            Purpose::AddToOpenBucket {
                entity: name.clone(),
                parent: self.name(r.parent).to_string(),
            },
        );
        step.filter = filter;
        step.updates = updates;
        step.documents = count;
        let cost = StepCost {
            keys: count,
            docs: count,
            docs_written: count,
            bytes_written: count * self.p.bucket_push_bytes(f, rel),
            ..StepCost::default()
        };
        Self::target(plan, e, false);
        self.push(
            plan,
            op,
            step,
            cost,
            Some((
                vec![
                    (r.child_field.clone(), 1),
                    (
                        match by {
                            BucketBy::Count => "count".to_string(),
                            BucketBy::Time { unit, .. } => unit.clone(),
                        },
                        1,
                    ),
                ],
                e,
                acc.docs,
            )),
        );
        Some(())
    }
}
