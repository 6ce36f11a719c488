//! `squill migrate --from-current MODEL --out DIR`: the mongosh script
//! from the design of today (the model's `current:`) to the recommended
//! one, for data already in MongoDB (formerly `generate --migration`).
//!
//! `squill migrate postgres://… --model M.yaml --out DIR`: the database's
//! rows written as the documents of the design advise recommends for the
//! model (imported from that database with `squill import`). Progress goes
//! to standard error, the summary to standard output. Built only with the
//! `postgres` feature; without it the command says how to get it.

use crate::cli::Global;
use anyhow::{Result, bail};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    /// The source database: `postgres://user@host:port/database`, completed
    /// by libpq's conventions as for `squill import` (the password from
    /// PGPASSWORD or ~/.pgpass rather than the URL, where `ps` shows it).
    #[arg(value_name = "URL", required_unless_present = "from_current")]
    pub url: Option<String>,
    /// Migrate data already in MongoDB instead: write `migration.js`, the
    /// mongosh script that turns the collections of the design of today
    /// (this model's `current:` section) into those of the recommended
    /// design (docs/migration.md). Needs no database and no feature.
    #[arg(
        long,
        value_name = "MODEL",
        conflicts_with_all = ["url", "model", "to", "changed_by", "schema"]
    )]
    pub from_current: Option<PathBuf>,
    /// With --from-current: overwrite a migration.js that exists.
    #[arg(long, requires = "from_current")]
    pub force: bool,
    /// The model imported from that database (`squill import postgres://…`),
    /// with the workload to design for; its advised design is what is written.
    #[arg(
        long,
        short,
        value_name = "MODEL",
        required_unless_present = "from_current"
    )]
    pub model: Option<PathBuf>,
    /// The directory to write: `dump/DB/*.bson` with metadata (mongorestore),
    /// `data/*.json` (Extended JSON lines, mongoimport), and the state that
    /// lets a run resume. Run again, it writes only what changed, under
    /// `increments/NNNN/` (mongoimport --mode=upsert).
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,
    /// The workload mix to design for (default: the model's first).
    #[arg(long, value_name = "NAME")]
    pub mix: Option<String>,
    /// Which files to write.
    #[arg(long, value_enum, default_value = "both")]
    pub format: super::generate::Format,
    /// The schema (namespace) of the tables.
    #[arg(long, default_value = "public", value_name = "NAME")]
    pub schema: String,
    /// A timestamp column (such as `updated_at`) that tells the rows changed
    /// since the last run; tables without it, and every table by default,
    /// use PostgreSQL's `xmin`.
    #[arg(long, value_name = "COLUMN")]
    pub changed_by: Option<String>,
    /// Documents between checkpoints (flushed to disk, resumable after).
    #[arg(long, default_value_t = 50_000, value_name = "N")]
    pub checkpoint: u64,
    /// Also write the documents into this MongoDB deployment (the database
    /// the URI names, else the model's name): each collection created with
    /// its validator, loaded, then indexed; a run of changes replaces the
    /// changed documents. Needs the `mongodb` feature.
    #[arg(long, value_name = "MONGODB_URI")]
    pub to: Option<String>,
    /// Longest the server may take to answer: connecting and logging in
    /// (unless the URL sets connect_timeout) and each catalog statement;
    /// reading the data itself is not limited.
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = super::import_postgres::parse_duration)]
    pub timeout: Duration,
    /// Who moves the rows: squill itself, on this machine (`native`), or a
    /// PySpark job squill writes into --out with its README and does not
    /// run (`spark`: for a database past one machine; docs/migration-at-scale.md).
    #[arg(
        long,
        value_enum,
        default_value = "native",
        conflicts_with = "from_current"
    )]
    pub engine: Engine,
}

/// `--engine`: who moves the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Native,
    Spark,
}

/// Refuses, `--force` or not, an --out whose folders of documents
/// (`dump/`, `data/`, `increments/`, all migrate's to replace) or state
/// file hold the model, the settings or a libpq password or service file.
#[cfg(feature = "postgres")]
fn refuse_inputs(global: &Global, model: &std::path::Path, args: &MigrateArgs) -> Result<()> {
    let writes = squill::inputs::postgres::connect::credential_files()
        .iter()
        .fold(
            super::output::Writes::new(true).config(global).input(model),
            |w, p| w.input(p),
        );
    for dir in ["dump", "data", "increments"] {
        writes.check_dir(&args.out.join(dir))?;
    }
    writes.check_not_input(&args.out.join(squill::migration::from_postgres::state::FILE))?;
    Ok(())
}

pub fn run(global: &Global, args: MigrateArgs) -> Result<ExitCode> {
    if let Some(model) = &args.from_current {
        return super::generate::run_migration(
            global,
            model,
            &args.out,
            args.mix.as_deref(),
            args.force,
            "squill migrate --from-current",
        );
    }
    run_postgres(global, args)
}

#[cfg(not(feature = "postgres"))]
fn run_postgres(_global: &Global, _args: MigrateArgs) -> Result<ExitCode> {
    bail!(
        "this squill was built without PostgreSQL support: build it with `--features postgres` (cargo install squill-cli --features postgres)"
    )
}

#[cfg(feature = "postgres")]
fn run_postgres(global: &Global, args: MigrateArgs) -> Result<ExitCode> {
    use squill::migration::from_postgres::{self as migrate, MigrateError, MigrateOptions};
    // Clap asks for both unless --from-current, handled above.
    let (Some(url), Some(model_path)) = (args.url.clone(), args.model.clone()) else {
        bail!("usage: squill migrate postgres://… --model MODEL --out DIR");
    };
    if args.engine == Engine::Spark {
        return run_spark(global, &url, &model_path, &args);
    }
    refuse_inputs(global, &model_path, &args)?;
    let (model, design) = super::generate::design_for(global, &model_path, args.mix.as_deref())?;
    if args.checkpoint == 0 {
        bail!("--checkpoint must be at least 1");
    }
    // Every field is set today; the spread keeps fields that the move of
    // `migrate` into its own module may add at their defaults.
    #[allow(clippy::needless_update)]
    let options = MigrateOptions {
        out: args.out.clone(),
        namespace: args.schema.clone(),
        format: args.format.into(),
        checkpoint: args.checkpoint,
        changed_by: args.changed_by.clone(),
        statement_timeout: args.timeout,
        connect_timeout: args.timeout,
        cancel: Some(super::generate::stop_on_signals()),
        to: args.to.clone(),
        ..MigrateOptions::default()
    };
    let summary = match migrate::run(&url, &model, &design, &options, &mut |step| {
        say!("squill migrate: {step}");
    }) {
        Ok(s) => s,
        Err(MigrateError::Interrupted) => {
            say!(
                "squill migrate: interrupted after a checkpoint; run the same command again to resume"
            );
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    let mut text = format!(
        "squill migrate: {} → {} (database `{}`, design for mix `{}`){}\n",
        summary.source,
        args.out.display(),
        summary.database,
        squill::words::visible(&design.mix),
        match summary.increment {
            Some(n) => format!(", changes since the last run: increment {n}"),
            None => String::new(),
        }
    );
    let (mut docs, mut bytes) = (0u64, 0u64);
    for c in &summary.collections {
        let how = if c.skipped {
            "complete before this run".to_string()
        } else if c.resumed > 0 {
            format!("resumed after {} documents", squill::words::int(c.resumed))
        } else {
            format!("{:.2} s", c.seconds)
        };
        text.push_str(&format!(
            "  {:<28} {:>12} documents {:>14} bytes BSON  {how}\n",
            squill::words::visible(&c.name),
            squill::words::int(c.documents),
            squill::words::int(c.bson_bytes),
        ));
        if !c.skipped {
            docs += c.documents;
            bytes += c.bson_bytes.max(c.json_bytes);
        }
    }
    let secs = summary.seconds.max(1e-6);
    text.push_str(&format!(
        "  {} documents, {} bytes in {:.2} s ({:.0} documents/s, {:.1} MB/s)\n",
        squill::words::int(docs),
        squill::words::int(bytes),
        summary.seconds,
        docs as f64 / secs,
        bytes as f64 / secs / 1e6
    ));
    if summary.increment.is_some() {
        text.push_str(&deletions(&summary));
        text.push_str(
            "  load with: mongoimport --mode=upsert --db DB --collection NAME --file increments/NNNN/NAME.json\n",
        );
        if summary.collections.iter().any(|c| c.deleted > 0) {
            text.push_str(
                "  and delete: mongoimport --mode=delete --db DB --collection NAME --file increments/NNNN/NAME.deleted.json\n",
            );
        }
    }
    super::write_summary(&text)
}

/// `--engine spark`: the job and its README written into --out, not run.
/// The native run's options that the job takes at its own run (the target,
/// the change column) are refused here rather than silently dropped.
#[cfg(feature = "postgres")]
fn run_spark(
    global: &Global,
    url: &str,
    model_path: &std::path::Path,
    args: &MigrateArgs,
) -> Result<ExitCode> {
    use squill::migration::to_spark;
    if args.to.is_some() || args.changed_by.is_some() {
        bail!(
            "--engine spark writes a job and does not run it: give --to and --changed-by to the job (see the README it writes)"
        );
    }
    let writes = super::output::Writes::new(true)
        .config(global)
        .input(model_path);
    for file in [to_spark::JOB, to_spark::README] {
        writes.check_not_input(&args.out.join(file))?;
    }
    let (model, design) = super::generate::design_for(global, model_path, args.mix.as_deref())?;
    let options = to_spark::SparkOptions {
        out: args.out.clone(),
        namespace: args.schema.clone(),
        connect_timeout: args.timeout,
        statement_timeout: args.timeout,
    };
    let written = to_spark::write(url, &model, &design, &options)?;
    super::write_summary(&format!(
        "squill migrate: a Spark job for {} collections in {} (run it with spark-submit: {})\n",
        squill::words::int(written.collections as u64),
        written.job.display(),
        written.readme.display()
    ))
}

/// What a run of changes saw of deleted rows: how many, what it did about
/// them, and where it could not see them.
#[cfg(feature = "postgres")]
fn deletions(summary: &squill::migration::from_postgres::Summary) -> String {
    let d = &summary.deletions;
    let names = |list: &[String]| {
        list.iter()
            .map(|n| format!("`{}`", squill::words::visible(n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = String::new();
    let rows: u64 = d.rows.iter().map(|(_, n)| n).sum();
    let documents: u64 = summary.collections.iter().map(|c| c.deleted).sum();
    if rows > 0 || d.moved > 0 {
        let per: Vec<String> = d
            .rows
            .iter()
            .map(|(t, n)| {
                format!(
                    "{} from `{}`",
                    squill::words::int(*n),
                    squill::words::visible(t)
                )
            })
            .collect();
        text.push_str(&format!(
            "  deleted rows: {} ({}); {} moved to another parent; {} documents deleted, {} rows that lost or gained one rebuilt\n",
            squill::words::int(rows),
            if per.is_empty() { "none".to_string() } else { per.join(", ") },
            squill::words::int(d.moved),
            squill::words::int(documents),
            squill::words::int(d.touched),
        ));
    } else {
        text.push_str("  deleted rows: none\n");
    }
    if !d.untracked.is_empty() {
        text.push_str(&format!(
            "  not seen: rows deleted from {} (no primary key)\n",
            names(&d.untracked)
        ));
    }
    if !d.unseen.is_empty() {
        text.push_str(&format!(
            "  not seen: rows deleted from {} before this run (the last run kept no keys of them; from now on they are)\n",
            names(&d.unseen)
        ));
    }
    if !d.restarted.is_empty() {
        text.push_str(&format!(
            "  not seen: buckets emptied in {} before this run (the last run kept no record of its buckets; every bucket was rewritten, and from now on they are)\n",
            names(&d.restarted)
        ));
    }
    text
}
