//! The `ScanReport` value: what `squill scan` found, ready for any reporter.
//! Its JSON form (serde) is documented in docs/scan-json.md and versioned by
//! `format`; fields are only ever added.

use super::histogram::{Distribution, Histogram};
use crate::finding::Finding;
use crate::model::{CardinalityClass, RelationshipKind};
use crate::settings::Profile;
use serde::Serialize;
use std::path::PathBuf;

/// The version tag of the JSON form.
pub const FORMAT: &str = "squill-scan/1";

#[derive(Debug, Clone, Serialize)]
pub struct ScanReport {
    pub format: &'static str,
    pub profile: Profile,
    pub totals: Totals,
    pub collections: Vec<CollectionReport>,
    pub relationships: Vec<RelationshipReport>,
    /// Sorted by `finding::sort_findings`.
    pub findings: Vec<Finding>,
    /// Input that could not be read; the rest was still scanned.
    pub errors: Vec<InputErrorReport>,
    /// Paths passed over on purpose (a FIFO or device inside a directory, a
    /// real path reached again through a symbolic link); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<InputErrorReport>,
    /// What scan did not judge, and why.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct Totals {
    pub databases: u64,
    pub collections: u64,
    pub documents: u64,
    pub bytes: u64,
}

/// A collection as the input describes it (dump metadata), before measuring.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CollectionMeta {
    pub database: Option<String>,
    pub name: String,
    /// The file the documents came from, when there is one.
    pub file: Option<PathBuf>,
    /// The indexes from the metadata; `None` when the input has no metadata.
    pub indexes: Option<Vec<IndexReport>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexReport {
    pub name: String,
    /// The key pattern in order: field → 1, -1, "text", "2dsphere", "hashed", …
    /// (an object in JSON, its keys in index order).
    #[serde(serialize_with = "key_object")]
    pub key: Vec<(String, serde_json::Value)>,
    pub unique: bool,
    pub sparse: bool,
    pub partial: bool,
    pub expire_after_seconds: Option<i64>,
}

fn key_object<S: serde::Serializer>(
    key: &[(String, serde_json::Value)],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(key.len()))?;
    for (k, v) in key {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

#[derive(Debug, Clone, Serialize)]
pub struct CollectionReport {
    pub database: Option<String>,
    pub name: String,
    pub file: Option<PathBuf>,
    pub documents: u64,
    /// When the documents are a sample of a running deployment's
    /// collection (`scan mongodb://…`): the server's estimate of how many
    /// the collection holds.
    pub sampled_from: Option<u64>,
    pub invalid_documents: u64,
    /// BSON bytes per document.
    pub size: Distribution,
    /// The same sizes, bucketed (for a chart of their distribution); not
    /// part of the JSON form, whose `size` summarizes them.
    #[serde(skip)]
    pub size_histogram: Histogram,
    pub bytes: u64,
    /// Levels of nested documents and arrays below the top-level document.
    pub depth: Distribution,
    pub distinct_field_names: u64,
    pub field_paths: u64,
    /// True when more distinct paths occurred than the profile tracks.
    pub paths_capped: bool,
    pub untracked_fields: u64,
    /// Field-name bytes (with their NUL) as a share of all document bytes.
    pub field_name_share: f64,
    pub field_name_bytes: u64,
    /// `None` when the input has no metadata.
    pub indexes: Option<Vec<IndexReport>>,
    pub largest_example_id: Option<String>,
    pub deepest_example_id: Option<String>,
    /// The field tree, depth first, parents before children.
    pub fields: Vec<FieldReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FieldReport {
    /// Dotted path (through arrays, as in MongoDB queries).
    pub path: String,
    /// 1 for top-level fields.
    pub level: u32,
    /// Documents in which the field occurs.
    pub documents: u64,
    /// `documents` over the collection's documents.
    pub presence: f64,
    /// For a sampled collection: the interval the collection's share is in
    /// (Wilson, `estimate::CONFIDENCE`); absent when the collection was read whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_interval: Option<[f64; 2]>,
    pub types: Vec<TypeCount>,
    /// Mean encoded size of a value (arrays and documents: their whole size).
    pub avg_bytes: f64,
    pub array: Option<ArrayReport>,
    /// Distinct values (ObjectIds, strings up to 64 bytes, integers), estimated
    /// from the fingerprint sample when it is no longer exact.
    pub distinct_values: Option<u64>,
    /// For a sub-document field whose values are GeoJSON: how many were
    /// valid Points and Polygons, of other GeoJSON types, or invalid;
    /// absent when none looked like GeoJSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geo: Option<GeoReport>,
    /// The earliest and the latest date the field held (outside arrays).
    /// Read by the data rules only (`expiry-without-ttl`); not in the
    /// scan JSON, whose documented form it would change for every dated
    /// field.
    #[serde(skip)]
    pub dates: Option<super::profile::DateRange>,
}

/// A field's values as GeoJSON (`scan/profile/geo.rs` checks them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GeoReport {
    pub points: u64,
    pub polygons: u64,
    /// Corners of a polygon's outer ring, on average (its closing
    /// position not counted); absent without polygons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polygon_corners: Option<f64>,
    /// The most corners a polygon's outer ring had; absent without
    /// polygons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polygon_corners_max: Option<u64>,
    /// LineStrings, MultiPoints, MultiPolygons …: GeoJSON of other types.
    pub other: u64,
    /// A `type` and `coordinates` that make no valid Point or Polygon (a
    /// latitude past 90, an open ring, a misspelled type).
    pub invalid: u64,
    /// Of the values counted, those that were elements of an array (a
    /// store's several locations); absent when none were.
    #[serde(skip_serializing_if = "is_zero")]
    pub in_arrays: u64,
    /// Legacy `[longitude, latitude]` pairs in range, counted where a
    /// `2dsphere` or `2d` index of the metadata covers the field (their
    /// points are in `density`); absent when none were.
    #[serde(skip_serializing_if = "is_zero")]
    pub legacy_pairs: u64,
    /// Arrays of two numbers there out of longitude and latitude ranges;
    /// absent when none were.
    #[serde(skip_serializing_if = "is_zero")]
    pub legacy_pairs_out_of_range: u64,
    /// How densely the valid Points lie (`scan/profile/density.rs`);
    /// absent without points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub density: Option<PointDensity>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The density of a field's points over the documents read, per km²,
/// from the points counted in the cells of a longitude/latitude grid.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PointDensity {
    pub points: u64,
    /// Cells holding at least one point.
    pub cells: u64,
    /// A cell's side, degrees (0.05 unless the grid had to coarsen).
    pub cell_degrees: f64,
    /// The density of the median point's cell: where points usually are.
    pub typical_per_km2: f64,
    /// The densest cell's.
    pub max_per_km2: f64,
    /// The points counted in the median point's cell and in the densest
    /// cell: what a sampled collection's estimate scales.
    pub typical_cell_points: u64,
    pub densest_cell_points: u64,
    /// The densest cell's centre, `[longitude, latitude]`.
    pub densest_at: [f64; 2],
    /// The share of searches the densest case weighs in a model's
    /// `density.densest_share`: the `s` for which `(1 − s) × typical +
    /// s × max` is the density around the average point (each cell's
    /// density weighted by its points), between 0 and 1.
    pub densest_share: f64,
}

impl GeoReport {
    /// Values that looked like GeoJSON at all.
    pub fn seen(&self) -> u64 {
        self.points + self.polygons + self.other + self.invalid
    }

    /// The model type every one of `values` values fits (all of them
    /// valid Points, or all valid Polygons), else `None`.
    pub fn uniform(&self, values: u64) -> Option<crate::model::FieldType> {
        use crate::model::FieldType;
        if values == 0 || self.other + self.invalid > 0 {
            return None;
        }
        if self.points == values {
            Some(FieldType::Point)
        } else if self.polygons == values {
            Some(FieldType::Polygon)
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TypeCount {
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub count: u64,
    /// The `_id` of the first document seen with a value of this type.
    pub example_id: Option<String>,
    /// For a sampled collection: the interval of this type's share of the
    /// field's values (Wilson, `estimate::CONFIDENCE`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_interval: Option<[f64; 2]>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArrayReport {
    pub lengths: Distribution,
    pub element_types: Vec<TypeCount>,
    pub longest_example_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollectionRef {
    pub database: Option<String>,
    pub collection: String,
}

impl std::fmt::Display for CollectionRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.database {
            Some(db) => write!(f, "{db}.{}", self.collection),
            None => f.write_str(&self.collection),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// The parent holds an array of the children's keys.
    ChildReferenceArray,
    /// Each child holds its parent's key.
    ParentReference,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ChildReferenceArray => "child-reference array",
            Direction::ParentReference => "parent reference",
        }
    }
}

/// A field whose values match the keys of another collection.
#[derive(Debug, Clone, Serialize)]
pub struct RelationshipReport {
    /// The collection holding the references, and the field.
    pub from: CollectionRef,
    pub field: String,
    /// The collection referred to, and the key matched (`_id` or a unique field).
    pub to: CollectionRef,
    pub key: String,
    pub value_type: &'static str,
    /// The number types the references are kept as (`int`, `long`,
    /// `double`, `decimal`; empty for ObjectIds and strings): the server
    /// matches them by value, a `$jsonSchema` by type.
    pub reference_number_types: Vec<&'static str>,
    /// The number types of the key they match.
    pub key_number_types: Vec<&'static str>,
    pub direction: Direction,
    pub parent: CollectionRef,
    pub child: CollectionRef,
    /// Values compared (all of them, or the consistent sample).
    pub values_checked: u64,
    pub values_matched: u64,
    pub match_share: f64,
    pub dangling_share: f64,
    /// Share of values the comparison saw (1.0 = all).
    pub sample_rate: f64,
    /// Children per parent.
    pub fan_out: Distribution,
    /// Most parents sharing one child (1 unless shared).
    pub max_parents_per_child: u64,
    /// When either collection was sampled (`scan mongodb://…`): how each
    /// figure was estimated for the collections whole, with its interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<super::estimate::RelationshipEstimate>,
    pub kind: RelationshipKind,
    pub class: CardinalityClass,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputErrorReport {
    pub file: Option<PathBuf>,
    pub byte_offset: Option<u64>,
    pub line: Option<u64>,
    pub message: String,
}

impl ScanReport {
    /// The highest severity among the findings.
    pub fn max_severity(&self) -> Option<crate::finding::Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }
}
