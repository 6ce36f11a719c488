//! Issue 40, items 8 and 9: reaching PostgreSQL as libpq does. A server
//! that accepts and never answers is given up on at the deadline (a
//! listener of the test's own); the password comes from PGPASSWORD,
//! ~/.pgpass or a service, and its absence is not "cannot reach the server"
//! (the real PostgreSQL of scripts/testenv/postgres.sh). The libpq files
//! are inputs no output may replace.

use crate::postgres::{SECRET, server};
use crate::support::{Run, TempDir, repo_root};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs squill with only `env` (and PATH) in its environment, so that the
/// caller's PG… variables and ~/.pgpass play no part; kills it and fails
/// after `limit`.
fn squill(args: &[&str], env: &[(&str, &str)], limit: Duration) -> (Run, Duration) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_squill"));
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn squill");
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("squill {args:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (run, started.elapsed())
}

/// A server that accepts every connection, keeps it open, and says nothing.
fn silent_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

#[test]
fn a_server_that_never_answers_is_given_up_on_at_the_deadline_issue_40() {
    let port = silent_server();
    let home = TempDir::new("silent-home");
    let home = home.path().to_str().unwrap();
    let model = repo_root().join("examples/person-addresses.yaml");
    let out = TempDir::new("silent-out");
    let url = format!("postgres://squill@127.0.0.1:{port}/shop");
    let env = [("HOME", home), ("PGPASSWORD", "pw")];
    let no_answer = |secs: u32| {
        format!(
            "error: the server does not answer: 127.0.0.1:{port}/shop: it accepted the connection but did not answer within {secs} s (connect_timeout in the URL, else --timeout)\n"
        )
    };
    // --timeout bounds connecting, for both commands.
    for args in [
        vec!["import", url.as_str(), "--timeout", "1s"],
        vec![
            "migrate",
            url.as_str(),
            "--model",
            model.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
            "--timeout",
            "1s",
        ],
    ] {
        let (run, took) = squill(&args, &env, Duration::from_secs(30));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.ends_with(&no_answer(1)),
            "{args:?}: {}",
            run.stderr
        );
        assert!(took < Duration::from_secs(10), "{args:?}: {took:?}");
    }
    // The URL's connect_timeout wins over --timeout.
    let with_timeout = format!("{url}?connect_timeout=2");
    let (run, took) = squill(
        &["import", &with_timeout, "--timeout", "1h"],
        &env,
        Duration::from_secs(30),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.ends_with(&no_answer(2)), "{}", run.stderr);
    assert!(took < Duration::from_secs(10), "{took:?}");
    // Without either, a default: --timeout's 30 s.
    let (run, _) = squill(&["import", &url], &env, Duration::from_secs(60));
    assert!(run.stderr.ends_with(&no_answer(30)), "{}", run.stderr);
}

#[test]
fn libpq_files_are_inputs_no_output_replaces_issue_40() {
    let home = TempDir::new("pgpass-output");
    let pgpass = home.path().join(".pgpass");
    std::fs::write(&pgpass, "*:*:*:*:kept\n").unwrap();
    let pgpass = pgpass.to_str().unwrap();
    let env = [("HOME", home.path().to_str().unwrap())];
    let (run, _) = squill(
        &[
            "import",
            "postgres://u@127.0.0.1:1/db",
            "-o",
            pgpass,
            "--force",
        ],
        &env,
        Duration::from_secs(30),
    );
    assert_eq!(
        (run.code, run.stderr),
        (
            2,
            format!(
                "error: {pgpass} is the input {pgpass} (paths compared with links followed): refusing to replace an input, even with --force; write to another file\n"
            )
        )
    );
    // migrate: a model inside the folders it fills.
    let out = home.path().join("out");
    std::fs::create_dir_all(out.join("data")).unwrap();
    let model = out.join("data/model.yaml");
    std::fs::copy(repo_root().join("examples/person-addresses.yaml"), &model).unwrap();
    let (run, _) = squill(
        &[
            "migrate",
            "postgres://u@127.0.0.1:1/db",
            "--model",
            model.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &env,
        Duration::from_secs(30),
    );
    assert_eq!(
        (run.code, run.stderr),
        (
            2,
            format!(
                "error: {} would be written into, and it holds the input {}: refusing to replace an input, even with --force; move the input or write elsewhere\n",
                out.join("data").display(),
                model.display()
            )
        )
    );
    assert_eq!(std::fs::read_to_string(pgpass).unwrap(), "*:*:*:*:kept\n");
}

/// `host:port` of the test server, and its user URL without the password.
fn address(user_url: &str) -> (String, String) {
    let without = user_url.replace(&format!(":{SECRET}@"), "@");
    let host_port = without.rsplit('@').next().unwrap().to_string();
    (host_port, without)
}

/// Writes `text` to `path` at `mode`.
fn private_file(path: &Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn the_password_comes_from_libpq_s_sources_not_argv_issue_40() {
    let Some((user, _)) = server() else {
        return;
    };
    let (host_port, url) = address(&user);
    let (host, port) = host_port.split_once(':').unwrap();
    let shop = format!("{url}/shop");
    let home = TempDir::new("pgpass-home");
    let home_str = home.path().to_str().unwrap().to_string();
    let out = home.path().join("shop.yaml");
    let out_str = out.to_str().unwrap().to_string();
    let import = |url: &str, env: &[(&str, &str)]| {
        let _ = std::fs::remove_file(&out);
        let (run, _) = squill(
            &["import", url, "-o", &out_str],
            env,
            Duration::from_secs(120),
        );
        assert!(!run.stderr.contains(SECRET), "{}", run.stderr);
        run
    };
    let imported = |run: &Run, how: &str| {
        assert_eq!(run.code, 0, "{how}: {}", run.stderr);
        let model = std::fs::read_to_string(&out).unwrap();
        assert!(model.contains("entities:"), "{how}: {model}");
    };

    // No source: the server asks for a password, and the error says so.
    let run = import(&shop, &[("HOME", &home_str)]);
    let pgpass = home.path().join(".pgpass");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            format!(
                "squill import: connecting to {host_port}/shop\nerror: no password to log in with: {host_port}/shop (connecting): the server asks for one: set PGPASSWORD, add a line host:port:database:user:password to ~/.pgpass (or the file PGPASSFILE names; mode 0600), name a service of pg_service.conf that has one (PGSERVICE), or put it in the URL (there is no {})\n",
                pgpass.display()
            )
            .as_str()
        )
    );
    assert!(!run.stderr.contains("cannot reach the server"));

    // PGPASSWORD.
    imported(
        &import(&shop, &[("HOME", &home_str), ("PGPASSWORD", SECRET)]),
        "PGPASSWORD",
    );

    // ~/.pgpass, its line found among others; not at a mode others may read.
    let line = format!("{host}:{port}:other:squill:wrong\n{host}:{port}:shop:squill:{SECRET}\n");
    private_file(&pgpass, &line, 0o644);
    let run = import(&shop, &[("HOME", &home_str)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "({} was not read: group or others may read it (as libpq, squill uses it only at mode 0600: chmod 0600 {}))",
            pgpass.display(),
            pgpass.display()
        )),
        "{}",
        run.stderr
    );
    private_file(&pgpass, &line, 0o600);
    imported(&import(&shop, &[("HOME", &home_str)]), "~/.pgpass");

    // PGPASSFILE, and the URL's parts from PGHOST, PGPORT, PGUSER, PGDATABASE.
    let other = home.path().join("elsewhere.pgpass");
    private_file(&other, &format!("*:*:*:*:{SECRET}\n"), 0o600);
    std::fs::remove_file(&pgpass).unwrap();
    imported(
        &import(
            "postgres://",
            &[
                ("HOME", &home_str),
                ("PGPASSFILE", other.to_str().unwrap()),
                ("PGHOST", host),
                ("PGPORT", port),
                ("PGUSER", "squill"),
                ("PGDATABASE", "shop"),
            ],
        ),
        "PGPASSFILE and PG… variables",
    );

    // A service of pg_service.conf (PGSERVICEFILE), named in the URL or by PGSERVICE.
    let services = home.path().join("services.conf");
    private_file(
        &services,
        &format!("[shop]\nhost={host}\nport={port}\ndbname=shop\nuser=squill\npassword={SECRET}\n"),
        0o600,
    );
    let services = services.to_str().unwrap();
    let env = [("HOME", home_str.as_str()), ("PGSERVICEFILE", services)];
    imported(&import("postgres://?service=shop", &env), "service=");
    let env = [
        ("HOME", home_str.as_str()),
        ("PGSERVICEFILE", services),
        ("PGSERVICE", "shop"),
    ];
    imported(&import("postgres://", &env), "PGSERVICE");
    // A real server with the URL's connect_timeout: still answered.
    imported(
        &import(
            &format!("{shop}?connect_timeout=5"),
            &[("HOME", &home_str), ("PGPASSWORD", SECRET)],
        ),
        "connect_timeout",
    );
}
