//! The workload part of `resolve`: operations, their rates per mix, filters,
//! includes and aggregates resolved against entities and relationships.

use super::compact;
use super::context::Ctx;
use super::error::{Position, suggestion};
use super::raw::{NamedMap, OneOrMany, RawIncludes, RawOperation, S};
use super::resolve::{DeclaredMix, check_duplicates, check_name};
use crate::model::{
    Aggregate, AggregateFn, AtomicGroup, EntityId, FieldType, Filter, FilterOp, Include, Model,
    Operation, OperationId, OperationKind, RelationshipId, SortKey, Workload,
};

/// One step through a relationship from an entity.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub relationship: RelationshipId,
    pub to_children: bool,
    pub target: EntityId,
}

/// The relationship `name` leads through from `from`: by the relationship's name,
/// by its `parent_field` (from the parent) or by its `child_field` (from the child).
pub fn walk(model: &Model, from: EntityId, name: &str) -> Option<Step> {
    let step = |id: RelationshipId, to_children: bool| {
        let r = model.relationship(id);
        Step {
            relationship: id,
            to_children,
            target: if to_children { r.child } else { r.parent },
        }
    };
    for id in model.relationship_ids() {
        let r = model.relationship(id);
        if r.name == name {
            if r.parent == from {
                return Some(step(id, true));
            }
            if r.child == from {
                return Some(step(id, false));
            }
        }
    }
    for id in model.relationship_ids() {
        let r = model.relationship(id);
        if r.parent == from && r.parent_field == name {
            return Some(step(id, true));
        }
        if r.child == from && r.child_field == name {
            return Some(step(id, false));
        }
    }
    None
}

/// Names that `walk` accepts from `from`.
fn reachable(model: &Model, from: EntityId) -> Vec<String> {
    let mut out = Vec::new();
    for r in &model.relationships {
        if r.parent == from {
            out.push(r.name.clone());
            out.push(r.parent_field.clone());
        }
        if r.child == from {
            out.push(r.name.clone());
            out.push(r.child_field.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

fn field_names(model: &Model, entity: EntityId) -> Vec<String> {
    let mut out: Vec<String> = model
        .entity(entity)
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect();
    if !out.iter().any(|f| f == "_id") {
        out.push("_id".into());
    }
    out
}

fn has_field(model: &Model, entity: EntityId, name: &str) -> bool {
    name == "_id" || model.entity(entity).field(name).is_some()
}

fn help_from(wanted: &str, names: &[String]) -> Option<String> {
    suggestion(wanted, names.iter().map(String::as_str))
}

pub fn workload(
    ctx: &mut Ctx<'_>,
    model: &Model,
    mixes: Vec<DeclaredMix>,
    raw: &NamedMap<RawOperation>,
    atomic: &NamedMap<Vec<S<String>>>,
) -> Workload {
    check_duplicates(ctx, raw, "operation");
    let mix_names: Vec<String> = mixes.iter().map(|m| m.mix.name.clone()).collect();
    let declared = mixes.iter().any(|m| m.declared);
    let mut operations = Vec::new();
    let mut weights: Vec<Vec<f64>> = Vec::new();
    for (name, op) in &raw.0 {
        check_name(ctx, name, "operation");
        let rates = Rates::new(ctx, name, op, &mix_names, declared);
        if let Some(kind) = operation_kind(ctx, model, name, op) {
            operations.push(Operation {
                name: name.value.clone(),
                kind,
                rates: rates.rates,
                description: op.description.clone(),
            });
            weights.push(rates.weights);
        }
    }
    // Weights become rates: scaled to the mix's total_rate, or 1/s per unit.
    for (m, mix) in mixes.iter().enumerate() {
        let sum: f64 = weights.iter().map(|w| w[m]).sum();
        let scale = match mix.total_rate {
            Some(total) if sum > 0.0 => total / sum,
            Some(_) => 0.0,
            None => 1.0,
        };
        for (op, w) in operations.iter_mut().zip(&weights) {
            if w[m] > 0.0 {
                op.rates[m] += w[m] * scale;
            }
        }
    }
    let declared_ops: Vec<&str> = raw.0.iter().map(|(k, _)| k.value.as_str()).collect();
    let atomic_groups = atomic_groups(ctx, &operations, &declared_ops, atomic);
    Workload {
        mixes: mixes.into_iter().map(|m| m.mix).collect(),
        operations,
        atomic_groups,
    }
}

struct Rates {
    rates: Vec<f64>,
    weights: Vec<f64>,
}

impl Rates {
    fn new(
        ctx: &mut Ctx<'_>,
        name: &S<String>,
        op: &RawOperation,
        mixes: &[String],
        declared: bool,
    ) -> Rates {
        let mut out = Rates {
            rates: vec![0.0; mixes.len()],
            weights: vec![0.0; mixes.len()],
        };
        let given = usize::from(op.rate.is_some())
            + usize::from(op.rates.is_some())
            + usize::from(op.weights.is_some());
        if given == 0 {
            ctx.error(
                ctx.pos(name),
                format!(
                    "operation `{}` says nothing of how often it runs",
                    name.value
                ),
                "no rate",
                Some(
                    "add `rate: 10` (per second), `rates: {mix: 10}` or `weights: {mix: 2.5}`"
                        .into(),
                ),
            );
            return out;
        }
        if given > 1 {
            ctx.error(
                ctx.pos(name),
                format!(
                    "operation `{}` gives more than one of `rate`, `rates` and `weights`",
                    name.value
                ),
                "choose one",
                Some("keep one of them".into()),
            );
            return out;
        }
        if let Some(v) = op.rate.as_ref().and_then(|r| ctx.non_negative(r, "a rate")) {
            out.rates.fill(v);
        }
        for (map, target, what) in [
            (&op.rates, &mut out.rates, "rate"),
            (&op.weights, &mut out.weights, "weight"),
        ] {
            let Some(map) = map else { continue };
            check_duplicates(ctx, &map.value, "mix");
            for (mix, v) in &map.value.0 {
                let Some(m) = mixes.iter().position(|n| *n == mix.value) else {
                    let help = if declared {
                        suggestion(&mix.value, mixes.iter().map(String::as_str))
                    } else {
                        Some(format!("declare it: `mixes: [{}]`", mix.value))
                    };
                    ctx.error(
                        ctx.pos(mix),
                        format!("{what} for undeclared mix `{}`", mix.value),
                        "unknown mix",
                        help,
                    );
                    continue;
                };
                if let Some(v) = ctx.non_negative(v, &format!("a {what}")) {
                    target[m] = v;
                }
            }
        }
        out
    }
}

fn first_pos(ctx: &Ctx<'_>, items: &[S<String>], fallback: Option<Position>) -> Option<Position> {
    items.first().and_then(|i| ctx.pos(i)).or(fallback)
}

fn map_pos<V>(ctx: &Ctx<'_>, map: &NamedMap<V>, fallback: Option<Position>) -> Option<Position> {
    map.0.first().and_then(|(k, _)| ctx.pos(k)).or(fallback)
}

fn operation_kind(
    ctx: &mut Ctx<'_>,
    model: &Model,
    name: &S<String>,
    op: &RawOperation,
) -> Option<OperationKind> {
    let kinds: Vec<(&str, &S<String>)> = [
        ("read", &op.read),
        ("insert", &op.insert),
        ("update", &op.update),
        ("delete", &op.delete),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
    .collect();
    let (kind, target) = match kinds.as_slice() {
        [] => {
            ctx.error(
                ctx.pos(name),
                format!("operation `{}` names no entity to read, insert, update or delete", name.value),
                "what does it do?",
                Some("add one of `read: ENTITY`, `insert: ENTITY`, `update: ENTITY`, `delete: ENTITY`".into()),
            );
            return None;
        }
        [one] => *one,
        [_, (second, v), ..] => {
            ctx.error(
                ctx.pos(v),
                format!("operation `{}` is already a {}; `{second}` makes it two operations", name.value, kinds[0].0),
                "second kind",
                Some("split it into two operations (and group them under `atomic:` if they must be atomic)".into()),
            );
            return None;
        }
    };
    let Some(entity) = model.entity_by_name(&target.value) else {
        ctx.error(
            ctx.pos(target),
            format!(
                "operation `{}` {kind}s `{}`, which is not an entity of this model",
                name.value, target.value
            ),
            "undefined entity",
            suggestion(
                &target.value,
                model.entities.iter().map(|e| e.name.as_str()),
            ),
        );
        return None;
    };
    // Keys that do not apply to this kind of operation.
    let here = ctx.pos(target);
    let misplaced: [(&str, bool, Option<Position>, &[&str]); 10] = [
        (
            "filter",
            op.filter.is_some(),
            op.filter.as_ref().and_then(|f| map_pos(ctx, f, None)),
            &["read", "update", "delete"],
        ),
        (
            "sort",
            op.sort.is_some(),
            op.sort.as_ref().and_then(|s| ctx.pos(s)),
            &["read"],
        ),
        (
            "limit",
            op.limit.is_some(),
            op.limit.as_ref().and_then(|s| ctx.pos(s)),
            &["read"],
        ),
        (
            "fields",
            op.fields.is_some(),
            op.fields.as_ref().and_then(|f| first_pos(ctx, f, None)),
            &["read"],
        ),
        ("include", op.include.is_some(), None, &["read"]),
        (
            "aggregates",
            op.aggregates.is_some(),
            op.aggregates.as_ref().and_then(|f| first_pos(ctx, f, None)),
            &["read"],
        ),
        (
            "links",
            op.links.is_some(),
            op.links.as_ref().and_then(|f| first_pos(ctx, f, None)),
            &["insert"],
        ),
        (
            "count",
            op.count.is_some(),
            op.count.as_ref().and_then(|s| ctx.pos(s)),
            &["insert"],
        ),
        (
            "changes",
            op.changes.is_some() || op.relinks.is_some(),
            op.changes
                .as_ref()
                .or(op.relinks.as_ref())
                .and_then(|f| first_pos(ctx, f, None)),
            &["update"],
        ),
        (
            "multi",
            op.multi.is_some(),
            op.multi.as_ref().and_then(|s| ctx.pos(s)),
            &["update"],
        ),
    ];
    let mut bad = false;
    for (key, present, pos, allowed) in misplaced {
        if present && !allowed.contains(&kind) {
            bad = true;
            ctx.error(
                pos.or(here),
                format!(
                    "`{key}` does not apply to a {kind} (operation `{}`); it belongs to: {}",
                    name.value,
                    allowed.join(", ")
                ),
                "not for this kind",
                None,
            );
        }
    }
    let filter = op
        .filter
        .as_ref()
        .map(|f| filters(ctx, model, entity, f))
        .unwrap_or_default();
    if bad {
        return None;
    }
    Some(match kind {
        "read" => OperationKind::Read {
            entity,
            filter,
            sort: op
                .sort
                .as_ref()
                .map(|s| sort_keys(ctx, model, entity, s))
                .unwrap_or_default(),
            limit: op.limit.as_ref().and_then(|l| ctx.whole(l, "`limit`", 0)),
            fields: op
                .fields
                .as_ref()
                .map(|f| fields(ctx, model, entity, f, "returned"))
                .unwrap_or_default(),
            include: op
                .include
                .as_ref()
                .map(|i| includes(ctx, model, entity, i))
                .unwrap_or_default(),
            aggregates: op
                .aggregates
                .iter()
                .flatten()
                .filter_map(|a| aggregate(ctx, model, entity, a))
                .collect(),
        },
        "insert" => OperationKind::Insert {
            entity,
            links: relationship_list(ctx, model, entity, op.links.as_deref(), "links"),
            count: op
                .count
                .as_ref()
                .map_or(Some(1), |c| ctx.whole(c, "an insert's `count`", 1))
                .unwrap_or(1),
        },
        "update" => {
            let changes = op
                .changes
                .as_ref()
                .map(|c| fields(ctx, model, entity, c, "changed"))
                .unwrap_or_default();
            let relinks = relationship_list(ctx, model, entity, op.relinks.as_deref(), "relinks");
            if changes.is_empty() && relinks.is_empty() {
                ctx.error(
                    ctx.pos(name),
                    format!("update `{}` changes nothing", name.value),
                    "no changes",
                    Some("add `changes: [field, …]` or `relinks: [relationship]`".into()),
                );
            }
            OperationKind::Update {
                entity,
                filter,
                changes,
                relinks,
                multi: op.multi.as_ref().is_some_and(|m| m.value),
            }
        }
        _ => OperationKind::Delete { entity, filter },
    })
}

fn filters(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &NamedMap<S<String>>,
) -> Vec<Filter> {
    check_duplicates(ctx, raw, "filter");
    let mut out = Vec::new();
    for (path, op) in &raw.0 {
        let op_value = match op.value.trim().to_ascii_lowercase().as_str() {
            "eq" | "equality" | "=" | "==" => Some(FilterOp::Eq),
            "range" | "<" | ">" | "<=" | ">=" | "gt" | "gte" | "lt" | "lte" => {
                Some(FilterOp::Range)
            }
            "in" => Some(FilterOp::In),
            _ => {
                ctx.error(
                    ctx.pos(op),
                    format!("unknown filter operator `{}`", op.value),
                    "not an operator",
                    suggestion(&op.value, ["eq", "range", "in"])
                        .or_else(|| Some("one of eq, range, in".into())),
                );
                None
            }
        };
        let path = resolve_path(ctx, model, entity, path);
        if let (Some(path), Some(op)) = (path, op_value) {
            out.push(Filter { path, op });
        }
    }
    out
}

/// `field`, `_id`, `relationship` (its reference) or `relationship.….field`,
/// normalized to relationship names followed by a field name (or `_id`).
fn resolve_path(
    ctx: &mut Ctx<'_>,
    model: &Model,
    start: EntityId,
    key: &S<String>,
) -> Option<Vec<String>> {
    let segments: Vec<&str> = key.value.split('.').map(str::trim).collect();
    let mut current = start;
    let mut out = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if last && has_field(model, current, seg) {
            out.push((*seg).to_string());
            return Some(out);
        }
        if let Some(step) = walk(model, current, seg) {
            out.push(model.relationship(step.relationship).name.clone());
            if last {
                out.push("_id".into());
                return Some(out);
            }
            current = step.target;
            continue;
        }
        let entity = &model.entity(current).name;
        let mut names = reachable(model, current);
        if last {
            names.extend(field_names(model, current));
            ctx.error(
                ctx.pos(key),
                format!(
                    "`{}`: entity `{entity}` has no field or relationship `{seg}`",
                    key.value
                ),
                "unknown field",
                help_from(seg, &names),
            );
        } else {
            let is_field = has_field(model, current, seg);
            ctx.error(
                ctx.pos(key),
                format!(
                    "`{}`: `{seg}` is not a relationship of entity `{entity}`",
                    key.value
                ),
                "not a relationship",
                if is_field {
                    Some(format!(
                        "`{seg}` is a field; a dotted path goes through relationships"
                    ))
                } else {
                    help_from(seg, &names)
                },
            );
        }
        return None;
    }
    None
}

fn sort_keys(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &S<OneOrMany>,
) -> Vec<SortKey> {
    let items: Vec<(String, Option<Position>)> = match &raw.value {
        OneOrMany::One(s) => vec![(s.clone(), ctx.pos(raw))],
        OneOrMany::Many(v) => v.iter().map(|s| (s.value.clone(), ctx.pos(s))).collect(),
    };
    let mut out = Vec::new();
    for (text, pos) in items {
        let (field, descending) = compact::parse_sort(&text);
        if has_field(model, entity, &field) {
            out.push(SortKey { field, descending });
        } else {
            ctx.error(
                pos,
                format!(
                    "sort by `{field}`: entity `{}` has no such field",
                    model.entity(entity).name
                ),
                "unknown field",
                help_from(&field, &field_names(model, entity)),
            );
        }
    }
    out
}

fn fields(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &[S<String>],
    what: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    for f in raw {
        if has_field(model, entity, &f.value) && !(what == "changed" && f.value == "_id") {
            out.push(f.value.clone());
        } else {
            let mut names = field_names(model, entity);
            if what == "changed" {
                names.retain(|n| n != "_id");
            }
            let rel_help = walk(model, entity, &f.value).map(|_| {
                if what == "changed" {
                    format!("`{}` is a relationship: list it under `relinks`", f.value)
                } else {
                    format!("`{}` is a relationship: list it under `include`", f.value)
                }
            });
            ctx.error(
                ctx.pos(f),
                format!(
                    "field `{}` {what} is not a field of entity `{}`",
                    f.value,
                    model.entity(entity).name
                ),
                "unknown field",
                rel_help.or_else(|| help_from(&f.value, &names)),
            );
        }
    }
    out
}

fn relationship_list(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: Option<&[S<String>]>,
    key: &str,
) -> Vec<RelationshipId> {
    let mut out = Vec::new();
    for name in raw.into_iter().flatten() {
        match walk(model, entity, &name.value) {
            Some(step) => out.push(step.relationship),
            None => {
                let e = &model.entity(entity).name;
                ctx.error(
                    ctx.pos(name),
                    format!(
                        "`{key}`: `{}` is not a relationship of entity `{e}`",
                        name.value
                    ),
                    "not connected",
                    help_from(&name.value, &reachable(model, entity)),
                );
            }
        }
    }
    out
}

fn includes(ctx: &mut Ctx<'_>, model: &Model, from: EntityId, raw: &RawIncludes) -> Vec<Include> {
    let mut out = Vec::new();
    let unknown = |ctx: &mut Ctx<'_>, name: &S<String>| {
        let e = &model.entity(from).name;
        let names = reachable(model, from);
        ctx.error(
            ctx.pos(name),
            format!(
                "include `{}`: no relationship of that name connects to entity `{e}`",
                name.value
            ),
            "not connected",
            help_from(&name.value, &names)
                .or_else(|| Some(format!("entity `{e}` has no relationships"))),
        );
    };
    let plain = |step: Step| Include {
        relationship: step.relationship,
        to_children: step.to_children,
        fields: Vec::new(),
        limit: None,
        sort: Vec::new(),
        filter: Vec::new(),
        include: Vec::new(),
    };
    match raw {
        RawIncludes::List(names) => {
            for n in names {
                match walk(model, from, &n.value) {
                    Some(step) => out.push(plain(step)),
                    None => unknown(ctx, n),
                }
            }
        }
        RawIncludes::Map(map) => {
            check_duplicates(ctx, map, "include");
            for (n, detail) in &map.0 {
                let Some(step) = walk(model, from, &n.value) else {
                    unknown(ctx, n);
                    continue;
                };
                let mut inc = plain(step);
                if let Some(d) = detail {
                    let t = step.target;
                    inc.fields = d
                        .fields
                        .as_ref()
                        .map(|f| fields(ctx, model, t, f, "returned"))
                        .unwrap_or_default();
                    inc.limit = d.limit.as_ref().and_then(|l| ctx.whole(l, "`limit`", 0));
                    inc.sort = d
                        .sort
                        .as_ref()
                        .map(|s| sort_keys(ctx, model, t, s))
                        .unwrap_or_default();
                    inc.filter = d
                        .filter
                        .as_ref()
                        .map(|f| filters(ctx, model, t, f))
                        .unwrap_or_default();
                    inc.include = d
                        .include
                        .as_ref()
                        .map(|i| includes(ctx, model, t, i))
                        .unwrap_or_default();
                }
                out.push(inc);
            }
        }
    }
    out
}

fn aggregate(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &S<String>,
) -> Option<Aggregate> {
    let (function, path) = match compact::parse_aggregate(&raw.value) {
        Ok(x) => x,
        Err(message) => {
            ctx.error(ctx.pos(raw), message, "not an aggregate", None);
            return None;
        }
    };
    let e = &model.entity(entity).name;
    let Some(step) = walk(model, entity, &path[0]) else {
        ctx.error(
            ctx.pos(raw),
            format!(
                "aggregate `{}`: `{}` is not a relationship of entity `{e}`",
                raw.value, path[0]
            ),
            "not connected",
            help_from(&path[0], &reachable(model, entity)),
        );
        return None;
    };
    if !step.to_children {
        ctx.error(
            ctx.pos(raw),
            format!(
                "aggregate `{}`: `{}` leads from `{e}` to its parent; aggregates are over children",
                raw.value, path[0]
            ),
            "not children",
            None,
        );
        return None;
    }
    let child = model.entity(step.target);
    let field = match (function, path.len()) {
        (AggregateFn::Count, 1) => None,
        (AggregateFn::Count, _) => {
            ctx.error(
                ctx.pos(raw),
                format!(
                    "aggregate `{}`: count takes a relationship, not a field",
                    raw.value
                ),
                "count(relationship)",
                Some(format!("write `count({})`", path[0])),
            );
            return None;
        }
        (_, 2) => Some(path[1].clone()),
        _ => {
            ctx.error(
                ctx.pos(raw),
                format!(
                    "aggregate `{}`: name the child's field, as in `relationship.field`",
                    raw.value
                ),
                "which field?",
                Some(format!(
                    "e.g. `{}({}.{})`",
                    compact::aggregate_name(function),
                    path[0],
                    child.fields.first().map_or("value", |f| f.name.as_str())
                )),
            );
            return None;
        }
    };
    if let Some(f) = &field {
        match child.field(f) {
            None => {
                ctx.error(
                    ctx.pos(raw),
                    format!(
                        "aggregate `{}`: entity `{}` has no field `{f}`",
                        raw.value, child.name
                    ),
                    "unknown field",
                    help_from(f, &field_names(model, step.target)),
                );
                return None;
            }
            Some(fd)
                if matches!(function, AggregateFn::Sum | AggregateFn::Avg)
                    && !matches!(
                        fd.ty,
                        FieldType::Int | FieldType::Long | FieldType::Double | FieldType::Decimal
                    ) =>
            {
                ctx.error(
                    ctx.pos(raw),
                    format!(
                        "aggregate `{}`: field `{f}` is a {}, not a number",
                        raw.value,
                        fd.ty.bson_type()
                    ),
                    "not numeric",
                    None,
                );
                return None;
            }
            Some(_) => {}
        }
    }
    Some(Aggregate {
        relationship: step.relationship,
        function,
        field,
    })
}

fn atomic_groups(
    ctx: &mut Ctx<'_>,
    operations: &[Operation],
    declared: &[&str],
    raw: &NamedMap<Vec<S<String>>>,
) -> Vec<AtomicGroup> {
    check_duplicates(ctx, raw, "atomic group");
    let mut out = Vec::new();
    for (name, ops) in &raw.0 {
        check_name(ctx, name, "atomic group");
        if ops.is_empty() {
            ctx.error(
                ctx.pos(name),
                format!("atomic group `{}` names no operation", name.value),
                "empty",
                None,
            );
        }
        let mut ids = Vec::new();
        for op in ops {
            match operations.iter().position(|o| o.name == op.value) {
                Some(i) if !operations[i].is_write() => ctx.error(
                    ctx.pos(op),
                    format!(
                        "atomic group `{}`: `{}` is a read; atomic groups hold writes",
                        name.value, op.value
                    ),
                    "a read",
                    None,
                ),
                Some(i) => ids.push(OperationId::from_index(i)),
                // Declared but invalid: its own problem is already reported.
                None if declared.contains(&op.value.as_str()) => {}
                None => ctx.error(
                    ctx.pos(op),
                    format!(
                        "atomic group `{}` names unknown operation `{}`",
                        name.value, op.value
                    ),
                    "unknown operation",
                    suggestion(&op.value, declared.iter().copied()),
                ),
            }
        }
        out.push(AtomicGroup {
            name: name.value.clone(),
            operations: ids,
        });
    }
    out
}
