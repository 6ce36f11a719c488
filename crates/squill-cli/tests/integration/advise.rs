//! Integration tests of `squill advise`: the example models through every
//! format, and every way the command can fail (exit 2) or flag (exit 1).

use crate::support::{TempDir, Test, repo_root};

fn example(name: &str) -> String {
    repo_root()
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

fn advise(args: &[&str]) -> String {
    let mut all = vec!["advise".to_string()];
    all.extend(args.iter().map(|a| (*a).to_string()));
    Test::new().args(all).run().success().stdout
}

#[test]
fn person_addresses_text() {
    insta::assert_snapshot!(advise(&[&example("person-addresses.yaml")]));
}

#[test]
fn person_addresses_json() {
    let text = advise(&[&example("person-addresses.yaml"), "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(value["schema_version"], 2);
    insta::assert_snapshot!(text);
}

#[test]
fn product_parts_markdown() {
    insta::assert_snapshot!(advise(&[
        &example("product-parts.yaml"),
        "--format",
        "markdown"
    ]));
}

#[test]
fn rubis_browsing_text() {
    insta::assert_snapshot!(advise(&[&example("rubis.yaml"), "--mix", "browsing"]));
}

#[test]
fn rubis_write_heavy_text() {
    insta::assert_snapshot!(advise(&[&example("rubis.yaml"), "--mix", "write_heavy"]));
}

#[test]
fn the_mix_changes_the_report() {
    let browsing = advise(&[
        &example("rubis.yaml"),
        "--mix",
        "browsing",
        "--format",
        "json",
    ]);
    let writes = advise(&[
        &example("rubis.yaml"),
        "--mix",
        "write_heavy",
        "--format",
        "json",
    ]);
    let b: serde_json::Value = serde_json::from_str(&browsing).unwrap();
    let w: serde_json::Value = serde_json::from_str(&writes).unwrap();
    assert_eq!(b["mix"], "browsing");
    assert_eq!(w["mix"], "write_heavy");
    // What the mix changes, as structure: each relationship's layout and the
    // collections (docs/rubis.md explains the differences).
    let summary = |d: &serde_json::Value| {
        let mut out: Vec<String> = d["relationships"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{}: {}",
                    r["relationship"].as_str().unwrap(),
                    r["chosen"]["layout"].as_str().unwrap()
                )
            })
            .collect();
        out.push(format!(
            "collections: {}",
            d["collections"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        out.join("\n")
    };
    insta::assert_snapshot!(format!(
        "browsing\n{}\n\nwrite_heavy\n{}",
        summary(&b),
        summary(&w)
    ));
}

#[test]
fn every_format_reports_the_same_decisions() {
    let model = example("product-parts.yaml");
    let json: serde_json::Value =
        serde_json::from_str(&advise(&[&model, "--format", "json"])).unwrap();
    let text = advise(&[&model]);
    let markdown = advise(&[&model, "--format", "markdown"]);
    for decision in json["relationships"].as_array().unwrap() {
        let name = decision["relationship"].as_str().unwrap();
        assert!(text.contains(name), "text lacks {name}");
        assert!(markdown.contains(name), "markdown lacks {name}");
    }
    for collection in json["collections"].as_array().unwrap() {
        let name = collection["name"].as_str().unwrap();
        assert!(text.contains(name) && markdown.contains(name), "{name}");
    }
}

#[test]
fn reads_the_model_from_stdin() {
    let text = std::fs::read_to_string(example("person-addresses.yaml")).unwrap();
    let from_stdin = Test::new()
        .args(["advise", "-", "--format", "json"])
        .stdin(text)
        .run()
        .success()
        .stdout;
    let from_file = advise(&[&example("person-addresses.yaml"), "--format", "json"]);
    let a: serde_json::Value = serde_json::from_str(&from_stdin).unwrap();
    let b: serde_json::Value = serde_json::from_str(&from_file).unwrap();
    assert_eq!(a["collections"], b["collections"]);
}

#[test]
fn output_writes_the_report_to_a_file_without_color() {
    let dir = TempDir::new("advise-output");
    let out = dir.path().join("design.md");
    let run = Test::new()
        .args(["--color", "always", "advise"])
        .args([example("person-addresses.yaml").as_str(), "--output"])
        .args([&out])
        .run()
        .success();
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("Design for"), "{written}");
    assert!(!written.contains('\x1b'));
}

#[test]
fn color_always_colors_the_terminal_report() {
    let run = Test::new()
        .args([
            "--color",
            "always",
            "advise",
            &example("person-addresses.yaml"),
        ])
        .run()
        .success();
    assert!(run.stdout.contains("\x1b["), "{}", run.stdout);
}

#[test]
fn fail_on_exits_1_only_for_findings_at_or_above_the_level() {
    for model in [
        "person-addresses.yaml",
        "product-parts.yaml",
        "host-logs.yaml",
    ] {
        let model = example(model);
        let json: serde_json::Value =
            serde_json::from_str(&advise(&[&model, "--format", "json"])).unwrap();
        let severities: Vec<&str> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["severity"].as_str().unwrap())
            .collect();
        for (level, rank) in [("info", 0), ("warning", 1), ("error", 2)] {
            let expected = i32::from(severities.iter().any(|s| {
                let r = match *s {
                    "info" => 0,
                    "warning" => 1,
                    _ => 2,
                };
                r >= rank
            }));
            Test::new()
                .args(["advise", &model, "--fail-on", level])
                .run()
                .code(expected);
        }
    }
}

#[test]
fn unknown_mix_exits_2_with_a_suggestion() {
    let run = Test::new()
        .args(["advise", &example("rubis.yaml"), "--mix", "browsin"])
        .run()
        .code(2);
    assert!(run.stderr.contains("browsin"), "{}", run.stderr);
    assert!(run.stderr.contains("browsing"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn missing_model_file_exits_2_naming_it() {
    let run = Test::new()
        .args(["advise", "no/such/model.yaml"])
        .run()
        .code(2);
    assert!(run.stderr.contains("no/such/model.yaml"), "{}", run.stderr);
}

#[test]
fn bad_model_exits_2_with_line_and_column() {
    let run = Test::new()
        .args(["advise", "-"])
        .stdin("entities:\n  person:\n    count: 10\n    fields:\n      name: strng\n")
        .run()
        .code(2);
    assert!(run.stderr.contains("<stdin>:5:13"), "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `string`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn bad_fail_on_level_exits_2() {
    let run = Test::new()
        .args([
            "advise",
            &example("person-addresses.yaml"),
            "--fail-on",
            "fatal",
        ])
        .run()
        .code(2);
    assert!(run.stderr.contains("fatal"), "{}", run.stderr);
}

#[test]
fn unwritable_output_exits_2() {
    let run = Test::new()
        .args([
            "advise",
            &example("person-addresses.yaml"),
            "--output",
            "/no/such/dir/x.txt",
        ])
        .run()
        .code(2);
    assert!(run.stderr.contains("/no/such/dir/x.txt"), "{}", run.stderr);
}

/// The `toml` blocks of docs/configuration.md, in order.
fn configuration_doc_blocks() -> Vec<String> {
    let doc = std::fs::read_to_string(repo_root().join("docs/configuration.md")).unwrap();
    doc.split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default().to_string())
        .collect()
}

/// The complete example of docs/configuration.md sets every key to its
/// default: squill accepts it (unknown keys are errors) and advises exactly as
/// with no file at all. The other examples parse too.
#[test]
fn configuration_doc_examples_parse_and_the_complete_one_is_the_defaults() {
    let blocks = configuration_doc_blocks();
    assert!(blocks.len() >= 3, "{blocks:?}");
    let dir = TempDir::new("config-doc");
    let model = example("rubis.yaml");
    let plain = advise(&[&model, "--mix", "browsing", "--format", "json"]);
    let mut complete = None;
    for (i, block) in blocks.iter().enumerate() {
        let path = dir.path().join(format!("squill-{i}.toml"));
        std::fs::write(&path, block).unwrap();
        let run = Test::new()
            .args(["--config"])
            .args([&path])
            .args(["advise", &model, "--mix", "browsing", "--format", "json"])
            .run();
        assert_eq!(
            run.code, 0,
            "block {i} of docs/configuration.md:\n{block}\n{}",
            run.stderr
        );
        if block.contains("[scan.relationships]") {
            complete = Some(run.stdout);
        }
    }
    assert_eq!(complete.expect("the complete example"), plain);
}

/// The README shows real output: every line of its one-minute example (except
/// the `…` that mark cuts) must come out of the command it names.
#[test]
fn readme_example_output_is_real() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let after = readme
        .split("What it prints")
        .nth(1)
        .expect("README has the example output");
    let block = after
        .split("```")
        .nth(1)
        .expect("README example output is fenced");
    let run = Test::new()
        .args(["advise", "examples/person-addresses.yaml"])
        .current_dir(repo_root())
        .run()
        .success();
    let lines: Vec<&str> = block
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "…")
        .collect();
    assert!(lines.len() > 10, "README example too short");
    for line in lines {
        assert!(
            run.stdout.lines().any(|l| l == line),
            "README line not in the output: {line}"
        );
    }
}

/// product-reviews as a normalized deployment would have it today (each
/// review keeps its product's id): the report prices that beside the
/// recommendation, in every format (advise::tests::today covers a design of
/// today that is the recommendation).
#[test]
fn the_design_of_today_is_priced_beside_the_recommendation() {
    let text = std::fs::read_to_string(example("product-reviews.yaml")).unwrap();
    let today = format!("{text}\ncurrent:\n  reviews: parent-reference\n");
    let run = |format: &str, model: &str| {
        Test::new()
            .args(["advise", "-", "--format", format])
            .stdin(model.to_string())
            .run()
            .success()
            .stdout
    };
    let report = run("text", &today);
    let at = report
        .find("Today against recommended")
        .expect("a section on the design of today");
    let section: String = report[at..]
        .lines()
        .take_while(|l| !l.starts_with("Collections"))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(section);
    assert!(run("markdown", &today).contains("## Today against recommended"));
    let json: serde_json::Value = serde_json::from_str(&run("json", &today)).unwrap();
    let c = &json["current"];
    assert_eq!(c["already_best"], false);
    assert_eq!(
        c["relationships"][0]["current"]["layout"],
        "parent-reference"
    );
    assert_ne!(
        c["relationships"][0]["recommended"]["layout"],
        "parent-reference"
    );
    assert!(c["relationships"][0]["gain"]["score"].as_f64().unwrap() > 0.0);
    // Without `current:`, no comparison.
    let plain: serde_json::Value = serde_json::from_str(&run("json", &text)).unwrap();
    assert!(plain["current"].is_null());
}
