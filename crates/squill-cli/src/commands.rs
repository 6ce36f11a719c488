//! One function per subcommand; each returns the exit code it wants.

use crate::cli::{Cli, Command};
use anyhow::{Result, bail};
use std::io::Write;
use std::process::ExitCode;

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Rules => {
            let rules: Vec<_> = squill::rules::all().collect();
            write_stdout(&squill::outputs::rules::list(&rules))
        }
        Command::Rule { id } => match squill::rules::by_id(&id) {
            Some(rule) => write_stdout(&squill::outputs::rules::docs(rule)),
            None => {
                let near = squill::outputs::rules::closest_ids(&id);
                if near.is_empty() {
                    bail!("no rule with id `{id}` (`squill rules` lists them)");
                }
                bail!(
                    "no rule with id `{id}`; did you mean {}? (`squill rules` lists them)",
                    near.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        },
    }
}

pub fn write_stdout(text: &str) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Prints an error to stderr: miette's rendering for diagnostics with source
/// snippets, `error: …` with its causes otherwise.
pub fn report_error(err: &anyhow::Error) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "error: {err}");
    for cause in err.chain().skip(1) {
        let _ = writeln!(stderr, "  caused by: {cause}");
    }
}
