//! The workload the logs show, as the model's operations: each query shape
//! of a namespace the scan measured becomes an operation of that
//! collection's entity — a read with its filter, sort, limit and the
//! relationships its `$lookup`s follow; an insert, update or delete — at
//! the rate the logs give it. A shape that cannot be said in the model
//! (a namespace the dump does not hold, a nested field, no time span) is
//! listed with the reason instead of being dropped.
//!
//! Each operation is written as model-file text and read back alone
//! against the scanned model, so an operation the model language refuses
//! is reported with the parser's own reason and the others are kept.

use crate::model::{Model, RelationshipKind};
use crate::workload::WorkloadReport;
use crate::workload::report::ShapeReport;
use crate::workload::shape::{EARTH_RADIUS_M, METRES_PER_DEGREE, OpClass, OpKind};
use std::fmt::Write as _;

/// A shape that did not become an operation, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmapped {
    pub namespace: String,
    /// `S3`, as the workload report numbers shapes.
    pub shape: String,
    pub text: String,
    pub why: String,
}

/// The logs' shapes as operations of `model`, the model `emit_model`
/// made of `scan` (its entities are the collections with documents, in
/// order): the model with them, its text as written (with the comments
/// that say what is assumed), and the shapes left out.
pub fn operations(
    scan: &super::report::ScanReport,
    model: &Model,
    workload: &WorkloadReport,
) -> (Model, String, Vec<Unmapped>) {
    let collections: Vec<(Option<String>, String)> = scan
        .collections
        .iter()
        .filter(|c| c.documents > 0)
        .map(|c| (c.database.clone(), c.name.clone()))
        .collect();
    let index_keys = |i: usize| -> Vec<(String, serde_json::Value)> {
        let mut kept = scan.collections.iter().filter(|c| c.documents > 0);
        kept.nth(i)
            .and_then(|c| c.indexes.as_ref())
            .map(|ix| ix.iter().flat_map(|x| x.key.iter().cloned()).collect())
            .unwrap_or_default()
    };
    let base = crate::inputs::model_file::to_yaml(model);
    let mut kept: Vec<String> = Vec::new();
    let mut unmapped = Vec::new();
    for ns in &workload.namespaces {
        let entity = collections
            .iter()
            .position(|(db, name)| {
                *name == ns.collection && db.as_deref().is_none_or(|d| d == ns.database)
            })
            .map(|i| model.entities[i].name.clone());
        let keys = collections
            .iter()
            .position(|(db, name)| {
                *name == ns.collection && db.as_deref().is_none_or(|d| d == ns.database)
            })
            .map(index_keys)
            .unwrap_or_default();
        let sphere = |path: &str| on_sphere(&keys, path);
        for s in &ns.shapes {
            let miss = |why: String| Unmapped {
                namespace: ns.namespace.clone(),
                shape: s.id.clone(),
                text: s.text.clone(),
                why,
            };
            let Some(entity) = &entity else {
                unmapped.push(miss("the dump holds no such collection".into()));
                continue;
            };
            let of = |collection: &str| {
                collections
                    .iter()
                    .position(|(db, name)| {
                        name == collection && db.as_deref().is_none_or(|d| d == ns.database)
                    })
                    .map(|i| model.entities[i].name.clone())
            };
            let op = match operation(model, entity, &ns.namespace, s, (&of, &sphere)) {
                Ok(op) => op,
                Err(why) => {
                    unmapped.push(miss(why));
                    continue;
                }
            };
            // Read back alone: the model language's verdict on it.
            let text = format!("{base}operations:\n{op}");
            match crate::inputs::model_file::parse("observed.yaml", &text) {
                Ok(_) => kept.push(op),
                Err(e) => {
                    let why = e
                        .problems()
                        .first()
                        .map_or_else(|| "the model refuses it".to_string(), |p| p.message.clone());
                    unmapped.push(miss(why));
                }
            }
        }
    }
    let text = if kept.is_empty() {
        base
    } else {
        format!("{base}operations:\n{}", kept.concat())
    };
    let model =
        crate::inputs::model_file::parse("observed.yaml", &text).unwrap_or_else(|_| model.clone());
    (model, text, unmapped)
}

/// Whether a legacy coordinate pair searched near on `path` is searched
/// on a `2dsphere` index: the collection has one on the path and no `2d`
/// one (`keys`, its indexes' keys). There the radius of a legacy pair is
/// in radians, as `$nearSphere`'s: `$geoNear` without `spherical: true`
/// takes `$near`'s semantics, "spherical geometry for 2dsphere indexes
/// and planar geometry for 2d indexes", its `maxDistance` "in radians if
/// the specified point is legacy coordinate pairs" (MongoDB manual,
/// `$geoNear`); `$near` on a legacy pair needs a `2d` index.
fn on_sphere(keys: &[(String, serde_json::Value)], path: &str) -> bool {
    let has = |kind: &str| {
        keys.iter()
            .any(|(k, v)| k == path && v.as_str() == Some(kind))
    };
    has("2dsphere") && !has("2d")
}

/// The entity whose documents a collection holds, by the collection's name.
type EntityOf<'a> = dyn Fn(&str) -> Option<String> + 'a;
/// Whether a path's geo index is a `2dsphere` one ([`on_sphere`]).
type OnSphere<'a> = dyn Fn(&str) -> bool + 'a;

/// One shape as the text of one operation of `entity`; `sphere` says
/// whether a path's geo index is a `2dsphere` one ([`on_sphere`]).
fn operation(
    model: &Model,
    entity: &str,
    namespace: &str,
    s: &ShapeReport,
    (entity_of, sphere): (&EntityOf<'_>, &OnSphere<'_>),
) -> Result<String, String> {
    let rate = s
        .rate_per_second
        .filter(|r| *r > 0.0)
        .ok_or("the logs have no time span to make a rate of")?;
    let shape = &s.shape;
    // A findAndModify finds one document by its filter (first in its
    // sort) and changes or removes it in one atomic command: a claim, or
    // a delete of one.
    let removes = shape.update.iter().any(|u| u.op == "remove");
    let verb = match shape.kind {
        OpKind::Find | OpKind::Count | OpKind::Distinct | OpKind::GetMore | OpKind::Aggregate => {
            "read"
        }
        OpKind::Insert => "insert",
        OpKind::Update => "update",
        OpKind::FindAndModify if removes => "delete",
        OpKind::FindAndModify => "claim",
        OpKind::Delete => "delete",
    };
    let name = format!("{}_{}", s.id.to_ascii_lowercase(), verb);
    let mut out = String::new();
    let _ = writeln!(out, "  {name}:");
    let _ = writeln!(out, "    {verb}: {entity}");
    let _ = writeln!(out, "    rate: {}", round(rate));
    let _ = writeln!(
        out,
        "    description: \"observed in the logs: {} × {} on {namespace} ({})\"",
        s.count,
        shape.kind.as_str(),
        s.id
    );
    if shape.kind == OpKind::Insert {
        return Ok(out);
    }
    // The filter: a pipeline's $match stages count as the filter.
    let mut filter = shape.filter.clone();
    for st in &shape.stages {
        filter.extend(st.fields.iter().cloned());
    }
    // A `$geoNear` without `key` searches the collection's one geo
    // field: the entity's only point or polygon, if it has just one.
    if let Some(unnamed) = filter
        .iter_mut()
        .find(|f| f.path == crate::workload::shape::GEO_NEAR_UNNAMED)
    {
        let geo: Vec<&str> = model
            .entities
            .iter()
            .find(|e| e.name == entity)
            .map(|e| e.geo_fields().map(|f| f.name.as_str()).collect())
            .unwrap_or_default();
        match geo.as_slice() {
            [one] => unnamed.path = (*one).to_string(),
            _ => {
                return Err(format!(
                    "a $geoNear that names no key, and {entity} has {} point or polygon fields to choose from",
                    geo.len()
                ));
            }
        }
    }
    filter.sort();
    filter.dedup_by(|a, b| a.path == b.path);
    if !filter.is_empty() {
        // A radius past what a model takes ("no limit" written as 2e7 m)
        // is capped at the largest, so the read is kept; the comment
        // below gives the log's own.
        let max_m = crate::inputs::model_file::max_radius_km().floor() * 1000.0;
        // A legacy pair's radius taken as degrees (a flat `2d` search) is
        // in radians on a `2dsphere` index.
        let radians = s.radius_flat.filter(|_| {
            filter
                .iter()
                .any(|f| f.op == OpClass::Near && sphere(&f.path))
        });
        let radius_m = match radians {
            Some(flat) => s.radius_m.map(|_| flat.degrees * EARTH_RADIUS_M),
            None => s.radius_m,
        };
        let capped = radius_m.filter(|r| *r > max_m);
        let radius = radius_m.map(|r| radius_text(r.min(max_m)));
        // A `within` by a box or a polygon searches its area, when the
        // logs show one larger than the circle they show.
        let max_km2 = crate::inputs::model_file::MAX_AREA_KM2;
        let area_km2 = s.area_km2.filter(|a| {
            radius_m.is_none_or(|r| *a > std::f64::consts::PI * (r.min(max_m) / 1000.0).powi(2))
        });
        let area = area_km2.map(|a| area_text(a.min(max_km2)));
        let parts: Vec<String> = filter
            .iter()
            .map(|f| {
                let searched = match (f.op, &area) {
                    (OpClass::Within, Some(a)) => Some(a.as_str()),
                    _ => radius.as_deref(),
                };
                format!("{}: {}", key(&f.path), op(f.op, searched))
            })
            .collect();
        let _ = writeln!(out, "    filter: {{{}}}", parts.join(", "));
        if let (Some(a), Some(logged)) = (&area, area_km2)
            && filter.iter().any(|f| f.op == OpClass::Within)
        {
            let _ = if logged > max_km2 {
                writeln!(
                    out,
                    "    # the logs' area, {}, the largest of the shape's searches, is above the largest a model takes (half the Earth's surface): capped at {a}",
                    area_text(logged)
                )
            } else {
                writeln!(
                    out,
                    "    # the area the logs show: {a}, the largest of the shape's searches (a $box, $polygon or $geometry, its corners taken as degrees of longitude and latitude)"
                )
            };
        }
        if filter
            .iter()
            .any(|f| f.op == OpClass::Near || (f.op == OpClass::Within && area.is_none()))
        {
            let _ = match (&radius, capped) {
                (Some(r), Some(logged)) => writeln!(
                    out,
                    "    # the logs' radius, {}, the largest of the shape's searches, is above the largest a model takes (a circle of half the Earth's surface): capped at {r}",
                    radius_text(logged)
                ),
                (Some(r), None) if radians.is_some() => writeln!(
                    out,
                    "    # the radius the logs show: {r}, the largest of the shape's searches; a legacy coordinate pair on a 2dsphere index, in radians of {}",
                    radius_text(EARTH_RADIUS_M)
                ),
                (Some(r), None) if s.radius_flat.is_some() => writeln!(
                    out,
                    "    # the radius the logs show: {r}, the largest of the shape's searches; {}",
                    flat_radius_text(s.radius_flat)
                ),
                (Some(r), None) => writeln!(
                    out,
                    "    # the radius the logs show: {r}, the largest of the shape's searches"
                ),
                (None, _) => writeln!(
                    out,
                    "    # assumed: a search within {ASSUMED_RADIUS}; the logs show the place searched, not its radius or its corners"
                ),
            };
        }
    }
    if verb == "claim" && !shape.sort.is_empty() {
        let keys: Vec<String> = shape
            .sort
            .iter()
            .map(|k| format!("{}{}", if k.descending { "-" } else { "" }, k.path))
            .collect();
        let _ = writeln!(out, "    sort: [{}]", keys.join(", "));
    }
    if verb == "read" {
        let mut sort = shape.sort.clone();
        for st in &shape.stages {
            sort.extend(st.sort.iter().cloned());
        }
        if !sort.is_empty() {
            let keys: Vec<String> = sort
                .iter()
                .map(|k| format!("{}{}", if k.descending { "-" } else { "" }, k.path))
                .collect();
            let _ = writeln!(out, "    sort: [{}]", keys.join(", "));
        }
        let limited = shape.limit || shape.stages.iter().any(|st| st.name == "$limit");
        if limited {
            let most = crate::inputs::model_file::MAX_WHOLE;
            let _ = match s.limit {
                // A limit no read reaches, written as "no limit": capped
                // so the model takes it.
                Some(n) if n > most => writeln!(
                    out,
                    "    limit: {most}  # the logs' limit, {n}, the largest of the shape's executions, is above the largest a model takes: capped"
                ),
                Some(n) => writeln!(
                    out,
                    "    limit: {n}  # the logs' limit, the largest of the shape's executions"
                ),
                // A redacted log shows that a limit is set, not its value.
                None => writeln!(
                    out,
                    "    limit: {ASSUMED_LIMIT}  # assumed: the logs show a limit, not its value"
                ),
            };
        }
        let mut includes = Vec::new();
        for st in shape.stages.iter().filter(|st| st.from.is_some()) {
            let from = st.from.as_deref().unwrap_or_default();
            let rel = entity_of(from)
                .and_then(|other| related(model, entity, &other))
                .ok_or_else(|| {
                    format!(
                        "a $lookup from {from}, which no reference in the data ties to {entity}"
                    )
                })?;
            includes.push(format!("{rel}: {{}}"));
        }
        if !includes.is_empty() {
            let _ = writeln!(out, "    include: {{{}}}", includes.join(", "));
        }
    }
    if verb == "update" || verb == "claim" {
        let mut changes: Vec<String> = shape
            .update
            .iter()
            .filter(|u| u.op != "replacement" && u.op != "pipeline")
            .map(|u| u.path.split('.').next().unwrap_or(&u.path).to_string())
            .filter(|p| p != "_id")
            .collect();
        changes.sort();
        changes.dedup();
        if !changes.is_empty() {
            let _ = writeln!(out, "    changes: [{}]", changes.join(", "));
        }
    }
    Ok(out)
}

/// A page or a top-N when the logs do not say how many.
const ASSUMED_LIMIT: u32 = 20;

/// The radius of a `$near` or `$geoWithin` search when the logs do not say
/// it (shapes keep no values): the model needs one to price the places
/// inside it, and the comment beside the operation says it is assumed.
const ASSUMED_RADIUS: &str = "1 km";

/// An area in km² as the model writes one: km² from 1 km², else m², to
/// the square metre.
fn area_text(km2: f64) -> String {
    if km2 >= 1.0 {
        format!("{} km2", round((km2 * 1000.0).round() / 1000.0))
    } else {
        format!("{} m2", round((km2 * 1e6).round().max(1.0)))
    }
}

/// A radius in metres as the model writes one: kilometres from 1 km,
/// to the metre.
fn radius_text(m: f64) -> String {
    if m >= 1000.0 {
        format!("{} km", round(m.round() / 1000.0))
    } else {
        format!("{} m", round(m.round().max(1.0)))
    }
}

/// What a flat search's radius was taken as: degrees of latitude, and
/// where the command gives the centre's latitude, the circle of the
/// search's area there (`FlatRadius::metres`).
fn flat_radius_text(flat: Option<crate::workload::shape::FlatRadius>) -> String {
    let degree = radius_text(METRES_PER_DEGREE);
    match flat.and_then(|f| Some((f.degrees, f.latitude?))) {
        Some((d, lat)) => format!(
            "assumed: a flat (2d) search in degrees of longitude and latitude, {degree} a degree of latitude; at the centre's latitude, {lat}°, a degree of longitude is {} of that, and the radius is that of a circle of the search's area ({d}° north–south)",
            crate::words::num(lat.to_radians().cos()),
        ),
        None => format!(
            "assumed: a flat (2d) search in degrees of longitude and latitude, {degree} each (the command gives no latitude: east–west the circle may be wider than the search)"
        ),
    }
}

/// The model's operator for `c`; a geo search with `radius` when the
/// logs show it, else the assumed one.
fn op(c: OpClass, radius: Option<&str>) -> String {
    let radius = radius.unwrap_or(ASSUMED_RADIUS);
    match c {
        OpClass::Near => format!("near({radius})"),
        OpClass::Within => format!("within({radius})"),
        OpClass::Intersects => "intersects".into(),
        other => plain_op(other).into(),
    }
}

fn plain_op(c: OpClass) -> &'static str {
    match c {
        OpClass::Eq => "eq",
        OpClass::In => "in",
        OpClass::Near | OpClass::Within | OpClass::Intersects => "range",
        // An index serves these as a scan of a range of keys.
        OpClass::Range | OpClass::Regex | OpClass::Exists | OpClass::NeNin | OpClass::Other => {
            "range"
        }
    }
}

/// A field name as a YAML key (quoted when it needs to be).
fn key(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        path.to_string()
    } else {
        format!("{:?}", path)
    }
}

fn round(rate: f64) -> String {
    let r = format!("{rate:.6}");
    r.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The relationship between entities `entity` and `other`, by its name.
fn related(model: &Model, entity: &str, other: &str) -> Option<String> {
    let e = model.entities.iter().position(|x| x.name == entity)?;
    let other = model.entities.iter().position(|x| x.name == other)?;
    model
        .relationships
        .iter()
        .find(|r| {
            r.kind != RelationshipKind::ManyToMany
                && ((r.parent.index() == e && r.child.index() == other)
                    || (r.child.index() == e && r.parent.index() == other))
        })
        .map(|r| r.name.clone())
}

#[cfg(test)]
mod tests {
    use super::{METRES_PER_DEGREE, operation};
    use crate::model::{FilterOp, Model, OperationKind};
    use crate::workload::{Options, read_bytes};

    /// Restaurants with a location, delivery zones with an area, jobs with
    /// a state and a priority: the collections the log lines below query.
    const MODEL: &str = r"
name: observed
entities:
  restaurants:
    count: 2000000
    density: {typical: 40, max: 2500}
    fields: {location: point, open: bool}
  zones:
    count: 400
    fields: {area: polygon}
  jobs:
    count: 10000000
    fields: {status: string(10), priority: int, created_at: date, worker: string(8)}
";

    /// Each command logged twice, an hour apart (a rate needs a span).
    fn log(commands: &[&str]) -> String {
        let mut out = String::new();
        for hour in ["12", "13"] {
            for c in commands {
                out.push_str(&format!(
                    "2019-06-18T{hour}:00:00.000+0000 I COMMAND  [conn1] command {c} planSummary: COLLSCAN keysExamined:0 docsExamined:1000 nreturned:1 100ms\n"
                ));
            }
        }
        out
    }

    /// The operations the logs' shapes become on `MODEL`, as text, and the
    /// model with them read back.
    fn observed(commands: &[&str]) -> (Vec<String>, Model) {
        observed_on(commands, &[])
    }

    /// As [`observed`], the paths `sphere` searched on a `2dsphere` index.
    fn observed_on(commands: &[&str], sphere: &[&str]) -> (Vec<String>, Model) {
        let model = crate::inputs::model_file::parse("observed.yaml", MODEL)
            .unwrap_or_else(|e| panic!("{e}"));
        let report = read_bytes("t.log", log(commands).as_bytes(), Options::default());
        let mut ops = Vec::new();
        for ns in &report.namespaces {
            for s in &ns.shapes {
                let text = operation(
                    &model,
                    &ns.collection,
                    &ns.namespace,
                    s,
                    (&|c: &str| Some(c.to_string()), &|p: &str| {
                        sphere.contains(&p)
                    }),
                )
                .unwrap_or_else(|e| panic!("{e}"));
                ops.push(text);
            }
        }
        let base = crate::inputs::model_file::to_yaml(&model);
        let text = format!("{base}operations:\n{}", ops.concat());
        let back = crate::inputs::model_file::parse("observed.yaml", &text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        (ops, back)
    }

    /// `$near` (and `$nearSphere`), `$geoWithin` and `$geoIntersects`
    /// become the model's geo reads (they were ranges, which the model
    /// refuses on a point and prices as a B-tree walk), with the radius
    /// and the limit the logs show (issue 41: they were assumed, 1 km and
    /// 20, whatever the log said).
    #[test]
    fn geo_filters_become_geo_reads() {
        let (ops, model) = observed(&[
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $near: { $geometry: { type: "Point", coordinates: [ -73.9, 40.7 ] }, $maxDistance: 3000 } }, open: true }, limit: 20 }"#,
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $geoWithin: { $centerSphere: [ [ -73.9, 40.7 ], 0.001 ] } } } }"#,
            r#"food.zones command: find { find: "zones", filter: { area: { $geoIntersects: { $geometry: { type: "Point", coordinates: [ -73.9, 40.7 ] } } } } }"#,
        ]);
        let text = ops.concat();
        assert!(
            text.contains("filter: {location: near(3 km), open: eq}"),
            "{text}"
        );
        assert!(text.contains("    limit: 20  # the logs' limit"), "{text}");
        // 0.001 radians of a sphere of 6378.1 km.
        assert!(
            text.contains("filter: {location: within(6.378 km)}"),
            "{text}"
        );
        assert!(text.contains("filter: {area: intersects}"), "{text}");
        assert!(!text.contains("assumed"), "{text}");
        let geo: Vec<FilterOp> = model
            .workload
            .operations
            .iter()
            .filter_map(|o| match &o.kind {
                OperationKind::Read { filter, .. } => {
                    filter.iter().find(|f| f.op.is_geo()).map(|f| f.op)
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            geo,
            [FilterOp::Near, FilterOp::Within, FilterOp::Intersects]
        );
    }

    /// A `$geoNear` stage is a near read: by its `key`, or without one by
    /// the entity's only point field; its `query` filters as a `$match`.
    #[test]
    fn a_geo_near_stage_is_a_near_read() {
        let (ops, model) = observed(&[
            r#"food.restaurants command: aggregate { aggregate: "restaurants", pipeline: [ { $geoNear: { near: { type: "Point", coordinates: [ -73.9, 40.7 ] }, query: { open: true }, distanceField: "d", maxDistance: 3000 } }, { $limit: 20 } ] }"#,
        ]);
        let text = ops.concat();
        assert!(
            text.contains("filter: {location: near(3 km), open: eq}"),
            "{text}"
        );
        assert!(text.contains("    limit: 20  # the logs' limit"), "{text}");
        let near = model.workload.operations.iter().any(|o| match &o.kind {
            OperationKind::Read { filter, .. } => filter.iter().any(|f| f.op == FilterOp::Near),
            _ => false,
        });
        assert!(near, "{text}");
    }

    /// A legacy pair's `$maxDistance` is in radians for `$nearSphere`, a
    /// GeoJSON point's in metres; each
    /// shape's operation keeps the largest radius and limit its
    /// executions show, and says "assumed" only for what no execution
    /// shows: a `$near` without `$maxDistance`, a redacted limit.
    #[test]
    fn radii_and_limits_are_read_from_the_logs() {
        let (ops, _) = observed(&[
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $nearSphere: [ -73.9, 40.7 ], $maxDistance: 0.0005 } }, limit: 5 }"#,
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $nearSphere: [ -73.9, 40.7 ], $maxDistance: 0.0002 } }, limit: 8 }"#,
            r####"food.restaurants command: find { find: "restaurants", filter: { open: true, location: { $near: { $geometry: { type: "Point", coordinates: [ -73.9, 40.7 ] }, $maxDistance: 750 } } }, limit: "###" }"####,
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $near: { $geometry: { type: "Point", coordinates: [ -73.9, 40.7 ] } } }, open: false } }"#,
        ]);
        assert_eq!(ops.len(), 3, "{ops:?}");
        let find = |open: bool, limited: bool| {
            ops.iter()
                .find(|o| o.contains("open: eq") == open && o.contains("limit:") == limited)
                .unwrap_or_else(|| panic!("no operation ({open}, {limited}): {ops:?}"))
        };
        let (legacy, metres, unbounded) = (find(false, true), find(true, true), find(true, false));
        // 0.0005 radians, the larger of the two, of 6378.1 km: 3189.05 m.
        assert!(
            legacy.contains("filter: {location: near(3.189 km)}"),
            "{legacy}"
        );
        assert!(
            legacy.contains("    limit: 8  # the logs' limit"),
            "{legacy}"
        );
        assert!(!legacy.contains("assumed"), "{legacy}");
        assert!(
            metres.contains("filter: {location: near(750 m), open: eq}"),
            "{metres}"
        );
        assert!(
            metres.contains("    limit: 20  # assumed: the logs show a limit, not its value"),
            "{metres}"
        );
        assert!(
            unbounded.contains("near(1 km)")
                && unbounded.contains("# assumed: a search within 1 km"),
            "{unbounded}"
        );
    }

    /// Beside a legacy pair, `$near` and a `$geoNear` without `spherical:
    /// true` search a `2d` index on a flat plane, in the coordinates'
    /// units (degrees: 0.01° is 1.112 km), while `$nearSphere` and
    /// `spherical: true` take radians (0.01 rad of 6378.1 km is 63.781 km).
    /// Both were read as radians: the flat reads priced 57× the radius.
    /// A flat circle of 0.01° at latitude 48.81° is 1.112 km north–south
    /// and cos 48.81° as wide east–west: the radius of a circle of its
    /// area, 1.112 km × √cos 48.81°, is priced (it was 1.112 km, the area
    /// overstated by 1/cos φ).
    #[test]
    fn a_flat_near_on_a_legacy_pair_is_in_degrees() {
        let (ops, _) = observed(&[
            r#"food.restaurants command: find { find: "restaurants", filter: { open: true, location: { $near: [ 2.32, 48.81 ], $maxDistance: 0.01 } }, limit: 10 }"#,
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $nearSphere: [ 2.32, 48.81 ], $maxDistance: 0.01 } }, limit: 10 }"#,
            r#"food.restaurants command: aggregate { aggregate: "restaurants", pipeline: [ { $geoNear: { near: [ 2.32, 48.81 ], key: "location", distanceField: "d", maxDistance: 0.01, query: { open: true } } }, { $limit: 5 } ] }"#,
            r#"food.restaurants command: aggregate { aggregate: "restaurants", pipeline: [ { $geoNear: { near: [ 2.32, 48.81 ], key: "location", distanceField: "d", maxDistance: 0.01, spherical: true } }, { $limit: 5 } ] }"#,
        ]);
        assert_eq!(ops.len(), 4, "{ops:?}");
        let find = |open: bool, aggregate: bool| {
            ops.iter()
                .find(|o| o.contains("open: eq") == open && o.contains("limit: 5") == aggregate)
                .unwrap_or_else(|| panic!("no operation ({open}, {aggregate}): {ops:?}"))
        };
        let flat = format!(
            "near({})",
            super::radius_text(0.01 * METRES_PER_DEGREE * 48.81f64.to_radians().cos().sqrt())
        );
        for (open, aggregate, radius) in [
            (true, false, flat.as_str()),
            (false, false, "near(63.781 km)"),
            (true, true, flat.as_str()),
            (false, true, "near(63.781 km)"),
        ] {
            let op = find(open, aggregate);
            assert!(op.contains(radius), "{radius}: {op}");
            assert_eq!(
                op.contains("assumed: a flat (2d) search in degrees of longitude and latitude, 111.195 km a degree of latitude; at the centre's latitude, 48.81°"),
                open,
                "{op}"
            );
        }
    }

    /// A `$geoWithin` `$center` is a flat circle in the coordinates' units,
    /// as a flat `$near` is (it was no radius: the read was priced within
    /// the assumed 1 km): at latitude 60° its area is half a circle's of
    /// 0.01° (cos 60° = ½), at the equator the circle's. A centre past ±90
    /// gives no latitude: the north–south radius, said so.
    #[test]
    fn a_flat_circle_is_priced_at_its_area_at_its_latitude() {
        let within = |lat: &str| {
            format!(
                r#"food.restaurants command: find {{ find: "restaurants", filter: {{ location: {{ $geoWithin: {{ $center: [ [ 2.32, {lat} ], 0.01 ] }} }} }}, limit: 10 }}"#
            )
        };
        let degree = 0.01 * METRES_PER_DEGREE;
        for (lat, m) in [
            ("60", degree * 0.5f64.sqrt()),
            ("0", degree),
            ("120", degree),
        ] {
            let (ops, _) = observed(&[&within(lat)]);
            let want = format!("within({})", super::radius_text(m));
            assert!(ops[0].contains(&want), "{lat}: {want}: {ops:?}");
            assert_eq!(
                ops[0].contains("the command gives no latitude"),
                lat == "120",
                "{ops:?}"
            );
        }
    }

    /// On a `2dsphere` index a legacy pair's radius is in radians, also
    /// for a `$geoNear` without `spherical: true` (`$near` semantics:
    /// spherical on a 2dsphere index; MongoDB manual, `$geoNear`): 0.01 is
    /// 63.781 km, not 1.112 km (issue 41: it was read as degrees). A `2d`
    /// index beside it on the same path keeps the flat reading.
    #[test]
    fn a_legacy_pair_on_a_2dsphere_index_is_in_radians() {
        let geo_near = r#"food.restaurants command: aggregate { aggregate: "restaurants", pipeline: [ { $geoNear: { near: [ 2.32, 48.81 ], key: "location", distanceField: "d", maxDistance: 0.01, query: { open: true } } }, { $limit: 5 } ] }"#;
        let (ops, _) = observed_on(&[geo_near], &["location"]);
        assert!(
            ops[0].contains("near(63.781 km)")
                && ops[0].contains(
                    "a legacy coordinate pair on a 2dsphere index, in radians of 6378.1 km"
                ),
            "{ops:?}"
        );
        let (ops, _) = observed_on(&[geo_near], &[]);
        let flat = 0.01 * METRES_PER_DEGREE * 48.81f64.to_radians().cos().sqrt();
        assert!(
            ops[0].contains(&format!("near({})", super::radius_text(flat))),
            "{ops:?}"
        );
        let key = |k: &str, v: &str| (k.to_string(), serde_json::json!(v));
        assert!(super::on_sphere(&[key("location", "2dsphere")], "location"));
        assert!(!super::on_sphere(
            &[key("location", "2dsphere"), key("location", "2d")],
            "location"
        ));
        assert!(!super::on_sphere(&[key("area", "2dsphere")], "location"));
    }

    /// A radius or a limit past what a model takes (a `$maxDistance` of
    /// 2e7 m, a `limit` of 1e18, both meaning "no bound") is capped at the
    /// largest, with a comment giving the log's value: the operation was
    /// refused and written only as a comment.
    #[test]
    fn a_radius_or_limit_past_the_model_is_capped() {
        let (ops, model) = observed(&[
            r#"food.restaurants command: find { find: "restaurants", filter: { location: { $near: { $geometry: { type: "Point", coordinates: [ -73.9, 40.7 ] }, $maxDistance: 2e7 } }, open: true }, limit: 1e18 }"#,
        ]);
        let text = ops.concat();
        let most = crate::inputs::model_file::max_radius_km().floor();
        assert!(
            text.contains(&format!("filter: {{location: near({most} km), open: eq}}")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "# the logs' radius, 20000 km, the largest of the shape's searches, is above the largest a model takes (a circle of half the Earth's surface): capped at {most} km"
            )),
            "{text}"
        );
        assert!(
            text.contains("limit: 9000000000000000  # the logs' limit, 1000000000000000000,"),
            "{text}"
        );
        let read = model.workload.operations.iter().any(|o| match &o.kind {
            OperationKind::Read { filter, .. } => filter.iter().any(|f| f.op == FilterOp::Near),
            _ => false,
        });
        assert!(read, "{text}");
    }

    /// A `findAndModify` that changes a document is a claim (find one by
    /// the filter, first in the sort, change it in one command: it was an
    /// update, which loses the sort); one that removes is a delete.
    #[test]
    fn find_and_modify_is_a_claim_or_a_delete() {
        let (ops, model) = observed(&[
            r#"q.jobs command: findAndModify { findAndModify: "jobs", query: { status: "pending" }, sort: { priority: -1, created_at: 1 }, update: { $set: { status: "running", worker: "w1" } } }"#,
            r#"q.jobs command: findAndModify { findAndModify: "jobs", query: { status: "done" }, remove: true }"#,
        ]);
        let text = ops.concat();
        assert!(text.contains("claim: jobs"), "{text}");
        assert!(text.contains("sort: [-priority, created_at]"), "{text}");
        assert!(text.contains("changes: [status, worker]"), "{text}");
        assert!(text.contains("delete: jobs"), "{text}");
        let claims: Vec<usize> = model
            .workload
            .operations
            .iter()
            .filter_map(|o| o.terms.claim.as_ref().map(Vec::len))
            .collect();
        assert_eq!(claims, [2]);
    }
}
