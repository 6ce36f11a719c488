//! The `squill` binary: parses arguments, calls the library, renders, and maps
//! the outcome to an exit code (0 ok, 1 findings at or above the failure level,
//! 2 error; a closed stdout pipe exits 0).

/// `eprintln!` for messages that hold names from data (a collection, a file,
/// a table): each message is one line, and goes through
/// `squill::words::visible`, so a name's ESC sequence, carriage return or
/// line feed is shown, not obeyed, by the terminal. Every message of the
/// commands is written with it.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}", squill::words::visible(&format!($($arg)*)))
    };
}

mod cli;
mod commands;

use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = parse();
    let color = cli.color;
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            commands::report_error(&err, color);
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The arguments, with clap's own errors (an unknown flag, a bad value)
/// colored by `--color` as squill's are: clap reads the terminal by itself
/// unless told, and it is told before it parses, from the raw arguments.
fn parse() -> cli::Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = match color_word(&args) {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    };
    let matches = cli::Cli::command().color(color).get_matches_from(args);
    cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The last `--color WHEN` or `--color=WHEN` among the arguments.
fn color_word(args: &[std::ffi::OsString]) -> Option<&str> {
    let mut word = None;
    let mut words = args.iter().filter_map(|a| a.to_str());
    while let Some(arg) = words.next() {
        if arg == "--" {
            break;
        }
        if arg == "--color" {
            word = words.next();
        } else if let Some(w) = arg.strip_prefix("--color=") {
            word = Some(w);
        }
    }
    word
}
