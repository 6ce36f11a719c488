//! A unique combination whose keys hold a parent that lies in the tenant
//! (review46 item 6, hotel): a night is unique by `[room_type, date]`, and
//! its room type belongs to one hotel, which the night carries down. The
//! combination led by the hotel says the same thing, so one unique index
//! `{hotel, room_type, date}` keeps the rule and serves the reads (which
//! all lead with the hotel), where there were two. And an index is said
//! to be used only by what uses it: an update by `_id` that carries the
//! unique index (no operation inserts nights) does not.

use super::design_of;

const HOTEL: &str = r"
name: hotel
tenant: hotel
entities:
  hotel: {count: 10000, fields: {name: string(30)}}
  room_type: {count: 100000, fields: {code: string(8)}}
  night:
    count: 36500000
    fields: {date: date, available: int}
    unique: [[room_type, date]]
relationships:
  room_types: {parent: hotel, child: room_type, children: {typical: 10, max: 80}, child_field: hotel}
  nights: {parent: room_type, child: night, children: {typical: 365, max: 730}, child_field: room_type, layout: parent-reference}
operations:
  hold: {update: night, filter: {_id: eq}, changes: [available], rate: 300}
READ";

const READ: &str =
    "  availability: {read: night, filter: {room_type: eq, date: range}, sort: date, rate: 5000}\n";

fn night_indexes(d: &crate::design::Design) -> Vec<&crate::design::Index> {
    d.collections
        .iter()
        .find(|c| c.name == "night")
        .expect("night")
        .indexes
        .iter()
        .filter(|i| i.name != "_id_")
        .collect()
}

fn keys(i: &crate::design::Index) -> Vec<&str> {
    i.keys.iter().map(|(k, _)| k.as_str()).collect()
}

#[test]
fn one_unique_index_led_by_the_tenant_keeps_the_rule_and_serves_the_reads() {
    let d = design_of(&HOTEL.replace("READ", READ));
    let list = night_indexes(&d);
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(keys(list[0]), ["hotel", "room_type", "date"]);
    assert!(list[0].unique);
    assert_eq!(list[0].used_by, ["availability"]);
    assert!(!list[0].kept_by_data);
}

#[test]
fn a_unique_index_no_operation_uses_is_kept_by_the_data() {
    let d = design_of(&HOTEL.replace("READ", ""));
    let list = night_indexes(&d);
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(keys(list[0]), ["hotel", "room_type", "date"]);
    assert!(list[0].unique);
    assert!(list[0].used_by.is_empty(), "{:?}", list[0].used_by);
    assert!(list[0].kept_by_data);
    let text = crate::outputs::design::text::render(&d, false);
    assert!(
        text.contains("{ hotel: 1, room_type: 1, date: 1 } unique  kept unique by the data"),
        "{text}"
    );
}
