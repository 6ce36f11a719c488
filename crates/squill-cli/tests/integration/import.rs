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
    let run = Test::new()
        .args(["import", "sql"])
        .args([&sql])
        .args(["--dialect", "postgres", "--output"])
        .args([&out])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .contains("library.sql:3:8: warning: statement skipped"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("2 entities, 1 relationships"),
        "{}",
        run.stderr
    );
    let check = Test::new().args(["check"]).args([&out]).run();
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(
        check.stdout.contains("model `library` is valid"),
        "{}",
        check.stdout
    );
    // No temporary file left beside it.
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert_eq!(left.len(), 2);
}

#[test]
fn import_sql_without_tables_is_an_error() {
    let d = dir("empty");
    let sql = d.join("nothing.sql");
    std::fs::write(&sql, "SELECT 1;\nCREATE FROBNICATE x;\n").unwrap();
    let run = Test::new().args(["import", "sql"]).args([&sql]).run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("no CREATE TABLE read"),
        "{}",
        run.stderr
    );
    let missing = Test::new()
        .args(["import", "sql", "/nonexistent/x.sql"])
        .run();
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("cannot read /nonexistent/x.sql"),
        "{}",
        missing.stderr
    );
}

/// Without the `postgres` feature the URL form says how to get it (asked of
/// the default build's squill, whatever this test binary's features).
#[test]
fn import_postgres_without_the_feature_says_how_to_build_it() {
    let Some(squill) = crate::support::default_build_squill() else {
        return;
    };
    let run = Test::new()
        .program(squill)
        .args(["import", "postgres://u:secret-pw@127.0.0.1:5432/db"])
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--features postgres"), "{}", run.stderr);
    assert!(!run.stderr.contains("secret-pw"), "{}", run.stderr);
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
    let run = Test::new()
        .args(["import", "sql"])
        .args([&sql])
        .args(["--dialect", "postgres", "-o"])
        .args([&out])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let file = sql.display();
    let note = "in the model (a model name has no `.`, no leading `$`, no control character, at most 128 characters, and only the key is `_id`); the SQL name is its description";
    assert_eq!(
        run.stderr,
        format!(
            "{file}:1:1: note: table \"order.lines\" is entity `order_lines` {note}\n\
{file}:3:1: note: table \"$meta\" is entity `_meta` {note}\n\
{file}:1:1: note: column \"a.b\" of table \"order.lines\" is field `a_b` {note}\n\
{file}:1:1: note: column \"_id\" of table \"order.lines\" is field `_id_2` {note}\n\
{file}:1:1: note: column \"x\\ny\\u{{1b}}[2j\" of table \"order.lines\" is field `x_y_[2j` {note}\n\
{file}:3:1: note: column \"order.lines_id\" of table \"$meta\" is field `order_lines_id` {note}\n\
{file}:4:1: note: column \"$x\" of table \"null\" is field `_x` {note}\n\
{file}: read as postgres: 3 entities, 2 relationships (0 inferred from column names); counts, fan-out and the workload are assumptions to replace\n"
        )
    );
    let check = Test::new().args(["check"]).args([&out]).run();
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(
        check.stdout.contains("model `hostile` is valid"),
        "{}",
        check.stdout
    );
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
    let run = Test::new().args(["import", "sql"]).args([&sql]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Names read as LATIN1 wrote them (quoted: YAML's plain words are ASCII here).
    assert!(run.stdout.contains("\n  \"café\":\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains("\"crème\": string(200)?"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stderr,
        format!(
            "{f}: note: read as ISO-8859-1 (`client_encoding` at byte offset 4 declares LATIN1)\n\
{f}: read as generic: 1 entities, 0 relationships (0 inferred from column names); counts, fan-out and the workload are assumptions to replace\n",
            f = sql.display()
        )
    );
    let mysql = d.join("mysql.sql");
    std::fs::write(
        &mysql,
        b"CREATE TABLE t (id int PRIMARY KEY, p varchar(3) DEFAULT '\x80') ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
    )
    .unwrap();
    let run = Test::new().args(["import", "sql"]).args([&mysql]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bad = d.join("bad.sql");
    std::fs::write(
        &bad,
        b"SET client_encoding = 'UTF8';\nCREATE TABLE caf\xe9 (id integer);\n",
    )
    .unwrap();
    let run = Test::new().args(["import", "sql"]).args([&bad]).run();
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: byte offset 46: not UTF-8 text (`client_encoding` at byte offset 4 declares UTF8); convert the file or correct the declaration\n",
            bad.display()
        )
    );
}
