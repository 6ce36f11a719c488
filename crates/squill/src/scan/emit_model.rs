//! The scan as a `Model` (`squill scan --emit-model FILE`): one entity per
//! collection with its measured top-level fields, and one relationship per
//! inferred reference with its measured cardinality, so `squill advise` can
//! compare the design a user has with the one it recommends: each
//! reference's layout in the dump (an array of ids in the parent, or the
//! parent's id in each child) is its `current:` layout. There is no
//! workload in data: the model has none, and says so in its description.

use super::report::{
    CollectionReport, Direction, FieldReport, GeoReport, IndexReport, RelationshipReport,
    ScanReport,
};
use crate::model::{
    Cardinality, Count, Density, Entity, EntityId, Expiry, Field, FieldType, Mix, Model,
    Relationship, RelationshipKind, Workload,
};

fn ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// The field's most frequent type that a model can declare, and its size.
fn field(f: &FieldReport) -> Option<Field> {
    let top = f
        .types
        .iter()
        .find(|t| t.ty == "array" || FieldType::from_scanned_type(t.ty).is_some())?;
    let mut element_size = None;
    let mut description = None;
    let (ty, avg_size) = if top.ty == "array" {
        let arr = f.array.as_ref()?;
        // Every element a valid GeoJSON Point (or Polygon): an array of
        // places, not of embedded sub-documents.
        let objects = arr.element_types.iter().find(|t| t.ty == "object");
        let geo = f
            .geo
            .filter(|g| g.in_arrays == g.seen())
            .zip(objects)
            .and_then(|(g, o)| g.uniform(o.count));
        if geo == Some(FieldType::Polygon) {
            // Each polygon of the corners the data's have (`polygon(12)[3]`).
            (element_size, description) = f.geo.map_or((None, None), |g| corners(&g));
        }
        let item = geo.unwrap_or_else(|| {
            arr.element_types
                .iter()
                .find_map(|t| FieldType::from_scanned_type(t.ty))
                .unwrap_or(FieldType::Object)
        });
        (
            FieldType::Array(Box::new(item)),
            Some(arr.lengths.mean.round() as u32),
        )
    } else if let Some(geo) = f.geo.as_ref().filter(|g| g.in_arrays == 0).and_then(|g| {
        let objects = f.types.iter().find(|t| t.ty == "object")?.count;
        Some((g.uniform(objects)?, g.polygon_corners))
    }) {
        // Every sub-document a valid GeoJSON Point (or Polygon): the
        // model's word for it, not an embedded entity of `type` and
        // `coordinates`.
        match geo {
            (FieldType::Polygon, _) => {
                let (n, how) = f.geo.map_or((None, None), |g| corners(&g));
                description = how;
                (FieldType::Polygon, n)
            }
            (ty, _) => (ty, None),
        }
    } else {
        let ty = FieldType::from_scanned_type(top.ty)?;
        let size = match ty {
            // The value's encoded size less the int32 length and the NUL/subtype.
            FieldType::String | FieldType::Binary => {
                Some((f.avg_bytes - 5.0).max(0.0).round() as u32)
            }
            FieldType::Object => Some(f.avg_bytes.round() as u32),
            _ => None,
        };
        (ty, size)
    };
    Some(Field {
        name: f.path.clone(),
        ty,
        avg_size,
        element_size,
        distinct: f.distinct_values,
        enum_values: Vec::new(),
        required: f.presence >= 1.0,
        description,
    })
}

/// A polygon's corners as the model states them (the mean of the outer
/// rings the scan read), and the description that says so with the most
/// one ring had.
fn corners(g: &GeoReport) -> (Option<u32>, Option<String>) {
    let Some(mean) = g.polygon_corners else {
        return (None, None);
    };
    let how = format!(
        "polygons of {} corners on average, at most {} (measured)",
        super::analyze::significant(mean),
        g.polygon_corners_max.unwrap_or(0)
    );
    (Some(mean.round() as u32), Some(how))
}

fn entity(c: &CollectionReport, name: String) -> Entity {
    let mut fields: Vec<Field> = c
        .fields
        .iter()
        .filter(|f| f.level == 1)
        .filter(|f| !(f.path == "_id" && f.types.first().is_some_and(|t| t.ty == "objectId")))
        .filter_map(field)
        .collect();
    legacy_points(c, &mut fields);
    let measured = match c.sampled_from {
        Some(n) => format!(
            "measured by squill scan on a sample of {} of about {n} documents, mean {} bytes",
            c.documents, c.size.mean
        ),
        None => format!(
            "measured by squill scan: {} documents, mean {} bytes",
            c.documents, c.size.mean
        ),
    };
    let density = density(c, &fields);
    Entity {
        expires: expiry(c, &fields),
        name,
        count: c.sampled_from.unwrap_or(c.documents),
        fields,
        description: Some(match &density {
            Some((_, how)) => format!("{measured}; {how}"),
            None => measured,
        }),
        unique: Vec::new(),
        archive_of: None,
        density: density.map(|(d, _)| d),
        growth: None,
    }
}

/// The entity's `density:` from the points of its point field (the one
/// with the most points, when it has several), and where the figures
/// come from. A sample's counts stand for the whole collection: a cell
/// seen with `n` sampled points holds, beside the one point known to be
/// there, about `(n − 1) × scale` others (`scale` the collection's size
/// over the sample's). Scaling all `n` would make each lone point of a
/// sparse area `scale` points: the typical density of a sample read one
/// document in ten would come out ten times too dense.
fn density(c: &CollectionReport, fields: &[Field]) -> Option<(Density, String)> {
    let (path, d) = c
        .fields
        .iter()
        .filter(|f| {
            fields
                .iter()
                .any(|m| m.name == f.path && m.ty.holds(&FieldType::Point))
        })
        .filter_map(|f| Some((&f.path, f.geo?.density?)))
        .max_by(|a, b| a.1.points.cmp(&b.1.points).then(b.0.cmp(a.0)))?;
    let scale = c
        .sampled_from
        .map_or(1.0, |n| n as f64 / c.documents.max(1) as f64);
    let scaled = |per_km2: f64, n: u64| {
        let n = n.max(1) as f64;
        super::analyze::significant(per_km2 * ((n - 1.0) * scale + 1.0) / n)
    };
    let typical = scaled(d.typical_per_km2, d.typical_cell_points);
    let max = scaled(d.max_per_km2, d.densest_cell_points);
    let scaled = if scale == 1.0 {
        String::new()
    } else {
        format!(
            "; a cell's other points scaled by {} for the documents not sampled",
            super::analyze::significant(scale)
        )
    };
    // The share is a property of where the points lie, read from the
    // points seen: a sample shows it as the whole does.
    let densest_share = (max > typical).then_some(d.densest_share);
    let share = if densest_share.is_some() {
        "; densest_share: the weight for which typical and max average to the density around the average point"
    } else {
        ""
    };
    Some((
        Density {
            typical,
            max,
            densest_share,
        },
        format!(
            "density measured from the {} points of `{path}` in {} cells of {}° (typical: the median point's cell; max: the densest cell, around {}, {}{share}){scaled}",
            d.points, d.cells, d.cell_degrees, d.densest_at[0], d.densest_at[1]
        ),
    ))
}

/// The single-field indexes of `c` (from the dump's metadata), with
/// their field and key.
fn single_key_indexes(
    c: &CollectionReport,
) -> impl Iterator<Item = (&IndexReport, &str, &serde_json::Value)> {
    c.indexes
        .iter()
        .flatten()
        .filter_map(|i| match i.key.as_slice() {
            [(field, key)] => Some((i, field.as_str(), key)),
            _ => None,
        })
}

/// A TTL index in the metadata (`expireAfterSeconds` on one date field):
/// the server removes each document that long after the date, which is
/// the model's `expires`. Data alone never says so (a `created_at` date
/// is kept forever as often as not), so without the index nothing is
/// inferred; the rule `expiry-without-ttl` suggests the index where a
/// date named like an expiry lies ahead of the collection's other dates.
fn expiry(c: &CollectionReport, fields: &[Field]) -> Option<Expiry> {
    single_key_indexes(c).find_map(|(i, field, _)| {
        let seconds = u64::try_from(i.expire_after_seconds?)
            .ok()
            .filter(|s| *s <= i32::MAX as u64)?;
        let dated = fields
            .iter()
            .any(|f| f.name == field && f.ty == FieldType::Date);
        dated.then(|| Expiry {
            field: field.to_string(),
            seconds,
        })
    })
}

/// Legacy coordinate pairs (`[longitude, latitude]` arrays of two
/// numbers) are points when a `2dsphere` index covers the field (alone or
/// after other keys): the server then refuses a pair out of longitude and
/// latitude ranges. Under a `2d` index (a plane, whose bounds default to
/// those ranges) they are points when every pair the scan read was in
/// range. Two numbers alone could be anything (a size, a range), so
/// without such an index they stay an array. The scan measured the
/// pairs' density where the index is (`GeoReport::legacy_pairs`).
fn legacy_points(c: &CollectionReport, fields: &mut [Field]) {
    let keys = c
        .indexes
        .iter()
        .flatten()
        .flat_map(|i| &i.key)
        .filter_map(|(path, key)| Some((path.as_str(), key.as_str()?)));
    for (path, kind) in keys {
        if !matches!(kind, "2dsphere" | "2d") {
            continue;
        }
        let pairs = c.fields.iter().any(|f| {
            f.path == path
                && f.types.len() == 1
                && f.array.as_ref().is_some_and(|a| {
                    a.lengths.min == 2
                        && a.lengths.max == 2
                        && a.element_types
                            .iter()
                            .all(|t| matches!(t.ty, "double" | "int" | "long"))
                })
                && (kind == "2dsphere"
                    || f.geo
                        .is_some_and(|g| g.legacy_pairs > 0 && g.legacy_pairs_out_of_range == 0))
        });
        if let Some(f) = fields.iter_mut().find(|f| f.name == path)
            && pairs
        {
            f.ty = FieldType::Point;
            f.avg_size = None;
            f.description = Some(format!(
                "legacy [longitude, latitude] pairs under a {kind} index (GeoJSON in the design)"
            ));
        }
    }
}

fn relationship(
    r: &RelationshipReport,
    name: String,
    parent: EntityId,
    child: EntityId,
    _parent_name: &str,
    scale: f64,
) -> Relationship {
    // Children counted in a sample of the child collection are that share
    // of each parent's: scaled back up (a parent with none in the sample
    // may still have some).
    let up = |n: u64| ((n as f64) * scale).round() as u64;
    let children = match &r.estimate {
        // Sampled (issue 46): the figures are the collection's already,
        // estimated by a method the description names.
        Some(e) => {
            let typical = (e.typical.round() as u64).max(r.fan_out.min);
            let max = r.fan_out.max.max(typical);
            Cardinality {
                mean: None,
                min: r.fan_out.min.min(typical),
                typical,
                max: Count::Finite(max),
                growth: None,
                p95: e
                    .percentiles
                    .iter()
                    .find(|p| p.p == 0.95)
                    .map(|p| p.value.clamp(typical, max)),
                p99: None,
            }
        }
        None => {
            let min = if scale > 1.0 { 0 } else { r.fan_out.min };
            let typical = up(r.fan_out.p50).max(min);
            let max = up(r.fan_out.max).max(typical);
            Cardinality {
                mean: None,
                min,
                typical,
                max: Count::Finite(max),
                growth: None,
                // Measured: the fan-out's 95th percentile.
                p95: Some(up(r.fan_out.p95).clamp(typical, max)),
                p99: None,
            }
        }
    };
    let parents = match r.direction {
        Direction::ChildReferenceArray => Cardinality {
            mean: None,
            min: 1,
            typical: 1,
            max: Count::Finite(r.max_parents_per_child.max(1)),
            growth: None,
            p95: None,
            p99: None,
        },
        Direction::ParentReference => Cardinality::ONE,
    };
    let (parent_field, child_field) = match r.direction {
        // Several arrays of one parent can point at one child collection: the
        // back-reference name must be unique, so it is the relationship's.
        Direction::ChildReferenceArray => (r.field.clone(), name.clone()),
        Direction::ParentReference => (name.clone(), r.field.clone()),
    };
    Relationship {
        tenant_chain: Vec::new(),
        stated_parents: None,
        name,
        kind: r.kind,
        parent,
        child,
        children,
        parents,
        child_standalone: true,
        shared: r.kind == RelationshipKind::ManyToMany,
        parent_field,
        child_field,
        // The layout found is what the data has, not a constraint: advise
        // is asked what it should be.
        layout: None,
        snapshot: Vec::new(),
        attributes: Vec::new(),
        edge: false,
        levels: None,
        description: Some(describe(r)),
    }
}

/// What the relationship is matched on, and for a sampled one how its
/// figures were estimated for the collections.
fn describe(r: &RelationshipReport) -> String {
    let head = format!(
        "{}.{} matches {}.{} ({})",
        r.from,
        r.field,
        r.to,
        r.key,
        r.direction.as_str()
    );
    let Some(e) = &r.estimate else {
        return format!("{head}; {:.1} % of the values match", r.match_share * 100.0);
    };
    let method = serde_json::to_value(e.fan_out_method)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let matched = match e.dangling {
        Some(d) => format!(
            "{:.1} % of {} sampled values match documents of the whole collection \
             (dangling {:.1}–{:.1} %, {:.0} % interval)",
            r.match_share * 100.0,
            r.values_checked,
            d.low * 100.0,
            d.high * 100.0,
            e.confidence * 100.0
        ),
        None => "the share of values matching is unknown (the server was not asked)".to_string(),
    };
    format!(
        "{head}; {matched}; children per parent estimated for the collection by {method} \
         ({} parents measured): {} children over {} parents having any",
        e.parents_measured, e.children, e.parents_with_any
    )
}

/// Builds the model of what the scan found. Collections without documents are
/// left out (nothing measured).
pub fn model(report: &ScanReport, name: &str) -> Model {
    let measured: Vec<&CollectionReport> = report
        .collections
        .iter()
        .filter(|c| c.documents > 0)
        .collect();
    let mut names: Vec<String> = Vec::new();
    for c in &measured {
        let plain = ident(&c.name);
        let clash = measured.iter().filter(|o| ident(&o.name) == plain).count() > 1;
        let mut n = match (&c.database, clash) {
            (Some(db), true) => ident(&format!("{db}_{}", c.name)),
            _ => plain,
        };
        while names.contains(&n) {
            n.push('_');
        }
        names.push(n);
    }
    let entities: Vec<Entity> = measured
        .iter()
        .zip(&names)
        .map(|(c, n)| entity(c, n.clone()))
        .collect();
    let find = |r: &super::report::CollectionRef| {
        measured
            .iter()
            .position(|c| c.name == r.collection && c.database == r.database)
            .map(EntityId::from_index)
    };
    let mut entities = entities;
    let mut relationships: Vec<Relationship> = Vec::new();
    // The layout each reference has in the dump: what the data does today.
    let mut current = Vec::new();
    for r in &report.relationships {
        let (Some(parent), Some(child)) = (find(&r.parent), find(&r.child)) else {
            continue;
        };
        let (holder, other) = match r.direction {
            Direction::ChildReferenceArray => (parent, child),
            Direction::ParentReference => (child, parent),
        };
        // Copies of the other side's fields beside the reference make it an
        // extended reference (its wrapper no embedded entity). A field the
        // other side holds as a reference of its own is no field of its
        // entity; a wrapper holding two references is claimed by neither.
        let theirs: Vec<&str> = report
            .relationships
            .iter()
            .filter(|x| find(&x.from) == Some(other))
            .map(|x| x.field.as_str())
            .collect();
        let copies = super::copies::find(
            measured[holder.index()],
            &r.field,
            &entities[other.index()],
            &theirs,
        )
        .filter(|c| {
            let shared = report.relationships.iter().any(|x| {
                !std::ptr::eq(x, r)
                    && find(&x.from) == Some(holder)
                    && x.field.split_once('.').is_some_and(|(w, _)| w == c.field)
            });
            !shared
        });
        let field = copies
            .as_ref()
            .map_or(r.field.as_str(), |c| c.field.as_str());
        let from = &entities[find(&r.from).map_or(0, EntityId::index)].name;
        let mut rel_name = ident(&format!("{from}_{field}"));
        while relationships.iter().any(|x| x.name == rel_name) {
            rel_name.push('_');
        }
        let parent_name = entities[parent.index()].name.clone();
        // The reference field (and its copies) belong to the relationship,
        // not to the entity.
        entities[holder.index()].fields.retain(|f| {
            f.name != r.field
                && copies
                    .as_ref()
                    .is_none_or(|c| !c.consumed.contains(&f.name))
        });
        current.push(crate::model::CurrentLayout {
            relationship: crate::model::RelationshipId::from_index(relationships.len()),
            // Ids of children shared by several parents are a many-to-many's
            // ids kept on one side.
            layout: match (r.direction, r.kind, &copies) {
                (_, _, Some(_)) => crate::model::LayoutKind::ExtendedReference,
                (_, RelationshipKind::ManyToMany, None) => {
                    crate::model::LayoutKind::ManyToManyOneWay
                }
                (Direction::ChildReferenceArray, _, None) => {
                    crate::model::LayoutKind::ChildReferences
                }
                (Direction::ParentReference, _, None) => crate::model::LayoutKind::ParentReference,
            },
            copies: copies
                .as_ref()
                .map(|c| c.copies.clone())
                .unwrap_or_default(),
        });
        // A sample of the children holds that share of each parent's
        // (unless the figures are estimated for the collection already).
        let scale = match r.direction {
            _ if r.estimate.is_some() => 1.0,
            Direction::ParentReference => measured[child.index()]
                .sampled_from
                .map_or(1.0, |n| {
                    n as f64 / measured[child.index()].documents.max(1) as f64
                })
                .max(1.0),
            Direction::ChildReferenceArray => 1.0,
        };
        let mut rel = relationship(r, rel_name, parent, child, &parent_name, scale);
        if let Some(c) = &copies {
            match r.direction {
                Direction::ChildReferenceArray => rel.parent_field.clone_from(&c.field),
                Direction::ParentReference => rel.child_field.clone_from(&c.field),
            }
            if let Some(d) = rel.description.as_mut() {
                d.push_str(&format!(
                    "; copies {} beside it (same names and types)",
                    c.copies.join(", ")
                ));
            }
        }
        relationships.push(rel);
    }
    embedded(&measured, &mut entities, &mut relationships, &mut current);
    Model {
        name: name.to_string(),
        entities,
        relationships,
        workload: Workload {
            mixes: vec![Mix {
                name: "default".to_string(),
                description: None,
            }],
            operations: Vec::new(),
            atomic_groups: Vec::new(),
        },
        assumed: Vec::new(),
        current,
        // Each collection is an entity of its own, whole: whatever archive,
        // polymorphic collection or timeline the deployment keeps is an
        // entity here, so none of those patterns is in use for the others.
        without: crate::model::Without {
            archive: crate::model::Scope::All,
            polymorphic: crate::model::Scope::All,
            timeline: crate::model::Scope::All,
        },
        tenant: None,
        deployment: Default::default(),
    }
}

/// More fields than this under one sub-document are keys that are values.
const MAX_EMBEDDED_FIELDS: usize = 64;

/// The sub-documents and arrays of sub-documents each collection embeds,
/// as entities of their own with a relationship whose layout today is
/// `embed`: an order's `items`, a user's `address`. Their fields are the
/// paths one level below; an array's fan-out is its measured lengths. A
/// field a reference already took is left to it.
fn embedded(
    measured: &[&CollectionReport],
    entities: &mut Vec<Entity>,
    relationships: &mut Vec<Relationship>,
    current: &mut Vec<crate::model::CurrentLayout>,
) {
    for (i, c) in measured.iter().enumerate() {
        // Breadth first: the collection's own sub-documents, then theirs
        // (an order's items' options), each held by the entity made for
        // the one above: (path, holder entity, documents with the path).
        let mut queue = std::collections::VecDeque::from([(String::new(), i, c.documents)]);
        while let Some((above, holder, holder_docs)) = queue.pop_front() {
            let level = if above.is_empty() {
                1
            } else {
                above.split('.').count() as u32 + 1
            };
            if level > MAX_EMBEDDED_DEPTH {
                continue;
            }
            let within = if above.is_empty() {
                String::new()
            } else {
                format!("{above}.")
            };
            embedded_level(
                c,
                (holder, holder_docs),
                (&within, level),
                entities,
                relationships,
                current,
                &mut queue,
            );
        }
    }
}

/// Sub-documents nested deeper than this are left as fields.
const MAX_EMBEDDED_DEPTH: u32 = 4;

/// The sub-documents at `level` under path `within` (`""` or `items.`) of
/// collection `c`, held by entity `holder` (present in `holder_docs`
/// documents): each an entity and an embedding, queued for the level below.
fn embedded_level(
    c: &CollectionReport,
    (holder, holder_docs): (usize, u64),
    (within, level): (&str, u32),
    entities: &mut Vec<Entity>,
    relationships: &mut Vec<Relationship>,
    current: &mut Vec<crate::model::CurrentLayout>,
    queue: &mut std::collections::VecDeque<(String, usize, u64)>,
) {
    {
        for f in c
            .fields
            .iter()
            .filter(|f| f.level == level && f.path.starts_with(within))
        {
            let local = &f.path[within.len()..];
            let Some(top) = f.types.first() else { continue };
            let (many, lengths) = match (top.ty, &f.array) {
                ("object", _) => (false, None),
                ("array", Some(a)) if a.element_types.first().is_some_and(|t| t.ty == "object") => {
                    (true, Some(&a.lengths))
                }
                _ => continue,
            };
            // Still a field of its holder: no reference claimed it, and
            // it is no GeoJSON (a point is a field, not an entity).
            let parent = EntityId::from_index(holder);
            if !entities[holder]
                .fields
                .iter()
                .any(|x| x.name == local && !x.ty.holds_geo())
            {
                continue;
            }
            let prefix = format!("{}.", f.path);
            let fields: Vec<Field> = c
                .fields
                .iter()
                .filter(|x| x.level == level + 1 && x.path.starts_with(&prefix))
                .filter_map(|x| {
                    let mut g = field(x)?;
                    g.name = x.path[prefix.len()..].to_string();
                    // Presence among the parents that have the sub-document.
                    g.required = x.documents >= f.documents;
                    Some(g)
                })
                .filter(|g| !g.name.is_empty() && !g.name.contains('.'))
                .collect();
            // Keys that are values (ids as field names, one per entry) make
            // no entity: many names, each in few documents.
            let common = c
                .fields
                .iter()
                .filter(|x| x.level == level + 1 && x.path.starts_with(&prefix))
                .any(|x| x.documents * 2 >= f.documents);
            if fields.is_empty() || fields.len() > MAX_EMBEDDED_FIELDS || !common {
                continue;
            }
            let mut name = ident(&format!("{}_{local}", entities[holder].name));
            while entities.iter().any(|e| e.name == name) {
                name.push('_');
            }
            // The relationship is named as the field, so that a filter
            // `items.sku` reads through it, unless that name is taken.
            let mut rel_name = ident(local);
            if relationships.iter().any(|r| r.name == rel_name) {
                rel_name = name.clone();
            }
            // Nor `without`: its layout of today could not be written under
            // `current:`, where that key lists the patterns not used today.
            while rel_name == crate::model::WITHOUT_KEY
                || relationships.iter().any(|r| r.name == rel_name)
            {
                rel_name.push('_');
            }
            let per_parent = lengths.map_or(1.0, |l| l.mean);
            // At least as many as any field has distinct values (the mean
            // length is sketched).
            // The holder's instances that have it (a share of the holder's
            // count, as documents with the path are of those with the
            // holder's), times the mean length of an array.
            let share = (f.documents as f64 / holder_docs.max(1) as f64).min(1.0);
            let count = ((entities[holder].count as f64 * share * per_parent).round() as u64)
                .max(fields.iter().filter_map(|g| g.distinct).max().unwrap_or(0));
            entities[holder].fields.retain(|x| x.name != local);
            let child = EntityId::from_index(entities.len());
            entities.push(Entity {
                expires: None,
                name: name.clone(),
                count,
                fields,
                description: Some(format!(
                    "embedded in {} as `{}`, measured by squill scan",
                    c.name, f.path
                )),
                unique: Vec::new(),
                archive_of: None,
                density: None,
                growth: None,
            });
            let children = match lengths {
                Some(l) => {
                    let typical = l.p50.max(l.min);
                    let max = l.max.max(typical);
                    Cardinality {
                        mean: None,
                        min: if f.documents < holder_docs { 0 } else { l.min },
                        typical,
                        max: Count::Finite(max),
                        growth: None,
                        p95: Some(l.p95.clamp(typical, max)),
                        p99: None,
                    }
                }
                None => Cardinality {
                    mean: None,
                    min: u64::from(f.documents >= holder_docs),
                    typical: 1,
                    max: Count::Finite(1),
                    growth: None,
                    p95: None,
                    p99: None,
                },
            };
            current.push(crate::model::CurrentLayout {
                relationship: crate::model::RelationshipId::from_index(relationships.len()),
                layout: crate::model::LayoutKind::Embed,
                copies: Vec::new(),
            });
            relationships.push(Relationship {
                tenant_chain: Vec::new(),
                stated_parents: None,
                name: rel_name,
                kind: if many {
                    RelationshipKind::OneToMany
                } else {
                    RelationshipKind::OneToOne
                },
                parent,
                child,
                children,
                parents: Cardinality::ONE,
                child_standalone: false,
                shared: false,
                parent_field: local.to_string(),
                child_field: entities[holder].name.clone(),
                layout: None,
                snapshot: Vec::new(),
                attributes: Vec::new(),
                edge: false,
                levels: None,
                description: Some(format!(
                    "{}.{} holds {} (embedded today)",
                    c.name,
                    f.path,
                    if many {
                        "an array of sub-documents"
                    } else {
                        "a sub-document"
                    }
                )),
            });
            queue.push_back((f.path.clone(), child.index(), f.documents));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scan::testing::{B, coll, doc, oid, scan};

    /// The model of `report` as YAML, and that YAML read back: what a user
    /// of `--emit-model` gets and what advise then reads.
    fn round_trip(report: &crate::scan::ScanReport, name: &str) -> (String, crate::model::Model) {
        let yaml = crate::inputs::model_file::to_yaml(&super::model(report, name));
        let back = crate::inputs::model_file::parse(&format!("{name}.yaml"), &yaml)
            .unwrap_or_else(|e| panic!("{e:?}\n{yaml}"));
        (yaml, back)
    }

    #[test]
    fn emitted_model_parses_back_with_the_measured_relationship() {
        let movies = (0..4)
            .map(|i| doc(&[("_id", B::Oid(oid(i))), ("title", B::Str("Metropolis"))]))
            .collect();
        let comments = (0..12)
            .map(|i| {
                doc(&[
                    ("_id", B::Oid(oid(100 + i))),
                    ("movie_id", B::Oid(oid(i % 3))),
                    ("text", B::Str("great")),
                ])
            })
            .collect();
        let report = scan(
            vec![coll("m", "movies", movies), coll("m", "comments", comments)],
            &Default::default(),
        );
        let (yaml, back) = round_trip(&report, "scanned");
        assert_eq!(back.entities.len(), 2);
        let r = &back.relationships[0];
        assert_eq!(back.entity(r.parent).name, "movies");
        assert_eq!(back.entity(r.child).name, "comments");
        // 12 comments over movies 0..3, movie 3 has none: 0, 4, 4, 4.
        assert_eq!(
            (r.children.min, r.children.typical, r.children.max),
            (0, 4, crate::model::Count::Finite(4))
        );
        insta::assert_snapshot!(yaml);
    }

    /// An order's array of line items and its shipping sub-document are
    /// entities embedded today; a map whose keys are ids is a field.
    #[test]
    fn embedded_sub_documents_are_entities_embedded_today() {
        let ids: Vec<String> = (0..40).map(|i| format!("k{i:02}")).collect();
        let orders = (0..10u64)
            .map(|i| {
                let items = (0..(1 + i % 3))
                    .map(|j| B::Doc(vec![("sku", B::Owned(format!("s{j}"))), ("qty", B::I32(2))]))
                    .collect();
                let by_key = vec![(ids[(i * 4) as usize].as_str(), B::I32(1))];
                doc(&[
                    ("_id", B::Oid(oid(i))),
                    ("total", B::F64(9.5)),
                    ("items", B::Arr(items)),
                    (
                        "ship",
                        B::Doc(vec![("city", B::Str("Oslo")), ("zip", B::Str("0150"))]),
                    ),
                    ("seen_by", B::Doc(by_key)),
                ])
            })
            .collect();
        let report = scan(vec![coll("s", "orders", orders)], &Default::default());
        let (yaml, back) = round_trip(&report, "shop");
        let names: Vec<&str> = back.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["orders", "orders_items", "orders_ship"], "{yaml}");
        let items = back.relationship_by_name("items").expect("items");
        let r = back.relationship(items);
        assert_eq!(r.kind, crate::model::RelationshipKind::OneToMany);
        assert_eq!(
            (r.children.min, r.children.max),
            (1, crate::model::Count::Finite(3))
        );
        // 1, 2, 3, 1, 2, 3, 1, 2, 3, 1 items: 19 in all.
        assert_eq!(back.entity(r.child).count, 19);
        let fields: Vec<&str> = back
            .entity(r.child)
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(fields, ["sku", "qty"]);
        let ship = back.relationship_by_name("ship").expect("ship");
        assert_eq!(
            back.relationship(ship).kind,
            crate::model::RelationshipKind::OneToOne
        );
        assert!(
            back.current
                .iter()
                .all(|c| c.layout == crate::model::LayoutKind::Embed)
        );
        assert_eq!(back.current.len(), 2);
        // The map keyed by ids stays a field of the order.
        assert!(
            back.entities[0].fields.iter().any(|f| f.name == "seen_by"),
            "{yaml}"
        );
    }

    /// A post's `author: {_id, name}` and an order's `customer_id` beside
    /// `customer_name`: references with copies of the referenced side's
    /// fields, extended references today, the wrapper no entity; a field
    /// beside a reference that the other side lacks (`customer_note`)
    /// stays the holder's own.
    #[test]
    fn copies_beside_a_reference_make_it_an_extended_reference_today() {
        let users: Vec<_> = (0..5)
            .map(|i| {
                doc(&[
                    ("_id", B::Oid(oid(i))),
                    ("name", B::Str("Ada")),
                    ("email", B::Str("a@x")),
                ])
            })
            .collect();
        let posts = (0..20)
            .map(|i| {
                doc(&[
                    ("_id", B::Oid(oid(100 + i))),
                    ("title", B::Str("hello")),
                    (
                        "author",
                        B::Doc(vec![("_id", B::Oid(oid(i % 5))), ("name", B::Str("Ada"))]),
                    ),
                ])
            })
            .collect();
        let orders = (0..10)
            .map(|i| {
                doc(&[
                    ("_id", B::Oid(oid(200 + i))),
                    ("customer_id", B::Oid(oid(i % 5))),
                    ("customer_name", B::Str("Ada")),
                    ("customer_note", B::Str("ring twice")),
                ])
            })
            .collect();
        let report = scan(
            vec![
                coll("b", "users", users),
                coll("b", "posts", posts),
                coll("b", "orders", orders),
            ],
            &Default::default(),
        );
        let (yaml, back) = round_trip(&report, "blog");
        let names: Vec<&str> = back.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["users", "posts", "orders"], "{yaml}");
        for (rel, field) in [
            ("posts_author", "author"),
            ("orders_customer_id", "customer_id"),
        ] {
            let id = back
                .relationship_by_name(rel)
                .unwrap_or_else(|| panic!("{rel}\n{yaml}"));
            assert_eq!(back.relationship(id).child_field, field);
            let cur = back.current_of(id).expect("a layout today");
            assert_eq!(cur.layout, crate::model::LayoutKind::ExtendedReference);
            assert_eq!(cur.copies, ["name"], "{yaml}");
        }
        let orders: Vec<&str> = back.entities[2]
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(orders, ["customer_note"], "{yaml}");
    }

    /// Sub-documents inside embedded ones are entities embedded in those:
    /// an order's items' options, its shipping address's position.
    #[test]
    fn nested_sub_documents_are_embedded_in_their_holder() {
        let orders = (0..8u64)
            .map(|i| {
                let items = (0..2)
                    .map(|j| {
                        let options = (0..(1 + (i + j) % 2))
                            .map(|_| {
                                B::Doc(vec![("label", B::Str("gift")), ("price", B::F64(1.5))])
                            })
                            .collect();
                        B::Doc(vec![
                            ("sku", B::Owned(format!("s{j}"))),
                            ("options", B::Arr(options)),
                        ])
                    })
                    .collect();
                doc(&[
                    ("_id", B::Oid(oid(i))),
                    ("items", B::Arr(items)),
                    (
                        "ship",
                        B::Doc(vec![
                            ("city", B::Str("Oslo")),
                            (
                                "geo",
                                B::Doc(vec![("lat", B::F64(59.9)), ("lng", B::F64(10.7))]),
                            ),
                        ]),
                    ),
                ])
            })
            .collect();
        let report = scan(vec![coll("s", "orders", orders)], &Default::default());
        let (yaml, back) = round_trip(&report, "shop");
        let names: Vec<&str> = back.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "orders",
                "orders_items",
                "orders_ship",
                "orders_items_options",
                "orders_ship_geo"
            ],
            "{yaml}"
        );
        let options = back.relationship(back.relationship_by_name("options").expect(&yaml));
        assert_eq!(back.entity(options.parent).name, "orders_items");
        assert_eq!(options.kind, crate::model::RelationshipKind::OneToMany);
        assert_eq!(
            (options.children.min, options.children.max),
            (1, crate::model::Count::Finite(2))
        );
        // 16 items, half with one option and half with two: 24.
        assert_eq!(back.entity(options.child).count, 24, "{yaml}");
        let items: Vec<&str> = back.entities[1]
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(items, ["sku"]);
        let geo = back.relationship(back.relationship_by_name("geo").expect(&yaml));
        assert_eq!(back.entity(geo.parent).name, "orders_ship");
        assert_eq!(geo.kind, crate::model::RelationshipKind::OneToOne);
        assert_eq!(back.current.len(), 4);
    }

    /// A sub-document under a field named `without` gives a relationship
    /// of another name: `current:` reads that key as the patterns not used
    /// today, and the model must read back.
    #[test]
    fn a_field_named_without_gives_a_relationship_that_reads_back() {
        let orders = (0..4u64)
            .map(|i| {
                doc(&[
                    ("_id", B::Oid(oid(i))),
                    ("without", B::Doc(vec![("reason", B::Str("none"))])),
                ])
            })
            .collect();
        let report = scan(vec![coll("s", "orders", orders)], &Default::default());
        let (yaml, back) = round_trip(&report, "shop");
        assert!(back.relationship_by_name("without").is_none(), "{yaml}");
        let id = back.relationship_by_name("without_").expect(&yaml);
        assert!(back.current_of(id).is_some(), "{yaml}");
    }
}
