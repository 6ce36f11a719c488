//! Update pipelines that change or drop elements of an array and compute
//! the figures a document keeps over that array again, in one atomic
//! update (MongoDB 4.2+: `updateOne(filter, [{$set: …}, {$set: …}])`).
//! A bucket's reading edited with `$set readings.$.value`, or removed with
//! `$pull`, left its count, sum, min and max as they were (issue 41); the
//! pipeline's first stage rewrites the array, the second computes each
//! figure from the array as the first stage left it.
//!
//! The elements are those the step's filter tests under the array
//! (`readings.time`): the same tests, as aggregation expressions on each
//! element (`$$e.time`), so the filter that finds the document and the
//! condition that picks its elements cannot disagree.
//!
//! Called by `render`, which passes how its language spells an expression
//! (`Spell`): this file knows the pipeline, not the languages.

use super::code::{ElementCompare, Expr, StepCode, Update};
use crate::model::AggregateFn;
use crate::words::script;

/// How the rendering language writes what the pipeline holds: an
/// expression of the cookbook (a parameter, the ids an earlier step found),
/// and the literal `false`.
pub(super) struct Spell<'a> {
    pub expr: &'a dyn Fn(&Expr) -> String,
    pub falsy: &'static str,
    /// The helper that lists values at a path in found documents (`_ids`
    /// in Python, `ids` in JavaScript).
    pub ids: &'static str,
    /// The literal null (`None` in Python).
    pub null: &'static str,
    /// Now less so many seconds, when the operation runs.
    pub since: &'a dyn Fn(u64) -> String,
}

/// The elements of `array` whose `field` is after `since`: those within
/// their life (`{"$filter": …}`; a document without the array has none).
pub(super) fn unexpired(array: &str, field: &str, since: &str) -> String {
    format!(
        "{{\"$filter\": {{\"input\": {{\"$ifNull\": [{}, []]}}, \"cond\": {{\"$gt\": [{}, {since}]}}}}}}",
        q(&format!("${array}")),
        q(&format!("$$this.{field}"))
    )
}

/// A string literal: the same text in JavaScript and Python.
fn q(s: &str) -> String {
    script::js_string(s)
}

/// `{"k": v, …}` with the keys quoted.
fn object(pairs: &[(String, String)]) -> String {
    let inner: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}: {v}", q(k)))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

/// The step's update as a pipeline, when it changes or drops elements of
/// an array; `None` for every other update.
pub(super) fn elements(lang: &Spell<'_>, step: &StepCode) -> Option<String> {
    let (array, first) = step.updates.iter().find_map(|u| match u {
        Update::SetElements { path, fields, adds } => {
            Some((path, rewrite(lang, step, path, fields, adds)))
        }
        Update::DropElements(path) => Some((path, drop(lang, step, path))),
        _ => None,
    })?;
    let mut stages = vec![object(&[(
        "$set".to_string(),
        object(&[(array.clone(), first)]),
    )])];
    let figures: Vec<(String, String)> = step
        .updates
        .iter()
        .filter_map(|u| match u {
            Update::Recompute {
                path,
                function,
                over,
                by,
                bson_type,
            } => Some((
                path.clone(),
                figure(
                    array,
                    (*function, over, by.as_deref()),
                    bson_type.as_deref(),
                    lang.null,
                ),
            )),
            _ => None,
        })
        .collect();
    if !figures.is_empty() {
        stages.push(object(&[("$set".to_string(), object(&figures))]));
    }
    Some(format!("[{}]", stages.join(", ")))
}

/// `$map` over the array: a matched element merged with the new values
/// (each a `$literal`, so a value that starts with `$` stays a value) and
/// its own values with the amounts added (`{"$add": ["$$e.qty", …]}`).
fn rewrite(
    lang: &Spell<'_>,
    step: &StepCode,
    array: &str,
    fields: &[(String, Expr)],
    adds: &[(String, Expr)],
) -> String {
    let mut values: Vec<(String, String)> = fields
        .iter()
        .map(|(f, e)| (f.clone(), format!("{{\"$literal\": {}}}", (lang.expr)(e))))
        .collect();
    values.extend(adds.iter().map(|(f, e)| {
        (
            f.clone(),
            format!(
                "{{\"$add\": [{}, {{\"$literal\": {}}}]}}",
                q(&format!("$$e.{f}")),
                (lang.expr)(e)
            ),
        )
    }));
    let merged = format!("{{\"$mergeObjects\": [\"$$e\", {}]}}", object(&values));
    let then = match matched(lang, step, array) {
        Some(cond) => format!("{{\"$cond\": [{cond}, {merged}, \"$$e\"]}}"),
        None => merged,
    };
    format!(
        "{{\"$map\": {{\"input\": {}, \"as\": \"e\", \"in\": {then}}}}}",
        q(&format!("${array}"))
    )
}

/// `$filter` of the array: the elements the filter's tests do not match.
fn drop(lang: &Spell<'_>, step: &StepCode, array: &str) -> String {
    match matched(lang, step, array) {
        Some(cond) => format!(
            "{{\"$filter\": {{\"input\": {}, \"as\": \"e\", \"cond\": {{\"$not\": [{cond}]}}}}}}",
            q(&format!("${array}"))
        ),
        // No test on the elements: every one of them goes.
        None => "{\"$literal\": []}".to_string(),
    }
}

/// The filter's tests under `array.` as one condition on the element `$$e`,
/// with the comparisons of the element's fields the filter tests under
/// `$expr` (`Expr::ElementFields` of the same array: `qty < cap`), so that
/// each element is tested on its own; `None` when the filter tests no
/// element (every element matches).
fn matched(lang: &Spell<'_>, step: &StepCode, array: &str) -> Option<String> {
    elements_passing(lang, &step.filter, array, "e")
}

/// `tests` of the elements under `array.` as one condition on the element
/// `$$var` (`$filter`'s `this`); `None` when none tests an element.
pub(super) fn elements_passing(
    lang: &Spell<'_>,
    tests: &[(String, Expr)],
    array: &str,
    var: &str,
) -> Option<String> {
    let inside = format!("{array}.");
    let mut found: Vec<String> = tests
        .iter()
        .filter_map(|(p, e)| {
            p.strip_prefix(&inside)
                .map(|f| test(lang, &format!("$${var}.{f}"), e))
        })
        .collect();
    for (_, e) in tests {
        if let Expr::ElementFields {
            array: of,
            compares,
            ..
        } = e
            && of == array
        {
            found.extend(compares.iter().map(|c| compare(lang, c, var)));
        }
    }
    match found.len() {
        0 => None,
        1 => found.into_iter().next(),
        _ => Some(format!("{{\"$and\": [{}]}}", found.join(", "))),
    }
}

/// Whether some element of `array` passes `tests` (the filter's, by the
/// element's field) and `compares`: the value of a filter's `"$expr"`
/// (`$anyElementTrue` of `$map`), the same expression an update
/// pipeline's rewrite tests each element with (`matched`).
pub(super) fn any_element(
    lang: &Spell<'_>,
    array: &str,
    tests: &[(String, Expr)],
    compares: &[ElementCompare],
) -> String {
    let mut all: Vec<String> = tests
        .iter()
        .map(|(f, e)| test(lang, &format!("$$e.{f}"), e))
        .collect();
    all.extend(compares.iter().map(|c| compare(lang, c, "e")));
    format!(
        "{{\"$anyElementTrue\": [{{\"$map\": {{\"input\": {}, \"as\": \"e\", \"in\": {{\"$and\": [{}]}}}}}}]}}",
        q(&format!("${array}")),
        all.join(", ")
    )
}

/// A comparison of the element `$$e`'s field with another of its fields
/// or a value, the caller's amount added first where the condition says
/// so: `{"$lte": [{"$add": ["$$e.qty", amount]}, "$$e.cap"]}`.
fn compare(lang: &Spell<'_>, c: &ElementCompare, var: &str) -> String {
    let field = q(&format!("$${var}.{}", c.a));
    let left = match &c.plus {
        Some((amount, negative)) => format!(
            "{{{}: [{field}, {amount}]}}",
            q(if *negative { "$subtract" } else { "$add" })
        ),
        None => field,
    };
    let right = (lang.expr)(&Expr::Test(crate::model::Test::Eq, c.value.clone()));
    format!("{{{}: [{left}, {right}]}}", q(c.test.operator()))
}

/// One filter test as an aggregation expression on the value at `at`.
fn test(lang: &Spell<'_>, at: &str, e: &Expr) -> String {
    let path = q(at);
    let cmp = |op: &str, v: String| format!("{{{}: [{path}, {v}]}}", q(op));
    match e {
        Expr::Param(p) => cmp("$eq", p.clone()),
        Expr::In(p) => cmp("$in", p.clone()),
        Expr::Range(a, b) => format!(
            "{{\"$and\": [{}, {}]}}",
            cmp("$gte", a.clone()),
            cmp("$lt", b.clone())
        ),
        Expr::IdsFrom { step, path } => cmp("$in", format!("{}({step}, {})", lang.ids, q(path))),
        Expr::IdsFromAll(all) => cmp("$in", ids_together(lang.ids, lang.ids == "_ids", all)),
        Expr::Test(t, v) => {
            let value = (lang.expr)(&Expr::Test(crate::model::Test::Eq, v.clone()));
            match t {
                crate::model::Test::Eq => cmp("$eq", value),
                t => cmp(t.operator(), value),
            }
        }
        Expr::IdIs(p) => format!("{{\"$eq\": [{}, {p}]}}", q(&format!("{at}._id"))),
        // An element within its life (review48 A3: the test of an expiring
        // array's elements fell to `false` below, and no write matched).
        Expr::Unexpired(n) => cmp("$gt", (lang.since)(*n)),
        // No filter of the planner's tests an element otherwise; a test
        // this cannot spell matches no element rather than every one.
        _ => format!("{{\"$literal\": {}}}", lang.falsy),
    }
}

/// A figure computed from the array: its size, or the sum, least, greatest,
/// first or last of the elements' values at `over` (`readings.value`). A
/// sum is converted to `bson_type`, the type the validator keeps it in
/// (a double, a long or a decimal: `advise::document::sum_type`); the
/// other figures are one of the values, already in their field's type.
/// The values are taken with `$map` rather than the path through the
/// array (`"$readings.value"`): the same on MongoDB, and SecantusDB, which
/// the server-backed tests run on, gives nothing for that path.
/// `null` is the language's null literal: the first or last of no
/// elements is written as null, as a reset writes it (`none_of`).
fn figure(
    array: &str,
    (function, over, by): (AggregateFn, &str, Option<&str>),
    bson_type: Option<&str>,
    null: &str,
) -> String {
    let input = q(&format!("${array}"));
    // A first or last that follows a date: the element with the least
    // (first: the earlier arrival on a tie) or greatest (last: the later
    // arrival on a tie) date, by `$reduce` from the first element, then
    // its value. Over no elements, null, as below.
    if let (Some(by), AggregateFn::First | AggregateFn::Last) = (by, function) {
        let (Some(field), Some(date)) = (
            over.strip_prefix(&format!("{array}.")),
            by.strip_prefix(&format!("{array}.")),
        ) else {
            return format!("{{\"$literal\": {null}}}");
        };
        let later = format!(
            "{{\"$lt\": [{}, {}]}}",
            q(&format!("$$this.{date}")),
            q(&format!("$$value.{date}"))
        );
        let keep = if function == AggregateFn::First {
            format!("{{\"$cond\": [{later}, \"$$this\", \"$$value\"]}}")
        } else {
            format!("{{\"$cond\": [{later}, \"$$value\", \"$$this\"]}}")
        };
        let chosen = format!(
            "{{\"$reduce\": {{\"input\": {input}, \"initialValue\": {{\"$arrayElemAt\": [{input}, 0]}}, \"in\": {keep}}}}}"
        );
        return format!(
            "{{\"$ifNull\": [{{\"$let\": {{\"vars\": {{\"e\": {chosen}}}, \"in\": {}}}}}, {{\"$literal\": {null}}}]}}",
            q(&format!("$$e.{field}"))
        );
    }
    let of = match over.strip_prefix(&format!("{array}.")) {
        Some(field) => format!(
            "{{\"$map\": {{\"input\": {input}, \"as\": \"e\", \"in\": {}}}}}",
            q(&format!("$$e.{field}"))
        ),
        None => input,
    };
    match function {
        AggregateFn::Count => format!("{{\"$size\": {of}}}"),
        // `$sum` gives the int 0 for no elements (a bucket emptied by this
        // drop) and an int for int values, which a validator that wants a
        // double, a long or a decimal refuses.
        AggregateFn::Sum | AggregateFn::Avg => {
            let to = match bson_type {
                Some("long") => "$toLong",
                Some("decimal") => "$toDecimal",
                Some("int") => "$toInt",
                _ => "$toDouble",
            };
            format!("{{\"{to}\": {{\"$sum\": {of}}}}}")
        }
        AggregateFn::Min => format!("{{\"$min\": {of}}}"),
        AggregateFn::Max => format!("{{\"$max\": {of}}}"),
        // `$arrayElemAt` of an empty array is missing, and a pipeline's
        // `$set` of a missing value removes the field, which the validator
        // requires: a bucket emptied by this drop would be refused (code
        // 121). Null is what `$min`/`$max` give for no elements.
        AggregateFn::First => {
            format!("{{\"$ifNull\": [{{\"$arrayElemAt\": [{of}, 0]}}, {{\"$literal\": {null}}}]}}")
        }
        AggregateFn::Last => {
            format!("{{\"$ifNull\": [{{\"$arrayElemAt\": [{of}, -1]}}, {{\"$literal\": {null}}}]}}")
        }
    }
}

/// A figure over no elements, as a pipeline's `$set` writes it: a count's
/// or a sum's 0 converted to `bson_type` (an int for a count, a double for
/// a sum where the validator does not say), `null` (the language's) for a
/// max, min, first or last.
pub(super) fn none_of(function: AggregateFn, bson_type: Option<&str>, null: &str) -> String {
    let to = |default: &str| {
        match bson_type {
            Some("long") => "$toLong",
            Some("decimal") => "$toDecimal",
            Some("int") => "$toInt",
            Some("double") => "$toDouble",
            _ => default,
        }
        .to_string()
    };
    match function {
        AggregateFn::Count => format!("{{\"{}\": 0}}", to("$toInt")),
        AggregateFn::Sum | AggregateFn::Avg => format!("{{\"{}\": 0}}", to("$toDouble")),
        AggregateFn::Min | AggregateFn::Max | AggregateFn::First | AggregateFn::Last => {
            format!("{{\"$literal\": {null}}}")
        }
    }
}

/// `value` (an expression of the application's) converted by the server
/// to the BSON type a validator keeps a count or sum in, in an update
/// pipeline's `$set`: the language's 0 is an int, which a `long` or
/// `double` field refuses. An unknown type: the value as it is.
pub(super) fn converted(bson_type: &str, value: &str) -> String {
    let to = match bson_type {
        "long" => "$toLong",
        "decimal" => "$toDecimal",
        "int" => "$toInt",
        "double" => "$toDouble",
        _ => "$literal",
    };
    format!("{{\"{to}\": {value}}}")
}

/// The ids of several earlier steps as one list: `_ids(a, "p") + _ids(b,
/// "q")` in Python, `ids(a, "p").concat(ids(b, "q"))` in JavaScript.
pub(super) fn ids_together(ids: &str, python: bool, all: &[(String, String)]) -> String {
    let each: Vec<String> = all
        .iter()
        .map(|(step, path)| format!("{ids}({step}, {})", q(path)))
        .collect();
    if python {
        each.join(" + ")
    } else {
        match each.split_first() {
            Some((first, rest)) => rest
                .iter()
                .fold(first.clone(), |acc, x| format!("{acc}.concat({x})")),
            None => "[]".to_string(),
        }
    }
}

/// A push into an array whose figures include a first or last that follows
/// a date (`Update::Recompute` beside `Update::Push`: a bucket's upsert), as
/// an update pipeline of two `$set` stages: the first writes what the
/// update operators wrote (`$concatArrays` for the push, `$add` for an
/// `$inc`, `$max`/`$min`, `$ifNull` for a `$setOnInsert`), each value a
/// `$literal`; the second computes the first and last from the array the
/// first stage left. An upsert that creates the document runs the pipeline
/// on its filter's equalities, as it applied the operators to them.
/// `incs`: a bulk write's amounts (`render::Each`), written first. `None`
/// when the step has no such figure, or an update this cannot spell.
pub(super) fn pushed(
    lang: &Spell<'_>,
    step: &StepCode,
    incs: &[(&str, String, String)],
) -> Option<String> {
    if !step
        .updates
        .iter()
        .any(|u| matches!(u, Update::Recompute { .. } | Update::PullExpired { .. }))
    {
        return None;
    }
    let lit = |v: String| format!("{{\"$literal\": {v}}}");
    let was = |p: &str| q(&format!("${p}"));
    // The array as it was, less its expired elements where the write
    // drops them (MongoDB refuses `$push` and `$pull` on one path).
    let kept = |p: &str| {
        step.updates
            .iter()
            .find_map(|u| match u {
                Update::PullExpired {
                    path,
                    field,
                    seconds,
                } if path == p => Some(unexpired(p, field, &(lang.since)(*seconds))),
                _ => None,
            })
            .unwrap_or_else(|| format!("{{\"$ifNull\": [{}, []]}}", was(p)))
    };
    let one = |op: &str, p: &str, v: String| -> Option<String> {
        Some(match op {
            "$set" => lit(v),
            "$setOnInsert" => format!("{{\"$ifNull\": [{}, {}]}}", was(p), lit(v)),
            "$inc" => format!(
                "{{\"$add\": [{{\"$ifNull\": [{}, 0]}}, {}]}}",
                was(p),
                lit(v)
            ),
            "$max" | "$min" => format!("{{{}: [{}, {}]}}", q(op), was(p), lit(v)),
            _ => return None,
        })
    };
    let mut first: Vec<(String, String)> = Vec::new();
    for (op, p, v) in incs {
        first.push((p.clone(), one(op, p, v.clone())?));
    }
    let mut array = None;
    for u in &step.updates {
        let (p, v) = match u {
            Update::Set(p, e) => (p, one("$set", p, (lang.expr)(e))?),
            Update::SetOnInsert(p, e) => (p, one("$setOnInsert", p, (lang.expr)(e))?),
            Update::Inc(p, e) => (p, one("$inc", p, (lang.expr)(e))?),
            Update::Min(p, e) => (p, one("$min", p, (lang.expr)(e))?),
            Update::Max(p, e) => (p, one("$max", p, (lang.expr)(e))?),
            Update::Push {
                path,
                item,
                sort: None,
                slice: None,
            } => {
                let each = match item {
                    Expr::Items(list) => list.clone(),
                    Expr::InsertedIds { .. } => (lang.expr)(item),
                    e => format!("[{}]", (lang.expr)(e)),
                };
                array = Some(path.clone());
                (
                    path,
                    format!("{{\"$concatArrays\": [{}, {}]}}", kept(path), lit(each)),
                )
            }
            Update::Recompute { .. } | Update::PullExpired { .. } => continue,
            _ => return None,
        };
        first.push((p.clone(), v));
    }
    let array = array?;
    let figures: Vec<(String, String)> = step
        .updates
        .iter()
        .filter_map(|u| match u {
            Update::Recompute {
                path,
                function,
                over,
                by,
                bson_type,
            } => Some((
                path.clone(),
                figure(
                    &array,
                    (*function, over, by.as_deref()),
                    bson_type.as_deref(),
                    lang.null,
                ),
            )),
            _ => None,
        })
        .collect();
    let first = object(&[("$set".to_string(), object(&first))]);
    if figures.is_empty() {
        return Some(format!("[{first}]"));
    }
    Some(format!(
        "[{first}, {}]",
        object(&[("$set".to_string(), object(&figures))])
    ))
}

#[cfg(test)]
mod tests {
    use super::super::render;
    use crate::model::AggregateFn;

    /// A sum is converted to the type its validator keeps it in: `$sum`
    /// alone gives an int (0 for no elements), which a long's or a
    /// decimal's validator refuses as a double's does (issue 41).
    #[test]
    fn a_recomputed_sum_takes_the_figures_type() {
        for (ty, to) in [
            (Some("double"), "$toDouble"),
            (Some("long"), "$toLong"),
            (Some("decimal"), "$toDecimal"),
            (None, "$toDouble"),
        ] {
            let text = super::figure(
                "entries",
                (AggregateFn::Sum, "entries.cents", None),
                ty,
                "null",
            );
            assert!(
                text.starts_with(&format!(r#"{{"{to}": {{"$sum": "#)),
                "{ty:?}: {text}"
            );
        }
        // A least value is one of the values: no conversion.
        let text = super::figure(
            "entries",
            (AggregateFn::Min, "entries.cents", None),
            Some("long"),
            "null",
        );
        assert!(text.starts_with(r#"{"$min": "#), "{text}");
    }

    /// The last (first) of a bucket's elements after a drop of its only
    /// one is null, not missing: a pipeline's `$set` of a missing value
    /// removes the field, and the validator requires it (WriteError 121
    /// when the only comment of a bucket was deleted).
    #[test]
    fn a_buckets_last_of_no_elements_is_null_in_every_language() {
        let (_, design) = crate::fixtures::load("bucket-count-parent-figures");
        let ops = super::super::op_codes(&design);
        let o = ops
            .iter()
            .find(|o| o.name == "delete_comment")
            .expect("delete_comment");
        let votes = r#"{"$map": {"input": "$comments", "as": "e", "in": "$$e.votes"}}"#;
        for (text, null) in [
            (render::python(o), "None"),
            (render::node(o), "null"),
            (render::mongosh(o), "null"),
        ] {
            let last = format!(
                r#""last_votes": {{"$ifNull": [{{"$arrayElemAt": [{votes}, -1]}}, {{"$literal": {null}}}]}}"#
            );
            assert!(text.contains(&last), "{text}");
        }
        let first = super::figure("e", (AggregateFn::First, "e.v", None), None, "None");
        assert!(
            first.starts_with(r#"{"$ifNull": [{"$arrayElemAt": "#),
            "{first}"
        );
    }

    /// The bucket-edits fixture's edit and delete of a reading, in each
    /// language: one update of the bucket whose pipeline changes (or drops)
    /// the readings the filter's `readings.time` names, then computes the
    /// figures from the readings. The three languages write the same
    /// pipeline (Python's booleans aside, which these do not use).
    #[test]
    fn bucket_edits_are_one_pipeline_in_every_language() {
        let (_, design) = crate::fixtures::load("bucket-edits");
        let ops = super::super::op_codes(&design);
        let op = |name: &str| {
            let o = ops.iter().find(|o| o.name == name).expect(name);
            (render::python(o), render::node(o), render::mongosh(o))
        };
        let values = r#"{"$map": {"input": "$readings", "as": "e", "in": "$$e.value"}}"#;
        let (py, js, sh) = op("fix_reading");
        let set = r#"[{"$set": {"readings": {"$map": {"input": "$readings", "as": "e", "in": {"$cond": [{"$eq": ["$$e.time", time]}, {"$mergeObjects": ["$$e", {"value": {"$literal": new_value}}]}, "$$e"]}}}}}"#;
        let max = format!(r#""max_value": {{"$max": {values}}}"#);
        for text in [&py, &js, &sh] {
            assert!(text.contains(set), "{text}");
            assert!(text.contains(&max), "{text}");
            assert!(!text.contains("readings.$.value"), "{text}");
        }
        // A sum stays the double the validator wants, also over no
        // elements (`$sum` alone gives the int 0).
        let sum = format!(r#""sum_value": {{"$toDouble": {{"$sum": {values}}}}}"#);
        for text in [&py, &js, &sh] {
            assert!(text.contains(&sum), "{text}");
        }
        // Int votes in buckets of a count: the least of them is the `$min`
        // of ints (an int, as the validator now wants), the sum a double.
        let (_, _, sh) = op("vote");
        let votes = r#"{"$map": {"input": "$comments", "as": "e", "in": "$$e.votes"}}"#;
        assert!(
            sh.contains(&format!(r#""min_votes": {{"$min": {votes}}}"#)),
            "{sh}"
        );
        assert!(
            sh.contains(&format!(
                r#""sum_votes": {{"$toDouble": {{"$sum": {votes}}}}}"#
            )),
            "{sh}"
        );
        let (py, js, sh) = op("drop_reading");
        let drop = r#"[{"$set": {"readings": {"$filter": {"input": "$readings", "as": "e", "cond": {"$not": [{"$eq": ["$$e.time", time]}]}}}}}, {"$set": {"count": {"$size": "$readings"}"#;
        for text in [&py, &js, &sh] {
            assert!(text.contains(drop), "{text}");
            assert!(text.contains(&max), "{text}");
            assert!(!text.contains("$pull"), "{text}");
        }
    }

    /// A parent's counters by the caller's id follow the write of its
    /// bucketed child only when that write matched, in every language
    /// (issue 41): a retried delete of a comment does not take the post's
    /// count down again. A time bucket's drop is preceded by the delete of
    /// the bucket when the reading is its last, which the drop then does not
    /// match: either one counts.
    #[test]
    fn a_parents_counters_wait_on_the_bucket_write_in_every_language() {
        let (_, design) = crate::fixtures::load("bucket-count-parent-figures");
        let ops = super::super::op_codes(&design);
        let o = ops
            .iter()
            .find(|o| o.name == "delete_comment")
            .expect("delete_comment");
        let down = r#"updateOne({"_id": post_id}, {"$inc": {"comments_count": -1"#;
        for (text, gate) in [
            (render::mongosh(o), "post_comments.matchedCount > 0 ? db."),
            (
                render::node(o),
                "post_comments.matchedCount > 0 ? await db.",
            ),
        ] {
            assert!(
                text.contains(&format!("{gate}getCollection(\"post\").{down}"))
                    || text.contains(&format!("{gate}collection(\"post\").{down}")),
                "{text}"
            );
        }
        let py = render::python(o);
        assert!(
            py.contains(r#"update_one({"_id": post_id}, {"$inc": {"comments_count": -1, "comments_sum_votes": minus_comments_sum_votes}})) if post_comments["matched_count"] > 0 else None"#),
            "{py}"
        );
        // An edit's: only when its bucket write changed the bucket (a
        // retried edit matches it and sets what is there).
        let vote = ops.iter().find(|o| o.name == "vote").expect("vote");
        let sum = r#"updateOne({"_id": post_id}, {"$inc": {"comments_sum_votes": add_comments_sum_votes}})"#;
        let sh = render::mongosh(vote);
        assert!(
            sh.contains(&format!(
                "post_comments.modifiedCount > 0 ? db.getCollection(\"post\").{sum}"
            )),
            "{sh}"
        );
        let py = render::python(vote);
        assert!(
            py.contains(r#"update_one({"_id": post_id}, {"$inc": {"comments_sum_votes": add_comments_sum_votes}})) if post_comments["modified_count"] > 0 else None"#),
            "{py}"
        );
        let yaml = format!(
            "{}  sensor_total:\n    read: sensor\n    filter: {{sensor_id: eq}}\n    rate: 10\n    aggregates: [count(readings)]\n",
            include_str!("../../../tests/fixtures/bucket-edits.yaml")
        );
        let m = crate::inputs::model_file::parse("time.yaml", &yaml).expect("the model parses");
        let design =
            crate::advise::advise(&m, &crate::settings::Settings::default(), None).expect("advise");
        let ops = super::super::op_codes(&design);
        let o = ops
            .iter()
            .find(|o| o.name == "drop_reading")
            .expect("drop_reading");
        let sh = render::mongosh(o);
        assert!(
            sh.contains(r#"(sensor_readings.deletedCount > 0 || sensor_readings_2.matchedCount > 0) ? db.getCollection("sensor").updateOne({"_id": sensor_id}, {"$inc": {"readings_count": -1}})"#),
            "{sh}"
        );
        let py = render::python(o);
        assert!(
            py.contains(r#"if (sensor_readings["deleted_count"] > 0 or sensor_readings_2["matched_count"] > 0) else None"#),
            "{py}"
        );
    }
}
