//! The HTML report of a scan (`squill scan --format html`): what the text and
//! Markdown reports say, plus what reads better as a picture — the
//! collections and the references found between them as a diagram, each
//! collection's document sizes as a histogram, array lengths and fan-out as
//! spreads with p50, p95 and max marked — and the cited rules' docs inlined.

use super::chart::{self, Spread};
use super::diagram::{self, Edge, Node, Row};
use super::page::{self, esc, id};
use crate::outputs::scan::{collection_name, percent};
use crate::scan::ScanReport;
use crate::scan::histogram::Distribution;
use crate::scan::report::{CollectionRef, CollectionReport, FieldReport};
use crate::words::{self, bytes};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;

mod collection;

/// Top-level fields a collection's box lists before `… N more`.
const BOX_FIELDS: usize = 12;

/// Renders the scan as one self-contained HTML page.
pub fn render(report: &ScanReport) -> String {
    render_with(report, None)
}

/// The scan's page with a deployment's capacity (`scan --horizon`): where
/// its growth was measured, then the design report's Capacity section.
pub fn with_capacity(
    report: &ScanReport,
    growth: &crate::scan::growth::Growth,
    capacity: &crate::design::capacity::Capacity,
) -> String {
    let mut lead = format!(
        "<p>{}.</p>\n<ul>\n",
        esc(&crate::outputs::scan::growth::source(growth))
    );
    for (name, rate) in crate::outputs::scan::growth::rates(growth) {
        let _ = writeln!(
            lead,
            "<li><code>{}</code>: {}</li>",
            esc(&words::visible(&name)),
            esc(&rate)
        );
    }
    lead.push_str("</ul>\n");
    let section =
        super::capacity::section(capacity).replacen("</h2>\n", &format!("</h2>\n{lead}"), 1);
    render_with(report, Some(("capacity", "Capacity", section)))
}

/// The scan's page with its shard-key report (`scan --shard-keys`).
pub fn with_shard_keys(
    report: &ScanReport,
    keys: &crate::scan::shard_keys::ShardKeyReport,
) -> String {
    let section = super::shard_keys::section(keys);
    render_with(report, Some(("shard-keys", "Shard keys", section)))
}

/// The page, with a section of its own (the capacity, `id="capacity"`, or
/// the shard keys) after the findings: its id, its title, its HTML.
fn render_with(report: &ScanReport, extra: Option<(&'static str, &'static str, String)>) -> String {
    let mut sections = vec![
        ("summary", "Summary"),
        ("diagram", "Relationships"),
        ("collections", "Collections"),
        ("findings", "Findings"),
        ("rules", "Rules cited"),
    ];
    if let Some((id, title, _)) = &extra {
        sections.insert(4, (*id, *title));
    }
    if !report.errors.is_empty() || !report.skipped.is_empty() {
        sections.push(("input", "Input not read"));
    }
    sections.push(("notes", "Notes"));
    let mut body = String::new();
    summary(&mut body, report);
    // The diagrams and the cards are made side by side, each card on its own.
    let (diagrams, cards) = rayon::join(
        || {
            let mut out = String::new();
            relationships(&mut out, report);
            out
        },
        || {
            report
                .collections
                .par_iter()
                .map(|c| {
                    let mut out = String::new();
                    collection::card(&mut out, c, report);
                    out
                })
                .collect::<Vec<String>>()
        },
    );
    body.push_str(&diagrams);
    body.push_str("<section id=\"collections\"><h2>Collections</h2>\n");
    if report.collections.is_empty() {
        body.push_str("<p>None.</p>\n");
    }
    body.extend(cards);
    body.push_str("</section>\n");
    body.push_str(&super::findings::section(&report.findings));
    if let Some((_, _, section)) = extra {
        body.push_str(&section);
    }
    let cited: BTreeSet<&str> = report.findings.iter().map(|f| f.rule).collect();
    body.push_str(&super::docs::section(cited));
    if !report.errors.is_empty() || !report.skipped.is_empty() {
        body.push_str("<section id=\"input\"><h2>Input not read</h2>\n<ul>\n");
        for (what, e) in report
            .errors
            .iter()
            .map(|e| ("error", e))
            .chain(report.skipped.iter().map(|e| ("skipped", e)))
        {
            let _ = writeln!(body, "<li>{what}: {}</li>", esc(&e.message));
        }
        body.push_str("</ul></section>\n");
    }
    body.push_str("<section id=\"notes\"><h2>Notes</h2>\n<ul>\n");
    for n in &report.notes {
        let _ = writeln!(body, "<li>{}</li>", esc(n));
    }
    body.push_str("</ul></section>\n");
    let title = format!(
        "Scan of {}",
        words::count(report.totals.collections as f64, "collection")
    );
    page::document(&title, &sections, &body)
}

fn anchor(c: &CollectionReport) -> String {
    id("coll", &collection_name(c))
}

fn summary(out: &mut String, report: &ScanReport) {
    let t = &report.totals;
    let _ = writeln!(
        out,
        "<section id=\"summary\"><h1>Scan of {}</h1>\n<p class=\"counts\">{} · {} · {} · {} · {} · profile <code>{}</code></p>",
        words::count(t.collections as f64, "collection"),
        words::count(t.databases as f64, "database"),
        words::count(t.documents as f64, "document"),
        words::bytes(t.bytes as f64),
        words::count(report.relationships.len() as f64, "relationship"),
        words::count(report.findings.len() as f64, "finding"),
        esc(report.profile.as_str())
    );
    out.push_str("<table><tr><th>collection</th><th class=\"num\">documents</th><th class=\"num\">size p50</th><th class=\"num\">p95</th><th class=\"num\">max</th><th class=\"num\">depth</th><th class=\"num\">field paths</th><th class=\"num\">names' share</th><th class=\"num\">indexes</th></tr>\n");
    for c in &report.collections {
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            anchor(c),
            esc(&collection_name(c)),
            words::int(c.documents),
            measured(c, c.size.p50, bytes),
            measured(c, c.size.p95, bytes),
            measured(c, c.size.max, bytes),
            measured(c, c.depth.max, words::num),
            words::int(c.field_paths),
            if c.documents == 0 {
                "–".to_string()
            } else {
                percent(c.field_name_share)
            },
            c.indexes
                .as_ref()
                .map_or_else(|| "unknown".to_string(), |i| i.len().to_string())
        );
    }
    out.push_str("</table></section>\n");
}

/// A figure of a collection's documents, `–` when it has none.
fn measured(c: &CollectionReport, v: u64, unit: fn(f64) -> String) -> String {
    if c.documents == 0 {
        "–".to_string()
    } else {
        unit(v as f64)
    }
}

fn spread(label: String, d: &Distribution) -> Spread {
    Spread {
        label,
        min: Some(d.min as f64),
        p50: d.p50 as f64,
        p95: d.p95 as f64,
        max: d.max as f64,
    }
}

/// The collection a reference names, by position in the report.
fn position(report: &ScanReport, r: &CollectionRef) -> Option<usize> {
    report
        .collections
        .iter()
        .position(|c| c.database == r.database && c.name == r.collection)
}

/// The collections drawn together, by position in the report: one diagram
/// per database (a dump of many databases in one picture shrinks past
/// reading), databases that reference each other drawn together.
fn groups(report: &ScanReport) -> Vec<Vec<usize>> {
    let mut group: Vec<usize> = Vec::new();
    let mut databases: Vec<Option<&str>> = Vec::new();
    for c in &report.collections {
        let db = c.database.as_deref();
        let g = databases.iter().position(|d| *d == db).unwrap_or_else(|| {
            databases.push(db);
            databases.len() - 1
        });
        group.push(g);
    }
    // A reference across databases joins its two groups into one.
    for r in &report.relationships {
        if let (Some(a), Some(b)) = (position(report, &r.from), position(report, &r.to)) {
            let (keep, gone) = (group[a].min(group[b]), group[a].max(group[b]));
            for g in &mut group {
                if *g == gone {
                    *g = keep;
                }
            }
        }
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); databases.len()];
    for (n, &g) in group.iter().enumerate() {
        out[g].push(n);
    }
    out.retain(|g| !g.is_empty());
    out
}

fn relationships(out: &mut String, report: &ScanReport) {
    out.push_str("<section id=\"diagram\"><h2>Relationships</h2>\n");
    out.push_str("<p>Each box is a collection with its top-level fields and their types (a share when a field is not in every document); a reference field (in blue) names the key it matches, and an arrow goes from the collection holding the references to the one they point to: <code>(1)</code> one id, <code>(n)</code> an array of ids. One diagram per database; select a box for the collection's sizes, fields and arrays.</p>\n");
    let groups = groups(report);
    // The layouts are most of the page's cost: one diagram per thread.
    let diagrams: Vec<String> = groups
        .par_iter()
        .map(|group| database_diagram(report, group, groups.len() > 1))
        .collect();
    out.extend(diagrams);
    if report.relationships.is_empty() {
        out.push_str("<p>No field's values matched another collection's keys.</p></section>\n");
        return;
    }
    out.push_str("<table><tr><th>reference</th><th>points to</th><th>direction</th><th>class</th><th class=\"num\">children per parent p50 / p95 / max</th><th class=\"num\">most parents of a child</th><th class=\"num\">matched</th><th class=\"num\">values checked</th></tr>\n");
    for r in &report.relationships {
        let _ = writeln!(
            out,
            "<tr><td><code>{}.{}</code></td><td><code>{}.{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{} / {} / {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td></tr>",
            esc(&r.from.to_string()),
            esc(&r.field),
            esc(&r.to.to_string()),
            esc(&r.key),
            r.direction.as_str(),
            r.class,
            words::int(r.fan_out.p50),
            words::int(r.fan_out.p95),
            words::int(r.fan_out.max),
            words::int(r.max_parents_per_child),
            percent(r.match_share),
            words::int(r.values_checked),
            if r.sample_rate < 1.0 {
                format!(" ({} sampled)", percent(r.sample_rate))
            } else {
                String::new()
            }
        );
    }
    out.push_str("</table>\n");
    let rows: Vec<Spread> = report
        .relationships
        .iter()
        .map(|r| {
            spread(
                format!("{} → {}.{}", r.parent, r.child, r.field),
                &r.fan_out,
            )
        })
        .collect();
    out.push_str(&chart::spreads(
        "Fan-out: children per parent of each relationship.",
        words::num,
        &rows,
    ));
    out.push_str("</section>\n");
}

/// The diagram of one group of collections (positions in the report), with
/// its databases' names above it when `titled`.
fn database_diagram(report: &ScanReport, group: &[usize], titled: bool) -> String {
    let mut out = String::new();
    // Positions in the report → positions in this diagram.
    let local = |n: usize| group.iter().position(|&g| g == n);
    let nodes: Vec<Node> = group
        .iter()
        .map(|&n| node(&report.collections[n], report))
        .collect();
    // One arrow per pair of collections, however many fields refer from
    // one to the other: fewer arrows to read, fewer crossings to lay out.
    let mut edges: Vec<Edge> = Vec::new();
    let mut fields: Vec<Vec<String>> = Vec::new();
    for r in &report.relationships {
        let (Some(from), Some(to)) = (
            position(report, &r.from).and_then(local),
            position(report, &r.to).and_then(local),
        ) else {
            continue;
        };
        let many = r.direction == crate::scan::report::Direction::ChildReferenceArray;
        let field = format!("{} ({})", r.field, if many { "n" } else { "1" });
        let title = format!(
            "{}.{} holds {} of {}.{} ({}, {})",
            r.from,
            r.field,
            if many { "ids" } else { "the id" },
            r.to,
            r.key,
            r.direction.as_str(),
            r.class
        );
        match edges.iter().position(|e| e.from == from && e.to == to) {
            Some(at) => {
                fields[at].push(field);
                edges[at].title = format!("{}; {title}", edges[at].title);
            }
            None => {
                edges.push(Edge {
                    from,
                    to,
                    label: String::new(),
                    title,
                });
                fields.push(vec![field]);
            }
        }
    }
    for (edge, fields) in edges.iter_mut().zip(&fields) {
        edge.label = match fields.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} +{} more", rest.len()),
            [] => String::new(),
        };
    }
    if titled {
        let databases: BTreeSet<&str> = group
            .iter()
            .filter_map(|&n| report.collections[n].database.as_deref())
            .collect();
        let _ = writeln!(
            out,
            "<h3>{}</h3>",
            esc(&databases.into_iter().collect::<Vec<_>>().join(", "))
        );
    }
    out.push_str("<figure>");
    out.push_str(&diagram::graph(&nodes, &edges));
    out.push_str("</figure>\n");
    out
}

/// A collection's box: its top-level fields, then any nested reference.
fn node(c: &CollectionReport, report: &ScanReport) -> Node {
    let name = collection_name(c);
    let reference = |f: &FieldReport| {
        report.relationships.iter().find(|r| {
            r.field == f.path && r.from.collection == c.name && r.from.database == c.database
        })
    };
    let mut rows = Vec::new();
    let mut more = 0;
    for f in &c.fields {
        let to = reference(f);
        if f.level != 1 && to.is_none() {
            continue;
        }
        if to.is_none() && rows.len() >= BOX_FIELDS {
            more += 1;
            continue;
        }
        let mut note = if f.presence < 1.0 {
            percent(f.presence)
        } else {
            String::new()
        };
        if let Some(r) = to {
            if !note.is_empty() {
                note.push_str(", ");
            }
            let _ = write!(note, "→ {}.{}", r.to.collection, r.key);
        }
        rows.push(Row {
            depth: 0,
            name: if f.level == 1 {
                leaf(&f.path).to_string()
            } else {
                f.path.clone()
            },
            ty: type_name(f),
            note,
            kind: if to.is_some() { "reference" } else { "" },
            children: 0,
        });
    }
    if more > 0 {
        rows.push(Row {
            depth: 0,
            name: format!("… {}", words::count(more as f64, "more field")),
            ty: String::new(),
            note: String::new(),
            kind: "",
            children: 0,
        });
    }
    Node {
        anchor: anchor(c),
        subtitle: if c.documents == 0 {
            "no documents".to_string()
        } else {
            format!(
                "{} · p50 {}",
                words::count(c.documents as f64, "document"),
                bytes(c.size.p50 as f64)
            )
        },
        name,
        rows,
    }
}

/// The last part of a dotted path.
fn leaf(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// `string`, `int|string`, `[objectId]`.
fn type_name(f: &FieldReport) -> String {
    let names = |types: &[crate::scan::report::TypeCount]| {
        types.iter().map(|t| t.ty).collect::<Vec<_>>().join("|")
    };
    match &f.array {
        Some(a) if f.types.len() == 1 => format!("[{}]", names(&a.element_types)),
        _ => names(&f.types),
    }
}

#[cfg(test)]
mod tests;
