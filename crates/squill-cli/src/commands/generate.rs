//! `squill generate`: writes what a team needs to build the design `squill
//! advise` recommends for a model — validators, indexes, the setup script,
//! example documents, the query cookbook — and, with `--scale`, synthetic data.
//! `squill generate data` writes only the data.

use crate::cli::Global;
use anyhow::{Context, Result};
use squill::artifacts;
use squill::migration::from_design;
use squill::synthetic::{self, DataFormat, DataOptions, DataSummary};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub command: Option<Box<GenerateCommand>>,

    /// The model file (YAML or JSON; see docs/model-file.md).
    #[arg(value_name = "MODEL", required = true)]
    pub model: Option<PathBuf>,

    /// Directory to write into (created when missing).
    #[arg(long, short, value_name = "DIR", required = true)]
    pub out: Option<PathBuf>,

    #[command(flatten)]
    pub common: Common,

    /// Also write synthetic data: N instances of every entity that is nobody's
    /// child; children follow their relationships' cardinalities.
    #[arg(long, value_name = "N")]
    pub scale: Option<u64>,

    /// Cut the children of any one parent at N, in the examples and the
    /// data (for a quick look at a model whose typical fan-out is in the
    /// millions, or a long chain of one-to-manys).
    #[arg(long, value_name = "N")]
    pub max_children: Option<u64>,

    /// Deprecated spelling of `squill migrate --from-current MODEL --out DIR`:
    /// write only migration.js, the mongosh script from the design of today
    /// (the model's `current:`) to the recommended one (docs/migration.md).
    #[arg(long, hide = true, conflicts_with_all = ["scale", "max_children"])]
    pub migration: bool,

    /// Choose a shard key for every collection (as `advise --shard`) and
    /// write `sh.shardCollection` with the index it needs into setup.js.
    #[arg(long, conflicts_with = "migration")]
    pub shard: bool,
}

#[derive(Debug, clap::Args)]
pub struct Common {
    /// The workload mix to design for (default: the model's first).
    #[arg(long, value_name = "NAME")]
    pub mix: Option<String>,

    /// Overwrite files that exist.
    #[arg(long)]
    pub force: bool,

    /// Seed of every generated value: the same seed gives the same files.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,

    /// Threads that build synthetic documents (default: one per core). The
    /// files are the same whatever the number.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// When the synthetic data will be loaded (`2026-11-30T09:00:00Z`;
    /// default: the time of the run, to the second): the dates an expiry
    /// counts from lie in the newest half of their life before it, so a
    /// TTL index does not delete them on load. The same seed and `--now`
    /// give the same files.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    pub now: Option<i64>,
}

fn parse_now(text: &str) -> Result<i64, String> {
    synthetic::parse_now(text).ok_or_else(|| {
        format!("`{text}` is not a time: give an ISO 8601 UTC time such as 2026-11-30T09:00:00Z")
    })
}

impl Common {
    /// `--now`, else the clock to the second.
    fn now_ms(&self) -> i64 {
        self.now.unwrap_or_else(|| {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            i64::try_from(secs).unwrap_or(i64::MAX / 1000) * 1000
        })
    }
}

#[derive(Debug, clap::Subcommand)]
pub enum GenerateCommand {
    /// Write only synthetic data, as Extended JSON lines and/or a mongodump directory.
    Data(DataArgs),
}

#[derive(Debug, clap::Args)]
pub struct DataArgs {
    /// The model file.
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    /// N instances of every entity that is nobody's child; children follow
    /// their relationships' cardinalities.
    #[arg(long, value_name = "N")]
    pub scale: u64,

    /// Directory to write into: data/COLL.json and dump/DB/COLL.bson.
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,

    /// ejson (data/*.json, for mongoimport), dump (dump/DB/, for mongorestore), or both.
    #[arg(long, value_name = "FORMAT", default_value = "both")]
    pub format: Format,

    /// Cut the children of any one parent at N (for a quick look at a model
    /// whose typical fan-out is in the millions).
    #[arg(long, value_name = "N")]
    pub max_children: Option<u64>,

    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Ejson,
    Dump,
    Both,
}

impl From<Format> for DataFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Ejson => DataFormat::Ejson,
            Format::Dump => DataFormat::Dump,
            Format::Both => DataFormat::Both,
        }
    }
}

pub(super) fn design_for(
    global: &Global,
    path: &Path,
    mix: Option<&str>,
) -> Result<(squill::model::Model, squill::design::Design)> {
    sharded_design_for(global, path, mix, false)
}

/// `design_for`, with a shard key for every collection when `shard`.
fn sharded_design_for(
    global: &Global,
    path: &Path,
    mix: Option<&str>,
    shard: bool,
) -> Result<(squill::model::Model, squill::design::Design)> {
    let mut settings = super::load_settings(global)?;
    settings.capacity.shard = shard;
    let model = super::load_model(path)?;
    // Data and queries follow the model the design was made for: a
    // many-to-many kept as an edge collection is an entity there.
    squill::advise::advise_with_model(&model, &settings, mix)
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))
}

pub fn run(global: &Global, args: GenerateArgs) -> Result<ExitCode> {
    if let Some(command) = args.command {
        let GenerateCommand::Data(data) = *command;
        return run_data(global, data);
    }
    let (Some(model_path), Some(out)) = (args.model, args.out) else {
        anyhow::bail!("usage: squill generate MODEL --out DIR");
    };
    if args.migration {
        say!(
            "note: `squill generate --migration` is now `squill migrate --from-current MODEL --out DIR`; the old spelling still works and is deprecated"
        );
        return run_migration(
            global,
            &model_path,
            &out,
            args.common.mix.as_deref(),
            args.common.force,
            "squill generate --migration",
        );
    }
    let (model, design) =
        sharded_design_for(global, &model_path, args.common.mix.as_deref(), args.shard)?;
    let options = artifacts::Options {
        seed: args.common.seed,
        max_children: args.max_children,
    };
    let artifacts = artifacts::artifacts(&model, &design, &options)
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
    let data_options = args.scale.map(|scale| DataOptions {
        scale,
        seed: args.common.seed,
        max_children: args.max_children,
        format: DataFormat::Both,
        force: args.common.force,
        now_ms: args.common.now_ms(),
        threads: args.common.threads.unwrap_or(0),
        cancel: Some(stop_on_signals()),
        progress: Some(Default::default()),
    });
    // Refuse before writing anything: the artifacts and the data files.
    let mut planned: Vec<PathBuf> = artifacts.iter().map(|a| out.join(a.file)).collect();
    if let Some(d) = &data_options {
        planned.extend(
            synthetic::data::paths(&design, &out, d.format)
                .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?,
        );
    }
    refuse_inputs(global, &model_path, &planned)?;
    if !args.common.force {
        synthetic::write::refuse_existing(&planned, false)
            .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
    }
    let estimate = match &data_options {
        Some(d) => Some(preflight(&model, &design, d, &out)?),
        None => None,
    };
    // With data, the README (the index of what is there) is written last,
    // after the data: an interrupted run leaves no index that looks complete.
    let first: Vec<artifacts::Artifact> = artifacts
        .iter()
        .filter(|a| data_options.is_none() || a.file != "README.md")
        .cloned()
        .collect();
    let written = artifacts::write_artifacts(&out, &first, true)
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
    let mut text = format!(
        "squill generate: model `{}`, mix `{}`: {} files in {}\n",
        squill::words::visible(&design.model),
        squill::words::visible(&design.mix),
        written.len() + usize::from(data_options.is_some()),
        out.display()
    );
    for a in &artifacts {
        let _ = writeln!(
            text,
            "  {:<22} {}",
            squill::words::visible(a.file),
            squill::words::visible(a.title)
        );
    }
    if let Some(data_options) = data_options {
        let started = std::time::Instant::now();
        let data_options = DataOptions {
            force: true,
            ..data_options
        };
        let summary = write_with_progress(&model, &design, &data_options, &out, estimate)?;
        let readme = artifacts::readme_with_data(&design, &artifacts, &summary);
        artifacts::write_artifacts(&out, &[readme], true)
            .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
        data_report(&mut text, &summary, started.elapsed());
    }
    super::write_summary(&text)
}

/// `--migration`: advises the model twice (today's design and the
/// recommended one) and writes the script between them, or refuses with the
/// changes it cannot migrate (exit 2) rather than write a partial script.
pub(super) fn run_migration(
    global: &Global,
    path: &Path,
    out: &Path,
    mix: Option<&str>,
    force: bool,
    command: &str,
) -> Result<ExitCode> {
    let settings = super::load_settings(global)?;
    let model = super::load_model(path)?;
    let diag =
        |e: squill::advise::AdviseError| anyhow::Error::new(super::DiagnosticError(Box::new(e)));
    let (_, recommended) =
        squill::advise::advise_with_model(&model, &settings, mix).map_err(diag)?;
    let Some((_, today)) = squill::advise::today_design(&model, &settings, mix).map_err(diag)?
    else {
        anyhow::bail!(
            "{}: the model has no `current:` section: there is no design of today to migrate from (docs/model-file.md)",
            path.display()
        );
    };
    // The design of today with some relationships on other layouts (parent
    // references, or the recommended ones): the stage a change no step
    // covers directly passes through.
    let through = |layouts: &[(String, squill::design::Layout)]| {
        squill::advise::through_design(&model, &settings, mix, layouts).map_err(|e| e.to_string())
    };
    let migration = from_design::migration(
        &model,
        &today,
        &recommended,
        from_design::DEFAULT_BATCH,
        &through,
    )
    .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
    refuse_inputs(global, path, &[out.join("migration.js")])?;
    let artifact = artifacts::Artifact {
        file: "migration.js",
        title: "mongosh: the migration from the design of today to the recommended one",
        content: migration.script,
    };
    artifacts::write_artifacts(out, &[artifact], force)
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
    let mut text = format!(
        "{command}: model `{}`, mix `{}`: {} in {}\n",
        recommended.model,
        recommended.mix,
        "migration.js",
        out.display()
    );
    if migration.changes.is_empty() {
        text.push_str("  the design of today is already the best: the script moves no data and asks for its indexes\n");
    }
    for (rel, from, to) in &migration.changes {
        let _ = writeln!(text, "  {rel}: {from} → {to}");
    }
    let _ = writeln!(
        text,
        "  {}; the old collections and fields stay until the script runs with DROP_OLD = true",
        squill::words::count(migration.steps as f64, "step")
    );
    super::write_summary(&text)
}

/// Refuses to write any of `planned` that is the model or the settings
/// file, `--force` or not (`generate` applies the existing-file rule
/// itself, with the same text).
fn refuse_inputs(global: &Global, model: &Path, planned: &[PathBuf]) -> Result<()> {
    let writes = super::output::Writes::new(true).config(global).input(model);
    for path in planned {
        writes.check_not_input(path)?;
    }
    Ok(())
}

/// A flag that SIGINT and SIGTERM set, for `generate data` to stop at its
/// next batch and remove the files it was writing. Where the handlers cannot
/// be installed, the flag just stays down.
pub(super) fn stop_on_signals() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(signal, std::sync::Arc::clone(&flag));
    }
    flag
}

fn run_data(global: &Global, args: DataArgs) -> Result<ExitCode> {
    let (model, design) = design_for(global, &args.model, args.common.mix.as_deref())?;
    let started = std::time::Instant::now();
    let options = DataOptions {
        scale: args.scale,
        seed: args.common.seed,
        max_children: args.max_children,
        format: args.format.into(),
        force: args.common.force,
        now_ms: args.common.now_ms(),
        threads: args.common.threads.unwrap_or(0),
        cancel: Some(stop_on_signals()),
        progress: Some(Default::default()),
    };
    refuse_inputs(
        global,
        &args.model,
        &synthetic::data::paths(&design, &args.out, options.format)
            .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?,
    )?;
    let estimate = preflight(&model, &design, &options, &args.out)?;
    let summary = write_with_progress(&model, &design, &options, &args.out, Some(estimate))
        .with_context(|| format!("writing data into {}", args.out.display()))?;
    let mut text = format!(
        "squill generate data: model `{}`, mix `{}`, scale {}, seed {} → {}\n",
        squill::words::visible(&design.model),
        squill::words::visible(&design.mix),
        args.scale,
        args.common.seed,
        squill::words::visible(&args.out.display().to_string())
    );
    data_report(&mut text, &summary, started.elapsed());
    super::write_summary(&text)
}

/// Refuses what cannot be written (files that exist, more than the free
/// space) and says on stderr how much will be, before anything is.
fn preflight(
    model: &squill::model::Model,
    design: &squill::design::Design,
    options: &DataOptions,
    out: &Path,
) -> Result<synthetic::estimate::Estimate> {
    let (estimate, free) = synthetic::data::preflight(model, design, options, out)
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;
    let free = free
        .map(|b| format!(", {} free", squill::words::bytes(b as f64)))
        .unwrap_or_default();
    say!(
        "squill generate: about {} documents, {} to write into {}{free}",
        squill::words::int(estimate.documents()),
        squill::words::bytes(estimate.bytes() as f64),
        out.display()
    );
    Ok(estimate)
}

/// `data::write`, with a progress bar towards the estimate on a terminal.
fn write_with_progress(
    model: &squill::model::Model,
    design: &squill::design::Design,
    options: &DataOptions,
    out: &Path,
    estimate: Option<synthetic::estimate::Estimate>,
) -> Result<DataSummary> {
    let position = || {
        use std::sync::atomic::Ordering::Relaxed;
        options.progress.as_ref().map_or((0, 0), |p| {
            (p.bytes.load(Relaxed), p.documents.load(Relaxed))
        })
    };
    super::progress::with_progress_bar(estimate.map(|e| e.bytes()), position, || {
        synthetic::data::write(model, design, options, out)
    })
    .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))
}

fn data_report(text: &mut String, summary: &DataSummary, elapsed: std::time::Duration) {
    for c in &summary.collections {
        let _ = writeln!(
            text,
            "  {:<24} {:>12} documents  {:>14} bytes EJSON  {:>14} bytes BSON",
            squill::words::visible(&c.name),
            artifacts::cookbook::format_count(c.documents as f64),
            artifacts::cookbook::format_count(c.ejson_bytes as f64),
            artifacts::cookbook::format_count(c.bson_bytes as f64),
        );
    }
    let secs = elapsed.as_secs_f64().max(1e-9);
    let _ = writeln!(
        text,
        "  {} documents, {} bytes in {:.2} s ({} documents/s, {:.1} MB/s)",
        artifacts::cookbook::format_count(summary.documents() as f64),
        artifacts::cookbook::format_count(summary.bytes() as f64),
        secs,
        artifacts::cookbook::format_count(summary.documents() as f64 / secs),
        summary.bytes() as f64 / secs / 1e6
    );
    if let Some(note) = artifacts::live_dates_note(summary, |name| {
        format!("`{}`", squill::words::visible(name))
    }) {
        let _ = writeln!(text, "  {note}");
    }
}
