//! The check of a computed value (sum, minimum, maximum, average, first or
//! last value): each parent's value against the same figure recomputed from
//! wherever the children are today, by another road than the step's — the
//! children unwound and grouped back with `$group`'s accumulators, where the
//! step maps over an array — so a step that computed the wrong figure, read
//! the wrong field or skipped a batch shows as parents whose value differs.

use super::aggregation::{TMP, convert};
use super::step_parts::ChildrenAt;
use crate::model::AggregateFn;
use serde_json::{Value as Json, json};

/// How far two doubles may differ and still be the same figure (relative to
/// the larger of 1 and the recomputed value): an average summed in another
/// order can differ in its last bits.
const TOLERANCE: f64 = 1e-9;

/// The stages, run on the parent's collection, that keep the parents whose
/// `field` differs from `function` over the children's `of`.
pub(super) fn differing(
    field: &str,
    function: AggregateFn,
    of: &str,
    bson_type: &str,
    children: &ChildrenAt,
) -> Json {
    let value = format!("${TMP}.{of}");
    let mut stages = match children {
        ChildrenAt::Collection { child, ref_path } => vec![
            json!({"$lookup": {"from": child, "localField": "_id", "foreignField": ref_path, "as": TMP}}),
        ],
        ChildrenAt::Ids { child, field: ids } => vec![
            json!({"$lookup": {"from": child, "localField": ids, "foreignField": "_id", "as": TMP}}),
        ],
        ChildrenAt::Embedded { field: arr, one } => {
            let arr_path = format!("${arr}");
            let list = if *one {
                json!({"$cond": [{"$eq": [{"$type": arr_path}, "object"]}, [arr_path], []]})
            } else {
                json!({"$ifNull": [arr_path, []]})
            };
            vec![json!({"$project": {field: 1, TMP: list}})]
        }
    };
    // A child's place: its position in an embedded array, else its `_id`
    // (an ObjectId starts with its creation time), as the step orders them.
    let place = match children {
        ChildrenAt::Embedded { .. } => "$i",
        _ => "$__squill._id",
    };
    stages.push(json!({"$unwind": {"path": format!("${TMP}"), "preserveNullAndEmptyArrays": true, "includeArrayIndex": "i"}}));
    // The first (or last) child that has the value: the least (greatest)
    // `{at, x}` by its place, children without the value left out.
    let placed = json!({"$cond": [{"$eq": [{"$ifNull": [value, null]}, null]}, null, {"at": place, "x": value}]});
    let acc = match function {
        AggregateFn::Avg => json!({"$avg": value}),
        AggregateFn::Min => json!({"$min": value}),
        AggregateFn::Max => json!({"$max": value}),
        AggregateFn::Sum | AggregateFn::Count => json!({"$sum": value}),
        AggregateFn::First => json!({"$min": placed}),
        AggregateFn::Last => json!({"$max": placed}),
    };
    stages.push(json!({"$group": {"_id": "$_id", "v": {"$first": format!("${field}")}, "r": acc}}));
    let r = match function {
        AggregateFn::First | AggregateFn::Last => json!("$r.x"),
        _ => json!("$r"),
    };
    // No children: 0 for an average or a first or last value, as the step
    // and `squill generate` write it; none for a minimum or a maximum.
    let r = match function {
        AggregateFn::Avg | AggregateFn::First | AggregateFn::Last => json!({"$ifNull": [r, 0]}),
        _ => r,
    };
    stages.push(json!({"$project": {"v": 1, "r": convert(r, bson_type)}}));
    let close = json!({"$lte": [
        {"$abs": {"$subtract": ["$v", "$r"]}},
        {"$multiply": [TOLERANCE, {"$max": [1, {"$abs": "$r"}]}]},
    ]});
    stages.push(json!({"$match": {"$expr": {"$not": [{"$or": [
        {"$and": [{"$eq": [{"$ifNull": ["$v", null]}, null]}, {"$eq": [{"$ifNull": ["$r", null]}, null]}]},
        {"$and": [{"$isNumber": "$v"}, {"$isNumber": "$r"}, close]},
    ]}]}}}));
    Json::Array(stages)
}
