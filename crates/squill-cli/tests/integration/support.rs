//! A small builder around the `squill` binary, in the manner of just's
//! `tests/test.rs`: state what the run must give, then `check()` asserts
//! the exit status, standard output and standard error, all three exactly:
//!
//! ```ignore
//! Test::new().args(["advise", "-"]).stdin(model).status(2).stderr(expected).check();
//! ```
//!
//! Unstated, the status is 0 and both streams are empty, so a stray
//! warning or a changed exit code fails the test. A stream a test checks in
//! its own way (an insta snapshot, parsed JSON) is released by name with
//! `stdout_any`/`stderr_any`; a figure that changes from run to run is
//! `[..]` in a line of `stdout_matching`/`stderr_matching`. There is no
//! unchecked run: every test states what it expects.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) use crate::python_server::Served;

pub struct Test {
    program: PathBuf,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    current_dir: Option<PathBuf>,
    env: Vec<(String, String)>,
    status: i32,
    stdout: Expected,
    stderr: Expected,
    /// Paths written under a stable name in both streams before they are
    /// compared (a temporary folder as `OUT`), longest first.
    paths: Vec<(String, String)>,
}

/// What a stream must hold.
enum Expected {
    Exact(String),
    /// Line for line, where `[..]` in a line stands for any text within
    /// that line (cargo's test convention): a figure that changes from run
    /// to run (a time, a rate, the free space) without letting a stray line
    /// through.
    Lines(String),
    /// The test checks it itself, after `check()`.
    Any,
}

/// Whether `line` is `pattern` with each `[..]` standing for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether `text` is `pattern` line for line (see `Expected::Lines`), for
/// a run the builder cannot make (one stopped by a signal).
pub fn lines_match(pattern: &str, text: &str) -> bool {
    let want: Vec<&str> = pattern.split('\n').collect();
    let have: Vec<&str> = text.split('\n').collect();
    want.len() == have.len() && want.iter().zip(&have).all(|(p, l)| line_matches(p, l))
}

/// Asserts that every line of `text` (a run's `stream`, released with
/// `stdout_any`/`stderr_any`) has one of `forms` (`[..]` standing for any
/// text within the line), and that it ends with a line feed: for a command
/// whose lines depend on a server (progress, timings) where their number
/// cannot be stated, a warning or any line of another form still fails.
#[track_caller]
pub fn each_line_is(stream: &str, text: &str, forms: &[&str]) {
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "{stream} does not end with a line feed:\n{text}"
    );
    for line in text.lines() {
        assert!(
            forms.iter().any(|form| line_matches(form, line)),
            "{stream} has a line of no expected form: {line:?}\n--- {stream}:\n{text}"
        );
    }
}

impl Expected {
    #[track_caller]
    fn assert(&self, stream: &str, actual: &str, run: &Run) {
        let want = match self {
            Expected::Exact(want) if actual != want => want,
            Expected::Lines(want) if !lines_match(want, actual) => want,
            _ => return,
        };
        panic!(
            "{stream} differs\n--- expected {stream}:\n{want}\n--- actual {stream}:\n{actual}\n--- exit {}, stdout:\n{}\n--- stderr:\n{}",
            run.code, run.stdout, run.stderr
        );
    }
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Test {
    pub fn new() -> Self {
        Test {
            program: PathBuf::from(env!("CARGO_BIN_EXE_squill")),
            args: Vec::new(),
            stdin: None,
            current_dir: None,
            env: Vec::new(),
            status: 0,
            stdout: Expected::Exact(String::new()),
            stderr: Expected::Exact(String::new()),
            paths: Vec::new(),
        }
    }

    /// Writes `path` as `name` in stdout and stderr before `check()`
    /// compares them (and in the `Run` it returns), so an output that names
    /// a temporary folder can be stated exactly.
    pub fn path_as(mut self, path: impl AsRef<Path>, name: &str) -> Self {
        self.paths
            .push((path.as_ref().display().to_string(), name.to_string()));
        self.paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        self
    }

    /// The exit status `check()` expects (default 0).
    pub fn status(mut self, code: i32) -> Self {
        self.status = code;
        self
    }

    /// Standard output exactly (default: empty).
    pub fn stdout(mut self, text: impl Into<String>) -> Self {
        self.stdout = Expected::Exact(text.into());
        self
    }

    /// Standard error exactly (default: empty).
    pub fn stderr(mut self, text: impl Into<String>) -> Self {
        self.stderr = Expected::Exact(text.into());
        self
    }

    /// Standard output line for line, `[..]` standing for any text within
    /// a line (a timing, a rate).
    pub fn stdout_matching(mut self, pattern: impl Into<String>) -> Self {
        self.stdout = Expected::Lines(pattern.into());
        self
    }

    /// Standard error line for line, `[..]` standing for any text within
    /// a line (the free space, a core count).
    pub fn stderr_matching(mut self, pattern: impl Into<String>) -> Self {
        self.stderr = Expected::Lines(pattern.into());
        self
    }

    /// Standard output is checked by the test after `check()` (a snapshot,
    /// parsed JSON).
    pub fn stdout_any(mut self) -> Self {
        self.stdout = Expected::Any;
        self
    }

    /// Standard error is checked by the test after `check()`.
    pub fn stderr_any(mut self) -> Self {
        self.stderr = Expected::Any;
        self
    }

    /// Runs squill and asserts the exit status, stdout and stderr as stated
    /// (status first, so a crash reads as one); returns the output.
    #[track_caller]
    pub fn check(mut self) -> Run {
        let status = self.status;
        let stdout = std::mem::replace(&mut self.stdout, Expected::Any);
        let stderr = std::mem::replace(&mut self.stderr, Expected::Any);
        let paths = std::mem::take(&mut self.paths);
        let mut run = self.spawn();
        for (path, name) in &paths {
            run.stdout = run.stdout.replace(path, name);
            run.stderr = run.stderr.replace(path, name);
        }
        assert!(
            run.code == status,
            "expected exit {status}, got {}\n--- stdout:\n{}\n--- stderr:\n{}",
            run.code,
            run.stdout,
            run.stderr
        );
        stdout.assert("stdout", &run.stdout, &run);
        stderr.assert("stderr", &run.stderr, &run);
        run
    }

    /// Runs another `squill` than this build's (see `default_build_squill`).
    pub fn program(mut self, path: impl Into<PathBuf>) -> Self {
        self.program = path.into();
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.args.extend(
            args.into_iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned()),
        );
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.current_dir = Some(dir.into());
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Runs squill, with NO_COLOR so that output is stated without colour
    /// unless a test sets otherwise; only `check()` calls it.
    fn spawn(self) -> Run {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(dir) = &self.current_dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().expect("spawn squill");
        if let Some(bytes) = self.stdin {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            // The child may exit before reading everything; that is its business.
            let _ = stdin.write_all(&bytes);
        }
        let Output {
            status,
            stdout,
            stderr,
        } = child.wait_with_output().expect("wait for squill");
        Run {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }
}

/// The `squill` of the default build (no cargo features): this build's
/// own when it has no `postgres` feature; else the one scripts/test builds
/// beside the tests and names in `SQUILL_TEST_DEFAULT_BIN`, so that the default build's
/// answers are checked without a second build of this test binary. `None`
/// with a notice when there is none, a failure under `CI=true`.
pub fn default_build_squill() -> Option<PathBuf> {
    if cfg!(not(feature = "postgres")) {
        return Some(PathBuf::from(env!("CARGO_BIN_EXE_squill")));
    }
    if let Some(path) = std::env::var_os("SQUILL_TEST_DEFAULT_BIN") {
        return Some(PathBuf::from(path));
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "SQUILL_TEST_DEFAULT_BIN is not set and CI=true: the default build's squill is not checked"
    );
    eprintln!(
        "NOTICE: skipping: no squill of the default build (SQUILL_TEST_DEFAULT_BIN; scripts/test sets it)"
    );
    None
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// `../shared/data` beside the repository, or `None` with a visible notice.
/// Under `CI=true` a missing directory is a failure, not a skip.
pub fn shared_data() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/data");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "../shared/data is missing and CI=true: tests that need it must not be skipped"
    );
    eprintln!("NOTICE: skipping: ../shared/data is not beside the repository");
    None
}

/// A fresh temporary directory under the target dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // SQUILL_KEEP_TMP=1 keeps the files of a failed check to read.
        if std::env::var_os("SQUILL_KEEP_TMP").is_some() {
            return;
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file under `dir`, as paths relative to it, sorted (none when `dir`
/// does not exist yet).
pub fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
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

/// The MongoDB-compatible server and the tools scripts/test installs:
/// (URI, the venv's python, mongosh).
pub fn mongo() -> Option<(String, String, String)> {
    let get = |k: &str| std::env::var(k).ok();
    match (
        get("SQUILL_TEST_MONGODB_URI"),
        get("SQUILL_TEST_PYTHON"),
        get("SQUILL_TEST_MONGOSH"),
    ) {
        (Some(u), Some(p), Some(m)) => Some((u, p, m)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SQUILL_TEST_MONGODB_URI, SQUILL_TEST_PYTHON or SQUILL_TEST_MONGOSH is not set and CI=true"
            );
            eprintln!("NOTICE: skipping: no MongoDB-compatible server (run through scripts/test)");
            None
        }
    }
}

/// `mongodb://host:port/?opts` with database `db` in it.
pub fn with_db(uri: &str, db: &str) -> String {
    let (base, query) = uri
        .split_once('?')
        .map_or((uri, None), |(b, q)| (b, Some(q)));
    let start = base.find("://").map_or(0, |i| i + 3);
    let end = base[start..].find('/').map_or(base.len(), |i| start + i);
    match query {
        Some(q) => format!("{}/{db}?{q}", &base[..end]),
        None => format!("{}/{db}", &base[..end]),
    }
}

/// Drops database `db` through the test venv's Python (pymongo), which
/// costs a request to the long-lived Python where mongosh costs a process.
pub fn drop_database(python: &str, uri: &str, db: &str) {
    run_tool(Command::new(python).args([
        "-c",
        "import sys; from pymongo import MongoClient; MongoClient(sys.argv[1]).drop_database(sys.argv[2])",
        uri,
        db,
    ]));
}

/// Runs a tool that must succeed; its stdout then its stderr. A check in
/// the test venv's Python runs in a long-lived Python instead of a process
/// of its own (`python_server`), a mongosh script in a long-lived mongosh
/// (`mongosh_server`).
pub fn run_tool(cmd: &mut Command) -> String {
    let run = run_any(cmd);
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(run.code == 0, "{cmd:?} failed:\n{text}");
    text
}

/// The SARIF 2.1.0 schema (rtm.5, from the MIT-licensed npm package
/// `@microsoft/jest-sarif`, fetched by `scripts/fetch-sarif-schema` into the
/// ignored `target/`) as a validator; `None` with a notice when it cannot
/// be fetched, a failure under `CI=true`. Every SARIF output is checked by it.
pub fn sarif_validator() -> Option<jsonschema::Validator> {
    let schema_path = repo_root().join("target/sarif-schema/sarif-2.1.0-rtm.5.json");
    if !schema_path.is_file() {
        let fetched = Command::new(repo_root().join("scripts/fetch-sarif-schema"))
            .status()
            .is_ok_and(|s| s.success());
        if !fetched {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "cannot fetch the SARIF schema and CI=true"
            );
            eprintln!("NOTICE: skipping: the SARIF schema could not be fetched (npm)");
            return None;
        }
    }
    let text = std::fs::read_to_string(&schema_path).expect("the SARIF schema");
    // rtm.5's `language` pattern has a stray `]` that a strict ECMA regex
    // check rejects; squill never writes `language`, so use the evident intent.
    let bad = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    assert!(text.contains(bad), "the schema changed: revisit this fix");
    let text = text.replace(bad, "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    Some(jsonschema::draft4::new(&schema).expect("the schema compiles"))
}

/// The schema's complaints about `sarif`, one line each (none: valid).
pub fn sarif_errors(validator: &jsonschema::Validator, sarif: &serde_json::Value) -> Vec<String> {
    validator
        .iter_errors(sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Runs a tool, succeeding or not, as `run_tool` does: its exit status
/// (-1 when a signal ended it), stdout and stderr.
pub fn run_any(cmd: &mut Command) -> Served {
    if let Some(served) = crate::python_server::run(cmd).or_else(|| crate::mongosh_server::run(cmd))
    {
        return served;
    }
    let out = cmd.output().expect("the tool runs");
    Served {
        code: out.status.code().map_or(-1, i64::from),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
