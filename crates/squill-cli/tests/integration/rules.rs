//! `squill rules` and `squill rule ID`.

use crate::support::Test;

#[test]
fn rules_lists_every_rule_id() {
    let run = Test::new().args(["rules"]).stdout_any().check();
    let ids: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    // A rename or removal is a deliberate act: update this snapshot with it.
    insta::assert_snapshot!(ids.join("\n"));
}

#[test]
fn rule_prints_docs_with_all_sections() {
    let run = Test::new().args(["rule", "subset"]).stdout_any().check();
    assert!(run.stdout.starts_with("id: subset\n"), "{}", run.stdout);
    for section in squill::rules::REQUIRED_DOC_SECTIONS {
        assert!(run.stdout.contains(section), "missing {section}");
    }
    // The whole page, as a user reads it.
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn unknown_rule_suggests_the_closest_id_and_exits_2() {
    Test::new()
        .args(["rule", "subst"])
        .status(2)
        .stderr(
            "error: no rule with id `subst`; did you mean `subset`? (`squill rules` lists them)\n",
        )
        .check();
}

#[test]
fn rules_json_lists_the_same_ids_as_text() {
    let text = Test::new().args(["rules"]).stdout_any().check();
    let text_ids: Vec<String> = text
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    let json = Test::new()
        .args(["rules", "--format", "json"])
        .stdout_any()
        .check();
    let value: serde_json::Value = serde_json::from_str(&json.stdout).expect("valid JSON");
    let json_ids: Vec<String> = value
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(text_ids, json_ids);
    assert_eq!(value[0]["kind"], "design");
    assert!(value[0]["default_severity"].is_string());
}

#[test]
fn rules_markdown_is_the_docs_index() {
    let index = std::fs::read_to_string(crate::support::repo_root().join("docs/rules/README.md"))
        .expect("docs/rules/README.md");
    Test::new()
        .args(["rules", "--format", "markdown"])
        .stdout(index)
        .check();
}

#[test]
fn rules_rejects_an_unknown_format_with_exit_2() {
    Test::new()
        .args(["rules", "--format", "yaml"])
        .status(2)
        .stderr("error: invalid value 'yaml' for '--format <FORMAT>'\n  [possible values: text, json, markdown]\n\nFor more information, try '--help'.\n")
        .check();
}

#[test]
fn rule_docs_match_the_generated_page() {
    let run = Test::new()
        .args(["rule", "pre-allocation"])
        .stdout_any()
        .check();
    assert!(run.stdout.contains("MMAPv1"), "{}", run.stdout);
    assert!(run.stdout.contains("WiredTiger"), "{}", run.stdout);
    let page =
        std::fs::read_to_string(crate::support::repo_root().join("docs/rules/pre-allocation.md"))
            .expect("page");
    // Same source: every section of the page is in the command's output.
    let body = &page[page.find("## What it checks").expect("section")..];
    assert!(run.stdout.contains(body));
}

/// Every relative link of docs/README.md points at a file that exists.
#[test]
fn docs_index_links_resolve() {
    let docs = crate::support::repo_root().join("docs");
    let index = std::fs::read_to_string(docs.join("README.md")).expect("docs/README.md");
    let mut links = 0;
    for part in index.split("](").skip(1) {
        let target = part.split(')').next().unwrap_or_default();
        if target.starts_with("http") || target.starts_with('#') {
            continue;
        }
        links += 1;
        let path = docs.join(target.split('#').next().unwrap_or_default());
        assert!(path.exists(), "docs/README.md links to missing {target}");
    }
    assert!(links >= 3, "docs/README.md lists the docs");
}
