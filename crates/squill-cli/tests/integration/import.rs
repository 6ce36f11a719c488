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
