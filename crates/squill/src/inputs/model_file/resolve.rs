//! From the file as written (`raw`) to a validated `Model`: names become ids,
//! short forms become full values, and every inconsistency is recorded with its
//! position (all of them, not only the first).
//!
//! This file holds the entry point, the entities with their unique keys, the
//! cycles of owned relationships and the `current:` section. The relationships
//! section is `relationships`; what files of this stage share sits below them
//! (`names` and `mixes` with `workload` and `paths`, `fields` with
//! `relationships`), so none imports another in a circle.

use super::context::Ctx;
use super::error::suggestion;
use super::fields::field;
use super::mixes::mixes;
use super::names::{check_duplicates, check_name};
use super::raw::{NamedMap, RawEntity, RawField, RawModel, RawRelationship, S};
use super::relationships::{layout, relationships};
use crate::model::{
    Entity, KeyPart, LayoutKind, Model, Relationship, RelationshipId, RelationshipKind, Workload,
};

/// The checked model, or `None` when problems were recorded in `ctx`.
pub(super) fn resolve(ctx: &mut Ctx<'_>, raw: RawModel, default_name: &str) -> Option<Model> {
    let name = raw
        .name
        .as_ref()
        .map_or_else(|| default_name.to_string(), |n| n.value.clone());
    let entities = entities(ctx, &raw.entities);
    let relationships = relationships(ctx, &raw.relationships, &entities);
    let mut entities = entities;
    unique_keys(ctx, &raw.entities, &mut entities, &relationships);
    super::tenancy::unique_within(ctx, &raw.entities, &mut entities, &relationships);
    owned_cycle(ctx, &raw.relationships, &entities, &relationships);
    let assumed = assumed(ctx, &raw);
    let mut model = Model {
        name,
        entities,
        relationships,
        workload: Workload::default(),
        assumed,
        current: Vec::new(),
        without: crate::model::Without::default(),
        tenant: None,
        deployment: raw
            .deployment
            .as_ref()
            .map(|d| super::capacity::deployment(ctx, d))
            .unwrap_or_default(),
    };
    super::tenancy::tenant(ctx, raw.tenant.as_ref(), &mut model);
    model.current = current(ctx, &raw.current.layouts, &model);
    model.without = without(ctx, &raw.current, &model);
    let mixes = mixes(ctx, raw.mixes.as_ref());
    model.workload = super::workload::workload(ctx, &model, mixes, &raw.operations, &raw.atomic);
    super::tenancy::scope(ctx, raw.tenant.as_ref(), &raw.operations, &mut model);
    age_shares(ctx, &mut model);
    if ctx.problems.is_empty() {
        Some(model)
    } else {
        None
    }
}

/// The figures marked `assumed:` on entities and relationships, as paths
/// (`entities.city.count`); an unknown figure is an error at its place.
fn assumed(ctx: &mut Ctx<'_>, raw: &RawModel) -> Vec<String> {
    let mut out = Vec::new();
    let lists = raw
        .entities
        .value
        .0
        .iter()
        .map(|(n, e)| ("entities", n, e.assumed.as_ref(), &["count"][..]))
        .chain(raw.relationships.0.iter().map(|(n, r)| {
            (
                "relationships",
                n,
                r.assumed.as_ref(),
                &["children", "parents"][..],
            )
        }));
    for (kind, name, list, allowed) in lists {
        for figure in list.into_iter().flatten() {
            if allowed.contains(&figure.value.as_str()) {
                out.push(format!("{kind}.{}.{}", name.value, figure.value));
            } else {
                ctx.error(
                    ctx.pos(figure),
                    format!(
                        "`assumed: {}` on {} `{}`: the figures that can be assumed here are {}",
                        figure.value,
                        if kind == "entities" {
                            "entity"
                        } else {
                            "relationship"
                        },
                        name.value,
                        allowed.join(", ")
                    ),
                    "not a figure",
                    None,
                );
            }
        }
    }
    out
}

/// Gives each age filter (`since(90 days)`) the share of its entity it
/// keeps, which takes the rate at which the date is written: the entity's
/// inserts, and the updates that change the date (`held_at`, set by a
/// hold). An entity nothing inserts, and a date nothing writes, have no
/// ages to tell apart. An optional date an update sets is absent from
/// the instances that never took that update: how many carry a date older
/// than the age depends on how long it stays set, which the model does not
/// say, so `before` on it is refused with the hint `range(fraction)`.
fn age_shares(ctx: &mut Ctx<'_>, model: &mut Model) {
    for (entity, field, age, pos) in std::mem::take(&mut ctx.aged) {
        let name = &model.entity(entity).name;
        let updates = model.updates_setting(entity, &field);
        let optional = model
            .entity(entity)
            .field(&field)
            .is_some_and(|f| !f.required);
        if !updates.is_empty() && optional && age.older {
            ctx.error(
                pos,
                format!(
                    "`{field}` of {name} is an optional date set by {} {}: how many {name} instances carry one older than the age depends on how long it stays set, which the model does not say",
                    if updates.len() > 1 { "the updates" } else { "the update" },
                    updates
                        .iter()
                        .map(|u| format!("`{u}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                "a date an update sets",
                Some(format!(
                    "write `range(fraction)` for the share of {name} instances it keeps"
                )),
            );
        } else if updates.is_empty() && model.inserts_per_day(entity) <= 0.0 {
            ctx.error(
                pos,
                format!(
                    "an age range on {name} needs the rate at which {name} instances are inserted, and no operation inserts one"
                ),
                "no insert of this entity",
                Some(format!(
                    "add an insert of {name} with its rate, or write `range(fraction)` for the share it keeps"
                )),
            );
        }
    }
    // Before the shares: the life each test adds is an age like any other.
    crate::model::compare_expiry(model);
    // Before anything reads a many-to-many's sides: one count of its links.
    crate::model::agree_sides(model);
    model.fill_age_shares();
}

/// Refuses a cycle of owned relationships (a → b → c → a, every child neither
/// standalone, shared nor many-to-many): each entity would live only inside
/// the next, so none has a document of its own to hold the others (issue 23:
/// advise embedded b in a while c referenced b's `_id`). A self-relationship
/// alone (threaded replies) is a bounded recursion, not such a cycle.
fn owned_cycle(
    ctx: &mut Ctx<'_>,
    raw: &NamedMap<RawRelationship>,
    entities: &[Entity],
    relationships: &[Relationship],
) {
    let owned = |r: &Relationship| {
        !r.child_standalone
            && !r.shared
            && r.kind != RelationshipKind::ManyToMany
            && r.parent != r.child
    };
    let n = entities.len();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, r) in relationships.iter().enumerate() {
        if owned(r) && r.parent.index() < n && r.child.index() < n {
            out[r.parent.index()].push(i);
        }
    }
    // Depth-first search with colours; a grey child closes a cycle, read off
    // the path of relationships that led here.
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut path: Vec<usize> = Vec::new();
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let Some(&rel) = out[node].get(*next) else {
                colour[node] = 2;
                stack.pop();
                path.pop();
                continue;
            };
            *next += 1;
            let child = relationships[rel].child.index();
            match colour[child] {
                0 => {
                    colour[child] = 1;
                    path.push(rel);
                    stack.push((child, 0));
                }
                1 => {
                    let from = path
                        .iter()
                        .position(|&r| relationships[r].parent.index() == child)
                        .unwrap_or(path.len());
                    let cycle: Vec<usize> = path[from..].iter().copied().chain([rel]).collect();
                    let names: Vec<String> = cycle
                        .iter()
                        .map(|&r| entities[relationships[r].parent.index()].name.clone())
                        .chain([entities[child].name.clone()])
                        .collect();
                    let first = &relationships[cycle[0]].name;
                    let pos = raw
                        .0
                        .iter()
                        .find(|(k, _)| k.value == *first)
                        .and_then(|(k, _)| ctx.pos(k));
                    ctx.error(
                        pos,
                        format!(
                            "relationships form a cycle of owned children ({}): each entity would live only inside the next",
                            names.join(" → ")
                        ),
                        "cycle",
                        Some(
                            "mark at least one child of the cycle `standalone: true` (it keeps documents of its own)"
                                .into(),
                        ),
                    );
                    return;
                }
                _ => {}
            }
        }
    }
}

fn entities(ctx: &mut Ctx<'_>, raw: &S<NamedMap<RawEntity>>) -> Vec<Entity> {
    check_duplicates(ctx, &raw.value, "entity");
    if raw.value.0.is_empty() {
        ctx.error(
            ctx.pos(raw),
            "the model has no entities",
            "no entity here",
            Some("add at least one entity under `entities:`".into()),
        );
    }
    let mut out = Vec::new();
    for (name, e) in &raw.value.0 {
        check_name(ctx, name, "entity");
        let count = ctx.whole(&e.count, "an entity's count", 0);
        check_duplicates(ctx, &e.fields, "field");
        let fields = e
            .fields
            .0
            .iter()
            .filter_map(|(fname, f)| field(ctx, fname, f, count))
            .collect::<Vec<_>>();
        let count = count.unwrap_or(0);
        let expires = e
            .expires
            .as_ref()
            .and_then(|x| super::conditional::expiry(ctx, &fields, &name.value, x));
        out.push(Entity {
            expires,
            name: name.value.clone(),
            count,
            fields,
            description: e.description.clone(),
            unique: Vec::new(),
            archive_of: None,
            density: e.density.as_ref().and_then(|d| super::geo::density(ctx, d)),
            growth: e
                .growth
                .as_ref()
                .and_then(|g| super::capacity::count_growth(ctx, &name.value, g).ok()),
        });
    }
    out
}

/// Each entity's `unique:` combinations: a key is a field of the entity,
/// `_id`, or a reference to its parent (the relationship's name or its
/// `child_field`), in a relationship where the entity has one parent.
fn unique_keys(
    ctx: &mut Ctx<'_>,
    raw: &S<NamedMap<RawEntity>>,
    entities: &mut [Entity],
    relationships: &[Relationship],
) {
    for (i, (_, e)) in raw.value.0.iter().enumerate() {
        let Some(entity) = entities.get(i) else {
            continue;
        };
        let mut all = Vec::new();
        for combination in e.unique.iter().flatten() {
            if combination.is_empty() {
                continue;
            }
            let mut parts = Vec::new();
            for key in combination {
                let k = key.value.as_str();
                if k == "_id" {
                    ctx.error(
                        ctx.pos(key),
                        "`unique`: a combination with `_id` is unique already".to_string(),
                        "always unique",
                        Some("leave `_id` out, or declare the natural key as `_id`".into()),
                    );
                    continue;
                }
                if entity.field(k).is_some() {
                    parts.push(KeyPart::Field(k.to_string()));
                    continue;
                }
                match super::parent_key::parent_key(relationships, i, k) {
                    Some(r) => parts.push(KeyPart::Parent(RelationshipId::from_index(r))),
                    None => {
                        let names = entity.fields.iter().map(|f| f.name.as_str()).chain(
                            relationships
                                .iter()
                                .filter(|r| r.child.index() == i)
                                .map(|r| r.child_field.as_str()),
                        );
                        ctx.error(
                            ctx.pos(key),
                            format!(
                                "`unique`: `{k}` is neither a field of entity `{}` nor the reference to one of its parents",
                                entity.name
                            ),
                            "not a key",
                            suggestion(k, names),
                        );
                    }
                }
            }
            if parts.len() == combination.len() && !all.contains(&parts) {
                all.push(parts);
            }
        }
        // A field marked `unique: true` is a combination of its own.
        for (name, field) in &e.fields.0 {
            if let RawField::Long(l) = &field.value
                && l.unique == Some(true)
            {
                let parts = vec![KeyPart::Field(name.value.clone())];
                if !all.contains(&parts) {
                    all.push(parts);
                }
            }
        }
        entities[i].unique = all;
    }
}

/// The `current:` section: each relationship's layout today, its copies
/// fields of one side or the other.
fn current(
    ctx: &mut Ctx<'_>,
    raw: &NamedMap<S<super::raw::RawCurrent>>,
    model: &Model,
) -> Vec<crate::model::CurrentLayout> {
    use super::raw::RawCurrent;
    let mut out = Vec::new();
    for (name, entry) in &raw.0 {
        let Some(r) = model
            .relationship_ids()
            .find(|&r| model.relationship(r).name == name.value)
        else {
            let names: Vec<&str> = model
                .relationships
                .iter()
                .map(|r| r.name.as_str())
                .collect();
            ctx.error(
                ctx.pos(name),
                format!(
                    "`current:` names `{}`, which is no relationship",
                    name.value
                ),
                "unknown relationship",
                suggestion(&name.value, names.iter().copied()),
            );
            continue;
        };
        let (kind, copies) = match &entry.value {
            RawCurrent::Short(text) => {
                let spanned = S {
                    value: text.clone(),
                    referenced: entry.referenced,
                    defined: entry.defined,
                };
                (layout(ctx, &spanned), Vec::new())
            }
            RawCurrent::Long(long) => (layout(ctx, &long.layout), long.copies.clone()),
        };
        let Some(kind) = kind else { continue };
        let rel = model.relationship(r);
        let copying = matches!(
            kind,
            LayoutKind::ExtendedReference | LayoutKind::TwoWayExtendedReference
        );
        let mut fields = Vec::new();
        for c in &copies {
            if !copying {
                ctx.error(
                    ctx.pos(c),
                    format!("copies are for `extended-reference` and `two-way-extended-reference`, not `{}`", kind.name()),
                    "no copies in this layout",
                    None,
                );
                continue;
            }
            let of = |e: crate::model::EntityId| {
                model.entity(e).fields.iter().any(|f| f.name == c.value)
            };
            if !of(rel.parent) && !of(rel.child) {
                ctx.error(
                    ctx.pos(c),
                    format!(
                        "`{}` is a field of neither {} nor {}",
                        c.value,
                        model.entity(rel.parent).name,
                        model.entity(rel.child).name
                    ),
                    "not a field of either side",
                    None,
                );
                continue;
            }
            fields.push(c.value.clone());
        }
        out.push(crate::model::CurrentLayout {
            relationship: r,
            layout: kind,
            copies: fields,
        });
    }
    out
}

/// The `without` entry of `current:`: the entity-level patterns the
/// deployment does not use today, each for `all` or for named entities.
fn without(
    ctx: &mut Ctx<'_>,
    raw: &super::raw::RawCurrentSection,
    model: &Model,
) -> crate::model::Without {
    use super::raw::RawScope;
    use crate::model::Scope;
    let mut out = crate::model::Without::default();
    let Some((_, entry)) = &raw.without else {
        return out;
    };
    let names: Vec<&str> = model.entities.iter().map(|e| e.name.as_str()).collect();
    let mut scope = |raw: &Option<S<RawScope>>| -> Scope {
        match raw.as_ref().map(|s| &s.value) {
            None => Scope::None,
            Some(RawScope::All) => Scope::All,
            Some(RawScope::Entities(list)) => Scope::Entities(
                list.iter()
                    .filter_map(|n| {
                        let found = model
                            .entity_ids()
                            .find(|&e| model.entity(e).name == n.value);
                        if found.is_none() {
                            ctx.error(
                                ctx.pos(n),
                                format!(
                                    "`current: without:` names `{}`, which is no entity",
                                    n.value
                                ),
                                "unknown entity",
                                suggestion(&n.value, names.iter().copied()),
                            );
                        }
                        found
                    })
                    .collect(),
            ),
        }
    };
    out.archive = scope(&entry.archive);
    out.polymorphic = scope(&entry.polymorphic);
    out.timeline = scope(&entry.timeline);
    out
}
