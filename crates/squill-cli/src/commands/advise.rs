//! `squill advise`: recommends a schema.

use crate::cli::Global;
use anyhow::{Result, bail};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct AdviseArgs {}

pub fn run(global: &Global, _args: AdviseArgs) -> Result<ExitCode> {
    let _settings = super::load_settings(global)?;
    let _color = super::use_color(global);
    bail!("`squill advise` is not built yet")
}
