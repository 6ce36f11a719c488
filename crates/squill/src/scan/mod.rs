//! `scan`: measures existing data (sizes, field trees, arrays, references and
//! their fan-out) and finds anti-patterns, without a server.
//!
//! One pass over the documents, in parallel over sources: each worker fills a
//! `CollectionProfile` per collection (bounded memory: histograms and samples,
//! never the documents), the profiles merge in input order (deterministic), and
//! `report` turns them into a `ScanReport`: collections, relationships inferred
//! from matching values to keys, and the findings of the data rules.

pub mod fingerprint;
pub mod histogram;
pub mod id_value;
pub mod profile;
#[doc(hidden)]
pub mod testing;

pub use histogram::{Distribution, Histogram};
pub use id_value::IdValue;
pub use profile::{CollectionProfile, Limits};
pub mod analyze;
pub mod relationships;
pub mod report;

pub use analyze::{Analysis, analyze};
pub use report::ScanReport;
pub mod copies;
pub mod driver;
pub mod emit_model;
#[cfg(test)]
mod emit_model_geo_tests;
pub mod estimate;
#[doc(hidden)]
pub mod fuzzing;
pub mod growth;
pub mod observed;
pub mod sampled;
pub mod shard_keys;
