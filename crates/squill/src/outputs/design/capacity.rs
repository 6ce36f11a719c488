//! A capacity projection in words and table cells, for the text and the
//! Markdown reports alike: the deployment, the first limit and when, what
//! to change, and the month-by-month rows. A sentence is built from its
//! parts for where it lands (`Medium`): a name from data becomes a code span
//! in Markdown and stays visible text in a terminal, so a backtick, a pipe
//! or a line feed in a name is shown, never obeyed. Table cells come back
//! as they are; each report escapes them.

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

pub(crate) use super::medium::Medium;

/// When: "today" for month 0, else "in month N".
fn when(month: u32) -> String {
    if month == 0 {
        "already today".into()
    } else {
        format!("in month {month}")
    }
}

/// One limit reached, as a sentence for `into`.
pub(crate) fn limit(l: &LimitReached, into: Medium) -> String {
    let place = match (&l.collection, &l.field) {
        (Some(c), Some(f)) => into.name(&format!("{c}.{f}")),
        (Some(c), None) => into.name(c),
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

/// What to change, as a sentence for `into`.
pub(crate) fn remedy(r: &Remedy, into: Medium) -> String {
    match r {
        Remedy::Layout {
            relationship,
            limit,
            from,
            to,
            score_delta,
        } => format!(
            "for {}: lay {} out as {} instead of {} (advise prices the workload {} per second with it)",
            limit_name(*limit),
            into.name(relationship),
            into.prose(&describe::layout(to)),
            into.prose(&describe::layout(from)),
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
            into.prose(&words::plural(entity)),
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

/// The limits left unchecked, in words for `into`.
pub(crate) fn unchecked(c: &Capacity, into: Medium) -> Option<String> {
    let names: Vec<String> = c
        .unchecked
        .iter()
        .filter_map(|k| match k {
            LimitKind::WorkingSet => Some(format!(
                "the working set (no RAM given: {})",
                into.name("--ram")
            )),
            LimitKind::DiskFull => {
                Some(format!("the disk (no disk given: {})", into.name("--disk")))
            }
            _ => None,
        })
        .collect();
    (!names.is_empty()).then(|| format!("not checked: {}", names.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::Layout;

    /// A name with a backtick, a pipe, a line feed and an escape sequence.
    const HOSTILE: &str = "a`b|c\nd\u{1b}[31m";

    fn hit() -> LimitReached {
        LimitReached {
            limit: LimitKind::DocumentSize,
            month: 3,
            collection: Some(HOSTILE.into()),
            field: Some("f".into()),
            value: 2e7,
            threshold: 16_777_216.0,
        }
    }

    // Issue 42: the names were wrapped in literal backticks before the
    // Markdown escaping, which showed them as \`name\`.
    #[test]
    fn markdown_names_are_code_spans_that_hold_their_characters() {
        let sentence = limit(&hit(), Medium::Markdown);
        let span = words::markdown::code(&format!("{HOSTILE}.f"));
        assert!(sentence.contains(&span), "{sentence}");
        assert!(!sentence.contains("\\`"), "{sentence}");
        assert!(!sentence.contains('\n') && !sentence.contains('\u{1b}'));
        let change = remedy(
            &Remedy::Layout {
                relationship: HOSTILE.into(),
                limit: LimitKind::DocumentSize,
                from: Layout::Embed,
                to: Layout::ParentReference,
                score_delta: -1.0,
            },
            Medium::Markdown,
        );
        assert!(
            change.starts_with(&format!(
                "for the 16 MiB document limit: lay {} out as",
                words::markdown::code(HOSTILE)
            )),
            "{change}"
        );
    }

    #[test]
    fn text_names_are_visible() {
        let sentence = limit(&hit(), Medium::Text);
        assert!(
            sentence.starts_with("the largest document of `a`b|c\\nd\\u{1b}[31m.f` reaches"),
            "{sentence}"
        );
        assert!(!sentence.contains('\n') && !sentence.contains('\u{1b}'));
    }
}
