//! `squill rules` and `squill rule ID`.

use crate::support::Test;

#[test]
fn rules_lists_every_rule_id() {
    let run = Test::new().args(["rules"]).run().success();
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
    let run = Test::new().args(["rule", "subset"]).run().success();
    assert!(run.stdout.starts_with("id: subset\n"), "{}", run.stdout);
    for section in squill::rules::REQUIRED_DOC_SECTIONS {
        assert!(run.stdout.contains(section), "missing {section}");
    }
}

#[test]
fn unknown_rule_suggests_the_closest_id_and_exits_2() {
    let run = Test::new().args(["rule", "subst"]).run().code(2);
    assert!(
        run.stderr.contains("did you mean `subset`"),
        "{}",
        run.stderr
    );
}
