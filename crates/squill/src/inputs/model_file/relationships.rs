//! The `relationships:` section → `Relationship`s: the two entities, the kind,
//! the cardinalities, the attributes a relationship carries and a pinned
//! layout, each checked against the entities already resolved.

use super::context::Ctx;
use super::error::suggestion;
use super::fields::field;
use super::names::{check_duplicates, check_name};
use super::raw::{NamedMap, RawCardinality, RawCount, RawRelationship, S};
use crate::model::{
    Cardinality, Count, Entity, EntityId, Field, LayoutKind, Relationship, RelationshipKind,
};
use std::collections::HashMap;

/// The entities by name, the first of a repeated name winning: looked up
/// twice per relationship, so a scan per lookup grows with the square of an
/// enterprise model (issue 45).
fn by_name(entities: &[Entity]) -> HashMap<&str, EntityId> {
    let mut out = HashMap::with_capacity(entities.len());
    for (i, e) in entities.iter().enumerate() {
        out.entry(e.name.as_str())
            .or_insert_with(|| EntityId::from_index(i));
    }
    out
}

fn entity_ref(
    ctx: &mut Ctx<'_>,
    entities: &[Entity],
    index: &HashMap<&str, EntityId>,
    name: &S<String>,
    role: &str,
) -> Option<EntityId> {
    if let Some(&id) = index.get(name.value.as_str()) {
        return Some(id);
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

/// A pinned layout's name.
pub(super) fn layout(ctx: &mut Ctx<'_>, raw: &S<String>) -> Option<LayoutKind> {
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

pub(super) fn relationships(
    ctx: &mut Ctx<'_>,
    raw: &NamedMap<RawRelationship>,
    entities: &[Entity],
) -> Vec<Relationship> {
    check_duplicates(ctx, raw, "relationship");
    let mut out = Vec::new();
    let index = by_name(entities);
    for (name, r) in &raw.0 {
        check_name(ctx, name, "relationship");
        let kind = kind(ctx, r.kind.as_ref());
        let parent = entity_ref(ctx, entities, &index, &r.parent, "parent");
        let child = entity_ref(ctx, entities, &index, &r.child, "child");
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
                tenant_chain: Vec::new(),
                stated_parents: None,
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
            // A mean of whole children may be a fraction (0.2 deals per
            // contact); `typical` keeps it rounded, `mean` as stated
            // (audit48 C7). `min` and `max` stay whole.
            let stated = ctx.non_negative(typical_raw, &format!("`{side}.typical`"))?;
            let typical = ctx.whole(
                &S::new(stated.round(), typical_raw.referenced, typical_raw.defined),
                &format!("`{side}.typical`"),
                0,
            )?;
            let mean = (stated.fract() != 0.0).then_some(stated);
            let shown = crate::words::num(stated);
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
            let growth =
                super::growth::growth(ctx, side, r.growth_per_day.as_ref(), r.growth.as_ref())
                    .ok()?;
            if min as f64 > stated {
                ctx.error(
                    r.min.as_ref().and_then(|m| ctx.pos(m)),
                    format!("`{side}`: min {min} is greater than typical {shown}"),
                    "min > typical",
                    Some("min ≤ typical ≤ max".into()),
                );
                return None;
            }
            if let Count::Finite(m) = max
                && (stated > m as f64 || min > m)
            {
                ctx.error(
                    ctx.pos(max_raw),
                    if min > m {
                        format!("`{side}`: min {min} is greater than max {m}")
                    } else {
                        format!("`{side}`: typical {shown} is greater than max {m}")
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
                mean,
                min,
                typical,
                max,
                growth,
                p95: percentiles[0],
                p99: percentiles[1],
            })
        }
    }
}
