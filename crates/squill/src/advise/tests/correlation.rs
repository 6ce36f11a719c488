//! Correlated filters (issue 41): a filter's conditions multiply their
//! shares only where the model ties nothing together. An `_id`, or a
//! combination the model says is unique, picks one document and needs its
//! index alone; under a tenant, a parent that lies within the tenant
//! implies it. Each test names the plan class it guards.

use super::design_of as design;
use crate::design::{Design, OperationPlan};

const SHOP: &str = r"
name: shop
entities:
  store:
    count: 40000
    fields: {name: string(30)}
  product:
    count: 200000000
    fields: {sku: string(12), price: decimal}
    unique: [[store, sku]]
  customer:
    count: 500000000
    fields: {name: string(24)}
  order:
    count: 2000000000
    fields: {status: string(10), created_at: date, total: decimal}
relationships:
  products: {parent: store, child: product, children: {typical: 2000, max: 3000000}, child_field: store}
  customers: {parent: store, child: customer, children: {typical: 5000, max: 7500000}, child_field: store}
  store_orders: {parent: store, child: order, children: {typical: 20000, max: 30000000}, child_field: store}
  customer_orders: {parent: customer, child: order, children: {typical: 4, max: 5000}, child_field: customer}
operations:
  by_sku: {read: product, rate: 20000, filter: {store: eq, sku: eq}}
  order_by_id: {read: order, rate: 3000, filter: {store: eq, _id: eq}}
  mine: {read: order, rate: 500, filter: {store: eq, customer: eq}, sort: -created_at, limit: 20}
  add: {insert: product, links: [products], rate: 50}
  place: {insert: order, links: [store_orders, customer_orders], rate: 300}
";

fn plan<'d>(d: &'d Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

fn index_keys(d: &Design, coll: &str) -> Vec<Vec<String>> {
    let c = d.collections.iter().find(|c| c.name == coll).unwrap();
    c.indexes
        .iter()
        .map(|i| i.keys.iter().map(|(k, _)| k.clone()).collect())
        .collect()
}

/// Class: an `_id` lookup that also names its parent was priced at
/// 0.00001 of a document and given a `{store, _id}` index: it is one
/// document by `_id_`, the store tested on it.
#[test]
fn an_id_lookup_named_with_its_parent_is_one_document_by_the_id_index() {
    let d = design(SHOP);
    let p = plan(&d, "order_by_id");
    assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    assert_eq!(p.steps[0].index.as_deref(), Some("_id_"));
    assert_eq!(p.cost.documents_examined, 1.0);
    assert!(
        !index_keys(&d, "order").contains(&vec!["store".to_string(), "_id".to_string()]),
        "{:?}",
        index_keys(&d, "order")
    );
}

/// Class: a key unique within its parent, tested with the parent, was
/// priced as the product of two independent shares (0.00001 of a
/// document): the model says the pair is unique, so it is one document,
/// found by the unique index of the pair.
#[test]
fn a_unique_combination_tested_whole_is_one_document_by_its_index() {
    let d = design(SHOP);
    let p = plan(&d, "by_sku");
    assert_eq!(p.cost.documents_examined, 1.0, "{:?}", p.cost);
    assert_eq!(p.steps[0].index.as_deref(), Some("store_1_sku_1"));
    let product = d.collections.iter().find(|c| c.name == "product").unwrap();
    let pair = product
        .indexes
        .iter()
        .find(|i| i.name == "store_1_sku_1")
        .unwrap();
    assert!(pair.unique, "{pair:?}");
    // Near miss: without the statement the two shares stay independent.
    let free = design(&SHOP.replace("    unique: [[store, sku]]\n", ""));
    assert!(plan(&free, "by_sku").cost.documents_examined < 1.0);
}

/// The orders found by their customer's reference (the layout the search
/// weighs against an array of ids in the customer), so that the read is
/// one query whose conditions the planner prices.
fn by_reference(text: &str) -> String {
    text.replace(
        "child_field: customer}",
        "child_field: customer, layout: parent-reference}",
    )
}

/// Class: under a tenant, a customer of the store implies the store: her
/// orders in it are her 4 orders, not her share times the store's.
#[test]
fn under_a_tenant_a_parent_within_it_implies_the_tenant() {
    let d = design(&by_reference(&format!("tenant: store\n{SHOP}")));
    let p = plan(&d, "mine");
    assert_eq!(p.cost.round_trips, 1.0, "{:?}", p.steps);
    assert!(
        (p.cost.documents_examined - 4.0).abs() < 1e-9,
        "{:?}",
        p.cost
    );
    assert_eq!(
        index_keys(&d, "order"),
        vec![
            vec!["_id".to_string()],
            vec![
                "store".to_string(),
                "customer".to_string(),
                "created_at".to_string()
            ]
        ]
    );
    // Near miss: without the tenant the model does not say that a
    // customer's orders are all in her store; the shares multiply.
    let free = design(&by_reference(SHOP));
    let q = plan(&free, "mine");
    assert!(q.cost.documents_examined < 4.0, "{:?}", q.cost);
}
