//! Issue 40's importer classes, one test each: names the model refuses,
//! statement recovery, `GO`, dialect marks in quotes, schema elements and
//! domains, declared encodings, self-referencing and parallel linking
//! tables. Each model written must be one `squill check` accepts.

use super::{SqlDialect, import};
use crate::inputs::model_file::parse;
use crate::model::Model;

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

/// Issue 40, item 11: after a statement the parser cannot read, reading
/// resumes at the next statement, whatever the parser consumed of it; a
/// table in a statement skipped is named.
#[test]
fn recovery_resumes_at_the_next_statement_and_names_tables_skipped() {
    let sql = "CREATE TABLE a (id integer PRIMARY KEY, x integer REFERENCES;\n\
CREATE TABLE b (id integer PRIMARY KEY);\n\
ALTER TABLE b ADD CONSTRAINT;\n\
CREATE TABLE c (id integer PRIMARY KEY) FROBNICATE (\n  CREATE TABLE d (id integer);\n\
CREATE TABLE e (id integer PRIMARY KEY, b_id integer REFERENCES b(id));\n";
    // The parser took the `;` of lines 1 and 3 while failing: the tables
    // after them were lost without a word.
    let (m, i) = checked(sql, SqlDialect::Postgres);
    assert_eq!(entity_names(&m), ["b", "c", "e"], "{:?}", i.notes);
    assert_eq!(m.relationships.len(), 1);
    let problems: Vec<(u64, &str)> = i
        .notes
        .iter()
        .filter(|n| n.problem)
        .map(|n| (n.at.line, n.message.as_str()))
        .collect();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0]
            .1
            .ends_with("(statement starts at 1:1); table a not read"),
        "{problems:?}"
    );
    assert!(
        problems[1].1.ends_with("(statement starts at 3:1)"),
        "{problems:?}"
    );
    assert_eq!(problems[2].0, 4);
    assert!(
        problems[2].1.ends_with("skipped; table d not read"),
        "{problems:?}"
    );
}

/// Issue 40, item 12: SQL Server's `GO` lines separate statements (which
/// need no `;` between them either).
#[test]
fn go_lines_separate_statements() {
    let sql = "CREATE TABLE [dbo].[Artist] ([ArtistId] INT NOT NULL, CONSTRAINT [PK_Artist] PRIMARY KEY ([ArtistId]))\n\
GO\n\
CREATE TABLE [dbo].[Album] ([AlbumId] INT NOT NULL PRIMARY KEY, [ArtistId] INT NOT NULL)\n\
CREATE TABLE [dbo].[Track] ([TrackId] INT NOT NULL PRIMARY KEY, [AlbumId] INT)\n\
go 2\n\
ALTER TABLE [dbo].[Album] ADD CONSTRAINT [FK_Album] FOREIGN KEY ([ArtistId]) REFERENCES [dbo].[Artist] ([ArtistId])\n\
GO\n";
    assert_eq!(SqlDialect::detect(sql), SqlDialect::MsSql);
    let (m, i) = checked(sql, SqlDialect::MsSql);
    assert_eq!(
        entity_names(&m),
        ["artist", "album", "track"],
        "{:?}",
        i.notes
    );
    assert!(i.notes.iter().all(|n| !n.problem), "{:?}", i.notes);
    assert_eq!(m.relationships.len(), 2, "{}", i.yaml);
}

/// Issue 40, item 13: marks of a dialect inside strings, quoted names and
/// comments do not choose it.
#[test]
fn dialect_marks_in_quotes_say_nothing() {
    let pg = "CREATE TABLE \"odd`name\" (id serial PRIMARY KEY, note text DEFAULT 'ENGINE=x');";
    assert_eq!(SqlDialect::detect(pg), SqlDialect::Postgres);
    let generic =
        "CREATE TABLE t (id integer, d text DEFAULT 'a::b', \"ENGINE=\" integer); /* `x` */";
    assert_eq!(SqlDialect::detect(generic), SqlDialect::Generic);
    // Outside quotes, the marks still count.
    assert_eq!(
        SqlDialect::detect("CREATE TABLE `t` (id int);"),
        SqlDialect::MySql
    );
}

/// Issue 40, item 14: PostgreSQL's schema elements (`CREATE SCHEMA s
/// CREATE TABLE … CREATE TABLE …;`, as AdventureWorks for PostgreSQL
/// writes) are read as tables, and a domain's column has the domain's base
/// type and constraints.
#[test]
fn schema_elements_and_domains_are_read() {
    let sql = "CREATE DOMAIN \"Name\" varchar(50) NULL;\n\
CREATE DOMAIN \"Flag\" boolean NOT NULL;\n\
CREATE DOMAIN rating AS text CONSTRAINT r CHECK (VALUE IN ('G', 'PG')) DEFAULT 'G';\n\
CREATE SCHEMA person\n\
  CREATE TABLE businessentity (businessentityid serial PRIMARY KEY, rowguid uuid NOT NULL)\n\
  CREATE TABLE person (businessentityid integer PRIMARY KEY REFERENCES businessentity, firstname \"Name\" NOT NULL, middlename \"Name\", promo \"Flag\", rating rating);\n\
CREATE SCHEMA sales CREATE TABLE store (id integer PRIMARY KEY, name person.\"Name\");\n";
    let (m, i) = checked(sql, SqlDialect::Postgres);
    assert_eq!(
        entity_names(&m),
        ["businessentity", "person", "store"],
        "{:?}",
        i.notes
    );
    assert!(i.notes.iter().all(|n| !n.problem), "{:?}", i.notes);
    let person = m.entity_by_name("person").map(|e| m.entity(e)).unwrap();
    let first = person.field("firstname").unwrap();
    assert_eq!(first.avg_size, Some(50));
    assert!(first.required);
    assert!(!person.field("middlename").unwrap().required);
    let promo = person.field("promo").unwrap();
    assert!(matches!(promo.ty, crate::model::FieldType::Bool));
    assert!(promo.required);
    assert_eq!(person.field("rating").unwrap().enum_values, ["G", "PG"]);
    let store = m.entity_by_name("store").map(|e| m.entity(e)).unwrap();
    assert_eq!(store.field("name").unwrap().avg_size, Some(50));
}

/// Issue 40, item 16: a table keyed by two foreign keys to one table is a
/// many-to-many of that table with itself, not an entity.
#[test]
fn a_self_referencing_link_table_is_a_self_many_to_many() {
    let sql = "CREATE TABLE users (id integer PRIMARY KEY, name text);\n\
CREATE TABLE follows (f1 integer REFERENCES users(id), f2 integer REFERENCES users(id), since date, PRIMARY KEY (f1, f2));\n";
    let (m, i) = checked(sql, SqlDialect::Postgres);
    assert_eq!(entity_names(&m), ["users"], "{}", i.yaml);
    let [follows] = m.relationships.as_slice() else {
        panic!("{}", i.yaml);
    };
    assert_eq!(follows.name, "follows");
    assert_eq!(follows.kind, crate::model::RelationshipKind::ManyToMany);
    assert_eq!(follows.parent, follows.child);
    assert_eq!(follows.attributes[0].name, "since");
    // Near miss: the same table with a key of its own is an entity.
    let keyed = sql.replace("PRIMARY KEY (f1, f2)", "id serial PRIMARY KEY");
    let (m, _) = checked(&keyed, SqlDialect::Postgres);
    assert_eq!(entity_names(&m), ["users", "follows"]);
}

/// Issue 40, item 17: two linking tables between the same two tables
/// (`dept_emp`, `dept_manager`) are two many-to-manys, each with its
/// attributes, stored under two fields.
#[test]
fn two_link_tables_between_one_pair_both_import() {
    let sql = "CREATE TABLE employees (emp_no integer PRIMARY KEY, name varchar(40));\n\
CREATE TABLE departments (dept_no char(4) PRIMARY KEY, dept_name varchar(40));\n\
CREATE TABLE dept_emp (emp_no integer REFERENCES employees, dept_no char(4) REFERENCES departments, from_date date NOT NULL, to_date date NOT NULL, PRIMARY KEY (emp_no, dept_no));\n\
CREATE TABLE dept_manager (emp_no integer REFERENCES employees, dept_no char(4) REFERENCES departments, from_date date NOT NULL, PRIMARY KEY (emp_no, dept_no));\n";
    let (m, i) = checked(sql, SqlDialect::Postgres);
    let rels: Vec<(&str, &str, &str, Vec<&str>)> = m
        .relationships
        .iter()
        .map(|r| {
            (
                r.name.as_str(),
                r.parent_field.as_str(),
                r.child_field.as_str(),
                r.attributes.iter().map(|a| a.name.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        rels,
        [
            (
                "dept_emp",
                "dept_emp",
                "employees",
                vec!["from_date", "to_date"]
            ),
            (
                "dept_manager",
                "dept_manager",
                "dept_manager_employees",
                vec!["from_date"]
            ),
        ],
        "{}",
        i.yaml
    );
    // The same class: a relationship whose default field is a column of
    // its parent (`customer.orders`) keeps its children under another.
    let sql = "CREATE TABLE customer (id integer PRIMARY KEY, orders text);\n\
CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer REFERENCES customer(id));\n";
    let (m, i) = checked(sql, SqlDialect::Postgres);
    assert_eq!(m.relationships[0].name, "orders_of_customer", "{}", i.yaml);
    let sql = sql.replace("orders text", "orders_of_customer text");
    let (m, i) = checked(&sql, SqlDialect::Postgres);
    assert_eq!(
        m.relationships[0].parent_field, "orders_of_customer_2",
        "{}",
        i.yaml
    );
}

/// Issue 40, item 5 (found by the `sql_import` fuzz target): a table or
/// column name longer than any database allows (1,348 characters from a
/// broken statement) is cut to the longest a model writes, kept whole in
/// the description, and the model reads back: YAML refuses a key over
/// 1,024 characters, which the model file had been written with.
#[test]
fn names_too_long_for_any_database_are_cut_and_the_model_reads_back() {
    let long = format!("a{}", "b".repeat(1400));
    let sql = format!(
        "CREATE TABLE \"{long}\" (id integer PRIMARY KEY, \"z{long}\" integer);\n\
CREATE TABLE \"{long}x\" (id integer PRIMARY KEY);\n"
    );
    let (m, i) = checked(&sql, SqlDialect::Postgres);
    let names: Vec<usize> = m.entities.iter().map(|e| e.name.chars().count()).collect();
    assert_eq!(names, [128, 130], "{}", i.yaml);
    assert!(
        m.entities[0]
            .fields
            .iter()
            .any(|f| f.name.chars().count() == 128),
        "{}",
        i.yaml
    );
    assert!(i.yaml.contains(&long), "the SQL name is kept:\n{}", i.yaml);
}

/// Issue 40, item 5, the live import's side: the statements a database ran
/// over tables and columns the model renames become operations on the
/// model's names, quoted where YAML needs it, and the model is valid.
#[test]
fn operations_over_renamed_tables_use_the_model_names() {
    use super::ddl::parse as ddl;
    use super::map::{Mapping, import_schema};
    use super::statements::{Observed, translate};
    let schema = ddl(
        "CREATE TABLE \"order.lines\" (\"$id\" integer PRIMARY KEY, \"a.b\" text, \"c,d\" text);\n\
CREATE TABLE \"$meta\" (id integer PRIMARY KEY, \"order.lines_id\" integer REFERENCES \"order.lines\"(\"$id\"));\n",
        SqlDialect::Postgres,
    );
    let mapping = Mapping::of(&schema);
    let observed: Vec<Observed> = [
        "SELECT \"a.b\", \"c,d\" FROM \"order.lines\" WHERE \"$id\" = $1 ORDER BY \"a.b\"",
        "SELECT m.id FROM \"$meta\" m JOIN \"order.lines\" o ON o.\"$id\" = m.\"order.lines_id\" WHERE o.\"a.b\" = $1",
        "INSERT INTO \"$meta\" (id, \"order.lines_id\") VALUES ($1, $2)",
        "UPDATE \"order.lines\" SET \"c,d\" = $1 WHERE \"$id\" = $2",
    ]
    .iter()
    .map(|q| Observed {
        query: q.to_string(),
        per_second: 1.0,
        calls: 10,
        rows_per_call: 1.0,
    })
    .collect();
    let t = translate(&schema, &mapping, &observed);
    assert!(t.skipped.is_empty(), "{:?}", t.skipped);
    let evidence = super::Evidence {
        source: "test".into(),
        operations: t.blocks.concat(),
        ..super::Evidence::default()
    };
    let yaml = import_schema("live", &schema, &mapping, Some(&evidence)).yaml;
    let m = parse("live.yaml", &yaml).unwrap_or_else(|e| panic!("{e:?}\n{yaml}"));
    let targets: Vec<&str> = m
        .workload
        .operations
        .iter()
        .map(|o| m.entity(o.entity_in(&m)).name.as_str())
        .collect();
    assert_eq!(
        targets,
        ["order_lines", "_meta", "_meta", "order_lines"],
        "{yaml}"
    );
    assert!(
        yaml.contains("    filter: {order_lines_id.a_b: eq}"),
        "{yaml}"
    );
    assert!(yaml.contains("    changes: [\"c,d\"]"), "{yaml}");
}

/// Issue 40, item 5, found by the `sql_import` fuzz target's property: a
/// column declared twice (names fold to lower case) made two `_id`s; the
/// first is kept, with a warning. A declared length past a document's
/// 16 MiB is no size (the model refuses it).
#[test]
fn a_column_declared_twice_is_read_once() {
    let sql = "CREATE TABLE id (id integer PRIMARY KEY, \"ID\" text, x integer, x text, big varchar(99999999999));\n";
    let (m, i) = checked(sql, SqlDialect::Postgres);
    let fields: Vec<&str> = m.entities[0]
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(fields, ["_id", "x", "big"], "{}", i.yaml);
    let problems: Vec<&str> = i
        .notes
        .iter()
        .filter(|n| n.problem)
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(
        problems,
        [
            "table id declares column id twice; the first is kept",
            "table id declares column x twice; the first is kept"
        ]
    );
}
