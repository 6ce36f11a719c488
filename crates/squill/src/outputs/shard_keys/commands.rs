//! The mongosh commands that confirm a key on the live cluster and apply
//! it: `configureQueryAnalyzer` (sampling, MongoDB 7.0+), `analyzeShardKey`
//! on each of the best candidates, then `sh.shardCollection` (with the
//! supporting index when the dump's metadata shows none), or
//! `reshardCollection` for a collection sharded already, with the free
//! space resharding needs. Names reach the script only as string literals
//! (`words::script`).

use crate::scan::shard_keys::report::NamespaceKeys;
use crate::words::{self, script};

/// Candidates whose `analyzeShardKey` the commands run, best first.
pub const CONFIRM: usize = 3;
/// Samples per second asked of the query analyzer: the manual's example
/// (the server takes at most 50).
pub const SAMPLES_PER_SECOND: u32 = 5;

/// The commands, one per line, comments included.
pub fn mongosh(ns: &NamespaceKeys) -> Vec<String> {
    let name = script::js_string(&ns.namespace);
    let mut out = vec![
        "// 1. Sample the live queries for a day (MongoDB 7.0+):".to_string(),
        format!(
            "db.adminCommand({{ configureQueryAnalyzer: {name}, mode: \"full\", samplesPerSecond: {SAMPLES_PER_SECOND} }});"
        ),
        "// 2. Then measure the best candidates on the cluster:".to_string(),
    ];
    for c in ns.candidates.iter().take(CONFIRM) {
        out.push(format!(
            "db.adminCommand({{ analyzeShardKey: {name}, key: {} }});",
            key_doc(c)
        ));
    }
    let Some(best) = ns.candidates.first() else {
        return out;
    };
    let key = key_doc(best);
    out.push("// 3. Apply the first: shard the collection on it,".to_string());
    if best.supporting_index == Some(false) {
        let (db, coll) = ns
            .namespace
            .split_once('.')
            .unwrap_or(("test", &ns.namespace));
        out.push(format!(
            "db.getSiblingDB({}).getCollection({}).createIndex({key});",
            script::js_string(db),
            script::js_string(coll)
        ));
    }
    out.push(format!("sh.shardCollection({name}, {key});"));
    out.push(format!(
        "// or, if it is sharded on another key already: resharding needs free space of (collection + indexes) × 2 over the shards, at least {} for these documents' BSON",
        words::bytes((ns.data_bytes * 2) as f64)
    ));
    out.push(format!(
        "db.adminCommand({{ reshardCollection: {name}, key: {key} }});"
    ));
    out
}

/// The key as a JavaScript object literal (`{"tenant":1,"_id":1}`).
fn key_doc(c: &crate::scan::shard_keys::report::Candidate) -> String {
    let json = serde_json::to_string(&c.key).unwrap_or_else(|_| "{}".to_string());
    script::js_json(&json)
}
