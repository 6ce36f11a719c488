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
use crate::model::OperationKind;
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
            .sum::<f64>()
            + expired_writes(&c.indexes, &indexes);
        // Each index is also rewritten by the updates whose `changes` touch
        // one of its keys (a driver's position, moved by every ping), as the
        // cost model prices its upkeep: a run rewrites its entry once.
        let updates: Vec<f64> = indexes
            .iter()
            .map(|i| key_updates(cx, &c.entities, &i.keys))
            .collect();
        let updated: f64 = updates.iter().copied().fold(0.0, f64::max);
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
        let entries = updates.iter().fold(writes * indexes.len() as f64, |a, u| a + u);
        if (writes > 0.0 || updated > 0.0) && entries > uses {
            let what = if updated > 0.0 {
                let touched = indexes
                    .iter()
                    .zip(&updates)
                    .filter(|(_, u)| **u > 0.0)
                    .map(|(i, _)| i.name.as_str())
                    .collect::<Vec<_>>();
                let inserts = if writes > 0.0 {
                    format!(
                        "{} inserts or deletes/s, each updating {}, and ",
                        words::num(writes),
                        words::count(indexes.len() as f64, "index"),
                    )
                } else {
                    String::new()
                };
                format!(
                    "{} gets {inserts}updates that change keys of {} at up to {}/s: {} index entries/s in all",
                    c.name,
                    touched.join(", "),
                    words::num(updated),
                    words::num(entries),
                )
            } else {
                format!(
                    "{} gets {} inserts or deletes/s, each updating {} ({} index entries/s)",
                    c.name,
                    words::num(writes),
                    words::count(indexes.len() as f64, "index"),
                    words::num(entries),
                )
            };
            let mut evidence = vec![
                Evidence::new("indexes", indexes.iter().map(|i| i.name.clone()).collect::<Vec<_>>()),
                Evidence::new("writes_per_second", writes),
                Evidence::new("index_uses_per_second", uses),
            ];
            if updated > 0.0 {
                evidence.push(Evidence::new("index_updates_per_second", updates.clone()));
                evidence.push(Evidence::new("index_entries_per_second", entries));
            }
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!("{what}, while the operations that use them run {}/s", words::num(uses)),
                location: DesignCheck::at(format!("collections.{}", c.name)),
                evidence,
                help: Some("keep only the indexes these reads need; check each is worth its upkeep".to_string()),
            });
        }
    }
    out
}

/// The TTL monitor's deletes per second in a collection (ttl45: priced with
/// the inserts, costs/plan/expiry.rs): each takes an entry from every index
/// listed, unless one of them is partial. A partial index holds only the
/// documents its condition keeps (S17's pending jobs), which need not be
/// the ones that expire (finished jobs), so the rule does not say its
/// entries go with them.
fn expired_writes(all: &[crate::design::Index], listed: &[&crate::design::Index]) -> f64 {
    if listed.iter().any(|i| !i.partial.is_empty()) {
        return 0.0;
    }
    all.iter()
        .filter_map(|i| i.expired_per_second)
        .fold(0.0, |a, r| a + r.0)
}

/// Updates per second, in the design's mix, whose `changes` or `increments`
/// name a field an index on `keys` holds (the last part of a key's path), on
/// any entity the collection keeps. A run that changes two of its keys rewrites one entry.
fn key_updates(cx: &DesignCheck<'_>, entities: &[String], keys: &[(String, i32)]) -> f64 {
    let model = cx.facts.model;
    let leaves: Vec<&str> = keys
        .iter()
        .map(|(k, _)| k.rsplit('.').next().unwrap_or(k))
        .collect();
    model
        .workload
        .operations
        .iter()
        .filter_map(|op| match &op.kind {
            // `changes` and `increments` alike (`$set`, `$inc`).
            OperationKind::Update { entity, .. }
                if entities.contains(&model.entity(*entity).name)
                    && op.written_fields().iter().any(|c| leaves.contains(c)) =>
            {
                Some(op.rate(cx.facts.mix))
            }
            _ => None,
        })
        // From +0: an empty `sum` of floats is -0, which the evidence shows.
        .fold(0.0, |a, r| a + r)
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

    /// Drivers whose pings rewrite an indexed field 5,000 times a second,
    /// and no insert or delete (audit44 I): the index's upkeep is the
    /// updates', which the rule once did not count.
    const PINGS: &str = "
name: pings
entities:
  driver:
    count: 100000
    fields:
      status: {type: string(10), enum: [available, busy, off]}
      seen_at: date
      battery: int
operations:
  available:
    read: driver
    filter: {status: eq, seen_at: range}
    limit: 20
    rate: 10
  ping:
    update: driver
    filter: {_id: eq}
    changes: [seen_at]
    rate: 5000
";

    #[test]
    fn fires_on_updates_of_an_indexed_field() {
        let found = crate::rules::testing::judge_design_findings(&RULE, PINGS);
        assert_eq!(found.len(), 1, "{found:#?}");
        let ev = |k: &str| {
            found[0]
                .evidence
                .iter()
                .find(|e| e.name == k)
                .and_then(|e| e.value.as_f64())
        };
        assert_eq!(ev("writes_per_second"), Some(0.0));
        assert_eq!(ev("index_entries_per_second"), Some(5000.0));
        assert_eq!(ev("index_uses_per_second"), Some(10.0));
    }

    /// Near miss: the same pings change a field no index holds.
    #[test]
    fn stays_quiet_when_updates_miss_the_keys() {
        let model = PINGS.replace("changes: [seen_at]", "changes: [battery]");
        assert!(judge_design(&RULE, &model).is_empty());
    }

    /// Sessions that expire: each of the 100 inserted a second is deleted
    /// later by the TTL monitor, which takes its entry from `user_1` too,
    /// so 200 writes a second reach that index, not 100 (ttl45).
    const SESSIONS: &str = "
name: sessions
entities:
  session:
    count: 100000
    fields: {seen_at: date, user: string(20)}
    expires: {from: seen_at, after: 8 hours}
operations:
  login: {insert: session, rate: 100}
  by_user: {read: session, filter: {user: eq}, rate: 5}
";

    #[test]
    fn counts_the_ttl_monitor_s_deletes() {
        let writes = |model: &str| {
            let found = crate::rules::testing::judge_design_findings(&RULE, model);
            assert_eq!(found.len(), 1, "{found:#?}");
            found[0]
                .evidence
                .iter()
                .find(|e| e.name == "writes_per_second")
                .and_then(|e| e.value.as_f64())
        };
        assert_eq!(writes(SESSIONS), Some(200.0));
        // Near miss: the same sessions, lasting.
        assert_eq!(writes(&SESSIONS.replace("    expires: {from: seen_at, after: 8 hours}\n", "")), Some(100.0));
    }

    /// A leaderboard: each win `$inc`s the player's score, a key of the
    /// index the top-10 read uses, so it rewrites that entry as a `$set`
    /// would (ttl45: `increments` were not counted).
    const WINS: &str = "
name: wins
entities:
  player:
    count: 100000
    fields:
      score: int
      games: int
operations:
  top:
    read: player
    filter: {score: range}
    sort: -score
    limit: 10
    rate: 10
  win:
    update: player
    filter: {_id: eq}
    increments: {score: 10}
    rate: 5000
";

    #[test]
    fn fires_on_increments_of_an_indexed_field() {
        let found = crate::rules::testing::judge_design_findings(&RULE, WINS);
        assert_eq!(found.len(), 1, "{found:#?}");
        let ev = |k: &str| {
            found[0]
                .evidence
                .iter()
                .find(|e| e.name == k)
                .and_then(|e| e.value.as_f64())
        };
        assert_eq!(ev("index_entries_per_second"), Some(5000.0));
        assert_eq!(ev("index_uses_per_second"), Some(10.0));
    }

    /// Near miss: the same wins count games, which no index holds.
    #[test]
    fn stays_quiet_when_increments_miss_the_keys() {
        let model = WINS.replace("increments: {score: 10}", "increments: {games: 1}");
        assert!(judge_design(&RULE, &model).is_empty());
    }
}
