//! Inputs: everything squill reads, each in its own place, converging on a
//! `Model` (model files, later SQL and logs) or on a stream of BSON documents
//! (dumps and exports, for `scan`: JSON is transcoded to BSON so the scanner has
//! one path to measure).

pub mod bson;
pub mod dump;
pub mod ejson;
#[cfg(feature = "mongodb")]
pub mod live;
pub mod model_file;
pub mod mongo_uri;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod sampled;
pub mod sql;

pub use model_file::load as load_model;
