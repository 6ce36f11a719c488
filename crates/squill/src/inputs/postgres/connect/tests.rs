//! libpq's conventions completing a URL, and the connect deadline, without
//! a server (tests/integration/postgres_connection.rs has the real one).

use super::*;
use std::os::unix::fs::PermissionsExt as _;

/// An empty directory of this test's own.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("squill-connect-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An environment with a home of its own and nothing else.
fn env_in(home: &std::path::Path) -> Environment {
    Environment::default().with("HOME", &home.display().to_string())
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn the_environment_completes_what_the_url_leaves_out() {
    let home = scratch("env");
    let env = env_in(&home)
        .with("PGHOST", "db.example")
        .with("PGPORT", "5433")
        .with("PGUSER", "ann")
        .with("PGDATABASE", "shop")
        .with("PGPASSWORD", "env-secret");
    let t = Target::parse_in("postgres://", SECOND, &env).unwrap();
    assert_eq!(t.name, "db.example:5433/shop");
    assert_eq!(t.password.as_deref(), Some("env-secret"));
    assert_eq!(t.password_from.as_deref(), Some("PGPASSWORD"));
    assert_eq!(t.redact("x env-secret y"), "x *** y");
    // What the URL says wins.
    let t = Target::parse_in("postgres://bob:url-secret@h:1/crm", SECOND, &env).unwrap();
    assert_eq!(t.name, "h:1/crm");
    assert_eq!(t.password.as_deref(), Some("url-secret"));
    assert_eq!(t.config.get_user(), Some("bob"));
    // The key=value form too.
    let t = Target::parse_in("dbname=crm", SECOND, &env).unwrap();
    assert_eq!(t.name, "db.example:5433/crm");
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn a_bad_variable_is_named() {
    let home = scratch("badenv");
    let env = env_in(&home).with("PGPORT", "fifty");
    let e = Target::parse_in("postgres://h/db", SECOND, &env).unwrap_err();
    assert_eq!(e, LiveError::Url("PGPORT: `fifty` is not a port".into()));
    // A URL host without a port takes PGPORT's, as with libpq.
    let env = env_in(&home).with("PGPORT", "5433");
    let t = Target::parse_in("postgres://h/db", SECOND, &env).unwrap();
    assert_eq!(t.name, "h:5433/db");
    let t = Target::parse_in("postgres://h:5434/db", SECOND, &env).unwrap();
    assert_eq!(t.name, "h:5434/db");
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn the_password_file_gives_the_password_of_the_matching_line() {
    let home = scratch("pgpass");
    let pgpass = home.join(".pgpass");
    std::fs::write(
        &pgpass,
        "h:5432:other:ann:no\nh:5432:shop:ann:file-secret\n",
    )
    .unwrap();
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let t = Target::parse_in("postgres://ann@h/shop", SECOND, &env_in(&home)).unwrap();
    assert_eq!(t.password.as_deref(), Some("file-secret"));
    assert_eq!(t.password_from, Some(pgpass.display().to_string()));
    // PGPASSFILE names another; passfile= in the URL wins over it.
    let other = home.join("other-pgpass");
    std::fs::write(&other, "*:*:*:*:other-secret\n").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
    let env = env_in(&home).with("PGPASSFILE", &other.display().to_string());
    let t = Target::parse_in("postgres://ann@h/shop", SECOND, &env).unwrap();
    assert_eq!(t.password.as_deref(), Some("other-secret"));
    let url = format!("postgres://ann@h/shop?passfile={}", pgpass.display());
    let t = Target::parse_in(&url, SECOND, &env).unwrap();
    assert_eq!(t.password.as_deref(), Some("file-secret"));
    // No line matches: no password, and why is kept for the error.
    let t = Target::parse_in("postgres://bob@h/shop", SECOND, &env_in(&home)).unwrap();
    assert_eq!(t.password, None);
    assert!(
        t.passfile_note
            .as_deref()
            .is_some_and(|n| n.contains("h:5432:shop:bob")),
        "{:?}",
        t.passfile_note
    );
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn a_service_completes_the_url_and_the_url_wins() {
    let home = scratch("service");
    std::fs::write(
        home.join(".pg_service.conf"),
        "[shop]\nhost=db.example\nport=5433\ndbname=shop\nuser=ann\npassword=svc-secret\nconnect_timeout=7\n",
    )
    .unwrap();
    let env = env_in(&home).with("PGSYSCONFDIR", &home.join("none").display().to_string());
    let t = Target::parse_in("postgres://?service=shop", SECOND, &env).unwrap();
    assert_eq!(t.name, "db.example:5433/shop");
    assert_eq!(t.password.as_deref(), Some("svc-secret"));
    assert_eq!(t.connect_timeout, Duration::from_secs(7));
    let t = Target::parse_in(
        "postgres:///crm",
        SECOND,
        &env.clone().with("PGSERVICE", "shop"),
    )
    .unwrap();
    assert_eq!(t.name, "db.example:5433/crm");
    // A service nobody defines, and a setting squill cannot honour.
    let e = Target::parse_in("service=none", SECOND, &env).unwrap_err();
    assert!(
        matches!(&e, LiveError::Url(m) if m.contains("`none`")),
        "{e}"
    );
    std::fs::write(
        home.join(".pg_service.conf"),
        "[tls]\nsslmode=verify-full\n",
    )
    .unwrap();
    let e = Target::parse_in("service=tls", SECOND, &env).unwrap_err();
    let at = format!(
        "{}:2: sslmode=verify-full",
        home.join(".pg_service.conf").display()
    );
    assert!(matches!(&e, LiveError::Url(m) if m.starts_with(&at)), "{e}");
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn the_url_connect_timeout_wins_over_the_default() {
    let home = scratch("timeout");
    let env = env_in(&home);
    let t = Target::parse_in("postgres://h/db?connect_timeout=3", SECOND, &env).unwrap();
    assert_eq!(t.connect_timeout, Duration::from_secs(3));
    let t = Target::parse_in("postgres://h/db", SECOND, &env).unwrap();
    assert_eq!(t.connect_timeout, SECOND);
    let t = Target::parse_in(
        "postgres://h/db",
        SECOND,
        &env.clone().with("PGCONNECT_TIMEOUT", "4"),
    )
    .unwrap();
    assert_eq!(t.connect_timeout, Duration::from_secs(4));
    std::fs::remove_dir_all(&home).unwrap();
}

/// Issue 40: a server that accepts and never answers held the connection
/// forever (the driver bounds only the TCP connect).
#[test]
fn a_server_that_never_answers_is_given_up_on_at_the_deadline() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepts, keeps every connection open, says nothing.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let home = scratch("silent");
    let url = format!("postgres://ann:pw@127.0.0.1:{port}/shop");
    let t = Target::parse_in(&url, Duration::from_millis(300), &env_in(&home)).unwrap();
    let started = std::time::Instant::now();
    let Err(e) = t.connect(Duration::from_secs(30)) else {
        panic!("a server that says nothing gave a session");
    };
    assert!(matches!(e, LiveError::NoAnswer(_)), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    std::fs::remove_dir_all(&home).unwrap();
}
