//! The candidate keys of one collection, from the design: the equality
//! filters of its steps (their fields in the order of the index the step
//! uses, and fewest distinct values first, and each prefix), its unique indexes, the layout's own keys (the
//! parent a child or a bucket references, with the bucket's start or the
//! date its reads range or sort on as a suffix), `_id`; and the hashed
//! form of each single-field key and of each compound's first field.

use super::figures::{field, is_scalar};
use crate::design::shard_key::{KeyField, ShardKey};
use crate::design::sharding::KeyOrigin;
use crate::design::{BucketPart, Collection, FieldOrigin, FilterOp, OperationPlan, ShapeType};
use std::collections::BTreeMap;

/// At most this many fields in a key drawn from a filter: a key of more
/// fields targets no more queries than its prefix and costs every index
/// entry more bytes.
const MAX_FIELDS: usize = 3;

/// `distinct`: a field's distinct values, when the model says.
pub(crate) fn collect(
    coll: &Collection,
    ops: &[OperationPlan],
    distinct: &dyn Fn(&str) -> Option<u64>,
) -> BTreeMap<ShardKey, Vec<KeyOrigin>> {
    let mut out: BTreeMap<ShardKey, Vec<KeyOrigin>> = BTreeMap::new();
    let usable = |path: &str| field(coll, path).is_some_and(is_scalar);
    let add = |out: &mut BTreeMap<ShardKey, Vec<KeyOrigin>>, paths: &[&str], o: KeyOrigin| {
        if paths.is_empty() || !paths.iter().all(|p| usable(p)) {
            return;
        }
        let origins = out.entry(ShardKey::ranged(paths)).or_default();
        if !origins.contains(&o) {
            origins.push(o);
        }
    };
    // Equality filters, by operation.
    let mut by_key: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for op in ops {
        for s in op.steps.iter().filter(|s| s.collection == coll.name) {
            let eq: Vec<&str> = s
                .filter
                .iter()
                .filter(|f| f.op == FilterOp::Eq)
                .map(|f| f.path.as_str())
                .collect();
            let index = s
                .index
                .as_ref()
                .and_then(|n| coll.indexes.iter().find(|i| &i.name == n));
            let mut by_index: Vec<&str> = match index {
                Some(i) => i
                    .keys
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .take_while(|k| eq.contains(k))
                    .collect(),
                None => Vec::new(),
            };
            for p in &eq {
                if !by_index.contains(p) {
                    by_index.push(p);
                }
            }
            // Fewest distinct values first, as the scan orders a logged
            // filter's fields: the coarse field (a tenant) groups the
            // documents, the fine one (an id) splits the groups.
            let mut coarse = eq.clone();
            coarse.sort_by_key(|p| (distinct(p).unwrap_or(u64::MAX), *p));
            for mut ordered in [by_index, coarse] {
                ordered.truncate(MAX_FIELDS);
                for n in 1..=ordered.len() {
                    let key: Vec<String> = ordered[..n].iter().map(|p| (*p).to_string()).collect();
                    let names = by_key.entry(key).or_default();
                    if !names.contains(&op.operation) {
                        names.push(op.operation.clone());
                    }
                }
            }
        }
    }
    for (paths, operations) in by_key {
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        add(&mut out, &paths, KeyOrigin::Equality { operations });
    }
    for i in coll
        .indexes
        .iter()
        .filter(|i| i.unique && i.partial.is_empty())
    {
        let paths: Vec<&str> = i.keys.iter().map(|(k, _)| k.as_str()).collect();
        add(
            &mut out,
            &paths,
            KeyOrigin::UniqueIndex {
                index: i.name.clone(),
            },
        );
    }
    // The layout's keys: the parent, alone and with the time.
    let times = times(coll, ops);
    for f in &coll.shape.fields {
        let FieldOrigin::Reference { relationship, .. } = &f.origin else {
            continue;
        };
        if !matches!(f.ty, ShapeType::Scalar { .. }) {
            continue;
        }
        let origin = KeyOrigin::Parent {
            relationship: relationship.clone(),
        };
        add(&mut out, &[f.name.as_str()], origin.clone());
        for t in &times {
            add(&mut out, &[f.name.as_str(), t.as_str()], origin.clone());
            add(
                &mut out,
                &[f.name.as_str(), t.as_str()],
                KeyOrigin::Time { field: t.clone() },
            );
        }
    }
    add(&mut out, &["_id"], KeyOrigin::Id);
    for t in &times {
        add(
            &mut out,
            &[t.as_str()],
            KeyOrigin::Time { field: t.clone() },
        );
    }
    // Hashed forms: of each single field, and of each compound's first.
    let ranged: Vec<ShardKey> = out.keys().cloned().collect();
    for k in ranged {
        let mut h = k.clone();
        if let Some(first) = h.fields.first_mut() {
            *first = KeyField {
                path: first.path.clone(),
                hashed: true,
            };
        }
        let o = if k.fields.len() == 1 && k.fields[0].path == "_id" {
            KeyOrigin::Id
        } else {
            KeyOrigin::Hashed
        };
        let origins = out.entry(h).or_default();
        if !origins.contains(&o) {
            origins.push(o);
        }
    }
    out
}

/// The collection's times: a bucket's start, and the dates its reads
/// range or sort on.
fn times(coll: &Collection, ops: &[OperationPlan]) -> Vec<String> {
    let mut out: Vec<String> = coll
        .shape
        .fields
        .iter()
        .filter(|f| {
            matches!(
                f.origin,
                FieldOrigin::Bucket {
                    part: BucketPart::Start,
                    ..
                }
            )
        })
        .map(|f| f.name.clone())
        .collect();
    let is_date = |p: &str| {
        field(coll, p).is_some_and(
            |f| matches!(&f.ty, ShapeType::Scalar { bson_type, .. } if bson_type == "date"),
        )
    };
    for s in ops
        .iter()
        .flat_map(|o| &o.steps)
        .filter(|s| s.collection == coll.name)
    {
        let ranged = s
            .filter
            .iter()
            .filter(|f| f.op == FilterOp::Range)
            .map(|f| f.path.as_str());
        let sorted = s.sort.iter().map(|(p, _)| p.as_str());
        for p in ranged.chain(sorted) {
            if is_date(p) && !out.iter().any(|t| t == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}
