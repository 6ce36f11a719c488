//! `squill scan mongodb://…` against the SecantusDB that scripts/test starts:
//! a database filled here is sampled through the driver and scanned as a
//! dump would be — collections, indexes, the reference between them, the
//! model with the counts the server estimates — and every command sent is
//! a read. Credentials never show; an unreachable server is a clear error.
//! Without the server the tests skip with a NOTICE, and fail under CI=true.

use crate::support::{TempDir, Test};
use std::process::Command;

/// (URI of the server, the venv's python).
fn server() -> Option<(String, String)> {
    match (
        std::env::var("SQUILL_TEST_MONGODB_URI"),
        std::env::var("SQUILL_TEST_PYTHON"),
    ) {
        (Ok(u), Ok(p)) => Some((u, p)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SQUILL_TEST_MONGODB_URI is not set and CI=true: scripts/test starts the server"
            );
            eprintln!("NOTICE: skipping: no MongoDB-compatible server (run through scripts/test)");
            None
        }
    }
}

/// `mongodb://host:port/DB?directConnection=true`.
fn with_db(uri: &str, db: &str) -> String {
    let base = uri.split('?').next().unwrap_or(uri).trim_end_matches('/');
    format!("{base}/{db}?directConnection=true")
}

#[test]
fn a_running_deployment_is_sampled_read_only_and_scanned_like_a_dump() {
    let Some((uri, python)) = server() else {
        return;
    };
    let db = format!("live_scan_{}", std::process::id());
    let fill = format!(
        "from pymongo import MongoClient\n\
         db = MongoClient('{uri}')['{db}']\n\
         db.authors.insert_many([{{'_id': i, 'name': 'author %d' % i}} for i in range(40)])\n\
         db.books.insert_many([{{'_id': i, 'title': 'book %d' % i, 'author_id': i % 40}} for i in range(2000)])\n\
         db.books.create_index('author_id')\n"
    );
    let out = Command::new(&python).args(["-c", &fill]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = TempDir::new("scan-live");
    let commands = dir.path().join("commands.txt");
    let model = dir.path().join("model.yaml");
    let run = Test::new()
        .args([
            "scan",
            &with_db(&uri, &db),
            "--sample",
            "500",
            "--format",
            "json",
        ])
        .args(["--emit-model"])
        .args([&model])
        .env("SQUILL_RECORD_COMMANDS", commands.to_str().unwrap())
        .run();
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("sampling 500 of about 2,000 documents"),
        "{}",
        run.stderr
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let books = report["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "books")
        .expect("books scanned");
    assert_eq!(books["documents"], 500);
    assert_eq!(books["sampled_from"], 2000);
    let indexes: Vec<&str> = books["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert!(indexes.contains(&"author_id_1"), "{indexes:?}");
    let rel = &report["relationships"][0];
    assert_eq!(rel["field"], "author_id", "{rel}");
    // The model: the server's counts, fan-out scaled back from the sample
    // (50 books an author), and the reference as the layout of today.
    let yaml = std::fs::read_to_string(&model).unwrap();
    assert!(yaml.contains("count: 2000"), "{yaml}");
    assert!(
        yaml.contains("current:\n  books_author_id: parent-reference"),
        "{yaml}"
    );
    let typical: f64 = yaml
        .split("typical: ")
        .nth(1)
        .and_then(|t| t.split([',', '}']).next())
        .and_then(|t| t.trim().parse().ok())
        .expect("a typical fan-out");
    assert!((30.0..=70.0).contains(&typical), "{yaml}");
    // Only reads were sent.
    let sent = std::fs::read_to_string(&commands).unwrap();
    let names: Vec<&str> = sent.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        names.contains(&"aggregate") && names.contains(&"listIndexes"),
        "{names:?}"
    );
    for name in &names {
        assert!(
            squill::inputs::live::READ_COMMANDS.contains(name),
            "`{name}` is not a read command"
        );
    }
}

#[test]
fn credentials_never_show_and_an_unreachable_server_is_a_clear_error() {
    if server().is_none() {
        return;
    }
    let run = Test::new()
        .args([
            "scan",
            "mongodb://reader:hunter2@127.0.0.1:1/shop",
            "--connect-timeout",
            "1",
        ])
        .run();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!run.stderr.contains("hunter2") && !run.stdout.contains("hunter2"));
    assert!(
        run.stderr.contains("mongodb://127.0.0.1:1/shop"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("Connection refused") || run.stderr.contains("timeout"),
        "{}",
        run.stderr
    );
}
