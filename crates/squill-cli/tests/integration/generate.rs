//! Integration tests of `squill generate`: every example model generates, the
//! output directory is written whole or not at all, existing files are
//! refused without --force, data is reproducible from --seed, and golden
//! snapshots of the artifacts of several seed examples.
//! (Validation, parsing and the server-backed checks of the artifacts are
//! library tests in crates/squill/src/generate/.)

use crate::support::{TempDir, Test, repo_root};
use std::path::Path;

fn example(name: &str) -> String {
    repo_root()
        .join("examples")
        .join(format!("{name}.yaml"))
        .display()
        .to_string()
}

fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_example_model_generates_its_artifacts_and_data() {
    let mut models: Vec<_> = std::fs::read_dir(repo_root().join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    models.sort();
    assert!(models.len() >= 20);
    for model in models {
        let tmp = TempDir::new("gen-all");
        let run = Test::new()
            .args(["generate"])
            .args([&model])
            .args(["--out"])
            .args([tmp.path()])
            .args(["--scale", "1", "--max-children", "20"])
            .run()
            .success();
        let written = files(tmp.path());
        for f in [
            "README.md",
            "validators.json",
            "validators.js",
            "indexes.js",
            "setup.js",
            "examples.json",
            "cookbook.md",
            "cookbook.py",
            "cookbook.js",
            "cookbook.mongosh.js",
        ] {
            assert!(
                written.contains(&f.to_string()),
                "{}: {f} missing",
                model.display()
            );
        }
        assert!(
            written.iter().any(|f| f.starts_with("data/")),
            "{written:?}"
        );
        assert!(
            written.iter().any(|f| f.ends_with(".metadata.json")),
            "{written:?}"
        );
        assert!(!written.iter().any(|f| f.contains(".tmp-")), "{written:?}");
        assert!(run.stdout.contains("documents/s"), "{}", run.stdout);
        let readme = std::fs::read_to_string(tmp.path().join("README.md")).unwrap();
        for f in written.iter().filter(|f| !f.contains('/')) {
            assert!(readme.contains(&format!("`{f}`")), "README lists {f}");
        }
    }
}

#[test]
fn existing_files_are_refused_without_force() {
    let tmp = TempDir::new("gen-force");
    let out = tmp.path().display().to_string();
    let model = example("person-tasks");
    Test::new()
        .args(["generate", &model, "--out", &out])
        .run()
        .success();
    let before = std::fs::read(tmp.path().join("setup.js")).unwrap();
    let run = Test::new()
        .args(["generate", &model, "--out", &out])
        .run()
        .code(2);
    assert!(
        run.stderr.contains("exists; pass --force"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(tmp.path().join("setup.js")).unwrap(), before);
    Test::new()
        .args(["generate", &model, "--out", &out, "--force"])
        .run()
        .success();
}

#[test]
fn data_is_reproducible_from_the_seed_and_formats_are_chosen() {
    let model = example("product-parts");
    let run = |seed: &str, format: &str| {
        let tmp = TempDir::new(&format!("gen-seed-{seed}-{format}"));
        let out = tmp.path().display().to_string();
        Test::new()
            .args(["generate", "data", &model, "--scale", "3", "--out", &out])
            .args(["--seed", seed, "--format", format])
            .run()
            .success();
        let contents: Vec<(String, Vec<u8>)> = files(tmp.path())
            .into_iter()
            .map(|f| {
                let bytes = std::fs::read(tmp.path().join(&f)).unwrap();
                (f, bytes)
            })
            .collect();
        contents
    };
    let a = run("7", "both");
    assert_eq!(a, run("7", "both"), "same seed, same bytes");
    assert_ne!(a, run("8", "both"), "another seed, other data");
    let ejson = run("7", "ejson");
    assert!(
        ejson.iter().all(|(f, _)| f.starts_with("data/")),
        "{ejson:?}"
    );
    let dump = run("7", "dump");
    assert!(dump.iter().all(|(f, _)| f.starts_with("dump/")));
}

#[test]
fn a_bad_model_is_an_error_with_its_location() {
    let tmp = TempDir::new("gen-bad");
    let model = tmp.path().join("bad.yaml");
    std::fs::write(&model, "name: x\nentities:\n  a: {count: many}\n").unwrap();
    let run = Test::new()
        .args(["generate"])
        .args([&model])
        .args(["--out"])
        .args([&tmp.path().join("out")])
        .run()
        .code(2);
    assert!(run.stderr.contains("bad.yaml"), "{}", run.stderr);
    assert!(!tmp.path().join("out").exists(), "nothing written");
}

/// Golden artifacts of several seed examples (000: parent references and the
/// latest messages; 001: two-way references, a denormalized name; 002: a
/// bucket; 003: comments in pages).
#[test]
fn golden_artifacts_of_seed_examples() {
    for name in [
        "host-logs",
        "person-tasks",
        "parts-name-denormalized",
        "sensor-readings",
        "blog-comments-pages",
    ] {
        let tmp = TempDir::new(&format!("gen-golden-{name}"));
        Test::new()
            .args(["generate", &example(name), "--out"])
            .args([tmp.path()])
            .run()
            .success();
        // examples.json is left out: at maximum cardinality it runs to
        // thousands of lines; every example is validated instead.
        for file in ["README.md", "validators.json", "setup.js", "cookbook.md"] {
            let text = std::fs::read_to_string(tmp.path().join(file)).unwrap();
            insta::assert_snapshot!(format!("generate__{name}__{file}"), text);
        }
    }
}
