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
use crate::scan::shard_keys::report::{KeyCharacteristics, MonotonicityType};

pub fn json(report: &ShardKeyReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("a report always serializes");
    s.push('\n');
    s
}

/// `{tenant: 1, user: "hashed"}`, names as they are (the caller escapes):
/// the notation the model's side writes too.
pub(crate) fn key_text(key: &ShardKey) -> String {
    crate::outputs::design::sharding::key(key)
}

/// A key's most common values, `value × frequency` each, joined by commas;
/// each value through `value`, which encodes it for where it lands.
pub(crate) fn most_common(k: &KeyCharacteristics, value: impl Fn(&str) -> String) -> String {
    k.most_common_values
        .iter()
        .map(|m| match &m.value {
            Some(v) => format!(
                "{} × {}",
                value(&v.to_string()),
                crate::words::int(m.frequency)
            ),
            None => crate::words::int(m.frequency),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `monotonic (0.98)` or `not monotonic (0.1)`; `None` when unknown.
pub(crate) fn monotonicity(k: &KeyCharacteristics) -> Option<String> {
    match (
        k.monotonicity.kind,
        k.monotonicity.record_id_correlation_coefficient,
    ) {
        (MonotonicityType::Monotonic, Some(r)) => Some(format!("monotonic ({r})")),
        (MonotonicityType::NotMonotonic, Some(r)) => Some(format!("not monotonic ({r})")),
        _ => None,
    }
}

/// A percentage as the server returns it (0–100), in the one format.
fn pct(p: f64) -> String {
    crate::words::percent(p / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::shard_keys::reason::Reason;
    use crate::scan::shard_keys::report::{
        Candidate, NamespaceKeys, ReadDistribution, WriteDistribution,
    };

    /// A namespace and a field named to break out of where they land: a
    /// terminal escape, a Markdown pipe and tag, a JavaScript quote.
    fn hostile() -> ShardKeyReport {
        ShardKeyReport {
            shard_keys: vec![NamespaceKeys {
                namespace: "shop.<b>|\"x".to_string(),
                candidates: vec![Candidate {
                    key: ShardKey::ranged(&["a|\u{1b}[31m"]),
                    key_characteristics: None,
                    read_distribution: ReadDistribution::default(),
                    write_distribution: WriteDistribution::default(),
                    rank: 1,
                    reason: Reason {
                        origins: vec![crate::scan::shard_keys::candidates::Origin::Named],
                        operations: 0,
                        single_shard: 0,
                        scatter_gather: 0,
                        distinct: None,
                        warnings: Vec::new(),
                    },
                    supporting_index: Some(false),
                }],
                indexes_known: true,
                operations_not_classified: 0,
                data_bytes: 0,
            }],
        }
    }

    #[test]
    fn names_from_data_stay_data_in_every_output() {
        let r = hostile();
        let t = text(&r);
        assert!(!t.contains('\u{1b}'), "{t}");
        assert!(
            t.contains(r#"configureQueryAnalyzer: "shop.<b>|\"x""#),
            "{t}"
        );
        let m = markdown(&r);
        assert!(!m.contains('\u{1b}'), "{m}");
        assert!(m.contains("### `shop.<b>|\"x`"), "{m}");
        let row = m.lines().find(|l| l.starts_with("| 1 |")).unwrap();
        assert!(row.contains("`{a\\|"), "a pipe splits no cell: {row}");
        let commands = commands::mongosh(&r.shard_keys[0]).join("\n");
        assert!(
            commands.contains(r#"createIndex({"a|\u001b[31m":1})"#),
            "{commands}"
        );
    }
}
