//! Places for example and synthetic data: GeoJSON points clustered around
//! a few city centres (real places are not spread evenly: a uniform
//! spread would make every `near` search find the same few), with valid
//! longitudes and latitudes, and polygons whose one ring is closed (its
//! last position repeats its first), as a `2dsphere` index requires.

use super::value::{Document, Value};
use crate::design::{GEOJSON_POINT, GEOJSON_POLYGON};
use crate::model::{FieldType, POLYGON_CORNERS};
use serde_json::{Value as Json, json};

/// Centres the points gather around: (longitude, latitude) of a few large
/// cities on several continents.
const CENTRES: [(f64, f64); 5] = [
    (-73.98, 40.75),  // New York
    (2.35, 48.86),    // Paris
    (139.69, 35.69),  // Tokyo
    (-46.63, -23.55), // São Paulo
    (77.21, 28.61),   // Delhi
];

/// The salt of an instance's centre, the same for all its fields.
const CITY_SALT: u64 = 0x5CA1_AB1E;

/// Degrees of latitude in 1 km.
const DEG_PER_KM: f64 = 1.0 / 111.32;

/// A stable pseudo-random number in [0, 1) for instance `n` and `salt`.
fn unit(n: u64, salt: u64) -> f64 {
    let mut x = n
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(salt.wrapping_mul(0xBF58_476D_1CE4_E5B9));
    x ^= x >> 31;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// The position of point `n`: near one of the centres, most within a few
/// km of it and fewer farther out (the distance from the centre is the
/// square of a uniform draw, up to 30 km), rounded to 6 decimals (about
/// 0.1 m).
pub fn point(n: u64, salt: u64) -> (f64, f64) {
    // The centre is the instance's alone, not the field's: the points of
    // one document (a ride's pickup and its dropoff) lie in one city, at
    // most 60 km apart, not on two continents (audit48 C6).
    let (lng0, lat0) =
        CENTRES[(unit(n, CITY_SALT) * CENTRES.len() as f64) as usize % CENTRES.len()];
    let r = unit(n, salt ^ 1).powi(2) * 30.0;
    let angle = unit(n, salt ^ 2) * std::f64::consts::TAU;
    let lat = (lat0 + r * angle.sin() * DEG_PER_KM).clamp(-89.9, 89.9);
    let lng = lng0 + r * angle.cos() * DEG_PER_KM / lat0.to_radians().cos().max(0.01);
    let lng = ((lng + 180.0).rem_euclid(360.0)) - 180.0;
    (round6(lng), round6(lat))
}

/// The closed ring of polygon `n`: `corners` positions on a circle of a
/// few km around a clustered centre, then the first again.
pub fn ring(n: u64, salt: u64, corners: u64) -> Vec<(f64, f64)> {
    let (lng0, lat0) = point(n, salt);
    let radius = 1.0 + unit(n, salt ^ 3) * 4.0;
    let corners = corners.max(3);
    let mut out: Vec<(f64, f64)> = (0..corners)
        .map(|i| {
            let a = i as f64 / corners as f64 * std::f64::consts::TAU;
            let lat = (lat0 + radius * a.sin() * DEG_PER_KM).clamp(-89.9, 89.9);
            let lng = lng0 + radius * a.cos() * DEG_PER_KM / lat0.to_radians().cos().max(0.01);
            (round6(lng), round6(lat))
        })
        .collect();
    out.push(out[0]);
    out
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn salt(name: &str) -> u64 {
    name.bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b))
}

/// The synthetic GeoJSON value of `geometry` (`Point`, `Polygon`) for
/// field `name` of instance `key`.
pub fn value(geometry: &str, name: &str, key: u64, corners: u64) -> Value {
    let position =
        |(lng, lat): (f64, f64)| Value::Array(vec![Value::Double(lng), Value::Double(lat)]);
    let (ty, coordinates) = if geometry == GEOJSON_POLYGON {
        let ring = ring(key, salt(name), corners)
            .into_iter()
            .map(position)
            .collect();
        (GEOJSON_POLYGON, Value::Array(vec![Value::Array(ring)]))
    } else {
        (GEOJSON_POINT, position(point(key, salt(name))))
    };
    Value::Document(Document(vec![
        ("type".into(), Value::String(ty.into())),
        ("coordinates".into(), coordinates),
    ]))
}

/// The GeoJSON value of a `point` or `polygon` field named `name` for
/// instance `n` (an example document's); `null` for another type.
pub fn example(ty: &FieldType, name: &str, n: u64) -> Json {
    let salt = salt(name);
    match ty {
        FieldType::Point => {
            let (lng, lat) = point(n, salt);
            json!({"type": "Point", "coordinates": [lng, lat]})
        }
        FieldType::Polygon => {
            let ring: Vec<Json> = ring(n, salt, POLYGON_CORNERS)
                .into_iter()
                .map(|(lng, lat)| json!([lng, lat]))
                .collect();
            json!({"type": "Polygon", "coordinates": [ring]})
        }
        _ => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_valid_and_clustered() {
        let pts: Vec<(f64, f64)> = (0..2000).map(|n| point(n, 7)).collect();
        assert!(
            pts.iter()
                .all(|(lng, lat)| (-180.0..=180.0).contains(lng) && (-90.0..=90.0).contains(lat))
        );
        // Clustered: every point lies within 31 km of a centre (about 0.3°
        // of latitude), and each centre gets some.
        for (lng, lat) in &pts {
            assert!(
                CENTRES
                    .iter()
                    .any(|(x, y)| (lat - y).abs() < 0.3 && (lng - x).abs() < 0.5)
            );
        }
        for (x, y) in CENTRES {
            assert!(
                pts.iter()
                    .any(|(lng, lat)| (lat - y).abs() < 0.3 && (lng - x).abs() < 0.5)
            );
        }
        // Half of them within about 7.5 km of their centre: denser inside.
        let near = pts
            .iter()
            .filter(|(lng, lat)| {
                CENTRES
                    .iter()
                    .any(|(x, y)| (lat - y).abs() < 0.068 && (lng - x).abs() < 0.09)
            })
            .count();
        assert!(near > 800, "{near}");
    }

    /// Audit48 C6: two point fields of one instance (a ride's pickup and
    /// dropoff) lie around one centre, within 60 km of each other.
    #[test]
    fn the_points_of_one_instance_share_a_centre() {
        for n in 0..500 {
            let (a, b) = (point(n, salt("pickup")), point(n, salt("dropoff")));
            let km =
                ((a.1 - b.1) / DEG_PER_KM).hypot((a.0 - b.0) / DEG_PER_KM * a.1.to_radians().cos());
            assert!(km <= 61.0, "instance {n}: {a:?} and {b:?}, {km} km apart");
        }
    }

    #[test]
    fn rings_are_closed() {
        for n in 0..50 {
            let r = ring(n, 3, 6);
            assert_eq!(r.len(), 7);
            assert_eq!(r.first(), r.last());
        }
    }
}
