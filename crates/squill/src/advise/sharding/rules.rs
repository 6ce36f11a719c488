//! The rules a model's candidate key is judged by, as data: each names
//! the concern, its threshold and where the number comes from
//! (docs/shard-keys.md, "From a model"). The thresholds are the scan's
//! (`scan::shard_keys::reason`, `candidates`): advise and the scan judge a
//! key alike. `warnings` applies them to one candidate's figures; `rank`
//! orders the candidates and gives each its verdict against the first.

use super::figures::KeyFigures;
use crate::design::sharding::{KeyCandidate, KeyVerdict, KeyWarning, Target};
use crate::scan::shard_keys::candidates::HIGH_CARDINALITY;
use crate::scan::shard_keys::reason::{CHUNK_BYTES, HOT_VALUE_SHARE};

/// One rule: its id, the threshold it compares with, the source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct KeyRule {
    pub(crate) id: &'static str,
    pub(crate) threshold: f64,
    pub(crate) source: &'static str,
}

pub(crate) const JUMBO_CHUNK: KeyRule = KeyRule {
    id: "jumbo-chunk",
    threshold: CHUNK_BYTES as f64,
    source: "MongoDB manual, Data Partitioning with Chunks: the default chunk size is 128 MB since 6.0, and a chunk of one key value cannot split (a jumbo chunk)",
};
pub(crate) const FEW_DISTINCT_VALUES: KeyRule = KeyRule {
    id: "few-distinct-values",
    threshold: HIGH_CARDINALITY as f64,
    source: "MongoDB manual, analyzeShardKey: analyzeShardKeyNumRanges, 100 by default, the ranges a key is judged on",
};
pub(crate) const HOT_VALUE: KeyRule = KeyRule {
    id: "hot-key-value",
    threshold: HOT_VALUE_SHARE,
    source: "MongoDB manual, analyzeShardKey: one range in analyzeShardKeyNumRanges (100), 1 % of the documents",
};
pub(crate) const MONOTONIC_INSERTS: KeyRule = KeyRule {
    id: "monotonic-inserts",
    threshold: 0.0,
    source: "MongoDB manual, Choose a Shard Key (monotonically changing keys) and Limits (monotonically increasing shard keys can limit insert throughput): every insert goes to the one chunk at the end of the range",
};

/// Every rule, for the docs and their tests.
#[cfg_attr(not(test), allow(dead_code))] // read by the rules' own tests
pub(crate) const RULES: &[KeyRule] = &[
    JUMBO_CHUNK,
    FEW_DISTINCT_VALUES,
    HOT_VALUE,
    MONOTONIC_INSERTS,
];

/// The warnings of a key with `figures` over `documents` documents of
/// `avg_bytes`, taking `inserts` per second; `first` is its first field.
pub(crate) fn warnings(
    figures: &KeyFigures,
    documents: u64,
    avg_bytes: u64,
    inserts: f64,
    first: &str,
    single_writes: &[(String, Target)],
) -> Vec<KeyWarning> {
    let mut out = Vec::new();
    if let Some(d) = figures.distinct
        && (d as f64) < FEW_DISTINCT_VALUES.threshold
    {
        out.push(KeyWarning::FewDistinctValues {
            distinct: d,
            needed: HIGH_CARDINALITY,
        });
    }
    if let Some(top) = figures.top {
        let bytes = top.saturating_mul(avg_bytes);
        let share = top as f64 / documents.max(1) as f64;
        if bytes as f64 > JUMBO_CHUNK.threshold {
            out.push(KeyWarning::JumboValue {
                frequency: top,
                bytes,
                chunk: CHUNK_BYTES,
            });
        } else if share > HOT_VALUE.threshold
            && figures
                .distinct
                .is_some_and(|d| d as f64 >= FEW_DISTINCT_VALUES.threshold)
        {
            out.push(KeyWarning::HotValue {
                frequency: top,
                share,
                limit: HOT_VALUE_SHARE,
            });
        }
    }
    if figures.monotonic && inserts > MONOTONIC_INSERTS.threshold {
        out.push(KeyWarning::MonotonicInserts {
            field: first.to_string(),
            inserts_per_second: inserts,
        });
    }
    let unrouted = single_writes
        .iter()
        .filter(|(_, t)| *t != Target::SingleShard)
        .count() as u64;
    if unrouted > 0 {
        out.push(KeyWarning::SingleWritesWithoutShardKey {
            operations: unrouted,
        });
    }
    out
}

/// 1: the key cannot spread the data or the inserts; 0: it can.
fn tier(w: &KeyWarning) -> u8 {
    match w {
        KeyWarning::ArrayValues { .. } | KeyWarning::DocumentValues { .. } => 2,
        KeyWarning::FewDistinctValues { .. }
        | KeyWarning::JumboValue { .. }
        | KeyWarning::MonotonicInserts { .. } => 1,
        _ => 0,
    }
}

/// The share (0–1) of the routed steps' rate that goes to every shard,
/// and to one.
fn shares(c: &KeyCandidate) -> (f64, f64) {
    let total: f64 = c.routes.iter().map(|r| r.rate).sum();
    if total <= 0.0 {
        return (0.0, 0.0);
    }
    let of = |t: Target| {
        c.routes
            .iter()
            .filter(|r| r.target == t)
            .map(|r| r.rate)
            .sum::<f64>()
            / total
    };
    (of(Target::ScatterGather), of(Target::SingleShard))
}

/// Best first, lexicographically: keys that can spread the data and the
/// inserts; less of the workload to every shard; more to one shard; fewer
/// warnings; more distinct values; ranged before hashed, then by name.
/// Each gets its rank and its verdict against the first.
pub(crate) fn rank(candidates: &mut [KeyCandidate]) {
    let top_tier = |c: &KeyCandidate| c.warnings.iter().map(tier).max().unwrap_or(0);
    candidates.sort_by(|a, b| {
        let (sa, oa) = shares(a);
        let (sb, ob) = shares(b);
        top_tier(a)
            .cmp(&top_tier(b))
            .then(sa.total_cmp(&sb))
            .then(ob.total_cmp(&oa))
            .then(a.warnings.len().cmp(&b.warnings.len()))
            .then(b.num_distinct_values.cmp(&a.num_distinct_values))
            .then_with(|| a.key.cmp(&b.key))
    });
    let Some(best) = candidates.first() else {
        return;
    };
    let usable = top_tier(best) == 0;
    let (best_sg, best_one) = shares(best);
    for (i, c) in candidates.iter_mut().enumerate() {
        c.rank = i + 1;
        let (sg, one) = shares(c);
        let ruled_out = c.warnings.iter().find(|w| tier(w) > 0).cloned();
        c.verdict = match ruled_out {
            Some(w) => KeyVerdict::Rejected { because: w },
            None if i == 0 && usable => KeyVerdict::Chosen,
            None if sg > best_sg => KeyVerdict::RejectedScatterGather {
                share: sg,
                chosen_share: best_sg,
            },
            None => KeyVerdict::Behind {
                single_shard_share: one,
                chosen_single_shard_share: best_one,
            },
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(distinct: u64, top: u64, monotonic: bool) -> KeyFigures {
        KeyFigures {
            distinct: Some(distinct),
            top: Some(top),
            monotonic,
        }
    }

    fn kinds(w: &[KeyWarning]) -> Vec<&'static str> {
        w.iter()
            .map(|w| match w {
                KeyWarning::FewDistinctValues { .. } => FEW_DISTINCT_VALUES.id,
                KeyWarning::JumboValue { .. } => JUMBO_CHUNK.id,
                KeyWarning::HotValue { .. } => HOT_VALUE.id,
                KeyWarning::MonotonicInserts { .. } => MONOTONIC_INSERTS.id,
                _ => "other",
            })
            .collect()
    }

    /// A value's documents one byte past 128 MiB make a jumbo chunk; at
    /// 128 MiB exactly they fit.
    #[test]
    fn jumbo_past_the_chunk_and_not_at_it() {
        let at = warnings(
            &figures(1_000, 128 << 10, false),
            1 << 30,
            1024,
            0.0,
            "a",
            &[],
        );
        assert!(!kinds(&at).contains(&JUMBO_CHUNK.id), "{at:?}");
        let past = warnings(
            &figures(1_000, (128 << 10) + 1, false),
            1 << 30,
            1024,
            0.0,
            "a",
            &[],
        );
        assert_eq!(
            past[0],
            KeyWarning::JumboValue {
                frequency: (128 << 10) + 1,
                bytes: ((128 << 10) + 1) * 1024,
                chunk: CHUNK_BYTES
            }
        );
    }

    #[test]
    fn few_distinct_values_below_the_ranges_and_not_at_them() {
        let few = warnings(&figures(99, 1, false), 1_000_000, 100, 0.0, "a", &[]);
        assert_eq!(kinds(&few), vec![FEW_DISTINCT_VALUES.id]);
        let enough = warnings(&figures(100, 1, false), 1_000_000, 100, 0.0, "a", &[]);
        assert!(enough.is_empty(), "{enough:?}");
    }

    #[test]
    fn a_hot_value_past_one_range_and_not_at_it() {
        let hot = warnings(
            &figures(10_000, 10_001, false),
            1_000_000,
            100,
            0.0,
            "a",
            &[],
        );
        assert_eq!(kinds(&hot), vec![HOT_VALUE.id]);
        let even = warnings(
            &figures(10_000, 10_000, false),
            1_000_000,
            100,
            0.0,
            "a",
            &[],
        );
        assert!(even.is_empty(), "{even:?}");
    }

    /// Monotonic counts only with inserts: a key that grows with time on a
    /// collection nobody inserts into sends nothing to the last chunk.
    #[test]
    fn monotonic_only_with_inserts() {
        let hot = warnings(&figures(1_000_000, 1, true), 1_000_000, 100, 5.0, "ts", &[]);
        assert_eq!(kinds(&hot), vec![MONOTONIC_INSERTS.id]);
        let still = warnings(&figures(1_000_000, 1, true), 1_000_000, 100, 0.0, "ts", &[]);
        assert!(still.is_empty(), "{still:?}");
    }

    #[test]
    fn every_rule_has_an_id_and_a_source() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.iter().all(|r| r.source.contains("MongoDB manual")));
    }
}
