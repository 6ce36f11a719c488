//! `squill scan`: measures existing data (mongodump directories and archives,
//! `.bson` files, mongoexport JSON) and flags anti-patterns.
//!
//! Exit codes: 2 when any input could not be read (the report of everything
//! else is still written first), else 1 when a finding is at or above
//! `--fail-on`, else 0.

use crate::cli::Global;
use anyhow::{Context, Result};
use squill::inputs::dump::InputFormat;
use squill::scan::driver;
use squill::settings::Profile;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 nothing at or above --fail-on; 1 a finding at or above \
--fail-on (default: warning); 2 an input could not be read in full (the report of everything \
readable is still written) or another error.\n\
Thresholds: --profile or `profile` in squill.toml; per rule under [scan.<rule-id>] in squill.toml.\n\
The JSON report is documented in docs/scan-json.md; with --shard-keys, docs/shard-keys.md."
)]
#[command(group(
    clap::ArgGroup::new("uses_workload")
        .args(["emit_model", "shard_keys", "shard_key", "horizon"])
        .multiple(true)
))]
pub struct ScanArgs {
    /// Dump directories, .bson(.gz) files, archives, JSON exports; `-` reads
    /// standard input; or one `mongodb://…` URI of a running deployment
    /// (built with `--features mongodb`), sampled read-only.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// For a `mongodb://…` URI: documents sampled from each collection, or
    /// `all` to read every collection whole (the time it will take is
    /// printed before the reading starts).
    #[arg(long, default_value = "1000", value_name = "N|all", value_parser = parse_sample)]
    pub sample: SampleArg,

    /// For a `mongodb://…` URI: a share of each collection to sample
    /// instead, as `5%` or `0.05`.
    #[arg(long, value_name = "P", value_parser = parse_share, conflicts_with = "sample")]
    pub sample_share: Option<f64>,

    /// For a `mongodb://…` URI: seconds to find a server before giving up.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    pub connect_timeout: u64,

    /// The input format (detected from the content by default).
    #[arg(long, default_value = "auto", value_parser = parse_input_format, value_name = "FORMAT")]
    pub input_format: InputFormat,

    /// Report format.
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: Format,

    #[command(flatten)]
    pub fail_on: super::fail_on::FailOnArg,

    /// Also write what was found as a model file that `squill advise` accepts.
    #[arg(long, value_name = "FILE")]
    pub emit_model: Option<PathBuf>,

    /// mongod/mongos logs (as `squill workload` reads them): their query
    /// shapes become the model's operations, at the rates the logs show
    /// (--emit-model), or are routed under each candidate shard key
    /// (--shard-keys), or give the growth by their inserts (--horizon).
    #[arg(long, value_name = "LOG", num_args = 1.., requires = "uses_workload")]
    pub workload: Vec<PathBuf>,

    /// Also analyse shard keys as MongoDB's analyzeShardKey does, offline:
    /// candidates from the logged filters, the unique indexes and the
    /// fields with many values, ranked (docs/shard-keys.md). Reads the
    /// dump twice: not for standard input or a live deployment.
    #[arg(long)]
    pub shard_keys: bool,

    /// A shard key to analyse besides those found: FIELD[,FIELD…], a
    /// hashed field as FIELD:hashed (repeatable; implies --shard-keys).
    #[arg(long, value_name = "KEY", value_parser = parse_shard_key)]
    pub shard_key: Vec<squill::scan::shard_keys::ShardKey>,

    /// With --shard-keys: show the most common key values themselves, not
    /// only their frequencies (values are data: they may be personal).
    #[arg(long)]
    pub show_values: bool,

    #[command(flatten)]
    pub capacity: super::scan_capacity::CapacityArgs,

    /// Threshold profile (overrides `profile` in squill.toml).
    #[arg(long, value_name = "PROFILE")]
    pub profile: Option<ProfileArg>,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace the --output and --emit-model files when they exist (an
    /// input is never replaced).
    #[arg(long)]
    pub force: bool,

    /// Worker threads (default: one per core; more than the cores are capped).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Benchmark floor: validate and walk the BSON without measuring anything.
    #[arg(long, hide = true)]
    pub walk_only: bool,
}

/// `--sample`: a number of documents, or every one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SampleArg {
    Documents(u64),
    All,
}

fn parse_sample(s: &str) -> Result<SampleArg, String> {
    match s {
        "all" => Ok(SampleArg::All),
        n => match n.parse::<u64>() {
            Ok(0) => Err("a sample needs at least 1 document".to_string()),
            Ok(n) => Ok(SampleArg::Documents(n)),
            Err(_) => Err(format!(
                "`{n}` is not a number of documents or `all` (for a share, use --sample-share)"
            )),
        },
    }
}

/// `--sample-share`: `5%` or `0.05`, above 0 and at most the whole.
fn parse_share(s: &str) -> Result<f64, String> {
    let value = match s.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => s.parse::<f64>(),
    }
    .map_err(|_| format!("`{s}` is not a share: write 5% or 0.05"))?;
    if value.is_finite() && value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(format!("`{s}` is not a share above 0 and at most 100%"))
    }
}

fn parse_shard_key(s: &str) -> Result<squill::scan::shard_keys::ShardKey, String> {
    squill::scan::shard_keys::ShardKey::parse(s).map_err(|e| e.to_string())
}

fn parse_input_format(s: &str) -> Result<InputFormat, String> {
    match s {
        // The spelling of mongoexport --jsonArray output.
        "json" => Ok(InputFormat::JsonArray),
        other => other.parse(),
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Markdown,
    /// A self-contained page with a diagram and charts (docs/report.md).
    Html,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ProfileArg {
    Seeds,
    Compass,
    Atlas,
    Articles,
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Self {
        match p {
            ProfileArg::Seeds => Profile::Seeds,
            ProfileArg::Compass => Profile::Compass,
            ProfileArg::Atlas => Profile::Atlas,
            ProfileArg::Articles => Profile::Articles,
        }
    }
}

/// The URI when the one input is a running deployment.
pub(super) fn live_uri(paths: &[PathBuf]) -> Option<&str> {
    match paths {
        [one] => one
            .to_str()
            .filter(|p| p.starts_with("mongodb://") || p.starts_with("mongodb+srv://")),
        _ => None,
    }
}

/// A deployment sampled through the driver, as scan inputs. With
/// `SQUILL_RECORD_COMMANDS=FILE` the commands sent are written to FILE, one
/// name a line (the tests check that every one reads).
#[cfg(feature = "mongodb")]
fn live(uri: &str, args: &ScanArgs) -> Result<(squill::inputs::dump::Inputs, Live)> {
    use squill::inputs::live::{LiveOptions, SampleSize, open};
    use std::sync::{Arc, Mutex};
    let record = std::env::var_os("SQUILL_RECORD_COMMANDS").map(PathBuf::from);
    let commands = record.as_ref().map(|_| Arc::new(Mutex::new(Vec::new())));
    let sample = match (args.sample_share, args.sample) {
        (Some(p), _) => SampleSize::Share(p),
        (None, SampleArg::All) => SampleSize::All,
        (None, SampleArg::Documents(n)) => SampleSize::Documents(n.max(1)),
    };
    let options = LiveOptions {
        sample,
        connect_timeout: std::time::Duration::from_secs(args.connect_timeout.max(1)),
        commands: commands.clone(),
    };
    let name = squill::inputs::mongo_uri::without_credentials(uri);
    say!("squill scan: sampling {name}");
    let (inputs, sampled, server) = open(uri, &options).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut total = std::time::Duration::ZERO;
    for s in &sampled {
        let what = if s.whole {
            format!("reading all {} documents", squill::words::int(s.estimated))
        } else if s.asked >= s.estimated {
            format!(
                "sampling {} of about {} documents (all of them)",
                squill::words::int(s.asked),
                squill::words::int(s.estimated)
            )
        } else {
            format!(
                "sampling {} of about {} documents ({:.1} %)",
                squill::words::int(s.asked),
                squill::words::int(s.estimated),
                s.asked as f64 / s.estimated.max(1) as f64 * 100.0
            )
        };
        let time = s.estimated_time();
        total += time;
        say!(
            "squill scan: {}.{}: {what}, about {} at the first batch's rate",
            s.database,
            s.collection,
            seconds(time)
        );
    }
    say!("squill scan: reading about {} in all", seconds(total));
    // The streams are read during the scan: the list is written after it.
    let recorder = record.zip(commands);
    Ok((
        inputs,
        Live {
            sampled,
            server: Some(server),
            recorder,
        },
    ))
}

/// A duration as people say it: `0.4 s`, `12 s`, `3 min`.
#[cfg(feature = "mongodb")]
fn seconds(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}

/// What a live scan brings beside its inputs.
#[derive(Default)]
struct Live {
    #[cfg(feature = "mongodb")]
    sampled: Vec<squill::inputs::live::Sampled>,
    #[cfg(feature = "mongodb")]
    server: Option<squill::inputs::live::Server>,
    recorder: Option<Recorder>,
}

impl Live {
    /// Marks the sampled collections, and estimates what their samples cannot
    /// give by asking the server (issue 46).
    #[cfg(feature = "mongodb")]
    fn estimate(
        &mut self,
        report: &mut squill::scan::ScanReport,
        settings: &squill::settings::Settings,
    ) {
        use squill::scan::sampled::{Budget, SampledCollection, estimate};
        for c in &mut report.collections {
            if let Some(s) = self
                .sampled
                .iter()
                .find(|s| Some(&s.database) == c.database.as_ref() && s.collection == c.name)
                && s.estimated > c.documents
            {
                c.sampled_from = Some(s.estimated);
            }
        }
        let Some(server) = self.server.as_mut() else {
            return;
        };
        // The streams are done: nothing else holds these locks.
        let kept: Vec<_> = self
            .sampled
            .iter()
            .map(|s| s.kept.lock().map(|k| k.clone()).unwrap_or_default())
            .collect();
        let collections: Vec<SampledCollection<'_>> = self
            .sampled
            .iter()
            .zip(&kept)
            .map(|(s, k)| SampledCollection {
                database: &s.database,
                collection: &s.collection,
                estimated: s.estimated,
                kept: k,
            })
            .collect();
        estimate(report, &collections, server, settings, Budget::default());
    }

    #[cfg(not(feature = "mongodb"))]
    fn estimate(&mut self, _: &mut squill::scan::ScanReport, _: &squill::settings::Settings) {}
}

/// Where to write the commands a live scan sent, and the list the driver
/// fills while the scan reads.
type Recorder = (PathBuf, std::sync::Arc<std::sync::Mutex<Vec<String>>>);

/// Writes the commands a live scan sent, one name a line.
fn write_recorded_commands(recorder: Option<Recorder>) -> Result<()> {
    if let Some((path, log)) = recorder {
        let names = log.lock().map(|l| l.join("\n")).unwrap_or_default();
        std::fs::write(&path, names + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(not(feature = "mongodb"))]
fn live(uri: &str, _: &ScanArgs) -> Result<(squill::inputs::dump::Inputs, Live)> {
    let _ = uri;
    anyhow::bail!(
        "scanning a running deployment needs a squill built with the `mongodb` feature (cargo install squill-cli --features mongodb); or scan a mongodump of it"
    )
}

/// The scanned model with the logs' shapes as its operations; the shapes
/// that could not become one are listed at its end, with why.
fn observed_model(
    report: &squill::scan::ScanReport,
    model: &squill::model::Model,
    logs: &[PathBuf],
) -> Result<String> {
    let workload = squill::workload::read(logs, squill::workload::Options::default());
    if let Some(e) = workload.errors.first() {
        anyhow::bail!("cannot read {}: {}", e.path, e.message);
    }
    let (model, text, unmapped) = squill::scan::observed::operations(report, model, &workload);
    let shapes = workload.totals.shapes;
    say!(
        "squill scan: {} of {} query shapes in the logs became operations of the model",
        model.workload.operations.len(),
        shapes
    );
    let mut text = text;
    if !unmapped.is_empty() {
        text.push_str("# Query shapes of the logs that are not operations of this model:\n");
        for u in &unmapped {
            text.push_str(&format!(
                "#   {} {} on {}: {}\n",
                u.shape, u.text, u.namespace, u.why
            ));
        }
    }
    Ok(text)
}

/// The scan's report in the format asked.
fn scan_report(report: &squill::scan::ScanReport, format: Format) -> String {
    match format {
        Format::Text => squill::outputs::scan::text(report),
        Format::Json => squill::outputs::scan::json(report),
        Format::Sarif => squill::outputs::scan::sarif(report),
        Format::Markdown => squill::outputs::scan::markdown(report),
        Format::Html => squill::outputs::html::scan(report),
    }
}

/// `--shard-keys`: the logs read, the dump read a second time for the
/// candidates' values. Text and Markdown follow the scan's report; the JSON
/// is the shard-key report alone (docs/shard-keys.md).
fn shard_key_report(report: &squill::scan::ScanReport, args: &ScanArgs) -> Result<String> {
    use squill::scan::shard_keys;
    let workload = squill::workload::read(&args.workload, squill::workload::Options::default());
    if let Some(e) = workload.errors.first() {
        anyhow::bail!("cannot read {}: {}", e.path, e.message);
    }
    let inputs = squill::inputs::dump::open(&args.paths, args.input_format);
    let options = shard_keys::Options {
        named: args.shard_key.clone(),
        show_values: args.show_values,
    };
    // The first reading reported the input's errors already.
    let (keys, _) = shard_keys::analyze(report, &workload, &inputs, &options);
    Ok(match args.format {
        Format::Json => squill::outputs::shard_keys::json(&keys),
        Format::Html => squill::outputs::html::scan_with_shard_keys(report, &keys),
        Format::Markdown => format!(
            "{}\n{}",
            squill::outputs::scan::markdown(report),
            squill::outputs::shard_keys::markdown(&keys)
        ),
        _ => format!(
            "{}\n{}",
            squill::outputs::scan::text(report),
            squill::outputs::shard_keys::text(&keys)
        ),
    })
}

pub fn run(global: &Global, args: ScanArgs) -> Result<ExitCode> {
    // Refused before the scan, which may take long: an input (data, logs,
    // settings), an existing file, or both outputs naming one file.
    let writes = super::output::Writes::new(args.force)
        .config(global)
        .inputs(&args.paths)
        .inputs(&args.workload)
        .inputs(args.capacity.since.iter());
    for path in [&args.output, &args.emit_model].into_iter().flatten() {
        writes.check(path)?;
    }
    if let (Some(report), Some(model)) = (&args.output, &args.emit_model) {
        super::output::distinct(report, model)?;
    }
    let shard_keys = args.shard_keys || !args.shard_key.is_empty();
    if shard_keys {
        if live_uri(&args.paths).is_some() || args.paths.iter().any(|p| p.as_os_str() == "-") {
            anyhow::bail!(
                "--shard-keys reads the data twice: give a dump directory or files, not standard input or a mongodb:// URI"
            );
        }
        if matches!(args.format, Format::Sarif) {
            anyhow::bail!("--shard-keys writes text, markdown, json or html");
        }
    }
    if args.capacity.horizon.is_some() {
        if matches!(args.format, Format::Sarif) {
            anyhow::bail!("--horizon writes text, markdown, json or html");
        }
        if args.capacity.since.is_none() && args.workload.is_empty() {
            anyhow::bail!(
                "--horizon on a scan needs the growth: an older dump (--since OLD_DUMP) or logs with its inserts (--workload LOG)"
            );
        }
    }
    let settings = super::load_settings_with_profile(global, args.profile.map(Profile::from))?;
    // More threads than cores only add memory and start-up (issue 23:
    // `--threads 100000` on a 4 KB file ran past 60 s at 240 MB).
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let threads = args.threads.map(|n| n.clamp(1, cores));
    if let (Some(asked), Some(n)) = (args.threads, threads)
        && asked > n
    {
        say!("note: --threads {asked} capped at {n}, the cores this machine has");
    }
    if let Some(n) = threads {
        // Fails only if a pool exists already, which it cannot here.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let (inputs, mut live_run) = match live_uri(&args.paths) {
        Some(uri) => live(uri, &args)?,
        None => (
            squill::inputs::dump::open(&args.paths, args.input_format),
            Live::default(),
        ),
    };
    let progress = driver::Progress::default();
    let options = driver::Options {
        walk_only: args.walk_only,
        split: threads.unwrap_or_else(rayon::current_num_threads),
        ..driver::Options::default()
    };
    let total = driver::total_bytes(&inputs);
    let position = || {
        use std::sync::atomic::Ordering::Relaxed;
        (
            progress.bytes.load(Relaxed),
            progress.documents.load(Relaxed),
        )
    };
    let mut report = super::progress::with_progress_bar(total, position, || {
        driver::scan(inputs, &settings, options, &progress)
    });
    live_run.estimate(&mut report, &settings);
    squill::rules::data::apply(&mut report, &settings);
    write_recorded_commands(live_run.recorder.take())?;

    let text = if shard_keys {
        shard_key_report(&report, &args)?
    } else if let Some(horizon) = args.capacity.horizon {
        use super::scan_capacity as cap;
        let growth = cap::growth(
            &report,
            &args.capacity,
            &args.paths,
            &args.workload,
            args.input_format,
            &settings,
        )?;
        cap::report(
            &report,
            &growth,
            &args.capacity,
            horizon,
            &settings,
            args.format,
        )?
    } else {
        scan_report(&report, args.format)
    };
    super::write_report(&writes, args.output.as_deref(), &text)?;
    if let Some(path) = &args.emit_model {
        // A URI's name is its database: its last part may hold a password.
        let name = match live_uri(&args.paths) {
            Some(uri) => squill::inputs::mongo_uri::database_of(uri)
                .unwrap_or_else(|| "deployment".to_string()),
            None => args
                .paths
                .first()
                .and_then(|p| p.file_stem())
                .map_or_else(|| "scan".to_string(), |s| s.to_string_lossy().into_owned()),
        };
        let model = squill::scan::emit_model::model(&report, &name);
        if model.entities.is_empty() {
            anyhow::bail!(
                "--emit-model: no collection has documents, so there is no model to write to {}",
                path.display()
            );
        }
        let text = if args.workload.is_empty() {
            squill::inputs::model_file::to_yaml(&model)
        } else {
            observed_model(&report, &model, &args.workload)?
        };
        writes.write(path, text.as_bytes())?;
    }
    if !report.errors.is_empty() {
        super::say_error(
            &format!(
                "{} input error(s); the rest was scanned (see the report)",
                report.errors.len()
            ),
            global.color,
        );
        return Ok(ExitCode::from(2));
    }
    Ok(args.fail_on.exit_code(report.max_severity()))
}
