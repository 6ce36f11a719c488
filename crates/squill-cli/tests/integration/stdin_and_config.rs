//! Every command takes a model the same way and treats a bad `--config` the
//! same way (issue 23: `check -` did not read stdin, `rules --config
//! missing.toml` ignored the file).

use crate::support::Test;

fn example(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name),
    )
    .unwrap()
}

#[test]
fn check_reads_the_model_from_stdin() {
    Test::new()
        .args(["check", "-"])
        .stdin(example("person-addresses.yaml"))
        .stdout(
            "<stdin>: model `person-addresses` is valid

entities (2):
  person       1,000,000 documents  2 fields
  address      2,000,000 documents  3 fields

relationships (1):
  addresses  person -> address  one-to-few  children 0/2/5  parents 1/1/1

operations (3) in 1 mix:
  default  3 operations  reads 200/s  writes 0.700/s
",
        )
        .check();
}

#[test]
fn a_bad_model_on_stdin_points_into_it() {
    Test::new()
        .args(["check", "-"])
        .stdin("entities:\n  a: {count: -1}\n")
        .status(2)
        .stderr(
            "squill::model_file

  × <stdin>:2:14: an entity's count must not be negative, found -1
   ╭─[<stdin>:2:14]
 1 │ entities:
 2 │   a: {count: -1}
   ·              ─┬
   ·               ╰── negative
   ╰────
  help: write a number ≥ 0 for an entity's count
",
        )
        .check();
}

#[test]
fn a_missing_config_is_an_error_for_every_command() {
    for args in [vec!["rules"], vec!["rule", "subset"], vec!["check", "-"]] {
        Test::new()
            .args(["--config", "missing.toml"])
            .args(&args)
            .stdin(example("person-addresses.yaml"))
            .status(2)
            .stderr(
                "  × cannot read missing.toml: No such file or directory (os error 2)
  ╰─▶ No such file or directory (os error 2)
",
            )
            .check();
    }
}
