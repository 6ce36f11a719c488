//! Children per parent for the collections, from samples. The typical value
//! is children ÷ parents having any, both estimated for the collections;
//! the distribution comes from the best method the data allows:
//! - `parent-sample-counts`: exact child counts (`countDocuments` on the
//!   reference, served by its index) of a random sample of parents;
//! - `children-whole`: every child was read, so each parent's are counted;
//! - `child-sample`: no index to count with, so each parent's occurrences in
//!   the child sample; a sample of 5 % of the orders misses most parents of
//!   few orders (zero-inflation), so the parents having any are estimated
//!   with Chao1 from those seen once and twice, and no percentile is claimed;
//! - `array-lengths`: a child-reference array is whole in each sampled parent.

use super::super::estimate::{EstimateNote, FanOutMethod, Percentile, RelationshipEstimate};
use super::super::histogram::Distribution;
use super::super::report::CollectionReport;
use super::stats::{chao1, percentile};
use super::{SampledCollection, Spend};
use crate::inputs::sampled::{Lookup, RefValue};
use crate::model::{Cardinality, Count, RelationshipKind};

/// The percentiles a sampled relationship states when its sample supports them.
const PERCENTILES: [f64; 3] = [0.5, 0.95, 0.99];

/// Parents past which zeros are not listed one by one for percentiles.
const MAX_LISTED: u64 = 1_000_000;

/// A confirmed reference: the referring side and the referred.
pub(super) struct Side<'a> {
    pub from: &'a SampledCollection<'a>,
    pub from_report: &'a CollectionReport,
    pub to: &'a SampledCollection<'a>,
    pub to_report: &'a CollectionReport,
    pub field: &'a str,
    /// The sampled references that match, one per occurrence.
    pub matched: &'a [&'a RefValue],
    /// Their share of the sampled references.
    pub share: f64,
    pub array_lengths: &'a [u64],
}

impl Side<'_> {
    fn count_of(c: &CollectionReport) -> u64 {
        c.sampled_from.unwrap_or(c.documents)
    }

    /// The share of the referring documents that hold the field.
    fn presence(&self) -> f64 {
        self.from_report
            .fields
            .iter()
            .find(|f| f.path == self.field)
            .map_or(0.0, |f| {
                f.documents as f64 / self.from_report.documents.max(1) as f64
            })
    }

    /// Whether an index of the referring collection starts with the field.
    fn indexed(&self) -> bool {
        self.from_report.indexes.as_ref().is_some_and(|ix| {
            ix.iter()
                .any(|i| i.key.first().is_some_and(|(k, _)| k == self.field))
        })
    }
}

/// What a method gives.
pub(super) struct Fan {
    /// Every field but the match's (`dangling`, `match_method`).
    pub estimate: RelationshipEstimate,
    pub cardinality: Cardinality,
    pub distribution: Distribution,
    pub kind: RelationshipKind,
    pub max_parents_per_child: u64,
}

/// Each matched value's occurrences, sorted ascending.
fn occurrences(matched: &[&RefValue]) -> Vec<u64> {
    let mut v: Vec<&RefValue> = matched.to_vec();
    v.sort();
    let mut runs: Vec<u64> = v.chunk_by(|a, b| a == b).map(|r| r.len() as u64).collect();
    runs.sort_unstable();
    runs
}

/// A parent reference (each child holds its parent's `_id`).
pub(super) fn of_parent_reference(
    side: &Side<'_>,
    server: &mut dyn Lookup,
    spend: &mut Spend,
) -> Fan {
    let children_total = Side::count_of(side.from_report) as f64;
    let parents_total = Side::count_of(side.to_report);
    let children = (children_total * side.presence() * side.share).round();
    let kept_share = side.from.kept.documents as f64 / children_total.max(1.0);
    let runs = occurrences(side.matched);
    let mut notes = Vec::new();
    if kept_share >= 1.0 {
        // Every child read: each seen parent's count is exact.
        let seen = runs.len() as u64;
        let zeros = parents_total.saturating_sub(seen);
        return summarize(
            FanOutMethod::ChildrenWhole,
            &runs,
            zeros,
            children,
            seen,
            parents_total,
            notes,
        );
    }
    let ids = side.to.kept.ids();
    let take = ids.len().min(spend.parents_per_relationship);
    if side.indexed() && take > 0 {
        if spend.take(take as u64) {
            let counted: Result<Vec<u64>, String> = ids[..take]
                .iter()
                .map(|id| server.count(side.from.database, side.from.collection, side.field, id))
                .collect();
            if let Ok(mut counts) = counted {
                counts.sort_unstable();
                let with_any = counts.iter().filter(|&&c| c > 0).count() as u64;
                let zeros = take as u64 - with_any;
                let parents_with_any =
                    (parents_total as f64 * with_any as f64 / take as f64).round() as u64;
                let nonzero: Vec<u64> = counts.into_iter().filter(|&c| c > 0).collect();
                return summarize(
                    FanOutMethod::ParentSampleCounts,
                    &nonzero,
                    zeros,
                    children,
                    parents_with_any,
                    take as u64,
                    notes,
                );
            }
        }
        notes.push(EstimateNote::LimitReached);
    } else if !side.indexed() {
        notes.push(EstimateNote::NoIndexOnReference);
    }
    // The child sample: each parent's children thinned to `kept_share`.
    let seen = runs.len() as u64;
    let once = runs.iter().filter(|&&r| r == 1).count() as u64;
    let twice = runs.iter().filter(|&&r| r == 2).count() as u64;
    let parents_with_any = (chao1(seen, once, twice).round() as u64)
        .clamp(seen.max(1), parents_total.max(seen).max(1));
    let largest = runs.last().copied().unwrap_or(0);
    notes.push(EstimateNote::ChildSampleHasNoPercentiles);
    let typical = children / parents_with_any as f64;
    // Scaling the largest count seen up by the sample's share overstates it
    // wildly (5 of a parent's 10 children in a 5 % sample reads as 100):
    // the count seen is kept, a floor.
    let largest_seen = largest;
    let estimate = RelationshipEstimate {
        confidence: super::super::estimate::CONFIDENCE,
        match_method: super::super::estimate::MatchMethod::ServerLookup,
        dangling: None,
        fan_out_method: FanOutMethod::ChildSample,
        children: children as u64,
        parents_with_any,
        typical: round1(typical),
        parents_measured: seen,
        percentiles: Vec::new(),
        largest_seen,
        notes,
    };
    let t = typical.round() as u64;
    Fan {
        cardinality: Cardinality {
            mean: None,
            min: 0,
            typical: t,
            max: Count::Finite(largest_seen.max(t)),
            growth: None,
            p95: None,
            p99: None,
        },
        distribution: Distribution {
            count: seen,
            min: 0,
            mean: round1(children / parents_total.max(1) as f64),
            p50: t,
            p95: largest_seen.max(t),
            max: largest_seen.max(t),
        },
        kind: kind_of(largest_seen),
        max_parents_per_child: 1,
        estimate,
    }
}

/// A child-reference array, measured whole in each sampled parent.
pub(super) fn of_array(side: &Side<'_>) -> Fan {
    let parents_total = Side::count_of(side.from_report) as f64;
    let kept = side.from.kept.documents.max(1);
    let mut lengths: Vec<u64> = side.array_lengths.to_vec();
    lengths.sort_unstable();
    let with_any = lengths.len() as u64;
    let zeros = kept.saturating_sub(with_any);
    // Entries per sampled parent that match, scaled to the collection.
    let entries: u64 = lengths.iter().sum::<u64>().max(side.matched.len() as u64);
    let children = (parents_total * entries as f64 / kept as f64 * side.share).round();
    let parents_with_any = (parents_total * with_any as f64 / kept as f64).round() as u64;
    let mut fan = summarize(
        FanOutMethod::ArrayLengths,
        &lengths,
        zeros,
        children,
        parents_with_any,
        kept,
        Vec::new(),
    );
    let most_shared = occurrences(side.matched).last().copied().unwrap_or(1);
    fan.max_parents_per_child = most_shared;
    fan.kind = if most_shared > 1 {
        RelationshipKind::ManyToMany
    } else {
        RelationshipKind::OneToMany
    };
    fan
}

/// The figures of a method that measured each of `measured` parents:
/// `nonzero` their counts above zero (sorted), `zeros` those with none.
fn summarize(
    method: FanOutMethod,
    nonzero: &[u64],
    zeros: u64,
    children: f64,
    parents_with_any: u64,
    measured: u64,
    mut notes: Vec<EstimateNote>,
) -> Fan {
    let all: Vec<u64> = if zeros <= MAX_LISTED {
        std::iter::repeat_n(0, zeros as usize)
            .chain(nonzero.iter().copied())
            .collect()
    } else {
        nonzero.to_vec()
    };
    let mut percentiles: Vec<Percentile> = Vec::new();
    for p in PERCENTILES {
        match percentile(&all, p) {
            Some(q) => percentiles.push(q),
            None => notes.push(EstimateNote::PercentileUnsupported {
                p,
                parents: all.len() as u64,
            }),
        }
    }
    let typical = if parents_with_any == 0 {
        0.0
    } else {
        children / parents_with_any as f64
    };
    let largest = nonzero.last().copied().unwrap_or(0);
    let t = typical.round() as u64;
    let p95 = percentiles.iter().find(|q| q.p == 0.95).map(|q| q.value);
    let p50 = percentiles
        .iter()
        .find(|q| q.p == 0.5)
        .map_or(t, |q| q.value);
    let min = if zeros > 0 {
        0
    } else {
        nonzero.first().copied().unwrap_or(0)
    };
    let max = largest.max(t);
    Fan {
        cardinality: Cardinality {
            mean: None,
            min: min.min(t),
            typical: t,
            max: Count::Finite(max),
            growth: None,
            p95: p95.map(|v| v.clamp(t, max)),
            p99: None,
        },
        distribution: Distribution {
            count: measured,
            min,
            mean: round1(all.iter().sum::<u64>() as f64 / all.len().max(1) as f64),
            p50,
            p95: p95.unwrap_or(max),
            max,
        },
        kind: kind_of(largest),
        max_parents_per_child: 1,
        estimate: RelationshipEstimate {
            confidence: super::super::estimate::CONFIDENCE,
            match_method: super::super::estimate::MatchMethod::ServerLookup,
            dangling: None,
            fan_out_method: method,
            children: children as u64,
            parents_with_any,
            typical: round1(typical),
            parents_measured: measured,
            percentiles,
            largest_seen: largest,
            notes,
        },
    }
}

fn kind_of(largest: u64) -> RelationshipKind {
    if largest <= 1 {
        RelationshipKind::OneToOne
    } else {
        RelationshipKind::OneToMany
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}
