//! SQL schemas as a starting model: `squill import sql FILE.sql` reads the
//! DDL (`ddl`) and maps tables, keys and foreign keys to entities and
//! relationships (`map`), with the figures DDL cannot know (counts,
//! children per parent, the workload) stated as assumptions — or, from a
//! live database, measured (`evidence`).

pub mod ddl;
mod dialect;
pub mod encoding;
pub mod evidence;
mod infer;
pub mod map;
pub mod mapping;
pub mod names;
mod relate;
pub mod statements;
mod types;
pub mod write;

pub use ddl::{Note, Position, SqlDialect};
pub use encoding::{DecodeError, Decoded, decode};
pub use evidence::Evidence;
pub use map::{Import, Mapping, import, import_schema};

#[cfg(test)]
mod issue40_tests;
#[cfg(test)]
mod issue44_tests;
#[cfg(test)]
mod statements_tests;
#[cfg(test)]
mod tests;
