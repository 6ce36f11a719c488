//! An atomic group kept without a transaction (`otherwise: undo`): its
//! operations are separate functions, so the undo the plan promises needs
//! one function that runs them in order, the conditional write last, and
//! when that write matches nothing deletes what the earlier ones inserted
//! and throws, naming the group. Only inserts can be undone without
//! knowing the values a write replaced: any other earlier write is named
//! in a warning above the function, for the application to undo.

use super::code::OpCode;
use super::render::{Lang, matched_nothing};
use crate::design::{Action, Design, Warning};
use crate::model::Otherwise;
use crate::words::script::{self, comment as c};
use std::fmt::Write as _;

/// One compensated group: its function's name, the operations in the
/// order they run (indexes into the cookbook's operations, the conditional
/// one last), and that one's step whose nothing-matched triggers the undo.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct UndoGroup {
    pub name: String,
    pub function: String,
    pub ops: Vec<usize>,
    pub step: String,
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
                    step: String::new(),
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
    for g in &mut out {
        let base = super::code::ident(&g.name);
        let taken = |f: &str| ops.iter().any(|o| o.function == f);
        g.function = if taken(&base) {
            format!("{base}_group")
        } else {
            base
        };
    }
    out
}

/// The parameters of the group's function: each operation's, once.
fn params<'o>(g: &UndoGroup, ops: &'o [OpCode]) -> Vec<&'o str> {
    let mut out: Vec<&str> = Vec::new();
    for &i in &g.ops {
        for p in &ops[i].params {
            if !out.contains(&p.name.as_str()) {
                out.push(&p.name);
            }
        }
    }
    out
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
/// insert wrote. Other writes cannot be undone from their result: they
/// are listed for the warning.
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
            let end = if lang == Lang::Python { "" } else { ";" };
            let _ = writeln!(lines, "{indent}{line}{end}");
        }
    }
    (lines, left)
}

fn header(g: &UndoGroup, ops: &[OpCode], comment: &str, left: &[String]) -> String {
    let names: Vec<&str> = g.ops.iter().map(|&i| ops[i].name.as_str()).collect();
    let last = names.last().copied().unwrap_or_default();
    let mut out = format!(
        "{comment} {} — atomic group: {}; when {} matches nothing, the writes before it are undone and the call fails\n",
        c(&g.name),
        c(&names.join(", then ")),
        c(last)
    );
    if !left.is_empty() {
        let _ = writeln!(
            out,
            "{comment} WARNING: only inserts are undone here; the application must undo {}",
            c(&left.join(", "))
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

/// The group's function in mongosh (`node`: the Node.js async version).
fn js(g: &UndoGroup, ops: &[OpCode], node: bool) -> String {
    let lang = if node { Lang::Node } else { Lang::Mongosh };
    let (undo, left) = undo_lines(lang, g, ops, "db", "    ");
    let mut ps = params(g, ops);
    if node {
        ps.insert(0, "db");
    }
    let mut out = header(g, ops, "//", &left);
    let (kw, aw) = if node {
        ("async function", "await ")
    } else {
        ("function", "")
    };
    let _ = writeln!(out, "{kw} {}({}) {{", g.function, ps.join(", "));
    out.push_str("  const out = {};\n");
    for &i in &g.ops {
        let op = &ops[i];
        let mut args: Vec<&str> = if node { vec!["db"] } else { vec![] };
        args.extend(op.params.iter().map(|p| p.name.as_str()));
        let _ = writeln!(
            out,
            "  out[{}] = {aw}{}({});",
            script::js_string(&op.function),
            op.function,
            args.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "  if ({}) {{\n{undo}    throw new Error({});\n  }}\n  return out;\n}}",
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

pub(super) fn python(g: &UndoGroup, ops: &[OpCode]) -> String {
    let (undo, left) = undo_lines(Lang::Python, g, ops, "db", "        ");
    let mut ps = vec!["db"];
    ps.extend(params(g, ops));
    let mut out = header(g, ops, "#", &left);
    let _ = writeln!(out, "def {}({}):", g.function, ps.join(", "));
    out.push_str("    out = {}\n");
    for &i in &g.ops {
        let op = &ops[i];
        let mut args = vec!["db"];
        args.extend(op.params.iter().map(|p| p.name.as_str()));
        let _ = writeln!(
            out,
            "    out[{}] = {}({})",
            script::js_string(&op.function),
            op.function,
            args.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "    if {}:\n{undo}        raise RuntimeError({})\n    return out",
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

    /// S16's `redeem` group is kept by undoing the redemption when the
    /// coupon has none left: one function runs the insert, then the
    /// conditional decrement, and when that matched nothing deletes the
    /// redemption it inserted and fails, in all three languages.
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
                "    if out[\"redeem_decrement\"][\"coupon\"][\"matched_count\"] == 0:\n        db[\"redemption\"].delete_one({\"_id\": out[\"redeem_record\"][\"redemption\"][\"inserted_id\"]})\n        raise RuntimeError(\"redeem: nothing matched in redeem_decrement"
            ),
            "{py}"
        );
        assert!(py.contains("UNDO = {"), "{py}");
        let node = super::super::node(&d, &ops);
        assert!(
            node.contains("await db.collection(\"redemption\").deleteOne({\"_id\": out[\"redeem_record\"][\"redemption\"].insertedId});\n    throw new Error(\"redeem: nothing matched"),
            "{node}"
        );
        assert!(node.contains("redeem_decrement, redeem };"), "{node}");
        let sh = super::super::mongosh(&d, &ops);
        assert!(
            sh.contains("  if (out[\"redeem_decrement\"][\"coupon\"].matchedCount === 0) {\n    db.getCollection(\"redemption\").deleteOne("),
            "{sh}"
        );
        let doc = super::super::markdown(&d, &ops);
        assert!(doc.contains("\n## redeem (atomic group)\n"), "{doc}");
        // The decrement alone does not fail: the group's function decides.
        assert!(!py.contains("redeem_decrement: nothing matched"), "{py}");
    }
}
