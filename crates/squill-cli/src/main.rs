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

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
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
