//! The shard-key report in Markdown: a table per namespace and the
//! commands in a fenced block. Names go through `words::markdown`.

use super::{commands, key_text, monotonicity, most_common, pct};
use crate::scan::shard_keys::ShardKeyReport;
use crate::words::{self, markdown as md};
use std::fmt::Write as _;

pub fn markdown(report: &ShardKeyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Shard keys\n");
    let _ = writeln!(
        out,
        "`analyzeShardKey`'s metrics, from the dump and the logged query shapes (docs/shard-keys.md).\n"
    );
    for ns in &report.shard_keys {
        let _ = writeln!(out, "### {}\n", md::code_in_prose(&ns.namespace));
        let _ = writeln!(
            out,
            "| rank | key | distinct values | most common (frequency) | monotonicity | reads single / multi / scatter | writes single / multi / scatter | key updates | single writes without key | reason |"
        );
        let _ = writeln!(out, "|---:|---|---:|---|---|---|---|---:|---:|---|");
        for c in &ns.candidates {
            let (distinct, common, mono) = match &c.key_characteristics {
                Some(k) => (
                    words::int(k.num_distinct_values) + if k.is_unique { " (unique)" } else { "" },
                    most_common(k, md::code),
                    monotonicity(k).unwrap_or_else(|| "unknown".to_string()),
                ),
                None => ("–".to_string(), "–".to_string(), "–".to_string()),
            };
            let r = &c.read_distribution;
            let w = &c.write_distribution;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} / {} / {} | {} / {} / {} | {} | {} | {} |",
                c.rank,
                md::code(&key_text(&c.key)),
                distinct,
                common,
                mono,
                pct(r.percentage_of_single_shard_reads),
                pct(r.percentage_of_multi_shard_reads),
                pct(r.percentage_of_scatter_gather_reads),
                pct(w.percentage_of_single_shard_writes),
                pct(w.percentage_of_multi_shard_writes),
                pct(w.percentage_of_scatter_gather_writes),
                pct(w.percentage_of_shard_key_updates),
                pct(w.percentage_of_single_writes_without_shard_key),
                md::text(&c.reason.words())
            );
        }
        let lines = commands::mongosh(ns);
        let longest = lines
            .iter()
            .flat_map(|l| l.split(|c| c != '`'))
            .map(str::len)
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        let _ = writeln!(out, "\n{fence}js");
        for line in lines {
            let _ = writeln!(out, "{}", words::visible(&line));
        }
        let _ = writeln!(out, "{fence}\n");
    }
    out
}
