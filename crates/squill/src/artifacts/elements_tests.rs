//! A read of children embedded in an array, on their own (issue 41, audit
//! C): the filter's tests of the elements hold for one element
//! (`$elemMatch`), and the read returns the matching elements in the
//! read's order, not the documents ordered by their least element. Apart,
//! a product low in another warehouse was listed as low in this one.

use super::external_tests::{run_inline_python, server_tools};
use super::*;

/// Stock lines embedded in their product, each naming its warehouse; the
/// low stock lines of a warehouse.
const STOCK: &str = "
name: stock-lines
entities:
  product:
    count: 100000
    fields:
      sku: string(12)
  warehouse:
    count: 50
    fields:
      name: string(20)
  stock:
    count: 2000000
    fields:
      available: int
relationships:
  product_stock:
    parent: product
    child: stock
    children: {min: 1, typical: 20, max: 50}
    child_field: product
    layout: embed
  warehouse_stock:
    parent: warehouse
    child: stock
    children: {min: 0, typical: 40000, max: 100000}
    child_field: warehouse
    layout: parent-reference
operations:
  product_page:
    read: product
    filter: {_id: eq}
    include: [product_stock]
    rate: 1000
  low_stock:
    read: stock
    filter: {warehouse: eq, available: range(0.01)}
    sort: available
    limit: 100
    rate: 2
";

fn stock() -> (crate::model::Model, crate::design::Design) {
    let model =
        crate::inputs::model_file::parse("stock-lines.yaml", STOCK).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The plan and each language test one element, and return the
/// matching elements sorted and cut.
#[test]
fn a_read_of_embedded_children_tests_and_returns_elements() {
    let (_, d) = stock();
    let plan = d
        .operations
        .iter()
        .find(|p| p.operation == "low_stock")
        .expect("low_stock");
    let step = plan.steps.last().expect("a step");
    assert_eq!(step.elements.as_deref(), Some("product_stock"));
    let text = crate::outputs::design::render(&d, crate::outputs::design::Format::Text, false);
    assert!(
        text.contains("{ product_stock: $elemMatch { warehouse: eq (parameter), available: range (parameter) } }"),
        "{text}"
    );
    let ops = cookbook::op_codes(&d);
    let low = ops
        .iter()
        .find(|o| o.name == "low_stock")
        .expect("low_stock");
    let pipeline = r#"[{"$match": {"product_stock": {"$elemMatch": {"warehouse": warehouse_id, "available": {"$gte": available_from, "$lt": available_to}}}}}, {"$unwind": "$product_stock"}, {"$match": {"product_stock.warehouse": warehouse_id, "product_stock.available": {"$gte": available_from, "$lt": available_to}}}, {"$sort": {"product_stock.available": 1}}, {"$limit": 100}, {"$project": {"product_stock": 1}}]"#;
    for text in [
        cookbook::mongosh_function(low),
        cookbook::node_function(low),
        cookbook::python_function(low),
    ] {
        assert!(text.contains(pipeline), "{text}");
    }
}

/// Against the server: product 1 has 5,000 in warehouse 1 and 2 in
/// warehouse 2, product 2 has 3 in warehouse 1. The low stock of
/// warehouse 1 is product 2's line alone (product 1 is low only in
/// another warehouse), returned as that element with its product's id.
#[test]
fn low_stock_of_a_warehouse_is_its_own_lines_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = stock();
    let script = r#"
import sys
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
db["product"].drop()
db["product"].insert_many([
    {"_id": 1, "sku": "a", "product_stock": [{"warehouse": 1, "available": 5000}, {"warehouse": 2, "available": 2}]},
    {"_id": 2, "sku": "b", "product_stock": [{"warehouse": 2, "available": 7000}, {"warehouse": 1, "available": 3}]},
])
got = cookbook.low_stock(db, 1, 0, 10)["product"]
assert got == [{"_id": 2, "product_stock": {"warehouse": 1, "available": 3}}], got
print("ok: 1 line")
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("elements", "squill_elements"),
        script,
    );
    assert!(out.contains("ok: 1 line"), "{out}");
}
