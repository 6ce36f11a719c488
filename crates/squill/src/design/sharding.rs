//! A collection's shard key chosen from the model (`advise --shard`, or a
//! projection whose data outgrows one replica set): every candidate key
//! with the figures it was judged by, under the names `analyzeShardKey`
//! gives them (`numDistinctValues`, `percentageOfSingleShardReads`, …, in
//! the design JSON's snake case), the warnings shared with `scan
//! --shard-keys`, and why each ranks where it does. Values only; `outputs`
//! says them in words.

use super::shard_key::ShardKey;
use serde::Serialize;

/// How advise would shard one collection.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Sharding {
    pub because: ShardingCause,
    /// The month (of the projection; 0: today) whose documents the
    /// candidates are priced at: the horizon's, so the key holds the data
    /// it must hold by then.
    pub month: u32,
    pub documents: u64,
    pub avg_doc_size_bytes: u64,
    /// The chunk size a key value's documents are compared with.
    pub chunk_bytes: u64,
    /// The first candidate, when one is not rejected.
    pub chosen: Option<ShardKey>,
    /// Best first; the rejected ones after the others.
    pub candidates: Vec<KeyCandidate>,
    /// Key ranges of the chosen key to pin to shards of their own: one per
    /// tenant larger than a shard's share of the collection.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<Zone>,
}

/// Why the collection is sharded.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "cause")]
pub enum ShardingCause {
    /// `advise --shard`: every collection.
    Asked,
    /// The projection's data passes the size at which a replica set is
    /// usually sharded in `month`.
    Outgrows {
        month: u32,
        data_bytes: f64,
        threshold: f64,
    },
}

/// One candidate key, priced.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct KeyCandidate {
    pub key: ShardKey,
    pub rank: usize,
    /// Where the candidate comes from.
    pub origins: Vec<KeyOrigin>,
    /// `analyzeShardKey`'s `numDistinctValues`, from the model's counts;
    /// `None` when the model says nothing of a field's values.
    pub num_distinct_values: Option<u64>,
    /// The documents of the most common key value (`mostCommonValues`'
    /// first `frequency`), from the largest parent or tenant the model
    /// states.
    pub most_common_frequency: Option<u64>,
    /// Those documents' bytes, against the chunk size.
    pub most_common_bytes: Option<u64>,
    /// The key's first field grows with insertion order (a date, an
    /// ObjectId) and is ranged: new documents all go to the last chunk.
    pub monotonic: bool,
    pub reads: Spread,
    pub writes: Spread,
    /// Inserts per second (each goes to one shard; `monotonic` says whether
    /// to the same one).
    pub inserts_per_second: f64,
    /// Each step of the workload on the collection, routed.
    pub routes: Vec<Route>,
    pub warnings: Vec<KeyWarning>,
    pub verdict: KeyVerdict,
}

/// Where a candidate key comes from.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum KeyOrigin {
    /// The equality filters of these operations (the key is their fields,
    /// or a prefix, in the order of the index the step uses).
    Equality { operations: Vec<String> },
    /// A unique index of the design.
    UniqueIndex { index: String },
    /// The layout's reference to the parent (a bucket's or a child's).
    Parent { relationship: String },
    /// The layout's time: a bucket's start, or the date a read ranges or
    /// sorts on, as the suffix of a key led by the parent.
    Time { field: String },
    /// `_id`, ranged and hashed: the keys every collection has.
    Id,
    /// The hashed form of a ranged candidate (spreads a monotonic or a
    /// skewed first field).
    Hashed,
}

/// The rate-weighted shares of a kind of operation by where it goes
/// (`analyzeShardKey`'s `percentageOfSingleShardReads`, …, over rates
/// instead of samples).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Spread {
    /// Steps per second counted.
    pub rate: f64,
    pub percentage_of_single_shard: f64,
    pub percentage_of_multi_shard: f64,
    pub percentage_of_scatter_gather: f64,
}

/// Where one step of an operation goes under a key.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Route {
    pub operation: String,
    /// 1-based, as in the plan.
    pub step: usize,
    pub rate: f64,
    pub write: bool,
    pub target: Target,
    /// For a multi-shard step: the chunks its documents fill (their
    /// bytes over the chunk size, at least one), the shards it can reach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<u64>,
}

/// Where one query goes under a key, as `analyzeShardKey` classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    SingleShard,
    MultiShard,
    ScatterGather,
}

/// What may be wrong with a key, with its figures: the scan's and the
/// model's, one list (`scan --shard-keys` measures, advise estimates).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "warning")]
pub enum KeyWarning {
    /// Documents whose value of a key field is an array (the server refuses it).
    ArrayValues { documents: u64 },
    /// Documents whose value of a key field is a sub-document.
    DocumentValues { documents: u64 },
    /// Fewer distinct values than the ranges the server splits a key into.
    FewDistinctValues { distinct: u64, needed: u64 },
    /// The most common value's documents outgrow a chunk: a jumbo chunk.
    JumboValue {
        frequency: u64,
        bytes: u64,
        chunk: u64,
    },
    /// The most common value holds more than one range's share.
    HotValue {
        frequency: u64,
        share: f64,
        limit: f64,
    },
    /// The key grows with insertion order (measured): new documents go to
    /// one shard.
    Monotonic { coefficient: f64 },
    /// The key's first field is a date or an ObjectId, ranged, and the
    /// collection takes this many inserts per second: all on the last chunk.
    MonotonicInserts {
        field: String,
        inserts_per_second: f64,
    },
    /// Updates of the key, which move documents between shards.
    ShardKeyUpdates { operations: u64 },
    /// Single writes (`multi: false`, findAndModify) without the whole key
    /// in their filter: each needs an internal transaction.
    SingleWritesWithoutShardKey { operations: u64 },
    /// Transactions that write documents of several key values of this
    /// collection, or of it and another sharded one: a distributed commit.
    CrossShardTransactions { operations: Vec<String>, rate: f64 },
}

/// Why a candidate ranks where it does, against the chosen one.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum KeyVerdict {
    Chosen,
    /// Not usable to spread this collection: the warning that rules it out.
    Rejected {
        because: KeyWarning,
    },
    /// Sends a larger share of the workload to every shard.
    RejectedScatterGather {
        share: f64,
        chosen_share: f64,
    },
    /// Usable, ranked behind: fewer steps go to one shard, or as many with
    /// more warnings or fewer distinct values.
    Behind {
        single_shard_share: f64,
        chosen_single_shard_share: f64,
    },
}

/// A range of the chosen key pinned to shards of its own: one tenant's
/// documents, more than a shard's share of the collection.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Zone {
    /// The key's first field (the tenant).
    pub field: String,
    /// The relationship whose largest parent it is.
    pub relationship: String,
    pub documents: u64,
    pub bytes: u64,
    /// The collection's bytes over the shards it needs.
    pub shard_share_bytes: u64,
    /// Shards the tenant fills by itself.
    pub shards: u32,
}
