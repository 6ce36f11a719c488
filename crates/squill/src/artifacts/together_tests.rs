//! An atomic group of two writes to one kind of document (a transfer)
//! runs in one transaction through the group's function (issue 41): when
//! the second write (the debit, `when: balance >= 0`) matches nothing,
//! the first (the credit) is undone with it. Checked against the server
//! in mongosh, Python and Node.js.

use super::external_tests::{database_uri, out_dir, server_tools, try_run};
use super::*;
use std::process::Command;

/// Accounts; the credit runs first, the debit that may match nothing last.
const BANK: &str = "
name: bank
entities:
  account:
    count: 1000000
    fields:
      owner: string(24)
      balance: int
operations:
  credit:
    update: account
    filter: {_id: eq}
    increments: {balance: 1}
    rate: 100
  debit:
    update: account
    filter: {_id: eq}
    increments: {balance: -1}
    when: [\"balance >= 1\"]
    rate: 100
atomic:
  transfer: [credit, debit]
";

fn bank() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("bank.yaml", BANK).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The group's function, in each language, calls both operations with
/// its session; each operation alone still runs in a transaction of its
/// own.
#[test]
fn a_transfer_has_a_function_that_runs_both_writes_in_one_transaction() {
    let (_, d) = bank();
    let ops = cookbook::op_codes(&d);
    let py = cookbook::python(&d, &ops);
    assert!(
        py.contains("def transfer(db, credit_account_id, debit_account_id):\n    def in_transaction(session):\n        out = {}\n        out[\"credit\"] = credit(db, credit_account_id, session=session)\n        out[\"debit\"] = debit(db, debit_account_id, session=session)\n        return out\n    with db.client.start_session() as session:\n        return session.with_transaction(in_transaction)\n"),
        "{py}"
    );
    let sh = cookbook::mongosh(&d, &ops);
    assert!(
        sh.contains("        out[\"credit\"] = credit(credit_account_id, sdb);\n        out[\"debit\"] = debit(debit_account_id, sdb);\n        for (let commit = 1; ; commit++) {"),
        "{sh}"
    );
    let js = cookbook::node(&d, &ops);
    assert!(
        js.contains("      out[\"credit\"] = await credit(db, credit_account_id, session);\n      out[\"debit\"] = await debit(db, debit_account_id, session);"),
        "{js}"
    );
    assert!(
        js.contains("module.exports = { credit, debit, transfer };"),
        "{js}"
    );
}

/// Against the server: a transfer from an account with nothing left fails
/// and leaves both balances as they were (the credit undone); one from an
/// account with money moves one unit.
#[test]
fn a_failed_transfer_leaves_both_accounts_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = bank();
    let dir = out_dir("together");
    write_artifacts(
        &dir.0,
        &artifacts(&model, &design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    let want = "failed: debit: nothing matched (no account met the conditions of the write)\nafter the failure: 0 10\nafter the transfer: 1 9";
    let js_string = |p: &std::path::Path| serde_json::to_string(p).unwrap();
    // mongosh
    let script = dir.0.join("transfer.js");
    std::fs::write(
        &script,
        format!(
            r#"load({});
const a = db.getCollection("account");
a.drop(); db.createCollection("account");
a.insertMany([{{_id: 1, balance: 0}}, {{_id: 2, balance: 10}}]);
const both = () => a.find().sort({{_id: 1}}).toArray().map((x) => x.balance).join(" ");
try {{ transfer(2, 1); print("transferred"); }} catch (e) {{ print("failed: " + e.message); }}
print("after the failure: " + both());
transfer(1, 2);
print("after the transfer: " + both());
"#,
            js_string(&dir.0.join("cookbook.mongosh.js"))
        ),
    )
    .unwrap();
    let db = format!("squill_together_sh_{}", std::process::id());
    let out = try_run(
        Command::new(&mongosh)
            .args(["--quiet", "--norc", &database_uri(&uri, &db)])
            .arg(&script),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), want, "mongosh: {out}");
    // Python
    let script = dir.0.join("transfer.py");
    std::fs::write(
        &script,
        format!(
            r#"import sys, pymongo
sys.path.insert(0, {dir})
import cookbook
db = pymongo.MongoClient({uri})["squill_together_py_{pid}"]
db.drop_collection("account"); db.create_collection("account")
db["account"].insert_many([{{"_id": 1, "balance": 0}}, {{"_id": 2, "balance": 10}}])
both = lambda: " ".join(str(x["balance"]) for x in db["account"].find().sort("_id"))
try:
    cookbook.transfer(db, 2, 1)
    print("transferred")
except RuntimeError as e:
    print("failed: " + str(e))
print("after the failure: " + both())
cookbook.transfer(db, 1, 2)
print("after the transfer: " + both())
"#,
            dir = js_string(&dir.0),
            uri = serde_json::to_string(&uri).unwrap(),
            pid = std::process::id()
        ),
    )
    .unwrap();
    let out = try_run(Command::new(&python).arg(&script)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), want, "Python: {out}");
    // Node.js
    let script = dir.0.join("transfer.cjs");
    std::fs::write(
        &script,
        format!(
            r#"const {{ MongoClient }} = require("mongodb");
const cookbook = require({cookbook});
(async () => {{
  const client = new MongoClient({uri});
  try {{
    const db = client.db("squill_together_node_{pid}");
    await db.collection("account").drop().catch(() => {{}});
    await db.createCollection("account");
    const a = db.collection("account");
    await a.insertMany([{{_id: 1, balance: 0}}, {{_id: 2, balance: 10}}]);
    const both = async () => (await a.find().sort({{_id: 1}}).toArray()).map((x) => x.balance).join(" ");
    try {{ await cookbook.transfer(db, 2, 1); console.log("transferred"); }} catch (e) {{ console.log("failed: " + e.message); }}
    console.log("after the failure: " + await both());
    await cookbook.transfer(db, 1, 2);
    console.log("after the transfer: " + await both());
  }} finally {{
    await client.close();
  }}
}})().catch((e) => {{ console.error(e); process.exit(1); }});
"#,
            cookbook = js_string(&dir.0.join("cookbook.js")),
            uri = serde_json::to_string(&uri).unwrap(),
            pid = std::process::id()
        ),
    )
    .unwrap();
    let out = try_run(Command::new("node").arg(&script)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), want, "Node.js: {out}");
}

/// A group whose writes the plan made one update of one show (fixture
/// show-purchase, `same: show`, seats embedded): the group's function
/// calls the operation that holds it, which sends one `updateOne` with
/// the seat's key and state in one `$elemMatch` beside `seats_left > 0`,
/// `$set` and `$inc` together, and no session: no transaction (issue 41).
#[test]
fn a_group_merged_into_one_update_calls_it_without_a_transaction() {
    let (_, d) = crate::fixtures::load("show-purchase");
    let ops = cookbook::op_codes(&d);
    let py = cookbook::python(&d, &ops);
    assert!(
        py.contains("def purchase(db, show_id, label, new_state):\n    return buy(db, show_id, label, new_state)\n"),
        "{py}"
    );
    assert!(
        py.contains("update_one({\"_id\": show_id, \"seats\": {\"$elemMatch\": {\"label\": label, \"state\": \"held\"}}, \"seats_left\": {\"$gt\": 0}}, {\"$set\": {\"seats.$.state\": new_state}, \"$inc\": {\"seats_left\": -1}})"),
        "{py}"
    );
    assert!(!py.contains("start_session"), "{py}");
    let sh = cookbook::mongosh(&d, &ops);
    assert!(
        sh.contains("function purchase(show_id, label, new_state) {\n  return buy(show_id, label, new_state);\n}\n"),
        "{sh}"
    );
    let js = cookbook::node(&d, &ops);
    assert!(
        js.contains("async function purchase(db, show_id, label, new_state) {\n  return await buy(db, show_id, label, new_state);\n}\n"),
        "{js}"
    );
    assert!(js.contains("count_down, purchase };"), "{js}");
}
