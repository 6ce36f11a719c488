//! The TTL indexes `generate` writes, seen deleting on the server (issue
//! 41): S18's sessions and reset tokens expire (`expires:`), setup.js
//! creates their collections and TTL indexes in a fresh database, the
//! design's example documents go in with dates past their expiry and
//! with dates of now, and scripts/testenv/check_ttl.py waits for the
//! server's TTL monitor to delete the expired ones and keep the others.
//!
//! The monitor runs every 60 s on SecantusDB, as on mongod, and no
//! setting of the server shortens it (check_ttl.py says what was tried):
//! the test waits up to 90 s, mostly idle. It is not in nextest's
//! `secantusdb` group (it only waits; its few documents cost the server
//! nothing) and starts first (.config/nextest.toml), so that its wait
//! overlaps the other tests' work.

use super::external_tests::{database_uri, out_dir, repo_root, server_tools, try_run};
use super::*;
use std::process::Command;

#[test]
fn generated_ttl_indexes_delete_expired_documents_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let path = repo_root().join("examples/scenarios/s18-sessions.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let model = crate::inputs::model_file::parse("s18-sessions.yaml", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    // What the model says expires, in which collection: the documents are
    // made from it, and the generated indexes must delete them so.
    let expect: Vec<(String, String)> = model
        .entities
        .iter()
        .filter_map(|e| {
            let x = e.expires.as_ref()?;
            let c = design
                .collections
                .iter()
                .find(|c| c.entities.contains(&e.name))?;
            Some((
                c.name.clone(),
                format!("{}={}:{}", c.name, x.field, x.seconds),
            ))
        })
        .collect();
    assert_eq!(
        expect.len(),
        2,
        "sessions and reset tokens expire: {expect:?}"
    );
    let dir = out_dir("ttl");
    write_artifacts(
        &dir.0,
        &artifacts(&model, &design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    // The design's example document of each collection, to insert.
    let examples: serde_json::Map<String, serde_json::Value> = design
        .collections
        .iter()
        .map(|c| (c.name.clone(), c.example.clone()))
        .collect();
    let examples_path = dir.0.join("ttl-examples.json");
    std::fs::write(
        &examples_path,
        serde_json::Value::Object(examples).to_string(),
    )
    .unwrap();
    let db = format!("squill_ttl_{}", std::process::id());
    let out = try_run(
        Command::new(&mongosh)
            .args(["--quiet", "--norc", &database_uri(&uri, &db)])
            .arg(dir.0.join("setup.js")),
    )
    .unwrap_or_else(|e| panic!("setup.js: {e}"));
    assert!(out.contains("squill setup: done"), "{out}");
    let t0 = std::time::Instant::now();
    let out = try_run(
        Command::new(&python)
            .arg(repo_root().join("scripts/testenv/check_ttl.py"))
            .args(["--uri", &uri, "--db", &db, "--examples"])
            .arg(&examples_path)
            .args(expect.iter().flat_map(|(_, e)| ["--expect", e.as_str()])),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("check_ttl.py, {:.1} s:\n{out}", t0.elapsed().as_secs_f64());
    for (name, _) in &expect {
        assert!(
            out.contains(&format!("ok: ttl {name}: ")),
            "{name} was not seen expiring:\n{out}"
        );
    }
}
