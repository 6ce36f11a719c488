//! Where each step of the design's plans goes under a candidate key. The
//! classification is the scan's (`scan::shard_keys::distribution::target`,
//! `analyzeShardKey`'s definitions): a step's filter is read as the query
//! shape a log would give. Reads are finds (and graph walks); writes are
//! updates, deletes, upserts and claims, as `analyzeShardKey` counts them;
//! inserts go to one shard each and are counted apart.

use crate::design::shard_key::ShardKey;
use crate::design::sharding::{Route, Spread, Target};
use crate::design::{Action, FilterOp, OperationPlan, Step};
use crate::scan::shard_keys::distribution::target;
use crate::workload::shape::{FieldUse, OpClass};

/// The class of a model filter operator, as a logged filter's would be.
fn class(op: FilterOp) -> OpClass {
    match op {
        FilterOp::Eq => OpClass::Eq,
        FilterOp::Range => OpClass::Range,
        // A subtree is the `$in` of its nodes' ids (or of a path's).
        FilterOp::In | FilterOp::Under => OpClass::In,
        FilterOp::Near => OpClass::Near,
        FilterOp::Within => OpClass::Within,
        FilterOp::Intersects => OpClass::Intersects,
    }
}

pub(crate) fn is_insert(a: Action) -> bool {
    matches!(a, Action::InsertOne | Action::InsertMany)
}

pub(crate) fn is_write(a: Action) -> bool {
    !is_insert(a) && !matches!(a, Action::Find | Action::GraphLookup)
}

/// A single-document write: the server routes it by the whole key, or
/// runs it as an internal transaction.
pub(crate) fn is_single_write(a: Action) -> bool {
    matches!(
        a,
        Action::UpdateOne | Action::DeleteOne | Action::Upsert | Action::FindOneAndUpdate
    )
}

/// Executions per second of a step (a batched one runs every `every`).
pub(crate) fn step_rate(op: &OperationPlan, s: &Step) -> f64 {
    op.rate / s.every.map_or(1.0, |e| e.max(1) as f64)
}

/// Where `s` goes under `key`.
pub(crate) fn target_of(key: &ShardKey, s: &Step) -> Target {
    let fields: Vec<FieldUse> = s
        .filter
        .iter()
        .map(|f| FieldUse {
            path: f.path.clone(),
            op: class(f.op),
        })
        .collect();
    target(key, &fields, false, false)
}

/// Every step of `ops` on `collection` (inserts aside) routed under `key`;
/// a multi-shard step's documents' bytes over `chunk` give its chunks.
pub(crate) fn routes(
    ops: &[OperationPlan],
    collection: &str,
    key: &ShardKey,
    avg_bytes: u64,
    chunk: u64,
) -> Vec<Route> {
    let mut out = Vec::new();
    for op in ops {
        for (i, s) in op.steps.iter().enumerate() {
            if s.collection != collection || is_insert(s.action) {
                continue;
            }
            let t = target_of(key, s);
            let chunks = (t == Target::MultiShard).then(|| {
                let bytes = s.documents.max(1.0) * avg_bytes as f64;
                ((bytes / chunk.max(1) as f64).ceil() as u64).max(1)
            });
            out.push(Route {
                operation: op.operation.clone(),
                step: i + 1,
                rate: step_rate(op, s),
                write: is_write(s.action),
                target: t,
                chunks,
            });
        }
    }
    out
}

/// The rate-weighted shares of reads (`write: false`) or writes.
pub(crate) fn spread(routes: &[Route], write: bool) -> Spread {
    let mut rate = 0.0;
    let mut by = [0.0f64; 3];
    for r in routes.iter().filter(|r| r.write == write) {
        rate += r.rate;
        let i = match r.target {
            Target::SingleShard => 0,
            Target::MultiShard => 1,
            Target::ScatterGather => 2,
        };
        by[i] += r.rate;
    }
    let pct = |x: f64| if rate > 0.0 { x / rate * 100.0 } else { 0.0 };
    Spread {
        rate,
        percentage_of_single_shard: pct(by[0]),
        percentage_of_multi_shard: pct(by[1]),
        percentage_of_scatter_gather: pct(by[2]),
    }
}

/// Inserts per second into `collection` (documents, not commands).
pub(crate) fn inserts(ops: &[OperationPlan], collection: &str) -> f64 {
    ops.iter()
        .flat_map(|op| op.steps.iter().map(move |s| (op, s)))
        .filter(|(_, s)| s.collection == collection && is_insert(s.action))
        .map(|(op, s)| step_rate(op, s) * s.documents.max(1.0))
        .sum()
}
