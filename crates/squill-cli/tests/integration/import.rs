//! `squill import sql`: a model from DDL, notes at their place, the model
//! written whole, and exit 2 when nothing could be read.

use crate::support::Test;

const DDL: &str = "CREATE TABLE author (id integer PRIMARY KEY, name varchar(60) NOT NULL);\n\
CREATE TABLE book (id integer PRIMARY KEY, author_id integer NOT NULL REFERENCES author(id), title text);\n\
CREATE FROBNICATE everything;\n";

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("squill-import-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn import_sql_writes_a_model_that_check_accepts() {
    let d = dir("ok");
    let sql = d.join("library.sql");
    std::fs::write(&sql, DDL).unwrap();
    let out = d.join("library.yaml");
    Test::new()
        .args(["import", "sql"])
        .args([&sql])
        .args(["--dialect", "postgres", "--output"])
        .args([&out])
        .path_as(&d, "DIR")
        .stderr(
            "DIR/library.sql:3:8: warning: statement skipped: Expected: an object type after CREATE, found: FROBNICATE (statement starts at 3:1)\n\
DIR/library.sql: read as postgres: 2 entities, 1 relationships (0 inferred from column names); counts, fan-out and the workload are assumptions to replace\n",
        )
        .check();
    Test::new()
        .args(["check"])
        .args([&out])
        .path_as(&d, "DIR")
        .stdout(
            "DIR/library.yaml: model `library` is valid

entities (2):
  author          1,000 documents  2 fields
  book            1,000 documents  2 fields

relationships (1):
  books  author -> book  one-to-squillions  children 0/10/unbounded  parents 1/1/1

operations (0) in 1 mix:
  default  0 operations  reads 0/s  writes 0/s
",
        )
        .check();
    // No temporary file left beside it.
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert_eq!(left.len(), 2);
}

#[test]
fn import_sql_without_tables_is_an_error() {
    let d = dir("empty");
    let sql = d.join("nothing.sql");
    std::fs::write(&sql, "SELECT 1;\nCREATE FROBNICATE x;\n").unwrap();
    Test::new()
        .args(["import", "sql"])
        .args([&sql])
        .path_as(&d, "DIR")
        .status(2)
        .stderr(
            "DIR/nothing.sql:2:8: warning: statement skipped: Expected: an object type after CREATE, found: FROBNICATE (statement starts at 2:1)\n\
error: DIR/nothing.sql: no CREATE TABLE read (see the statements skipped above; --dialect may help)\n",
        )
        .check();
    Test::new()
        .args(["import", "sql", "/nonexistent/x.sql"])
        .status(2)
        .stderr(
            "error: cannot read /nonexistent/x.sql\n  caused by: No such file or directory (os error 2)\n",
        )
        .check();
}

/// Without the `postgres` feature the URL form says how to get it (asked of
/// the default build's squill, whatever this test binary's features).
#[test]
fn import_postgres_without_the_feature_says_how_to_build_it() {
    let Some(squill) = crate::support::default_build_squill() else {
        return;
    };
    // The password is nowhere in it.
    Test::new()
        .program(squill)
        .args(["import", "postgres://u:secret-pw@127.0.0.1:5432/db"])
        .status(2)
        .stderr(
            "error: this squill was built without PostgreSQL support: build it with `--features postgres` (cargo install squill-cli --features postgres)\n",
        )
        .check();
}

/// Issue 40, item 5: hostile names (dotted, `$`-prefixed, a newline and an
/// escape sequence, YAML's `null`, a second `_id`) import into a model that
/// `squill check` accepts, and each renaming is reported.
#[test]
fn import_sql_of_hostile_names_writes_a_model_check_accepts() {
    let d = dir("hostile");
    let sql = d.join("hostile.sql");
    std::fs::write(
        &sql,
        "CREATE TABLE \"order.lines\" (\"$id\" integer PRIMARY KEY, \"a.b\" text, \"_id\" integer, \"x\ny\u{1b}[2J\" text, \"null\" text);\n\
CREATE TABLE \"$meta\" (id integer PRIMARY KEY, \"order.lines_id\" integer REFERENCES \"order.lines\"(\"$id\"));\n\
CREATE TABLE \"null\" (id integer PRIMARY KEY, \"$x\" integer REFERENCES \"$meta\"(id));\n",
    )
    .unwrap();
    let out = d.join("hostile.yaml");
    let note = "in the model (a model name has no `.`, no leading `$`, no control character, at most 128 characters, and only the key is `_id`); the SQL name is its description";
    Test::new()
        .args(["import", "sql"])
        .args([&sql])
        .args(["--dialect", "postgres", "-o"])
        .args([&out])
        .path_as(&d, "DIR")
        .stderr(format!(
            "DIR/hostile.sql:1:1: note: table \"order.lines\" is entity `order_lines` {note}\n\
DIR/hostile.sql:3:1: note: table \"$meta\" is entity `_meta` {note}\n\
DIR/hostile.sql:1:1: note: column \"a.b\" of table \"order.lines\" is field `a_b` {note}\n\
DIR/hostile.sql:1:1: note: column \"_id\" of table \"order.lines\" is field `_id_2` {note}\n\
DIR/hostile.sql:1:1: note: column \"x\\ny\\u{{1b}}[2j\" of table \"order.lines\" is field `x_y_[2j` {note}\n\
DIR/hostile.sql:3:1: note: column \"order.lines_id\" of table \"$meta\" is field `order_lines_id` {note}\n\
DIR/hostile.sql:4:1: note: column \"$x\" of table \"null\" is field `_x` {note}\n\
DIR/hostile.sql: read as postgres: 3 entities, 2 relationships (0 inferred from column names); counts, fan-out and the workload are assumptions to replace\n"
        ))
        .check();
    Test::new()
        .args(["check"])
        .args([&out])
        .path_as(&d, "DIR")
        .stdout(
            "DIR/hostile.yaml: model `hostile` is valid

entities (3):
  order_lines          1,000 documents  5 fields
  _meta                1,000 documents  1 field
  null                 1,000 documents  1 field

relationships (2):
  _metas       order_lines -> _meta  one-to-squillions  children 0/10/unbounded  parents 1/1/1  (standalone)
  nulls_by__x  _meta -> null  one-to-squillions  children 0/10/unbounded  parents 1/1/1

operations (0) in 1 mix:
  default  0 operations  reads 0/s  writes 0/s
",
        )
        .check();
}

/// Issue 40, item 15: a dump in the encoding it declares (pg_dump's
/// `client_encoding`, MySQL's `CHARSET=latin1`) is read in it; bytes the
/// declared encoding cannot read are an error at their byte offset.
#[test]
fn import_sql_reads_the_declared_encoding() {
    let d = dir("latin1");
    let sql = d.join("latin1.sql");
    std::fs::write(
        &sql,
        b"SET client_encoding = 'LATIN1';\nCREATE TABLE caf\xe9 (id integer PRIMARY KEY, cr\xe8me text);\n",
    )
    .unwrap();
    // Names read as LATIN1 wrote them (quoted: YAML's plain words are ASCII here).
    Test::new()
        .args(["import", "sql"])
        .args([&sql])
        .path_as(&d, "DIR")
        .stdout(model_text(
            "latin1",
            "  \"café\":\n    count: 1000  # assumed: DDL has no row counts\n    assumed: [count]\n    fields:\n      _id: int\n      \"crème\": string(200)?  # assumed: a text column, 200 bytes\n",
        ))
        .stderr(
            "DIR/latin1.sql: note: read as ISO-8859-1 (`client_encoding` at byte offset 4 declares LATIN1)\n\
DIR/latin1.sql: read as generic: 1 entities, 0 relationships (0 inferred from column names); counts, fan-out and the workload are assumptions to replace\n",
        )
        .check();
    // MySQL's latin1 is Windows-1252: 0x80 is the euro sign.
    let mysql = d.join("mysql.sql");
    std::fs::write(
        &mysql,
        b"CREATE TABLE t (id int PRIMARY KEY, p varchar(3) DEFAULT '\x80') ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
    )
    .unwrap();
    Test::new()
        .args(["import", "sql"])
        .args([&mysql])
        .path_as(&d, "DIR")
        .stdout(model_text(
            "mysql",
            "  t:\n    count: 1000  # assumed: DDL has no row counts\n    assumed: [count]\n    fields:\n      _id: int\n      p: string(3)?\n",
        ))
        .stderr(
            "DIR/mysql.sql: note: read as windows-1252 (`CHARSET` at byte offset 84 declares latin1)\n\
DIR/mysql.sql: read as mysql: 1 entities, 0 relationships (0 inferred from column names); counts, fan-out and the workload are assumptions to replace\n",
        )
        .check();
    let bad = d.join("bad.sql");
    std::fs::write(
        &bad,
        b"SET client_encoding = 'UTF8';\nCREATE TABLE caf\xe9 (id integer);\n",
    )
    .unwrap();
    Test::new()
        .args(["import", "sql"])
        .args([&bad])
        .path_as(&d, "DIR")
        .status(2)
        .stderr(
            "error: DIR/bad.sql: byte offset 46: not UTF-8 text (`client_encoding` at byte offset 4 declares UTF8); convert the file or correct the declaration\n",
        )
        .check();
}

/// The model `import sql` writes for the DDL file `name`.sql: its header,
/// then `entities`.
fn model_text(name: &str, entities: &str) -> String {
    format!(
        "# yaml-language-server: $schema=https://squill.dev/schema/squill-model.schema.json
#
# Written by `squill import sql` from the DDL of {name}. DDL says which
# tables, keys and references exist; it cannot say how many rows there
# are, how many children a parent has, or what the application reads and
# writes. Those figures are assumptions, each marked `assumed` below:
# replace them with real ones (or import from a live database), and add
# the operations under `operations:` before trusting `squill advise`.
name: {name}
entities:
{entities}"
    )
}
