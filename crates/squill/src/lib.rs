//! squill: a MongoDB schema design advisor.
//!
//! The pipeline, one folder a stage:
//! `inputs` (model file, dumps) → `model` → `candidates` / `rules` / `costs` →
//! `design` → `outputs` (reporters), `artifacts` (what a team runs), `synthetic`
//! (data) and `migration` (moving data into the design); `scan` measures
//! existing data and feeds both `rules` (anti-patterns) and `model` (emit-model).
//!
//! The library never prints: it returns values (`Design`, `Finding`s, reports)
//! and typed errors; the `squill` binary renders them and picks the exit code.

// `pub` is the API the CLI and the tests use; an item only this crate
// reaches is `pub(crate)`, so that the compiler sees when it goes unused
// (issue 44).
#![warn(unreachable_pub)]

pub mod advise;
#[cfg(test)]
mod architecture;
pub mod artifacts;
pub mod candidates;
pub(crate) mod catalog;
pub(crate) mod costs;
pub mod design;
pub mod finding;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod inputs;
pub mod migration;
pub mod model;
pub mod outputs;
pub mod rules;
pub mod scan;
pub mod settings;
pub mod synthetic;
pub(crate) mod text_codec;
pub mod words;
pub mod workload;
