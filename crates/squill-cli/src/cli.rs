//! Command-line arguments.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// squill — a MongoDB schema design advisor.
///
/// `advise` recommends a schema from a model of your application, `scan`
/// measures existing data and flags anti-patterns, `generate` writes what you
/// need to build the design. Exit codes: 0 ok, 1 findings at or above
/// --fail-on, 2 error.
#[derive(Debug, Parser)]
#[command(name = "squill", version, about, long_about)]
pub struct Cli {
    /// Settings file with threshold overrides (default: ./squill.toml when present).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Colors of the report and of error messages: auto (when the stream
    /// written is a terminal and NO_COLOR is unset), always, never.
    #[arg(long, global = true, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether a stream gets colors: `always` and `never` decide; `auto`
    /// colors a terminal unless `NO_COLOR` is set. Standard output and
    /// standard error each ask for themselves, so `2>err.txt` stays plain
    /// while the report on the terminal is colored.
    pub fn applies(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none(),
        }
    }
}

/// Options every command sees.
#[derive(Debug, Clone)]
pub struct Global {
    pub config: Option<PathBuf>,
    pub color: ColorChoice,
}

impl Cli {
    pub fn global(&self) -> Global {
        Global {
            config: self.config.clone(),
            color: self.color,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Recommend a MongoDB schema for a model of your application.
    Advise(crate::commands::AdviseArgs),
    /// Check a model file and summarize it, without advising.
    Check(crate::commands::CheckArgs),
    /// Measure existing data (mongodump, mongoexport) and flag anti-patterns.
    Scan(crate::commands::ScanArgs),
    /// Read mongod/mongos logs: query shapes per namespace, their rates,
    /// latencies and plans, and what to index.
    Workload(crate::commands::WorkloadArgs),
    /// Write validators, indexes, scripts, queries and data for a design.
    Generate(crate::commands::GenerateArgs),
    /// Write a starting model from another database: SQL DDL, or a live PostgreSQL, measured.
    Import(crate::commands::ImportArgs),
    /// Move a PostgreSQL database's rows into the advised design: a
    /// mongodump directory and Extended JSON lines, resumable, and
    /// incremental when run again.
    Migrate(crate::commands::MigrateArgs),
    /// List every rule squill knows: id, kind, default severity, summary.
    Rules(crate::commands::RulesArgs),
    /// Print one rule's documentation.
    Rule {
        /// The rule's id, e.g. `embed-one-to-few`.
        id: String,
    },
}
