//! `squill workload --format html` in a real browser (issue 22): the fixture
//! logs the workload tests use and every shared log, each read to a page
//! that scripts/testenv/check_report.js opens in headless Chromium — no
//! console error, every section, nothing wider than 1280 px (the page has no
//! diagram) — with a screenshot of each in `target/report-screenshots/` when
//! `SQUILL_TEST_SCREENSHOTS=1`.

use crate::report::{artifacts, browser, check_in_browser};
use crate::support::{Test, shared_data};
use crate::workload::{collect, fixtures};
use std::path::{Path, PathBuf};

/// Reads `logs` to `out/workload-NAME.html` and returns its check spec,
/// the sections expected read from the JSON report of the same logs.
fn read(logs: &[PathBuf], name: &str, out: &Path) -> String {
    // Findings do not fail the run (`--fail-on never`), and every log here
    // is read in full: exit 0, nothing on stderr.
    let json = Test::new()
        .args(["workload", "--fail-on", "never", "--format", "json"])
        .args(logs)
        .stdout_any()
        .check()
        .stdout;
    let report: serde_json::Value = serde_json::from_str(&json).expect("a workload report");
    let mut ids = vec![
        "summary",
        "hot",
        "namespaces",
        "indexes",
        "findings",
        "rules",
    ];
    let unreadable = report["totals"]["unreadable_lines"].as_u64().unwrap_or(0);
    if unreadable > 0 || report["errors"].as_array().is_some_and(|e| !e.is_empty()) {
        ids.push("unread");
    }
    let shapes = report["totals"]["shapes"].as_u64().unwrap_or(0);
    if shapes > 0 {
        // The hottest shape's row.
        ids.push("shape-S1");
    }
    let html = out.join(format!("workload-{name}.html"));
    Test::new()
        .args([
            "workload",
            "--fail-on",
            "never",
            "--format",
            "html",
            "--force",
            "--output",
        ])
        .args([&html])
        .args(logs)
        .check();
    format!("{}:-:{}", html.display(), ids.join(","))
}

#[test]
fn workload_reports_pass_the_browser_checks() {
    let out = artifacts();
    let fixture = fixtures();
    let mut runs: Vec<(Vec<PathBuf>, String)> = vec![
        (
            vec![
                fixture.join("shop-json.log"),
                fixture.join("shop-legacy.log"),
            ],
            "fixtures".into(),
        ),
        (vec![fixture.join("shop-profile.json")], "profile".into()),
    ];
    if let Some(data) = shared_data() {
        let mut files = Vec::new();
        collect(&data.join("logs"), &mut files);
        assert!(!files.is_empty(), "no shared logs");
        for file in &files {
            let name = file
                .strip_prefix(data.join("logs"))
                .unwrap()
                .to_string_lossy()
                .replace(['/', '.'], "-");
            runs.push((vec![file.clone()], name));
        }
        runs.push((files, "all-shared-logs".into()));
    }
    let specs: Vec<String> = runs
        .iter()
        .map(|(logs, name)| read(logs, name, &out))
        .collect();
    let Some(node) = browser() else { return };
    check_in_browser(&node, &out, &specs);
}
