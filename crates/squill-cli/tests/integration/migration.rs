//! `squill generate --migration` end to end on the SecantusDB server that
//! `scripts/test` starts: the design of today's data (generated from the
//! model with each relationship pinned to its layout of today) is loaded
//! under its validators, migration.js runs twice (the second run must change
//! nothing), then the recommended design's cookbook runs against the result
//! (check_generated.py --no-load), and the counts and fan-out are compared
//! with the source, independently of the script's own verification. Without
//! the servers the test skips with a NOTICE, and fails under CI=true.

use crate::support::{TempDir, Test};
use crate::support::{mongo, run_tool, with_db};
use std::path::Path;
use std::process::Command;

/// product-reviews (examples/product-reviews.yaml) with `reviews` pinned to
/// `layout` and, when given, a `current:` section.
fn reviews(layout: Option<&str>, current: Option<&str>) -> String {
    let text =
        std::fs::read_to_string(crate::support::repo_root().join("examples/product-reviews.yaml"))
            .expect("the example");
    pinned(
        &text,
        "    child_field: product_id\n",
        "reviews",
        layout,
        current,
    )
}

/// order-customer (examples/order-customer.yaml), likewise for `orders`.
fn orders(layout: Option<&str>, current: Option<&str>) -> String {
    let text =
        std::fs::read_to_string(crate::support::repo_root().join("examples/order-customer.yaml"))
            .expect("the example");
    pinned(
        &text,
        "    child_field: customer\n",
        "orders",
        layout,
        current,
    )
}

fn pinned(
    text: &str,
    after: &str,
    rel: &str,
    layout: Option<&str>,
    current: Option<&str>,
) -> String {
    assert!(text.contains(after), "the example names its child_field");
    let mut out = match layout {
        Some(l) => text.replacen(after, &format!("{after}    layout: {l}\n"), 1),
        None => text.to_string(),
    };
    if let Some(c) = current {
        out.push_str(&format!("\ncurrent:\n  {rel}: {c}\n"));
    }
    out
}

/// Counts per collection and the children a parent's field holds, measured
/// by pymongo (not by the script under test).
const MEASURE: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
out = {"count": {c: db[c].count_documents({}) for c in db.list_collection_names() if c != "squill_migration"}}
coll, field = sys.argv[3], sys.argv[4]
if coll:
    n = 0
    for d in db[coll].find({}, {field: 1}):
        v = d.get(field)
        n += len(v) if isinstance(v, list) else (1 if isinstance(v, dict) else 0)
    out["held"] = n
print(json.dumps(out))
"#;

/// Loads data/*.json into the database (mongoimport is not installed).
const LOAD: &str = r#"
import glob, os, sys
from bson import json_util
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
opts = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL, tz_aware=False)
for p in sorted(glob.glob(os.path.join(sys.argv[3], "data", "*.json"))):
    docs = [json_util.loads(l, json_options=opts) for l in open(p, encoding="utf-8") if l.strip()]
    if docs:
        db[os.path.basename(p)[:-5]].insert_many(docs, ordered=True)
    print(os.path.basename(p), len(docs))
"#;

struct Case {
    name: &'static str,
    /// The model advised for the recommended design, with `current:`.
    model: String,
    /// The same with every relationship pinned to its layout of today.
    today: String,
    /// A field the migration builds from children: (collection, field,
    /// child collection of today whose documents it must hold, each once,
    /// or at most `cap` per parent).
    held: Option<(&'static str, &'static str, &'static str, Option<usize>)>,
    /// A collection of today that stays until the final step, though the
    /// recommended design has none.
    kept: Option<&'static str>,
    /// Children embedded today (parent collection, field) that become the
    /// documents of a new collection.
    unwound: Option<(&'static str, &'static str, &'static str)>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "subset",
            model: reviews(None, Some("parent-reference")),
            today: reviews(Some("parent-reference"), None),
            held: Some(("product", "reviews", "review", Some(10))),
            kept: None,
            unwound: None,
        },
        Case {
            name: "embed",
            model: reviews(Some("embed"), Some("parent-reference")),
            today: reviews(Some("parent-reference"), None),
            held: Some(("product", "reviews", "review", None)),
            kept: Some("review"),
            unwound: None,
        },
        Case {
            name: "unwind",
            model: reviews(Some("parent-reference"), Some("embed")),
            today: reviews(Some("embed"), None),
            held: None,
            kept: None,
            unwound: Some(("product", "reviews", "review")),
        },
        Case {
            name: "extended-reference",
            model: orders(Some("extended-reference"), Some("parent-reference")),
            today: orders(Some("parent-reference"), None),
            held: None,
            kept: None,
            unwound: None,
        },
    ]
}

fn measure(python: &str, uri: &str, db: &str, held: Option<(&str, &str)>) -> serde_json::Value {
    let (c, f) = held.unwrap_or(("", ""));
    let text = run_tool(Command::new(python).args(["-c", MEASURE, uri, db, c, f]));
    serde_json::from_str(text.trim()).expect("JSON from the measure")
}

fn squill_generate(model: &Path, out: &Path, more: &[&str]) -> String {
    let run = Test::new()
        .args(["generate"])
        .args([model])
        .args(["--out"])
        .args([out])
        .args(more)
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn migration_runs_twice_and_the_cookbook_works_on_the_result() {
    let Some((uri, python, mongosh)) = mongo() else {
        return;
    };
    for case in cases() {
        let dir = TempDir::new(&format!("migration-{}", case.name));
        let db = format!("squill_migration_{}", case.name.replace('-', "_"));
        let (model, today) = (dir.path().join("model.yaml"), dir.path().join("today.yaml"));
        std::fs::write(&model, &case.model).unwrap();
        std::fs::write(&today, &case.today).unwrap();
        // The data of today, under the validators of today.
        let source = dir.path().join("today");
        squill_generate(&today, &source, &["--scale", "4", "--max-children", "6"]);
        let shell = |file: &Path| {
            run_tool(
                Command::new(&mongosh)
                    .args(["--quiet", "--norc", &with_db(&uri, &db)])
                    .arg(file),
            )
        };
        run_tool(
            Command::new(&mongosh)
                .args(["--quiet", "--norc", &with_db(&uri, &db)])
                .args(["--eval", "db.dropDatabase()"]),
        );
        assert!(shell(&source.join("setup.js")).contains("squill setup: done"));
        run_tool(
            Command::new(&python)
                .args(["-c", LOAD, &uri, &db])
                .arg(&source),
        );
        let before = measure(&python, &uri, &db, case.unwound.map(|(p, f, _)| (p, f)));
        // The script, and the recommended design's artifacts.
        let out = dir.path().join("recommended");
        let said = squill_generate(&model, &out, &["--migration"]);
        assert!(said.contains(" → "), "{}: {said}", case.name);
        squill_generate(&model, &out, &[]);
        let first = shell(&out.join("migration.js"));
        assert!(!first.contains("FAILED"), "{}: {first}", case.name);
        assert!(
            first.contains("squill migration: ok: "),
            "{}: {first}",
            case.name
        );
        let held = case.held.map(|(c, f, _, _)| (c, f));
        let after = measure(&python, &uri, &db, held);
        // Run again: every step is skipped and nothing changes.
        let second = shell(&out.join("migration.js"));
        assert!(
            second.contains("done in an earlier run, skipped"),
            "{}: {second}",
            case.name
        );
        assert!(!second.contains("FAILED"), "{}: {second}", case.name);
        assert_eq!(
            measure(&python, &uri, &db, held),
            after,
            "{}: a second run changed the data",
            case.name
        );
        // As if interrupted in every step's first batch: the markers say
        // not done and nothing done; every batch runs again, and changes
        // nothing (no child embedded, unwound or counted twice).
        run_tool(
            Command::new(&mongosh)
                .args(["--quiet", "--norc", &with_db(&uri, &db)])
                .args([
                    "--eval",
                    r#"db.squill_migration.updateMany({ _id: { $ne: "00-before" } }, { $set: { done: false }, $unset: { last: "" } })"#,
                ]),
        );
        let resumed = shell(&out.join("migration.js"));
        assert!(
            !resumed.contains("skipped") && !resumed.contains("FAILED"),
            "{}: {resumed}",
            case.name
        );
        assert_eq!(
            measure(&python, &uri, &db, held),
            after,
            "{}: a resumed run changed the data",
            case.name
        );
        // No document of today lost or duplicated.
        for (coll, n) in before["count"].as_object().unwrap() {
            assert_eq!(
                &after["count"][coll], n,
                "{}: {coll} before and after",
                case.name
            );
        }
        if let Some(kept) = case.kept {
            assert!(
                after["count"][kept].as_u64() > Some(0),
                "{}: {kept} kept until the final step",
                case.name
            );
        }
        // The fan-out: each child of today once in its parent's field, or
        // at most `cap` per parent.
        if let Some((parent, _, child, cap)) = case.held {
            let children = before["count"][child].as_u64().unwrap();
            let parents = before["count"][parent].as_u64().unwrap();
            let held = after["held"].as_u64().unwrap();
            match cap {
                None => assert_eq!(held, children, "{}: children held", case.name),
                Some(k) => assert!(
                    held <= parents * k as u64 && held > 0,
                    "{}: {held} held",
                    case.name
                ),
            }
        }
        if let Some((_, _, child)) = case.unwound {
            assert_eq!(
                after["count"][child], before["held"],
                "{}: one {child} per embedded child",
                case.name
            );
        }
        // The recommended design's cookbook on the migrated data.
        let checked = run_tool(
            Command::new(&python)
                .arg(crate::support::repo_root().join("scripts/testenv/check_generated.py"))
                .args(["--uri", &uri, "--db", &db, "--no-load", "--dir"])
                .arg(&out),
        );
        assert!(checked.contains("ok: cookbook"), "{}: {checked}", case.name);
        assert!(!checked.contains("FAIL"), "{}: {checked}", case.name);
        eprintln!("{}: migrated and checked\n{first}{checked}", case.name);
    }
}
