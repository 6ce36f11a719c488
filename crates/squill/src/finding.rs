//! Findings: a rule firing on data or on a design, as a value with its evidence.
//! Reporters render them; the library never prints them.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where a finding points.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Location {
    /// A part of a model ("relationships.parts", "operations.view_item").
    Model { path: String },
    /// A collection of scanned data, optionally a field in it and an example
    /// document's `_id` (as canonical Extended JSON text).
    Collection {
        file: Option<PathBuf>,
        database: Option<String>,
        collection: String,
        field: Option<String>,
        example_id: Option<String>,
    },
    /// A place in an input file.
    File {
        path: PathBuf,
        line: Option<u64>,
        byte_offset: Option<u64>,
    },
}

/// A measured number behind a finding.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Evidence {
    pub name: String,
    pub value: serde_json::Value,
}

impl Evidence {
    pub fn new(name: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        Evidence {
            name: name.into(),
            value: value.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// The rule's id (kebab-case).
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub location: Location,
    pub evidence: Vec<Evidence>,
    /// What to do instead: the pattern that fixes it.
    pub help: Option<String>,
}

impl Finding {
    /// The names from data the message may quote (between backticks): the
    /// collection, field and database it points at, the parts of a model
    /// path, and every text among its evidence. The Markdown reports make
    /// each quoted one a code span (`words::markdown::sentence`).
    pub fn names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        match &self.location {
            Location::Model { path } => out.extend(path.split('.')),
            Location::Collection {
                database,
                collection,
                field,
                ..
            } => {
                out.push(collection);
                out.extend(field.as_deref());
                out.extend(database.as_deref());
            }
            Location::File { .. } => {}
        }
        let mut stack: Vec<&serde_json::Value> = self.evidence.iter().map(|e| &e.value).collect();
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(s) => out.push(s),
                serde_json::Value::Array(a) => stack.extend(a),
                serde_json::Value::Object(o) => {
                    out.extend(o.keys().map(String::as_str));
                    stack.extend(o.values());
                }
                _ => {}
            }
        }
        out
    }
}

/// Deterministic order: severity (highest first), then rule, then location text.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.rule.cmp(b.rule))
            .then_with(|| format!("{:?}", a.location).cmp(&format!("{:?}", b.location)))
            .then_with(|| a.message.cmp(&b.message))
    });
}
