//! The capacity projection of a running deployment (`scan … --horizon`):
//! today's collections as the scan measured them, grown month by month at
//! the rates measured between two dumps or from the logged inserts
//! (`scan::growth`), then checked against the same limits, with the same
//! changes, as a design's projection (`capacity::finish`). Only the months
//! are made here; which limits, their thresholds and the output are
//! shared. Sources and rules: docs/capacity.md.

use super::capacity::{RECORD_ID, deployment_used, finish};
use crate::design::capacity::{ArrayGrowth, Capacity, CapacityMonth, CollectionGrowth};
use crate::model::{DAYS_A_MONTH, Deployment, Horizon};
use crate::scan::growth::{Growth, Rate};
use crate::scan::report::{CollectionReport, FieldReport, ScanReport};
use crate::scan::shard_keys::namespace;
use crate::settings::Settings;

/// The projection of `report`'s collections grown by `growth`.
pub fn project(
    report: &ScanReport,
    growth: &Growth,
    settings: &Settings,
    horizon: Horizon,
    deployment: Deployment,
) -> Capacity {
    let used = deployment_used(deployment);
    let collections: Vec<(&CollectionReport, Option<&Rate>)> = report
        .collections
        .iter()
        .map(|c| (c, growth.of(c)))
        .filter(|(c, rate)| c.documents > 0 || rate.is_some_and(|r| r.documents_per_day > 0.0))
        .collect();
    let mut arrays = Vec::new();
    let months = (0..=horizon.months)
        .map(|m| {
            let days = f64::from(m) * DAYS_A_MONTH;
            let (rows, all): (Vec<CollectionGrowth>, Vec<Vec<ArrayGrowth>>) = collections
                .iter()
                .map(|(c, rate)| row(c, *rate, settings, used.compression, days))
                .unzip();
            arrays.push(all);
            let sum = |f: fn(&CollectionGrowth) -> u64| {
                rows.iter().map(f).fold(0u64, u64::saturating_add)
            };
            CapacityMonth {
                month: m,
                data_bytes: sum(|r| r.data_bytes),
                disk_bytes: sum(|r| r.disk_bytes),
                index_bytes: sum(|r| r.index_bytes),
                working_set_bytes: sum(|r| r.working_set_bytes),
                collections: rows,
            }
        })
        .collect();
    finish(None, settings, horizon, used, months, &arrays)
}

/// One collection `days` from today: its documents grown at `rate`, each
/// the mean size the scan measured; the largest document and the longest
/// array grown as they grew between the dumps; its indexes from their
/// keys' measured sizes. The working set is all of it: a dump cannot tell
/// which documents the workload touches, so this is the bound from above.
fn row(
    c: &CollectionReport,
    rate: Option<&Rate>,
    settings: &Settings,
    compression: f64,
    days: f64,
) -> (CollectionGrowth, Vec<ArrayGrowth>) {
    let grow = |now: f64, per_day: f64| (now + per_day * days).max(0.0);
    // A live scan's sample stands for the whole collection: its count is
    // the server's, its sizes the sample's means.
    let documents = grow(
        crate::scan::growth::documents_today(c) as f64,
        rate.map_or(0.0, |r| r.documents_per_day),
    );
    let mean = if c.documents > 0 {
        c.bytes as f64 / c.documents as f64
    } else {
        0.0
    };
    let data_bytes = (documents * mean).round() as u64;
    let index_bytes = index_bytes(c, documents);
    let arrays: Vec<ArrayGrowth> = c
        .fields
        .iter()
        .filter_map(|f| {
            let a = f.array.as_ref()?;
            // Only the longest array is known to grow (its growth was measured).
            let longest = crate::scan::growth::longest_array(c) == a.lengths.max;
            let per_day = if longest {
                rate.map_or(0.0, |r| r.largest_array_per_day)
            } else {
                0.0
            };
            Some(ArrayGrowth {
                field: f.path.clone(),
                relationship: f.path.clone(),
                items: grow(a.lengths.max as f64, per_day).round() as u64,
                rule_max: array_rule(f, settings),
            })
        })
        .collect();
    let growth = CollectionGrowth {
        collection: namespace(c),
        documents: documents.round() as u64,
        typical_bytes: mean.round() as u64,
        max_bytes: Some(
            grow(
                c.size.max as f64,
                rate.map_or(0.0, |r| r.largest_bytes_per_day),
            )
            .round() as u64,
        ),
        largest_array: arrays.iter().max_by_key(|a| a.items).cloned(),
        data_bytes,
        disk_bytes: (data_bytes as f64 * compression) as u64 + index_bytes,
        index_bytes,
        working_set_bytes: data_bytes.saturating_add(index_bytes),
    };
    (growth, arrays)
}

/// The count an array's rule allows, as advise reads it: an array of ids
/// (ObjectIds) `reference_array_max`, of documents `embed_max`; an array
/// of other values has no rule.
fn array_rule(f: &FieldReport, settings: &Settings) -> Option<u64> {
    let a = f.array.as_ref()?;
    let most = a.element_types.iter().max_by_key(|t| t.count)?;
    match most.ty {
        "objectId" => Some(settings.cardinality.reference_array_max),
        "object" => Some(settings.cardinality.embed_max),
        _ => None,
    }
}

/// Bytes of `c`'s indexes over `documents`: per entry its keys' mean
/// measured bytes and a record id, an entry per document that has the
/// first key (all of them unless the index is sparse or partial), and per
/// element of an array the key passes through (multikey, at the mean
/// length). A dump without index metadata has its `_id` index only.
fn index_bytes(c: &CollectionReport, documents: f64) -> u64 {
    let field = |path: &str| c.fields.iter().find(|f| f.path == path);
    let per = |keys: &[&str], sparse: bool| -> f64 {
        let bytes: f64 = keys
            .iter()
            .map(|k| field(k).map_or(0.0, |f| f.avg_bytes))
            .sum::<f64>()
            + RECORD_ID as f64;
        let elements = keys
            .iter()
            .filter_map(|k| multikey_mean(c, k))
            .fold(1.0f64, f64::max);
        let present = if sparse {
            keys.first()
                .and_then(|k| field(k))
                .map_or(1.0, |f| f.presence)
        } else {
            1.0
        };
        documents * present * elements * bytes
    };
    let total = match &c.indexes {
        Some(indexes) if !indexes.is_empty() => indexes
            .iter()
            .map(|i| {
                let keys: Vec<&str> = i.key.iter().map(|(k, _)| k.as_str()).collect();
                per(&keys, i.sparse || i.partial)
            })
            .sum(),
        _ => per(&["_id"], false),
    };
    total.round() as u64
}

/// The mean length of the array `path` lies in (`tags`, or `items` for
/// `items.sku`), if it lies in one.
fn multikey_mean(c: &CollectionReport, path: &str) -> Option<f64> {
    c.fields
        .iter()
        .filter(|f| path == f.path || path.starts_with(&format!("{}.", f.path)))
        .filter_map(|f| f.array.as_ref().map(|a| a.lengths.mean))
        .reduce(f64::max)
}
