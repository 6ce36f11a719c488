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
    let run = Test::new()
        .args(["check", "-"])
        .stdin(example("person-addresses.yaml"))
        .run()
        .success();
    assert!(
        run.stdout
            .starts_with("<stdin>: model `person-addresses` is valid"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bad_model_on_stdin_points_into_it() {
    let run = Test::new()
        .args(["check", "-"])
        .stdin("entities:\n  a: {count: -1}\n")
        .run()
        .code(2);
    assert!(run.stderr.contains("<stdin>:2:"), "{}", run.stderr);
}

#[test]
fn a_missing_config_is_an_error_for_every_command() {
    for args in [vec!["rules"], vec!["rule", "subset"], vec!["check", "-"]] {
        let run = Test::new()
            .args(["--config", "missing.toml"])
            .args(&args)
            .stdin(example("person-addresses.yaml"))
            .run()
            .code(2);
        assert!(
            run.stderr.contains("missing.toml"),
            "{args:?}: {}",
            run.stderr
        );
    }
}
