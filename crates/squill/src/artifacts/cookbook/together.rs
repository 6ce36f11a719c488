//! An atomic group kept by a transaction: its operations are separate
//! functions, and each alone runs in a transaction of its own, which does
//! not make the group atomic (the money leaves one account in one
//! transaction and arrives in the other in a second). The group's
//! function runs them in order in one transaction, passing each its
//! session (render.rs), so that a failure in any of them (a conditional
//! write that matched nothing) aborts what the others wrote (issue 41).

use super::code::OpCode;
use super::compensate::{GroupParam, UndoGroup, bound, params, signature};
use super::render::Lang;
use crate::design::{Design, Warning};
use crate::words::script::{self, comment as c};
use std::fmt::Write as _;

/// The groups the plans run in a transaction, in the order of their first
/// operation, each with its operations in the order of the cookbook's.
pub(super) fn groups(design: &Design, ops: &[OpCode]) -> Vec<UndoGroup> {
    let mut out: Vec<UndoGroup> = Vec::new();
    for (i, plan) in design.operations.iter().enumerate() {
        for w in &plan.warnings {
            let Warning::Transaction { group, .. } = w else {
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
    // A group of one operation is that operation's own transaction.
    out.retain(|g| g.ops.len() > 1);
    super::compensate::name_functions(&mut out, ops);
    for g in &mut out {
        g.one = super::same::bind(design, ops, &g.name, &g.ops);
    }
    out
}

fn args_of<'p>(ps: &'p [GroupParam], i: usize, first: &'p str, last: &'p str) -> String {
    let mut args: Vec<&str> = Vec::new();
    if !first.is_empty() {
        args.push(first);
    }
    args.extend(ps.iter().filter(|p| p.op == i).map(|p| p.name.as_str()));
    args.push(last);
    args.join(", ")
}

fn header(g: &UndoGroup, ops: &[OpCode], comment: &str) -> String {
    let names: Vec<&str> = g.ops.iter().map(|&i| ops[i].name.as_str()).collect();
    format!(
        "{comment} {} — atomic group: {}, in one transaction; when any of them fails (a conditional write that matches nothing), none of their writes stays\n",
        c(&g.name),
        c(&names.join(", then "))
    )
}

fn key(op: &OpCode) -> String {
    script::js_string(&op.function)
}

/// The group's function in mongosh: each operation given the session's
/// database, in a transaction retried on a transient error
/// (`render::mongosh_transaction`).
pub(super) fn mongosh(g: &UndoGroup, ops: &[OpCode]) -> String {
    let ps = params(g, ops);
    let names: Vec<&str> = signature(&ps);
    let mut out = header(g, ops, "//");
    let _ = writeln!(out, "function {}({}) {{", g.function, names.join(", "));
    out.push_str(&bound(Lang::Mongosh, g, &ps, "  "));
    let mut body: Vec<String> = vec![
        "const sdb = session.getDatabase(db.getName());".into(),
        "const out = {};".into(),
    ];
    for &i in &g.ops {
        let op = &ops[i];
        body.push(format!(
            "out[{}] = {}({});",
            key(op),
            op.function,
            args_of(&ps, i, "", "sdb")
        ));
    }
    let body: Vec<&str> = body.iter().map(String::as_str).collect();
    out.push_str(&super::render::mongosh_transaction(&body, "  "));
    out.push_str("}\n");
    out
}

/// The group's function in Node.js: each operation given the session,
/// inside `withTransaction` (which runs them again on a transient error).
pub(super) fn node(g: &UndoGroup, ops: &[OpCode]) -> String {
    let ps = params(g, ops);
    let mut names = vec!["db"];
    names.extend(signature(&ps));
    let mut out = header(g, ops, "//");
    let _ = writeln!(
        out,
        "async function {}({}) {{",
        g.function,
        names.join(", ")
    );
    out.push_str(&bound(Lang::Node, g, &ps, "  "));
    out.push_str("  const session = db.client.startSession();\n  try {\n    let out;\n");
    out.push_str("    await session.withTransaction(async () => {\n      out = {};\n");
    for &i in &g.ops {
        let op = &ops[i];
        let _ = writeln!(
            out,
            "      out[{}] = await {}({});",
            key(op),
            op.function,
            args_of(&ps, i, "db", "session")
        );
    }
    out.push_str(
        "    });\n    return out;\n  } finally {\n    await session.endSession();\n  }\n}\n",
    );
    out
}

/// The group's function in Python: each operation given the session, in
/// `with_transaction`, which commits, or aborts on any exception.
pub(super) fn python(g: &UndoGroup, ops: &[OpCode]) -> String {
    let ps = params(g, ops);
    let mut names = vec!["db"];
    names.extend(signature(&ps));
    let mut out = header(g, ops, "#");
    let _ = writeln!(out, "def {}({}):", g.function, names.join(", "));
    out.push_str(&bound(Lang::Python, g, &ps, "    "));
    // `with_transaction` runs the group again on a transient error (a
    // write conflict with another transaction), for up to 120 s.
    out.push_str("    def in_transaction(session):\n        out = {}\n");
    for &i in &g.ops {
        let op = &ops[i];
        let _ = writeln!(
            out,
            "        out[{}] = {}({})",
            key(op),
            op.function,
            args_of(&ps, i, "db", "session=session")
        );
    }
    out.push_str("        return out\n    with db.client.start_session() as session:\n        return session.with_transaction(in_transaction)\n");
    out
}
