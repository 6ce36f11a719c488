//! Thresholds of the design rules and coefficients of the cost model
//! (docs/cost-model.md). Each is a typed setting a `squill.toml` can override
//! under `[design]`; the defaults say where they come from.

use super::checked;
use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DesignOptions {
    #[serde(default, deserialize_with = "checked::document_bytes")]
    pub max_document_bytes: Option<u64>,
    #[serde(default, deserialize_with = "checked::nesting_depth")]
    pub max_nesting_depth: Option<u32>,
    #[serde(default, deserialize_with = "checked::ratio")]
    pub read_mostly_ratio: Option<f64>,
    #[serde(default, deserialize_with = "checked::ratio")]
    pub read_heavy_ratio: Option<f64>,
    #[serde(default, deserialize_with = "checked::example_elements")]
    pub example_array_max: Option<u64>,
    pub costs: Option<CostOptions>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CostOptions {
    #[serde(default, deserialize_with = "checked::weight")]
    pub round_trip: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub index_key: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub document_examined: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub byte_read: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub byte_written: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub document_written: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub sync_write: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub transaction: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub index_entry: Option<f64>,
    #[serde(default, deserialize_with = "checked::weight")]
    pub unsupported_layout: Option<f64>,
}

/// Resolved design thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DesignSettings {
    /// MongoDB's hard document limit: 16 MiB (MongoDB manual, limits).
    pub max_document_bytes: u64,
    /// MongoDB's nesting limit: 100 levels (MongoDB manual, limits).
    pub max_nesting_depth: u32,
    /// A field is "read-mostly" (worth copying) when it is read through the
    /// relationship at least this many times per update (001_5782b55841006ac6.txt:
    /// "reads far outnumber updates"). Default 10.
    pub read_mostly_ratio: f64,
    /// A workload is "read-heavy" when reads outnumber writes by this factor
    /// (004_16209cf0db7b32ff.txt rule 6). Default 10.
    pub read_heavy_ratio: f64,
    /// Example documents show at most this many elements of an array (the
    /// typical cardinality otherwise). Default 1,000.
    pub example_array_max: u64,
    pub costs: CostCoefficients,
}

/// Weights of the cost components in the score, in units of one round trip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostCoefficients {
    pub round_trip: f64,
    pub index_key: f64,
    pub document_examined: f64,
    pub byte_read: f64,
    pub byte_written: f64,
    pub document_written: f64,
    pub sync_write: f64,
    pub transaction: f64,
    /// Standing cost of one index entry (memory the index holds), per second.
    pub index_entry: f64,
    /// Added once per relationship whose layout no rule supports: a tie-break
    /// that lets the seeds' advice decide between layouts of equal cost.
    pub unsupported_layout: f64,
}

impl DesignOptions {
    pub fn resolve(self) -> DesignSettings {
        let c = self.costs.unwrap_or_default();
        DesignSettings {
            max_document_bytes: self.max_document_bytes.unwrap_or(16 * 1024 * 1024),
            max_nesting_depth: self.max_nesting_depth.unwrap_or(100),
            read_mostly_ratio: self.read_mostly_ratio.unwrap_or(10.0),
            read_heavy_ratio: self.read_heavy_ratio.unwrap_or(10.0),
            example_array_max: self.example_array_max.unwrap_or(1_000),
            costs: CostCoefficients {
                round_trip: c.round_trip.unwrap_or(1.0),
                index_key: c.index_key.unwrap_or(0.002),
                document_examined: c.document_examined.unwrap_or(0.01),
                byte_read: c.byte_read.unwrap_or(0.000_002_5),
                byte_written: c.byte_written.unwrap_or(0.000_1),
                document_written: c.document_written.unwrap_or(0.1),
                sync_write: c.sync_write.unwrap_or(0.1),
                transaction: c.transaction.unwrap_or(3.0),
                index_entry: c.index_entry.unwrap_or(0.000_001),
                unsupported_layout: c.unsupported_layout.unwrap_or(0.000_1),
            },
        }
    }
}
