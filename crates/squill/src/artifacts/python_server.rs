//! Tests' Python checks, run in one long-lived Python
//! (`scripts/testenv/serve_python.py`) instead of a process each: starting
//! Python and importing pymongo costs about 0.2 s of CPU, more than most
//! checks, and the tests start hundreds (issue 47). A command is sent here
//! when the server can run it as the process would: `python ARGV…` with
//! UTF-8 arguments and no environment or directory of its own, its exit
//! status, stdout and stderr its own.
//!
//! Test code only, shared by two crates as mongosh_server.rs is: `squill`'s
//! own tests (`artifacts::external_tests`, through a [`Pool`]) and the
//! CLI's end-to-end tests, which include this file with `#[path]`
//! (crates/squill-cli/tests/integration/python_server.rs, through [`run`],
//! one server per test thread). It uses nothing of either crate.

use super::mongosh_server::Served;
use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// The arguments of `cmd` when a server of its program can run it: UTF-8
/// arguments, at least one, no environment or directory of its own, and
/// `SQUILL_TEST_PYTHON_SERVER` not `0` (every check its own process, as
/// before).
fn servable(cmd: &Command) -> Option<Vec<String>> {
    if std::env::var("SQUILL_TEST_PYTHON_SERVER").as_deref() == Ok("0")
        || cmd.get_envs().next().is_some()
        || cmd.get_current_dir().is_some()
    {
        return None;
    }
    let argv: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    (!argv.is_empty()).then_some(argv)
}

/// Runs `cmd` in this thread's Python server when it is a command of the
/// test venv's Python (`SQUILL_TEST_PYTHON`) that can be served (see
/// [`servable`]); `None` (not run) otherwise.
pub(crate) fn run(cmd: &Command) -> Option<Served> {
    let python = std::env::var_os("SQUILL_TEST_PYTHON")?;
    if cmd.get_program() != python {
        return None;
    }
    let argv = servable(cmd)?;
    Some(run_argv(cmd.get_program(), &argv))
}

/// `python ARGV…` in this thread's server, started on first use.
pub(crate) fn run_argv(python: &OsStr, argv: &[String]) -> Served {
    SERVER.with(|server| {
        server
            .borrow_mut()
            .get_or_insert_with(|| Server::start(python))
            .run(argv)
    })
}

thread_local! {
    /// One server per test thread (so per test under nextest), stopped when
    /// the thread ends.
    static SERVER: RefCell<Option<Server>> = const { RefCell::new(None) };
}

/// Servers for work spread over threads that outlive a test (rayon's): a
/// request takes an idle server of its program or starts one, and gives it
/// back after; dropping the pool stops and waits for them all, so that no
/// Python outlives its test (and their CPU time counts as the test's).
#[derive(Default)]
pub(crate) struct Pool {
    idle: Mutex<Vec<(OsString, Server)>>,
}

impl Pool {
    /// Runs `cmd` (a Python and its arguments) in one of the pool's servers
    /// when it can be served; `None` (not run) otherwise (see [`servable`]).
    pub(crate) fn run(&self, cmd: &Command) -> Option<Served> {
        let argv = servable(cmd)?;
        let python = cmd.get_program().to_os_string();
        let idle = self.idle.lock().ok().and_then(|mut idle| {
            let at = idle.iter().position(|(p, _)| *p == python)?;
            Some(idle.swap_remove(at).1)
        });
        let mut server = idle.unwrap_or_else(|| Server::start(&python));
        let served = server.run(&argv);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push((python, server));
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
    fn start(python: &OsStr) -> Self {
        // Both crates' manifests are two levels under the repository's root.
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/testenv/serve_python.py");
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the Python server starts");
        let requests = child.stdin.take().expect("the server's stdin");
        let replies = BufReader::new(child.stdout.take().expect("the server's stdout"));
        Server {
            child,
            requests: Some(requests),
            replies,
        }
    }

    fn run(&mut self, argv: &[String]) -> Served {
        let request = serde_json::json!({ "argv": argv });
        let requests = self.requests.as_mut().expect("an open server");
        writeln!(requests, "{request}").expect("a request to the Python server");
        requests.flush().expect("a request to the Python server");
        let mut line = String::new();
        self.replies
            .read_line(&mut line)
            .expect("a reply from the Python server");
        assert!(
            !line.is_empty(),
            "the Python server exited while running {argv:?}"
        );
        let reply: serde_json::Value =
            serde_json::from_str(&line).expect("a JSON reply from the Python server");
        let text = |k: &str| reply[k].as_str().unwrap_or_default().to_string();
        Served {
            code: reply["code"].as_i64().unwrap_or(-1),
            stdout: text("stdout"),
            stderr: text("stderr"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The end of its input ends it (idle between requests, so nothing
        // is cut short); killed if it has not exited within 10 s.
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
