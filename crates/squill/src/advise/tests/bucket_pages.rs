//! A bucket by count is a page of arrivals: the first 50 of a parent's
//! children to arrive, then the next 50. Only a read of all of a parent's
//! children, in no order or oldest first by a date they arrive with, reads
//! one bucket per page (audit49 A1 and C2).

use crate::candidates::enumerate::for_relationship;
use crate::candidates::facts::Facts;
use crate::design::{BucketBy, Layout};
use crate::model::RelationshipId;
use crate::settings::Settings;

/// Devices of an org, 50 a page: `READ` is the page read's sort and filter.
fn model(read: &str) -> String {
    format!(
        "
entities:
  org: {{count: 5000, fields: {{name: string(30)}}}}
  device:
    count: 2000000
    fields:
      serial: {{type: string(16), distinct: 2000000}}
      model: {{type: string(12), distinct: 50}}
      added_at: date
      last_seen: date
relationships:
  devices: {{parent: org, child: device, children: {{min: 1, typical: 400, max: 100000}}, child_field: org}}
operations:
  add: {{insert: device, links: [devices], rate: 10}}
  beat: {{update: device, filter: {{org: eq, serial: eq}}, changes: [last_seen], rate: 100}}
  fleet_page: {{read: device, {read}, limit: 50, rate: 100}}
"
    )
}

/// Whether the search offers a bucket of 50 per page for `devices`.
fn pages_in_buckets(read: &str) -> bool {
    let text = model(read);
    let m = crate::inputs::model_file::parse("t.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    let settings = Settings::default();
    let facts = Facts::new(&m, &settings, 0);
    for_relationship(&facts, RelationshipId::from_index(0))
        .iter()
        .any(|l| {
            matches!(
                l,
                Layout::Bucket {
                    by: BucketBy::Count,
                    per_bucket: 50,
                    ..
                }
            )
        })
}

/// Oldest first by the date a device arrives with, or in no order: the
/// page is a bucket.
#[test]
fn a_page_in_arrival_order_is_a_bucket() {
    assert!(pages_in_buckets("filter: {org: eq}, sort: added_at"));
    assert!(pages_in_buckets("filter: {org: eq}"));
    // A window on that date picks buckets by the first and last date
    // each keeps.
    assert!(pages_in_buckets(
        "filter: {org: eq, added_at: range}, sort: added_at"
    ));
}

/// By serial, the first page is the 50 lowest serials, not the first 50
/// devices to arrive. Before, any ascending sort counted as arrival
/// order, and `fleet_page` read the first bucket.
#[test]
fn a_page_sorted_on_another_field_is_no_bucket() {
    assert!(!pages_in_buckets("filter: {org: eq}, sort: serial"));
}

/// A date an update moves (`last_seen`) is no arrival order either.
#[test]
fn a_page_sorted_on_a_date_that_changes_is_no_bucket() {
    assert!(!pages_in_buckets("filter: {org: eq}, sort: last_seen"));
}

/// The devices of one model, 50 a page, are not the first 50 devices of
/// the org. Before, the search offered the bucket and its reason said
/// "devices are read 50 at a time: one bucket document per page of 50".
#[test]
fn a_page_of_some_children_is_no_bucket() {
    assert!(!pages_in_buckets(
        "filter: {org: eq, model: eq}, sort: added_at"
    ));
    assert!(!pages_in_buckets("filter: {org: eq, model: eq}"));
}
