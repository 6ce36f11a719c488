//! Why a migration from PostgreSQL stops. Its own file, below both
//! `stream` (which runs the migration) and `target` (the deployment it may
//! write to): each returns it, and `stream` drives `target`.

use crate::inputs::postgres::LiveError;

/// A part of the design migrate cannot fill from the tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    pub collection: String,
    pub field: String,
    pub why: String,
}

/// Why a migration stopped.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error(transparent)]
    Live(#[from] LiveError),
    #[error("the design has parts migrate cannot fill from the tables:\n{}", list(.0))]
    Unsupported(Vec<Unsupported>),
    #[error("{0}")]
    Io(String),
    #[error("{0}")]
    FileName(#[from] crate::words::file_name::UnsafeFileName),
    #[error("two collections would write the same file {}; rename one of them (their entities) in the model", .0.display())]
    SameFile(std::path::PathBuf),
    #[error("{0}")]
    Data(String),
    #[error("interrupted after a checkpoint; run the same command again to resume")]
    Interrupted,
    #[error("{0}")]
    State(String),
}

/// The parts, one a line, for the message.
fn list(u: &[Unsupported]) -> String {
    u.iter()
        .map(|x| {
            if x.field.is_empty() {
                format!("  collection {}: {}", x.collection, x.why)
            } else {
                format!("  {}.{}: {}", x.collection, x.field, x.why)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
