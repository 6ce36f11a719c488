//! The model's shard keys in the HTML report (`advise --shard`, or a
//! projection that outgrows one replica set): for each sharded
//! collection the same sentences as the text report (why, the key, the
//! zones), a chart of where each candidate sends the workload — to one
//! shard, to several, to all — and the candidates as a table.

use super::page::{F1, esc, id};
use crate::design::sharding::{KeyCandidate, Sharding};
use crate::design::{Collection, Design};
use crate::outputs::design::sharding as sh;
use crate::words;
use std::fmt::Write as _;

const WIDTH: f64 = 640.0;
const LABEL_H: f64 = 16.0;
const BAR_H: f64 = 14.0;
const GAP: f64 = 8.0;

/// The section, `id="sharding"`; empty when no collection is sharded.
pub(super) fn section(design: &Design) -> String {
    let sharded: Vec<(&Collection, &Sharding)> = design
        .collections
        .iter()
        .filter_map(|c| c.sharding.as_ref().map(|s| (c, s)))
        .collect();
    if sharded.is_empty() {
        return String::new();
    }
    let mut out = String::from("<section id=\"sharding\"><h2>Sharding</h2>\n");
    for (c, s) in sharded {
        let _ = writeln!(
            out,
            "<h3 id=\"{}\">{}</h3>\n<p><strong>{}</strong>. {}.</p>",
            esc(&id("shard", &c.name)),
            esc(&c.name),
            esc(&sh::chosen(s)),
            esc(&sh::cause(s))
        );
        let zones = sh::zones(s);
        if !zones.is_empty() {
            out.push_str("<ul>\n");
            for z in zones {
                let _ = writeln!(out, "<li>{}</li>", esc(&z));
            }
            out.push_str("</ul>\n");
        }
        out.push_str(&chart(&c.name, &s.candidates));
        table(&mut out, &s.candidates);
    }
    out.push_str("</section>\n");
    out
}

/// The shares of the workload (reads and writes by rate) a candidate
/// sends to one shard, to several and to every one, in 0–1.
fn split(c: &KeyCandidate) -> [f64; 3] {
    let rate = c.reads.rate + c.writes.rate;
    if rate <= 0.0 {
        return [0.0; 3];
    }
    let mix = |r: f64, w: f64| (c.reads.rate * r + c.writes.rate * w) / rate / 100.0;
    [
        mix(
            c.reads.percentage_of_single_shard,
            c.writes.percentage_of_single_shard,
        ),
        mix(
            c.reads.percentage_of_multi_shard,
            c.writes.percentage_of_multi_shard,
        ),
        mix(
            c.reads.percentage_of_scatter_gather,
            c.writes.percentage_of_scatter_gather,
        ),
    ]
}

/// One bar per candidate, split into the shares it sends to one shard,
/// to several and to all.
fn chart(collection: &str, candidates: &[KeyCandidate]) -> String {
    let caption = format!(
        "Where each candidate key of {collection} sends the reads and writes: one shard, several, every shard"
    );
    let rows: Vec<(String, [f64; 3])> = candidates
        .iter()
        .map(|c| (format!("{}. {}", c.rank, sh::key(&c.key)), split(c)))
        .collect();
    split_bars(&caption, &rows)
}

/// Horizontal bars, each split into the shares (0–1) of the work sent to
/// one shard, to several and to every shard, with its label above it:
/// the model's candidates and the scan's alike.
pub(super) fn split_bars(caption: &str, rows: &[(String, [f64; 3])]) -> String {
    let height = rows.len() as f64 * (LABEL_H + BAR_H + GAP) + GAP;
    let mut out = format!(
        "<figure><svg class=\"chart sharding\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH:.0} {height:.0}\" width=\"{WIDTH:.0}\" role=\"img\" aria-label=\"{}\">\n",
        esc(caption)
    );
    let mut y = GAP;
    for (name, parts) in rows {
        let label = format!(
            "{name}: {} one shard, {} several, {} all",
            words::percent(parts[0]),
            words::percent(parts[1]),
            words::percent(parts[2])
        );
        let _ = writeln!(
            out,
            "<text x=\"2\" y=\"{}\">{}</text>",
            F1(y + 12.0),
            esc(&super::diagram::cut(&label, 96))
        );
        let mut x = 2.0;
        for (share, class) in parts.iter().zip(["one", "several", "all"]) {
            let w = share.clamp(0.0, 1.0) * (WIDTH - 4.0);
            if w <= 0.0 {
                continue;
            }
            let _ = writeln!(
                out,
                "<rect class=\"bar {class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{BAR_H}\"><title>{}</title></rect>",
                F1(x),
                F1(y + LABEL_H),
                F1(w),
                esc(&label)
            );
            x += w;
        }
        y += LABEL_H + BAR_H + GAP;
    }
    out.push_str("</svg><figcaption>");
    out.push_str(&esc(caption));
    out.push_str(
        " <span class=\"legend\"><span class=\"one\">■ one shard</span><span class=\"several\">■ several</span><span class=\"all\">■ every shard</span></span></figcaption></figure>\n",
    );
    out
}

/// Every candidate in a row: its rank and key, then the text report's
/// line (verdict, figures, origins, warnings).
fn table(out: &mut String, candidates: &[KeyCandidate]) {
    out.push_str(
        "<table><tr><th class=\"num\">rank</th><th>key</th><th>verdict and figures</th></tr>\n",
    );
    for c in candidates {
        let line = sh::candidate(c);
        // The line starts with "N. {key} — "; the table has columns for both.
        let rest = line.split_once(" — ").map_or(line.as_str(), |(_, r)| r);
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td><code>{}</code></td><td>{}</td></tr>",
            c.rank,
            esc(&sh::key(&c.key)),
            esc(rest)
        );
    }
    out.push_str("</table>\n");
}
