//! The optimizer against exhaustive enumeration on small models whose choices
//! interact: an entity that two parents could embed, nested embedding, an
//! atomic group that one document can honour, copies that only pay when the
//! relationship is referenced.

use crate::advise::optimize::{exhaustive, local_search};
use crate::candidates::facts::Facts;
use crate::model::Model;
use crate::settings::Settings;

fn assert_optimal(model: &Model) {
    let settings = Settings::default();
    for mix in 0..model.workload.mixes.len() {
        let facts = Facts::new(model, &settings, mix);
        let space = crate::rules::design::space(&facts);
        let combos: usize = (0..space.rels.len())
            .map(|r| space.allowed(r).len())
            .product();
        assert!(
            space.rels.len() >= 3 && combos > 8,
            "{}: too small a space ({combos})",
            model.name
        );
        let (_, exact) = exhaustive(&facts, &space).unwrap();
        let (_, found) = local_search(&facts, &space).unwrap();
        assert!(
            (found - exact).abs() <= 1e-9 * exact.abs().max(1.0),
            "{} mix {mix}: local search {found} vs exhaustive {exact} over {combos} combinations",
            model.name
        );
    }
}

fn model(file: &str, yaml: &str) -> Model {
    crate::inputs::model_file::parse(file, yaml).unwrap()
}

/// Comments belong to a post and to their author; only one can embed them.
fn comments_two_parents() -> Model {
    model(
        "comments-two-parents.yaml",
        "name: comments-two-parents
mixes: [reading, writing]
entities:
  post: {count: 10000, fields: {title: string(40), body: string(2000)}}
  user: {count: 5000, fields: {name: string(16), email: string(24)}}
  comment: {count: 200000, fields: {text: string(200), at: date}}
  tag: {count: 10000, fields: {label: string(12)}}
relationships:
  comments: {parent: post, child: comment, children: {min: 0, typical: 20, max: 100}}
  written:
    parent: user
    child: comment
    children: {min: 0, typical: 40, max: 150}
    child_field: author
  tags: {parent: post, child: tag, children: {min: 0, typical: 3, max: 8}}
operations:
  post_page:
    read: post
    rates: {reading: 100, writing: 10}
    filter: {_id: eq}
    include: {comments: {}, tags: {fields: [label]}}
  user_page:
    read: user
    rates: {reading: 30, writing: 3}
    filter: {_id: eq}
    include: {written: {fields: [text]}}
  comment:
    insert: comment
    links: [comments, written]
    rates: {reading: 2, writing: 60}
  rename_user:
    update: user
    filter: {_id: eq}
    changes: [name]
    rates: {reading: 0.1, writing: 5}
",
    )
}

/// Order lines, their order's total kept atomically, and the customer's name.
fn orders_atomic() -> Model {
    model(
        "orders-atomic.yaml",
        "name: orders-atomic
entities:
  customer: {count: 50000, fields: {name: string(20), email: string(24)}}
  order: {count: 1000000, fields: {total: double, placed: date}}
  line: {count: 4000000, fields: {qty: int, price: double, sku: string(10)}}
  address: {count: 80000, fields: {street: string(30), city: string(16)}}
relationships:
  orders:
    parent: customer
    child: order
    children: {min: 0, typical: 20, max: unbounded}
    standalone: true
  lines: {parent: order, child: line, children: {min: 1, typical: 4, max: 50}}
  # A third relationship: a customer's addresses, one-to-few.
  addresses: {parent: customer, child: address, children: {min: 0, typical: 2, max: 5}}
operations:
  order_page:
    read: order
    rate: 80
    filter: {_id: eq}
    include: {lines: {}, customer: {fields: [name]}}
  add_line: {insert: line, links: [lines], rate: 20}
  update_total: {update: order, filter: {_id: eq}, changes: [total], rate: 20}
  place_order: {insert: order, links: [orders], rate: 5}
  lines_count: {read: order, rate: 10, filter: {_id: eq}, aggregates: [count(lines)]}
  customer_page: {read: customer, rate: 40, filter: {_id: eq}, include: [addresses]}
atomic:
  line_and_total: [add_line, update_total]
",
    )
}

/// A one-to-one inside a one-to-few inside a parent: nested embedding.
fn nested() -> Model {
    model(
        "nested.yaml",
        "name: nested
entities:
  company: {count: 1000, fields: {name: string(30)}}
  office: {count: 3000, fields: {city: string(16)}}
  address: {count: 3000, fields: {street: string(30), zip: string(6)}}
  employee: {count: 100000, fields: {name: string(20), role: string(12)}}
relationships:
  offices: {parent: company, child: office, children: {min: 1, typical: 3, max: 10}}
  address: {kind: one-to-one, parent: office, child: address}
  staff:
    parent: office
    child: employee
    children: {min: 0, typical: 30, max: 400}
    standalone: true
operations:
  company_page:
    read: company
    rate: 50
    filter: {_id: eq}
    include: {offices: {include: [address]}}
  office_staff: {read: office, rate: 20, filter: {_id: eq}, include: {staff: {fields: [name]}}}
  find_employee:
    read: employee
    rate: 60
    filter: {name: eq}
    include: {office: {fields: [city]}}
  hire: {insert: employee, links: [staff], rate: 1}
  move_office: {update: address, filter: {_id: eq}, changes: [street], rate: 0.01}
",
    )
}

#[test]
fn local_search_matches_exhaustive_on_comments_with_two_parents() {
    assert_optimal(&comments_two_parents());
}

#[test]
fn local_search_matches_exhaustive_on_orders_with_an_atomic_group() {
    assert_optimal(&orders_atomic());
}

#[test]
fn local_search_matches_exhaustive_on_nested_embedding() {
    assert_optimal(&nested());
}

/// The lines and the order's total are two calls even when the lines are
/// embedded in the order: a `$push` of the line, then an `updateOne` of
/// the total. Two calls are not atomic together, so the group runs in a
/// transaction on either layout (issue 41, gap G1; it said none was needed
/// when both wrote one document, and a failure between the calls left the
/// line without its total).
#[test]
fn an_atomic_group_of_two_calls_on_one_document_is_a_transaction() {
    let d = crate::advise::advise(&orders_atomic(), &Settings::default(), None).unwrap();
    let lines = d
        .relationships
        .iter()
        .find(|r| r.relationship == "lines")
        .unwrap();
    let add = d
        .operations
        .iter()
        .find(|o| o.operation == "add_line")
        .unwrap();
    assert!(
        add.transaction,
        "{:?}: the line and the total are two calls",
        lines.chosen
    );
}
