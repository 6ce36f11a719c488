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

use super::ddl::{self, Note, Position, Schema, SqlDialect, Table};
use super::evidence::Evidence;
use super::names::{Names, shown};

pub use super::relate::plural;
pub use super::write::attribute_name;

/// Rows assumed per table when DDL gives none.
pub const ASSUMED_COUNT: u64 = 1000;
/// Children per parent assumed for a one-to-many.
pub const ASSUMED_CHILDREN: u64 = 10;

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

/// A relationship found in the schema, and the tables and columns it is
/// kept in: what the live import measures and `migrate` reads. Tables and
/// columns are named as SQL names them; `name`, `parent_field` and
/// `child_field` are the model's.
#[derive(Debug, Clone)]
pub struct Rel {
    pub name: String,
    pub kind: &'static str,
    pub parent: String,
    pub child: String,
    /// The child's reference column (one-to-one, one-to-many); for a
    /// many-to-many empty (its table's columns are in `link`).
    pub column: String,
    /// The parent's column the reference holds (its key).
    pub parent_key: String,
    /// A many-to-many's linking table columns: to the parent, to the child,
    /// and the child's key the second one holds.
    pub link: Option<(String, String, String)>,
    pub attributes: Vec<String>,
    /// The table it was read from (the child, or the linking table).
    pub table: String,
    pub why: String,
    pub inferred: bool,
    /// The model's field of the parent that may hold the children: the
    /// relationship's name (the model's default) unless an entity's field
    /// or another relationship has it.
    pub parent_field: String,
    /// The model's field of the child that holds the parent: the reference
    /// column's (a many-to-many: the parent entity's name, the default),
    /// unless taken likewise.
    pub child_field: String,
}

/// How the tables of a schema become a model: the relationships, the
/// linking tables (which are no entities), and the model's names.
#[derive(Debug, Clone)]
pub struct Mapping {
    pub relationships: Vec<Rel>,
    pub junctions: Vec<String>,
    pub names: Names,
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

    /// The single-column primary key of a table, which becomes the `_id`.
    pub fn id_column(table: &Table) -> Option<&str> {
        match table.primary_key.as_slice() {
            [k] => Some(k.as_str()),
            _ => None,
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
