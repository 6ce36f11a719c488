//! parent-reference or embed → bucket: each parent's children grouped into
//! bucket documents as the recommended design's bucket collection has them
//! (a fixed number per bucket, or those of one time unit, at most
//! `per_bucket` to a bucket), with the bucket's bookkeeping and aggregates
//! computed from its children. Everything is read from the bucket
//! collection's shape; a field of it no step can fill refuses the step.
//! Children embedded today are unwound first and then take the same
//! grouping as children in their own collection (their place in the array
//! standing for the `_id` that orders those).
//!
//! A bucket's `_id` is the `_id` of its first child: each child is in one
//! bucket only, so the id is unique and the same on every run, and a batch
//! done twice replaces its buckets rather than adding more. Embedded
//! children without an `_id` give none: the script makes the bucket's from
//! its parent's id and its place (time unit and page), the same on every
//! run.

use super::action::{Action, Cleanup, Undo};
use super::aggregation::{convert, field};
use super::figure::{Figure, count, matching, per_parent, set, sizes};
use super::layout_steps::{Aggregate, Buckets, ByTime, Children, Typed, Unbuckets};
use super::lookups;
use super::plan_value::Plan;
use super::source::{Source, collection_of, item_fields, link_field as link_of, plain_reference};
use super::step_parts::ChildrenAt;
use super::step_parts::{ItemField, ParentField};
use crate::design::{
    BucketBy, BucketPart, Collection, Design, FieldOrigin, Layout, RelationshipDecision,
    ShapeField, ShapeType,
};
use crate::model::AggregateFn;
use serde_json::{Map, Value as Json, json};

/// The temporary fields of the grouping: the parent's id, the time
/// unit's start, and one bucket's worth of children.
const PARENT: &str = "__squill_parent";
const START: &str = "__squill_start";
const CHUNK: &str = "__squill_chunk";
/// An embedded child's place in its parent's array.
const INDEX: &str = "__squill_index";

/// The bucket collection of `relationship` in `design`: the one whose
/// array embeds its children beside a bucket's bookkeeping.
fn bucket_collection<'d>(design: &'d Design, relationship: &str) -> Option<&'d Collection> {
    design.collections.iter().find(|c| {
        c.shape
            .fields
            .iter()
            .any(|f| matches!(&f.origin, FieldOrigin::Bucket { .. }))
            && c.shape.fields.iter().any(
                |f| matches!(&f.origin, FieldOrigin::Embedded { relationship: r } if r == relationship),
            )
    })
}

/// Whether a collection of `design` is a bucket collection (its fields are
/// the bucket step's, not the computed-field step's).
pub(super) fn is_bucket_collection(coll: &Collection) -> bool {
    coll.shape
        .fields
        .iter()
        .any(|f| matches!(&f.origin, FieldOrigin::Bucket { .. }))
}

/// The step from today's children (`src`) to the recommended buckets, or a
/// reason in `p.refused`.
pub(super) fn plan(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    rel: &RelationshipDecision,
    src: &Source,
) {
    let Layout::Bucket { by, per_bucket, .. } = &rel.chosen else {
        return;
    };
    let (Some(old_parent), Some(bucket)) = (
        collection_of(today, &rel.parent),
        bucket_collection(recommended, &rel.relationship),
    ) else {
        p.refused.push(
            "no bucket collection in the recommended design, or no parent collection today".into(),
        );
        return;
    };
    // Today's children: their fields, where they are, and what the final
    // step drops (an embedded array goes with the parent's other fields of
    // today, in `parent_side`).
    let (old, children, drop, refs) = match src {
        Source::ChildCollection { child, ref_path } => {
            let Some(c) = today.collections.iter().find(|c| &c.name == child) else {
                p.refused.push(format!("no collection `{child}` today"));
                return;
            };
            let drop = !recommended.collections.iter().any(|r| &r.name == child);
            let children = Children::Collection {
                child: child.clone(),
                ref_path: ref_path.clone(),
            };
            let refs = lookups::Sources {
                child_coll: c,
                today,
                recommended,
            };
            (
                c.shape.fields.as_slice(),
                children,
                drop.then(|| child.clone()),
                Some(refs),
            )
        }
        Source::Embedded {
            field,
            one: false,
            rest: false,
            ..
        } => {
            let Some((items, false)) = old_parent
                .shape
                .fields
                .iter()
                .find(|f| &f.name == field)
                .and_then(item_fields)
            else {
                p.refused.push(format!(
                    "`{}.{field}` is no array of children",
                    old_parent.name
                ));
                return;
            };
            let ids = items.iter().any(|i| i.name == "_id");
            let children = Children::Embedded {
                field: field.clone(),
                ids,
            };
            (items, children, None, None)
        }
        _ => {
            p.refused.push(
                "buckets are built from a child collection with the parent's id or from an embedded array"
                    .into(),
            );
            return;
        }
    };
    let step = Buckets {
        relationship: rel.relationship.clone(),
        parent: old_parent.name.clone(),
        children,
        bucket: bucket.name.clone(),
        ref_field: String::new(),
        tenant: None,
        per_bucket: (*per_bucket).max(1),
        time: None,
        page: None,
        count: None,
        arrived: None,
        items_field: String::new(),
        items: Vec::new(),
        lookups: Vec::new(),
        figures: Vec::new(),
    };
    match fields(step, (old, refs.as_ref()), &rel.child, bucket, by) {
        Ok(step) => {
            p.undo.push(Undo::Drop {
                collection: step.bucket.clone(),
            });
            if let Some(child) = drop {
                p.cleanup
                    .push(Cleanup::DropCollection { collection: child });
            }
            p.actions.push(Action::Bucket(Box::new(step)));
        }
        Err(why) => p.refused.push(why),
    }
}

/// Each field of the bucket collection, from the shape: the reference, the
/// key, the count, the aggregates and the array of children (`old`: the
/// fields of a child of today, in its collection or its parent's array).
fn fields(
    mut out: Buckets,
    (old, refs): (&[ShapeField], Option<&lookups::Sources>),
    child: &str,
    bucket: &Collection,
    by: &BucketBy,
) -> Result<Buckets, String> {
    let relationship = &out.relationship.clone();
    let today_name = |field: &str| {
        old.iter()
            .find_map(|f| match &f.origin {
                FieldOrigin::Own {
                    entity: e,
                    field: n,
                } if e == child && n == field => Some(f.name.clone()),
                _ => None,
            })
            .ok_or_else(|| format!("no field `{field}` in a {child} of today"))
    };
    let old_id = old.iter().find(|o| o.name == "_id");
    for f in &bucket.shape.fields {
        let typed = || match &f.ty {
            ShapeType::Scalar { bson_type, .. } => Ok(Typed {
                field: f.name.clone(),
                bson_type: bson_type.clone(),
            }),
            _ => Err(format!("`{}.{}` is no scalar", bucket.name, f.name)),
        };
        match &f.origin {
            // The bucket's id is its first child's: the same type, or no bucket.
            FieldOrigin::Id if old_id.is_some_and(|o| o.ty == f.ty) => {}
            // Made by the script from the parent's id and the bucket's place.
            FieldOrigin::Id
                if old_id.is_none()
                    && out.made_ids()
                    && matches!(&f.ty, ShapeType::Scalar { bson_type, .. } if bson_type == "objectId") =>
                {}
            FieldOrigin::Id => {
                return Err(format!(
                    "the ids of today's {child} children are not of the type of `{}`'s",
                    bucket.name
                ));
            }
            FieldOrigin::Reference {
                relationship: r, ..
            } if r == relationship => {
                out.ref_field = f.name.clone();
            }
            // The tenant's id, once for the bucket's children (one parent,
            // one tenant): today's children in their own collection hold
            // it (the relationship that carries it is listed under
            // `current:`, else `tenant_ids_unfilled` refused first).
            FieldOrigin::Reference {
                relationship: r, ..
            } => {
                let today = old
                    .iter()
                    .find(|o| matches!(&o.origin, FieldOrigin::Reference { relationship: x, .. } if x == r))
                    .filter(|_| matches!(out.children, Children::Collection { .. }))
                    .ok_or_else(|| {
                        format!(
                            "no step builds the bucket's `{}.{}`: today's {child} hold no `{r}` to copy it from",
                            bucket.name, f.name
                        )
                    })?;
                out.tenant = Some(ItemField {
                    target: f.name.clone(),
                    source: today.name.clone(),
                });
            }
            FieldOrigin::Bucket { part, .. } => match (part, by) {
                (BucketPart::Page, BucketBy::Count) => out.page = Some(typed()?),
                (BucketPart::Count, _) => out.count = Some(typed()?),
                // A migrated bucket holds every child that arrived in it.
                (BucketPart::Arrived, BucketBy::Count) => out.arrived = Some(typed()?),
                (BucketPart::Start, BucketBy::Time { field, unit }) => {
                    out.time = Some(ByTime {
                        source: today_name(field)?,
                        unit_ms: crate::synthetic::population::unit_ms(unit),
                        start: f.name.clone(),
                    });
                }
                _ => {
                    return Err(format!(
                        "`{}.{}` is not this bucket's key",
                        bucket.name, f.name
                    ));
                }
            },
            FieldOrigin::Computed {
                function, field, ..
            } => out.figures.push(Aggregate {
                target: typed()?,
                function: *function,
                of: field.as_deref().map(today_name).transpose()?,
            }),
            FieldOrigin::Embedded { relationship: r } if r == relationship => {
                let (items, false) = item_fields(f)
                    .ok_or_else(|| format!("`{}.{}` is no array", bucket.name, f.name))?
                else {
                    return Err(format!("`{}.{}` is no array", bucket.name, f.name));
                };
                out.items_field = f.name.clone();
                for i in items {
                    let source = match &i.origin {
                        FieldOrigin::Id if old_id.is_some() => "_id".to_string(),
                        FieldOrigin::Own { entity, field } if entity == child => today_name(field)?,
                        FieldOrigin::Reference { .. } if refs.is_some() => {
                            let found =
                                refs.and_then(|r| lookups::reference_item(i, r, &mut out.lookups));
                            match found {
                                Some(item) => {
                                    out.items.push(item);
                                    continue;
                                }
                                None => {
                                    return Err(format!(
                                        "no step builds `{}.{}.{}` from today's {child}",
                                        bucket.name, f.name, i.name
                                    ));
                                }
                            }
                        }
                        _ => {
                            return Err(format!(
                                "`{}.{}.{}` is not a child's own field",
                                bucket.name, f.name, i.name
                            ));
                        }
                    };
                    out.items.push(ItemField {
                        target: i.name.clone(),
                        source,
                    });
                }
            }
            _ => {
                return Err(format!(
                    "no step builds the bucket's `{}.{}`",
                    bucket.name, f.name
                ));
            }
        }
    }
    if out.ref_field.is_empty() || out.items_field.is_empty() {
        return Err(format!(
            "`{}` has no reference to the parent or no array of children",
            bucket.name
        ));
    }
    if matches!(by, BucketBy::Time { .. }) && out.time.is_none() {
        return Err(format!("`{}` has no field for the time unit", bucket.name));
    }
    Ok(out)
}

/// The children of the chunk, each as `$$c.<field>`.
fn values_of(of: &str) -> Json {
    json!({"$map": {"input": field(&format!("{CHUNK}.c")), "as": "c", "in": format!("$$c.{of}")}})
}

/// The stages after the batch's `$match` on the child collection (or on
/// the parents, whose embedded children are unwound first, each with its
/// parent's id and its place in the array): sorted in the order the
/// children arrived (by time, then `_id` or place), grouped per parent (and
/// time unit), cut into buckets of `per_bucket`, each written with its
/// first child's `_id`. When the script makes the ids, the stages end with
/// each bucket's place as its `_id` (`{p: parent, k: unit, n: first}`) and
/// no `$merge`: the script writes each bucket under an id made from it.
pub(super) fn pipeline(b: &Buckets) -> Vec<Json> {
    let (parent, order, mut stages) = match &b.children {
        Children::Collection { ref_path, .. } => (
            ref_path.as_str(),
            "_id",
            b.lookups
                .iter()
                .flat_map(super::aggregation::looked_up)
                .collect(),
        ),
        Children::Embedded { field: array, .. } => (
            PARENT,
            INDEX,
            vec![
                json!({"$project": {"_id": 0, PARENT: "$_id", CHUNK: {"$ifNull": [field(array), []]}}}),
                json!({"$unwind": {"path": field(CHUNK), "includeArrayIndex": INDEX}}),
                json!({"$replaceRoot": {"newRoot": {"$mergeObjects": [field(CHUNK), {PARENT: field(PARENT), INDEX: field(INDEX)}]}}}),
            ],
        ),
    };
    let mut sort = Map::new();
    sort.insert(parent.to_string(), json!(1));
    let start = b.time.as_ref().map(|t| {
        sort.insert(t.source.clone(), json!(1));
        let ms = json!({"$toLong": field(&t.source)});
        json!({"$toDate": {"$subtract": [ms, {"$mod": [ms, t.unit_ms]}]}})
    });
    sort.insert(order.into(), json!(1));
    let chunks = json!({"$map": {
        "input": {"$range": [0, {"$size": "$c"}, b.per_bucket]},
        "as": "i",
        "in": {"n": "$$i", "c": {"$slice": ["$c", "$$i", b.per_bucket]}},
    }});
    let mut doc = Map::new();
    let id = if b.made_ids() {
        json!({"p": field(PARENT), "k": field(START), "n": field(&format!("{CHUNK}.n"))})
    } else {
        json!({"$arrayElemAt": [values_of("_id"), 0]})
    };
    doc.insert("_id".into(), id);
    doc.insert(b.ref_field.clone(), json!(field(PARENT)));
    // Every child of the bucket holds the same tenant: its first child's.
    if let Some(t) = &b.tenant {
        doc.insert(
            t.target.clone(),
            json!({"$arrayElemAt": [values_of(&t.source), 0]}),
        );
    }
    if let Some(t) = &b.time {
        doc.insert(t.start.clone(), json!(field(START)));
    }
    if let Some(p) = &b.page {
        let n = json!({"$divide": [field(&format!("{CHUNK}.n")), b.per_bucket]});
        doc.insert(p.field.clone(), convert(n, &p.bson_type));
    }
    let size = json!({"$size": field(&format!("{CHUNK}.c"))});
    for c in b.count.iter().chain(&b.arrived) {
        doc.insert(c.field.clone(), convert(size.clone(), &c.bson_type));
    }
    for f in &b.figures {
        let xs = || values_of(f.of.as_deref().unwrap_or("_id"));
        let value = match (f.function, &f.of) {
            (AggregateFn::Count, _) | (_, None) => size.clone(),
            (AggregateFn::Sum, _) => json!({"$sum": xs()}),
            (AggregateFn::Avg, _) => json!({"$avg": xs()}),
            (AggregateFn::Min, _) => json!({"$min": xs()}),
            (AggregateFn::Max, _) => json!({"$max": xs()}),
            (AggregateFn::First, _) => json!({"$arrayElemAt": [xs(), 0]}),
            (AggregateFn::Last, _) => json!({"$arrayElemAt": [xs(), -1]}),
        };
        doc.insert(f.target.field.clone(), convert(value, &f.target.bson_type));
    }
    let mut item = Map::new();
    for i in &b.items {
        item.insert(i.target.clone(), json!(format!("$$c.{}", i.source)));
    }
    doc.insert(
        b.items_field.clone(),
        json!({"$map": {"input": field(&format!("{CHUNK}.c")), "as": "c", "in": item}}),
    );
    stages.extend([
        json!({"$sort": sort}),
        json!({"$group": {"_id": {"p": field(parent), "k": start}, "c": {"$push": "$$ROOT"}}}),
        json!({"$project": {"_id": 0, PARENT: "$_id.p", START: "$_id.k", CHUNK: chunks}}),
        json!({"$unwind": field(CHUNK)}),
        json!({"$project": doc}),
    ]);
    if !b.made_ids() {
        stages.push(json!({"$merge": {"into": b.bucket, "on": "_id", "whenMatched": "replace", "whenNotMatched": "insert"}}));
    }
    stages
}

/// The step from today's buckets to the recommended child collection, or a
/// reason in `p.refused`.
pub(super) fn plan_back(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    rel: &RelationshipDecision,
) {
    if rel.chosen == Layout::Embed {
        into_parent(p, today, recommended, rel);
        return;
    }
    if rel.chosen != Layout::ParentReference {
        p.refused.push(
            "buckets become a child collection with the parent's id or the parent's array only"
                .into(),
        );
        return;
    }
    let (Some(bucket), Some(parent), Some(target)) = (
        bucket_collection(today, &rel.relationship),
        collection_of(today, &rel.parent),
        collection_of(recommended, &rel.child),
    ) else {
        p.refused
            .push("no bucket collection today, or no parent or child collection of its own".into());
        return;
    };
    match unbuckets(bucket, target, &rel.child, &rel.relationship) {
        Ok(u) => {
            p.undo.push(Undo::Drop {
                collection: u.child.clone(),
            });
            drop_unless_kept(p, recommended, &bucket.name);
            p.actions.push(Action::Unbucket(Box::new(Unbuckets {
                parent: parent.name.clone(),
                ..u
            })));
        }
        Err(why) => p.refused.push(why),
    }
}

/// bucket → embed: the parent's array from its buckets' items, in the
/// buckets' order (their key, then `_id`), each item's fields from the
/// bucket item's of the same origin; the bucket collection stays until the
/// final step.
fn into_parent(p: &mut Plan, today: &Design, recommended: &Design, rel: &RelationshipDecision) {
    let name = &rel.relationship;
    let (Some(bucket), Some(old_parent), Some(parent)) = (
        bucket_collection(today, name),
        collection_of(today, &rel.parent),
        collection_of(recommended, &rel.parent),
    ) else {
        p.refused
            .push("no bucket collection today, or no parent collection in both designs".into());
        return;
    };
    fn of<'c>(c: &'c Collection, name: &str) -> Option<&'c ShapeField> {
        c.shape
            .fields
            .iter()
            .find(|f| matches!(&f.origin, FieldOrigin::Embedded { relationship: r } if r == name))
    }
    let bucket_ref = bucket.shape.fields.iter().find(|f| {
        matches!(&f.origin, FieldOrigin::Reference { relationship: r, .. } if r == name)
            && matches!(f.ty, ShapeType::Scalar { .. })
    });
    let (Some(array), Some(target), Some(bucket_ref)) =
        (of(bucket, name), of(parent, name), bucket_ref)
    else {
        p.refused.push(format!(
            "`{}` has no array of children or no reference, or `{}` no array",
            bucket.name, parent.name
        ));
        return;
    };
    let (Some((old_items, false)), Some((new_items, false))) =
        (item_fields(array), item_fields(target))
    else {
        p.refused
            .push("the children are not an array of sub-documents in both designs".into());
        return;
    };
    let mut items = Vec::new();
    for f in new_items {
        let Some(o) = old_items.iter().find(|o| o.origin == f.origin) else {
            p.refused.push(format!(
                "no step builds `{}.{}.{}` from the items of `{}.{}`",
                parent.name, target.name, f.name, bucket.name, array.name
            ));
            return;
        };
        items.push(ItemField {
            target: f.name.clone(),
            source: o.name.clone(),
        });
    }
    // The buckets' order: their page or the start of their time unit.
    let key = bucket
        .shape
        .fields
        .iter()
        .filter(|f| {
            matches!(
                f.origin,
                FieldOrigin::Bucket {
                    part: BucketPart::Page | BucketPart::Start,
                    ..
                }
            )
        })
        .map(|f| f.name.clone())
        .collect();
    if link_of(old_parent, name).is_none() {
        p.undo.push(Undo::Unset {
            collection: old_parent.name.clone(),
            field: target.name.clone(),
        });
    }
    drop_unless_kept(p, recommended, &bucket.name);
    p.actions.push(Action::BuildParent {
        relationship: name.clone(),
        parent: old_parent.name.clone(),
        field: target.name.clone(),
        child: bucket.name.clone(),
        ref_path: bucket_ref.name.clone(),
        what: ParentField::FromBuckets {
            array: array.name.clone(),
            key,
            items,
        },
        lookups: Vec::new(),
    });
}

/// Each field of the new child collection from the bucket: the parent's id
/// from the bucket's reference, the rest from the items.
fn unbuckets(
    bucket: &Collection,
    target: &Collection,
    child: &str,
    relationship: &str,
) -> Result<Unbuckets, String> {
    let reference = |c: &Collection| plain_reference(c, relationship).map(|f| f.name.clone());
    let (Some(bucket_ref), Some(ref_field)) = (reference(bucket), reference(target)) else {
        return Err(format!(
            "`{}` or `{}` has no reference to the parent",
            bucket.name, target.name
        ));
    };
    let Some((array, Some((old_items, false)))) = bucket
        .shape
        .fields
        .iter()
        .find(
            |f| matches!(&f.origin, FieldOrigin::Embedded { relationship: r } if r == relationship),
        )
        .map(|f| (f, item_fields(f)))
    else {
        return Err(format!("`{}` has no array of children", bucket.name));
    };
    let mut items = Vec::new();
    let mut keeps_id = false;
    for f in &target.shape.fields {
        if f.name == ref_field {
            continue;
        }
        let from = old_items.iter().find(|o| match (&o.origin, &f.origin) {
            (FieldOrigin::Id, FieldOrigin::Id) => true,
            (
                FieldOrigin::Own { entity, field },
                FieldOrigin::Own {
                    entity: e,
                    field: n,
                },
            ) => entity == child && e == child && field == n,
            _ => false,
        });
        match (from, &f.origin) {
            (Some(o), origin) => {
                keeps_id |= matches!(origin, FieldOrigin::Id);
                items.push(ItemField {
                    target: f.name.clone(),
                    source: o.name.clone(),
                });
            }
            // No id in the bucket's items: the server gives each child one.
            (None, FieldOrigin::Id) => {}
            (None, _) => {
                return Err(format!(
                    "no step builds `{}.{}` from the items of `{}.{}`",
                    target.name, f.name, bucket.name, array.name
                ));
            }
        }
    }
    Ok(Unbuckets {
        relationship: relationship.to_string(),
        parent: String::new(),
        bucket: bucket.name.clone(),
        bucket_ref,
        items_field: array.name.clone(),
        child: target.name.clone(),
        ref_field,
        items,
        keeps_id,
        count: bucket
            .shape
            .fields
            .iter()
            .find(|f| {
                matches!(
                    f.origin,
                    FieldOrigin::Bucket {
                        part: BucketPart::Count,
                        ..
                    }
                )
            })
            .map(|f| f.name.clone()),
    })
}

/// The stages after the batch's `$match` on the bucket collection: one
/// child document per item, with the bucket's parent id.
pub(super) fn pipeline_back(u: &Unbuckets) -> Vec<Json> {
    let mut doc = Map::new();
    if !u.keeps_id {
        // The server gives each new document its `_id`.
        doc.insert("_id".into(), json!(0));
    }
    for i in &u.items {
        doc.insert(i.target.clone(), json!(format!("${CHUNK}.{}", i.source)));
    }
    doc.insert(u.ref_field.clone(), json!(field(&u.bucket_ref)));
    vec![
        json!({"$project": {u.bucket_ref.as_str(): 1, CHUNK: {"$ifNull": [field(&u.items_field), []]}}}),
        json!({"$unwind": field(CHUNK)}),
        json!({"$project": doc}),
        json!({"$merge": {"into": u.child, "on": "_id", "whenMatched": "replace", "whenNotMatched": "insert"}}),
    ]
}

/// Today's bucket collection goes in the final step, unless the
/// recommended design keeps a collection of that name.
fn drop_unless_kept(p: &mut Plan, recommended: &Design, buckets: &str) {
    if !recommended.collections.iter().any(|c| c.name == buckets) {
        p.cleanup.push(Cleanup::DropCollection {
            collection: buckets.to_string(),
        });
    }
}

/// Each child in the buckets of today a document of the child collection
/// (and as many as the buckets counted).
pub(super) fn figures_back(out: &mut Vec<Figure>, u: &Unbuckets) {
    let label = |what: &str| format!("{}: one document per child {what} in {}", u.child, u.bucket);
    let after = count(&u.child, &set(&u.ref_field));
    out.push(Figure {
        label: label("held"),
        before: sizes(&u.bucket, &u.items_field),
        after: after.clone(),
    });
    if let Some(c) = &u.count {
        out.push(Figure {
            label: label("counted"),
            before: format!("squillTotal({}, {})", json!(u.bucket), json!(c)),
            after,
        });
    }
}

/// Each child of today in one bucket, the counts adding up to them, no
/// bucket over its size, each aggregate as recomputed over the bucket's
/// own items, and (children embedded today) each parent's buckets holding
/// as many as its array.
pub(super) fn figures(out: &mut Vec<Figure>, b: &Buckets) {
    let (children, what) = match &b.children {
        Children::Collection { child, ref_path } => (
            count(child, &set(ref_path)),
            format!("each {child} document of today"),
        ),
        Children::Embedded { field, .. } => (
            sizes(&b.parent, field),
            format!("each child embedded in {}.{field} today", b.parent),
        ),
    };
    out.push(Figure {
        label: format!("{}.{}: {what} in one bucket", b.bucket, b.items_field),
        before: children.clone(),
        after: sizes(&b.bucket, &b.items_field),
    });
    if let Some(c) = &b.count {
        out.push(Figure {
            label: format!(
                "{}.{}: the counts add up to the children",
                b.bucket, c.field
            ),
            before: children,
            after: format!("squillTotal({}, {})", json!(b.bucket), json!(c.field)),
        });
    }
    // An item at index `per_bucket` is one too many.
    let over = format!("{}.{}", b.items_field, b.per_bucket);
    out.push(Figure {
        label: format!("{}: no bucket holds more than {}", b.bucket, b.per_bucket),
        before: "0".into(),
        after: count(&b.bucket, &json!({ over: {"$exists": true} })),
    });
    if let Children::Embedded { field, .. } = &b.children {
        out.push(Figure {
            label: format!(
                "{}: the parents whose buckets hold other than the children of their {field}",
                b.parent
            ),
            before: "0".into(),
            after: matching(
                &b.parent,
                per_parent(&b.bucket, &b.ref_field, &b.items_field, field),
            ),
        });
    }
    let items = ChildrenAt::Embedded {
        field: b.items_field.clone(),
        one: false,
    };
    for f in &b.figures {
        // The figure over the bucket's items under their name there (a
        // count is the size, checked by the counts' total).
        let Some(of) =
            f.of.as_ref()
                .filter(|_| !matches!(f.function, AggregateFn::Count))
                .and_then(|of| b.items.iter().find(|i| &i.source == of))
        else {
            continue;
        };
        out.push(Figure {
            label: format!(
                "{}.{}: the buckets whose {} differs from their items'",
                b.bucket,
                f.target.field,
                f.function.name()
            ),
            before: "0".into(),
            after: matching(
                &b.bucket,
                super::recompute::differing(
                    &f.target.field,
                    f.function,
                    &of.target,
                    &f.target.bson_type,
                    &items,
                ),
            ),
        });
    }
}
