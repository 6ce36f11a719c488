//! The shard-key report: per namespace, each candidate key with the
//! metrics of `analyzeShardKey` under the server's own names (so the JSON
//! reads as the command's output does), its rank and its reason. Values
//! only; `outputs::shard_keys` renders them.

use super::key::ShardKey;
use super::reason::Reason;
use serde::Serialize;

#[derive(Debug, Clone, Default, Serialize)]
pub struct ShardKeyReport {
    pub shard_keys: Vec<NamespaceKeys>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamespaceKeys {
    pub namespace: String,
    pub candidates: Vec<Candidate>,
    /// Whether a metadata file listed the collection's indexes (the
    /// commands then create a missing supporting index).
    #[serde(skip)]
    pub indexes_known: bool,
    /// Logged operations of shapes the workload reader folded together
    /// past its cap: counted in no sample.
    #[serde(skip)]
    pub operations_not_classified: u64,
    /// The documents' BSON bytes (resharding needs twice the collection).
    #[serde(skip)]
    pub data_bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub key: ShardKey,
    #[serde(rename = "keyCharacteristics", skip_serializing_if = "Option::is_none")]
    pub key_characteristics: Option<KeyCharacteristics>,
    #[serde(rename = "readDistribution")]
    pub read_distribution: ReadDistribution,
    #[serde(rename = "writeDistribution")]
    pub write_distribution: WriteDistribution,
    pub rank: usize,
    /// Rendered to English at the edge (`Reason::words`); the JSON carries
    /// the sentence, as the format asks.
    #[serde(serialize_with = "reason_words")]
    pub reason: Reason,
    /// An index of the metadata starts with the key's fields (the server
    /// needs one to shard, and to measure monotonicity).
    #[serde(skip)]
    pub supporting_index: Option<bool>,
}

fn reason_words<S: serde::Serializer>(r: &Reason, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&r.words())
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyCharacteristics {
    pub num_docs_total: u64,
    pub num_distinct_values: u64,
    pub is_unique: bool,
    pub avg_doc_size_bytes: u64,
    pub most_common_values: Vec<MostCommonValue>,
    pub monotonicity: Monotonicity,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MostCommonValue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    pub frequency: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Monotonicity {
    #[serde(rename = "type")]
    pub kind: MonotonicityType,
    #[serde(
        rename = "recordIdCorrelationCoefficient",
        skip_serializing_if = "Option::is_none"
    )]
    pub record_id_correlation_coefficient: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MonotonicityType {
    #[serde(rename = "monotonic")]
    Monotonic,
    #[serde(rename = "not monotonic")]
    NotMonotonic,
    #[serde(rename = "unknown")]
    Unknown,
}

/// Counts of sampled reads, by command.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReadSampleSize {
    pub total: u64,
    pub find: u64,
    pub aggregate: u64,
    pub count: u64,
    pub distinct: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteSampleSize {
    pub total: u64,
    pub update: u64,
    pub delete: u64,
    pub find_and_modify: u64,
}

/// The counts behind the percentages, kept for the tests and the text
/// report; the JSON has the percentages, as the server's output does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Targeting {
    pub single_shard: u64,
    pub multi_shard: u64,
    pub scatter_gather: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDistribution {
    pub sample_size: ReadSampleSize,
    pub percentage_of_single_shard_reads: f64,
    pub percentage_of_multi_shard_reads: f64,
    pub percentage_of_scatter_gather_reads: f64,
    #[serde(skip)]
    pub counts: Targeting,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteDistribution {
    pub sample_size: WriteSampleSize,
    pub percentage_of_single_shard_writes: f64,
    pub percentage_of_multi_shard_writes: f64,
    pub percentage_of_scatter_gather_writes: f64,
    pub percentage_of_shard_key_updates: f64,
    pub percentage_of_single_writes_without_shard_key: f64,
    pub percentage_of_multi_writes_without_shard_key: f64,
    #[serde(skip)]
    pub counts: Targeting,
    #[serde(skip)]
    pub shard_key_updates: u64,
    #[serde(skip)]
    pub single_writes_without_shard_key: u64,
    #[serde(skip)]
    pub multi_writes_without_shard_key: u64,
}
