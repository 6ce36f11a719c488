//! `readDistribution` and `writeDistribution`: each logged operation
//! classified against a candidate key the way `analyzeShardKey` classifies
//! a sampled query. A filter with an equality on every field of the key
//! names one key value, so one shard (single-shard). A filter that bounds
//! the key's first field without naming one value (a range, an `$in`, an
//! equality on a prefix of a compound key) targets part of the key space:
//! the server counts it as multi-shard whatever the data, and so does
//! squill. A filter that leaves the first field unbounded targets every
//! chunk (scatter-gather). A hashed field is bounded only by an equality
//! or an `$in`: its chunks are ordered by hash, not by value.
//!
//! The logs give shapes, not values; every execution of a shape is
//! classified as the shape is (docs/shard-keys.md lists what follows).

use super::characteristics::round;
use super::key::ShardKey;
use super::report::{ReadDistribution, Targeting, WriteDistribution};
use crate::workload::report::ShapeReport;
use crate::workload::shape::{FieldUse, OpClass, OpKind};

/// Where one query goes under a key (the type advise's choice from a
/// model routes its steps with too).
pub use crate::design::sharding::Target;

/// The filter a sampled query is classified by: the command's filter, or
/// for an aggregation its leading `$match`.
fn filter_of(shape: &ShapeReport) -> (&[FieldUse], bool) {
    let s = &shape.shape;
    if s.kind == OpKind::Aggregate {
        return match s.stages.first() {
            Some(stage) if stage.name == "$match" => (&stage.fields, false),
            _ => (&[], false),
        };
    }
    (&s.filter, s.or)
}

/// How a filter of these fields targets the key's chunks. `any_unanchored`:
/// some execution had a regex without `^`, which bounds nothing.
pub fn target(key: &ShardKey, fields: &[FieldUse], or: bool, any_unanchored: bool) -> Target {
    // A filter with `$or` lists its branches' fields together: whether each
    // branch names the key is lost, so it is classified as unbounded.
    if or {
        return Target::ScatterGather;
    }
    let has = |path: &str, class: &dyn Fn(OpClass) -> bool| {
        fields.iter().any(|u| u.path == path && class(u.op))
    };
    if key
        .fields
        .iter()
        .all(|f| has(&f.path, &|c| c == OpClass::Eq))
    {
        return Target::SingleShard;
    }
    let Some(first) = key.fields.first() else {
        return Target::ScatterGather;
    };
    let bounded = has(&first.path, &|c| match c {
        OpClass::Eq | OpClass::In => true,
        OpClass::Range => !first.hashed,
        OpClass::Regex => !first.hashed && !any_unanchored,
        // A geo predicate bounds no range of a shard key's B-tree index
        // (a shard key cannot be a geospatial index).
        OpClass::Exists
        | OpClass::NeNin
        | OpClass::Near
        | OpClass::Within
        | OpClass::Intersects
        | OpClass::Other => false,
    });
    if bounded {
        Target::MultiShard
    } else {
        Target::ScatterGather
    }
}

/// Whether the update writes a field of the key (or a document holding one).
fn updates_key(key: &ShardKey, shape: &ShapeReport) -> bool {
    shape.shape.update.iter().any(|u| {
        !u.path.is_empty()
            && key.fields.iter().any(|f| {
                f.path == u.path
                    || f.path.starts_with(&format!("{}.", u.path))
                    || u.path.starts_with(&format!("{}.", f.path))
            })
    })
}

fn add(t: &mut Targeting, target: Target, n: u64) {
    match target {
        Target::SingleShard => t.single_shard += n,
        Target::MultiShard => t.multi_shard += n,
        Target::ScatterGather => t.scatter_gather += n,
    }
}

fn percentage(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        round(n as f64 * 100.0 / total as f64)
    }
}

/// Both distributions of `shapes` (one namespace's) under `key`.
pub fn distributions(
    key: &ShardKey,
    shapes: &[ShapeReport],
) -> (ReadDistribution, WriteDistribution) {
    let mut reads = ReadDistribution::default();
    let mut writes = WriteDistribution::default();
    for shape in shapes {
        let n = shape.count;
        if n == 0 {
            continue;
        }
        let (fields, or) = filter_of(shape);
        let t = target(key, fields, or, shape.unanchored_regex > 0);
        let kind = shape.shape.kind;
        match kind {
            OpKind::Find | OpKind::Aggregate | OpKind::Count | OpKind::Distinct => {
                let s = &mut reads.sample_size;
                match kind {
                    OpKind::Find => s.find += n,
                    OpKind::Aggregate => s.aggregate += n,
                    OpKind::Count => s.count += n,
                    _ => s.distinct += n,
                }
                s.total += n;
                add(&mut reads.counts, t, n);
            }
            OpKind::Update | OpKind::Delete | OpKind::FindAndModify => {
                let s = &mut writes.sample_size;
                match kind {
                    OpKind::Update => s.update += n,
                    OpKind::Delete => s.delete += n,
                    _ => s.find_and_modify += n,
                }
                s.total += n;
                add(&mut writes.counts, t, n);
                if kind != OpKind::Delete && updates_key(key, shape) {
                    writes.shard_key_updates += n;
                }
                if t != Target::SingleShard {
                    // findAndModify writes one document: never multi.
                    let multi = if kind == OpKind::FindAndModify {
                        0
                    } else {
                        shape.multi.min(n)
                    };
                    writes.multi_writes_without_shard_key += multi;
                    writes.single_writes_without_shard_key += n - multi;
                }
            }
            OpKind::Insert | OpKind::GetMore => {}
        }
    }
    finish_reads(&mut reads);
    finish_writes(&mut writes);
    (reads, writes)
}

fn finish_reads(r: &mut ReadDistribution) {
    let total = r.sample_size.total;
    r.percentage_of_single_shard_reads = percentage(r.counts.single_shard, total);
    r.percentage_of_multi_shard_reads = percentage(r.counts.multi_shard, total);
    r.percentage_of_scatter_gather_reads = percentage(r.counts.scatter_gather, total);
}

fn finish_writes(w: &mut WriteDistribution) {
    let total = w.sample_size.total;
    w.percentage_of_single_shard_writes = percentage(w.counts.single_shard, total);
    w.percentage_of_multi_shard_writes = percentage(w.counts.multi_shard, total);
    w.percentage_of_scatter_gather_writes = percentage(w.counts.scatter_gather, total);
    w.percentage_of_shard_key_updates = percentage(w.shard_key_updates, total);
    w.percentage_of_single_writes_without_shard_key =
        percentage(w.single_writes_without_shard_key, total);
    w.percentage_of_multi_writes_without_shard_key =
        percentage(w.multi_writes_without_shard_key, total);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(list: &[(&str, OpClass)]) -> Vec<FieldUse> {
        list.iter()
            .map(|(p, op)| FieldUse {
                path: (*p).to_string(),
                op: *op,
            })
            .collect()
    }

    #[test]
    fn targets_as_the_server_classifies() {
        use OpClass::*;
        let ranged = ShardKey::ranged(&["tenant", "_id"]);
        let hashed = ShardKey::parse("user:hashed").unwrap();
        let t = |k: &ShardKey, f: &[(&str, OpClass)]| target(k, &uses(f), false, false);
        assert_eq!(
            t(&ranged, &[("tenant", Eq), ("_id", Eq)]),
            Target::SingleShard
        );
        assert_eq!(t(&ranged, &[("tenant", Eq)]), Target::MultiShard);
        assert_eq!(t(&ranged, &[("tenant", Range)]), Target::MultiShard);
        assert_eq!(t(&ranged, &[("_id", Eq)]), Target::ScatterGather);
        assert_eq!(t(&ranged, &[("tenant", Exists)]), Target::ScatterGather);
        assert_eq!(t(&ranged, &[("tenant", Within)]), Target::ScatterGather);
        assert_eq!(t(&hashed, &[("user", Eq)]), Target::SingleShard);
        assert_eq!(t(&hashed, &[("user", In)]), Target::MultiShard);
        assert_eq!(t(&hashed, &[("user", Range)]), Target::ScatterGather);
        assert_eq!(
            target(&ranged, &uses(&[("tenant", Eq), ("_id", Eq)]), true, false),
            Target::ScatterGather
        );
        let one = ShardKey::ranged(&["name"]);
        assert_eq!(
            target(&one, &uses(&[("name", Regex)]), false, false),
            Target::MultiShard
        );
        assert_eq!(
            target(&one, &uses(&[("name", Regex)]), false, true),
            Target::ScatterGather
        );
    }
}
