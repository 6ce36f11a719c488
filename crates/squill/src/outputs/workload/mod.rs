//! Reporters for `squill workload`: the same `WorkloadReport` as text (for a
//! terminal), Markdown (for a pull request or a wiki), JSON (every figure,
//! raw) and SARIF 2.1.0 (for code-scanning dashboards). Hot shapes come first; literal values appear only when the report
//! was made with `--show-values`.

mod json;
mod markdown;
mod sarif;
mod text;

pub use json::json;
pub use markdown::markdown;
pub use sarif::sarif;
pub use text::text;

use crate::words;
use crate::workload::problem::Reason;
use crate::workload::report::{IndexSuggestion, NamespaceReport, ShapeReport, key_pattern};
use crate::workload::shape_table::KEPT_SHAPES;

/// `2 files, 10 lines, 3 operations in 2 shapes on 1 namespace`, and the
/// bucket writes of time-series collections when there are some.
pub(crate) fn volume(report: &crate::workload::WorkloadReport) -> String {
    let t = &report.totals;
    let mut text = format!(
        "{}, {}, {} in {} on {}",
        words::count(report.files.len() as f64, "file"),
        words::count(t.lines as f64, "line"),
        words::count(t.operations as f64, "operation"),
        words::count(t.shapes as f64, "shape"),
        words::count(t.namespaces as f64, "namespace"),
    );
    if t.bucket_writes > 0 {
        text.push_str(&format!(
            ", and {} of time-series collections",
            words::count(t.bucket_writes as f64, "bucket write")
        ));
    }
    text
}

/// What a namespace did besides its listed shapes, one sentence each: the
/// writes to its buckets (a time-series collection) and the shapes beyond
/// the cap (`shape_table::KEPT_SHAPES`). Every reporter says both.
pub(crate) fn namespace_notes(ns: &NamespaceReport) -> Vec<String> {
    let mut notes = Vec::new();
    let b = &ns.bucket_writes;
    if b.operations > 0 {
        notes.push(format!(
            "bucket writes of this time-series collection (the server's writes to {}.system.buckets.{} as the application inserted): {}, {} in all, the slowest {}",
            ns.database,
            ns.collection,
            words::count(b.operations as f64, "write"),
            duration(b.total_ms),
            duration(b.max_ms)
        ));
    }
    let d = &ns.shapes_not_kept;
    if d.shapes > 0 {
        notes.push(format!(
            "{} not listed: only the {} heaviest shapes of a namespace are kept; the others made {}, {} in all",
            words::count(d.shapes as f64, "more shape"),
            words::int(KEPT_SHAPES as u64),
            words::count(d.operations as f64, "operation"),
            duration(d.total_ms)
        ));
    }
    notes
}

/// A duration: `12 ms`, `3.4 s`, `2.5 min`, `1.2 h`.
pub(crate) fn duration(ms: u64) -> String {
    let ms = ms as f64;
    if ms < 1000.0 {
        format!("{} ms", words::num(ms))
    } else if ms < 60_000.0 {
        format!("{} s", words::num(ms / 1000.0))
    } else if ms < 3_600_000.0 {
        format!("{} min", words::num(ms / 60_000.0))
    } else {
        format!("{} h", words::num(ms / 3_600_000.0))
    }
}

fn optional_ms(ms: Option<u64>) -> String {
    ms.map_or_else(|| "–".to_string(), duration)
}

/// `p50 3 ms, p95 12 ms, max 120 ms`.
pub(crate) fn latency(s: &ShapeReport) -> String {
    format!(
        "p50 {}, p95 {}, max {}",
        optional_ms(s.latency_ms.p50),
        optional_ms(s.latency_ms.p95),
        optional_ms(s.latency_ms.max)
    )
}

/// `12/h` (or `–` when the logs cover no time).
pub(crate) fn per_hour(s: &ShapeReport) -> String {
    s.rate_per_hour
        .map_or_else(|| "–".to_string(), |r| format!("{}/h", words::num(r)))
}

/// `IXSCAN { a: 1 } ×12, COLLSCAN ×3`.
pub(crate) fn plans(s: &ShapeReport) -> String {
    s.plans
        .iter()
        .map(|p| format!("{} ×{}", p.name, words::int(p.count)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Documents and keys examined per document returned; per execution for
/// writes and for reads that returned nothing (or do not say: `distinct`).
pub(crate) fn selectivity(s: &ShapeReport) -> Option<String> {
    if s.keys_examined == 0 && s.docs_examined == 0 && s.returned == 0 {
        return None;
    }
    Some(
        match (s.keys_examined_per_returned, s.docs_examined_per_returned) {
            (Some(k), Some(d)) if !s.shape.kind.is_write() => format!(
                "{} and {} examined per document returned",
                words::count(k, "key"),
                words::count(d, "document")
            ),
            _ => {
                let executions = (s.count + s.getmores).max(1) as f64;
                format!(
                    "{} and {} examined per execution",
                    words::count(s.keys_examined as f64 / executions, "key"),
                    words::count(s.docs_examined as f64 / executions, "document")
                )
            }
        },
    )
}

/// `11000 ×2, other ×1`.
pub(crate) fn errors(s: &ShapeReport) -> String {
    s.errors
        .iter()
        .map(|e| match e.code {
            Some(code) => format!("code {code} ×{}", words::int(e.count)),
            None => format!("other codes ×{}", words::int(e.count)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn reason(r: Reason) -> &'static str {
    match r {
        Reason::NotALogLine => "not a log line (no timestamp, not JSON)",
        Reason::CutShort => "cut short (no closing brace or duration)",
        Reason::Corrupt => "corrupt (the syntax cannot be read)",
        Reason::TruncatedByMongod => {
            "command truncated by mongod (left out: its shape would be wrong)"
        }
        Reason::Redacted => "values redacted before logging",
        Reason::TooLong => "longer than 16 MiB",
        Reason::TruncatedGzip => "gzip stream ends early or is damaged (reading stopped)",
        Reason::ReadError => "read error (reading stopped)",
    }
}

/// `{status: 1, at: -1} on shop.orders, for S1, S4`.
pub(crate) fn index(i: &IndexSuggestion) -> String {
    let keys = key_pattern(&i.keys, i.geo.as_ref());
    format!(
        "{} on {}, for {} ({} operations, {})",
        keys,
        i.namespace,
        i.serves.join(", "),
        words::int(i.count),
        duration(i.total_ms)
    )
}

#[cfg(test)]
mod tests;
