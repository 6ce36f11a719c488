//! The shard-key report of a scan (`scan --shard-keys --format html`):
//! for each namespace, a chart of where each candidate sends the logged
//! reads and writes (one shard, several, every shard), the candidates
//! with `analyzeShardKey`'s metrics as a table, and the commands. The
//! same figures and words as the text report; names through `esc`.

use super::page::{esc, id};
use super::sharding::split_bars;
use crate::outputs::shard_keys::{commands, key_text, monotonicity, most_common};
use crate::scan::shard_keys::ShardKeyReport;
use crate::scan::shard_keys::report::Candidate;
use crate::words;
use std::fmt::Write as _;

/// The section, `id="shard-keys"`.
pub(super) fn section(report: &ShardKeyReport) -> String {
    let mut out = String::from(
        "<section id=\"shard-keys\"><h2>Shard keys</h2>\n<p>analyzeShardKey's metrics, from the dump and the logged query shapes (docs/shard-keys.md).</p>\n",
    );
    if report.shard_keys.is_empty() {
        out.push_str("<p>No collection with documents.</p>\n");
    }
    for ns in &report.shard_keys {
        let _ = writeln!(
            out,
            "<h3 id=\"{}\">{}</h3>",
            esc(&id("keys", &ns.namespace)),
            esc(&ns.namespace)
        );
        if ns.operations_not_classified > 0 {
            let _ = writeln!(
                out,
                "<p>{} of shapes past the workload reader's cap are in no sample.</p>",
                esc(&words::count(
                    ns.operations_not_classified as f64,
                    "logged operation"
                ))
            );
        }
        let rows: Vec<(String, [f64; 3])> = ns
            .candidates
            .iter()
            .map(|c| (format!("{}. {}", c.rank, key_text(&c.key)), split(c)))
            .collect();
        out.push_str(&split_bars(
            &format!(
                "Where each candidate key of {} sends the logged reads and writes: one shard, several, every shard",
                ns.namespace
            ),
            &rows,
        ));
        table(&mut out, &ns.candidates);
        out.push_str("<pre><code>");
        for line in commands::mongosh(ns) {
            out.push_str(&esc(&line));
            out.push('\n');
        }
        out.push_str("</code></pre>\n");
    }
    out.push_str("</section>\n");
    out
}

/// The shares (0–1) of the logged reads and writes together that the
/// candidate sends to one shard, to several and to all.
fn split(c: &Candidate) -> [f64; 3] {
    let (r, w) = (&c.read_distribution, &c.write_distribution);
    let (nr, nw) = (r.sample_size.total as f64, w.sample_size.total as f64);
    if nr + nw <= 0.0 {
        return [0.0; 3];
    }
    let mix = |a: f64, b: f64| (nr * a + nw * b) / (nr + nw) / 100.0;
    [
        mix(
            r.percentage_of_single_shard_reads,
            w.percentage_of_single_shard_writes,
        ),
        mix(
            r.percentage_of_multi_shard_reads,
            w.percentage_of_multi_shard_writes,
        ),
        mix(
            r.percentage_of_scatter_gather_reads,
            w.percentage_of_scatter_gather_writes,
        ),
    ]
}

fn pct(p: f64) -> String {
    words::percent(p / 100.0)
}

fn table(out: &mut String, candidates: &[Candidate]) {
    out.push_str(
        "<table><tr><th class=\"num\">rank</th><th>key</th><th class=\"num\">distinct values</th><th>most common (frequency)</th><th>monotonicity</th><th>reads single / multi / scatter</th><th>writes single / multi / scatter</th><th>reason</th></tr>\n",
    );
    for c in candidates {
        let (distinct, common, mono) = match &c.key_characteristics {
            Some(k) => (
                words::int(k.num_distinct_values) + if k.is_unique { " (unique)" } else { "" },
                most_common(k, |v| v.to_string()),
                monotonicity(k).unwrap_or_else(|| "unknown".to_string()),
            ),
            None => ("–".into(), "–".into(), "–".into()),
        };
        let (r, w) = (&c.read_distribution, &c.write_distribution);
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{} / {} / {} of {}</td><td>{} / {} / {} of {}</td><td>{}</td></tr>",
            c.rank,
            esc(&key_text(&c.key)),
            esc(&distinct),
            esc(&common),
            esc(&mono),
            pct(r.percentage_of_single_shard_reads),
            pct(r.percentage_of_multi_shard_reads),
            pct(r.percentage_of_scatter_gather_reads),
            words::int(r.sample_size.total),
            pct(w.percentage_of_single_shard_writes),
            pct(w.percentage_of_multi_shard_writes),
            pct(w.percentage_of_scatter_gather_writes),
            words::int(w.sample_size.total),
            esc(&c.reason.words())
        );
    }
    out.push_str("</table>\n");
}
