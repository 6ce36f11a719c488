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

/// A stack keyed by its player, kind and grade, granted at a date the
/// caller passes (`changes: ["granted_at = :now"]`), in the layout
/// `layout` pins.
fn graded(layout: &str) -> (crate::model::Model, crate::design::Design) {
    let text = format!(
        "name: graded
entities:
  player: {{count: 1000, fields: {{gold: long}}}}
  stack:
    count: 30000
    fields:
      kind: {{type: string(20), distinct: 500}}
      grade: {{type: string(8), distinct: 5}}
      qty: int
      granted_at: date
    unique: [[player, kind, grade]]
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
    filter: {{player: eq, kind: eq, grade: eq}}
    increments: {{qty: amount}}
    changes: [\"granted_at = :now\"]
    otherwise: insert
    inserts: 0.2
    rate: 3000
"
    );
    let model = crate::inputs::model_file::parse("graded.yaml", &text).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// Embedded, a key of two fields besides the parent: the push is guarded
/// by one `$not`/`$elemMatch` of both (review48: one `$ne` per field
/// refused a kind held in another grade), the pushed element takes the
/// date the `$set` gives, the last write raises when it matched nothing
/// (review48 B3), and no warning tells the application to check the key
/// the guard checks (review48 C3).
#[test]
fn an_element_upsert_of_two_keys_guards_them_together_and_raises_when_nothing_matched() {
    let d = graded("embed");
    for (file, want) in [
        (
            "cookbook.py",
            [
                r#""inventory": {"$not": {"$elemMatch": {"kind": kind, "grade": grade}}}"#,
                r#"{"_id": ObjectId(), "kind": kind, "grade": grade, "qty": amount, "granted_at": now}"#,
                r#"if player_3 is not None and player_3["matched_count"] == 0:"#,
            ],
        ),
        (
            "cookbook.js",
            [
                r#""inventory": {"$not": {"$elemMatch": {"kind": kind, "grade": grade}}}"#,
                r#"{"_id": new ObjectId(), "kind": kind, "grade": grade, "qty": amount, "granted_at": now}"#,
                "if (player_3 && player_3.matchedCount === 0) throw new Error(",
            ],
        ),
        (
            "cookbook.mongosh.js",
            [
                r#""inventory": {"$not": {"$elemMatch": {"kind": kind, "grade": grade}}}"#,
                r#""granted_at": now}"#,
                "if (player_3 && player_3.matchedCount === 0) throw new Error(",
            ],
        ),
    ] {
        let text = code(&d, file);
        for w in want {
            assert!(text.contains(w), "{file} lacks {w}:\n{text}");
        }
        assert!(!text.contains("{\"$ne\""), "{file} keeps a $ne:\n{text}");
        assert!(
            !text.contains("the application must check before it inserts"),
            "{file} warns of a key its guard checks:\n{text}"
        );
    }
}

/// Against a server, each layout, each language: the graded stacks add
/// up; two keys sharing the kind are two elements; a missing player
/// raises and writes nothing.
#[test]
fn an_upsert_of_two_keys_and_a_date_adds_up_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    for (layout, held) in [
        ("embed", "player.inventory[]"),
        ("parent-reference", "stack"),
    ] {
        let (model, design) = graded(layout);
        let db = format!("squill_upsert_graded_{}", layout.replace('-', "_"));
        let out = run_check_script(
            (&uri, &python, &mongosh),
            (&model, &design),
            (&format!("upsert-graded-{layout}"), &db, true),
            ("check_upsert.py", &["grant_item"]),
        );
        let mut want = vec![format!(
            "ok: {{lang}} grant_item: twice for a new key leaves one {held} with 6;"
        )];
        if layout == "embed" {
            want.push(format!(
                "ok: {{lang}} grant_item: two new keys sharing `kind` are two {held}, each with 3"
            ));
            want.push("ok: {lang} grant_item: no parent with that id raised".to_string());
        }
        let want: Vec<&str> = want.iter().map(String::as_str).collect();
        says_in_each_language(&out, "", &want);
    }
}

/// A bid accepted only above the current price sets the price to the
/// offer it tested (audit48 A5): one parameter, in each language.
fn auction() -> (crate::model::Model, crate::design::Design) {
    let text = r#"name: auctions
entities:
  auction:
    count: 1000
    fields:
      status: {type: string(8), enum: [open, closed]}
      current_price: int
      bid_count: int
operations:
  raise_price:
    update: auction
    filter: {_id: eq}
    when: ["current_price < :offer", "status = open"]
    changes: ["current_price = :offer"]
    increments: {bid_count: 1}
    otherwise: fail
    rate: 3000
"#;
    let model = crate::inputs::model_file::parse("auction.yaml", text).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

#[test]
fn a_field_set_to_the_tested_value_takes_the_one_parameter() {
    let d = auction();
    for (file, want) in [
        ("cookbook.py", "def raise_price(db, auction_id, offer):"),
        (
            "cookbook.js",
            "async function raise_price(db, auction_id, offer)",
        ),
        (
            "cookbook.mongosh.js",
            "function raise_price(auction_id, offer)",
        ),
    ] {
        let text = code(&d, file);
        assert!(text.contains(want), "{file} lacks {want}:\n{text}");
        assert!(
            text.contains(r#"{"$set": {"current_price": offer}"#),
            "{file} sets another value:\n{text}"
        );
        assert!(!text.contains("new_current_price"), "{file}:\n{text}");
    }
    let report = crate::outputs::design::text::render(&d.1, false);
    assert!(
        report.contains("sets current_price to offer (the caller's value)"),
        "{report}"
    );
}

/// Against a server, each language: offers 150, 120, 90, 151 on a price
/// of 100 leave 150, 150, 150, 151; the lower offers fail.
#[test]
fn a_price_set_to_the_offer_never_goes_down_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = auction();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("set-to-caller", "squill_set_to_caller", true),
        (
            "check_set_to_caller.py",
            &["raise_price", "current_price", "offer", "status=open"],
        ),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} raise_price: current_price 100, then offers 150, 120, 90, 151 left [150, 150, 150, 151]",
        ],
    );
}
