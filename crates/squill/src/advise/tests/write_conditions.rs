//! A write by `_id` with other conditions beside it (audit44 A): "only the
//! author edits her message", "only while it is unlocked". The `_id` finds
//! the one document and `_id_` serves it; every other condition is the
//! caller's rule of who may write, and the write itself tests it. The
//! plans had kept the `_id` alone, so any caller's id edited or deleted
//! anyone's message.

use super::{design_of as design, plan_of as plan};
use crate::design::{Action, OperationPlan, ValueSource};

/// Messages of users; `extra` is appended to the user entity (a figure kept
/// over the messages makes a delete find the message's author first).
fn messages(extra_ops: &str) -> String {
    format!(
        "
name: messages
entities:
  user:
    count: 1000000
    fields:
      name: string(20)
  message:
    count: 100000000
    fields:
      text: string(300)
      edited: bool
      locked: bool
relationships:
  authored:
    parent: user
    child: message
    children: {{min: 0, typical: 100, max: 100000}}
    child_field: author
operations:
  read_msg: {{read: message, rate: 1000, filter: {{author: eq}}, limit: 20}}
  edit_message: {{update: message, filter: {{_id: eq, author: eq}}, changes: [text, edited], rate: 300}}
  edit_unlocked: {{update: message, filter: {{_id: eq, locked: eq}}, changes: [text], rate: 300}}
  delete_mine: {{delete: message, filter: {{_id: eq, author: eq}}, rate: 30}}
  post: {{insert: message, links: [authored], rate: 100}}
{extra_ops}"
    )
}

/// The write step of `p` on `collection` (the last one: a find may come first).
fn write_on<'d>(p: &'d OperationPlan, collection: &str) -> &'d crate::design::Step {
    p.steps
        .iter()
        .rev()
        .find(|s| s.collection == collection && s.action != Action::Find)
        .unwrap_or_else(|| panic!("{}: no write of {collection}", p.operation))
}

#[test]
fn a_write_by_id_tests_the_other_conditions_of_its_filter() {
    let d = design(&messages(""));
    for (op, other) in [
        ("edit_message", "author"),
        ("edit_unlocked", "locked"),
        ("delete_mine", "author"),
    ] {
        let p = plan(&d, op);
        assert_eq!(p.steps.len(), 1, "{op}: one write, no find first: {p:#?}");
        let s = &p.steps[0];
        let paths: Vec<&str> = s.filter.iter().map(|f| f.path.as_str()).collect();
        assert!(
            paths.contains(&"_id") && paths.contains(&other),
            "{op}: {paths:?}"
        );
        assert_eq!(s.index.as_deref(), Some("_id_"), "{op}");
    }
    // No index is built for the conditions the `_id` already narrows to one.
    let extra: Vec<_> = d
        .collections
        .iter()
        .flat_map(|c| &c.indexes)
        .filter(|i| {
            i.name != "_id_"
                && i.used_by
                    .iter()
                    .any(|u| u.starts_with("edit_") || u == "delete_mine")
        })
        .map(|i| i.name.clone())
        .collect();
    assert!(extra.is_empty(), "{extra:?}");
    // The code the team runs tests the author too.
    let ops = crate::artifacts::cookbook::op_codes(&d);
    let py = crate::artifacts::cookbook::python(&d, &ops);
    assert!(
        py.contains(r#"update_one({"_id": message_id, "author": user_id}"#),
        "{py}"
    );
    assert!(
        py.contains(r#"delete_one({"_id": message_id, "author": user_id}"#),
        "{py}"
    );
}

/// With a count of messages kept in the user, the delete first finds the
/// message for its author's id: that find tests both conditions, and the
/// delete goes by the ids it returned, not by the caller's id (a message
/// of another author is neither deleted nor counted down).
#[test]
fn a_delete_that_finds_first_deletes_only_what_its_filter_found() {
    let d = design(&messages(
        "  profile: {read: user, rate: 50, filter: {_id: eq}, aggregates: [count(authored)]}\n",
    ));
    let p = plan(&d, "delete_mine");
    let w = write_on(p, "message");
    let from_find = w
        .filter
        .iter()
        .any(|f| f.path == "_id" && matches!(f.value_from, ValueSource::FromStep { .. }));
    let tests_author = w.filter.iter().any(|f| f.path == "author");
    assert!(from_find || tests_author, "{p:#?}");
    if from_find {
        let find = &p.steps[0];
        assert_eq!(find.action, Action::Find, "{p:#?}");
        assert!(find.filter.iter().any(|f| f.path == "author"), "{p:#?}");
    }
}
