//! The shard-key report for a terminal: per namespace, each candidate with
//! its metrics, its reason, and the commands. Names go through
//! `words::visible`.

use super::{commands, key_text, monotonicity, most_common, pct};
use crate::scan::shard_keys::ShardKeyReport;
use crate::scan::shard_keys::report::Candidate;
use crate::words::{self, visible as v};
use std::fmt::Write as _;

pub fn text(report: &ShardKeyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "shard keys: analyzeShardKey's metrics, from the dump and the logged query shapes"
    );
    if report.shard_keys.is_empty() {
        let _ = writeln!(out, "  no collection with documents");
    }
    for ns in &report.shard_keys {
        let _ = writeln!(
            out,
            "\n{}: {}",
            v(&ns.namespace),
            words::count(ns.candidates.len() as f64, "candidate")
        );
        if ns.operations_not_classified > 0 {
            let _ = writeln!(
                out,
                "  ({} of shapes past the workload reader's cap are in no sample)",
                words::count(ns.operations_not_classified as f64, "logged operation")
            );
        }
        for c in &ns.candidates {
            candidate(&mut out, c);
        }
        let _ = writeln!(out, "  commands:");
        for line in commands::mongosh(ns) {
            let _ = writeln!(out, "    {}", v(&line));
        }
    }
    out
}

fn candidate(out: &mut String, c: &Candidate) {
    let _ = writeln!(out, "  {}. {}", c.rank, v(&key_text(&c.key)));
    if let Some(k) = &c.key_characteristics {
        let frequencies = most_common(k, |x| v(x).to_string());
        let mono = monotonicity(k).unwrap_or_else(|| "monotonicity unknown".to_string());
        let _ = writeln!(
            out,
            "     {} documents, {} distinct values{}, {} B each on average; most common: {}; {}",
            words::int(k.num_docs_total),
            words::int(k.num_distinct_values),
            if k.is_unique { " (unique)" } else { "" },
            words::int(k.avg_doc_size_bytes),
            frequencies,
            mono
        );
    }
    let r = &c.read_distribution;
    let s = r.sample_size;
    let _ = writeln!(
        out,
        "     reads {} (find {}, aggregate {}, count {}, distinct {}): single-shard {}, multi-shard {}, scatter-gather {}",
        words::int(s.total),
        words::int(s.find),
        words::int(s.aggregate),
        words::int(s.count),
        words::int(s.distinct),
        pct(r.percentage_of_single_shard_reads),
        pct(r.percentage_of_multi_shard_reads),
        pct(r.percentage_of_scatter_gather_reads)
    );
    let w = &c.write_distribution;
    let s = w.sample_size;
    let _ = writeln!(
        out,
        "     writes {} (update {}, delete {}, findAndModify {}): single-shard {}, multi-shard {}, scatter-gather {}; shard-key updates {}, single writes without the key {}, multi writes without the key {}",
        words::int(s.total),
        words::int(s.update),
        words::int(s.delete),
        words::int(s.find_and_modify),
        pct(w.percentage_of_single_shard_writes),
        pct(w.percentage_of_multi_shard_writes),
        pct(w.percentage_of_scatter_gather_writes),
        pct(w.percentage_of_shard_key_updates),
        pct(w.percentage_of_single_writes_without_shard_key),
        pct(w.percentage_of_multi_writes_without_shard_key)
    );
    let _ = writeln!(out, "     why: {}", v(&c.reason.words()));
}
