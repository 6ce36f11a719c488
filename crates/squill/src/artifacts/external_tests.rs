//! Tests that run the generated code with real tools: node and Python parse
//! it, and against a MongoDB-compatible server (SecantusDB, started by
//! `scripts/test`, URI in `SQUILL_TEST_MONGODB_URI`) the setup script runs
//! twice, the data loads under the validators, broken documents are refused
//! with code 121, the BSON dump decodes (pymongo's `bson`) to the Extended
//! JSON documents, and every cookbook function returns what it promises,
//! in Python (pymongo) and in Node.js (the mongodb driver, run by
//! scripts/testenv/serve_node_cookbook.js); the mongosh cookbook's
//! functions that fail or undo when nothing matches, and its nearest-first
//! reads, in one long-lived mongosh (scripts/testenv/serve_mongosh_cookbook.js;
//! the effects of its other functions: check_cookbook_effects.js). The
//! checks against the server are in scripts/testenv/check_generated.py.
//!
//! Without the tools a test prints a NOTICE and passes; under CI=true it fails.

use super::mongosh_server::Pool;
use super::python_server::Pool as PythonPool;
use super::*;
use crate::design::{Action, FieldOrigin, ShapeType};
use crate::fixtures;
use crate::synthetic::{DataOptions, Document, Value};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(super) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `None` with a visible notice, or a failure under CI=true.
fn missing<T>(what: &str) -> Option<T> {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is missing and CI=true: run the tests through scripts/test"
    );
    eprintln!("NOTICE: skipping: {what} is missing (scripts/test installs and starts it)");
    None
}

fn executable(env: &str, fallback: PathBuf) -> Option<PathBuf> {
    match std::env::var_os(env) {
        Some(p) => Some(PathBuf::from(p)),
        None => fallback.is_file().then_some(fallback),
    }
}

fn venv_python() -> Option<PathBuf> {
    executable(
        "SQUILL_TEST_PYTHON",
        repo_root().join(".venv-test/bin/python"),
    )
}

fn mongosh() -> Option<PathBuf> {
    executable(
        "SQUILL_TEST_MONGOSH",
        repo_root().join(".venv-node/node_modules/.bin/mongosh"),
    )
}

fn on_path(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) -> String {
    try_run(cmd).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn try_run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!("{cmd:?} failed:\n{text}"))
    }
}

pub(super) struct Dir(pub(super) PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn out_dir(name: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("squill-gen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    Dir(d)
}

/// A mongosh script wrapped so that parsing it runs nothing.
fn wrapped(dir: &Path, file: &str) -> PathBuf {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let path = dir.join(format!("{file}.check.js"));
    std::fs::write(&path, format!("if (globalThis.__never) {{\n{text}\n}}\n")).unwrap();
    path
}

#[test]
fn generated_javascript_and_python_parse() {
    if !on_path("node") {
        return missing::<()>("node").unwrap_or(());
    }
    let python = venv_python().or_else(|| on_path("python3").then(|| PathBuf::from("python3")));
    let Some(python) = python.or_else(|| missing("python3")) else {
        return;
    };
    // Side by side (each fixture in its own directory): most of the time is
    // node's and mongosh's start, not this test's work (issue 47).
    let dirs: Vec<(Dir, Vec<PathBuf>)> = fixtures::all()
        .into_par_iter()
        .map(|(name, model, design)| {
            let dir = out_dir(&format!("parse-{name}"));
            write_artifacts(
                &dir.0,
                &artifacts(&model, &design, &Options::default()).unwrap(),
                false,
            )
            .unwrap();
            run(Command::new("node")
                .arg("--check")
                .arg(dir.0.join("cookbook.js")));
            run(Command::new("node")
                .arg("-e")
                .arg("const m = require(process.argv[1]); if (Object.keys(m).length === 0) process.exit(3);")
                .arg(dir.0.join("cookbook.js")));
            for file in [
                "setup.js",
                "validators.js",
                "indexes.js",
                "cookbook.mongosh.js",
            ] {
                run(Command::new("node")
                    .arg("--check")
                    .arg(wrapped(&dir.0, file)));
            }
            run(Command::new(&python)
                .args(["-m", "py_compile"])
                .arg(dir.0.join("cookbook.py")));
            let shell = ["setup.js", "cookbook.mongosh.js"].map(|file| wrapped(&dir.0, file));
            (dir, shell.into())
        })
        .collect();
    // Every fixture's mongosh scripts parsed by one mongosh (its start costs
    // 1.2–1.5 s of CPU); when one fails, each alone, so that the failure
    // names its file.
    if let Some(mongosh) = mongosh() {
        let parse = |files: &[&PathBuf]| {
            try_run(
                Command::new(&mongosh)
                    .args(["--nodb", "--quiet", "--norc"])
                    .args(files),
            )
        };
        let files: Vec<&PathBuf> = dirs.iter().flat_map(|(_, files)| files).collect();
        if parse(&files).is_err() {
            for file in files {
                parse(&[file]).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            }
            panic!("mongosh failed on the scripts together, and on none alone");
        }
    }
}

/// One broken document per collection: its first required scalar field
/// (not `_id`) with a value of another type.
fn broken_documents(model: &Model, design: &Design) -> String {
    let pop = Population::new(model, design, 1, 5);
    let mut out = String::new();
    for ex in examples::examples(&pop) {
        let coll = design
            .collections
            .iter()
            .find(|c| c.name == ex.collection)
            .unwrap();
        let Some(field) = coll.shape.fields.iter().find(|f| {
            f.required
                && !matches!(f.origin, FieldOrigin::Id)
                && f.name != "_id"
                && matches!(f.ty, ShapeType::Scalar { .. })
        }) else {
            continue;
        };
        let mut doc = ex.typical.clone();
        doc.0.retain(|(k, _)| k != "_id");
        for (k, v) in &mut doc.0 {
            if *k == field.name {
                *v = match v {
                    Value::String(_) => Value::Int(7),
                    _ => Value::String("wrong type".into()),
                };
            }
        }
        let item = Document(vec![
            ("collection".into(), Value::String(coll.name.clone())),
            ("document".into(), Value::Document(doc)),
        ]);
        item.write_ejson_line(&mut out);
    }
    out
}

/// What a check script must have said: its summary `checked`, each of
/// `lines` in every language (`{lang}` in a line stands for `python`,
/// `mongosh` and `node` in turn), and no `FAIL`.
pub(super) fn says_in_each_language(out: &str, checked: &str, lines: &[&str]) {
    assert!(out.contains(checked), "{out}");
    for lang in ["python", "mongosh", "node"] {
        for line in lines {
            let want = line.replace("{lang}", lang);
            assert!(out.contains(&want), "{lang}: no `{want}` in\n{out}");
        }
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// The URI, the venv's python and mongosh, or `None` after a notice.
pub(super) fn server_tools() -> Option<(String, PathBuf, PathBuf)> {
    let uri = std::env::var("SQUILL_TEST_MONGODB_URI")
        .ok()
        .or_else(|| missing("SQUILL_TEST_MONGODB_URI (a running server)"))?;
    let python = venv_python().or_else(|| missing("the test venv's python"))?;
    let mongosh = mongosh().or_else(|| missing("mongosh"))?;
    Some((uri, python, mongosh))
}

/// The setup script run twice against `db_uri`, and what it printed: the
/// second run must find everything in place. Served, as two requests to a
/// long-lived mongosh of `pool` (each in its own scope, as two processes);
/// otherwise (`SQUILL_TEST_MONGOSH_SERVER=0`) one process that runs the
/// file twice, as before (issue 47).
fn setup_twice(pool: &Pool, mongosh: &Path, db_uri: &str, setup: &Path) -> Result<String, String> {
    let mut once = Command::new(mongosh);
    once.args(["--quiet", "--norc", db_uri]).arg(setup);
    let mut out = String::new();
    for _ in 0..2 {
        let Some(served) = pool.run(&once) else {
            return try_run(once.arg(setup));
        };
        out.push_str(&served.stdout);
        out.push_str(&served.stderr);
        if served.code != 0 {
            return Err(format!(
                "{once:?} failed (exit status {}):\n{out}",
                served.code
            ));
        }
    }
    Ok(out)
}

/// Writes the artifacts and data of one design, runs the setup script twice
/// and the checks of scripts/testenv/check_generated.py against the server:
/// the Python cookbook's functions, then (the same documents loaded again)
/// the Node.js cookbook's, each checked the same way.
fn check_against_server(
    (uri, python, mongosh): &(String, PathBuf, PathBuf),
    (pool, pythons): (&Pool, &PythonPool),
    name: &str,
    model: &Model,
    design: &Design,
    data_options: &DataOptions,
    known: &[(&str, &str, &str)],
) -> Result<(), String> {
    let known: Vec<&str> = known
        .iter()
        .filter(|(example, _, _)| *example == name)
        .map(|(_, op, _)| *op)
        .collect();
    let harness = repo_root().join("scripts/testenv/check_generated.py");
    let dir = out_dir(&format!("server-{name}"));
    write_artifacts(
        &dir.0,
        &artifacts(model, design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    data::write(model, design, data_options, &dir.0).unwrap();
    let broken = dir.0.join("broken.json");
    std::fs::write(&broken, broken_documents(model, design)).unwrap();
    let db = format!("squill_{}_{}", name.replace('-', "_"), std::process::id());
    let db_uri = database_uri(uri, &db);
    // The setup script, twice: the second run must find everything in place.
    let setup = dir.0.join("setup.js");
    let t0 = std::time::Instant::now();
    let out = setup_twice(pool, mongosh, &db_uri, &setup)
        .map_err(|e| format!("{name}: setup.js: {e}"))?;
    if out.matches("squill setup: done").count() != 2 {
        return Err(format!("{name}: setup.js did not finish twice: {out}"));
    }
    let t1 = std::time::Instant::now();
    let mut cmd = Command::new(python);
    cmd.arg(&harness)
        .args(["--uri", uri, "--db", &db, "--dir"])
        .arg(&dir.0)
        .arg("--broken")
        .arg(&broken);
    for op in &known {
        cmd.args(["--expect-fail", op]);
    }
    // Then the Node.js cookbook, on the same documents loaded again, under
    // the same checks (one long-lived node per checker, not one per call).
    let node_skipped: Vec<&str> = NODE_SKIPPED
        .iter()
        .filter(|(example, _, _)| *example == name)
        .map(|(_, op, _)| *op)
        .collect();
    // `SQUILL_TEST_NODE_COOKBOOK=0` leaves it out (to measure what it
    // costs, issue 47).
    let wanted = std::env::var("SQUILL_TEST_NODE_COOKBOOK").as_deref() != Ok("0");
    let node = wanted && (on_path("node") || missing::<()>("node").is_some());
    if node {
        cmd.arg("--node");
        for (_, op, why) in NODE_SKIPPED.iter().filter(|(e, _, _)| *e == name) {
            cmd.args(["--node-skip", &format!("{op}={why}")]);
        }
    }
    // Then the mongosh cookbook, on the documents loaded again, under the
    // checks of `otherwise` and of the nearest-first reads (its other
    // functions' effects: check_cookbook_effects.js). Only where the
    // design has such a function: the mongosh it starts costs more than
    // the checks (issue 47).
    // `SQUILL_TEST_MONGOSH_COOKBOOK=0` leaves it out (to measure what it
    // costs, as for Node.js).
    let shell = std::env::var("SQUILL_TEST_MONGOSH_COOKBOOK").as_deref() != Ok("0")
        && nothing_matched_or_nearest(design) > 0;
    if shell {
        cmd.arg("--mongosh").arg(mongosh);
    }
    // Served by a long-lived Python of `pythons` (one start per rayon
    // worker, not per example); as its own process otherwise
    // (`SQUILL_TEST_PYTHON_SERVER=0`).
    let out = match pythons.run(&cmd) {
        Some(served) if served.code == 0 => Ok(format!("{}{}", served.stdout, served.stderr)),
        Some(served) => Err(format!(
            "{cmd:?} failed (exit status {}):\n{}{}",
            served.code, served.stdout, served.stderr
        )),
        None => try_run(&mut cmd),
    }
    .map_err(|e| format!("{name}: {e}"))?;
    // The wall times say which examples hold the test up (issue 47).
    eprintln!(
        "{name}: setup.js twice {:.1} s, checks {:.1} s:\n{out}",
        (t1 - t0).as_secs_f64(),
        t1.elapsed().as_secs_f64()
    );
    let broken_count = std::fs::read_to_string(&broken).unwrap().lines().count();
    if out.matches("refused (121)").count() != broken_count {
        return Err(format!(
            "{name}: not every broken document was refused:\n{out}"
        ));
    }
    // Issue 41: each top-level GeoJSON point takes whole numbers (ints)
    // and turns away a position of one number and a latitude past 90
    // (check_generated.py's check_points).
    let points = design
        .collections
        .iter()
        .flat_map(|c| &c.shape.fields)
        .filter(|f| f.ty.geojson() == Some(crate::design::GEOJSON_POINT))
        .count();
    if out.matches("(ints) is taken").count() != points
        || out.matches("is turned away (code 121)").count() != 2 * points
    {
        return Err(format!(
            "{name}: not every GeoJSON point was checked ({points}):\n{out}"
        ));
    }
    if out.matches("ok: cookbook ").count() != design.operations.len() - known.len() {
        return Err(format!(
            "{name}: not every cookbook operation was checked:\n{out}"
        ));
    }
    // What `otherwise` promises, called with nothing to match: each
    // function whose conditional write or claim fails then, and each
    // atomic group kept by undo, in each cookbook checked.
    let fails = design
        .operations
        .iter()
        .filter(|p| {
            p.steps.iter().any(|s| {
                s.otherwise == Some(crate::model::Otherwise::Fail)
                    && s.if_matched.is_none()
                    && matches!(
                        s.action,
                        Action::UpdateOne
                            | Action::UpdateMany
                            | Action::DeleteOne
                            | Action::DeleteMany
                            | Action::FindOneAndUpdate
                    )
            })
        })
        .count();
    let mut undone: Vec<&str> = design
        .operations
        .iter()
        .flat_map(|p| &p.warnings)
        .filter_map(|w| match w {
            crate::design::Warning::Compensated { group } => Some(group.as_str()),
            _ => None,
        })
        .collect();
    undone.sort_unstable();
    undone.dedup();
    let cookbooks = 1 + usize::from(node) + usize::from(shell);
    if out.matches("ok: otherwise: ").count() != (fails + undone.len()) * cookbooks {
        return Err(format!(
            "{name}: not every nothing-matched case ({fails} failing, {} undone) was checked:\n{out}",
            undone.len()
        ));
    }
    // Each read of the nearest places with a limit, checked to return
    // the nearest first where more lie within its radius than it keeps.
    let nearest = design
        .operations
        .iter()
        .filter(|p| {
            p.steps.iter().any(|s| {
                s.action == Action::Find
                    && s.sort.is_empty()
                    && s.limit.is_some()
                    && s.filter
                        .iter()
                        .any(|f| f.op == crate::model::FilterOp::Near)
            })
        })
        .count();
    if out.matches("ok: nearest first: ").count() != nearest * cookbooks {
        return Err(format!(
            "{name}: not every nearest-first read ({nearest}) was checked:\n{out}"
        ));
    }
    // Each atomic group with an insert after another: a duplicate key
    // there must undo the earlier insert, in each cookbook.
    let failed_writes = undone
        .iter()
        .filter(|g| insert_after_insert(design, g))
        .count();
    if out.matches("ok: undone after a failed write: ").count() != failed_writes * cookbooks {
        return Err(format!(
            "{name}: not every group with an insert after another ({failed_writes}) was undone after a duplicate key:\n{out}"
        ));
    }
    if node
        && out.matches("ok: node cookbook ").count()
            != design.operations.len() - known.len() - node_skipped.len()
    {
        return Err(format!(
            "{name}: not every Node.js cookbook operation was checked:\n{out}"
        ));
    }
    Ok(())
}

/// The operations whose `otherwise` the checks call with nothing to
/// match, the atomic groups kept by undo, and the nearest-first reads
/// with a limit: what the mongosh cookbook is run for.
fn nothing_matched_or_nearest(design: &Design) -> usize {
    design
        .operations
        .iter()
        .filter(|p| {
            p.warnings
                .iter()
                .any(|w| matches!(w, crate::design::Warning::Compensated { .. }))
                || p.steps.iter().any(|s| {
                    (s.otherwise == Some(crate::model::Otherwise::Fail) && s.if_matched.is_none())
                        || (s.action == Action::Find
                            && s.limit.is_some()
                            && s.filter
                                .iter()
                                .any(|f| f.op == crate::model::FilterOp::Near))
                })
        })
        .count()
}

/// Whether atomic group `group` has an operation that inserts after
/// another that inserts, before its conditional write runs (last): the
/// write a duplicate key is provoked on (check_generated.py,
/// `check_undone_after_a_failed_write`). A document parameter is what
/// the check gives a taken `_id`: an insert of a whole new document.
fn insert_after_insert(design: &Design, group: &str) -> bool {
    let inserts = design
        .operations
        .iter()
        .filter(|p| {
            p.warnings.iter().any(
                |w| matches!(w, crate::design::Warning::Compensated { group: g } if g == group),
            )
        })
        .filter(|p| {
            !p.steps
                .iter()
                .any(|s| s.otherwise == Some(crate::model::Otherwise::Undo))
        })
        .filter(|p| p.steps.iter().any(|s| s.action == Action::InsertOne))
        .count();
    inserts > 1
}

/// Functions of the Node.js cookbooks that are not run against the server,
/// with what the server lacks for them (example, function, reason): printed
/// as SKIP by the checks, and the count of checked functions leaves them out.
const NODE_SKIPPED: &[(&str, &str, &str)] = &[];

#[test]
fn fixture_artifacts_work_against_a_server() {
    let Some(tools) = server_tools() else { return };
    let pools = (&Pool::default(), &PythonPool::default());
    // At most 100 children per parent, as the seed examples are cut at 40:
    // uncut, scale 3 gave issue-tracker 513,593 documents and
    // sensor-readings' checks 314 s of the one server's time, for the same
    // checks passing (issue 47; BENCHMARKS.md, "Test suite time").
    let options = DataOptions {
        max_children: Some(100),
        ..DataOptions::new(3, 17)
    };
    // SQUILL_TEST_FIXTURES=a,b limits the run to those fixtures (while debugging).
    let only = std::env::var("SQUILL_TEST_FIXTURES")
        .ok()
        .filter(|s| !s.is_empty());
    // Side by side, each design in its own database (issue 47).
    let failures: Vec<String> = fixtures::all()
        .into_par_iter()
        .filter(|(name, _, _)| {
            only.as_ref()
                .is_none_or(|o| o.split(',').any(|x| x == *name))
        })
        .filter_map(|(name, model, design)| {
            // Fixtures share names with examples (host-logs): their own
            // database and directory keep the two tests apart.
            let name = format!("fixture-{name}");
            check_against_server(&tools, pools, &name, &model, &design, &options, &[]).err()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Operations of the example designs that cannot work as the advisor plans
/// them today, with why: the checks expect them to fail (and fail when one
/// starts to pass, so this list shrinks). They are flaws of the design, not
/// of the generated code or of the server; reported to the advisor's owner.
/// (Empty since RUBiS's `search_items_by_region` filters on the seller's
/// `region` field rather than on the relationship's name.)
const KNOWN_DESIGN_FLAWS: &[(&str, &str, &str)] = &[];

#[test]
fn seed_example_artifacts_work_against_a_server() {
    let Some(tools) = server_tools() else { return };
    let pools = (&Pool::default(), &PythonPool::default());
    let options = DataOptions {
        max_children: Some(40),
        ..DataOptions::new(2, 17)
    };
    // SQUILL_TEST_EXAMPLES=a,b limits the run to those examples (while debugging).
    let only = std::env::var("SQUILL_TEST_EXAMPLES")
        .ok()
        .filter(|s| !s.is_empty());
    // Side by side, each example in its own database (issue 47).
    let failures: Vec<String> = crate::synthetic::tests::seed_examples()
        .into_par_iter()
        .filter(|(name, _, _)| {
            only.as_ref()
                .is_none_or(|o| o.split(',').any(|x| x == name))
        })
        .filter_map(|(name, model, design)| {
            check_against_server(
                &tools,
                pools,
                &name,
                &model,
                &design,
                &options,
                KNOWN_DESIGN_FLAWS,
            )
            .err()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `mongodb://host:port/?opts` → `mongodb://host:port/DB?opts`.
pub(super) fn database_uri(uri: &str, db: &str) -> String {
    let (base, query) = match uri.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (uri, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let mut out = format!("{}/{db}", &base[..host_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

#[test]
fn database_uri_inserts_the_name() {
    assert_eq!(
        database_uri("mongodb://127.0.0.1:1234", "x"),
        "mongodb://127.0.0.1:1234/x"
    );
    assert_eq!(
        database_uri("mongodb://127.0.0.1:1234/?directConnection=true", "x"),
        "mongodb://127.0.0.1:1234/x?directConnection=true"
    );
}

/// mongosh's `db`, stubbed in node: each call records the collection it
/// names, so running a setup script shows which collections it touches.
const RECORDING_DB: &str = r#"
const seen = [];
globalThis.db = {
  getCollectionNames: () => [],
  createCollection: (name) => { seen.push(name); },
  runCommand: (cmd) => { seen.push(cmd.collMod || cmd.createIndexes); return { ok: 1 }; },
};
globalThis.print = () => {};
const vm = require("vm");
for (const f of process.argv.slice(1)) vm.runInThisContext(require("fs").readFileSync(f, "utf8"), { filename: f });
process.stdout.write(JSON.stringify([...new Set(seen)].sort()));
"#;

/// Issue 40, item 2: names with line feeds, carriage returns, U+2028/U+2029,
/// quotes and backslashes end no comment and no string. Every script
/// parses; the setup scripts, run against a recording `db`, touch exactly
/// the design's collections; the Python module imports and its `PLAN`
/// holds the operations' names as they are.
#[test]
fn scripts_from_hostile_names_parse_and_keep_the_names() {
    if !on_path("node") {
        return missing::<()>("node").unwrap_or(());
    }
    let python = venv_python().or_else(|| on_path("python3").then(|| PathBuf::from("python3")));
    let Some(python) = python.or_else(|| missing("python3")) else {
        return;
    };
    let (model, design) = fixtures::hostile_names();
    let dir = out_dir("hostile-names");
    write_artifacts(
        &dir.0,
        &artifacts(&model, &design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    for file in [
        "setup.js",
        "validators.js",
        "indexes.js",
        "cookbook.mongosh.js",
        "cookbook.js",
    ] {
        run(Command::new("node")
            .arg("--check")
            .arg(wrapped(&dir.0, file)));
    }
    let mut collections: Vec<&str> = design.collections.iter().map(|c| c.name.as_str()).collect();
    collections.sort_unstable();
    for file in ["setup.js", "validators.js"] {
        let out = run(Command::new("node")
            .args(["-e", RECORDING_DB])
            .arg(dir.0.join(file)));
        let seen: Vec<String> = serde_json::from_str(&out).unwrap();
        assert_eq!(seen, collections, "{file}");
    }
    run(Command::new("node")
        .arg("-e")
        .arg(
            "const m = require(process.argv[1]); if (Object.keys(m).length === 0) process.exit(3);",
        )
        .arg(dir.0.join("cookbook.js")));
    let out = run(Command::new(&python)
        .arg("-c")
        .arg("import json, sys; sys.path.insert(0, sys.argv[1]); import cookbook; print(json.dumps(sorted(p[\"operation\"] for p in cookbook.PLAN.values())))")
        .arg(&dir.0));
    let names: Vec<String> = serde_json::from_str(out.trim()).unwrap();
    let mut expected: Vec<&str> = design
        .operations
        .iter()
        .map(|o| o.operation.as_str())
        .collect();
    expected.sort_unstable();
    assert_eq!(names, expected);
    // The Markdown beside them: no line a name's line feed began (outside
    // the code blocks, whose names are the scripts' own).
    for file in ["README.md", "cookbook.md"] {
        let text = std::fs::read_to_string(dir.0.join(file)).unwrap();
        let mut in_code = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_code = !in_code;
            } else if !in_code {
                assert!(
                    !line.starts_with("view") && !line.starts_with("esses'"),
                    "{file}: a name forged the line {line:?}"
                );
            }
        }
    }
}

/// The fixture `name`'s artifacts and data (scale 3, at most 100 children
/// a parent) written, its setup.js run against the server in a database
/// of its own, then scripts/testenv/check_cookbook_effects.js there: what
/// that script printed.
fn cookbook_effects(uri: &str, mongosh: &Path, name: &str) -> String {
    let (model, design) = fixtures::load(name);
    let dir = out_dir(&format!("effects-{name}"));
    write_artifacts(
        &dir.0,
        &artifacts(&model, &design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    let options = DataOptions {
        max_children: Some(100),
        ..DataOptions::new(3, 17)
    };
    data::write(&model, &design, &options, &dir.0).unwrap();
    let plan = cookbook::plan_json(&cookbook::op_codes(&design));
    std::fs::write(dir.0.join("plan.json"), plan.to_string()).unwrap();
    let db = format!(
        "squill_effects_{}_{}",
        name.replace('-', "_"),
        std::process::id()
    );
    let db_uri = database_uri(uri, &db);
    let setup = run(Command::new(mongosh)
        .args(["--quiet", "--norc", &db_uri])
        .arg(dir.0.join("setup.js")));
    assert!(setup.contains("squill setup: done"), "{setup}");
    let out = try_run(
        Command::new(mongosh)
            .args(["--quiet", "--norc", &db_uri])
            .arg(repo_root().join("scripts/testenv/check_cookbook_effects.js"))
            .env("SQUILL_CHECK_DIR", &dir.0),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{out}");
    out
}

/// Issue 41: the mongosh cookbook's bulk writes and paged reads run
/// against the server, and what they do is checked by
/// scripts/testenv/check_cookbook_effects.js: each product's stock taken
/// down by its own item's quantity (and no other product's), a customer's
/// orders in pages (from the last one seen, and by number with `skip`)
/// that are disjoint, in order and complete, also where the sort key ties
/// across a page's edge, and by size then date (a sort of two keys, most
/// orders sharing their size with a page's last: a keyset page from the
/// size alone skipped them). check_generated.py runs the
/// Python cookbook of the same fixture (fixture_artifacts_work_against_a_server).
#[test]
fn bulk_writes_and_keyset_pages_do_what_they_say_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let out = cookbook_effects(&uri, &mongosh, "order-stock");
    assert!(
        out.contains("checked 1 bulk write(s), 2 keyset read(s), 2 read(s) paged by skip"),
        "{out}"
    );
    assert_eq!(out.matches("ok: ").count(), 5, "{out}");
}

/// Issue 41: a bucket's reading edited and one deleted, and a product's
/// review edited and one deleted, by the mongosh cookbook against the
/// server; after each, the figures the bucket keeps (count, sum, min, max)
/// equal those its readings give, and the product's greatest and latest
/// rating those its reviews give (scripts/testenv/check_cookbook_effects.js).
/// The edits lower the greatest value below every other, so a `$set`
/// through `$`, or a `$max`, that left the max as it was fails; the deletes
/// remove it, so a `$pull`, or a delete that left the product as it was,
/// fails. The delete runs again on a product's last review (its figures
/// must become null, which the validator takes), and the purge of a
/// rating must take each product's count down by the reviews it lost, and
/// set the figures of a product it left with no review to null; the
/// product's kept sum of ratings equals that of its reviews after each of
/// them (the purge's grouped `$sum` of the ratings each product lost). A drop
/// that empties a bucket (two at once) leaves a count of 0 and a sum of a
/// double 0 the validator takes. The comments' buckets of a count keep
/// figures of int votes: a vote changed, a comment deleted, the last of a
/// bucket's comments deleted (the bucket kept, its figures those of none),
/// and new comments upserted (into a parent's open bucket, and into one
/// the upsert opens, with its page), each taken by the validator, whose
/// least and greatest votes are ints as the writes store them.
#[test]
fn bucket_figures_stay_true_after_an_edit_and_a_delete_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let out = cookbook_effects(&uri, &mongosh, "bucket-edits");
    assert!(
        out.contains(
            "checked 4 write(s) that recompute stored figures, 4 that set figures read again (2 of them on a parent's last child too), 2 that set them for every parent touched, 1 that count each parent down by its own amount (1 of them with another delete in between), 2 insert(s) into buckets"
        ),
        "{out}"
    );
    assert_eq!(out.matches("ok: ").count(), 20, "{out}");
    // The purge with another delete between its group and its
    // `deleteMany` (issue 41): the same purge run again (a retry while the
    // first is in flight), and one of its reviews deleted with its
    // product's count taken down by it. Each product's count and sum then
    // equal what its reviews left give: counted down once, or counted
    // again when the purge deleted fewer than it found.
    for other in [
        "with the same delete run in between, reviews_count, reviews_sum_rating of the ",
        "review deleted in between, reviews_count, reviews_sum_rating of the ",
    ] {
        assert!(out.contains(other), "{other}: {out}");
    }
    // The bucket of a count, over int votes: emptied by a drop (no delete
    // of it runs first), and opened by an insert.
    assert!(
        out.contains("ok: delete_comment/post_comments: count, sum_votes, min_votes, max_votes of post_comments")
            && out.contains("left with no comments are those of none, and its validator takes them\n"),
        "{out}"
    );
    for insert in [
        "ok: record/sensor_readings: ",
        "ok: add_comment/post_comments: ",
    ] {
        assert!(
            out.contains(insert) && out.contains("after 3 inserts (into the least full bucket, and one it opens), its validator on"),
            "{out}"
        );
    }
    assert!(out.contains("(its last one deleted: null)"), "{out}");
    // The kept sum of ratings: moved by an edit and a delete, and taken
    // down by the grouped `$sum` of what each product lost in the purge,
    // it equals the sum of the reviews left.
    assert!(
        out.contains(": reviews_count, reviews_sum_rating of the ")
            && out.contains("equal what their children left give"),
        "{out}"
    );
    assert_eq!(
        out.matches("reviews_count, reviews_sum_rating of product")
            .count(),
        6,
        "{out}"
    );
    // A bucket the drop's update empties (two drops at once): its sum a
    // double 0, which the validator takes (`$sum` alone gave an int 0).
    assert!(
        out.contains("left with no readings are those of none, and its validator takes them"),
        "{out}"
    );
    // A parent the purge left with no review: its figures null, not the
    // deleted reviews' (a write from the groups alone missed it).
    assert!(out.contains("(1 left with none: null)"), "{out}");
    assert!(
        out.contains("deleted when the last of its readings was dropped"),
        "{out}"
    );
    assert!(!out.contains("FAIL"), "{out}");
}

/// Issue 41: comments in buckets of a count whose post also keeps the
/// count, sum, min, max and last of all its comments (fixture
/// bucket-count-parent-figures). The edit and the delete write the bucket
/// by the comment's filter and the post by its id, and the post's min and
/// max are read again from its buckets' own figures, its last from its
/// newest bucket that holds comments: run on the newest comment of a post
/// one of whose older buckets keeps a greater last value, the bucket with
/// the greatest `last_votes` gives a wrong last. The delete runs again
/// with the same arguments and must leave the post as it was (its count
/// went down once). The delete run on each comment of a post's oldest
/// bucket empties it: a bucket's last of none is null, which the
/// validator takes; an edit retried after another edit of the same
/// comment moves nothing (its bucket write tests the old votes, issue 41), and the read of the oldest page (`comment_page`)
/// skips the emptied bucket. A delete of all a post's comments deletes its buckets
/// and sets its figures to those of none, which the validator takes.
#[test]
fn bucket_and_parent_figures_stay_true_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let out = cookbook_effects(&uri, &mongosh, "bucket-count-parent-figures");
    assert!(
        out.contains(
            "checked 2 edit(s) and delete(s) of a bucketed child whose parent keeps figures too (2 of them on the newest child, for the parent's last; 1 emptying a bucket), 1 delete(s) of all a parent's bucketed children"
        ),
        "{out}"
    );
    for (op, how) in [
        (
            "vote",
            "the least votes raised above every other, and again with the same arguments, and again after another edit of the same child",
        ),
        (
            "vote",
            "the latest votes lowered below every other, and again with the same arguments, and again after another edit of the same child",
        ),
        (
            "delete_comment",
            "the least votes deleted, and again with the same arguments",
        ),
        (
            "delete_comment",
            "the latest votes deleted, and again with the same arguments",
        ),
        (
            "delete_comment",
            "the oldest bucket's votes deleted one by one until its oldest bucket was empty, and again with the same arguments; comment_page skips the emptied bucket",
        ),
    ] {
        assert!(
            out.contains(&format!("ok: {op}/post_comments: "))
                && out.contains("comments_count, comments_sum_votes, comments_min_votes, comments_max_votes, comments_last_votes of post ")
                && out.contains(&format!("({how}), its validators on")),
            "{op}, {how}: {out}"
        );
    }
    assert!(
        out.contains("ok: clear_comments/post_comments: ")
            && out.contains("set to those of none by the retry after a failure between the two writes, its validator on"),
        "{out}"
    );
    // The insert into the open bucket (the parent's figures beside it).
    assert!(out.contains("ok: add_comment/post_comments: "), "{out}");
    // Count buckets in arrival order: a delete in an old page, then
    // inserts, and the new children still come last by page (issue 41).
    assert!(
        out.contains("inserts, the comments read by page end with the inserted ones in order")
            && out.contains("and the newest bucket by page keeps the newest last_votes"),
        "{out}"
    );
    assert_eq!(out.matches("ok: ").count(), 8, "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// Issue 41: readings in hour buckets whose sensor keeps the count, sum,
/// min and max of all its readings (fixture bucket-time-parent-figures). A
/// drop of a bucket's last reading deletes the bucket, and the pull after
/// it then matches nothing: the sensor's figures move on the gate
/// "matched, or the delete before deleted" (`or_deleted`), which no other
/// fixture produced. check_cookbook_effects.js runs the mongosh
/// cookbook's drops and compares the sensor's figures with its readings'.
#[test]
fn a_time_bucket_deleted_with_its_last_child_moves_the_parent_figures_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let out = cookbook_effects(&uri, &mongosh, "bucket-time-parent-figures");
    assert!(
        out.contains(
            "checked 1 edit(s) and delete(s) of a bucketed child whose parent keeps figures too (0 of them on the newest child, for the parent's last; 1 emptying a bucket)"
        ),
        "{out}"
    );
    // The drops one by one until a bucket is empty: the last deletes the
    // bucket, the pull then matches nothing, and the sensor's count and
    // sum must still go down (the gate's `or_deleted`).
    assert!(
        out.contains("readings_count, readings_sum_value, readings_min_value, readings_max_value of sensor ")
            && out.contains("(the newest bucket's value deleted one by one until its newest bucket was empty, and again with the same arguments), its validators on"),
        "{out}"
    );
    assert_eq!(out.matches("ok: ").count(), 3, "{out}");
}

/// The artifacts of `(model, design)` written to a directory of their own
/// (`dir`), then `script` run by the tests' Python (`python -c SCRIPT DIR
/// DB_URI DB`) against a database of its own (`db`, made unique by the
/// process id): a check small enough to live beside its test. Its output.
pub(super) fn run_inline_python(
    (uri, python): (&str, &Path),
    (model, design): (&Model, &Design),
    (dir, db): (&str, &str),
    script: &str,
) -> String {
    let dir = out_dir(dir);
    write_artifacts(
        &dir.0,
        &artifacts(model, design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    let db = format!("{db}_{}", std::process::id());
    try_run(
        Command::new(python)
            .args(["-c", script])
            .arg(&dir.0)
            .arg(database_uri(uri, &db))
            .arg(&db),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The artifacts of `(model, design)` written to a directory of their own
/// (`dir`), then `scripts/testenv/SCRIPT DIR URI DB MONGOSH ARGS…` run with
/// the tests' Python against a database of its own (`db`, made unique by
/// the process id); with `setup`, the design's setup.js first, through a
/// mongosh of its own. The script's output: the caller checks what it says.
pub(super) fn run_check_script(
    tools: (&str, &Path, &Path),
    design: (&Model, &Design),
    dir: (&str, &str, bool),
    script: (&str, &[&str]),
) -> String {
    run_check_script_on_data(tools, design, dir, None, script)
}

/// `run_check_script`, with the design's synthetic data written into the
/// directory too (data/*.json) when `data` says how.
pub(super) fn run_check_script_on_data(
    (uri, python, mongosh): (&str, &Path, &Path),
    (model, design): (&Model, &Design),
    (dir, db, setup): (&str, &str, bool),
    data: Option<&DataOptions>,
    (script, args): (&str, &[&str]),
) -> String {
    let dir = out_dir(dir);
    write_artifacts(
        &dir.0,
        &artifacts(model, design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    if let Some(options) = data {
        data::write(model, design, options, &dir.0).unwrap();
    }
    let db = format!("{db}_{}", std::process::id());
    if setup {
        let db_uri = database_uri(uri, &db);
        let out = run(Command::new(mongosh)
            .args(["--quiet", "--norc", &db_uri])
            .arg(dir.0.join("setup.js")));
        assert!(out.contains("squill setup: done"), "{out}");
    }
    try_run(
        Command::new(python)
            .current_dir(repo_root())
            .arg(format!("scripts/testenv/{script}"))
            .arg(&dir.0)
            .arg(uri)
            .arg(&db)
            .arg(mongosh)
            .args(args),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Issue 41: inserts at once into count buckets, on a parent with no open
/// bucket, each passing page 0. The unique `{post, page}` index refuses a
/// page opened twice, and the Python cookbook's upsert runs again at the
/// next page, joining the bucket the other writer opened
/// (scripts/testenv/check_page_race.py): each page is held by one bucket,
/// and the buckets' count, arrived and children add up to the inserts.
#[test]
fn inserts_at_once_open_each_page_once_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "bucket-count-parent-figures";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("page-race-{name}"), "squill_page_race", true),
        ("check_page_race.py", &[]),
    );
    assert!(
        out.contains("checked 1 bucket upsert(s) that retry a page taken")
            && out
                .contains("ok: python add_comment/post_comments: 85 inserts in two rounds at once")
            && out
                .matches("with pages [0, 1], each page held by one bucket")
                .count()
                == 3,
        "{out}"
    );
    for lang in ["mongosh", "node"] {
        assert!(
            out.contains(&format!(
                "ok: {lang} add_comment/post_comments: 85 inserts in two rounds one after the other"
            )),
            "{out}"
        );
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// Issue 41: batches of new children (fixture batch-buckets) stored by the
/// three cookbooks (scripts/testenv/check_batch_buckets.py): batches of
/// comments that cross a count bucket's edge, one larger than a bucket,
/// must store each comment once, in the order sent when read by page,
/// each bucket's count its length and at most 50, and move the post's
/// count, sum, least, greatest and last by the whole batch; batches of
/// readings into hour buckets likewise; batches of lines go whole into
/// their order until its bound, and the one past it fails with nothing
/// stored. The same code once pushed one child and counted one.
#[test]
fn batches_into_buckets_and_arrays_store_every_child_once_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "batch-buckets";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("batches-{name}"), "squill_batches", false),
        ("check_batch_buckets.py", &[]),
    );
    assert!(
        out.contains("checked 3 batch insert(s) into buckets or their parent's array"),
        "{out}"
    );
    for lang in ["python", "mongosh", "node"] {
        assert!(
            out.contains(&format!(
                "ok: {lang} add_comments/post_comments: 140 children in batches [30, 30, 10, 70] stored once each, in pages [(0, 30), (1, 40), (2, 50), (3, 20)] in the order sent, each count its length and at most 50; comments_count, comments_sum_votes, comments_min_votes, comments_max_votes, comments_last_votes of the post moved by the whole batches"
            )),
            "{lang}: {out}"
        );
    }
    for lang in ["python", "node"] {
        assert!(
            out.contains(&format!(
                "ok: {lang} record/sensor_readings: 168 children in batches [36, 36, 12, 84] stored once each"
            )) && out.contains(&format!(
                "ok: {lang} add_lines/order: batches of 5 pushed whole into lines (5 to 20, at most 20), the next one refused with nothing stored"
            )),
            "{lang}: {out}"
        );
    }
    assert_eq!(out.matches("ok: ").count(), 7, "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// Audit48 A5: an atomic group with `same: auction` (fixture
/// bid-one-auction) records the caller's bid, then raises the auction's
/// price. A bid naming another auction than the call's was recorded there
/// while the first auction's price changed; each cookbook's group function
/// must refuse it before any write, and record a bid naming none, or its
/// own, on the call's auction (scripts/testenv/check_same_instance.py).
#[test]
fn a_group_of_one_instance_refuses_a_document_naming_another_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "bid-one-auction";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            &format!("same-instance-{name}"),
            "squill_same_instance",
            true,
        ),
        ("check_same_instance.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 1 group(s) of one instance (same:)",
        &["ok: {lang} place_bid: new_bid naming another auction refused with nothing written"],
    );
}

/// Issue 41: a link whose condition tests the team, kept in the users only
/// (fixture join-open-teams), is guarded by a conditional `$inc` of the
/// team's `_version` in one transaction with the link. Another transaction
/// holding the team (a join of the same team, the team closed) makes the
/// guard a write conflict: each cookbook's transaction must run again and
/// commit once the other has, not fail the call
/// (scripts/testenv/check_guard_conflict.py). Python's and mongosh's used
/// to raise the WriteConflict to the caller.
#[test]
fn a_guarded_link_waits_out_a_conflicting_transaction_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "join-open-teams";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            &format!("guard-conflict-{name}"),
            "squill_guard_conflict",
            true,
        ),
        ("check_guard_conflict.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 1 guarded operation(s) against a conflicting transaction",
        &[
            "ok: {lang} join: the guard on team met another transaction's write, ran again and committed",
        ],
    );
}

/// Audit43 O: a claim by a place (fixture geo-claim, `near(3 km)`) is a
/// `findOneAndUpdate` with `$near` within 3,000 m on the `2dsphere` index
/// `indexes.js` creates. Against a server, in each language, it claims
/// an order 1 km away, leaves one 5 km away, then finds nothing
/// (scripts/testenv/check_geo_claim.py). It once keyed the point on a
/// B-tree and tested `$maxDistance: 0`, and claimed nothing.
#[test]
fn a_claim_by_a_place_claims_within_its_radius_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = fixtures::geo_claim();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("geo-claim", "squill_geo_claim", false),
        ("check_geo_claim.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 1 claim(s) by a place",
        &[
            "ok: {lang} grab_nearby: claimed the order 1 km away, left the one 5 km away (radius 3000 m), then found nothing",
        ],
    );
}

/// Audit43 B: a take of the caller's amount, never below 0 (fixture
/// stock-take: `increments: {available: -quantity}`, `when: ["available >=
/// quantity"]`), is one `updateOne` whose filter and `$inc` take the one
/// parameter. Against a server, in each language, taking 5 when 3 are
/// left changes nothing and fails with "nothing matched", and taking 3
/// leaves 0. The group `reserve`, kept by compensation, adds the caller's
/// amount to the warehouse first: when its take matches nothing, the
/// group's function takes that `$inc` back by its opposite
/// (scripts/testenv/check_amount.py). The undo once deleted only inserts,
/// and the held units stayed added.
#[test]
fn a_take_of_the_callers_amount_and_its_undo_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "stock-take";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("amount-{name}"), "squill_amount", false),
        ("check_amount.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 1 take(s) of the caller's amount and 1 group(s) that take an amount back",
        &[
            "ok: {lang} take: amounts of 0 and -3 refused; taking 5 when 3 are left changed nothing (nothing matched); taking 3 left 0 (int)",
            "ok: {lang} reserve: a take of 5 with 3 left failed and took back the earlier $inc (10 again); a take of 3 kept both (13, 0)",
        ],
    );
}

/// Audit48 A4: a group that inserts a hold, whose amount the account's
/// kept sum takes (fixture `hold-sum`), then takes the account's funds
/// only if enough remain. Against a server, in each language, a take the
/// funds cannot meet fails and leaves every document as it was: the hold
/// deleted and the sum lowered by the hold's own amount
/// (scripts/testenv/check_amount.py). The undo once deleted the hold
/// alone, and the sum stayed raised while the report said it was taken
/// back.
#[test]
fn an_undone_insert_takes_back_the_sum_it_raised_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "hold-sum";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("amount-{name}"), "squill_hold_sum", false),
        ("check_amount.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 0 take(s) of the caller's amount and 1 group(s) that take an amount back",
        &[
            "ok: {lang} authorize: a take of 5 with 3 left failed and left every document as it was (the hold inserted and the figures it moved taken back); a take of 3 left 0",
        ],
    );
}

/// Issue 41: the caller's amount in a long and in a decimal field
/// (fixture `stock-take-kinds`, its validators set up). Against a server, in
/// each language, an amount of 0 or below is refused with the field
/// unchanged, and a take in the field's own type (an Int64, a Decimal128)
/// leaves 0 of that type (scripts/testenv/check_amount.py). JavaScript's
/// `0 - x` once made the Long a double, which the validator refused, and
/// Python's `-x` failed on a Decimal128; a negative amount once added stock.
#[test]
fn a_take_of_a_long_or_decimal_amount_keeps_its_type_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "stock-take-kinds";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("amount-{name}"), "squill_amount_kinds", true),
        ("check_amount.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 2 take(s) of the caller's amount and 0 group(s) that take an amount back",
        &[
            "ok: {lang} take_units: amounts of 0 and -9007199254740995 refused; taking 9007199254740997 when 9007199254740995 are left changed nothing (nothing matched); taking 9007199254740995 left 0 (long)",
            "ok: {lang} draw: amounts of 0 and -1234567890.123456789 refused; taking 1234567892.123456789 when 1234567890.123456789 are left changed nothing (nothing matched); taking 1234567890.123456789 left 0 (decimal)",
        ],
    );
}

/// feed44: a feed read on demand over follows kept as an outlier (most in
/// the followed player's `followers` array, the rest in the follow
/// collection) finds the players followed in both places. Against a
/// server, in each language, a reader follows one player through an
/// embedded follow and one through a follow apart: the feed returns the
/// results of both and none of a player followed by someone else
/// (scripts/testenv/check_outlier_feed.py, `fixtures::outlier_feed`: the
/// audit's leaderboard with its follows pinned). The feed once read the
/// follow collection alone and missed the first.
#[test]
fn a_feed_over_outlier_follows_reads_both_places_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = fixtures::outlier_feed();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("outlier-feed", "squill_outlier_feed", false),
        ("check_outlier_feed.py", &[]),
    );
    says_in_each_language(
        &out,
        "checked 1 feed(s) over outlier follows",
        &[
            "ok: {lang} friend_feed: the feed has the posts of the parent followed through an embedded follow and of the one followed through a follow apart, none of another",
        ],
    );
}

/// Issue 41: under a tenant, every write of a cookbook function tests the
/// tenant it is called with, the writes its plan adds too (a product's
/// count and sum of reviews, a customer's name copied into her orders, a
/// bulk count-down after a purge, a line through its order's `_id`, a
/// customer's orders deleted by her id with no find of her first, since
/// the orders carry the store too). Called
/// with another store and the ids of one store's documents, nothing of that
/// store changes; called with their own store, something does (the call
/// reaches its writes), in each language, on the synthetic data as
/// generated (a store's documents reference only that store's)
/// (scripts/testenv/check_tenant_scope.py, fixture tenant-writes).
#[test]
fn a_write_with_another_tenants_ids_changes_nothing_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "tenant-writes";
    let (model, design) = fixtures::load(name);
    // A few stores (one per language), a few documents of each.
    let options = DataOptions {
        max_children: Some(6),
        format: crate::synthetic::DataFormat::Ejson,
        ..DataOptions::new(5, 17)
    };
    let out = run_check_script_on_data(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            &format!("tenant-scope-{name}"),
            "squill_tenant_scope",
            false,
        ),
        Some(&options),
        ("check_tenant_scope.py", &["store"]),
    );
    assert!(
        out.contains("checked 8 operation(s) whose writes test the tenant"),
        "{out}"
    );
    for op in [
        "rename_customer",
        "write_review",
        "edit_review",
        "drop_review",
        "drop_customer",
        "purge_old_reviews",
        "ship_line",
        "sell",
    ] {
        for lang in ["python", "mongosh", "node"] {
            assert!(
                out.contains(&format!("ok: {lang} {op}: ")),
                "{lang} {op}: {out}"
            );
        }
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// Audit45 gap 1: under a tenant, a read by fields of the entity's own
/// (a visit by its code and date, the visit two steps below its clinic)
/// returns only the caller's clinic's documents, in each language, though
/// another clinic holds a visit of the same code and date
/// (scripts/testenv/check_tenant_read.py, fixture tenant-depth). Before the
/// tenant was carried below the clinic's children, the visit held no
/// clinic and the read returned both clinics' visits.
#[test]
fn a_read_by_own_fields_returns_only_the_callers_tenant_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "tenant-depth";
    let (model, design) = fixtures::load(name);
    let options = DataOptions {
        max_children: Some(3),
        format: crate::synthetic::DataFormat::Ejson,
        ..DataOptions::new(3, 17)
    };
    let out = run_check_script_on_data(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("tenant-read-{name}"), "squill_tenant_read", false),
        Some(&options),
        ("check_tenant_read.py", &["clinic", "visits_by_code"]),
    );
    for lang in ["python", "mongosh", "node"] {
        assert!(
            out.contains(&format!(
                "ok: {lang} visits_by_code: 1 visit of the caller's tenant"
            )),
            "{lang}: {out}"
        );
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// Review46 item 8: under a tenant, an insert of a visit finds its patient
/// in the caller's clinic first. Called with clinic B and a patient of
/// clinic A, each cookbook raises and inserts nothing; called with A and
/// A's patient, it inserts one visit holding A and that patient, though
/// the caller's document named another clinic and patient
/// (scripts/testenv/check_tenant_insert.py, fixture tenant-depth). Before,
/// the insert wrote the caller's document as given.
#[test]
fn an_insert_under_a_tenant_refuses_a_parent_of_another_tenant_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "tenant-depth";
    let (model, design) = fixtures::load(name);
    let options = DataOptions {
        max_children: Some(3),
        format: crate::synthetic::DataFormat::Ejson,
        ..DataOptions::new(3, 17)
    };
    let out = run_check_script_on_data(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            &format!("tenant-insert-{name}"),
            "squill_tenant_insert",
            false,
        ),
        Some(&options),
        (
            "check_tenant_insert.py",
            &["clinic", "record_visit", "patient"],
        ),
    );
    for lang in ["python", "mongosh", "node"] {
        for said in [
            format!("ok: {lang} record_visit with another tenant's parent: refused"),
            format!("ok: {lang} record_visit with the tenant's own parent: 1 visit inserted"),
        ] {
            assert!(out.contains(&said), "{said}: {out}");
        }
    }
    assert!(
        out.contains("no patient with that id in this clinic"),
        "{out}"
    );
    assert!(!out.contains("FAIL"), "{out}");
}

/// Issue 41: an atomic group whose writes all address one show, the seats
/// embedded in it (fixture show-purchase), is one update of the show. Each
/// cookbook's group function, against a server: the held seat A1 is sold
/// and `seats_left` taken down by one (Python's call watched: one
/// `update`, no transaction); the free seat A2 is not sold, nothing
/// changes, and the caller is told (scripts/testenv/check_one_update.py).
#[test]
fn a_group_of_writes_to_one_show_is_one_update_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let name = "show-purchase";
    let (model, design) = fixtures::load(name);
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (&format!("one-update-{name}"), "squill_one_update", false),
        ("check_one_update.py", &["purchase", "buy"]),
    );
    says_in_each_language(
        &out,
        "ok: python purchase(A1): A1 sold and seats_left 5 -> 4 in one update",
        &[
            "ok: {lang} purchase(A1): A1 sold",
            "ok: {lang} purchase(A2): nothing changed",
        ],
    );
}

/// audit43 H: S11's archiving job on a date range that holds a tenth of
/// a batch more than a batch (scripts/testenv/check_archive_job.py). The delete takes
/// the ids the find returned, not the range again (which deleted the half
/// batch the find left, never archived), and the insert skips the
/// documents a run stopped before its delete already copied: after each
/// run every order is in exactly one of `order` and `order_archive`, in
/// each language.
#[test]
fn an_archive_job_loses_nothing_past_its_batch_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let path = format!(
        "{}/../../examples/scenarios/s11-orders.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let model = crate::inputs::model_file::load(std::path::Path::new(&path)).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("archive-job-s11", "squill_archive_job", true),
        // A batch of 100, the job's parameter (its default stays 1,000):
        // the same runs on 110 orders, where 1,100 took 33.6 s, most of it
        // the server's `$in` deletes (BENCHMARKS.md, "Session 41: the clean
        // clone with 1,373 tests").
        ("check_archive_job.py", &["100"]),
    );
    says_in_each_language(
        &out,
        "checked 1 archiving job(s) on a range past their batch",
        &["ok: {lang} archive_order: 110 documents in a range, a batch of 100"],
    );
}

/// audit49 A3: under a tenant the archiving job spans every tenant. Its
/// find takes a batch by age across tenants; its delete took one tenant's
/// part, and the rest stayed in both collections. The documents are
/// spread over three accounts here, and after each run every one is in
/// exactly one collection (scripts/testenv/check_archive_job.py).
#[test]
fn an_archive_job_under_a_tenant_moves_its_whole_batch_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let text = r"
name: archive-tenant
tenant: account
entities:
  account: {count: 20000, fields: {name: string(30)}}
  entry:
    count: 2000000000
    fields: {at: date, actor: {type: string(30), distinct: 500000}, diff: string(400)}
relationships:
  entries: {parent: account, child: entry, children: {min: 0, typical: 100000, max: 40000000}, child_field: account}
operations:
  log: {insert: entry, rate: 30}
  recent_by_actor: {read: entry, filter: {actor: eq, at: since(30 days)}, sort: -at, limit: 50, rate: 10}
";
    let model = crate::inputs::model_file::parse("archive-tenant.yaml", text).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("archive-job-tenant", "squill_archive_tenant", true),
        ("check_archive_job.py", &["30", "account"]),
    );
    says_in_each_language(
        &out,
        "checked 1 archiving job(s) on a range past their batch",
        &["ok: {lang} archive_entry: 33 documents in a range over three tenants, a batch of 30"],
    );
}

/// The test scripts read the cookbooks' results as pymongo names them
/// (issue 41, review): a step gated on a write that matched, or on the
/// delete before it (`or_deleted`: a time bucket deleted with its last
/// reading, which the drop then does not match), holds when that delete
/// deleted (`check_generated.py`'s `when_holds`); and mongosh's
/// `UpdateResult` of an upsert that inserted, whose `_id` mongosh reports
/// as `insertedId`, reaches Python as `upserted_id`
/// (`serve_mongosh_cookbook.js`).
#[test]
fn test_scripts_read_gates_and_upserts_as_pymongo_names_them_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("squill-fix41a-upsert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(
        dir.join("cookbook.mongosh.js"),
        "function up(k) {\n  return {\"s\": db.getCollection(\"probe\").updateOne({\"k\": k}, {\"$set\": {\"v\": 1}}, {\"upsert\": true})};\n}\n",
    )
    .expect("the cookbook is written");
    let script = r#"
import sys
sys.path.insert(0, "scripts/testenv")
import check_generated as c
import mongosh_cookbook as m
gate = {"matched": "drop", "or_deleted": "delete"}
assert c.when_holds(gate, {}, {"drop": {"matched_count": 0}, "delete": {"deleted_count": 1}}), "or_deleted ignored"
assert not c.when_holds(gate, {}, {"drop": {"matched_count": 0}, "delete": {"deleted_count": 0}})
assert c.when_holds({"matched": "drop"}, {}, {"drop": {"matched_count": 1}})
book = m.MongoshCookbook(sys.argv[1], sys.argv[2], sys.argv[3], "fix41a_upsert", {"up": {"params": [{"name": "k"}]}})
first = book.up(None, k=1)["s"]
again = book.up(None, k=1)["s"]
assert first.get("upserted_id") is not None and first.get("matched_count") == 0, first
assert again.get("upserted_id") is None and again.get("matched_count") == 1, again
print("ok: or_deleted and upserted_id")
"#;
    let out = Command::new(&python)
        .current_dir(repo_root())
        .args(["-c", script])
        .arg(&dir)
        .arg(&mongosh)
        .arg(&uri)
        .output()
        .expect("python runs");
    let _ = std::fs::remove_dir_all(&dir);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("ok: or_deleted and upserted_id"),
        "{text}"
    );
}

/// Review 40, finding 1: views inserted ten at a time into an article that
/// keeps their exact count (fixture batch-count). The mongosh cookbook's
/// insert runs against the server with a batch of new views of one
/// article, and its count must go up by the views stored, not by one
/// (scripts/testenv/check_cookbook_effects.js, `checkBatchCount`).
#[test]
fn a_batch_insert_counts_every_child_it_stores_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let out = cookbook_effects(&uri, &mongosh, "batch-count");
    assert!(
        out.contains("checked 1 count(s) kept by a batch insert"),
        "{out}"
    );
    assert!(
        out.contains("ok: count_views/article: views_count went up by the 7 view documents one batch stored, and equals the "),
        "{out}"
    );
    assert!(!out.contains("FAIL"), "{out}");
}
