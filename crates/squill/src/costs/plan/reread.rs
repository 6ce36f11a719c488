//! A parent's max, min, first or last of its children, read again from
//! the children after one of them was lowered or removed (issue 41). An
//! insert keeps such a figure with `$max` (or `$min`, or `$set` for the
//! latest); an edit did the same, so a lowered rating kept the old max,
//! and a delete left the figure as it was. Whether the changed child held
//! the figure is not known without reading it, so the plan reads the
//! figure again from the parent's children, one key of an index led by
//! the child's reference (`{product: 1, rating: -1}`; `_id` orders
//! arrival for first and last), and `$set`s it.

use super::*;

impl Planner<'_> {
    /// The read of `function` of `field` over the children of one parent
    /// through `r` (the child is `e`), pushed as a step, and the `$set` of
    /// the parent's computed field `name` from it; `None` for a figure an
    /// `$inc` keeps (count, sum). `parent`: where the parent's id comes
    /// from (the caller, or the find that read the deleted child's
    /// reference).
    pub(super) fn reread_extreme(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (e, r, parent): (EntityId, RelationshipId, &ValueSource),
        (function, field, name): (AggregateFn, &str, &str),
    ) -> Option<UpdateOp> {
        let (by, descending) = match function {
            AggregateFn::Max => (field, true),
            AggregateFn::Min => (field, false),
            AggregateFn::Last => ("_id", true),
            AggregateFn::First => ("_id", false),
            AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg => return None,
        };
        let f = self.facts;
        let rel = f.model.relationship(r);
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
        let (_, n) = self.find(
            plan,
            op,
            e,
            &read,
            Purpose::RereadComputed {
                function: crate::candidates::fn_name(function).to_string(),
                field: field.to_string(),
                entity: self.name(e).to_string(),
                parent: self.name(rel.parent).to_string(),
            },
        );
        let by_ref = self.access(e).path(&rel.child_field);
        if let Some(step) = plan.steps.get_mut(n.wrapping_sub(1))
            && let Some(test) = step.filter.iter_mut().find(|t| t.path == by_ref)
            && matches!(parent, ValueSource::FromStep { .. })
        {
            test.value_from = parent.clone();
            test.op = FilterOp::In;
        }
        Some(UpdateOp::SetFrom {
            path: self.access(rel.parent).path(name),
            step: n,
            field: self.access(e).path(field),
            function,
        })
    }
}
