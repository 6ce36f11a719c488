//! The text report: a summary per collection, the relationships, the findings
//! with their evidence and help, input errors, and notes.

use super::{
    collection_name, evidence_value, example_id, key_text, location_text, percent, types_text,
};
use crate::scan::ScanReport;
use crate::scan::report::CollectionReport;
use crate::words::{self, visible as v};
use std::fmt::Write as _;

/// The report for a terminal. Names (collections, fields, indexes, files)
/// and the sentences made around them go through `words::visible` (`v`);
/// a last pass escapes any control character a name still brought.
pub fn text(report: &ScanReport) -> String {
    let mut out = String::new();
    let t = &report.totals;
    let _ = writeln!(
        out,
        "squill scan (profile {}): {} databases, {} collections, {} documents, {} bytes",
        report.profile.as_str(),
        t.databases,
        t.collections,
        t.documents,
        t.bytes
    );
    for c in &report.collections {
        out.push('\n');
        collection(&mut out, c);
    }
    if !report.relationships.is_empty() {
        let _ = writeln!(out, "\nrelationships");
        for r in &report.relationships {
            let _ = writeln!(
                out,
                "  {}.{} -> {}.{}: {}, {} ({}), fan-out p50 {} p95 {} max {}, {} of {} values match{}",
                v(&r.from.to_string()),
                v(&r.field),
                v(&r.to.to_string()),
                v(&r.key),
                r.direction.as_str(),
                r.class,
                kind_name(r.kind),
                r.fan_out.p50,
                r.fan_out.p95,
                r.fan_out.max,
                r.values_matched,
                r.values_checked,
                if r.sample_rate < 1.0 {
                    format!(" (sample {})", percent(r.sample_rate))
                } else {
                    String::new()
                }
            );
            for line in r.estimate.iter().flat_map(super::estimate::lines) {
                let _ = writeln!(out, "    {line}");
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
        if let Some(id) = example_id(&f.location) {
            let _ = writeln!(out, "    example _id: {}", v(id));
        }
        let ev: Vec<String> = f
            .evidence
            .iter()
            .map(|e| format!("{}={}", e.name, evidence_value(&e.value)))
            .collect();
        if !ev.is_empty() {
            let _ = writeln!(out, "    evidence: {}", v(&ev.join("; ")));
        }
        if let Some(help) = &f.help {
            let _ = writeln!(out, "    help: {}", v(help));
        }
    }
    if !report.errors.is_empty() {
        let _ = writeln!(out, "\ninput errors: {}", report.errors.len());
        for e in &report.errors {
            let _ = writeln!(out, "  {}", v(&e.message));
        }
    }
    if !report.skipped.is_empty() {
        let _ = writeln!(out, "\nskipped: {}", report.skipped.len());
        for e in &report.skipped {
            let _ = writeln!(out, "  {}", v(&e.message));
        }
    }
    let _ = writeln!(out, "\nnotes");
    for n in &report.notes {
        let _ = writeln!(out, "  - {}", v(n));
    }
    words::visible_lines(&out).into_owned()
}

/// Field paths listed per collection; documents with generated keys (ids as
/// field names) can have thousands.
const MAX_FIELDS: usize = 60;

fn collection(out: &mut String, c: &CollectionReport) {
    let _ = writeln!(
        out,
        "{}: {} documents{}, {} bytes{}",
        v(&collection_name(c)),
        c.documents,
        c.sampled_from
            .map(|n| format!(" (a sample of about {n})"))
            .unwrap_or_default(),
        c.bytes,
        c.file
            .as_ref()
            .map(|f| format!(" ({})", v(&f.display().to_string())))
            .unwrap_or_default()
    );
    if c.documents == 0 {
        indexes(out, c);
        return;
    }
    let s = &c.size;
    let _ = writeln!(
        out,
        "  size: min {} mean {} p50 {} p95 {} max {} bytes",
        s.min, s.mean, s.p50, s.p95, s.max
    );
    let _ = writeln!(
        out,
        "  depth max {}; {} field paths, {} distinct names; names {} of the bytes{}",
        c.depth.max,
        c.field_paths,
        c.distinct_field_names,
        percent(c.field_name_share),
        if c.paths_capped {
            format!(
                "; field tree capped ({} occurrences untracked)",
                c.untracked_fields
            )
        } else {
            String::new()
        }
    );
    indexes(out, c);
    let width = c
        .fields
        .iter()
        .map(|f| v(&f.path).len() + 2 * (f.level as usize - 1))
        .max()
        .unwrap_or(0)
        .min(48);
    for (shown, f) in c.fields.iter().enumerate() {
        if shown == MAX_FIELDS {
            let _ = writeln!(
                out,
                "    ... {} more field paths (the JSON and Markdown reports list them all)",
                c.fields.len() - MAX_FIELDS
            );
            break;
        }
        let name = format!(
            "{}{}",
            "  ".repeat(f.level as usize - 1),
            v(f.path.rsplit('.').next().unwrap_or(&f.path))
        );
        let mut line = format!(
            "    {name:<width$}  {:>6}{}  {}",
            percent(f.presence),
            super::estimate::interval(f.presence_interval),
            types_text(&f.types)
        );
        if let Some(a) = &f.array {
            let _ = write!(
                line,
                "; length p50 {} p95 {} max {}",
                a.lengths.p50, a.lengths.p95, a.lengths.max
            );
            if !a.element_types.is_empty() {
                let _ = write!(line, " of {}", types_text(&a.element_types));
            }
        }
        // The figure an emitted model's `density:` comes from.
        if let Some(g) = f.geo
            && let Some(d) = g.density
        {
            let what = if g.legacy_pairs > 0 && g.points == 0 {
                "[longitude, latitude] pairs"
            } else {
                "GeoJSON points"
            };
            let _ = write!(
                line,
                "; {} {what}, {} a km² typical, {} in the densest {}° cell",
                d.points, d.typical_per_km2, d.max_per_km2, d.cell_degrees
            );
        }
        // Polygons have no density; the JSON report counts them, and the
        // text said nothing of them (audit46 D9).
        if let Some(g) = f.geo
            && g.polygons > 0
        {
            let _ = write!(
                line,
                "; {}",
                crate::words::count(g.polygons as f64, "GeoJSON polygon")
            );
            if let (Some(avg), Some(max)) = (g.polygon_corners, g.polygon_corners_max) {
                let _ = write!(
                    line,
                    " of {} corners on average, at most {}",
                    crate::words::num(avg),
                    crate::words::int(max)
                );
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

fn indexes(out: &mut String, c: &CollectionReport) {
    match &c.indexes {
        None => {
            let _ = writeln!(out, "  indexes: unknown (no metadata)");
        }
        Some(ix) => {
            let list: Vec<String> = ix
                .iter()
                .map(|i| {
                    format!(
                        "{} {}{}",
                        v(&i.name),
                        v(&key_text(&i.key)),
                        if i.unique { " unique" } else { "" }
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "  indexes: {}",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join("; ")
                }
            );
        }
    }
}

fn kind_name(kind: crate::model::RelationshipKind) -> &'static str {
    match kind {
        crate::model::RelationshipKind::OneToOne => "1:1",
        crate::model::RelationshipKind::OneToMany => "1:N",
        crate::model::RelationshipKind::ManyToMany => "N:M",
    }
}
