//! Issue 40, items 6 and 7: one rule for every file the CLI writes. An
//! output that names an input (the same file, through a link or a hard
//! link) is refused, `--force` or not, before any work; an existing file is
//! replaced only with `--force`, with `generate`'s words.

use crate::support::{TempDir, Test, repo_root};
use std::path::Path;

/// The refusal for an output that is an input.
fn is_input(output: &str, input: &str) -> String {
    format!(
        "error: {output} is the input {input} (paths compared with links followed): refusing to replace an input, even with --force; write to another file\n"
    )
}

/// A folder with one input of each kind: a model (and a link and a hard
/// link to it), a JSON model named like a generated file, DDL, a mongod
/// log, a mongoexport file and a dump.
fn inputs() -> TempDir {
    let dir = crate::scan::fixture("outputs-and-inputs");
    let at = dir.path();
    let root = repo_root();
    let copy = |from: &str, to: &str| std::fs::copy(root.join(from), at.join(to)).unwrap();
    copy("examples/person-addresses.yaml", "model.yaml");
    copy("examples/user-address.json", "examples.json");
    copy("crates/squill/tests/fixtures/sql/shop.sql", "schema.sql");
    copy(
        "crates/squill-cli/tests/fixtures/logs/shop-json.log",
        "mongod.log",
    );
    std::fs::write(at.join("users.json"), "{\"_id\": 1, \"name\": \"ann\"}\n").unwrap();
    std::os::unix::fs::symlink("model.yaml", at.join("link.yaml")).unwrap();
    std::fs::hard_link(at.join("model.yaml"), at.join("hard.yaml")).unwrap();
    dir
}

/// squill in `dir` with `args`, to state what it gives.
fn squill(dir: &Path, args: &[&str]) -> Test {
    Test::new().current_dir(dir).args(args)
}

/// `file`'s bytes, to show an input is untouched.
fn bytes(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap()
}

#[test]
fn an_output_naming_an_input_is_refused_by_every_command_issue_40() {
    let dir = inputs();
    let at = dir.path();
    let before: Vec<_> = [
        "model.yaml",
        "examples.json",
        "schema.sql",
        "mongod.log",
        "users.json",
    ]
    .iter()
    .map(|f| bytes(at, f))
    .collect();
    let dump_file = "dump/shop/parts.bson";
    let dump_before = bytes(at, dump_file);
    let cases: &[(&[&str], String)] = &[
        (
            &["advise", "model.yaml", "-o", "link.yaml", "--force"],
            is_input("link.yaml", "model.yaml"),
        ),
        (
            &["advise", "model.yaml", "-o", "hard.yaml", "--force"],
            is_input("hard.yaml", "model.yaml"),
        ),
        (
            &[
                "import",
                "sql",
                "schema.sql",
                "-o",
                "./schema.sql",
                "--force",
            ],
            is_input("./schema.sql", "schema.sql"),
        ),
        (
            &["scan", "users.json", "-o", "users.json", "--force"],
            is_input("users.json", "users.json"),
        ),
        (
            &[
                "scan",
                "dump",
                "--emit-model",
                "mongod.log",
                "--workload",
                "mongod.log",
                "--force",
            ],
            is_input("mongod.log", "mongod.log"),
        ),
        (
            &["scan", "dump", "-o", dump_file, "--force"],
            format!(
                "error: {dump_file} is inside the input directory dump and was read as input: refusing to replace an input, even with --force; write to another file\n"
            ),
        ),
        (
            &["workload", "mongod.log", "-o", "mongod.log", "--force"],
            is_input("mongod.log", "mongod.log"),
        ),
        (
            &["generate", "examples.json", "--out", ".", "--force"],
            is_input("./examples.json", "examples.json"),
        ),
        (
            &[
                "advise",
                "model.yaml",
                "--config",
                "link.yaml",
                "-o",
                "model.yaml",
                "--force",
            ],
            is_input("model.yaml", "link.yaml"),
        ),
    ];
    for (args, stderr) in cases {
        squill(at, args).status(2).stderr(stderr.as_str()).check();
    }
    let after: Vec<_> = [
        "model.yaml",
        "examples.json",
        "schema.sql",
        "mongod.log",
        "users.json",
    ]
    .iter()
    .map(|f| bytes(at, f))
    .collect();
    assert!(before == after, "an input was changed");
    assert_eq!(bytes(at, dump_file), dump_before);
    assert!(
        !at.join("README.md").exists(),
        "generate wrote before refusing"
    );
}

#[test]
fn an_existing_file_is_replaced_only_with_force_by_every_writer_issue_40() {
    let dir = inputs();
    let at = dir.path();
    std::fs::write(at.join("old.txt"), "keep me").unwrap();
    let exists = "error: old.txt exists; pass --force to overwrite it\n";
    for args in [
        &["scan", "dump", "--emit-model", "old.txt"][..],
        &["scan", "dump", "-o", "old.txt"],
        &["advise", "model.yaml", "-o", "old.txt"],
        &["import", "sql", "schema.sql", "-o", "old.txt"],
        &["workload", "mongod.log", "-o", "old.txt"],
    ] {
        squill(at, args).status(2).stderr(exists).check();
        assert_eq!(bytes(at, "old.txt"), b"keep me", "{args:?}");
    }
    // With --force the model is replaced, whole, and the report is the one
    // the scan prints without --emit-model.
    let report = squill(at, &["scan", "dump", "--fail-on", "never"])
        .stdout_any()
        .check()
        .stdout;
    squill(
        at,
        &[
            "scan",
            "dump",
            "--emit-model",
            "old.txt",
            "--force",
            "--fail-on",
            "never",
        ],
    )
    .stdout(report)
    .check();
    let model = String::from_utf8(bytes(at, "old.txt")).unwrap();
    assert!(model.contains("entities:"), "{model}");
    // A device is no file to keep: no --force needed.
    squill(at, &["advise", "model.yaml", "-o", "/dev/null"]).check();
    // Two outputs of one run naming one file.
    squill(
        at,
        &[
            "scan",
            "dump",
            "-o",
            "new.yaml",
            "--emit-model",
            "./new.yaml",
        ],
    )
    .status(2)
    .stderr(
        "error: new.yaml and ./new.yaml are the same file: one output would replace the other\n",
    )
    .check();
    assert!(!at.join("new.yaml").exists());
}
