//! Integration tests of `squill workload`: the text and JSON reports of the
//! fixture logs (snapshots), gzip and a truncated gzip, exit codes and
//! messages, the privacy default, and every shared log end to end. Each run
//! states its exit status and both streams (`Test::check`): the fixture
//! logs have warnings, so a run exits 1 under the default `--fail-on`.

use crate::support::{TempDir, Test, repo_root, shared_data};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    repo_root().join("crates/squill-cli/tests/fixtures/logs")
}

/// Runs from the fixture folder, so the report names the files as
/// `shop-json.log`, not by an absolute path.
fn workload(args: &[&str]) -> Test {
    Test::new()
        .current_dir(fixtures())
        .args(["workload"])
        .args(args)
}

#[test]
fn text_report() {
    let run = workload(&["shop-json.log", "shop-legacy.log"])
        .stdout_any()
        .status(1)
        .check();
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn json_report() {
    let run = workload(&["--format", "json", "shop-json.log", "shop-legacy.log"])
        .stdout_any()
        .status(1)
        .check();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    assert_eq!(report["totals"]["duplicate_write_commands"], 2);
    assert_eq!(report["totals"]["folded_getmores"], 1);
    insta::assert_snapshot!(run.stdout);
}

/// The fixture logs have warnings (a collection scan on a hot shape):
/// `--fail-on warning` (the default) exits 1 with the report written,
/// `--fail-on error` and `never` exit 0.
#[test]
fn fail_on_sets_the_exit_code_by_the_findings_severity() {
    let logs = ["shop-json.log", "shop-legacy.log"];
    let json = workload(&[&["--format", "json"][..], &logs].concat())
        .stdout_any()
        .status(1)
        .check();
    let report: serde_json::Value = serde_json::from_str(&json.stdout).expect("valid JSON");
    let severities: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["severity"].as_str())
        .collect();
    assert!(severities.contains(&"warning"), "{severities:?}");
    assert!(!severities.contains(&"error"), "{severities:?}");
    let failed = workload(&[&["--fail-on", "warning"][..], &logs].concat())
        .stdout_any()
        .status(1)
        .check();
    assert!(
        failed.stdout.contains("squill workload:"),
        "{}",
        failed.stdout
    );
    workload(&[&["--fail-on", "error"][..], &logs].concat())
        .stdout_any()
        .check();
    workload(&[&["--fail-on", "never"][..], &logs].concat())
        .stdout_any()
        .check();
    // The default is `warning`, as on every command (issue 44).
    workload(&logs).stdout_any().status(1).check();
}

#[test]
fn markdown_report_names_the_shapes() {
    let run = workload(&["--format", "markdown", "shop-json.log"])
        .stdout_any()
        .status(1)
        .check();
    assert!(run.stdout.starts_with("# Workload\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("| S1 | `find {customer: eq, status: eq} sort {placedAt: -1} limit` |"),
        "{}",
        run.stdout
    );
}

/// Validated against the SARIF 2.1.0 schema (`support::sarif_validator`).
#[test]
fn sarif_lists_the_rules_findings_and_unreadable_lines() {
    let run = workload(&["--format", "sarif", "shop-json.log", "shop-legacy.log"])
        .stdout_any()
        .status(1)
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let run0 = &v["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), squill::rules::workload::ALL.len());
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 10);
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
    }
    let notes = run0["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), 5, "{notes:?}");
    assert!(
        notes.iter().any(|n| {
            let p = &n["locations"][0]["physicalLocation"];
            p["artifactLocation"]["uri"] == "shop-legacy.log" && p["region"]["startLine"] == 10
        }),
        "{notes:?}"
    );
    let Some(validator) = crate::support::sarif_validator() else {
        return;
    };
    let errors = crate::support::sarif_errors(&validator, &v);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn values_only_with_show_values() {
    let quiet = workload(&["--format", "json", "shop-json.log", "shop-legacy.log"])
        .stdout_any()
        .status(1)
        .check();
    for literal in [
        "example.org",
        "jensen",
        "clerk-17",
        "u17",
        "65f20b835538c55aa02d9e0",
        "mongodb",
    ] {
        assert!(
            !quiet.stdout.contains(literal),
            "`{literal}` printed without --show-values"
        );
    }
    let shown = workload(&["--show-values", "shop-json.log", "shop-legacy.log"])
        .stdout_any()
        .status(1)
        .check();
    assert!(
        shown.stdout.contains("example: {\"email\":\"someone"),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains("author: \"u17\""), "{}", shown.stdout);
}

#[test]
fn output_file_and_gzip_and_truncated_gzip() {
    let dir = TempDir::new("workload-gzip");
    let text = std::fs::read(fixtures().join("shop-json.log")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let bytes = gz.finish().unwrap();
    // The name says nothing: gzip is told by its magic bytes.
    let whole = dir.path().join("mongod.log.1");
    std::fs::write(&whole, &bytes).unwrap();
    let cut = dir.path().join("cut.log.gz");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let out = dir.path().join("report.json");
    // Reading is what this test is about: findings do not fail it.
    Test::new()
        .args([
            "workload",
            "--fail-on",
            "never",
            "--format",
            "json",
            "--output",
        ])
        .args([&out, &whole])
        .check();
    let plain: serde_json::Value = serde_json::from_str(
        &workload(&["--format", "json", "shop-json.log"])
            .stdout_any()
            .status(1)
            .check()
            .stdout,
    )
    .unwrap();
    let zipped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(zipped["files"][0]["gzip"], true);
    assert_eq!(zipped["namespaces"], plain["namespaces"]);
    let run = Test::new()
        .args(["workload", "--fail-on", "never", "--format", "json"])
        .args([&cut])
        .stdout_any()
        .check();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let reasons = report["problems"]["by_reason"].to_string();
    assert!(reasons.contains("truncated-gzip"), "{reasons}");
    assert!(
        report["totals"]["operations"].as_u64().unwrap() > 0,
        "the lines before the damage are read"
    );
}

#[test]
fn missing_file_is_an_error_with_its_path_and_the_rest_is_reported() {
    let run = workload(&["no-such.log", "shop-legacy.log"])
        .stdout_any()
        .status(2)
        .stderr("error: cannot open no-such.log: No such file or directory (os error 2)\n")
        .check();
    assert!(run.stdout.contains("blog.posts"), "{}", run.stdout);
    workload(&["."])
        .stdout_any()
        .status(2)
        .stderr("error: . is a directory, not a log file\n")
        .check();
}

/// Every shared log: exit 0, nothing on stderr, lines read;
/// the logs known to hold operations yield shapes.
#[test]
fn every_shared_log() {
    let Some(data) = shared_data() else { return };
    let logs = data.join("logs");
    let mut files = Vec::new();
    collect(&logs, &mut files);
    assert!(!files.is_empty(), "no logs under {}", logs.display());
    for file in &files {
        // Every shared log is read in full, the unreadable lines counted:
        // exit 0 and nothing on stderr.
        let run = Test::new()
            .args(["workload", "--fail-on", "never", "--format", "json"])
            .args([file])
            .stdout_any()
            .check();
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert!(
            report["totals"]["lines"].as_u64().unwrap() > 0,
            "{}",
            file.display()
        );
    }
    for (name, min_operations) in [
        ("hatchet-json/sample-mongod.log.gz", 10_000),
        ("mtools-legacy/collscans.log", 1),
        ("mtools-legacy/mongod_26_corrupt.log", 1),
    ] {
        let run = Test::new()
            .args(["workload", "--fail-on", "never", "--format", "json"])
            .args([logs.join(name)])
            .stdout_any()
            .check();
        let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let operations = report["totals"]["operations"].as_u64().unwrap();
        assert!(
            operations >= min_operations,
            "{name}: {operations} operations"
        );
    }
    // All of them at once: one report.
    let run = Test::new()
        .args(["workload", "--fail-on", "never"])
        .args(&files)
        .stdout_any()
        .check();
    assert!(
        run.stdout.starts_with("squill workload: "),
        "{}",
        run.stdout
    );
}

pub fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "log" || e == "gz") {
            out.push(path);
        }
    }
}

/// A profiler export (`mongoexport --collection system.profile`) reads
/// like a log: the same shapes and figures, the cut last document reported
/// with its line, and no value printed.
#[test]
fn a_profiler_export_reads_like_a_log() {
    let path =
        crate::support::repo_root().join("crates/squill-cli/tests/fixtures/logs/shop-profile.json");
    let run = crate::support::Test::new()
        .args(["workload", "--format", "json"])
        .args([&path])
        .stdout_any()
        .status(1)
        .check();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["totals"]["operations"], 5, "{}", run.stdout);
    let orders = report["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["namespace"] == "shop.orders")
        .expect("shop.orders");
    let s1 = &orders["shapes"][0];
    assert_eq!(s1["count"], 2);
    assert_eq!(s1["docs_examined"], 8400);
    assert_eq!(s1["in_memory_sorts"], 2);
    assert_eq!(report["totals"]["unreadable_lines"], 1);
    assert!(run.stdout.contains("shop-profile.json"), "{}", run.stdout);
    assert!(!run.stdout.contains("someone@example.org"));
    assert!(!run.stdout.contains("65f1a2b3c4d5e6f708192a3b"));
}

/// The profiler's documents as mongodump writes them
/// (`dump/shop/system.profile.bson`): each document of the JSON export
/// fixture written as BSON (by squill's Extended JSON transcoder), the cut
/// last line left out. Returns the BSON and the JSON lines it came from.
fn profile_dump() -> (Vec<u8>, String) {
    let text = std::fs::read_to_string(fixtures().join("shop-profile.json")).unwrap();
    let (mut bson, mut json) = (Vec::new(), String::new());
    for line in text.lines() {
        if serde_json::from_str::<serde_json::Value>(line).is_err() {
            continue;
        }
        squill::inputs::ejson::transcode_document(
            line.as_bytes(),
            &mut bson,
            squill::inputs::ejson::Options::default(),
        )
        .unwrap();
        json.push_str(line);
        json.push('\n');
    }
    assert_eq!(json.lines().count(), 5);
    (bson, json)
}

/// The JSON report of `path`, read for its figures: findings do not fail it.
fn report_of(path: &Path) -> serde_json::Value {
    let run = Test::new()
        .args(["workload", "--fail-on", "never", "--format", "json"])
        .args([path])
        .stdout_any()
        .check();
    serde_json::from_str(&run.stdout).unwrap()
}

/// Issue 21: a dump's `system.profile.bson` (told by its bytes, not its
/// name) reads like the same documents exported as JSON.
#[test]
fn a_profiler_dump_reads_like_its_json_export() {
    let dir = TempDir::new("workload-profile-bson");
    let (bson, json) = profile_dump();
    let dumped = dir.path().join("system.profile.bson");
    std::fs::write(&dumped, &bson).unwrap();
    let exported = dir.path().join("system.profile.json");
    std::fs::write(&exported, &json).unwrap();
    // Not by the extension: the same bytes under a log's name.
    let renamed = dir.path().join("profile.log");
    std::fs::write(&renamed, &bson).unwrap();
    let from_json = report_of(&exported);
    assert_eq!(from_json["totals"]["operations"], 5);
    for path in [&dumped, &renamed] {
        let from_bson = report_of(path);
        assert_eq!(from_bson["namespaces"], from_json["namespaces"]);
        assert_eq!(from_bson["totals"], from_json["totals"]);
        assert_eq!(from_bson["span"], from_json["span"]);
        assert_eq!(from_bson["findings"], from_json["findings"]);
        assert_eq!(from_bson["files"][0]["format"], "bson");
        assert_eq!(from_bson["files"][0]["lines"], 5);
    }
    let text = Test::new()
        .args(["workload", "--fail-on", "never"])
        .args([&dumped])
        .stdout_any()
        .check();
    assert!(text.stdout.contains("shop.orders"), "{}", text.stdout);
    assert!(!text.stdout.contains("someone@example.org"));
}

/// A truncated dump and a corrupt document: reported with the file and the
/// byte offset, the documents before them read.
#[test]
fn a_truncated_or_corrupt_profiler_dump_reports_the_byte_offset() {
    let dir = TempDir::new("workload-profile-bson-cut");
    let (bson, _) = profile_dump();
    // Where each document starts: its length prefix gives the next.
    let mut starts = vec![0usize];
    while let Some(&at) = starts.last() {
        let len = i32::from_le_bytes(bson[at..at + 4].try_into().unwrap()) as usize;
        if at + len >= bson.len() {
            break;
        }
        starts.push(at + len);
    }
    assert_eq!(starts.len(), 5);
    let cut = dir.path().join("system.profile.bson");
    std::fs::write(&cut, &bson[..starts[3] + 40]).unwrap();
    let report = report_of(&cut);
    assert_eq!(report["totals"]["operations"], 3);
    assert_eq!(report["problems"]["by_reason"][0]["reason"], "cut-short");
    let problem = &report["problems"]["examples"][0];
    assert_eq!(problem["offset"], starts[3] as u64);
    assert!(
        problem["file"]
            .as_str()
            .unwrap()
            .ends_with("system.profile.bson")
    );
    let text = Test::new()
        .args(["workload", "--fail-on", "never"])
        .args([&cut])
        .stdout_any()
        .check();
    assert!(
        text.stdout
            .contains(&format!("system.profile.bson at byte {}", starts[3])),
        "{}",
        text.stdout
    );
    // A type byte no BSON has, in the second document's first element.
    let mut corrupt = bson.clone();
    corrupt[starts[1] + 4] = 0x42;
    let bad = dir.path().join("corrupt.bson");
    std::fs::write(&bad, &corrupt).unwrap();
    let report = report_of(&bad);
    assert_eq!(report["totals"]["operations"], 4);
    assert_eq!(report["problems"]["by_reason"][0]["reason"], "corrupt");
    assert_eq!(
        report["problems"]["examples"][0]["offset"],
        (starts[1] + 4) as u64
    );
    let sarif = Test::new()
        .args(["workload", "--fail-on", "never", "--format", "sarif"])
        .args([&bad])
        .stdout_any()
        .check();
    assert!(
        sarif
            .stdout
            .contains(&format!("\"byteOffset\": {}", starts[1] + 4)),
        "{}",
        sarif.stdout
    );
    // A region by byte offset is valid SARIF.
    if let Some(validator) = crate::support::sarif_validator() {
        let v: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
        let errors = crate::support::sarif_errors(&validator, &v);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// `mongodump --gzip` writes `system.profile.bson.gz`: read like the plain file.
#[test]
fn a_gzipped_profiler_dump_reads_like_the_plain_one() {
    let dir = TempDir::new("workload-profile-bson-gz");
    let (bson, _) = profile_dump();
    let plain = dir.path().join("system.profile.bson");
    std::fs::write(&plain, &bson).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bson).unwrap();
    let zipped = dir.path().join("system.profile.bson.gz");
    std::fs::write(&zipped, gz.finish().unwrap()).unwrap();
    let (a, b) = (report_of(&plain), report_of(&zipped));
    assert_eq!(b["files"][0]["gzip"], true);
    assert_eq!(b["files"][0]["format"], "bson");
    assert_eq!(a["namespaces"], b["namespaces"]);
    assert_eq!(a["totals"], b["totals"]);
}

/// Issue 40, item 20: the writes mongod logs on `db.system.buckets.X` when
/// the application inserts into the time-series collection `db.X` are
/// `db.X`'s bucket writes, not the server's own operations.
#[test]
fn bucket_writes_are_their_time_series_collection_s() {
    let run = workload(&["--format", "json", "timeseries-buckets.log"])
        .stdout_any()
        .status(1)
        .check();
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(r["totals"]["bucket_writes"], 3);
    // Only the oplog read is the server's own.
    assert_eq!(r["totals"]["internal_operations"], 1);
    let ns = &r["namespaces"][0];
    assert_eq!(ns["namespace"], "metrics.weather");
    assert_eq!(
        ns["bucket_writes"],
        serde_json::json!({ "operations": 3, "total_ms": 700, "max_ms": 310 })
    );
    assert_eq!(ns["operations"], 4);
    assert_eq!(ns["total_ms"], 830);
    let text = workload(&["timeseries-buckets.log"])
        .stdout_any()
        .status(1)
        .check()
        .stdout;
    assert!(
        text.contains(
            "\nmetrics.weather: 4 operations, 830 ms\n  bucket writes of this time-series collection (the server's writes to metrics.system.buckets.weather as the application inserted): 3 writes, 700 ms in all, the slowest 310 ms\n"
        ),
        "{text}"
    );
}
