//! The end-to-end tests' mongosh scripts, run in one long-lived mongosh per
//! test thread (`scripts/testenv/serve_mongosh.js`) instead of a process
//! each: starting mongosh costs 1.2–1.5 s of CPU, more than most scripts
//! the tests run, and a migration case ran it 4 to 7 times (issue 47).
//! `run_tool` sends a command here when the server can run it as the
//! process would: each script in a scope of its own, `db` the URI's
//! database, its exit status (an uncaught error 1, `quit(n)` n) and its
//! output its own.

use std::cell::RefCell;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::python_server::Served;

/// The line that ends each reply (see serve_mongosh.js).
const REPLY: &str = "\u{1e}squill-mongosh-reply ";

/// Runs `cmd` in this thread's mongosh server when it is
/// `mongosh --quiet --norc URI FILE` with the tests' mongosh
/// (`SQUILL_TEST_MONGOSH`), UTF-8 arguments and no environment or
/// directory of its own; `None` (not run) otherwise, or when
/// `SQUILL_TEST_MONGOSH_SERVER=0` (every script its own process, as
/// before). (Several files share one global scope in one mongosh, and
/// `--eval` prints its last value: neither is served.)
pub fn run(cmd: &Command) -> Option<Served> {
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
    Some(SERVER.with(|server| {
        let mut server = server.borrow_mut();
        let served = server
            .get_or_insert_with(|| Server::start(&mongosh))
            .run(&request);
        if served.is_none() {
            // It exited: the next request starts another.
            *server = None;
        }
        served.unwrap_or_else(|| panic!("the mongosh server exited while running {args:?}"))
    }))
}

thread_local! {
    /// One server per test thread (so per test under nextest), stopped when
    /// the thread ends.
    static SERVER: RefCell<Option<Server>> = const { RefCell::new(None) };
}

struct Server {
    child: Child,
    /// `None` once closed, which ends the server.
    requests: Option<ChildStdin>,
    replies: BufReader<ChildStdout>,
}

impl Server {
    fn start(mongosh: &OsStr) -> Self {
        let mut child = Command::new(mongosh)
            .args(["--quiet", "--norc", "--nodb"])
            .arg(crate::support::repo_root().join("scripts/testenv/serve_mongosh.js"))
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

/// The same scripts, served and as processes of their own, say the same:
/// exit status, and stdout then stderr; and a script does not see what an
/// earlier one declared (its helper is not defined, as in a process alone).
#[test]
fn a_served_script_says_what_its_process_says() {
    let Some((uri, _, mongosh)) = crate::support::mongo() else {
        return;
    };
    let dir = crate::support::TempDir::new("mongosh-server");
    let uri = crate::support::with_db(&uri, "squill_mongosh_server");
    let scripts: &[(&str, &str)] = &[
        (
            "prints.js",
            "db.t.drop(); db.t.insertOne({ _id: 1 }); const N = db.t.countDocuments({});\n\
             function helper() { return N; }\n\
             print(`in ${db.getName()}: ${helper()}`);",
        ),
        // Declares again what the first declared, as a process can.
        ("again.js", "const N = 2; print(N);"),
        (
            "throws.js",
            "print('before'); throw new Error('squill migration: 1 check(s) failed');",
        ),
        (
            "server-error.js",
            "db.runCommand({ squillNoSuchCommand: 1 });",
        ),
        ("quits.js", "print('before'); quit(3); print('after');"),
        ("quits-clean.js", "quit(); print('after');"),
        ("no-helper.js", "print(typeof helper); helper();"),
        ("syntax.js", "print('never' +);"),
        ("to-stderr.js", "print('out'); console.error('err');"),
    ];
    let mut seen = Vec::new();
    for (name, text) in scripts {
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        let mut cmd = Command::new(&mongosh);
        cmd.args(["--quiet", "--norc", &uri]).arg(&file);
        let served = run(&cmd).expect("a served script");
        let own = cmd.output().expect("mongosh runs");
        let own = (
            i64::from(own.status.code().unwrap_or(-1)),
            format!(
                "{}{}",
                String::from_utf8_lossy(&own.stdout),
                String::from_utf8_lossy(&own.stderr)
            ),
        );
        assert_eq!(
            (served.code, format!("{}{}", served.stdout, served.stderr)),
            own,
            "{name}"
        );
        seen.push(served.code);
    }
    // Every way out was taken: success, an error, quit(3), quit().
    assert_eq!(seen, [0, 0, 1, 1, 3, 0, 1, 1, 0]);
    let mut drop = Command::new(&mongosh);
    let file = dir.path().join("drop.js");
    std::fs::write(&file, "db.dropDatabase();").unwrap();
    drop.args(["--quiet", "--norc", &uri]).arg(&file);
    assert_eq!(run(&drop).expect("a served script").code, 0);
}
