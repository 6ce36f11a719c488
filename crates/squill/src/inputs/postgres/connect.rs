//! A read-only session on a PostgreSQL server, and errors that never carry
//! the credentials: the password is dropped from every message and the
//! source is named by host, port and database only.
//!
//! What the URL leaves out comes from libpq's conventions, in libpq's order
//! (issue 40: they were ignored, so a password had to sit in argv, readable
//! in `ps` for hours): a service of `pg_service.conf` (`service=` or
//! `PGSERVICE`; `service`), then `PGHOST`, `PGPORT`, `PGUSER`,
//! `PGDATABASE`, `PGPASSWORD`, `PGCONNECT_TIMEOUT`, `PGOPTIONS`, then the
//! password file (`passfile=`, `PGPASSFILE`, `~/.pgpass`; `passfile`).
//!
//! Connecting has one deadline, the URL's `connect_timeout` else the
//! caller's: the driver's own bounds only the TCP connect, so a server that
//! accepts and never answers held `import` and `migrate` forever (issue 40).

mod conninfo;
mod passfile;
mod service;
#[cfg(test)]
mod tests;

use postgres::config::Host;
use postgres::{Client, Config, NoTls};
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// Marks squill's own statements, so that reading `pg_stat_statements`
/// leaves them out of the application's workload.
pub const MARK: &str = "/* squill import */";

/// Why a live import or migration could not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveError {
    /// The URL is not one, or what completes it (a service, an
    /// environment variable) is wrong.
    Url(String),
    /// The server could not be reached.
    Unreachable(String),
    /// The server accepted the connection but did not answer in time.
    NoAnswer(String),
    /// The server asks for a password and no source gave one.
    NoPassword(String),
    /// The server refused the user or password.
    Auth(String),
    /// A privilege is missing.
    Privilege(String),
    /// A statement failed or took longer than allowed.
    Query(String),
}

impl fmt::Display for LiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiveError::Url(m) => write!(f, "not a PostgreSQL URL: {m}"),
            LiveError::Unreachable(m) => write!(f, "cannot reach the server: {m}"),
            LiveError::NoAnswer(m) => write!(f, "the server does not answer: {m}"),
            LiveError::NoPassword(m) => write!(f, "no password to log in with: {m}"),
            LiveError::Auth(m) => write!(f, "the server refused the login: {m}"),
            LiveError::Privilege(m) => write!(f, "missing privilege: {m}"),
            LiveError::Query(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for LiveError {}

/// What libpq's conventions read besides the URL: the `PG…` variables,
/// `HOME`, `USER`. A value of its own so that tests need not change the
/// process's environment.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    vars: HashMap<String, String>,
}

impl Environment {
    /// This process's.
    pub fn of_process() -> Self {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| {
                k.starts_with("PG") || ["HOME", "USER", "LOGNAME"].contains(&k.as_str())
            })
            .collect();
        Environment { vars }
    }

    /// With `key` set to `value`.
    #[must_use]
    pub fn with(mut self, key: &str, value: &str) -> Self {
        self.vars.insert(key.to_string(), value.to_string());
        self
    }

    /// A variable, when set and not empty (libpq ignores empty ones).
    fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    fn home(&self) -> Option<PathBuf> {
        self.get("HOME").map(PathBuf::from)
    }

    /// The password file: `passfile=` (URL or service), else
    /// `PGPASSFILE`, else `~/.pgpass`.
    fn passfile(&self, named: Option<&str>) -> Option<PathBuf> {
        named
            .or(self.get("PGPASSFILE"))
            .map(PathBuf::from)
            .or_else(|| self.home().map(|h| h.join(".pgpass")))
    }

    /// The service files, searched in this order.
    fn service_files(&self) -> Vec<PathBuf> {
        let user = self
            .get("PGSERVICEFILE")
            .map(PathBuf::from)
            .or_else(|| self.home().map(|h| h.join(".pg_service.conf")));
        // Debian's libpq looks in /etc/postgresql-common; a libpq built
        // from source in its own etc (PGSYSCONFDIR names it).
        let system = PathBuf::from(self.get("PGSYSCONFDIR").unwrap_or("/etc/postgresql-common"))
            .join("pg_service.conf");
        user.into_iter().chain([system]).collect()
    }
}

/// The files libpq's conventions may read for a connection of this
/// process (password file, service files), whether they exist or not: an
/// output must not replace them.
pub fn credential_files() -> Vec<PathBuf> {
    let env = Environment::of_process();
    let mut files = env.service_files();
    files.extend(env.passfile(None));
    files
}

/// How to reach the server, and how long to wait.
#[derive(Debug, Clone)]
pub struct Target {
    config: Config,
    /// `host:port/database`, what reports name it by.
    pub name: String,
    password: Option<String>,
    /// Where the password came from (`PGPASSWORD`, a file), for the error
    /// of a refused login.
    password_from: Option<String>,
    /// Why no password file gave one, for the error of a missing password.
    passfile_note: Option<String>,
    /// Connecting, login and session set-up together take at most this.
    connect_timeout: Duration,
}

impl Target {
    /// Parses `postgres://user:password@host:port/database?…` (or the
    /// `key=value` form), completed by libpq's conventions from this
    /// process's environment. `connect_timeout` applies unless the URL, a
    /// service or `PGCONNECT_TIMEOUT` sets one. The error never repeats the
    /// text.
    pub fn parse(url: &str, connect_timeout: Duration) -> Result<Target, LiveError> {
        Target::parse_in(url, connect_timeout, &Environment::of_process())
    }

    /// `parse`, the conventions read from `env`.
    pub fn parse_in(
        url: &str,
        connect_timeout: Duration,
        env: &Environment,
    ) -> Result<Target, LiveError> {
        let split = conninfo::split(url);
        let mut config = Config::from_str(&split.rest).map_err(|e| {
            // The parser's message may quote the URL: keep only its kind.
            let kind = e.to_string();
            let kind = kind.split(':').next().unwrap_or("invalid").to_string();
            LiveError::Url(format!(
                "{kind} (expected postgres://user:password@host:port/database)"
            ))
        })?;
        if !split.port_given && !config.get_ports().is_empty() {
            config = without_ports(&config);
        }
        let mut password_from = config.get_password().map(|_| "the URL".to_string());
        let mut passfile_named = split.passfile;
        if let Some(name) = split.service.as_deref().or(env.get("PGSERVICE")) {
            let found = service::find(name, &env.service_files()).map_err(LiveError::Url)?;
            for s in &found.settings {
                if s.key == "password" && config.get_password().is_none() {
                    password_from = Some(format!("the service `{name}` ({})", s.at));
                }
                if s.key == "passfile" {
                    passfile_named.get_or_insert_with(|| s.value.clone());
                    continue;
                }
                complete(&mut config, &s.key, &s.value)
                    .map_err(|why| LiveError::Url(format!("{}: {why}", s.at)))?;
            }
        }
        for (var, key) in [
            ("PGHOST", "host"),
            ("PGPORT", "port"),
            ("PGUSER", "user"),
            ("PGDATABASE", "dbname"),
            ("PGCONNECT_TIMEOUT", "connect_timeout"),
            ("PGOPTIONS", "options"),
            ("PGPASSWORD", "password"),
        ] {
            if let Some(value) = env.get(var) {
                if key == "password" && config.get_password().is_none() {
                    password_from = Some("PGPASSWORD".into());
                }
                complete(&mut config, key, value)
                    .map_err(|why| LiveError::Url(format!("{var}: {why}")))?;
            }
        }
        if config.get_hosts().is_empty() {
            default_host(&mut config);
        }
        if config.get_user().is_none()
            && let Some(user) = env.get("USER").or(env.get("LOGNAME"))
        {
            config.user(user);
        }
        let hosts: Vec<String> = config
            .get_hosts()
            .iter()
            .map(|h| match h {
                Host::Tcp(h) => h.clone(),
                Host::Unix(p) => p.display().to_string(),
            })
            .collect();
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or("postgres").to_string();
        let db = config.get_dbname().unwrap_or(&user).to_string();
        let mut passfile_note = None;
        if config.get_password().is_none()
            && let Some(path) = env.passfile(passfile_named.as_deref())
        {
            // A socket in the default directory is "localhost" to libpq.
            let mut names = hosts.clone();
            if config
                .get_hosts()
                .iter()
                .any(|h| matches!(h, Host::Unix(_)))
            {
                names.push("localhost".into());
            }
            let wanted = passfile::Wanted {
                hosts: &names,
                port,
                database: &db,
                user: &user,
            };
            match passfile::lookup(&path, &wanted) {
                Ok(password) => {
                    config.password(password);
                    password_from = Some(path.display().to_string());
                }
                Err(why) => passfile_note = Some(why),
            }
        }
        let connect_timeout = config
            .get_connect_timeout()
            .copied()
            .unwrap_or(connect_timeout);
        config.connect_timeout(connect_timeout);
        // A server that vanishes mid-statement (its host down, the network
        // cut) is found by keepalives in about two minutes, not the
        // kernel's eleven; one that is up answers them, and its slow
        // statements meet statement_timeout.
        config.keepalives_idle(Duration::from_secs(60));
        config.keepalives_interval(Duration::from_secs(10));
        config.keepalives_retries(6);
        config.application_name("squill");
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).to_string())
            .filter(|p| !p.is_empty());
        Ok(Target {
            name: format!(
                "{}:{port}/{db}",
                hosts.first().map_or("localhost", String::as_str)
            ),
            config,
            password,
            password_from,
            passfile_note,
            connect_timeout,
        })
    }

    /// The user it logs in as (libpq's default: `postgres`), for a job
    /// that connects on its own (`migrate --engine spark`).
    pub fn user(&self) -> &str {
        self.config.get_user().unwrap_or("postgres")
    }

    /// Removes the password from a message (a server may quote it back).
    pub fn redact(&self, message: &str) -> String {
        match &self.password {
            Some(p) => message.replace(p.as_str(), "***"),
            None => message.to_string(),
        }
    }

    /// Connects and makes the session read-only: every transaction it
    /// starts is READ ONLY, and each statement is cancelled after
    /// `statement_timeout`. Connecting, logging in and setting the session
    /// up must end within the connect timeout: they run on a thread of
    /// their own, left behind when the deadline passes (it ends when the
    /// server closes the connection, or with the process).
    pub fn connect(&self, statement_timeout: Duration) -> Result<Client, LiveError> {
        let config = self.config.clone();
        let setup = format!(
            "{MARK} SET default_transaction_read_only = on; SET statement_timeout = {}; SET lock_timeout = 5000",
            statement_timeout.as_millis().max(1)
        );
        let (sender, receiver) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("squill-postgres-connect".into())
            .spawn(move || {
                let result = match config.connect(NoTls) {
                    Ok(mut client) => match client.batch_execute(&setup) {
                        Ok(()) => Ok(client),
                        Err(e) => Err((e, "setting up the session")),
                    },
                    Err(e) => Err((e, "connecting")),
                };
                // The caller may have stopped waiting: nobody to tell.
                let _ = sender.send(result);
            });
        if let Err(e) = spawned {
            return Err(LiveError::Unreachable(format!(
                "{}: cannot start a thread to connect: {e}",
                self.name
            )));
        }
        // Each host has the whole timeout, as with libpq.
        let hosts = u32::try_from(self.config.get_hosts().len().max(1)).unwrap_or(u32::MAX);
        match receiver.recv_timeout(self.connect_timeout.saturating_mul(hosts)) {
            Ok(Ok(client)) => Ok(client),
            Ok(Err((e, doing))) => Err(self.classify(&e, doing)),
            Err(_) => Err(LiveError::NoAnswer(format!(
                "{}: it accepted the connection but did not answer within {} s (connect_timeout in the URL, else --timeout)",
                self.name,
                self.connect_timeout.as_secs_f64()
            ))),
        }
    }

    /// A driver error as a `LiveError`, by the server's SQLSTATE when it
    /// has one.
    pub fn classify(&self, e: &postgres::Error, doing: &str) -> LiveError {
        let text = self.redact(&match e.as_db_error() {
            Some(db) => db.message().to_string(),
            None => {
                let mut s = e.to_string();
                let mut source = std::error::Error::source(e);
                while let Some(inner) = source {
                    s = format!("{s}: {inner}");
                    source = inner.source();
                }
                s
            }
        });
        let at = format!("{} ({doing})", self.name);
        match e.code().map(postgres::error::SqlState::code) {
            Some("28P01" | "28000") => LiveError::Auth(match &self.password_from {
                Some(from) => format!("{at}: {text} (the password from {from})"),
                None => format!("{at}: {text}"),
            }),
            Some("42501") => LiveError::Privilege(format!("{at}: {text}")),
            Some("3D000") => LiveError::Unreachable(format!("{at}: {text}")),
            Some("57014") => LiveError::Query(format!(
                "{at}: the statement took longer than the timeout (--timeout): {text}"
            )),
            Some(_) => LiveError::Query(format!("{at}: {text}")),
            // The driver's words when the server asks for a password it
            // was not given (tokio-postgres, connect_raw.rs); it has no
            // error code to tell it by.
            None if self.password.is_none() && text.contains("password missing") => {
                LiveError::NoPassword(format!(
                    "{at}: the server asks for one: set PGPASSWORD, add a line host:port:database:user:password to ~/.pgpass (or the file PGPASSFILE names; mode 0600), name a service of pg_service.conf that has one (PGSERVICE), or put it in the URL{}",
                    self.passfile_note
                        .as_ref()
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default()
                ))
            }
            None if e.is_closed() || e.as_db_error().is_none() && doing == "connecting" => {
                LiveError::Unreachable(format!("{at}: {text}"))
            }
            None => LiveError::Query(format!("{at}: {text}")),
        }
    }
}

/// Sets `key` on `config` unless the URL (or an earlier source) set it.
fn complete(config: &mut Config, key: &str, value: &str) -> Result<(), String> {
    match key {
        "host" if config.get_hosts().is_empty() => {
            for host in value.split(',') {
                config.host(host);
            }
        }
        "port" if config.get_ports().is_empty() => {
            for port in value.split(',') {
                let port = port
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{port}` is not a port"))?;
                config.port(port);
            }
        }
        "user" if config.get_user().is_none() => {
            config.user(value);
        }
        "dbname" if config.get_dbname().is_none() => {
            config.dbname(value);
        }
        "password" if config.get_password().is_none() => {
            config.password(value);
        }
        "options" if config.get_options().is_none() => {
            config.options(value);
        }
        "connect_timeout" if config.get_connect_timeout().is_none() => {
            let seconds: u64 = value
                .trim()
                .parse()
                .map_err(|_| format!("`{value}` is not a number of seconds"))?;
            // libpq: 0 waits forever; squill always has a deadline.
            if seconds > 0 {
                config.connect_timeout(Duration::from_secs(seconds.max(2)));
            }
        }
        "sslmode" => match value {
            "disable" | "allow" | "prefer" => {}
            other => {
                return Err(format!(
                    "sslmode={other}: squill connects without TLS (disable, allow or prefer)"
                ));
            }
        },
        "application_name" | "host" | "port" | "user" | "dbname" | "password" | "options"
        | "connect_timeout" => {}
        other => {
            return Err(format!(
                "`{other}` is not a setting squill reads (host, port, dbname, user, password, passfile, connect_timeout, options, application_name, sslmode)"
            ));
        }
    }
    Ok(())
}

/// `config` with no port: the driver's 5432 for a URL host without one
/// must not hide `PGPORT` or a service's port.
fn without_ports(config: &Config) -> Config {
    let mut out = Config::new();
    if let Some(user) = config.get_user() {
        out.user(user);
    }
    if let Some(password) = config.get_password() {
        out.password(password);
    }
    if let Some(dbname) = config.get_dbname() {
        out.dbname(dbname);
    }
    if let Some(options) = config.get_options() {
        out.options(options);
    }
    if let Some(name) = config.get_application_name() {
        out.application_name(name);
    }
    for host in config.get_hosts() {
        match host {
            Host::Tcp(h) => out.host(h),
            Host::Unix(p) => out.host_path(p),
        };
    }
    for addr in config.get_hostaddrs() {
        out.hostaddr(*addr);
    }
    if let Some(t) = config.get_connect_timeout() {
        out.connect_timeout(*t);
    }
    if let Some(t) = config.get_tcp_user_timeout() {
        out.tcp_user_timeout(*t);
    }
    out.ssl_mode(config.get_ssl_mode())
        .ssl_negotiation(config.get_ssl_negotiation())
        .keepalives(config.get_keepalives())
        .keepalives_idle(config.get_keepalives_idle())
        .target_session_attrs(config.get_target_session_attrs())
        .channel_binding(config.get_channel_binding())
        .load_balance_hosts(config.get_load_balance_hosts());
    if let Some(i) = config.get_keepalives_interval() {
        out.keepalives_interval(i);
    }
    if let Some(r) = config.get_keepalives_retries() {
        out.keepalives_retries(r);
    }
    out
}

/// libpq's default host: the Unix socket of the usual directories when
/// one is there, else `localhost`.
fn default_host(config: &mut Config) {
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let socket = ["/var/run/postgresql", "/tmp"].into_iter().find(|dir| {
        std::path::Path::new(dir)
            .join(format!(".s.PGSQL.{port}"))
            .exists()
    });
    match socket {
        Some(dir) => config.host_path(dir),
        None => config.host("localhost"),
    };
}

/// A quoted identifier: `"film"`, `"Weird""Name"`.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A SQL string literal: `'it''s'`.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A table's qualified, quoted name.
pub fn qualified(schema: &str, table: &str) -> String {
    format!("{}.{}", quote(schema), quote(table))
}
