//! A conditional write on an embedded element (issue 41): the element's
//! key and the write's `when:` test hold for one element, under one
//! `$elemMatch`, so the positional `$` names that element. Apart, the
//! filter matched a show with some seat A1 and some free seat, and the
//! server then failed the update (SecantusDB: "the positional operator
//! did not find the match") or set another seat (mongod).

use super::external_tests::{database_uri, out_dir, server_tools, try_run};
use super::*;
use std::process::Command;

/// Shows with their seats embedded; holding a seat is a conditional
/// write of one seat, found by its show and its label.
const SEATS: &str = "
name: seats
entities:
  show:
    count: 1000
    fields:
      title: string(20)
  seat:
    count: 100000
    fields:
      label: string(6)
      state: {type: string(8), enum: [free, held, sold]}
relationships:
  seats:
    parent: show
    child: seat
    children: {min: 1, typical: 100, max: 2000}
    child_field: show
    layout: embed
operations:
  seat_map:
    read: show
    rate: 100
    filter: {_id: eq}
    include: [seats]
  hold_seat:
    update: seat
    filter: {show: eq, label: eq}
    when: [\"state = free\"]
    changes: [state]
    rate: 40
";

fn seats() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("seats.yaml", SEATS).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The filter, in each language, tests the label and the state of one
/// seat.
#[test]
fn a_conditional_write_on_an_element_tests_one_element() {
    let (_, d) = seats();
    let ops = cookbook::op_codes(&d);
    let hold = ops
        .iter()
        .find(|o| o.name == "hold_seat")
        .expect("hold_seat");
    let params: Vec<&str> = hold.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["show_id", "label", "new_state"]);
    let one = r#"{"_id": show_id, "seats": {"$elemMatch": {"label": label, "state": "free"}}}"#;
    let set = r#"{"$set": {"seats.$.state": new_state}}"#;
    for text in [
        cookbook::mongosh_function(hold),
        cookbook::node_function(hold),
        cookbook::python_function(hold),
    ] {
        assert!(text.contains(one) && text.contains(set), "{text}");
    }
}

/// Against the server: with seat A1 sold and A2 free, holding A1 matches
/// nothing and fails as `otherwise: fail` says, changing nothing; holding
/// A2 holds A2 only.
#[test]
fn holding_a_sold_seat_fails_and_a_free_one_holds_only_it_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = seats();
    let dir = out_dir("elem-match");
    write_artifacts(
        &dir.0,
        &artifacts(&model, &design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    let script = dir.0.join("hold.js");
    std::fs::write(
        &script,
        format!(
            r#"load({cookbook});
db.getCollection("show").drop();
db.getCollection("show").insertOne({{_id: 1, title: "t", seats: [{{_id: 11, label: "A1", state: "sold"}}, {{_id: 12, label: "A2", state: "free"}}]}});
try {{ hold_seat(1, "A1", "held"); print("A1: held"); }} catch (e) {{ print("A1: " + e.message); }}
print("after A1: " + JSON.stringify(db.getCollection("show").findOne({{_id: 1}}).seats));
hold_seat(1, "A2", "held");
print("after A2: " + JSON.stringify(db.getCollection("show").findOne({{_id: 1}}).seats));
"#,
            cookbook = serde_json::to_string(&dir.0.join("cookbook.mongosh.js")).unwrap()
        ),
    )
    .unwrap();
    let db = format!("squill_elem_match_{}", std::process::id());
    let out = try_run(
        Command::new(&mongosh)
            .args(["--quiet", "--norc", &database_uri(&uri, &db)])
            .arg(&script),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "A1: hold_seat: nothing matched (no show met the conditions of the write)",
            r#"after A1: [{"_id":11,"label":"A1","state":"sold"},{"_id":12,"label":"A2","state":"free"}]"#,
            r#"after A2: [{"_id":11,"label":"A1","state":"sold"},{"_id":12,"label":"A2","state":"held"}]"#,
        ],
        "{out}"
    );
}
