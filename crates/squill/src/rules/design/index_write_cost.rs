//! `index-write-cost`: Every index is paid for on every write and in memory: create only the indexes the workload uses.

crate::rules::declare_rule! {
    id: "index-write-cost",
    summary: "Every index is paid for on every write and in memory: create only the indexes the workload uses",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;
use crate::words;

/// Reports collections whose secondary indexes are written more often than the
/// operations that use them run.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    // Where each operation stands in the design: asking every operation of
    // every collection whether an index names it was quadratic in the model
    // (issue 45).
    let mut at: rustc_hash::FxHashMap<&str, Vec<usize>> = rustc_hash::FxHashMap::default();
    for (k, o) in cx.design.operations.iter().enumerate() {
        at.entry(o.operation.as_str()).or_default().push(k);
    }
    for c in &cx.design.collections {
        // Secondary indexes only: the implicit `_id_` index is always there,
        // and a TTL index is used by the server's deletes, not by reads.
        let indexes: Vec<&crate::design::Index> = c
            .indexes
            .iter()
            .filter(|i| i.name != "_id_" && i.expire_after_seconds.is_none())
            .collect();
        if indexes.is_empty() {
            continue;
        }
        let writes: f64 = c
            .entities
            .iter()
            .filter_map(|n| model.entity_by_name(n))
            .map(|e| cx.facts.entity_writes[e.index()])
            .sum();
        // The operations in the design's order, each once, so the sum is
        // the same to the bit as a pass over every operation gives.
        let mut users: Vec<usize> = indexes
            .iter()
            .flat_map(|i| &i.used_by)
            .filter_map(|name| at.get(name.as_str()))
            .flatten()
            .copied()
            .collect();
        users.sort_unstable();
        users.dedup();
        let uses: f64 = users.iter().map(|k| cx.design.operations[*k].rate).sum();
        let entries = writes * indexes.len() as f64;
        if writes > 0.0 && entries > uses {
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{} gets {} inserts or deletes/s, each updating {} ({} index entries/s), while the operations that use them run {}/s",
                    c.name,
                    words::num(writes),
                    words::count(indexes.len() as f64, "index"),
                    words::num(entries),
                    words::num(uses)
                ),
                location: DesignCheck::at(format!("collections.{}", c.name)),
                evidence: vec![
                    Evidence::new("indexes", indexes.iter().map(|i| i.name.clone()).collect::<Vec<_>>()),
                    Evidence::new("writes_per_second", writes),
                    Evidence::new("index_uses_per_second", uses),
                ],
                help: Some("keep only the indexes these reads need; check each is worth its upkeep".to_string()),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_design};

    #[test]
    fn fires() {
        assert_eq!(
            judge_design(&RULE, &example("host-ip-in-logs.yaml")),
            [
            "logmsg gets 200 inserts or deletes/s, each updating 1 index (200 index entries/s), while the operations that use them run 20/s"
            ]
        );
    }

    /// Near miss: the same log, its index used by reads exactly as often
    /// as it is written (200/s each; the host's address no longer changes):
    /// worth its upkeep, just.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("host-ip-in-logs.yaml")
            .replace("    rate: 20\n", "    rate: 200\n")
            .replace("rate: 0.00001", "rate: 0");
        assert!(model.contains("rate: 200\n    filter: {host.ipaddr: eq}"));
        assert!(judge_design(&RULE, &model).is_empty());
    }
}
