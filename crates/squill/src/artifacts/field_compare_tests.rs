//! A condition that compares two fields of the written document (audit44
//! M, `used < quota`): the write's filter carries `$expr` beside its other
//! tests, in every language, and on a server a key at its quota is not
//! counted while one below it is.

use super::external_tests::{run_inline_python, server_tools};
use super::*;

const QUOTA: &str = r#"
name: quota
entities:
  api_key:
    count: 2000000
    fields:
      used: int
      quota: int
operations:
  count_call:
    update: api_key
    filter: {_id: eq}
    increments: {used: 1}
    when: ["used < quota"]
    rate: 50000
"#;

fn quota() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("quota.yaml", QUOTA).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The command document, in the three languages: the id and `$expr`.
#[test]
fn two_fields_are_compared_with_expr_in_the_filter() {
    let (_, d) = quota();
    let ops = cookbook::op_codes(&d);
    let want =
        r#"({"_id": api_key_id, "$expr": {"$lt": ["$used", "$quota"]}}, {"$inc": {"used": 1}})"#;
    for text in [
        cookbook::python(&d, &ops),
        cookbook::node(&d, &ops),
        cookbook::mongosh(&d, &ops),
    ] {
        assert!(text.contains(want), "{text}");
    }
}

/// Against the server: a key at its quota is not counted (the call
/// fails), a key below it is.
#[test]
fn a_key_at_its_quota_is_not_counted_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = quota();
    let script = r#"
import sys
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
db["api_key"].drop()
db["api_key"].insert_many([
    {"_id": 1, "used": 9, "quota": 10},
    {"_id": 2, "used": 10, "quota": 10},
])
cookbook.count_call(db, 1)
try:
    cookbook.count_call(db, 2)
    raise SystemExit("counted a call past the quota")
except RuntimeError:
    pass
used = [db["api_key"].find_one({"_id": i})["used"] for i in (1, 2)]
assert used == [10, 10], used
print("ok: used", used)
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("field_compare", "squill_field_compare"),
        script,
    );
    assert!(out.contains("ok: used [10, 10]"), "{out}");
}

/// The model with the keys embedded in their project (read with it
/// 5,000/s, at most 5).
fn embedded() -> (crate::model::Model, crate::design::Design) {
    let text = QUOTA
        .replace(
            "entities:\n",
            "entities:\n  project:\n    count: 10000\n    fields: {name: string(20)}\n",
        )
        .replace("count: 2000000", "count: 30000")
        .replace(
            "operations:\n",
            "relationships:\n  keys:\n    parent: project\n    child: api_key\n    children: {typical: 3, max: 5}\noperations:\n  show_project:\n    read: project\n    filter: {_id: eq}\n    include: {keys: {}}\n    rate: 5000\n",
        )
        .replace("rate: 50000", "rate: 50");
    let model = crate::inputs::model_file::parse("emb.yaml", &text).expect("the model parses");
    let d =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, d)
}

/// Keys embedded in their project: the element is found by its `_id`,
/// and `$expr` (which cannot go inside `$elemMatch`) tests, at the top
/// level, the element of that `_id` over the array; the positional `$`
/// updates it. It was once left out with a warning, the write unguarded.
#[test]
fn two_fields_of_an_embedded_element_are_compared_over_the_array() {
    let (_, d) = embedded();
    let plan = d
        .operations
        .iter()
        .find(|p| p.operation == "count_call")
        .unwrap();
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    let ops = cookbook::op_codes(&d);
    let want = r#"({"keys._id": api_key_id, "$expr": {"$anyElementTrue": [{"$map": {"input": "$keys", "as": "e", "in": {"$and": [{"$eq": ["$$e._id", api_key_id]}, {"$lt": ["$$e.used", "$$e.quota"]}]}}}]}}, {"$inc": {"keys.$.used": 1}})"#;
    for text in [
        cookbook::python(&d, &ops),
        cookbook::node(&d, &ops),
        cookbook::mongosh(&d, &ops),
    ] {
        assert!(text.contains(want), "{text}");
    }
}

/// Against the server: of two keys of one project, the one at 9 of 10 is
/// counted, and then at 10 of 10 is not (the call fails); the other key,
/// at 10 of 10 beside one below its quota, is not counted either.
#[test]
fn an_embedded_key_at_its_quota_is_not_counted_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = embedded();
    let script = r#"
import sys
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
db["project"].drop()
db["project"].insert_one({"_id": 7, "name": "p", "keys": [
    {"_id": 1, "used": 9, "quota": 10},
    {"_id": 2, "used": 10, "quota": 10},
    {"_id": 3, "used": 0, "quota": 10},
]})
cookbook.count_call(db, 1)
for k in (1, 2):
    try:
        cookbook.count_call(db, k)
        raise SystemExit(f"counted a call of key {k} past its quota")
    except RuntimeError:
        pass
used = [k["used"] for k in db["project"].find_one({"_id": 7})["keys"]]
assert used == [10, 10, 0], used
print("ok: used", used)
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("field_compare_emb", "squill_field_compare_emb"),
        script,
    );
    assert!(out.contains("ok: used [10, 10, 0]"), "{out}");
}
