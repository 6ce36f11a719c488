//! A unique combination within a tenant (issue 41, review of S19's work)
//! where the layout keeps the tenant's id inside the child under another
//! path than a bare reference: the store folded into each product, or a
//! reference with copies of the store. The index's keys are the paths the
//! design's own documents hold. Each test fails on the code before its fix.

use crate::advise::advise;
use crate::design::{Design, Warning};
use crate::settings::Settings;
use serde_json::Value;

/// Stores and their products, every operation naming its store; a SKU is
/// unique within its store. `LAYOUT` pins the relationship to the store.
const STORES: &str = r"
name: stores
tenant: store
entities:
  store: {count: 400, fields: {name: string(30)}}
  product:
    count: 800000
    fields:
      sku: {type: string(12), unique_within: store}
      price: decimal
relationships:
  products: {parent: store, child: product, children: {typical: 2000, max: 5000}, child_field: store, layout: LAYOUT}
operations:
  by_sku: {read: product, rate: 2000, filter: {sku: eq}}
  add_product: {insert: product, rate: 50}
";

fn design(layout: &str) -> Design {
    let text = STORES.replace("LAYOUT", layout);
    let model =
        crate::inputs::model_file::parse("stores.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    advise(&model, &Settings::default(), None).unwrap_or_else(|e| panic!("{e}"))
}

/// The value under a dotted path of a document (`store._id`).
fn at<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(doc, |v, k| v.get(k))
}

/// What the unique combination comes to in `d`: whether the insert warns
/// that no index can check it, and the unique index's keys on the
/// products (other than `_id_`), each with whether the example document
/// of the collection holds it.
fn unique_on_products(d: &Design) -> (bool, Vec<(String, bool)>) {
    let unchecked = d
        .operations
        .iter()
        .find(|p| p.operation == "add_product")
        .expect("add_product")
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::UniqueUnchecked { .. }));
    let c = d
        .collections
        .iter()
        .find(|c| c.entities.iter().any(|e| e == "product"))
        .expect("a collection of products");
    let keys = c
        .indexes
        .iter()
        .filter(|i| i.unique && i.name != "_id_")
        .flat_map(|i| i.keys.iter())
        .map(|(k, _)| (k.clone(), at(&c.example, k).is_some()))
        .collect();
    (unchecked, keys)
}

/// Class: the parent's id folded into the child with the parent (layout
/// embed-parent-in-child) had no path, so the unique index within the
/// tenant was refused with a warning although every product holds
/// `store._id`.
#[test]
fn a_store_folded_into_each_product_keeps_the_unique_index() {
    let d = design("embed-parent-in-child");
    let rel = d
        .relationships
        .iter()
        .find(|r| r.relationship == "products")
        .expect("products");
    assert_eq!(rel.chosen.kind(), "embed-parent-in-child");
    let (unchecked, keys) = unique_on_products(&d);
    assert!(!unchecked);
    assert_eq!(
        keys,
        vec![("store._id".to_string(), true), ("sku".to_string(), true)]
    );
}

/// The same class for a reference with copies of the store in each
/// product (the store's name a snapshot, so copied into the product):
/// the index's first key is the id inside the copy, where the document
/// holds it.
#[test]
fn a_reference_with_copies_of_the_store_keeps_the_unique_index() {
    let d = design("extended-reference, snapshot: [name]");
    let rel = d
        .relationships
        .iter()
        .find(|r| r.relationship == "products")
        .expect("products");
    assert!(
        rel.chosen.copies_in(crate::design::Side::Child) == ["name"],
        "{:?}",
        rel.chosen
    );
    let (unchecked, keys) = unique_on_products(&d);
    assert!(!unchecked);
    assert_eq!(
        keys,
        vec![("store._id".to_string(), true), ("sku".to_string(), true)]
    );
}

/// Near miss: a plain reference keeps the bare id, `{store, sku}`.
#[test]
fn a_plain_reference_keeps_the_bare_id_in_the_unique_index() {
    let d = design("parent-reference");
    let (unchecked, keys) = unique_on_products(&d);
    assert!(!unchecked);
    assert_eq!(
        keys,
        vec![("store".to_string(), true), ("sku".to_string(), true)]
    );
}
