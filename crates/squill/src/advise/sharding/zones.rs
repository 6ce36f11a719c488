//! Zones for a tenant larger than a shard's share: when the chosen key
//! is led by a reference to a parent (a store) and the largest parent's
//! documents weigh more than the collection's bytes over its shards, that
//! parent's key range gets a zone of its own (`sh.addShardToZone`,
//! `sh.updateZoneKeyRange`: MongoDB manual, Manage Shard Zones), so the
//! balancer does not pile it onto a shard with others.

use super::figures::of_field;
use crate::design::Collection;
use crate::design::capacity::Capacity;
use crate::design::sharding::{Sharding, Zone};
use crate::model::Model;

/// The shards the projection needs at its horizon: those the deployment
/// states, or those its `Shard` remedies ask for, at least two (one
/// shard is no sharded cluster).
pub(crate) fn shards_needed(c: &Capacity) -> u32 {
    let asked = c
        .remedies
        .iter()
        .filter_map(|r| match r {
            crate::design::capacity::Remedy::Shard { shards, .. } => Some(*shards),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    asked.max(c.deployment.shards).max(2)
}

pub(crate) fn zones(model: &Model, coll: &Collection, s: &Sharding, shards: u32) -> Vec<Zone> {
    let Some(key) = &s.chosen else {
        return Vec::new();
    };
    let Some(first) = key.fields.first().filter(|f| !f.hashed) else {
        return Vec::new();
    };
    let f = of_field(model, coll, &first.path, s.documents);
    let (Some(relationship), Some(top)) = (f.parent_of, f.top) else {
        return Vec::new();
    };
    // A zone is for a tenant the model states (the tenant's `largest`, or
    // a finite `max`): an unbounded relationship names no largest parent.
    let stated = model.relationship_by_name(&relationship).is_some_and(|r| {
        let rel = model.relationship(r);
        rel.children.max.finite().is_some()
            || model
                .tenant
                .is_some_and(|t| t.entity == rel.parent && t.largest.is_some())
    });
    if !stated {
        return Vec::new();
    }
    let shards = shards.max(2);
    let total = s.documents.saturating_mul(s.avg_doc_size_bytes);
    let share = total / u64::from(shards);
    let bytes = top.saturating_mul(s.avg_doc_size_bytes);
    if bytes <= share || share == 0 {
        return Vec::new();
    }
    vec![Zone {
        field: first.path.clone(),
        relationship,
        documents: top,
        bytes,
        shard_share_bytes: share,
        shards: u32::try_from(bytes.div_ceil(share)).unwrap_or(u32::MAX),
    }]
}
