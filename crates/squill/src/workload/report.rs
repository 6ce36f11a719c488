//! The workload report: what the logs say the application does, per
//! namespace and shape, with the lines that could not be read. Values only;
//! `outputs::workload` renders them and `rules::workload` judges them.

use super::problem::{Problem, Reason};
use super::shape::{Shape, SortKey};
pub use super::shape_table::Dropped;
use crate::finding::Finding;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct WorkloadReport {
    pub files: Vec<FileSummary>,
    /// First and last timestamp of all files together.
    pub span: Option<Span>,
    pub totals: Totals,
    /// Hottest first (by total time).
    pub namespaces: Vec<NamespaceReport>,
    /// Commands that are not reads or writes of a collection (`hello`,
    /// `createIndexes`, …), by name, most frequent first.
    pub other_commands: Vec<NameCount>,
    pub problems: Problems,
    /// Files that could not be opened or read at all.
    pub errors: Vec<FileError>,
    pub findings: Vec<Finding>,
    pub suggested_indexes: Vec<IndexSuggestion>,
    /// Whether example filters (literal values) are included.
    pub show_values: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileSummary {
    pub path: String,
    pub gzip: bool,
    /// `json`, `text`, `mixed` (both in one file), `bson` (a dump's
    /// `system.profile.bson`) or `none` (no log line).
    pub format: &'static str,
    /// Lines, or documents in a `.bson` file.
    pub lines: u64,
    pub operations: u64,
    pub unreadable: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Span {
    pub first: String,
    pub last: String,
    pub seconds: f64,
    /// False for mongod 2.4's ctime timestamps, which have no year: the
    /// dates are then placed in 2000 and only their distance means anything.
    pub year_known: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    pub lines: u64,
    /// Operations counted in shapes (a folded getMore included).
    pub operations: u64,
    pub shapes: u64,
    pub namespaces: u64,
    /// COMMAND entries of writes already counted from their WRITE entries
    /// (or, in 2.6 text logs, from their per-statement lines).
    pub duplicate_write_commands: u64,
    pub folded_getmores: u64,
    /// Operations on `admin`, `local`, `config` and `system.*`: the server's
    /// own work (replication, sessions), left out of the shapes. Writes to
    /// a time-series collection's buckets are not among them: they are
    /// `bucket_writes`.
    pub internal_operations: u64,
    /// Writes to `db.system.buckets.X`, counted as the bucket writes of the
    /// time-series collection `db.X` (`NamespaceReport::bucket_writes`).
    pub bucket_writes: u64,
    pub other_commands: u64,
    pub unreadable_lines: u64,
    pub total_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamespaceReport {
    pub namespace: String,
    pub database: String,
    pub collection: String,
    /// Its shapes' operations and time, with the shapes not kept and the
    /// bucket writes.
    pub operations: u64,
    pub total_ms: u64,
    pub shapes: Vec<ShapeReport>,
    /// The shapes beyond the `shape_table::KEPT_SHAPES` heaviest, folded
    /// together: their operations and time, without detail.
    pub shapes_not_kept: Dropped,
    /// For a time-series collection: the writes the server logged on its
    /// buckets (`db.system.buckets.X`) when the application inserted into it.
    pub bucket_writes: BucketWrites,
}

/// A time-series collection's writes to its buckets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct BucketWrites {
    pub operations: u64,
    pub total_ms: u64,
    /// The slowest one, in milliseconds.
    pub max_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShapeReport {
    /// `S1`, `S2`, …: hottest first over the whole report.
    pub id: String,
    /// The shape in a compact notation (`find {a: eq} sort {b: -1}`).
    pub text: String,
    pub shape: Shape,
    pub count: u64,
    pub getmores: u64,
    /// Per second and per hour over the span the logs cover.
    pub rate_per_second: Option<f64>,
    pub rate_per_hour: Option<f64>,
    pub total_ms: u64,
    /// Share of the time of every shape in the report.
    pub time_share: f64,
    pub latency_ms: Latency,
    pub keys_examined: u64,
    pub docs_examined: u64,
    pub returned: u64,
    /// Per document returned (`None` when nothing was returned).
    pub keys_examined_per_returned: Option<f64>,
    pub docs_examined_per_returned: Option<f64>,
    pub plans: Vec<NameCount>,
    pub in_memory_sorts: u64,
    pub errors: Vec<ErrorCount>,
    /// The longest `$in`/`$nin` list seen.
    pub largest_in: u64,
    pub unanchored_regex: u64,
    pub case_insensitive_regex: u64,
    /// Executions of a write that may write many documents (`multi: true`,
    /// a delete's `limit: 0`): the shard-key analysis tells single writes
    /// from multi writes by it. Not in the workload JSON, which predates it.
    #[serde(skip)]
    pub multi: u64,
    /// The largest `limit` and geo search radius (metres) the executions
    /// show, when they show one: `scan --emit-model` writes them into the
    /// operation. Not in the workload JSON, which keeps no values.
    #[serde(skip)]
    pub limit: Option<u64>,
    #[serde(skip)]
    pub radius_m: Option<f64>,
    /// `radius_m` came from a flat search's units taken as degrees.
    #[serde(skip)]
    pub radius_flat: Option<super::shape::FlatRadius>,
    /// The largest area (km²) of a `$geoWithin` by a `$box`, a `$polygon`
    /// or a `$geometry` polygon the executions show.
    #[serde(skip)]
    pub area_km2: Option<f64>,
    /// One filter as logged: only with `--show-values`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
}

impl ShapeReport {
    /// Executions whose plan was a collection scan.
    pub fn collection_scans(&self) -> u64 {
        self.plans
            .iter()
            .filter(|p| p.name.split(", ").any(|stage| stage == "COLLSCAN"))
            .map(|p| p.count)
            .sum()
    }
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Latency {
    pub p50: Option<u64>,
    pub p95: Option<u64>,
    pub max: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NameCount {
    pub name: String,
    pub count: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorCount {
    /// `None` for the codes beyond those kept per shape.
    pub code: Option<i64>,
    pub count: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Problems {
    pub by_reason: Vec<ReasonCount>,
    /// The first few of each reason in each file.
    pub examples: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReasonCount {
    pub reason: Reason,
    pub count: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileError {
    pub path: String,
    pub message: String,
}

/// An index that would serve some shapes, keys in equality–sort–range order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexSuggestion {
    pub namespace: String,
    pub keys: Vec<SortKey>,
    /// The shapes (`S3`) it serves.
    pub serves: Vec<String>,
    /// The shapes' executions together, and their time.
    pub count: u64,
    pub total_ms: u64,
    /// A `2dsphere` key the shapes search near, within or intersecting:
    /// its field and its place among `keys` (after the equality keys).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geo: Option<GeoKey>,
}

/// An index's key pattern: `{status: 1, at: -1}`, with a `2dsphere` key
/// in its place when it has one (`{open: 1, location: "2dsphere"}`).
pub fn key_pattern(keys: &[SortKey], geo: Option<&GeoKey>) -> String {
    let mut parts: Vec<String> = keys
        .iter()
        .map(|k| format!("{}: {}", k.path, if k.descending { -1 } else { 1 }))
        .collect();
    if let Some(g) = geo {
        parts.insert(g.at.min(parts.len()), format!("{}: \"2dsphere\"", g.path));
    }
    format!("{{{}}}", parts.join(", "))
}

/// The `2dsphere` key of a suggested index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GeoKey {
    pub path: String,
    /// How many of the suggestion's `keys` come before it.
    pub at: usize,
}
