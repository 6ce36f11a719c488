//! Shard keys from the model (`advise --shard`, or a projection whose
//! data outgrows one replica set): for each such collection of the chosen
//! design, the candidate keys (`candidates`), each priced on the model
//! grown to the horizon (`figures`) and on the design's plans (`route`),
//! judged by the rules (`rules`) and ranked; the first not ruled out is
//! chosen, with zones for a tenant larger than a shard's share (`zones`).
//! docs/shard-keys.md, "From a model", gives the rules and their sources.

mod candidates;
mod figures;
mod route;
mod rules;
mod zones;

pub(super) use zones::shards_needed;

#[cfg(test)]
mod tests;

use crate::design::capacity::{Capacity, LimitKind};
use crate::design::shard_key::ShardKey;
use crate::design::sharding::{
    KeyCandidate, KeyOrigin, KeyVerdict, KeyWarning, Sharding, ShardingCause, Target,
};
use crate::design::{Collection, Design, OperationPlan};
use crate::model::{DAYS_A_MONTH, Model, grown};
use crate::scan::shard_keys::reason::CHUNK_BYTES;

/// Sets each collection's `sharding`: every one when `asked`, else those
/// the projection says outgrow one replica set. `cluster_shards`: the
/// shards the search priced on, for zones when no projection says.
pub(super) fn choose(model: &Model, design: &mut Design, asked: bool, cluster_shards: Option<u32>) {
    let causes: Vec<Option<ShardingCause>> = design
        .collections
        .iter()
        .map(|c| cause(design.capacity.as_ref(), &c.name, asked))
        .collect();
    if causes.iter().all(Option::is_none) {
        return;
    }
    let month = design.capacity.as_ref().map_or(0, |c| c.horizon_months);
    let at = grown(model, f64::from(month) * DAYS_A_MONTH);
    let shards = design
        .capacity
        .as_ref()
        .map(zones::shards_needed)
        .or(cluster_shards);
    let mut out = Vec::new();
    for (coll, because) in design.collections.iter().zip(causes) {
        out.push(because.map(|because| {
            let (documents, avg) = size_at(design.capacity.as_ref(), coll);
            let mut s = price(&at, coll, &design.operations, documents, avg, because);
            s.month = month;
            s.zones = zones::zones(&at, coll, &s, shards.unwrap_or(1));
            s
        }));
    }
    for (coll, s) in design.collections.iter_mut().zip(out) {
        coll.sharding = s;
    }
}

/// Why `collection` is sharded, if it is.
fn cause(capacity: Option<&Capacity>, collection: &str, asked: bool) -> Option<ShardingCause> {
    let outgrows = capacity.and_then(|c| {
        c.limits.iter().find(|l| {
            l.limit == LimitKind::ShardingSize && l.collection.as_deref() == Some(collection)
        })
    });
    match outgrows {
        Some(l) => Some(ShardingCause::Outgrows {
            month: l.month,
            data_bytes: l.value,
            threshold: l.threshold,
        }),
        None => asked.then_some(ShardingCause::Asked),
    }
}

/// Documents and typical bytes of `coll` at the projection's horizon, or
/// today's without one.
fn size_at(capacity: Option<&Capacity>, coll: &Collection) -> (u64, u64) {
    capacity
        .and_then(|c| c.months.last())
        .and_then(|m| m.collections.iter().find(|r| r.collection == coll.name))
        .map_or((coll.documents, coll.size.typical_bytes), |r| {
            (r.documents, r.typical_bytes)
        })
}

/// Every candidate of `coll` priced and ranked.
pub(super) fn price(
    model: &Model,
    coll: &Collection,
    ops: &[OperationPlan],
    documents: u64,
    avg: u64,
    because: ShardingCause,
) -> Sharding {
    let inserts = route::inserts(ops, &coll.name);
    let distinct = |p: &str| figures::of_field(model, coll, p, documents).distinct;
    let mut list: Vec<KeyCandidate> = candidates::collect(coll, ops, &distinct)
        .into_iter()
        .map(|(key, origins)| candidate(model, coll, ops, key, origins, documents, avg, inserts))
        .collect();
    rules::rank(&mut list);
    let chosen = list
        .first()
        .filter(|c| c.verdict == KeyVerdict::Chosen)
        .map(|c| c.key.clone());
    Sharding {
        because,
        month: 0,
        documents,
        avg_doc_size_bytes: avg,
        chunk_bytes: CHUNK_BYTES,
        chosen,
        candidates: list,
        zones: Vec::new(),
    }
}

#[allow(clippy::too_many_arguments)] // one candidate's inputs, named at the one call
fn candidate(
    model: &Model,
    coll: &Collection,
    ops: &[OperationPlan],
    key: ShardKey,
    origins: Vec<KeyOrigin>,
    documents: u64,
    avg: u64,
    inserts: f64,
) -> KeyCandidate {
    let figures = figures::of_key(model, coll, &key, documents);
    let routes = route::routes(ops, &coll.name, &key, avg, CHUNK_BYTES);
    let single_writes: Vec<(String, Target)> = ops
        .iter()
        .flat_map(|op| op.steps.iter().map(move |s| (op, s)))
        .filter(|(_, s)| s.collection == coll.name && route::is_single_write(s.action))
        .map(|(op, s)| (op.operation.clone(), route::target_of(&key, s)))
        .collect();
    let first = key.fields.first().map_or("", |f| f.path.as_str());
    let mut warnings = rules::warnings(&figures, documents, avg, inserts, first, &single_writes);
    if let Some(w) = cross_shard_transactions(ops, &coll.name, &key) {
        warnings.push(w);
    }
    KeyCandidate {
        reads: route::spread(&routes, false),
        writes: route::spread(&routes, true),
        key,
        rank: 0,
        origins,
        num_distinct_values: figures.distinct,
        most_common_frequency: figures.top,
        most_common_bytes: figures.top.map(|t| t.saturating_mul(avg)),
        monotonic: figures.monotonic,
        inserts_per_second: inserts,
        routes,
        warnings,
        verdict: KeyVerdict::Behind {
            single_shard_share: 0.0,
            chosen_single_shard_share: 0.0,
        },
    }
}

/// Transactions that write this collection and something the key cannot
/// keep on one shard with it: another collection, or a step here that
/// is not single-shard. A transaction whose writes live on several shards
/// commits with two phases through a coordinator (MongoDB manual,
/// Production Considerations (Sharded Clusters), and "Transactions and
/// operations": a multi-shard transaction costs more than a
/// single-shard one).
fn cross_shard_transactions(
    ops: &[OperationPlan],
    collection: &str,
    key: &ShardKey,
) -> Option<KeyWarning> {
    let mut names = Vec::new();
    let mut rate = 0.0;
    for op in ops.iter().filter(|o| o.transaction) {
        let writes: Vec<_> = op
            .steps
            .iter()
            .filter(|s| route::is_write(s.action) || route::is_insert(s.action))
            .collect();
        let here = writes.iter().filter(|s| s.collection == collection).count();
        if here == 0 {
            continue;
        }
        let elsewhere = writes.len() > here;
        let spread = writes.iter().any(|s| {
            s.collection == collection
                && !route::is_insert(s.action)
                && route::target_of(key, s) != Target::SingleShard
        });
        if elsewhere || spread || here > 1 {
            names.push(op.operation.clone());
            rate += op.rate;
        }
    }
    (!names.is_empty()).then_some(KeyWarning::CrossShardTransactions {
        operations: names,
        rate,
    })
}
