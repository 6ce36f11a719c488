//! From the file as written (`raw`) to a validated `Model`: names become ids,
//! short forms become full values, and every inconsistency is recorded with its
//! position (all of them, not only the first).

use super::compact;
use super::context::{Ctx, MAX_DOCUMENT_BYTES};
use super::error::suggestion;
use super::mixes::mixes;
use super::names::{check_duplicates, check_name};
use super::raw::{
    NamedMap, RawCardinality, RawCount, RawEntity, RawField, RawModel, RawRelationship, S,
};
use crate::model::{
    Cardinality, Count, Entity, EntityId, Field, FieldType, KeyPart, LayoutKind, Model,
    Relationship, RelationshipId, RelationshipKind, Workload,
};
use std::collections::HashMap;

/// The checked model, or `None` when problems were recorded in `ctx`.
pub fn resolve(ctx: &mut Ctx<'_>, raw: RawModel, default_name: &str) -> Option<Model> {
    let name = raw
        .name
        .as_ref()
        .map_or_else(|| default_name.to_string(), |n| n.value.clone());
    let entities = entities(ctx, &raw.entities);
    let relationships = relationships(ctx, &raw.relationships, &entities);
    let mut entities = entities;
    unique_keys(ctx, &raw.entities, &mut entities, &relationships);
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
    };
    model.current = current(ctx, &raw.current.layouts, &model);
    model.without = without(ctx, &raw.current, &model);
    let mixes = mixes(ctx, raw.mixes.as_ref());
    model.workload = super::workload::workload(ctx, &model, mixes, &raw.operations, &raw.atomic);
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
/// keeps, which takes the entity's inserts: an entity nothing inserts has
/// no ages to tell apart.
fn age_shares(ctx: &mut Ctx<'_>, model: &mut Model) {
    for (entity, pos) in std::mem::take(&mut ctx.aged) {
        if model.inserts_per_day(entity) <= 0.0 {
            let name = &model.entity(entity).name;
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
            .collect();
        let count = count.unwrap_or(0);
        out.push(Entity {
            name: name.value.clone(),
            count,
            fields,
            description: e.description.clone(),
            unique: Vec::new(),
            archive_of: None,
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
                let parent = relationships.iter().position(|r| {
                    r.child.index() == i
                        && r.kind != RelationshipKind::ManyToMany
                        && !r.shared
                        && (r.name == k || r.child_field == k)
                });
                match parent {
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

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // sizes are checked ≥ 0 and capped
fn field(
    ctx: &mut Ctx<'_>,
    name: &S<String>,
    raw: &S<RawField>,
    entity_count: Option<u64>,
) -> Option<Field> {
    check_name(ctx, name, "field");
    let (type_text, type_pos, long) = match &raw.value {
        RawField::Short(t) => (t.as_str(), ctx.pos(raw), None),
        RawField::Long(l) => (l.ty.value.as_str(), ctx.pos(&l.ty), Some(l.as_ref())),
    };
    let short = match compact::parse_type(type_text) {
        Ok(t) => t,
        Err(e) => {
            let help = e
                .unknown_name
                .as_deref()
                .and_then(|n| suggestion(n, compact::TYPE_NAMES.iter().copied()));
            ctx.error(type_pos, e.message, "not a field type", help);
            return None;
        }
    };
    // Sizes beyond a BSON document's limit cannot be stored, and past 4 GiB
    // they would saturate silently (issue 23).
    let (size_what, size_why) = if matches!(short.ty, FieldType::Array(_)) {
        (
            "an array's element count",
            "every element takes bytes of one 16 MiB document",
        )
    } else {
        ("a field's size", "MongoDB's 16 MiB document limit")
    };
    let mut size = short.size;
    if let Some(s) = size
        && s > MAX_DOCUMENT_BYTES
    {
        ctx.error(
            type_pos,
            format!(
                "field `{}`: {size_what} is too large: {} (at most {}: {size_why})",
                name.value,
                if s >= 1e15 {
                    format!("{s:e}")
                } else {
                    format!("{s}")
                },
                crate::words::num(MAX_DOCUMENT_BYTES)
            ),
            "too large",
            None,
        );
        size = None;
    }
    let mut required = !short.optional;
    let mut distinct = None;
    let mut enum_values = Vec::new();
    let mut description = None;
    if let Some(l) = long {
        if let Some(s) = &l.size {
            if size.is_some() {
                ctx.error(
                    ctx.pos(s),
                    format!(
                        "field `{}` gives its size twice (in `type` and in `size`)",
                        name.value
                    ),
                    "second size",
                    None,
                );
            }
            size = ctx.at_most(s, size_what, MAX_DOCUMENT_BYTES, size_why);
        }
        if let Some(r) = l.required {
            if short.optional && r {
                ctx.error(
                    type_pos,
                    format!(
                        "field `{}` is marked optional (`?`) and `required: true`",
                        name.value
                    ),
                    "contradiction",
                    None,
                );
            }
            required = r;
        }
        distinct = l
            .distinct
            .as_ref()
            .and_then(|d| ctx.whole(d, "a field's distinct count", 0));
        // An array's distinct values are its elements', which may outnumber
        // the instances (5 posts, 7 tags); a scalar has one value an instance.
        if let (Some(d), Some(n), Some(raw_d)) = (distinct, entity_count, &l.distinct)
            && d > n
            && !matches!(short.ty, FieldType::Array(_))
        {
            ctx.error(
                ctx.pos(raw_d),
                format!(
                    "field `{}` has {} distinct values but its entity has only {} instances",
                    name.value,
                    crate::words::int(d),
                    crate::words::int(n)
                ),
                "more than the instances",
                Some("distinct ≤ the entity's count".into()),
            );
            distinct = None;
        }
        if l.enum_values.as_ref().is_some_and(Vec::is_empty) {
            ctx.error(
                ctx.pos(&l.ty),
                format!(
                    "field `{}` has an empty `enum`: no value would be allowed",
                    name.value
                ),
                "empty enum",
                Some("list the allowed values, or remove `enum`".into()),
            );
        }
        enum_values = l
            .enum_values
            .iter()
            .flatten()
            .map(|v| v.value.clone())
            .collect();
        description.clone_from(&l.description);
    }
    let avg_size = size.map(|s| s.round().min(f64::from(u32::MAX)) as u32);
    let mut ty = short.ty;
    attribute_keys(ctx, name, &mut ty, long, avg_size);
    Some(Field {
        name: name.value.clone(),
        ty,
        avg_size,
        distinct,
        enum_values,
        required,
        description,
    })
}

/// The names of an `attributes` field: `keys`, at least the names one
/// instance has (`size`); `keys` on another type is an error.
fn attribute_keys(
    ctx: &mut Ctx<'_>,
    name: &S<String>,
    ty: &mut FieldType,
    long: Option<&super::raw::RawFieldLong>,
    avg_size: Option<u32>,
) {
    let given = long.and_then(|l| l.keys.as_ref());
    let FieldType::Attributes { keys } = ty else {
        if let Some(k) = given {
            ctx.error(
                ctx.pos(k),
                format!(
                    "field `{}`: `keys` counts the names of an `attributes` field",
                    name.value
                ),
                "not an attributes field",
                Some("remove `keys`, or declare `type: attributes`".into()),
            );
        }
        return;
    };
    let per = avg_size
        .map_or(crate::model::ATTRIBUTES_TYPICAL, u64::from)
        .max(1);
    *keys = per;
    if let Some(k) = given
        && let Some(n) = ctx.whole(k, "an attributes field's names", 1)
    {
        if n < per {
            ctx.error(
                ctx.pos(k),
                format!(
                    "field `{}` has {} names an instance but only {} in all",
                    name.value,
                    crate::words::int(per),
                    crate::words::int(n)
                ),
                "fewer than one instance's",
                Some("`keys` is at least `size`".into()),
            );
        } else {
            *keys = n;
        }
    }
}

fn entity_ref(
    ctx: &mut Ctx<'_>,
    entities: &[Entity],
    name: &S<String>,
    role: &str,
) -> Option<EntityId> {
    if let Some(i) = entities.iter().position(|e| e.name == name.value) {
        return Some(EntityId::from_index(i));
    }
    ctx.error(
        ctx.pos(name),
        format!("{role} `{}` is not an entity of this model", name.value),
        "undefined entity",
        suggestion(&name.value, entities.iter().map(|e| e.name.as_str())),
    );
    None
}

fn kind(ctx: &mut Ctx<'_>, raw: Option<&S<String>>) -> Option<RelationshipKind> {
    let Some(k) = raw else {
        return Some(RelationshipKind::OneToMany);
    };
    let names = ["one-to-one", "one-to-many", "many-to-many"];
    match k
        .value
        .trim()
        .to_ascii_lowercase()
        .replace('_', "-")
        .as_str()
    {
        "one-to-one" | "1:1" => Some(RelationshipKind::OneToOne),
        "one-to-many" | "1:n" => Some(RelationshipKind::OneToMany),
        "many-to-many" | "n:m" => Some(RelationshipKind::ManyToMany),
        _ => {
            ctx.error(
                ctx.pos(k),
                format!("unknown relationship kind `{}`", k.value),
                "not a kind",
                suggestion(&k.value, names)
                    .or_else(|| Some(format!("one of {}", names.join(", ")))),
            );
            None
        }
    }
}

/// The parent's fields a child keeps as of its writing: fields of the
/// parent, in a relationship where a child has one parent.
/// A tree's `levels`: a whole number from 1 to 100, on a one-to-many of
/// an entity with itself.
fn levels(ctx: &mut Ctx<'_>, r: &RawRelationship, tree: bool) -> Option<u32> {
    let raw = r.levels.as_ref()?;
    if !tree {
        ctx.error(
            ctx.pos(raw),
            "`levels` is the depth of a tree; this relationship is not a one-to-many of an entity with itself".to_string(),
            "not a tree",
            Some("remove `levels`, or make parent and child one entity".into()),
        );
        return None;
    }
    let x = raw.value;
    if (1.0..=100.0).contains(&x) && x.fract() == 0.0 {
        Some(x as u32)
    } else {
        ctx.error(
            ctx.pos(raw),
            format!("`levels: {x}`: a tree's depth is a whole number from 1 to 100"),
            "not a depth",
            Some("`levels: 7`: no path from a root is longer than 7 nodes".into()),
        );
        None
    }
}

fn snapshot(
    ctx: &mut Ctx<'_>,
    r: &RawRelationship,
    parent: &Entity,
    kind: RelationshipKind,
    shared: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for f in r.snapshot.iter().flatten() {
        if kind == RelationshipKind::ManyToMany || shared {
            ctx.error(
                ctx.pos(f),
                "`snapshot` is kept by a child of one parent; this relationship gives a child several"
                    .to_string(),
                "several parents",
                None,
            );
            return Vec::new();
        }
        if parent.field(&f.value).is_none() {
            ctx.error(
                ctx.pos(f),
                format!(
                    "`snapshot`: `{}` is not a field of entity `{}`",
                    f.value, parent.name
                ),
                "not a field",
                suggestion(&f.value, parent.fields.iter().map(|x| x.name.as_str())),
            );
        } else if !out.contains(&f.value) {
            out.push(f.value.clone());
        }
    }
    out
}

/// A many-to-many's own fields. Includes name them next to the other
/// side's fields, so a name either side already uses would be ambiguous.
fn attributes(
    ctx: &mut Ctx<'_>,
    r: &RawRelationship,
    kind: RelationshipKind,
    sides: [&Entity; 2],
    references: [&String; 2],
) -> Vec<Field> {
    if r.attributes.0.is_empty() {
        return Vec::new();
    }
    check_duplicates(ctx, &r.attributes, "attribute");
    let mut out = Vec::new();
    for (name, raw) in &r.attributes.0 {
        if kind != RelationshipKind::ManyToMany {
            ctx.error(
                ctx.pos(name),
                "`attributes` belong to a many-to-many: in a one-to-many or one-to-one the link's fields are the child's own".to_string(),
                "not a many-to-many",
                Some(format!("declare `{}` as a field of entity `{}`", name.value, sides[1].name)),
            );
            return Vec::new();
        }
        let taken = name.value == "_id"
            || references.iter().any(|f| **f == name.value)
            || sides.iter().any(|e| e.field(&name.value).is_some());
        if taken {
            ctx.error(
                ctx.pos(name),
                format!(
                    "attribute `{}` has the name of a field of `{}` or `{}`: an include could not tell them apart",
                    name.value, sides[0].name, sides[1].name
                ),
                "name taken",
                Some("give the attribute another name".into()),
            );
            continue;
        }
        if let Some(f) = field(ctx, name, raw, None) {
            out.push(f);
        }
    }
    out
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

/// A pinned layout's name.
fn layout(ctx: &mut Ctx<'_>, raw: &S<String>) -> Option<LayoutKind> {
    let name = raw.value.trim().to_ascii_lowercase().replace('_', "-");
    let found = LayoutKind::from_name(&name);
    if found.is_none() {
        let names = LayoutKind::ALL.map(LayoutKind::name);
        ctx.error(
            ctx.pos(raw),
            format!("unknown layout `{}`", raw.value),
            "not a layout",
            suggestion(&raw.value, names).or_else(|| Some(format!("one of {}", names.join(", ")))),
        );
    }
    found
}

fn relationships(
    ctx: &mut Ctx<'_>,
    raw: &NamedMap<RawRelationship>,
    entities: &[Entity],
) -> Vec<Relationship> {
    check_duplicates(ctx, raw, "relationship");
    let mut out = Vec::new();
    for (name, r) in &raw.0 {
        check_name(ctx, name, "relationship");
        let kind = kind(ctx, r.kind.as_ref());
        let parent = entity_ref(ctx, entities, &r.parent, "parent");
        let child = entity_ref(ctx, entities, &r.child, "child");
        let shared = r.shared.unwrap_or(false);
        let children = match (&r.children, kind) {
            (Some(c), _) => cardinality(ctx, c, "children"),
            (None, Some(RelationshipKind::OneToOne)) => Some(Cardinality::ONE),
            (None, _) => {
                ctx.error(
                    ctx.pos(name),
                    format!(
                        "relationship `{}` does not say how many children a parent has",
                        name.value
                    ),
                    "`children` missing",
                    Some(
                        "add `children: {min: 0, typical: 5, max: 20}` (max may be `unbounded`)"
                            .into(),
                    ),
                );
                None
            }
        };
        let parents = match (&r.parents, kind) {
            (Some(c), _) => cardinality(ctx, c, "parents"),
            (None, Some(RelationshipKind::ManyToMany)) => {
                ctx.error(
                    ctx.pos(name),
                    format!("many-to-many relationship `{}` needs `parents` (the M side: parents per child)", name.value),
                    "`parents` missing",
                    Some("add `parents: {min: 0, typical: 3, max: 10}`".into()),
                );
                None
            }
            (None, _) if shared => {
                ctx.error(
                    ctx.pos(name),
                    format!(
                        "shared relationship `{}` needs `parents` (how many parents share a child)",
                        name.value
                    ),
                    "`parents` missing",
                    Some("add `parents: {min: 1, typical: 2, max: 10}`".into()),
                );
                None
            }
            (None, _) => Some(Cardinality::ONE),
        };
        let (Some(kind), Some(parent), Some(child), Some(children), Some(parents)) =
            (kind, parent, child, children, parents)
        else {
            ctx.unresolved.push(name.value.clone());
            ctx.unresolved.push(r.parent.value.clone());
            ctx.unresolved.extend(
                r.parent_field
                    .iter()
                    .chain(&r.child_field)
                    .map(|f| f.value.clone()),
            );
            continue;
        };
        if kind == RelationshipKind::OneToOne {
            for (c, raw_c, side) in [
                (children, &r.children, "children"),
                (parents, &r.parents, "parents"),
            ] {
                if c.max != Count::Finite(1) {
                    ctx.error(
                        raw_c.as_ref().map_or_else(|| ctx.pos(name), |s| ctx.pos(s)),
                        format!(
                            "one-to-one relationship `{}` has {side} max {} (must be 1)",
                            name.value, c.max
                        ),
                        "max must be 1",
                        Some("use `kind: one-to-many` when a parent can have several".into()),
                    );
                }
            }
        }
        if kind == RelationshipKind::OneToMany && !shared && parents.max != Count::Finite(1) {
            ctx.error(
                r.parents.as_ref().map_or_else(|| ctx.pos(name), |s| ctx.pos(s)),
                format!(
                    "relationship `{}` gives a child up to {} parents but is not `shared`",
                    name.value, parents.max
                ),
                "parents > 1",
                Some("set `shared: true` (a child belongs to several parents) or `kind: many-to-many`".into()),
            );
        }
        let parent_field = r
            .parent_field
            .as_ref()
            .map_or_else(|| name.value.clone(), |f| f.value.clone());
        let child_field = r.child_field.as_ref().map_or_else(
            || entities[parent.index()].name.clone(),
            |f| f.value.clone(),
        );
        for (owner, field, raw_f, key) in [
            (parent, &parent_field, &r.parent_field, "parent_field"),
            (child, &child_field, &r.child_field, "child_field"),
        ] {
            // A declared ObjectId field of that name is the reference itself
            // (as a scan reports it); any other type would be a second value.
            let clash = entities[owner.index()]
                .field(field)
                .is_some_and(|f| !holds_reference(&f.ty));
            if clash {
                ctx.error(
                    raw_f.as_ref().map_or_else(|| ctx.pos(name), |s| ctx.pos(s)),
                    format!(
                        "relationship `{}` would store its {key} `{field}` in entity `{}`, which already has a field `{field}` that is not an objectId",
                        name.value,
                        entities[owner.index()].name
                    ),
                    "name clash",
                    Some(format!("set `{key}:` to another name")),
                );
            }
        }
        let attributes = attributes(
            ctx,
            r,
            kind,
            [&entities[parent.index()], &entities[child.index()]],
            [&parent_field, &child_field],
        );
        out.push((
            name,
            Relationship {
                name: name.value.clone(),
                kind,
                parent,
                child,
                children,
                parents,
                child_standalone: r.standalone.unwrap_or(false),
                shared,
                parent_field,
                child_field,
                layout: r.layout.as_ref().and_then(|l| layout(ctx, l)),
                snapshot: snapshot(ctx, r, &entities[parent.index()], kind, shared),
                attributes,
                edge: false,
                levels: levels(
                    ctx,
                    r,
                    parent == child && kind == RelationshipKind::OneToMany,
                ),
                description: r.description.clone(),
            },
        ));
    }
    // Two relationships must not store their data under the same field of one entity.
    let mut used: HashMap<(EntityId, &str), &str> = HashMap::new();
    for (key, rel) in &out {
        for (owner, field, which) in [
            (rel.parent, rel.parent_field.as_str(), "parent_field"),
            (rel.child, rel.child_field.as_str(), "child_field"),
        ] {
            if let Some(other) = used.get(&(owner, field)) {
                ctx.error(
                    ctx.pos(key),
                    format!(
                        "relationships `{other}` and `{}` both store `{field}` in entity `{}`",
                        rel.name,
                        entities[owner.index()].name
                    ),
                    "field name clash",
                    Some(format!("set `{which}:` on `{}` to another name", rel.name)),
                );
            } else {
                used.insert((owner, field), &rel.name);
            }
        }
    }
    out.into_iter().map(|(_, r)| r).collect()
}

/// Whether a declared field can be the storage of a relationship: an ObjectId,
/// or an array of them.
fn holds_reference(ty: &crate::model::FieldType) -> bool {
    use crate::model::FieldType;
    match ty {
        FieldType::ObjectId => true,
        FieldType::Array(item) => matches!(item.as_ref(), FieldType::ObjectId),
        _ => false,
    }
}

fn cardinality(ctx: &mut Ctx<'_>, raw: &S<RawCardinality>, side: &str) -> Option<Cardinality> {
    let pos = ctx.pos(raw);
    match &raw.value {
        RawCardinality::Exactly(n) => {
            let s = S::new(*n, raw.referenced, raw.defined);
            ctx.whole(&s, &format!("`{side}`"), 0)
                .map(Cardinality::exactly)
        }
        RawCardinality::Range(r) => {
            let min = match &r.min {
                Some(m) => ctx.whole(m, &format!("`{side}.min`"), 0)?,
                None => 0,
            };
            let Some(typical_raw) = &r.typical else {
                ctx.error(
                    pos,
                    format!("`{side}` needs `typical`"),
                    "`typical` missing",
                    Some("e.g. `{min: 0, typical: 5, max: 20}`".into()),
                );
                return None;
            };
            let typical = ctx.whole(typical_raw, &format!("`{side}.typical`"), 0)?;
            let Some(max_raw) = &r.max else {
                ctx.error(
                    pos,
                    format!("`{side}` needs `max` (a number or `unbounded`)"),
                    "`max` missing",
                    Some("e.g. `{min: 0, typical: 5, max: 20}`".into()),
                );
                return None;
            };
            let max = match max_raw.value {
                RawCount::Unbounded => Count::Unbounded,
                RawCount::Number(n) => Count::Finite(ctx.whole(
                    &S::new(n, max_raw.referenced, max_raw.defined),
                    &format!("`{side}.max`"),
                    0,
                )?),
            };
            let growth_per_day = match &r.growth_per_day {
                Some(g) => Some(ctx.non_negative(g, &format!("`{side}.growth_per_day`"))?),
                None => None,
            };
            if min > typical {
                ctx.error(
                    r.min.as_ref().and_then(|m| ctx.pos(m)),
                    format!("`{side}`: min {min} is greater than typical {typical}"),
                    "min > typical",
                    Some("min ≤ typical ≤ max".into()),
                );
                return None;
            }
            if let Count::Finite(m) = max
                && (typical > m || min > m)
            {
                ctx.error(
                    ctx.pos(max_raw),
                    if min > m {
                        format!("`{side}`: min {min} is greater than max {m}")
                    } else {
                        format!("`{side}`: typical {typical} is greater than max {m}")
                    },
                    "max too small",
                    Some("min ≤ typical ≤ max".into()),
                );
                return None;
            }
            let mut percentiles = [None, None];
            for (i, (name, raw)) in [("p95", &r.p95), ("p99", &r.p99)].into_iter().enumerate() {
                let Some(raw) = raw else { continue };
                let v = ctx.whole(raw, &format!("`{side}.{name}`"), 0)?;
                let below = percentiles[..i]
                    .iter()
                    .flatten()
                    .max()
                    .copied()
                    .unwrap_or(typical);
                if v < below || max.finite().is_some_and(|m| v > m) {
                    ctx.error(
                        ctx.pos(raw),
                        format!(
                            "`{side}`: {name} {v} is not between {} {below} and max {max}",
                            if i == 0 || percentiles[0].is_none() {
                                "typical"
                            } else {
                                "p95"
                            }
                        ),
                        "out of order",
                        Some("typical ≤ p95 ≤ p99 ≤ max".into()),
                    );
                    return None;
                }
                percentiles[i] = Some(v);
            }
            Some(Cardinality {
                min,
                typical,
                max,
                growth_per_day,
                p95: percentiles[0],
                p99: percentiles[1],
            })
        }
    }
}
