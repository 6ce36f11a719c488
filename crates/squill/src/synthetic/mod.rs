//! `synthetic`: the synthetic-data engine. From a design and its model it
//! numbers a population (how many instances of each entity, who owns whom),
//! draws every value from one seed, builds the documents of each collection
//! and writes them as Extended JSON lines and a mongodump directory.
//!
//! Data: the calling thread lists each collection's roots in batches, rayon
//! encodes a window of batches in order (`build_chunks`), one writer thread
//! appends them to their files and asks for write-back as it goes
//! (`write_thread`); every file is written to a temporary name and renamed
//! into place on commit (`write`). The bytes depend on the seed only, not on
//! the threads (a test checks it). The example documents of `advise` and of
//! `artifacts` are built by the same code (`examples`).

mod appender;
mod archive_dates;
mod build_chunks;
mod byte_out;
pub mod check;
pub mod data;
mod documents;
mod encode_runs;
pub mod estimate;
pub mod examples;
mod feeds;
mod flat;
pub mod geo;
pub mod json_text;
mod numbering;
mod options;
mod plan;
pub mod population;
mod relations;
mod rng;
mod roots;
mod sink;
mod tenancy;
mod timeline;
pub mod value;
pub mod values;
pub mod write;
mod write_thread;

#[cfg(test)]
mod archive_dates_tests;
#[cfg(test)]
mod data_write_tests;
#[cfg(test)]
mod growth_tests;
#[cfg(test)]
pub(crate) mod hand_built;
#[cfg(test)]
mod live_dates_tests;
#[cfg(test)]
mod places_tests;
#[cfg(test)]
mod relations_tests;
#[cfg(test)]
mod tenant_tests;
#[cfg(test)]
pub(crate) mod tests;

pub use data::{DataFormat, DataOptions, DataSummary};
pub use documents::{Builder, Fanout};
pub use encode_runs::RunEncoder;
pub use options::{expiring_fields, parse_now};
pub use plan::ShapePlan;
pub use population::Population;
pub use roots::{Root, Run};
pub use sink::{Encoder, Sink};
pub use value::{Document, Value};

use crate::model::Model;
use std::path::PathBuf;

/// Something `generate` could not do.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum GenerateError {
    #[error(
        "interrupted: the files being written were removed; the files already complete are kept"
    )]
    #[diagnostic(code(squill::generate::interrupted))]
    Interrupted,
    #[error("{path} exists; pass --force to overwrite it")]
    #[diagnostic(code(squill::generate::exists))]
    Exists { path: PathBuf },
    #[error(
        "this would write about {} into {}, which has {} free",
        crate::words::bytes(*needed as f64),
        dir.display(),
        crate::words::bytes(*available as f64)
    )]
    #[diagnostic(
        code(squill::generate::no_space),
        help(
            "lower --scale or --max-children, write one format (--format), or pass --force to try anyway"
        )
    )]
    NoSpace {
        dir: PathBuf,
        needed: u64,
        available: u64,
    },
    #[error(
        "at scale {scale} the design would number about {} instances of {entity}, more than any run can write",
        crate::words::num(*count)
    )]
    #[diagnostic(
        code(squill::generate::too_many),
        help(
            "lower --scale, or cut each parent's children with --max-children: children multiply at every level of a chain of one-to-manys"
        )
    )]
    TooMany {
        entity: String,
        count: f64,
        scale: u64,
    },
    #[error("{0}")]
    #[diagnostic(
        code(squill::generate::file_name),
        help("rename the collection (its entity) in the model")
    )]
    FileName(#[from] crate::words::file_name::UnsafeFileName),
    #[error("two collections would write the same file {path}")]
    #[diagnostic(
        code(squill::generate::same_file),
        help("rename one of the collections (their entities) in the model")
    )]
    SameFile { path: PathBuf },
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the design's index `{index}` on `{collection}` is a prefix of `{covered_by}`: it would cost writes and memory for nothing"
    )]
    #[diagnostic(help("this is a flaw in the design; please report it with the model"))]
    RedundantIndex {
        collection: String,
        index: String,
        covered_by: String,
    },
}

/// Refuses a run whose population cannot be numbered (`estimate::too_many`).
pub(crate) fn refuse_too_many(
    model: &Model,
    scale: u64,
    max_children: Option<u64>,
) -> Result<(), GenerateError> {
    match estimate::too_many(model, scale, max_children) {
        Some((entity, count)) => Err(GenerateError::TooMany {
            entity,
            count,
            scale,
        }),
        None => Ok(()),
    }
}
