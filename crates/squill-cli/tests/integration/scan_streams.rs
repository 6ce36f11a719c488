//! `scan` on inputs that are not regular files, and on the thread count
//! (issue 23): nothing lost, nothing hung, no work for threads that cannot help.

use crate::support::{TempDir, Test};

/// `{"i": n}` as BSON.
fn doc(n: i32) -> Vec<u8> {
    let mut d = vec![12, 0, 0, 0, 0x10, b'i', 0];
    d.extend_from_slice(&n.to_le_bytes());
    d.push(0);
    d
}

fn documents(json: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(json).expect("scan JSON");
    v["totals"]["documents"].as_u64().expect("totals.documents")
}

/// `squill scan /dev/stdin` with a pipe behind it lost the first 13 of 100
/// documents behind a bogus length error; it is read as a stream now.
#[test]
fn dev_stdin_through_a_pipe_loses_nothing() {
    let bytes: Vec<u8> = (0..100).flat_map(doc).collect();
    let run = Test::new()
        .args(["scan", "/dev/stdin", "--format", "json"])
        .stdin(bytes)
        .stdout_any()
        .check();
    assert_eq!(documents(&run.stdout), 100);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["errors"], serde_json::json!([]), "{}", run.stdout);
}

/// Threads beyond the cores are capped, with a note; the result is the same.
#[test]
fn threads_beyond_the_cores_are_capped() {
    let dir = TempDir::new("threads-cap");
    let file = dir.path().join("things.bson");
    std::fs::write(&file, (0..50).flat_map(doc).collect::<Vec<u8>>()).unwrap();
    let run = Test::new()
        .args(["scan", "--threads", "100000", "--format", "json"])
        .args([&file])
        .stdout_any()
        .stderr_matching("note: --threads 100000 capped at [..], the cores this machine has\n")
        .check();
    assert_eq!(documents(&run.stdout), 50);
}
