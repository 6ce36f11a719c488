//! Issue 40's importer classes, one test each: names the model refuses,
//! statement recovery, `GO`, dialect marks in quotes, schema elements and
//! domains, declared encodings, self-referencing and parallel linking
//! tables. Each model written must be one `squill check` accepts.

use super::{SqlDialect, import};
use crate::inputs::model_file::parse;
use crate::model::{Model, RelationshipKind};

/// The model `import` writes, parsed as `squill check` parses it.
fn checked(sql: &str, dialect: SqlDialect) -> (Model, super::Import) {
    let i = import("hostile.sql", sql, dialect);
    let m = parse("hostile.yaml", &i.yaml).unwrap_or_else(|e| panic!("{e:?}\n{}", i.yaml));
    (m, i)
}

fn entity_names(m: &Model) -> Vec<&str> {
    m.entities.iter().map(|e| e.name.as_str()).collect()
}

/// Issue 40, item 5: names a model refuses (dotted, `$`-prefixed, blank,
/// with control characters, the `_id` of a table keyed otherwise, YAML's
/// own words) are mapped to valid, unique ones; the SQL name is kept as
/// the description and each change is noted.
#[test]
fn refused_names_are_mapped_and_the_model_is_valid() {
    let sql = "CREATE TABLE \"order.lines\" (\"$id\" integer PRIMARY KEY, \"a.b\" text, a_b text, \"_id\" integer, \"x\ny\u{1b}[2J\" varchar(5), \"null\" text, \"co,lon: #x\" integer, \" \" integer);\n\
CREATE TABLE \"$meta\" (id integer PRIMARY KEY, \"order.lines_id\" integer REFERENCES \"order.lines\"(\"$id\"));\n\
CREATE TABLE a_b (id integer PRIMARY KEY, \"$ref\" integer REFERENCES \"$meta\"(id));\n\
CREATE TABLE \"a.b\" (id integer PRIMARY KEY, n integer);\n\
CREATE TABLE \"null\" (id integer PRIMARY KEY);\n\
CREATE INDEX on_x ON \"order.lines\" (\"x\ny\u{1b}[2J\");\n";
    let (m, i) = checked(sql, SqlDialect::Postgres);
    // Every table is an entity: none dropped for its name. (Names are
    // lower-cased as PostgreSQL folds them.)
    assert_eq!(
        entity_names(&m),
        ["order_lines", "_meta", "a_b", "a_b_2", "null"]
    );
    let lines = &m.entities[0];
    let fields: Vec<&str> = lines.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        fields,
        [
            "_id",
            "a_b_2",
            "a_b",
            "_id_2",
            "x_y_[2j",
            "null",
            "co,lon: #x",
            "unnamed"
        ],
        "{}",
        i.yaml
    );
    // The SQL names are kept in the model.
    assert_eq!(
        lines.description.as_deref(),
        Some("table \"order.lines\" in SQL")
    );
    assert_eq!(
        lines.field("a_b_2").and_then(|f| f.description.as_deref()),
        Some("column \"a.b\" in SQL")
    );
    // The references follow: `$meta` → `a_b` and `order.lines` → `$meta`.
    let to_meta = m
        .relationships
        .iter()
        .find(|r| m.entity(r.child).name == "a_b")
        .expect("a_b's reference");
    assert_eq!(m.entity(to_meta.parent).name, "_meta");
    assert_eq!(to_meta.child_field, "_ref");
    // Every change is reported, at the table's line.
    let renamed: Vec<(&str, Option<&str>, &str, u64)> = i
        .renamed
        .iter()
        .map(|r| {
            (
                r.table.as_str(),
                r.column.as_deref(),
                r.model.as_str(),
                r.at.line,
            )
        })
        .collect();
    assert_eq!(
        renamed,
        [
            ("order.lines", None, "order_lines", 1),
            ("$meta", None, "_meta", 3),
            ("a.b", None, "a_b_2", 5),
            ("order.lines", Some("a.b"), "a_b_2", 1),
            ("order.lines", Some("_id"), "_id_2", 1),
            ("order.lines", Some("x\ny\u{1b}[2j"), "x_y_[2j", 1),
            ("order.lines", Some(" "), "unnamed", 1),
            ("$meta", Some("order.lines_id"), "order_lines_id", 3),
            ("a_b", Some("$ref"), "_ref", 4),
        ]
    );
    assert_eq!(
        i.notes
            .iter()
            .filter(|n| n.message.contains(" in the model"))
            .count(),
        renamed.len()
    );
    // No control character reaches the YAML (comments stay on their line).
    assert!(
        !i.yaml.chars().any(|c| c.is_control() && c != '\n'),
        "{}",
        i.yaml
    );
}
