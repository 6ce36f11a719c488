//! `keyCharacteristics`: the cardinality, frequency and monotonicity of one
//! candidate key over every document of the dump, as `analyzeShardKey`
//! defines them (docs/shard-keys.md cites each definition).

use super::extract::Columns;
use super::key::ShardKey;
use super::report::{KeyCharacteristics, Monotonicity, MonotonicityType, MostCommonValue};
use std::cmp::Ordering;

/// `analyzeShardKeyNumMostCommonValues`' default.
pub const MOST_COMMON_VALUES: usize = 5;
/// `analyzeShardKeyMonotonicityCorrelationCoefficientThreshold`'s default.
pub const MONOTONICITY_THRESHOLD: f64 = 0.7;
/// The server rounds the metrics it returns to this many decimal places
/// (`kMaxNumDecimalPlaces`).
pub const DECIMAL_PLACES: i32 = 10;

pub fn round(value: f64) -> f64 {
    let scale = 10f64.powi(DECIMAL_PLACES);
    (value * scale).round() / scale
}

/// The metrics of `key`, whose fields are `columns`' columns `fields`.
/// `None` when the collection has no document (the server refuses an
/// empty collection).
pub fn measure(
    columns: &Columns,
    fields: &[usize],
    key: &ShardKey,
    is_unique: bool,
    show_values: bool,
) -> Option<KeyCharacteristics> {
    let n = columns.documents as usize;
    if n == 0
        || fields
            .iter()
            .any(|&f| columns.values.get(f).is_none_or(|v| v.len() != n))
    {
        return None;
    }
    let tuple = |i: u32, f: usize| &columns.values[f][i as usize];
    let compare = |a: u32, b: u32| -> Ordering {
        fields
            .iter()
            .map(|&f| tuple(a, f).cmp(tuple(b, f)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    // Index order: by key, then by record (an index entry's record id
    // breaks ties among equal keys).
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| compare(a, b).then(a.cmp(&b)));

    // Runs of equal keys: the distinct values and their frequencies.
    let mut runs: Vec<(u32, u64)> = Vec::new();
    for &i in &order {
        match runs.last_mut() {
            Some((first, count)) if compare(*first, i).is_eq() => *count += 1,
            _ => runs.push((i, 1)),
        }
    }
    let mut common = runs.clone();
    // Most frequent first; among equal frequencies, in key order (the
    // runs are in key order and the sort is stable).
    common.sort_by_key(|r| std::cmp::Reverse(r.1));
    common.truncate(MOST_COMMON_VALUES);
    let most_common_values = common
        .iter()
        .map(|&(i, frequency)| MostCommonValue {
            value: show_values.then(|| {
                let mut doc = serde_json::Map::new();
                for (field, &f) in key.fields.iter().zip(fields) {
                    doc.insert(field.path.clone(), tuple(i, f).to_json());
                }
                serde_json::Value::Object(doc)
            }),
            frequency,
        })
        .collect();

    Some(KeyCharacteristics {
        num_docs_total: columns.documents,
        num_distinct_values: runs.len() as u64,
        is_unique,
        avg_doc_size_bytes: columns.bytes / columns.documents,
        most_common_values,
        monotonicity: monotonicity(key, &order, runs.len()),
    })
}

/// The correlation between the records' order in the key's index and
/// their insertion order (here: their order in the dump). A single hashed
/// field is never monotonic; a compound key with a hashed field is ordered
/// by the server's hash, which squill does not compute: unknown.
fn monotonicity(key: &ShardKey, order: &[u32], distinct: usize) -> Monotonicity {
    if key.is_hashed() {
        return if key.fields.len() == 1 {
            hashed_monotonicity()
        } else {
            Monotonicity {
                kind: MonotonicityType::Unknown,
                record_id_correlation_coefficient: None,
            }
        };
    }
    if distinct <= 1 {
        return Monotonicity {
            kind: MonotonicityType::NotMonotonic,
            record_id_correlation_coefficient: Some(0.0),
        };
    }
    let coefficient = round(correlation(order));
    Monotonicity {
        kind: if coefficient.abs() >= MONOTONICITY_THRESHOLD {
            MonotonicityType::Monotonic
        } else {
            MonotonicityType::NotMonotonic
        },
        record_id_correlation_coefficient: Some(coefficient),
    }
}

/// A single hashed field's: never monotonic, coefficient 0, as the server
/// reports it without scanning.
pub fn hashed_monotonicity() -> Monotonicity {
    Monotonicity {
        kind: MonotonicityType::NotMonotonic,
        record_id_correlation_coefficient: Some(0.0),
    }
}

/// Pearson's coefficient between positions 1..n and `order` (a permutation
/// of 0..n, each plus one). Both are permutations of 1..n, so they share
/// mean (n+1)/2 and variance; the sums are exact in 128 bits.
fn correlation(order: &[u32]) -> f64 {
    let n = order.len() as i128;
    if n < 2 {
        return 0.0;
    }
    let sum_xy: i128 = order
        .iter()
        .enumerate()
        .map(|(x, &y)| (x as i128 + 1) * (i128::from(y) + 1))
        .sum();
    // Σxy − n·mean² over n·var, times 4 and 12 to stay in integers:
    // cov·4n = 4Σxy − n(n+1)²; var·12n = n²(n²−1)... both over n.
    let cov4 = 4 * sum_xy - n * (n + 1) * (n + 1);
    let var12 = n * (n * n - 1);
    (cov4 as f64 * 3.0) / var12 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_of_orders() {
        assert_eq!(correlation(&[0, 1, 2, 3]), 1.0);
        assert_eq!(correlation(&[3, 2, 1, 0]), -1.0);
        // Spearman's worked example: d² = 2 over n = 3 → 1 − 6·2/(3·8) = 0.5.
        assert_eq!(correlation(&[0, 2, 1]), 0.5);
    }
}
