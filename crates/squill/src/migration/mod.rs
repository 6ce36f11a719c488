//! `migration`: moving a team's data into the recommended design, one part
//! per source of the data.
//!
//! - `from_design`: a deployment already on MongoDB, in the design of today
//!   (the model's `current:`). Writes the mongosh script that reshapes its
//!   collections in place (`squill migrate --from-current MODEL`, formerly
//!   `squill generate --migration`).
//! - `from_postgres`: a PostgreSQL database. Streams its rows into the
//!   design's documents: a mongodump directory, Extended JSON lines, or a
//!   deployment (`squill migrate postgres://…`).
//! - `to_spark`: the same move from PostgreSQL written as a PySpark job
//!   (`squill migrate postgres://… --engine spark`), for a database past
//!   one machine; it builds `from_postgres`'s documents by the same rules.
//!
//! Both take the recommended design as a value from `advise` and build
//! collections with `artifacts`' validators and indexes, so this module sits
//! above both.

pub mod from_design;
#[cfg(feature = "postgres")]
pub mod from_postgres;
#[cfg(feature = "postgres")]
pub mod to_spark;
