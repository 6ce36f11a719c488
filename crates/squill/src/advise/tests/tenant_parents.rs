//! An insert under a tenant finds each parent of the new child in the
//! caller's tenant first, in every layout that names the parent
//! (review48, issue 41): a parent whose tenant keeps its id instead of
//! the parent keeping the tenant's, an outlier's overflow insert, a bucket
//! upsert. And the bucket of a child holds the tenant at its top level
//! whichever path leads from the child to the tenant.

use super::tenant_depth::step_on;
use super::{design_of, plan_of};
use crate::design::{Action, Purpose};

/// The actions of the plan of `op`.
fn actions(d: &crate::design::Design, op: &str) -> Vec<Action> {
    plan_of(d, op).steps.iter().map(|s| s.action).collect()
}

/// The parent the first step of `op` checks, and the tenant it checks in.
fn checked(d: &crate::design::Design, op: &str) -> Vec<(String, String)> {
    plan_of(d, op)
        .steps
        .iter()
        .flat_map(|s| &s.purpose)
        .filter_map(|p| match p {
            Purpose::CheckParent { parent, tenant, .. } => Some((parent.clone(), tenant.clone())),
            _ => None,
        })
        .collect()
}

/// A project keeps no org: the org keeps its projects' ids. A new ticket's
/// project is found as an id in the caller's org's array, on `_id_`: one
/// key, the org's document. Before, no check was made, and the
/// alternative looked cheaper by it (counts-and-finders, "project ids in
/// the org").
#[test]
fn a_parent_its_tenant_keeps_is_found_in_the_tenants_array() {
    let (_, d) = crate::fixtures::load("tenant-parents");
    assert_eq!(
        actions(&d, "open_ticket"),
        [Action::Find, Action::InsertOne]
    );
    let p = plan_of(&d, "open_ticket");
    let (_, filter, keys) = step_on(&d, p, "org");
    assert_eq!(filter, ["_id", "projects"]);
    assert_eq!(keys, ["_id"]);
    assert_eq!(
        checked(&d, "open_ticket"),
        [("project".into(), "org".into())]
    );
    assert_eq!(p.cost.index_keys_examined, 1.0);
    assert_eq!(p.cost.documents_examined, 1.0);
}

/// An outlier's comment: the push into the ticket's array tests the org,
/// and matches nothing for another org's ticket; the overflow insert that
/// then runs would file the comment under it. The ticket is found in the
/// caller's org before the push.
#[test]
fn an_outliers_overflow_insert_is_checked_before_the_push() {
    let (_, d) = crate::fixtures::load("tenant-parents");
    assert_eq!(
        actions(&d, "add_comment"),
        [Action::Find, Action::UpdateOne, Action::InsertOne]
    );
    let p = plan_of(&d, "add_comment");
    let (_, filter, keys) = step_on(&d, p, "ticket");
    assert_eq!(filter, ["org", "_id"]);
    assert_eq!(keys, ["_id"]);
    assert_eq!(
        checked(&d, "add_comment"),
        [("ticket".into(), "org".into())]
    );
}

/// A tick upserted into its symbol's minute bucket, a comment into its
/// article's page: the upsert would open a bucket of the caller's org
/// under another org's symbol. The symbol is found in the org first.
#[test]
fn a_bucket_upsert_finds_its_parent_in_the_tenant_first() {
    let (_, d) = crate::fixtures::load("bucket-tenant");
    for (op, parent) in [("record", "symbol"), ("add_comment", "article")] {
        assert_eq!(actions(&d, op), [Action::Find, Action::Upsert], "{op}");
        let p = plan_of(&d, op);
        let (_, filter, keys) = step_on(&d, p, parent);
        assert_eq!(filter, ["org", "_id"], "{op}");
        assert_eq!(keys, ["_id"], "{op}");
        assert_eq!(checked(&d, op), [(parent.into(), "org".into())], "{op}");
    }
}

/// A reading belongs to its org through its device (its first link), and
/// is bucketed by its batch, which is the org's too. Every reading of one
/// bucket shares the batch and so the org: the bucket holds the org at its
/// top level, the element none, and the upsert and the window read test
/// it first. Both parents are checked. Before, only the first link's
/// bucket held the org; this one held none, its upsert tested none, and
/// the bucket was refused as a candidate under a tenant.
const SECOND_LINK: &str = r"
name: second-link
tenant: org
entities:
  org: {count: 1000, fields: {name: string(20)}}
  device: {count: 50000, fields: {serial: {type: string(12), unique_within: org}}}
  batch: {count: 200000, fields: {label: string(20)}}
  reading:
    count: 2000000000
    fields:
      at: date
      value: double
relationships:
  devices: {parent: org, child: device, children: {min: 1, typical: 50, max: 2000}, child_field: org}
  batches: {parent: org, child: batch, children: {min: 1, typical: 200, max: 5000}, child_field: org}
  device_readings: {parent: device, child: reading, children: {min: 0, typical: 40000, max: unbounded}, child_field: device}
  batch_readings: {parent: batch, child: reading, children: {min: 0, typical: 10000, max: unbounded, growth_per_day: 10000}, child_field: batch, layout: bucket}
operations:
  record: {insert: reading, links: [batch_readings, device_readings], rate: 2000}
  window:
    read: reading
    rate: 5
    filter: {batch: eq, at: range(0.001)}
";

#[test]
fn a_bucket_on_any_path_to_the_tenant_holds_the_tenant() {
    let d = design_of(SECOND_LINK);
    let upsert = plan_of(&d, "record")
        .steps
        .iter()
        .find(|s| s.action == Action::Upsert)
        .expect("the bucket's upsert");
    let buckets = d
        .collections
        .iter()
        .find(|c| c.name == upsert.collection)
        .expect("the bucket collection");
    let top: Vec<&str> = buckets
        .shape
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert!(top.contains(&"org"), "{top:?}");
    let element: Vec<&str> = buckets
        .shape
        .fields
        .iter()
        .find_map(|f| match &f.ty {
            crate::design::ShapeType::Array { items, .. } => match items.as_ref() {
                crate::design::ShapeType::Object { shape } => {
                    Some(shape.fields.iter().map(|f| f.name.as_str()).collect())
                }
                _ => None,
            },
            _ => None,
        })
        .expect("an array of readings");
    assert!(!element.contains(&"org"), "{element:?}");
    for op in ["record", "window"] {
        let (_, filter, keys) = step_on(&d, plan_of(&d, op), &buckets.name);
        assert_eq!(filter.first().map(String::as_str), Some("org"), "{op}");
        assert_eq!(keys.first().map(String::as_str), Some("org"), "{op}");
    }
    let mut parents = checked(&d, "record");
    parents.sort();
    assert_eq!(
        parents,
        [
            ("batch".into(), "org".into()),
            ("device".into(), "org".into())
        ]
    );
}

/// A follow's two parents are players: the follower keeps the follow's id
/// (`following`, pushed after the insert), the followed is named by the
/// follow. Both are found in the game before the insert; the followed by
/// an id of its own (`LinkId`), so the two checks never share one id.
#[test]
fn both_parents_of_one_entity_are_found_each_by_its_own_id() {
    let d = design_of(include_str!("leaderboard-feed.yaml"));
    let p = plan_of(&d, "follow");
    let checks: Vec<(Option<String>, crate::design::ValueSource)> = p
        .steps
        .iter()
        .filter_map(|s| match &s.purpose[..] {
            [Purpose::CheckParent { field, .. }] => {
                Some((field.clone(), s.filter[1].value_from.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        checks,
        [
            (None, crate::design::ValueSource::Param),
            (
                Some("followed".into()),
                crate::design::ValueSource::LinkId {
                    field: "followed".into()
                }
            ),
        ]
    );
    let first_write = p
        .steps
        .iter()
        .position(|s| s.action != Action::Find)
        .expect("a write");
    assert_eq!(first_write, 2, "{:?}", p.steps);
}

/// audit49 A1/A2: a device is the parent of readings and is updated by
/// its own id (`heartbeat`), so it keeps documents of its own (rule
/// `bucket-loses-identity`), and a new reading's device is found in the
/// caller's org before the insert. Before, devices went into the org's
/// buckets: the bucket's elements had no id, `heartbeat` matched nothing,
/// and `ingest` inserted a reading under another org's device unchecked,
/// a saving that tipped the layout toward buckets.
#[test]
fn a_parent_others_reference_is_not_bucketed_and_its_children_are_checked() {
    let d = design_of(include_str!("bucketed-parent-tenant.yaml"));
    let devices = d
        .relationships
        .iter()
        .find(|r| r.relationship == "devices")
        .expect("devices");
    assert!(
        !matches!(devices.chosen, crate::design::Layout::Bucket { .. }),
        "{:?}",
        devices.chosen
    );
    assert_eq!(actions(&d, "ingest"), [Action::Find, Action::InsertOne]);
    assert_eq!(checked(&d, "ingest"), [("device".into(), "org".into())]);
    // The heartbeat updates the device's own document by its `_id`.
    let beat = &plan_of(&d, "heartbeat").steps[0];
    assert_eq!(beat.collection, "device");
    assert!(
        beat.filter.iter().any(|f| f.path == "_id"),
        "{:?}",
        beat.filter
    );
}
