//! Typed settings: every threshold a rule uses, resolved from optional values in
//! `squill.toml` (unknown keys are errors) over a named profile's defaults.
//!
//! The published numbers disagree (see ../shared/BRIEF.md, "Published numbers"),
//! so squill keeps them as profiles that name their source instead of picking one
//! silently. `Options` is what the file may say; `Settings` is what rules read.

mod cardinality;
mod checked;
mod cluster;
mod deployment;
mod design;
mod profile;
pub mod scan;

pub use cardinality::{CardinalityOptions, CardinalitySettings};
pub use cluster::Cluster;
pub use deployment::DeploymentOptions;
pub use design::{CostCoefficients, CostOptions, DesignOptions, DesignSettings};
pub use profile::Profile;
pub use scan::{ScanOptions, ScanSettings};

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The contents of a `squill.toml`, every value optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// Threshold profile for scan anti-patterns: seeds, compass, atlas, articles.
    pub profile: Option<Profile>,
    pub cardinality: Option<CardinalityOptions>,
    /// Design-rule thresholds and cost coefficients (`[design]`, `[design.costs]`).
    pub design: Option<DesignOptions>,
    /// Thresholds and severities of the data rules, per rule id.
    pub scan: Option<ScanOptions>,
    /// The deployment a capacity projection checks against (`[deployment]`).
    pub deployment: Option<DeploymentOptions>,
}

/// Resolved settings that the rules and the cost model read.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub profile: Profile,
    pub cardinality: CardinalitySettings,
    pub design: DesignSettings,
    pub scan: ScanSettings,
    pub capacity: CapacitySettings,
    /// The sharded cluster the search prices on (`advise` sets it; `None`:
    /// one replica set, as every design was priced before).
    pub cluster: Option<Cluster>,
}

/// What a capacity projection needs beyond the model: the deployment
/// `squill.toml` states (the model's own and the command line's come
/// over it) and how far ahead to look (only the command line says:
/// without it, no projection).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CapacitySettings {
    /// `[deployment]` of `squill.toml`.
    pub deployment: crate::model::Deployment,
    /// `--ram`, `--disk`: over the model's and the file's.
    pub command_line: crate::model::Deployment,
    pub horizon: Option<crate::model::Horizon>,
    /// `advise --shard`: choose a shard key for every collection, not only
    /// for those the projection says outgrow one replica set.
    pub shard: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Options::default().into_settings()
    }
}

impl Options {
    pub fn into_settings(self) -> Settings {
        let profile = self.profile.unwrap_or_default();
        let cardinality = self.cardinality.unwrap_or_default().resolve();
        Settings {
            profile,
            design: self.design.unwrap_or_default().resolve(),
            scan: self.scan.unwrap_or_default().resolve(profile, &cardinality),
            cardinality,
            capacity: CapacitySettings {
                deployment: self.deployment.unwrap_or_default().resolve(),
                command_line: crate::model::Deployment::default(),
                horizon: None,
                shard: false,
            },
            cluster: None,
        }
    }
}

/// A `squill.toml` that could not be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SettingsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Parse(Box<ParseError>),
}

/// A `squill.toml` that does not parse or names an unknown key or value.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{path}: {message}")]
pub struct ParseError {
    pub path: PathBuf,
    pub message: String,
    #[source_code]
    pub src: miette::NamedSource<String>,
    #[label("here")]
    pub span: Option<miette::SourceSpan>,
}

/// Parses settings from the text of a `squill.toml`.
pub fn parse(path: &Path, text: &str) -> Result<Settings, SettingsError> {
    parse_with_profile(path, text, None)
}

/// As `parse`, with the profile overridden (a command-line `--profile`).
pub fn parse_with_profile(
    path: &Path,
    text: &str,
    profile: Option<Profile>,
) -> Result<Settings, SettingsError> {
    toml::from_str::<Options>(text)
        .map(|mut o| {
            if profile.is_some() {
                o.profile = profile;
            }
            o.into_settings()
        })
        .map_err(|e| {
            SettingsError::Parse(Box::new(ParseError {
                path: path.to_path_buf(),
                message: e.message().to_string(),
                span: e.span().map(|r| (r.start, r.end - r.start).into()),
                src: miette::NamedSource::new(path.display().to_string(), text.to_string()),
            }))
        })
}

/// Reads `path`.
pub fn load(path: &Path) -> Result<Settings, SettingsError> {
    load_with_profile(path, None)
}

/// Reads `path`, with the profile overridden.
pub fn load_with_profile(path: &Path, profile: Option<Profile>) -> Result<Settings, SettingsError> {
    let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_with_profile(path, &text, profile)
}
