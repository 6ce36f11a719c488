//! The end-to-end tests' Python checks, run in one long-lived Python per
//! test thread (`scripts/testenv/serve_python.py`) instead of a process
//! each: they start hundreds, and starting Python and importing pymongo
//! costs more CPU than most checks (issue 47). `run_tool` sends a command
//! here when the server can run it exactly as the process would.

use std::cell::RefCell;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// What a check said, as its process would have: exit status, stdout, stderr
/// (the type the mongosh server's replies have too).
pub(crate) use crate::mongosh_server::Served;

/// Runs `cmd` in this thread's Python server when it is a command of the
/// test venv's Python (`SQUILL_TEST_PYTHON`) with UTF-8 arguments and no
/// environment or directory of its own; `None` (not run) otherwise, or when
/// `SQUILL_TEST_PYTHON_SERVER=0` (every check its own process, as before).
pub fn run(cmd: &Command) -> Option<Served> {
    let python = std::env::var_os("SQUILL_TEST_PYTHON")?;
    if cmd.get_program() != python
        || std::env::var("SQUILL_TEST_PYTHON_SERVER").as_deref() == Ok("0")
        || cmd.get_envs().next().is_some()
        || cmd.get_current_dir().is_some()
    {
        return None;
    }
    let argv: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    if argv.is_empty() {
        return None;
    }
    Some(run_argv(cmd.get_program(), &argv))
}

/// `python ARGV…` in this thread's server, started on first use.
pub fn run_argv(python: &OsStr, argv: &[String]) -> Served {
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

struct Server {
    child: Child,
    requests: ChildStdin,
    replies: BufReader<ChildStdout>,
}

impl Server {
    fn start(python: &OsStr) -> Self {
        let mut child = Command::new(python)
            .arg(crate::support::repo_root().join("scripts/testenv/serve_python.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the Python server starts");
        let requests = child.stdin.take().expect("the server's stdin");
        let replies = BufReader::new(child.stdout.take().expect("the server's stdout"));
        Server {
            child,
            requests,
            replies,
        }
    }

    fn run(&mut self, argv: &[String]) -> Served {
        let request = serde_json::json!({ "argv": argv });
        writeln!(self.requests, "{request}").expect("a request to the Python server");
        self.requests
            .flush()
            .expect("a request to the Python server");
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
        // Idle between requests, so nothing is cut short; without this it
        // would exit at the end of its input, when the test process ends.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same checks, served and as processes of their own, say the same:
/// exit status, stdout and stderr, tracebacks included.
#[test]
fn a_served_check_says_what_its_process_says() {
    let Some((_, python, _)) = crate::support::mongo() else {
        return;
    };
    let script = crate::support::repo_root().join("scripts/testenv/check_migrated.py");
    let script = script.to_str().expect("a UTF-8 path");
    let cases: &[&[&str]] = &[
        &[
            "-c",
            "import sys; print(sys.argv[1:]); print('to stderr', file=sys.stderr)",
            "a",
            "b c",
        ],
        &["-c", "import sys; print('half'); sys.exit(3)"],
        &["-c", "import sys; sys.exit('a message')"],
        &["-c", "def f():\n    raise ValueError('broken')\nf()"],
        &["-c", "print(__name__)"],
        &[script, "--uri"],
        &[script, "--help"],
    ];
    for &argv in cases {
        let owned: Vec<String> = argv.iter().map(|a| (*a).to_string()).collect();
        let served = run_argv(OsStr::new(&python), &owned);
        let own = Command::new(&python)
            .args(argv)
            .output()
            .expect("python runs");
        assert_eq!(
            (served.code, served.stdout.as_str(), served.stderr.as_str()),
            (
                i64::from(own.status.code().unwrap_or(-1)),
                String::from_utf8_lossy(&own.stdout).as_ref(),
                String::from_utf8_lossy(&own.stderr).as_ref()
            ),
            "{argv:?}"
        );
    }
}
