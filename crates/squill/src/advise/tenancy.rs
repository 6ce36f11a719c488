//! The largest tenant's costs: for a model with a `tenant:`, the design
//! advised is planned again with every relationship pinned to its chosen
//! layout and each scoped relationship at the largest tenant's children
//! (its `max`, or the tenant's `largest` share), so that the report can
//! say what the largest store's queries cost beside the typical store's,
//! from the same planner.

use super::AdviseError;
use super::search::advise_plain;
use crate::design::{Design, ScopedEntity, TenancyReport, TenantCost};
use crate::model::{Count, Model, Without};
use crate::settings::Settings;

/// The tenancy report of `design`, advised for `model`; `None` without a
/// tenant.
pub(super) fn report(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    design: &Design,
) -> Result<Option<TenancyReport>, AdviseError> {
    let Some(tenant) = model.tenant else {
        return Ok(None);
    };
    let mut largest = model.clone();
    for d in &design.relationships {
        if let Some(r) = model.relationship_by_name(&d.relationship) {
            largest.relationships[r.index()].layout = Some(d.chosen.layout_kind());
        }
    }
    let mut scoped = Vec::new();
    for e in model.entity_ids() {
        let Some(r) = model.tenant_relationship(e) else {
            continue;
        };
        let rel = model.relationship(r);
        let typical = rel.children.typical;
        let most = tenant
            .largest
            .map(|share| (share * model.entity(e).count as f64).round() as u64)
            .or(rel.children.max.finite());
        let Some(most) = most else {
            continue;
        };
        let most = most.max(typical);
        largest.relationships[r.index()].children.typical = most;
        if rel.children.max.finite().is_some_and(|m| m < most) {
            largest.relationships[r.index()].children.max = Count::Finite(most);
        }
        scoped.push(ScopedEntity {
            entity: model.entity(e).name.clone(),
            typical: typical as f64,
            largest: most as f64,
        });
    }
    let (_, big) = advise_plain(&largest, settings, mix, &Without::default())?;
    let operations = model
        .operation_ids()
        .filter(|&o| {
            let e = model.operation(o).entity_in(model);
            model.tenant_relationship(e).is_some()
        })
        .filter_map(|o| {
            let name = &model.operation(o).name;
            let typical = design.operations.iter().find(|p| &p.operation == name)?;
            let at_largest = big.operations.iter().find(|p| &p.operation == name)?;
            Some(TenantCost {
                operation: name.clone(),
                typical: typical.cost,
                largest: at_largest.cost,
            })
        })
        .collect();
    Ok(Some(TenancyReport {
        tenant: model.entity(tenant.entity).name.clone(),
        scoped,
        operations,
    }))
}
