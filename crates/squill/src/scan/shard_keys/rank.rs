//! Ranking the candidates of one collection, and the reason of each, as a
//! typed value (`Reason`) rendered to English only by `Reason::words`.
//!
//! The order is lexicographic, each step a published concern about a shard
//! key (docs/shard-keys.md): first the keys that can be used at all (no
//! array or sub-document values), then those that can spread the data
//! (enough distinct values, no value past a chunk); among those, more
//! operations that go to one shard; then fewer warnings (a hot value,
//! monotonic inserts, updates of the key, single writes that cannot be
//! routed); then fewer operations that go to every shard; then more
//! distinct values.

use super::candidates::Origin;
use super::report::{Candidate, MonotonicityType};
use crate::words;

/// MongoDB's default chunk size since 6.0, 128 MiB.
pub const CHUNK_BYTES: u64 = 128 << 20;
/// The share of the documents one key value may hold before it fills more
/// than one of the server's 100 ranges (`analyzeShardKeyNumRanges`).
pub const HOT_VALUE_SHARE: f64 = 0.01;

/// What may be wrong with a key, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// Documents whose value of a key field is an array (the server refuses it).
    ArrayValues { documents: u64 },
    /// Documents whose value of a key field is a sub-document.
    DocumentValues { documents: u64 },
    /// Fewer distinct values than the ranges the server splits the key into.
    FewDistinctValues { distinct: u64, needed: u64 },
    /// The most common value's documents outgrow a chunk: a jumbo chunk.
    JumboValue { frequency: u64, bytes: u64, chunk: u64 },
    /// The most common value holds more than one range's share.
    HotValue { frequency: u64, share: f64, limit: f64 },
    /// The key grows with insertion order: new documents go to one shard.
    Monotonic { coefficient: f64 },
    /// Logged updates that write the key.
    ShardKeyUpdates { operations: u64 },
    /// Logged single writes (`multi: false`, findAndModify) without the
    /// whole key in their filter: each needs an internal transaction.
    SingleWritesWithoutShardKey { operations: u64 },
}

impl Warning {
    /// 2: the key cannot be used; 1: it cannot spread the data; 0: neither.
    fn tier(&self) -> u8 {
        match self {
            Warning::ArrayValues { .. } | Warning::DocumentValues { .. } => 2,
            Warning::FewDistinctValues { .. } | Warning::JumboValue { .. } => 1,
            _ => 0,
        }
    }

    fn words(&self) -> String {
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
            Warning::JumboValue { frequency, bytes, chunk } => format!(
                "its most common value has {} documents, about {}, more than a {} chunk: a jumbo chunk",
                words::int(*frequency),
                words::bytes(*bytes as f64),
                words::bytes(*chunk as f64)
            ),
            Warning::HotValue { frequency, share, limit } => format!(
                "its most common value holds {} of the documents ({}), more than the {} of one range in 100",
                words::percent(*share),
                words::int(*frequency),
                words::percent(*limit)
            ),
            Warning::Monotonic { coefficient } => format!(
                "monotonic (correlation {} with insertion order): new documents all go to one shard",
                words::num(*coefficient)
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

/// The warnings of a measured candidate.
pub fn warnings(c: &Candidate, arrays: u64, documents_as_values: u64) -> Vec<Warning> {
    let mut out = Vec::new();
    if arrays > 0 {
        out.push(Warning::ArrayValues { documents: arrays });
    }
    if documents_as_values > 0 {
        out.push(Warning::DocumentValues {
            documents: documents_as_values,
        });
    }
    if let Some(k) = &c.key_characteristics {
        if k.num_distinct_values < super::candidates::HIGH_CARDINALITY {
            out.push(Warning::FewDistinctValues {
                distinct: k.num_distinct_values,
                needed: super::candidates::HIGH_CARDINALITY,
            });
        }
        if let Some(top) = k.most_common_values.first() {
            let bytes = top.frequency * k.avg_doc_size_bytes;
            let share = top.frequency as f64 / k.num_docs_total.max(1) as f64;
            if bytes > CHUNK_BYTES {
                out.push(Warning::JumboValue {
                    frequency: top.frequency,
                    bytes,
                    chunk: CHUNK_BYTES,
                });
            } else if share > HOT_VALUE_SHARE && k.num_distinct_values >= super::candidates::HIGH_CARDINALITY {
                out.push(Warning::HotValue {
                    frequency: top.frequency,
                    share,
                    limit: HOT_VALUE_SHARE,
                });
            }
        }
        if k.monotonicity.kind == MonotonicityType::Monotonic {
            out.push(Warning::Monotonic {
                coefficient: k.monotonicity.record_id_correlation_coefficient.unwrap_or(0.0),
            });
        }
    }
    let w = &c.write_distribution;
    if w.shard_key_updates > 0 {
        out.push(Warning::ShardKeyUpdates {
            operations: w.shard_key_updates,
        });
    }
    if w.single_writes_without_shard_key > 0 {
        out.push(Warning::SingleWritesWithoutShardKey {
            operations: w.single_writes_without_shard_key,
        });
    }
    out
}

/// Sorts the candidates best first and numbers them from 1.
pub fn rank(candidates: &mut [Candidate]) {
    candidates.sort_by(|a, b| {
        let ra = &a.reason;
        let rb = &b.reason;
        let tier = |r: &Reason| r.warnings.iter().map(Warning::tier).max().unwrap_or(0);
        let share = |n: u64, r: &Reason| {
            if r.operations == 0 { 0.0 } else { n as f64 / r.operations as f64 }
        };
        tier(ra)
            .cmp(&tier(rb))
            .then(share(rb.single_shard, rb).total_cmp(&share(ra.single_shard, ra)))
            .then(ra.warnings.len().cmp(&rb.warnings.len()))
            .then(share(ra.scatter_gather, ra).total_cmp(&share(rb.scatter_gather, rb)))
            .then(rb.distinct.unwrap_or(0).cmp(&ra.distinct.unwrap_or(0)))
            .then_with(|| a.key.cmp(&b.key))
    });
    for (i, c) in candidates.iter_mut().enumerate() {
        c.rank = i + 1;
    }
}
