//! A delete, or an update of many, writes every instance its filter
//! matches unless the filter pins one (an `_id`, a unique combination):
//! `deleteMany`/`updateMany` is what the operation means, and an estimate
//! of how many match (a place under a tenant, a parent's few children by
//! status) must not turn it into a write of the first match (review41 D4).

use super::design_of as design;
use crate::design::{Action, Design, OperationPlan};

fn plan<'d>(d: &'d Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

/// The actions of `op`'s steps on `collection`.
fn actions(d: &Design, op: &str, collection: &str) -> Vec<Action> {
    plan(d, op)
        .steps
        .iter()
        .filter(|s| s.collection == collection)
        .map(|s| s.action)
        .collect()
}

/// The review's model (/tmp/r41/geo2.yaml): orders of a city (the
/// tenant) at 20 a km², purged within 1 km of a point.
pub(super) fn geo2(tenant: &str) -> String {
    format!(
        "name: geo2
{tenant}entities:
  city: {{count: 100, fields: {{name: string(20)}}}}
  order:
    count: 2000000
    density: {{typical: 20, max: 300}}
    fields:
      status: {{type: string(10), enum: [placed, ready, assigned, delivered]}}
      placed_at: date
      pickup: point
relationships:
  orders: {{parent: city, child: order, children: {{typical: 20000, max: 100000}}, child_field: city, layout: parent-reference}}
operations:
  place_order: {{insert: order, links: [orders], rate: 300}}
  purge_near:
    delete: order
    filter: {{pickup: near(1 km)}}
    rate: 0.1
"
    )
}

/// D4: the orders within 1 km go, all of them, with or without the
/// tenant: one `deleteMany` on the tenant and the place. Under the tenant
/// the estimate once fell below one and the plan deleted the nearest.
#[test]
fn a_delete_near_a_point_deletes_every_order_there_under_a_tenant() {
    for tenant in ["", "tenant: city\n"] {
        let d = design(&geo2(tenant));
        assert_eq!(
            actions(&d, "purge_near", "order"),
            vec![Action::DeleteMany],
            "{tenant}"
        );
    }
}

/// A customer's orders with a status, two a customer and four statuses
/// (half an order expected), deleted or marked: every such order is
/// written, as the filter pins none. By `_id`, or by a unique combination,
/// one is.
fn orders(ops: &str) -> String {
    format!(
        "name: shop
entities:
  customer: {{count: 100000, fields: {{name: string(20)}}}}
  order:
    count: 200000
    fields:
      status: {{type: string(10), enum: [placed, paid, shipped, cancelled]}}
      number: {{type: int, unique_within: customer}}
relationships:
  orders: {{parent: customer, child: order, children: {{typical: 2, max: 50}}, child_field: customer, layout: parent-reference}}
operations:
  place: {{insert: order, links: [orders], rate: 10}}
{ops}"
    )
}

#[test]
fn a_delete_by_a_filter_that_pins_none_deletes_many_below_one_expected() {
    let d = design(&orders(
        "  purge_cancelled: {delete: order, filter: {customer: eq, status: eq}, rate: 1}
  drop_one: {delete: order, filter: {customer: eq, number: eq}, rate: 1}
  drop_by_id: {delete: order, filter: {_id: eq}, rate: 1}
",
    ));
    let purge = plan(&d, "purge_cancelled");
    assert!(purge.steps[0].documents <= 1.0, "{:?}", purge.steps[0]);
    assert_eq!(
        actions(&d, "purge_cancelled", "order"),
        vec![Action::DeleteMany]
    );
    assert_eq!(actions(&d, "drop_one", "order"), vec![Action::DeleteOne]);
    assert_eq!(actions(&d, "drop_by_id", "order"), vec![Action::DeleteOne]);
}

#[test]
fn an_update_of_many_by_a_filter_that_pins_none_updates_many() {
    let d = design(&orders(
        "  cancel_all: {update: order, filter: {customer: eq, status: eq}, changes: [status], multi: true, rate: 1}
  cancel_one: {update: order, filter: {customer: eq, number: eq}, changes: [status], multi: true, rate: 1}
  pay_first: {update: order, filter: {customer: eq, status: eq}, changes: [status], rate: 1}
",
    ));
    assert_eq!(actions(&d, "cancel_all", "order"), vec![Action::UpdateMany]);
    assert_eq!(actions(&d, "cancel_one", "order"), vec![Action::UpdateOne]);
    // Not `multi`: the model says one instance changes.
    assert_eq!(actions(&d, "pay_first", "order"), vec![Action::UpdateOne]);
}
