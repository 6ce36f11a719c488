//! An upsert (`otherwise: insert`) in the cookbook, and against a server
//! (scripts/testenv/check_upsert.py): a new key called twice, then from
//! many callers at once, leaves one instance with the summed amounts, in
//! both layouts the plan knows (issue 41).

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

/// A player's stacks, one per item kind, added to or added (`grant_item`),
/// in the layout `layout` pins.
fn game(layout: &str) -> (crate::model::Model, crate::design::Design) {
    let text = format!(
        "name: game
entities:
  player: {{count: 1000, fields: {{gold: long}}}}
  stack:
    count: 30000
    fields:
      kind: {{type: string(20), distinct: 500}}
      qty: int
    unique: [[player, kind]]
relationships:
  inventory: {{parent: player, child: stack, children: {{typical: 30, max: 2000}}, child_field: player, layout: {layout}}}
operations:
  show_inventory:
    read: player
    filter: {{_id: eq}}
    include: [inventory]
    rate: 500
  grant_item:
    update: stack
    filter: {{player: eq, kind: eq}}
    increments: {{qty: amount}}
    otherwise: insert
    inserts: 0.2
    rate: 3000
"
    );
    let model = crate::inputs::model_file::parse("game.yaml", &text).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The generated code of `file`.
fn code(design: &(crate::model::Model, crate::design::Design), file: &str) -> String {
    artifacts(&design.0, &design.1, &Options::default())
        .expect("artifacts")
        .into_iter()
        .find(|a| a.file == file)
        .expect("the cookbook")
        .content
}

/// Embedded: the `$inc` through `$`, then, only when it matched nothing, a
/// `$push` of the whole element guarded by `$ne`, then the `$inc` again
/// only when the push matched nothing; the caller passes no element.
#[test]
fn an_element_upsert_pushes_the_whole_element_under_a_ne_guard() {
    let d = game("embed");
    for (file, want) in [
        (
            "cookbook.py",
            [
                r#"{"_id": player_id, "inventory.kind": {"$ne": kind}"#,
                r#"{"$push": {"inventory": {"$each": [{"_id": ObjectId(), "kind": kind, "qty": amount}]}}}"#,
                r#"if player["matched_count"] == 0 else None"#,
                r#"if player_2 is not None and player_2["matched_count"] == 0 else None"#,
            ],
        ),
        (
            "cookbook.js",
            [
                r#"{"_id": player_id, "inventory.kind": {"$ne": kind}"#,
                r#"{"$push": {"inventory": {"$each": [{"_id": new ObjectId(), "kind": kind, "qty": amount}]}}}"#,
                "player.matchedCount === 0 ?",
                "player_2 !== null && player_2.matchedCount === 0 ?",
            ],
        ),
        (
            "cookbook.mongosh.js",
            [
                r#"{"_id": player_id, "inventory.kind": {"$ne": kind}"#,
                r#"{"_id": new ObjectId(), "kind": kind, "qty": amount}"#,
                "player.matchedCount === 0 ?",
                "player_2 !== null && player_2.matchedCount === 0 ?",
            ],
        ),
    ] {
        let text = code(&d, file);
        for w in want {
            assert!(text.contains(w), "{file} lacks {w}:\n{text}");
        }
        assert!(!text.contains("inventory_item"), "{file} takes an element");
    }
}

/// In its own collection: one upsert on the unique key, run again on a
/// duplicate key error.
#[test]
fn an_upsert_of_a_document_retries_a_duplicate_key() {
    let d = game("parent-reference");
    for (file, want) in [
        (
            "cookbook.py",
            r#"_result(_retry_duplicate(lambda: db["stack"].update_one({"player": player_id, "kind": kind}, {"$inc": {"qty": amount}}, upsert=True)))"#,
        ),
        (
            "cookbook.js",
            r#"await retryDuplicate(() => db.collection("stack").updateOne({"player": player_id, "kind": kind}, {"$inc": {"qty": amount}}, {"upsert": true}))"#,
        ),
        (
            "cookbook.mongosh.js",
            r#"retryDuplicate(() => db.getCollection("stack").updateOne({"player": player_id, "kind": kind}, {"$inc": {"qty": amount}}, {"upsert": true}))"#,
        ),
    ] {
        let text = code(&d, file);
        assert!(text.contains(want), "{file} lacks {want}:\n{text}");
    }
}

/// Against a server, each layout, each language: twice for a new key, then
/// many calls at once for another, leave one instance with the sum.
#[test]
fn an_upsert_adds_one_instance_whatever_the_race_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    for (layout, held) in [
        ("embed", "player.inventory[]"),
        ("parent-reference", "stack"),
    ] {
        let (model, design) = game(layout);
        let db = format!("squill_upsert_{}", layout.replace('-', "_"));
        let out = run_check_script(
            (&uri, &python, &mongosh),
            (&model, &design),
            (&format!("upsert-{layout}"), &db, true),
            ("check_upsert.py", &["grant_item"]),
        );
        if layout != "embed" {
            assert!(
                out.contains("ok: python grant_item: an upsert that lost a race (E11000) runs again: one stack with 10"),
                "{out}"
            );
        }
        says_in_each_language(
            &out,
            "",
            &[&format!(
                "ok: {{lang}} grant_item: twice for a new key leaves one {held} with 6;"
            )],
        );
    }
}
