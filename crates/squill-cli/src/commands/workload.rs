//! `squill workload`: reads mongod/mongos logs (JSON or legacy text, plain or
//! gzip) and reports the query shapes per namespace, hottest first, with the
//! findings of the workload rules and suggested indexes.
//!
//! Exit codes: 2 when a file could not be opened or read (the report of the
//! other files is still written first); 1 when a finding is at or above
//! `--fail-on` (default `warning`); else 0. Unreadable lines inside a file are part
//! of the report, not an error.

use crate::cli::Global;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit codes: 0 the logs were read (unreadable lines are listed in the report); \
1 a finding at or above --fail-on (default: warning; `--fail-on never` only reports); \
2 a file could not be opened or read, or another error.\n\
Literal values from filters are never printed unless --show-values is given: logs hold personal data.\n\
The report is documented in docs/workload.md."
)]
pub struct WorkloadArgs {
    /// mongod or mongos log files: structured JSON (4.4+) or legacy text, plain or gzip.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Report format.
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: Format,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace the --output file when it exists (an input is never replaced).
    #[arg(long)]
    pub force: bool,

    /// Keep one example filter per shape, with its literal values.
    #[arg(long)]
    pub show_values: bool,

    #[command(flatten)]
    pub fail_on: super::fail_on::FailOnArg,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Sarif,
    /// A self-contained page with charts (docs/report.md).
    Html,
}

pub fn run(global: &Global, args: WorkloadArgs) -> Result<ExitCode> {
    // Refused before any work: a log, the settings and an existing file.
    let writes = super::output::Writes::new(args.force)
        .config(global)
        .inputs(&args.files);
    if let Some(path) = &args.output {
        writes.check(path)?;
    }
    // Read for its errors: a `--config` that cannot be read is an error everywhere.
    super::load_settings(global)?;
    let options = squill::workload::Options {
        show_values: args.show_values,
    };
    let mut report = squill::workload::read(&args.files, options);
    squill::rules::workload::apply(&mut report);
    let text = match args.format {
        Format::Text => squill::outputs::workload::text(&report),
        Format::Json => squill::outputs::workload::json(&report),
        Format::Markdown => squill::outputs::workload::markdown(&report),
        Format::Sarif => squill::outputs::workload::sarif(&report),
        Format::Html => squill::outputs::html::workload(&report),
    };
    super::write_report(&writes, args.output.as_deref(), &text)?;
    if !report.errors.is_empty() {
        for e in &report.errors {
            super::say_error(&squill::words::visible(&e.message), global.color);
        }
        return Ok(ExitCode::from(2));
    }
    let worst = report.findings.iter().map(|f| f.severity).max();
    Ok(args.fail_on.exit_code(worst))
}
