//! Integration tests of `squill generate`: every example model generates, the
//! output directory is written whole or not at all, existing files are
//! refused without --force, data is reproducible from --seed, and golden
//! snapshots of the artifacts of several seed examples.
//! (Validation, parsing and the server-backed checks of the artifacts are
//! library tests in crates/squill/src/generate/.)

use crate::support::{TempDir, Test, files, repo_root};
use std::path::Path;

fn example(name: &str) -> String {
    repo_root()
        .join("examples")
        .join(format!("{name}.yaml"))
        .display()
        .to_string()
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
            // Timings on stdout, the disk's free space on stderr: checked below.
            .stdout_any()
            .stderr_any()
            .check();
        assert!(
            run.stderr.starts_with("squill generate: about "),
            "{}",
            run.stderr
        );
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
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
    let first = Test::new()
        .args(["generate", &model, "--out", &out])
        .path_as(&out, "OUT")
        .stdout_any()
        .check();
    insta::assert_snapshot!(first.stdout);
    let before = std::fs::read(tmp.path().join("setup.js")).unwrap();
    Test::new()
        .args(["generate", &model, "--out", &out])
        .path_as(&out, "OUT")
        .status(2)
        .stderr("squill::generate::exists\n\n  × OUT/validators.json exists; pass --force to overwrite it\n")
        .check();
    assert_eq!(std::fs::read(tmp.path().join("setup.js")).unwrap(), before);
    Test::new()
        .args(["generate", &model, "--out", &out, "--force"])
        .path_as(&out, "OUT")
        .stdout(first.stdout)
        .check();
}

#[test]
fn data_is_reproducible_from_the_seed_and_formats_are_chosen() {
    let model = example("product-parts");
    let run_with = |seed: &str, format: &str, extra: &[&str]| {
        let tmp = TempDir::new(&format!("gen-seed-{seed}-{format}-{}", extra.len()));
        let out = tmp.path().display().to_string();
        Test::new()
            .args(["generate", "data", &model, "--scale", "3", "--out", &out])
            .args(["--seed", seed, "--format", format])
            .args(extra)
            // Timings on stdout; the estimate, with the disk's free space, on stderr.
            .stdout_any()
            .stderr_matching("squill generate: about [..] to write into [..]\n")
            .check();
        let contents: Vec<(String, Vec<u8>)> = files(tmp.path())
            .into_iter()
            .map(|f| {
                let bytes = std::fs::read(tmp.path().join(&f)).unwrap();
                (f, bytes)
            })
            .collect();
        contents
    };
    let run = |seed: &str, format: &str| run_with(seed, format, &[]);
    let a = run("7", "both");
    assert_eq!(a, run("7", "both"), "same seed, same bytes");
    assert_eq!(
        a,
        run_with("7", "both", &["--threads", "1"]),
        "the same bytes whatever the number of threads"
    );
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
        .path_as(tmp.path(), "DIR")
        .status(2)
        .stderr_any()
        .check();
    insta::assert_snapshot!(run.stderr);
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
        let run = Test::new()
            .args(["generate", &example(name), "--out"])
            .args([tmp.path()])
            .path_as(tmp.path(), "OUT")
            .stdout_any()
            .check();
        insta::assert_snapshot!(format!("generate__{name}__stdout"), run.stdout);
        // examples.json is left out: at maximum cardinality it runs to
        // thousands of lines; every example is validated instead.
        for file in ["README.md", "validators.json", "setup.js", "cookbook.md"] {
            let text = std::fs::read_to_string(tmp.path().join(file)).unwrap();
            insta::assert_snapshot!(format!("generate__{name}__{file}"), text);
        }
    }
}

/// Round trip: data generated for a seed example, read back by `squill scan`,
/// has the design's shape (every top-level field, with its BSON type, present
/// in every document when required) and the model's cardinalities: the median
/// fan-out of each reference the scan finds is within 25 % of the model's
/// typical children per parent (the generator draws around the typical value;
/// shared and many-to-many relationships use it exactly).
#[test]
fn round_trip_through_scan_gives_the_shape_and_cardinalities() {
    let settings = squill::settings::Settings::default();
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("examples"))
        .unwrap()
        .filter_map(|e| {
            let file = e.unwrap().file_name().into_string().unwrap();
            file.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "examples missing: {names:?}");
    for name in &names {
        let name = name.as_str();
        let model = squill::inputs::model_file::load(Path::new(&example(name))).unwrap();
        let design = squill::advise::advise(&model, &settings, None).unwrap();
        let tmp = TempDir::new(&format!("gen-roundtrip-{name}"));
        Test::new()
            .args([
                "generate",
                "data",
                &example(name),
                "--scale",
                "20",
                "--max-children",
                &ROUND_TRIP_MAX_CHILDREN.to_string(),
                "--format",
                "both",
                "--out",
            ])
            .args([tmp.path()])
            // Timings on stdout; the estimate, with the disk's free space, on stderr.
            .stdout_any()
            .stderr_matching("squill generate: about [..] to write into [..]\n")
            .check();
        let dump = tmp.path().join("dump");
        let scan = Test::new()
            .args(["scan", "--format", "json", "--fail-on", "never"])
            .args([&dump])
            .stdout_any()
            .check();
        let report: serde_json::Value = serde_json::from_str(&scan.stdout).unwrap();
        round_trip_matches(name, &model, &design, tmp.path(), &report);
    }
}

/// Children per parent in round-trip data, so that the large examples (500,000
/// books per category) stay small; fan-outs above it are checked against it.
const ROUND_TRIP_MAX_CHILDREN: u64 = 60;

/// The lengths of one top-level array field over a collection's documents
/// (Extended JSON lines of a run): their median, and whether any element
/// is an ObjectId.
struct ArrayLengths {
    median: f64,
    holds_object_ids: bool,
}

fn array_lengths(dir: &Path, coll: &str, field: &str) -> ArrayLengths {
    let text = std::fs::read_to_string(dir.join("data").join(format!("{coll}.json"))).unwrap();
    let (mut lengths, mut holds_object_ids) = (Vec::new(), false);
    for line in text.lines() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let items = doc.get(field).and_then(|a| a.as_array());
        let items = items.map_or(&[][..], |a| a.as_slice());
        holds_object_ids |= items.iter().any(|v| {
            v.get("$oid").is_some() || v.get("_id").is_some_and(|id| id.get("$oid").is_some())
        });
        lengths.push(items.len());
    }
    lengths.sort_unstable();
    ArrayLengths {
        median: lengths.get(lengths.len() / 2).map_or(0.0, |n| *n as f64),
        holds_object_ids,
    }
}

fn round_trip_matches(
    name: &str,
    model: &squill::model::Model,
    design: &squill::design::Design,
    dir: &Path,
    report: &serde_json::Value,
) {
    use squill::design::{FieldOrigin, ShapeType};
    let collections = report["collections"].as_array().unwrap();
    for coll in &design.collections {
        let scanned = collections
            .iter()
            .find(|c| c["name"] == coll.name.as_str())
            .unwrap_or_else(|| panic!("{name}: scan has no collection {}", coll.name));
        let lines = std::fs::read_to_string(dir.join("data").join(format!("{}.json", coll.name)))
            .unwrap()
            .lines()
            .count() as u64;
        assert_eq!(
            scanned["documents"].as_u64(),
            Some(lines),
            "{name}/{}",
            coll.name
        );
        let fields = scanned["fields"].as_array().unwrap();
        for f in &coll.shape.fields {
            let found = fields
                .iter()
                .find(|x| x["path"] == f.name.as_str())
                .unwrap_or_else(|| panic!("{name}/{}: scan did not find `{}`", coll.name, f.name));
            let want = match &f.ty {
                ShapeType::Scalar { bson_type, .. } => bson_type.as_str(),
                ShapeType::Object { .. } => "object",
                ShapeType::Array { .. } => "array",
            };
            let types: Vec<&str> = found["types"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|t| t["type"].as_str())
                .collect();
            assert_eq!(types, [want], "{name}/{}.{}", coll.name, f.name);
            let presence = found["presence"].as_f64().unwrap();
            if f.required {
                assert!(
                    presence > 0.999,
                    "{name}/{}.{}: presence {presence}",
                    coll.name,
                    f.name
                );
            }
        }
        // References the design holds: the scan's fan-out against the model.
        for f in &coll.shape.fields {
            let FieldOrigin::Reference { relationship, .. } = &f.origin else {
                continue;
            };
            let Some(rid) = model.relationship_by_name(relationship) else {
                continue;
            };
            let rel = model.relationship(rid);
            let parent = &model.entity(rel.parent).name;
            let holds_children = coll.entities.first() == Some(parent);
            if !holds_children || !matches!(f.ty, ShapeType::Array { .. }) {
                continue;
            }
            let found = report["relationships"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| {
                    r["from"]["collection"] == coll.name.as_str()
                        && (r["field"] == f.name.as_str()
                            || r["field"] == format!("{}._id", f.name).as_str())
                });
            let p50 = match found {
                Some(found) => found["fan_out"]["p50"].as_f64().unwrap(),
                None => {
                    // The scan follows any ObjectId, but an integer or a
                    // string only when the field's name names the target
                    // (scan/relationships.rs: a rating 1-5 matches any
                    // integer ids). A model whose ids are integers
                    // (Sakila's) names arrays `addresses`, `cities` or
                    // `customers_of_store`, which it does not take for
                    // references; nor can it follow arrays that are all
                    // empty (address → staff: p99 0, max 1). Their median
                    // fan-out is then read from the documents themselves.
                    let lengths = array_lengths(dir, &coll.name, &f.name);
                    assert!(
                        !lengths.holds_object_ids,
                        "{name}: scan found no relationship through {}.{}",
                        coll.name, f.name
                    );
                    lengths.median
                }
            };
            if rel.children.typical > ROUND_TRIP_MAX_CHILDREN {
                // Capped by --max-children: the cap, not the model, sets the fan-out.
                assert!(
                    p50 <= ROUND_TRIP_MAX_CHILDREN as f64,
                    "{name}: {p50} over the cap"
                );
                continue;
            }
            let typical = rel.children.typical as f64;
            assert!(
                (p50 - typical).abs() <= 0.25 * typical.max(4.0),
                "{name}: {}.{} median fan-out {p50}, model's typical {typical}",
                coll.name,
                f.name
            );
        }
    }
}

/// A chain of one-to-manys whose population at scale 1 no run could write
/// is refused at once with what to change, and nothing is written; cut
/// with --max-children it generates.
#[test]
fn a_population_too_large_is_refused_before_anything_is_written() {
    let tmp = TempDir::new("gen-chain");
    let mut yaml = String::from("name: chain\nentities:\n");
    for i in 0..20 {
        yaml.push_str(&format!(
            "  e{i}: {{count: 1000, fields: {{name: string(20)}}}}\n"
        ));
    }
    yaml.push_str("relationships:\n");
    for i in 1..20 {
        yaml.push_str(&format!(
            "  r{i}: {{parent: e{}, child: e{i}, children: {{min: 0, typical: 5, max: 50}}, child_field: p{i}}}\n",
            i - 1
        ));
    }
    // Each level read with its children, as the library's synthetic chain.
    yaml.push_str("operations:\n");
    for i in 1..20 {
        yaml.push_str(&format!(
            "  read{i}: {{read: e{}, rate: 10, filter: {{_id: eq}}, include: {{r{i}: {{}}}}}}\n",
            i - 1
        ));
    }
    let model = tmp.path().join("chain.yaml");
    std::fs::write(&model, yaml).unwrap();
    let model = model.display().to_string();
    let out = tmp.path().join("out");
    let out_s = out.display().to_string();
    let run = Test::new()
        .args(["generate", &model, "--out", &out_s])
        .path_as(tmp.path(), "DIR")
        .status(2)
        .stderr_any()
        .check();
    insta::assert_snapshot!(run.stderr);
    assert!(!out.join("setup.js").exists());
    let run = Test::new()
        .args(["generate", &model, "--out", &out_s, "--max-children", "2"])
        .path_as(tmp.path(), "DIR")
        .stdout_any()
        .check();
    insta::assert_snapshot!("chain_with_max_children_stdout", run.stdout);
}

/// `squill migrate --from-current` is the name of what `generate
/// --migration` wrote (issue 47): the same script, and the old spelling
/// still works with a deprecation note on standard error.
#[test]
fn migrate_from_current_writes_what_generate_migration_wrote() {
    let tmp = TempDir::new("from-current");
    let model = tmp.path().join("model.yaml");
    let mut yaml = std::fs::read_to_string(example("person-addresses")).unwrap();
    yaml.push_str("current:\n  addresses: parent-reference\n");
    std::fs::write(&model, yaml).unwrap();
    let model = model.to_str().unwrap();
    let new_out = tmp.path().join("new");
    let new = Test::new()
        .args(["migrate", "--from-current", model, "--out"])
        .args([&new_out])
        .path_as(tmp.path(), "DIR")
        .stdout_any()
        .check();
    insta::assert_snapshot!(new.stdout);
    let old_out = tmp.path().join("old");
    let old = Test::new()
        .args(["generate", model, "--migration", "--out"])
        .args([&old_out])
        .path_as(tmp.path(), "DIR")
        .stdout_any()
        .stderr_any()
        .check();
    insta::assert_snapshot!("generate_migration_stdout", old.stdout);
    insta::assert_snapshot!("generate_migration_stderr", old.stderr);
    let script = |dir: &Path| std::fs::read_to_string(dir.join("migration.js")).unwrap();
    assert!(script(&new_out).contains("DROP_OLD"));
    assert_eq!(script(&new_out), script(&old_out));
    // Written once; a second run needs --force, as every writer does.
    let again = Test::new()
        .args(["migrate", "--from-current", model, "--out"])
        .args([&new_out])
        .path_as(tmp.path(), "DIR")
        .status(2)
        .stderr_any()
        .check();
    insta::assert_snapshot!("migrate_again_stderr", again.stderr);
    Test::new()
        .args(["migrate", "--from-current", model, "--force", "--out"])
        .args([&new_out])
        .path_as(tmp.path(), "DIR")
        .stdout(new.stdout)
        .check();
    // A URL and --from-current are two sources: refused, exit 2.
    let both = Test::new()
        .args([
            "migrate",
            "postgres://x/y",
            "--from-current",
            model,
            "--out",
        ])
        .args([&new_out])
        .path_as(tmp.path(), "DIR")
        .status(2)
        .stderr_any()
        .check();
    insta::assert_snapshot!("migrate_two_sources_stderr", both.stderr);
}
