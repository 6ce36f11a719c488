//! Tests of `all_tenants: true`: an operation across every tenant names
//! none, and the word is refused where it says nothing or contradicts the
//! operation (review46 item 7: a purge of every clinic's slots had become
//! one purge per clinic at the same rate).

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const SHOP: &str = r"
name: shop
tenant: store
entities:
  store:
    count: 40000
    fields: {name: string(30)}
  order:
    count: 2000000000
    fields: {status: string(10), created_at: date}
  line:
    count: 6000000000
    fields: {qty: int}
relationships:
  store_orders: {parent: store, child: order, children: {typical: 20000, max: 30000000}, child_field: store}
  lines: {parent: order, child: line, children: {typical: 3, max: 100}, child_field: order}
operations:
  mine: {read: order, rate: 500, filter: {status: eq}}
  purge: {delete: order, rate: 0.01, filter: {status: eq, created_at: range}FLAG}
";

fn with(flag: &str) -> String {
    SHOP.replace("FLAG", flag)
}

fn filter_paths(m: &Model, name: &str) -> Vec<String> {
    let op = m
        .workload
        .operations
        .iter()
        .find(|o| o.name == name)
        .unwrap();
    let (OperationKind::Read { filter, .. }
    | OperationKind::Update { filter, .. }
    | OperationKind::Delete { filter, .. }) = &op.kind
    else {
        return Vec::new();
    };
    filter.iter().map(|c| c.path.join(".")).collect()
}

/// The operation keeps its own filter, with no tenant added; every other
/// operation still names its store; the word survives a write and a read
/// back of the model.
#[test]
fn an_operation_across_every_tenant_names_none() {
    let m = parse("shop.yaml", &with(", all_tenants: true")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(filter_paths(&m, "purge"), ["status", "created_at"]);
    assert_eq!(filter_paths(&m, "mine"), ["store_orders._id", "status"]);
    let purge = m
        .workload
        .operations
        .iter()
        .find(|o| o.name == "purge")
        .unwrap();
    assert!(purge.all_tenants);
    // (The operations only: a carried relationship reads back without
    // its chain, which is not this word's concern.)
    let back = parse("shop.yaml", &to_yaml(&m)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.workload.operations, back.workload.operations);
    // Without the word, the same purge is one store's.
    let one = parse("shop.yaml", &with("")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        filter_paths(&one, "purge"),
        ["store_orders._id", "status", "created_at"]
    );
}

/// `all_tenants` where it makes no sense, each at the word's line and
/// column: no tenant in the model, with `finds_tenant`, on an insert, on
/// the tenant itself, and beside a filter that names the tenant.
#[test]
fn all_tenants_is_refused_where_it_says_nothing() {
    let no_tenant = problems(&with(", all_tenants: true").replace("tenant: store\n", ""));
    let finder = problems(&with("").replace(
        "  mine: {read: order, rate: 500, filter: {status: eq}}",
        "  mine: {read: order, rate: 500, filter: {_id: eq}, finds_tenant: true, all_tenants: true}",
    ));
    let insert = problems(&with("").replace(
        "  mine: {read: order,",
        "  add: {insert: order, rate: 5, all_tenants: true}\n  mine: {read: order,",
    ));
    let tenant = problems(&with("").replace(
        "  mine: {read: order, rate: 500, filter: {status: eq}}",
        "  mine: {read: store, rate: 500, filter: {name: eq}, all_tenants: true}",
    ));
    let named = problems(&with(", all_tenants: true").replace(
        "filter: {status: eq, created_at: range}",
        "filter: {store: eq, status: eq, created_at: range}",
    ));
    insta::assert_snapshot!(
        [no_tenant, finder, insert, tenant, named]
            .iter()
            .map(|p| p.join("\n"))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
