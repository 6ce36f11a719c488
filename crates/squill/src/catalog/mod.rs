//! `catalog`: what MongoDB is told about each collection of a design, as the
//! server's own JSON: the `$jsonSchema` validator (`schema`) and the index
//! specifications (`indexes`). The setup scripts (`artifacts`), the
//! mongodump metadata of the synthetic data (`synthetic`) and the migration
//! targets (`migration`) all write these same values.

pub(crate) mod indexes;
pub(crate) mod schema;
