//! `squill import postgres://…`: a model of a live PostgreSQL database,
//! measured. Progress and notes go to standard error; the model to
//! standard output or `--output`. Built only with the `postgres` feature;
//! without it the command says how to get it.

use crate::cli::Global;
use anyhow::{Result, bail};
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct PostgresArgs {
    /// The database: `postgres://user@host:port/database` (or `host=…
    /// dbname=…`). What it leaves out comes from libpq's conventions: a
    /// service (`service=`, PGSERVICE), PGHOST, PGPORT, PGUSER, PGDATABASE,
    /// and the password from PGPASSWORD or ~/.pgpass (PGPASSFILE) rather
    /// than the URL, where `ps` shows it.
    #[arg(value_name = "URL")]
    pub url: String,
    #[command(flatten)]
    pub options: PostgresOptions,
}

#[derive(Debug, clap::Args)]
pub struct PostgresOptions {
    /// The schema (namespace) whose tables are read.
    #[arg(long, default_value = "public", value_name = "NAME")]
    pub schema: String,
    /// Measure the workload over this long (`60s`, `5m`) from two readings
    /// of the counters, instead of since their last reset.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub observe: Option<Duration>,
    /// Parents measured at most per relationship; bigger tables are sampled.
    #[arg(long, default_value_t = 100_000, value_name = "ROWS")]
    pub sample: u64,
    /// Longest the server may take to answer: connecting and logging in
    /// (unless the URL sets connect_timeout) and each statement (cancelled
    /// after).
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Write the model to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace the --output file when it exists (an input is never replaced).
    #[arg(long)]
    pub force: bool,
}

/// `squill import postgres://… [options]`, as clap hands over an unknown
/// subcommand: the URL first, then the options.
#[derive(Debug, Parser)]
#[command(name = "squill import", no_binary_name = true)]
struct UrlForm {
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    options: PostgresOptions,
}

pub fn run_url(global: &Global, words: &[String]) -> Result<ExitCode> {
    let Some(first) = words.first() else {
        bail!("squill import: name a source: `sql FILE.sql` or `postgres://…`");
    };
    if !(first.starts_with("postgres://") || first.starts_with("postgresql://")) {
        bail!(
            "squill import: unknown source `{}`: use `sql FILE.sql` or a `postgres://` URL",
            if first.contains('@') {
                "(a URL, not shown)"
            } else {
                first.as_str()
            }
        );
    }
    let form = match UrlForm::try_parse_from(words) {
        Ok(f) => f,
        Err(e) => e.exit(),
    };
    run(
        global,
        PostgresArgs {
            url: form.url,
            options: form.options,
        },
    )
}

/// `60s`, `5m`, `1h`, `500ms`, or a number of seconds.
pub(super) fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: f64 = n
        .parse()
        .map_err(|_| format!("`{s}` is no duration (write 60s, 5m, 1h or 500ms)"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" | "secs" => n,
        "ms" => n / 1000.0,
        "m" | "min" | "mins" => n * 60.0,
        "h" => n * 3600.0,
        other => return Err(format!("unknown unit `{other}` (use ms, s, m or h)")),
    };
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
        return Err(format!("`{s}` is out of range (above 0, at most a day)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(not(feature = "postgres"))]
pub fn run(_global: &Global, _args: PostgresArgs) -> Result<ExitCode> {
    bail!(
        "this squill was built without PostgreSQL support: build it with `--features postgres` (cargo install squill-cli --features postgres)"
    )
}

#[cfg(feature = "postgres")]
pub fn run(_global: &Global, args: PostgresArgs) -> Result<ExitCode> {
    use squill::inputs::postgres::{self, LiveOptions};
    let o = &args.options;
    // Refused before connecting: a libpq password or service file, an
    // existing file.
    let writes = postgres::connect::credential_files()
        .iter()
        .fold(super::output::Writes::new(o.force), |w, p| w.input(p));
    if let Some(path) = &o.output {
        writes.check(path)?;
    }
    let options = LiveOptions {
        schema: o.schema.clone(),
        observe: o.observe,
        sample: o.sample,
        statement_timeout: o.timeout,
        connect_timeout: o.timeout,
    };
    let started = std::time::Instant::now();
    let live = postgres::import(&args.url, &options, &mut |step| {
        say!("squill import: {step}");
    })?;
    for note in &live.notes {
        say!("{}: note: {note}", live.source);
    }
    for (text, why) in live.skipped.iter().take(20) {
        say!("{}: statement not mapped ({why}): {text}", live.source);
    }
    if live.skipped.len() > 20 {
        say!(
            "{}: … and {} more statements not mapped",
            live.source,
            live.skipped.len() - 20
        );
    }
    let i = &live.import;
    say!(
        "{}: {} entities, {} relationships ({} inferred and confirmed), measured; {}; {:.1} s",
        live.source,
        i.tables,
        i.relationships,
        i.inferred,
        if live.has_statements {
            format!(
                "{} of {} statements became operations ({} read or write no rows; rates over {:.0} s)",
                live.mapped, live.statements, live.other, live.seconds
            )
        } else {
            "no pg_stat_statements: writes from table counters only".to_string()
        },
        started.elapsed().as_secs_f64()
    );
    super::write_report(&writes, o.output.as_deref(), &i.yaml)?;
    Ok(ExitCode::SUCCESS)
}
