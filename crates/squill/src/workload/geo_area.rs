//! The area a `$geoWithin` searches when its shape is not a circle: a
//! `$box` (two corners), a `$polygon` (its corners) or a `$geometry`
//! Polygon or MultiPolygon (its outer rings). `scan --emit-model` writes it
//! as `within(N km2)`, which the model prices at the entity's density
//! (docs/model-file.md, "Places"); without it the read was priced as a
//! circle of an assumed 1 km.

use super::node::Node;

/// The sphere the scan measures densities on (its mean radius, km), so an
/// area and a density (`scan::profile::density`) are measured alike: one degree of
/// latitude is 111.195 km (docs/workload.md).
const EARTH_RADIUS_KM: f64 = 6371.0088;

/// The area of `operand`'s shape in km², its coordinates taken as degrees
/// of longitude and latitude (a legacy `$box` or `$polygon` on a flat `2d`
/// index is in the index's own units; those are degrees almost always).
/// `None` when the shape is a circle, or its corners are not numbers.
pub(super) fn area_km2(operand: &Node) -> Option<f64> {
    if let Some(Node::Array(corners)) = operand.get("$box") {
        let (a, b) = (pair(corners.first()?)?, pair(corners.get(1)?)?);
        return ring(&[a, (b.0, a.1), b, (a.0, b.1)]);
    }
    if let Some(Node::Array(corners)) = operand.get("$polygon") {
        return ring(&corners.iter().map(pair).collect::<Option<Vec<_>>>()?);
    }
    let geometry = operand.get("$geometry")?;
    let coordinates = match geometry.get("coordinates")? {
        Node::Array(c) => c,
        _ => return None,
    };
    let outer = |polygon: &Node| match polygon {
        Node::Array(rings) => match rings.first()? {
            Node::Array(points) => ring(&points.iter().map(pair).collect::<Option<Vec<_>>>()?),
            _ => None,
        },
        _ => None,
    };
    match geometry.get("type")?.as_str()? {
        "Polygon" => outer(geometry.get("coordinates")?),
        "MultiPolygon" => coordinates.iter().map(outer).sum(),
        _ => None,
    }
}

/// `[x, y]` as two numbers.
fn pair(node: &Node) -> Option<(f64, f64)> {
    match node {
        Node::Array(p) => Some((number(p.first()?)?, number(p.get(1)?)?)),
        _ => None,
    }
}

fn number(node: &Node) -> Option<f64> {
    match node {
        Node::Number { value, .. } => value.filter(|v| v.is_finite()),
        _ => None,
    }
}

/// The area on the sphere of a ring of `[longitude, latitude]` corners,
/// closed or not: the sum over its edges of `Δλ (2 + sin φ1 + sin φ2)`,
/// times `R² / 2` (Chamberlain and Duquette, "Some algorithms for polygons
/// on a sphere", 2007). Exact for edges along meridians and parallels (a
/// box), close for the others; `None` for fewer than three corners or no area.
fn ring(corners: &[(f64, f64)]) -> Option<f64> {
    if corners.len() < 3 {
        return None;
    }
    let mut sum = 0.0;
    for (i, a) in corners.iter().enumerate() {
        let b = corners[(i + 1) % corners.len()];
        let d = (b.0 - a.0).to_radians();
        sum += d * (2.0 + a.1.to_radians().sin() + b.1.to_radians().sin());
    }
    let area = (sum * EARTH_RADIUS_KM * EARTH_RADIUS_KM / 2.0).abs();
    (area > 0.0 && area.is_finite()).then_some(area)
}

#[cfg(test)]
mod tests {
    use super::area_km2;

    fn area(json: &str) -> Option<f64> {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        area_km2(&super::super::node::from_json(&value, 0))
    }

    /// A box of one degree at the equator is a degree of longitude by a
    /// degree of latitude, 111.195 km each way, to 0.01%; the same box
    /// as a `$polygon` or a `$geometry` ring, closed, has the same area;
    /// at 60° north it is half as wide. A circle and a broken shape give none.
    #[test]
    fn a_box_or_a_polygon_searches_its_area() {
        let square = 111.195 * 111.195;
        let b = area(r#"{"$box": [[0, 0], [1, 1]]}"#).unwrap();
        assert!((b / square - 1.0).abs() < 1e-4, "{b}");
        let p = area(r#"{"$polygon": [[0, 0], [1, 0], [1, 1], [0, 1]]}"#).unwrap();
        assert!((p - b).abs() < 1e-9, "{p} vs {b}");
        let g = area(
            r#"{"$geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}}"#,
        )
        .unwrap();
        assert!((g - b).abs() < 1e-9, "{g} vs {b}");
        let multi = area(
            r#"{"$geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[0, 0], [1, 1], [0, 1], [0, 0]]]]}}"#,
        )
        .unwrap();
        assert!((multi - b).abs() < 1e-6, "{multi} vs {b}");
        let north = area(r#"{"$box": [[0, 59.5], [1, 60.5]]}"#).unwrap();
        assert!((north / b - 0.5).abs() < 1e-3, "{north} vs {b}");
        assert_eq!(area(r#"{"$centerSphere": [[0, 0], 0.01]}"#), None);
        assert_eq!(area(r#"{"$box": [[0, 0]]}"#), None);
        assert_eq!(area(r#"{"$polygon": [[0, 0], [1, "a"], [1, 1]]}"#), None);
    }
}
