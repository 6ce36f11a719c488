//! Typed settings: every threshold a rule uses, resolved from optional values in
//! `squill.toml` (unknown keys are errors) over a named profile's defaults.
//!
//! The published numbers disagree (see ../shared/BRIEF.md, "Published numbers"),
//! so squill keeps them as profiles that name their source instead of picking one
//! silently. `Options` is what the file may say; `Settings` is what rules read.

mod cardinality;
mod design;
mod profile;

pub use cardinality::{CardinalityOptions, CardinalitySettings};
pub use design::{CostCoefficients, CostOptions, DesignOptions, DesignSettings};
pub use profile::Profile;

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
}

/// Resolved settings that the rules and the cost model read.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub profile: Profile,
    pub cardinality: CardinalitySettings,
    pub design: DesignSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Options::default().into_settings()
    }
}

impl Options {
    pub fn into_settings(self) -> Settings {
        let profile = self.profile.unwrap_or_default();
        Settings {
            profile,
            cardinality: self.cardinality.unwrap_or_default().resolve(),
            design: self.design.unwrap_or_default().resolve(),
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
    toml::from_str::<Options>(text)
        .map(Options::into_settings)
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
    let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(path, &text)
}
