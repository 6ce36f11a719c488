//! A collection's card in the scan page: its counts, a histogram of its
//! document sizes, its indexes, the table of its field paths (presence,
//! types, sizes, array lengths) and its arrays' lengths as spreads.

use super::{anchor, spread};
use crate::outputs::html::chart::{self, Spread};
use crate::outputs::html::page::esc;
use crate::outputs::scan::{collection_name, key_text, percent, types_text};
use crate::scan::ScanReport;
use crate::scan::report::{CollectionReport, RelationshipReport};
use crate::words::{self, bytes};
use std::fmt::Write as _;

/// Field tables up to this many rows are shown open, longer ones folded.
const OPEN_FIELDS: usize = 40;
/// Field paths a table shows: past this many (a collection whose keys are
/// ids has thousands) a page is no place to read them.
const FIELD_ROWS: usize = 200;
/// Rows of one spread chart (the array fields of a collection).
const SPREAD_ROWS: usize = 24;

/// A collection's card: its counts, sizes, indexes, fields and arrays.
pub(super) fn card(out: &mut String, c: &CollectionReport, report: &ScanReport) {
    let name = collection_name(c);
    let _ = writeln!(
        out,
        "<article class=\"card\" id=\"{}\"><h3>{}</h3>",
        anchor(c),
        esc(&name)
    );
    let mut counts = vec![words::count(c.documents as f64, "document")];
    if let Some(n) = c.sampled_from {
        counts.push(format!("sampled from about {}", words::int(n)));
    }
    counts.push(bytes(c.bytes as f64));
    if c.invalid_documents > 0 {
        counts.push(format!("{} invalid", words::int(c.invalid_documents)));
    }
    counts.push(format!("nesting depth {}", c.depth.max));
    counts.push(words::count(c.field_paths as f64, "field path"));
    let _ = writeln!(out, "<p class=\"counts\">{}</p>", esc(&counts.join(" · ")));
    if let Some(file) = &c.file {
        let _ = writeln!(
            out,
            "<p>From <code>{}</code>.</p>",
            esc(&file.display().to_string())
        );
    }
    if c.documents == 0 {
        out.push_str("<p>No documents.</p></article>\n");
        return;
    }
    sizes(out, c);
    match &c.indexes {
        None => out.push_str("<p>Indexes: unknown (the input has no metadata).</p>\n"),
        Some(ix) if ix.is_empty() => out.push_str("<p>Indexes: none listed.</p>\n"),
        Some(ix) => {
            out.push_str("<p>Indexes:</p><ul>");
            for i in ix {
                let _ = write!(
                    out,
                    "<li><code>{}</code> <code>{}</code>{}</li>",
                    esc(&i.name),
                    esc(&key_text(&i.key)),
                    if i.unique { " unique" } else { "" }
                );
            }
            out.push_str("</ul>\n");
        }
    }
    fields(out, c);
    let arrays: Vec<Spread> = c
        .fields
        .iter()
        .filter_map(|f| Some(spread(f.path.clone(), &f.array.as_ref()?.lengths)))
        .collect();
    if !arrays.is_empty() {
        let shown = arrays.len().min(SPREAD_ROWS);
        let caption = if shown < arrays.len() {
            format!(
                "Array lengths of the first {shown} of {} array fields (the table has them all).",
                arrays.len()
            )
        } else {
            "Array lengths: elements per document that has the array.".to_string()
        };
        out.push_str(&chart::spreads(&caption, words::num, &arrays[..shown]));
    }
    let refs: Vec<&RelationshipReport> = report
        .relationships
        .iter()
        .filter(|r| r.from.collection == c.name && r.from.database == c.database)
        .collect();
    if !refs.is_empty() {
        out.push_str("<p>References from here: ");
        let list: Vec<String> = refs
            .iter()
            .map(|r| {
                format!(
                    "<code>{}</code> → <code>{}.{}</code> ({})",
                    esc(&r.field),
                    esc(&r.to.to_string()),
                    esc(&r.key),
                    r.class
                )
            })
            .collect();
        out.push_str(&list.join("; "));
        out.push_str(".</p>\n");
    }
    out.push_str("</article>\n");
}

/// The size histogram, p50, p95 and max marked.
fn sizes(out: &mut String, c: &CollectionReport) {
    let h = &c.size_histogram;
    // About six powers of two fit at eight bins each; wider spreads get
    // fewer bins per power so that a bar stays wide enough to see.
    let octaves = (h.max().max(1) as f64 / h.min().max(1) as f64).log2();
    let per_octave = match octaves {
        o if o <= 6.0 => 8,
        o if o <= 12.0 => 4,
        o if o <= 24.0 => 2,
        _ => 1,
    };
    let bins = h.bins(per_octave);
    if bins.is_empty() {
        return;
    }
    let caption = format!(
        "Document sizes (BSON bytes): {} documents in bins of {} of a power of two, on a log axis. Mean {}; p50 and p95 are within 1.6 % of the exact value, min and max exact.",
        words::int(c.size.count),
        match per_octave {
            8 => "an eighth",
            4 => "a quarter",
            2 => "a half",
            _ => "the whole",
        },
        bytes(c.size.mean)
    );
    out.push_str(&chart::histogram(
        &caption,
        &bins,
        &[
            ("p50", c.size.p50 as f64),
            ("p95", c.size.p95 as f64),
            ("max", c.size.max as f64),
        ],
        bytes,
    ));
}

fn fields(out: &mut String, c: &CollectionReport) {
    let _ = writeln!(
        out,
        "<details{}><summary>{}{}</summary>",
        if c.fields.len() <= OPEN_FIELDS {
            " open"
        } else {
            ""
        },
        words::count(c.fields.len() as f64, "field path"),
        if c.paths_capped {
            format!(
                " (more occurred than the profile tracks: {} not tracked)",
                words::int(c.untracked_fields)
            )
        } else {
            String::new()
        }
    );
    out.push_str("<table><tr><th>field</th><th class=\"num\">present in</th><th>types</th><th class=\"num\">mean size</th><th class=\"num\">array length p50 / p95 / max</th><th class=\"num\">distinct values</th></tr>\n");
    for f in c.fields.iter().take(FIELD_ROWS) {
        let array = f.array.as_ref().map_or_else(String::new, |a| {
            format!(
                "{} / {} / {}",
                words::int(a.lengths.p50),
                words::int(a.lengths.p95),
                words::int(a.lengths.max)
            )
        });
        let _ = writeln!(
            out,
            "<tr><td style=\"padding-left:{}px\"><code>{}</code></td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            // A cell's own padding, then 18 px a level.
            7 + 18 * f.level.saturating_sub(1),
            esc(&f.path),
            percent(f.presence),
            esc(&types_text(&f.types)),
            bytes(f.avg_bytes),
            array,
            f.distinct_values.map_or_else(String::new, words::int)
        );
    }
    if c.fields.len() > FIELD_ROWS {
        let _ = writeln!(
            out,
            "<tr><td colspan=\"6\">… and {} more: the text, Markdown and JSON reports list every one.</td></tr>",
            words::count((c.fields.len() - FIELD_ROWS) as f64, "field path")
        );
    }
    out.push_str("</table></details>\n");
}
