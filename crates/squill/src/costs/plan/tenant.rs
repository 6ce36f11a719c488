//! A write by `_id` under a tenant (`tenant: store`): the operation names
//! its tenant (the model adds the filter on it), and the write's filter
//! keeps that test beside the `_id`, as a read's does. An id of another
//! tenant's document then matches nothing, rather than being updated or
//! deleted (issue 41). On `_id_` it costs nothing: the `_id` finds the one
//! document, the tenant only tests it.

use super::{OpPlan, Planner, filt};
use crate::design::{StepFilter, ValueSource};
use crate::model::{EntityId, Filter, FilterOp, OperationId};

impl Planner<'_> {
    /// The test on `e`'s tenant that `filter` (the operation's own) has,
    /// as a step tests it in `e`'s documents: the tenant's reference each
    /// holds (`store`), or the `_id` of the tenant's document that embeds
    /// it. `None` outside a tenant, or where testing it would take a step
    /// of its own (the tenant's id is nowhere in `e`'s documents).
    pub(super) fn tenant_test(
        &self,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
    ) -> Option<StepFilter> {
        let t = self.facts.model.tenant_relationship(e)?;
        let c = filter.iter().find(|c| {
            c.op == FilterOp::Eq
                && c.related.as_ref().is_some_and(|x| {
                    x.relationship == t && x.field == "_id" && x.further.is_empty()
                })
        })?;
        let acc = self.access(e);
        let mut scratch = OpPlan::default();
        let (path, from) = self.filter_path(&mut scratch, op, e, &acc, c);
        (scratch.steps.is_empty() && from == ValueSource::Param && path != acc.path("_id"))
            .then(|| filt(path, FilterOp::Eq, from))
    }
}
