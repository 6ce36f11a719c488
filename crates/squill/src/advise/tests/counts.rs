//! A read that returns only how many match (`returns: count`, issue 41 N):
//! one `countDocuments`, priced at the index keys of its matches, with no
//! document fetched where the index holds every condition, and each
//! candidate fetched where it does not.

use super::{design_of, plan_of};

const TICKETS: &str = r"
name: tickets
entities:
  project: {count: 1000, fields: {name: string(20)}}
  ticket:
    count: 1000000
    fields:
      status: {type: string(8), enum: [open, closed]}
      tags: string[5]
      title: string(80)
relationships:
  tickets: {parent: project, child: ticket, children: {typical: 1000, max: 100000}, child_field: project}
operations:
  READ
";

#[test]
fn a_count_on_an_index_of_its_conditions_fetches_no_document() {
    let d = design_of(&TICKETS.replace(
        "READ",
        "open_count: {read: ticket, filter: {project: eq, status: eq}, returns: count, rate: 100}",
    ));
    let p = plan_of(&d, "open_count");
    let step = &p.steps[0];
    assert_eq!(step.count.map(|c| c.covered), Some(true));
    assert!(step.index.is_some());
    assert!((step.documents - 500.0).abs() < 1e-6, "{}", step.documents);
    assert_eq!(p.cost.documents_examined, 0.0);
    assert_eq!(p.cost.bytes_read, 0.0);
    assert!((p.cost.index_keys_examined - 500.0).abs() < 1e-6);
}

/// The near miss: the same reads, listing the tickets, fetch each one.
#[test]
fn the_same_read_without_returns_fetches_its_documents() {
    let d = design_of(&TICKETS.replace(
        "READ",
        "open_list: {read: ticket, filter: {project: eq, status: eq}, rate: 100}",
    ));
    let p = plan_of(&d, "open_list");
    assert!(p.steps[0].count.is_none());
    assert!((p.cost.documents_examined - 500.0).abs() < 1e-6);
}

/// A condition on an array (a multikey key) is not counted from the keys:
/// each candidate is fetched.
#[test]
fn a_count_through_an_array_fetches_its_candidates() {
    let d = design_of(&TICKETS.replace(
        "READ",
        "tagged: {read: ticket, filter: {project: eq, tags: eq}, returns: count, rate: 100}",
    ));
    let p = plan_of(&d, "tagged");
    let step = &p.steps[0];
    assert_eq!(step.count.map(|c| c.covered), Some(false), "{step:?}");
    assert!(p.cost.documents_examined > 0.0);
}
