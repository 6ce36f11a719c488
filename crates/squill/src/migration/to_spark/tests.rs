//! The Spark job's plan for the `shop` fixture's design: every collection
//! lowered (or refused by name), each name from the database inside the one
//! JSON string literal of the job, never as code. The job itself is run
//! against PostgreSQL by the CLI's integration test (`migrate_spark`).

use super::{job_text, plan};
use crate::inputs::sql::ddl::{SqlDialect, parse};
use crate::inputs::sql::map::{Mapping, import_schema};
use crate::migration::from_postgres::Builder;

fn advised(
    sql: &str,
    extra: &[(&str, &str)],
    operations: &str,
) -> (
    crate::inputs::sql::ddl::Schema,
    crate::model::Model,
    crate::design::Design,
) {
    let schema = parse(sql, SqlDialect::Postgres);
    let mapping = Mapping::of(&schema);
    let mut yaml = import_schema("shop", &schema, &mapping, None).yaml;
    for (anchor, add) in extra {
        let at = yaml.find(anchor).expect("the anchor") + anchor.len();
        yaml.insert_str(at, add);
    }
    yaml.push_str(operations);
    let model = crate::inputs::model_file::parse("shop.yaml", &yaml).expect("the model parses");
    let (model, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .expect("advise");
    (schema, model, design)
}

const SHOP: &str = include_str!("../../../tests/fixtures/sql/shop.sql");

#[test]
fn every_collection_of_the_shop_is_planned_with_typed_reads() {
    let (schema, model, design) = advised(SHOP, &[], "");
    let mapping = Mapping::of(&schema);
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let plan = plan::plan(&schema, &b, &design, "public").expect("supported");
    let collections = plan.as_array().expect("a list");
    assert_eq!(collections.len(), design.collections.len());
    for c in collections {
        let reads = c["reads"].as_array().expect("reads");
        assert!(!reads.is_empty());
        // The document's `_id` comes first or among the typed columns.
        let fields = c["document"]["fields"].as_array().expect("fields");
        assert!(fields.iter().any(|f| f[0] == "_id"), "{c}");
    }
}

#[test]
fn a_bucket_is_refused_by_name_not_built_otherwise() {
    let (schema, model, design) = advised(
        SHOP,
        &[("child_field: order_id\n", "    layout: bucket\n")],
        "operations:\n  order_page:\n    read: orders\n    rate: 50\n    filter: {_id: eq}\n    include:\n      order_lines_of_orders: {limit: 2}\n",
    );
    let mapping = Mapping::of(&schema);
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let refused = plan::plan(&schema, &b, &design, "public").expect_err("a bucket is refused");
    assert!(
        refused.iter().any(|u| u.why.contains("bucket")),
        "{refused:?}"
    );
}

#[test]
fn a_name_from_the_database_is_data_in_the_job_never_code() {
    let sql = "CREATE TABLE \"x\"\"y\\\" (id integer PRIMARY KEY, \"n\"\"\\\" text);";
    let (schema, model, design) = advised(sql, &[], "");
    let mapping = Mapping::of(&schema);
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    let plan = plan::plan(&schema, &b, &design, "public").expect("supported");
    let job = job_text(&plan, &serde_json::json!({"user": "u\"\nINJECTED = 1"}));
    assert!(!job.lines().any(|l| l.starts_with("INJECTED")));
    // The names reach the job inside the plan's literal only, escaped.
    assert!(plan.to_string().contains(r#"x\"y\\"#), "{plan}");
    assert!(!job.contains("x\"y\\"), "a raw name in the job");
    let line = job
        .lines()
        .find(|l| l.starts_with("PLAN_JSON = "))
        .expect("the plan's line");
    let literal = line.trim_start_matches("PLAN_JSON = ");
    let text: String = serde_json::from_str(literal).expect("one string literal");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).expect("JSON"),
        plan
    );
}

/// The shop with the children of a relationship referenced, not embedded
/// (`layout` pinned after the relationship's line `anchor`), and a page of
/// the parent `read` that asks for figures of them: kept in the parents as
/// computed fields. The plan, or the refusals as text.
fn kept(anchor: &str, read: &str, aggregates: &str) -> serde_json::Value {
    let (schema, model, design) = advised(
        SHOP,
        &[(anchor, "    layout: parent-reference\n")],
        &format!(
            "operations:\n  page:\n    read: {read}\n    rate: 500\n    filter: {{_id: eq}}\n    aggregates: [{aggregates}]\n"
        ),
    );
    let mapping = Mapping::of(&schema);
    let b = Builder::new(&schema, &mapping, &model, &design, "public");
    match plan::plan(&schema, &b, &design, "public") {
        Ok(plan) => plan,
        Err(refused) => {
            serde_json::json!({"refused": refused.iter().map(|u| format!("{}.{}: {}", u.collection, u.field, u.why)).collect::<Vec<_>>()})
        }
    }
}

/// The node of the field of `collection` whose name ends with `suffix`.
fn node_of(plan: &serde_json::Value, collection: &str, suffix: &str) -> serde_json::Value {
    let c = plan
        .as_array()
        .unwrap_or_else(|| panic!("refused: {plan}"))
        .iter()
        .find(|c| c["collection"] == collection)
        .unwrap_or_else(|| panic!("no {collection} in {plan}"));
    c["document"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f[0].as_str().is_some_and(|n| n.ends_with(suffix)))
        .map(|f| f[1].clone())
        .unwrap_or_else(|| panic!("no field …{suffix} in {c}"))
}

#[test]
fn a_kept_last_value_is_the_first_row_of_the_group_in_reverse_key_order() {
    let plan = kept(
        "child_field: order_id\n",
        "orders",
        "last(order_lines_of_orders.unit_price)",
    );
    let n = node_of(&plan, "orders", "last_unit_price");
    assert_eq!(n["t"], "one", "{n}");
    assert_eq!(n["desc"], true, "{n}");
    assert_eq!(n["limit"], 1, "{n}");
    // Ordered by the order line's key, the value read from its column.
    assert!(!n["order"].as_array().expect("order").is_empty(), "{n}");
    assert_eq!(n["item"]["t"], "value", "{n}");
}

/// Issue 43: a kept last value of a timestamp was typed a double, and the
/// job read it as `(t.placed_at)::float8`, which PostgreSQL refuses. It
/// keeps its column's type: a date, read as milliseconds. (A first value
/// is never kept: advise computes it at read.)
#[test]
fn a_kept_last_timestamp_is_read_as_a_date() {
    // The line after orders_of_customers' child_field (customer_id is the
    // profiles' child_field too).
    let plan = kept(
        "# other tables reference orders\n",
        "customers",
        "last(orders_of_customers.placed_at)",
    );
    let n = node_of(&plan, "customers", "last_placed_at");
    assert_eq!(n["t"], "one", "{n}");
    assert_eq!(n["desc"], true, "{n}");
    assert_eq!(n["item"]["kind"], "date", "{n}");
    let read = usize::try_from(n["read"].as_u64().expect("a read")).expect("an index");
    let column = n["item"]["c"].as_str().expect("a column");
    let customers = plan
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["collection"] == "customers"))
        .expect("the customers");
    let sql = customers["reads"][read]["columns"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c[1] == column))
        .and_then(|c| c[0].as_str())
        .expect("the column's SQL");
    assert!(
        sql.contains("extract(epoch FROM") && !sql.contains("float8"),
        "{sql}"
    );
}
