//! The one integration test binary: runs the real `squill` executable.
//! Each module covers one command; `support` holds the builder and fixtures.

mod advise;
mod advise_shard;
mod docs;
mod generate;
mod generate_interrupted;
mod import;
#[cfg(feature = "postgres")]
mod migrate;
#[cfg(feature = "postgres")]
mod migrate_patterns;
#[cfg(feature = "postgres")]
mod migrate_spark;
mod migration;
mod model_file;
mod mongosh_server;
mod names_in_outputs;
mod outputs_and_inputs;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "postgres")]
mod postgres_connection;
mod python_server;
mod readers;
mod report;
mod report_scan;
mod report_workload;
mod rules;
mod scan;
mod scan_c4;
mod scan_capacity;
#[cfg(feature = "mongodb")]
mod scan_live;
mod scan_places;
mod scan_shard_keys;
mod scan_streams;
mod scan_workload;
mod stdin_and_config;
mod support;
mod workload;
