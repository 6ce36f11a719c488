//! `squill advise`: reads a model, asks the library for a design, renders it.
//!
//! Exit codes, as every command: 0 a design was produced and no finding is at
//! or above `--fail-on` (default `warning`: the `info` findings every design
//! carries never fail); 1 a finding is; 2 any error — a bad model, an unknown
//! mix, an unreadable file, an unwritable output.

use crate::cli::Global;
use anyhow::Result;
use squill::outputs::design::Format;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct AdviseArgs {
    /// The model file (YAML or JSON; see docs/model-file.md); `-` reads standard input.
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,

    /// The workload mix to design for (default: the model's first mix).
    #[arg(long, value_name = "NAME")]
    pub mix: Option<String>,

    /// Output format: text for a terminal, Markdown for reviews, JSON for tools
    /// (docs/design-json.md), HTML for a self-contained page with a diagram
    /// and charts (docs/report.md), SARIF for code scanning (the findings,
    /// at their place in the model file).
    #[arg(long, value_enum, default_value = "text")]
    pub format: AdviseFormat,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace the --output file when it exists (an input is never replaced).
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub fail_on: super::fail_on::FailOnArg,

    /// Project the design's data month by month this far ahead (`36m`,
    /// `3y`, `90d`) against MongoDB's limits and the deployment's
    /// (docs/capacity.md); growth comes from the model's `growth:`.
    #[arg(long, value_name = "TIME", value_parser = horizon)]
    pub horizon: Option<squill::model::Horizon>,

    /// RAM of each member for the projection (`64GiB`): over the model's
    /// `deployment:` and squill.toml's `[deployment]`.
    #[arg(long, value_name = "SIZE", value_parser = size, requires = "horizon")]
    pub ram: Option<u64>,

    /// Disk of each member for the projection (`4TiB`).
    #[arg(long, value_name = "SIZE", value_parser = size, requires = "horizon")]
    pub disk: Option<u64>,

    /// Shards for the projection (default 1: one replica set).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), requires = "horizon")]
    pub shards: Option<u32>,

    /// Choose a shard key for every collection (docs/shard-keys.md, "From
    /// a model"); without it, only for the collections the projection
    /// says outgrow one replica set.
    #[arg(long)]
    pub shard: bool,
}

pub(super) fn horizon(text: &str) -> Result<squill::model::Horizon, String> {
    squill::model::Horizon::parse(text).ok_or_else(|| {
        format!(
            "`{text}` is not a horizon: months, years or days, `36m`, `3y`, `90d` (at most {} months)",
            squill::model::MAX_HORIZON_MONTHS
        )
    })
}

pub(super) fn size(text: &str) -> Result<u64, String> {
    squill::model::parse_bytes(text).ok_or_else(|| {
        format!("`{text}` is not a size: a number and a unit, `64GiB`, `4TiB`, `512MB`")
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AdviseFormat {
    Text,
    Markdown,
    Json,
    Html,
    Sarif,
}

pub fn run(global: &Global, args: AdviseArgs) -> Result<ExitCode> {
    // Refused before any work: the model, the settings and an existing file.
    let writes = super::output::Writes::new(args.force)
        .config(global)
        .input(&args.model);
    if let Some(path) = &args.output {
        writes.check(path)?;
    }
    let mut settings = super::load_settings(global)?;
    settings.capacity.horizon = args.horizon;
    settings.capacity.shard = args.shard;
    settings.capacity.command_line = squill::model::Deployment {
        ram_bytes: args.ram,
        disk_bytes: args.disk,
        shards: args.shards,
        compression: None,
    };
    let model = super::load_model(&args.model)?;
    let (design, run) = search(&model, &settings, args.mix.as_deref())
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;

    // Colors only on a terminal, never in a file.
    let color = args.output.is_none() && super::use_color(global);
    // The human reports close with how the search ran; the JSON stays the
    // same from run to run (docs/report.md, "How long the search took").
    let render = |format| squill::outputs::design::render_run(&design, format, color, Some(&run));
    let report = match args.format {
        AdviseFormat::Text => render(Format::Text),
        AdviseFormat::Markdown => render(Format::Markdown),
        AdviseFormat::Json => render(Format::Json),
        AdviseFormat::Html => render(Format::Html),
        AdviseFormat::Sarif => sarif(&design, &args.model),
    };
    super::write_report(&writes, args.output.as_deref(), &report)?;

    let worst = design.findings.iter().map(|f| f.severity).max();
    Ok(args.fail_on.exit_code(worst))
}

/// `advise`, with a spinner on a terminal while the search runs past a
/// second, and a line after it saying how long it took, how many operation
/// plans it priced and whether it stopped at its budget (issue 45), on a
/// terminal only; and the same figures for the human reports.
fn search(
    model: &squill::model::Model,
    settings: &squill::settings::Settings,
    mix: Option<&str>,
) -> Result<(squill::design::Design, squill::outputs::design::SearchRun), squill::advise::AdviseError>
{
    use std::io::IsTerminal;
    let watch = std::sync::Arc::new(squill::advise::Watch::default());
    let started = std::time::Instant::now();
    let message = || {
        let planned = squill::words::int(watch.planned());
        format!("searching: {planned} operation plans priced")
    };
    let design = super::progress::with_spinner(message, || {
        squill::advise::watched(watch.clone(), || {
            squill::advise::advise(model, settings, mix)
        })
    });
    let took = started.elapsed();
    if took >= std::time::Duration::from_secs(1) && std::io::stderr().is_terminal() {
        let ending = if watch.stopped() {
            "stopped at its budget (the design is the best found)"
        } else {
            "settled"
        };
        eprintln!(
            "advise: the search took {:.1} s, priced {} operation plans and {ending}",
            took.as_secs_f64(),
            squill::words::int(watch.planned()),
        );
    }
    let run = squill::outputs::design::SearchRun {
        seconds: took.as_secs_f64(),
        planned: watch.planned(),
        stopped: watch.stopped(),
    };
    design.map(|d| (d, run))
}

/// The SARIF report: the model file is read a second time for the places of
/// its keys (the `Model` holds ids, not places). Standard input cannot be
/// read twice, and has no file a code-scanning view could open: its
/// findings carry their logical location only.
fn sarif(design: &squill::design::Design, model: &std::path::Path) -> String {
    let from_stdin = model.as_os_str() == "-";
    let text = if from_stdin {
        String::new()
    } else {
        // Read a moment ago; should it fail now, the findings lose their
        // line and column, not the report.
        std::fs::read_to_string(model).unwrap_or_default()
    };
    let positions = squill::inputs::model_file::positions(&text);
    let path = model.to_string_lossy();
    let file = squill::outputs::design::sarif::ModelFile {
        path: (!from_stdin).then_some(path.as_ref()),
        positions: &positions,
    };
    squill::outputs::design::sarif::render(design, file)
}
