//! A read-only session on a PostgreSQL server, and errors that never carry
//! the credentials: the URL's password is dropped from every message and the
//! source is named by host, port and database only.

use postgres::config::Host;
use postgres::{Client, Config, NoTls};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Marks squill's own statements, so that reading `pg_stat_statements`
/// leaves them out of the application's workload.
pub const MARK: &str = "/* squill import */";

/// Why a live import or migration could not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveError {
    /// The URL is not one.
    Url(String),
    /// The server could not be reached.
    Unreachable(String),
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
            LiveError::Auth(m) => write!(f, "the server refused the login: {m}"),
            LiveError::Privilege(m) => write!(f, "missing privilege: {m}"),
            LiveError::Query(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for LiveError {}

/// How to reach the server, and how long to wait.
#[derive(Debug, Clone)]
pub struct Target {
    config: Config,
    /// `host:port/database`, what reports name it by.
    pub name: String,
    password: Option<String>,
}

impl Target {
    /// Parses `postgres://user:password@host:port/database?…` (or the
    /// `key=value` form). The error never repeats the text.
    pub fn parse(url: &str, connect_timeout: Duration) -> Result<Target, LiveError> {
        let mut config = Config::from_str(url).map_err(|e| {
            // The parser's message may quote the URL: keep only its kind.
            let kind = e.to_string();
            let kind = kind.split(':').next().unwrap_or("invalid").to_string();
            LiveError::Url(format!(
                "{kind} (expected postgres://user:password@host:port/database)"
            ))
        })?;
        if config.get_hosts().is_empty() {
            return Err(LiveError::Url("no host".into()));
        }
        config.connect_timeout(connect_timeout);
        config.application_name("squill");
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).to_string())
            .filter(|p| !p.is_empty());
        let host = match &config.get_hosts()[0] {
            Host::Tcp(h) => h.clone(),
            Host::Unix(p) => p.display().to_string(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let db = config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("postgres")
            .to_string();
        Ok(Target {
            name: format!("{host}:{port}/{db}"),
            config,
            password,
        })
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
    /// `statement_timeout`.
    pub fn connect(&self, statement_timeout: Duration) -> Result<Client, LiveError> {
        let mut client = self
            .config
            .connect(NoTls)
            .map_err(|e| self.classify(&e, "connecting"))?;
        client
            .batch_execute(&format!(
                "{MARK} SET default_transaction_read_only = on; SET statement_timeout = {}; SET lock_timeout = 5000",
                statement_timeout.as_millis().max(1)
            ))
            .map_err(|e| self.classify(&e, "setting up the session"))?;
        Ok(client)
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
            Some("28P01" | "28000") => LiveError::Auth(format!("{at}: {text}")),
            Some("42501") => LiveError::Privilege(format!("{at}: {text}")),
            Some("3D000") => LiveError::Unreachable(format!("{at}: {text}")),
            Some("57014") => LiveError::Query(format!(
                "{at}: the statement took longer than the timeout (--timeout): {text}"
            )),
            Some(_) => LiveError::Query(format!("{at}: {text}")),
            None if e.is_closed() || e.as_db_error().is_none() && doing == "connecting" => {
                LiveError::Unreachable(format!("{at}: {text}"))
            }
            None => LiveError::Query(format!("{at}: {text}")),
        }
    }
}

/// A quoted identifier: `"film"`, `"Weird""Name"`.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A table's qualified, quoted name.
pub fn qualified(schema: &str, table: &str) -> String {
    format!("{}.{}", quote(schema), quote(table))
}
