//! Tenancy and correlated filters: what the conditions of one filter select
//! *together*, from facts the model states.
//!
//! Multiplying each condition's share treats them as independent. They are
//! not when one implies another: an `_id`, or a combination of keys the model
//! says is unique (`{store, sku}`), picks one instance, and every other
//! condition only tests that instance; and under a tenant (`tenant: store`),
//! the instances of a parent that lies within one tenant (a store's customer)
//! are all of that tenant, so naming the tenant beside the parent keeps no
//! fewer. Nothing here is a tuned factor: each implication is a statement of
//! the model (an `_id`, a `unique:`, a `tenant:`, a one-parent relationship).

use super::workload::{Identity, names_parent};
use super::{EntityId, Filter, FilterOp, Model, RelationshipId};
use serde::Serialize;

/// The model's tenant (`tenant: store`): every entity that is a child of
/// it through a one-parent relationship is *scoped*, its documents carry
/// the tenant's id, every operation on it names its tenant, and every
/// index of it leads with the tenant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tenant {
    pub entity: EntityId,
    /// The largest tenant's share of each scoped entity's instances
    /// (`largest: 0.015`), when the model says; otherwise each scoped
    /// relationship's `max` children is the largest tenant's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub largest: Option<f64>,
}

impl Model {
    /// The relationship through which scoped entity `e` belongs to the
    /// model's tenant; `None` without a tenant or for an entity outside it.
    pub fn tenant_relationship(&self, e: EntityId) -> Option<RelationshipId> {
        let t = self.tenant?.entity;
        if t == e {
            return None;
        }
        self.relationships_to(e).find(|&r| {
            let rel = self.relationship(r);
            rel.parent == t && rel.one_parent()
        })
    }
}

impl Model {
    /// How many instances of scoped entity `e` the largest tenant holds:
    /// the tenant's `largest` share of `e`'s count, but no more than the
    /// stated `max` of `e`'s relationship to the tenant, which bounds
    /// every tenant, the largest too (a workspace with 4% of the contacts
    /// has at most 50 API keys: one share is the largest tenant's where
    /// it is largest, audit48 C5); without a share, that `max`. Never
    /// below the typical. `None` for an entity outside the tenant, or
    /// when the model states neither.
    pub fn largest_tenant_holds(&self, e: EntityId) -> Option<u64> {
        let rel = self.relationship(self.tenant_relationship(e)?);
        let max = rel.children.max.finite();
        let by_share = self
            .tenant?
            .largest
            .map(|share| (share * self.entity(e).count as f64).round() as u64);
        let most = match (by_share, max) {
            (Some(s), Some(m)) => s.min(m),
            (s, m) => s.or(m)?,
        };
        Some(most.max(rel.children.typical))
    }
}

impl Model {
    /// The tenant's id carried down to the children of `rel` that lie
    /// within the tenant through `rel`'s parent (a tick of a symbol of an
    /// org): laid out in buckets of `rel`, all the children of one bucket
    /// share its parent and so its tenant, and the bucket document holds
    /// the id once, at its top level beside the parent's (`org` beside
    /// `symbol`), not in each element. Any path to the tenant will do, not
    /// only the child's first link: a reading whose chain runs through its
    /// device, bucketed by its batch of the same org, shares the batch's
    /// org. `None` for a relationship of no such child, or whose parent is
    /// the tenant itself (the bucket's parent is then the tenant's id) or
    /// lies outside it.
    pub fn bucket_tenant(&self, rel: RelationshipId) -> Option<RelationshipId> {
        let r = self.relationship(rel);
        let t = self.tenant_relationship(r.child)?;
        (t != rel && r.one_parent() && self.tenant_relationship(r.parent).is_some()).then_some(t)
    }

    /// The relationships from `rel`'s parent up to the tenant (the
    /// parent's own link to it first): the chain the parent's tenant is
    /// reached through, which a bucket of `rel` shares (`bucket_tenant`).
    /// Empty when the parent belongs to no tenant.
    pub fn tenant_chain_of_parent(&self, rel: RelationshipId) -> Vec<RelationshipId> {
        let p = self.relationship(rel).parent;
        match self.tenant_relationship(p) {
            Some(t) if self.relationship(t).tenant_chain.is_empty() => vec![t],
            Some(t) => self.relationship(t).tenant_chain.clone(),
            None => Vec::new(),
        }
    }
}

/// For each condition of `filter` on `e`, whether another condition
/// implies it, so that it keeps no share of its own: every condition
/// beside an identity (it tests the one instance found), and the tenant
/// beside an equality or membership on another parent that lies within
/// the tenant (a store's customer: her orders are all of her store) or
/// on a field of `e` whose values are each one tenant's (`tenant_local`:
/// an owner's contacts are all of the owner's workspace, audit48 A9).
pub fn implied(
    model: &Model,
    e: EntityId,
    filter: &[Filter],
    identity: Option<&Identity>,
) -> Vec<bool> {
    let mut out = vec![false; filter.len()];
    match identity {
        Some(&Identity::Id(i)) => {
            for (j, x) in out.iter_mut().enumerate() {
                *x = j != i;
            }
            return out;
        }
        Some(Identity::Unique { parts, .. }) => {
            for (j, x) in out.iter_mut().enumerate() {
                *x = !parts.contains(&j);
            }
            return out;
        }
        None => {}
    }
    let Some(tr) = model.tenant_relationship(e) else {
        return out;
    };
    let within = own_conditions_within_tenant(model, e, filter)
        || filter.iter().any(|c| {
            matches!(c.op, FilterOp::Eq | FilterOp::In)
                && c.related.as_ref().is_some_and(|x| {
                    let rel = model.relationship(x.relationship);
                    // The parent's id, or a path on through it (the
                    // results of the players a player follows): either
                    // way instances of a parent within the tenant, whose
                    // further hops the tenant scopes too (tenant_carry.rs).
                    x.relationship != tr
                        && ((x.field == "_id" && x.further.is_empty()) || !x.further.is_empty())
                        && rel.child == e
                        && rel.one_parent()
                        && model.tenant_relationship(rel.parent).is_some()
                })
        });
    if within {
        for (j, c) in filter.iter().enumerate() {
            if names_parent(c, tr, e, model) {
                out[j] = true;
            }
        }
    }
    out
}

/// Whether `filter` on scoped entity `e` picks, by conditions on `e`'s
/// own fields, instances that all lie in one tenant, so that the tenant
/// named beside them keeps no share of its own. One rule for a read and a
/// write, whichever way the plan goes (the filter whole, or the tenant's
/// children through the tenant: audit49 A5, a place read was 2,000 times
/// low where the same filter on an update was right):
/// - a search of `e`'s places: under a tenant, `density` counts one
///   tenant's places where it has them (docs/model-file.md, "Places"),
///   so naming the tenant beside the place thins nothing (review41 D4);
/// - an equality on a field whose values are each one tenant's
///   (`tenant_local`).
pub fn own_conditions_within_tenant(model: &Model, e: EntityId, filter: &[Filter]) -> bool {
    searches_places(model, e, filter) || filter.iter().any(|c| tenant_local(model, e, c))
}

/// Whether condition `c` on scoped entity `e` picks instances that all lie
/// in one tenant, so that naming the tenant beside it keeps no fewer: an
/// equality (or membership) on a field of `e`'s own that the model says is
/// unique within the tenant (`unique_within: store`), or whose values are
/// divided among the tenants rather than shared by them (an owner's id, a
/// SKU of one warehouse's bins). Its share is then the field's over the
/// whole collection (`count / distinct`: a user's 250 contacts, all in
/// the user's workspace), not that share again within the tenant's.
///
/// The model states no owner of a value, so the numbers decide. Values are
/// divided when there are at least as many as tenants (each tenant can
/// have its own) and more than the instances of an average tenant
/// (`count / tenants`): shared by every tenant, each tenant would then use
/// a value less than once, and a read names a value its tenant uses. A
/// `status` of five, or 20,000 diagnosis codes over clinics of 80,000
/// visits each, are shared: each clinic uses every code, and the tenant
/// keeps its own share. Where the model states no `distinct`, the planner
/// takes every value as one instance's (`matched`), and one instance lies
/// in one tenant. Never an `attributes` field: a name is every instance's
/// that has it.
pub fn tenant_local(model: &Model, e: EntityId, c: &Filter) -> bool {
    let Some(tr) = model.tenant_relationship(e) else {
        return false;
    };
    let Some(t) = model.tenant.map(|t| t.entity) else {
        return false;
    };
    if !matches!(c.op, FilterOp::Eq | FilterOp::In) || c.related.is_some() || c.path.len() != 1 {
        return false;
    }
    let entity = model.entity(e);
    let Some(field) = entity.field(&c.path[0]) else {
        return false;
    };
    if field.attribute_names().is_some() {
        return false;
    }
    // `unique_within: store` is the entity's `unique: [[store, sku]]`.
    let within = entity.unique.iter().any(|combo| {
        combo.len() == 2
            && combo.contains(&super::KeyPart::Parent(tr))
            && combo.contains(&super::KeyPart::Field(field.name.clone()))
    });
    let values = field.distinct_values().unwrap_or(entity.count) as f64;
    let tenants = model.entity(t).count.max(1) as f64;
    within || (values >= tenants && values > entity.count as f64 / tenants)
}

/// Whether `filter` on `e` picks its instances by `_id` and names nothing
/// else but the tenant, which every write under a tenant tests anyway
/// (costs/plan/tenant.rs): such a write goes by the caller's id alone. Any
/// other condition beside `_id` (the author, a state) is the caller's rule
/// of who may write, and the write must test it (audit44 A).
pub fn by_id_alone(model: &Model, e: EntityId, filter: &[Filter]) -> bool {
    let is_id = |c: &Filter| c.path.len() == 1 && c.path[0] == "_id";
    let tenant = model.tenant_relationship(e);
    filter.iter().any(is_id)
        && filter
            .iter()
            .all(|c| is_id(c) || tenant.is_some_and(|tr| names_parent(c, tr, e, model)))
}

/// Whether a condition of `filter` searches `e`'s own points near a point
/// or within an area (`pickup: near(1 km)`).
pub fn searches_places(model: &Model, e: EntityId, filter: &[Filter]) -> bool {
    let entity = model.entity(e);
    filter.iter().any(|c| {
        matches!(c.op, FilterOp::Near | FilterOp::Within)
            && c.geo.is_some()
            && c.related.is_none()
            && c.path.len() == 1
            && entity
                .field(&c.path[0])
                .is_some_and(|x| x.ty.holds(&super::FieldType::Point))
    })
}
