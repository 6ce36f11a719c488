//! Spells a cookbook operation out in mongosh, Python (pymongo) and Node.js
//! (the official driver). Filters and updates are written as JSON-like
//! literals, which all three languages share; the calls around them differ.

use super::code::{
    EachCode, EachSource, Expr, Merge, NewPath, OpCode, ParamKind, StepCode, Update, When,
};
use crate::design::Action;
use crate::words::script::{self, comment as c};
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Mongosh,
    Python,
    Node,
}

/// A string literal: the same text in JavaScript and Python.
fn q(s: &str) -> String {
    script::js_string(s)
}

/// `function` of `field` over the documents of list `list`: a batch's
/// figure from its children (`Expr::OfItems`). The least and greatest by
/// comparison, which dates and numbers both take (`Math.min` turns a date
/// into a number).
fn of_items(lang: Lang, list: &str, field: &str, function: crate::model::AggregateFn) -> String {
    use crate::model::AggregateFn;
    let f = q(field);
    match (lang, function) {
        (Lang::Python, AggregateFn::Count) => format!("len({list})"),
        (Lang::Python, AggregateFn::Sum | AggregateFn::Avg) => {
            format!("sum(d.get({f}, 0) for d in {list})")
        }
        (Lang::Python, AggregateFn::Min) => format!("min(d[{f}] for d in {list})"),
        (Lang::Python, AggregateFn::Max) => format!("max(d[{f}] for d in {list})"),
        (Lang::Python, AggregateFn::First) => format!("{list}[0][{f}]"),
        (Lang::Python, AggregateFn::Last) => format!("{list}[-1][{f}]"),
        (_, AggregateFn::Count) => format!("{list}.length"),
        (_, AggregateFn::Sum | AggregateFn::Avg) => {
            format!("{list}.reduce((s, d) => s + (d[{f}] ?? 0), 0)")
        }
        (_, AggregateFn::Min) => {
            format!("{list}.map((d) => d[{f}]).reduce((a, b) => (b < a ? b : a))")
        }
        (_, AggregateFn::Max) => {
            format!("{list}.map((d) => d[{f}]).reduce((a, b) => (b > a ? b : a))")
        }
        (_, AggregateFn::First) => format!("{list}[0][{f}]"),
        (_, AggregateFn::Last) => format!("{list}[{list}.length - 1][{f}]"),
    }
}

/// A figure's new value in the figure's BSON type: a sum (an `$inc`)
/// of int amounts into a double figure would make an int, which the
/// validator refuses on a new document; a least, greatest, first or last
/// keeps the children's own values.
fn in_figure_type(
    lang: Lang,
    value: String,
    function: crate::model::AggregateFn,
    bson_type: &Option<String>,
) -> String {
    let sum = matches!(
        function,
        crate::model::AggregateFn::Sum | crate::model::AggregateFn::Avg
    );
    match (lang, bson_type.as_deref()) {
        (Lang::Python, Some("double")) if sum => format!("float({value})"),
        (Lang::Python, Some("int" | "long")) if sum => format!("int({value})"),
        (Lang::Mongosh, Some("double")) if sum => format!("Double({value})"),
        (Lang::Node, Some("double")) if sum => {
            format!("new (require(\"mongodb\").Double)({value})")
        }
        _ => value,
    }
}

/// The arguments after the document of the helpers `_share`, `_moved`
/// (`share`, `moved` in JavaScript): the tested field, the test's
/// operator, its constant, and the summed field (none for a count).
fn subset_args(lang: Lang, s: &super::code::Subset) -> String {
    let none = if lang == Lang::Python { "None" } else { "null" };
    format!(
        "{}, {}, {}, {}",
        q(&s.field),
        q(s.test.operator()),
        literal(lang, &s.value),
        s.amount.as_deref().map_or(none.to_string(), q)
    )
}

/// A figure over a subset's amount in the figure's type: a count's is a
/// whole number, a sum's as `in_figure_type` converts it.
fn subset_typed(lang: Lang, value: String, s: &super::code::Subset, t: &Option<String>) -> String {
    let function = if s.amount.is_some() {
        crate::model::AggregateFn::Sum
    } else {
        crate::model::AggregateFn::Count
    };
    in_figure_type(lang, value, function, t)
}

fn expr(lang: Lang, e: &Expr) -> String {
    match e {
        Expr::Share {
            doc,
            subset,
            bson_type,
        } => {
            let f = if lang == Lang::Python {
                "_share"
            } else {
                "share"
            };
            let v = format!("{f}({doc}, {})", subset_args(lang, subset));
            subset_typed(lang, v, subset, bson_type)
        }
        Expr::Shares {
            list,
            subset,
            negative,
            bson_type,
        } => {
            let args = subset_args(lang, subset);
            // JavaScript's `-0` is a double, which a count's validator
            // (long) refuses: a share taken away is subtracted from 0.
            let v = match (lang, negative) {
                (Lang::Python, false) => format!("sum(_share(d, {args}) for d in {list})"),
                (Lang::Python, true) => format!("-sum(_share(d, {args}) for d in {list})"),
                (_, false) => format!("{list}.reduce((s, d) => s + share(d, {args}), 0)"),
                (_, true) => format!("{list}.reduce((s, d) => s - share(d, {args}), 0)"),
            };
            subset_typed(lang, v, subset, bson_type)
        }
        Expr::Moved {
            before,
            changes,
            subset,
            bson_type,
        } => {
            let pairs: Vec<(String, String)> = changes
                .iter()
                .map(|(p, e)| (p.clone(), expr(lang, e)))
                .collect();
            let f = if lang == Lang::Python {
                "_moved"
            } else {
                "moved"
            };
            let v = format!(
                "{f}({before}, {}, {})",
                object(&pairs),
                subset_args(lang, subset)
            );
            subset_typed(lang, v, subset, bson_type)
        }
        Expr::Param(p) => p.clone(),
        Expr::Number(n) => n.to_string(),
        Expr::Amount(n) => number(*n),
        // In the caller's own numeric type (amount.rs says why `-p` and
        // `0 - p` are not enough).
        Expr::Negated(p) if lang == Lang::Python => format!("_negated({p})"),
        Expr::Negated(p) => format!("negated({p})"),
        Expr::NegatedOf(e) if lang == Lang::Python => format!("_negated({})", expr(lang, e)),
        Expr::NegatedOf(e) => format!("negated({})", expr(lang, e)),
        Expr::FoundField { step, field } => format!("{step}[0][{}]", q(field)),
        Expr::InsertedIds { step } => match lang {
            Lang::Python => format!("{step}[\"inserted_ids\"]"),
            _ => format!("Object.values({step}.insertedIds)"),
        },
        Expr::LengthOf(p) => match lang {
            Lang::Python => format!("len({p})"),
            _ => format!("{p}.length"),
        },
        Expr::FirstOf { step, path, .. } => match lang {
            Lang::Python => format!("next(iter(_ids({step}, {})), None)", q(path)),
            _ => format!("(ids({step}, {})[0] ?? null)", q(path)),
        },
        Expr::Near { point, metres } => {
            format!("{{\"$near\": {{\"$geometry\": {point}, \"$maxDistance\": {metres}}}}}")
        }
        // The Earth's mean radius, 6,378.1 km, turns metres into radians.
        Expr::WithinCircle { point, metres } => format!(
            "{{\"$geoWithin\": {{\"$centerSphere\": [{point}[\"coordinates\"], {metres} / 6378100]}}}}"
        ),
        Expr::WithinArea(p) => format!("{{\"$geoWithin\": {{\"$geometry\": {p}}}}}"),
        Expr::Intersects(p) => format!("{{\"$geoIntersects\": {{\"$geometry\": {p}}}}}"),
        Expr::Below(n) => format!("{{\"$lt\": {n}}}"),
        Expr::NotEqual(p) => format!("{{\"$ne\": {p}}}"),
        Expr::HeldByNone(tests) => {
            let pairs: Vec<(String, String)> = tests
                .iter()
                .map(|(k, e)| (k.clone(), expr(lang, e)))
                .collect();
            format!("{{\"$not\": {{\"$elemMatch\": {}}}}}", object(&pairs))
        }
        Expr::NewId if lang == Lang::Python => "ObjectId()".to_string(),
        Expr::NewId => "new ObjectId()".to_string(),
        // Now less the life, computed when the operation runs.
        Expr::Unexpired(n) => format!("{{\"$gt\": {}}}", alive_since(lang, *n)),
        Expr::RoomFor { max, list } => match lang {
            Lang::Python => format!("{{\"$lte\": {max} - len({list})}}"),
            _ => format!("{{\"$lte\": {max} - {list}.length}}"),
        },
        Expr::Items(list) => list.clone(),
        Expr::RoomIn { array, max, list } => {
            let size = format!(
                "{{\"$size\": {{\"$ifNull\": [{}, []]}}}}",
                q(&format!("${array}"))
            );
            match lang {
                Lang::Python => format!("{{\"$lte\": [{size}, {max} - len({list})]}}"),
                _ => format!("{{\"$lte\": [{size}, {max} - {list}.length]}}"),
            }
        }
        Expr::LiveRoomIn {
            array,
            field,
            seconds,
            max,
            list,
        } => {
            let live = super::pipeline::unexpired(array, field, &alive_since(lang, *seconds));
            let size = format!("{{\"$size\": {live}}}");
            match (lang, list) {
                (_, None) => format!("{{\"$lte\": [{size}, {}]}}", max.saturating_sub(1)),
                (Lang::Python, Some(list)) => {
                    format!("{{\"$lte\": [{size}, {max} - len({list})]}}")
                }
                (_, Some(list)) => format!("{{\"$lte\": [{size}, {max} - {list}.length]}}"),
            }
        }
        Expr::OfItems {
            list,
            field,
            function,
            bson_type,
        } => in_figure_type(
            lang,
            of_items(lang, list, field, *function),
            *function,
            bson_type,
        ),
        Expr::OwnValue {
            param,
            field,
            function,
            bson_type,
        } => in_figure_type(lang, format!("{param}[{}]", q(field)), *function, bson_type),
        Expr::Above(n) => format!("{{\"$gt\": {n}}}"),
        Expr::AtLeast(p) => format!("{{\"$gte\": {p}}}"),
        Expr::Under(p) => format!("{{\"$lt\": {p}}}"),
        Expr::KeyInWindow { from, to, unit } => {
            format!(
                "{{\"$gte\": {}, \"$lt\": {to}}}",
                truncated(lang, from, unit)
            )
        }
        // The value of `"$expr"`: `{"$lt": ["$used", "$quota"]}`.
        Expr::ElementFields {
            array,
            tests,
            compares,
        } => {
            let spell = spell(lang);
            super::pipeline::any_element(&spell, array, tests, compares)
        }
        Expr::Fields(t, a, b) => format!(
            "{{{}: [{}, {}]}}",
            q(t.operator()),
            q(&format!("${a}")),
            q(&format!("${b}"))
        ),
        Expr::Added {
            test,
            path,
            amount,
            negative,
            value,
        } => format!(
            "{{{}: [{{{}: [{}, {amount}]}}, {}]}}",
            q(test.operator()),
            q(if *negative { "$subtract" } else { "$add" }),
            q(&format!("${path}")),
            literal(lang, value)
        ),
        Expr::Test(t, v) => {
            let v = literal(lang, v);
            match t {
                crate::model::Test::Eq => v,
                t => format!("{{{}: {v}}}", q(t.operator())),
            }
        }
        Expr::Missing => match lang {
            Lang::Python => "{\"$exists\": False}".to_string(),
            _ => "{\"$exists\": false}".to_string(),
        },
        Expr::In(p) => format!("{{\"$in\": {p}}}"),
        Expr::IdIs(p) => format!("{{\"_id\": {p}}}"),
        Expr::Pair(k, v) => format!("{{\"$elemMatch\": {{\"k\": {k}, \"v\": {v}}}}}"),
        Expr::Range(a, b) => format!("{{\"$gte\": {a}, \"$lt\": {b}}}"),
        Expr::IdsFrom { step, path } => match lang {
            Lang::Python => format!("{{\"$in\": _ids({step}, {})}}", q(path)),
            _ => format!("{{\"$in\": ids({step}, {})}}", q(path)),
        },
        Expr::IdsFromAll(all) => format!(
            "{{\"$in\": {}}}",
            super::pipeline::ids_together(
                if lang == Lang::Python { "_ids" } else { "ids" },
                lang == Lang::Python,
                all
            )
        ),
        // The subtree's root and every node found below it.
        Expr::SubtreeIds { step, into } => {
            let below = q(&format!("{into}._id"));
            match lang {
                Lang::Python => {
                    format!("{{\"$in\": _ids({step}, \"_id\") + _ids({step}, {below})}}")
                }
                _ => format!("{{\"$in\": ids({step}, \"_id\").concat(ids({step}, {below}))}}"),
            }
        }
        Expr::FieldOf { param, field } => format!("{param}[{}]", q(field)),
        Expr::InsertedId { step } => match lang {
            Lang::Python => format!("{step}[\"inserted_id\"]"),
            _ => format!("{step}.insertedId"),
        },
        // The document as inserted: with the id the insert gave it.
        Expr::Inserted { param, step } => match lang {
            Lang::Python => format!("{{**{param}, \"_id\": {step}[\"inserted_id\"]}}"),
            _ => format!("{{...{param}, _id: {step}.insertedId}}"),
        },
        Expr::WithFields { param, fields } => {
            let set = fields
                .iter()
                .map(|(k, e)| format!("{}: {}", q(k), expr(lang, e)));
            let spread = match lang {
                Lang::Python => format!("**{param}"),
                _ => format!("...{param}"),
            };
            format!(
                "{{{}}}",
                std::iter::once(spread)
                    .chain(set)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        Expr::Doc(fields) => object(
            &fields
                .iter()
                .map(|(k, e)| (k.clone(), expr(lang, e)))
                .collect::<Vec<_>>(),
        ),
        Expr::EmptyList => "[]".to_string(),
        Expr::After {
            param, descending, ..
        } => {
            let op = if *descending { "$lt" } else { "$gt" };
            format!("{{{}: {param}}}", q(op))
        }
    }
}

/// The value a condition compares with, in `lang`.
fn literal(lang: Lang, v: &crate::model::Literal) -> String {
    match v {
        crate::model::Literal::Number(n) => number(*n),
        crate::model::Literal::Text(w) => q(w),
        crate::model::Literal::Bool(b) => match (lang, b) {
            (Lang::Python, true) => "True".into(),
            (Lang::Python, false) => "False".into(),
            (_, b) => b.to_string(),
        },
        // The caller's amount, or a value the caller passes for the
        // test: the parameter of that name.
        crate::model::Literal::Amount(a) | crate::model::Literal::Param(a) => a.clone(),
        // Another field, as an aggregation expression: `pipeline::test`
        // and `$expr` spell one so (a filter compares two fields with
        // `Expr::Fields`, under `$expr`).
        crate::model::Literal::Field(f) => q(&format!("${f}")),
    }
}

/// A number as JavaScript and Python both read it: a whole one without a
/// fraction (`-1`, not `-1.0`).
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

/// The condition of `when` as an expression of the language.
fn condition(lang: Lang, when: &When) -> String {
    match (when, lang) {
        (When::Flag(p), _) => p.clone(),
        (When::AtMost { step, n }, Lang::Python) => format!("len({step}) <= {n}"),
        (When::AtMost { step, n }, _) => format!("{step}.length <= {n}"),
        (When::IdsAtMost { ids, n }, Lang::Python) => {
            format!(
                "len({}) <= {n}",
                super::pipeline::ids_together("_ids", true, ids)
            )
        }
        (When::IdsAtMost { ids, n }, _) => {
            format!(
                "{}.length <= {n}",
                super::pipeline::ids_together("ids", false, ids)
            )
        }
        (When::Any { step, path }, Lang::Python) => format!("len(_ids({step}, {})) > 0", q(path)),
        (When::Any { step, path }, _) => format!("ids({step}, {}).length > 0", q(path)),
        (
            When::Full {
                step,
                path,
                n,
                size,
                ..
            },
            Lang::Python,
        ) => format!(
            "any({} for d in {step})",
            full_test(lang, "d", path, size.as_deref(), *n)
        ),
        (
            When::Full {
                step,
                path,
                n,
                size,
                ..
            },
            _,
        ) => format!(
            "{step}.some((d) => {})",
            full_test(lang, "d", path, size.as_deref(), *n)
        ),
        (
            When::Matched {
                step,
                changed: true,
                ..
            },
            Lang::Python,
        ) => {
            format!("{step}[\"modified_count\"] > 0")
        }
        (
            When::Matched {
                step,
                changed: true,
                ..
            },
            _,
        ) => format!("{step}.modifiedCount > 0"),
        (
            When::Matched {
                step, or_deleted, ..
            },
            Lang::Python,
        ) => match or_deleted {
            Some(d) => format!("({d}[\"deleted_count\"] > 0 or {step}[\"matched_count\"] > 0)"),
            None => format!("{step}[\"matched_count\"] > 0"),
        },
        (
            When::Matched {
                step, or_deleted, ..
            },
            _,
        ) => match or_deleted {
            Some(d) => format!("({d}.deletedCount > 0 || {step}.matchedCount > 0)"),
            None => format!("{step}.matchedCount > 0"),
        },
        (
            When::DeletedAll {
                delete,
                found,
                holds,
            },
            Lang::Python,
        ) => format!(
            "{delete}[\"deleted_count\"] {} len({found})",
            if *holds { "==" } else { "<" }
        ),
        (
            When::DeletedAll {
                delete,
                found,
                holds,
            },
            _,
        ) => format!(
            "{delete}.deletedCount {} {found}.length",
            if *holds { "===" } else { "<" }
        ),
    }
}

/// Whether the document `var` holds its array at `path` full (`n`
/// items): its length, or the stored length that came back under `size`
/// beside an array returned filtered.
fn full_test(lang: Lang, var: &str, path: &str, size: Option<&str>, n: u64) -> String {
    match (size, lang) {
        (Some(k), Lang::Python) => format!("({var}.get({}) or 0) >= {n}", q(k)),
        (Some(k), _) => format!("({var}[{}] || 0) >= {n}", q(k)),
        (None, Lang::Python) => format!("len({var}.get({}) or []) >= {n}", q(path)),
        (None, _) => format!("({var}[{}] || []).length >= {n}", q(path)),
    }
}

/// What a step that did not run gives: no documents, no write, or a
/// count of none.
fn skipped(lang: Lang, step: &StepCode) -> &'static str {
    if step.counts {
        return "0";
    }
    match (step.action, lang) {
        (Action::Find | Action::GraphLookup, _) => "[]",
        (_, Lang::Python) => "None",
        _ => "null",
    }
}

/// The name a step run once for each full parent gives that parent, in
/// each language's loop (not a parameter's: those come from the model's
/// names and never start with an underscore).
const EACH_PARENT: &str = "_parent";

/// An outlier's rest read once for each parent whose array is full
/// (`When::Full { each }`): the step as it runs for one parent, its ids
/// taken from that parent alone (`{"parcel": {"$in": _ids([_parent], "_id")}}`);
/// the array's path and its threshold select the parents.
fn for_each_parent(step: &StepCode) -> Option<(StepCode, &str, &str, u64, Option<&str>)> {
    let Some(When::Full {
        step: from,
        path,
        n,
        each: true,
        size,
    }) = &step.when
    else {
        return None;
    };
    let mut one = step.clone();
    for (_, e) in &mut one.filter {
        if let Expr::IdsFrom { step: s, path: p } = e
            && s == from
        {
            *e = Expr::IdsFrom {
                step: format!("[{EACH_PARENT}]"),
                path: p.clone(),
            };
        }
    }
    one.when = None;
    Some((one, from.as_str(), path.as_str(), *n, size.as_deref()))
}

/// The feed merged: the timeline's items and the items read at feed time,
/// in the feed's order, cut to its limit.
fn merged(lang: Lang, m: &Merge, indent: &str) -> String {
    let sort: Vec<String> = m
        .sort
        .iter()
        .map(|(p, d)| match lang {
            Lang::Python => format!("({}, {d})", q(p)),
            _ => format!("[{}, {d}]", q(p)),
        })
        .collect();
    let (timeline, path, items, limit) = (&m.timeline, q(&m.path), &m.items, m.limit);
    let (name, says) = (&m.name, &m.says);
    // A list per document: its own array and its own children apart
    // (those whose reference is its id), each cut to the limit.
    if let Some(by) = &m.each {
        let by = q(by);
        return match lang {
            Lang::Python => format!(
                "{indent}# {says}, at most {limit} each\n\
                 {indent}{name} = [_newest(t.get({path}, []) + [x for x in {items} if x.get({by}) == t[\"_id\"]], [{}], {limit}) for t in {timeline}]\n",
                sort.join(", ")
            ),
            _ => format!(
                "{indent}// {says}, at most {limit} each\n\
                 {indent}const {name} = {timeline}.map((t) => newest((t[{path}] || []).concat({items}.filter((x) => String(x[{by}]) === String(t._id))), [{}], {limit}));\n",
                sort.join(", ")
            ),
        };
    }
    match lang {
        Lang::Python => format!(
            "{indent}# {says}, at most {limit}\n\
             {indent}{name} = _newest([x for t in {timeline} for x in t.get({path}, [])] + {items}, [{}], {limit})\n",
            sort.join(", ")
        ),
        _ => format!(
            "{indent}// {says}, at most {limit}\n\
             {indent}const {name} = newest({timeline}.flatMap((t) => t[{path}] || []).concat({items}), [{}], {limit});\n",
            sort.join(", ")
        ),
    }
}

/// The new parent's path, as the items of the array rebased: objects
/// (the path the parent keeps) or their ids. An empty path when the new
/// parent was not found (the node becomes a root).
fn new_path(lang: Lang, from: &NewPath, objects: bool) -> String {
    match (from, lang, objects) {
        (NewPath::Field { step, field }, Lang::Python, true) => {
            format!("({step}[0][{}] if {step} else [])", q(field))
        }
        (NewPath::Field { step, field }, Lang::Python, false) => format!(
            "([n[\"_id\"] for n in {step}[0][{}]] if {step} else [])",
            q(field)
        ),
        (NewPath::Field { step, field }, _, true) => {
            format!("({step}.length ? {step}[0][{}] : [])", q(field))
        }
        (NewPath::Field { step, field }, _, false) => format!(
            "({step}.length ? {step}[0][{}].map((n) => n._id) : [])",
            q(field)
        ),
        (NewPath::Walk { step, into, parent }, Lang::Python, _) => {
            format!("_path_ids({step}, {}, {})", q(into), q(parent))
        }
        (NewPath::Walk { step, into, parent }, _, _) => {
            format!("pathIds({step}, {}, {})", q(into), q(parent))
        }
    }
}

/// `{"$concatArrays": [new path, the array from the node on]}`: the
/// moved node and what is below it in the path stay, what was above it is
/// the new parent's path.
fn rebased(lang: Lang, path: &str, node: &str, objects: bool, from: &NewPath) -> String {
    let array = q(&format!("${path}"));
    // The items' ids by `$map` rather than `"$path._id"`, which not every
    // MongoDB-compatible server resolves through an array in an
    // expression (SecantusDB gives null, and the path became null).
    let ids = if objects {
        format!("{{\"$map\": {{\"input\": {array}, \"in\": \"$$this._id\"}}}}")
    } else {
        array.clone()
    };
    format!(
        "{{\"$concatArrays\": [{}, {{\"$slice\": [{array}, {{\"$indexOfArray\": [{ids}, {node}]}}, {{\"$size\": {array}}}]}}]}}",
        new_path(lang, from, objects)
    )
}

/// A bulk write's objects (`elems(find_order, "items")`), and one object's
/// value at a path (`e["product"]["_id"]`, negated for an amount taken
/// away).
fn each_parts(lang: Lang, each: &EachCode) -> (String, String, Vec<Each>) {
    let source = match (&each.source, lang) {
        (EachSource::Step { step, elements }, Lang::Python) => {
            format!("_elems({step}, {})", q(elements))
        }
        (EachSource::Step { step, elements }, _) => format!("elems({step}, {})", q(elements)),
        (EachSource::Touched { ids, path, groups }, Lang::Python) => {
            format!("_touched({ids}, {}, {groups})", q(path))
        }
        (EachSource::Touched { ids, path, groups }, _) => {
            format!("touched({ids}, {}, {groups})", q(path))
        }
        (EachSource::Param(p), _) => p.clone(),
    };
    let at = |path: &str| {
        let mut out = "e".to_string();
        for seg in path.split('.') {
            let _ = write!(out, "[{}]", q(seg));
        }
        out
    };
    let none = if lang == Lang::Python { "None" } else { "null" };
    let incs = each
        .amounts
        .iter()
        .map(|(field, from, negative)| {
            let sign = if *negative { "-" } else { "" };
            ("$inc", field.clone(), format!("{sign}{}", at(from)))
        })
        .chain(each.sets.iter().map(|(field, from, zero_as)| {
            let value = match (lang, zero_as) {
                (Lang::Python, None) => format!("{}.get({})", at_parent(from), q(leaf(from))),
                (_, None) => format!("({} ?? {none})", at(from)),
                // A recount: 0 where the parent has no child left, in
                // the validator's type (the update is then a pipeline).
                (Lang::Python, Some(t)) => super::pipeline::converted(
                    t,
                    &format!("{}.get({}, 0)", at_parent(from), q(leaf(from))),
                ),
                (_, Some(t)) => super::pipeline::converted(t, &format!("({} ?? 0)", at(from))),
            };
            let op = if zero_as.is_some() { RECOUNT } else { "$set" };
            (op, field.clone(), value)
        }))
        .collect();
    (source, at(&each.id), incs)
}

/// A find of the first document per value of `step.group`: `$match` the
/// filter `f`, `$sort` in the step's order, `$group` by the path keeping
/// the `$first` of each projected field (under its last segment) and the
/// step's totals (`group_sums`).
fn group_pipeline(lang: Lang, step: &StepCode, f: &str) -> String {
    let _ = lang;
    let by = step.group.as_deref().unwrap_or("_id");
    let sort = sort_pairs(step);
    let mut group = vec![("_id".to_string(), q(&format!("${by}")))];
    for p in &step.projection {
        group.push((
            leaf(p).to_string(),
            object(&[("$first".to_string(), q(&format!("${p}")))]),
        ));
    }
    // Totals of each group: a count (`$sum: 1`) or a field's sum.
    for (name, field) in &step.group_sums {
        let of = field
            .as_ref()
            .map_or_else(|| "1".to_string(), |x| q(&format!("${x}")));
        group.push((name.clone(), object(&[("$sum".to_string(), of)])));
    }
    let mut stages = vec![object(&[("$match".to_string(), f.to_string())])];
    // A `$sort` needs a key: a group of totals keeps no first.
    if !sort.is_empty() {
        stages.push(object(&[("$sort".to_string(), object(&sort))]));
    }
    stages.push(object(&[("$group".to_string(), object(&group))]));
    format!("[{}]", stages.join(", "))
}

/// A find that computes figures per group on the server: `$match` the
/// filter `f`, `$sort` by the date when a first or a last needs the
/// order, `$group` by the parent (and by the date truncated to the
/// window's unit, `$dateTrunc`) with each figure, `$sort` by the group.
fn figures_pipeline(step: &StepCode, f: &str) -> String {
    let Some(g) = &step.figures else {
        return String::new();
    };
    let mut id = vec![(leaf(&g.by).to_string(), q(&format!("${}", g.by)))];
    if let Some(per) = &g.per {
        let trunc = object(&[
            ("date".to_string(), q(&format!("${}", per.field))),
            ("unit".to_string(), q(&per.unit)),
        ]);
        id.push((
            leaf(&per.field).to_string(),
            object(&[("$dateTrunc".to_string(), trunc)]),
        ));
    }
    let mut group = vec![("_id".to_string(), object(&id))];
    for x in &g.figures {
        use crate::model::AggregateFn as F;
        let op = match x.function {
            F::Count => "$sum",
            F::Sum => "$sum",
            F::Min => "$min",
            F::Max => "$max",
            F::Avg => "$avg",
            F::First => "$first",
            F::Last => "$last",
        };
        let of = x
            .field
            .as_ref()
            .map_or_else(|| "1".to_string(), |p| q(&format!("${p}")));
        group.push((x.name.clone(), object(&[(op.to_string(), of)])));
    }
    let mut stages = vec![object(&[("$match".to_string(), f.to_string())])];
    // Children in buckets: each one unwound and tested by the filter again
    // (a bucket the window picked holds children outside it).
    if let Some(array) = &g.unwind {
        stages.push(object(&[("$unwind".to_string(), q(&format!("${array}")))]));
        stages.push(object(&[("$match".to_string(), f.to_string())]));
    }
    let ordered = g.figures.iter().any(|x| {
        matches!(
            x.function,
            crate::model::AggregateFn::First | crate::model::AggregateFn::Last
        )
    });
    if let (true, Some(per)) = (ordered, &g.per) {
        stages.push(object(&[(
            "$sort".to_string(),
            object(&[(per.field.clone(), "1".to_string())]),
        )]));
    }
    stages.push(object(&[("$group".to_string(), object(&group))]));
    let mut by = vec![(format!("_id.{}", leaf(&g.by)), "1".to_string())];
    if let Some(per) = &g.per {
        by.push((format!("_id.{}", leaf(&per.field)), "1".to_string()));
    }
    stages.push(object(&[("$sort".to_string(), object(&by))]));
    format!("[{}]", stages.join(", "))
}

/// The field a count of an array's elements (`elements_pipeline` with
/// `counts`) returns its number in; no document when nothing matched.
const COUNTED: &str = "count";

/// A find of an array's matching elements on their own: `$match` the
/// documents (`f`, the element tests in one `$elemMatch`), `$unwind` the
/// array, `$match` each element by the same tests, `$sort`, `$limit`, and
/// keep the element (and the document's `_id`), or the read's fields.
fn elements_pipeline(lang: Lang, step: &StepCode, f: &str) -> String {
    let Some(array) = &step.elements else {
        return String::new();
    };
    let each = StepCode {
        elem_match: None,
        ..step.clone()
    };
    let first = match &step.bucket_keyset {
        Some(k) => bucket_match(lang, step, k),
        None => f.to_string(),
    };
    let mut stages = vec![object(&[("$match".to_string(), first)])];
    // Children in buckets: the newest buckets a page of them needs first
    // (page N of a `skip` read needs N times as many), then their children.
    if let Some(b) = &step.bucket_order {
        if !b.sort.is_empty() {
            let pairs: Vec<(String, String)> = b
                .sort
                .iter()
                .map(|(p, d)| (p.clone(), d.to_string()))
                .collect();
            stages.push(object(&[("$sort".to_string(), object(&pairs))]));
        }
        if let Some(l) = b.limit {
            let n = match &step.skip {
                Some(page) => format!("{page} * {l}"),
                None => l.to_string(),
            };
            stages.push(object(&[("$limit".to_string(), n)]));
        }
    }
    for outer in &step.elements_within {
        stages.push(object(&[("$unwind".to_string(), q(&format!("${outer}")))]));
    }
    // A keyset page of bucketed children: each child's position in its
    // bucket comes with it, the last of the cursor's keys.
    let unwind = match &step.bucket_keyset {
        Some(k) => object(&[
            ("path".to_string(), q(&format!("${array}"))),
            ("includeArrayIndex".to_string(), q(&k.position)),
        ]),
        None => q(&format!("${array}")),
    };
    stages.push(object(&[("$unwind".to_string(), unwind)]));
    stages.push(object(&[("$match".to_string(), filter(lang, &each))]));
    // A count of them: one number, the elements that passed.
    if step.counts {
        stages.push(object(&[("$count".to_string(), q(COUNTED))]));
        return format!("[{}]", stages.join(", "));
    }
    let sort = sort_pairs(step);
    if !sort.is_empty() {
        stages.push(object(&[("$sort".to_string(), object(&sort))]));
    }
    if let (Some(page), Some(limit)) = (&step.skip, step.limit) {
        stages.push(object(&[(
            "$skip".to_string(),
            format!("({page} - 1) * {limit}"),
        )]));
    }
    if let Some(l) = step.limit {
        stages.push(object(&[("$limit".to_string(), l.to_string())]));
    }
    let keep = match &step.bucket_keyset {
        // The cursor of the next page: the last child's date, its
        // bucket's `_id` (kept by `$project`) and its position.
        Some(k) => {
            let mut keep: Vec<(String, String)> = if step.projection.is_empty() {
                vec![(array.clone(), "1".to_string())]
            } else {
                step.projection
                    .iter()
                    .map(|p| (p.clone(), "1".to_string()))
                    .collect()
            };
            keep.push((k.position.clone(), "1".to_string()));
            object(&keep)
        }
        None => {
            projection(lang, step).unwrap_or_else(|| object(&[(array.clone(), "1".to_string())]))
        }
    };
    stages.push(object(&[("$project".to_string(), keep)]));
    format!("[{}]", stages.join(", "))
}

/// The first `$match` of a keyset page of bucketed children: the
/// buckets the filter picks (the cursor's test of the children is no test
/// of a bucket: a bucket holds no child's position), and, with the cursor,
/// only those whose range can hold a child past it. Under `$and`: the
/// filter tests the same date already (the window's bounds).
fn bucket_match(lang: Lang, step: &StepCode, k: &super::code::BucketKeyset) -> String {
    let mut plain = step.clone();
    plain
        .filter
        .retain(|(_, e)| !matches!(e, Expr::After { .. }));
    let f = filter(lang, &plain);
    let Some(c) = &k.buckets else {
        return f;
    };
    let (past, id_op) = if c.descending {
        ("$lt", "$lte")
    } else {
        ("$gt", "$gte")
    };
    let param = &c.at;
    let test = match (&c.bucket, &c.unit) {
        // A count bucket: its first date before the cursor's, or equal
        // to it and the bucket not past the cursor's (a bucket of that
        // date alone after it holds nothing past the cursor).
        (Some(bucket), _) => object(&[(
            "$or".to_string(),
            format!(
                "[{}, {}]",
                object(&[(
                    c.field.clone(),
                    object(&[(past.to_string(), param.clone())])
                )]),
                object(&[
                    (c.field.clone(), param.clone()),
                    (
                        "_id".to_string(),
                        object(&[(id_op.to_string(), bucket.clone())])
                    ),
                ])
            ),
        )]),
        // A time bucket: its start at or before the cursor's date, or at
        // or after the start of the cursor's unit for an ascending sort.
        (None, Some(unit)) => {
            let (op, value) = if c.descending {
                ("$lte", param.clone())
            } else {
                ("$gte", truncated(lang, param, unit))
            };
            object(&[(c.field.clone(), object(&[(op.to_string(), value)]))])
        }
        (None, None) => return f,
    };
    let cursor = match lang {
        Lang::Python => format!("{{}} if {param} is None else {test}"),
        _ => format!("({param} === undefined || {param} === null ? {{}} : {test})"),
    };
    object(&[("$and".to_string(), format!("[{f}, {cursor}]"))])
}

/// The field a `near` read's documents get their distance in, in metres.
pub(super) const DISTANCE_FIELD: &str = "_distance";

/// A `near` read as an aggregation led by `$geoNear`, which returns the
/// documents nearest first on MongoDB and on the test server alike (the
/// server's `$near` with a limit returns neither the nearest nor an
/// ordered list: scripts/testenv/probe_server_features.py). `$geoNear`
/// must be the pipeline's first stage; the read's other filters are its
/// `query`, `key` names the indexed field (a collection may have several
/// geo indexes), and the limit is a `$limit` after it. None for a read
/// with no `near`.
fn near_pipeline(lang: Lang, step: &StepCode) -> Option<String> {
    let (path, point, metres) = step.filter.iter().find_map(|(p, e)| match e {
        Expr::Near { point, metres } => Some((p, point, *metres)),
        _ => None,
    })?;
    let mut rest = step.clone();
    rest.filter.retain(|(_, e)| !matches!(e, Expr::Near { .. }));
    let spherical = if lang == Lang::Python { "True" } else { "true" };
    let near = object(&[
        ("near".into(), point.clone()),
        ("key".into(), q(path)),
        ("distanceField".into(), q(DISTANCE_FIELD)),
        ("maxDistance".into(), metres.to_string()),
        ("query".into(), filter(lang, &rest)),
        ("spherical".into(), spherical.into()),
    ]);
    let mut stages = vec![object(&[("$geoNear".into(), near)])];
    if !step.sort.is_empty() {
        let sort = sort_pairs(step);
        stages.push(object(&[("$sort".into(), object(&sort))]));
    }
    if let (Some(page), Some(limit)) = (&step.skip, step.limit) {
        stages.push(object(&[(
            "$skip".into(),
            format!("({page} - 1) * {limit}"),
        )]));
    }
    if let Some(l) = step.limit {
        stages.push(object(&[("$limit".into(), l.to_string())]));
    }
    if !step.projection.is_empty() {
        let mut keep: Vec<(String, String)> = step
            .projection
            .iter()
            .map(|p| (p.clone(), "1".to_string()))
            .collect();
        keep.push((DISTANCE_FIELD.to_string(), "1".to_string()));
        stages.push(object(&[("$project".into(), object(&keep))]));
    }
    Some(format!("[{}]", stages.join(", ")))
}

/// An update of a bulk write per object: the operator, the field
/// written, and the expression of its value in the object `e`.
type Each = (&'static str, String, String);

/// The operator of a bulk write's recounted figure (`Each`): a `$set` in
/// an update pipeline, whose values the server converts.
const RECOUNT: &str = "pipeline $set";

/// `e` down to the object holding `path`'s last segment (Python's
/// `.get` on it gives `None` where the object lacks it).
fn at_parent(path: &str) -> String {
    let mut out = "e".to_string();
    if let Some((head, _)) = path.rsplit_once('.') {
        for seg in head.split('.') {
            let _ = write!(out, "[{}]", q(seg));
        }
    }
    out
}

fn leaf(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The step's sort as an object's pairs: each path and its direction.
fn sort_pairs(step: &StepCode) -> Vec<(String, String)> {
    step.sort
        .iter()
        .map(|(p, d)| (p.clone(), d.to_string()))
        .collect()
}

fn object(pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return "{}".into();
    }
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}: {v}", q(k)))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

/// The filter of one `updateOne` of a bulk write: the document's own id
/// (`id`, from the objects it walks), after the step's other tests (the
/// tenant the operation names, so that an id of another tenant's document
/// matches nothing). The step's own `_id` test (`$in` the ids of an
/// earlier step) is what `id` stands for, one at a time.
fn each_filter(lang: Lang, step: &StepCode, id: String) -> String {
    let mut pairs: Vec<(String, String)> = step
        .filter
        .iter()
        .filter(|(p, e)| p != "_id" && !matches!(e, Expr::After { .. }))
        .map(|(p, e)| (p.clone(), expr(lang, e)))
        .collect();
    pairs.push(("_id".to_string(), id));
    object(&pairs)
}

/// The filter's tests under `array.` as a condition on one element, for
/// `$pull` (`Update::PullWhere`).
fn elements_tested(lang: Lang, step: &StepCode, array: &str) -> String {
    let inside = format!("{array}.");
    let tests: Vec<(String, String)> = step
        .filter
        .iter()
        .filter_map(|(p, e)| {
            p.strip_prefix(&inside)
                .map(|f| (f.to_string(), expr(lang, e)))
        })
        .collect();
    object(&and_repeated(tests))
}

fn filter(lang: Lang, step: &StepCode) -> String {
    let plain: Vec<(String, String)> = step
        .filter
        .iter()
        .filter(|(_, e)| !matches!(e, Expr::After { .. }))
        .map(|(p, e)| (p.clone(), expr(lang, e)))
        .collect();
    let plain = and_repeated(merged_operators(elem_matched(step, plain)));
    // A keyset page's range joins the filter only when the caller passes
    // the last key seen: the first page has none.
    let after: Vec<String> = step
        .filter
        .iter()
        .filter_map(|(p, e)| match e {
            Expr::After {
                param,
                id,
                descending,
                then,
            } => {
                // The tuple comparison: past the first key, or equal to it
                // and past the second, …, or equal to every key and past
                // the `_id` (in the last key's direction).
                let op = |desc: bool| if desc { "$lt" } else { "$gt" };
                let mut keys = vec![(p.clone(), param.clone(), *descending)];
                keys.extend(then.iter().cloned());
                let last_desc = keys.last().is_some_and(|k| k.2);
                if let Some(id) = id {
                    keys.push(("_id".to_string(), id.clone(), last_desc));
                }
                let branches: Vec<String> = (0..keys.len())
                    .map(|i| {
                        let mut pairs: Vec<(String, String)> = keys[..i]
                            .iter()
                            .map(|(k, v, _)| (k.clone(), v.clone()))
                            .collect();
                        let (k, v, d) = &keys[i];
                        pairs.push((k.clone(), object(&[(op(*d).to_string(), v.clone())])));
                        object(&pairs)
                    })
                    .collect();
                let range = match branches.as_slice() {
                    [one] => one.clone(),
                    _ => object(&[("$or".to_string(), format!("[{}]", branches.join(", ")))]),
                };
                Some(match lang {
                    Lang::Python => format!("**({{}} if {param} is None else {range})"),
                    _ => format!("...({param} === undefined || {param} === null ? {{}} : {range})"),
                })
            }
            _ => None,
        })
        .collect();
    if after.is_empty() {
        return object(&plain);
    }
    let mut items: Vec<String> = plain
        .iter()
        .map(|(k, v)| format!("{}: {v}", q(k)))
        .collect();
    items.extend(after);
    format!("{{{}}}", items.join(", "))
}

/// A filter's pairs with each path once: the tests of a path named more
/// than once (a parameter's equality and a condition's `$ne` on
/// `status`) would be one key of the object written twice, and the
/// language keeps only the last. They go into one `$and`, each test its
/// own object, where the first of them stood.
/// The tests of `step.elem_match`'s elements as one `$elemMatch` where
/// the first of them stood: every one holds for the same element.
fn elem_matched(step: &StepCode, pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let Some(array) = &step.elem_match else {
        return pairs;
    };
    let inside = format!("{array}.");
    // A position (`members.49`: the bounded array's room) tests the array,
    // not the element: it stays outside.
    let element = |p: &str| {
        p.strip_prefix(&inside)
            .filter(|r| {
                !r.split('.')
                    .next()
                    .unwrap_or("")
                    .bytes()
                    .all(|c| c.is_ascii_digit())
            })
            .map(str::to_string)
    };
    let tests: Vec<(String, String)> = pairs
        .iter()
        .filter_map(|(p, v)| element(p).map(|r| (r, v.clone())))
        .collect();
    let mut one = Some((
        array.clone(),
        object(&[(
            "$elemMatch".to_string(),
            object(&and_repeated(merged_operators(tests))),
        )]),
    ));
    let mut out = Vec::new();
    for (p, v) in pairs {
        if element(&p).is_none() {
            out.push((p, v));
        } else if let Some(m) = one.take() {
            out.push(m);
        }
    }
    out
}

/// The tests of a path named more than once, each an operator object
/// with operators of its own (a count's window `{"$gte": a, "$lt": b}` and
/// the life `{"$gt": since}` on the same date), as one operator object
/// where the first stood: `$and` cannot go inside `$elemMatch` on the test
/// server ("unknown operator: $and"), and one object says the same. Tests
/// that share an operator or are not operator objects are left to
/// `and_repeated`.
fn merged_operators(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    for (i, (p, v)) in pairs.iter().enumerate() {
        if done.contains(&i) {
            continue;
        }
        let same: Vec<usize> = (i..pairs.len()).filter(|&j| pairs[j].0 == *p).collect();
        let parts: Option<Vec<(Vec<String>, &str)>> = same
            .iter()
            .map(|&j| operator_keys(&pairs[j].1).map(|k| (k, pairs[j].1.as_str())))
            .collect();
        let merged = parts.filter(|ps| ps.len() > 1).and_then(|ps| {
            let mut keys: Vec<&String> = ps.iter().flat_map(|(k, _)| k).collect();
            let n = keys.len();
            keys.sort();
            keys.dedup();
            (keys.len() == n).then(|| {
                let inner: Vec<&str> = ps.iter().map(|(_, v)| &v[1..v.len() - 1]).collect();
                format!("{{{}}}", inner.join(", "))
            })
        });
        match merged {
            Some(m) => {
                done.extend(&same);
                out.push((p.clone(), m));
            }
            None => out.push((p.clone(), v.clone())),
        }
    }
    out
}

/// The top-level keys of `v` when it is an object whose every key is an
/// operator (`{"$gte": a, "$lt": b}`); `None` otherwise.
fn operator_keys(v: &str) -> Option<Vec<String>> {
    let inner = v.strip_prefix('{')?.strip_suffix('}')?;
    let (mut depth, mut quoted, mut escaped, mut start) = (0i32, false, false, 0usize);
    let mut keys = Vec::new();
    let mut take = |part: &str| -> Option<()> {
        let key = part.trim().split_once(':')?.0.trim();
        let key = key.strip_prefix('"')?.strip_suffix('"')?;
        key.starts_with('$').then(|| keys.push(key.to_string()))
    };
    for (i, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' | '[' | '(' if !quoted => depth += 1,
            '}' | ']' | ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                take(&inner[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
    }
    take(&inner[start..])?;
    Some(keys)
}

fn and_repeated(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let repeated = |p: &str| pairs.iter().filter(|(q, _)| q == p).count() > 1;
    let tests: Vec<String> = pairs
        .iter()
        .filter(|(p, _)| repeated(p))
        .map(|(p, v)| object(&[(p.clone(), v.clone())]))
        .collect();
    if tests.is_empty() {
        return pairs;
    }
    let mut out = Vec::new();
    let mut and = Some(("$and".to_string(), format!("[{}]", tests.join(", "))));
    for (p, v) in &pairs {
        if !repeated(p) {
            out.push((p.clone(), v.clone()));
        } else if let Some(a) = and.take() {
            out.push(a);
        }
    }
    out
}

/// `filter, update` of an update step, in `lang`: the arguments of the
/// undo of an earlier write of a compensated group (compensate.rs).
pub(super) fn filter_and_update(lang: Lang, step: &StepCode) -> String {
    format!("{}, {}", filter(lang, step), update_doc(lang, step))
}

fn update_doc(lang: Lang, step: &StepCode) -> String {
    update_doc_with(lang, step, &[])
}

/// How the update pipelines and the filtered arrays spell values in
/// `lang`: its expressions, and now less a life.
fn spell(lang: Lang) -> super::pipeline::Spell<'static> {
    super::pipeline::Spell {
        expr: match lang {
            Lang::Python => &|e| expr(Lang::Python, e),
            Lang::Mongosh => &|e| expr(Lang::Mongosh, e),
            Lang::Node => &|e| expr(Lang::Node, e),
        },
        since: match lang {
            Lang::Python => &|n| alive_since(Lang::Python, n),
            Lang::Mongosh => &|n| alive_since(Lang::Mongosh, n),
            Lang::Node => &|n| alive_since(Lang::Node, n),
        },
        falsy: if lang == Lang::Python {
            "False"
        } else {
            "false"
        },
        ids: if lang == Lang::Python { "_ids" } else { "ids" },
        null: if lang == Lang::Python { "None" } else { "null" },
    }
}

/// The update document, with `incs` (a bulk write's amounts of one
/// object) first under `$inc`, beside the step's other updates.
fn update_doc_with(lang: Lang, step: &StepCode, incs: &[Each]) -> String {
    // Elements of an array changed or dropped, with the figures kept over
    // it computed again: an update pipeline of its own (pipeline.rs).
    let spell = spell(lang);
    if let Some(stages) = super::pipeline::elements(&spell, step) {
        return stages;
    }
    // A push whose first or last follows a date: a pipeline too.
    if let Some(stages) = super::pipeline::pushed(&spell, step, incs) {
        return stages;
    }
    // Figures set to those of no element: one `$set` stage, whose 0 is
    // converted to the type the validator keeps the figure in.
    if step
        .updates
        .iter()
        .any(|u| matches!(u, Update::Reset { .. }))
    {
        let null = if lang == Lang::Python { "None" } else { "null" };
        let set: Vec<(String, String)> = step
            .updates
            .iter()
            .filter_map(|u| match u {
                Update::Reset {
                    path,
                    function,
                    bson_type,
                } => Some((
                    path.clone(),
                    super::pipeline::none_of(*function, bson_type.as_deref(), null),
                )),
                _ => None,
            })
            .collect();
        return format!("[{}]", object(&[("$set".to_string(), object(&set))]));
    }
    // A rebase is an update pipeline: one `$set` stage (values set beside
    // it are literals there).
    if step
        .updates
        .iter()
        .any(|u| matches!(u, Update::Rebase { .. }))
    {
        let mut set = Vec::new();
        for u in &step.updates {
            match u {
                Update::Rebase {
                    path,
                    node,
                    objects,
                    from,
                } => set.push((path.clone(), rebased(lang, path, node, *objects, from))),
                Update::Set(p, e) => {
                    set.push((p.clone(), format!("{{\"$literal\": {}}}", expr(lang, e))))
                }
                Update::Unset(p) => set.push((p.clone(), "\"$$REMOVE\"".into())),
                _ => {}
            }
        }
        return format!("[{}]", object(&[("$set".to_string(), object(&set))]));
    }
    // Figures recounted: one `$set` stage of converted values.
    if incs.iter().any(|(op, _, _)| *op == RECOUNT) {
        let set: Vec<(String, String)> = incs
            .iter()
            .map(|(_, path, value)| (path.clone(), value.clone()))
            .collect();
        return format!("[{}]", object(&[("$set".to_string(), object(&set))]));
    }
    let mut groups: Vec<(&str, Vec<(String, String)>)> = Vec::new();
    let mut add = |op: &'static str, path: &str, value: String| match groups
        .iter_mut()
        .find(|(o, _)| *o == op)
    {
        Some((_, v)) => v.push((path.to_string(), value)),
        None => groups.push((op, vec![(path.to_string(), value)])),
    };
    for (op, path, value) in incs {
        add(op, path, value.clone());
    }
    for u in &step.updates {
        match u {
            Update::Set(p, e) => add("$set", p, expr(lang, e)),
            Update::Unset(p) => add("$unset", p, "\"\"".into()),
            Update::SetOnInsert(p, e) => add("$setOnInsert", p, expr(lang, e)),
            Update::Inc(p, e) => add("$inc", p, expr(lang, e)),
            Update::Min(p, e) => add("$min", p, expr(lang, e)),
            Update::Max(p, e) => add("$max", p, expr(lang, e)),
            Update::Push {
                path,
                item,
                sort,
                slice,
            } => {
                // A batch's list is pushed as it is; a batch's ids (a list
                // already); one child in a list of one.
                let each = match item {
                    Expr::Items(list) => list.clone(),
                    Expr::InsertedIds { .. } => expr(lang, item),
                    e => format!("[{}]", expr(lang, e)),
                };
                let mut parts = vec![("$each".to_string(), each)];
                if let Some((field, dir)) = sort {
                    let s = if field.is_empty() {
                        dir.to_string()
                    } else {
                        format!("{{{}: {dir}}}", q(field))
                    };
                    parts.push(("$sort".into(), s));
                }
                if let Some(k) = slice {
                    parts.push(("$slice".into(), k.to_string()));
                }
                add("$push", path, object(&parts));
            }
            Update::AddToSet(p, e) => add("$addToSet", p, expr(lang, e)),
            Update::Pull(p, e) => add("$pull", p, expr(lang, e)),
            Update::PullWhere(p) => add("$pull", p, elements_tested(lang, step, p)),
            Update::Rebase { .. }
            | Update::SetElements { .. }
            | Update::DropElements(..)
            | Update::PullExpired { .. }
            | Update::Recompute { .. }
            | Update::Reset { .. } => {}
        }
    }
    object(
        &groups
            .into_iter()
            .map(|(op, pairs)| (op.to_string(), object(&pairs)))
            .collect::<Vec<_>>(),
    )
}

fn projection(lang: Lang, step: &StepCode) -> Option<String> {
    (!step.projection.is_empty() || !step.slices.is_empty()).then(|| {
        let mut pairs: Vec<(String, String)> = step
            .projection
            .iter()
            .filter(|p| !step.slices.iter().any(|x| x.path == **p))
            .map(|p| (p.clone(), "1".to_string()))
            .collect();
        pairs.extend(
            step.slices
                .iter()
                .map(|x| (x.path.clone(), slice(lang, x, &step.slice_filters))),
        );
        // The read's figures over the array's live elements that pass
        // their tests, beside it.
        pairs.extend(step.slices.iter().flat_map(|x| {
            x.figures
                .iter()
                .map(move |f| (f.name.clone(), slice_figure(lang, &x.path, f)))
        }));
        // The stored length beside an array returned filtered: whether
        // the parent is full.
        pairs.extend(step.slices.iter().filter(|x| x.stored).map(|x| {
            (
                x.stored_key(),
                format!(
                    "{{\"$size\": {{\"$ifNull\": [{}, []]}}}}",
                    q(&format!("${}", x.path))
                ),
            )
        }));
        object(&pairs)
    })
}

/// Now less `seconds`, computed when the operation runs: the moment
/// before which an element or a document of an entity that lives that
/// long has expired (`Expr::Unexpired`). The client's clock: a find's
/// projection has no `$$NOW` on every server (SecantusDB: "undefined
/// variable"), and one clock serves reads and writes alike.
fn alive_since(lang: Lang, seconds: u64) -> String {
    match lang {
        Lang::Python => format!("_alive_since({seconds})"),
        _ => format!("new Date(Date.now() - {seconds} * 1000)"),
    }
}

/// An embedded array cut to its first `limit` elements: as stored
/// (`$slice`), or in an order of their own fields (`$sortArray`, then
/// `$firstN`; a document without the array gives an empty one).
/// `{"$slice": [expr, n]}` would not do in a find's projection: there
/// `$slice` is the projection operator, whose list is `[skip, limit]`.
fn slice(lang: Lang, x: &crate::design::ArraySlice, tests: &[(String, Expr)]) -> String {
    let plain = x.filter.is_empty() && !x.count;
    if let (true, true, None, Some(n)) = (plain, x.sort.is_empty(), &x.unexpired, x.limit) {
        return format!("{{\"$slice\": {n}}}");
    }
    let mut input = format!("{{\"$ifNull\": [{}, []]}}", q(&format!("${}", x.path)));
    // Only the elements that pass the tests of their own fields (an
    // outlier's children of one kind), before the order and the cut.
    let spell = spell(lang);
    if let Some(cond) = super::pipeline::elements_passing(&spell, tests, &x.path, "this") {
        input = format!("{{\"$filter\": {{\"input\": {input}, \"cond\": {cond}}}}}");
    }
    // Now less the life, computed when the operation runs, as a filter's
    // test of the date is (`Expr::Unexpired`): a find's projection has no
    // `$$NOW` on every server (SecantusDB: "undefined variable"). Before
    // the count: an expired element is counted no more than returned.
    if let Some(e) = &x.unexpired {
        let since = alive_since(lang, e.seconds);
        input = format!(
            "{{\"$filter\": {{\"input\": {input}, \"cond\": {{\"$gt\": [{}, {since}]}}}}}}",
            q(&format!("$$this.{}", e.field)),
        );
    }
    if x.count {
        return format!("{{\"$size\": {input}}}");
    }
    if !x.sort.is_empty() {
        let by: Vec<(String, String)> = x
            .sort
            .iter()
            .map(|(p, d)| (p.clone(), d.to_string()))
            .collect();
        input = format!(
            "{{\"$sortArray\": {{\"input\": {input}, \"sortBy\": {}}}}}",
            object(&by)
        );
    }
    match x.limit {
        Some(n) => format!("{{\"$firstN\": {{\"input\": {input}, \"n\": {n}}}}}"),
        None => input,
    }
}

/// The `arrayFilters` of an update of array elements: one document per
/// identifier (`e`), holding every test of that identifier, a path tested
/// twice under one `$and` as in the filter. MongoDB refuses an identifier
/// declared by two documents (`[{"e._id": x}, {"e.name": y}]`), and a
/// document with the same key twice keeps only one of the tests.
fn array_filters(lang: Lang, step: &StepCode) -> Option<String> {
    (!step.array_filters.is_empty()).then(|| {
        let mut by_name: Vec<(&str, Vec<(String, String)>)> = Vec::new();
        for (p, e) in &step.array_filters {
            let name = p.split('.').next().unwrap_or(p);
            let pair = (p.clone(), expr(lang, e));
            match by_name.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pairs)) => pairs.push(pair),
                None => by_name.push((name, vec![pair])),
            }
        }
        let items: Vec<String> = by_name
            .into_iter()
            .map(|(_, pairs)| object(&and_repeated(pairs)))
            .collect();
        format!("[{}]", items.join(", "))
    })
}

/// A figure of an array's elements computed in a find's projection:
/// the elements still alive that pass the figure's test (`$filter`), then
/// their number (`$size`) or the sum, average, least or greatest of a
/// field of theirs (over `$map`: SecantusDB gives nothing for a path
/// through an array).
fn slice_figure(lang: Lang, array: &str, f: &crate::design::SliceFigure) -> String {
    let mut input = format!("{{\"$ifNull\": [{}, []]}}", q(&format!("${array}")));
    if let Some(t) = &f.test {
        let tests = [(
            format!("{array}.{}", t.path),
            Expr::Test(t.test, t.value.clone()),
        )];
        if let Some(cond) = super::pipeline::elements_passing(&spell(lang), &tests, array, "this") {
            input = format!("{{\"$filter\": {{\"input\": {input}, \"cond\": {cond}}}}}");
        }
    }
    if let Some(e) = &f.unexpired {
        let since = alive_since(lang, e.seconds);
        input = format!(
            "{{\"$filter\": {{\"input\": {input}, \"cond\": {{\"$gt\": [{}, {since}]}}}}}}",
            q(&format!("$$this.{}", e.field)),
        );
    }
    let values = |field: &str| {
        format!(
            "{{\"$map\": {{\"input\": {input}, \"as\": \"e\", \"in\": {}}}}}",
            q(&format!("$$e.{field}"))
        )
    };
    let op = match f.function {
        crate::model::AggregateFn::Sum => "$sum",
        crate::model::AggregateFn::Avg => "$avg",
        crate::model::AggregateFn::Min => "$min",
        crate::model::AggregateFn::Max => "$max",
        _ => return format!("{{\"$size\": {input}}}"),
    };
    match &f.field {
        Some(field) => format!("{{{}: {}}}", q(op), values(field)),
        None => format!("{{\"$size\": {input}}}"),
    }
}

/// `.skip((page - 1) * limit)` of a read paged by `skip` (the same in
/// every language): page 1 skips nothing.
fn skip(step: &StepCode) -> String {
    match (&step.skip, step.limit) {
        (Some(page), Some(limit)) => format!(".skip(({page} - 1) * {limit})"),
        _ => String::new(),
    }
}

/// Comment lines that say what the step does and what it costs.
fn step_comment(step: &StepCode, comment: &str, indent: &str) -> String {
    let mut out = String::new();
    if !step.purpose.is_empty() {
        let _ = writeln!(out, "{indent}{comment} {}", c(&step.purpose));
    }
    match (&step.index, step.action) {
        (Some(i), _) => {
            let _ = writeln!(
                out,
                "{indent}{comment} index: {}.{}",
                c(&step.collection),
                c(i)
            );
        }
        (None, Action::InsertOne | Action::InsertMany) => {}
        (None, _) => {
            let _ = writeln!(out, "{indent}{comment} index: _id or none (see the design)");
        }
    }
    // A batch into buckets: how its chunks go in.
    if let Some(ch) = &step.chunks {
        let _ = writeln!(
            out,
            "{indent}{comment} {}: in chunks of at most {}, one upsert each, in order; a chunk goes into a bucket with room for all of it, else {}.",
            c(&ch.list),
            ch.per,
            if ch.close.is_some() {
                "opens the next page"
            } else {
                "opens another (the children of one batch share the bucket's key the caller passes: a batch over two is two calls)"
            }
        );
        if ch.close.is_some() {
            let _ = writeln!(
                out,
                "{indent}{comment} A chunk that opened a page closes the buckets it passed over ({} raised to {}), so that no later child lands behind the newer page.",
                c(ch.close.as_deref().unwrap_or_default()),
                ch.per
            );
        }
    }
    // Where a bucket's page number comes from, and what a page taken does.
    if let (Some(page), Some((parent, _))) = (&step.next_page, step.filter.first()) {
        let _ = writeln!(
            out,
            "{indent}{comment} {}: the number of {} buckets of this {} so far (count them by {}), or any lower number, never a higher one.",
            c(page),
            c(&step.collection),
            c(parent),
            c(parent)
        );
        let _ = writeln!(
            out,
            "{indent}{comment} A page another writer opened first moves the upsert on to the next page, so the child joins that writer's bucket."
        );
    }
    if matches!(
        step.action,
        Action::UpdateMany | Action::DeleteMany | Action::BulkWrite
    ) {
        let _ = writeln!(
            out,
            "{indent}{comment} touches about {} documents at the model's typical cardinality",
            format_count(step.documents)
        );
    }
    out
}

pub fn format_count(x: f64) -> String {
    let n = x.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The name the retry of a page taken gives the page it tries
/// (`StepCode::next_page`); `code::ident` keeps parameters off it.
const PAGE_TRIED: &str = "page_tried";

/// A count bucket's upsert that retries a page another writer took
/// (`StepCode::next_page`), outside a transaction (in one, the duplicate
/// key aborts it, and the transaction run again finds that writer's
/// bucket): the page parameter and the step with the page it tries in
/// its place.
fn page_retry(step: &StepCode, session: bool) -> Option<(String, StepCode)> {
    let page = step.next_page.as_ref().filter(|_| !session)?;
    let mut tried = step.clone();
    for u in &mut tried.updates {
        if let Update::SetOnInsert(path, e) = u
            && path == crate::design::PAGE
        {
            *e = Expr::Param(PAGE_TRIED.to_string());
        }
    }
    Some((page.clone(), tried))
}

/// The page a batch's chunk is tried at in the helper that upserts the
/// chunks (`_into_buckets`, `intoBuckets`): the caller's page, moved on
/// past each page a chunk opened. `code::ident` keeps parameters off it.
const PAGE_AT: &str = "page_at";

/// A batch's upsert into buckets, a chunk at a time (`StepCode::chunks`):
/// the step with the page it opens taken from the helper (`PAGE_AT`), and
/// the caller's page parameter (none for a time bucket).
fn chunked(step: &StepCode) -> Option<(StepCode, Option<String>)> {
    step.chunks.as_ref()?;
    let mut s = step.clone();
    let mut page = None;
    for u in &mut s.updates {
        if let Update::SetOnInsert(path, e) = u
            && path == crate::design::PAGE
        {
            if let Expr::Param(p) = e {
                page = Some(p.clone());
            }
            *e = Expr::Param(PAGE_AT.to_string());
        }
    }
    if s.next_page.is_some() {
        s.next_page = Some(PAGE_AT.to_string());
    }
    Some((s, page))
}

/// The close of the buckets a batch's chunk passed over when it opened a
/// page (`code::Chunks::close`): every other bucket of the parent (the
/// step's first test) with room gets its counter of places taken raised
/// to the bound, so that no later child lands in it, behind the newer
/// page. `updateMany` (`update_many`) of `coll`, the opened bucket's id
/// named `opened`.
fn close_buckets(lang: Lang, step: &StepCode, counter: &str, per: u64) -> Option<String> {
    let (parent, test) = step.filter.first()?;
    let filter = object(&[
        (parent.clone(), expr(lang, test)),
        (counter.to_string(), format!("{{\"$lt\": {per}}}")),
        ("_id".to_string(), "{\"$ne\": opened}".to_string()),
    ]);
    let update = object(&[(
        "$max".to_string(),
        object(&[(counter.to_string(), per.to_string())]),
    )]);
    Some(format!("{filter}, {update}"))
}

fn js_step(lang: Lang, step: &StepCode, db: &str, session: bool, indent: &str) -> String {
    let outer = step;
    let each = for_each_parent(step);
    let step = each.as_ref().map_or(step, |(s, ..)| s);
    let chunks = chunked(step);
    let step = chunks.as_ref().map_or(step, |(s, _)| s);
    let retry = page_retry(step, session);
    let step = retry.as_ref().map_or(step, |(_, s)| s);
    let coll = match lang {
        Lang::Node => format!("{db}.collection({})", q(&step.collection)),
        _ => format!("{db}.getCollection({})", q(&step.collection)),
    };
    let aw = if lang == Lang::Node { "await " } else { "" };
    let mut opts: Vec<(String, String)> = Vec::new();
    if session && lang == Lang::Node {
        opts.push(("session".into(), "session".into()));
    }
    let f = filter(lang, step);
    let key = &step.key;
    let call = match step.action {
        // Elements counted on the server: its one document's number, or
        // 0 when nothing matched (no document at all).
        Action::Find if step.counts && step.elements.is_some() => {
            let pipeline = elements_pipeline(lang, step, &f);
            let none = object(&[(COUNTED.to_string(), "0".to_string())]);
            match lang {
                Lang::Node => format!(
                    "{coll}.aggregate({pipeline}{}).toArray().then((r) => (r[0] || {none})[{}])",
                    opt_arg(&opts),
                    q(COUNTED)
                ),
                _ => format!(
                    "({coll}.aggregate({pipeline}{}).toArray()[0] || {none})[{}]",
                    opt_arg(&opts),
                    q(COUNTED)
                ),
            }
        }
        Action::Find if step.counts => format!("{coll}.countDocuments({f}{})", opt_arg(&opts)),
        Action::Find if step.elements.is_some() => format!(
            "{coll}.aggregate({}{}).toArray()",
            elements_pipeline(lang, step, &f),
            opt_arg(&opts)
        ),
        Action::Find if step.figures.is_some() => format!(
            "{coll}.aggregate({}{}).toArray()",
            figures_pipeline(step, &f),
            opt_arg(&opts)
        ),
        Action::Find if step.group.is_some() => format!(
            "{coll}.aggregate({}{}).toArray()",
            group_pipeline(lang, step, &f),
            // The Node.js session in a transaction (mongosh's is in its
            // database, `sdb`: `opts` holds none).
            opt_arg(&opts)
        ),
        Action::Find if near_pipeline(lang, step).is_some() => format!(
            "{coll}.aggregate({}{}).toArray()",
            near_pipeline(lang, step).unwrap_or_default(),
            if lang == Lang::Node && !opts.is_empty() {
                format!(", {}", object(&opts))
            } else {
                String::new()
            }
        ),
        Action::Find => {
            let mut s = match (lang, projection(lang, step)) {
                (Lang::Node, Some(p)) => {
                    let mut o = opts.clone();
                    o.insert(0, ("projection".into(), p));
                    format!("{coll}.find({f}, {})", object(&o))
                }
                (Lang::Node, None) if !opts.is_empty() => {
                    format!("{coll}.find({f}, {})", object(&opts))
                }
                (_, Some(p)) => format!("{coll}.find({f}, {p})"),
                _ => format!("{coll}.find({f})"),
            };
            if !step.sort.is_empty() {
                let sort = sort_pairs(step);
                let _ = write!(s, ".sort({})", object(&sort));
            }
            s.push_str(&skip(step));
            match (step.limit, &step.limit_param) {
                (Some(l), Some(p)) => {
                    let _ = write!(s, ".limit({p} ?? {l})");
                }
                (Some(l), None) => {
                    let _ = write!(s, ".limit({l})");
                }
                _ => {}
            }
            format!("{s}.toArray()")
        }
        Action::GraphLookup => {
            let pipeline = graph_pipeline(lang, step);
            match lang {
                Lang::Node if !opts.is_empty() => {
                    format!("{coll}.aggregate({pipeline}, {}).toArray()", object(&opts))
                }
                _ => format!("{coll}.aggregate({pipeline}).toArray()"),
            }
        }
        Action::InsertOne => format!(
            "{coll}.insertOne({}{})",
            insert_arg(lang, step),
            opt_arg(&opts)
        ),
        Action::InsertMany if step.skip_duplicates => format!(
            "insertNew({coll}, {}{})",
            step.insert.as_deref().unwrap_or("[]"),
            opt_arg(&opts)
        ),
        Action::InsertMany => format!(
            "{coll}.insertMany({}{})",
            step.insert.as_deref().unwrap_or("[]"),
            opt_arg(&opts)
        ),
        Action::UpdateOne | Action::UpdateMany | Action::Upsert => {
            let method = if step.action == Action::UpdateMany {
                "updateMany"
            } else {
                "updateOne"
            };
            if step.action == Action::Upsert {
                opts.push(("upsert".into(), "true".into()));
            }
            if let Some(af) = array_filters(lang, step) {
                opts.push(("arrayFilters".into(), af));
            }
            let call = format!(
                "{coll}.{method}({f}, {}{})",
                update_doc(lang, step),
                opt_arg(&opts)
            );
            if step.retry_duplicate {
                format!("retryDuplicate(() => {call})")
            } else {
                call
            }
        }
        // The child as it was, its projection only, as a list of 0 or 1:
        // what a figure over a subset moves by (`Expr::Moved`).
        Action::FindOneAndUpdate if step.before => {
            if let Some(p) = projection(lang, step) {
                opts.push(("projection".into(), p));
            }
            let (call, list) = match lang {
                Lang::Node => {
                    opts.push(("returnDocument".into(), "\"before\"".into()));
                    (String::new(), ".then((d) => (d ? [d] : []))")
                }
                _ => {
                    opts.push(("returnNewDocument".into(), "false".into()));
                    (String::new(), "")
                }
            };
            let one = format!(
                "{call}{coll}.findOneAndUpdate({f}, {}{})",
                update_doc(lang, step),
                opt_arg(&opts)
            );
            match lang {
                Lang::Node => format!("{one}{list}"),
                _ => format!("[{one}].filter((d) => d)"),
            }
        }
        Action::FindOneAndUpdate => {
            // The claim's order picks the one document; the new version
            // comes back, so the caller has what it claimed.
            let sort = sort_pairs(step);
            if !sort.is_empty() {
                opts.push(("sort".into(), object(&sort)));
            }
            match lang {
                Lang::Node => opts.push(("returnDocument".into(), "\"after\"".into())),
                _ => opts.push(("returnNewDocument".into(), "true".into())),
            }
            format!(
                "{coll}.findOneAndUpdate({f}, {}{})",
                update_doc(lang, step),
                opt_arg(&opts)
            )
        }
        Action::DeleteOne => format!("{coll}.deleteOne({f}{})", opt_arg(&opts)),
        Action::DeleteMany => format!("{coll}.deleteMany({f}{})", opt_arg(&opts)),
        // One `updateOne` per object, each by its own amount; none when
        // there is nothing to write (a bulk write of no operations fails).
        Action::BulkWrite => match &step.each {
            Some(each) => {
                let (source, id, incs) = each_parts(lang, each);
                let one = format!(
                    "({{updateOne: {{filter: {}, update: {}}}}})",
                    each_filter(lang, step, id),
                    update_doc_with(lang, step, &incs)
                );
                format!(
                    "((ops) => ops.length > 0 ? {coll}.bulkWrite(ops{}) : null)({source}.map((e) => {one}))",
                    opt_arg(&opts)
                )
            }
            None => "null".to_string(),
        },
    };
    let call = match &retry {
        Some((page, _)) => format!("nextFreePage({page}, ({PAGE_TRIED}) => {call})"),
        None => call,
    };
    // A batch: the chunks upserted one by one, each page a chunk opened
    // closing the buckets it passed over.
    let call = match (&outer.chunks, &chunks) {
        (Some(ch), Some((_, page))) => {
            let close = ch
                .close
                .as_ref()
                .and_then(|counter| close_buckets(lang, step, counter, ch.per))
                .map_or("null".to_string(), |args| {
                    // The session only (not the upsert's option).
                    let sess: Vec<(String, String)> = opts
                        .iter()
                        .filter(|(k, _)| k == "session")
                        .cloned()
                        .collect();
                    format!("(opened) => {coll}.updateMany({args}{})", opt_arg(&sess))
                });
            format!(
                "intoBuckets({}, {}, {}, ({}, {PAGE_AT}) => {call}, {close})",
                ch.list,
                ch.per,
                page.as_deref().unwrap_or("null"),
                super::plan::CHUNK
            )
        }
        _ => call,
    };
    // Only when the write before matched nothing (no room in the parent).
    let call = match &step.fallback_of {
        Some(prev) if step.fallback_chained => {
            format!("{prev} !== null && {prev}.matchedCount === 0 ? {aw}{call} : null")
        }
        Some(prev) => format!("{prev}.matchedCount === 0 ? {aw}{call} : null"),
        None => format!("{aw}{call}"),
    };
    let call = match (&step.when, &each) {
        (Some(w), _) => format!("{} ? {call} : {}", condition(lang, w), skipped(lang, step)),
        // One query for each full parent: in Node side by side, each
        // awaited (`call` starts with its `await`).
        (None, Some((_, from, path, n, size))) => {
            let full = format!(
                "{from}.filter(({EACH_PARENT}) => {})",
                full_test(lang, EACH_PARENT, path, *size, *n)
            );
            if lang == Lang::Node {
                format!("(await Promise.all({full}.map(async ({EACH_PARENT}) => {call}))).flat()")
            } else {
                format!("{full}.flatMap(({EACH_PARENT}) => {call})")
            }
        }
        (None, None) => call,
    };
    format!(
        "{}{indent}const {key} = {call};\n",
        step_comment(outer, "//", indent)
    )
}

/// A bounded push (its filter asks that the array's last slot be free)
/// with no fallback after it: when it matches nothing the array is full,
/// and the operation must fail rather than carry on with the other writes
/// (in a transaction, failing aborts them). The array's path and the
/// step's key, for the error.
fn full_guard<'s>(op: &'s OpCode, step: &'s StepCode) -> Option<(&'s str, &'s str)> {
    // An upsert's `$inc` run again after its guarded `$push` matched
    // nothing: no element held the key, and the push found no parent
    // with room (none with that id, in another tenant, or a full array).
    // The same error as the plain insert's, never a silent return.
    if step.fallback_chained
        && let Some(push) = op
            .steps
            .iter()
            .find(|s| Some(s.key.as_str()) == step.fallback_of.as_deref())
        && let Some(array) = push.filter.iter().find_map(|(p, e)| match e {
            Expr::NotEqual(_) => Some(p.rsplit_once('.').map_or(p.as_str(), |(a, _)| a)),
            Expr::HeldByNone(_) => Some(p.as_str()),
            _ => None,
        })
    {
        return Some((array, step.key.as_str()));
    }
    let (path, e) = step.filter.iter().find(|(_, e)| {
        matches!(
            e,
            Expr::Missing | Expr::RoomIn { .. } | Expr::LiveRoomIn { .. }
        )
    })?;
    let followed = op
        .steps
        .iter()
        .any(|s| s.fallback_of.as_deref() == Some(step.key.as_str()));
    if followed {
        return None;
    }
    let array = match e {
        Expr::RoomIn { array, .. } | Expr::LiveRoomIn { array, .. } => array.as_str(),
        _ => path.rsplit_once('.').map_or(path.as_str(), |(a, _)| a),
    };
    Some((array, step.key.as_str()))
}

/// The error of a find whose document a later write copies from, when it
/// found none (`StepCode::must_find`).
fn found_nothing(op: &OpCode, step: &StepCode) -> Option<String> {
    step.must_find.then(|| {
        if let Some((parent, tenant)) = &step.not_in_tenant {
            return q(&format!(
                "{}: no {parent} with that id in this {tenant}",
                op.name
            ));
        }
        q(&format!(
            "{}: no {} with that id to copy from",
            op.name, step.collection
        ))
    })
}

fn js_guard(op: &OpCode, step: &StepCode, indent: &str) -> String {
    if let Some(message) = found_nothing(op, step) {
        return format!(
            "{indent}if ({}.length === 0) throw new Error({message});\n",
            step.key
        );
    }
    if let Some(message) = fails_when_nothing(op, step) {
        return format!(
            "{indent}if ({}) throw new Error({message});\n",
            matched_nothing(Lang::Node, step.action, &step.key)
        );
    }
    match full_guard(op, step) {
        // A step that may not have run (its `when`) has no result to test.
        Some((array, key)) => format!(
            "{indent}if ({}{key}.matchedCount === 0) throw new Error({});
",
            if step.when.is_some() || step.fallback_of.is_some() {
                format!("{key} && ")
            } else {
                String::new()
            },
            q(&full_message(&step.collection, array))
        ),
        None => String::new(),
    }
}

/// The test, in `lang`, that the write whose result is `result` matched
/// nothing: a claim found no document, a delete deleted none, an update
/// matched none.
pub(super) fn matched_nothing(lang: Lang, action: Action, result: &str) -> String {
    match (action, lang) {
        (Action::FindOneAndUpdate, Lang::Python) => format!("{result} is None"),
        (Action::FindOneAndUpdate, _) => format!("{result} === null"),
        (Action::DeleteOne | Action::DeleteMany, Lang::Python) => {
            format!("{result}[\"deleted_count\"] == 0")
        }
        (Action::DeleteOne | Action::DeleteMany, _) => format!("{result}.deletedCount === 0"),
        (_, Lang::Python) => format!("{result}[\"matched_count\"] == 0"),
        (_, _) => format!("{result}.matchedCount === 0"),
    }
}

/// A conditional write or a claim whose model says `otherwise: fail`:
/// when it matches nothing the operation throws, naming itself, rather
/// than return a result the caller must inspect. (An upsert always
/// writes; a step that runs only under a condition may not have run.)
fn fails_when_nothing(op: &OpCode, step: &StepCode) -> Option<String> {
    (step.otherwise == Some(crate::model::Otherwise::Fail)
        && step.when.is_none()
        && step.action != Action::Upsert
        && step.action != Action::Find)
        .then(|| {
            let what = if step.action == Action::FindOneAndUpdate {
                format!("no {} to claim", step.collection)
            } else {
                format!("no {} met the conditions of the write", step.collection)
            };
            // The same write may also guard an array's room: a full array
            // is not the business condition (a night sold out), and the
            // caller must be told it may be either (audit45 gap 4).
            let what = match full_guard(op, step) {
                Some((array, _)) => format!("{what}, or its {array} is full"),
                None => what,
            };
            q(&format!("{}: nothing matched ({what})", op.name))
        })
}

fn full_message(collection: &str, array: &str) -> String {
    format!("no {collection} with room in {array}: it does not exist or {array} is full")
}

fn py_guard(op: &OpCode, step: &StepCode, indent: &str) -> String {
    if let Some(message) = found_nothing(op, step) {
        return format!(
            "{indent}if not {}:\n{indent}    raise RuntimeError({message})\n",
            step.key
        );
    }
    if let Some(message) = fails_when_nothing(op, step) {
        return format!(
            "{indent}if {}:\n{indent}    raise RuntimeError({message})\n",
            matched_nothing(Lang::Python, step.action, &step.key)
        );
    }
    match full_guard(op, step) {
        Some((array, key)) => format!(
            "{indent}if {}{key}[\"matched_count\"] == 0:\n{indent}    raise RuntimeError({})\n",
            if step.when.is_some() || step.fallback_of.is_some() {
                format!("{key} is not None and ")
            } else {
                String::new()
            },
            q(&full_message(&step.collection, array))
        ),
        None => String::new(),
    }
}

/// `[{"$match": filter}, {"$graphLookup": {…}}]`, the same literal in
/// every language.
fn graph_pipeline(lang: Lang, step: &StepCode) -> String {
    let g = step.graph.as_ref();
    let field = |x: Option<&String>| q(x.map_or("_id", String::as_str));
    let walk = object(&[
        ("from".into(), q(&step.collection)),
        (
            "startWith".into(),
            q(&format!("${}", g.map_or("_id", |g| g.start_with.as_str()))),
        ),
        ("connectFromField".into(), field(g.map(|g| &g.connect_from))),
        ("connectToField".into(), field(g.map(|g| &g.connect_to))),
        ("as".into(), field(g.map(|g| &g.into))),
        ("maxDepth".into(), g.map_or(0, |g| g.max_depth).to_string()),
    ]);
    format!(
        "[{{\"$match\": {}}}, {{\"$graphLookup\": {walk}}}]",
        filter(lang, step)
    )
}

fn opt_arg(opts: &[(String, String)]) -> String {
    if opts.is_empty() {
        String::new()
    } else {
        format!(", {}", object(opts))
    }
}

/// The feed merged, when the operation reads one from a timeline.
fn merge_lines(lang: Lang, op: &OpCode, indent: &str) -> String {
    let mut out = op
        .merge
        .as_ref()
        .map(|m| merged(lang, m, indent))
        .unwrap_or_default();
    if let Some(t) = &op.total {
        out.push_str(&total(lang, t, indent));
    }
    out
}

/// An outlier's children counted: each parent's array's matching
/// elements (counted on the server) plus those kept apart.
fn total(lang: Lang, t: &super::code::Total, indent: &str) -> String {
    let (name, holders, path, apart) = (&t.name, &t.holders, q(&t.path), &t.apart);
    match lang {
        Lang::Python => format!(
            "{indent}# the {} in all: in the arrays and kept apart\n\
             {indent}{name} = sum(t.get({path}) or 0 for t in {holders}) + {apart}\n",
            script::comment(&t.path)
        ),
        _ => format!(
            "{indent}// the {} in all: in the arrays and kept apart\n\
             {indent}const {name} = {holders}.reduce((n, t) => n + (t[{path}] || 0), 0) + {apart};\n",
            script::comment(&t.path)
        ),
    }
}

/// The document an insert writes: its parameter, or the one it builds.
fn insert_arg(lang: Lang, step: &StepCode) -> String {
    match (&step.insert_doc, &step.insert) {
        (Some(doc), _) => expr(lang, doc),
        (None, Some(p)) => p.clone(),
        (None, None) => "{}".to_string(),
    }
}

fn returns(op: &OpCode) -> String {
    let mut keys: Vec<String> = op
        .steps
        .iter()
        .map(|s| format!("{}: {}", q(&s.key), s.key))
        .collect();
    if let Some(m) = &op.merge {
        keys.push(format!("{}: {}", q(&m.name), m.name));
    }
    if let Some(t) = &op.total {
        keys.push(format!("{}: {}", q(&t.name), t.name));
    }
    format!("{{{}}}", keys.join(", "))
}

fn js_header(op: &OpCode, comment: &str) -> String {
    let mut out = format!(
        "{comment} {} — {} per second in this mix\n",
        c(&op.name),
        trim_rate(op.rate)
    );
    for w in &op.warnings {
        let _ = writeln!(out, "{comment} WARNING: {}", c(w));
    }
    if op.transaction {
        let _ = writeln!(
            out,
            "{comment} These writes run in one transaction, retried on a transient error."
        );
    }
    out
}

/// A rate with three significant digits for small values (0.000123), at
/// most three decimals otherwise.
pub(super) fn trim_rate(r: f64) -> String {
    let decimals = if r > 0.0 && r < 1.0 {
        (2.0 - r.log10().floor()).clamp(3.0, 12.0) as usize
    } else {
        3
    };
    let s = format!("{r:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A mongosh transaction around `body` (statements that end by setting
/// `out`), returning `out`: mongosh has no callback that retries a
/// transaction as the drivers' `withTransaction` does, so a loop runs it
/// again on an error labelled `TransientTransactionError` (a write conflict
/// with another transaction), ten attempts with a pause of 0.1 s more each
/// time, and commits again on `UnknownTransactionCommitResult`. Whether an
/// error carries a label: the server's reply lists them in `errorLabels`,
/// the driver's errors answer `hasErrorLabel`. Each line at `indent`.
pub(super) fn mongosh_transaction(body: &[&str], indent: &str) -> String {
    let mut lines: Vec<String> = vec![
        "const session = db.getMongo().startSession();".into(),
        "const labelled = (e, label) => Boolean(e) && ((Array.isArray(e.errorLabels) && e.errorLabels.includes(label)) || (typeof e.hasErrorLabel === \"function\" && e.hasErrorLabel(label)));".into(),
        "try {".into(),
        "  for (let attempt = 1; ; attempt++) {".into(),
        "    session.startTransaction();".into(),
        "    try {".into(),
    ];
    lines.extend(body.iter().map(|l| format!("      {l}")));
    for l in [
        "      for (let commit = 1; ; commit++) {",
        "        try {",
        "          session.commitTransaction();",
        "          break;",
        "        } catch (e) {",
        "          if (commit < 5 && labelled(e, \"UnknownTransactionCommitResult\")) continue;",
        "          throw e;",
        "        }",
        "      }",
        "      return out;",
        "    } catch (e) {",
        "      try { session.abortTransaction(); } catch (_) {}",
        "      if (attempt < 10 && labelled(e, \"TransientTransactionError\")) {",
        "        sleep(100 * attempt);",
        "        continue;",
        "      }",
        "      throw e;",
        "    }",
        "  }",
        "} finally {",
        "  session.endSession();",
        "}",
    ] {
        lines.push(l.to_string());
    }
    lines.iter().map(|l| format!("{indent}{l}\n")).collect()
}

/// The operation's steps in mongosh or Node.js. The steps from a
/// `deleteMany` to its count-down run in a `try` whose `catch` recounts
/// the parents touched and throws again (recover.rs); their results are
/// declared before it, so the steps after can read them.
fn js_steps(lang: Lang, op: &OpCode, (db, session): (&str, bool), indent: &str) -> String {
    let rec = super::recover::recovery(op);
    let inner = format!("{indent}  ");
    let mut out = String::new();
    for (i, s) in op.steps.iter().enumerate() {
        let Some(r) = rec.as_ref().filter(|r| (r.first..=r.last).contains(&i)) else {
            out.push_str(&js_step(lang, s, db, session, indent));
            out.push_str(&js_guard(op, s, indent));
            continue;
        };
        if i == r.first {
            let keys: Vec<&str> = op.steps[r.first..=r.last]
                .iter()
                .map(|s| s.key.as_str())
                .collect();
            let _ = writeln!(
                out,
                "{indent}// steps {} to {}: a failure there leaves the parents' figures out of step: each parent touched has them read again from the children it has left, then the error is raised",
                r.first + 1,
                r.last + 1
            );
            let _ = writeln!(
                out,
                "{indent}let {};
{indent}try {{",
                keys.join(", ")
            );
        }
        let step = js_step(lang, s, db, session, &inner).replace(
            &format!("{inner}const {} = ", s.key),
            &format!("{inner}{} = ", s.key),
        );
        out.push_str(&step);
        out.push_str(&js_guard(op, s, &inner));
        if i == r.last {
            let _ = writeln!(out, "{indent}}} catch (e) {{");
            for s in &r.recount {
                out.push_str(&js_step(lang, s, db, session, &inner));
            }
            let _ = writeln!(out, "{inner}throw e;\n{indent}}}");
        }
    }
    out
}

/// The operation's steps in Python, the span of a `deleteMany` and its
/// count-down in a `try` as in [`js_steps`].
fn py_steps(op: &OpCode, session: bool, indent: &str) -> String {
    let rec = super::recover::recovery(op);
    let inner = format!("{indent}    ");
    let mut out = String::new();
    for (i, s) in op.steps.iter().enumerate() {
        let Some(r) = rec.as_ref().filter(|r| (r.first..=r.last).contains(&i)) else {
            out.push_str(&py_step(s, session, indent));
            out.push_str(&py_guard(op, s, indent));
            continue;
        };
        if i == r.first {
            let _ = writeln!(
                out,
                "{indent}# steps {} to {}: a failure there leaves the parents' figures out of step: each parent touched has them read again from the children it has left, then the error is raised\n{indent}try:",
                r.first + 1,
                r.last + 1
            );
        }
        out.push_str(&py_step(s, session, &inner));
        out.push_str(&py_guard(op, s, &inner));
        if i == r.last {
            let _ = writeln!(out, "{indent}except Exception:");
            for s in &r.recount {
                out.push_str(&py_step(s, session, &inner));
            }
            let _ = writeln!(out, "{inner}raise");
        }
    }
    out
}

/// The lines at the top of `op`'s function that refuse each amount it takes
/// that is not above 0, before any write (amount.rs says why).
fn amount_guards(lang: Lang, op: &OpCode, indent: &str) -> String {
    let mut out = String::new();
    for p in op.params.iter().filter(|p| p.kind == ParamKind::Amount) {
        let (f, n) = (q(&op.function), q(&p.name));
        let _ = match lang {
            Lang::Python => writeln!(out, "{indent}_must_be_positive({f}, {n}, {})", p.name),
            _ => writeln!(out, "{indent}mustBePositive({f}, {n}, {});", p.name),
        };
    }
    out
}

/// A mongosh function for the operation.
pub fn mongosh(op: &OpCode) -> String {
    let params: Vec<&str> = op.params.iter().map(|p| p.name.as_str()).collect();
    let mut out = js_header(op, "//");
    if op.transaction {
        // The session's database last: the atomic group's function passes
        // its own, to run this in its transaction (together.rs). Called
        // without it, the function runs in a transaction of its own, again
        // on a transient error (a write conflict with another transaction):
        // mongosh has no callback that retries as the drivers'
        // `withTransaction` does, so a loop does, and commits again when the
        // commit's outcome is unknown.
        let _ = writeln!(
            out,
            "function {}({}) {{",
            op.function,
            params
                .iter()
                .chain(&["sdb"])
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push_str("  if (sdb === undefined) {\n");
        let call = format!(
            "const out = {}({});",
            op.function,
            params
                .iter()
                .copied()
                .chain(["session.getDatabase(db.getName())"])
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push_str(&mongosh_transaction(&[call.as_str()], "    "));
        out.push_str("  }\n");
        out.push_str(&amount_guards(Lang::Mongosh, op, "  "));
        out.push_str(&js_steps(Lang::Mongosh, op, ("sdb", true), "  "));
        out.push_str(&merge_lines(Lang::Mongosh, op, "  "));
        let _ = writeln!(out, "  return {};", returns(op));
    } else {
        let _ = writeln!(out, "function {}({}) {{", op.function, params.join(", "));
        if let Some(m) = &op.merged_away {
            let _ = writeln!(out, "  throw new Error({});", q(m));
            out.push_str("}\n");
            return out;
        }
        out.push_str(&amount_guards(Lang::Mongosh, op, "  "));
        out.push_str(&js_steps(Lang::Mongosh, op, ("db", false), "  "));
        out.push_str(&merge_lines(Lang::Mongosh, op, "  "));
        let _ = writeln!(out, "  return {};", returns(op));
    }
    out.push_str("}\n");
    out
}

/// A Node.js (official driver) async function for the operation.
pub fn node(op: &OpCode) -> String {
    let mut params = vec!["db"];
    params.extend(op.params.iter().map(|p| p.name.as_str()));
    let mut out = js_header(op, "//");
    if op.transaction {
        // The session last: the atomic group's function passes its own
        // (together.rs); without it, a transaction of its own.
        params.push("session");
        let _ = writeln!(
            out,
            "async function {}({}) {{",
            op.function,
            params.join(", ")
        );
        params.pop();
        out.push_str("  if (session === undefined) {\n    const own = db.client.startSession();\n    try {\n      let out;\n");
        let _ = writeln!(
            out,
            "      await own.withTransaction(async () => {{\n        out = await {}({});\n      }});",
            op.function,
            params
                .iter()
                .copied()
                .chain(["own"])
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push_str(
            "      return out;\n    } finally {\n      await own.endSession();\n    }\n  }\n",
        );
        out.push_str(&amount_guards(Lang::Node, op, "  "));
        out.push_str(&js_steps(Lang::Node, op, ("db", true), "  "));
        out.push_str(&merge_lines(Lang::Node, op, "  "));
        let _ = writeln!(out, "  return {};", returns(op));
    } else {
        let _ = writeln!(
            out,
            "async function {}({}) {{",
            op.function,
            params.join(", ")
        );
        if let Some(m) = &op.merged_away {
            let _ = writeln!(out, "  throw new Error({});", q(m));
            out.push_str("}\n");
            return out;
        }
        out.push_str(&amount_guards(Lang::Node, op, "  "));
        out.push_str(&js_steps(Lang::Node, op, ("db", false), "  "));
        out.push_str(&merge_lines(Lang::Node, op, "  "));
        let _ = writeln!(out, "  return {};", returns(op));
    }
    out.push_str("}\n");
    out
}

fn py_step(step: &StepCode, session: bool, indent: &str) -> String {
    let outer = step;
    let each = for_each_parent(step);
    let step = each.as_ref().map_or(step, |(s, ..)| s);
    let chunks = chunked(step);
    let step = chunks.as_ref().map_or(step, |(s, _)| s);
    let retry = page_retry(step, session);
    let step = retry.as_ref().map_or(step, |(_, s)| s);
    let coll = format!("db[{}]", q(&step.collection));
    let sess = if session { ", session=session" } else { "" };
    let f = filter(Lang::Python, step);
    let key = &step.key;
    let call = match step.action {
        Action::Find if step.counts && step.elements.is_some() => format!(
            "next({coll}.aggregate({}{sess}), {{{}: 0}})[{}]",
            elements_pipeline(Lang::Python, step, &f),
            q(COUNTED),
            q(COUNTED)
        ),
        Action::Find if step.counts => format!("{coll}.count_documents({f}{sess})"),
        Action::Find if step.elements.is_some() => format!(
            "list({coll}.aggregate({}{sess}))",
            elements_pipeline(Lang::Python, step, &f)
        ),
        Action::Find if step.figures.is_some() => format!(
            "list({coll}.aggregate({}{sess}))",
            figures_pipeline(step, &f)
        ),
        Action::Find if step.group.is_some() => format!(
            "list({coll}.aggregate({}{sess}))",
            group_pipeline(Lang::Python, step, &f)
        ),
        Action::Find if near_pipeline(Lang::Python, step).is_some() => format!(
            "list({coll}.aggregate({}{sess}))",
            near_pipeline(Lang::Python, step).unwrap_or_default()
        ),
        Action::Find => {
            let mut s = match projection(Lang::Python, step) {
                Some(p) => format!("{coll}.find({f}, {p}{sess})"),
                None => format!("{coll}.find({f}{sess})"),
            };
            if !step.sort.is_empty() {
                let _ = write!(s, ".sort([{}])", python_sort(step));
            }
            s.push_str(&skip(step));
            match (step.limit, &step.limit_param) {
                (Some(l), Some(p)) => {
                    let _ = write!(s, ".limit({l} if {p} is None else {p})");
                }
                (Some(l), None) => {
                    let _ = write!(s, ".limit({l})");
                }
                _ => {}
            }
            format!("list({s})")
        }
        Action::GraphLookup => format!(
            "list({coll}.aggregate({}{sess}))",
            graph_pipeline(Lang::Python, step)
        ),
        Action::InsertOne => format!(
            "_result({coll}.insert_one({}{sess}))",
            insert_arg(Lang::Python, step)
        ),
        Action::InsertMany if step.skip_duplicates => format!(
            "_insert_new({coll}, {}{sess})",
            step.insert.as_deref().unwrap_or("[]")
        ),
        Action::InsertMany => format!(
            "_result({coll}.insert_many({}{sess}))",
            step.insert.as_deref().unwrap_or("[]")
        ),
        Action::UpdateOne | Action::UpdateMany | Action::Upsert => {
            let method = if step.action == Action::UpdateMany {
                "update_many"
            } else {
                "update_one"
            };
            let mut extra = String::new();
            if step.action == Action::Upsert {
                extra.push_str(", upsert=True");
            }
            if let Some(af) = array_filters(Lang::Python, step) {
                let _ = write!(extra, ", array_filters={af}");
            }
            let call = format!(
                "{coll}.{method}({f}, {}{extra}{sess})",
                update_doc(Lang::Python, step)
            );
            if step.retry_duplicate {
                format!("_result(_retry_duplicate(lambda: {call}))")
            } else {
                format!("_result({call})")
            }
        }
        // The child as it was, as a list of 0 or 1 (`Expr::Moved`);
        // `False` is pymongo's `ReturnDocument.BEFORE`.
        Action::FindOneAndUpdate if step.before => {
            let p = projection(Lang::Python, step).unwrap_or_else(|| "None".into());
            format!(
                "[d for d in [{coll}.find_one_and_update({f}, {}, projection={p}, return_document=False{sess})] if d is not None]",
                update_doc(Lang::Python, step)
            )
        }
        Action::FindOneAndUpdate => {
            let mut extra = String::new();
            if !step.sort.is_empty() {
                let _ = write!(extra, ", sort=[{}]", python_sort(step));
            }
            // `True` is pymongo's `ReturnDocument.AFTER`: the module then
            // needs no import of its own.
            format!(
                "{coll}.find_one_and_update({f}, {}{extra}, return_document=True{sess})",
                update_doc(Lang::Python, step)
            )
        }
        Action::DeleteOne => format!("_result({coll}.delete_one({f}{sess}))"),
        Action::DeleteMany => format!("_result({coll}.delete_many({f}{sess}))"),
        Action::BulkWrite => match &step.each {
            Some(each) => {
                let (source, id, incs) = each_parts(Lang::Python, each);
                let one = format!(
                    "UpdateOne({}, {})",
                    each_filter(Lang::Python, step, id),
                    update_doc_with(Lang::Python, step, &incs)
                );
                format!(
                    "(_result({coll}.bulk_write(ops{sess})) if (ops := [{one} for e in {source}]) else None)"
                )
            }
            None => "None".to_string(),
        },
    };
    let call = match &retry {
        Some((page, _)) => format!("_next_free_page({page}, lambda {PAGE_TRIED}: {call})"),
        None => call,
    };
    // A batch: the chunks upserted one by one, each page a chunk opened
    // closing the buckets it passed over.
    let call = match (&outer.chunks, &chunks) {
        (Some(ch), Some((_, page))) => {
            let close = ch
                .close
                .as_ref()
                .and_then(|counter| close_buckets(Lang::Python, step, counter, ch.per))
                .map_or("None".to_string(), |args| {
                    format!("lambda opened: _result({coll}.update_many({args}{sess}))")
                });
            format!(
                "_into_buckets({}, {}, {}, lambda {}, {PAGE_AT}: {call}, {close})",
                ch.list,
                ch.per,
                page.as_deref().unwrap_or("None"),
                super::plan::CHUNK
            )
        }
        _ => call,
    };
    let call = match &step.fallback_of {
        Some(prev) if step.fallback_chained => {
            format!("{call} if {prev} is not None and {prev}[\"matched_count\"] == 0 else None")
        }
        Some(prev) => format!("{call} if {prev}[\"matched_count\"] == 0 else None"),
        None => call,
    };
    let call = match (&step.when, &each) {
        (Some(w), _) => format!(
            "{call} if {} else {}",
            condition(Lang::Python, w),
            skipped(Lang::Python, step)
        ),
        (None, Some((_, from, path, n, size))) => format!(
            "[x for {EACH_PARENT} in {from} if {} for x in {call}]",
            full_test(Lang::Python, EACH_PARENT, path, *size, *n)
        ),
        (None, None) => call,
    };
    format!(
        "{}{indent}{key} = {call}\n",
        step_comment(outer, "#", indent)
    )
}

/// A Python (pymongo) function for the operation.
pub fn python(op: &OpCode) -> String {
    // The last key seen of a keyset page is `None` on the first page:
    // trailing ones default to it, so a first page is called without it.
    let after: Vec<&str> = op
        .steps
        .iter()
        .flat_map(|s| &s.filter)
        .filter_map(|(_, e)| match e {
            Expr::After {
                param, id, then, ..
            } => Some(
                std::iter::once(param)
                    .chain(then.iter().map(|(_, p, _)| p))
                    .chain(id),
            ),
            _ => None,
        })
        .flatten()
        .map(String::as_str)
        // A batch job's batch is its default unless the caller gives one.
        .chain(op.steps.iter().filter_map(|s| s.limit_param.as_deref()))
        .collect();
    let optional = op
        .params
        .iter()
        .rev()
        .take_while(|p| after.contains(&p.name.as_str()))
        .count();
    let mut params = vec!["db".to_string()];
    for (i, p) in op.params.iter().enumerate() {
        params.push(if i + optional >= op.params.len() {
            format!("{}=None", p.name)
        } else {
            p.name.clone()
        });
    }
    let mut out = js_header(op, "#");
    if op.transaction {
        // The session last: the atomic group's function passes its own
        // (together.rs). Without it, a transaction of its own through
        // `with_transaction`, which runs it again on a transient error (a
        // write conflict with another transaction) and commits again when
        // the commit's outcome is unknown, for up to 120 s.
        let args: Vec<&str> = std::iter::once("db")
            .chain(op.params.iter().map(|p| p.name.as_str()))
            .collect();
        params.push("session=None".into());
        let _ = writeln!(out, "def {}({}):", op.function, params.join(", "));
        out.push_str("    if session is None:\n");
        out.push_str("        with db.client.start_session() as session:\n");
        let _ = writeln!(
            out,
            "            return session.with_transaction(lambda session: {}({}, session=session))",
            op.function,
            args.join(", ")
        );
        out.push_str(&amount_guards(Lang::Python, op, "    "));
        out.push_str(&py_steps(op, true, "    "));
        out.push_str(&merge_lines(Lang::Python, op, "    "));
        let _ = writeln!(out, "    return {}", returns(op));
    } else {
        let _ = writeln!(out, "def {}({}):", op.function, params.join(", "));
        if let Some(m) = &op.merged_away {
            let _ = writeln!(out, "    raise RuntimeError({})", q(m));
            return out;
        }
        out.push_str(&amount_guards(Lang::Python, op, "    "));
        out.push_str(&py_steps(op, false, "    "));
        out.push_str(&merge_lines(Lang::Python, op, "    "));
        let _ = writeln!(out, "    return {}", returns(op));
    }
    out
}

/// A step's sort as pymongo's list of `(path, direction)` pairs, without
/// the brackets (`.sort([…])` for a find, `sort=[…]` for a claim).
fn python_sort(step: &StepCode) -> String {
    let sort: Vec<String> = step
        .sort
        .iter()
        .map(|(p, d)| format!("({}, {d})", q(p)))
        .collect();
    sort.join(", ")
}

/// The date `value` (an expression of the language) truncated to the time
/// `unit`, in UTC, as the key of the time bucket holding it: a window's
/// first bucket starts at or before the window.
fn truncated(lang: Lang, value: &str, unit: &str) -> String {
    match lang {
        Lang::Python => {
            let zero = match unit {
                "month" => "day=1, hour=0, minute=0, second=0, microsecond=0",
                "day" => "hour=0, minute=0, second=0, microsecond=0",
                "hour" => "minute=0, second=0, microsecond=0",
                _ => "second=0, microsecond=0",
            };
            format!("{value}.replace({zero})")
        }
        _ => {
            let (d, h, m) = (
                format!("{value}.getUTCDate()"),
                format!("{value}.getUTCHours()"),
                format!("{value}.getUTCMinutes()"),
            );
            let (d, h, m) = match unit {
                "month" => ("1".to_string(), "0".to_string(), "0".to_string()),
                "day" => (d, "0".to_string(), "0".to_string()),
                "hour" => (d, h, "0".to_string()),
                _ => (d, h, m),
            };
            format!(
                "new Date(Date.UTC({value}.getUTCFullYear(), {value}.getUTCMonth(), {d}, {h}, {m}))"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::op_code;

    fn code(scenario: &str, op: &str) -> super::OpCode {
        let text = crate::rules::testing::example(&format!("scenarios/{scenario}.yaml"));
        let model = crate::inputs::model_file::parse("m.yaml", &text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let plan = d.operations.iter().find(|p| p.operation == op).unwrap();
        op_code(&d, plan)
    }

    /// A count bucket's insert runs its upsert again at the next page on a
    /// duplicate key (another writer opened that page first), in every
    /// language, with the page it tries set on insert (issue 41).
    #[test]
    fn a_bucket_upsert_moves_past_a_page_taken_in_every_language() {
        let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
        let ops = super::super::op_codes(&d);
        let add = ops
            .iter()
            .find(|o| o.name == "add_comment")
            .expect("add_comment");
        assert_eq!(add.steps[0].next_page.as_deref(), Some("page"));
        let set = r#""$setOnInsert": {"page": page_tried}"#;
        for (text, call) in [
            (
                super::mongosh(add),
                "const post_comments = nextFreePage(page, (page_tried) => db.getCollection(\"post_comments\").updateOne(",
            ),
            (
                super::node(add),
                "const post_comments = await nextFreePage(page, (page_tried) => db.collection(\"post_comments\").updateOne(",
            ),
            (
                super::python(add),
                "post_comments = _next_free_page(page, lambda page_tried: _result(db[\"post_comments\"].update_one(",
            ),
        ] {
            assert!(text.contains(call) && text.contains(set), "{text}");
        }
        // The helpers, once per module.
        let book = super::super::mongosh(&d, &ops);
        assert_eq!(book.matches("function nextFreePage(").count(), 1, "{book}");
        assert!(book.contains("if (e.code !== 11000) throw e;"), "{book}");
        // mongosh waits for an assigned write, not a returned one, inside a
        // `try` (a returned one's duplicate key escaped the `catch`).
        assert!(
            book.contains("const result = upsert(p);\n      return result;"),
            "{book}"
        );
        let book = super::super::node(&d, &ops);
        assert!(book.contains("async function nextFreePage("), "{book}");
        let book = super::super::python(&d, &ops);
        assert!(
            book.contains("def _next_free_page(page, upsert):")
                && book.contains("except DuplicateKeyError:"),
            "{book}"
        );
    }

    /// S9's join pushes into two bounded arrays in one transaction: each
    /// push that finds no room fails the operation, which aborts the other.
    #[test]
    fn a_full_bounded_push_fails_the_operation() {
        let join = code("s09-teams", "join");
        assert!(join.transaction);
        for text in [
            super::mongosh(&join),
            super::node(&join),
            super::python(&join),
        ] {
            assert_eq!(text.matches("is full\"").count(), 2, "{text}");
        }
        assert!(super::mongosh(&join).contains("if (team_3.matchedCount === 0) throw new Error("));
        assert!(super::python(&join).contains("if team_3[\"matched_count\"] == 0:\n"));
    }

    /// A claim whose model says `otherwise: fail` (the default) throws,
    /// naming the operation, when there is nothing to claim, rather than
    /// return null for the caller to notice.
    #[test]
    fn a_claim_with_nothing_to_claim_fails_naming_its_operation() {
        let claim = code("s17-job-queue", "claim_next");
        assert!(
            super::mongosh(&claim)
                .contains("  if (job === null) throw new Error(\"claim_next: nothing matched (no job to claim)\");\n"),
            "{}",
            super::mongosh(&claim)
        );
        assert!(
            super::node(&claim)
                .contains("  if (job === null) throw new Error(\"claim_next: nothing matched")
        );
        assert!(
            super::python(&claim)
                .contains("    if job is None:\n        raise RuntimeError(\"claim_next: nothing matched (no job to claim)\")\n"),
            "{}",
            super::python(&claim)
        );
    }

    /// S15's nearest open restaurants: a `$geoNear` stage first (nearest
    /// first on MongoDB and on the test server, whose `$near` with a
    /// limit is not), with the equality filter as its query, then the
    /// limit, in every language; no `$near`.
    #[test]
    fn a_near_read_is_a_geo_near_stage_then_its_limit() {
        let near = code("s15-restaurants", "nearby_open");
        let stage = "aggregate([{\"$geoNear\": {\"near\": location, \"key\": \"location\", \"distanceField\": \"_distance\", \"maxDistance\": 3000, \"query\": {\"open\": open}, \"spherical\": ";
        for (text, yes) in [
            (super::mongosh(&near), "true"),
            (super::node(&near), "true"),
            (super::python(&near), "True"),
        ] {
            assert!(
                text.contains(&format!(
                    "{stage}{yes}}}}}, {{\"$limit\": 20}}, {{\"$project\": "
                )),
                "{text}"
            );
            assert!(!text.contains("$near\""), "{text}");
        }
    }

    /// A grouped find (an aggregation) in a transaction runs in the
    /// transaction's session in Node.js, as the steps around it do: the
    /// purge of bucket-edits, made transactional here, passes it to the
    /// `$group` aggregations (issue 41, review).
    #[test]
    fn a_grouped_find_in_a_transaction_takes_the_session() {
        let (_, d) = crate::fixtures::load("bucket-edits");
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == "purge_rating")
            .unwrap();
        let mut purge = op_code(&d, plan);
        assert!(!purge.transaction);
        purge.transaction = true;
        let node = super::node(&purge);
        let grouped: Vec<&str> = node.lines().filter(|l| l.contains("\"$group\"")).collect();
        assert!(!grouped.is_empty(), "{node}");
        for line in grouped {
            // (Braces balanced in the literal: architecture.rs counts them.)
            // A gated read (the recount) ends in its condition's `: []`.
            assert!(
                line.contains("], {\"session\": session}).toArray()"),
                "{line}"
            );
        }
        // mongosh runs the transaction in its session's database.
        let sh = super::mongosh(&purge);
        assert!(
            sh.contains("sdb.getCollection(\"review\").aggregate("),
            "{sh}"
        );
        assert!(!sh.contains("\"session\": session"), "{sh}");
    }

    /// coupon-checkout's `redeem_decrement`, as the cookbook writes it.
    fn redeem_decrement() -> crate::artifacts::cookbook::OpCode {
        let (_, d) = crate::fixtures::load("coupon-checkout");
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == "redeem_decrement")
            .unwrap();
        op_code(&d, plan)
    }

    /// coupon-checkout's decrement filters the coupon by a `status` the
    /// caller passes and only if that status is not `retired`: both tests
    /// of the path stay, in one `$and` (an object with the key twice
    /// keeps only the last in every language; issue 41, review).
    #[test]
    fn two_tests_of_one_path_both_stay_in_the_filter() {
        let dec = redeem_decrement();
        let filter = "({\"code\": code, \"$and\": [{\"status\": status}, {\"status\": {\"$ne\": \"retired\"}}], \"remaining\": {\"$gt\": 0}}, ";
        for text in [super::mongosh(&dec), super::node(&dec), super::python(&dec)] {
            assert!(text.contains(filter), "{text}");
            assert_eq!(text.matches("\"status\":").count(), 2, "{text}");
        }
    }

    /// The amount the model states (`increments: {remaining: -1}`) is the
    /// literal of the `$inc` in every language, and no parameter asks the
    /// caller for it (audit43 A): a caller's `+1` or `-5` would pass a
    /// guard (`remaining > 0`) written for -1.
    #[test]
    fn a_stated_amount_is_written_not_passed() {
        let dec = redeem_decrement();
        assert!(
            dec.params.iter().all(|p| p.path != "remaining"),
            "{:?}",
            dec.params
        );
        for text in [super::mongosh(&dec), super::node(&dec), super::python(&dec)] {
            assert!(text.contains("{\"$inc\": {\"remaining\": -1}}"), "{text}");
        }
    }

    /// A relink that copies the new parent's field (issue-tracker's
    /// `reassign`: the issue keeps its assignee's name) writes the id and
    /// the name the read of the new assignee found, and fails when it
    /// found none (audit43 K). The function takes the new assignee's id
    /// once; it used to read one user and write a second id and a name
    /// the caller passed, which could name another.
    #[test]
    fn a_relink_copies_what_it_read_of_the_new_parent() {
        let text = include_str!("../../../tests/fixtures/issue-tracker.yaml");
        let model = crate::inputs::model_file::parse("issue-tracker.yaml", text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == "reassign")
            .unwrap();
        assert_eq!(
            plan.steps[0].filter[0].value_from,
            crate::design::ValueSource::New {
                field: "assignee".into()
            }
        );
        let copies: Vec<(&str, usize, &str)> = plan.steps[1]
            .updates
            .iter()
            .filter_map(|u| match u {
                crate::design::UpdateOp::CopyFrom { path, step, field } => {
                    Some((path.as_str(), *step, field.as_str()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            copies,
            [("assignee._id", 1, "_id"), ("assignee.name", 1, "name")]
        );
        let code = op_code(&d, plan);
        let names: Vec<&str> = code.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["new_user_id", "issue_id", "new_updated_at"]);
        let set = r#"{"$set": {"updated_at": new_updated_at, "assignee._id": user[0]["_id"], "assignee.name": user[0]["name"]}}"#;
        let py = super::python(&code);
        assert!(py.contains(set), "{py}");
        assert!(
            py.contains("    if not user:\n        raise RuntimeError(\"reassign: no user with that id to copy from\")\n"),
            "{py}"
        );
        for text in [super::mongosh(&code), super::node(&code)] {
            assert!(text.contains(set), "{text}");
            assert!(
                text.contains("  if (user.length === 0) throw new Error(\"reassign: no user with that id to copy from\");\n"),
                "{text}"
            );
        }
    }

    /// A batch insert of children whose ids their parent keeps (`count:
    /// 100`, child references) pushes every id the insert gave, and the
    /// parent's array must have room for all of them: at most `max - 100`
    /// ids before the push (audit43 L). It used to push one id the caller
    /// passed, guarded at `max - 1`.
    #[test]
    fn a_batch_insert_pushes_every_id_it_gave() {
        let text = "
name: practice
entities:
  practitioner:
    count: 10000
    fields: {name: string(20)}
  slot:
    count: 4000000
    fields: {starts_at: date}
relationships:
  slots: {parent: practitioner, child: slot, children: {typical: 400, max: 5000}, layout: child-references}
operations:
  add_slots: {insert: slot, links: [slots], count: 100, rate: 3}
  practitioner_slots: {read: practitioner, filter: {_id: eq}, include: [slots], rate: 100}
";
        let model = crate::inputs::model_file::parse("practice.yaml", text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == "add_slots")
            .unwrap();
        let code = op_code(&d, plan);
        assert!(
            code.params
                .iter()
                .all(|p| p.kind != super::super::code::ParamKind::Item),
            "{:?}",
            code.params
        );
        let py = super::python(&code);
        assert!(
            py.contains(r#"{"_id": practitioner_id, "slots.4900": {"$exists": False}}, {"$push": {"slots": {"$each": slot["inserted_ids"]}}}"#),
            "{py}"
        );
        for text in [super::mongosh(&code), super::node(&code)] {
            assert!(
                text.contains(r#"{"_id": practitioner_id, "slots.4900": {"$exists": false}}, {"$push": {"slots": {"$each": Object.values(slot.insertedIds)}}}"#),
                "{text}"
            );
        }
    }

    /// Two tests of one array's elements in an update of those elements
    /// (`$[e]`) are one `arrayFilters` document, and a path tested twice is
    /// one `$and` there (issue 41): the identifier declared by two
    /// documents is refused by MongoDB, and one object with the key twice
    /// keeps one test. No model reaches this through the planner today
    /// (a condition tests the written document, not the copies a rename
    /// refreshes), so the test adds the tests to category-paths' refresh.
    #[test]
    fn an_array_filter_declares_its_identifier_once() {
        let (_, mut d) = crate::fixtures::load("category-paths");
        let plan = d
            .operations
            .iter_mut()
            .find(|p| p.operation == "rename_category")
            .unwrap();
        let refresh = plan
            .steps
            .iter_mut()
            .find(|s| s.updates.iter().any(|u| matches!(u, crate::design::UpdateOp::Set { path } if path.starts_with("path."))))
            .expect("the refresh of the copies in the paths");
        refresh.conditions.push(crate::design::StepCondition {
            path: "path._id".to_string(),
            plus: None,
            test: crate::model::Test::Ne,
            value: crate::model::Literal::Text("root".to_string()),
        });
        refresh.conditions.push(crate::design::StepCondition {
            path: "path.name".to_string(),
            plus: None,
            test: crate::model::Test::Ne,
            value: crate::model::Literal::Text("archived".to_string()),
        });
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == "rename_category")
            .unwrap();
        let rename = op_code(&d, plan);
        let one = r#"[{"$and": [{"e._id": category_id}, {"e._id": {"$ne": "root"}}], "e.name": {"$ne": "archived"}}]"#;
        assert!(
            super::python(&rename).contains(&format!("array_filters={one}")),
            "{}",
            super::python(&rename)
        );
        for text in [super::mongosh(&rename), super::node(&rename)] {
            assert!(text.contains(&format!("\"arrayFilters\": {one}")), "{text}");
        }
    }

    /// An outlier's push has a fallback (the overflow document) when the
    /// array is full: no error there.
    #[test]
    fn a_push_with_a_fallback_does_not_fail() {
        let register = code("s05-attendees", "register");
        let text = super::mongosh(&register);
        assert!(text.contains("matchedCount === 0 ?"), "{text}");
        assert!(!text.contains("is full"), "{text}");
    }
}
