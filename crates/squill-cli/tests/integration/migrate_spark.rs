//! `squill migrate --engine spark` (issue 43): the PySpark job squill
//! writes, run in `local[2]` against the test PostgreSQL's Sakila, writes
//! the very documents the native `squill migrate` writes (every collection,
//! document by document, as canonical Extended JSON sorted by `_id`); run
//! again into SecantusDB with one task killed after writing part of its
//! partition and retried by Spark, it leaves no duplicate and no missing
//! document. Its incremental run (`--changed-by`, `--since`) is refused
//! without `--ignore-deletions`: it cannot see deleted rows; with it, the
//! run writes the documents of the native run of changes, document by
//! document (a second run, files only, in the same spark-submit:
//! scripts/testenv/spark_runs.py). Without Java,
//! the JDBC driver or PySpark the test skips with a NOTICE, and fails under
//! CI=true (scripts/test installs them: scripts/testenv/spark.sh).

use crate::migrate::{design_of, import_model, migrate};
use crate::postgres::{SECRET, copy_of, psql, sakila_workload, server};
use crate::support::{mongo, run_any};
use std::path::Path;
use std::process::Command;

/// spark-submit, the Python of the executors, the JDBC driver's jar.
fn spark() -> Option<(String, String, String)> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (
        get("SQUILL_TEST_SPARK_SUBMIT"),
        get("SQUILL_TEST_SPARK_PYTHON"),
        get("SQUILL_TEST_SPARK_JDBC_JAR"),
    ) {
        (Some(s), Some(p), Some(j)) => Some((s, p, j)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SQUILL_TEST_SPARK_SUBMIT, SQUILL_TEST_SPARK_PYTHON or SQUILL_TEST_SPARK_JDBC_JAR is not set and CI=true: scripts/test installs them"
            );
            eprintln!(
                "NOTICE: skipping: no Java, PostgreSQL JDBC driver or PySpark (run through scripts/test)"
            );
            None
        }
    }
}

/// One spark-submit that runs the job as often as the test asks
/// (scripts/testenv/spark_runs.py), each run a SparkContext of its own in
/// the one JVM: a second spark-submit would start the JVM and load Spark's
/// classes again, about 10 s of CPU (BENCHMARKS.md, "Test suite time").
/// The password is in its environment only.
struct Spark {
    child: std::process::Child,
    dir: std::path::PathBuf,
    log: std::path::PathBuf,
    runs: usize,
    read: usize,
}

impl Spark {
    fn start((submit, python, jar): &(String, String, String), job: &Path, dir: &Path) -> Self {
        std::fs::create_dir_all(dir).unwrap();
        let log = dir.join("spark.log");
        let out = std::fs::File::create(&log).unwrap();
        let err = out.try_clone().unwrap();
        // Sakila is tiny: what costs is Spark's own work per stage, not the
        // rows (BENCHMARKS.md, "The Spark job's test"). Without adaptive
        // execution a collection is one Spark job, not one per shuffle, each
        // re-planned; without whole-stage code generation no stage compiles
        // Java first; the JVM's first JIT tier only and its serial collector
        // spend less CPU on a run of a minute. Two shuffle partitions: the
        // two cores. The documents are the same whatever the plan.
        let child = Command::new(submit)
            .args(["--jars", jar])
            .args(["--conf", "spark.ui.enabled=false"])
            .args(["--conf", "spark.sql.shuffle.partitions=2"])
            .args(["--conf", "spark.sql.adaptive.enabled=false"])
            .args(["--conf", "spark.sql.codegen.wholeStage=false"])
            .args([
                "--driver-java-options",
                "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
            ])
            .arg(crate::support::repo_root().join("scripts/testenv/spark_runs.py"))
            .arg(job)
            .arg(dir)
            .env("PGPASSWORD", SECRET)
            .env("PYSPARK_PYTHON", python)
            .env("PYSPARK_DRIVER_PYTHON", python)
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("spark-submit starts");
        Spark {
            child,
            dir: dir.to_path_buf(),
            log,
            runs: 0,
            read: 0,
        }
    }

    /// The job run as `spark-submit --master MASTER job.py ARGS…` with
    /// `env` in its executors' environment: its exit status and what the
    /// process printed meanwhile, which must not hold the password.
    fn run(&mut self, master: &str, args: &[&str], env: &[(&str, &str)]) -> (i64, String) {
        self.runs += 1;
        let env: serde_json::Map<String, serde_json::Value> = env
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).into()))
            .collect();
        self.request(&serde_json::json!({"master": master, "env": env, "argv": args}));
        let done = self.dir.join(format!("run-{}.done", self.runs));
        let code = loop {
            if let Ok(text) = std::fs::read_to_string(&done) {
                break text.trim().parse().expect("an exit status");
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.code().map_or(-1, i64::from);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let all = std::fs::read(&self.log).unwrap();
        let text = String::from_utf8_lossy(&all[self.read..]).into_owned();
        self.read = all.len();
        assert!(!text.contains(SECRET), "the password in spark's output");
        (code, text)
    }

    /// The request for the next run, written whole before it can be seen.
    fn request(&self, request: &serde_json::Value) {
        let path = self.dir.join(format!("run-{}.json", self.runs));
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, request.to_string()).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    }
}

impl Drop for Spark {
    fn drop(&mut self) {
        self.runs += 1;
        self.request(&serde_json::json!({"stop": true}));
        for _ in 0..600 {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_spark_job_writes_the_native_documents_and_a_retried_task_no_duplicate() {
    let Some((user, superuser)) = server() else {
        return;
    };
    let Some((mongo_uri, _, _)) = mongo() else {
        return;
    };
    let Some(tools) = spark() else {
        return;
    };
    copy_of(&superuser, "sakila", "sakila_spark");
    psql(&format!("{superuser}/sakila_spark"), &sakila_workload());
    let url = format!("{user}/sakila_spark");
    let dir = crate::support::TempDir::new("pg-spark");
    let model = import_model(&url, dir.path(), "sakila");
    let design = design_of(&model);
    let collections = design["collections"].as_array().unwrap();

    // By the change column, so that a run of changes can follow (below).
    let native = dir.path().join("native");
    let by_column = ["--changed-by", "last_update"];
    migrate(
        &url,
        &model,
        &native,
        &[&["--format", "ejson"][..], &by_column].concat(),
    );

    let job_dir = dir.path().join("job");
    let wrote = migrate(&url, &model, &job_dir, &["--engine", "spark"]);
    assert_eq!(
        wrote.stdout,
        format!(
            "squill migrate: a Spark job for {} collections in {} (run it with spark-submit: {})\n",
            collections.len(),
            job_dir.join("squill_migrate.py").display(),
            job_dir.join("README.md").display()
        )
    );
    assert_eq!(wrote.stderr, "");
    let job = job_dir.join("squill_migrate.py");
    let text = std::fs::read_to_string(&job).unwrap();
    assert!(!text.contains(SECRET), "the password in the job");
    let readme = std::fs::read_to_string(job_dir.join("README.md")).unwrap();
    assert!(
        readme.contains("spark-submit --master 'local[4]'"),
        "{readme}"
    );

    // One Spark session: files (one per partition) and SecantusDB at once,
    // with small partitions so that the larger tables are read in several;
    // the first attempt of the first partition of the rentals dies after
    // its first batch, and Spark retries it (local[2,4]: 4 attempts).
    let rentals = collections
        .iter()
        .find(|c| c["entities"][0] == "rental")
        .and_then(|c| c["name"].as_str())
        .expect("a collection of the rentals");
    let files = dir.path().join("files");
    let db = format!("sakila_spark_{}", std::process::id());
    let mut spark = Spark::start(&tools, &job, &dir.path().join("spark"));
    let (code, out) = spark.run(
        "local[2,4]",
        &[
            "--out",
            files.to_str().unwrap(),
            "--to",
            &mongo_uri,
            "--database",
            &db,
            "--batch-size",
            "100",
            "--rows-per-partition",
            "5000",
        ],
        &[("SQUILL_SPARK_TEST_FAIL", rentals)],
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("squill test: this task fails once after writing"),
        "{out}"
    );
    let root = crate::support::repo_root();
    let compare = |against: &[&str]| {
        let run = run_any(
            Command::new(&tools.1)
                .arg(root.join("scripts/testenv/compare_migrated.py"))
                .arg(&native)
                .args(against),
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        // "identical: C collections, D documents"
        let counts: Vec<usize> = run
            .stdout
            .strip_prefix("identical: ")
            .unwrap_or_else(|| panic!("{}", run.stdout))
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        (counts[0], counts[1])
    };
    for against in [
        &["--files", files.join(&db).to_str().unwrap()][..],
        &["--uri", &mongo_uri, "--db", &db],
    ] {
        assert_eq!(compare(against).0, collections.len(), "{against:?}");
    }

    // An incremental run is refused by name before Spark starts unless
    // deletions may go unseen (the job keeps no ledger of rows).
    let changes = ["--changed-by", "last_update", "--since", "2026-01-01"];
    let refused = run_any(
        Command::new(&tools.1)
            .arg(&job)
            .args(["--out", dir.path().join("refused").to_str().unwrap()])
            .args(changes),
    );
    assert_eq!(refused.code, 2, "{}{}", refused.stdout, refused.stderr);
    assert!(
        refused
            .stderr
            .contains("rows deleted since --since are not seen")
            && refused.stderr.contains("--ignore-deletions"),
        "{}",
        refused.stderr
    );

    // With --ignore-deletions, a run of changes writes the documents the
    // native run of changes writes: a store (whose document embeds its
    // manager, which the native run of changes once dropped), two
    // customers, a film and a rental change after both full runs; the
    // native run of changes finds them by the column, the job by
    // --since, the time before the changes. Files only, in local[2]: a
    // second run in the same spark-submit (a SparkContext of its own), the
    // comparison's whole cost.
    let since = psql(&format!("{superuser}/sakila_spark"), "SELECT now();");
    psql(
        &format!("{superuser}/sakila_spark"),
        "UPDATE store SET last_update = now() WHERE store_id = 1;\n\
         UPDATE customer SET email = 'changed.' || email, last_update = now() WHERE customer_id IN (1, 2);\n\
         UPDATE film SET title = title || ' II', last_update = now() WHERE film_id = 10;\n\
         UPDATE rental SET return_date = rental_date + interval '2 days', last_update = now() WHERE rental_id = 100;",
    );
    let increment = migrate(
        &url,
        &model,
        &native,
        &[&["--format", "ejson"][..], &by_column].concat(),
    );
    assert!(
        increment.stdout.contains("increment 1"),
        "{}",
        increment.stdout
    );
    let changes = dir.path().join("changes");
    let (code, out) = spark.run(
        "local[2]",
        &[
            &["--out", changes.to_str().unwrap(), "--database", &db][..],
            &by_column,
            &["--since", since.trim(), "--ignore-deletions"],
        ]
        .concat(),
        &[],
    );
    assert_eq!(code, 0, "{out}");
    let (_, documents) = compare(&[
        "--increment",
        "1",
        "--files",
        changes.join(&db).to_str().unwrap(),
    ]);
    // At least the five changed rows' own documents.
    assert!(documents >= 5, "{documents} documents in the increment");
}
