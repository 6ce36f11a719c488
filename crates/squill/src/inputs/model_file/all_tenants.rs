//! `all_tenants: true`: an operation that runs across every tenant (a
//! maintenance job that purges every clinic's blocked slots, a report over
//! all stores). Under a model's `tenant:` every other operation on a scoped
//! entity names its tenant (`tenancy::scope` adds the filter); this one
//! names none, so it is priced over every tenant's documents at its own
//! rate, not as one run per tenant. Kept apart from `finds_tenant` (a read
//! that does not know its tenant yet and finds it) because the two say
//! different things: a finder reads one document of one tenant, this reads
//! or writes every tenant's.

use super::context::Ctx;
use super::raw::{NamedMap, RawOperation};
use crate::model::{EntityId, Filter, Model, OperationKind, RelationshipId};

/// Each `all_tenants: true` in a model with no `tenant:`: every operation
/// runs across all the data already.
pub(super) fn without_tenant(ctx: &mut Ctx<'_>, operations: &NamedMap<RawOperation>) {
    for (name, op) in &operations.0 {
        if let Some(f) = op.all_tenants.as_ref().filter(|f| f.value) {
            ctx.error(
                ctx.pos(f),
                format!(
                    "operation `{}`: `all_tenants` without a `tenant:` in the model",
                    name.value
                ),
                "no tenant",
                Some("`all_tenants: true` lets an operation span every tenant under the model's `tenant:`; without one every operation spans all the data already: drop it".into()),
            );
        }
    }
}

/// Each `all_tenants: true` under a tenant: on an operation of an entity
/// the tenant scopes, that neither finds its tenant (`finds_tenant`) nor
/// names one in its filter.
pub(super) fn check(
    ctx: &mut Ctx<'_>,
    operations: &NamedMap<RawOperation>,
    model: &Model,
    scoped: &[(EntityId, RelationshipId)],
) {
    for (name, raw) in &operations.0 {
        let Some(flag) = raw.all_tenants.as_ref().filter(|f| f.value) else {
            continue;
        };
        if raw.finds_tenant.as_ref().is_some_and(|f| f.value) {
            ctx.error(
                ctx.pos(flag),
                format!(
                    "operation `{}`: `all_tenants` and `finds_tenant` together",
                    name.value
                ),
                "one tenant or all",
                Some("`finds_tenant` is a read of one document that tells which tenant it is in; `all_tenants` runs over every tenant's documents: keep one".into()),
            );
            continue;
        }
        let Some(op) = model
            .workload
            .operations
            .iter()
            .find(|o| o.name == name.value)
        else {
            continue;
        };
        let entity = op.entity_in(model);
        let Some(&(_, r)) = scoped.iter().find(|(x, _)| *x == entity) else {
            let what = if model.tenant.is_some_and(|t| t.entity == entity) {
                "is the tenant itself: its operations name no tenant already"
            } else {
                "is not scoped by the tenant: its operations span every tenant already"
            };
            ctx.error(
                ctx.pos(flag),
                format!(
                    "operation `{}`: `all_tenants` on `{}`, which {what}",
                    name.value,
                    model.entity(entity).name
                ),
                "nothing to unscope",
                Some("drop `all_tenants`".into()),
            );
            continue;
        };
        let filter = match &op.kind {
            OperationKind::Read { filter, .. }
            | OperationKind::Update { filter, .. }
            | OperationKind::Delete { filter, .. } => filter.as_slice(),
            _ => &[],
        };
        if names_tenant(filter, r) {
            ctx.error(
                ctx.pos(flag),
                format!(
                    "operation `{}` names its tenant in `filter` and says it spans every tenant",
                    name.value
                ),
                "tenant named",
                Some(format!(
                    "an operation across every tenant names none: drop the condition on `{}`, or drop `all_tenants` to run it for one tenant",
                    model.relationship(r).child_field
                )),
            );
        }
    }
}

/// Whether a filter names the tenant itself (its reference, `r`), not a
/// field reached through it: `finds_tenant` and `all_tenants` both refuse
/// that.
pub(super) fn names_tenant(filter: &[Filter], r: RelationshipId) -> bool {
    filter.iter().any(|c| {
        c.related
            .as_ref()
            .is_some_and(|x| x.relationship == r && x.further.is_empty())
    })
}
