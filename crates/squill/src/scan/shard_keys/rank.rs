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

use super::reason::{CHUNK_BYTES, HOT_VALUE_SHARE, Reason, Warning};
use super::report::{Candidate, MonotonicityType};

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
            } else if share > HOT_VALUE_SHARE
                && k.num_distinct_values >= super::candidates::HIGH_CARDINALITY
            {
                out.push(Warning::HotValue {
                    frequency: top.frequency,
                    share,
                    limit: HOT_VALUE_SHARE,
                });
            }
        }
        if k.monotonicity.kind == MonotonicityType::Monotonic {
            out.push(Warning::Monotonic {
                coefficient: k
                    .monotonicity
                    .record_id_correlation_coefficient
                    .unwrap_or(0.0),
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
            if r.operations == 0 {
                0.0
            } else {
                n as f64 / r.operations as f64
            }
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
