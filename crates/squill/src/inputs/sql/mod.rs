//! SQL schemas as a starting model: `squill import sql FILE.sql` reads the
//! DDL (`ddl`) and maps tables, keys and foreign keys to entities and
//! relationships (`map`), with the figures DDL cannot know (counts,
//! children per parent, the workload) stated as assumptions.

pub mod ddl;
pub mod map;

pub use ddl::{Note, Position, SqlDialect};
pub use map::{Import, import};

#[cfg(test)]
mod tests;
