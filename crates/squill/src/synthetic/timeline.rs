//! Fan-out on write in the synthetic data: a timeline collection holds one
//! document per reader with copies of the newest items of the parents it
//! follows (through the edge entity), as the pushes of the cookbook would
//! have left them, and the ids of the followed parents with more followers
//! than the threshold (`outliers`), whose items are read at feed time and
//! so are not copied.
//!
//! Who follows whom comes from the same numbering the edge documents are
//! written from (`Population`), so a timeline agrees with the follows and
//! the items loaded beside it; the items are built by the same builder as
//! the items' own collection, so each copy equals its original.

use super::documents::Builder;
use super::feeds::{TimelineGen, children_of, followed, root_parent};
use super::plan::ShapePlan;
use super::roots::Root;
use super::sink::TreeSink;
use super::value::{Document, Value};
use super::values::Scratch;
use crate::model::SortKey;
use std::cmp::Ordering;

impl Builder<'_, '_> {
    /// The items of reader `i`'s timeline: copies of the newest `limit`
    /// items (by the feed's sort, ties by `_id`) of the parents it follows
    /// that are not outliers, each built with `plan` (that of the items'
    /// own collection) as its original is.
    pub(super) fn timeline_items(
        &self,
        t: &TimelineGen,
        plan: &ShapePlan<'_>,
        i: u64,
        scratch: &mut Scratch,
    ) -> Vec<Document> {
        let pop = self.pop;
        let mut docs: Vec<Document> = Vec::new();
        for p in followed(pop, t, i) {
            if t.is_outlier(p) {
                continue;
            }
            for j in children_of(pop, t.items, p, t.items_by_parent.as_ref()) {
                let root = Root::Entity {
                    entity: t.item,
                    index: j,
                    parent: root_parent(pop, t.item, j),
                };
                let mut sink = TreeSink::default();
                self.encode(plan, &root, &mut sink, scratch);
                docs.push(sink.finish());
            }
        }
        docs.sort_by(|a, b| feed_order(&t.sort, a, b));
        docs.truncate(usize::try_from(t.limit).unwrap_or(usize::MAX));
        docs
    }
}

/// The feed's order of two items: each sort key in turn, then `_id`
/// ascending, so that the order is total and a check can recompute it.
pub(super) fn feed_order(sort: &[SortKey], a: &Document, b: &Document) -> Ordering {
    for k in sort {
        let o = bson_cmp(lookup(a, &k.field), lookup(b, &k.field));
        let o = if k.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    bson_cmp(a.get("_id"), b.get("_id"))
}

/// A dotted path's value in a document; `None` when absent.
fn lookup<'d>(doc: &'d Document, path: &str) -> Option<&'d Value> {
    let mut parts = path.split('.');
    let mut v = doc.get(parts.next()?)?;
    for part in parts {
        match v {
            Value::Document(d) => v = d.get(part)?,
            _ => return None,
        }
    }
    Some(v)
}

/// MongoDB's order of values of the types generated: missing and null,
/// numbers, strings, documents, arrays, binary, ObjectIds, booleans, dates.
fn bson_cmp(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    fn rank(v: Option<&Value>) -> u8 {
        match v {
            None | Some(Value::Null) => 0,
            Some(Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal { .. }) => 1,
            Some(Value::String(_)) => 2,
            Some(Value::Document(_)) => 3,
            Some(Value::Array(_)) => 4,
            Some(Value::Binary(_)) => 5,
            Some(Value::ObjectId(_)) => 6,
            Some(Value::Bool(_)) => 7,
            Some(Value::Date(_)) => 8,
        }
    }
    fn number(v: &Value) -> f64 {
        match v {
            Value::Int(x) => f64::from(*x),
            Value::Long(x) => *x as f64,
            Value::Double(x) => *x,
            Value::Decimal {
                coefficient,
                exponent,
            } => *coefficient as f64 * 10f64.powi(*exponent),
            _ => 0.0,
        }
    }
    match rank(a).cmp(&rank(b)) {
        Ordering::Equal => {}
        o => return o,
    }
    match (a, b) {
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (Some(Value::ObjectId(x)), Some(Value::ObjectId(y))) => x.cmp(y),
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        (Some(Value::Date(x)), Some(Value::Date(y))) => x.cmp(y),
        (Some(Value::Binary(x)), Some(Value::Binary(y))) => x.cmp(y),
        (Some(x), Some(y)) if rank(Some(x)) == 1 => number(x).total_cmp(&number(y)),
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::super::documents::Fanout;
    use super::super::population::Population;
    use super::*;
    use crate::design::{Design, EntityDecision};
    use std::collections::HashMap;

    /// Every document of collection `name`.
    fn docs(pop: &Population<'_>, name: &str) -> Vec<Document> {
        let b = Builder::new(pop, Fanout::Drawn);
        let coll = pop
            .design
            .collections
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no collection {name}"));
        let mut out = Vec::new();
        pop.for_each_root(coll, |root| -> Result<(), ()> {
            out.push(b.document(coll, &root));
            Ok(())
        })
        .unwrap_or_default();
        out
    }

    fn id(doc: &Document, field: &str) -> Value {
        doc.get(field).cloned().unwrap_or(Value::Null)
    }

    /// The club-feed design with its timeline's threshold lowered to
    /// `threshold`, so that a small population has outliers.
    fn club_feed(threshold: u64) -> (crate::model::Model, Design) {
        let (model, mut design) = crate::fixtures::load("club-feed");
        for d in &mut design.entities {
            if let EntityDecision::Timeline { threshold: t, .. } = d {
                *t = Some(threshold);
            }
        }
        (model, design)
    }

    /// Each timeline recomputed from the generated follows and posts, as
    /// the server check does from the loaded ones: the newest `limit`
    /// posts of the followed members with at most `threshold` followers,
    /// and the others, in order, in `outliers`.
    #[test]
    fn timelines_hold_the_newest_posts_of_the_followed_non_outliers() {
        let key = |v: Value| format!("{v:?}");
        // The threshold: the fewest followers a member has, so that those
        // with more are outliers (the follows' followees are spread evenly
        // over the members: the counts differ by one).
        let (scale, seed, cap) = (60, 3, Some(40));
        let (model, design) = club_feed(u64::MAX);
        let pop = Population::with_max_children(&model, &design, scale, seed, cap);
        let mut per: HashMap<String, u64> = HashMap::new();
        for f in &docs(&pop, "follow") {
            *per.entry(key(id(f, "followee"))).or_default() += 1;
        }
        let mut sorted: Vec<u64> = per.into_values().collect();
        sorted.sort_unstable();
        let threshold = sorted[0];
        assert!(
            sorted.last() > Some(&threshold),
            "every member has {threshold} followers"
        );
        let (model, design) = club_feed(threshold);
        let pop = Population::with_max_children(&model, &design, scale, seed, cap);
        let (follows, posts) = (docs(&pop, "follow"), docs(&pop, "post"));
        let timelines = docs(&pop, "member_timeline");
        assert_eq!(timelines.len(), docs(&pop, "member").len());
        let mut counts: HashMap<String, u64> = HashMap::new();
        let mut following: HashMap<String, Vec<Value>> = HashMap::new();
        for f in &follows {
            *counts.entry(key(id(f, "followee"))).or_default() += 1;
            following
                .entry(key(id(f, "follower")))
                .or_default()
                .push(id(f, "followee"));
        }
        let mut by_author: HashMap<String, Vec<Document>> = HashMap::new();
        for p in &posts {
            by_author
                .entry(key(id(p, "author")))
                .or_default()
                .push(p.clone());
        }
        let outlier = |p: &Value| counts.get(&key(p.clone())).copied().unwrap_or(0) > threshold;
        let limit = pop.timelines[0].limit as usize;
        let sort = pop.timelines[0].sort.clone();
        let (mut with_outliers, mut full) = (0, 0);
        for t in &timelines {
            let me = id(t, "_id");
            let mut followed = following.get(&key(me.clone())).cloned().unwrap_or_default();
            followed.sort_by(|a, b| bson_cmp(Some(a), Some(b)));
            followed.dedup();
            let mut want: Vec<Document> = followed
                .iter()
                .filter(|p| !outlier(p))
                .flat_map(|p| by_author.get(&key(p.clone())).cloned().unwrap_or_default())
                .collect();
            want.sort_by(|a, b| feed_order(&sort, a, b));
            want.truncate(limit);
            let got: Vec<Document> = match t.get("items") {
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Document(d) => Some(d.clone()),
                        _ => None,
                    })
                    .collect(),
                other => panic!("items: {other:?}"),
            };
            assert_eq!(got, want, "timeline of {me:?}");
            let want_outliers: Vec<Value> = followed.into_iter().filter(|p| outlier(p)).collect();
            let got_outliers: Vec<Value> = match t.get("outliers") {
                Some(Value::Array(ids)) => ids.clone(),
                other => panic!("outliers: {other:?}"),
            };
            assert_eq!(got_outliers, want_outliers, "outliers of {me:?}");
            with_outliers += usize::from(!got_outliers.is_empty());
            full += usize::from(got.len() == limit);
        }
        // The test means something: readers follow outliers, and still
        // timelines are cut at the limit.
        assert!(with_outliers > 0, "nobody follows an outlier");
        assert!(full > 0, "no timeline reached the limit of {limit}");
    }
}
