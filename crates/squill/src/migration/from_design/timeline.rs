//! A timeline the recommended design adds (fan-out on write): one document
//! per reader, under the reader's `_id`, with copies of the newest `limit`
//! items of the parents it follows in the feed's order, and the ids of the
//! followed parents past the followers' threshold (outliers, whose items
//! the feed reads at read time and that are never copied) — what the
//! pushes of the application would have left had the timeline existed from
//! the start, as `squill generate` writes it.
//!
//! The step reads the follows and the items where the recommended design
//! keeps them, after every other step (an earlier step of the same script
//! may be the one that puts the items there: posts unwound out of their
//! author), so each item is a copy of the document the application will
//! read. Its figures are measured where the data is today, so a step that
//! chose the wrong items or follows fails them.
//!
//! A timeline today's design has already, whose shape changes (its copies
//! gain or lose a field, its limit or outliers change), is the same cache
//! in another shape: today's application reads and pushes into it until
//! the final step, so the step builds the new shape beside it (checked as
//! above), and the final step, once the application of the new design
//! pushes into the timeline, builds it again in place from the follows and
//! items of then (a reader's document replaced whole: an item pushed after
//! its batch stays) and drops the copy beside.

use super::action::{Action, Cleanup, Undo};
use super::aggregation::field;
use super::layout_steps::{Follows, ItemsToday, Timeline};
use super::plan_value::Plan;
use super::source::{Source, collection_of, link_field, source};
use super::step_parts::ItemField;
use crate::design::{Collection, Design, EntityDecision, FieldOrigin, ShapeType};
use crate::model::Model;
use serde_json::{Map, Value as Json, json};
use std::fmt::Write as _;

/// Where the migration script puts the outlier ids it measured before the
/// step (a JavaScript array): the pipeline names it with this placeholder,
/// which the script replaces with the array's name.
pub(super) const OUTLIER_IDS: &str = "__squill_outlier_ids";

/// The temporary fields: the followed parents, those pushed to, the outliers.
const FOLLOWED: &str = "__squill";
const PUSHED: &str = "__squill_pushed";
const OUTLIERS: &str = "__squill_outliers";

/// The steps for the timelines of `recommended` that `today` has not, or
/// has in another shape, or reasons in `p.refused`.
pub(super) fn plan(p: &mut Plan, model: &Model, today: &Design, recommended: &Design) {
    for d in &recommended.entities {
        let EntityDecision::Timeline {
            collection,
            feed,
            limit,
            threshold,
            ..
        } = d
        else {
            continue;
        };
        let Some(coll) = recommended
            .collections
            .iter()
            .find(|c| &c.name == collection)
        else {
            continue;
        };
        let old = today.collections.iter().find(|c| &c.name == collection);
        if old.is_some_and(|old| same_timeline(today, old, coll, *limit, *threshold)) {
            continue;
        }
        match step(model, today, recommended, coll, feed, *limit, *threshold) {
            Ok(mut t) => {
                if old.is_some() {
                    // Beside today's, under a name of the migration's own;
                    // its validator waits for the rebuild in place.
                    let beside = format!("squill_migration_{collection}");
                    t.beside = Some(beside.clone());
                    p.cleanup.push(Cleanup::Timeline(Box::new(t.clone())));
                    p.deferred.push(collection.clone());
                    p.undo.push(Undo::Drop { collection: beside });
                } else {
                    p.undo.push(Undo::Drop {
                        collection: t.collection.clone(),
                    });
                }
                p.actions.push(Action::Timeline(Box::new(t)));
            }
            Err(why) => p
                .refused
                .push(format!("the timeline `{collection}`: {why}")),
        }
    }
}

/// Today's timeline `old` has the recommended one's shape: the same fields
/// (names, origins, types), limit and threshold (an array's bound is no
/// part of `same_field`: the limit is the decision's).
fn same_timeline(
    today: &Design,
    old: &Collection,
    new: &Collection,
    limit: u64,
    threshold: Option<u64>,
) -> bool {
    let decided = today.entities.iter().any(|d| {
        matches!(d, EntityDecision::Timeline { collection, limit: l, threshold: t, .. }
            if *collection == old.name && *l == limit && *t == threshold)
    });
    decided
        && old.shape.fields.len() == new.shape.fields.len()
        && old
            .shape
            .fields
            .iter()
            .zip(&new.shape.fields)
            .all(|(a, b)| super::plan_value::same_field(a, b))
}

/// The follows of a feed in `design`: a collection of the edge entity with
/// a scalar reference for each side.
fn follows(design: &Design, edge: &str, following: &str, followers: &str) -> Option<Follows> {
    let coll = collection_of(design, edge)?;
    let scalar = |rel: &str| {
        link_field(coll, rel)
            .filter(|f| matches!(f.ty, ShapeType::Scalar { .. }))
            .map(|f| f.name.clone())
    };
    Some(Follows {
        edges: coll.name.clone(),
        follower: scalar(following)?,
        followed: scalar(followers)?,
    })
}

fn step(
    model: &Model,
    today: &Design,
    recommended: &Design,
    coll: &Collection,
    feed: &str,
    limit: u64,
    threshold: Option<u64>,
) -> Result<Timeline, String> {
    let f = model
        .operation_by_name(feed)
        .and_then(|op| {
            crate::candidates::feed::feeds(model)
                .into_iter()
                .find(|f| f.operation == op)
        })
        .ok_or_else(|| format!("`{feed}` is no feed of the model"))?;
    let rel = |id| model.relationship(id);
    let name = |e| model.entity(e).name.as_str();
    let (items_rel, edge) = (rel(f.items), name(rel(f.followers).child));
    let (reader, parent, item) = (
        name(rel(f.following).parent),
        name(rel(f.followers).parent),
        name(items_rel.child),
    );
    let (following, followers) = (&rel(f.following).name, &rel(f.followers).name);
    let no_follows = || {
        format!("the follows (`{edge}`) are not documents of their own with an id for each side")
    };
    let follows_now = follows(recommended, edge, following, followers).ok_or_else(no_follows)?;
    let follows_today = follows(today, edge, following, followers).ok_or_else(no_follows)?;
    let readers = collection_of(recommended, reader)
        .ok_or_else(|| format!("no collection of `{reader}` to give each a timeline"))?;
    let items = collection_of(recommended, item)
        .ok_or_else(|| format!("the `{item}` documents are not in a collection of their own"))?;
    let parent_field = link_field(items, &items_rel.name)
        .filter(|f| matches!(f.ty, ShapeType::Scalar { .. }))
        .ok_or_else(|| format!("`{}` has no id of its `{parent}`", items.name))?
        .name
        .clone();
    let layout = &today
        .relationships
        .iter()
        .find(|r| r.relationship == items_rel.name)
        .ok_or_else(|| format!("`{}` is not in the design of today", items_rel.name))?
        .chosen;
    let items_today = match source(today, &items_rel.name, parent, item, layout) {
        Some(Source::ChildCollection { child, ref_path }) => {
            ItemsToday::Collection { child, ref_path }
        }
        Some(Source::Embedded {
            parent,
            field,
            one: false,
            rest: false,
        })
        | Some(Source::IdArray { parent, field, .. }) => ItemsToday::ParentArray { parent, field },
        _ => {
            return Err(format!(
                "its check reads the `{item}` documents of today in their own collection, or in or by id in their parent's array, not in a {} layout",
                layout.kind()
            ));
        }
    };
    let mut out = Timeline {
        relationship: items_rel.name.clone(),
        collection: coll.name.clone(),
        readers: readers.name.clone(),
        follows: follows_now,
        items: items.name.clone(),
        parent_field,
        items_field: String::new(),
        copies: Vec::new(),
        sort: Vec::new(),
        limit: limit.max(1),
        threshold,
        outliers_field: None,
        follows_today,
        items_today,
        beside: None,
    };
    for k in &f.sort {
        let field = match k.field.as_str() {
            "_id" => "_id",
            own => super::source::own_field(items, item, own).ok_or_else(|| {
                format!("the feed sorts by `{own}`, which `{}` has not", items.name)
            })?,
        };
        out.sort.push((field.to_string(), k.descending));
    }
    for field in &coll.shape.fields {
        match &field.origin {
            FieldOrigin::Id => {}
            FieldOrigin::Timeline { .. } => {
                let Some((shape, false)) = super::source::item_fields(field) else {
                    return Err(format!(
                        "`{}.{}` is no array of copies",
                        coll.name, field.name
                    ));
                };
                out.items_field = field.name.clone();
                for i in shape {
                    let from = items
                        .shape
                        .fields
                        .iter()
                        .find(|g| g.origin == i.origin)
                        .ok_or_else(|| {
                            format!(
                                "`{}` has no field for `{}.{}.{}`",
                                items.name, coll.name, field.name, i.name
                            )
                        })?;
                    out.copies.push(ItemField {
                        target: i.name.clone(),
                        source: from.name.clone(),
                    });
                }
            }
            FieldOrigin::Outliers { .. } => out.outliers_field = Some(field.name.clone()),
            _ => return Err(format!("no step builds `{}.{}`", coll.name, field.name)),
        }
    }
    if out.items_field.is_empty() {
        return Err(format!("`{}` has no array of copies", coll.name));
    }
    Ok(out)
}

/// The feed's order as a `$sort`, ties by `_id` ascending (as `generate`
/// and the cookbook's check order them).
pub(super) fn sort(t: &Timeline) -> Map<String, Json> {
    let mut sort = Map::new();
    for (field, descending) in &t.sort {
        sort.insert(field.clone(), json!(if *descending { -1 } else { 1 }));
    }
    sort.entry("_id").or_insert(json!(1));
    sort
}

/// The stages after the batch's `$match` on the readers: each reader's
/// followed parents (each once, in id order), split into outliers and
/// those pushed to, then the newest `limit` items of the latter, copied,
/// and the timeline replaced whole under the reader's `_id`.
pub(super) fn pipeline(t: &Timeline) -> Vec<Json> {
    let f = &t.follows;
    let mut out = vec![
        json!({"$project": {"_id": 1}}),
        json!({"$lookup": {
            "from": f.edges,
            "localField": "_id",
            "foreignField": f.follower,
            "pipeline": [
                {"$match": {f.followed.as_str(): {"$ne": null}}},
                {"$group": {"_id": field(&f.followed)}},
                {"$sort": {"_id": 1}},
            ],
            "as": FOLLOWED,
        }}),
        json!({"$project": {PUSHED: {"$map": {"input": field(FOLLOWED), "as": "c", "in": "$$c._id"}}}}),
    ];
    if t.threshold.is_some() {
        let outlier = json!({"$in": ["$$this", {"$literal": OUTLIER_IDS}]});
        out.push(json!({"$project": {
            OUTLIERS: {"$filter": {"input": field(PUSHED), "cond": outlier}},
            PUSHED: {"$filter": {"input": field(PUSHED), "cond": {"$not": [outlier]}}},
        }}));
    }
    let mut copy = Map::new();
    for c in &t.copies {
        copy.insert(c.target.clone(), json!(field(&c.source)));
    }
    out.push(json!({"$lookup": {
        "from": t.items,
        "localField": PUSHED,
        "foreignField": t.parent_field,
        "pipeline": [{"$sort": sort(t)}, {"$limit": t.limit}, {"$project": copy}],
        "as": t.items_field,
    }}));
    let mut doc = Map::new();
    doc.insert(t.items_field.clone(), json!(1));
    if let Some(o) = &t.outliers_field {
        let value = if t.threshold.is_some() {
            json!(field(OUTLIERS))
        } else {
            json!({"$literal": []})
        };
        doc.insert(o.clone(), value);
    }
    out.push(json!({"$project": doc}));
    out.push(json!({"$merge": {"into": t.written(), "on": "_id", "whenMatched": "replace", "whenNotMatched": "insert"}}));
    out
}

/// The script's statement that measures the outlier ids (on the
/// recommended design's follows) before the step, into `var`.
pub(super) fn outliers_statement(t: &Timeline, var: &str) -> Option<String> {
    let n = t.threshold?;
    Some(format!(
        "const {var} = squillOutliers({}, {}, {n});",
        json!(t.follows.edges),
        json!(t.follows.followed)
    ))
}

/// `squillFeed(…)` over the data of today: per reader, the followed
/// parents over the threshold and min(limit, the items of the others).
fn feed_today(t: &Timeline) -> String {
    let f = &t.follows_today;
    let (coll, at, embedded) = match &t.items_today {
        ItemsToday::Collection { child, ref_path } => (child, ref_path, false),
        ItemsToday::ParentArray { parent, field } => (parent, field, true),
    };
    format!(
        "squillFeed({}, {}, {}, {}, squillItemsPerParent({}, {}, {embedded}), {})",
        json!(f.edges),
        json!(f.follower),
        json!(f.followed),
        t.threshold.map_or("null".to_string(), |n| n.to_string()),
        json!(coll),
        json!(at),
        t.limit
    )
}

/// The step's figures: a timeline per reader, none over the limit, the
/// outliers and the items each reader should have (from today's data), and
/// every timeline in the feed's order.
pub(super) fn figures(out: &mut Vec<super::figure::Figure>, t: &Timeline) {
    use super::figure::Figure;
    let c = t.written();
    // Built beside today's: read where it is, beside or (once the final
    // step has rebuilt it in place and dropped the copy) in place, so a
    // run after an interrupted final step checks the same figures.
    let at = match &t.beside {
        Some(b) => format!("squillBeside({}, {})", json!(b), json!(t.collection)),
        None => json!(c).to_string(),
    };
    out.push(Figure {
        label: format!("{c}: one per {} document", t.readers),
        before: format!("squillCount({}, {{}})", json!(t.readers)),
        after: format!("squillCount({at}, {{}})"),
    });
    let over = format!("{}.{}", t.items_field, t.limit);
    out.push(Figure {
        label: format!("{c}: none holds more than {}", t.limit),
        before: "0".into(),
        after: format!("squillCount({at}, {})", json!({ over: {"$exists": true} })),
    });
    if let Some(o) = &t.outliers_field {
        out.push(Figure {
            label: format!(
                "{c}.{o}: the followed parents with more than {} followers",
                t.threshold.map_or("any".into(), |n| n.to_string())
            ),
            before: format!("{}.outliers", feed_today(t)),
            after: format!("squillSizes({at}, {})", json!(o)),
        });
        // The same ids, not only as many: each (reader, outlier) pair
        // hashed, the hashes combined in any order.
        out.push(Figure {
            label: format!("{c}.{o}: the ids of those parents, per reader (a digest)"),
            before: format!("{}.outlierIds", feed_today(t)),
            after: format!("squillOutlierIds({at}, {})", json!(o)),
        });
    }
    out.push(Figure {
        label: format!(
            "{c}.{}: the newest {} items of the followed parents (from the data of today)",
            t.items_field, t.limit
        ),
        before: format!("{}.items", feed_today(t)),
        after: format!("squillSizes({at}, {})", json!(t.items_field)),
    });
    // The feed's order read from the design again, not from the step's
    // `$sort`: a step sorting the wrong way fails the check.
    let mut keys: Vec<Json> = t
        .sort
        .iter()
        .map(|(k, descending)| json!([k, if *descending { -1 } else { 1 }]))
        .collect();
    if !t.sort.iter().any(|(k, _)| k == "_id") {
        keys.push(json!(["_id", 1]));
    }
    out.push(Figure {
        label: format!("{c}.{}: in the feed's order", t.items_field),
        before: "0".into(),
        after: format!(
            "squillOutOfOrder({at}, {}, {})",
            json!(t.items_field),
            Json::Array(keys)
        ),
    });
}

/// The final step's statements for a timeline built beside today's: the
/// step again over every reader, in place (by then the application of the
/// new design pushes into it: a reader's document is replaced whole, so an
/// item pushed after its batch stays), past today's validator, which the
/// recommended one replaces right after; then the copy beside dropped.
/// Resumable as any step (its own progress marker).
pub(super) fn rebuild(t: &Timeline) -> String {
    let in_place = Timeline {
        beside: None,
        ..t.clone()
    };
    let id = json!(format!("99-rebuild-{}", t.collection));
    let mut stages: Vec<String> = pipeline(&in_place)
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut out = String::from("{ ");
    if let Some(line) = outliers_statement(t, "outliers") {
        let placeholder = json!(OUTLIER_IDS).to_string();
        for s in &mut stages {
            *s = s.replace(&placeholder, "outliers");
        }
        out.push_str(&line);
        out.push_str("\n    ");
    }
    let _ = write!(
        out,
        "const indexes = [[{e}, {f}], [{i}, {p}]].map(([c, path]) => [c, squillLookupIndex({id}, c, path)]);\n\
         \x20   runStep({id}, {what}, {r}, (range, ids) => {{\n\
         \x20     db.getCollection({r}).aggregate([{{ $match: range }}, {}], {{ bypassDocumentValidation: true }}).toArray();\n\
         \x20   }});\n\
         \x20   for (const [c, i] of indexes) if (i !== null) db.getCollection(c).dropIndex(i);\n\
         \x20   db.getCollection({b}).drop(); }}",
        stages.join(", "),
        e = json!(t.follows.edges),
        f = json!(t.follows.follower),
        i = json!(t.items),
        p = json!(t.parent_field),
        what = json!(format!(
            "{}: rebuilt in place in the recommended shape",
            t.collection
        )),
        r = json!(t.readers),
        b = json!(t.written()),
    );
    out
}

/// The helpers the timeline's step and figures use (written only when the
/// migration builds a timeline).
pub(super) const RUNTIME: &str = r#"
// The parents with more than `threshold` documents in `edges` naming them at
// `followed` (followers): outliers, whose items the feed reads at read time.
function squillOutliers(edges, followed, threshold) {
  return db.getCollection(edges).aggregate([
    { $match: { [followed]: { $ne: null } } },
    { $group: { _id: "$" + followed, n: { $sum: 1 } } },
    { $match: { n: { $gt: threshold } } },
    { $sort: { _id: 1 } },
  ]).toArray().map((d) => d._id);
}

// The items of each parent, by the parent's id (as EJSON): the documents of
// `coll` naming it at `at`, or the items of its own array `at`.
function squillItemsPerParent(coll, at, embedded) {
  const pipeline = embedded
    ? [{ $project: { n: { $size: { $cond: [{ $isArray: "$" + at }, "$" + at, []] } } } }]
    : [{ $match: { [at]: { $ne: null } } }, { $group: { _id: "$" + at, n: { $sum: 1 } } }];
  const out = new Map();
  db.getCollection(coll).aggregate(pipeline).forEach((d) => out.set(EJSON.stringify(d._id), Number(d.n)));
  return out;
}

// Over the readers that follow anyone in `edges`: the followed parents with
// more than `threshold` followers (none without one), and min(limit, the
// items of the other followed parents), each summed.
function squillFeed(edges, follower, followed, threshold, items, limit) {
  const outliers = new Set(threshold === null ? [] : squillOutliers(edges, followed, threshold).map((o) => EJSON.stringify(o)));
  let n = { items: 0, outliers: 0, outlierIds: 0 };
  db.getCollection(edges).aggregate([
    { $match: { [follower]: { $ne: null }, [followed]: { $ne: null } } },
    { $group: { _id: "$" + follower, p: { $addToSet: "$" + followed } } },
  ]).forEach((r) => {
    let mine = 0;
    for (const p of r.p) {
      const key = EJSON.stringify(p);
      if (outliers.has(key)) {
        n.outliers += 1;
        n.outlierIds = (n.outlierIds ^ squillPairHash(r._id, p)) >>> 0;
      }
      else mine += items.get(key) || 0;
    }
    n.items += Math.min(limit, mine);
  });
  return n;
}

// A 32-bit hash of the pair (a, b): combined with XOR, a digest of a set of
// pairs that does not depend on their order.
function squillPairHash(a, b) {
  return parseInt(require("crypto").createHash("md5").update(EJSON.stringify([a, b])).digest("hex").slice(0, 8), 16);
}

// The digest of the (document's _id, id) pairs of the arrays `field` of `coll`.
function squillOutlierIds(coll, field) {
  let n = 0;
  db.getCollection(coll).find({}, { [field]: 1 }).forEach((d) => {
    for (const o of d[field] || []) n = (n ^ squillPairHash(d._id, o)) >>> 0;
  });
  return n;
}

// The timeline built beside `collection` while there, else `collection`
// itself (rebuilt in place by the final step, the copy beside dropped).
function squillBeside(beside, collection) {
  return db.getCollectionNames().includes(beside) ? beside : collection;
}

// The neighbours out of order in the arrays `field` of `coll`, by `keys`
// ([field, 1 or -1] in turn).
function squillOutOfOrder(coll, field, keys) {
  const f = "$" + field;
  const cmp = keys.reduceRight((rest, [k, d]) => {
    const c = { $multiply: [{ $cmp: ["$$a." + k, "$$b." + k] }, d] };
    return rest === null ? c : { $cond: [{ $ne: [c, 0] }, c, rest] };
  }, null);
  const r = db.getCollection(coll).aggregate([
    { $project: { a: { $cond: [{ $isArray: f }, f, []] } } },
    { $project: { n: { $size: { $filter: { input: { $range: [1, { $max: [1, { $size: "$a" }] }] }, as: "i", cond: { $let: { vars: { a: { $arrayElemAt: ["$a", { $subtract: ["$$i", 1] }] }, b: { $arrayElemAt: ["$a", "$$i"] } }, in: { $gt: [cmp, 0] } } } } } } } },
    { $group: { _id: null, n: { $sum: "$n" } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}
"#;
