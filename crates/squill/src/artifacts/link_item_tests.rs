//! A link writes the ids it links and the copies its read found (audit44
//! F), not an item the caller passes beside them: the guard tested one
//! channel (open) and the user joined another (archived) under a name of
//! the caller's choosing. The element pushed into the user is built from
//! the channel's id, the name the read returned and the link's own
//! fields; the id added to the channel's members is the user's.

use super::external_tests::{run_inline_python, server_tools};
use super::*;

/// Channels and users, many-to-many: the user keeps each channel's id,
/// name (copied) and her `muted` flag; the channel keeps its members' ids.
const JOIN: &str = r#"
name: join-channel
entities:
  channel:
    count: 100000
    fields:
      name: string(20)
      archived: bool
  user:
    count: 1000000
    fields:
      email: string(30)
relationships:
  memberships:
    kind: many-to-many
    parent: channel
    child: user
    children: {typical: 12, max: 4000}
    parents: {typical: 15, max: 500}
    parent_field: members
    child_field: channels
    attributes:
      muted: bool
operations:
  join_channel:
    link: memberships
    rate: 200
    when: ["archived = false"]
  my_channels:
    read: user
    rate: 8000
    filter: {_id: eq}
    include:
      memberships: {fields: [name, muted]}
  rename:
    update: channel
    filter: {_id: eq}
    changes: [name]
    rate: 0.1
"#;

fn join() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("join.yaml", JOIN).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The caller passes the two ids and the link's own field, nothing else;
/// in each language the element is the channel's id with its name as
/// the read found it.
#[test]
fn a_link_writes_the_linked_ids_and_the_copies_it_read() {
    let (_, d) = join();
    let ops = cookbook::op_codes(&d);
    let py = cookbook::python(&d, &ops);
    let def = py
        .lines()
        .find(|l| l.starts_with("def join_channel("))
        .unwrap_or_else(|| panic!("{py}"));
    assert!(!def.contains("_item"), "{def}");
    assert!(
        py.contains(r#"{"$addToSet": {"members": user_id}}"#),
        "{py}"
    );
    assert!(
        py.contains(
            r#"[{"_id": channel_id, "name": channel[0]["name"], "muted": channels_muted}]"#
        ),
        "{py}"
    );
    for text in [cookbook::node(&d, &ops), cookbook::mongosh(&d, &ops)] {
        assert!(
            text.contains(r#"{"_id": channel_id, "name": channel[0]["name"]"#),
            "{text}"
        );
    }
}

/// Against the server: joining the open channel records it (with its
/// name) on both sides; joining the archived one fails and records
/// nothing in the user.
#[test]
fn a_guarded_link_joins_only_the_channel_it_tested_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = join();
    let script = r#"
import sys
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
for c in ("channel", "user"):
    db[c].drop()
db["channel"].insert_many([
    {"_id": 1, "name": "general", "archived": False, "members": []},
    {"_id": 2, "name": "old", "archived": True, "members": []},
])
db["user"].insert_one({"_id": 7, "email": "u@example.com", "channels": []})
cookbook.join_channel(db, 1, 7, False)
try:
    cookbook.join_channel(db, 2, 7, True)
    raise SystemExit("joined an archived channel")
except RuntimeError:
    pass
user = db["user"].find_one({"_id": 7})
assert user["channels"] == [{"_id": 1, "name": "general", "muted": False}], user
assert db["channel"].find_one({"_id": 1})["members"] == [7]
assert db["channel"].find_one({"_id": 2})["members"] == []
print("ok: joined", [c["name"] for c in user["channels"]])
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("link_item", "squill_link_item"),
        script,
    );
    assert!(out.contains("ok: joined ['general']"), "{out}");
}

/// An insert that links its new document with copies (a review kept among
/// its product's latest ten, with its stars and date) pushes an element
/// built from the document it inserted: its id as the insert gave it, its
/// copies read from that document. The caller passed the element beside
/// the review, free to disagree with it (writes45's notes, item 6). Bare
/// ids (a new task into its person's `tasks`) are the inserted id too.
#[test]
fn an_inserts_link_pushes_the_inserted_document_not_an_item_of_the_caller() {
    for (fixture, wanted, gone) in [
        (
            "shop",
            [
                r#"[{"_id": review["inserted_id"], "stars": new_review["stars"], "at": new_review["at"]}]"#,
                r#"[{"_id": review.insertedId, "stars": new_review["stars"], "at": new_review["at"]}]"#,
            ],
            "new_reviews_item",
        ),
        (
            "person-tasks",
            [
                r#"{"$each": [task["inserted_id"]]}"#,
                r#"{"$each": [task.insertedId]}"#,
            ],
            // `reassign` (a relink) still takes its items: not this change.
            "add_task(db, new_task, person_id, new_tasks_item",
        ),
    ] {
        let (model, design) = crate::fixtures::load(fixture);
        let files = artifacts(&model, &design, &Options::default()).expect("artifacts");
        for (name, want) in [
            ("cookbook.py", wanted[0]),
            ("cookbook.js", wanted[1]),
            ("cookbook.mongosh.js", wanted[1]),
        ] {
            let code = &files
                .iter()
                .find(|a| a.file == name)
                .expect("the cookbook")
                .content;
            assert!(
                code.contains(want),
                "{fixture} {name} lacks {want}:\n{code}"
            );
            assert!(!code.contains(gone), "{fixture} {name} still takes {gone}");
        }
    }
}

/// Against a server: a review added to a product is kept among its latest
/// with the review's own id, stars and date.
#[test]
fn an_inserted_review_is_kept_in_its_product_as_inserted_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("shop");
    let script = r#"
import sys, datetime
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
for c in ("product", "review"):
    db[c].drop()
db["product"].insert_one({"_id": 1, "reviews": [], "reviews_count": 0})
at = datetime.datetime(2026, 11, 30, 12, 0, 0)
out = cookbook.add_review(db, {"product": 1, "stars": 4, "at": at, "text": "fine"}, 1)
rid = out["review"]["inserted_id"]
product = db["product"].find_one({"_id": 1})
assert product["reviews"] == [{"_id": rid, "stars": 4, "at": at}], product
assert db["review"].find_one({"_id": rid})["stars"] == 4
print("ok: kept", product["reviews"][0]["stars"], "stars under the review's id")
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("inserted_item", "squill_inserted_item"),
        script,
    );
    assert!(
        out.contains("ok: kept 4 stars under the review's id"),
        "{out}"
    );
}
