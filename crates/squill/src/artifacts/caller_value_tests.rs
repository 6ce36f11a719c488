//! Writes conditional on the caller's own values (audit45 gap 7): a
//! compare-and-set (`version = :expected`, `$inc: {version: 1}`) and a
//! bound on the value the write leaves (`available + rooms <= total`).
//! The cookbook's filter takes the parameter in every language, and on a
//! server a stale version and a release past the total change nothing
//! (scripts/testenv/check_caller_value.py).

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

const SAVES: &str = r#"
name: saves
entities:
  page:
    count: 2000000
    fields:
      body: string(200)
      version: int
  night:
    count: 1000000
    fields:
      total: int
      available: int
operations:
  save:
    update: page
    filter: {_id: eq}
    when: ["version = :expected"]
    changes: [body]
    increments: {version: 1}
    rate: 50
  release:
    update: night
    filter: {_id: eq}
    increments: {available: rooms}
    when: ["available + rooms <= total"]
    rate: 20
"#;

fn saves() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("saves.yaml", SAVES).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The plan is one conditional write for each, and the command document
/// takes the caller's value in the three languages, in the function's
/// signature too.
#[test]
fn the_callers_value_is_in_the_filter_and_the_signature() {
    let (_, d) = saves();
    for op in ["save", "release"] {
        let plan = d.operations.iter().find(|p| p.operation == op).unwrap();
        assert_eq!(plan.steps.len(), 1, "{op}: {:?}", plan.steps);
        assert_eq!(
            plan.steps[0].otherwise,
            Some(crate::model::Otherwise::Fail),
            "{op}"
        );
    }
    let ops = cookbook::op_codes(&d);
    let py = cookbook::python(&d, &ops);
    assert!(
        py.contains("def save(db, page_id, expected, new_body):"),
        "{py}"
    );
    assert!(py.contains("def release(db, night_id, rooms):"), "{py}");
    for text in [py, cookbook::node(&d, &ops), cookbook::mongosh(&d, &ops)] {
        for want in [
            r#"({"_id": page_id, "version": expected}, {"$set": {"body": new_body}, "$inc": {"version": 1}})"#,
            r#"({"_id": night_id, "$expr": {"$lte": [{"$add": ["$available", rooms]}, "$total"]}}, {"$inc": {"available": rooms}})"#,
        ] {
            assert!(text.contains(want), "no {want} in\n{text}");
        }
    }
}

/// Against a server, in each language: a save of a stale version and a
/// release past the total change nothing and fail; the others write.
#[test]
fn a_stale_version_and_a_release_past_the_total_change_nothing_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = saves();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("caller-value", "squill_caller_value", false),
        ("check_caller_value.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 2 write(s) conditional on the caller's values",
        &[
            "ok: {lang} save: expected = 4 with version = 5 changed nothing (nothing matched); expected = 5 left 6",
            "ok: {lang} release: rooms = 5 with available = 7 changed nothing (nothing matched); rooms = 3 left 10",
        ],
    );
}
