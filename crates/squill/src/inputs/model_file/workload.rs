//! The workload part of `resolve`: operations, their kind and the keys that
//! apply to it, their rates per mix (weights scaled to rates), atomic groups.
//! Paths, filters, includes and aggregates are resolved in `paths`.

use super::aggregate_filter::filtered_aggregate;
use super::context::Ctx;
use super::error::{Position, suggestion};
use super::mixes::DeclaredMix;
use super::names::{check_duplicates, check_name};
use super::paths::{fields, filters, includes, relationship_list, sort_keys};
use super::raw::{NamedMap, OneOrMany, RawOperation, S};
use crate::model::{
    Aggregate, AtomicGroup, FieldType, Model, Operation, OperationId, OperationKind,
    RelationshipId, RelationshipKind, Workload,
};

pub(super) fn workload(
    ctx: &mut Ctx<'_>,
    model: &Model,
    mixes: Vec<DeclaredMix>,
    raw: &NamedMap<RawOperation>,
    atomic: &NamedMap<super::raw::RawAtomicGroup>,
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
            let terms = super::conditional::terms(
                ctx,
                model,
                kind_entity(model, &kind),
                name,
                kind_word(op),
                op,
            );
            super::upsert::check(ctx, model, name, kind_word(op), &kind, op);
            let paging = match (&kind, &op.paging) {
                (OperationKind::Read { limit, sort, .. }, Some(p)) => {
                    super::paging::paging(ctx, p, *limit, !sort.is_empty())
                }
                _ => None,
            };
            operations.push(Operation {
                name: name.value.clone(),
                kind,
                rates: rates.rates,
                description: op.description.clone(),
                terms,
                paging,
                finds_tenant: op.finds_tenant.as_ref().is_some_and(|f| f.value),
                all_tenants: op.all_tenants.as_ref().is_some_and(|f| f.value),
                counts: super::returns::counts(ctx, name, op),
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
    let atomic_groups = atomic_groups(ctx, model, &operations, &declared_ops, atomic);
    Workload {
        mixes: mixes.into_iter().map(|m| m.mix).collect(),
        operations,
        atomic_groups,
    }
}

/// The entity whose document an operation writes first (a link's parent).
fn kind_entity(model: &Model, kind: &OperationKind) -> crate::model::EntityId {
    match kind {
        OperationKind::Read { entity, .. }
        | OperationKind::Insert { entity, .. }
        | OperationKind::Update { entity, .. }
        | OperationKind::Delete { entity, .. } => *entity,
        OperationKind::Link { relationship, .. }
        | OperationKind::UpdateLink { relationship, .. } => {
            model.relationship(*relationship).parent
        }
    }
}

/// The kind the file names (`claim` is an update to the model).
fn kind_word(op: &RawOperation) -> &'static str {
    [
        (op.read.is_some(), "read"),
        (op.insert.is_some(), "insert"),
        (op.update.is_some(), "update"),
        (op.delete.is_some(), "delete"),
        (op.link.is_some(), "link"),
        (op.unlink.is_some(), "unlink"),
        (op.claim.is_some(), "claim"),
    ]
    .into_iter()
    .find_map(|(b, w)| b.then_some(w))
    .unwrap_or("read")
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
        if op.rate.is_some() && given > 1 {
            ctx.error(
                ctx.pos(name),
                format!(
                    "operation `{}` gives `rate` (every mix) and also `rates` or `weights`",
                    name.value
                ),
                "choose one",
                Some("keep one of them".into()),
            );
            return out;
        }
        if let Some(v) = op.rate.as_ref().and_then(|r| ctx.rate(r, "a rate")) {
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
                if let Some(v) = ctx.rate(v, &format!("a {what}")) {
                    target[m] = v;
                }
                if what == "weight"
                    && op
                        .rates
                        .as_ref()
                        .is_some_and(|r| r.value.0.iter().any(|(k, _)| k.value == mix.value))
                {
                    ctx.error(
                        ctx.pos(mix),
                        format!(
                            "operation `{}` gives mix `{}` both a rate and a weight",
                            name.value, mix.value
                        ),
                        "rate and weight",
                        Some("keep one of them for this mix".into()),
                    );
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

/// An entity or relationship an operation names, and where.
type Target<'a> = (&'a str, Option<Position>);

fn operation_kind(
    ctx: &mut Ctx<'_>,
    model: &Model,
    name: &S<String>,
    op: &RawOperation,
) -> Option<OperationKind> {
    // A read names one entity or a family: the first is the entity, the
    // rest are read with it.
    let (read, family): (Option<Target<'_>>, &[S<String>]) = match &op.read {
        None => (None, &[]),
        Some(r) => match &r.value {
            OneOrMany::One(e) => (Some((e.as_str(), ctx.pos(r))), &[]),
            OneOrMany::Many(v) if v.is_empty() => {
                ctx.error(
                    ctx.pos(r),
                    format!("operation `{}` reads an empty list of entities", name.value),
                    "no entity",
                    Some("name the entity read, or the entities of a family read together: `read: [car, phone]`".into()),
                );
                return None;
            }
            OneOrMany::Many(v) => (Some((v[0].value.as_str(), ctx.pos(&v[0]))), &v[1..]),
        },
    };
    fn named<'a>(ctx: &Ctx<'_>, v: &'a Option<S<String>>) -> Option<Target<'a>> {
        v.as_ref().map(|v| (v.value.as_str(), ctx.pos(v)))
    }
    let kinds: Vec<(&str, Target<'_>)> = [
        ("read", read),
        ("insert", named(ctx, &op.insert)),
        ("update", named(ctx, &op.update)),
        ("delete", named(ctx, &op.delete)),
        ("link", named(ctx, &op.link)),
        ("unlink", named(ctx, &op.unlink)),
        ("claim", named(ctx, &op.claim)),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    let (kind, (target, target_pos)) = match kinds.as_slice() {
        [] => {
            ctx.error(
                ctx.pos(name),
                format!("operation `{}` names no entity to read, insert, update, delete or claim, nor a relationship to link or unlink", name.value),
                "what does it do?",
                Some("add one of `read: ENTITY`, `insert: ENTITY`, `update: ENTITY`, `delete: ENTITY`, `claim: ENTITY`, `link: RELATIONSHIP`, `unlink: RELATIONSHIP`".into()),
            );
            return None;
        }
        [one] => *one,
        [_, (second, (_, at)), ..] => {
            ctx.error(
                *at,
                format!("operation `{}` is already a {}; `{second}` makes it two operations", name.value, kinds[0].0),
                "second kind",
                Some("split it into two operations (and group them under `atomic:` if they must be atomic)".into()),
            );
            return None;
        }
    };
    // A link names a relationship; its entity is the relationship's parent.
    let link = matches!(kind, "link" | "unlink").then(|| {
        let r = model.relationship_by_name(target);
        if r.is_none() {
            ctx.error(
                target_pos,
                format!(
                    "operation `{}` {kind}s through `{}`, which is not a relationship of this model",
                    name.value, target
                ),
                "undefined relationship",
                suggestion(
                    target,
                    model.relationships.iter().map(|r| r.name.as_str()),
                ),
            );
        }
        r
    });
    let entity = match link {
        Some(Some(r)) => Some(model.relationship(r).parent),
        Some(None) => return None,
        None => ctx.entity_named(model, target),
    };
    let Some(entity) = entity else {
        ctx.error(
            target_pos,
            format!(
                "operation `{}` {kind}s `{}`, which is not an entity of this model",
                name.value, target
            ),
            "undefined entity",
            suggestion(target, model.entities.iter().map(|e| e.name.as_str())),
        );
        return None;
    };
    // Keys that do not apply to this kind of operation.
    let here = target_pos;
    let misplaced: [(&str, bool, Option<Position>, &[&str]); 16] = [
        (
            "returns",
            op.returns.is_some(),
            op.returns.as_ref().and_then(|s| ctx.pos(s)),
            &["read"],
        ),
        (
            "finds_tenant",
            op.finds_tenant.is_some(),
            op.finds_tenant.as_ref().and_then(|s| ctx.pos(s)),
            &["read"],
        ),
        (
            "all_tenants",
            op.all_tenants.is_some(),
            op.all_tenants.as_ref().and_then(|s| ctx.pos(s)),
            &["read", "update", "delete", "claim"],
        ),
        (
            "filter",
            op.filter.is_some(),
            op.filter.as_ref().and_then(|f| map_pos(ctx, f, None)),
            &["read", "update", "delete", "claim"],
        ),
        (
            "sort",
            op.sort.is_some(),
            op.sort.as_ref().and_then(|s| ctx.pos(s)),
            &["read", "claim"],
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
        (
            "paging",
            op.paging.is_some(),
            op.paging.as_ref().and_then(|s| ctx.pos(s)),
            &["read"],
        ),
        ("include", op.include.is_some(), None, &["read"]),
        (
            "aggregates",
            op.aggregates.is_some(),
            op.aggregates
                .as_ref()
                .and_then(|f| first_pos(ctx, &f.value, None).or(ctx.pos(f))),
            &["read"],
        ),
        (
            "window",
            op.window.is_some(),
            op.window.as_ref().and_then(|w| ctx.pos(&w.per)),
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
            op.changes.is_some(),
            op.changes.as_ref().and_then(|f| first_pos(ctx, f, None)),
            &["update", "link", "claim"],
        ),
        (
            "relinks",
            op.relinks.is_some(),
            op.relinks.as_ref().and_then(|f| first_pos(ctx, f, None)),
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
                super::conditional::does_not_apply(key, kind, &name.value, allowed),
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
    let family = read_family(ctx, model, name, entity, family, op);
    if bad {
        return None;
    }
    Some(match kind {
        "link" if op.changes.is_some() => {
            let relationship = link.flatten()?;
            OperationKind::UpdateLink {
                relationship,
                changes: link_changes(ctx, model, relationship, op.changes.as_deref()?)?,
            }
        }
        "link" | "unlink" => OperationKind::Link {
            relationship: link.flatten()?,
            unlink: kind == "unlink",
        },
        "read" => OperationKind::Read {
            entity,
            family: family?,
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
            aggregates: {
                // An empty list asks for nothing: a slip (the aggregates
                // were removed, or are to come), not a read of none.
                if let Some(list) = op.aggregates.as_ref().filter(|l| l.value.is_empty()) {
                    ctx.error(
                        ctx.pos(list),
                        format!("operation `{}` asks for an empty list of aggregates", name.value),
                        "no aggregate",
                        Some("name what the read computes (`aggregates: [count(comments)]`), or drop `aggregates`".into()),
                    );
                }
                let mut aggs: Vec<_> = op
                    .aggregates
                    .iter()
                    .flat_map(|l| l.value.iter())
                    .filter_map(|a| filtered_aggregate(ctx, model, entity, a))
                    .collect();
                if let Some(w) = &op.window {
                    windowed(ctx, model, w, &mut aggs);
                }
                aggs
            },
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
        "update" | "claim" => {
            let changes = op
                .changes
                .as_ref()
                .map(|c| {
                    fields(
                        ctx,
                        model,
                        entity,
                        &super::changes::changed_fields(model.entity(entity), c),
                        "changed",
                    )
                })
                .unwrap_or_default();
            let relinks = relationship_list(ctx, model, entity, op.relinks.as_deref(), "relinks");
            // A re-link moves a child to another parent; from the parent's
            // side (or in a many-to-many) it is a link and an unlink.
            if let Some(raw) = op.relinks.as_deref()
                && raw.len() == relinks.len()
            {
                for (n, r) in raw.iter().zip(&relinks) {
                    let rel = model.relationship(*r);
                    if rel.child != entity || rel.kind == RelationshipKind::ManyToMany {
                        let (p, c) = (
                            &model.entity(rel.parent).name,
                            &model.entity(rel.child).name,
                        );
                        ctx.error(
                            ctx.pos(n),
                            format!(
                                "`relinks` moves a {c} to another {p}, but update `{}` is on `{}`{}",
                                name.value,
                                model.entity(entity).name,
                                if rel.kind == RelationshipKind::ManyToMany { " and a many-to-many has no single parent to move from" } else { "" }
                            ),
                            "not a move",
                            Some(format!(
                                "to add or remove a link between a {p} and a {c}, use an operation `link: {}` or `unlink: {}`",
                                rel.name, rel.name
                            )),
                        );
                    }
                }
            }
            if changes.is_empty() && relinks.is_empty() && op.increments.is_none() {
                ctx.error(
                    ctx.pos(name),
                    format!("{kind} `{}` changes nothing", name.value),
                    "no changes",
                    Some("add `changes: [field, …]`, `increments: {field: 1}` or `relinks: [relationship]`".into()),
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

fn atomic_groups(
    ctx: &mut Ctx<'_>,
    model: &Model,
    operations: &[Operation],
    declared: &[&str],
    raw: &NamedMap<super::raw::RawAtomicGroup>,
) -> Vec<AtomicGroup> {
    check_duplicates(ctx, raw, "atomic group");
    let mut out = Vec::new();
    for (name, group) in &raw.0 {
        let ops = group.writes();
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
        let same = group
            .same()
            .and_then(|e| same_entity(ctx, model, operations, &name.value, ops, e));
        out.push(AtomicGroup {
            name: name.value.clone(),
            operations: ids,
            same,
        });
    }
    out
}

/// Resolves a group's `same:`: an entity of the model, one instance of
/// which each of the group's writes addresses (`AtomicGroup::addresses`).
fn same_entity(
    ctx: &mut Ctx<'_>,
    model: &Model,
    operations: &[Operation],
    group: &str,
    writes: &[S<String>],
    raw: &S<String>,
) -> Option<crate::model::EntityId> {
    let Some(entity) = model.entity_by_name(&raw.value) else {
        ctx.error(
            ctx.pos(raw),
            format!(
                "atomic group `{group}`: `same: {}` is not an entity of the model",
                raw.value
            ),
            "unknown entity",
            suggestion(&raw.value, model.entities.iter().map(|e| e.name.as_str())),
        );
        return None;
    };
    let mut ok = true;
    for w in writes {
        // Unknown names and reads are reported above.
        let Some(op) = operations
            .iter()
            .find(|o| o.name == w.value && o.is_write())
        else {
            continue;
        };
        if !AtomicGroup::addresses(model, op, entity) {
            ok = false;
            ctx.error(
                ctx.pos(w),
                format!(
                    "atomic group `{group}`: `{}` does not address one {}: `same: {}` needs each write to name it (an update or delete of it by `_id: eq`, of its child by the field that holds its id, or an insert of its child linked to it)",
                    op.name, raw.value, raw.value
                ),
                "not addressed by every write",
                None,
            );
        }
    }
    ok.then_some(entity)
}

/// Applies a read's `window` to each of its aggregates: the unit must be one
/// squill groups by, and each aggregated child needs the date it names (or
/// exactly one date field).
fn windowed(ctx: &mut Ctx<'_>, model: &Model, w: &super::raw::RawWindow, aggs: &mut [Aggregate]) {
    let unit = w.per.value.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix('s').unwrap_or(&unit).to_string();
    if crate::model::units_a_day(&unit).is_none() {
        ctx.error(
            ctx.pos(&w.per),
            format!(
                "window: `{}` is not a time unit squill groups by",
                w.per.value
            ),
            "unknown unit",
            Some("one of minute, hour, day, month".into()),
        );
        return;
    }
    let Some(last) = ctx.whole(&w.last, "a window's `last`", 1) else {
        return;
    };
    if aggs.is_empty() {
        ctx.error(
            ctx.pos(&w.per),
            "a `window` groups the read's aggregates, and this read has none",
            "nothing to group",
            Some("add `aggregates: [max(rel.field), …]`, or drop the window".into()),
        );
        return;
    }
    for a in aggs.iter_mut() {
        let child = model.entity(model.relationship(a.relationship).child);
        let dates: Vec<&str> = child
            .fields
            .iter()
            .filter(|f| f.ty == FieldType::Date)
            .map(|f| f.name.as_str())
            .collect();
        let field = match &w.by {
            Some(by) if dates.contains(&by.value.as_str()) => by.value.clone(),
            Some(by) => {
                ctx.error(
                    ctx.pos(by),
                    format!(
                        "window: `{}` is not a date field of entity `{}`",
                        by.value, child.name
                    ),
                    "not a date",
                    (!dates.is_empty()).then(|| format!("its dates: {}", dates.join(", "))),
                );
                return;
            }
            None if dates.len() == 1 => dates[0].to_string(),
            None => {
                ctx.error(
                    ctx.pos(&w.per),
                    format!(
                        "window: entity `{}` has {} date fields; say which one groups the values",
                        child.name,
                        dates.len()
                    ),
                    "which date?",
                    Some(if dates.is_empty() {
                        format!("give `{}` a field of type date", child.name)
                    } else {
                        format!("add `by: {}`", dates[0])
                    }),
                );
                return;
            }
        };
        a.window = Some(crate::model::Window {
            field,
            unit: unit.clone(),
            last,
        });
    }
}

/// The further entities of a read over a family (`read: [car, phone,
/// flat]`), each checked to have the fields the read tests, sorts by and
/// returns. `None` after an error.
fn read_family(
    ctx: &mut Ctx<'_>,
    model: &Model,
    name: &S<String>,
    entity: crate::model::EntityId,
    raw: &[S<String>],
    op: &RawOperation,
) -> Option<Vec<crate::model::EntityId>> {
    if raw.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut ok = true;
    for r in raw {
        match model.entity_by_name(&r.value) {
            Some(e) if e == entity || out.contains(&e) => {
                ok = false;
                ctx.error(
                    ctx.pos(r),
                    format!("operation `{}` reads `{}` twice", name.value, r.value),
                    "named twice",
                    None,
                );
            }
            Some(e) => out.push(e),
            None => {
                ok = false;
                ctx.error(
                    ctx.pos(r),
                    format!(
                        "operation `{}` reads `{}`, which is not an entity of this model",
                        name.value, r.value
                    ),
                    "undefined entity",
                    suggestion(&r.value, model.entities.iter().map(|e| e.name.as_str())),
                );
            }
        }
    }
    // One query over every kind: only what each kind has in its own documents.
    let at = ctx.pos(&raw[0]);
    let unsupported = [
        ("include", op.include.is_some()),
        ("aggregates", op.aggregates.is_some()),
        ("window", op.window.is_some()),
    ];
    for (key, present) in unsupported {
        if present {
            ok = false;
            ctx.error(
                at,
                format!(
                    "operation `{}` reads a family of entities; `{key}` is for a read of one entity",
                    name.value
                ),
                "one query over several kinds",
                Some("read the related data in an operation on one entity of the family".into()),
            );
        }
    }
    let through = op
        .filter
        .iter()
        .flat_map(|f| &f.0)
        .find(|(k, v)| k.value.contains('.') || v.value.trim() == "under");
    if let Some((key, _)) = through {
        ok = false;
        ctx.error(
            ctx.pos(key),
            format!(
                "operation `{}` reads a family of entities and tests `{}`; a family is found by the fields its kinds share",
                name.value, key.value
            ),
            "not a field of every kind",
            Some("test related data in an operation on one entity of the family".into()),
        );
    }
    for &e in &out {
        if let Some(f) = &op.filter {
            filters(ctx, model, e, f);
        }
        if let Some(s) = &op.sort {
            sort_keys(ctx, model, e, s);
        }
        if let Some(f) = &op.fields {
            fields(ctx, model, e, f, "returned");
        }
    }
    ok.then_some(out)
}

/// The fields a `link:` with `changes` changes: the many-to-many's own
/// fields (`attributes`), each named once.
fn link_changes(
    ctx: &mut Ctx<'_>,
    model: &Model,
    r: RelationshipId,
    raw: &[S<String>],
) -> Option<Vec<String>> {
    let rel = model.relationship(r);
    let mut out: Vec<String> = Vec::new();
    let mut ok = !raw.is_empty();
    if raw.is_empty() {
        ctx.error(
            None,
            format!("`changes` of a link through `{}` is empty", rel.name),
            "nothing changes",
            None,
        );
    }
    for f in raw {
        if rel.attribute(&f.value).is_none() {
            ok = false;
            let names: Vec<&str> = rel.attributes.iter().map(|a| a.name.as_str()).collect();
            ctx.error(
                ctx.pos(f),
                format!(
                    "a link changes only the fields of the link itself, and `{}` is not one of `{}`'s `attributes`",
                    f.value, rel.name
                ),
                "not an attribute",
                if names.is_empty() {
                    Some(format!(
                        "`{}` has no `attributes`; to change a field of either side, use `update:` on that entity",
                        rel.name
                    ))
                } else {
                    suggestion(&f.value, names.iter().copied())
                },
            );
        } else if !out.contains(&f.value) {
            out.push(f.value.clone());
        }
    }
    ok.then_some(out)
}
