//! `keyCharacteristics`: the cardinality, frequency and monotonicity of one
//! candidate key over every document of the dump, as `analyzeShardKey`
//! defines them (docs/shard-keys.md cites each definition).

use super::extract::Columns;
use super::key::ShardKey;
use super::report::{KeyCharacteristics, Monotonicity, MonotonicityType, MostCommonValue};
use std::borrow::Cow;

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
        || fields.is_empty()
        || fields
            .iter()
            .any(|&f| columns.columns.get(f).is_none_or(|c| c.ranks.len() != n))
    {
        return None;
    }
    let (ranks, distinct) = key_ranks(columns, fields);
    let counts = Counts::of(&ranks, distinct);
    let top = most_common(&counts);
    // The first document of each most common key, where its value is read
    // for --show-values.
    let first = if show_values {
        first_records(&ranks, &top)
    } else {
        Vec::new()
    };
    let most_common_values = top
        .iter()
        .enumerate()
        .map(|(t, &r)| MostCommonValue {
            value: show_values.then(|| {
                let i = first[t];
                let mut doc = serde_json::Map::new();
                for (field, &f) in key.fields.iter().zip(fields) {
                    let value = columns.columns[f]
                        .value(i)
                        .map_or(serde_json::Value::Null, |v| v.to_json());
                    doc.insert(field.path.clone(), value);
                }
                serde_json::Value::Object(doc)
            }),
            frequency: counts.get(r),
        })
        .collect();

    Some(KeyCharacteristics {
        num_docs_total: columns.documents,
        num_distinct_values: distinct as u64,
        is_unique,
        avg_doc_size_bytes: columns.bytes / columns.documents,
        most_common_values,
        monotonicity: monotonicity(key, &ranks, counts),
    })
}

/// Each document's rank among the key's distinct values (compared field
/// by field, as the index orders them), and how many there are. One
/// field's are its column's; a compound's are ranked again from the
/// pairs of the fields' ranks.
fn key_ranks<'c>(columns: &'c Columns, fields: &[usize]) -> (Cow<'c, [u32]>, usize) {
    let first = &columns.columns[fields[0]];
    let mut ranks: Cow<'c, [u32]> = Cow::Borrowed(&first.ranks);
    let mut distinct = first.distinct();
    for &f in &fields[1..] {
        let next = &columns.columns[f];
        let width = next.distinct() as u64;
        let pairs: Vec<u64> = ranks
            .iter()
            .zip(&next.ranks)
            .map(|(&a, &b)| u64::from(a) * width + u64::from(b))
            .collect();
        let mut sorted = pairs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        distinct = sorted.len();
        ranks = Cow::Owned(
            pairs
                .iter()
                .map(|p| sorted.binary_search(p).unwrap_or_else(|at| at) as u32)
                .collect(),
        );
    }
    (ranks, distinct)
}

/// How many documents each distinct key has. When there are as many keys
/// as documents (a unique key, an `_id`) each has one, and no table is
/// kept: it would cost 8 bytes a document while the key is measured.
enum Counts {
    /// Every one of this many keys has one document.
    Ones(usize),
    /// Per key (by rank), its documents.
    Counted(Vec<u64>),
}

impl Counts {
    fn of(ranks: &[u32], distinct: usize) -> Counts {
        if distinct == ranks.len() {
            return Counts::Ones(distinct);
        }
        let mut counts = vec![0u64; distinct];
        for &r in ranks {
            counts[r as usize] += 1;
        }
        Counts::Counted(counts)
    }

    fn len(&self) -> usize {
        match self {
            Counts::Ones(n) => *n,
            Counts::Counted(c) => c.len(),
        }
    }

    fn get(&self, rank: usize) -> u64 {
        match self {
            Counts::Ones(_) => 1,
            Counts::Counted(c) => c[rank],
        }
    }
}

/// The `MOST_COMMON_VALUES` ranks with the most documents: most first,
/// among equal counts in key order (the lower rank first).
fn most_common(counts: &Counts) -> Vec<usize> {
    let counts = match counts {
        // All equal: the lowest ranks.
        Counts::Ones(n) => return (0..MOST_COMMON_VALUES.min(*n)).collect(),
        Counts::Counted(c) => c,
    };
    let mut top: Vec<usize> = Vec::with_capacity(MOST_COMMON_VALUES + 1);
    for (r, &c) in counts.iter().enumerate() {
        if top.len() == MOST_COMMON_VALUES && counts[top[MOST_COMMON_VALUES - 1]] >= c {
            continue;
        }
        let at = top.partition_point(|&t| counts[t] >= c);
        top.insert(at, r);
        top.truncate(MOST_COMMON_VALUES);
    }
    top
}

/// The first record of each rank of `top`, in `top`'s order.
fn first_records(ranks: &[u32], top: &[usize]) -> Vec<usize> {
    let mut first = vec![usize::MAX; top.len()];
    let mut left = top.len();
    for (i, &r) in ranks.iter().enumerate() {
        if left == 0 {
            break;
        }
        if let Some(t) = top.iter().position(|&t| t == r as usize)
            && first[t] == usize::MAX
        {
            first[t] = i;
            left -= 1;
        }
    }
    first
}

/// The correlation between the records' order in the key's index and
/// their insertion order (here: their order in the dump). A single hashed
/// field is never monotonic; a compound key with a hashed field is ordered
/// by the server's hash, which squill does not compute: unknown.
fn monotonicity(key: &ShardKey, ranks: &[u32], counts: Counts) -> Monotonicity {
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
    if counts.len() <= 1 {
        return Monotonicity {
            kind: MonotonicityType::NotMonotonic,
            record_id_correlation_coefficient: Some(0.0),
        };
    }
    let coefficient = round(correlation(ranks, counts));
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

/// Pearson's coefficient between each record's position in the index
/// (by key, then by record, as an index entry's record id breaks ties)
/// and its position in the dump, both counted from 1. `ranks` are the
/// records' keys, `counts` how many records each key has: a counting sort
/// gives each record its index position without sorting. Both positions
/// are permutations of 1..n, so they share mean (n+1)/2 and variance; the
/// sums are exact in 128 bits.
fn correlation(ranks: &[u32], counts: Counts) -> f64 {
    let n = ranks.len() as i128;
    if n < 2 {
        return 0.0;
    }
    let mut sum_xy: i128 = 0;
    match counts {
        // One record a key: its index position is its key's rank.
        Counts::Ones(_) => {
            for (record, &r) in ranks.iter().enumerate() {
                sum_xy += (i128::from(r) + 1) * (record as i128 + 1);
            }
        }
        Counts::Counted(mut counts) => {
            // Each key's first position in the index.
            let mut next = 0u64;
            for c in &mut counts {
                let here = *c;
                *c = next;
                next += here;
            }
            for (record, &r) in ranks.iter().enumerate() {
                let position = &mut counts[r as usize];
                sum_xy += (i128::from(*position) + 1) * (record as i128 + 1);
                *position += 1;
            }
        }
    }
    // Σxy − n·mean² over n·var, times 4 and 12 to stay in integers:
    // cov·4n = 4Σxy − n(n+1)²; var·12n = n²(n²−1)... both over n.
    let cov4 = 4 * sum_xy - n * (n + 1) * (n + 1);
    let var12 = n * (n * n - 1);
    (cov4 as f64 * 3.0) / var12 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(ranks: &[u32]) -> Counts {
        let mut c = vec![0; ranks.iter().max().map_or(0, |&m| m as usize + 1)];
        for &r in ranks {
            c[r as usize] += 1;
        }
        Counts::Counted(c)
    }

    #[test]
    fn correlation_of_orders() {
        let of = |r: &[u32]| correlation(r, counts(r));
        assert_eq!(of(&[0, 1, 2, 3]), 1.0);
        assert_eq!(of(&[3, 2, 1, 0]), -1.0);
        // Spearman's worked example: d² = 2 over n = 3 → 1 − 6·2/(3·8) = 0.5.
        assert_eq!(of(&[0, 2, 1]), 0.5);
        // Ties go in record order: keys [1, 0, 1] index as records 2, 1, 3
        // → positions (2, 1, 3) against (1, 2, 3): Σxy = 13, r = 0.5.
        assert_eq!(of(&[1, 0, 1]), 0.5);
    }

    #[test]
    fn the_most_common_are_the_largest_counts_ties_in_key_order() {
        let of = |c: &[u64]| most_common(&Counts::Counted(c.to_vec()));
        assert_eq!(of(&[1, 3, 3, 0, 2, 5, 1, 2]), [5, 1, 2, 4, 7]);
        assert_eq!(of(&[2, 2]), [0, 1]);
    }

    /// A key with one document per value is measured without counting:
    /// the same most common values, first records and correlation as
    /// counting gives, on permutations in several orders.
    #[test]
    fn a_key_of_one_document_each_measures_as_counted() {
        for n in [1usize, 2, 3, 5, 6, 40] {
            let orders: Vec<Vec<u32>> = vec![
                (0..n as u32).collect(),
                (0..n as u32).rev().collect(),
                (0..n).map(|i| ((i * 7 + 3) % n) as u32).collect(),
            ];
            for ranks in orders {
                let mut sorted = ranks.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() != n {
                    continue;
                }
                let counted = counts(&ranks);
                let ones = Counts::of(&ranks, n);
                assert!(matches!(ones, Counts::Ones(_)));
                let top = most_common(&ones);
                assert_eq!(top, most_common(&counted), "{ranks:?}");
                assert_eq!(
                    first_records(&ranks, &top),
                    top.iter()
                        .map(|&t| ranks.iter().position(|&r| r as usize == t).unwrap())
                        .collect::<Vec<_>>()
                );
                assert_eq!(
                    correlation(&ranks, ones).to_bits(),
                    correlation(&ranks, counted).to_bits(),
                    "{ranks:?}"
                );
            }
        }
    }
}
