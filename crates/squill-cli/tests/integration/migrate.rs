//! `squill migrate` against the real PostgreSQL and SecantusDB that
//! `scripts/test` starts: Sakila (after its scripted workload), Northwind and
//! Chinook moved into their advised designs, loaded under the validators,
//! queried through the cookbook and compared with the source tables; a run
//! killed or interrupted and resumed; changes by xmin and by a column; and
//! `--to` straight into a deployment. Without the servers the tests skip with
//! a NOTICE, and fail under CI=true.

use crate::postgres::{SECRET, copy_of, psql, sakila_workload, server};
use crate::support::{Test, each_line_is};
pub(crate) use crate::support::{mongo, run_tool, with_db};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The lines `squill import` writes on stderr while it reads a database:
/// its steps, then what it found and how long it took.
pub(crate) const IMPORT_PROGRESS: &[&str] = &[
    "squill import: connecting to [..]",
    "squill import: counting the rows of [..] tables",
    "squill import: measuring [..] relationships",
    "squill import: observing the workload for [..]",
    "[..]: [..] entities, [..] relationships ([..] inferred and confirmed), measured; [..] statements became operations ([..]); [..] s",
];

/// What `squill import` says of a database without pg_stat_statements
/// (one a test made, not copied from a template that has it).
pub(crate) const NO_STATEMENTS: &[&str] = &[
    "[..]: note: pg_stat_statements is not installed (or not loaded): no reads are known; writes come from pg_stat_user_tables",
    "[..]: [..] entities, [..] relationships ([..] inferred and confirmed), measured; no pg_stat_statements: writes from table counters only; [..] s",
];

/// `squill import URL -o DIR/NAME.yaml`, which must succeed, its stdout
/// empty and its stderr nothing but its progress.
pub(crate) fn import_model(url: &str, dir: &Path, name: &str) -> PathBuf {
    import_model_saying(url, dir, name, &[])
}

/// `import_model`, with `notes`: the forms of the other lines the import
/// must be allowed to say of this database.
pub(crate) fn import_model_saying(url: &str, dir: &Path, name: &str, notes: &[&str]) -> PathBuf {
    let model = dir.join(format!("{name}.yaml"));
    let run = Test::new()
        .args(["import", url, "-o"])
        .args([&model])
        .stderr_any()
        .check();
    let forms: Vec<&str> = IMPORT_PROGRESS.iter().chain(notes).copied().collect();
    each_line_is("stderr", &run.stderr, &forms);
    model
}

/// The lines of `squill migrate`'s summary on stdout: where from and to,
/// a line per collection, the totals, and after a run of changes what it
/// did with deleted rows and how to load it (`--engine spark`: the job).
const MIGRATE_SUMMARY: &[&str] = &[
    "squill migrate: [..] → [..] (database `[..]`, design for mix `[..]`)[..]",
    "  [..] documents [..] bytes BSON  [..]",
    "  [..] documents, [..] bytes in [..] s ([..] documents/s, [..] MB/s)",
    "  deleted rows: [..]",
    "  not seen: [..]",
    "  load with: mongoimport --mode=upsert --db DB --collection NAME --file increments/NNNN/NAME.json",
    "  and delete: mongoimport --mode=delete --db DB --collection NAME --file increments/NNNN/NAME.deleted.json",
    "squill migrate: a Spark job for [..] collections in [..] (run it with spark-submit: [..])",
];

/// The lines of `squill migrate`'s progress on stderr.
const MIGRATE_PROGRESS: &[&str] = &[
    "squill migrate: connecting to [..]",
    "squill migrate: reading the keys of the rows",
    "squill migrate: writing [..] (from [..])",
    "squill migrate: changes of [..] (from [..])",
    "squill migrate: [..] into MongoDB",
    "squill migrate: [..]: [..] documents, checkpoint after key [..]",
];

/// The last line of a run stopped by SIGINT.
const INTERRUPTED: &str =
    "squill migrate: interrupted after a checkpoint; run the same command again to resume\n";

/// `MIGRATE_PROGRESS` and `INTERRUPTED`.
const MIGRATE_PROGRESS_OR_INTERRUPTED: &[&str] = &[
    "squill migrate: connecting to [..]",
    "squill migrate: reading the keys of the rows",
    "squill migrate: writing [..] (from [..])",
    "squill migrate: changes of [..] (from [..])",
    "squill migrate: [..] into MongoDB",
    "squill migrate: [..]: [..] documents, checkpoint after key [..]",
    "squill migrate: interrupted after a checkpoint; run the same command again to resume",
];

/// `squill migrate URL --model MODEL --out OUT` and more arguments, which
/// must succeed, every line of its output of the summary's or the
/// progress's forms (their figures and number depend on the data).
pub(crate) fn migrate(url: &str, model: &Path, out: &Path, more: &[&str]) -> crate::support::Run {
    let run = Test::new()
        .args(["migrate", url, "--model"])
        .args([model])
        .args(["--out"])
        .args([out])
        .args(more)
        .stdout_any()
        .stderr_any()
        .check();
    each_line_is("stdout", &run.stdout, MIGRATE_SUMMARY);
    each_line_is("stderr", &run.stderr, MIGRATE_PROGRESS);
    run
}

/// `squill generate MODEL --out OUT` (the setup script and the cookbook),
/// which must succeed with its index of the files on stdout.
pub(crate) fn generate(model: &Path, out: &Path) {
    let run = Test::new()
        .args(["generate"])
        .args([model])
        .args(["--out"])
        .args([out])
        .stdout_any()
        .check();
    each_line_is(
        "stdout",
        &run.stdout,
        &[
            "squill generate: model `[..]`, mix `[..]`: [..] files in [..]",
            "  [..]  [..]",
        ],
    );
}

/// The design advise gives the model, as JSON (whatever its findings:
/// `--fail-on never`).
pub(crate) fn design_of(model: &Path) -> serde_json::Value {
    let advice = Test::new()
        .args(["advise"])
        .args([model])
        .args(["--format", "json", "--fail-on", "never"])
        .stdout_any()
        .check();
    serde_json::from_str(&advice.stdout).unwrap()
}

/// What the source says the migrated collections must hold: a count per
/// collection, and per top-level array of related rows their total and
/// longest, per reference to a parent how many documents have it.
fn expectations(url: &str, design: &serde_json::Value) -> serde_json::Value {
    use squill::inputs::postgres::{Target, catalog};
    let target = Target::parse(url, std::time::Duration::from_secs(5)).unwrap();
    let mut client = target.connect(std::time::Duration::from_secs(60)).unwrap();
    let schema = catalog::read(&mut client, &target, "public").unwrap();
    let mapping = squill::inputs::sql::Mapping::of(&schema);
    let mut one = |sql: &str| -> i64 { client.query_one(sql, &[]).unwrap().get(0) };
    let mut checks = Vec::new();
    for c in design["collections"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let entities = c["entities"].as_array().unwrap();
        let [entity] = entities.as_slice() else {
            continue;
        };
        let entity = entity.as_str().unwrap();
        // Buckets hold several rows a document: migrate_patterns checks them.
        let fields = c["shape"]["fields"].as_array().unwrap();
        if fields.iter().any(|f| f["origin"]["from"] == "bucket") {
            continue;
        }
        let table = mapping
            .relationships
            .iter()
            .find(|r| r.link.is_some() && r.name == entity)
            .map_or(entity.to_string(), |r| r.table.clone());
        checks.push(serde_json::json!({"collection": name, "kind": "count",
            "expected": one(&format!("SELECT count(*) FROM \"{table}\""))}));
        for f in c["shape"]["fields"].as_array().unwrap() {
            let origin = &f["origin"];
            let from = origin["from"].as_str().unwrap_or("");
            if from != "embedded" && from != "reference" {
                continue;
            }
            let rel = origin["relationship"].as_str().unwrap();
            let Some(r) = mapping.relationships.iter().find(|r| r.name == rel) else {
                continue;
            };
            let field = f["name"].as_str().unwrap();
            let array = f["type"]["kind"] == "array";
            let subset = design["relationships"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["relationship"] == rel && d["chosen"]["layout"] == "subset");
            match (&r.link, array) {
                (None, true) if r.parent == entity && !subset => {
                    let total = one(&format!(
                        "SELECT count(\"{}\") FROM \"{}\"",
                        r.column, r.child
                    ));
                    let max = one(&format!(
                        "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM \"{}\" WHERE \"{c}\" IS NOT NULL GROUP BY \"{c}\") m",
                        r.child,
                        c = r.column
                    ));
                    checks.push(serde_json::json!({"collection": name, "field": field, "kind": "array_total", "expected": total}));
                    checks.push(serde_json::json!({"collection": name, "field": field, "kind": "array_max", "expected": max}));
                }
                (Some((pcol, ccol, _)), true) => {
                    let by = if r.parent == entity { pcol } else { ccol };
                    let total = one(&format!("SELECT count(*) FROM \"{}\"", r.table));
                    let max = one(&format!(
                        "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM \"{}\" GROUP BY \"{by}\") m",
                        r.table
                    ));
                    checks.push(serde_json::json!({"collection": name, "field": field, "kind": "array_total", "expected": total}));
                    checks.push(serde_json::json!({"collection": name, "field": field, "kind": "array_max", "expected": max}));
                }
                (None, false) if r.child == entity && r.parent != r.child => {
                    let set = one(&format!(
                        "SELECT count(\"{}\") FROM \"{}\"",
                        r.column, r.child
                    ));
                    checks.push(serde_json::json!({"collection": name, "field": field, "kind": "present", "expected": set}));
                }
                _ => {}
            }
        }
    }
    serde_json::Value::Array(checks)
}

/// The migrated documents in database `db` — loaded from `load`'s JSON
/// lines first when given — compared by check_migrated.py with the counts
/// and fan-out of the source tables; its report, every check passed.
fn compare_with_tables(
    (python, mongo_uri, db): (&str, &str, &str),
    url: &str,
    model: &Path,
    dir: &Path,
    load: Option<&Path>,
) -> String {
    let checks = expectations(url, &design_of(model));
    check_migrated((python, mongo_uri, db), &checks, dir, load)
}

/// check_migrated.py on `checks` (its format); its report, every check
/// passed.
fn check_migrated(
    (python, mongo_uri, db): (&str, &str, &str),
    checks: &serde_json::Value,
    dir: &Path,
    load: Option<&Path>,
) -> String {
    let expect = dir.join("expect.json");
    std::fs::write(&expect, checks.to_string()).unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(crate::support::repo_root().join("scripts/testenv/check_migrated.py"))
        .args(["--uri", mongo_uri, "--db", db]);
    if let Some(out) = load {
        cmd.arg("--dir").arg(out);
    }
    let compared = run_tool(cmd.arg("--expect").arg(&expect));
    assert!(compared.contains("ok: migrated "), "{compared}");
    assert!(!compared.contains("FAIL"), "{compared}");
    compared
}

/// check_generated.py on the migrated documents in `out`, loaded once into
/// database `db` (setup.js already run there): the dump against the data,
/// check_migrated.py's `checks` (`--expect`) on the data as loaded, then
/// every cookbook operation, which writes to it. Its report: every check
/// of `checks` passed, and at least one cookbook operation.
pub(crate) fn check_loaded(
    (python, mongo_uri, db): (&str, &str, &str),
    out: &Path,
    checks: &serde_json::Value,
    dir: &Path,
) -> String {
    let expect = dir.join("expect.json");
    std::fs::write(&expect, checks.to_string()).unwrap();
    let checked = run_tool(
        Command::new(python)
            .arg(crate::support::repo_root().join("scripts/testenv/check_generated.py"))
            .args(["--uri", mongo_uri, "--db", db, "--dir"])
            .arg(out)
            .arg("--expect")
            .arg(&expect),
    );
    assert!(checked.contains("ok: cookbook "), "{checked}");
    assert_eq!(
        checked.matches("ok: migrated ").count(),
        checks.as_array().map_or(0, Vec::len),
        "{checked}"
    );
    assert!(!checked.contains("FAIL"), "{checked}");
    checked
}

/// Every file under `dir` (relative path → bytes), the state file and the
/// ledger of rows (`.squill-migrate.rows/`, what the next run compares
/// with) aside.
pub(crate) fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(
        root: &std::path::Path,
        d: &std::path::Path,
        out: &mut std::collections::BTreeMap<String, Vec<u8>>,
    ) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if !p.ends_with(".squill-migrate.rows") {
                    walk(root, &p, out);
                }
            } else if !p.ends_with(".squill-migrate.json") {
                out.insert(
                    p.strip_prefix(root).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn migrate_sakila_into_the_advised_design_and_query_it_on_a_server() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, mongosh)) = mongo() else {
        return;
    };
    copy_of(&superuser, "sakila", "sakila_migrate");
    psql(&format!("{superuser}/sakila_migrate"), &sakila_workload());
    let url = format!("{user}/sakila_migrate");
    let dir = crate::support::TempDir::new("pg-migrate");
    let model = import_model(&url, dir.path(), "sakila");
    let out = dir.path().join("out");
    // The design's artifacts (setup script, cookbook), then its data from
    // PostgreSQL instead of synthetic data.
    generate(&model, &out);
    let migrated = migrate(&url, &model, &out, &[]);
    assert!(!migrated.stdout.contains(SECRET) && !migrated.stderr.contains(SECRET));
    assert!(
        migrated.stdout.contains("documents/s"),
        "{}",
        migrated.stdout
    );
    // Onto the server: the collections with their validators and indexes,
    // the data loaded under the validators, the dump decoded and compared,
    // every cookbook operation run on the migrated documents.
    let db = format!("sakila_migrated_{}", std::process::id());
    let setup = run_tool(
        Command::new(&mongosh)
            .args(["--quiet", "--norc", &with_db(&mongo_uri, &db)])
            .arg(out.join("setup.js")),
    );
    assert!(setup.contains("squill setup: done"), "{setup}");
    // Counts and fan-out against the source tables, on the data as loaded
    // (one load for both checks: check_generated.py --expect).
    let checks = expectations(&url, &design_of(&model));
    let checked = check_loaded((&python, &mongo_uri, &db), &out, &checks, dir.path());
    eprintln!("{checked}");
    assert!(checked.contains("array_total"), "{checked}");

    // Killed in the middle (kill -9), then run again: the same files as
    // the run that was never stopped.
    let resumed = dir.path().join("resumed");
    let bin = env!("CARGO_BIN_EXE_squill");
    let mut stopped = false;
    // How each run that was not stopped ended, for the message below: a
    // run that failed (its standard error) is not one that was too quick.
    let mut ends = Vec::new();
    for checkpoint in ["400", "100", "20"] {
        let _ = std::fs::remove_dir_all(&resumed);
        let stderr = dir.path().join(format!("stopped-{checkpoint}.err"));
        let mut child = Command::new(bin)
            .args(["migrate", &url, "--model"])
            .arg(&model)
            .arg("--out")
            .arg(&resumed)
            .args(["--checkpoint", checkpoint])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let state = resumed.join(".squill-migrate.json");
        loop {
            if let Ok(text) = std::fs::read_to_string(&state)
                && text.contains("\"last_key\": \"")
            {
                let _ = child.kill();
                let _ = child.wait();
                stopped = true;
                break;
            }
            if let Some(status) = child.try_wait().unwrap() {
                ends.push(format!(
                    "--checkpoint {checkpoint}: {status}, state {:?}, stderr {:?}",
                    std::fs::read_to_string(&state).unwrap_or_default(),
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                ));
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if stopped {
            break;
        }
    }
    assert!(
        stopped,
        "every run finished before it could be stopped:\n{}",
        ends.join("\n")
    );
    let partials = tree(&resumed)
        .keys()
        .filter(|k| k.ends_with(".partial"))
        .count();
    assert!(
        partials > 0,
        "a stopped run leaves its collection as .partial"
    );
    let again = migrate(&url, &model, &resumed, &[]);
    assert!(again.stdout.contains("resumed after"), "{}", again.stdout);
    let whole: std::collections::BTreeMap<String, Vec<u8>> = tree(&out)
        .into_iter()
        .filter(|(k, _)| k.starts_with("dump/") || k.starts_with("data/"))
        .collect();
    assert_eq!(
        tree(&resumed).keys().collect::<Vec<_>>(),
        whole.keys().collect::<Vec<_>>()
    );
    assert!(
        tree(&resumed) == whole,
        "the resumed run's files differ from the whole run's"
    );

    // Changed rows, then a run on the complete directory: only what changed.
    psql(
        &format!("{superuser}/sakila_migrate"),
        "UPDATE customer SET email = 'moved-' || customer_id || '@example.org' WHERE customer_id IN (3, 5);",
    );
    let inc = migrate(&url, &model, &out, &[]);
    assert!(inc.stdout.contains("increment 1"), "{}", inc.stdout);
    let lines: Vec<String> = tree(&out.join("increments"))
        .values()
        .flat_map(|b| {
            String::from_utf8_lossy(b)
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("moved-3@example.org"))
            && lines.iter().any(|l| l.contains("moved-5@example.org")),
        "{lines:?}"
    );
    // Far fewer documents than the database has.
    assert!(
        lines.len() < 50,
        "{} documents in the increment",
        lines.len()
    );
}

/// Northwind and Chinook, as loaded (no workload: the design follows the
/// rules and the measured figures): imported, migrated, loaded under the
/// design's validators and compared with their tables.
#[test]
fn migrate_northwind_and_chinook_keep_every_row() {
    let Some((user, _)) = server() else {
        return;
    };
    let Some((mongo_uri, python, mongosh)) = mongo() else {
        return;
    };
    for name in ["northwind", "chinook"] {
        let url = format!("{user}/{name}");
        let dir = crate::support::TempDir::new(&format!("pg-{name}"));
        let model = import_model(&url, dir.path(), name);
        let out = dir.path().join("out");
        generate(&model, &out);
        migrate(&url, &model, &out, &[]);
        let db = format!("{name}_migrated_{}", std::process::id());
        let setup = run_tool(
            Command::new(&mongosh)
                .args(["--quiet", "--norc", &with_db(&mongo_uri, &db)])
                .arg(out.join("setup.js")),
        );
        assert!(setup.contains("squill setup: done"), "{setup}");
        // Loaded into the collections setup.js made, under their validators.
        let compared = compare_with_tables(
            (&python, &mongo_uri, &db),
            &url,
            &model,
            dir.path(),
            Some(&out),
        );
        eprintln!("{name}:\n{compared}");
    }
}

/// Runs `squill migrate` and sends it SIGINT once a collection has a
/// checkpoint; its standard error, the progress and then the interruption. Tries smaller checkpoints until a run is
/// caught before it ends.
fn interrupt(url: &str, model: &Path, out: &Path, more: &[&str]) -> String {
    let bin = env!("CARGO_BIN_EXE_squill");
    for checkpoint in ["200", "50", "10"] {
        let _ = std::fs::remove_dir_all(out);
        let child = Command::new(bin)
            .args(["migrate", url, "--model"])
            .arg(model)
            .arg("--out")
            .arg(out)
            .args(["--checkpoint", checkpoint])
            .args(more)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let state = out.join(".squill-migrate.json");
        let mut sent = false;
        for _ in 0..20_000 {
            if std::fs::read_to_string(&state).is_ok_and(|t| t.contains("\"last_key\": \"")) {
                let _ = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status();
                sent = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(500));
        }
        let output = child.wait_with_output().unwrap();
        if sent && output.status.code() == Some(2) {
            let stderr = String::from_utf8_lossy(&output.stderr).to_string();
            // The progress, then the interruption as its last line.
            each_line_is("stderr", &stderr, MIGRATE_PROGRESS_OR_INTERRUPTED);
            assert!(
                stderr.ends_with(INTERRUPTED),
                "the last line is not the interruption:\n{stderr}"
            );
            return stderr;
        }
    }
    panic!("no run could be interrupted before it finished");
}

/// Ctrl-C (SIGINT) in the middle of a collection: a checkpoint, a message,
/// exit 2, and the next run goes on from there.
#[test]
fn migrate_stops_at_a_checkpoint_on_ctrl_c_and_resumes() {
    let Some((user, superuser)) = server() else {
        return;
    };
    copy_of(&superuser, "sakila", "sakila_sigint");
    let url = format!("{user}/sakila_sigint");
    let dir = crate::support::TempDir::new("pg-sigint");
    let model = import_model(&url, dir.path(), "sakila");
    let out = dir.path().join("out");
    interrupt(&url, &model, &out, &[]);
    let again = migrate(&url, &model, &out, &[]);
    assert!(again.stdout.contains("resumed after"), "{}", again.stdout);
    assert!(
        !tree(&out).keys().any(|k| k.ends_with(".partial")),
        "a complete run leaves no .partial file"
    );
}

/// `--changed-by updated_at`: the rows whose timestamp moved are the
/// changes, in the tables that have the column.
#[test]
fn migrate_takes_changes_by_an_updated_at_column() {
    let Some((user, superuser)) = server() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_changes");
    let url = format!("{user}/shop_changes");
    let dir = crate::support::TempDir::new("pg-changes");
    let model = import_model(&url, dir.path(), "shop");
    let out = dir.path().join("out");
    let migrate = || migrate(&url, &model, &out, &["--changed-by", "updated_at"]);
    migrate();
    // The timestamp moves on two customers; a third changes without it.
    psql(
        &format!("{superuser}/shop_changes"),
        "UPDATE customers SET name = 'Renamed ' || id, updated_at = now() + interval '1 minute' WHERE id IN (11, 12);\n\
         UPDATE customers SET name = 'Quiet change' WHERE id = 13;",
    );
    let second = migrate();
    assert!(second.stdout.contains("increment 1"), "{}", second.stdout);
    let text: String = tree(&out.join("increments"))
        .values()
        .map(|b| String::from_utf8_lossy(b).to_string())
        .collect();
    assert!(
        text.contains("Renamed 11") && text.contains("Renamed 12"),
        "{text}"
    );
    // By the column, not by xmin: the row whose timestamp stayed is not seen.
    assert!(!text.contains("Quiet change"), "{text}");
}

/// A run of changes rewrites each document as a full run writes it, field
/// for field and in the same order: the full run reads arrays as child rows
/// and closes them after the other fields, and a run of changes, which
/// builds the document in SQL, had put Sakila's store's embedded manager
/// after its arrays instead.
#[test]
fn a_run_of_changes_writes_the_documents_a_full_run_writes() {
    let Some((user, superuser)) = server() else {
        return;
    };
    copy_of(&superuser, "sakila", "sakila_same_documents");
    let url = format!("{user}/sakila_same_documents");
    let dir = crate::support::TempDir::new("pg-same-documents");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sakila.yaml");
    let out = dir.path().join("out");
    let by_column = ["--changed-by", "last_update"];
    migrate(&url, &model, &out, &by_column);
    psql(
        &format!("{superuser}/sakila_same_documents"),
        "UPDATE store SET last_update = now() + interval '1 minute' WHERE store_id = 1;\n\
         UPDATE customer SET email = 'changed@example.com', last_update = now() + interval '1 minute' WHERE customer_id = 1;",
    );
    migrate(&url, &model, &out, &by_column);
    let full = dir.path().join("full");
    migrate(&url, &model, &full, &[]);
    // Each JSON line by its collection and `_id`.
    let lines = |files: std::collections::BTreeMap<String, Vec<u8>>| {
        let mut out = std::collections::BTreeMap::new();
        for (path, bytes) in files {
            let Some(name) = path.strip_suffix(".json") else {
                continue;
            };
            let collection = name.rsplit('/').next().unwrap_or(name).to_string();
            for line in String::from_utf8(bytes).unwrap().lines() {
                let doc: serde_json::Value = serde_json::from_str(line).unwrap();
                out.insert(
                    (collection.clone(), doc["_id"].to_string()),
                    line.to_string(),
                );
            }
        }
        out
    };
    let changed = lines(tree(&out.join("increments")));
    let now = lines(tree(&full.join("data")));
    assert!(
        changed.keys().any(|(c, id)| c == "store" && id == "1"),
        "the store changed: {:?}",
        changed.keys().collect::<Vec<_>>()
    );
    for (key, line) in &changed {
        assert_eq!(Some(line), now.get(key), "{key:?}");
    }
}

/// `--to mongodb://…`: the documents go straight into the deployment,
/// validated and indexed, and a run of changes replaces them there.
#[cfg(feature = "mongodb")]
#[test]
fn migrate_writes_into_a_mongodb_deployment() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, _)) = mongo() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_to_mongo");
    let url = format!("{user}/shop_to_mongo");
    let dir = crate::support::TempDir::new("pg-to-mongo");
    let model = import_model(&url, dir.path(), "shop");
    let out = dir.path().join("out");
    let db = format!("shop_live_{}", std::process::id());
    let to = with_db(&mongo_uri, &db);
    let migrate = || migrate(&url, &model, &out, &["--to", &to]);
    migrate();
    let check = || compare_with_tables((&python, &mongo_uri, &db), &url, &model, dir.path(), None);
    check();
    // The collections carry the design's validator and indexes.
    let shown = run_tool(Command::new(&python).args([
        "-c",
        &format!(
            "from pymongo import MongoClient\ndb = MongoClient({mongo_uri:?})[{db:?}]\nfor n in sorted(db.list_collection_names()):\n    o = db.command('listCollections', filter={{'name': n}})['cursor']['firstBatch'][0]['options']\n    print(n, 'validator' in o, len(db[n].index_information()))\nprint(db.customers.find_one({{'_id': 21}})['name'])"
        ),
    ]));
    assert!(
        shown.lines().filter(|l| l.contains(" True ")).count() >= 3,
        "{shown}"
    );
    // A change, then a run of changes: replaced in place, no duplicate.
    psql(
        &format!("{superuser}/shop_to_mongo"),
        "UPDATE customers SET name = 'Changed twenty-one' WHERE id = 21;",
    );
    migrate();
    check();
    let after = run_tool(Command::new(&python).args([
        "-c",
        &format!(
            "from pymongo import MongoClient\ndb = MongoClient({mongo_uri:?})[{db:?}]\nprint(db.customers.find_one({{'_id': 21}})['name'], db.customers.count_documents({{}}))"
        ),
    ]));
    assert!(after.starts_with("Changed twenty-one 500"), "{after}");
}

/// `--to` interrupted and resumed: the documents inserted before the
/// checkpoint are skipped, not doubled, and every count matches the tables.
#[cfg(feature = "mongodb")]
#[test]
fn migrate_to_mongodb_resumes_without_duplicates() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, _)) = mongo() else {
        return;
    };
    copy_of(&superuser, "sakila", "sakila_to_resume");
    let url = format!("{user}/sakila_to_resume");
    let dir = crate::support::TempDir::new("pg-to-resume");
    let model = import_model(&url, dir.path(), "sakila");
    let out = dir.path().join("out");
    let db = format!("sakila_resumed_{}", std::process::id());
    let to = with_db(&mongo_uri, &db);
    interrupt(&url, &model, &out, &["--to", &to]);
    let again = migrate(&url, &model, &out, &["--to", &to]);
    assert!(again.stdout.contains("resumed after"), "{}", again.stdout);
    compare_with_tables((&python, &mongo_uri, &db), &url, &model, dir.path(), None);
}

/// Rows deleted in PostgreSQL after a full run: a run of changes rebuilds
/// the documents they were embedded in (a child row, link rows, a
/// one-to-one, a row moved to another parent), deletes the documents they
/// were (a top-level row), says how many, and lists the deleted `_id`s for
/// `mongoimport --mode=delete`. The deployment then matches the tables.
#[cfg(feature = "mongodb")]
#[test]
fn migrate_follows_deleted_rows_into_their_documents() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, python, _)) = mongo() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_deletions");
    let url = format!("{user}/shop_deletions");
    let dir = crate::support::TempDir::new("pg-deletions");
    let model = import_model(&url, dir.path(), "shop");
    let out = dir.path().join("out");
    let db = format!("shop_deletions_{}", std::process::id());
    let to = with_db(&mongo_uri, &db);
    let migrate = || migrate(&url, &model, &out, &["--to", &to]);
    migrate();
    psql(
        &format!("{superuser}/shop_deletions"),
        "DELETE FROM order_lines WHERE order_id = 7 AND line_no = 2;\n\
         DELETE FROM orders WHERE id = 9;\n\
         UPDATE order_lines SET order_id = 12, line_no = 100 WHERE order_id = 10 AND line_no = 1;\n\
         DELETE FROM product_tags WHERE product_id = 3;\n\
         DELETE FROM customer_profiles WHERE customer_id = 4;\n\
         DELETE FROM orders WHERE customer_id = 22;\n\
         DELETE FROM customers WHERE id = 22;",
    );
    let second = migrate();
    assert!(second.stdout.contains("increment 1"), "{}", second.stdout);
    assert!(
        second.stdout.contains("deleted rows: ") && !second.stdout.contains("deleted rows: none"),
        "{}",
        second.stdout
    );
    assert!(
        second.stdout.contains("1 from `customers`"),
        "{}",
        second.stdout
    );
    assert!(
        second.stdout.contains("mongoimport --mode=delete"),
        "{}",
        second.stdout
    );
    let deleted: String = tree(&out.join("increments"))
        .into_iter()
        .filter(|(k, _)| k.ends_with(".deleted.json"))
        .map(|(k, v)| format!("{k}: {}", String::from_utf8_lossy(&v)))
        .collect();
    assert!(
        deleted.contains("customers.deleted.json: {\"_id\":22}"),
        "{deleted}"
    );
    // Every collection, array and reference as the tables now have them.
    compare_with_tables((&python, &mongo_uri, &db), &url, &model, dir.path(), None);
    // A run with nothing changed deletes nothing more.
    let third = migrate();
    assert!(
        third.stdout.contains("deleted rows: none"),
        "{}",
        third.stdout
    );
}

/// Issue 40, item 1: tables named like paths (a slash, an absolute path, a
/// percent sign) write their files in `--out`'s folders, named as mongodump
/// names them (`%2F`, `%25`), and nowhere else.
#[test]
fn migrate_writes_tables_named_like_paths_inside_out() {
    let Some((user, superuser)) = server() else {
        return;
    };
    // Short: a PostgreSQL name holds 63 bytes.
    let outside = std::env::temp_dir().join(format!("sq-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    let abs = format!("{}/x", outside.display());
    psql(
        &format!("{superuser}/postgres"),
        "DROP DATABASE IF EXISTS path_names;\nCREATE DATABASE path_names;\n",
    );
    psql(
        &format!("{superuser}/path_names"),
        &format!(
            "CREATE TABLE \"a/b\" (id int PRIMARY KEY, v text);\n\
             CREATE TABLE \"{abs}\" (id int PRIMARY KEY, v text);\n\
             CREATE TABLE \"100%\" (id int PRIMARY KEY, v text);\n\
             INSERT INTO \"a/b\" VALUES (1, 'one');\n\
             INSERT INTO \"{abs}\" VALUES (1, 'one');\n\
             INSERT INTO \"100%\" VALUES (1, 'one');\n\
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;\n"
        ),
    );
    let url = format!("{user}/path_names");
    let dir = crate::support::TempDir::new("pg-path-names");
    // A database made here: no statistics, no pg_stat_statements, and
    // the import says so.
    let model = dir.path().join("paths.yaml");
    Test::new()
        .args(["import", &url, "-o"])
        .args([&model])
        .stderr_matching(
            "squill import: connecting to [..]/path_names
squill import: counting the rows of 3 tables
squill import: measuring 0 relationships
[..]/path_names: note: pg_stats has no statistics for these tables: sizes are the declared ones (run ANALYZE first to measure them)
[..]/path_names: note: pg_stat_statements is not installed (or not loaded): no reads are known; writes come from pg_stat_user_tables
[..]/path_names: 3 entities, 0 relationships (0 inferred and confirmed), measured; no pg_stat_statements: writes from table counters only; [..] s
",
        )
        .check();
    let out = dir.path().join("out");
    migrate(&url, &model, &out, &[]);
    let escaped = outside.exists();
    let _ = std::fs::remove_dir_all(&outside);
    assert!(!escaped, "migrate wrote outside --out");
    let encoded = abs.replace('/', "%2F");
    let files: Vec<String> = tree(&out).into_keys().collect();
    assert_eq!(
        files,
        [
            format!("data/{encoded}.json"),
            "data/100%25.json".into(),
            "data/a%2Fb.json".into(),
            format!("dump/path_names/{encoded}.bson"),
            format!("dump/path_names/{encoded}.metadata.json"),
            "dump/path_names/100%25.bson".into(),
            "dump/path_names/100%25.metadata.json".into(),
            "dump/path_names/a%2Fb.bson".into(),
            "dump/path_names/a%2Fb.metadata.json".into(),
        ]
    );
}

/// Issue 43: a kept last value of a timestamp column was typed a double,
/// and PostgreSQL refused to cast the timestamp to one, so the migrate
/// failed. It keeps its column's type: the shop's customers keep their
/// last order's time (the last in the orders' key order, which is their
/// time order in the fixture), a date equal to the latest `placed_at`; a
/// customer without orders has none.
#[test]
fn a_kept_last_timestamp_is_migrated_as_a_date() {
    let Some((user, _)) = server() else {
        return;
    };
    let url = format!("{user}/shop");
    let dir = crate::support::TempDir::new("pg-kept-date");
    // The DDL's model, the orders referenced by their customer, and a page
    // of customers that shows their last order's time.
    let ddl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../squill/tests/fixtures/sql/shop.sql");
    let mut yaml = Test::new()
        .args(["import", "sql"])
        .args([&ddl])
        .stdout_any()
        .stderr_any()
        .check()
        .stdout;
    let at = yaml
        .find("  orders_of_customers:")
        .expect("the relationship");
    let line = "    child_field: customer_id\n";
    let pin = at + yaml[at..].find(line).expect("its child_field") + line.len();
    yaml.insert_str(pin, "    layout: parent-reference\n");
    yaml.push_str(
        "operations:\n  customer_page:\n    read: customers\n    rate: 500\n    filter: {_id: eq}\n    aggregates: [last(orders_of_customers.placed_at)]\n",
    );
    let model = dir.path().join("shop.yaml");
    std::fs::write(&model, yaml).unwrap();
    let out = dir.path().join("out");
    migrate(&url, &model, &out, &[]);
    let latest: std::collections::BTreeMap<i64, String> = psql(
        &url,
        "SELECT c.id, coalesce(floor(extract(epoch FROM max(o.placed_at)) * 1000)::int8::text, 'none') \
         FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id;",
    )
    .lines()
    .filter_map(|l| l.split_once('|'))
    .map(|(id, ms)| (id.parse().unwrap(), ms.to_string()))
    .collect();
    assert_eq!(latest.len(), 500);
    let text = std::fs::read_to_string(out.join("data/customers.json")).unwrap();
    let mut seen = 0;
    for line in text.lines() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let kept = doc
            .as_object()
            .and_then(|o| o.iter().find(|(k, _)| k.ends_with("_last_placed_at")))
            .map_or("none".to_string(), |(_, v)| {
                v["$date"]["$numberLong"]
                    .as_str()
                    .unwrap_or_else(|| panic!("not a date: {v}"))
                    .to_string()
            });
        let id = doc["_id"].as_i64().expect("an integer _id");
        assert_eq!(Some(&kept), latest.get(&id), "customer {id}: {doc}");
        seen += 1;
    }
    assert_eq!(seen, 500);
}
