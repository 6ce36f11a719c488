//! The largest tenant's costs: for a model with a `tenant:`, the design
//! advised is planned again, the same candidates in the same state (every
//! layout with its parameters, every entity pattern on or off as chosen),
//! under figures where each scoped relationship has the largest tenant's
//! children (the tenant's `largest` share within its `max`:
//! `Model::largest_tenant_holds`), so that the
//! report says what the largest store's queries cost in the design the
//! typical store's were priced in, from the same planner. (A new search
//! at those figures could choose another design, and describe that one.)

use super::priced::price;
use super::search::Advised;
use crate::candidates::facts::Facts;
use crate::candidates::placement::Placement;
use crate::design::{ScopedEntity, TenancyReport, TenantCost};
use crate::model::Count;
use crate::settings::Settings;

/// The tenancy report of the design `chosen`; `None` without a tenant.
pub(super) fn report(chosen: &Advised, settings: &Settings) -> Option<TenancyReport> {
    let model = &chosen.model;
    let tenant = model.tenant?;
    let mut largest = model.clone();
    let mut scoped = Vec::new();
    for e in model.entity_ids() {
        let Some(r) = model.tenant_relationship(e) else {
            continue;
        };
        let rel = model.relationship(r);
        let typical = rel.children.typical;
        let Some(most) = model.largest_tenant_holds(e) else {
            continue;
        };
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
    let facts = Facts::new(&largest, settings, chosen.mix);
    let p = Placement::build(&facts, &chosen.space, &chosen.state)?;
    let big = price(&facts, &chosen.space, &p, 0.0);
    let operations = model
        .operation_ids()
        .zip(&big.plans)
        .filter(|(o, _)| {
            let op = model.operation(*o);
            model.tenant_relationship(op.entity_in(model)).is_some()
                && !op.finds_tenant
                && !op.all_tenants
        })
        .filter_map(|(o, at_largest)| {
            let name = &model.operation(o).name;
            let typical = chosen
                .design
                .operations
                .iter()
                .find(|p| &p.operation == name)?;
            Some(TenantCost {
                operation: name.clone(),
                typical: typical.cost,
                largest: at_largest.cost,
            })
        })
        .collect();
    Some(TenancyReport {
        tenant: model.entity(tenant.entity).name.clone(),
        scoped,
        operations,
        finders: model
            .workload
            .operations
            .iter()
            .filter(|o| o.finds_tenant)
            .map(|o| o.name.clone())
            .collect(),
        all_tenants: model
            .workload
            .operations
            .iter()
            .filter(|o| o.all_tenants)
            .map(|o| o.name.clone())
            .collect(),
    })
}
