//! Which keys to analyse for one collection, and why each: the fields the
//! logged filters test for equality (alone, and together as a compound
//! key), the unique indexes of the dump's metadata (and `_id`, always
//! unique), the fields with many distinct values, and the keys the user
//! named (`--shard-key`).

use super::key::{KeyField, ShardKey};
use crate::scan::report::CollectionReport;
use crate::workload::report::ShapeReport;
use crate::workload::shape::{OpClass, OpKind};
use std::collections::BTreeMap;

/// Fewest distinct values for a field to be a candidate for its
/// cardinality alone: `analyzeShardKeyNumRanges`' default, the 100 ranges
/// the server splits a key into to judge it ("a shard key that scales up to
/// 100 shards"); a key with fewer values cannot fill them.
pub const HIGH_CARDINALITY: u64 = 100;
/// At most this many fields are taken for their cardinality alone, most
/// distinct values first: each costs a column of the dump's values.
pub const MAX_HIGH_CARDINALITY: usize = 5;
/// Fields of a compound candidate from one filter, at most.
pub const MAX_COMPOUND_FIELDS: usize = 3;

/// Where a candidate came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// `--shard-key`.
    Named,
    /// Logged operations whose filter tests each of the key's fields for
    /// equality.
    LoggedEquality { operations: u64 },
    /// A unique index of the metadata (or `_id`'s).
    UniqueIndex,
    /// A field in every document, with this many distinct values.
    HighCardinality { distinct: u64 },
    /// The hashed form of a ranged candidate found monotonic.
    HashedAlternative,
}

/// The candidates of one collection, in a stable order (by key).
pub fn collect(
    collection: &CollectionReport,
    shapes: &[ShapeReport],
    named: &[ShardKey],
) -> BTreeMap<ShardKey, Vec<Origin>> {
    let mut out: BTreeMap<ShardKey, Vec<Origin>> = BTreeMap::new();
    let field = |path: &str| collection.fields.iter().find(|f| f.path == path);
    let distinct = |path: &str| field(path).and_then(|f| f.distinct_values).unwrap_or(0);
    // A field that holds an array somewhere cannot be a shard key: not
    // proposed (a named one is still measured, and flagged).
    let scalar = |path: &str| field(path).is_some_and(|f| f.array.is_none());

    for key in named {
        out.entry(key.clone()).or_default().push(Origin::Named);
    }

    let mut logged: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    for shape in shapes {
        let s = &shape.shape;
        let fields = match s.kind {
            OpKind::Aggregate => match s.stages.first() {
                Some(stage) if stage.name == "$match" => &stage.fields,
                _ => continue,
            },
            OpKind::Insert | OpKind::GetMore => continue,
            _ if s.or => continue,
            _ => &s.filter,
        };
        let mut eq: Vec<String> = fields
            .iter()
            .filter(|u| u.op == OpClass::Eq && !u.path.starts_with('$') && scalar(&u.path))
            .map(|u| u.path.clone())
            .collect();
        eq.dedup();
        if eq.is_empty() {
            continue;
        }
        for one in &eq {
            *logged.entry(vec![one.clone()]).or_default() += shape.count;
        }
        if (2..=MAX_COMPOUND_FIELDS).contains(&eq.len()) {
            // Fewest distinct values first: the coarse field (a tenant)
            // groups the documents, the fine one splits the group.
            eq.sort_by(|a, b| distinct(a).cmp(&distinct(b)).then_with(|| a.cmp(b)));
            *logged.entry(eq).or_default() += shape.count;
        }
    }
    for (paths, operations) in logged {
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        out.entry(ShardKey::ranged(&refs))
            .or_default()
            .push(Origin::LoggedEquality { operations });
    }

    out.entry(ShardKey::ranged(&["_id"]))
        .or_default()
        .push(Origin::UniqueIndex);
    for index in collection.indexes.iter().flatten() {
        let ranged = index
            .key
            .iter()
            .all(|(_, v)| v.as_f64().is_some_and(|d| d == 1.0 || d == -1.0));
        if !index.unique || index.partial || !ranged || index.key.is_empty() {
            continue;
        }
        let refs: Vec<&str> = index.key.iter().map(|(p, _)| p.as_str()).collect();
        if refs == ["_id"] {
            continue;
        }
        out.entry(ShardKey::ranged(&refs))
            .or_default()
            .push(Origin::UniqueIndex);
    }

    let mut wide: Vec<(&str, u64)> = collection
        .fields
        .iter()
        .filter(|f| {
            f.path != "_id"
                && f.array.is_none()
                && f.documents == collection.documents
                && !f.path.contains('#')
                && f.types.iter().all(|t| t.ty != "object" && t.ty != "array")
        })
        .filter_map(|f| Some((f.path.as_str(), f.distinct_values?)))
        .filter(|(_, d)| *d >= HIGH_CARDINALITY)
        .collect();
    wide.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    for (path, distinct) in wide.into_iter().take(MAX_HIGH_CARDINALITY) {
        out.entry(ShardKey::ranged(&[path]))
            .or_default()
            .push(Origin::HighCardinality { distinct });
    }
    out
}

/// Whether a unique index has exactly the key's fields (the server's
/// `isUnique`: true only when such an index exists).
pub fn is_unique(collection: &CollectionReport, key: &ShardKey) -> bool {
    if key.is_hashed() {
        return false;
    }
    if key.paths() == ["_id"] {
        return true;
    }
    collection.indexes.iter().flatten().any(|i| {
        i.unique
            && !i.partial
            && i.key.len() == key.fields.len()
            && i.key
                .iter()
                .zip(&key.fields)
                .all(|((p, _), f)| *p == f.path)
    })
}

/// Whether an index starts with the key's fields, each of the same kind
/// (the server's "supporting index"); `None` without metadata.
pub fn supporting_index(collection: &CollectionReport, key: &ShardKey) -> Option<bool> {
    if key.paths() == ["_id"] {
        return Some(true);
    }
    let indexes = collection.indexes.as_ref()?;
    let kind_fits = |f: &KeyField, v: &serde_json::Value| {
        if f.hashed {
            v.as_str() == Some("hashed")
        } else {
            v.as_f64().is_some_and(|d| d == 1.0 || d == -1.0)
        }
    };
    Some(indexes.iter().any(|i| {
        !i.partial
            && !i.sparse
            && i.key.len() >= key.fields.len()
            && i.key
                .iter()
                .zip(&key.fields)
                .all(|((p, v), f)| *p == f.path && kind_fits(f, v))
    }))
}
