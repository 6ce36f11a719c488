//! `squill check`: checks a model file.

use crate::cli::Global;
use anyhow::{Result, bail};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {}

pub fn run(global: &Global, _args: CheckArgs) -> Result<ExitCode> {
    let _settings = super::load_settings(global)?;
    let _color = super::use_color(global);
    bail!("`squill check` is not built yet")
}
