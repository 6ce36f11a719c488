//! `squill migrate` into designs with buckets, tree paths and kept
//! aggregates, on the shop fixture in the real PostgreSQL: the model is the
//! live import with a workload that asks for them (and the two buckets
//! the layouts pinned, as a team pins the design it wants priced: with
//! the shop's few products a category, advise would embed them). The documents are
//! loaded under the design's validators, the cookbook runs on them (its
//! subtree reads use the paths), and every figure is compared with one
//! counted in the tables by SQL of the test's own.

use crate::migrate::{
    check_loaded, design_of, generate, import_model, migrate, mongo, run_tool, tree, with_db,
};
use crate::postgres::{copy_of, psql, server};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// The live import of `url` with `edits` (anchor, text put after it)
/// applied and `operations` appended.
fn model_with(
    url: &str,
    dir: &Path,
    name: &str,
    edits: &[(&str, &str)],
    ops: &str,
) -> std::path::PathBuf {
    let model = import_model(url, dir, name);
    let mut text = std::fs::read_to_string(&model).unwrap();
    for (anchor, add) in edits {
        let at = text
            .find(anchor)
            .unwrap_or_else(|| panic!("the imported model has no `{anchor}`:\n{text}"))
            + anchor.len();
        text.insert_str(at, add);
    }
    text.push_str(ops);
    std::fs::write(&model, text).unwrap();
    model
}

fn layout_of(design: &Value, relationship: &str) -> Value {
    design["relationships"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["relationship"] == relationship)
        .map(|d| d["chosen"].clone())
        .unwrap_or_else(|| panic!("no decision for {relationship}"))
}

/// One number from the source database.
fn count(url: &str, sql: &str) -> f64 {
    psql(url, sql).trim().parse().unwrap()
}

/// Sets up the design's collections, loads the migrated documents, checks
/// the counts on them and then runs the cookbook (check_generated.py
/// --expect, one load).
fn load_and_check(
    (mongo_uri, python, mongosh): (&str, &str, &str),
    db: &str,
    out: &Path,
    checks: &Value,
) -> String {
    let setup = run_tool(
        Command::new(mongosh)
            .args(["--quiet", "--norc", &with_db(mongo_uri, db)])
            .arg(out.join("setup.js")),
    );
    assert!(setup.contains("squill setup: done"), "{setup}");
    check_loaded((python, mongo_uri, db), out, checks, out.parent().unwrap())
}

#[test]
fn migrate_fills_tree_paths_page_buckets_and_kept_aggregates() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, mongosh)) = mongo() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_patterns");
    let url = format!("{user}/shop_patterns");
    let dir = crate::support::TempDir::new("pg-patterns");
    let model = model_with(
        &url,
        dir.path(),
        "shop",
        &[
            ("child_field: parent_id\n", "    levels: 3\n"),
            ("child_field: order_id\n", "    layout: bucket\n"),
            (
                "child_field: category_id\n    standalone: true  # other tables reference products\n",
                "    layout: path-reference\n",
            ),
        ],
        "operations:
  category_page:
    read: products
    rate: 100
    filter: {category_id: under}
    sort: price
    limit: 24
    fields: [name, price]
  product_page:
    read: products
    rate: 200
    filter: {_id: eq}
    include:
      category_id:
        fields: [name]
        include:
          parent_id: {fields: [name], recursive: true}
  order_page:
    read: orders
    rate: 50
    filter: {_id: eq}
    include:
      order_lines_of_orders: {limit: 2}
    aggregates: [sum(order_lines_of_orders.quantity), max(order_lines_of_orders.unit_price)]
",
    );
    let design = design_of(&model);
    assert_eq!(
        layout_of(&design, "categories_children")["layout"],
        "tree-path"
    );
    assert_eq!(
        layout_of(&design, "products_of_categories")["layout"],
        "path-reference"
    );
    let pages = layout_of(&design, "order_lines_of_orders");
    assert_eq!(pages["layout"], "bucket", "{pages}");
    let k = pages["per_bucket"].as_u64().unwrap();

    let out = dir.path().join("out");
    generate(&model, &out);
    migrate(&url, &model, &out, &["--format", "both"]);

    // The figures, from the tables.
    let depths = "WITH RECURSIVE w(id, depth) AS (SELECT id, 1 FROM categories WHERE parent_id IS NULL \
                  UNION ALL SELECT c.id, w.depth + 1 FROM categories c JOIN w ON c.parent_id = w.id)";
    let pages_sql = format!(
        "SELECT sum(ceil(n / {k}.0)) FROM (SELECT count(*) AS n FROM order_lines GROUP BY order_id) g"
    );
    let lines = count(&url, "SELECT count(*) FROM order_lines");
    let bucket = "orders_order_lines_of_orders";
    let checks = json!([
        {"collection": "categories", "kind": "count", "expected": count(&url, "SELECT count(*) FROM categories")},
        {"collection": "categories", "field": "path", "kind": "array_total",
         "expected": count(&url, &format!("{depths} SELECT sum(depth) FROM w"))},
        {"collection": "categories", "field": "path", "kind": "array_max",
         "expected": count(&url, &format!("{depths} SELECT max(depth) FROM w"))},
        {"collection": "products", "field": "category_id_path", "kind": "array_total",
         "expected": count(&url, &format!("{depths} SELECT sum(depth) FROM products p JOIN w ON w.id = p.category_id"))},
        {"collection": bucket, "kind": "count", "expected": count(&url, &pages_sql)},
        {"collection": bucket, "field": "count", "kind": "sum", "expected": lines},
        {"collection": bucket, "field": "order_lines_of_orders", "kind": "array_total", "expected": lines},
        {"collection": bucket, "field": "order_lines_of_orders", "kind": "array_max", "expected": k},
        {"collection": bucket, "field": "sum_quantity", "kind": "sum",
         "expected": count(&url, "SELECT sum(quantity) FROM order_lines")},
        {"collection": "orders", "field": "order_lines_of_orders_sum_quantity", "kind": "sum",
         "expected": count(&url, "SELECT sum(quantity) FROM order_lines")},
        {"collection": "orders", "field": "order_lines_of_orders_max_unit_price", "kind": "sum",
         "expected": count(&url, "SELECT sum(m) FROM (SELECT max(unit_price) AS m FROM order_lines GROUP BY order_id) g")},
    ]);
    let db = format!("shop_patterns_{}", std::process::id());
    let report = load_and_check((&mongo_uri, &python, &mongosh), &db, &out, &checks);
    eprintln!("{report}");
    assert!(report.contains("category_page"), "{report}");

    // A category renamed, a line added: the next run writes the documents
    // whose path holds the category, and the one page the line joined.
    psql(
        &format!("{superuser}/shop_patterns"),
        "UPDATE categories SET name = 'Renamed' WHERE id = 6;
         INSERT INTO order_lines (order_id, line_no, product_id, quantity, unit_price) VALUES (1, 9, 1, 5, 1.00);",
    );
    migrate(&url, &model, &out, &["--format", "both"]);
    let increment: std::collections::BTreeMap<String, Vec<u8>> = tree(&out.join("increments"));
    let docs = |name: &str| -> Vec<Value> {
        increment
            .iter()
            .filter(|(k, _)| k.ends_with(&format!("/{name}.json")))
            .flat_map(|(_, b)| {
                String::from_utf8_lossy(b)
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let under_6 = count(
        &url,
        "SELECT count(*) FROM categories WHERE id = 6 OR parent_id = 6",
    );
    let categories = docs("categories");
    assert_eq!(categories.len() as f64, under_6, "{categories:?}");
    assert!(categories.iter().all(|c| {
        c["path"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "Renamed")
    }));
    let products = docs("products");
    let products_under_6 = count(
        &url,
        "SELECT count(*) FROM products p JOIN categories c ON c.id = p.category_id WHERE c.id = 6 OR c.parent_id = 6",
    );
    assert_eq!(products.len() as f64, products_under_6);
    // Every page of the order that gained the line (a line that comes
    // shifts the pages after it), and no other.
    let pages = docs(bucket);
    let pages_of_1 = count(
        &url,
        &format!("SELECT ceil(count(*) / {k}.0) FROM order_lines WHERE order_id = 1"),
    );
    assert_eq!(pages.len() as f64, pages_of_1, "{pages:?}");
    assert!(pages.iter().all(|p| p["order_id"] == 1), "{pages:?}");
}

#[test]
fn migrate_fills_time_buckets() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, mongosh)) = mongo() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_days");
    let url = format!("{user}/shop_days");
    let dir = crate::support::TempDir::new("pg-days");
    let model = model_with(
        &url,
        dir.path(),
        "shop",
        &[
            ("max: 60", ", growth_per_day: 20"),
            (
                "child_field: customer_id\n    standalone: true  # other tables reference orders\n",
                "    layout: bucket\n",
            ),
        ],
        "operations:
  order_history:
    read: customers
    rate: 50
    filter: {_id: eq}
    include:
      orders_of_customers: {filter: {placed_at: range}, sort: -placed_at, limit: 30}
",
    );
    let design = design_of(&model);
    let days = layout_of(&design, "orders_of_customers");
    assert_eq!(days["layout"], "bucket", "{days}");
    let unit = days["by"]["unit"].as_str().unwrap().to_string();
    assert_eq!(days["by"]["field"], "placed_at", "{days}");
    let out = dir.path().join("out");
    generate(&model, &out);
    migrate(&url, &model, &out, &["--format", "both"]);
    let bucket = "customers_orders_of_customers";
    let orders = count(&url, "SELECT count(*) FROM orders");
    let checks = json!([
        {"collection": bucket, "kind": "count", "expected": count(&url, &format!(
            "SELECT count(*) FROM (SELECT DISTINCT customer_id, date_trunc('{unit}', placed_at AT TIME ZONE 'UTC') FROM orders) g"))},
        {"collection": bucket, "field": "count", "kind": "sum", "expected": orders},
        {"collection": bucket, "field": "orders_of_customers", "kind": "array_total", "expected": orders},
    ]);
    let db = format!("shop_days_{}", std::process::id());
    let report = load_and_check((&mongo_uri, &python, &mongosh), &db, &out, &checks);
    eprintln!("{report}");
}

/// A club's follow graph (tests/fixtures/sql/club.sql, loaded here into a
/// database of the test's own) with a home feed read far more often than
/// posts are written: advise keeps a timeline per member, and migrate fills
/// each with the newest posts of the members it follows, the two followed
/// by everyone being outliers whose ids the timeline lists instead. Every
/// figure, and one timeline item by item, is compared with SQL of the
/// test's own; a new post then rewrites exactly its author's followers'
/// timelines.
#[test]
fn migrate_fills_timelines() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, mongosh)) = mongo() else {
        return;
    };
    let fixture = crate::support::repo_root().join("crates/squill/tests/fixtures/sql/club.sql");
    psql(
        &format!("{superuser}/postgres"),
        "DROP DATABASE IF EXISTS club_timeline;\nCREATE DATABASE club_timeline;\n",
    );
    let admin = format!("{superuser}/club_timeline");
    psql(&admin, &std::fs::read_to_string(fixture).unwrap());
    psql(
        &admin,
        "ANALYZE;\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO squill;\n",
    );
    let url = format!("{user}/club_timeline");
    let dir = crate::support::TempDir::new("pg-timeline");
    // The writes the import measured are the fixture's load, seconds ago
    // (thousands a second): the application's own rates replace them.
    let model = crate::migrate::import_model_saying(
        &url,
        dir.path(),
        "club",
        crate::migrate::NO_STATEMENTS,
    );
    let imported = std::fs::read_to_string(&model).unwrap();
    // The follows and posts referenced, as the team running the club pins
    // them: the timeline is the decision under test.
    let structure = imported[..imported
        .find("\noperations:")
        .map_or(imported.len(), |i| i + 1)]
        .replace(
            "    child_field: follower_id\n",
            "    child_field: follower_id\n    layout: parent-reference\n",
        )
        .replace(
            "    child_field: followee_id\n",
            "    child_field: followee_id\n    layout: parent-reference\n",
        )
        .replace(
            "    child_field: author_id\n",
            "    child_field: author_id\n    layout: parent-reference\n",
        );
    // The club's feed, posts and follows (shared with migrate's unit test).
    let operations = std::fs::read_to_string(
        crate::support::repo_root().join("crates/squill/tests/fixtures/sql/club-operations.yaml"),
    )
    .unwrap();
    std::fs::write(&model, format!("{structure}{operations}")).unwrap();
    let design = design_of(&model);
    let timeline = design["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["decision"] == "timeline")
        .unwrap_or_else(|| panic!("no timeline in {:#}", design["entities"]))
        .clone();
    let coll = timeline["collection"].as_str().unwrap().to_string();
    let limit = timeline["limit"].as_u64().unwrap();
    let threshold = timeline["threshold"].as_u64().expect("a threshold");

    let out = dir.path().join("out");
    generate(&model, &out);
    migrate(&url, &model, &out, &["--format", "both"]);

    // The figures, from the tables: outliers have more followers than the threshold.
    let outliers = format!(
        "(SELECT followee_id FROM follows GROUP BY followee_id HAVING count(*) > {threshold})"
    );
    let pushed = format!(
        "SELECT f.follower_id AS m, least(count(p.id), {limit}) AS n FROM follows f \
         JOIN posts p ON p.author_id = f.followee_id \
         WHERE f.followee_id NOT IN {outliers} GROUP BY f.follower_id"
    );
    assert!(
        count(&url, &format!("SELECT count(*) FROM {outliers} o")) >= 1.0,
        "the fixture's two members followed by everyone are outliers"
    );
    let checks = json!([
        {"collection": coll, "kind": "count", "expected": count(&url, "SELECT count(*) FROM members")},
        {"collection": coll, "field": "items", "kind": "array_total",
         "expected": count(&url, &format!("SELECT sum(n) FROM ({pushed}) x"))},
        {"collection": coll, "field": "items", "kind": "array_max",
         "expected": count(&url, &format!("SELECT max(n) FROM ({pushed}) x"))},
        {"collection": coll, "field": "outliers", "kind": "array_total",
         "expected": count(&url, &format!("SELECT count(*) FROM follows WHERE followee_id IN {outliers}"))},
    ]);
    let db = format!("club_timeline_{}", std::process::id());
    let report = load_and_check((&mongo_uri, &python, &mongosh), &db, &out, &checks);
    eprintln!("{report}");
    assert!(report.contains("home_feed"), "{report}");

    // One timeline item by item: member 8's, newest first.
    let data = std::fs::read_to_string(out.join("data").join(format!("{coll}.json"))).unwrap();
    let doc: Value = data
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|d| d["_id"] == 8)
        .expect("member 8's timeline");
    let got: Vec<String> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["_id"].to_string())
        .collect();
    let want: Vec<String> = psql(
        &url,
        &format!(
            "SELECT p.id FROM follows f JOIN posts p ON p.author_id = f.followee_id \
             WHERE f.follower_id = 8 AND f.followee_id NOT IN {outliers} \
             ORDER BY p.created_at DESC, p.id DESC LIMIT {limit}"
        ),
    )
    .lines()
    .map(|l| l.trim().to_string())
    .filter(|l| !l.is_empty())
    .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want, "{doc:#}");

    // A new post by member 5: the next run rewrites its followers' timelines only.
    psql(
        &admin,
        "INSERT INTO posts (id, author_id, body, created_at) VALUES (100000, 5, 'news', '2026-01-01');",
    );
    migrate(&url, &model, &out, &["--format", "both"]);
    let increment = tree(&out.join("increments"));
    let rewritten: Vec<Value> = increment
        .iter()
        .filter(|(k, _)| k.ends_with(&format!("/{coll}.json")))
        .flat_map(|(_, b)| {
            String::from_utf8_lossy(b)
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let followers_of_5 = count(&url, "SELECT count(*) FROM follows WHERE followee_id = 5");
    assert!(followers_of_5 >= 1.0);
    assert_eq!(rewritten.len() as f64, followers_of_5, "{rewritten:?}");
    assert!(
        rewritten.iter().all(|d| d["items"][0]["_id"] == 100000),
        "{rewritten:?}"
    );
}

/// The buckets a deployment holds, one line each: the parent, the count
/// and one field of each item (sorted; a date to the second, in UTC), the
/// lines sorted.
fn buckets_in(
    (python, mongo_uri, db): (&str, &str, &str),
    coll: &str,
    (parent, count, items, item): (&str, &str, &str, &str),
) -> Vec<String> {
    let script = "import sys\nfrom pymongo import MongoClient\n\
                  uri, db, coll, parent, count, items, item = sys.argv[1:8]\n\
                  for d in MongoClient(uri)[db][coll].find():\n\
                  \x20   ids = sorted(i[item].strftime('%Y-%m-%dT%H:%M:%S') if hasattr(i[item], 'strftime') else str(i[item]) for i in d[items])\n\
                  \x20   print('B|%s:%s:%s' % (d[parent], d[count], ','.join(ids)))\n";
    let text = run_tool(
        Command::new(python)
            .args(["-c", script, mongo_uri, db, coll])
            .args([parent, count, items, item]),
    );
    let mut lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("B|"))
        .map(String::from)
        .collect();
    lines.sort();
    lines
}

/// The same lines from the tables: `sql` gives per bucket its parent and
/// its items' field (any order), as `parent:a,b,…`.
fn buckets_of(url: &str, sql: &str) -> Vec<String> {
    let mut lines: Vec<String> = psql(url, sql)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (parent, ids) = l.split_once(':').unwrap();
            let mut ids: Vec<&str> = ids.split(',').collect();
            ids.sort();
            format!("{parent}:{}:{}", ids.len(), ids.join(","))
        })
        .collect();
    lines.sort();
    lines
}

/// Issue 40, item 10, for buckets: rows deleted, moved to another parent
/// and added after a full run into a design with page buckets (order
/// lines, a fixed number to a page in key order, so a row that comes or
/// goes shifts the pages after it) and time buckets (orders per customer
/// and time unit). A run of changes rebuilds every bucket of each parent
/// that lost or gained a row and deletes the buckets that no longer exist,
/// through `--to` and in `NAME.deleted.json`; the deployment then holds
/// exactly the buckets the tables make, item for item (an order line by
/// its number; an order, which keeps no id in its bucket, by its time),
/// and a run with nothing changed deletes nothing.
#[cfg(feature = "mongodb")]
#[test]
fn migrate_follows_rows_deleted_moved_and_added_into_their_buckets() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, _)) = mongo() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_bucket_changes");
    let url = format!("{user}/shop_bucket_changes");
    let admin = format!("{superuser}/shop_bucket_changes");
    let dir = crate::support::TempDir::new("pg-bucket-changes");
    let model = model_with(
        &url,
        dir.path(),
        "shop",
        &[
            ("max: 60", ", growth_per_day: 20"),
            (
                "child_field: customer_id\n    standalone: true  # other tables reference orders\n",
                "    layout: bucket\n",
            ),
            ("child_field: order_id\n", "    layout: bucket\n"),
        ],
        "operations:
  order_history:
    read: customers
    rate: 50
    filter: {_id: eq}
    include:
      orders_of_customers: {filter: {placed_at: range}, sort: -placed_at, limit: 30}
  order_page:
    read: orders
    rate: 50
    filter: {_id: eq}
    include:
      order_lines_of_orders: {limit: 2}
",
    );
    let design = design_of(&model);
    let pages = layout_of(&design, "order_lines_of_orders");
    assert_eq!(pages["layout"], "bucket", "{pages}");
    assert_eq!(pages["by"]["by"], "count", "{pages}");
    let k = pages["per_bucket"].as_u64().unwrap();
    let days = layout_of(&design, "orders_of_customers");
    assert_eq!(days["layout"], "bucket", "{days}");
    assert_eq!(days["by"]["field"], "placed_at", "{days}");
    let unit = days["by"]["unit"].as_str().unwrap().to_string();
    let (page_coll, day_coll) = (
        "orders_order_lines_of_orders",
        "customers_orders_of_customers",
    );
    let out = dir.path().join("out");
    let db = format!("shop_bucket_changes_{}", std::process::id());
    let to = with_db(&mongo_uri, &db);
    let run = || migrate(&url, &model, &out, &["--to", &to]);
    let pages_sql = format!(
        "SELECT order_id || ':' || string_agg(line_no::text, ',') FROM \
         (SELECT order_id, line_no, (row_number() OVER (PARTITION BY order_id ORDER BY line_no) - 1) / {k} AS page FROM order_lines) x \
         GROUP BY order_id, page"
    );
    let days_sql = format!(
        "SELECT customer_id || ':' || string_agg(to_char(placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS'), ',') FROM orders \
         GROUP BY customer_id, date_trunc('{unit}', placed_at AT TIME ZONE 'UTC')"
    );
    let same = || {
        let mongo = (python.as_str(), mongo_uri.as_str(), db.as_str());
        let held = buckets_in(
            mongo,
            page_coll,
            ("order_id", "count", "order_lines_of_orders", "line_no"),
        );
        assert_eq!(held, buckets_of(&url, &pages_sql), "pages");
        let held = buckets_in(
            mongo,
            day_coll,
            ("customer_id", "count", "orders_of_customers", "placed_at"),
        );
        assert_eq!(held, buckets_of(&url, &days_sql), "days");
    };
    run();
    same();

    // An order whose second page goes when its first line does; one that
    // loses every line; one that gains a line before the others, and one
    // moved from a fourth; an order moved to another customer, one to
    // another time, one deleted, one added.
    let one = |sql: &str| psql(&url, sql).trim().to_string();
    let shrinks = one(&format!(
        "SELECT order_id FROM order_lines GROUP BY order_id HAVING count(*) = {} ORDER BY order_id LIMIT 1",
        k + 1
    ));
    assert!(!shrinks.is_empty(), "no order with {} lines", k + 1);
    let emptied = one(&format!(
        "SELECT order_id FROM order_lines WHERE order_id <> {shrinks} GROUP BY order_id ORDER BY order_id LIMIT 1"
    ));
    let grows = one(&format!(
        "SELECT order_id FROM order_lines WHERE order_id NOT IN ({shrinks}, {emptied}) \
         GROUP BY order_id HAVING count(*) >= {k} ORDER BY order_id LIMIT 1"
    ));
    let gives = one(&format!(
        "SELECT order_id FROM order_lines WHERE order_id NOT IN ({shrinks}, {emptied}, {grows}) \
         GROUP BY order_id HAVING count(*) > 1 ORDER BY order_id LIMIT 1"
    ));
    let (moved, retimed, gone) = (
        one("SELECT id FROM orders WHERE customer_id = 1 ORDER BY id LIMIT 1"),
        one("SELECT id FROM orders WHERE customer_id = 2 ORDER BY id LIMIT 1"),
        one("SELECT id FROM orders WHERE customer_id = 3 ORDER BY id LIMIT 1"),
    );
    assert!(
        [&emptied, &grows, &gives, &moved, &retimed, &gone]
            .iter()
            .all(|id| !id.is_empty()),
        "the shop lacks the rows this test changes"
    );
    psql(
        &admin,
        &format!(
            "DELETE FROM order_lines WHERE order_id = {shrinks} AND line_no = (SELECT min(line_no) FROM order_lines WHERE order_id = {shrinks});\n\
             DELETE FROM order_lines WHERE order_id = {emptied};\n\
             INSERT INTO order_lines (order_id, line_no, product_id, quantity, unit_price) VALUES ({grows}, -1, 1, 2, 3.00);\n\
             UPDATE order_lines SET order_id = {grows}, line_no = 77 WHERE order_id = {gives} AND line_no = (SELECT min(line_no) FROM order_lines WHERE order_id = {gives});\n\
             UPDATE orders SET customer_id = 4 WHERE id = {moved};\n\
             UPDATE orders SET placed_at = placed_at - interval '400 days' WHERE id = {retimed};\n\
             DELETE FROM orders WHERE id = {gone};\n\
             INSERT INTO orders (customer_id, status, placed_at, updated_at) VALUES (5, 'paid', '2020-02-02 10:00+00', now());"
        ),
    );
    let second = run();
    eprintln!("{}", second.stdout);
    assert!(second.stdout.contains("increment 1"), "{}", second.stdout);
    assert!(
        !second.stdout.contains("not followed") && !second.stdout.contains("not seen"),
        "{}",
        second.stdout
    );
    let deleted: String = tree(&out.join("increments"))
        .into_iter()
        .filter(|(k, _)| k.ends_with(".deleted.json"))
        .map(|(k, v)| format!("{k}: {}", String::from_utf8_lossy(&v)))
        .collect();
    assert!(
        deleted.contains(&format!("{page_coll}.deleted.json: {{\"_id\":{{\"$oid\":")),
        "{deleted}"
    );
    assert!(
        deleted.contains(&format!("{day_coll}.deleted.json: {{\"_id\":{{\"$oid\":")),
        "{deleted}"
    );
    same();

    // Nothing changed: nothing written, nothing deleted.
    let third = run();
    assert!(
        third.stdout.contains("deleted rows: none"),
        "{}",
        third.stdout
    );
    assert!(
        !tree(&out.join("increments/0002"))
            .keys()
            .any(|k| k.ends_with(".deleted.json")),
        "{}",
        third.stdout
    );
    same();
}
