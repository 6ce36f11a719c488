//! What a sharded cluster adds to a plan (`Settings::cluster`; nothing on
//! one replica set). Two charges, each in `Cost::shard_requests` (priced
//! as round trips) and said by a warning of the plan:
//!
//! - **A step no key can target**: one that filters on no field a shard
//!   key could hold (only fields that hold arrays, or none) goes to every
//!   shard, whatever the key.
//! - **A join into a sharded collection** (a step that finds documents by
//!   values an earlier step read: the application's `$lookup`): the
//!   router sends it to every shard that holds one of the values. Whatever
//!   the key, `n` distinct values lie on about `S × (1 − (1 − 1/S)^n)` of
//!   `S` shards (each value's shard a draw), one request each where one
//!   replica set takes one; a join on a field that holds an array (ids
//!   kept in the child) goes to every shard, as no shard key can hold an
//!   array. This is the least any key can do — a join
//!   whose field the key does not lead goes to every shard — so the
//!   charge never overstates the cost. MongoDB manual, "mongos":
//!   targeted operations against broadcast operations; "Aggregation
//!   Pipeline and Sharded Collections": a pipeline with a `$lookup` does
//!   not run on one shard only, even when it starts with an exact match
//!   on the shard key (docs/cost-model.md, "On a sharded cluster").
//! - **A transaction across shards**: the group's written documents are
//!   key values of their collections (an unsharded collection's all on
//!   one shard, an `updateMany` on every shard); on `p` shards the commit
//!   is a two-phase commit — a prepare to each participant, the
//!   coordinator's decision written, a commit to each — `2p` more
//!   requests than a single-shard commit, weighted by the chance that
//!   the writes span shards at all. MongoDB manual, "Production
//!   Considerations (Sharded Clusters)": transactions on one shard
//!   perform as on a replica set, those that affect several shards incur
//!   a greater performance cost.

use super::{OpPlan, Planner, Target};
use crate::design::{Action, FilterOp, ValueSource, Warning};
use crate::settings::Cluster;

impl Planner<'_> {
    /// Charges the steps of `plan` on sharded collections that no shard
    /// key can send to one shard: a join whose values lie on several, and
    /// a step that filters on no field a key could hold.
    pub(super) fn price_sharded_steps(&self, plan: &mut OpPlan) {
        let Some(cluster) = &self.facts.settings.cluster else {
            return;
        };
        let mut charges = Vec::new();
        for step in &plan.steps {
            if matches!(step.action, Action::InsertOne | Action::InsertMany)
                || !cluster.holds(&step.collection)
            {
                continue;
            }
            let root = self.root_of(&step.collection);
            // A field that holds an array (ids kept in the child, the
            // elements of an embedded array) cannot be in a shard key.
            let keyable =
                |path: &str| root.is_none_or(|e| self.values_per_document(e, path) <= 1.0);
            let warning = if !step.filter.iter().any(|f| keyable(&f.path)) {
                Warning::EveryShard {
                    collection: step.collection.clone(),
                    of: cluster.shards,
                }
            } else if let Some((path, values)) = join_values(step, &plan.steps)
                && keyable(path)
            {
                Warning::ShardedJoin {
                    collection: step.collection.clone(),
                    values,
                    shards: cluster.shards_hit(values),
                    of: cluster.shards,
                }
            } else {
                continue;
            };
            let shards = match &warning {
                Warning::ShardedJoin { shards, .. } => *shards,
                _ => f64::from(cluster.shards),
            };
            let extra = (shards - 1.0) / step.every.map_or(1.0, |e| e.max(1) as f64);
            if extra > 0.0 {
                charges.push((warning, extra));
            }
        }
        for (warning, extra) in charges {
            plan.cost.shard_requests += extra;
            if !plan.warnings.contains(&warning) {
                plan.warnings.push(warning);
            }
        }
    }

    /// The entity whose documents make up `collection` (its root).
    fn root_of(&self, collection: &str) -> Option<crate::model::EntityId> {
        self.facts.model.entity_ids().find(|&e| {
            self.p.root(e) == e && self.p.collection(self.facts, self.space, e) == collection
        })
    }

    /// Charges the commit of an atomic group whose writes (`targets`, the
    /// group's) fall on several shards; `share` is this operation's part
    /// of the group's one transaction.
    pub(super) fn price_cross_shard_commit(
        &self,
        plan: &mut OpPlan,
        group: &str,
        targets: &[Target],
        share: f64,
    ) {
        let Some((participants, extra, of)) = self.commit_spread(targets) else {
            return;
        };
        plan.cost.shard_requests += extra * share;
        plan.warnings.push(Warning::CrossShardTransaction {
            group: group.to_string(),
            participants,
            of,
            extra,
        });
    }

    /// Charges the commit of a guarded link's own transaction
    /// (`link_guarded`): the guard's write of `entity` and the link's
    /// writes (the plan's targets) are documents of their collections like
    /// a group's, and on several shards their commit is two-phase too. An
    /// atomic group that takes the guard's transaction over prices its
    /// own commit instead (`unprice_cross_shard_guard`).
    pub(super) fn price_cross_shard_guard(&self, plan: &mut OpPlan, operation: &str, entity: &str) {
        let Some((participants, extra, of)) = self.commit_spread(&plan.targets) else {
            return;
        };
        plan.cost.shard_requests += extra;
        plan.warnings.push(Warning::CrossShardGuard {
            operation: operation.to_string(),
            entity: entity.to_string(),
            participants,
            of,
            extra,
        });
    }

    /// The shards a transaction writing `targets` commits on, expected,
    /// the requests its two-phase commit adds (weighted by the chance that
    /// the writes span shards at all), and the cluster's shards; `None` on
    /// one replica set or when the writes lie on one shard.
    fn commit_spread(&self, targets: &[Target]) -> Option<(f64, f64, u32)> {
        let cluster = self.facts.settings.cluster.as_ref()?;
        let values = commit_values(cluster, targets, |t| {
            self.p.collection(self.facts, self.space, t.root)
        });
        let chance = cluster.spread_chance(values);
        if chance <= 0.0 {
            return None;
        }
        let participants = cluster.shards_hit(values);
        Some((participants, 2.0 * participants * chance, cluster.shards))
    }
}

/// Takes back the charge of a guarded link's own commit
/// (`price_cross_shard_guard`) when an atomic group's transaction holds
/// the link instead.
pub(super) fn unprice_cross_shard_guard(plan: &mut OpPlan) {
    plan.warnings.retain(|w| match w {
        Warning::CrossShardGuard { extra, .. } => {
            plan.cost.shard_requests -= extra;
            false
        }
        _ => true,
    });
}

/// The distinct key values a join step looks up, when the step is a join:
/// its filter takes values an earlier step read. `$in` over `_id` looks
/// up each document it finds (ids kept in the parent); `$in` over another
/// field, one value per document of the step the values come from (the
/// parents whose children it finds); an equality, one value.
fn join_values<'s>(
    step: &'s crate::design::Step,
    steps: &[crate::design::Step],
) -> Option<(&'s str, f64)> {
    if step.action != Action::Find {
        return None;
    }
    let f = step
        .filter
        .iter()
        .find(|f| matches!(f.value_from, ValueSource::FromStep { .. }))?;
    let ValueSource::FromStep { step: from } = f.value_from else {
        return None;
    };
    let values = match f.op {
        FilterOp::In if f.path == "_id" || f.path.ends_with("._id") => step.documents,
        FilterOp::In => steps
            .get(from.saturating_sub(1))
            .map_or(step.documents, |s| s.documents),
        _ => 1.0,
    };
    Some((f.path.as_str(), values.max(1.0)))
}

/// The key values a group's writes stand for, for the shards they fall
/// on: one per document written to a sharded collection, the whole
/// cluster's shards for a write of many there, and one for all the
/// writes to unsharded collections (they live on the database's primary
/// shard).
fn commit_values(
    cluster: &Cluster,
    targets: &[Target],
    collection: impl Fn(&Target) -> String,
) -> f64 {
    let mut values = 0.0;
    let mut unsharded = false;
    for t in targets {
        if !cluster.holds(&collection(t)) {
            unsharded = true;
        } else if t.many {
            values += f64::from(cluster.shards);
        } else {
            values += 1.0;
        }
    }
    values + f64::from(u8::from(unsharded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EntityId;

    fn t(root: usize, many: bool) -> Target {
        Target {
            root: EntityId::from_index(root),
            many,
        }
    }

    #[test]
    fn unsharded_writes_count_once_and_a_write_of_many_counts_every_shard() {
        let c = Cluster {
            shards: 4,
            only: Some(vec!["e0".into(), "e1".into()]),
        };
        let name = |t: &Target| format!("e{}", t.root.index());
        // Two sharded documents and two unsharded: 2 + 1.
        let v = commit_values(
            &c,
            &[t(0, false), t(1, false), t(2, false), t(3, false)],
            name,
        );
        assert!((v - 3.0).abs() < 1e-12);
        // An updateMany on a sharded collection: every shard.
        let v = commit_values(&c, &[t(0, true)], name);
        assert!((v - 4.0).abs() < 1e-12);
        // Only unsharded collections: one shard, no two-phase commit.
        let v = commit_values(&c, &[t(2, false), t(3, true)], name);
        assert!((c.spread_chance(v)).abs() < 1e-12);
    }
}
