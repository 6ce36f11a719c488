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
        /// Name of the field in the parent document.
        name: String,
    },
}

/// Every entity-level candidate of the model.
pub fn enumerate(facts: &Facts<'_>) -> Vec<EntityCandidate> {
    let model = facts.model;
    let mut out: Vec<EntityCandidate> = Vec::new();
    for op_id in model.operation_ids() {
        let OperationKind::Read {
            include,
            aggregates,
            ..
        } = &model.operation(op_id).kind
        else {
            continue;
        };
        let mut children: Vec<EntityId> = Vec::new();
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
            let windowed = include
                .iter()
                .any(|i| i.relationship == agg.relationship && !i.filter.is_empty());
            if windowed {
                continue;
            }
            let rel = model.relationship(agg.relationship);
            let name = match (&agg.function, &agg.field) {
                (AggregateFn::Count, _) | (_, None) => format!("{}_count", rel.parent_field),
                (f, Some(field)) => format!("{}_{}_{}", rel.parent_field, fn_name(*f), field),
            };
            let cand = EntityCandidate::Computed {
                relationship: agg.relationship,
                function: agg.function,
                field: agg.field.clone(),
                name,
            };
            if !out.contains(&cand) {
                out.push(cand);
            }
        }
    }
    out
}

pub fn fn_name(f: AggregateFn) -> &'static str {
    match f {
        AggregateFn::Count => "count",
        AggregateFn::Sum => "sum",
        AggregateFn::Min => "min",
        AggregateFn::Max => "max",
        AggregateFn::Avg => "avg",
    }
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
