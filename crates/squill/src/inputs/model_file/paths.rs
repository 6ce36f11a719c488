//! Names and paths resolved against the model for the workload: fields of an
//! entity, steps through relationships (by name, `parent_field` or
//! `child_field`), filters, sort keys, includes and aggregates. Every miss is a
//! problem with the names that would have matched.

use super::compact;
use super::context::Ctx;
use super::error::{Position, suggestion};
use super::names::check_duplicates;
use super::raw::{NamedMap, OneOrMany, RawIncludes, S, Sort};
use crate::model::{
    Age, Aggregate, AggregateFn, EntityId, FieldType, Filter, FilterOp, Include, Model,
    RelationshipId, RelationshipKind, SortKey,
};

/// One step through a relationship from an entity.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    pub relationship: RelationshipId,
    pub to_children: bool,
    pub target: EntityId,
}

/// The relationship `name` leads through from `from`: by the relationship's name,
/// by its `parent_field` (from the parent) or by its `child_field` (from the child).
pub(super) fn walk(model: &Model, from: EntityId, name: &str) -> Option<Step> {
    let step = |id: RelationshipId, to_children: bool| {
        let r = model.relationship(id);
        Step {
            relationship: id,
            to_children,
            target: if to_children { r.child } else { r.parent },
        }
    };
    // The ends are compared before the names: most relationships of a large
    // model touch neither end, and a number compares faster than a name.
    for id in model.relationship_ids() {
        let r = model.relationship(id);
        if r.parent == from && r.name == name {
            return Some(step(id, true));
        }
        if r.child == from && r.name == name {
            return Some(step(id, false));
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
pub(super) fn reachable(model: &Model, from: EntityId) -> Vec<String> {
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

pub(super) fn field_names(model: &Model, entity: EntityId) -> Vec<String> {
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

pub(super) fn has_field(model: &Model, entity: EntityId, name: &str) -> bool {
    name == "_id" || model.entity(entity).field(name).is_some()
}

pub(super) fn help_from(wanted: &str, names: &[String]) -> Option<String> {
    suggestion(wanted, names.iter().map(String::as_str))
}

pub(super) fn filters(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &NamedMap<S<String>>,
) -> Vec<Filter> {
    check_duplicates(ctx, raw, "filter");
    let mut out = Vec::new();
    for (path, op) in &raw.0 {
        let parsed = filter_op(ctx, op);
        let resolved = resolve_path(ctx, model, entity, path);
        if let (Some(resolved), Some(kind)) = (resolved, parsed.op) {
            let mut f = Filter::new(model, entity, resolved, kind);
            if kind == FilterOp::Under && !subtree_path(ctx, model, entity, &f, path) {
                continue;
            }
            f.selectivity = parsed.selectivity;
            f.geo = parsed.geo;
            if kind.is_geo() && !super::geo::check_filter(ctx, model, entity, &f, path) {
                continue;
            }
            if let Some(age) = parsed.age
                && aged_field(ctx, model, entity, &f, path)
            {
                ctx.aged.push((entity, f.path.join("."), age, ctx.pos(op)));
                f.age = Some(age);
            }
            out.push(f);
        }
    }
    out
}

/// Whether an `under` filter tests a tree: the `_id` of an entity that
/// forms one, or a reference to such an entity. Says why not at `path`.
fn subtree_path(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    f: &Filter,
    path: &S<String>,
) -> bool {
    let node = match &f.related {
        None if f.path == ["_id"] => Some(entity),
        Some(r) if r.field == "_id" && r.further.is_empty() => {
            let rel = model.relationship(r.relationship);
            (rel.child == entity && rel.parent != entity).then_some(rel.parent)
        }
        _ => None,
    };
    match node {
        Some(n) if model.tree_of(n).is_some() => true,
        Some(n) => {
            ctx.error(
                ctx.pos(path),
                format!(
                    "`{}: under` needs a tree: {} has no one-to-many with itself (or several)",
                    path.value,
                    model.entity(n).name
                ),
                "not a tree",
                Some("declare the tree as a relationship whose parent and child are one entity (a category's subcategories)".into()),
            );
            false
        }
        None => {
            ctx.error(
                ctx.pos(path),
                format!(
                    "`{}: under` tests a node of a tree: `_id`, or the reference to a parent that forms a tree",
                    path.value
                ),
                "not a node",
                Some("`{_id: under}` on categories, `{category: under}` on products".into()),
            );
            false
        }
    }
}

/// A filter's operator: `eq`, `in`, a range (`range`, `range(0.02)` with
/// the share it keeps), or a range by age (`since(90 days)`,
/// `before(1 year)`).
pub(super) struct ParsedOp {
    pub op: Option<FilterOp>,
    pub selectivity: Option<f64>,
    pub age: Option<Age>,
    /// For `near` and `within`: the area searched.
    pub geo: Option<crate::model::GeoArea>,
}

pub(super) fn filter_op(ctx: &mut Ctx<'_>, op: &S<String>) -> ParsedOp {
    let text = op.value.trim().to_ascii_lowercase();
    let mut out = ParsedOp {
        op: None,
        selectivity: None,
        age: None,
        geo: None,
    };
    if let Some((op_, area)) = super::geo::geo_op(ctx, op, &text) {
        out.op = area
            .is_some()
            .then_some(op_)
            .or((op_ == FilterOp::Intersects).then_some(op_));
        out.geo = area;
        return out;
    }
    let call = |name: &str| {
        text.strip_prefix(name)
            .and_then(|r| r.trim_start().strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
            .map(str::trim)
    };
    // `range(0.02)`: a range that keeps that fraction of the instances.
    if let Some(arg) = call("range") {
        match arg.parse::<f64>() {
            Ok(x) if x > 0.0 && x <= 1.0 => out.selectivity = Some(x),
            _ => ctx.error(
                ctx.pos(op),
                format!(
                    "`{}`: a range's selectivity is a fraction above 0 and at most 1",
                    op.value
                ),
                "not a fraction",
                Some("`range(0.02)` keeps 2% of the instances".into()),
            ),
        }
        out.op = Some(FilterOp::Range);
        return out;
    }
    for (name, older) in [("since", false), ("before", true)] {
        if let Some(arg) = call(name) {
            match days(arg) {
                Some(d) => {
                    out.age = Some(Age {
                        days: d,
                        older,
                        expiry: false,
                    });
                }
                None => ctx.error(
                    ctx.pos(op),
                    format!("`{}`: an age is a number and a unit of time", op.value),
                    "not an age",
                    Some(format!(
                        "`{name}(90 days)`; units: minutes, hours, days, weeks, months, years"
                    )),
                ),
            }
            out.op = Some(FilterOp::Range);
            return out;
        }
    }
    out.op = match text.as_str() {
        "eq" | "equality" | "=" | "==" => Some(FilterOp::Eq),
        "range" | "<" | ">" | "<=" | ">=" | "gt" | "gte" | "lt" | "lte" => Some(FilterOp::Range),
        "in" => Some(FilterOp::In),
        "under" | "subtree" => Some(FilterOp::Under),
        _ => {
            ctx.error(
                ctx.pos(op),
                format!("unknown filter operator `{}`", op.value),
                "not an operator",
                suggestion(
                    &op.value,
                    [
                        "eq",
                        "range",
                        "in",
                        "since",
                        "before",
                        "under",
                        "near",
                        "within",
                        "intersects",
                    ],
                )
                .or_else(|| {
                    Some(
                        "one of eq, range, range(fraction), in, since(age), before(age), under, near(radius), within(radius or area), intersects"
                            .into(),
                    )
                }),
            );
            None
        }
    };
    out
}

/// The levels a recursive include walks at most: the model's number, or
/// for `true` every level (the tree's `levels`, else 100). Only an
/// entity's one-to-many with itself repeats.
fn recursion(
    ctx: &mut Ctx<'_>,
    model: &Model,
    rel: &crate::model::Relationship,
    raw: &S<super::raw::RawRecursive>,
) -> Option<u32> {
    use super::raw::RawRecursive;
    if rel.parent != rel.child || rel.kind == crate::model::RelationshipKind::ManyToMany {
        ctx.error(
            ctx.pos(raw),
            format!(
                "`recursive` repeats a relationship of an entity with itself; `{}` goes from {} to {}",
                rel.name,
                model.entity(rel.parent).name,
                model.entity(rel.child).name
            ),
            "not a tree",
            Some("recursion walks a one-to-many whose parent and child are one entity (a category and its subcategories)".into()),
        );
        return None;
    }
    match raw.value {
        RawRecursive::Off => None,
        // Every level there is: the tree's depth when the model bounds it,
        // else as deep as a document may nest. (The cost counts the levels
        // a tree of the entity's count has, not this bound.)
        RawRecursive::All => Some(rel.levels.unwrap_or(100)),
        RawRecursive::Levels(x) if (1.0..=100.0).contains(&x) && x.fract() == 0.0 => Some(x as u32),
        RawRecursive::Levels(x) => {
            ctx.error(
                ctx.pos(raw),
                format!("`recursive: {x}`: levels are a whole number from 1 to 100"),
                "not a number of levels",
                Some("`recursive: true` walks every level".into()),
            );
            None
        }
    }
}

/// An age range tests a date field of the filtered entity itself: its
/// share of the instances follows from that entity's inserts.
fn aged_field(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    f: &Filter,
    key: &S<String>,
) -> bool {
    let field = match (&f.related, f.path.as_slice()) {
        (None, [name]) => model.entity(entity).field(name),
        _ => None,
    };
    if field.is_some_and(|x| x.ty == FieldType::Date) {
        return true;
    }
    ctx.error(
        ctx.pos(key),
        format!(
            "`{}`: an age (`since`, `before`) tests a date field of {}",
            key.value,
            model.entity(entity).name
        ),
        "not a date field of the entity",
        Some("declare the field as `date`, or write `range(fraction)`".into()),
    );
    false
}

/// `90 days`, `90d`, `1 year`, `12h`: in days, above 0 and at most a
/// thousand years.
fn days(text: &str) -> Option<f64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse().ok()?;
    let per_day = match unit.trim() {
        "min" | "mins" | "minute" | "minutes" => 1440.0,
        "h" | "hour" | "hours" => 24.0,
        "d" | "day" | "days" => 1.0,
        "w" | "week" | "weeks" => 1.0 / 7.0,
        "month" | "months" => 1.0 / 30.0,
        "y" | "year" | "years" => 1.0 / 365.0,
        _ => return None,
    };
    let d = n / per_day;
    (d.is_finite() && d > 0.0 && d <= 365_000.0).then_some(d)
}

/// `field`, `_id`, `relationship` (its reference) or `relationship.….field`,
/// normalized to relationship names followed by a field name (or `_id`).
pub(super) fn resolve_path(
    ctx: &mut Ctx<'_>,
    model: &Model,
    start: EntityId,
    key: &S<String>,
) -> Option<Vec<String>> {
    if has_field(model, start, &key.value) {
        return Some(vec![key.value.clone()]);
    }
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
        if ctx.is_unresolved(seg) {
            return None;
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

/// `field desc` → `-field`, `field asc` → `field`; anything else as it is.
fn sql_order(key: &str) -> String {
    match key.split_whitespace().collect::<Vec<_>>()[..] {
        [field, dir] if dir.eq_ignore_ascii_case("desc") => format!("-{field}"),
        [field, dir] if dir.eq_ignore_ascii_case("asc") => field.to_string(),
        _ => key.to_string(),
    }
}

pub(super) fn sort_keys(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &S<Sort>,
) -> Vec<SortKey> {
    let items: Vec<(String, Option<Position>)> = match &raw.value.0 {
        OneOrMany::One(s) => vec![(s.clone(), ctx.pos(raw))],
        OneOrMany::Many(v) => v.iter().map(|s| (s.value.clone(), ctx.pos(s))).collect(),
    };
    // SQL's way too: `placed_at desc`, `status, placed_at DESC`.
    let items: Vec<(String, Option<Position>)> = items
        .into_iter()
        .flat_map(|(text, pos)| {
            text.split(',')
                .map(|part| (sql_order(part.trim()), pos))
                .collect::<Vec<_>>()
        })
        .collect();
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

/// An include's order: the related entity's fields, or the attributes of
/// the many-to-many it goes through.
fn link_sort_keys(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    rel: &crate::model::Relationship,
    raw: &S<Sort>,
) -> Vec<SortKey> {
    let attribute = |text: &str| {
        let (field, descending) = compact::parse_sort(text);
        rel.attribute(&field)
            .is_some()
            .then_some(SortKey { field, descending })
    };
    match &raw.value.0 {
        OneOrMany::One(s) if attribute(s).is_some() => attribute(s).into_iter().collect(),
        OneOrMany::Many(v) if v.iter().all(|s| attribute(&s.value).is_some()) => {
            v.iter().filter_map(|s| attribute(&s.value)).collect()
        }
        _ => sort_keys(ctx, model, entity, raw),
    }
}

pub(super) fn fields(
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

pub(super) fn relationship_list(
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
            None if ctx.is_unresolved(&name.value) => {}
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

pub(super) fn includes(
    ctx: &mut Ctx<'_>,
    model: &Model,
    from: EntityId,
    raw: &RawIncludes,
) -> Vec<Include> {
    let mut out = Vec::new();
    let unknown = |ctx: &mut Ctx<'_>, name: &S<String>| {
        if ctx.is_unresolved(&name.value) {
            return;
        }
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
        recursive: None,
        paging: None,
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
                    // The link's own attributes (a member's role) may be
                    // named next to the other side's fields.
                    let rel = model.relationship(step.relationship);
                    let (attrs, own): (Vec<&S<String>>, Vec<&S<String>>) = d
                        .fields
                        .iter()
                        .flatten()
                        .partition(|f| rel.attribute(&f.value).is_some());
                    let own: Vec<S<String>> = own.into_iter().cloned().collect();
                    let mut listed = fields(ctx, model, t, &own, "returned");
                    listed.extend(attrs.into_iter().map(|f| f.value.clone()));
                    inc.fields = listed;
                    inc.limit = d.limit.as_ref().and_then(|l| ctx.whole(l, "`limit`", 0));
                    inc.sort = d
                        .sort
                        .as_ref()
                        .map(|s| link_sort_keys(ctx, model, t, rel, s))
                        .unwrap_or_default();
                    // Conditions on the link's attributes (members who are
                    // admins) stay plain paths; the rest resolve as usual.
                    if let Some(raw) = &d.filter {
                        let (attrs, own): (Vec<_>, Vec<_>) = raw
                            .0
                            .iter()
                            .cloned()
                            .partition(|(k, _)| rel.attribute(&k.value).is_some());
                        inc.filter = filters(ctx, model, t, &NamedMap(own));
                        for (k, op) in attrs {
                            let parsed = filter_op(ctx, &op);
                            if parsed.age.is_some() {
                                ctx.error(
                                    ctx.pos(&op),
                                    format!("`{}` on `{}`: an age tests a date field of an entity, not an attribute of a link", op.value, k.value),
                                    "not an entity's field",
                                    Some("write `range(fraction)` for the share of links it keeps".into()),
                                );
                            } else if let Some(op) = parsed.op {
                                inc.filter.push(Filter {
                                    path: vec![k.value.clone()],
                                    op,
                                    related: None,
                                    selectivity: parsed.selectivity,
                                    age: None,
                                    geo: parsed.geo,
                                });
                            }
                        }
                    }
                    inc.include = d
                        .include
                        .as_ref()
                        .map(|i| includes(ctx, model, t, i))
                        .unwrap_or_default();
                    if let Some(p) = &d.paging {
                        inc.paging = super::paging::paging(ctx, p, inc.limit, !inc.sort.is_empty());
                    }
                    if let Some(rec) = &d.recursive {
                        inc.recursive = recursion(ctx, model, rel, rec);
                    }
                }
                out.push(inc);
            }
        }
    }
    out
}

pub(super) fn aggregate(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    raw: &S<String>,
) -> Option<Aggregate> {
    // `count(views) within 1%`: the reader accepts that relative error.
    let (text, tolerance) = match raw.value.split_once(" within ") {
        Some((agg, tol)) => {
            let tol = tol.trim();
            let parsed = match tol.strip_suffix('%') {
                Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
                None => tol.parse::<f64>(),
            };
            match parsed {
                Ok(x) if x > 0.0 && x < 1.0 => (agg.trim(), Some(x)),
                _ => {
                    ctx.error(
                        ctx.pos(raw),
                        format!(
                            "aggregate `{}`: the tolerance `{tol}` is not a share between 0 and 100%",
                            raw.value
                        ),
                        "not a tolerance",
                        Some("e.g. `count(views) within 1%` or `within 0.01`".into()),
                    );
                    return None;
                }
            }
        }
        None => (raw.value.as_str(), None),
    };
    let (function, path) = match compact::parse_aggregate(text) {
        Ok(x) => x,
        Err(message) => {
            ctx.error(ctx.pos(raw), message, "not an aggregate", None);
            return None;
        }
    };
    let e = &model.entity(entity).name;
    let Some(step) = walk(model, entity, &path[0]) else {
        if ctx.is_unresolved(&path[0]) {
            return None;
        }
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
    let many = model.relationship(step.relationship).kind == RelationshipKind::ManyToMany;
    if !step.to_children {
        // A child's parents through a many-to-many can be counted (a
        // user's teams); anything else from the child side is one parent.
        if many && function == AggregateFn::Count && path.len() == 1 {
            return Some(Aggregate {
                relationship: step.relationship,
                function,
                field: None,
                tolerance,
                from_child: true,
                window: None,
                filter: None,
            });
        }
        ctx.error(
            ctx.pos(raw),
            format!(
                "aggregate `{}`: `{}` leads from `{e}` to its parent; aggregates are over children",
                raw.value, path[0]
            ),
            "not children",
            many.then(|| format!("a count of the parents is allowed: `count({})`", path[0])),
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
    if tolerance.is_some() && !matches!(function, AggregateFn::Count | AggregateFn::Sum) {
        ctx.error(
            ctx.pos(raw),
            format!(
                "aggregate `{}`: only a count or a sum can be kept approximately",
                raw.value
            ),
            "exact only",
            Some(format!(
                "drop `within …`, or count the children: `count({})`",
                path[0]
            )),
        );
        return None;
    }
    Some(Aggregate {
        relationship: step.relationship,
        function,
        field,
        tolerance,
        from_child: false,
        window: None,
        filter: None,
    })
}
