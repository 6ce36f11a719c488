//! The TTL monitor's deletes, priced with the inserts they follow.
//!
//! An entity that expires (`expires:`) is deleted by the server, not by an
//! operation, so no plan of the workload deletes it. In the steady state
//! the monitor deletes what the workload inserts: each document inserted
//! is deleted once, later. That delete (a TTL index key walked, the
//! document fetched and removed, an entry taken from each of its indexes)
//! and the TTL index's own entries are work the design pays for, and one
//! layout pays more of it than another: children kept in buckets go one
//! bucket per bucket filled, children of their own one document each.
//! So the insert's plan carries its share: its documents' later delete
//! and the TTL index's upkeep (`OpPlan::expiry`), which the search's
//! score and the report's totals then count as they count any plan.

use super::{OpPlan, Planner};
use crate::candidates::facts::Facts;
use crate::candidates::placement::{Home, Placement};
use crate::design::{Layout, Warning};
use crate::model::{AggregateFn, EntityId, OperationId, OperationKind};

/// Bytes of the oplog entry one deleted document writes (its `_id`), the
/// figure a delete step is priced at.
pub(crate) const DELETE_BYTES: f64 = 64.0;

/// The TTL index an expiring entity's documents need under a placement:
/// the date it keys and the documents one insert of the entity leads the
/// monitor to delete.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TtlKey {
    /// The date field the index keys: the entity's own, or its bucket's
    /// newest (`last_<field>`).
    pub field: String,
    /// The entity's date field the expiry counts from.
    pub date: String,
    /// Instances one deleted document holds: 1, or `per_bucket` for
    /// children kept in buckets (a bucket goes when its newest child
    /// expires).
    pub per_document: f64,
    /// The children kept in buckets, by the entity's name.
    pub buckets_of: Option<String>,
}

/// The TTL index of `e` under `p`, when `e` expires and has documents a
/// TTL index can delete: its own, or buckets that keep its newest date
/// (`last_<field>`, `candidates::enumerate`). An embedded entity cannot
/// expire by TTL (rule `expiry-lost` says so).
pub(crate) fn ttl_key(facts: &Facts<'_>, p: &Placement<'_>, e: EntityId) -> Option<TtlKey> {
    let entity = facts.model.entity(e);
    let x = entity.expires.as_ref()?;
    match p.home[e.index()] {
        Home::Own => Some(TtlKey {
            field: x.field.clone(),
            date: x.field.clone(),
            per_document: 1.0,
            buckets_of: None,
        }),
        Home::Bucketed { rel } => match &p.layouts[rel.index()] {
            Layout::Bucket {
                per_bucket,
                aggregates,
                ..
            } if aggregates.iter().any(|a| {
                a.function == AggregateFn::Last && a.field.as_deref() == Some(x.field.as_str())
            }) =>
            {
                Some(TtlKey {
                    field: format!("last_{}", x.field),
                    date: x.field.clone(),
                    per_document: (*per_bucket as f64).max(1.0),
                    buckets_of: Some(entity.name.clone()),
                })
            }
            _ => None,
        },
        Home::Embedded { .. } => None,
    }
}

/// The TTL index's standing cost, carried by the plan of an insert of an
/// expiring entity (`OpPlan::expiry`): the search and the totals count
/// it as an index a plan needs.
#[derive(Debug, Clone, PartialEq)]
pub struct TtlUpkeep {
    pub collection: String,
    pub keys: Vec<(String, i32)>,
    /// Entries held: one per document (or bucket).
    pub held: f64,
    /// Writes per second that write its entry: inserts, the monitor's
    /// deletes, and changes of the date (a bucket's newest date moves
    /// with every child added).
    pub writes: f64,
    pub keys_per_write: f64,
}

impl Planner<'_> {
    /// Documents of `e`'s collection the TTL monitor deletes per second
    /// under this placement (0 when `e` does not expire by TTL here).
    pub(super) fn expired_rate(&self, e: EntityId) -> f64 {
        ttl_key(self.facts, self.p, e).map_or(0.0, |t| {
            self.facts.entity_inserts[e.index()] / t.per_document
        })
    }

    /// Writes per second that reach an index of `e`'s documents: the
    /// workload's inserts and deletes, and the TTL monitor's deletes.
    pub(super) fn writes_of(&self, e: EntityId) -> f64 {
        self.facts.entity_writes[e.index()] + self.expired_rate(e)
    }

    /// Adds to an insert's plan the later delete of what it inserts, when
    /// the entity expires by TTL under this placement: per run, the
    /// documents deleted (a key of the TTL index walked and a document
    /// fetched and removed each, no round trip of the application's), the
    /// TTL index's upkeep, and a note that says so.
    pub(super) fn price_expiry(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        let OperationKind::Insert { entity, count, .. } = &model.operation(op).kind else {
            return;
        };
        let Some(t) = ttl_key(self.facts, self.p, *entity) else {
            return;
        };
        let deleted = (*count).max(1) as f64 / t.per_document;
        plan.cost.index_keys_examined += deleted;
        plan.cost.documents_examined += deleted;
        plan.cost.documents_written += deleted;
        plan.cost.bytes_written += deleted * DELETE_BYTES;
        let acc = self.access(*entity);
        let field = t.field.clone();
        // Updates of the date move the entry too. (A child added to a
        // bucket moves its newest date: that insert is among `writes_of`.)
        let moved = self.facts.field_update_rate(*entity, &t.date);
        plan.expiry = Some(TtlUpkeep {
            collection: acc.collection.clone(),
            keys: vec![(field, 1)],
            held: acc.docs * self.facts.held_share(acc.root),
            writes: self.writes_of(*entity) + moved,
            keys_per_write: 1.0,
        });
        plan.warnings.push(Warning::Expires {
            entity: self.name(*entity).to_string(),
            collection: acc.collection,
            per_second: self.expired_rate(*entity),
            buckets: t.buckets_of.is_some(),
        });
    }
}
