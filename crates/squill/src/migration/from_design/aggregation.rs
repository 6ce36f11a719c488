//! The pieces of aggregation that the steps' pipelines and their figures
//! share: the temporary field names, `$field` paths, `$map`, a value in the
//! design's BSON type, and the lookup of an item's referenced documents.
//! Below both `pipeline` (which dispatches to each layout's builder) and
//! the layouts' builders (`bucket`, `timeline`).

use super::step_parts::{ItemField, ItemLookup, LookupBy};
use serde_json::{Map, Value as Json, json};

/// The temporary field the looked-up documents are read into.
pub(super) const TMP: &str = "__squill";

/// The other side's document looked up for an edge's copies.
pub(super) const OTHER: &str = "__squill_other";

/// `$name`: the value of field `name` in an aggregation expression.
pub(super) fn field(name: &str) -> String {
    format!("${name}")
}

/// `{target: "$$var.source", …}`.
pub(super) fn object_of(items: &[ItemField], var: &str) -> Json {
    let mut m = Map::new();
    for i in items {
        m.insert(i.target.clone(), json!(format!("$${var}.{}", i.source)));
    }
    Json::Object(m)
}

pub(super) fn map(input: Json, var: &str, into: Json) -> Json {
    json!({"$map": {"input": input, "as": var, "in": into}})
}

/// The stages that leave at `l.at` the documents an item references:
/// `{_id, copies…}` of the child's other parent (nothing when the child
/// names none, so the item has no such field either; a dangling id gets
/// the `_id` alone), or its own children's, in `_id` order.
pub(super) fn looked_up(l: &ItemLookup) -> [Json; 2] {
    match &l.by {
        LookupBy::Parent(id_field) => {
            let id = field(id_field);
            let value = with_id(&id, &l.copies, "o");
            [
                json!({"$lookup": {"from": l.from, "localField": id_field, "foreignField": "_id", "as": l.at}}),
                json!({"$set": {l.at.as_str(): {"$cond": [
                    {"$eq": [{"$ifNull": [id, null]}, null]},
                    "$$REMOVE",
                    {"$let": {"vars": {"o": {"$arrayElemAt": [field(&l.at), 0]}}, "in": value}},
                ]}}}),
            ]
        }
        LookupBy::Children(ref_field) => [
            json!({"$lookup": {"from": l.from, "localField": "_id", "foreignField": ref_field, "pipeline": [{"$sort": {"_id": 1}}], "as": l.at}}),
            json!({"$set": {l.at.as_str(): map(json!(field(&l.at)), "o", with_id("$$o._id", &l.copies, "o"))}}),
        ],
    }
}

/// `{_id: id, target: "$$var.source", …}`, or the bare id without items.
pub(super) fn with_id(id: &str, items: &[ItemField], var: &str) -> Json {
    if items.is_empty() {
        return json!(id);
    }
    let mut m = Map::new();
    m.insert("_id".into(), json!(id));
    if let Json::Object(o) = object_of(items, var) {
        m.extend(o);
    }
    Json::Object(m)
}

/// The value as the BSON type the design gives the field (a count is a
/// `long` in the validator; `$size` gives an `int`).
pub(super) fn convert(value: Json, bson_type: &str) -> Json {
    let op = match bson_type {
        "long" => "$toLong",
        "int" => "$toInt",
        "double" => "$toDouble",
        "decimal" => "$toDecimal",
        _ => return value,
    };
    json!({ op: value })
}
