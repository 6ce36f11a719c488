//! An atomic group whose writes the plan made one update of one document
//! (`same:` in the model, a layout that keeps them in that document): the
//! group's function calls the operation whose plan holds that update. It
//! sends one `updateOne`, atomic with no transaction, and tells the caller
//! when nothing matched as the operation's `otherwise` says (issue 41).

use super::code::OpCode;
use super::compensate::{UndoGroup, params};
use crate::design::{Design, Warning};
use crate::words::script::comment as c;
use std::fmt::Write as _;

/// The merged groups of the design, in the order of the operation whose
/// plan holds the update; each group's `ops` is that operation alone.
pub(super) fn groups(design: &Design, ops: &[OpCode]) -> Vec<UndoGroup> {
    let mut out: Vec<UndoGroup> = Vec::new();
    for (i, plan) in design.operations.iter().enumerate() {
        for w in &plan.warnings {
            if let Warning::MergedWrite {
                group,
                carries: true,
                ..
            } = w
                && !out.iter().any(|g| g.name == *group)
            {
                out.push(UndoGroup {
                    name: group.clone(),
                    function: String::new(),
                    ops: vec![i],
                    ..UndoGroup::default()
                });
            }
        }
    }
    super::compensate::name_functions(&mut out, ops);
    out
}

fn header(g: &UndoGroup, ops: &[OpCode], comment: &str) -> String {
    format!(
        "{comment} {} — atomic group: one update of one document ({}), atomic with no transaction; when nothing matches, nothing is written\n",
        c(&g.name),
        c(&ops[g.ops[0]].name)
    )
}

fn names(g: &UndoGroup, ops: &[OpCode]) -> Vec<String> {
    let ps = params(g, ops);
    super::compensate::signature(&ps)
        .into_iter()
        .map(str::to_string)
        .collect()
}

pub(super) fn mongosh(g: &UndoGroup, ops: &[OpCode]) -> String {
    let args = names(g, ops).join(", ");
    let mut out = header(g, ops, "//");
    let _ = writeln!(out, "function {}({args}) {{", g.function);
    let _ = writeln!(out, "  return {}({args});\n}}", ops[g.ops[0]].function);
    out
}

pub(super) fn node(g: &UndoGroup, ops: &[OpCode]) -> String {
    let mut args = vec!["db".to_string()];
    args.extend(names(g, ops));
    let args = args.join(", ");
    let mut out = header(g, ops, "//");
    let _ = writeln!(out, "async function {}({args}) {{", g.function);
    let _ = writeln!(
        out,
        "  return await {}({args});\n}}",
        ops[g.ops[0]].function
    );
    out
}

pub(super) fn python(g: &UndoGroup, ops: &[OpCode]) -> String {
    let mut args = vec!["db".to_string()];
    args.extend(names(g, ops));
    let args = args.join(", ");
    let mut out = header(g, ops, "#");
    let _ = writeln!(out, "def {}({args}):", g.function);
    let _ = writeln!(out, "    return {}({args})", ops[g.ops[0]].function);
    out
}
