//! The words for tenants: the model's `tenant: store` (or `{entity: store,
//! largest: 0.015}`), and a field's `unique_within: store` (a SKU unique
//! within its store). Kept apart from the other words so that what a tenant
//! changes in the model (a filter on it in every operation, the tenant
//! first in every unique combination, the tenant linked on every insert)
//! is read in one place.

use super::context::Ctx;
use super::error::suggestion;
use super::raw::{NamedMap, RawEntity, RawField, RawOperation, S};
use super::tenant_word::RawTenant;
use crate::model::{
    EntityId, Filter, FilterOp, KeyPart, Model, OperationKind, Relationship, RelationshipId, Tenant,
};

/// The model's tenant (`tenant: store`, or `{entity, largest}`), read
/// before the operations so that they may name it on every entity it
/// scopes: sets `model.tenant`, and gives each entity that belongs to the
/// tenant through a parent (a visit of a clinic's patient) the tenant's id
/// of its own (`carry`).
pub(super) fn tenant(ctx: &mut Ctx<'_>, raw: Option<&S<RawTenant>>, model: &mut Model) {
    let Some(raw) = raw else {
        return;
    };
    let (name, at, largest) = match &raw.value {
        RawTenant::Short(s) => (s.trim().to_string(), ctx.pos(raw), None),
        RawTenant::Long(l) => (
            l.entity.value.clone(),
            ctx.pos(&l.entity),
            l.largest.as_ref(),
        ),
    };
    let Some(entity) = model.entity_by_name(&name) else {
        ctx.error(
            at,
            format!("`tenant`: `{name}` is not an entity of the model"),
            "no such entity",
            suggestion(&name, model.entities.iter().map(|e| e.name.as_str())),
        );
        return;
    };
    let largest = match largest {
        Some(l) => {
            let v = ctx.non_negative(l, "`largest`");
            match v {
                Some(v) if v > 0.0 && v <= 1.0 => Some(v),
                Some(v) => {
                    ctx.error(
                        ctx.pos(l),
                        format!("`tenant`: `largest` is the largest tenant's share of the instances, found {v}"),
                        "not a share",
                        Some("a share above 0 and at most 1: `largest: 0.015` for 1.5%".into()),
                    );
                    return;
                }
                None => return,
            }
        }
        None => None,
    };
    model.tenant = Some(Tenant { entity, largest });
    if !model
        .entity_ids()
        .any(|e| model.tenant_relationship(e).is_some())
    {
        ctx.error(
            at,
            format!("`tenant`: no entity belongs to `{name}`"),
            "no children",
            Some(format!(
                "a tenant is the parent of the entities it scopes: a relationship with `parent: {name}` and one parent per child"
            )),
        );
        model.tenant = None;
        return;
    }
    super::tenant_carry::carry(ctx, at, model);
}

/// What the tenant changes in the operations and keys: every operation on
/// a scoped entity names its tenant (where the layout keeps the tenant's
/// id: in each child's reference, or as the `_id` of the tenant's document
/// that embeds it; the search weighs the layouts as for any relationship)
/// (a filter on it, first, added where the model leaves it out), every
/// unique combination of a scoped entity leads with the tenant, and every
/// insert links the new instance to its tenant.
pub(super) fn scope(
    ctx: &mut Ctx<'_>,
    raw: Option<&S<RawTenant>>,
    operations: &NamedMap<RawOperation>,
    model: &mut Model,
) {
    if raw.is_none() {
        finders_without_tenant(ctx, operations);
        super::all_tenants::without_tenant(ctx, operations);
        return;
    }
    if model.tenant.is_none() {
        return;
    }
    let scoped: Vec<(EntityId, RelationshipId)> = model
        .entity_ids()
        .filter_map(|e| model.tenant_relationship(e).map(|r| (e, r)))
        .collect();
    for &(e, r) in &scoped {
        // A combination with a parent that lies in the tenant (a night's
        // room type, whose hotel the night carries) holds the tenant
        // already: that parent has one. Led by the tenant it says the same
        // thing, and one index serves both the rule and the reads, which
        // all lead with the tenant (review46 item 6).
        let within: Vec<RelationshipId> = model
            .relationships
            .iter()
            .enumerate()
            .filter(|(_, rel)| {
                rel.child == e
                    && rel.one_parent()
                    && model.tenant_relationship(rel.parent).is_some()
            })
            .map(|(i, _)| RelationshipId::from_index(i))
            .collect();
        let unique = &mut model.entities[e.index()].unique;
        for combination in unique.iter_mut() {
            if let Some(i) = combination.iter().position(|k| *k == KeyPart::Parent(r)) {
                let k = combination.remove(i);
                combination.insert(0, k);
            } else if combination
                .iter()
                .any(|k| matches!(k, KeyPart::Parent(x) if within.contains(x)))
            {
                combination.insert(0, KeyPart::Parent(r));
            }
        }
        // One combination said twice (`unique: [[sku, store]]` and
        // `unique_within: store`) is one after the reorder: one index.
        let mut seen: Vec<Vec<KeyPart>> = Vec::with_capacity(unique.len());
        unique.retain(|c| {
            let first = !seen.contains(c);
            if first {
                seen.push(c.clone());
            }
            first
        });
    }
    // Written as the file's own filters are stored: the relationship's
    // name, then the parent's `_id`.
    let path = |m: &Model, r: RelationshipId| vec![m.relationship(r).name.clone(), "_id".into()];
    check_finders(ctx, operations, model, &scoped);
    super::all_tenants::check(ctx, operations, model, &scoped);
    for i in 0..model.workload.operations.len() {
        let e = model.workload.operations[i].entity_in(model);
        let Some(r) = scoped.iter().find(|(x, _)| *x == e).map(|(_, r)| *r) else {
            continue;
        };
        // A read that finds its tenant names none: it is the way in. An
        // operation across every tenant names none either: it is one
        // run over all of them (`all_tenants`).
        let o = &model.workload.operations[i];
        if o.finds_tenant || o.all_tenants {
            continue;
        }
        let tenant_filter = Filter::new(model, e, path(model, r), FilterOp::Eq);
        match &mut model.workload.operations[i].kind {
            OperationKind::Read { filter, family, .. } if family.is_empty() => {
                lead(filter, tenant_filter, r);
            }
            OperationKind::Update { filter, .. } | OperationKind::Delete { filter, .. } => {
                lead(filter, tenant_filter, r);
            }
            OperationKind::Insert { links, .. } if !links.contains(&r) => links.insert(0, r),
            _ => {}
        }
    }
}

/// Each `finds_tenant: true` in a model with no `tenant:`: there is no
/// tenant to find.
fn finders_without_tenant(ctx: &mut Ctx<'_>, operations: &NamedMap<RawOperation>) {
    for (name, op) in &operations.0 {
        if let Some(f) = op.finds_tenant.as_ref().filter(|f| f.value) {
            ctx.error(
                ctx.pos(f),
                format!(
                    "operation `{}`: `finds_tenant` without a `tenant:` in the model",
                    name.value
                ),
                "no tenant",
                Some("`finds_tenant: true` unscopes a read under the model's `tenant:`; without one every read is unscoped already: drop it".into()),
            );
        }
    }
}

/// Each `finds_tenant: true` under a tenant: on a read of an entity the
/// tenant scopes, whose filter does not name the tenant (a read that
/// names it does not find it).
fn check_finders(
    ctx: &mut Ctx<'_>,
    operations: &NamedMap<RawOperation>,
    model: &Model,
    scoped: &[(EntityId, RelationshipId)],
) {
    for (name, raw) in &operations.0 {
        let Some(flag) = raw.finds_tenant.as_ref().filter(|f| f.value) else {
            continue;
        };
        let Some(op) = model
            .workload
            .operations
            .iter()
            .find(|o| o.name == name.value)
        else {
            continue;
        };
        let OperationKind::Read {
            entity,
            filter,
            family,
            ..
        } = &op.kind
        else {
            continue;
        };
        let tenant = model.tenant.map(|t| t.entity);
        let Some(&(_, r)) = scoped.iter().find(|(x, _)| x == entity) else {
            let what = if Some(*entity) == tenant {
                "is the tenant: a read of it finds the tenant by its own filter"
            } else {
                "is not scoped by the tenant: a read of it names no tenant already"
            };
            ctx.error(
                ctx.pos(flag),
                format!(
                    "operation `{}`: `finds_tenant` on `{}`, which {what}",
                    name.value,
                    model.entity(*entity).name
                ),
                "nothing to unscope",
                Some("drop `finds_tenant`".into()),
            );
            continue;
        };
        if !family.is_empty() {
            continue;
        }
        // Finding the tenant is looking up the one document that says
        // which it is (an API key by its hash, a user by a login email):
        // a count, or a read of many documents of every tenant, finds no
        // tenant and would run across all of them.
        let one = crate::model::identity(model, *entity, filter).is_some()
            || filter.iter().any(|c| {
                c.op == FilterOp::Eq
                    && c.related.is_none()
                    && c.path.len() == 1
                    && model
                        .entity(*entity)
                        .field(&c.path[0])
                        .and_then(|f| f.distinct)
                        .is_some_and(|d| d >= model.entity(*entity).count)
            });
        if op.counts || !one {
            ctx.error(
                ctx.pos(flag),
                format!(
                    "operation `{}`: `finds_tenant` on a read that {}",
                    name.value,
                    if op.counts {
                        "counts (a count finds no tenant; it would count every tenant's documents)"
                    } else {
                        "does not look up one document by a unique key (it would read every tenant's documents)"
                    }
                ),
                "finds no tenant",
                Some(format!(
                    "a read that finds its tenant looks up one `{}` by a key unique across tenants (`unique: true`, or `distinct` equal to the count); otherwise drop `finds_tenant` and name the tenant",
                    model.entity(*entity).name
                )),
            );
            continue;
        }
        if super::all_tenants::names_tenant(filter, r) {
            ctx.error(
                ctx.pos(flag),
                format!(
                    "operation `{}` names its tenant in `filter` and says it finds it",
                    name.value
                ),
                "tenant named",
                Some(format!(
                    "a read that finds its tenant does not know it yet: drop the condition on `{}` or `finds_tenant`",
                    model.relationship(r).child_field
                )),
            );
        }
    }
}

/// `filter` with the condition on the tenant (through `r`) first: the
/// model's own when it has one, else `tenant`.
fn lead(filter: &mut Vec<Filter>, tenant: Filter, r: RelationshipId) {
    let on = |c: &Filter| {
        c.related
            .as_ref()
            .is_some_and(|x| x.relationship == r && x.field == "_id" && x.further.is_empty())
    };
    let c = match filter.iter().position(on) {
        Some(i) => filter.remove(i),
        None => tenant,
    };
    filter.insert(0, c);
}

/// Each field's `unique_within: store`: the field is unique among the
/// children of one parent, the combination `[store, field]` (the parent
/// first), as `unique: [[store, field]]` under the entity says.
pub(super) fn unique_within(
    ctx: &mut Ctx<'_>,
    raw: &S<NamedMap<RawEntity>>,
    entities: &mut [crate::model::Entity],
    relationships: &[Relationship],
) {
    for (i, (_, e)) in raw.value.0.iter().enumerate() {
        for (name, field) in &e.fields.0 {
            let RawField::Long(l) = &field.value else {
                continue;
            };
            let Some(within) = &l.unique_within else {
                continue;
            };
            if l.unique == Some(true) {
                ctx.error(
                    ctx.pos(within),
                    format!(
                        "field `{}`: `unique: true` and `unique_within` say different things",
                        name.value
                    ),
                    "unique twice",
                    Some("`unique: true` is unique among all instances, `unique_within: store` among one store's: keep one".into()),
                );
                continue;
            }
            let k = within.value.trim();
            let Some(r) = super::parent_key::parent_key(relationships, i, k) else {
                let entity = entities.get(i).map_or("", |x| x.name.as_str());
                // The parent entity named instead of its reference: say
                // which field holds it.
                let by_entity: Vec<&str> = relationships
                    .iter()
                    .filter(|r| {
                        r.child.index() == i
                            && r.one_parent()
                            && entities.get(r.parent.index()).is_some_and(|p| p.name == k)
                    })
                    .map(|r| r.child_field.as_str())
                    .collect();
                let help = match by_entity.as_slice() {
                    [field] => Some(format!(
                        "`{k}` is the parent entity: name the reference to it that entity `{entity}` holds, `unique_within: {field}`"
                    )),
                    _ => suggestion(k, super::parent_key::parent_key_names(relationships, i)),
                };
                ctx.error(
                    ctx.pos(within),
                    format!(
                        "field `{}`: `unique_within: {k}` names no reference to a parent of entity `{entity}`",
                        name.value,
                    ),
                    "not a parent reference",
                    help.or_else(|| {
                        Some("name the reference to the parent whose children the value is unique among: a relationship's name or its `child_field`, through a relationship with one parent per child".into())
                    }),
                );
                continue;
            };
            let parts = vec![
                KeyPart::Parent(RelationshipId::from_index(r)),
                KeyPart::Field(name.value.clone()),
            ];
            if let Some(entity) = entities.get_mut(i)
                && !entity.unique.contains(&parts)
            {
                entity.unique.push(parts);
            }
        }
    }
}
