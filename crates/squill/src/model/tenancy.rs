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

use super::{EntityId, Filter, FilterOp, KeyPart, Model, RelationshipId};
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

/// What picks the one instance a filter selects, when something does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// `_id: eq`, at this condition.
    Id(usize),
    /// Every key of a `unique:` combination tested for equality: the
    /// combination (its index in the entity's `unique`) and the conditions
    /// that test its keys, in the combination's order.
    Unique { combination: usize, parts: Vec<usize> },
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

    /// Whether condition `c` on `e` is an equality on the parent of `r`
    /// (`store: eq` for the products of a store).
    fn names_parent(c: &Filter, r: RelationshipId, e: EntityId, model: &Model) -> bool {
        c.op == FilterOp::Eq
            && c.related.as_ref().is_some_and(|x| {
                x.relationship == r
                    && x.field == "_id"
                    && x.further.is_empty()
                    && model.relationship(r).child == e
            })
    }
}

/// The condition of `filter` that selects one instance of `e` by itself,
/// or the unique combination whose keys it tests for equality.
pub fn identity(model: &Model, e: EntityId, filter: &[Filter]) -> Option<Identity> {
    if let Some(i) = filter
        .iter()
        .position(|c| c.op == FilterOp::Eq && c.related.is_none() && c.path == ["_id"])
    {
        return Some(Identity::Id(i));
    }
    let entity = model.entity(e);
    entity
        .unique
        .iter()
        .enumerate()
        .find_map(|(combination, keys)| {
            let parts = keys
                .iter()
                .map(|k| {
                    filter.iter().position(|c| match k {
                        KeyPart::Field(name) => {
                            c.op == FilterOp::Eq && c.related.is_none() && c.path == [name.clone()]
                        }
                        KeyPart::Parent(r) => Model::names_parent(c, *r, e, model),
                    })
                })
                .collect::<Option<Vec<usize>>>()?;
            Some(Identity::Unique { combination, parts })
        })
}

/// For each condition of `filter` on `e`, whether another condition
/// implies it, so that it keeps no share of its own: every condition
/// beside an identity (it tests the one instance found), and the tenant
/// beside an equality or membership on another parent that lies within
/// the tenant (a store's customer: her orders are all of her store).
pub fn implied(model: &Model, e: EntityId, filter: &[Filter]) -> Vec<bool> {
    let mut out = vec![false; filter.len()];
    match identity(model, e, filter) {
        Some(Identity::Id(i)) => {
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
    let within = filter.iter().any(|c| {
        matches!(c.op, FilterOp::Eq | FilterOp::In)
            && c.related.as_ref().is_some_and(|x| {
                let rel = model.relationship(x.relationship);
                x.relationship != tr
                    && x.field == "_id"
                    && x.further.is_empty()
                    && rel.child == e
                    && rel.one_parent()
                    && model.tenant_relationship(rel.parent).is_some()
            })
    });
    if within {
        for (j, c) in filter.iter().enumerate() {
            if Model::names_parent(c, tr, e, model) {
                out[j] = true;
            }
        }
    }
    out
}
