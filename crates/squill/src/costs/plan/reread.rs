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
        let (by, descending) = match function {
            AggregateFn::Max => (field, true),
            AggregateFn::Min => (field, false),
            AggregateFn::Last => ("_id", true),
            AggregateFn::First => ("_id", false),
            AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg => return,
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
        // The share of writes whose child held the figure.
        let held = held_share(f.typical(r));
        let every = insert::every_one_in(held);
        let (mut clear, mut cost, index) = self.root_write(
            plan,
            RootWrite {
                entity: rel.parent,
                action: Action::UpdateOne,
                filter: vec![
                    id_test(),
                    filt(
                        figure.clone(),
                        FilterOp::Eq,
                        ValueSource::Old {
                            field: field.to_string(),
                        },
                    ),
                ],
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
        };
        let before = plan.cost;
        let (_, n) = self.find(
            plan,
            op,
            e,
            &read,
            Purpose::RereadComputed {
                function: crate::candidates::fn_name(function).to_string(),
                field: field.to_string(),
                entity,
                parent: pname.clone(),
            },
        );
        let mut found = plan.cost;
        found.add_scaled(&before, -1.0);
        plan.cost = before;
        plan.cost.add_scaled(&found, held);
        let by_ref = self.access(e).path(&rel.child_field);
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
        let (mut set, cost, index) = self.root_write(
            plan,
            RootWrite {
                entity: rel.parent,
                action: Action::UpdateOne,
                filter: vec![id_test()],
                updates: vec![UpdateOp::SetFrom {
                    path: figure,
                    step: n,
                    field: self.access(e).path(field),
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

/// The share of a parent's children edits or deletes whose child held the
/// parent's max (min, first, last): one child in `children`, the typical
/// children per parent (every write when a parent has one or fewer).
pub(super) fn held_share(children: f64) -> f64 {
    if children > 1.0 { 1.0 / children } else { 1.0 }
}
