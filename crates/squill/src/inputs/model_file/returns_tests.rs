//! Tests of a read's `returns: count`: what it makes of the operation and
//! what it refuses, with the error's place.

use super::geo_tests::problems;
use super::*;

const TICKETS: &str = r"
name: tickets
entities:
  project: {count: 1000, fields: {name: string(20)}}
  ticket:
    count: 1000000
    fields:
      status: {type: string(8), enum: [open, closed]}
      title: string(80)
relationships:
  tickets: {parent: project, child: ticket, children: {typical: 1000, max: 100000}, child_field: project}
operations:
  open_count: {read: ticket, filter: {project: eq, status: eq}, returns: count, rate: 100}
  close: {update: ticket, filter: {_id: eq}, changes: [status], rate: 1}
";

#[test]
fn a_read_returns_a_count_and_survives_to_yaml() {
    let m = parse("t.yaml", TICKETS).unwrap_or_else(|e| panic!("{e}"));
    let op = &m.workload.operations[0];
    assert!(op.counts);
    assert!(!m.workload.operations[1].counts);
    let back = parse("t.yaml", &to_yaml(&m)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m, back);
}

#[test]
fn returns_is_for_a_read() {
    let p = problems(&TICKETS.replace(
        "changes: [status], rate: 1}",
        "changes: [status], returns: count, rate: 1}",
    ));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn a_read_returns_only_a_count() {
    let p = problems(&TICKETS.replace("returns: count", "returns: sum"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn a_count_has_no_documents_to_shape() {
    let p = problems(&TICKETS.replace(
        "returns: count,",
        "returns: count, limit: 20, fields: [title],",
    ));
    insta::assert_snapshot!(p.join("\n"));
}
