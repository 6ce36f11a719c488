//! Snapshots of the script for small models, one per transition, and the
//! refusals. Each model is an example with a `current:` section and, where
//! the workload alone would not choose the layout under test, the
//! relationship pinned to it (`layout:`).

use super::*;
use crate::settings::Settings;

/// product-reviews (examples/product-reviews.yaml), with `layout` and `current`.
fn reviews(layout: Option<&str>, current: &str) -> String {
    let pin = layout
        .map(|l| format!("    layout: {l}\n"))
        .unwrap_or_default();
    format!(
        "name: product-reviews
entities:
  product:
    count: 200000
    fields: {{name: string(24), price: double, description: string(600)}}
  review:
    count: 40000000
    fields:
      user: {{type: string(12), distinct: 2000000}}
      rating: {{type: int, distinct: 5}}
      text: string(300)
      date: date
relationships:
  reviews:
    parent: product
    child: review
    children: {{min: 0, typical: 200, max: unbounded, growth_per_day: 0.5}}
    child_field: product_id
    standalone: true
{pin}operations:
  product_page:
    read: product
    rate: 500
    filter: {{_id: eq}}
    include:
      reviews: {{sort: -date, limit: 10, fields: [user, rating, text, date]}}
    aggregates: [count(reviews)]
  all_reviews:
    read: review
    rate: 20
    filter: {{product_id: eq}}
    sort: -date
    limit: 20
  write_review:
    insert: review
    links: [reviews]
    rate: 1.2
current:
  reviews: {current}
"
    )
}

/// order-customer (examples/order-customer.yaml), with `layout` and `current`.
fn orders(layout: &str, current: &str) -> String {
    format!(
        "name: order-customer
entities:
  customer:
    count: 1000000
    fields: {{name: string(18), email: string(24), address: string(60), phone: string(14), loyalty_points: int}}
  order:
    count: 30000000
    fields: {{total: double, placed_at: date}}
relationships:
  orders:
    parent: customer
    child: order
    children: {{min: 0, typical: 30, max: unbounded, growth_per_day: 0.01}}
    child_field: customer
    standalone: true
    layout: {layout}
operations:
  order_page:
    read: order
    rate: 300
    filter: {{_id: eq}}
    include:
      customer: {{fields: [name, email]}}
  place_order:
    insert: order
    links: [orders]
    rate: 4
  edit_contact:
    update: customer
    filter: {{_id: eq}}
    changes: [name, email]
    rate: 0.01
current:
  orders: {current}
"
    )
}

fn designs(yaml: &str) -> (Model, Design, Design) {
    let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("the model loads");
    let settings = Settings::default();
    let (_, recommended) =
        crate::advise::advise_with_model(&model, &settings, None).expect("advise");
    let (_, today) = crate::advise::today_design(&model, &settings, None)
        .expect("advise today")
        .expect("a current: section");
    (model, today, recommended)
}

fn script(yaml: &str) -> String {
    let (model, today, recommended) = designs(yaml);
    migration(&model, &today, &recommended, 500)
        .unwrap_or_else(|e| panic!("{e}"))
        .script
}

/// The script of a model whose layouts change: it has steps.
fn moving(yaml: &str) -> String {
    let text = script(yaml);
    assert!(text.contains("runStep("), "no step:\n{text}");
    text
}

fn refused(yaml: &str) -> String {
    let (model, today, recommended) = designs(yaml);
    match migration(&model, &today, &recommended, 500) {
        Ok(m) => panic!("a script was written:\n{}", m.script),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parent_reference_to_embed() {
    insta::assert_snapshot!(moving(&reviews(Some("embed"), "parent-reference")));
}

#[test]
fn parent_reference_to_child_references() {
    insta::assert_snapshot!(moving(&reviews(
        Some("child-references"),
        "parent-reference"
    )));
}

#[test]
fn parent_reference_to_subset() {
    insta::assert_snapshot!(moving(&reviews(None, "parent-reference")));
}

#[test]
fn parent_reference_to_extended_reference_into_the_child() {
    insta::assert_snapshot!(moving(&orders("extended-reference", "parent-reference")));
}

#[test]
fn embed_to_parent_reference_with_a_computed_count() {
    insta::assert_snapshot!(moving(&reviews(Some("parent-reference"), "embed")));
}

#[test]
fn child_references_to_parent_reference() {
    insta::assert_snapshot!(moving(&reviews(
        Some("parent-reference"),
        "child-references"
    )));
}

#[test]
fn already_best_does_nothing() {
    let text = script(&reviews(None, "subset"));
    assert!(text.contains("already the best"), "{text}");
    assert!(!text.contains("runStep("), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn unsupported_transition_is_refused() {
    insta::assert_snapshot!(refused(&orders(
        "embed-parent-in-child",
        "parent-reference"
    )));
}
