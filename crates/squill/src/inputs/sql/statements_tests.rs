//! Statements as operations, on a small schema: each kind of statement,
//! the joins it follows, and the reasons for those it leaves out.

use super::Evidence;
use super::ddl::{SqlDialect, parse};
use super::map::{Mapping, import_schema};
use super::statements::{Observed, Translated, translate};
use crate::inputs::model_file;

const DDL: &str = r#"
CREATE TABLE customer (customer_id serial PRIMARY KEY, email varchar(80) NOT NULL, name text, city varchar(30));
CREATE TABLE category (category_id int PRIMARY KEY, parent_id int REFERENCES category(category_id), name varchar(40));
CREATE TABLE product (product_id serial PRIMARY KEY, name varchar(120) NOT NULL, price numeric(10,2), category_id int REFERENCES category(category_id));
CREATE TABLE tag (tag_id serial PRIMARY KEY, label varchar(20));
CREATE TABLE product_tag (product_id int REFERENCES product(product_id), tag_id int REFERENCES tag(tag_id), added_at timestamp, PRIMARY KEY (product_id, tag_id));
CREATE TABLE orders (order_id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES customer(customer_id), placed_at timestamptz NOT NULL, status varchar(10));
CREATE TABLE order_line (line_id serial PRIMARY KEY, order_id int NOT NULL REFERENCES orders(order_id), product_id int NOT NULL REFERENCES product(product_id), qty int, amount numeric(10,2));
"#;

fn run(queries: &[(&str, f64)]) -> (Translated, String) {
    let schema = parse(DDL, SqlDialect::Postgres);
    let mapping = Mapping::of(&schema);
    let observed: Vec<Observed> = queries
        .iter()
        .map(|(q, rows)| Observed {
            query: q.to_string(),
            per_second: 2.5,
            calls: 9000,
            rows_per_call: *rows,
        })
        .collect();
    let t = translate(&schema, &mapping, &observed);
    let evidence = Evidence {
        source: "test".into(),
        operations: t.blocks.concat(),
        ..Evidence::default()
    };
    let yaml = import_schema("shop", &schema, &mapping, Some(&evidence)).yaml;
    (t, yaml)
}

fn ops(queries: &[(&str, f64)]) -> String {
    let (t, yaml) = run(queries);
    model_file::parse("shop.yaml", &yaml).unwrap_or_else(|e| panic!("{e:?}\n{yaml}"));
    assert!(t.skipped.is_empty(), "{:?}", t.skipped);
    t.blocks.concat().join("\n")
}

#[test]
fn a_select_becomes_a_read_with_filter_sort_and_limit() {
    let got = ops(&[(
        "SELECT order_id, placed_at FROM orders WHERE customer_id = $1 AND placed_at >= $2 ORDER BY placed_at DESC LIMIT $3",
        9.6,
    )]);
    insta::assert_snapshot!(got, @r"
      # 9000 calls, 9.6 rows each: SELECT order_id, placed_at FROM orders WHERE customer_id = $1 AND placed_at >= $2 ORDER BY placed_at DESC LIMIT $3
      read_orders_by_customer_id_and_placed_at:
        read: orders
        filter: {customer_id: eq, placed_at: range}
        sort: [-placed_at]
        limit: 10
        fields: [_id, placed_at]
        rate: 2.5
    ");
}

#[test]
fn joins_through_foreign_keys_become_includes_and_paths() {
    let got = ops(&[
        (
            "SELECT o.*, c.name, l.qty FROM orders o JOIN customer c ON c.customer_id = o.customer_id JOIN order_line l ON l.order_id = o.order_id WHERE o.order_id = $1",
            3.0,
        ),
        (
            "SELECT p.name FROM product p, category c WHERE p.category_id = c.category_id AND c.name = $1",
            40.0,
        ),
        (
            "SELECT p.name, t.label FROM product p JOIN product_tag pt ON pt.product_id = p.product_id JOIN tag t ON t.tag_id = pt.tag_id WHERE p.product_id = $1",
            4.0,
        ),
        (
            "SELECT p.* FROM product p JOIN product_tag pt USING (product_id) WHERE pt.tag_id = $1",
            30.0,
        ),
    ]);
    insta::assert_snapshot!(got);
}

#[test]
fn aggregates_over_children_and_counts() {
    let got = ops(&[
        (
            "SELECT c.customer_id, c.name, count(o.order_id) FROM customer c LEFT JOIN orders o ON o.customer_id = c.customer_id WHERE c.city = $1 GROUP BY c.customer_id",
            12.0,
        ),
        ("SELECT count(*) FROM orders WHERE customer_id = $1", 1.0),
        (
            "SELECT o.order_id, sum(l.amount) FROM orders o JOIN order_line l ON l.order_id = o.order_id WHERE o.customer_id = $1 GROUP BY o.order_id",
            5.0,
        ),
    ]);
    insta::assert_snapshot!(got);
}

#[test]
fn writes_become_inserts_updates_deletes_and_links() {
    let got = ops(&[
        (
            "INSERT INTO orders (customer_id, placed_at, status) VALUES ($1, $2, $3)",
            1.0,
        ),
        (
            "INSERT INTO order_line (order_id, product_id, qty, amount) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
            2.0,
        ),
        ("UPDATE orders SET status = $1 WHERE order_id = $2", 1.0),
        (
            "UPDATE orders SET customer_id = $1 WHERE order_id = $2",
            1.0,
        ),
        (
            "UPDATE product SET price = price * $1 WHERE category_id = $2",
            37.0,
        ),
        ("DELETE FROM orders WHERE placed_at < $1", 120.0),
        (
            "INSERT INTO product_tag (product_id, tag_id, added_at) VALUES ($1, $2, $3)",
            1.0,
        ),
        (
            "DELETE FROM product_tag WHERE product_id = $1 AND tag_id = $2",
            1.0,
        ),
        (
            "UPDATE product_tag SET added_at = $1 WHERE product_id = $2 AND tag_id = $3",
            1.0,
        ),
    ]);
    insta::assert_snapshot!(got);
}

#[test]
fn what_the_model_cannot_say_is_skipped_with_a_reason() {
    let (t, _) = run(&[
        ("SELECT * FROM pg_catalog.pg_class WHERE relname = $1", 1.0),
        ("SELECT * FROM invoices WHERE id = $1", 1.0),
        (
            "SELECT name FROM customer WHERE city = $1 OR email = $2",
            1.0,
        ),
        (
            "SELECT c.name FROM customer c JOIN product p ON p.name = c.name",
            1.0,
        ),
        ("SET search_path = $1", 0.0),
        (
            "SELECT name FROM customer UNION SELECT name FROM product",
            1.0,
        ),
        ("UPDATE orders SET order_id = $1 WHERE order_id = $2", 1.0),
        (
            "UPDATE product_tag SET tag_id = $1 WHERE product_id = $2 AND tag_id = $3",
            1.0,
        ),
        ("this is not sql", 0.0),
    ]);
    assert_eq!(t.mapped, 0);
    // The catalog read, the SET and the text that is no statement: a
    // tool's or nobody's, not the application's reads and writes.
    assert_eq!(t.other, 3);
    let reasons: Vec<String> = t.skipped.iter().map(|(_, r)| r.clone()).collect();
    insta::assert_snapshot!(reasons.join("\n"));
}
