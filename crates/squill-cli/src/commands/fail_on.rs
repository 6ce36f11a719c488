//! `--fail-on`: one argument, the same words and the same default on every
//! command that reports findings (`advise`, `scan`, `workload`).
//!
//! Why `warning` is the default everywhere: a CI job that runs squill should
//! fail on what squill warns about without being told to, as linters do
//! (exit 1 on findings), while the `info` findings a design always carries
//! (which layout a rule supports, what a pattern saves) leave it green. Before
//! issue 44 `advise` never failed on findings, `scan` failed at `warning` and
//! `workload` never did; a job that wants the old behaviour passes
//! `--fail-on never`.

use squill::finding::Severity;
use std::process::ExitCode;

/// The lowest severity that makes the command exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Info,
    /// The default (`warn` is accepted too).
    #[value(alias = "warn")]
    Warning,
    Error,
    /// Findings never change the exit code (`none` and `off` are accepted too).
    #[value(alias = "none", alias = "off")]
    Never,
}

/// The flag itself, flattened into each command so its help and default are
/// written once.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct FailOnArg {
    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Warning, value_name = "SEVERITY")]
    pub fail_on: FailOn,
}

impl FailOn {
    /// The lowest severity that fails the run, if any does.
    pub fn severity(self) -> Option<Severity> {
        match self {
            FailOn::Info => Some(Severity::Info),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Error => Some(Severity::Error),
            FailOn::Never => None,
        }
    }

    /// Exit 1 when the worst finding reaches the level, else 0.
    pub fn exit_code(self, worst: Option<Severity>) -> ExitCode {
        let failed = self
            .severity()
            .is_some_and(|level| worst.is_some_and(|s| s >= level));
        if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
}

impl FailOnArg {
    pub fn exit_code(self, worst: Option<Severity>) -> ExitCode {
        self.fail_on.exit_code(worst)
    }
}
