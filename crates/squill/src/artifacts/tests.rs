//! Tests of the artifacts over the fixtures: snapshots of every file, the
//! README's example documents against advise's, and writing that refuses
//! existing files. The synthetic data's own tests are in `synthetic::tests`;
//! tests that run external tools (node, python, mongosh, the server) are in
//! `external_tests`.

use super::*;
use crate::fixtures;
use crate::synthetic::DataOptions;
use crate::synthetic::tests::seed_examples;

#[test]
fn redundant_indexes_are_refused() {
    let (m, mut d) = fixtures::host_logs();
    d.collections[1]
        .indexes
        .push(crate::synthetic::hand_built::index(
            "host._id_1",
            &[("host._id", 1)],
            &["recent_logs"],
        ));
    let err = artifacts(&m, &d, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("`host._id_1`"), "{err}");
}

#[test]
fn writing_refuses_existing_files_and_leaves_no_temporary_file() {
    let (m, d) = fixtures::host_logs();
    let dir = std::env::temp_dir().join(format!("squill-gen-write-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let arts = artifacts(&m, &d, &Options::default()).unwrap();
    write_artifacts(&dir, &arts, false).unwrap();
    let err = write_artifacts(&dir, &arts, false).unwrap_err();
    assert!(matches!(err, GenerateError::Exists { .. }));
    write_artifacts(&dir, &arts, true).unwrap();
    let summary = data::write(&m, &d, &DataOptions::new(2, 1), &dir).unwrap();
    assert!(summary.documents() > 2);
    assert!(data::write(&m, &d, &DataOptions::new(2, 1), &dir).is_err());
    let names: Vec<String> = walk(&dir);
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.ends_with("dump/host-logs/logmsg.metadata.json"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn artifacts_snapshots() {
    for (name, model, design) in fixtures::all() {
        for a in artifacts(&model, &design, &Options::default()).unwrap() {
            // The index helpers, the same text in every script that creates
            // indexes, folded to one line (their own test runs them).
            let content = a.content.replace(
                crate::catalog::indexes::ENSURE_INDEXES,
                "// ⟨ensureIndexes: catalog/ensure_indexes.js⟩\n",
            );
            insta::assert_snapshot!(format!("{name}__{}", a.file), content);
        }
    }
}

/// advise's example of each collection is examples.json's `typical`
/// (issue 19: the two showed different documents), on every example model
/// and scenario.
#[test]
fn advise_shows_the_examples_generate_writes() {
    let mut compared = 0;
    for (name, model, design) in seed_examples() {
        let files = artifacts(&model, &design, &Options::default()).unwrap();
        let examples = files.iter().find(|a| a.file == "examples.json").unwrap();
        let json: serde_json::Value = serde_json::from_str(&examples.content).unwrap();
        for c in &design.collections {
            assert_eq!(
                json[&c.name]["typical"], c.example,
                "{name}: collection {}",
                c.name
            );
            compared += 1;
        }
    }
    assert!(compared > 50, "{compared}");
}

/// Under a tenant, each `updateOne` of a bulk write (a product's count of
/// reviews taken down by what a purge deleted from it) tests the tenant
/// beside the product's id, in the three cookbooks: the step's filter
/// tests it, and the bulk write used to keep only the id (issue 41). The
/// store's name is the model's: it goes through the cookbook's encoder.
/// Three bulk writes: the purge's count-down, and its two recounts (after
/// a delete that found fewer, and after a failure part-way).
#[test]
fn a_bulk_writes_updates_keep_the_tenant_test() {
    let (model, design) = fixtures::load("tenant-writes");
    let files = artifacts(&model, &design, &Options::default()).unwrap();
    let content = |f: &str| {
        files
            .iter()
            .find(|a| a.file == f)
            .unwrap_or_else(|| panic!("no {f}"))
            .content
            .clone()
    };
    let py = content("cookbook.py");
    assert_eq!(
        py.matches(r#"UpdateOne({"store": store_id, "_id": e["_id"]}"#)
            .count(),
        3,
        "{py}"
    );
    for f in ["cookbook.js", "cookbook.mongosh.js"] {
        let js = content(f);
        assert_eq!(
            js.matches(r#"{updateOne: {filter: {"store": store_id, "_id": e["_id"]}"#)
                .count(),
            3,
            "{f}: {js}"
        );
    }
}

/// The archiving job's find takes its batch from the caller, 1,000 when
/// none is given, in every language and in the PLAN (`limit_param`), so
/// a test can run the job on a smaller batch (check_archive_job.py); no
/// other read of the design takes one.
#[test]
fn the_archive_jobs_find_takes_an_optional_batch() {
    let path = format!(
        "{}/../../examples/scenarios/s11-orders.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let model = crate::inputs::model_file::load(std::path::Path::new(&path)).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let files = artifacts(&model, &design, &Options::default()).unwrap();
    let file = |name: &str| &files.iter().find(|a| a.file == name).unwrap().content;
    let py = file("cookbook.py");
    assert!(
        py.contains("def archive_order_find(db, placed_at_from, placed_at_to, batch=None):")
            && py.contains(".limit(1000 if batch is None else batch))"),
        "{py}"
    );
    for js in [file("cookbook.mongosh.js"), file("cookbook.js")] {
        assert!(
            js.contains("placed_at_from, placed_at_to, batch) {")
                && js.contains(".limit(batch ?? 1000).toArray()"),
            "{js}"
        );
        assert_eq!(js.matches("batch ??").count(), 1, "{js}");
    }
    assert_eq!(py.matches("if batch is None").count(), 1, "{py}");
    assert_eq!(py.matches("\"limit_param\": \"batch\"").count(), 1, "{py}");
}
