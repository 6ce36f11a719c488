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
    let sql = include_str!("../../tests/fixtures/sql/shop.sql");
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
