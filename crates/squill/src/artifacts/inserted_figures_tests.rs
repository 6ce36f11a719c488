//! A parent's figures moved by one inserted child (audit44 G): a sum goes
//! up by the child's own amount, a least or greatest by its own value,
//! taken from the document the insert wrote, never from an amount the
//! caller passes beside it. A ledger whose balance moved by what the
//! caller said read 99 over entries summing to 10.

use super::external_tests::{run_inline_python, server_tools};
use super::*;

/// Accounts and their ledger entries, kept apart; the account keeps the
/// entries' sum and the least and greatest amount.
const LEDGER: &str = "
name: ledger
entities:
  account:
    count: 100000
    fields:
      email: string(30)
  entry:
    count: 20000000
    fields:
      amount: double
      at: date
relationships:
  ledger:
    parent: account
    child: entry
    children: {min: 0, typical: 200, max: 2000000}
    child_field: account
    layout: parent-reference
operations:
  post_entry:
    insert: entry
    links: [ledger]
    rate: 50
  balance:
    read: account
    filter: {_id: eq}
    aggregates: [sum(ledger.amount), min(ledger.amount), max(ledger.amount)]
    rate: 500
";

fn ledger() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("ledger.yaml", LEDGER).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The cookbook asks the caller for the entry and the account only; each
/// figure is the entry's own amount, in each language.
#[test]
fn a_parents_figures_move_by_the_inserted_childs_own_value() {
    let (_, d) = ledger();
    let ops = cookbook::op_codes(&d);
    let py = cookbook::python(&d, &ops);
    let def = py
        .lines()
        .find(|l| l.starts_with("def post_entry("))
        .unwrap_or_else(|| panic!("{py}"));
    assert_eq!(def, "def post_entry(db, new_entry, account_id):", "{py}");
    for op in ["$inc", "$min", "$max"] {
        let at = py
            .find(&format!("\"{op}\""))
            .unwrap_or_else(|| panic!("{op}: {py}"));
        assert!(py[at..].contains(r#"new_entry["amount"]"#), "{op}: {py}");
    }
    let js = cookbook::node(&d, &ops);
    assert!(js.contains(r#"new_entry["amount"]"#), "{js}");
}

/// Against the server: entries posted through the Python cookbook leave
/// the account's sum, least and greatest equal to its entries' own.
#[test]
fn a_ledgers_balance_equals_its_entries_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = ledger();
    let script = r#"
import sys, datetime
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
for c in ("account", "entry"):
    db[c].drop()
db["account"].insert_one({"_id": 1, "email": "a@example.com"})
amounts = [10.5, -3.25, 7.0, -1.5]
for a in amounts:
    cookbook.post_entry(db, {"account": 1, "amount": a, "at": datetime.datetime(2026, 1, 1)}, 1)
acc = db["account"].find_one({"_id": 1})
sums = [v for k, v in acc.items() if k.endswith("sum_amount")]
mins = [v for k, v in acc.items() if k.endswith("min_amount")]
maxs = [v for k, v in acc.items() if k.endswith("max_amount")]
assert sums == [sum(amounts)], acc
assert mins == [min(amounts)] and maxs == [max(amounts)], acc
print("ok: balance %s over %d entries" % (sums[0], len(amounts)))
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("inserted_figures", "squill_inserted_figures"),
        script,
    );
    assert!(out.contains("ok: balance 12.75 over 4 entries"), "{out}");
}
