//! Tables to a squill model: each table an entity (its single-column
//! primary key the `_id`), each foreign key a relationship (one-to-one when
//! the key is unique or the child's primary key, one-to-many otherwise), a
//! table that only links two others a many-to-many with its other columns
//! as the link's attributes. What DDL cannot say — rows per table, children
//! per parent, the workload — is written as an assumption, with a comment
//! that says so. Columns that look like references where no foreign key is
//! declared (`u_id`, `source_u_id` → `useracct.u_id`) become relationships
//! marked as inferred, with the evidence. The relationships are found in
//! `relate`, the YAML written in `write`; SQL names the model refuses are
//! mapped in `names`.

use super::ddl::{self, Note, Position, Schema, SqlDialect};
use super::evidence::Evidence;
use super::names::Names;
use crate::words::visible as shown;

pub use super::mapping::{ASSUMED_CHILDREN, ASSUMED_COUNT, Mapping, Rel, plural};
pub use super::write::attribute_name;

/// The model written from a DDL file, and what was noted while reading it.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The model as YAML, with comments on each assumption.
    pub yaml: String,
    pub notes: Vec<Note>,
    pub tables: usize,
    pub relationships: usize,
    /// Relationships inferred from column names (no foreign key declared).
    pub inferred: usize,
    /// SQL names the model spells differently (a model name has no `.`,
    /// no leading `$`, no control character), each also in `notes`.
    pub renamed: Vec<super::names::Renamed>,
}

impl Mapping {
    pub fn of(schema: &Schema) -> Mapping {
        let names = Names::of(schema);
        let (relationships, junctions) = super::relate::relationships(schema, &names);
        Mapping {
            relationships,
            junctions,
            names,
        }
    }
}

/// Reads `text` (file `file`) and writes the model.
pub fn import(file: &str, text: &str, dialect: SqlDialect) -> Import {
    let schema = ddl::parse(text, dialect);
    let name = std::path::Path::new(file)
        .file_stem()
        .map_or("imported".to_string(), |s| s.to_string_lossy().to_string());
    import_schema(&name, &schema, &Mapping::of(&schema), None)
}

/// Writes the model of `schema` named `name`, with the figures `evidence`
/// measured in place of assumptions where it has them.
pub fn import_schema(
    name: &str,
    schema: &Schema,
    mapping: &Mapping,
    evidence: Option<&Evidence>,
) -> Import {
    let (rels, junctions) = (&mapping.relationships, &mapping.junctions);
    let mut notes = schema.notes.clone();
    for t in &schema.tables {
        for fk in &t.foreign_keys {
            if schema.table(&fk.table).is_none() {
                notes.push(Note {
                    at: fk.at,
                    message: format!(
                        "{}({}) references {}, which this file does not create; no relationship",
                        shown(&t.name),
                        shown(&fk.columns.join(", ")),
                        shown(&fk.table)
                    ),
                    problem: false,
                });
            }
        }
    }
    for r in &mapping.names.renamed {
        notes.push(Note {
            at: r.at,
            message: r.message(),
            problem: false,
        });
    }
    let yaml = super::write::write(name, schema, mapping, evidence);
    Import {
        yaml,
        notes,
        tables: schema.tables.len() - junctions.len(),
        relationships: rels.len(),
        inferred: rels.iter().filter(|r| r.inferred).count(),
        renamed: mapping.names.renamed.clone(),
    }
}

/// `file:line:column: message` for a note.
pub fn located(file: &str, at: Position, message: &str) -> String {
    format!("{file}:{}:{}: {message}", at.line, at.column)
}
