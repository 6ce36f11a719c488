//! The queries migrate runs, for the design advise gives the `shop`
//! fixture's model: snapshots of the SQL, and the parts a design may have
//! that the tables cannot fill, refused by name.

use super::document::{Builder, Changed};
use crate::inputs::sql::ddl::{SqlDialect, parse};
use crate::inputs::sql::map::{Mapping, import_schema};

fn shop() -> (
    crate::inputs::sql::ddl::Schema,
    Mapping,
    crate::model::Model,
    crate::design::Design,
) {
    let sql = include_str!("../../../tests/fixtures/sql/shop.sql");
    let schema = parse(sql, SqlDialect::Postgres);
    let mapping = Mapping::of(&schema);
    let yaml = import_schema("shop", &schema, &mapping, None).yaml;
    let model = crate::inputs::model_file::parse("shop.yaml", &yaml).expect("the import parses");
    let (model, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .expect("advise");
    (schema, mapping, model, design)
}

#[test]
fn each_collection_is_one_query_of_its_tables() {
    let (schema, mapping, model, design) = shop();
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let mut out = String::new();
    for c in &design.collections {
        let q = b.collection(c).expect("supported");
        out.push_str(&format!("-- {}\n{}\n\n", c.name, q.select(None, None)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn a_later_run_selects_what_changed_and_a_resumed_one_what_is_left() {
    let (schema, mapping, model, design) = shop();
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let c = design
        .collections
        .iter()
        .find(|c| c.name == "customers")
        .expect("a customers collection");
    let q = b.collection(c).expect("supported");
    let resumed = q.select(Some("41"), None);
    assert!(resumed.contains("> '41'::"), "{resumed}");
    let changed = q.select(None, Some(&Changed::Xmin(700)));
    assert!(changed.contains("xmin::text::int8 - 700"), "{changed}");
    let by_column = q.select(
        None,
        Some(&Changed::Column {
            column: "updated_at".into(),
            since: "2026-01-01".into(),
            xmin: 700,
        }),
    );
    assert!(
        by_column.contains("\"updated_at\" > '2026-01-01'::timestamptz"),
        "{by_column}"
    );
}

/// The shop with a workload that walks its category tree and pages its
/// order lines (the bucket pinned): the paths' recursive walk and the
/// pages' grouping, as SQL.
#[test]
fn tree_paths_and_buckets_are_queries_too() {
    let sql = include_str!("../../../tests/fixtures/sql/shop.sql");
    let schema = parse(sql, SqlDialect::Postgres);
    let mapping = Mapping::of(&schema);
    let mut yaml = import_schema("shop", &schema, &mapping, None).yaml;
    for (anchor, add) in [
        ("child_field: parent_id\n", "    levels: 3\n"),
        ("child_field: order_id\n", "    layout: bucket\n"),
    ] {
        let at = yaml.find(anchor).expect("the anchor") + anchor.len();
        yaml.insert_str(at, add);
    }
    yaml.push_str(
        "operations:
  category_page:
    read: products
    rate: 100
    filter: {category_id: under}
    sort: price
    limit: 24
  breadcrumbs:
    read: categories
    rate: 100
    filter: {_id: eq}
    include:
      parent_id: {fields: [name], recursive: true}
  order_page:
    read: orders
    rate: 50
    filter: {_id: eq}
    include:
      order_lines_of_orders: {limit: 2}
    aggregates: [sum(order_lines_of_orders.quantity), last(order_lines_of_orders.unit_price)]
",
    );
    let model = crate::inputs::model_file::parse("shop.yaml", &yaml).expect("the model parses");
    let (model, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .expect("advise");
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let mut out = String::new();
    for name in [
        "categories",
        "products",
        "orders",
        "orders_order_lines_of_orders",
    ] {
        let c = design
            .collections
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no collection {name}"));
        let q = b.collection(c).expect("supported");
        out.push_str(&format!("-- {name}\n{}\n\n", q.select(None, None)));
        if name == "orders_order_lines_of_orders" {
            let changed = q.select(None, Some(&Changed::Xmin(700)));
            assert!(changed.contains("bool_or("), "{changed}");
            out.push_str(&format!("-- {name}, changed since\n{changed}\n\n"));
            // Whose buckets: the orders, by the lines' reference; an order
            // that lost a line has every page rebuilt.
            let whose = q.buckets().expect("a bucket collection");
            assert_eq!(
                (whose.parent.as_str(), whose.parent_key.as_str()),
                ("orders", "id")
            );
            let mut touched = super::ledger::Touched::default();
            touched.touch("orders", &["id".to_string()], vec!["7".into()]);
            let lost = q.select_touched(None, Some(&Changed::Xmin(700)), &touched);
            assert!(
                lost.contains(") OVER (PARTITION BY t12.\"order_id\") OR (t12.\"order_id\"::text = ANY(ARRAY['7']::text[]))) AS squill_changed"),
                "{lost}"
            );
            let all = q.select(None, Some(&Changed::Everything));
            assert!(all.contains("(bool_or(bool_or(true)) OVER"), "{all}");
        }
    }
    assert!(out.contains("WITH RECURSIVE"), "{out}");
    insta::assert_snapshot!(out);
}

/// A customer read with its orders' lines: the arrays come as typed child
/// rows after their parent's row in a full run (tag, then the child's
/// key), and as JSON in a run of changes.
#[test]
fn arrays_of_child_rows_are_read_as_rows_in_a_full_run() {
    let sql = include_str!("../../../tests/fixtures/sql/shop.sql");
    let schema = parse(sql, SqlDialect::Postgres);
    let mapping = Mapping::of(&schema);
    let mut yaml = import_schema("shop", &schema, &mapping, None).yaml;
    // A few lines an order, as a live import would measure.
    let at = yaml
        .find("  order_lines_of_orders:")
        .expect("the relationship");
    let fanout = "{min: 0, typical: 10, max: unbounded}";
    let from = at + yaml[at..].find(fanout).expect("its assumed fan-out");
    yaml.replace_range(from..from + fanout.len(), "{min: 1, typical: 3, max: 10}");
    yaml.push_str(
        "operations:
  order_page:
    read: orders
    rate: 100
    filter: {_id: eq}
    include:
      order_lines_of_orders: {}
",
    );
    let model = crate::inputs::model_file::parse("shop.yaml", &yaml).expect("the model parses");
    let (model, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .expect("advise");
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let orders = design
        .collections
        .iter()
        .find(|c| c.name == "orders")
        .expect("an orders collection");
    let q = b.collection(orders).expect("supported");
    let (columns, arrays) = q.arrays(None).expect("the lines as rows");
    assert_eq!(arrays.len(), 1);
    assert_eq!(arrays[0].name, "order_lines_of_orders");
    assert!(columns.len() > q.columns.len());
    assert!(q.arrays(Some(&Changed::Xmin(7))).is_none());
    let full = q.select(Some("41"), None);
    let changes = q.select(None, Some(&Changed::Xmin(7)));
    assert!(
        !full.contains("json_agg") && full.contains("UNION ALL"),
        "{full}"
    );
    assert!(changes.contains("json_agg"), "{changes}");
    insta::assert_snapshot!(format!(
        "-- full run, resumed after 41\n{full}\n\n-- changes\n{changes}\n"
    ));
}

/// The club's follow graph with a feed read far more than posts are
/// written: the timeline collection is its readers' rows with the items
/// chosen by key in one window (outliers excluded) and their copies built
/// after; the outliers' ids apart.
#[test]
fn a_timeline_is_a_window_over_follows_and_items() {
    let sql = include_str!("../../../tests/fixtures/sql/club.sql");
    let schema = parse(sql, SqlDialect::Postgres);
    let mapping = Mapping::of(&schema);
    let mut yaml = import_schema("club", &schema, &mapping, None).yaml;
    for column in ["follower_id", "followee_id", "author_id"] {
        let anchor = format!("    child_field: {column}\n");
        yaml = yaml.replace(&anchor, &format!("{anchor}    layout: parent-reference\n"));
    }
    // Measured fan-outs (the DDL's assumption is unbounded): a threshold.
    yaml = yaml.replace(
        "{min: 0, typical: 10, max: unbounded}",
        "{min: 0, typical: 6, p99: 12, max: 300}",
    );
    yaml.push_str(include_str!(
        "../../../tests/fixtures/sql/club-operations.yaml"
    ));
    let model = crate::inputs::model_file::parse("club.yaml", &yaml).expect("the model parses");
    let (model, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .expect("advise");
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let c = design
        .collections
        .iter()
        .find(|c| c.name == "members_timeline")
        .expect("a timeline");
    let q = b.collection(c).expect("supported");
    let full = q.select(None, None);
    assert!(full.contains("row_number() OVER (PARTITION BY"), "{full}");
    assert!(full.contains("HAVING count(*) > 12"), "{full}");
    let changed = q.select(None, Some(&Changed::Xmin(7)));
    insta::assert_snapshot!(format!("-- full run\n{full}\n\n-- changes\n{changed}\n"));
}
