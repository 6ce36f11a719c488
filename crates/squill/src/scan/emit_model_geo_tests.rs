//! `scan --emit-model` on places and expiry: GeoJSON sub-documents become
//! the model's `point` and `polygon` fields, legacy pairs only under a
//! `2dsphere` index, and a TTL index in the dump's metadata the entity's
//! `expires`. Each case beside its near miss.

use super::report::IndexReport;
use super::testing::{B, Coll, coll, doc, index, oid, scan};
use crate::model::{Expiry, FieldType, Model};

/// The emitted model, written and read back as `advise` reads it.
fn emitted(colls: Vec<Coll>) -> Model {
    let report = scan(colls, &Default::default());
    let yaml = crate::inputs::model_file::to_yaml(&super::emit_model::model(&report, "t"));
    crate::inputs::model_file::parse("t.yaml", &yaml).unwrap_or_else(|e| panic!("{e:?}\n{yaml}"))
}

fn field_type(m: &Model, entity: &str, field: &str) -> Option<FieldType> {
    let e = m.entities.iter().find(|e| e.name == entity)?;
    e.field(field).map(|f| f.ty.clone())
}

fn point(lng: f64, lat: f64) -> B<'static> {
    B::Doc(vec![
        ("type", B::Str("Point")),
        ("coordinates", B::Arr(vec![B::F64(lng), B::F64(lat)])),
    ])
}

/// Restaurants at `n` points, the `bad`-th (if any) with its latitude
/// and longitude swapped past 90.
fn restaurants(n: u64, bad: Option<u64>) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let lng = -73.9 - i as f64 * 0.01;
            let at = if Some(i) == bad {
                point(40.7, lng + 200.0)
            } else {
                point(lng, 40.7)
            };
            doc(&[
                ("_id", B::Oid(oid(i))),
                ("name", B::Str("Chez")),
                ("location", at),
            ])
        })
        .collect()
}

#[test]
fn geojson_points_are_point_fields_not_embedded_entities() {
    let m = emitted(vec![coll("food", "restaurants", restaurants(6, None))]);
    assert_eq!(
        field_type(&m, "restaurants", "location"),
        Some(FieldType::Point)
    );
    assert_eq!(m.entities.len(), 1, "no entity of `type` and `coordinates`");
    assert!(m.relationships.is_empty());
}

/// One value out of range: the field is not all points, so it stays what
/// it was (an embedded sub-document), and the report counts the invalid one.
#[test]
fn one_invalid_point_keeps_the_sub_document() {
    let report = scan(
        vec![coll("food", "restaurants", restaurants(6, Some(3)))],
        &Default::default(),
    );
    let geo = report.collections[0]
        .fields
        .iter()
        .find(|f| f.path == "location")
        .and_then(|f| f.geo)
        .expect("location is counted as GeoJSON");
    assert_eq!((geo.points, geo.invalid), (5, 1));
    let m = emitted(vec![coll("food", "restaurants", restaurants(6, Some(3)))]);
    assert_eq!(field_type(&m, "restaurants", "location"), None);
    assert!(m.entities.iter().any(|e| e.name == "restaurants_location"));
}

#[test]
fn geojson_polygons_are_polygon_fields_with_their_corners() {
    let pos = |x: f64, y: f64| B::Arr(vec![B::F64(x), B::F64(y)]);
    let zones = (0..3)
        .map(|i| {
            let x = f64::from(i);
            let ring = B::Arr(vec![
                pos(x, 0.0),
                pos(x + 1.0, 0.0),
                pos(x + 1.0, 1.0),
                pos(x + 0.5, 1.5),
                pos(x, 1.0),
                pos(x, 0.0),
            ]);
            doc(&[
                ("_id", B::I32(i)),
                (
                    "area",
                    B::Doc(vec![
                        ("type", B::Str("Polygon")),
                        ("coordinates", B::Arr(vec![ring])),
                    ]),
                ),
            ])
        })
        .collect();
    let m = emitted(vec![coll("food", "zones", zones)]);
    let zone = m.entities.iter().find(|e| e.name == "zones").unwrap();
    let area = zone.field("area").unwrap();
    assert_eq!(
        (area.ty.clone(), area.avg_size),
        (FieldType::Polygon, Some(5))
    );
}

/// A polygon of `corners` corners at `x` (its ring closed).
fn polygon(x: f64, corners: u32) -> B<'static> {
    let mut ring: Vec<B<'static>> = (0..corners)
        .map(|k| {
            let a = f64::from(k) / f64::from(corners) * std::f64::consts::TAU;
            B::Arr(vec![B::F64(x + a.cos() * 0.1), B::F64(a.sin() * 0.1)])
        })
        .collect();
    ring.push(B::Arr(vec![B::F64(x + 0.1), B::F64(0.0)]));
    B::Doc(vec![
        ("type", B::Str("Polygon")),
        ("coordinates", B::Arr(vec![B::Arr(ring)])),
    ])
}

/// An array of polygons keeps its corners: each zone's two areas have 4
/// and 8 corners (a mean of 6, at most 8), so the model says
/// `polygon(6)[2]`, each element's bytes those of six corners, and the
/// description the most one ring had. Without the corners the model
/// would price 20 (the default) a polygon.
#[test]
fn an_array_of_polygons_keeps_its_corners() {
    let zones = (0..3)
        .map(|i| {
            let x = f64::from(i);
            doc(&[
                ("_id", B::I32(i)),
                ("areas", B::Arr(vec![polygon(x, 4), polygon(x + 0.5, 8)])),
            ])
        })
        .collect();
    let report = scan(vec![coll("geo", "zones", zones)], &Default::default());
    let geo = report.collections[0]
        .fields
        .iter()
        .find(|f| f.path == "areas")
        .and_then(|f| f.geo)
        .unwrap();
    assert_eq!(
        (geo.polygon_corners, geo.polygon_corners_max),
        (Some(6.0), Some(8))
    );
    let m = emitted_report(&report);
    let areas = m.entities[0].field("areas").unwrap();
    assert_eq!(
        (areas.ty.clone(), areas.avg_size, areas.element_size),
        (
            FieldType::Array(Box::new(FieldType::Polygon)),
            Some(2),
            Some(6)
        )
    );
    assert!(
        areas
            .description
            .as_deref()
            .is_some_and(|d| d.contains("6 corners on average, at most 8")),
        "{areas:?}"
    );
    let six = FieldType::Polygon.value_bytes(Some(6));
    assert_eq!(
        areas.element_bytes(),
        1 + 5 + 1 + 5 + 2 * (1 + 2 + 1 + six),
        "two elements of six corners"
    );
}

/// The emitted model of `report`, written and read back.
fn emitted_report(report: &super::report::ScanReport) -> Model {
    let yaml = crate::inputs::model_file::to_yaml(&super::emit_model::model(report, "t"));
    crate::inputs::model_file::parse("t.yaml", &yaml).unwrap_or_else(|e| panic!("{e:?}\n{yaml}"))
}

/// `[longitude, latitude]` pairs under a 2dsphere index are points; the
/// same pairs without it stay an array of numbers.
#[test]
fn legacy_pairs_are_points_only_under_a_2dsphere_index() {
    let docs = || {
        (0..4)
            .map(|i| {
                doc(&[
                    ("_id", B::Oid(oid(i))),
                    ("loc", B::Arr(vec![B::F64(2.35), B::F64(48.85)])),
                ])
            })
            .collect()
    };
    let sphere = IndexReport {
        key: vec![("loc".into(), serde_json::Value::from("2dsphere"))],
        ..index("loc_2dsphere", &[])
    };
    let mut indexed = coll("geo", "shops", docs());
    indexed.indexes = Some(vec![index("_id_", &[("_id", 1)]), sphere]);
    let m = emitted(vec![indexed]);
    assert_eq!(field_type(&m, "shops", "loc"), Some(FieldType::Point));
    let mut plain = coll("geo", "shops", docs());
    plain.indexes = Some(vec![
        index("_id_", &[("_id", 1)]),
        index("loc_1", &[("loc", 1)]),
    ]);
    let m = emitted(vec![plain]);
    assert_eq!(
        field_type(&m, "shops", "loc"),
        Some(FieldType::Array(Box::new(FieldType::Double)))
    );
}

fn sessions(ttl: IndexReport) -> Coll {
    let docs = (0..4)
        .map(|i| {
            doc(&[
                ("_id", B::Oid(oid(i))),
                (
                    "last_used",
                    B::Date(1_700_000_000_000 + i64::try_from(i).unwrap()),
                ),
                ("user", B::Str("ada")),
            ])
        })
        .collect();
    let mut c = coll("app", "sessions", docs);
    c.indexes = Some(vec![index("_id_", &[("_id", 1)]), ttl]);
    c
}

#[test]
fn a_ttl_index_is_the_entitys_expiry() {
    let ttl = IndexReport {
        expire_after_seconds: Some(1_800),
        ..index("last_used_1", &[("last_used", 1)])
    };
    let m = emitted(vec![sessions(ttl)]);
    assert_eq!(
        m.entities[0].expires,
        Some(Expiry {
            field: "last_used".into(),
            seconds: 1_800
        })
    );
}

/// The same index on a field that holds no dates (the server would never
/// expire a document by it), and the date's plain index: no expiry.
#[test]
fn no_expiry_without_a_ttl_index_on_a_date() {
    let on_string = IndexReport {
        expire_after_seconds: Some(1_800),
        ..index("user_1", &[("user", 1)])
    };
    assert_eq!(emitted(vec![sessions(on_string)]).entities[0].expires, None);
    let plain = index("last_used_1", &[("last_used", 1)]);
    assert_eq!(emitted(vec![sessions(plain)]).entities[0].expires, None);
}

/// Restaurants with `busy` points in one 0.05° cell of Paris and one point
/// in each of `sparse` cells along the same latitude.
fn clustered(busy: u32, sparse: u32) -> Vec<Vec<u8>> {
    let busy = (0..busy).map(|i| point(2.301 + f64::from(i) * 0.001, 48.801));
    let sparse = (0..sparse).map(|i| point(3.0 + f64::from(i), 48.801));
    busy.chain(sparse)
        .enumerate()
        .map(|(i, at)| doc(&[("_id", B::Oid(oid(i as u64))), ("location", at)]))
        .collect()
}

/// The area of a 0.05° cell whose south edge is at `south` degrees, km².
fn cell_km2(south: f64) -> f64 {
    let r: f64 = 6_371.008_8;
    let (s, n) = (south.to_radians(), (south + 0.05).to_radians());
    r * r * 0.05_f64.to_radians() * (n.sin() - s.sin())
}

/// The points' density is the entity's `density:`, so a model scan
/// writes can be advised on `near` reads: typical where the median point
/// lies, max in the densest cell, both per km², with where they come from.
#[test]
fn point_density_is_measured_into_the_model() {
    let cell = cell_km2(48.8);
    let m = emitted(vec![coll("food", "restaurants", clustered(12, 4))]);
    let e = &m.entities[0];
    let d = e.density.expect("a density from the points");
    let close = |a: f64, b: f64| (a - b).abs() <= b * 1e-3;
    assert!(close(d.max, 12.0 / cell), "{d:?}");
    assert!(
        close(d.typical, 12.0 / cell),
        "the median point is in the busy cell: {d:?}"
    );
    assert_eq!(d.densest_share, None, "no densest case: {d:?}");
    let m = emitted(vec![coll("food", "restaurants", clustered(12, 20))]);
    let d = m.entities[0].density.expect("a density");
    assert!(close(d.typical, 1.0 / cell), "most points are alone: {d:?}");
    assert!(close(d.max, 12.0 / cell), "{d:?}");
    // Around the average point (12 × 12 + 20 × 1) / 32 = 5.125 a cell:
    // the share for which 1 and 12 average to it, (5.125 − 1) / 11.
    assert_eq!(d.densest_share, Some(0.375), "{d:?}");
    let text = crate::inputs::model_file::to_yaml(&m);
    assert!(text.contains(", densest_share: 0.375}"), "{text}");
    let how = m.entities[0].description.as_deref().unwrap_or_default();
    assert!(
        how.contains("density measured from the 32 points of `location`"),
        "{how}"
    );
}

/// No point field, no density: the polygons of zones and sub-documents
/// that are not all points say nothing of how dense places are.
#[test]
fn no_density_without_point_fields() {
    let m = emitted(vec![coll("food", "restaurants", restaurants(6, Some(3)))]);
    assert_eq!(m.entities[0].density, None);
}

/// A chain's shops: `locations` an array of `n` points per store.
fn chains(stores: u64, n: u32, bad: bool) -> Vec<Vec<u8>> {
    (0..stores)
        .map(|i| {
            let shops = (0..n)
                .map(|k| {
                    let lng = 2.3 + f64::from(k) * 0.2;
                    if bad && i == 0 && k == 1 {
                        point(48.8, lng + 200.0)
                    } else {
                        point(lng, 48.8)
                    }
                })
                .collect();
            doc(&[("_id", B::Oid(oid(i))), ("locations", B::Arr(shops))])
        })
        .collect()
}

/// An array of GeoJSON points is a `point[N]` field (an array of places,
/// with their density), not an embedded entity of `type` and
/// `coordinates`; one invalid element keeps it an array of sub-documents.
#[test]
fn an_array_of_points_is_an_array_of_places() {
    let m = emitted(vec![coll("shops", "chains", chains(4, 3, false))]);
    let e = &m.entities[0];
    let f = e.field("locations").expect("the field");
    assert_eq!(
        (f.ty.clone(), f.avg_size),
        (FieldType::Array(Box::new(FieldType::Point)), Some(3))
    );
    assert_eq!(m.entities.len(), 1, "no entity of `type` and `coordinates`");
    // The four stores' first shops share one cell: 4 of the 12 points.
    let d = e.density.expect("a density from the array's points");
    let close = |a: f64, b: f64| (a - b).abs() <= b * 1e-3;
    assert!(close(d.max, 4.0 / cell_km2(48.8)), "{d:?}");
    let report = scan(
        vec![coll("shops", "chains", chains(4, 3, true))],
        &Default::default(),
    );
    let geo = report.collections[0]
        .fields
        .iter()
        .find(|f| f.path == "locations")
        .and_then(|f| f.geo)
        .expect("counted as GeoJSON");
    assert_eq!((geo.points, geo.invalid, geo.in_arrays), (11, 1, 12));
    let m = emitted(vec![coll("shops", "chains", chains(4, 3, true))]);
    assert_ne!(
        field_type(&m, "chains", "locations"),
        Some(FieldType::Array(Box::new(FieldType::Point)))
    );
}

/// A sample's points stand for the collection's: a live scan that read
/// one document in ten counts ten points for each it saw beside another in
/// its cell, and says so; a lone point stays one (the typical place here
/// holds one restaurant, not ten).
#[test]
fn a_sampled_density_is_scaled_to_the_collection() {
    let mut report = scan(
        vec![coll("food", "restaurants", clustered(12, 20))],
        &Default::default(),
    );
    report.collections[0].sampled_from = Some(320);
    let whole = super::emit_model::model(&report, "t");
    let d = whole.entities[0].density.expect("a density");
    let cell = cell_km2(48.8);
    assert!((d.max - 111.0 / cell).abs() <= d.max * 1e-3, "{d:?}");
    assert!((d.typical - 1.0 / cell).abs() <= d.typical * 1e-3, "{d:?}");
    let how = whole.entities[0].description.as_deref().unwrap_or_default();
    assert!(
        how.contains("other points scaled by 10 for the documents not sampled"),
        "{how}"
    );
}

/// audit46 D9: the text report says what the JSON report counts: three
/// valid polygons of 4 corners each (a mean of 4, at most 4), where it
/// once showed only `object`.
#[test]
fn the_text_report_names_the_polygons_it_counted() {
    let zones: Vec<Vec<u8>> = (0..3)
        .map(|i| doc(&[("_id", B::I32(i)), ("area", polygon(f64::from(i), 4))]))
        .collect();
    let report = scan(vec![coll("food", "zones", zones)], &Default::default());
    let text = crate::outputs::scan::text(&report);
    let line = text.lines().find(|l| l.contains("area")).unwrap();
    assert!(
        line.ends_with("; 3 GeoJSON polygons of 4 corners on average, at most 4"),
        "{text}"
    );
}
