//! Tests' mongosh scripts, run in one long-lived mongosh
//! (`scripts/testenv/serve_mongosh.js`) instead of a process each: starting
//! mongosh costs 1.2–1.5 s of CPU, more than most scripts the tests run
//! (issue 47). A command is sent here when the server can run it as the
//! process would: each script in a scope of its own, `db` the URI's
//! database, its exit status (an uncaught error 1, `quit(n)` n) and its
//! output its own.
//!
//! Test code only, shared by two crates: `squill`'s own tests
//! (`artifacts::external_tests`, through a [`Pool`]) and the CLI's
//! end-to-end tests, which include this file with `#[path]`
//! (crates/squill-cli/tests/integration/mongosh_server.rs, through [`run`],
//! one server per test thread). It uses nothing of either crate.

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// What a script said, as its process would have: exit status, stdout,
/// stderr.
pub(crate) struct Served {
    pub code: i64,
    pub stdout: String,
    pub stderr: String,
}

/// The line that ends each reply (see serve_mongosh.js).
const REPLY: &str = "\u{1e}squill-mongosh-reply ";

/// What a server is asked to run for `cmd`, with the tests' mongosh
/// (`SQUILL_TEST_MONGOSH`), when `cmd` is `mongosh --quiet --norc URI FILE`
/// with that mongosh, UTF-8 arguments and no environment or directory of
/// its own; `None` (not served) otherwise, or when
/// `SQUILL_TEST_MONGOSH_SERVER=0` (every script its own process, as
/// before). (Several files share one global scope in one mongosh, and
/// `--eval` prints its last value: neither is served.)
fn request(cmd: &Command) -> Option<(OsString, serde_json::Value)> {
    let mongosh = std::env::var_os("SQUILL_TEST_MONGOSH")?;
    if cmd.get_program() != mongosh
        || std::env::var("SQUILL_TEST_MONGOSH_SERVER").as_deref() == Ok("0")
        || cmd.get_envs().next().is_some()
        || cmd.get_current_dir().is_some()
    {
        return None;
    }
    let args: Vec<&str> = cmd.get_args().map(OsStr::to_str).collect::<Option<_>>()?;
    let &["--quiet", "--norc", uri, file] = args.as_slice() else {
        return None;
    };
    if !uri.starts_with("mongodb://") || file.starts_with('-') {
        return None;
    }
    let file = std::env::current_dir().ok()?.join(file);
    let request = serde_json::json!({ "uri": uri, "file": file.to_str()? });
    Some((mongosh, request))
}

/// Runs `cmd` in this thread's mongosh server (started on first use,
/// stopped when the thread ends) when it can be served; `None` (not run)
/// otherwise (see [`request`]).
pub(crate) fn run(cmd: &Command) -> Option<Served> {
    let (mongosh, request) = request(cmd)?;
    Some(SERVER.with(|server| {
        let mut server = server.borrow_mut();
        let served = server
            .get_or_insert_with(|| Server::start(&mongosh))
            .run(&request);
        if served.is_none() {
            // It exited: the next request starts another.
            *server = None;
        }
        served.unwrap_or_else(|| panic!("the mongosh server exited while running {cmd:?}"))
    }))
}

thread_local! {
    /// One server per test thread (so per test under nextest), stopped when
    /// the thread ends.
    static SERVER: RefCell<Option<Server>> = const { RefCell::new(None) };
}

/// Servers for work spread over threads that outlive a test (rayon's): a
/// request takes an idle server or starts one, and gives it back after;
/// dropping the pool stops and waits for them all, so that no mongosh
/// outlives its test (and their CPU time counts as the test's).
#[derive(Default)]
pub(crate) struct Pool {
    idle: Mutex<Vec<Server>>,
}

impl Pool {
    /// Runs `cmd` in one of the pool's servers when it can be served;
    /// `None` (not run) otherwise (see [`request`]).
    pub(crate) fn run(&self, cmd: &Command) -> Option<Served> {
        let (mongosh, request) = request(cmd)?;
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut server = idle.unwrap_or_else(|| Server::start(&mongosh));
        let served = server
            .run(&request)
            .unwrap_or_else(|| panic!("the mongosh server exited while running {cmd:?}"));
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(server);
        }
        Some(served)
    }
}

struct Server {
    child: Child,
    /// `None` once closed, which ends the server.
    requests: Option<ChildStdin>,
    replies: BufReader<ChildStdout>,
}

impl Server {
    fn start(mongosh: &OsStr) -> Self {
        // Both crates' manifests are two levels under the repository's root.
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv/serve_mongosh.js");
        let mut child = Command::new(mongosh)
            .args(["--quiet", "--norc", "--nodb"])
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the mongosh server starts");
        let requests = child.stdin.take().expect("the server's stdin");
        let replies = BufReader::new(child.stdout.take().expect("the server's stdout"));
        Server {
            child,
            requests: Some(requests),
            replies,
        }
    }

    /// The reply to one request, or `None` when the server exited first
    /// (what it printed then is on this test's stderr).
    fn run(&mut self, request: &serde_json::Value) -> Option<Served> {
        let requests = self.requests.as_mut()?;
        writeln!(requests, "{request}").ok()?;
        requests.flush().ok()?;
        let mut stdout = String::new();
        loop {
            let mut line = String::new();
            if self.replies.read_line(&mut line).ok()? == 0 {
                eprint!("{stdout}");
                return None;
            }
            if let Some(at) = line.find(REPLY) {
                stdout.push_str(&line[..at]);
                let reply: serde_json::Value = serde_json::from_str(&line[at + REPLY.len()..])
                    .expect("a JSON reply from the mongosh server");
                let error = reply["error"].as_str().unwrap_or_default();
                return Some(Served {
                    code: reply["code"].as_i64().unwrap_or(-1),
                    stdout,
                    stderr: if error.is_empty() {
                        String::new()
                    } else {
                        format!("{error}\n")
                    },
                });
            }
            stdout.push_str(&line);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The end of its input: it removes its scratch directory and
        // exits. Killed if it has not within 10 s (idle between requests,
        // so nothing is cut short).
        self.requests = None;
        for _ in 0..100 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
