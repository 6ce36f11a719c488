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
        "operations:\n  order_page:\n    read: orders\n    rate: 50\n    filter: {_id: eq}\n    include:\n      order_lines_of_orders: {sort: line_no, limit: 2}\n",
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

/// The shop with its order lines referenced (not embedded) and an order
/// page that asks for figures of them: kept in the orders as computed
/// fields.
fn kept_figures(aggregates: &str) -> serde_json::Value {
    let (schema, model, design) = advised(
        SHOP,
        &[("child_field: order_id\n", "    layout: parent-reference\n")],
        &format!(
            "operations:\n  order_page:\n    read: orders\n    rate: 500\n    filter: {{_id: eq}}\n    aggregates: [{aggregates}]\n"
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

#[test]
fn a_kept_last_value_is_the_first_row_of_the_group_in_reverse_key_order() {
    let plan = kept_figures("last(order_lines_of_orders.unit_price)");
    let orders = plan
        .as_array()
        .unwrap_or_else(|| panic!("refused: {plan}"))
        .iter()
        .find(|c| c["collection"] == "orders")
        .expect("the orders");
    let fields = orders["document"]["fields"].as_array().expect("fields");
    let n = fields
        .iter()
        .find(|f| {
            f[0].as_str()
                .is_some_and(|n| n.ends_with("last_unit_price"))
        })
        .map(|f| f[1].clone())
        .unwrap_or_else(|| panic!("no kept last value in {orders}"));
    assert_eq!(n["t"], "one", "{n}");
    assert_eq!(n["desc"], true, "{n}");
    assert_eq!(n["limit"], 1, "{n}");
    // Ordered by the order line's key, the value read from its column.
    assert!(!n["order"].as_array().expect("order").is_empty(), "{n}");
    assert_eq!(n["item"]["t"], "value", "{n}");
}
