//! Under a tenant, the tenant's id on every document that belongs to it,
//! not only on the tenant's direct children (audit45 gap 1).
//!
//! An entity belongs to the tenant when a chain of relationships with one
//! parent per child leads from it up to the tenant: a visit belongs to its
//! patient, the patient to its clinic, so the visit is the clinic's. Such
//! an entity, reached through a parent rather than from the tenant itself,
//! gets a relationship from the tenant of its own, kept as a reference in
//! the child (`clinic` in each visit, the one of its patient): its
//! operations then name their tenant as the direct children's do, its
//! indexes lead with it, its inserts link it, and its synthetic documents
//! and validators hold it. The relationship records the chain it copies
//! (`Relationship::tenant_chain`), which the migration follows to fill it.
//!
//! An entity no such chain reaches (a catalogue of countries, categories
//! shared by every store, an entity linked only many-to-many) is global:
//! it carries no tenant, and an operation on it may span tenants. A child
//! the model pins embedded in its parent needs no id of its own: the
//! parent's document holds it.

use super::context::Ctx;
use super::error::Position;
use crate::model::{
    Cardinality, Count, EntityId, LayoutKind, Model, Relationship, RelationshipId, RelationshipKind,
};

/// Adds, for each entity that belongs to the model's tenant through a
/// parent, the relationship from the tenant that carries its id. `at` is
/// the `tenant:` word, where a clash of names is reported.
pub(super) fn carry(ctx: &mut Ctx<'_>, at: Option<Position>, model: &mut Model) {
    let Some(tenant) = model.tenant else {
        return;
    };
    let t = tenant.entity;
    // The chain from each entity up to the tenant, direct children first.
    let mut chain: Vec<Option<Vec<RelationshipId>>> = vec![None; model.entities.len()];
    let mut queue: Vec<EntityId> = Vec::new();
    for e in model.entity_ids() {
        if let Some(r) = model.tenant_relationship(e) {
            chain[e.index()] = Some(vec![r]);
            queue.push(e);
        }
    }
    let field = tenant_field(model);
    let mut added: Vec<(EntityId, Vec<RelationshipId>)> = Vec::new();
    let mut i = 0;
    while i < queue.len() {
        let p = queue[i];
        i += 1;
        for r in model.relationships_from(p) {
            let rel = model.relationship(r);
            let c = rel.child;
            if c == t
                || c == p
                || chain[c.index()].is_some()
                || !rel.one_parent()
                || rel.layout == Some(LayoutKind::Embed)
            {
                continue;
            }
            let mut up = vec![r];
            up.extend(chain[p.index()].iter().flatten().copied());
            chain[c.index()] = Some(up.clone());
            queue.push(c);
            added.push((c, up));
        }
    }
    for (c, up) in added {
        let entity = model.entity(c);
        let clash = entity.field(&field).is_some()
            || model
                .relationships_to(c)
                .any(|r| model.relationship(r).child_field == field)
            || model
                .relationships_from(c)
                .any(|r| model.relationship(r).parent_field == field);
        if clash {
            ctx.error(
                at,
                format!(
                    "`tenant`: entity `{}` belongs to `{}` through its parent and must carry the tenant's id as `{field}`, a name the entity already uses",
                    entity.name,
                    model.entity(t).name
                ),
                "tenant field taken",
                Some(format!(
                    "rename `{field}` in entity `{}`, or make the tenant its parent with a relationship of its own (`parent: {}`, `child_field:` another name)",
                    entity.name,
                    model.entity(t).name
                )),
            );
            continue;
        }
        let rel = carried(model, c, &up, &field, tenant.largest);
        model.relationships.push(rel);
    }
}

/// The field in which the tenant's direct children hold its id, the one
/// most of them use (`clinic`); the tenant entity's name when none does.
fn tenant_field(model: &Model) -> String {
    let mut names: Vec<(&str, usize)> = Vec::new();
    for e in model.entity_ids() {
        if let Some(r) = model.tenant_relationship(e) {
            let f = model.relationship(r).child_field.as_str();
            match names.iter_mut().find(|(n, _)| *n == f) {
                Some((_, k)) => *k += 1,
                None => names.push((f, 1)),
            }
        }
    }
    // The first of the most used, in the model's order.
    let mut best: Option<(&str, usize)> = None;
    for (n, k) in names {
        if best.is_none_or(|(_, b)| k > b) {
            best = Some((n, k));
        }
    }
    best.map_or_else(
        || {
            model
                .entity(model.tenant.map_or(EntityId::from_index(0), |t| t.entity))
                .name
                .clone()
        },
        |(n, _)| n.to_string(),
    )
}

/// The relationship from the tenant to `c`, which belongs to it through
/// `up` (the child's relationship to its parent first, the tenant's last).
/// A tenant holds the product of the typical children along the chain; the
/// largest holds `largest` of `c`'s instances when the model says, else the
/// largest tenant's direct children each with the typical count below.
fn carried(
    model: &Model,
    c: EntityId,
    up: &[RelationshipId],
    field: &str,
    largest: Option<f64>,
) -> Relationship {
    let count = model.entity(c).count;
    // Each step's mean as stated, fractions kept: 0.1 reactions a message
    // under 1,250 messages a channel and 20 channels a workspace is 2,500
    // reactions a workspace, where the rounded 0 made it none (audit50 A8).
    let mean_below = |steps: &[RelationshipId]| -> f64 {
        steps
            .iter()
            .map(|&r| model.relationship(r).children.mean_or_typical())
            .product()
    };
    let mean = mean_below(up).min(count as f64);
    let typical = (mean.round() as u64).min(count);
    let max = match largest {
        Some(share) => Count::Finite(((share * count as f64).ceil() as u64).clamp(typical, count)),
        None => {
            let top = up.last().map(|&r| model.relationship(r).children.max);
            let below = mean_below(&up[..up.len().saturating_sub(1)]).ceil() as u64;
            match top {
                Some(Count::Finite(n)) => {
                    Count::Finite(n.saturating_mul(below).clamp(typical, count))
                }
                _ => Count::Finite(count),
            }
        }
    };
    let tenant = model.tenant.map_or(c, |t| t.entity);
    let mut name = format!("{field}_of_{}", model.entity(c).name);
    while model.relationships.iter().any(|r| r.name == name) {
        name.push('_');
    }
    let via: Vec<&str> = up[..up.len() - 1]
        .iter()
        .map(|&r| model.entity(model.relationship(r).parent).name.as_str())
        .collect();
    Relationship {
        name: name.clone(),
        kind: RelationshipKind::OneToMany,
        parent: tenant,
        child: c,
        children: Cardinality {
            mean: (mean.fract() != 0.0).then_some(mean),
            min: 0,
            typical,
            max,
            growth: None,
            p95: None,
            p99: None,
        },
        parents: Cardinality::ONE,
        child_standalone: false,
        shared: false,
        parent_field: name,
        child_field: field.to_string(),
        layout: Some(LayoutKind::ParentReference),
        snapshot: Vec::new(),
        attributes: Vec::new(),
        edge: false,
        levels: None,
        description: Some(format!(
            "the tenant's id in each {}, the one of its {}",
            model.entity(c).name,
            via.join("'s ")
        )),
        tenant_chain: up.to_vec(),
        stated_parents: None,
    }
}
