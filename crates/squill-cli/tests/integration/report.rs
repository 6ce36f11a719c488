//! The HTML reports in a real browser (issue 22): every example model and
//! scenario advised with `--format html`, then opened in headless Chromium
//! by scripts/testenv/check_report.js, which checks for console errors,
//! the sections, one diagram node per collection and nothing wider than a
//! 1280 px page (with `SQUILL_TEST_SCREENSHOTS=1`, it saves a screenshot of
//! each in `target/report-screenshots/` too). Snapshots of the HTML
//! alone would not show any of that.

use crate::support::{Test, repo_root};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Node, with playwright-core on `NODE_PATH`, and Chromium, as
/// scripts/test sets them up (scripts/testenv/browser.sh): the node binary.
pub fn browser() -> Option<String> {
    let node = std::env::var("SQUILL_TEST_NODE").ok();
    let chromium = std::env::var("SQUILL_TEST_CHROMIUM").ok();
    match (node, chromium) {
        (Some(node), Some(chromium)) if Path::new(&chromium).exists() => Some(node),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SQUILL_TEST_NODE or SQUILL_TEST_CHROMIUM is not set and CI=true"
            );
            eprintln!(
                "NOTICE: skipping the browser checks of the HTML reports: no Chromium or playwright-core (run through scripts/test)"
            );
            None
        }
    }
}

/// Every model under examples/ and examples/scenarios/.
fn models() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["examples", "examples/scenarios"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir))
            .expect("the examples are readable")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// Where the reports (and, on request, their screenshots) go:
/// `target/report-screenshots/`.
pub fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .join("report-screenshots");
    std::fs::create_dir_all(&dir).expect("the artifact directory");
    dir
}

#[test]
fn every_example_s_report_passes_the_browser_checks() {
    let Some(node) = browser() else { return };
    let out = artifacts();
    // No example carries a design of today (`current:`): one made as the
    // advise tests make it shows that section too.
    let today = out.join("product-reviews-today.yaml");
    let text = std::fs::read_to_string(repo_root().join("examples/product-reviews.yaml"))
        .expect("the example is readable");
    std::fs::write(
        &today,
        format!("{text}\ncurrent:\n  reviews: parent-reference\n"),
    )
    .expect("the model is written");
    let mut specs = Vec::new();
    let mut with_today = 0;
    for model in models().into_iter().chain([today]) {
        let name = model.file_name().unwrap().to_string_lossy().to_string();
        let path = model.display().to_string();
        // What the page must show, from the design itself (JSON), not from the page.
        // Findings do not fail these runs: some examples carry a warning on
        // their own figures (growth-and-inserts-disagree), and the page is
        // what is checked here.
        let json = Test::new()
            .args(["advise", &path, "--format", "json", "--fail-on", "never"])
            .stdout_any()
            .check()
            .stdout;
        let design: serde_json::Value = serde_json::from_str(&json).expect("a design");
        let collections = design["collections"].as_array().map_or(0, Vec::len);
        let mut ids = vec![
            "summary",
            "diagram",
            "relationships",
            "operations",
            "findings",
            "rules",
            // How the search ran (issue 45): the page's last section.
            "search",
        ];
        if !design["current"].is_null() {
            ids.push("current");
            with_today += 1;
        }
        let html = out.join(format!("{name}.html"));
        Test::new()
            .args([
                "advise",
                &path,
                "--format",
                "html",
                "--fail-on",
                "never",
                "--force",
                "--output",
            ])
            .args([&html])
            .check();
        specs.push(format!(
            "{}:{collections}:{}",
            html.display(),
            ids.join(",")
        ));
    }
    // C1 projected (issue 42): the capacity section with its chart.
    let c1 = repo_root().join("examples/scenarios/c01-chat-capacity.yaml");
    let html = out.join("c01-chat-capacity-horizon.html");
    Test::new()
        .args(["advise"])
        .args([&c1])
        .args(["--horizon", "36m", "--ram", "64GiB", "--disk", "4TiB"])
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
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(
        page.contains("<svg class=\"chart capacity\""),
        "no capacity chart"
    );
    specs.push(format!(
        "{}:-:summary,diagram,capacity,findings",
        html.display()
    ));
    // C3 sharded (issue 42): the sharding section with its chart.
    let c3 = repo_root().join("examples/scenarios/c03-stores-shard-keys.yaml");
    let html = out.join("c03-stores-shard-keys-shard.html");
    Test::new()
        .args(["advise"])
        .args([&c3])
        .args(["--shard", "--format", "html", "--fail-on", "never"])
        .args(["--force", "--output"])
        .args([&html])
        .check();
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(
        page.contains("<svg class=\"chart sharding\"")
            && page.contains("<section id=\"sharding\">"),
        "no sharding section or chart"
    );
    specs.push(format!(
        "{}:-:summary,diagram,operations,sharding,findings",
        html.display()
    ));
    assert!(specs.len() >= 30, "examples found: {}", specs.len());
    assert!(with_today >= 1, "no report shows a design of today");
    check_in_browser(&node, &out, &specs);
}

/// Runs scripts/testenv/check_report.js on `specs` (`FILE:NODES:ID,…`),
/// screenshots (on request) into `out`; fails the test with its output when
/// a check fails.
pub fn check_in_browser(node: &str, out: &Path, specs: &[String]) {
    let run = Command::new(node)
        .arg(repo_root().join("scripts/testenv/check_report.js"))
        .arg(out)
        .args(specs)
        .output()
        .expect("node runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "browser checks failed:\n{text}");
    eprintln!("{text}");
}

/// The browser check can fail, and a failure stays with its own page: a
/// page with a console error, a script error, a request off the file and an
/// element wider than 1280 px fails on each, between two reports that pass
/// in the same page (check_report.js loads every report into one page).
#[test]
fn the_browser_check_fails_a_broken_page_and_only_it() {
    let Some(node) = browser() else { return };
    let out = artifacts().join("broken-page");
    std::fs::create_dir_all(&out).expect("the directory");
    let good = out.join("good.html");
    let bad = out.join("bad.html");
    std::fs::write(&good, "<html><body><p>fine</p></body></html>").unwrap();
    std::fs::write(
        &bad,
        "<html><body><div style=\"width:3000px\">wide</div>\
         <img src=\"http://example.invalid/x.png\">\
         <script>console.error('planted'); notDefined();</script></body></html>",
    )
    .unwrap();
    let run = Command::new(&node)
        .arg(repo_root().join("scripts/testenv/check_report.js"))
        .arg(&out)
        .args([&good, &bad, &good].map(|f| format!("{}:-:", f.display())))
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("ok ") && lines[2].starts_with("ok "),
        "{text}"
    );
    for problem in [
        "console error: planted",
        "page error: notDefined is not defined",
        "network request: http://example.invalid/x.png",
        "wider than 1280 px",
    ] {
        assert!(
            lines[1].starts_with("FAIL ") && lines[1].contains(problem),
            "{problem}: {text}"
        );
    }
    assert_eq!(lines[3], "2 passed, 1 failed", "{text}");
}
