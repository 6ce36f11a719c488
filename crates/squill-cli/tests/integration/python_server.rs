//! The end-to-end tests' Python checks, run in one long-lived Python per
//! test thread (`scripts/testenv/serve_python.py`) instead of a process
//! each: they start hundreds, and starting Python and importing pymongo
//! costs more CPU than most checks (issue 47). `run_tool` sends a command
//! here when the server can run it exactly as the process would; the
//! client is the `squill` crate's test file, shared so that both crates'
//! tests speak the protocol through one implementation.

use std::ffi::OsStr;
use std::process::Command;

/// What a check said, as its process would have: exit status, stdout,
/// stderr (the type the mongosh server's replies have too; the client
/// names it `super::mongosh_server::Served`).
pub(crate) use crate::mongosh_server::{self, Served};

#[path = "../../../squill/src/artifacts/python_server.rs"]
#[allow(dead_code, reason = "the pool is for the squill crate's own tests")]
mod client;

pub(crate) use client::{run, run_argv};

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
