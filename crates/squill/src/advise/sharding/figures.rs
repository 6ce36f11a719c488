//! A key's characteristics from the model, where the scan measures them
//! from the data: `numDistinctValues` and the most common value's
//! documents (`mostCommonValues`' first frequency), and whether the key
//! grows with insertion order. Each field is read from where the design
//! says its values come from: `_id`, a reference to a parent (its count,
//! and the largest parent or tenant the model states), a bucket's start,
//! a field of the entity (unique, a date, its enum, its `distinct:`).

use crate::design::shard_key::ShardKey;
use crate::design::{BucketPart, Collection, FieldOrigin, ShapeField, ShapeType};
use crate::model::{FieldType, Model};

/// What the model says of one field's values in a collection of
/// `documents` documents.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldFigures {
    pub(crate) distinct: Option<u64>,
    /// Documents of the most common value.
    pub(crate) top: Option<u64>,
    /// Grows with insertion order (a date, an ObjectId `_id`, a bucket's start).
    pub(crate) monotonic: bool,
    /// The relationship whose parent the field names, for a reference.
    pub(crate) parent_of: Option<String>,
}

impl FieldFigures {
    fn unknown() -> FieldFigures {
        FieldFigures {
            distinct: None,
            top: None,
            monotonic: false,
            parent_of: None,
        }
    }
    fn unique(documents: u64, monotonic: bool) -> FieldFigures {
        FieldFigures {
            distinct: Some(documents),
            top: Some(documents.min(1)),
            monotonic,
            parent_of: None,
        }
    }
}

/// The key's figures: distinct values, the most common value's documents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct KeyFigures {
    pub(crate) distinct: Option<u64>,
    pub(crate) top: Option<u64>,
    pub(crate) monotonic: bool,
}

/// The top-level (or dotted, through sub-documents) field at `path`.
pub(crate) fn field<'c>(coll: &'c Collection, path: &str) -> Option<&'c ShapeField> {
    let mut shape = &coll.shape;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let f = shape.fields.iter().find(|f| f.name == part)?;
        if parts.peek().is_none() {
            return Some(f);
        }
        match &f.ty {
            ShapeType::Object { shape: s } => shape = s,
            _ => return None,
        }
    }
    None
}

/// Whether a field holds one value per document (a shard key cannot hold
/// an array).
pub(crate) fn is_scalar(f: &ShapeField) -> bool {
    matches!(f.ty, ShapeType::Scalar { .. })
}

/// The figures of field `path` of `coll` with `documents` documents, on
/// `model` (the model grown to the month priced).
pub(crate) fn of_field(
    model: &Model,
    coll: &Collection,
    path: &str,
    documents: u64,
) -> FieldFigures {
    let Some(f) = field(coll, path) else {
        return FieldFigures::unknown();
    };
    let bson = match &f.ty {
        ShapeType::Scalar { bson_type, .. } => bson_type.as_str(),
        _ => return FieldFigures::unknown(),
    };
    if unique_alone(coll, path) {
        return FieldFigures::unique(documents, bson == "date" || bson == "objectId");
    }
    match &f.origin {
        FieldOrigin::Id => FieldFigures::unique(documents, bson == "objectId"),
        FieldOrigin::Reference { relationship, .. } => {
            reference(model, coll, relationship, documents)
        }
        FieldOrigin::Bucket { part, .. } => bucket(model, coll, *part, documents),
        FieldOrigin::Own { entity, field } => own(model, entity, field, documents),
        FieldOrigin::Discriminator => even(coll.entities.len() as u64, documents),
        _ => FieldFigures::unknown(),
    }
}

/// A unique index on this field alone.
fn unique_alone(coll: &Collection, path: &str) -> bool {
    coll.indexes
        .iter()
        .any(|i| i.unique && i.partial.is_empty() && i.keys.len() == 1 && i.keys[0].0 == path)
}

/// `distinct` values over `documents`, none more common than another (the
/// model states no skew for them).
fn even(distinct: u64, documents: u64) -> FieldFigures {
    let distinct = distinct.clamp(1, documents.max(1));
    FieldFigures {
        distinct: Some(distinct),
        top: Some(documents.div_ceil(distinct)),
        monotonic: false,
        parent_of: None,
    }
}

/// A child's reference to its parent: as many values as parents; the most
/// common is the largest parent (the tenant's stated `largest` share, else
/// the relationship's `max`, all of them when it is unbounded), its children scaled to the collection's
/// documents (a bucket holds several).
fn reference(model: &Model, coll: &Collection, relationship: &str, documents: u64) -> FieldFigures {
    let Some(r) = model.relationship_by_name(relationship) else {
        return FieldFigures::unknown();
    };
    let rel = model.relationship(r);
    let child = model.entity(rel.child);
    if !coll.entities.contains(&child.name) {
        return FieldFigures::unknown();
    }
    let parents = model.entity(rel.parent).count.max(1);
    let children = child.count.max(1);
    let tenant_share = model
        .tenant
        .filter(|t| t.entity == rel.parent && model.tenant_relationship(rel.child) == Some(r))
        .and_then(|t| t.largest);
    // An unbounded relationship bounds no parent's children: at worst,
    // every child under one parent.
    let largest = match tenant_share {
        Some(_) => model.largest_tenant_holds(rel.child).unwrap_or(children),
        None => rel.children.max.finite().unwrap_or(children),
    };
    let docs =
        (largest.max(rel.children.typical) as f64 * documents as f64 / children as f64).ceil();
    let top = Some((docs as u64).clamp(1, documents.max(1)));
    FieldFigures {
        distinct: Some(parents.min(documents.max(1))),
        top,
        monotonic: false,
        parent_of: Some(relationship.to_string()),
    }
}

/// A bucket's start (a time) or page: as many values as buckets per
/// parent; the most common is shared by every parent.
fn bucket(model: &Model, coll: &Collection, part: BucketPart, documents: u64) -> FieldFigures {
    let parents = coll
        .entities
        .iter()
        .filter_map(|name| model.entity_by_name(name))
        .flat_map(|e| model.relationships.iter().filter(move |r| r.child == e))
        .map(|r| model.entity(r.parent).count)
        .max()
        .unwrap_or(1)
        .max(1);
    match part {
        BucketPart::Start | BucketPart::Page => FieldFigures {
            distinct: Some(documents.div_ceil(parents).max(1)),
            top: Some(parents.min(documents.max(1))),
            monotonic: part == BucketPart::Start,
            parent_of: None,
        },
        BucketPart::Count | BucketPart::Arrived => FieldFigures::unknown(),
    }
}

/// A field of the entity: a date (taken as written when the document is,
/// so monotonic, and about one document per value), its `distinct:`, or
/// its enum's values.
fn own(model: &Model, entity: &str, name: &str, documents: u64) -> FieldFigures {
    let Some(e) = model.entity_by_name(entity) else {
        return FieldFigures::unknown();
    };
    let Some(f) = model.entity(e).fields.iter().find(|f| f.name == name) else {
        return FieldFigures::unknown();
    };
    if let Some(d) = f.distinct {
        return even(d, documents);
    }
    if !f.enum_values.is_empty() {
        return even(f.enum_values.len() as u64, documents);
    }
    if f.ty == FieldType::Date {
        return FieldFigures::unique(documents, true);
    }
    FieldFigures::unknown()
}

/// The key's figures from its fields': a unique index within the key's
/// fields makes each value one document; otherwise the first field's most
/// common value split by each further field in proportion to that field's
/// own most common share (independent fields), at least one document.
pub(crate) fn of_key(
    model: &Model,
    coll: &Collection,
    key: &ShardKey,
    documents: u64,
) -> KeyFigures {
    let fields: Vec<FieldFigures> = key
        .fields
        .iter()
        .map(|f| of_field(model, coll, &f.path, documents))
        .collect();
    let monotonic = key
        .fields
        .first()
        .zip(fields.first())
        .is_some_and(|(k, f)| !k.hashed && f.monotonic);
    let paths = key.paths();
    let unique = coll.indexes.iter().any(|i| {
        i.unique && i.partial.is_empty() && i.keys.iter().all(|(k, _)| paths.contains(&k.as_str()))
    });
    if unique {
        return KeyFigures {
            distinct: Some(documents),
            top: Some(documents.min(1)),
            monotonic,
        };
    }
    let n = documents.max(1) as f64;
    let mut distinct: Option<f64> = Some(1.0);
    let mut top: Option<f64> = None;
    for (i, f) in fields.iter().enumerate() {
        distinct = distinct.zip(f.distinct).map(|(a, b)| (a * b as f64).min(n));
        top = match (i, top, f.top) {
            (0, _, t) => t.map(|t| t as f64),
            (_, Some(t), Some(ft)) => Some((t * ft as f64 / n).max(1.0)),
            (_, t, _) => t,
        };
    }
    KeyFigures {
        distinct: distinct.map(|d| d.round() as u64),
        top: top.map(|t| t.ceil() as u64),
        monotonic,
    }
}
