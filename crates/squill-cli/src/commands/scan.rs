//! `squill scan`: measures existing data.

use crate::cli::Global;
use anyhow::{Result, bail};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ScanArgs {}

pub fn run(global: &Global, _args: ScanArgs) -> Result<ExitCode> {
    let _settings = super::load_settings(global)?;
    let _color = super::use_color(global);
    bail!("`squill scan` is not built yet")
}
