//! The text report: totals and span, then per namespace its shapes, hottest
//! first, then findings, suggested indexes and the lines that could not be read.

use super::{
    duration, errors, index, latency, namespace_notes, per_hour, plans, reason, selectivity,
};
use crate::outputs::scan::{evidence_value, location_text};
use crate::words::{self, visible as v};
use crate::workload::WorkloadReport;
use std::fmt::Write as _;

/// The report for a terminal. Namespaces, shapes (their field names),
/// plans, examples and the sentences made around them go through
/// `words::visible` (`v`); a last pass escapes any control character a
/// name still brought.
pub fn text(report: &WorkloadReport) -> String {
    let mut out = String::new();
    let t = &report.totals;
    let _ = writeln!(out, "squill workload: {}", super::volume(report));
    if let Some(span) = &report.span {
        let _ = writeln!(
            out,
            "span: {} to {} ({}){}",
            span.first,
            span.last,
            duration((span.seconds * 1000.0) as u64),
            if span.year_known {
                ""
            } else {
                "; the log has no year"
            }
        );
    }
    let _ = writeln!(
        out,
        "also: getMores folded into their cursors' shapes {}; write commands counted once, from their statements {}; the server's own operations {}; other commands {}",
        words::int(t.folded_getmores),
        words::int(t.duplicate_write_commands),
        words::int(t.internal_operations),
        words::int(t.other_commands),
    );
    if !report.show_values {
        let _ = writeln!(
            out,
            "values: hidden (shapes only; --show-values adds one example per shape)"
        );
    }
    for ns in &report.namespaces {
        let _ = writeln!(
            out,
            "\n{}: {}, {}",
            v(&ns.namespace),
            words::count(ns.operations as f64, "operation"),
            duration(ns.total_ms)
        );
        for note in namespace_notes(ns) {
            let _ = writeln!(out, "  {}", v(&note));
        }
        for s in &ns.shapes {
            let _ = writeln!(out, "  {:<4} {}", s.id, v(&s.text));
            let mut line = format!(
                "       ×{}, {}, {}, total {} ({})",
                words::int(s.count),
                per_hour(s),
                latency(s),
                duration(s.total_ms),
                words::percent(s.time_share)
            );
            if s.getmores > 0 {
                let _ = write!(
                    line,
                    ", {} folded",
                    words::count(s.getmores as f64, "getMore")
                );
            }
            let _ = writeln!(out, "{line}");
            if !s.plans.is_empty() {
                let _ = writeln!(out, "       plans: {}", v(&plans(s)));
            }
            if let Some(sel) = selectivity(s) {
                let _ = writeln!(out, "       {sel}");
            }
            if s.in_memory_sorts > 0 {
                let _ = writeln!(
                    out,
                    "       in-memory sorts: {}",
                    words::int(s.in_memory_sorts)
                );
            }
            if !s.errors.is_empty() {
                let _ = writeln!(out, "       errors: {}", errors(s));
            }
            if let Some(example) = &s.example {
                let _ = writeln!(out, "       example: {}", v(example));
            }
        }
    }
    let _ = writeln!(out, "\nfindings: {}", report.findings.len());
    for f in &report.findings {
        let _ = writeln!(
            out,
            "  {}[{}] {}: {}",
            f.severity,
            f.rule,
            v(&location_text(&f.location)),
            v(&f.message)
        );
        let evidence: Vec<String> = f
            .evidence
            .iter()
            .map(|e| format!("{} {}", e.name, evidence_value(&e.value)))
            .collect();
        if !evidence.is_empty() {
            let _ = writeln!(out, "      evidence: {}", v(&evidence.join(", ")));
        }
        if let Some(help) = &f.help {
            let _ = writeln!(out, "      help: {}", v(help));
        }
    }
    if !report.suggested_indexes.is_empty() {
        let _ = writeln!(out, "\nsuggested indexes (equality, sort, range)");
        for i in &report.suggested_indexes {
            let _ = writeln!(out, "  {}", v(&index(i)));
        }
    }
    if t.unreadable_lines > 0 {
        let _ = writeln!(
            out,
            "\nunreadable lines: {}",
            words::int(t.unreadable_lines)
        );
        for r in &report.problems.by_reason {
            let _ = writeln!(out, "  {} {}", words::int(r.count), reason(r.reason));
            for p in report
                .problems
                .examples
                .iter()
                .filter(|p| p.reason == r.reason)
            {
                let _ = writeln!(out, "      {}", v(&p.place()));
            }
        }
    }
    if !report.errors.is_empty() {
        let _ = writeln!(out, "\nerrors");
        for e in &report.errors {
            let _ = writeln!(out, "  {}", v(&e.message));
        }
    }
    words::visible_lines(&out).into_owned()
}
