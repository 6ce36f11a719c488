//! The HTML report of the logs (`squill workload --format html`): the query
//! shapes per namespace with their rates and latencies, the hot and slow
//! ones first and charted, the suggested indexes with the shapes they serve,
//! and the findings with the cited rules' docs inlined.

use super::chart::{self, Bar, Spread};
use super::page::{self, esc, id};
use crate::outputs::workload::{
    duration, errors, latency, per_hour, plans, reason, selectivity, volume,
};
use crate::words;
use crate::workload::WorkloadReport;
use crate::workload::report::ShapeReport;
use crate::workload::shape::sort_text;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Shapes in each chart: the hottest by rate, the slowest by p95.
const CHARTED: usize = 12;

/// Renders the workload as one self-contained HTML page.
pub fn render(report: &WorkloadReport) -> String {
    let mut sections = vec![
        ("summary", "Summary"),
        ("hot", "Hot and slow shapes"),
        ("namespaces", "Shapes per namespace"),
        ("indexes", "Suggested indexes"),
        ("findings", "Findings"),
        ("rules", "Rules cited"),
    ];
    if report.totals.unreadable_lines > 0 || !report.errors.is_empty() {
        sections.push(("unread", "Not read"));
    }
    let mut body = String::new();
    summary(&mut body, report);
    hot(&mut body, report);
    body.push_str("<section id=\"namespaces\"><h2>Shapes per namespace</h2>\n");
    if report.namespaces.is_empty() {
        body.push_str("<p>No operation on a collection was found in the logs.</p>\n");
    }
    for ns in &report.namespaces {
        let _ = writeln!(
            body,
            "<article class=\"card\" id=\"{}\"><h3>{}</h3>\n<p class=\"counts\">{} · {} in all</p>",
            id("ns", &ns.namespace),
            esc(&ns.namespace),
            words::count(ns.operations as f64, "operation"),
            duration(ns.total_ms)
        );
        for note in crate::outputs::workload::namespace_notes(ns) {
            let _ = writeln!(body, "<p class=\"counts\">{}.</p>", esc(&note));
        }
        shapes(&mut body, &ns.shapes);
        body.push_str("</article>\n");
    }
    body.push_str("</section>\n");
    indexes(&mut body, report);
    body.push_str(&super::findings::section(&report.findings));
    let cited: BTreeSet<&str> = report.findings.iter().map(|f| f.rule).collect();
    body.push_str(&super::docs::section(cited));
    unread(&mut body, report);
    page::document("Workload", &sections, &body)
}

fn summary(out: &mut String, report: &WorkloadReport) {
    let t = &report.totals;
    let _ = writeln!(
        out,
        "<section id=\"summary\"><h1>Workload</h1>\n<p class=\"counts\">{}</p>",
        esc(&volume(report))
    );
    match &report.span {
        Some(span) => {
            let _ = writeln!(
                out,
                "<p>The logs cover {} to {} ({}){}. Rates are over that span.</p>",
                esc(&span.first),
                esc(&span.last),
                duration((span.seconds * 1000.0) as u64),
                if span.year_known {
                    ""
                } else {
                    "; they give no year"
                }
            );
        }
        None => out.push_str("<p>The logs give no time span, so there are no rates.</p>\n"),
    }
    let _ = writeln!(
        out,
        "<p>Also read: getMores folded into their cursors' shapes {}; write commands counted once, from their statements {}; the server's own operations {}; other commands {}.</p>",
        words::int(t.folded_getmores),
        words::int(t.duplicate_write_commands),
        words::int(t.internal_operations),
        words::int(t.other_commands),
    );
    if !report.show_values {
        out.push_str("<p>Literal values are not shown (shapes only; <code>--show-values</code> keeps one example per shape).</p>\n");
    }
    out.push_str("<table class=\"narrow\"><tr><th>file</th><th>format</th><th class=\"num\">lines</th><th class=\"num\">operations</th><th class=\"num\">unreadable</th></tr>\n");
    for f in &report.files {
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&f.path),
            if f.gzip { " (gzip)" } else { "" },
            f.format,
            words::int(f.lines),
            words::int(f.operations),
            words::int(f.unreadable)
        );
    }
    out.push_str("</table></section>\n");
}

fn all_shapes(report: &WorkloadReport) -> impl Iterator<Item = (&str, &ShapeReport)> {
    report
        .namespaces
        .iter()
        .flat_map(|ns| ns.shapes.iter().map(move |s| (ns.namespace.as_str(), s)))
}

fn ms(v: f64) -> String {
    duration(v.max(0.0).round() as u64)
}

fn hot(out: &mut String, report: &WorkloadReport) {
    out.push_str("<section id=\"hot\"><h2>Hot and slow shapes</h2>\n");
    let mut by_rate: Vec<(&str, &ShapeReport)> = all_shapes(report).collect();
    if by_rate.is_empty() {
        out.push_str("<p>None.</p></section>\n");
        return;
    }
    // Without a span there is no rate: the executions rank them instead.
    let rate = |s: &ShapeReport| s.rate_per_hour.unwrap_or(s.count as f64);
    by_rate.sort_by(|a, b| rate(b.1).total_cmp(&rate(a.1)).then(a.1.id.cmp(&b.1.id)));
    let bars: Vec<Bar> = by_rate
        .iter()
        .take(CHARTED)
        .map(|(ns, s)| Bar {
            label: format!("{} {} on {ns}", s.id, s.text),
            value: rate(s),
            class: if s.collection_scans() > 0 {
                "cheaper"
            } else {
                ""
            },
            note: if s.rate_per_hour.is_some() {
                "per hour".into()
            } else {
                "executions".into()
            },
        })
        .collect();
    let caption = format!(
        "The {} most frequent shapes, {}; orange: some executions scanned the whole collection.",
        bars.len(),
        if report.span.is_some() {
            "executions per hour over the logs' span"
        } else {
            "executions (the logs give no span)"
        }
    );
    out.push_str("<h3>Most frequent</h3>\n");
    out.push_str(&chart::bars(&caption, &bars));
    let mut by_latency: Vec<(&str, &ShapeReport)> = all_shapes(report)
        .filter(|(_, s)| s.latency_ms.p50.is_some())
        .collect();
    let p95 = |s: &ShapeReport| s.latency_ms.p95.or(s.latency_ms.max).unwrap_or(0);
    by_latency.sort_by(|a, b| p95(b.1).cmp(&p95(a.1)).then(a.1.id.cmp(&b.1.id)));
    let spreads: Vec<Spread> = by_latency
        .iter()
        .take(CHARTED)
        .map(|(ns, s)| {
            let l = &s.latency_ms;
            let p50 = l.p50.unwrap_or(0) as f64;
            Spread {
                label: format!("{} {} on {ns}", s.id, s.text),
                min: None,
                p50,
                p95: l.p95.map_or(p50, |v| v as f64),
                max: l.max.map_or(p50, |v| v as f64),
            }
        })
        .collect();
    if spreads.is_empty() {
        out.push_str("<p>The logs give no durations.</p>\n");
    } else {
        let caption = format!(
            "Latency of the {} slowest shapes by p95 (milliseconds as logged: mongod logs only operations slower than its threshold, 100 ms by default, so fast executions are missing).",
            spreads.len()
        );
        out.push_str("<h3>Slowest</h3>\n");
        out.push_str(&chart::spreads(&caption, ms, &spreads));
    }
    out.push_str("</section>\n");
}

fn shapes(out: &mut String, shapes: &[ShapeReport]) {
    out.push_str("<table><tr><th>id</th><th>shape</th><th class=\"num\">count</th><th class=\"num\">rate</th><th>latency</th><th class=\"num\">total time</th><th>plans</th><th>examined</th></tr>\n");
    for s in shapes {
        let mut notes = Vec::new();
        if s.in_memory_sorts > 0 {
            notes.push(format!(
                "{} sorted in memory",
                words::int(s.in_memory_sorts)
            ));
        }
        if !s.errors.is_empty() {
            notes.push(format!("errors: {}", errors(s)));
        }
        if s.getmores > 0 {
            notes.push(words::count(s.getmores as f64, "getMore folded"));
        }
        if let Some(example) = &s.example {
            notes.push(format!("e.g. {example}"));
        }
        let _ = writeln!(
            out,
            "<tr id=\"{}\"><td class=\"id\">{}</td><td><code>{}</code>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{} ({})</td><td>{}</td><td>{}</td></tr>",
            id("shape", &s.id),
            esc(&s.id),
            esc(&s.text),
            if notes.is_empty() {
                String::new()
            } else {
                format!("<br><small>{}</small>", esc(&notes.join("; ")))
            },
            words::int(s.count),
            esc(&per_hour(s)),
            esc(&latency(s)),
            esc(&duration(s.total_ms)),
            words::percent(s.time_share),
            esc(&plans(s)),
            esc(&selectivity(s).unwrap_or_default())
        );
    }
    out.push_str("</table>\n");
}

fn indexes(out: &mut String, report: &WorkloadReport) {
    out.push_str("<section id=\"indexes\"><h2>Suggested indexes</h2>\n");
    if report.suggested_indexes.is_empty() {
        out.push_str(
            "<p>None: no shape that scans or sorts in memory has keys to index.</p></section>\n",
        );
        return;
    }
    out.push_str("<table><tr><th>namespace</th><th>keys</th><th>serves</th><th class=\"num\">operations</th><th class=\"num\">their time</th></tr>\n");
    for i in &report.suggested_indexes {
        let serves: Vec<String> = i
            .serves
            .iter()
            .map(|s| format!("<a href=\"#{}\">{}</a>", id("shape", s), esc(s)))
            .collect();
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            id("ns", &i.namespace),
            esc(&i.namespace),
            esc(&sort_text(&i.keys)),
            serves.join(", "),
            words::int(i.count),
            esc(&duration(i.total_ms))
        );
    }
    out.push_str("</table>\n<p>Keys in equality, sort, range order. Each index serves the shapes listed; check the indexes a collection already has before adding one.</p></section>\n");
}

fn unread(out: &mut String, report: &WorkloadReport) {
    if report.totals.unreadable_lines == 0 && report.errors.is_empty() {
        return;
    }
    out.push_str("<section id=\"unread\"><h2>Not read</h2>\n<ul>\n");
    for e in &report.errors {
        let _ = writeln!(out, "<li>error: {}</li>", esc(&e.message));
    }
    for r in &report.problems.by_reason {
        let places: Vec<String> = report
            .problems
            .examples
            .iter()
            .filter(|p| p.reason == r.reason)
            .map(|p| format!("<code>{}</code>", esc(&p.place())))
            .collect();
        let _ = writeln!(
            out,
            "<li>{} {}: {}</li>",
            words::count(r.count as f64, "line"),
            reason(r.reason),
            places.join(", ")
        );
    }
    out.push_str("</ul></section>\n");
}

#[cfg(test)]
mod tests {
    use crate::workload::{Options, read_bytes};

    const LOG: &str = "\
2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { email: \"ann@example.com\" }, sort: { at: -1 } } planSummary: COLLSCAN keysExamined:0 docsExamined:1000 hasSortStage:1 nreturned:10 100ms
2019-06-18T13:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { email: \"bob@example.com\" }, sort: { at: -1 } } planSummary: COLLSCAN keysExamined:0 docsExamined:1000 hasSortStage:1 nreturned:10 300ms
2019-06-18T13:30:00.000+0000 I COMMAND  [conn1] command shop.items command: find { find: \"items\", filter: { _id: 7 } } planSummary: IDHACK keysExamined:1 docsExamined:1 nreturned:1 120ms
not a log line
";

    #[test]
    fn shapes_charts_indexes_and_findings() {
        let mut report = read_bytes("t.log", LOG.as_bytes(), Options::default());
        crate::rules::workload::apply(&mut report);
        let html = super::render(&report);
        for id in [
            "summary",
            "hot",
            "namespaces",
            "indexes",
            "findings",
            "rules",
            "unread",
            "ns-shop.orders",
            "shape-S1",
        ] {
            assert_eq!(html.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
        }
        // Both shapes in the rate chart and the latency chart.
        assert_eq!(html.matches("<rect class=\"bar").count(), 2 + 2, "{html}");
        assert!(html.contains("p95 300 ms"), "{html}");
        // The suggested index links to the shape it serves.
        assert!(!report.suggested_indexes.is_empty());
        assert!(html.contains("<a href=\"#shape-S1\">S1</a>"), "{html}");
        let rule = report.findings.first().expect("a finding").rule;
        assert!(html.contains(&format!("id=\"rule-{rule}\"")));
        // Values stay out unless asked for.
        assert!(!html.contains("example.com"));
    }
}
