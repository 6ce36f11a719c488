//! `squill import sql FILE.sql`: a model from a relational schema's DDL;
//! `squill import postgres://…`: from a live database, measured
//! (`import_postgres`). Notes (statements skipped, views ignored,
//! references to tables the file does not create) go to standard error as
//! `file:line:column: …`; the model goes to standard output or `--output`,
//! written whole or not at all.

use crate::cli::Global;
use anyhow::{Context, Result, bail};
use squill::inputs::sql::{self, SqlDialect};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub source: ImportSource,
}

#[derive(Debug, clap::Subcommand)]
pub enum ImportSource {
    /// Read SQL DDL (CREATE TABLE, ALTER TABLE … ADD CONSTRAINT, CREATE
    /// INDEX) and write a squill model: tables become entities, foreign keys
    /// relationships, linking tables many-to-manys. Row counts, children per
    /// parent and the workload are written as marked assumptions.
    Sql(SqlArgs),
    /// Read a live PostgreSQL database and measure it: the catalog (mapped
    /// like DDL), row counts, children per parent (p50/p95/p99/max), column
    /// widths and null shares (pg_stats), write rates (pg_stat_user_tables)
    /// and, with pg_stat_statements, the statements the application runs as
    /// operations with their rates. Read-only; the password is never shown.
    /// `squill import postgres://…` is the same.
    Postgres(super::import_postgres::PostgresArgs),
    /// `squill import postgres://user@host/db`: the URL itself as the source.
    #[command(external_subcommand)]
    Url(Vec<String>),
}

#[derive(Debug, clap::Args)]
pub struct SqlArgs {
    /// The SQL file (a schema dump: `pg_dump --schema-only`, `mysqldump --no-data`, …).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The SQL dialect of the file (default: detected from marks only one
    /// dialect uses, such as `ENGINE=` or `::`; else generic).
    #[arg(long, value_enum, default_value = "auto")]
    pub dialect: DialectArg,
    /// Write the model to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace the --output file when it exists (an input is never replaced).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum DialectArg {
    /// Detected from the file.
    Auto,
    Postgres,
    Mysql,
    Sqlite,
    Mssql,
    /// What most dialects share.
    Generic,
}

pub fn run(global: &Global, args: ImportArgs) -> Result<ExitCode> {
    let args = match args.source {
        ImportSource::Sql(args) => args,
        ImportSource::Postgres(args) => return super::import_postgres::run(global, args),
        ImportSource::Url(words) => return super::import_postgres::run_url(global, &words),
    };
    // Refused before any work: the DDL and an existing file.
    let writes = super::output::Writes::new(args.force).input(&args.file);
    if let Some(path) = &args.output {
        writes.check(path)?;
    }
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let file = args.file.display().to_string();
    // In the encoding the file declares (pg_dump's `client_encoding`,
    // MySQL's `SET NAMES` or `CHARSET=`), else UTF-8.
    let decoded = sql::decode(&bytes).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    if let Some(because) = decoded
        .because
        .as_ref()
        .filter(|_| decoded.encoding != "UTF-8")
    {
        eprintln!("{file}: note: read as {} ({because})", decoded.encoding);
    }
    let text = decoded.text;
    let dialect = match args.dialect {
        DialectArg::Auto => SqlDialect::detect(&text),
        DialectArg::Postgres => SqlDialect::Postgres,
        DialectArg::Mysql => SqlDialect::MySql,
        DialectArg::Sqlite => SqlDialect::Sqlite,
        DialectArg::Mssql => SqlDialect::MsSql,
        DialectArg::Generic => SqlDialect::Generic,
    };
    let import = sql::import(&file, &text, dialect);
    for note in &import.notes {
        say!(
            "{}",
            sql::map::located(
                &file,
                note.at,
                &format!(
                    "{}: {}",
                    if note.problem { "warning" } else { "note" },
                    note.message
                )
            )
        );
    }
    if import.tables == 0 {
        bail!(
            "{file}: no CREATE TABLE read{}",
            if import.notes.iter().any(|n| n.problem) {
                " (see the statements skipped above; --dialect may help)"
            } else {
                ""
            }
        );
    }
    say!(
        "{file}: read as {}: {} entities, {} relationships ({} inferred from column names); counts, fan-out and the workload are assumptions to replace",
        dialect.name(),
        import.tables,
        import.relationships,
        import.inferred
    );
    super::write_report(&writes, args.output.as_deref(), &import.yaml)?;
    Ok(ExitCode::SUCCESS)
}
