//! An atomic group kept without a transaction (`otherwise: undo`): its
//! operations are separate functions, so the undo the plan promises needs
//! one function that runs them in order, the conditional write last, and
//! when that write matches nothing, or any write throws (a duplicate key),
//! deletes what the earlier ones inserted and fails (naming the group when
//! nothing matched, with the write's own error otherwise). Only inserts can
//! be undone without
//! knowing the values a write replaced: any other earlier write is named
//! in a warning above the function, for the application to undo.

use super::code::{Expr, OpCode, StepCode, Update};
use super::render::{Lang, matched_nothing};
use crate::design::{Action, Design, Warning};
use crate::model::Otherwise;
use crate::words::script::{self, comment as c};
use std::fmt::Write as _;

/// One compensated group: its function's name, the operations in the
/// order they run (indexes into the cookbook's operations, the conditional
/// one last), and that one's step whose nothing-matched triggers the undo.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct UndoGroup {
    pub name: String,
    pub function: String,
    pub ops: Vec<usize>,
    pub step: String,
    /// With `same:`: what ties its inserts' references to its one
    /// instance (same.rs).
    pub one: Option<super::same::One>,
}

/// The compensated groups of the design, in the order of their first
/// operation. `ops` are the cookbook's operations (one per plan, same order).
pub(super) fn groups(design: &Design, ops: &[OpCode]) -> Vec<UndoGroup> {
    let mut out: Vec<UndoGroup> = Vec::new();
    for (i, plan) in design.operations.iter().enumerate() {
        for w in &plan.warnings {
            let Warning::Compensated { group } = w else {
                continue;
            };
            match out.iter_mut().find(|g| g.name == *group) {
                Some(g) => g.ops.push(i),
                None => out.push(UndoGroup {
                    name: group.clone(),
                    function: String::new(),
                    ops: vec![i],
                    ..UndoGroup::default()
                }),
            }
        }
    }
    let undoes = |i: &usize| {
        ops.get(*i).and_then(|o| {
            o.steps
                .iter()
                .find(|s| s.otherwise == Some(Otherwise::Undo))
                .map(|s| s.key.clone())
        })
    };
    out.retain_mut(|g| {
        // The conditional write runs last (the plan's compensation).
        let Some(pos) = g.ops.iter().position(|i| undoes(i).is_some()) else {
            return false;
        };
        let last = g.ops.remove(pos);
        g.step = undoes(&last).unwrap_or_default();
        g.ops.push(last);
        true
    });
    name_functions(&mut out, ops);
    for g in &mut out {
        g.one = super::same::bind(design, ops, &g.name, &g.ops);
    }
    out
}

/// Names each group's function after the group, `_group` after it where an
/// operation's function has that name.
pub(super) fn name_functions(groups: &mut [UndoGroup], ops: &[OpCode]) {
    for g in groups {
        let base = super::code::ident(&g.name);
        let taken = |f: &str| ops.iter().any(|o| o.function == f);
        g.function = if taken(&base) {
            format!("{base}_group")
        } else {
            base
        };
    }
}

/// A parameter of the group's function: its name there, and the
/// operation (an index into the cookbook's operations) and parameter of
/// that operation it is passed as.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct GroupParam {
    pub name: String,
    pub op: usize,
    pub param: String,
}

/// Names the group's function's body uses besides its operations':
/// `db`, its results (`out`), the caught error (`e`), and the builtins
/// the undo calls. A parameter of one of these names would hide it.
/// A transaction group's function (together.rs) also holds its
/// `session` (`sdb` in mongosh).
const BODY_NAMES: [&str; 9] = [
    "db",
    "out",
    "e",
    "list",
    "Object",
    "Error",
    "RuntimeError",
    "session",
    "sdb",
];

/// The parameters of the group's function, each operation's in order. A
/// name two operations share stands for two values (a `status` of each),
/// so each such one is qualified by its operation's function
/// (`redeem_record_status`); a name only one operation has stays as it is.
/// No parameter takes the name of a function of the cookbook (an
/// insert's `new_order` beside an operation `new_order` would hide the
/// function the body calls: `new_order(new_order)`, a TypeError), of the
/// group's own function, or one the body uses (`BODY_NAMES`): it is
/// numbered (`new_order_2`) like a qualified name another already has.
pub(super) fn params(g: &UndoGroup, ops: &[OpCode]) -> Vec<GroupParam> {
    let called = |name: &str| {
        ops.iter().any(|o| o.function == name) || g.function == name || BODY_NAMES.contains(&name)
    };
    let shared = |name: &str| {
        g.ops
            .iter()
            .filter(|&&i| ops[i].params.iter().any(|p| p.name == name))
            .count()
            > 1
    };
    // An amount the model names (`units`) in several operations of the
    // group is one amount: the function takes it once and passes it to
    // each (a hold of `units` and a take of `units` are of one call).
    let one_amount = |name: &str| {
        g.ops.iter().all(|&i| {
            ops[i]
                .params
                .iter()
                .all(|p| p.name != name || p.kind == super::code::ParamKind::Amount)
        })
    };
    // `same:`: the parameters naming the group's one instance are one
    // parameter, under the first one's own name (same.rs `One::ids`).
    let instance: &[(usize, String)] = g.one.as_ref().map_or(&[], |o| o.ids.as_slice());
    let names_instance = |i: usize, name: &str| instance.iter().any(|(j, n)| *j == i && n == name);
    let mut out: Vec<GroupParam> = Vec::new();
    for &i in &g.ops {
        for p in &ops[i].params {
            if names_instance(i, &p.name)
                && let Some(first) = out.iter().find(|q| names_instance(q.op, &q.param))
            {
                out.push(GroupParam {
                    name: first.name.clone(),
                    op: i,
                    param: p.name.clone(),
                });
                continue;
            }
            if shared(&p.name) && one_amount(&p.name) {
                let first = out
                    .iter()
                    .find(|q| {
                        q.param == p.name
                            && ops[q.op].params.iter().any(|x| {
                                x.name == p.name && x.kind == super::code::ParamKind::Amount
                            })
                    })
                    .map(|q| q.name.clone());
                if let Some(name) = first {
                    out.push(GroupParam {
                        name,
                        op: i,
                        param: p.name.clone(),
                    });
                    continue;
                }
            }
            let amount = shared(&p.name) && one_amount(&p.name);
            let one = names_instance(i, &p.name);
            let mut name = if shared(&p.name) && !amount && !one {
                super::code::ident(&format!("{}_{}", ops[i].function, p.name))
            } else {
                p.name.clone()
            };
            // A qualified name may be another operation's own: numbered.
            let base = name.clone();
            let mut n = 1;
            while out.iter().any(|q| q.name == name)
                || called(&name)
                || g.ops.iter().any(|&j| {
                    j != i
                        && ops[j].params.iter().any(|q| {
                            q.name == name
                                && !(amount && q.name == p.name)
                                && !(one && names_instance(j, &q.name))
                        })
                })
            {
                n += 1;
                name = format!("{base}_{n}");
            }
            out.push(GroupParam {
                name,
                op: i,
                param: p.name.clone(),
            });
        }
    }
    out
}

/// The group function's parameters, each once: an amount several
/// operations take is one parameter (`params`).
pub(super) fn signature(ps: &[GroupParam]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for p in ps {
        if !out.contains(&p.name.as_str()) {
            out.push(&p.name);
        }
    }
    out
}

/// The lines, in `lang`, that tie the group's inserted documents to its
/// one instance before its first write (`same:`, same.rs).
pub(super) fn bound(lang: Lang, g: &UndoGroup, ps: &[GroupParam], indent: &str) -> String {
    let Some(one) = &g.one else {
        return String::new();
    };
    let name = |op: usize, param: &str| {
        ps.iter()
            .find(|p| p.op == op && p.param == param)
            .map(|p| p.name.clone())
    };
    match lang {
        Lang::Python => super::same::python(one, &g.name, &name, indent),
        _ => super::same::js(one, &g.name, &name, indent),
    }
}

/// The arguments the group's function passes operation `i`: its own
/// parameters, under their names in the group's function.
fn args_of(ps: &[GroupParam], i: usize) -> Vec<&str> {
    ps.iter()
        .filter(|p| p.op == i)
        .map(|p| p.name.as_str())
        .collect()
}

/// The result of step `key` of operation `op`, as the group's function
/// holds it (`out["redeem_record"]["redemption"]`).
fn result_of(op: &OpCode, key: &str) -> String {
    format!(
        "out[{}][{}]",
        script::js_string(&op.function),
        script::js_string(key)
    )
}

/// The undo of each earlier write, latest first: a delete of what an
/// insert wrote, only where its operation finished and the insert ran
/// (the group may have failed before it, or a `when` skipped it). Other
/// writes cannot be undone from their result: they are listed for the
/// warning.
fn undo_lines(
    lang: Lang,
    g: &UndoGroup,
    ops: &[OpCode],
    db: &str,
    indent: &str,
) -> (String, Vec<String>) {
    let mut lines = String::new();
    let mut left = Vec::new();
    let aw = if lang == Lang::Node { "await " } else { "" };
    let ps = params(g, ops);
    for &i in g.ops[..g.ops.len() - 1].iter().rev() {
        let op = &ops[i];
        for s in op.steps.iter().rev() {
            let r = result_of(op, &s.key);
            let coll = match lang {
                Lang::Python => format!("{db}[{}]", script::js_string(&s.collection)),
                Lang::Node => format!("{db}.collection({})", script::js_string(&s.collection)),
                Lang::Mongosh => {
                    format!("{db}.getCollection({})", script::js_string(&s.collection))
                }
            };
            // An update that only adds amounts is undone by adding them
            // back, on the document its filter found, once it matched.
            if let Some(undo) = reversed(lang, s, &ps, i) {
                let (f, k) = (script::js_string(&op.function), script::js_string(&s.key));
                let line = match lang {
                    Lang::Python => format!("{coll}.update_one({undo})"),
                    _ => format!("{aw}{coll}.updateOne({undo})"),
                };
                let _ = match lang {
                    Lang::Python => writeln!(
                        lines,
                        "{indent}if (out.get({f}) or {{}}).get({k}) and {r}[\"matched_count\"] > 0:\n{indent}    {line}"
                    ),
                    _ => writeln!(
                        lines,
                        "{indent}if (out[{f}] !== undefined && out[{f}][{k}] && {r}.matchedCount > 0) {line};"
                    ),
                };
                continue;
            }
            let line = match (s.action, lang) {
                (Action::Find | Action::GraphLookup, _) => continue,
                (Action::InsertOne, Lang::Python) => {
                    format!("{coll}.delete_one({{\"_id\": {r}[\"inserted_id\"]}})")
                }
                (Action::InsertOne, _) => {
                    format!("{aw}{coll}.deleteOne({{\"_id\": {r}.insertedId}})")
                }
                (Action::InsertMany, Lang::Python) => {
                    format!(
                        "{coll}.delete_many({{\"_id\": {{\"$in\": list({r}[\"inserted_ids\"])}}}})"
                    )
                }
                (Action::InsertMany, _) => format!(
                    "{aw}{coll}.deleteMany({{\"_id\": {{\"$in\": Object.values({r}.insertedIds)}}}})"
                ),
                _ => {
                    left.push(format!(
                        "{} ({} of {})",
                        op.name,
                        super::action_name(s.action),
                        s.collection
                    ));
                    continue;
                }
            };
            let f = script::js_string(&op.function);
            let k = script::js_string(&s.key);
            let _ = match lang {
                Lang::Python => writeln!(
                    lines,
                    "{indent}if (out.get({f}) or {{}}).get({k}):\n{indent}    {line}"
                ),
                _ => writeln!(
                    lines,
                    "{indent}if (out[{f}] !== undefined && out[{f}][{k}]) {line};"
                ),
            };
        }
    }
    (lines, left)
}

/// The filter and update, in `lang`, that undo step `s` of operation
/// `op`: an `updateOne` that only adds amounts (`$inc available by
/// -quantity`, a constant, a counter) is undone by adding each amount's
/// opposite on the document the same filter finds, less the write's
/// conditions (`available >= quantity` no longer holds once the amount
/// was taken). Parameters are named as the group's function passes them.
/// `None` for any other write, and for a filter that reads an earlier
/// step's result or a part of the call the group does not keep: the
/// warning above the function names it for the application.
fn reversed(lang: Lang, s: &StepCode, ps: &[GroupParam], op: usize) -> Option<String> {
    if s.action != Action::UpdateOne
        || s.updates.is_empty()
        || s.each.is_some()
        || s.when.is_some()
        || s.every.is_some()
        || s.chunks.is_some()
        || !s.array_filters.is_empty()
    {
        return None;
    }
    let name = |n: &str| {
        ps.iter()
            .find(|p| p.op == op && p.param == n)
            .map(|p| p.name.clone())
    };
    let mut undo = s.clone();
    undo.filter = Vec::new();
    for (path, e) in &s.filter {
        let e = match e {
            // A condition of the write: not tested by its undo.
            Expr::Test(..) | Expr::Fields(..) | Expr::ElementFields { .. } | Expr::Added { .. } => {
                continue;
            }
            Expr::Param(n) => Expr::Param(name(n)?),
            Expr::In(n) => Expr::In(name(n)?),
            Expr::Range(a, b) => Expr::Range(name(a)?, name(b)?),
            _ => return None,
        };
        undo.filter.push((path.clone(), e));
    }
    if undo.filter.is_empty() {
        return None;
    }
    undo.updates = Vec::new();
    for u in &s.updates {
        let Update::Inc(path, by) = u else {
            return None;
        };
        let back = match by {
            Expr::Amount(n) => Expr::Amount(-n),
            Expr::Number(n) => Expr::Number(-n),
            Expr::Param(n) => Expr::Negated(name(n)?),
            Expr::Negated(n) => Expr::Param(name(n)?),
            // A sum the inserted child raised by its own value falls by
            // it (audit48 A4: a declined hold left the account's held
            // sum raised while the report said it was taken back).
            Expr::OwnValue {
                param,
                field,
                function: crate::model::AggregateFn::Sum,
                bson_type,
            } => Expr::NegatedOf(Box::new(Expr::OwnValue {
                param: name(param)?,
                field: field.clone(),
                function: crate::model::AggregateFn::Sum,
                bson_type: bson_type.clone(),
            })),
            _ => return None,
        };
        undo.updates.push(Update::Inc(path.clone(), back));
    }
    Some(super::render::filter_and_update(lang, &undo))
}

fn header(g: &UndoGroup, ops: &[OpCode], comment: &str, left: &[String]) -> String {
    let names: Vec<&str> = g.ops.iter().map(|&i| ops[i].name.as_str()).collect();
    let last = names.last().copied().unwrap_or_default();
    // Which earlier writes the undo takes back: what an insert wrote, and
    // the amounts an update added (`$inc` back by the opposite).
    let ps = params(g, ops);
    let adds = g.ops[..g.ops.len() - 1].iter().any(|&i| {
        ops[i]
            .steps
            .iter()
            .any(|s| reversed(Lang::Python, s, &ps, i).is_some())
    });
    let undone = if adds {
        "the inserts before it are deleted and the amounts added before it taken back"
    } else {
        "the inserts before it are undone"
    };
    let mut out = format!(
        "{comment} {} — atomic group: {}; when {} matches nothing, or any of them fails, {undone} and the call fails\n",
        c(&g.name),
        c(&names.join(", then ")),
        c(last)
    );
    if !left.is_empty() {
        let _ = writeln!(
            out,
            "{comment} WARNING: only inserts and updates that only add amounts (`$inc`) are undone here; the application must undo {}",
            c(&left.join(", "))
        );
    }
    // An operation that fails part-way returns nothing: what its own
    // earlier steps wrote is not known here.
    if g.ops.iter().any(|&i| ops[i].steps.len() > 1) {
        let _ = writeln!(
            out,
            "{comment} WARNING: an operation that fails part-way leaves its own earlier steps' writes, for the application to undo"
        );
    }
    out
}

fn message(g: &UndoGroup, ops: &[OpCode]) -> String {
    let last = g.ops.last().map_or("", |&i| ops[i].name.as_str());
    script::js_string(&format!(
        "{}: nothing matched in {last}; the group's earlier writes were undone",
        g.name
    ))
}

/// The group's function in mongosh (`node`: the Node.js async version):
/// its operations in a `try`, the nothing-matched test last; any error
/// (that one, a duplicate key, a refused document) undoes the inserts the
/// finished operations made, then goes on to the caller.
fn js(g: &UndoGroup, ops: &[OpCode], node: bool) -> String {
    let lang = if node { Lang::Node } else { Lang::Mongosh };
    let (undo, left) = undo_lines(lang, g, ops, "db", "    ");
    let ps = params(g, ops);
    let mut names: Vec<&str> = signature(&ps);
    if node {
        names.insert(0, "db");
    }
    let mut out = header(g, ops, "//", &left);
    let (kw, aw) = if node {
        ("async function", "await ")
    } else {
        ("function", "")
    };
    let _ = writeln!(out, "{kw} {}({}) {{", g.function, names.join(", "));
    out.push_str(&bound(lang, g, &ps, "  "));
    out.push_str("  const out = {};\n  try {\n");
    for &i in &g.ops {
        let op = &ops[i];
        let mut args: Vec<&str> = if node { vec!["db"] } else { vec![] };
        args.extend(args_of(&ps, i));
        let _ = writeln!(
            out,
            "    out[{}] = {aw}{}({});",
            script::js_string(&op.function),
            op.function,
            args.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "    if ({}) throw new Error({});\n  }} catch (e) {{\n{undo}    throw e;\n  }}\n  return out;\n}}",
        last_matched_nothing(lang, g, ops),
        message(g, ops)
    );
    out
}

/// The test, in `lang`, that the group's last operation (its conditional
/// write) matched nothing: the condition on which the group is undone.
fn last_matched_nothing(lang: Lang, g: &UndoGroup, ops: &[OpCode]) -> String {
    let last = &ops[*g.ops.last().unwrap_or(&0)];
    let action = last
        .steps
        .iter()
        .find(|s| s.key == g.step)
        .map_or(Action::UpdateOne, |s| s.action);
    matched_nothing(lang, action, &result_of(last, &g.step))
}

pub(super) fn mongosh(g: &UndoGroup, ops: &[OpCode]) -> String {
    js(g, ops, false)
}

pub(super) fn node(g: &UndoGroup, ops: &[OpCode]) -> String {
    js(g, ops, true)
}

/// The group's function in Python, as `js` (`BaseException`: an interrupt
/// part-way undoes the inserts too, and is raised again).
pub(super) fn python(g: &UndoGroup, ops: &[OpCode]) -> String {
    let (undo, left) = undo_lines(Lang::Python, g, ops, "db", "        ");
    let ps = params(g, ops);
    let mut names = vec!["db"];
    names.extend(signature(&ps));
    let mut out = header(g, ops, "#", &left);
    let _ = writeln!(out, "def {}({}):", g.function, names.join(", "));
    out.push_str(&bound(Lang::Python, g, &ps, "    "));
    out.push_str("    out = {}\n    try:\n");
    for &i in &g.ops {
        let op = &ops[i];
        let mut args = vec!["db"];
        args.extend(args_of(&ps, i));
        let _ = writeln!(
            out,
            "        out[{}] = {}({})",
            script::js_string(&op.function),
            op.function,
            args.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "        if {}:\n            raise RuntimeError({})\n    except BaseException:\n{undo}        raise\n    return out",
        last_matched_nothing(Lang::Python, g, ops),
        message(g, ops)
    );
    out
}

#[cfg(test)]
mod tests {
    fn s16() -> (crate::design::Design, Vec<super::OpCode>) {
        let text = crate::rules::testing::example("scenarios/s16-coupons.yaml");
        let model = crate::inputs::model_file::parse("m.yaml", &text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let ops = super::super::op_codes(&d);
        (d, ops)
    }

    /// Fixture stock-take: `take` tests and takes the caller's `quantity`
    /// in one write, in every language (audit43 B).
    #[test]
    fn a_take_writes_the_callers_amount_into_the_filter_and_the_inc() {
        let (d, ops) = stock_take();
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains("def take(db, stock_id, quantity):\n")
                && py.contains("update_one({\"_id\": stock_id, \"available\": {\"$gte\": quantity}}, {\"$inc\": {\"available\": _negated(quantity)}})"),
            "{py}"
        );
        for text in [
            super::super::node(&d, &ops),
            super::super::mongosh(&d, &ops),
        ] {
            assert!(
                text.contains("updateOne({\"_id\": stock_id, \"available\": {\"$gte\": quantity}}, {\"$inc\": {\"available\": negated(quantity)}})"),
                "{text}"
            );
        }
        // The plan says the condition and what happens when nothing matches.
        let text = crate::outputs::design::text::render(&d, false);
        assert!(
            text.contains("1. updateOne stock { _id: eq (parameter) } only if available >= quantity (the caller's amount) $inc available by -quantity (the caller's amount) using index _id_ → 1 document; if nothing matches: the operation fails and tells the caller\n"),
            "{text}"
        );
    }

    /// Fixture stock-take: the group `reserve` adds the caller's `units`
    /// to the warehouse, then takes them from the stock on a condition.
    /// When the take matches nothing, the undo adds the opposite to the
    /// warehouse (it once left the `$inc` for the application, undoing
    /// inserts only), in every language; the plan says so.
    #[test]
    fn an_undo_group_takes_an_earlier_inc_back() {
        let (d, ops) = stock_take();
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains("    except BaseException:\n        if (out.get(\"hold\") or {}).get(\"warehouse\") and out[\"hold\"][\"warehouse\"][\"matched_count\"] > 0:\n            db[\"warehouse\"].update_one({\"_id\": warehouse_id}, {\"$inc\": {\"held\": _negated(units)}})\n        raise\n"),
            "{py}"
        );
        assert!(!py.contains("the application must undo hold"), "{py}");
        // One amount for the group: the hold and the take name `units`.
        assert!(
            py.contains("def reserve(db, warehouse_id, units, stock_id):\n")
                && py.contains("hold(db, warehouse_id, units)\n")
                && py.contains("take_held(db, stock_id, units)\n"),
            "{py}"
        );
        let node = super::super::node(&d, &ops);
        assert!(
            node.contains("    if (out[\"hold\"] !== undefined && out[\"hold\"][\"warehouse\"] && out[\"hold\"][\"warehouse\"].matchedCount > 0) await db.collection(\"warehouse\").updateOne({\"_id\": warehouse_id}, {\"$inc\": {\"held\": negated(units)}});\n"),
            "{node}"
        );
        let sh = super::super::mongosh(&d, &ops);
        assert!(
            sh.contains("db.getCollection(\"warehouse\").updateOne({\"_id\": warehouse_id}, {\"$inc\": {\"held\": negated(units)}});\n"),
            "{sh}"
        );
        let text = crate::outputs::design::text::render(&d, false);
        assert!(
            text.contains("warning: when take_held then matches nothing, the undo of atomic group `reserve` takes back what step 1 added: $inc held by -units (the caller's amount) on the document the step's filter finds\n"),
            "{text}"
        );
        let hold = d.operations.iter().find(|p| p.operation == "hold").unwrap();
        let back: Vec<&crate::design::Warning> = hold
            .warnings
            .iter()
            .filter(|w| matches!(w, crate::design::Warning::TakenBack { .. }))
            .collect();
        assert_eq!(
            back,
            [&crate::design::Warning::TakenBack {
                group: "reserve".into(),
                then: "take_held".into(),
                step: 1,
                reversed: vec![crate::design::UpdateOp::Inc {
                    path: "held".into(),
                    by: Some(-1.0),
                    amount: Some("units".into()),
                }],
            }]
        );
    }

    fn stock_take() -> (crate::design::Design, Vec<super::OpCode>) {
        let (_, d) = crate::fixtures::load("stock-take");
        let ops = super::super::op_codes(&d);
        (d, ops)
    }

    /// coupon-checkout with `place_order` named `new_order`, the name of
    /// its insert's parameter.
    fn checkout_with_new_order() -> (crate::design::Design, Vec<super::OpCode>) {
        let text = include_str!("../../../tests/fixtures/coupon-checkout.yaml")
            .replace("place_order", "new_order");
        let model = crate::inputs::model_file::parse("m.yaml", &text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let ops = super::super::op_codes(&d);
        (d, ops)
    }

    fn checkout() -> (crate::design::Design, Vec<super::OpCode>) {
        let (_, d) = crate::fixtures::load("coupon-checkout");
        let ops = super::super::op_codes(&d);
        (d, ops)
    }

    /// S16's `redeem` group is kept by undoing the redemption when the
    /// coupon has none left: one function runs the insert, then the
    /// conditional decrement, and when that matched nothing (or any write
    /// threw) deletes the redemption it inserted and fails, in all three
    /// languages.
    #[test]
    fn an_undo_group_deletes_what_it_inserted_and_fails() {
        let (d, ops) = s16();
        let groups = super::groups(&d, &ops);
        assert_eq!(groups.len(), 1, "{groups:?}");
        let names: Vec<&str> = groups[0]
            .ops
            .iter()
            .map(|&i| ops[i].name.as_str())
            .collect();
        assert_eq!(names, ["redeem_record", "redeem_decrement"]);
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains(
                "        if out[\"redeem_decrement\"][\"coupon\"][\"matched_count\"] == 0:\n            raise RuntimeError(\"redeem: nothing matched in redeem_decrement; the group's earlier writes were undone\")\n    except BaseException:\n        if (out.get(\"redeem_record\") or {}).get(\"redemption\"):\n            db[\"redemption\"].delete_one({\"_id\": out[\"redeem_record\"][\"redemption\"][\"inserted_id\"]})\n        raise\n"
            ),
            "{py}"
        );
        assert!(py.contains("UNDO = {"), "{py}");
        let node = super::super::node(&d, &ops);
        assert!(
            node.contains("  } catch (e) {\n    if (out[\"redeem_record\"] !== undefined && out[\"redeem_record\"][\"redemption\"]) await db.collection(\"redemption\").deleteOne({\"_id\": out[\"redeem_record\"][\"redemption\"].insertedId});\n    throw e;\n  }\n"),
            "{node}"
        );
        assert!(node.contains("redeem_decrement, redeem };"), "{node}");
        let sh = super::super::mongosh(&d, &ops);
        assert!(
            sh.contains("    if (out[\"redeem_decrement\"][\"coupon\"].matchedCount === 0) throw new Error(\"redeem: nothing matched in redeem_decrement; the group's earlier writes were undone\");\n  } catch (e) {\n    if (out[\"redeem_record\"] !== undefined && out[\"redeem_record\"][\"redemption\"]) db.getCollection(\"redemption\").deleteOne("),
            "{sh}"
        );
        let doc = super::super::markdown(&d, &ops);
        assert!(doc.contains("\n## redeem (atomic group)\n"), "{doc}");
        // The decrement alone does not fail: the group's function decides.
        assert!(!py.contains("redeem_decrement: nothing matched"), "{py}");
    }

    /// Every write of the group runs inside the `try` whose handler undoes
    /// the inserts: a duplicate key in the second insert of
    /// coupon-checkout's `checkout` deletes the first one's order (the
    /// handler tests which operations finished), then raises the error
    /// again, in all three languages (issue 41, review).
    #[test]
    fn an_undo_group_undoes_its_inserts_when_a_write_throws() {
        let (d, ops) = checkout();
        let py = super::super::python(&d, &ops);
        let body = py.split("def checkout(").nth(1).unwrap();
        let (tried, handler) = body.split_once("    except BaseException:\n").unwrap();
        for op in [
            "close_cart",
            "place_order",
            "redeem_record",
            "redeem_decrement",
        ] {
            assert!(
                tried.contains(&format!("        out[\"{op}\"] = {op}(db, ")),
                "{py}"
            );
        }
        assert!(
            handler.starts_with("        if (out.get(\"redeem_record\") or {}).get(\"redemption\"):\n            db[\"redemption\"].delete_one(")
                && handler.contains("        if (out.get(\"place_order\") or {}).get(\"order\"):\n            db[\"order\"].delete_one(")
                && handler.contains("        raise\n    return out"),
            "{py}"
        );
        for (text, aw) in [
            (super::super::node(&d, &ops), "await "),
            (super::super::mongosh(&d, &ops), ""),
        ] {
            let body = text.split("function checkout(").nth(1).unwrap();
            let (tried, handler) = body.split_once("  } catch (e) {\n").unwrap();
            assert!(
                tried.contains(") {\n  const out = {};\n  try {\n"),
                "{text}"
            );
            assert!(
                tried.contains(&format!("    out[\"place_order\"] = {aw}place_order(")),
                "{text}"
            );
            assert!(
                handler.contains(&format!("    if (out[\"place_order\"] !== undefined && out[\"place_order\"][\"order\"]) {aw}db."))
                    && handler.contains("    throw e;\n  }\n  return out;\n}"),
                "{text}"
            );
        }
    }

    /// coupon-checkout's cart and coupon each have a `status` the group's
    /// operations filter by: the group's function takes both, each under
    /// its operation's name, and passes each operation its own; names
    /// only one operation has stay as they are (issue 41, review).
    #[test]
    fn parameters_two_operations_share_stay_two() {
        let (d, ops) = checkout();
        let g = &super::groups(&d, &ops)[0];
        let ps: Vec<(String, String)> = super::params(g, &ops)
            .into_iter()
            .map(|p| (p.name, format!("{}.{}", ops[p.op].function, p.param)))
            .collect();
        let want = [
            ("customer_id", "close_cart.customer_id"),
            ("close_cart_status", "close_cart.status"),
            ("new_status", "close_cart.new_status"),
            ("new_order", "place_order.new_order"),
            ("new_redemption", "redeem_record.new_redemption"),
            ("code", "redeem_decrement.code"),
            ("redeem_decrement_status", "redeem_decrement.status"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
            .collect();
        assert_eq!(ps, want);
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains("def checkout(db, customer_id, close_cart_status, new_status, new_order, new_redemption, code, redeem_decrement_status):\n"),
            "{py}"
        );
        assert!(
            py.contains(
                "out[\"close_cart\"] = close_cart(db, customer_id, close_cart_status, new_status)\n"
            ),
            "{py}"
        );
        assert!(
            py.contains(
                "out[\"redeem_decrement\"] = redeem_decrement(db, code, redeem_decrement_status)\n"
            ),
            "{py}"
        );
        let node = super::super::node(&d, &ops);
        assert!(
            node.contains("await redeem_decrement(db, code, redeem_decrement_status);"),
            "{node}"
        );
        let sh = super::super::mongosh(&d, &ops);
        assert!(
            sh.contains("= close_cart(customer_id, close_cart_status, new_status);"),
            "{sh}"
        );
        // The Python module's UNDO says which is which, for callers.
        assert!(py.contains("\"name\": \"redeem_decrement_status\",\n        \"operation\": \"redeem_decrement\",\n        \"param\": \"status\""), "{py}");
    }
    /// An operation named like another's parameter (`new_order`, the
    /// parameter of an insert of `order`): the group's function calls the
    /// operation `new_order`, so its parameter cannot be `new_order`, or it
    /// would call the value (`new_order(db, new_order)`, a TypeError). The
    /// parameter is numbered, and each operation is called by its name
    /// with it, in every language (issue 41, review).
    #[test]
    fn a_parameter_never_hides_an_operations_function() {
        let (d, ops) = checkout_with_new_order();
        let g = &super::groups(&d, &ops)[0];
        let ps = super::params(g, &ops);
        for p in &ps {
            assert!(
                !ops.iter().any(|o| o.function == p.name),
                "{} hides a function: {ps:?}",
                p.name
            );
        }
        let order = ps
            .iter()
            .find(|p| ops[p.op].function == "new_order")
            .expect("new_order's parameter");
        assert_eq!(
            (order.name.as_str(), order.param.as_str()),
            ("new_order_2", "new_order")
        );
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains("        out[\"new_order\"] = new_order(db, new_order_2)\n"),
            "{py}"
        );
        let node = super::super::node(&d, &ops);
        assert!(
            node.contains("    out[\"new_order\"] = await new_order(db, new_order_2);\n"),
            "{node}"
        );
        let sh = super::super::mongosh(&d, &ops);
        assert!(
            sh.contains("    out[\"new_order\"] = new_order(new_order_2);\n"),
            "{sh}"
        );
    }
}
