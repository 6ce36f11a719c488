//! The shard-key report (`scan --shard-keys`) as text, Markdown and JSON.
//! The JSON is the report alone, `{"shard_keys": […]}`, with
//! `analyzeShardKey`'s names (docs/shard-keys.md); text and Markdown
//! follow the scan's report.

pub mod commands;
mod markdown;
mod text;

pub use markdown::markdown;
pub use text::text;

use crate::scan::shard_keys::ShardKeyReport;
use crate::scan::shard_keys::key::ShardKey;

pub fn json(report: &ShardKeyReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("a report always serializes");
    s.push('\n');
    s
}

/// `{tenant: 1, user: "hashed"}`, names as they are (the caller escapes).
fn key_text(key: &ShardKey) -> String {
    let parts: Vec<String> = key
        .fields
        .iter()
        .map(|f| {
            if f.hashed {
                format!("{}: \"hashed\"", f.path)
            } else {
                format!("{}: 1", f.path)
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// A percentage as the server returns it (0–100), in the one format.
fn pct(p: f64) -> String {
    crate::words::percent(p / 100.0)
}
