//! `squill generate`: writes the artifacts of a design.

use crate::cli::Global;
use anyhow::{Result, bail};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {}

pub fn run(global: &Global, _args: GenerateArgs) -> Result<ExitCode> {
    let _settings = super::load_settings(global)?;
    let _color = super::use_color(global);
    bail!("`squill generate` is not built yet")
}
