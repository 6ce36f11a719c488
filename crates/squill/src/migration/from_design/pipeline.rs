//! Each step's aggregation pipeline (after its batch's `$match`), and the
//! figures that check it. Arrays are always read with `$map`, never with a
//! path through an array (`"$children.field"`): the MongoDB-compatible server
//! the tests run on resolves such a path to nothing, and `$map` means the
//! same everywhere.

use super::action::{Action, Undo, collection};
use super::aggregation::{OTHER, TMP, convert, field, looked_up, map, object_of, with_id};
use super::step_parts::{ChildrenAt, EdgeRef, ItemField, ParentField, TheirAttributes};
use crate::model::AggregateFn;
use serde_json::{Map, Value as Json, json};

/// A tree's node's distance from where the walk up the tree starts.
const DEPTH: &str = "__squill_depth";

fn merge(into: &str, when_matched: &str, when_not: &str) -> Json {
    json!({"$merge": {"into": into, "on": "_id", "whenMatched": when_matched, "whenNotMatched": when_not}})
}

/// The pipeline of a step, run on the collection `collection(action)`.
pub(super) fn pipeline(action: &Action) -> Vec<Json> {
    match action {
        Action::ParentsFromChildren {
            field: f,
            parent,
            items,
            ..
        } => parents_from_children(f, parent, items),
        Action::RefFromOwnId {
            child, ref_field, ..
        } => vec![
            json!({"$project": {ref_field.as_str(): "$_id"}}),
            merge(child, "merge", "discard"),
        ],
        // The documents of today only (those written here have no
        // reference); two children of one parent land on one `_id`.
        Action::Rekey {
            child, ref_field, ..
        } => vec![
            json!({"$match": {ref_field.as_str(): {"$ne": null}}}),
            json!({"$set": {"_id": field(ref_field)}}),
            json!({"$unset": ref_field}),
            merge(child, "replace", "insert"),
        ],
        Action::BuildParent {
            parent,
            field: f,
            child,
            ref_path,
            what,
            lookups,
            ..
        } => {
            let (mut sub, value) = match what {
                ParentField::Ids => (
                    vec![
                        json!({"$sort": {"_id": 1}}),
                        json!({"$project": {"_id": 1}}),
                    ],
                    map(json!(field(TMP)), "c", json!("$$c._id")),
                ),
                // (No child: `$arrayElemAt` of none is missing, and so is
                // the field.)
                ParentField::Id => (
                    vec![
                        json!({"$sort": {"_id": 1}}),
                        json!({"$project": {"_id": 1}}),
                    ],
                    json!({"$arrayElemAt": [map(json!(field(TMP)), "c", json!("$$c._id")), 0]}),
                ),
                ParentField::Holders { copies, attributes } => {
                    let mut keep = Map::new();
                    keep.insert("_id".into(), json!(1));
                    for c in copies {
                        keep.insert(c.source.clone(), json!(1));
                    }
                    let array = ref_path.split('.').next().unwrap_or(ref_path);
                    if !attributes.is_empty() {
                        keep.insert(array.into(), json!(1));
                    }
                    let mut item = with_id("$$c._id", copies, "c");
                    if !attributes.is_empty() {
                        // The link's attributes: the holder's item that
                        // names this document.
                        if let Json::Object(m) = &mut item {
                            if let Json::Object(o) = object_of(attributes, "it") {
                                m.extend(o);
                            }
                        } else {
                            item = with_id("$$c._id", attributes, "it");
                        }
                        let named = json!({"$arrayElemAt": [{"$filter": {"input": {"$ifNull": [format!("$$c.{array}"), []]}, "cond": {"$eq": ["$$this._id", "$_id"]}}}, 0]});
                        item = json!({"$let": {"vars": {"it": named}, "in": item}});
                    }
                    (
                        vec![json!({"$sort": {"_id": 1}}), json!({"$project": keep})],
                        map(json!(field(TMP)), "c", item),
                    )
                }
                ParentField::Embedded { items, one } => {
                    let all = map(json!(field(TMP)), "c", object_of(items, "c"));
                    let value = if *one {
                        json!({"$arrayElemAt": [all, 0]})
                    } else {
                        all
                    };
                    (vec![json!({"$sort": {"_id": 1}})], value)
                }
                ParentField::FromBuckets { array, key, items } => {
                    let mut sort = Map::new();
                    for k in key {
                        sort.insert(k.clone(), json!(1));
                    }
                    sort.insert("_id".into(), json!(1));
                    let each = map(
                        json!({"$ifNull": [format!("$$this.{array}"), []]}),
                        "c",
                        object_of(items, "c"),
                    );
                    (
                        vec![json!({"$sort": sort})],
                        json!({"$reduce": {"input": field(TMP), "initialValue": [], "in": {"$concatArrays": ["$$value", each]}}}),
                    )
                }
                ParentField::First { items, k } => (
                    vec![json!({"$sort": {"_id": 1}}), json!({"$limit": k})],
                    map(json!(field(TMP)), "c", object_of(items, "c")),
                ),
                ParentField::Copies { items, latest } => {
                    let sub = match latest {
                        Some(l) => {
                            let mut sort = Map::new();
                            if let Some(s) = &l.sort {
                                sort.insert(s.clone(), json!(-1));
                            }
                            sort.insert("_id".into(), json!(-1));
                            vec![json!({"$sort": sort}), json!({"$limit": l.k})]
                        }
                        None => vec![json!({"$sort": {"_id": 1}})],
                    };
                    (sub, map(json!(field(TMP)), "c", object_of(items, "c")))
                }
                ParentField::FromEdges {
                    id, items, copies, ..
                } => {
                    let the_id = format!("$$c.{id}");
                    let mut item = with_id(&the_id, items, "c");
                    if !copies.is_empty() {
                        let mut m = Map::new();
                        m.insert("_id".into(), json!(the_id));
                        if let Json::Object(o) = object_of(copies, "o") {
                            m.extend(o);
                        }
                        if let Json::Object(o) = object_of(items, "c") {
                            m.extend(o);
                        }
                        let found = json!({"$arrayElemAt": [{"$filter": {"input": field(OTHER), "cond": {"$eq": ["$$this._id", the_id]}}}, 0]});
                        item = json!({"$let": {"vars": {"o": found}, "in": Json::Object(m)}});
                    }
                    (
                        vec![json!({"$sort": {"_id": 1}})],
                        map(json!(field(TMP)), "c", item),
                    )
                }
            };
            sub.extend(lookups.iter().flat_map(looked_up));
            // The other side's documents, for the copies its links lack.
            let others = match what {
                ParentField::FromEdges {
                    id, other, copies, ..
                } if !copies.is_empty() => vec![
                    json!({"$set": {OTHER: map(json!(field(TMP)), "c", json!(format!("$$c.{id}")))}}),
                    json!({"$lookup": {"from": other, "localField": OTHER, "foreignField": "_id", "as": OTHER}}),
                ],
                _ => Vec::new(),
            };
            let mut out = Vec::new();
            if let ParentField::Holders { .. } = what {
                // Built once: a re-run leaves it alone, as the array it is
                // read from may have changed its items in place since.
                out.push(json!({"$match": {f.as_str(): {"$exists": false}}}));
            }
            out.push(
                json!({"$lookup": {"from": child, "localField": "_id", "foreignField": ref_path, "pipeline": sub, "as": TMP}}),
            );
            out.extend(others);
            out.extend([
                json!({"$project": {f.as_str(): value}}),
                merge(parent, "merge", "discard"),
            ]);
            out
        }
        Action::Unwind {
            field: f,
            one,
            child,
            ref_field,
            items,
            keeps_id,
            ..
        } => {
            let mut out = Map::new();
            if !keeps_id {
                // The server gives each new document its `_id`.
                out.insert("_id".into(), json!(0));
            }
            for i in items {
                out.insert(i.target.clone(), json!(format!("${TMP}.{}", i.source)));
            }
            out.insert(ref_field.clone(), json!("$_id"));
            vec![
                json!({"$project": {TMP: as_array(f, *one)}}),
                json!({"$unwind": field(TMP)}),
                json!({"$project": out}),
                merge(child, "replace", "insert"),
            ]
        }
        Action::RefFromIds {
            field: f,
            child,
            ref_field,
            objects,
            one,
            ..
        } => {
            let id = if *objects {
                format!("${TMP}._id")
            } else {
                field(TMP)
            };
            // A one-to-one's id as an array of one (of none when unset).
            let ids = if *one {
                json!({"$cond": [{"$eq": [{"$ifNull": [field(f), null]}, null]}, [], [field(f)]]})
            } else {
                json!({"$ifNull": [field(f), []]})
            };
            vec![
                json!({"$project": {TMP: ids}}),
                json!({"$unwind": field(TMP)}),
                json!({"$project": {"_id": id, ref_field.as_str(): "$_id"}}),
                merge(child, "merge", "discard"),
            ]
        }
        Action::IdFromCopy {
            child,
            ref_path,
            target,
            ..
        } => vec![
            // Not yet converted: a converted reference has no `_id` under it.
            json!({"$match": {ref_path.as_str(): {"$ne": null}}}),
            json!({"$project": {target.as_str(): field(ref_path)}}),
            merge(child, "merge", "discard"),
        ],
        Action::IdsFromCopies {
            parent,
            field: f,
            target,
            ..
        } => vec![
            // An item converted already stays as it is.
            json!({"$project": {target.as_str(): map(
                json!({"$ifNull": [field(f), []]}),
                "c",
                json!({"$cond": [{"$eq": [{"$type": "$$c"}, "object"]}, "$$c._id", "$$c"]}),
            )}}),
            merge(parent, "merge", "discard"),
        ],
        Action::Edge {
            field: f,
            objects,
            holder_ref,
            other_ref,
            other,
            attributes,
            ..
        } => edge(f, *objects, holder_ref, other_ref, other, attributes),
        Action::LinkItems {
            collection,
            field: f,
            target,
            other,
            copies,
            attributes,
            theirs,
            ..
        } => link_items(
            collection,
            f,
            target,
            other,
            copies,
            attributes,
            theirs.as_deref(),
        ),
        Action::CopyIntoChild {
            child,
            ref_field,
            target,
            parent,
            copies,
            ..
        } => {
            let mut value = Map::new();
            value.insert("_id".into(), json!(field(ref_field)));
            for c in copies {
                value.insert(c.target.clone(), json!(format!("${TMP}.{}", c.source)));
            }
            vec![
                // Not yet converted: a re-run leaves converted children alone.
                json!({"$match": {ref_field.as_str(): {"$exists": true, "$ne": null, "$not": {"$type": "object"}}}}),
                json!({"$lookup": {"from": parent, "localField": ref_field, "foreignField": "_id", "as": TMP}}),
                json!({"$project": {ref_field.as_str(): 1, TMP: {"$arrayElemAt": [field(TMP), 0]}}}),
                json!({"$project": {target.as_str(): value}}),
                merge(child, "merge", "discard"),
            ]
        }
        Action::Bucket(b) => super::bucket::pipeline(b),
        Action::Unbucket(u) => super::bucket::pipeline_back(u),
        Action::Path {
            collection,
            field: f,
            start,
            nodes,
            parent,
            items,
            ..
        } => {
            let item = match items {
                Some(items) => object_of(items, "a"),
                None => json!("$$a._id"),
            };
            // $graphLookup gives the walk up in no order: item `i` of the
            // path (of `n`) is the node `n - 1 - i` steps up, so the root
            // comes first and the start last.
            let nth = json!({"$arrayElemAt": [{"$filter": {
                "input": field(TMP),
                "cond": {"$eq": [format!("$$this.{DEPTH}"), {"$subtract": [{"$subtract": ["$$n", 1]}, "$$i"]}]},
            }}, 0]});
            let path = json!({"$let": {
                "vars": {"n": {"$size": field(TMP)}},
                "in": map(json!({"$range": [0, "$$n"]}), "i", json!({"$let": {"vars": {"a": nth}, "in": item}})),
            }});
            vec![
                json!({"$graphLookup": {"from": nodes, "startWith": field(start), "connectFromField": parent, "connectToField": "_id", "depthField": DEPTH, "as": TMP}}),
                json!({"$project": {f.as_str(): path}}),
                merge(collection, "merge", "discard"),
            ]
        }
        Action::Timeline(t) => super::timeline::pipeline(t),
        // Written whole by `render` (its filter is a date fixed at run time).
        Action::Archive(_) | Action::Kind(_) | Action::Overflow(_) | Action::Gather(_) => {
            Vec::new()
        }
        Action::Computed {
            parent,
            field: f,
            function,
            of,
            bson_type,
            children,
            once,
            ..
        } => {
            // A first or last value needs the children in the order they
            // arrived: the order of an embedded array, else their `_id`s'
            // (an ObjectId starts with its creation time).
            let ordered = matches!(function, AggregateFn::First | AggregateFn::Last);
            let lookup = |local: &str, foreign: &str| {
                let mut l = json!({"from": children_from(children), "localField": local, "foreignField": foreign, "as": TMP});
                if ordered {
                    l["pipeline"] = json!([{"$sort": {"_id": 1}}]);
                }
                json!({"$lookup": l})
            };
            let (lookup, list) = match children {
                ChildrenAt::Collection { ref_path, .. } => {
                    (Some(lookup("_id", ref_path)), json!(field(TMP)))
                }
                ChildrenAt::Ids { field: ids, .. } => (Some(lookup(ids, "_id")), json!(field(TMP))),
                ChildrenAt::Embedded { field: arr, one } => (None, as_array(arr, *one)),
            };
            let values = || match of {
                Some(of) => map(list.clone(), "c", json!(format!("$$c.{of}"))),
                None => list.clone(),
            };
            // The children that have the field, in order.
            let present =
                || json!({"$filter": {"input": values(), "cond": {"$ne": ["$$this", null]}}});
            // No children: 0, as `squill generate` writes it (the
            // validator wants a number).
            let or_zero = |v: Json| json!({"$ifNull": [v, 0]});
            let value = match function {
                AggregateFn::Count => json!({"$size": list.clone()}),
                AggregateFn::Min => json!({"$min": values()}),
                AggregateFn::Max => json!({"$max": values()}),
                AggregateFn::Avg => or_zero(json!({"$avg": values()})),
                AggregateFn::First => or_zero(json!({"$arrayElemAt": [present(), 0]})),
                AggregateFn::Last => or_zero(json!({"$arrayElemAt": [present(), -1]})),
                AggregateFn::Sum => json!({"$sum": values()}),
            };
            let mut out: Vec<Json> = Vec::new();
            if *once {
                out.push(json!({"$match": {f.as_str(): {"$exists": false}}}));
            }
            out.extend(lookup);
            out.push(json!({"$project": {f.as_str(): convert(value, bson_type)}}));
            out.push(merge(parent, "merge", "discard"));
            out
        }
    }
}

/// The id of an array's item `$$i`: the item, or its `_id` (an item
/// converted already reads the same).
fn item_id() -> Json {
    json!({"$cond": [{"$eq": [{"$type": "$$i"}, "object"]}, "$$i._id", "$$i"]})
}

/// Each item of `f` as the item of `target`: the other side's copies
/// looked up by the items' ids (read out with `$map` first: the test
/// server's `$lookup` does not follow a path into an array of documents),
/// the link's attributes kept from the item.
fn link_items(
    collection: &str,
    f: &str,
    target: &str,
    other: &str,
    copies: &[ItemField],
    attributes: &[ItemField],
    theirs: Option<&TheirAttributes>,
) -> Vec<Json> {
    let items = json!({"$ifNull": [field(f), []]});
    let mut out = Vec::new();
    let value = if copies.is_empty() && attributes.is_empty() && theirs.is_none() {
        map(items, "i", item_id())
    } else {
        let mut item = Map::new();
        item.insert("_id".into(), item_id());
        for c in copies {
            item.insert(c.target.clone(), json!(format!("$$o.{}", c.source)));
        }
        for a in attributes {
            item.insert(a.target.clone(), json!(format!("$$i.{}", a.source)));
        }
        if let Some(t) = theirs {
            // The item of the other document's array that names this one;
            // the item's own value first (a rerun reads the items it wrote).
            let back = json!({"$arrayElemAt": [{"$filter": {
                "input": {"$ifNull": [format!("$$o.{}", t.back), []]},
                "as": "b",
                "cond": {"$eq": [{"$ifNull": ["$$b._id", "$$b"]}, "$_id"]},
            }}, 0]});
            for a in &t.attributes {
                item.insert(
                    a.target.clone(),
                    json!({"$ifNull": [
                        format!("$$i.{}", a.target),
                        {"$let": {"vars": {"b": back}, "in": format!("$$b.{}", a.source)}},
                    ]}),
                );
            }
        }
        if copies.is_empty() && theirs.is_none() {
            map(items, "i", Json::Object(item))
        } else {
            out.push(json!({"$set": {TMP: map(items.clone(), "i", item_id())}}));
            out.push(
                json!({"$lookup": {"from": other, "localField": TMP, "foreignField": "_id", "as": TMP}}),
            );
            let found = json!({"$arrayElemAt": [{"$filter": {"input": field(TMP), "cond": {"$eq": ["$$this._id", item_id()]}}}, 0]});
            map(
                items,
                "i",
                json!({"$let": {"vars": {"o": found}, "in": Json::Object(item)}}),
            )
        }
    };
    out.push(json!({"$project": {target: value}}));
    out.push(merge(collection, "merge", "discard"));
    out
}

/// The distinct parents embedded at `f` in a batch of children, the newest
/// child's copy of each, merged into the parent's collection.
fn parents_from_children(f: &str, parent: &str, items: &[ItemField]) -> Vec<Json> {
    let id = format!("{f}._id");
    let mut group = Map::new();
    group.insert("_id".into(), json!(field(&id)));
    for i in items.iter().filter(|i| i.target != "_id") {
        group.insert(
            i.target.clone(),
            json!({"$last": field(&format!("{f}.{}", i.source))}),
        );
    }
    vec![
        json!({"$match": {id: {"$ne": null}}}),
        json!({"$sort": {"_id": 1}}),
        json!({"$group": group}),
        merge(parent, "replace", "insert"),
    ]
}

/// The collection a computed field's children are looked up in.
fn children_from(children: &ChildrenAt) -> &str {
    match children {
        ChildrenAt::Collection { child, .. } | ChildrenAt::Ids { child, .. } => child,
        ChildrenAt::Embedded { .. } => "",
    }
}

/// The links of one batch of holders as edge documents (without `_id`: the
/// script makes it from both references).
fn edge(
    f: &str,
    objects: bool,
    holder_ref: &EdgeRef,
    other_ref: &EdgeRef,
    other: &str,
    attributes: &[ItemField],
) -> Vec<Json> {
    let item_id = if objects {
        format!("${TMP}._id")
    } else {
        field(TMP)
    };
    let mut keep = Map::new();
    keep.insert(TMP.into(), json!({"$ifNull": [field(f), []]}));
    for c in holder_ref.copies.iter().flatten() {
        keep.insert(c.source.clone(), json!(1));
    }
    let mut out = vec![json!({"$project": keep}), json!({"$unwind": field(TMP)})];
    if other_ref.copies.is_some() {
        let local = if objects {
            format!("{TMP}._id")
        } else {
            TMP.to_string()
        };
        out.push(
            json!({"$lookup": {"from": other, "localField": local, "foreignField": "_id", "as": OTHER}}),
        );
        out.push(json!({"$set": {OTHER: {"$arrayElemAt": [field(OTHER), 0]}}}));
    }
    let reference = |r: &EdgeRef, id: Json, from: &str| match &r.copies {
        None => id,
        Some(copies) => {
            let mut m = Map::new();
            m.insert("_id".into(), id);
            for c in copies {
                m.insert(c.target.clone(), json!(format!("{from}{}", c.source)));
            }
            Json::Object(m)
        }
    };
    let mut doc = Map::new();
    doc.insert("_id".into(), json!(0));
    for a in attributes {
        doc.insert(a.target.clone(), json!(format!("${TMP}.{}", a.source)));
    }
    doc.insert(
        holder_ref.field.clone(),
        reference(holder_ref, json!("$_id"), "$"),
    );
    doc.insert(
        other_ref.field.clone(),
        reference(other_ref, json!(item_id), &format!("${OTHER}.")),
    );
    out.push(json!({"$project": doc}));
    out
}

/// The statement of an undo that is a pipeline: the collection it runs on
/// and its stages.
pub(super) fn undo_pipeline(undo: &Undo) -> Option<(String, Vec<Json>)> {
    match undo {
        Undo::CopiesBack(action) | Undo::ItemsBack(action) => {
            Some((collection(action).to_string(), pipeline(action)))
        }
        Undo::CopiesIntoArray {
            parent,
            field: f,
            child,
            copies,
        } => {
            let mut item = Map::new();
            item.insert("_id".into(), json!("$$i"));
            if let Json::Object(o) = object_of(copies, "c") {
                item.extend(o);
            }
            let found = json!({"$arrayElemAt": [{"$filter": {"input": field(TMP), "cond": {"$eq": ["$$this._id", "$$i"]}}}, 0]});
            let back = json!({"$let": {"vars": {"c": found}, "in": item}});
            Some((
                parent.clone(),
                vec![
                    json!({"$lookup": {"from": child, "localField": f, "foreignField": "_id", "as": TMP}}),
                    json!({"$project": {f.as_str(): map(
                        json!({"$ifNull": [field(f), []]}),
                        "i",
                        json!({"$cond": [{"$eq": [{"$type": "$$i"}, "object"]}, "$$i", back]}),
                    )}}),
                    merge(parent, "merge", "discard"),
                ],
            ))
        }
        _ => None,
    }
}

/// An embedded array, or a sub-document as an array of one.
fn as_array(f: &str, one: bool) -> Json {
    if one {
        json!({"$cond": [{"$eq": [{"$type": field(f)}, "object"]}, [field(f)], []]})
    } else {
        json!({"$ifNull": [field(f), []]})
    }
}
