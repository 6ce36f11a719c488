//! Tenants (issue 41, review of S19's work): what the design says under a
//! `tenant:`, where every index leads with the tenant. Each test names the
//! class it guards and fails on the code before its fix.

use super::design_of as design;
use crate::design::Design;

fn index_keys(d: &Design, coll: &str) -> Vec<Vec<String>> {
    let c = d
        .collections
        .iter()
        .find(|c| c.name == coll)
        .unwrap_or_else(|| panic!("no collection {coll}"));
    c.indexes
        .iter()
        .map(|i| i.keys.iter().map(|(k, _)| k.clone()).collect())
        .collect()
}

/// Accounts, their hosts, and the hosts' log lines (one-to-squillions,
/// kept by a reference in each line); every operation names its account.
/// `READ` is the one read of the lines.
const LOGS: &str = r"
name: logs
tenant: account
entities:
  account: {count: 10000, fields: {name: string(20)}}
  host: {count: 1000000, fields: {ip: string(15)}}
  line: {count: 10000000000, fields: {level: string(5), time: date, text: string(200)}}
relationships:
  hosts: {parent: account, child: host, children: {typical: 100, max: 100000}, child_field: account}
  account_lines: {parent: account, child: line, children: {typical: 1000000, max: 100000000}, child_field: account}
  host_lines: {parent: host, child: line, children: {typical: 10000, max: 100000000}, child_field: host}
operations:
  READ
  log: {insert: line, links: [host_lines], rate: 1000}
";

/// The `parent-reference` reason for the lines' host: whether it says the
/// reference is unindexed.
fn host_reference_unindexed(d: &Design) -> bool {
    use crate::rules::design::parent_reference::{OneToSquillions, RULE};
    let rel = d
        .relationships
        .iter()
        .find(|r| r.relationship == "host_lines")
        .expect("host_lines");
    let hit = rel
        .rules
        .iter()
        .find(|h| h.rule == RULE.id)
        .expect("parent-reference supports the layout");
    hit.reason
        .get::<OneToSquillions>()
        .expect("typed")
        .unindexed
}

/// Class: "(no index)" decided by an index's first key. Under a tenant a
/// host's lines are found on `{account, host, time}`, which starts with the
/// account: the reason said the host reference was unindexed. It asks
/// whether an index serves the query of a host's lines, as the planner
/// plans it.
#[test]
fn a_tenant_led_index_on_the_reference_is_an_index() {
    let d = design(&LOGS.replace(
        "READ",
        "recent: {read: line, rate: 100, filter: {host: eq}, sort: -time, limit: 50}",
    ));
    assert!(
        index_keys(&d, "line").contains(&vec![
            "account".to_string(),
            "host".to_string(),
            "time".to_string()
        ]),
        "{:?}",
        index_keys(&d, "line")
    );
    assert!(!host_reference_unindexed(&d));
}

/// Near miss: the lines' index is led by the account, as every index is,
/// but serves a query by level, not by host: the reference is unindexed.
#[test]
fn a_tenant_led_index_on_another_field_is_no_index_of_the_reference() {
    let d = design(&LOGS.replace(
        "READ",
        "errors: {read: line, rate: 100, filter: {level: eq}, sort: -time, limit: 50}",
    ));
    assert!(
        index_keys(&d, "line").contains(&vec![
            "account".to_string(),
            "level".to_string(),
            "time".to_string()
        ]),
        "{:?}",
        index_keys(&d, "line")
    );
    assert!(host_reference_unindexed(&d));
}

/// A store page counts its products, rarely; products are added 50 times
/// a second. At the typical store (2,000 products) counting at read time
/// costs less than a kept count, and the design counts; at the largest
/// (3,000,000) a search would keep the count in the store, and its
/// insert would carry an `$inc` of the store.
const COUNTED: &str = r"
name: stores
tenant: store
entities:
  store: {count: 40000, fields: {name: string(30)}}
  product: {count: 200000000, fields: {sku: string(12), price: decimal}}
relationships:
  products: {parent: store, child: product, children: {typical: 2000, max: 3000000}, child_field: store}
operations:
  store_page: {read: store, rate: 1, filter: {_id: eq}, aggregates: [count(products)]}
  by_sku: {read: product, rate: 2000, filter: {sku: eq}}
  add_product: {insert: product, rate: 50}
";

/// Class: the largest tenant's report described another design. It ran
/// the search again with only the relationships' kinds pinned, which kept
/// a count in the store that the chosen design does not have (the insert
/// at 2 round trips there, 1 in the design). It plans the chosen design
/// again: the insert is the same one step, and what grows with the store
/// is priced in that design.
#[test]
fn the_largest_tenant_is_priced_in_the_design_chosen() {
    let d = design(COUNTED);
    assert!(d.entities.is_empty(), "{:?}", d.entities);
    let insert = d
        .operations
        .iter()
        .find(|p| p.operation == "add_product")
        .expect("add_product");
    assert_eq!(insert.steps.len(), 1);
    let t = d.tenancy.as_ref().expect("a tenancy report");
    let cost = |op: &str| {
        t.operations
            .iter()
            .find(|c| c.operation == op)
            .unwrap_or_else(|| panic!("no {op}"))
    };
    let add = cost("add_product");
    assert_eq!(add.typical, insert.cost);
    assert_eq!(add.largest.round_trips, 1.0);
    assert_eq!(cost("by_sku").largest.round_trips, 1.0);
}

/// S19 with a customer read with her orders (an include over a reference
/// in each order, pinned): the orders' query names the store too, and its
/// index leads with it (`{store, customer, created_at}`), as every query
/// does under a tenant. The store adds no share of its own: the customer
/// lies in one store, so her typical 4 orders are found, not 4 times the
/// store's share. The include's step had no store and an index
/// `{customer, created_at}` (issue 41).
#[test]
fn a_family_read_scopes_each_step_to_its_tenant() {
    let text = super::golden::example_text("scenarios/s19-stores")
        .replace(
            "    children: {min: 0, typical: 4, max: 5000}\n    child_field: customer\n",
            "    children: {min: 0, typical: 4, max: 5000}\n    child_field: customer\n    layout: parent-reference\n",
        )
        .replace(
            "    read: order\n    rate: 500\n    filter: {customer: eq}\n    sort: -created_at\n    limit: 20\n",
            "    read: customer\n    rate: 500\n    filter: {_id: eq}\n    include:\n      customer_orders: {sort: -created_at, limit: 20}\n",
        );
    assert!(
        text.contains("include:\n      customer_orders"),
        "the read is rewritten"
    );
    let d = design(&text);
    let p = d
        .operations
        .iter()
        .find(|p| p.operation == "customer_orders")
        .expect("customer_orders");
    let orders = p
        .steps
        .iter()
        .find(|s| s.collection == "order")
        .unwrap_or_else(|| panic!("the orders are read: {:#?}", p.steps));
    let paths: Vec<&str> = orders.filter.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["store", "customer"]);
    assert_eq!(
        orders.index.as_deref(),
        Some("store_1_customer_1_created_at_1")
    );
    assert!(
        (orders.documents - 4.0).abs() < 1e-9,
        "{}",
        orders.documents
    );
    assert!(
        index_keys(&d, "order")
            .iter()
            .all(|k| k.first().map(String::as_str) != Some("customer")),
        "{:?}",
        index_keys(&d, "order")
    );
}

/// S19 with an update and a delete of a product by its `_id`: each write
/// tests the store the operation names beside the id, as a read by `_id`
/// does, so an id of another store's product matches nothing. Both run on
/// `_id_`. They tested the `_id` alone (issue 41, gap G5).
#[test]
fn a_write_by_id_is_scoped_to_its_tenant() {
    let text = crate::rules::testing::example("scenarios/s19-stores.yaml").replacen(
        "\noperations:\n",
        "\noperations:
  rename_product:
    update: product
    filter: {_id: eq}
    changes: [title]
    rate: 5
  drop_product:
    delete: product
    filter: {_id: eq}
    rate: 1
",
        1,
    );
    let d = design(&text);
    for name in ["rename_product", "drop_product"] {
        let p = d
            .operations
            .iter()
            .find(|p| p.operation == name)
            .unwrap_or_else(|| panic!("no plan for {name}"));
        assert_eq!(p.steps.len(), 1, "{name}: {:#?}", p.steps);
        let s = &p.steps[0];
        let paths: Vec<&str> = s.filter.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["store", "_id"], "{name}");
        assert!(
            s.filter
                .iter()
                .all(|f| f.value_from == crate::design::ValueSource::Param),
            "{name}: {:?}",
            s.filter
        );
        assert_eq!(s.index.as_deref(), Some("_id_"), "{name}");
    }
}

/// audit48 C5: one `largest:` share is the largest tenant's where it is
/// largest. A workspace with 4% of the contacts has at most 50 API keys
/// (`keys`'s `max`), not 4% of them: the report prices its keys at the
/// `max` (they were 24,000), and its contacts at the share.
#[test]
fn the_largest_tenant_keeps_within_each_relationships_max() {
    let text = r"
name: crm-keys
tenant: {entity: workspace, largest: 0.04}
entities:
  workspace: {count: 200000, fields: {name: string(30)}}
  api_key: {count: 600000, fields: {hash: {type: string(44), unique: true}}}
  contact: {count: 500000000, fields: {email: string(28)}}
relationships:
  keys:
    parent: workspace
    child: api_key
    children: {min: 1, typical: 3, max: 50}
    child_field: workspace
  contacts:
    parent: workspace
    child: contact
    children: {min: 0, typical: 2500, max: 20000000}
    child_field: workspace
operations:
  auth: {read: api_key, filter: {hash: eq}, finds_tenant: true, rate: 20000}
  list_keys: {read: api_key, filter: {workspace: eq}, rate: 10}
  by_email: {read: contact, filter: {email: eq}, rate: 800}
";
    let d = design(text);
    let t = d.tenancy.as_ref().expect("a tenancy report");
    let largest = |e: &str| t.scoped.iter().find(|s| s.entity == e).expect(e).largest;
    assert_eq!(largest("api_key"), 50.0);
    assert_eq!(largest("contact"), 20_000_000.0);
}
