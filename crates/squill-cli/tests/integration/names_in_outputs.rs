//! Issue 40, items 3 and 4: names from data are data in every report. A
//! model, a dump and a log each bring names made to do harm — `<script>`,
//! `<img onerror>`, a Markdown link to `javascript:`, backticks, ESC
//! sequences that retitle or clear a terminal, CR, LF, C1 controls,
//! U+202E, U+2028 — and names that differ only by punctuation. Each command
//! renders them in each of its forms, and each form is checked for what it
//! must hold: text and Markdown no control character a terminal obeys, nor a
//! line a name forged; Markdown no raw HTML, link or code span a name made
//! once rendered as GitHub would; SARIF URIs that are URIs; HTML one
//! element per id.

use crate::support::{TempDir, Test};
use std::collections::BTreeMap;
use std::path::Path;

/// The model: every kind of name (model, mix, entity, field, relationship,
/// operation) hostile, and three collections that differ by punctuation.
const MODEL: &str = r#"name: "model<script>alert(1)</script>\e]0;pwned\a"
mixes: ["mix`<b>\e[2J"]
entities:
  "<img src=x onerror=alert(1)>":
    count: 1000000
    fields:
      name: string(24)
      "sn`n\e[2J": {type: string(11), distinct: 1000000}
      "bidi\u202Efield\u0085": string(3)
  "add\rress\u202Eevil":
    count: 2000000
    fields:
      street: string(30)
  "order items": {count: 10, fields: {a: int}}
  "order_items": {count: 10, fields: {a: int}}
  "order-items": {count: 10, fields: {a: int}}
relationships:
  "rel\nINJECTED line":
    parent: "<img src=x onerror=alert(1)>"
    child: "add\rress\u202Eevil"
    children: {min: 0, typical: 2, max: 5}
    standalone: false
operations:
  "view`person\e]0;t\a":
    read: "<img src=x onerror=alert(1)>"
    rate: 200
    filter: {"sn`n\e[2J": eq}
    include: ["rel\nINJECTED line"]
  "[x](javascript:alert(1))\u2028\u009b2J":
    read: "order items"
    rate: 1
    filter: {a: eq}
"#;

/// Field names of one scanned collection (Extended JSON escapes).
const DOCUMENTS: &str = concat!(
    r#"{"_id":1,"na\u001b]0;pwned\u0007me":"x","<script>alert(1)</script>":1,"#,
    r#""b`ack\rtick\u202eevil":[1,2],"line\nINJECTED":2,"[l](javascript:x)":3}"#,
    "\n",
    r#"{"_id":2,"na\u001b]0;pwned\u0007me":"y"}"#,
    "\n"
);

/// A slow find on `shop.COLL` filtering on `field` (JSON escapes in both).
fn log_line(coll: &str, field: &str, ms: u32) -> String {
    format!(
        r#"{{"t":{{"$date":"2024-03-01T10:00:00.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{{"type":"command","ns":"shop.{coll}","command":{{"find":"{coll}","filter":{{"{field}":1}},"$db":"shop"}},"planSummary":"COLLSCAN","docsExamined":48000,"nreturned":1,"durationMillis":{ms}}}}}"#
    ) + "\n"
}

/// The inputs, in `dir`: `hostile.yaml`; a dump folder of two collections
/// that differ by punctuation and one whose file name is hostile; a log
/// whose file name needs percent-encoding, with an unreadable line (so
/// SARIF points into it).
fn inputs(dir: &Path) {
    std::fs::write(dir.join("hostile.yaml"), MODEL).unwrap();
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("c<img src=x onerror=alert(1)>\x1b]0;t\x07 #1.json"),
        DOCUMENTS,
    )
    .unwrap();
    for name in ["order items.json", "order-items.json", "order_items.json"] {
        std::fs::write(data.join(name), "{\"_id\":1,\"a\":1}\n").unwrap();
    }
    let mut log = String::new();
    log += &log_line(
        "<img src=x onerror=alert(1)>\\u001b]0;pwned\\u0007",
        "f`\\r\\u202e<script>alert(1)</script>",
        900,
    );
    log += &log_line("x\\nINJECTED line", "[l](javascript:x)\\u009b2J", 800);
    for coll in ["order items", "order-items", "order_items"] {
        log += &log_line(coll, "a", 700);
    }
    log += "{\"t\": not a log line\n";
    std::fs::write(dir.join("my log #1?.log"), log).unwrap();
}

/// Every report of every command in every form, by `command form`.
fn reports(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    // Each command's exit status: the slow collection scans of the log
    // are warnings (exit 1), the model and the dump bring none.
    let forms: [(&str, &[&str], &[&str], i32); 3] = [
        (
            "advise",
            &["hostile.yaml"],
            &["text", "markdown", "json", "html"],
            0,
        ),
        (
            "scan",
            &["data"],
            &["text", "markdown", "json", "sarif", "html"],
            0,
        ),
        (
            "workload",
            &["my log #1?.log"],
            &["text", "markdown", "json", "sarif", "html"],
            1,
        ),
    ];
    for (command, args, formats, status) in forms {
        for format in formats {
            let run = Test::new()
                .current_dir(dir)
                .args([command, "--format", format])
                .args(args.iter().copied())
                .status(status)
                .stdout_any()
                .check();
            assert!(!run.stdout.is_empty(), "{command} {format}");
            out.insert(format!("{command} {format}"), run.stdout);
        }
    }
    out
}

/// No character a terminal obeys except the report's own line feeds, and
/// no line that a name's line feed began.
#[track_caller]
fn assert_inert_for_a_terminal(what: &str, text: &str) {
    if let Some(c) = text
        .chars()
        .find(|&c| c != '\n' && squill::words::is_hidden(c))
    {
        panic!("{what}: raw {c:?} in\n{text}");
    }
    if let Some(line) = text.lines().find(|l| l.starts_with("INJECTED")) {
        panic!("{what}: a name's line feed began the line {line:?}");
    }
}

#[test]
fn text_reports_show_names_and_obey_none() {
    let dir = TempDir::new("names-text");
    inputs(dir.path());
    let reports = reports(dir.path());
    for (what, text) in reports.iter().filter(|(k, _)| k.ends_with(" text")) {
        assert_inert_for_a_terminal(what, text);
    }
    // Shown, escaped, not dropped.
    assert!(reports["advise text"].contains("add\\rress\\u{202e}evil"));
    assert!(reports["scan text"].contains("na\\u{1b}]0;pwned\\u{7}me"));
    assert!(reports["workload text"].contains("shop.x\\nINJECTED line"));
}

#[test]
fn markdown_reports_render_names_as_text() {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let dir = TempDir::new("names-markdown");
    inputs(dir.path());
    let reports = reports(dir.path());
    for (what, markdown) in reports.iter().filter(|(k, _)| k.ends_with(" markdown")) {
        assert_inert_for_a_terminal(what, markdown);
        for event in Parser::new_ext(markdown, Options::all()) {
            match &event {
                Event::Html(h) | Event::InlineHtml(h) => {
                    panic!("{what}: raw HTML {h:?} in\n{markdown}")
                }
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    panic!("{what}: a link to {dest_url:?} in\n{markdown}")
                }
                _ => {}
            }
        }
    }
    // A name with backticks is one code span, whole.
    let code: Vec<String> = Parser::new_ext(&reports["workload markdown"], Options::all())
        .filter_map(|e| match e {
            Event::Code(c) => Some(c.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        code.iter()
            .any(|c| c == "find {f`\\r\\u{202e}<script>alert(1)</script>: eq}"),
        "{code:?}"
    );
}

#[test]
fn sarif_uris_are_uri_references() {
    let dir = TempDir::new("names-sarif");
    inputs(dir.path());
    let reports = reports(dir.path());
    for what in ["scan sarif", "workload sarif"] {
        let sarif: serde_json::Value = serde_json::from_str(&reports[what]).expect(what);
        let mut uris = Vec::new();
        collect_uris(&sarif, &mut uris);
        assert!(!uris.is_empty(), "{what}: no artifactLocation");
        for uri in &uris {
            // RFC 3986: unreserved, the delimiters of a path, or `%XX`.
            let bytes = uri.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'%' {
                    assert!(
                        bytes.len() > i + 2
                            && bytes[i + 1].is_ascii_hexdigit()
                            && bytes[i + 2].is_ascii_hexdigit(),
                        "{what}: {uri}"
                    );
                    i += 3;
                } else {
                    assert!(
                        bytes[i].is_ascii_alphanumeric() || b"-._~/".contains(&bytes[i]),
                        "{what}: {uri}"
                    );
                    i += 1;
                }
            }
        }
    }
    assert!(reports["workload sarif"].contains("\"my%20log%20%231%3F.log\""));
}

fn collect_uris(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                if k == "artifactLocation" {
                    out.extend(v["uri"].as_str().map(str::to_string));
                }
                collect_uris(v, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| collect_uris(v, out)),
        _ => {}
    }
}

/// Issue 40, item 3: `order items`, `order-items` and `order_items` had
/// one HTML id (and one Mermaid box in the Markdown report).
#[test]
fn names_that_differ_by_punctuation_keep_ids_and_boxes_of_their_own() {
    let dir = TempDir::new("names-ids");
    inputs(dir.path());
    let reports = reports(dir.path());
    for what in ["advise html", "scan html", "workload html"] {
        let html = &reports[what];
        let mut seen = std::collections::BTreeSet::new();
        for id in html
            .split(" id=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
        {
            assert!(seen.insert(id), "{what}: id {id:?} twice");
        }
        for href in html
            .split("href=\"#")
            .skip(1)
            .filter_map(|s| s.split('"').next())
        {
            assert!(seen.contains(href), "{what}: a link to #{href}, no such id");
        }
        assert!(
            !html.contains("<script") && !html.contains("<img"),
            "{what}"
        );
    }
    let markdown = &reports["advise markdown"];
    let diagram = markdown
        .split("```mermaid\n")
        .nth(1)
        .and_then(|d| d.split("```").next())
        .expect("a diagram");
    let boxes: Vec<&str> = diagram
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(" {"))
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = boxes.iter().collect();
    let design: serde_json::Value = serde_json::from_str(&reports["advise json"]).unwrap();
    let collections = design["collections"].as_array().map_or(0, Vec::len);
    assert!(collections >= 4, "{design}");
    assert_eq!(boxes.len(), collections, "{diagram}");
    assert_eq!(distinct.len(), boxes.len(), "{diagram}");
    assert!(
        markdown.contains("drawn under names of their own"),
        "{markdown}"
    );
}

/// `check`'s summary names every entity, relationship and mix.
#[test]
fn command_summaries_show_names_and_obey_none() {
    let dir = TempDir::new("names-check");
    inputs(dir.path());
    let run = Test::new()
        .current_dir(dir.path())
        .args(["check", "hostile.yaml"])
        .stdout(
            r#"hostile.yaml: model `model<script>alert(1)</script>\u{1b}]0;pwned\u{7}` is valid

entities (5):
  <img src=x onerror=alert(1)>      1,000,000 documents  3 fields
  add\rress\u{202e}evil             2,000,000 documents  1 field
  order items                              10 documents  1 field
  order_items                              10 documents  1 field
  order-items                              10 documents  1 field

relationships (1):
  rel\nINJECTED line  <img src=x onerror=alert(1)> -> add\rress\u{202e}evil  one-to-few  children 0/2/5  parents 1/1/1

operations (2) in 1 mix:
  mix`<b>\u{1b}[2J  2 operations  reads 201/s  writes 0/s
"#,
        )
        .check();
    assert_inert_for_a_terminal("check", &run.stdout);
}

/// Issue 40, item 2: names from a scanned file (its name, a line feed,
/// a quote and U+2028 in it, which becomes the model's name; field names
/// with line feeds and quotes) go through `scan --emit-model` into a model,
/// and from it through `generate` into scripts: each still parses, no name
/// ending a comment or a string. Without node the test passes with a
/// NOTICE, and fails under CI=true.
#[test]
fn scanned_names_end_no_comment_in_the_generated_scripts() {
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "node is missing and CI=true: run the tests through scripts/test"
        );
        eprintln!("NOTICE: skipping: node is missing (scripts/test installs it)");
        return;
    }
    let dir = TempDir::new("scanned-names-scripts");
    let data = dir.path().join("x\n'y\u{2028}z.json");
    std::fs::write(&data, DOCUMENTS).unwrap();
    let model = dir.path().join("model.yaml");
    Test::new()
        .args(["scan"])
        .args([&data])
        .args(["--emit-model"])
        .args([&model])
        .path_as(dir.path(), "DIR")
        .stdout(SCANNED_NAMES)
        .check();
    assert!(model.exists(), "no model emitted");
    let out = dir.path().join("out");
    Test::new()
        .args(["generate"])
        .args([&model])
        .args(["--out"])
        .args([&out])
        .path_as(dir.path(), "DIR")
        .stdout(GENERATED_FOR_SCANNED_NAMES)
        .check();
    let setup = std::fs::read_to_string(out.join("setup.js")).unwrap();
    assert!(setup.contains("model `x\\n'y\\u{2028}z`"), "{setup}");
    for file in [
        "setup.js",
        "validators.js",
        "indexes.js",
        "cookbook.mongosh.js",
        "cookbook.js",
    ] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let check = dir.path().join(format!("{file}.check.js"));
        std::fs::write(&check, format!("if (globalThis.__never) {{\n{text}\n}}\n")).unwrap();
        let node = std::process::Command::new("node")
            .arg("--check")
            .arg(&check)
            .output()
            .unwrap();
        assert!(
            node.status.success(),
            "{file}:\n{}\n{text}",
            String::from_utf8_lossy(&node.stderr)
        );
    }
}

/// Issue 40: `generate data`'s summary, one line per collection, shows the
/// names escaped (a line feed, U+2029), as the reports do.
#[test]
fn generate_data_shows_collection_names_and_obeys_none() {
    let dir = TempDir::new("names-generate-data");
    let model = crate::support::repo_root().join("crates/squill/tests/fixtures/hostile-names.yaml");
    let run = Test::new()
        .args(["generate", "data"])
        .args([model])
        .args(["--scale", "1", "--max-children", "1", "--out"])
        .args([dir.path().join("out")])
        .path_as(dir.path(), "DIR")
        // The time, the rates and the free space change from run to run.
        .stdout_matching(
            r#"squill generate data: model `hostile\nnames // x`, mix `default`, scale 1, seed 1 → DIR/out
  /abs/per'son                        1 documents             188 bytes EJSON             172 bytes BSON
  100%\u{2029}pro"duct                1 documents             215 bytes EJSON             146 bytes BSON
  re\nview                            1 documents             368 bytes EJSON             290 bytes BSON
  3 documents, 1,379 bytes in [..] s ([..] documents/s, [..] MB/s)
"#,
        )
        .stderr_matching(
            "squill generate: about 3 documents, 1.3 KiB to write into DIR/out, [..] free\n",
        )
        .check();
    assert_inert_for_a_terminal("generate data", &run.stdout);
}

/// `scan`'s report of the file of hostile names: each name escaped.
const SCANNED_NAMES: &str = r#"squill scan (profile seeds): 1 databases, 1 collections, 2 documents, 183 bytes

x\n'y\u{2028}z: 2 documents, 183 bytes (DIR/x\n'y\u{2028}z.json)
  size: min 36 mean 91.5 p50 36 p95 147 max 147 bytes
  depth max 1; 6 field paths, 6 distinct names; names 62.3 % of the bytes
  indexes: unknown (no metadata)
    _id                         100 %  int
    na\u{1b}]0;pwned\u{7}me     100 %  string
    <script>alert(1)</script>    50 %  int
    b`ack\rtick\u{202e}evil      50 %  array; length p50 2 p95 2 max 2 of int
    line\nINJECTED               50 %  int
    [l](javascript:x)            50 %  int

findings: 1
  info[field-name-overhead] x\n'y\u{2028}z: field names are 62 % of the document bytes (limit 50 %)
    example _id: {"$numberInt":"1"}
    evidence: field_name_share=0.623; field_name_bytes=114; document_bytes=183; distinct_field_names=6; longest_names=["<script>alert(1)</script>","[l](javascript:x)","b`ack\rtick\u{202e}evil"]; limit=0.5; limit_source=squill default: field names over half of the document bytes
    help: Shorten the longest, most repeated field names, or turn many sparse fields into an array of {k, v} pairs (attribute pattern). Under WiredTiger block compression recovers much of the repetition on disk, but not in the cache, the indexes' documents in memory, or on the wire; the old MMAPv1 advice to abbreviate every name no longer holds to that degree.

notes
  - Case-insensitive queries without a case-insensitive index and $lookup-heavy reads are anti-patterns of the workload, not of the data: they need the queries (mongod logs), which scan does not read.
  - Quantiles are sketched within 1/64 (about 1.6 %) of the true value; counts, minimums and maximums are exact.
"#;

/// `generate`'s index for the model scanned from that file.
const GENERATED_FOR_SCANNED_NAMES: &str = r#"squill generate: model `x\n'y\u{2028}z`, mix `default`: 10 files in DIR/out
  validators.json        the `$jsonSchema` validator of each collection
  validators.js          mongosh: `createCollection` with the validator, or `collMod` when the collection exists
  indexes.js             mongosh: `createIndexes` for the design's indexes, each with the operations that use it
  setup.js               mongosh: collections, validators and indexes in one script, safe to run twice
  examples.json          an example document per collection at typical and at maximum cardinality (Extended JSON)
  cookbook.md            every operation explained, in mongosh, Python and Node.js
  cookbook.mongosh.js    the cookbook as mongosh functions
  cookbook.py            the cookbook as a Python (pymongo) module
  cookbook.js            the cookbook as a Node.js (official driver) module
  README.md              this index
"#;
