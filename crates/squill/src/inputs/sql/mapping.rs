//! The values the import's parts hand each other: the relationships found
//! in a schema (`Rel`), the mapping of tables to a model (`Mapping`: built in
//! `map`), the figures assumed where DDL says nothing, and the plural of a
//! table name.

use super::ddl::Table;
use super::names::Names;

/// Rows assumed per table when DDL gives none.
pub const ASSUMED_COUNT: u64 = 1000;
/// Children per parent assumed for a one-to-many.
pub const ASSUMED_CHILDREN: u64 = 10;

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
    /// The single-column primary key of a table, which becomes the `_id`.
    pub fn id_column(table: &Table) -> Option<&str> {
        table.id_column()
    }
}

/// A table name in the plural, for the name of a relationship to it
/// (`city` → `cities`, `address` → `addresses`); a name already plural is kept.
pub fn plural(name: &str) -> String {
    if name.ends_with("ss") || name.ends_with('x') || name.ends_with("ch") || name.ends_with("sh") {
        format!("{name}es")
    } else if name.ends_with('s') {
        name.to_string()
    } else if let Some(stem) = name.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{name}s")
    }
}
