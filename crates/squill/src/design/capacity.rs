//! A design's capacity over time (`advise --horizon`): month by month,
//! per collection, what the data grows to, and the first limit it
//! reaches. Figures only; `outputs` says them in words.

use super::Layout;
use serde::Serialize;

/// The projection: the deployment it was checked against, one row per
/// month (month 0 is today), each limit the design reaches and when, and
/// what to change before the first.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Capacity {
    /// Months projected after today.
    pub horizon_months: u32,
    pub deployment: DeploymentUsed,
    pub months: Vec<CapacityMonth>,
    /// Every limit the design reaches within the horizon, the first one
    /// reached first (by month; in one month, the hard limits before the
    /// guidance: see `LimitKind`). Month 0: reached already today.
    pub limits: Vec<LimitReached>,
    /// Limits not checked because the deployment does not give their
    /// figure (no RAM: the working set; no disk: a full disk).
    pub unchecked: Vec<LimitKind>,
    /// What to change before the first limit is reached.
    pub remedies: Vec<Remedy>,
}

/// The deployment figures the projection used.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DeploymentUsed {
    pub ram_bytes: Option<u64>,
    pub disk_bytes: Option<u64>,
    /// The WiredTiger cache: 50 % of (RAM − 1 GiB), at least 256 MiB.
    pub cache_bytes: Option<u64>,
    pub shards: u32,
    /// On-disk bytes per byte of data.
    pub compression: f64,
    /// Whether the compression ratio was given (else the default, 1: no
    /// compression assumed).
    pub compression_stated: bool,
    /// Data past which a replica set is usually sharded (3 TB, MongoDB
    /// manual, "Distribute Collection Data").
    pub sharding_bytes: u64,
}

/// One month of the projection. Sizes are totals over the shards; the
/// limits compare each shard's share (an even spread) with one member.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CapacityMonth {
    pub month: u32,
    pub collections: Vec<CollectionGrowth>,
    pub data_bytes: u64,
    pub disk_bytes: u64,
    pub index_bytes: u64,
    pub working_set_bytes: u64,
}

/// One collection in one month.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CollectionGrowth {
    pub collection: String,
    pub documents: u64,
    pub typical_bytes: u64,
    /// The largest document; `None` when some array in it is unbounded.
    pub max_bytes: Option<u64>,
    /// The largest array of the largest document, when the collection's
    /// documents hold arrays.
    pub largest_array: Option<ArrayGrowth>,
    /// Documents × typical bytes.
    pub data_bytes: u64,
    /// `data_bytes` × the compression ratio, plus the indexes.
    pub disk_bytes: u64,
    pub index_bytes: u64,
    /// The indexes plus the documents the workload touches (by recency,
    /// for reads that keep to recent documents).
    pub working_set_bytes: u64,
}

/// An array of a collection's documents at its largest owner.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ArrayGrowth {
    /// The field's path in the document.
    pub field: String,
    pub relationship: String,
    pub items: u64,
    /// The count its rule allows (an array of ids: `reference_array_max`;
    /// of embedded documents: `embed_max`); `None` for an array capped by
    /// its layout (a subset's latest K).
    pub rule_max: Option<u64>,
}

/// Which limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LimitKind {
    /// A document past MongoDB's 16 MiB.
    DocumentSize,
    /// The data and indexes past a member's disk.
    DiskFull,
    /// The working set past the WiredTiger cache.
    WorkingSet,
    /// An array past the count its rule allows.
    ArrayRule,
    /// Data past the size at which a replica set is usually sharded.
    ShardingSize,
}

/// A limit reached: when, where, the figure and the threshold.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LimitReached {
    pub limit: LimitKind,
    /// The first month the figure is past the threshold (0: today).
    pub month: u32,
    /// The collection (and field), for a document or an array.
    pub collection: Option<String>,
    pub field: Option<String>,
    /// The figure that month (bytes, or items for an array), per shard
    /// for the deployment's limits.
    pub value: f64,
    pub threshold: f64,
}

/// A change that moves a limit away.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "change")]
pub enum Remedy {
    /// Lay `relationship` out as `to`: the alternative advise priced
    /// (`score_delta`: its cost against the chosen layout, per second;
    /// positive is costlier).
    Layout {
        relationship: String,
        limit: LimitKind,
        from: Layout,
        to: Layout,
        score_delta: f64,
    },
    /// Move `entity`'s documents older than `days` to an archive
    /// collection: its reads keep to recent ones.
    Archive {
        entity: String,
        limit: LimitKind,
        days: f64,
    },
    /// Spread the data over `shards` shards: the fewest that keep each
    /// shard under the limit at the horizon.
    Shard { limit: LimitKind, shards: u32 },
}
