//! From finished profiles to a `ScanReport`: the per-collection summaries, the
//! inferred relationships. The data rules judge it afterwards (`rules::data::apply`).

use super::profile::{CollectionProfile, TYPE_SLOTS, slot_type};
use super::report::{
    ArrayReport, CollectionMeta, CollectionReport, FORMAT, FieldReport, GeoReport,
    InputErrorReport, PointDensity, ScanReport, Totals, TypeCount,
};
use super::{IdValue, relationships};
use crate::finding::Location;
use crate::settings::Settings;

/// What the data rules read.
pub struct Analysis<'a> {
    pub collections: &'a [CollectionReport],
    pub relationships: &'a [super::report::RelationshipReport],
    pub settings: &'a Settings,
}

impl Analysis<'_> {
    /// The collection a relationship side names.
    pub fn collection(&self, r: &super::report::CollectionRef) -> Option<&CollectionReport> {
        self.collections
            .iter()
            .find(|c| c.name == r.collection && c.database == r.database)
    }
}

/// Where a finding about collection `c` points.
pub fn location(c: &CollectionReport, field: Option<&str>, example: Option<&String>) -> Location {
    Location::Collection {
        file: c.file.clone(),
        database: c.database.clone(),
        collection: c.name.clone(),
        field: field.map(str::to_string),
        example_id: example.cloned(),
    }
}

/// Notes every report carries: what a scan of data alone cannot judge.
pub const NOTES: &[&str] = &[
    "Case-insensitive queries without a case-insensitive index and $lookup-heavy reads are \
     anti-patterns of the workload, not of the data: they need the queries (mongod logs), which \
     scan does not read.",
    "Quantiles are sketched within 1/64 (about 1.6 %) of the true value; counts, minimums and \
     maximums are exact.",
];

/// Builds the report from finished profiles (in input order).
pub fn analyze(
    mut collections: Vec<(CollectionMeta, CollectionProfile)>,
    errors: Vec<InputErrorReport>,
    settings: &Settings,
) -> ScanReport {
    for (_, p) in &mut collections {
        p.finish();
    }
    let relationships = relationships::infer(&collections, settings);
    let reports: Vec<CollectionReport> = collections
        .iter()
        .map(|(m, p)| collection_report(m, p))
        .collect();
    let mut dbs: Vec<&Option<String>> = reports.iter().map(|c| &c.database).collect();
    dbs.sort();
    dbs.dedup();
    let totals = Totals {
        databases: dbs.len() as u64,
        collections: reports.len() as u64,
        documents: reports.iter().map(|c| c.documents).sum(),
        bytes: reports.iter().map(|c| c.bytes).sum(),
    };
    ScanReport {
        format: FORMAT,
        profile: settings.profile,
        totals,
        collections: reports,
        relationships,
        findings: Vec::new(),
        errors,
        skipped: Vec::new(),
        notes: NOTES.iter().map(|n| (*n).to_string()).collect(),
    }
}

/// `x` to four significant digits: a density is an estimate, and the
/// digits past these are the grid's, not the data's.
pub fn significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(3 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

fn types(counts: &[u64; TYPE_SLOTS], examples: &[(u8, IdValue)]) -> Vec<TypeCount> {
    let mut out: Vec<TypeCount> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .filter_map(|(slot, &count)| {
            Some(TypeCount {
                ty: slot_type(slot)?.name(),
                count,
                example_id: examples
                    .iter()
                    .find(|(s, _)| usize::from(*s) == slot)
                    .map(|(_, id)| id.to_extended_json()),
                share_interval: None,
            })
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.ty.cmp(b.ty)));
    out
}

fn collection_report(meta: &CollectionMeta, p: &CollectionProfile) -> CollectionReport {
    let mut fields = Vec::new();
    let mut stack: Vec<u32> = p.nodes[0].children.iter().rev().copied().collect();
    let mut names: Vec<&str> = Vec::new();
    while let Some(i) = stack.pop() {
        let n = &p.nodes[i as usize];
        names.push(&n.name);
        let occurrences = n.occurrences();
        fields.push(FieldReport {
            path: p.path(i),
            level: p.level(i),
            documents: n.docs_present,
            presence: if p.documents == 0 {
                0.0
            } else {
                (n.docs_present as f64 / p.documents as f64 * 10_000.0).round() / 10_000.0
            },
            presence_interval: None,
            types: types(&n.types, &n.type_examples),
            avg_bytes: if occurrences == 0 {
                0.0
            } else {
                (n.value_bytes as f64 / occurrences as f64 * 10.0).round() / 10.0
            },
            array: n
                .array
                .as_ref()
                .filter(|a| a.lengths.count() > 0)
                .map(|a| ArrayReport {
                    lengths: a.lengths.distribution(),
                    element_types: types(&a.element_types, &[]),
                    longest_example_id: a.longest_example.as_ref().map(IdValue::to_extended_json),
                }),
            distinct_values: n.refs.as_ref().map(|r| r.sample.distinct_estimate()),
            dates: n.dates,
            geo: n
                .geo
                .as_deref()
                .filter(|g| g.seen() + g.pairs + g.pairs_out_of_range > 0)
                .map(|g| GeoReport {
                    points: g.points,
                    polygons: g.polygons,
                    polygon_corners: (g.polygons > 0)
                        .then(|| (g.corners as f64 / g.polygons as f64 * 10.0).round() / 10.0),
                    polygon_corners_max: (g.polygons > 0).then_some(g.corners_max),
                    other: g.other,
                    invalid: g.invalid,
                    in_arrays: g.in_arrays,
                    legacy_pairs: g.pairs,
                    legacy_pairs_out_of_range: g.pairs_out_of_range,
                    density: g.grid.measured().map(|m| PointDensity {
                        points: m.points,
                        cells: m.cells,
                        cell_degrees: m.cell_degrees,
                        typical_per_km2: significant(m.typical_per_km2),
                        max_per_km2: significant(m.max_per_km2),
                        typical_cell_points: m.typical_cell_points,
                        densest_cell_points: m.densest_cell_points,
                        densest_at: m.densest_at.map(|x| (x * 1e4).round() / 1e4),
                        densest_share: significant(m.densest_share),
                    }),
                }),
        });
        stack.extend(n.children.iter().rev().copied());
    }
    names.sort_unstable();
    names.dedup();
    let bytes = u64::try_from(p.sizes.sum()).unwrap_or(u64::MAX);
    CollectionReport {
        database: meta.database.clone(),
        name: meta.name.clone(),
        file: meta.file.clone(),
        documents: p.documents,
        sampled_from: None,
        invalid_documents: p.invalid_documents,
        size: p.sizes.distribution(),
        size_histogram: p.sizes.clone(),
        bytes,
        depth: p.depths.distribution(),
        distinct_field_names: names.len() as u64,
        field_paths: (p.nodes.len() - 1) as u64,
        paths_capped: p.is_capped(),
        untracked_fields: p.untracked,
        field_name_share: if bytes == 0 {
            0.0
        } else {
            (p.name_bytes as f64 / bytes as f64 * 10_000.0).round() / 10_000.0
        },
        field_name_bytes: p.name_bytes,
        indexes: meta.indexes.clone(),
        largest_example_id: p.largest_example.as_ref().map(IdValue::to_extended_json),
        deepest_example_id: p.deepest_example.as_ref().map(IdValue::to_extended_json),
        fields,
    }
}

/// Measures `docs` as one collection and analyzes it with the others: the
/// single-threaded path tests and small inputs use.
pub fn profile_documents<'a>(
    docs: impl IntoIterator<Item = &'a [u8]>,
    limits: super::Limits,
) -> (CollectionProfile, Vec<crate::inputs::bson::BsonError>) {
    let mut p = CollectionProfile::new(limits);
    let mut errors = Vec::new();
    for d in docs {
        if let Err(e) = p.add(d) {
            errors.push(e);
        }
    }
    (p, errors)
}
