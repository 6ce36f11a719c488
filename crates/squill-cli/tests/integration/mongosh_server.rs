//! The end-to-end tests' mongosh scripts, run in one long-lived mongosh per
//! test thread (`scripts/testenv/serve_mongosh.js`) instead of a process
//! each: a migration case ran mongosh 4 to 7 times, at 1.2–1.5 s of CPU a
//! start (issue 47). `run_tool` sends a command here; the client is the
//! `squill` crate's test file, shared so that both crates' tests speak the
//! protocol through one implementation.

use std::process::Command;

#[path = "../../../squill/src/artifacts/mongosh_server.rs"]
#[allow(dead_code, reason = "the pool is for the squill crate's own tests")]
mod client;

pub(crate) use client::{Served, run};

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
