//! `squill rules`: the rule catalogue, and `squill rule ID`: one rule's docs.

use anyhow::{Result, bail};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Output format: one line per rule, a JSON array, or a Markdown table.
    #[arg(long, value_enum, default_value = "text")]
    pub format: RulesFormat,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
    Markdown,
}

pub fn list(args: &RulesArgs) -> Result<ExitCode> {
    let rules: Vec<_> = squill::rules::all().collect();
    let text = match args.format {
        RulesFormat::Text => squill::outputs::rules::list(&rules),
        RulesFormat::Json => squill::outputs::rules::list_json(&rules),
        RulesFormat::Markdown => squill::outputs::rules::list_markdown(&rules),
    };
    super::write_stdout(&text)
}

pub fn show(id: &str) -> Result<ExitCode> {
    if let Some(rule) = squill::rules::by_id(id) {
        return super::write_stdout(&squill::outputs::rules::docs(rule));
    }
    let near = squill::outputs::rules::closest_ids(id);
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
