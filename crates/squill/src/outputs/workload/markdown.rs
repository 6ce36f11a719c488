//! The Markdown report: one table of shapes per namespace, hottest first,
//! then findings, suggested indexes and unreadable lines.

use super::{duration, index, latency, namespace_notes, per_hour, plans, reason, selectivity};
use crate::finding::{Finding, Location};
use crate::outputs::scan::location_markdown;
use crate::words;
use crate::words::markdown as md;
use crate::workload::WorkloadReport;
use std::fmt::Write as _;

/// A name, or a sentence made around names, in prose or a table cell.
fn cell(text: &str) -> String {
    md::text(text)
}

/// The names a finding's message may quote: its own (`Finding::names`),
/// and the text of the query shape it is about, which the message quotes
/// after the shape's id (`` S1 `find {a: eq}` scanned… ``) and whose
/// field names come from the log.
fn quoted<'r>(report: &'r WorkloadReport, f: &'r Finding) -> Vec<&'r str> {
    let mut names = f.names();
    let id = f
        .evidence
        .iter()
        .find(|e| e.name == "shape")
        .and_then(|e| e.value.as_str());
    if let (
        Some(id),
        Location::Collection {
            database,
            collection,
            ..
        },
    ) = (id, &f.location)
    {
        let namespaces = report.namespaces.iter().filter(|n| {
            n.collection == *collection && database.as_ref().is_none_or(|d| *d == n.database)
        });
        for ns in namespaces {
            names.extend(
                ns.shapes
                    .iter()
                    .filter(|s| s.id == id)
                    .map(|s| s.text.as_str()),
            );
        }
    }
    names
}

pub fn markdown(report: &WorkloadReport) -> String {
    let mut out = String::from("# Workload\n\n");
    let t = &report.totals;
    let _ = writeln!(
        out,
        "{}, {}: {} in {} on {}.",
        words::count(report.files.len() as f64, "file"),
        words::count(t.lines as f64, "line"),
        words::count(t.operations as f64, "operation"),
        words::count(t.shapes as f64, "shape"),
        words::count(t.namespaces as f64, "namespace"),
    );
    if let Some(span) = &report.span {
        let _ = writeln!(
            out,
            "The logs cover {} to {} ({}){}.",
            span.first,
            span.last,
            duration((span.seconds * 1000.0) as u64),
            if span.year_known {
                ""
            } else {
                "; they give no year"
            }
        );
    }
    if !report.show_values {
        out.push_str("\nLiteral values are not shown (shapes only).\n");
    }
    for ns in &report.namespaces {
        let _ = writeln!(
            out,
            "\n## {}\n\n{}, {}.\n\n| id | shape | count | rate | latency | total | plans | examined |\n|---|---|---|---|---|---|---|---|",
            md::code_in_prose(&ns.namespace),
            words::count(ns.operations as f64, "operation"),
            duration(ns.total_ms)
        );
        for s in &ns.shapes {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} ({}) | {} | {} |",
                s.id,
                md::code(&s.text),
                words::int(s.count),
                per_hour(s),
                latency(s),
                duration(s.total_ms),
                words::percent(s.time_share),
                cell(&plans(s)),
                cell(&selectivity(s).unwrap_or_default()),
            );
        }
        let notes = namespace_notes(ns);
        if !notes.is_empty() {
            out.push('\n');
        }
        for note in notes {
            let _ = writeln!(out, "{}.", cell(&note));
        }
    }
    let _ = writeln!(out, "\n## Findings\n");
    if report.findings.is_empty() {
        out.push_str("None.\n");
    }
    for f in &report.findings {
        let _ = writeln!(
            out,
            "- **{}** `{}` {}: {}",
            f.severity,
            f.rule,
            location_markdown(&f.location),
            md::sentence(&f.message, &quoted(report, f), false)
        );
    }
    if !report.suggested_indexes.is_empty() {
        let _ = writeln!(out, "\n## Suggested indexes\n");
        for i in &report.suggested_indexes {
            let _ = writeln!(out, "- {}", cell(&index(i)));
        }
    }
    if t.unreadable_lines > 0 {
        let _ = writeln!(out, "\n## Unreadable lines\n");
        for r in &report.problems.by_reason {
            let places: Vec<String> = report
                .problems
                .examples
                .iter()
                .filter(|p| p.reason == r.reason)
                .map(|p| md::code_in_prose(&p.place()))
                .collect();
            let _ = writeln!(
                out,
                "- {} {}: {}",
                words::int(r.count),
                reason(r.reason),
                places.join(", ")
            );
        }
    }
    if !report.errors.is_empty() {
        let _ = writeln!(out, "\n## Errors\n");
        for e in &report.errors {
            let _ = writeln!(out, "- {}", cell(&e.message));
        }
    }
    out
}
