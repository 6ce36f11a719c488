//! Why a candidate ranks where it does, as a value: its warnings with
//! their figures, where it came from, and how the logged operations route
//! under it. `Reason::words` is the one place it becomes English.

use super::candidates::Origin;
use crate::words;

/// MongoDB's default chunk size since 6.0, 128 MiB.
pub const CHUNK_BYTES: u64 = 128 << 20;
/// The share of the documents one key value may hold before it fills more
/// than one of the server's 100 ranges (`analyzeShardKeyNumRanges`).
pub const HOT_VALUE_SHARE: f64 = 0.01;

/// What may be wrong with a key, with its figures: one list with the
/// model's (`design::sharding`), so advise and the scan judge alike.
pub use crate::design::sharding::KeyWarning as Warning;

impl Warning {
    /// 2: the key cannot be used; 1: it cannot spread the data; 0: neither.
    pub fn tier(&self) -> u8 {
        match self {
            Warning::ArrayValues { .. } | Warning::DocumentValues { .. } => 2,
            Warning::FewDistinctValues { .. } | Warning::JumboValue { .. } => 1,
            // A model's monotonic first field takes every insert on one shard.
            Warning::MonotonicInserts { .. } => 1,
            _ => 0,
        }
    }

    pub fn words(&self) -> String {
        match self {
            Warning::ArrayValues { documents } => format!(
                "{} hold an array in it, which a shard key cannot",
                words::count(*documents as f64, "document")
            ),
            Warning::DocumentValues { documents } => format!(
                "{} hold a sub-document in it, which squill does not order",
                words::count(*documents as f64, "document")
            ),
            Warning::FewDistinctValues { distinct, needed } => format!(
                "only {} distinct values, fewer than the {} ranges the server splits a key into",
                words::int(*distinct),
                words::int(*needed)
            ),
            Warning::JumboValue {
                frequency,
                bytes,
                chunk,
            } => format!(
                "its most common value has {} documents, about {}, more than a {} chunk: a jumbo chunk",
                words::int(*frequency),
                words::bytes(*bytes as f64),
                words::bytes(*chunk as f64)
            ),
            Warning::HotValue {
                frequency,
                share,
                limit,
            } => format!(
                "its most common value holds {} of the documents ({}), more than the {} of one range in 100",
                words::percent(*share),
                words::int(*frequency),
                words::percent(*limit)
            ),
            Warning::Monotonic { coefficient } => format!(
                "monotonic (correlation {} with insertion order): new documents all go to one shard",
                words::num(*coefficient)
            ),
            Warning::MonotonicInserts {
                inserts_per_second, ..
            } => format!(
                "its first field grows with insertion order: every insert ({}) goes to the last chunk",
                words::rate(*inserts_per_second)
            ),
            Warning::CrossShardTransactions { operations, rate } => format!(
                "transactions ({}, of {}) write documents the key does not keep on one shard: each commits across shards",
                words::rate(*rate),
                words::count(operations.len() as f64, "operation")
            ),
            Warning::ShardKeyUpdates { operations } => format!(
                "updates of the key ({}), which move documents between shards",
                words::count(*operations as f64, "logged write")
            ),
            Warning::SingleWritesWithoutShardKey { operations } => format!(
                "single writes without the whole key ({}), each an internal transaction",
                words::count(*operations as f64, "logged write")
            ),
        }
    }
}

/// Why a candidate is where it is in the ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Reason {
    pub origins: Vec<Origin>,
    /// Logged reads and writes (inserts aside) and how many go to one
    /// shard, and to all.
    pub operations: u64,
    pub single_shard: u64,
    pub scatter_gather: u64,
    pub distinct: Option<u64>,
    pub warnings: Vec<Warning>,
}

impl Reason {
    /// The reason in English.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if self.operations > 0 {
            parts.push(format!(
                "{} of {} go to one shard, {} to every shard",
                words::percent(self.single_shard as f64 / self.operations as f64),
                words::count(self.operations as f64, "logged operation"),
                words::percent(self.scatter_gather as f64 / self.operations as f64),
            ));
        } else {
            parts.push("no logged read or write to route".to_string());
        }
        if let Some(d) = self.distinct {
            parts.push(words::count(d as f64, "distinct value"));
        }
        let origins: Vec<String> = self.origins.iter().map(origin_words).collect();
        let mut text = format!("{}; from {}", parts.join(", "), origins.join(" and "));
        if self.warnings.is_empty() {
            text.push_str("; no warning");
        } else {
            let w: Vec<String> = self.warnings.iter().map(Warning::words).collect();
            text.push_str("; but ");
            text.push_str(&w.join("; "));
        }
        text
    }
}

fn origin_words(o: &Origin) -> String {
    match o {
        Origin::Named => "--shard-key".to_string(),
        Origin::LoggedEquality { operations } => format!(
            "the equality filters of {}",
            words::count(*operations as f64, "logged operation")
        ),
        Origin::UniqueIndex => "a unique index".to_string(),
        Origin::HighCardinality { distinct } => format!(
            "a field in every document with {} distinct values",
            words::int(*distinct)
        ),
        Origin::HashedAlternative => "the hashed form of a monotonic key".to_string(),
    }
}
