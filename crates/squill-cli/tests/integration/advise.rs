//! Integration tests of `squill advise`: the example models through every
//! format, and every way the command can fail (exit 2) or flag (exit 1).
//! Each states its exit status, stdout and stderr (`Test::check`); a report
//! checked by a snapshot or parsed is released with `stdout_any`.

use crate::support::{TempDir, Test, repo_root};

fn example(name: &str) -> String {
    repo_root()
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

/// The report `squill advise ARGS` prints, the search's time in it (the
/// one figure that changes from run to run) as `[time]`.
fn advise(args: &[&str]) -> String {
    let mut all = vec!["advise".to_string()];
    all.extend(args.iter().map(|a| (*a).to_string()));
    redact_time(&Test::new().args(all).stdout_any().check().stdout)
}

/// `report` with the time of its closing "The search took …" sentence
/// replaced by `[time]`; a report without one as it is (JSON, SARIF).
fn redact_time(report: &str) -> String {
    const SAID: &str = "The search took ";
    let Some(at) = report.find(SAID).map(|i| i + SAID.len()) else {
        return report.to_string();
    };
    let end = at + report[at..].find(", priced ").expect("the plans priced");
    format!("{}[time]{}", &report[..at], &report[end..])
}

/// The human reports close with how the search ran (issue 45): two runs
/// differ in the time alone; the JSON of two runs is the same to the
/// byte, and says nothing of the time.
#[test]
fn the_human_reports_state_the_search_and_the_json_stays_the_same() {
    let model = example("rubis.yaml");
    let run = |format: &str| {
        Test::new()
            .args(["advise", &model, "--format", format])
            .stdout_any()
            .check()
            .stdout
    };
    let json = run("json");
    assert_eq!(json, run("json"));
    assert!(!json.contains("search took"));
    for format in ["text", "markdown", "html"] {
        let (a, b) = (run(format), run(format));
        assert_eq!(redact_time(&a), redact_time(&b), "{format}");
        let said = redact_time(&a);
        let line = said
            .lines()
            .find(|l| l.contains("The search took"))
            .unwrap_or_else(|| panic!("{format}: no search sentence"));
        assert!(
            line.contains("The search took [time], priced ")
                && line.contains(" operation plans and ended within its budget."),
            "{format}: {line}"
        );
    }
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
        .stdout_any()
        .check()
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
    Test::new()
        .args(["--color", "always", "advise"])
        .args([example("person-addresses.yaml").as_str(), "--output"])
        .args([&out])
        .check();
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
        .stdout_any()
        .check();
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
                .stdout_any()
                .status(expected)
                .check();
        }
    }
}

#[test]
fn unknown_mix_exits_2_with_a_suggestion() {
    Test::new()
        .args(["advise", &example("rubis.yaml"), "--mix", "browsin"])
        .status(2)
        .stderr(
            "squill::advise::unknown_mix

  × model `rubis` has no workload mix `browsin`; did you mean `browsing`?
  help: the model's mixes are: browsing, bidding, write_medium, write_heavy
",
        )
        .check();
}

#[test]
fn missing_model_file_exits_2_naming_it() {
    Test::new()
        .args(["advise", "no/such/model.yaml"])
        .status(2)
        .stderr(
            "squill::model_file

  × no/such/model.yaml: cannot read the model file: no such file
",
        )
        .check();
}

#[test]
fn bad_model_exits_2_with_line_and_column() {
    Test::new()
        .args(["advise", "-"])
        .stdin("entities:\n  person:\n    count: 10\n    fields:\n      name: strng\n")
        .status(2)
        .stderr(
            "squill::model_file

  × <stdin>:5:13: unknown field type `strng`
   ╭─[<stdin>:5:13]
 4 │     fields:
 5 │       name: strng
   ·             ──┬──
   ·               ╰── not a field type
   ╰────
  help: did you mean `string`?
",
        )
        .check();
}

#[test]
fn bad_fail_on_level_exits_2() {
    Test::new()
        .args([
            "advise",
            &example("person-addresses.yaml"),
            "--fail-on",
            "fatal",
        ])
        .status(2)
        .stderr(
            "error: invalid value 'fatal' for '--fail-on <SEVERITY>'
  [possible values: info, warning, error, never]

For more information, try '--help'.
",
        )
        .check();
}

#[test]
fn unwritable_output_exits_2() {
    Test::new()
        .args([
            "advise",
            &example("person-addresses.yaml"),
            "--output",
            "/no/such/dir/x.txt",
        ])
        .status(2)
        .stderr(
            "error: cannot write /no/such/dir/x.txt: the directory /no/such/dir does not exist\n",
        )
        .check();
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
        eprintln!("block {i} of docs/configuration.md:\n{block}");
        let run = Test::new()
            .args(["--config"])
            .args([&path])
            .args(["advise", &model, "--mix", "browsing", "--format", "json"])
            .stdout_any()
            .check();
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
        .stdout_any()
        .check();
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
            .stdout_any()
            .check()
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

/// host-logs with its unbounded relationship pinned to an array of ids:
/// the design carries an `error` finding (and `info` ones).
fn pinned_to_child_references() -> String {
    std::fs::read_to_string(example("host-logs.yaml"))
        .unwrap()
        .replace(
            "    standalone: true\n",
            "    standalone: true\n    layout: child-references\n",
        )
}

/// Issue 44: `--fail-on` takes the same words on every command, with the
/// same default (`warning`); the words `advise` and `workload` took before
/// (`warn`, `none`) still work.
#[test]
fn fail_on_defaults_to_warning_and_takes_the_old_words() {
    let model = pinned_to_child_references();
    for (words, status) in [
        (&[][..], 1),
        (&["--fail-on", "warning"][..], 1),
        (&["--fail-on", "warn"][..], 1),
        (&["--fail-on", "error"][..], 1),
        (&["--fail-on", "never"][..], 0),
        (&["--fail-on", "none"][..], 0),
    ] {
        Test::new()
            .args(["advise", "-"])
            .args(words)
            .stdin(model.clone())
            .stdout_any()
            .status(status)
            .check();
    }
    // The info findings every design carries never fail by default.
    Test::new()
        .args(["advise", &example("host-logs.yaml")])
        .stdout_any()
        .check();
}

/// Issue 44: errors follow `--color` as the reports do (the builder sets
/// NO_COLOR, which `always` overrides), both miette's and the plain ones.
#[test]
fn errors_follow_color() {
    Test::new()
        .args(["--color", "always", "advise", "no/such/model.yaml"])
        .status(2)
        .stderr(
            "\x1b[31msquill::model_file\x1b[0m

  \x1b[31m×\x1b[0m no/such/model.yaml: cannot read the model file: no such file
",
        )
        .check();
    Test::new()
        .args(["--color", "always", "advise", &example("person-addresses.yaml")])
        .args(["--output", "/no/such/dir/x.txt"])
        .status(2)
        .stderr("\x1b[1;31merror\x1b[0m: cannot write /no/such/dir/x.txt: the directory /no/such/dir does not exist\n")
        .check();
    // The inputs scan and workload could not read, said after their report.
    Test::new()
        .args(["--color", "always", "workload", "no-such.log"])
        .status(2)
        .stdout_any()
        .stderr("\x1b[1;31merror\x1b[0m: cannot open no-such.log: No such file or directory (os error 2)\n")
        .check();
    Test::new()
        .args(["--color", "always", "scan", "no-such.bson"])
        .status(2)
        .stdout_any()
        .stderr("\x1b[1;31merror\x1b[0m: 1 input error(s); the rest was scanned (see the report)\n")
        .check();
    // clap's own errors too.
    Test::new()
        .args(["--color=always", "advise", "x.yaml", "--fail-on", "fatal"])
        .status(2)
        .stderr(
            "\x1b[1m\x1b[31merror:\x1b[0m invalid value '\x1b[33mfatal\x1b[0m' for '\x1b[1m--fail-on <SEVERITY>\x1b[0m'
  [possible values: \x1b[32minfo\x1b[0m, \x1b[32mwarning\x1b[0m, \x1b[32merror\x1b[0m, \x1b[32mnever\x1b[0m]

For more information, try '\x1b[1m--help\x1b[0m'.
",
        )
        .check();
    Test::new()
        .args(["--color", "never", "advise", "no/such/model.yaml"])
        .env("NO_COLOR", "")
        .status(2)
        .stderr("squill::model_file\n\n  × no/such/model.yaml: cannot read the model file: no such file\n")
        .check();
}

/// Issue 44: `advise --format sarif`, valid SARIF 2.1.0, each finding at the
/// line and column of what it is about in the model file (the model's path
/// percent-encoded as a URI reference), its rule among the design rules.
#[test]
fn sarif_points_findings_at_the_model_file() {
    let dir = TempDir::new("advise-sarif");
    let model = dir.path().join("host logs#1.yaml");
    std::fs::write(&model, pinned_to_child_references()).unwrap();
    let run = Test::new()
        .args(["advise", "host logs#1.yaml", "--format", "sarif"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let results: Vec<String> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], r["ruleId"]);
            let p = &r["locations"][0]["physicalLocation"];
            format!(
                "{} {} {} {}:{}",
                r["level"].as_str().unwrap(),
                r["ruleId"].as_str().unwrap(),
                p["artifactLocation"]["uri"].as_str().unwrap(),
                p["region"]["startLine"],
                p["region"]["startColumn"],
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            "error unbounded-array host%20logs%231.yaml 21:3",
            "note custom-id host%20logs%231.yaml 14:7",
            "note design-for-workload host%20logs%231.yaml 21:3",
        ]
    );
    if let Some(validator) = crate::support::sarif_validator() {
        let errors = crate::support::sarif_errors(&validator, &v);
        assert!(errors.is_empty(), "{errors:#?}");
        let mut bad = v.clone();
        bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
            0.into();
        assert!(!validator.is_valid(&bad), "the schema checks the region");
    }
}

/// From standard input there is no file to point at: the findings keep
/// their logical location only, and the SARIF stays valid.
#[test]
fn sarif_from_standard_input_has_logical_locations_only() {
    let model = std::fs::read_to_string(example("host-logs.yaml")).unwrap();
    let run = Test::new()
        .args(["advise", "-", "--format", "sarif"])
        .stdin(model)
        .stdout_any()
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let at = &v["runs"][0]["results"][0]["locations"][0];
    assert!(at["physicalLocation"].is_null(), "{at}");
    assert_eq!(
        at["logicalLocations"][0]["fullyQualifiedName"],
        "entities.host.fields.ipaddr"
    );
    if let Some(validator) = crate::support::sarif_validator() {
        let errors = crate::support::sarif_errors(&validator, &v);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// `--horizon` projects the design (issue 42): C1's first limit is the
/// working set, and the 16 MiB document comes later (the library's golden
/// test checks the months; this checks the command gets there).
#[test]
fn horizon_projects_c1_in_json() {
    let text = advise(&[
        &example("scenarios/c01-chat-capacity.yaml"),
        "--fail-on",
        "never",
        "--format",
        "json",
        "--horizon",
        "3y",
    ]);
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let capacity = &value["capacity"];
    assert_eq!(capacity["horizon_months"], 36);
    assert_eq!(capacity["months"].as_array().map(Vec::len), Some(37));
    assert_eq!(capacity["limits"][0]["limit"], "working-set");
    let document = capacity["limits"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["limit"] == "document-size"))
        .expect("the 16 MiB limit");
    assert_eq!(document["field"], "members");
    assert!(document["month"].as_u64() > capacity["limits"][0]["month"].as_u64());
}

/// The command line's RAM comes over the model's: 128 GiB is a cache of
/// 63.5 GiB.
#[test]
fn ram_on_the_command_line_comes_over_the_model() {
    let text = advise(&[
        &example("scenarios/c01-chat-capacity.yaml"),
        "--fail-on",
        "never",
        "--format",
        "json",
        "--horizon",
        "1m",
        "--ram",
        "128GiB",
    ]);
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let d = &value["capacity"]["deployment"];
    assert_eq!(d["ram_bytes"], 128u64 << 30);
    assert_eq!(d["cache_bytes"], 127u64 << 29);
    assert_eq!(d["disk_bytes"], 4u64 << 40);
}

/// The text report's capacity section, for twelve months.
#[test]
fn horizon_c1_markdown() {
    let text = advise(&[
        &example("scenarios/c01-chat-capacity.yaml"),
        "--fail-on",
        "never",
        "--format",
        "markdown",
        "--horizon",
        "12m",
    ]);
    let section = text
        .split("## Capacity")
        .nth(1)
        .and_then(|s| s.split("## Findings").next())
        .expect("a capacity section");
    insta::assert_snapshot!(section);
}

#[test]
fn a_horizon_is_months_years_or_days() {
    Test::new()
        .args([
            "advise",
            &example("scenarios/c01-chat-capacity.yaml"),
            "--horizon",
            "36w",
        ])
        .status(2)
        .stderr(
            "error: invalid value '36w' for '--horizon <TIME>': `36w` is not a horizon: months, years or days, `36m`, `3y`, `90d` (at most 600 months)

For more information, try '--help'.
",
        )
        .check();
}

#[test]
fn ram_needs_a_horizon() {
    Test::new()
        .args([
            "advise",
            &example("scenarios/c01-chat-capacity.yaml"),
            "--ram",
            "64GiB",
        ])
        .status(2)
        .stderr(
            "error: the following required arguments were not provided:
  --horizon <TIME>

Usage: squill advise --horizon <TIME> --ram <SIZE> <MODEL>

For more information, try '--help'.
",
        )
        .check();
}

#[test]
fn a_size_has_a_unit() {
    Test::new()
        .args([
            "advise",
            &example("scenarios/c01-chat-capacity.yaml"),
            "--horizon",
            "3y",
            "--ram",
            "64gigs",
        ])
        .status(2)
        .stderr(
            "error: invalid value '64gigs' for '--ram <SIZE>': `64gigs` is not a size: a number and a unit, `64GiB`, `4TiB`, `512MB`

For more information, try '--help'.
",
        )
        .check();
}
