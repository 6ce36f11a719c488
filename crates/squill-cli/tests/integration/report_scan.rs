//! `squill scan --format html` in a real browser (issue 22): the small dump
//! the scan tests use and the shared dumps, each scanned to a page that
//! scripts/testenv/check_report.js opens in headless Chromium — no console
//! error, every section, one diagram node per collection, nothing wider than
//! 1280 px — with a screenshot of each in `target/report-screenshots/` when
//! `SQUILL_TEST_SCREENSHOTS=1`.

use crate::report::{artifacts, browser, check_in_browser};
use crate::support::{Test, shared_data};
use std::path::{Path, PathBuf};

/// The shared inputs scanned, under `../shared/data/mongo`.
const SHARED: &[&str] = &[
    "atlas-sample-dump",
    "atlas-sample-ejson",
    "json-datasets/datasets/books.json",
    "json-datasets/datasets/countries-big.json",
    "mongo-tools-testdata/bsondump/testdata/sample.bson",
];

/// Scans `input` to `out/scan-NAME.html` and returns its check spec, the
/// expected node count and sections read from the JSON report of the same
/// input (not from the page).
fn scanned(input: &Path, name: &str, out: &Path) -> String {
    let json = Test::new()
        .args(["scan", "--format", "json", "--fail-on", "never"])
        .args([input])
        .stdout_any()
        .check()
        .stdout;
    let report: serde_json::Value = serde_json::from_str(&json).expect("a scan report");
    let collections = report["collections"].as_array().map_or(0, Vec::len);
    assert!(collections > 0, "{name}: no collection");
    let mut ids = vec![
        "summary",
        "diagram",
        "collections",
        "findings",
        "rules",
        "notes",
    ];
    let unread = |k: &str| report[k].as_array().is_some_and(|a| !a.is_empty());
    if unread("errors") || unread("skipped") {
        ids.push("input");
    }
    let html = out.join(format!("scan-{name}.html"));
    Test::new()
        .args([
            "scan",
            "--format",
            "html",
            "--fail-on",
            "never",
            "--force",
            "--output",
        ])
        .args([&html])
        .args([input])
        .check();
    format!("{}:{collections}:{}", html.display(), ids.join(","))
}

#[test]
fn scan_reports_pass_the_browser_checks() {
    let out = artifacts();
    let dir = crate::scan::fixture("report-scan");
    let mut inputs: Vec<(PathBuf, String)> = vec![(dir.path().join("dump"), "fixture".into())];
    if let Some(data) = shared_data() {
        for path in SHARED {
            let name = Path::new(path)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            inputs.push((data.join("mongo").join(path), name));
        }
    }
    // The pages are written even without a browser: rendering every shared
    // dump must not fail.
    let mut specs: Vec<String> = inputs
        .iter()
        .map(|(input, name)| scanned(input, name, &out))
        .collect();
    // A deployment's capacity (issue 42): C4's dump grown by its logged
    // inserts, with the chart against a 2 GiB member's cache and disk.
    let c4 = crate::support::repo_root().join("crates/squill-cli/tests/fixtures/c4-deployment");
    let html = out.join("scan-c4-capacity.html");
    Test::new()
        .args(["scan"])
        .args([c4.join("dump")])
        .args(["--workload"])
        .args([c4.join("mongod.log")])
        .args(["--horizon", "36m", "--ram", "2GiB", "--disk", "1GiB"])
        .args([
            "--format",
            "html",
            "--fail-on",
            "never",
            "--force",
            "--output",
        ])
        .args([&html])
        .check();
    assert!(
        std::fs::read_to_string(&html)
            .expect("the page")
            .contains("<svg class=\"chart capacity\""),
        "no capacity chart"
    );
    specs.push(format!(
        "{}:1:summary,diagram,collections,findings,capacity,rules,notes",
        html.display()
    ));
    // C4's shard keys (issue 42): the scan's page with its chart of where
    // each candidate sends the logged operations, and the commands.
    let html = out.join("scan-c4-shard-keys.html");
    Test::new()
        .args(["scan"])
        .args([c4.join("dump")])
        .args(["--workload"])
        .args([c4.join("mongod.log")])
        .args(["--shard-keys", "--format", "html", "--fail-on", "never"])
        .args(["--force", "--output"])
        .args([&html])
        .check();
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(
        page.contains("<svg class=\"chart sharding\"")
            && page.contains("<section id=\"shard-keys\">")
            && page.contains("sh.shardCollection"),
        "no shard-key chart, section or commands"
    );
    specs.push(format!(
        "{}:1:summary,diagram,collections,findings,shard-keys,rules,notes",
        html.display()
    ));
    let Some(node) = browser() else { return };
    check_in_browser(&node, &out, &specs);
}
