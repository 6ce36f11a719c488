//! Integration tests of the model file through `squill check` and `squill
//! advise`: every example is accepted, and each kind of bad
//! input exits 2 with `file:line:column`, the offending snippet and, where it
//! helps, the closest valid name.

use crate::support::{TempDir, Test, repo_root};
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    repo_root().join("crates/squill-cli/tests/fixtures/models")
}

/// Runs `squill check NAME` and `squill advise NAME` inside the fixtures
/// directory, so messages carry the short name; expects exit 2, nothing on
/// stdout, and the same message from both. (advise once ran only "when it
/// was built", which let a broken advise switch off half of these checks
/// without a failure: issue 44.)
fn check_fails(name: &str) -> String {
    let run = Test::new()
        .args(["check", name])
        .current_dir(fixtures())
        .status(2)
        .stderr_any()
        .check();
    let advise = Test::new()
        .args(["advise", name])
        .current_dir(fixtures())
        .status(2)
        .stderr_any()
        .check();
    assert_eq!(
        advise.stderr, run.stderr,
        "advise and check report {name} alike"
    );
    run.stderr
}

#[track_caller]
fn assert_has(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
}

#[test]
fn check_accepts_every_example() {
    let dir = repo_root().join("examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.extension().is_some_and(|e| e == "yaml" || e == "json") {
            continue;
        }
        let run = Test::new()
            .args(["check"])
            .args([&path])
            .stdout_any()
            .check();
        assert!(run.stdout.contains("is valid"), "{}", run.stdout);
        seen += 1;
    }
    assert!(seen >= 21, "only {seen} examples");
}

#[test]
fn check_summarizes_a_model() {
    let run = Test::new()
        .args(["check", "examples/rubis.yaml"])
        .current_dir(repo_root())
        .stdout_any()
        .check();
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn unknown_key() {
    let err = check_fails("unknown-key.yaml");
    assert_has(
        &err,
        &[
            "unknown-key.yaml:4:5: unknown key `feilds`",
            "4 │     feilds:",
            "did you mean `fields`?",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn undefined_entity() {
    let err = check_fails("undefined-entity.yaml");
    assert_has(
        &err,
        &[
            "undefined-entity.yaml:13:12: child `prat` is not an entity of this model",
            "13 │     child: prat",
            "did you mean `part`?",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn min_greater_than_max() {
    let err = check_fails("min-greater-than-max.yaml");
    assert_has(
        &err,
        &[
            "min-greater-than-max.yaml:8:41: `children`: min 8 is greater than max 5",
            "children: {min: 8, typical: 8, max: 5}",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn negative_rate() {
    let err = check_fails("negative-rate.yaml");
    assert_has(
        &err,
        &[
            "negative-rate.yaml:6:11: a rate must not be negative, found -5",
            "6 │     rate: -5",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn unknown_filter_field_with_suggestion() {
    let err = check_fails("unknown-filter-field.yaml");
    assert_has(
        &err,
        &[
            "unknown-filter-field.yaml:11:14: `tme`: entity `logmsg` has no field or relationship `tme`",
            "11 │     filter: {tme: range}",
            "did you mean `time`?",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn malformed_yaml() {
    let err = check_fails("malformed.yaml");
    assert_has(
        &err,
        &["malformed.yaml:5:10: ", "4 │     fields: {name: string(20)"],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn malformed_json() {
    let err = check_fails("malformed.json");
    assert_has(
        &err,
        &[
            "malformed.json:5:39: invalid JSON: ",
            "5 │       \"fields\": {\"name\": \"string(20)\",}",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn truncated_file() {
    let err = check_fails("truncated.yaml");
    assert_has(
        &err,
        &["truncated.yaml:10:15: ", "10 │     children: {min: 0, typ"],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn empty_file() {
    let err = check_fails("empty.yaml");
    assert_has(&err, &["empty.yaml:1:1: the model file is empty"]);
    insta::assert_snapshot!(err);
}

#[test]
fn missing_file() {
    let err = check_fails("no-such-model.yaml");
    assert_has(
        &err,
        &["no-such-model.yaml: cannot read the model file: no such file"],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn binary_garbage() {
    let err = check_fails("binary.yaml");
    assert_has(
        &err,
        &["binary.yaml:1:8: the model file is not UTF-8 text (invalid byte 0xff at byte offset 7)"],
    );
    // Valid UTF-8 with control characters is not taken for YAML either.
    let dir = TempDir::new("model-nul");
    let path = dir.path().join("nul.yaml");
    std::fs::write(&path, "entities:\n  a:\u{0}\u{1}\n").unwrap();
    let run = Test::new()
        .args(["check"])
        .args([&path])
        .status(2)
        .stderr_any()
        .check();
    assert_has(
        &run.stderr,
        &["nul.yaml:2:5: the model file holds a control character (U+0000)"],
    );
    insta::assert_snapshot!(err);
    let dir_name = dir.path().display().to_string();
    insta::assert_snapshot!("binary_garbage_nul", run.stderr.replace(&dir_name, "DIR"));
}

#[test]
fn every_problem_is_reported_at_once() {
    let err = check_fails("several-problems.yaml");
    assert_has(
        &err,
        &[
            "several-problems.yaml:3:38: unknown field type `strng` (and 4 more problems)",
            "did you mean `string`?",
            "several-problems.yaml:6:35: child `coment` is not an entity of this model",
            "did you mean `comment`?",
            "several-problems.yaml:8:37: weight for undeclared mix `browsng`",
            "did you mean `browsing`?",
            "several-problems.yaml:8:60: `titel`",
            "several-problems.yaml:10:14: atomic group `together` names unknown operation `read_pots`",
            "did you mean `read_post`?",
        ],
    );
    insta::assert_snapshot!(err);
}

#[test]
fn json_model_problems_have_positions_too() {
    let err = check_fails("unknown-field.json");
    assert_has(
        &err,
        &[
            "unknown-field.json:6:56: `titel`: entity `book` has no field or relationship `titel`",
            "did you mean `title`?",
        ],
    );
    insta::assert_snapshot!(err);
}
