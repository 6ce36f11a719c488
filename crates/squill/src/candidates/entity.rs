//! Entity-level candidates: a polymorphic collection for entities one read
//! fetches together, and computed fields for aggregates a read asks for.

use crate::candidates::facts::Facts;
use crate::model::{AggregateFn, EntityId, OperationId, OperationKind, RelationshipId};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "candidate")]
pub enum EntityCandidate {
    /// Several entities in one collection, told apart by `discriminator`.
    Polymorphic {
        entities: Vec<EntityId>,
        collection: String,
        discriminator: String,
        read_by: Vec<OperationId>,
    },
    /// An aggregate of a relationship's children kept in the parent.
    Computed {
        relationship: RelationshipId,
        function: AggregateFn,
        field: Option<String>,
        /// Name of the field in the parent document. An average keeps its
        /// sum here (`reviews_sum_rating`) and the count in `count`.
        name: String,
        /// For an average: the field of the count it is over
        /// (`reviews_count`), shared with a kept count of the same children.
        /// A child then moves both with an `$inc`, which an average itself
        /// cannot be moved by; the reader divides.
        count: Option<String>,
        /// Children per write of the field: 1 keeps it exact; more when
        /// every read accepts an error (`count(views) within 1%`), the
        /// application adding `every` children at a time.
        every: u64,
        /// Only the children that meet this test count (`where status =
        /// open`): each write that moves a child in or out of the subset
        /// moves the figure too.
        #[serde(skip_serializing_if = "Option::is_none")]
        filter: Option<crate::model::Condition>,
    },
    /// Fan-out on write: a document per reader (`collection`, under the
    /// reader's id) holding copies of the newest items of the parents it
    /// follows, pushed by each new item, so the feed is one document. The
    /// items of a parent with more followers than `threshold` (the
    /// followers' percentile) are not pushed: the reader's document lists
    /// such parents it follows (`outliers`) and the feed reads their newest
    /// items at read time.
    Timeline {
        feed: crate::candidates::feed::Feed,
        collection: String,
        threshold: Option<u64>,
    },
}

/// Every entity-level candidate of the model.
pub fn enumerate(facts: &Facts<'_>) -> Vec<EntityCandidate> {
    let model = facts.model;
    let mut out: Vec<EntityCandidate> = Vec::new();
    // Per computed candidate (its index in `out`): the smallest tolerance of
    // the reads that ask for it, `None` once one wants it exact.
    let mut tolerance: Vec<(usize, Option<f64>)> = Vec::new();
    for op_id in model.operation_ids() {
        let OperationKind::Read {
            entity,
            include,
            aggregates,
            family,
            ..
        } = &model.operation(op_id).kind
        else {
            continue;
        };
        // Kinds one query reads together: the children of several
        // relationships a read includes, or a family read with no parent.
        let mut children: Vec<EntityId> = Vec::new();
        if !family.is_empty() {
            children.push(*entity);
            children.extend(family.iter().copied());
        }
        for inc in include.iter().filter(|i| i.to_children) {
            let child = model.relationship(inc.relationship).child;
            if !children.contains(&child) {
                children.push(child);
            }
        }
        if children.len() >= 2 {
            children.sort();
            let existing = out.iter_mut().find_map(|c| match c {
                EntityCandidate::Polymorphic {
                    entities, read_by, ..
                } if *entities == children => Some(read_by),
                _ => None,
            });
            match existing {
                Some(read_by) => read_by.push(op_id),
                None => {
                    let names: Vec<&str> = children
                        .iter()
                        .map(|e| model.entity(*e).name.as_str())
                        .collect();
                    out.push(EntityCandidate::Polymorphic {
                        collection: shared_name(&names),
                        discriminator: "kind".to_string(),
                        entities: children,
                        read_by: vec![op_id],
                    });
                }
            }
        }
        for agg in aggregates {
            // An aggregate over a window the read also fetches (one hour of
            // readings: an include with a filter) is not a whole-parent figure a counter could keep.
            let windowed = include.iter().any(|i| i.fetches_aggregated(agg));
            // Per time unit there is no one figure to keep; a first value
            // is written once, which a parent written by every child cannot tell.
            // A count of a child's parents is kept over the links as an
            // entity (advise rewrites the model first).
            // A least or greatest of a subset is not kept yet: a child that
            // leaves the subset would need the figure read again over the
            // subset (NOTES-filtagg48); the read computes it instead.
            let filtered_extreme =
                agg.filter.is_some() && matches!(agg.function, AggregateFn::Min | AggregateFn::Max);
            if windowed
                || agg.window.is_some()
                || agg.function == AggregateFn::First
                || agg.from_child
                || filtered_extreme
            {
                continue;
            }
            let rel = model.relationship(agg.relationship);
            // The TTL monitor deletes expiring children without touching
            // their parent, so a figure kept over them would count every
            // child that ever lived (audit48 A3: a held sum that only
            // grew). The read computes it from the live children instead.
            if model.entity(rel.child).expires.is_some() {
                continue;
            }
            if !keepable(model, rel.child, agg) {
                continue;
            }
            let count = format!("{}_count", rel.parent_field);
            let name = match (&agg.function, &agg.field) {
                (AggregateFn::Count, _) | (_, None) => count.clone(),
                (AggregateFn::Avg, Some(field)) => format!("{}_sum_{field}", rel.parent_field),
                (f, Some(field)) => format!("{}_{}_{}", rel.parent_field, fn_name(*f), field),
            };
            let name = match &agg.filter {
                Some(c) => format!("{name}_{}", filter_suffix(c)),
                None => name,
            };
            let known = out.iter().position(|c| {
                matches!(c, EntityCandidate::Computed { relationship, function, field, filter, .. }
                    if *relationship == agg.relationship && *function == agg.function
                        && *field == agg.field && *filter == agg.filter)
            });
            match known {
                Some(i) => {
                    if let Some(t) = tolerance.iter_mut().find(|t| t.0 == i) {
                        t.1 = t.1.zip(agg.tolerance).map(|(a, b)| a.min(b));
                    }
                }
                None => {
                    tolerance.push((out.len(), agg.tolerance));
                    out.push(EntityCandidate::Computed {
                        relationship: agg.relationship,
                        function: agg.function,
                        field: agg.field.clone(),
                        name,
                        count: (agg.function == AggregateFn::Avg).then_some(count),
                        every: 1,
                        filter: agg.filter.clone(),
                    });
                }
            }
        }
    }
    // An average keeps the count of the same children: a count asked too
    // is that one, kept exact (the average divides by it).
    let averaged: Vec<RelationshipId> = out
        .iter()
        .filter_map(|c| match c {
            EntityCandidate::Computed {
                relationship,
                count: Some(_),
                ..
            } => Some(*relationship),
            _ => None,
        })
        .collect();
    let dropped: Vec<usize> = (0..out.len())
        .filter(|&i| {
            matches!(&out[i], EntityCandidate::Computed {
                relationship, function: AggregateFn::Count, ..
            } if averaged.contains(relationship))
        })
        .collect();
    for &i in dropped.iter().rev() {
        out.remove(i);
    }
    tolerance.retain(|t| !dropped.contains(&t.0));
    for t in &mut tolerance {
        t.0 -= dropped.iter().filter(|&&d| d < t.0).count();
    }
    for feed in crate::candidates::feed::feeds(model) {
        let reader = model.relationship(feed.following).parent;
        let followers = &model.relationship(feed.followers).children;
        // Only parents that can pass the percentile are outliers.
        let threshold = followers
            .highest_percentile()
            .map(|(_, t)| t)
            .filter(|t| followers.max.finite().is_none_or(|m| m > *t));
        out.push(EntityCandidate::Timeline {
            collection: format!("{}_timeline", model.entity(reader).name),
            feed,
            threshold,
        });
    }
    // A batch of `every` children moves the figure by at most the share the
    // readers accept of a typical parent's (1% of 20,000 views: 200).
    for (i, t) in tolerance {
        if let (
            Some(t),
            EntityCandidate::Computed {
                relationship,
                every,
                ..
            },
        ) = (t, &mut out[i])
        {
            *every = ((t * facts.typical(*relationship)).floor() as u64).max(1);
        }
    }
    out
}

/// The part of a filtered figure's name that says its test
/// (`status_open`, `cost_gt_100`): the field, the test unless it is
/// equality, the value. Characters a field name should not hold become
/// `_`, since the value is data (`status = "on hold"` → `status_on_hold`).
pub(super) fn filter_suffix(c: &crate::model::Condition) -> String {
    use crate::model::{Literal, Test};
    let test = match c.test {
        Test::Eq => "",
        Test::Ne => "_not",
        Test::Gt => "_gt",
        Test::Gte => "_gte",
        Test::Lt => "_lt",
        Test::Lte => "_lte",
    };
    let value = match &c.value {
        #[allow(clippy::cast_possible_truncation)]
        Literal::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => (*n as i64).to_string(),
        Literal::Number(n) => n.to_string(),
        Literal::Text(t) => t.clone(),
        Literal::Bool(b) => b.to_string(),
        Literal::Amount(x) | Literal::Field(x) | Literal::Param(x) => x.clone(),
    };
    let clean: String = format!("{}{test}_{value}", c.field)
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    clean
}

/// The key a figure computed at read time comes back under, beside the
/// array it is computed over: `tickets_count`, `tickets_sum_cost`, and
/// the subset's test after it (`tickets_count_status_open`), as a kept
/// figure of the same children is named.
pub fn read_figure_name(parent_field: &str, agg: &crate::model::Aggregate) -> String {
    let base = match (&agg.function, &agg.field) {
        (AggregateFn::Count, _) | (_, None) => format!("{parent_field}_{}", fn_name(agg.function)),
        (f, Some(field)) => format!("{parent_field}_{}_{field}", fn_name(*f)),
    };
    match &agg.filter {
        Some(c) => format!("{base}_{}", filter_suffix(c)),
        None => base,
    }
}

pub fn fn_name(f: AggregateFn) -> &'static str {
    f.name()
}

/// A name for a collection shared by entities: their common `_`-separated
/// suffix or prefix (`email_notification`, `sms_notification` → `notification`),
/// else the names joined.
fn shared_name(names: &[&str]) -> String {
    let split: Vec<Vec<&str>> = names.iter().map(|n| n.split('_').collect()).collect();
    let first = &split[0];
    let mut suffix: Vec<&str> = Vec::new();
    for i in 1..=first.len() {
        let w = first[first.len() - i];
        if split.iter().all(|s| s.len() >= i && s[s.len() - i] == w) {
            suffix.insert(0, w);
        } else {
            break;
        }
    }
    if !suffix.is_empty() {
        return suffix.join("_");
    }
    let mut prefix: Vec<&str> = Vec::new();
    for (i, w) in first.iter().enumerate() {
        if split.iter().all(|s| s.get(i) == Some(w)) {
            prefix.push(w);
        } else {
            break;
        }
    }
    if !prefix.is_empty() {
        return prefix.join("_");
    }
    names.join("_")
}

/// Whether the writes of `child` can keep `agg` in its parent. An
/// upsert (`otherwise: insert`) adds a child in a write whose plan has no
/// step for the parent's figure, and an increment of a field a filtered
/// figure is over (its sum's field, its test's field) moves the figure by
/// an amount only the write knows: both left the kept figure stale
/// (review48 A1, A2), so the read computes it instead.
///
/// A figure over a subset is moved by each child's share (0 outside the
/// subset), which a write learns from the child it writes. Three writes
/// do not learn it, so they would leave the figure stale, and the read
/// computes it instead (filtagg48's open list, review48 B6):
/// - a delete by a filter that names no one child: it deletes children
///   of many parents in one `deleteMany`, and its per-parent counts down
///   count every child, not the subset;
/// - an update that moves a child to another parent (`relinks`): the old
///   parent's figure would lose, and the new one's gain, the child's
///   share, which that plan does not compute;
/// - a link or unlink of the relationship by itself;
/// - an update by a filter that names no one child (a sweep) that changes
///   the tested or summed field.
fn keepable(model: &crate::model::Model, child: EntityId, agg: &crate::model::Aggregate) -> bool {
    use crate::model::OperationKind;
    let depends = |f: &str| {
        agg.filter
            .as_ref()
            .is_some_and(|c| c.field == f || agg.field.as_deref() == Some(f))
    };
    let subset = agg.filter.is_some();
    let unshared = |op: &crate::model::Operation| match &op.kind {
        OperationKind::Delete { entity, filter } => {
            crate::model::identity(model, *entity, filter).is_none()
        }
        // A sweep (`updateMany`) that changes the tested or summed field
        // of many children: one update, no child's share before and after
        // (review49 A2: a sweep closing stale tickets left the kept count
        // of open ones at 3 where 1 was open).
        OperationKind::Update {
            entity,
            filter,
            changes,
            relinks,
            ..
        } => {
            relinks.contains(&agg.relationship)
                || (crate::model::identity(model, *entity, filter).is_none()
                    && changes.iter().any(|f| depends(f)))
        }
        _ => false,
    };
    let links = model.workload.operations.iter().any(|op| {
        matches!(&op.kind,
            OperationKind::Link { relationship, .. } | OperationKind::UpdateLink { relationship, .. }
                if *relationship == agg.relationship)
    });
    !(subset && links)
        && model
            .workload
            .operations
            .iter()
            .filter(|op| op.entity_in(model) == child)
            .all(|op| {
                let moved_apart = op.terms.upserts()
                    || op.terms.increments.iter().any(|i| depends(&i.field))
                    || (subset && unshared(op));
                !moved_apart
            })
}

#[cfg(test)]
mod tests {
    #[test]
    fn shared_names() {
        assert_eq!(
            super::shared_name(&["email_notification", "sms_notification"]),
            "notification"
        );
        assert_eq!(super::shared_name(&["event_a", "event_b"]), "event");
        assert_eq!(super::shared_name(&["cat", "dog"]), "cat_dog");
    }
}
