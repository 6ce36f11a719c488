//! A figure of the verification (what it says, its JavaScript before the
//! migration and after) and the few calls of the script's runtime every
//! figure is written with. Below `verify` (which gathers each step's
//! figures) and the layouts that write their own (`archive`, `bucket`,
//! `kinds`, `overflow`, `timeline`).

use super::aggregation::TMP;
use serde_json::json;

/// One figure: what it says, its JavaScript before the migration and after.
pub(super) struct Figure {
    pub label: String,
    pub before: String,
    pub after: String,
}

pub(super) fn count(coll: &str, filter: &serde_json::Value) -> String {
    format!("squillCount({}, {filter})", json!(coll))
}

pub(super) fn sizes(coll: &str, field: &str) -> String {
    format!("squillSizes({}, {})", json!(coll), json!(field))
}

pub(super) fn set(path: &str) -> serde_json::Value {
    json!({ path: {"$ne": null} })
}

/// Where a walk up a tree starts, in words.
pub(super) fn node_at(start: &str) -> String {
    if start == "_id" {
        "the node itself".into()
    } else {
        format!("the node at {start}")
    }
}

/// The items the paths from a tree's root hold, by the walk up the parent ids.
pub(super) fn depths(coll: &str, start: &str, nodes: &str, parent: &str) -> String {
    format!(
        "squillDepths({}, {}, {}, {})",
        json!(coll),
        json!(start),
        json!(nodes),
        json!(parent)
    )
}

/// `squillMatching(coll, stages)`: the documents of `coll` that pass `stages`.
pub(super) fn matching(coll: &str, stages: serde_json::Value) -> String {
    format!("squillMatching({}, {stages})", json!(coll))
}

/// The `_id`s of an array's items (by `$map`: a path through an array is
/// not read as one by every server).
pub(super) fn ids_of(array: String) -> serde_json::Value {
    json!({"$map": {"input": {"$ifNull": [array, []]}, "as": "c", "in": "$$c._id"}})
}

/// The stages that keep the parents whose buckets (in `bucket`, by
/// `ref_field`) hold, all together, not as many children at `items` as
/// their array `field`.
pub(super) fn per_parent(
    bucket: &str,
    ref_field: &str,
    items: &str,
    field: &str,
) -> serde_json::Value {
    let held = json!({"$sum": {"$map": {
        "input": format!("${TMP}"),
        "as": "b",
        "in": {"$size": {"$ifNull": [format!("$$b.{items}"), []]}},
    }}});
    json!([
        {"$lookup": {"from": bucket, "localField": "_id", "foreignField": ref_field, "as": TMP}},
        {"$match": {"$expr": {"$ne": [{"$size": {"$ifNull": [format!("${field}"), []]}}, held]}}},
    ])
}
