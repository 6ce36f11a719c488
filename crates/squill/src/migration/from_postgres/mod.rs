//! `squill migrate`: the rows of a live PostgreSQL database written as the
//! documents of the design advise recommends for the model imported from
//! it — nested, referenced, copied and computed as the design says
//! (`document` builds each collection's query), streamed through a binary
//! `COPY` into a mongodump directory and Extended JSON lines (`stream`),
//! with checkpoints that let an interrupted run resume and a later run move
//! only what changed (`state`), deleted rows followed by the ledger of rows
//! (`ledger`) and emptied buckets by the record of buckets (`buckets`).

pub mod assemble;
pub mod buckets;
pub mod compact;
mod copy_rows;
pub mod document;
pub mod error;
pub mod ledger;
pub mod state;
pub mod stream;
#[cfg(feature = "mongodb")]
pub mod target;

pub use document::{Builder, Changed, CollectionQuery, Unsupported};
pub use error::MigrateError;
pub use stream::{MigrateOptions, Summary, run};

#[cfg(test)]
mod tests;
