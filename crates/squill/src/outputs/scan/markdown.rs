//! The Markdown report: tables for collections, fields and relationships, and
//! a section per finding.

use super::{
    collection_name, evidence_value, example_id, key_text, location_markdown, percent, types_text,
};
use crate::scan::ScanReport;
use crate::words::markdown as md;
use std::fmt::Write as _;

/// A name, or a sentence made around names, in prose or a table cell.
fn cell(s: &str) -> String {
    md::text(s)
}

pub fn markdown(report: &ScanReport) -> String {
    let mut out = String::new();
    let t = &report.totals;
    let _ = writeln!(out, "# squill scan\n");
    let _ = writeln!(
        out,
        "Profile **{}**: {} databases, {} collections, {} documents, {} bytes.\n",
        report.profile.as_str(),
        t.databases,
        t.collections,
        t.documents,
        t.bytes
    );
    let _ = writeln!(out, "## Collections\n");
    let _ = writeln!(
        out,
        "| collection | documents | size p50 | size p95 | size max | depth | fields | names share | indexes |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for c in &report.collections {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&collection_name(c)),
            c.documents,
            c.size.p50,
            c.size.p95,
            c.size.max,
            c.depth.max,
            c.field_paths,
            percent(c.field_name_share),
            c.indexes
                .as_ref()
                .map_or("unknown".to_string(), |i| i.len().to_string())
        );
    }
    for c in report.collections.iter().filter(|c| c.documents > 0) {
        let _ = writeln!(out, "\n### {}\n", cell(&collection_name(c)));
        if let Some(ix) = &c.indexes {
            for i in ix {
                let _ = writeln!(
                    out,
                    "- index {} {}{}",
                    md::code_in_prose(&i.name),
                    md::code_in_prose(&key_text(&i.key)),
                    if i.unique { " unique" } else { "" }
                );
            }
            if !ix.is_empty() {
                out.push('\n');
            }
        }
        let _ = writeln!(
            out,
            "| field | presence | types | array length p50 / p95 / max |"
        );
        let _ = writeln!(out, "|---|---:|---|---|");
        for f in &c.fields {
            let arr = f.array.as_ref().map_or(String::new(), |a| {
                format!("{} / {} / {}", a.lengths.p50, a.lengths.p95, a.lengths.max)
            });
            let _ = writeln!(
                out,
                "| {} | {}{} | {} | {} |",
                md::code(&f.path),
                percent(f.presence),
                super::estimate::interval(f.presence_interval),
                cell(&types_text(&f.types)),
                arr
            );
        }
    }
    if !report.relationships.is_empty() {
        let _ = writeln!(out, "\n## Relationships\n");
        let _ = writeln!(
            out,
            "| reference | target | direction | class | fan-out p50 / p95 / max | matched |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---:|");
        for r in &report.relationships {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} / {} / {} | {} |",
                md::code(&format!("{}.{}", r.from, r.field)),
                md::code(&format!("{}.{}", r.to, r.key)),
                r.direction.as_str(),
                r.class,
                r.fan_out.p50,
                r.fan_out.p95,
                r.fan_out.max,
                percent(r.match_share)
            );
        }
        // Sampled relationships: how each figure holds for the collections.
        for r in &report.relationships {
            let Some(e) = &r.estimate else { continue };
            let _ = writeln!(
                out,
                "\n{}, estimated:\n",
                md::code_in_prose(&format!("{}.{}", r.from, r.field))
            );
            for line in super::estimate::lines(e) {
                let _ = writeln!(out, "- {line}");
            }
        }
    }
    let _ = writeln!(out, "\n## Findings ({})\n", report.findings.len());
    for f in &report.findings {
        let _ = writeln!(
            out,
            "### {} `{}`: {}\n",
            f.severity,
            f.rule,
            location_markdown(&f.location)
        );
        let _ = writeln!(out, "{}\n", md::sentence(&f.message, &f.names(), false));
        if let Some(id) = example_id(&f.location) {
            let _ = writeln!(out, "Example `_id`: {}\n", md::code_in_prose(id));
        }
        for e in &f.evidence {
            let _ = writeln!(out, "- {}: {}", e.name, cell(&evidence_value(&e.value)));
        }
        if let Some(help) = &f.help {
            let _ = writeln!(out, "\n**What to do:** {}\n", cell(help));
        }
    }
    if !report.errors.is_empty() {
        let _ = writeln!(out, "\n## Input errors\n");
        for e in &report.errors {
            let _ = writeln!(out, "- {}", cell(&e.message));
        }
    }
    if !report.skipped.is_empty() {
        let _ = writeln!(out, "\n## Skipped\n");
        for e in &report.skipped {
            let _ = writeln!(out, "- {}", cell(&e.message));
        }
    }
    let _ = writeln!(out, "\n## Notes\n");
    for n in &report.notes {
        let _ = writeln!(out, "- {}", cell(n));
    }
    out
}
