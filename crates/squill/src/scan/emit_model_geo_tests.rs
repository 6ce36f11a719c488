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
