//! GeoJSON in the documents: which sub-documents are Points and Polygons
//! the server's `2dsphere` index would take.
//!
//! The walker sees one value at a time, and a GeoJSON object's `type` may
//! come after its `coordinates`, so the check is not made there. A
//! sub-document becomes a candidate when the tree first gets a
//! `coordinates` field under it (not inside an array: a point per array
//! element is not recognized); after each document that walked cleanly,
//! each candidate's value is found in the document's bytes by its path and
//! checked whole: `type` and the shape of `coordinates` (a Point: two
//! numbers, longitude in [-180, 180] and latitude in [-90, 90]; a Polygon:
//! rings of at least four such positions, each closed on its first). A
//! collection with no `coordinates` field pays nothing.

/// What the values of one field were, as GeoJSON.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeoStats {
    /// Valid GeoJSON Points.
    pub points: u64,
    /// Valid GeoJSON Polygons.
    pub polygons: u64,
    /// Corners of the polygons' outer rings (the closing repeat not
    /// counted), summed: over `polygons`, the mean.
    pub corners: u64,
    /// The most corners one polygon's outer ring had.
    pub corners_max: u64,
    /// Other GeoJSON types (LineString, MultiPoint, MultiPolygon, …),
    /// counted, not checked.
    pub other: u64,
    /// Sub-documents with a `type` string and `coordinates` that are no
    /// valid Point or Polygon (a latitude past 90, an open ring, a
    /// misspelled type).
    pub invalid: u64,
    /// Of the values counted above, those that were elements of an
    /// array (a store's `locations: [{type: "Point", …}, …]`).
    pub in_arrays: u64,
    /// Legacy coordinate pairs (`[longitude, latitude]`, two numbers)
    /// in range, checked only where an index of the metadata makes the
    /// field a place (`record_pair`); counted in `grid` as Points are.
    pub pairs: u64,
    /// Arrays of two numbers there that are out of longitude and
    /// latitude ranges (a `2d` index's plane allows them).
    pub pairs_out_of_range: u64,
    /// Where the valid Points (and pairs) lie, for their density.
    pub grid: super::density::PointGrid,
}

impl GeoStats {
    pub fn merge(&mut self, o: &GeoStats) {
        self.grid.merge(&o.grid);
        self.points += o.points;
        self.polygons += o.polygons;
        self.corners += o.corners;
        self.corners_max = self.corners_max.max(o.corners_max);
        self.pairs += o.pairs;
        self.pairs_out_of_range += o.pairs_out_of_range;
        self.other += o.other;
        self.invalid += o.invalid;
        self.in_arrays += o.in_arrays;
    }

    /// Sub-documents that looked like GeoJSON at all.
    pub fn seen(&self) -> u64 {
        self.points + self.polygons + self.other + self.invalid
    }
}

/// One value as the check needs it.
#[derive(Clone, Copy)]
enum Value<'a> {
    Number(f64),
    Str(&'a [u8]),
    Doc(&'a [u8]),
    Arr(&'a [u8]),
    Other,
}

/// The elements of a BSON document or array (`bytes` whole, with its
/// length and trailing NUL). Stops at the first malformed element: the
/// walker has checked the document already, this only never panics.
struct Elements<'a> {
    bytes: &'a [u8],
    at: usize,
}

fn elements(bytes: &[u8]) -> Elements<'_> {
    Elements { bytes, at: 4 }
}

fn i32_at(b: &[u8], at: usize) -> Option<usize> {
    let raw: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    usize::try_from(i32::from_le_bytes(raw)).ok()
}

impl<'a> Iterator for Elements<'a> {
    type Item = (&'a [u8], Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.bytes;
        let ty = *b.get(self.at)?;
        if ty == 0 {
            return None;
        }
        let key_start = self.at + 1;
        let key_len = b.get(key_start..)?.iter().position(|&c| c == 0)?;
        let key = &b[key_start..key_start + key_len];
        let v = key_start + key_len + 1;
        let fixed = |n: usize| Some((Value::Other, n));
        let (value, len) = match ty {
            0x01 => {
                let raw: [u8; 8] = b.get(v..v + 8)?.try_into().ok()?;
                (Value::Number(f64::from_le_bytes(raw)), 8)
            }
            0x10 => {
                let raw: [u8; 4] = b.get(v..v + 4)?.try_into().ok()?;
                (Value::Number(f64::from(i32::from_le_bytes(raw))), 4)
            }
            0x12 => {
                let raw: [u8; 8] = b.get(v..v + 8)?.try_into().ok()?;
                // Coordinates are small: an i64 past f64's exact range is
                // out of range anyway.
                #[allow(clippy::cast_precision_loss)]
                let n = i64::from_le_bytes(raw) as f64;
                (Value::Number(n), 8)
            }
            0x02 | 0x0D | 0x0E => {
                let n = i32_at(b, v)?;
                let s = b.get(v + 4..(v + 4 + n).checked_sub(1)?)?;
                (
                    if ty == 0x02 {
                        Value::Str(s)
                    } else {
                        Value::Other
                    },
                    4 + n,
                )
            }
            0x03 | 0x04 => {
                let n = i32_at(b, v)?;
                let inner = b.get(v..v + n)?;
                (
                    if ty == 0x03 {
                        Value::Doc(inner)
                    } else {
                        Value::Arr(inner)
                    },
                    n,
                )
            }
            0x05 => (Value::Other, 4 + 1 + i32_at(b, v)?),
            0x06 | 0x0A | 0x7F | 0xFF => fixed(0)?,
            0x07 => fixed(12)?,
            0x08 => fixed(1)?,
            0x09 | 0x11 => fixed(8)?,
            0x0B => {
                let first = b.get(v..)?.iter().position(|&c| c == 0)?;
                let second = b.get(v + first + 1..)?.iter().position(|&c| c == 0)?;
                (Value::Other, first + 1 + second + 1)
            }
            0x0C => (Value::Other, 4 + i32_at(b, v)? + 12),
            0x0F => (Value::Other, i32_at(b, v)?),
            0x13 => fixed(16)?,
            _ => return None,
        };
        self.at = v + len;
        Some((key, value))
    }
}

/// The value at `path` (field names, through sub-documents only) of `doc`.
fn lookup<'a>(doc: &'a [u8], path: &[Box<str>]) -> Option<Value<'a>> {
    let mut cur = Value::Doc(doc);
    for name in path {
        let Value::Doc(d) = cur else { return None };
        cur = elements(d).find(|(k, _)| *k == name.as_bytes())?.1;
    }
    Some(cur)
}

/// What one sub-document is, as GeoJSON.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    /// No `type` string beside `coordinates`: not GeoJSON.
    NotGeo,
    /// With its longitude and latitude.
    Point(f64, f64),
    /// With the corners of its outer ring.
    Polygon(u64),
    Other,
    Invalid,
}

/// The GeoJSON geometry types other than Point and Polygon.
const OTHER_TYPES: [&[u8]; 5] = [
    b"LineString",
    b"MultiPoint",
    b"MultiLineString",
    b"MultiPolygon",
    b"GeometryCollection",
];

fn shape(doc: &[u8]) -> Shape {
    let mut ty = None;
    let mut coordinates = None;
    for (k, v) in elements(doc) {
        match (k, v) {
            (b"type", Value::Str(s)) => ty = Some(s),
            (b"coordinates", v) => coordinates = Some(v),
            _ => {}
        }
    }
    let (Some(ty), Some(coordinates)) = (ty, coordinates) else {
        return Shape::NotGeo;
    };
    match ty {
        b"Point" => match position(coordinates) {
            Some((lng, lat)) => Shape::Point(lng, lat),
            None => Shape::Invalid,
        },
        b"Polygon" => polygon(coordinates).map_or(Shape::Invalid, Shape::Polygon),
        t if OTHER_TYPES.contains(&t) => Shape::Other,
        _ => Shape::Invalid,
    }
}

/// A position `[longitude, latitude]` (an altitude after them allowed),
/// each in its range.
fn position(v: Value<'_>) -> Option<(f64, f64)> {
    let Value::Arr(a) = v else { return None };
    let mut numbers = elements(a).map(|(_, v)| match v {
        Value::Number(n) => Some(n),
        _ => None,
    });
    let lng = numbers.next()??;
    let lat = numbers.next()??;
    if numbers.any(|n| n.is_none()) {
        return None;
    }
    ((-180.0..=180.0).contains(&lng) && (-90.0..=90.0).contains(&lat)).then_some((lng, lat))
}

/// A Polygon's coordinates: one or more rings, each of at least four
/// positions ending on its first. The outer ring's corners, or `None`.
fn polygon(v: Value<'_>) -> Option<u64> {
    let Value::Arr(rings) = v else { return None };
    let mut outer = None;
    for (_, ring) in elements(rings) {
        let Value::Arr(r) = ring else { return None };
        let mut first = None;
        let mut last = None;
        let mut n = 0u64;
        for (_, p) in elements(r) {
            let p = position(p)?;
            first.get_or_insert(p);
            last = Some(p);
            n += 1;
        }
        if n < 4 || first != last {
            return None;
        }
        outer.get_or_insert(n - 1);
    }
    outer
}

/// Counts what the value at `path` of `doc` is, into `stats`: a
/// sub-document, or each sub-document of an array (each element one
/// Point or Polygon; `in_arrays` counts them).
pub fn record(doc: &[u8], path: &[Box<str>], stats: &mut GeoStats) {
    match lookup(doc, path) {
        Some(Value::Doc(d)) => count(shape(d), stats),
        Some(Value::Arr(a)) => {
            for (_, v) in elements(a) {
                if let Value::Doc(d) = v {
                    let s = shape(d);
                    if s != Shape::NotGeo {
                        stats.in_arrays += 1;
                    }
                    count(s, stats);
                }
            }
        }
        _ => {}
    }
}

/// Counts the value at `path` of `doc` as a legacy coordinate pair when
/// it is an array of exactly two numbers: in range (a point of the grid)
/// or not. Anything else there is left to the field's other counts.
pub fn record_pair(doc: &[u8], path: &[Box<str>], stats: &mut GeoStats) {
    let Some(v @ Value::Arr(a)) = lookup(doc, path) else {
        return;
    };
    let mut numbers = 0;
    for (_, e) in elements(a) {
        if !matches!(e, Value::Number(_)) {
            return;
        }
        numbers += 1;
    }
    if numbers != 2 {
        return;
    }
    match position(v) {
        Some((lng, lat)) => {
            stats.pairs += 1;
            stats.grid.add(lng, lat);
        }
        None => stats.pairs_out_of_range += 1,
    }
}

fn count(shape: Shape, stats: &mut GeoStats) {
    match shape {
        Shape::NotGeo => {}
        Shape::Point(lng, lat) => {
            stats.points += 1;
            stats.grid.add(lng, lat);
        }
        Shape::Polygon(corners) => {
            stats.polygons += 1;
            stats.corners += corners;
            stats.corners_max = stats.corners_max.max(corners);
        }
        Shape::Other => stats.other += 1,
        Shape::Invalid => stats.invalid += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{B, doc};
    use super::*;

    fn point(lng: f64, lat: f64) -> B<'static> {
        B::Doc(vec![
            ("type", B::Str("Point")),
            ("coordinates", B::Arr(vec![B::F64(lng), B::F64(lat)])),
        ])
    }

    fn ring(corners: &[(f64, f64)], close: bool) -> B<'static> {
        let mut p: Vec<B<'static>> = corners
            .iter()
            .map(|&(x, y)| B::Arr(vec![B::F64(x), B::F64(y)]))
            .collect();
        if close {
            p.push(B::Arr(vec![B::F64(corners[0].0), B::F64(corners[0].1)]));
        }
        B::Arr(p)
    }

    fn shape_of(v: B<'static>) -> Shape {
        let d = doc(&[("g", v)]);
        match lookup(&d, &["g".into()]) {
            Some(Value::Doc(g)) => shape(g),
            _ => Shape::NotGeo,
        }
    }

    #[test]
    fn points_and_polygons_are_told_from_near_misses() {
        assert_eq!(shape_of(point(-73.9, 40.7)), Shape::Point(-73.9, 40.7));
        // The coordinates' order is longitude first: 100 is no latitude.
        assert_eq!(shape_of(point(40.7, 100.0)), Shape::Invalid);
        let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let poly = |close| {
            B::Doc(vec![
                ("type", B::Str("Polygon")),
                ("coordinates", B::Arr(vec![ring(&square, close)])),
            ])
        };
        assert_eq!(shape_of(poly(true)), Shape::Polygon(4));
        assert_eq!(shape_of(poly(false)), Shape::Invalid, "an open ring");
        // `type` after `coordinates`, an int coordinate: still a Point.
        let late = B::Doc(vec![
            ("coordinates", B::Arr(vec![B::I32(2), B::F64(48.8)])),
            ("type", B::Str("Point")),
        ]);
        assert_eq!(shape_of(late), Shape::Point(2.0, 48.8));
        let line = B::Doc(vec![
            ("type", B::Str("LineString")),
            ("coordinates", ring(&square, false)),
        ]);
        assert_eq!(shape_of(line), Shape::Other);
        // Coordinates with no GeoJSON type: not geo at all.
        let plain = B::Doc(vec![(
            "coordinates",
            B::Arr(vec![B::F64(1.0), B::F64(2.0)]),
        )]);
        assert_eq!(shape_of(plain), Shape::NotGeo);
        let misspelled = B::Doc(vec![
            ("type", B::Str("point")),
            ("coordinates", B::Arr(vec![B::F64(1.0), B::F64(2.0)])),
        ]);
        assert_eq!(shape_of(misspelled), Shape::Invalid);
    }

    /// Two numbers in range are a pair counted in the grid; out of range
    /// counted apart; three numbers, a string or a sub-document are no
    /// pair at all.
    #[test]
    fn legacy_pairs_are_told_from_near_misses() {
        let mut s = GeoStats::default();
        let mut pair = |v: B<'static>| {
            let d = doc(&[("_id", B::I32(1)), ("loc", v)]);
            record_pair(&d, &["loc".into()], &mut s);
        };
        pair(B::Arr(vec![B::F64(2.35), B::F64(48.85)]));
        pair(B::Arr(vec![B::I32(3), B::F64(48.9)]));
        pair(B::Arr(vec![B::F64(500.0), B::F64(48.85)]));
        pair(B::Arr(vec![B::F64(2.35), B::F64(48.85), B::F64(10.0)]));
        pair(B::Arr(vec![B::F64(2.35), B::Str("48.85")]));
        pair(point(2.35, 48.85));
        assert_eq!((s.pairs, s.pairs_out_of_range), (2, 1));
        assert_eq!(s.grid.measured().map(|m| m.points), Some(2));
        assert_eq!(s.seen(), 0, "pairs are no GeoJSON");
    }

    #[test]
    fn a_nested_path_is_followed() {
        let d = doc(&[
            ("_id", B::I32(1)),
            ("address", B::Doc(vec![("at", point(2.35, 48.85))])),
        ]);
        let mut s = GeoStats::default();
        record(&d, &["address".into(), "at".into()], &mut s);
        assert_eq!(s.points, 1);
        record(&d, &["address".into(), "missing".into()], &mut s);
        assert_eq!(s.seen(), 1);
    }
}
