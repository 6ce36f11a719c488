//! `squill advise`: reads a model, asks the library for a design, renders it.
//!
//! A design's findings are part of the answer, not a failure: the command exits
//! 0 whenever it produced a design, unless `--fail-on` asks for exit 1 on
//! findings at or above a severity (for CI checks of a model). Any error — a
//! bad model, an unknown mix, an unreadable file, an unwritable output — exits 2.

use crate::cli::Global;
use anyhow::Result;
use squill::finding::Severity;
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
    /// and charts (docs/report.md).
    #[arg(long, value_enum, default_value = "text")]
    pub format: AdviseFormat,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace the --output file when it exists (an input is never replaced).
    #[arg(long)]
    pub force: bool,

    /// Exit 1 when the design has a finding at or above this severity
    /// (info, warning, error). Without it, findings never change the exit code.
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub fail_on: Option<Severity>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AdviseFormat {
    Text,
    Markdown,
    Json,
    Html,
}

fn parse_severity(text: &str) -> Result<Severity, String> {
    Severity::parse(text)
        .ok_or_else(|| format!("`{text}` is not a severity: use info, warning or error"))
}

pub fn run(global: &Global, args: AdviseArgs) -> Result<ExitCode> {
    // Refused before any work: the model, the settings and an existing file.
    let writes = super::output::Writes::new(args.force)
        .config(global)
        .input(&args.model);
    if let Some(path) = &args.output {
        writes.check(path)?;
    }
    let settings = super::load_settings(global)?;
    let model = super::load_model(&args.model)?;
    let design = squill::advise::advise(&model, &settings, args.mix.as_deref())
        .map_err(|e| anyhow::Error::new(super::DiagnosticError(Box::new(e))))?;

    let format = match args.format {
        AdviseFormat::Text => Format::Text,
        AdviseFormat::Markdown => Format::Markdown,
        AdviseFormat::Json => Format::Json,
        AdviseFormat::Html => Format::Html,
    };
    // Colors only on a terminal, never in a file.
    let color = args.output.is_none() && super::use_color(global);
    let report = squill::outputs::design::render(&design, format, color);
    super::write_report(&writes, args.output.as_deref(), &report)?;

    let failed = args
        .fail_on
        .is_some_and(|level| design.findings.iter().any(|f| f.severity >= level));
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
