//! Inputs: everything squill reads, each in its own place, converging on a
//! `Model` (model files, later SQL and logs) or on a stream of documents (dumps
//! and exports, for `scan`).
