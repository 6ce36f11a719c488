//! One function per subcommand; each returns the exit code it wants.

mod advise;
mod check;
mod fail_on;
mod generate;
mod import;
mod import_postgres;
mod migrate;
mod output;
mod progress;
mod rules;
mod scan;
mod scan_capacity;
mod workload;

pub use advise::AdviseArgs;
pub use check::CheckArgs;
pub use generate::GenerateArgs;
pub use import::ImportArgs;
pub use migrate::MigrateArgs;
pub use rules::RulesArgs;
pub use scan::ScanArgs;
pub use workload::WorkloadArgs;

use crate::cli::{Cli, ColorChoice, Command, Global};
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

pub fn run(cli: Cli) -> Result<ExitCode> {
    let global = cli.global();
    match cli.command {
        Command::Advise(args) => advise::run(&global, args),
        Command::Check(args) => check::run(&global, args),
        Command::Scan(args) => scan::run(&global, args),
        Command::Workload(args) => workload::run(&global, args),
        Command::Generate(args) => generate::run(&global, args),
        Command::Import(args) => import::run(&global, args),
        Command::Migrate(args) => migrate::run(&global, args),
        Command::Rules(args) => {
            // The catalogue does not depend on settings, but a `--config`
            // that cannot be read is an error everywhere (exit 2).
            load_settings(&global)?;
            rules::list(&args)
        }
        Command::Rule { id } => {
            load_settings(&global)?;
            rules::show(&id)
        }
    }
}

/// Writes a report to `output` (by the rule of `output::Writes`), or to
/// standard output without one.
pub fn write_report(
    writes: &output::Writes,
    output: Option<&std::path::Path>,
    text: &str,
) -> Result<()> {
    match output {
        Some(path) => writes.write(path, text.as_bytes()),
        None => write_stdout(text).map(|_| ()),
    }
}

/// Writes a command's own summary (check, generate, migrate) to standard
/// output: text for a terminal that names entities, collections and files,
/// so their control characters are escaped (`squill::words::visible_lines`).
pub fn write_summary(text: &str) -> Result<ExitCode> {
    write_stdout(&squill::words::visible_lines(text))
}

pub fn write_stdout(text: &str) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Prints an error to stderr: miette's rendering for diagnostics with source
/// snippets, `error: …` with its causes otherwise; colored by `--color` as
/// the reports are (`ColorChoice::applies`, asked of stderr).
pub fn report_error(err: &anyhow::Error, color: ColorChoice) {
    use std::io::IsTerminal;
    let color = color.applies(std::io::stderr().is_terminal());
    if let Some(diag) = err
        .chain()
        .find_map(|c| c.downcast_ref::<DiagnosticError>())
    {
        let mut text = String::new();
        let theme = if color {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        let handler = miette::GraphicalReportHandler::new_themed(theme);
        if handler.render_report(&mut text, diag.0.as_ref()).is_ok() {
            // The snippet quotes the input, names and all: only the
            // handler's own colors pass.
            let text = squill::words::visible_styled(&text);
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            return;
        }
    }
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(error_text(err, color).as_bytes());
}

/// Prints `error: MESSAGE` to stderr, colored as `report_error` colors
/// it: for the errors a command reports after its report (the inputs
/// `scan` and `workload` could not read). `message` is escaped already.
pub fn say_error(message: &str, color: ColorChoice) {
    use std::io::IsTerminal;
    let color = color.applies(std::io::stderr().is_terminal());
    let _ = std::io::stderr()
        .lock()
        .write_all(error_line(message, color).as_bytes());
}

/// `error: MESSAGE` and a line feed, `error` bold red when colored.
fn error_line(message: &str, color: bool) -> String {
    let (on, off) = if color {
        ("\x1b[1;31m", "\x1b[0m")
    } else {
        ("", "")
    };
    format!("{on}error{off}: {message}\n")
}

/// The text of an error that is not a diagnostic: `error: …` (bold red
/// when colored) and one `caused by: …` line per cause, names escaped.
fn error_text(err: &anyhow::Error, color: bool) -> String {
    let visible = |t: String| squill::words::visible_lines(&t).into_owned();
    let mut text = error_line(&visible(err.to_string()), color);
    for cause in err.chain().skip(1) {
        text.push_str(&format!("  caused by: {}\n", visible(cause.to_string())));
    }
    text
}

/// The model at `path` (`-`: standard input), its problems rendered with
/// their source snippets.
pub fn load_model(path: &std::path::Path) -> Result<squill::model::Model> {
    squill::inputs::load_model(path).map_err(|e| anyhow::Error::new(DiagnosticError(Box::new(e))))
}

/// Settings from `--config FILE`, else `./squill.toml` when it exists, else defaults.
pub fn load_settings(global: &Global) -> Result<squill::settings::Settings> {
    load_settings_with_profile(global, None)
}

/// As `load_settings`, with the threshold profile overridden (`--profile`).
pub fn load_settings_with_profile(
    global: &Global,
    profile: Option<squill::settings::Profile>,
) -> Result<squill::settings::Settings> {
    let path = match &global.config {
        Some(path) => path.clone(),
        None => {
            let default = std::path::PathBuf::from("squill.toml");
            if !default.is_file() {
                return Ok(squill::settings::Options {
                    profile,
                    ..Default::default()
                }
                .into_settings());
            }
            default
        }
    };
    squill::settings::load_with_profile(&path, profile)
        .map_err(|e| anyhow::Error::new(DiagnosticError(Box::new(e))))
}

/// Whether to color stdout: `--color`, then `NO_COLOR`, then whether it is a terminal.
pub fn use_color(global: &Global) -> bool {
    use std::io::IsTerminal;
    global.color.applies(std::io::stdout().is_terminal())
}

/// Carries a miette diagnostic through `anyhow` so `report_error` can render its
/// source snippet.
#[derive(Debug)]
pub struct DiagnosticError(pub Box<dyn miette::Diagnostic + Send + Sync + 'static>);

impl std::fmt::Display for DiagnosticError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for DiagnosticError {}
