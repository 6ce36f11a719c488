//! The optimizer against exhaustive enumeration on small models whose choices
//! interact: an entity that two parents could embed, nested embedding, an
//! atomic group that one document can honour, copies that only pay when the
//! relationship is referenced.

use super::builder::*;
use crate::advise::optimize::{exhaustive, local_search};
use crate::candidates::facts::Facts;
use crate::model::{Aggregate, AggregateFn, AtomicGroup, Model, OperationKind, RelationshipKind};
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

/// Comments belong to a post and to their author; only one can embed them.
fn comments_two_parents() -> Model {
    let mut b = B::new("comments-two-parents");
    b.mixes(&["reading", "writing"]);
    let post = b.entity("post", 10_000, vec![s("title", 40), s("body", 2000)]);
    let user = b.entity("user", 5_000, vec![s("name", 16), s("email", 24)]);
    let comment = b.entity("comment", 200_000, vec![s("text", 200), date("at")]);
    let tag = b.entity("tag", 10_000, vec![s("label", 12)]);
    let pc = b.one_to_many("comments", post, comment, card(0, 20, Some(100)), false);
    let uc = b.one_to_many("written", user, comment, card(0, 40, Some(150)), false);
    let pt = b.one_to_many("tags", post, tag, card(0, 3, Some(8)), false);
    b.m.relationships[uc.index()].child_field = "author".into();
    b.op(
        "post_page",
        &[100.0, 10.0],
        OperationKind::Read {
            entity: post,
            filter: vec![eq("_id")],
            sort: vec![],
            limit: None,
            fields: vec![],
            include: vec![inc(pc, true, &[]), inc(pt, true, &["label"])],
            aggregates: vec![],
        },
    );
    b.op(
        "user_page",
        &[30.0, 3.0],
        OperationKind::Read {
            entity: user,
            filter: vec![eq("_id")],
            sort: vec![],
            limit: None,
            fields: vec![],
            include: vec![inc(uc, true, &["text"])],
            aggregates: vec![],
        },
    );
    b.op(
        "comment",
        &[2.0, 60.0],
        OperationKind::Insert {
            entity: comment,
            links: vec![pc, uc],
            count: 1,
        },
    );
    b.op(
        "rename_user",
        &[0.1, 5.0],
        OperationKind::Update {
            entity: user,
            filter: vec![eq("_id")],
            changes: vec!["name".into()],
            relinks: vec![],
            multi: false,
        },
    );
    b.build()
}

/// Order lines, their order's total kept atomically, and the customer's name.
fn orders_atomic() -> Model {
    let mut b = B::new("orders-atomic");
    let customer = b.entity("customer", 50_000, vec![s("name", 20), s("email", 24)]);
    let order = b.entity("order", 1_000_000, vec![dbl("total"), date("placed")]);
    let line = b.entity(
        "line",
        4_000_000,
        vec![int("qty"), dbl("price"), s("sku", 10)],
    );
    let co = b.one_to_many("orders", customer, order, card(0, 20, None), true);
    let ol = b.one_to_many("lines", order, line, card(1, 4, Some(50)), false);
    let cust_read = b.read(
        "order_page",
        80.0,
        order,
        vec![eq("_id")],
        vec![inc(ol, true, &[]), inc(co, false, &["name"])],
    );
    let _ = cust_read;
    let add = b.insert("add_line", 20.0, line, vec![ol]);
    let total = b.update("update_total", 20.0, order, &["total"], vec![]);
    b.m.workload.atomic_groups.push(AtomicGroup {
        name: "line_and_total".into(),
        operations: vec![add, total],
    });
    b.insert("place_order", 5.0, order, vec![co]);
    b.op(
        "lines_count",
        &[10.0],
        OperationKind::Read {
            entity: order,
            filter: vec![eq("_id")],
            sort: vec![],
            limit: None,
            fields: vec![],
            include: vec![],
            aggregates: vec![Aggregate {
                relationship: ol,
                function: AggregateFn::Count,
                field: None,
            }],
        },
    );
    // A third relationship: a customer's addresses, one-to-few.
    let address = b.entity("address", 80_000, vec![s("street", 30), s("city", 16)]);
    let ca = b.one_to_many("addresses", customer, address, card(0, 2, Some(5)), false);
    b.read(
        "customer_page",
        40.0,
        customer,
        vec![eq("_id")],
        vec![inc(ca, true, &[])],
    );
    b.build()
}

/// A one-to-one inside a one-to-few inside a parent: nested embedding.
fn nested() -> Model {
    let mut b = B::new("nested");
    let company = b.entity("company", 1_000, vec![s("name", 30)]);
    let office = b.entity("office", 3_000, vec![s("city", 16)]);
    let address = b.entity("address", 3_000, vec![s("street", 30), s("zip", 6)]);
    let staff = b.entity("employee", 100_000, vec![s("name", 20), s("role", 12)]);
    let co = b.one_to_many("offices", company, office, card(1, 3, Some(10)), false);
    let oa = b.rel(
        "address",
        RelationshipKind::OneToOne,
        office,
        address,
        card(1, 1, Some(1)),
        card(1, 1, Some(1)),
        false,
    );
    let os = b.one_to_many("staff", office, staff, card(0, 30, Some(400)), true);
    b.read(
        "company_page",
        50.0,
        company,
        vec![eq("_id")],
        vec![{
            let mut i = inc(co, true, &[]);
            i.include = vec![inc(oa, true, &[])];
            i
        }],
    );
    b.read(
        "office_staff",
        20.0,
        office,
        vec![eq("_id")],
        vec![inc(os, true, &["name"])],
    );
    b.read(
        "find_employee",
        60.0,
        staff,
        vec![eq("name")],
        vec![inc(os, false, &["city"])],
    );
    b.insert("hire", 1.0, staff, vec![os]);
    b.update("move_office", 0.01, address, &["street"], vec![]);
    b.build()
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

#[test]
fn an_atomic_group_in_one_document_needs_no_transaction() {
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
    if lines.chosen == crate::design::Layout::Embed {
        assert!(
            !add.transaction,
            "embedded lines and their total live in one document"
        );
    } else {
        assert!(
            add.transaction,
            "lines apart from their order need a transaction"
        );
    }
}
