//! Which tenant each synthetic instance belongs to, under a model's tenant
//! (`tenant: store`). A scoped document references only documents of its
//! own tenant: an order's customer is a customer of the order's store, a
//! follow's followed player one of the follower's game. `Numbering` draws
//! every reference within the tenant from the scopes found here.

use crate::model::{EntityId, Model, Relationship, RelationshipId};
use std::ops::Range;
use std::sync::Arc;

/// How the tenant of an entity's instances is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// Outside every tenant (a global brand), or no tenant in the model.
    Global,
    /// The tenant itself: instance `j` is tenant `j`.
    Tenant,
    /// The tenant of the parent it is numbered under (a customer's store,
    /// an order's lines): the instances of one tenant are consecutive.
    Owner(RelationshipId),
    /// The tenant of the parent drawn through this one-parent relationship
    /// (a product numbered under its brand, and a store drawn for it): the
    /// draw that decides the tenant; every other reference follows it.
    Drawn(RelationshipId),
}

/// Each entity's scope, given each entity's owning relationship
/// (`numbering::owners`). An entity is scoped when it is the tenant, when
/// the parent it is numbered under is scoped, or when a one-parent
/// relationship links it to a scoped parent (the tenant's own first).
/// `shared` tells a relationship whose children have several parents
/// (`numbering::is_shared`, which imports this file).
pub(super) fn scopes(
    model: &Model,
    owners: &[Option<RelationshipId>],
    shared: fn(&Relationship) -> bool,
) -> Vec<Scope> {
    let Some(tenant) = model.tenant.map(|t| t.entity) else {
        return vec![Scope::Global; model.entities.len()];
    };
    let mut out: Vec<Option<Scope>> = vec![None; model.entities.len()];
    let mut on_walk = vec![false; model.entities.len()];
    let cx = Cx {
        model,
        owners,
        tenant,
        shared,
    };
    for e in model.entity_ids() {
        scope_of(&cx, e, &mut out, &mut on_walk);
    }
    out.into_iter()
        .map(|s| s.unwrap_or(Scope::Global))
        .collect()
}

struct Cx<'m> {
    model: &'m Model,
    owners: &'m [Option<RelationshipId>],
    tenant: EntityId,
    shared: fn(&Relationship) -> bool,
}

fn scope_of(cx: &Cx<'_>, e: EntityId, out: &mut [Option<Scope>], on_walk: &mut [bool]) -> Scope {
    let model = cx.model;
    if let Some(s) = out[e.index()] {
        return s;
    }
    if e == cx.tenant {
        out[e.index()] = Some(Scope::Tenant);
        return Scope::Tenant;
    }
    if on_walk[e.index()] {
        // A cycle of relationships: no tenant through it.
        return Scope::Global;
    }
    on_walk[e.index()] = true;
    let mut scoped = |r: RelationshipId| {
        let p = model.relationship(r).parent;
        scope_of(cx, p, out, on_walk) != Scope::Global
    };
    let owner = cx.owners[e.index()].filter(|r| scoped(*r));
    let scope = if let Some(r) = owner {
        Scope::Owner(r)
    } else {
        let drawn = |r: &RelationshipId| {
            let rel = model.relationship(*r);
            rel.one_parent() && !(cx.shared)(rel) && rel.parent != rel.child
        };
        let direct = model.tenant_relationship(e).filter(drawn);
        let other = || model.relationships_to(e).filter(drawn).find(|r| scoped(*r));
        direct.or_else(other).map_or(Scope::Global, Scope::Drawn)
    };
    on_walk[e.index()] = false;
    out[e.index()] = Some(scope);
    scope
}

/// The instances of one entity in one tenant: consecutive (numbered under
/// the tenant, level by level) or listed (drawn).
#[derive(Debug, Clone)]
pub(super) enum Members {
    Range(Range<u64>),
    /// `items[at]` of a list shared by every tenant (`Grouped`).
    List {
        items: Arc<[u64]>,
        at: Range<usize>,
    },
}

impl Members {
    pub(super) fn len(&self) -> u64 {
        match self {
            Members::Range(r) => r.end - r.start,
            Members::List { at, .. } => at.len() as u64,
        }
    }

    /// Where instance `j` is among them (0 when it is not).
    pub(super) fn position(&self, j: u64) -> u64 {
        match self {
            Members::Range(r) => j.saturating_sub(r.start),
            Members::List { items, at } => items[at.clone()].binary_search(&j).unwrap_or(0) as u64,
        }
    }

    /// The `k`-th instance (`k < len()`).
    pub(super) fn at(&self, k: u64) -> u64 {
        match self {
            Members::Range(r) => r.start + k,
            Members::List { items, at } => items[at.start + k as usize],
        }
    }
}

/// Every instance of an entity grouped by tenant, for an entity whose
/// tenants are drawn: `offsets[t]..offsets[t + 1]` of `items` are tenant
/// `t`'s instances, in order.
#[derive(Debug)]
pub(super) struct Grouped {
    offsets: Vec<usize>,
    items: Arc<[u64]>,
}

impl Grouped {
    /// Groups instances `0..count` of `tenants` tenants by `tenant_of`
    /// (a counting sort: two passes).
    pub(super) fn new(count: u64, tenants: u64, tenant_of: impl Fn(u64) -> u64) -> Self {
        let mut offsets = vec![0usize; tenants as usize + 1];
        for j in 0..count {
            offsets[tenant_of(j) as usize + 1] += 1;
        }
        for t in 0..tenants as usize {
            offsets[t + 1] += offsets[t];
        }
        let mut next = offsets.clone();
        let mut items = vec![0u64; count as usize];
        for j in 0..count {
            let t = tenant_of(j) as usize;
            items[next[t]] = j;
            next[t] += 1;
        }
        Grouped {
            offsets,
            items: items.into(),
        }
    }

    pub(super) fn members(&self, t: u64) -> Members {
        let t = t as usize;
        Members::List {
            items: self.items.clone(),
            at: self.offsets[t]..self.offsets[t + 1],
        }
    }
}
