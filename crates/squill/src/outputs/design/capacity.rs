//! A capacity projection in words and table cells, for the text and the
//! Markdown reports alike: the deployment, the first limit and when, what
//! to change, and the month-by-month rows. Names from data come back as
//! they are; each report escapes them for where they land.

use super::describe;
use crate::design::capacity::{Capacity, CapacityMonth, LimitKind, LimitReached, Remedy};
use crate::words;

/// The deployment the projection checked against, in one line.
pub(crate) fn deployment(c: &Capacity) -> String {
    let d = &c.deployment;
    let mut parts = vec![words::count(f64::from(d.shards), "shard")];
    match (d.ram_bytes, d.cache_bytes) {
        (Some(ram), Some(cache)) => parts.push(format!(
            "{} RAM (WiredTiger cache {})",
            words::bytes(ram as f64),
            words::bytes(cache as f64)
        )),
        _ => parts.push("RAM not given".into()),
    }
    parts.push(match d.disk_bytes {
        Some(disk) => format!("{} disk", words::bytes(disk as f64)),
        None => "disk not given".into(),
    });
    parts.push(if d.compression_stated {
        format!("compression {}", words::num(d.compression))
    } else {
        format!(
            "compression {} (not given: none assumed)",
            words::num(d.compression)
        )
    });
    format!(
        "{} ahead on {}",
        words::count(f64::from(c.horizon_months), "month"),
        parts.join(", ")
    )
}

/// When: "today" for month 0, else "in month N".
fn when(month: u32) -> String {
    if month == 0 {
        "already today".into()
    } else {
        format!("in month {month}")
    }
}

/// One limit reached, as a sentence.
pub(crate) fn limit(l: &LimitReached) -> String {
    let place = match (&l.collection, &l.field) {
        (Some(c), Some(f)) => format!("`{c}.{f}`"),
        (Some(c), None) => format!("`{c}`"),
        _ => String::new(),
    };
    let what = match l.limit {
        LimitKind::DocumentSize => format!(
            "the largest document of {place} reaches {} (limit {})",
            words::bytes(l.value),
            words::bytes(l.threshold)
        ),
        LimitKind::ArrayRule => format!(
            "the array {place} holds {} at its largest owner (its rule allows {})",
            words::num(l.value),
            words::num(l.threshold)
        ),
        LimitKind::WorkingSet => format!(
            "the working set reaches {} per shard, past the WiredTiger cache of {}",
            words::bytes(l.value),
            words::bytes(l.threshold)
        ),
        LimitKind::DiskFull => format!(
            "data and indexes reach {} per shard, past the disk of {}",
            words::bytes(l.value),
            words::bytes(l.threshold)
        ),
        LimitKind::ShardingSize => format!(
            "{place} holds {} TB of data per shard, past the {} TB at which a replica set is usually sharded",
            words::num((l.value / 1e10).round() / 100.0),
            words::num(l.threshold / 1e12)
        ),
    };
    format!("{what}: {}", when(l.month))
}

/// A limit's short name, for a remedy.
fn limit_name(k: LimitKind) -> &'static str {
    match k {
        LimitKind::DocumentSize => "the 16 MiB document limit",
        LimitKind::ArrayRule => "the array's rule",
        LimitKind::WorkingSet => "the cache",
        LimitKind::DiskFull => "the disk",
        LimitKind::ShardingSize => "one replica set's data size",
    }
}

/// What to change, as a sentence.
pub(crate) fn remedy(r: &Remedy) -> String {
    match r {
        Remedy::Layout {
            relationship,
            limit,
            from,
            to,
            score_delta,
        } => format!(
            "for {}: lay `{relationship}` out as {} instead of {} (advise prices the workload {} per second with it)",
            limit_name(*limit),
            describe::layout(to),
            describe::layout(from),
            if *score_delta <= 0.0 {
                format!("{} cheaper", words::num(-score_delta))
            } else {
                format!("{} dearer", words::num(*score_delta))
            }
        ),
        Remedy::Archive {
            entity,
            limit,
            days,
        } => format!(
            "for {}: move the {} older than {} days to an archive collection (their reads keep to recent ones)",
            limit_name(*limit),
            words::plural(entity),
            words::num(*days)
        ),
        Remedy::Shard { limit, shards } => format!(
            "for {}: shard; {} keep each shard within it at the horizon",
            limit_name(*limit),
            words::count(f64::from(*shards), "shard")
        ),
    }
}

/// The table's header.
pub(crate) const COLUMNS: [&str; 10] = [
    "month",
    "collection",
    "documents",
    "typical",
    "largest",
    "largest array",
    "data",
    "on disk",
    "indexes",
    "working set",
];

/// One row per collection per month (a collection name as it is: the
/// report escapes it), then the month's total.
pub(crate) fn rows(m: &CapacityMonth) -> Vec<[String; 10]> {
    let b = |n: u64| words::bytes(n as f64);
    let mut out: Vec<[String; 10]> = m
        .collections
        .iter()
        .map(|c| {
            [
                m.month.to_string(),
                c.collection.clone(),
                words::num(c.documents as f64),
                b(c.typical_bytes),
                c.max_bytes.map_or_else(|| "unbounded".into(), b),
                c.largest_array.as_ref().map_or_else(String::new, |a| {
                    format!("{} × {}", a.field, words::num(a.items as f64))
                }),
                b(c.data_bytes),
                b(c.disk_bytes),
                b(c.index_bytes),
                b(c.working_set_bytes),
            ]
        })
        .collect();
    out.push([
        m.month.to_string(),
        "(all)".into(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        b(m.data_bytes),
        b(m.disk_bytes),
        b(m.index_bytes),
        b(m.working_set_bytes),
    ]);
    out
}

/// The limits left unchecked, in words.
pub(crate) fn unchecked(c: &Capacity) -> Option<String> {
    let names: Vec<&str> = c
        .unchecked
        .iter()
        .map(|k| match k {
            LimitKind::WorkingSet => "the working set (no RAM given: `--ram`)",
            LimitKind::DiskFull => "the disk (no disk given: `--disk`)",
            _ => "",
        })
        .filter(|s| !s.is_empty())
        .collect();
    (!names.is_empty()).then(|| format!("not checked: {}", names.join("; ")))
}
