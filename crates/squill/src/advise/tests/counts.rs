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

/// Sales embedded in their product (4 each) and ticks kept in minute
/// buckets of their symbol (about 900 a minute), each counted (REVIEW46 4).
const CHILDREN: &str = r"
name: child-counts
entities:
  product: {count: 100000, fields: {title: string(30)}}
  sale:
    count: 400000
    fields:
      state: {type: string(8), enum: [live, ended]}
  symbol: {count: 5000, fields: {ticker: {type: string(6), unique: true}}}
  tick:
    count: 6480000000
    fields: {time: date, price: double}
relationships:
  sales: {parent: product, child: sale, children: {min: 0, typical: 4, max: 10}, child_field: product, layout: embed}
  ticks: {parent: symbol, child: tick, children: {min: 0, typical: 1296000, max: unbounded, growth_per_day: 1296000}, child_field: symbol, layout: bucket}
operations:
  live_count: {read: sale, filter: {state: eq}, returns: count, rate: 100}
  tick_count: {read: tick, filter: {symbol: eq, time: range(0.0007)}, returns: count, rate: 5}
  minute_ticks: {read: tick, filter: {symbol: eq, time: range(0.0007)}, rate: 5}
  record: {insert: tick, links: [ticks], rate: 100}
";

/// A count of embedded sales is one aggregation of their products that
/// unwinds the array and counts the sales that pass (`elements` and
/// `count` on one step). It expects the sales that match, and it is priced
/// at the products it reads. With 4 sales to a product, about half of
/// them live, more sales match than products hold them.
#[test]
fn a_count_of_embedded_children_counts_the_elements_and_pays_for_their_hosts() {
    let d = design_of(CHILDREN);
    let p = plan_of(&d, "live_count");
    assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    let step = &p.steps[0];
    assert_eq!(step.collection, "product");
    assert_eq!(step.elements.as_deref(), Some("sales"), "{step:?}");
    assert_eq!(step.count.map(|c| c.covered), Some(false), "{step:?}");
    assert!(step.projection.is_empty() && step.sort.is_empty() && step.limit.is_none());
    assert!(
        (step.documents - 200_000.0).abs() < 1.0,
        "{}",
        step.documents
    );
    let hosts = p.cost.documents_examined;
    assert!(hosts > 0.0 && hosts < 100_000.0 + 1e-6, "{hosts}");
    assert!(
        hosts < step.documents,
        "{hosts} products for {} sales",
        step.documents
    );
}

/// A count of bucketed ticks reads the buckets the window picks, as the
/// list of those ticks does. It is priced the same, and it expects the
/// matching ticks, not one bucket for each of them.
#[test]
fn a_count_of_bucketed_children_reads_the_buckets_the_list_reads() {
    let d = design_of(CHILDREN);
    let count = plan_of(&d, "tick_count");
    let list = plan_of(&d, "minute_ticks");
    let step = &count.steps[0];
    assert_eq!(step.elements.as_deref(), Some("ticks"), "{step:?}");
    assert_eq!(step.count.map(|c| c.covered), Some(false), "{step:?}");
    assert!(step.bucket_order.is_none() && step.limit.is_none());
    assert_eq!(count.cost.documents_examined, list.cost.documents_examined);
    assert_eq!(count.cost.bytes_read, list.cost.bytes_read);
    // Hundreds of ticks in a handful of buckets: priced at the buckets.
    assert!(step.documents > 100.0, "{}", step.documents);
    assert!(
        count.cost.documents_examined * 10.0 < step.documents,
        "{:?} for {} ticks",
        count.cost,
        step.documents
    );
}
