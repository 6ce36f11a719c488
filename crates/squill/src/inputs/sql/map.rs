//! Tables to a squill model: each table an entity (its single-column
//! primary key the `_id`), each foreign key a relationship (one-to-one when
//! the key is unique or the child's primary key, one-to-many otherwise), a
//! table that only links two others a many-to-many with its other columns
//! as the link's attributes. What DDL cannot say — rows per table, children
//! per parent, the workload — is written as an assumption, with a comment
//! that says so. Columns that look like references where no foreign key is
//! declared (`u_id`, `source_u_id` → `useracct.u_id`) become relationships
//! marked as inferred, with the evidence.

use super::ddl::{self, Note, Position, Schema, SqlDialect, Table};
use super::evidence::{ColumnStats, Evidence};
use std::fmt::Write as _;

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
}

/// A relationship found in the schema, and the tables and columns it is
/// kept in: what the live import measures and `migrate` reads.
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
}

/// How the tables of a schema become a model: the relationships, and the
/// linking tables (which are no entities).
#[derive(Debug, Clone)]
pub struct Mapping {
    pub relationships: Vec<Rel>,
    pub junctions: Vec<String>,
}

impl Mapping {
    pub fn of(schema: &Schema) -> Mapping {
        let (relationships, junctions) = relationships(schema);
        Mapping {
            relationships,
            junctions,
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
                        t.name,
                        fk.columns.join(", "),
                        fk.table
                    ),
                    problem: false,
                });
            }
        }
    }
    let yaml = write(name, schema, rels, junctions, evidence);
    Import {
        yaml,
        notes,
        tables: schema.tables.len() - junctions.len(),
        relationships: rels.len(),
        inferred: rels.iter().filter(|r| r.inferred).count(),
    }
}

/// A table that only links two others: exactly two foreign keys of one
/// column each, whose columns make up its primary key (or a unique key).
fn junction(schema: &Schema, t: &Table) -> Option<Vec<String>> {
    let [a, b] = t.foreign_keys.as_slice() else {
        return None;
    };
    if a.columns.len() != 1 || b.columns.len() != 1 || a.table == b.table {
        return None;
    }
    schema.table(&a.table)?;
    schema.table(&b.table)?;
    let mut pair = vec![a.columns[0].clone(), b.columns[0].clone()];
    pair.sort();
    let keyed = |k: &Vec<String>| {
        let mut k = k.clone();
        k.sort();
        k == pair
    };
    if !keyed(&t.primary_key) && !t.unique.iter().any(keyed) {
        return None;
    }
    // Nothing else references it: a link, not a thing of its own.
    if schema
        .tables
        .iter()
        .any(|o| o.foreign_keys.iter().any(|f| f.table == t.name))
    {
        return None;
    }
    let attributes = t
        .columns
        .iter()
        .filter(|c| !pair.contains(&c.name) && !t.primary_key.contains(&c.name))
        .map(|c| c.name.clone())
        .collect();
    Some(attributes)
}

/// A table name in the plural, for the name of a relationship to it
/// (`city` → `cities`, `address` → `addresses`); a name already plural is kept.
fn plural(name: &str) -> String {
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

fn relationships(schema: &Schema) -> (Vec<Rel>, Vec<String>) {
    let mut rels: Vec<Rel> = Vec::new();
    let mut junctions = Vec::new();
    let mut names: Vec<String> = Vec::new();
    // Names are the model's: unique among relationships and entities.
    let links: Vec<&str> = schema
        .tables
        .iter()
        .filter(|t| junction(schema, t).is_some())
        .map(|t| t.name.as_str())
        .collect();
    let unique_name = |base: String, parent: &str, names: &mut Vec<String>| {
        // A linking table is no entity: its name is free for its relationship.
        let taken = |n: &String, names: &Vec<String>| {
            names.contains(n) || (schema.table(n).is_some() && !links.contains(&n.as_str()))
        };
        let mut n = base.clone();
        if taken(&n, names) {
            n = format!("{base}_of_{parent}");
        }
        let mut i = 2;
        while taken(&n, names) {
            n = format!("{base}_of_{parent}_{i}");
            i += 1;
        }
        names.push(n.clone());
        n
    };
    for t in &schema.tables {
        if let Some(attributes) = junction(schema, t) {
            let (fa, fb) = (&t.foreign_keys[0], &t.foreign_keys[1]);
            let name = unique_name(t.name.clone(), &fa.table, &mut names);
            rels.push(Rel {
                name,
                kind: "many-to-many",
                parent: fa.table.clone(),
                child: fb.table.clone(),
                column: String::new(),
                parent_key: fa.referred_key(schema),
                link: Some((
                    fa.columns[0].clone(),
                    fb.columns[0].clone(),
                    fb.referred_key(schema),
                )),
                attributes,
                table: t.name.clone(),
                why: format!(
                    "table {} links {} and {} (its key is the two foreign keys)",
                    t.name, fa.table, fb.table
                ),
                inferred: false,
            });
            junctions.push(t.name.clone());
            continue;
        }
        for fk in &t.foreign_keys {
            if schema.table(&fk.table).is_none() {
                continue;
            }
            let column = fk.columns[0].clone();
            let one = fk.columns == t.primary_key || t.unique.contains(&fk.columns);
            let base = if t.name == fk.table {
                format!("{}_children", t.name)
            } else {
                let stem = column.trim_end_matches("_id");
                let stem = stem
                    .strip_suffix(&format!("_{}", fk.referred_key(schema)))
                    .unwrap_or(stem);
                if stem == fk.table
                    || plural(stem) == fk.table
                    || stem.is_empty()
                    || fk.columns.len() > 1
                {
                    plural(&t.name)
                } else {
                    format!("{}_by_{stem}", plural(&t.name))
                }
            };
            let mut why = format!(
                "foreign key {}({}) references {}",
                t.name,
                fk.columns.join(", "),
                fk.table
            );
            if fk.columns.len() > 1 {
                why.push_str(&format!(
                    "; a composite key: the model keeps `{column}` as the reference"
                ));
            }
            rels.push(Rel {
                name: unique_name(base, &fk.table, &mut names),
                kind: if one { "one-to-one" } else { "one-to-many" },
                parent: fk.table.clone(),
                child: t.name.clone(),
                column,
                parent_key: fk.referred_key(schema),
                link: None,
                attributes: Vec::new(),
                table: t.name.clone(),
                why,
                inferred: false,
            });
        }
    }
    // Columns that name another table's key where no foreign key says so.
    for t in &schema.tables {
        if junctions.contains(&t.name) {
            continue;
        }
        let declared: Vec<&String> = t.foreign_keys.iter().flat_map(|f| &f.columns).collect();
        for c in &t.columns {
            if declared.contains(&&c.name) || t.primary_key == [c.name.clone()] {
                continue;
            }
            if let Some((target, evidence)) = inferred_target(schema, t, &c.name) {
                let key = schema
                    .table(&target)
                    .and_then(Mapping::id_column)
                    .unwrap_or("id")
                    .to_string();
                rels.push(Rel {
                    name: unique_name(
                        if c.name.trim_end_matches("_id") == target {
                            plural(&t.name)
                        } else {
                            format!("{}_by_{}", plural(&t.name), c.name.trim_end_matches("_id"))
                        },
                        &target,
                        &mut names,
                    ),
                    kind: "one-to-many",
                    parent: target,
                    child: t.name.clone(),
                    column: c.name.clone(),
                    parent_key: key,
                    link: None,
                    attributes: Vec::new(),
                    table: t.name.clone(),
                    why: evidence,
                    inferred: true,
                });
            }
        }
    }
    (rels, junctions)
}

/// The table a column not declared as a foreign key seems to reference,
/// and why: `{table}_id` (or a plural table name) with a one-column key,
/// or a name ending in another table's key column (`source_u_id` →
/// `useracct.u_id`).
fn inferred_target(schema: &Schema, t: &Table, column: &str) -> Option<(String, String)> {
    let integer = |table: &Table, col: &str| {
        table
            .columns
            .iter()
            .find(|c| c.name == col)
            .is_some_and(|c| c.sql_type.contains("int") || c.sql_type.contains("serial"))
    };
    if !integer(t, column) {
        return None;
    }
    for other in &schema.tables {
        let [pk] = other.primary_key.as_slice() else {
            continue;
        };
        if other.name == t.name && column == pk {
            continue;
        }
        if !integer(other, pk) {
            continue;
        }
        // `user_id`, `from_user_id`, `region` (for `regions`): the column's
        // name ends with the table's, singular or plural.
        let stem = column.strip_suffix("_id").unwrap_or(column);
        // One thing, not a count or a list: `bids` in `nb_of_bids` is not a bid.
        let names_table = |s: &str| {
            let singular = plural(s) != s;
            singular && (s == other.name || plural(s) == other.name)
        };
        let words: Vec<&str> = stem.split('_').collect();
        let by_table = pk == "id" && (0..words.len()).any(|i| names_table(&words[i..].join("_")));
        let by_key = pk != "id" && (column == pk || column.ends_with(&format!("_{pk}")));
        if by_table || by_key {
            return Some((
                other.name.clone(),
                format!(
                    "inferred: no foreign key declared; `{}.{column}` is an integer named after {} (`{}.{pk}`); the live import measures whether its values match",
                    t.name,
                    if by_table { "the table" } else { "its key" },
                    other.name
                ),
            ));
        }
    }
    None
}

/// A squill field type for an SQL column type, and whether the size is an
/// assumption.
fn field_type(sql: &str) -> (String, Option<String>) {
    let s = sql.to_lowercase();
    let len = s
        .split_once('(')
        .and_then(|(_, r)| r.split([')', ',']).next())
        .and_then(|n| n.trim().parse::<u64>().ok());
    let array = s.ends_with("[]");
    let base = s.trim_end_matches("[]");
    let word = |w: &str| {
        base.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|x| x == w)
    };
    let (ty, note) = if base.starts_with("tinyint(1)")
        || word("bool")
        || word("boolean")
        || base == "bit"
    {
        ("bool".to_string(), None)
    } else if word("bigint") || word("int8") || word("bigserial") {
        ("long".to_string(), None)
    } else if base.contains("int") || word("serial") || word("smallserial") || word("year") {
        ("int".to_string(), None)
    } else if word("numeric") || word("decimal") || word("money") {
        ("decimal".to_string(), None)
    } else if word("real") || word("float") || word("double") || word("float4") || word("float8") {
        ("double".to_string(), None)
    } else if word("date")
        || word("time")
        || word("timestamp")
        || word("datetime")
        || word("timestamptz")
    {
        ("date".to_string(), None)
    } else if word("bytea") || base.contains("blob") || base.contains("binary") || word("image") {
        (
            "binary".to_string(),
            Some("assumed: a binary's average size: 64 bytes".to_string()),
        )
    } else if word("json") || word("jsonb") {
        (
            "object".to_string(),
            Some("assumed: a JSON value's average size: 64 bytes".to_string()),
        )
    } else if base.contains("char") {
        match len {
            Some(n) => (format!("string({n})"), None),
            None => (
                "string".to_string(),
                Some("assumed: no declared length, 16 bytes".to_string()),
            ),
        }
    } else if base.contains("text") || base.contains("clob") {
        (
            "string(200)".to_string(),
            Some("assumed: a text column, 200 bytes".to_string()),
        )
    } else if word("uuid") {
        ("string(36)".to_string(), None)
    } else {
        (
            "string".to_string(),
            Some(format!(
                "assumed: type `{sql}` read as a string of 16 bytes"
            )),
        )
    };
    if array {
        (
            format!("{}[]", ty.split('(').next().unwrap_or("string")),
            note,
        )
    } else {
        (ty, note)
    }
}

/// A YAML key or value, quoted when it is not a plain word.
fn q(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_()[]?".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

fn write(
    name: &str,
    schema: &Schema,
    rels: &[Rel],
    junctions: &[String],
    evidence: Option<&Evidence>,
) -> String {
    let mut out = String::new();
    match evidence {
        None => {
            let _ = writeln!(
                out,
                "# yaml-language-server: $schema=https://squill.dev/schema/squill-model.schema.json\n#\n# Written by `squill import sql` from the DDL of {name}. DDL says which\n# tables, keys and references exist; it cannot say how many rows there\n# are, how many children a parent has, or what the application reads and\n# writes. Those figures are assumptions, each marked `assumed` below:\n# replace them with real ones (or import from a live database), and add\n# the operations under `operations:` before trusting `squill advise`."
            );
        }
        Some(e) => {
            let _ = writeln!(
                out,
                "# yaml-language-server: $schema=https://squill.dev/schema/squill-model.schema.json\n#\n# Written by `squill import` from the live database {}. Row counts,\n# children per parent, field sizes and null shares are measured (each\n# says how); the operations are the statements the database ran, with\n# their measured rates. Figures it could not measure are marked `assumed`.",
                e.source
            );
        }
    }
    let _ = writeln!(out, "name: {}", q(name));
    let _ = writeln!(out, "entities:");
    for t in schema
        .tables
        .iter()
        .filter(|t| !junctions.contains(&t.name))
    {
        let _ = writeln!(out, "  {}:", q(&t.name));
        let rows = evidence.and_then(|e| e.counts.get(&t.name).copied());
        match rows {
            Some(n) => {
                let _ = writeln!(out, "    count: {n}  # measured: rows in the table");
            }
            None => {
                let _ = writeln!(
                    out,
                    "    count: {ASSUMED_COUNT}  # assumed: DDL has no row counts"
                );
                let _ = writeln!(out, "    assumed: [count]");
            }
        }
        let references: Vec<&str> = rels
            .iter()
            .filter(|r| r.child == t.name && !r.column.is_empty())
            .map(|r| r.column.as_str())
            .collect();
        let single_key = Mapping::id_column(t);
        let mut fields = String::new();
        for c in &t.columns {
            if references.contains(&c.name.as_str()) {
                continue;
            }
            let stats = evidence.and_then(|e| e.columns.get(&(t.name.clone(), c.name.clone())));
            let (mut ty, mut note) = match stats {
                Some(st) => measured_type(&c.sql_type, st),
                None => field_type(&c.sql_type),
            };
            // A column of listed values is a string of one of them: sized
            // by their average length unless measured.
            if !c.values.is_empty() && (stats.is_none() || !ty.starts_with("string")) {
                let chars: usize = c.values.iter().map(|v| v.chars().count()).sum();
                ty = format!("string({})", chars.div_ceil(c.values.len()).max(1));
                note = None;
            }
            let is_id = Some(c.name.as_str()) == single_key;
            // Measured: optional only when some rows lack it.
            let optional = !is_id
                && match stats {
                    Some(st) => !c.not_null && st.null_frac > 0.0,
                    None => !c.not_null,
                };
            let (field, ty) = if is_id {
                ("_id".to_string(), ty)
            } else {
                (c.name.clone(), if optional { format!("{ty}?") } else { ty })
            };
            let distinct = match (stats, rows) {
                (Some(st), Some(n)) if !is_id && !ty.contains('[') => st.distinct(n),
                _ => None,
            };
            // Listed values say how many there are; otherwise the measured
            // count of distinct values, when there is one.
            let detail = if !c.values.is_empty() && !is_id {
                // Always quoted: a label such as `null` or `true` stays text.
                let values: Vec<String> = c
                    .values
                    .iter()
                    .map(|v| serde_json::to_string(v).unwrap_or_default())
                    .collect();
                Some(format!("enum: [{}]", values.join(", ")))
            } else {
                distinct.map(|d| format!("distinct: {d}"))
            };
            let _ = match detail {
                Some(d) => write!(fields, "      {}: {{type: {}, {d}}}", q(&field), q(&ty)),
                None => write!(fields, "      {}: {}", q(&field), q(&ty)),
            };
            match note {
                Some(n) => {
                    let _ = writeln!(fields, "  # {n}");
                }
                None => fields.push('\n'),
            }
        }
        if !fields.is_empty() {
            let _ = writeln!(out, "    fields:");
            out.push_str(&fields);
        }
        // Unique keys (besides the `_id`), on the fields and references kept.
        let kept = |col: &String| {
            t.columns.iter().any(|c| &c.name == col) && Some(col.as_str()) != single_key
        };
        let mut unique: Vec<&Vec<String>> =
            t.unique.iter().filter(|u| u.iter().all(kept)).collect();
        if t.primary_key.len() > 1 && t.primary_key.iter().all(kept) {
            unique.push(&t.primary_key);
        }
        if !unique.is_empty() {
            let keys: Vec<String> = unique
                .iter()
                .map(|u| {
                    format!(
                        "[{}]",
                        u.iter().map(|c| q(c)).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            let _ = writeln!(out, "    unique: [{}]", keys.join(", "));
        }
        for i in &t.indexes {
            let _ = writeln!(out, "    # indexed in SQL: ({})", i.join(", "));
        }
    }
    if !rels.is_empty() {
        let _ = writeln!(out, "relationships:");
    }
    for r in rels {
        let _ = writeln!(out, "  {}:", q(&r.name));
        let _ = writeln!(out, "    # {}", r.why);
        let key = (
            r.table.clone(),
            r.link.as_ref().map_or(r.column.clone(), |l| l.0.clone()),
        );
        if let Some((tested, matched)) = evidence.and_then(|e| e.matched.get(&key)) {
            let _ = writeln!(
                out,
                "    # measured: {} of {} values tested match a {} key",
                crate::words::int(*matched),
                crate::words::int(*tested),
                r.parent
            );
        }
        if r.kind != "one-to-many" {
            let _ = writeln!(out, "    kind: {}", r.kind);
        }
        let _ = writeln!(out, "    parent: {}", q(&r.parent));
        let _ = writeln!(out, "    child: {}", q(&r.child));
        let children = evidence.and_then(|e| e.children.get(&key));
        let parents = evidence.and_then(|e| e.parents.get(&key));
        match r.kind {
            "one-to-one" => {
                // Some parents have none (a profile not every customer has).
                if let Some(c) = children.filter(|c| c.min == 0) {
                    let _ = writeln!(
                        out,
                        "    children: {{min: 0, typical: {}, max: 1}}  # measured: some {} have none ({})",
                        c.p50.min(1),
                        r.parent,
                        c.how()
                    );
                }
                if let Some(p) = parents.filter(|p| p.min == 0) {
                    let _ = writeln!(
                        out,
                        "    parents: {{min: 0, typical: 1, max: 1}}  # measured: some {} have none (of {} rows read)",
                        r.child,
                        crate::words::int(p.over)
                    );
                }
            }
            "many-to-many" if children.is_some() || parents.is_some() => {
                let mut assumed = Vec::new();
                for (side, spread) in [("children", children), ("parents", parents)] {
                    match spread {
                        Some(s) => {
                            let _ = writeln!(out, "    {side}: {}  # {}", s.yaml(), s.how());
                        }
                        None => {
                            let _ = writeln!(
                                out,
                                "    {side}: {{typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed"
                            );
                            assumed.push(side);
                        }
                    }
                }
                if !assumed.is_empty() {
                    let _ = writeln!(out, "    assumed: [{}]", assumed.join(", "));
                }
            }
            // No parent has a child today (a reference column left null):
            // the fan-out it will have is unknown, not zero.
            "one-to-many" if children.is_some_and(|s| s.max == 0) => {
                let _ = writeln!(
                    out,
                    "    children: {{min: 0, typical: 0, max: unbounded}}  # assumed: no {} has {} set today",
                    r.child, r.column
                );
                let _ = writeln!(
                    out,
                    "    parents: {{min: 0, typical: 1, max: 1}}  # measured: the reference is null"
                );
                let _ = writeln!(out, "    assumed: [children]");
            }
            "one-to-many" if children.is_some() => {
                let s = children.expect("checked");
                match growth(evidence, &r.child, &r.parent) {
                    Some((g, per_second)) => {
                        let _ = writeln!(
                            out,
                            "    children: {}  # {}; the largest holds {} today, and {} rows arrive at {}/s",
                            s.yaml_growing(Some(g)),
                            s.how(),
                            s.max,
                            r.child,
                            crate::words::num(per_second)
                        );
                    }
                    None => {
                        let _ = writeln!(out, "    children: {}  # {}", s.yaml(), s.how());
                    }
                }
                if let Some(p) = parents.filter(|p| p.min == 0) {
                    let _ = writeln!(
                        out,
                        "    parents: {{min: 0, typical: 1, max: 1}}  # measured: some {} have none (of {} rows read)",
                        r.child,
                        crate::words::int(p.over)
                    );
                }
            }
            "many-to-many" => {
                let _ = writeln!(
                    out,
                    "    children: {{typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed"
                );
                let _ = writeln!(
                    out,
                    "    parents: {{typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed"
                );
                let _ = writeln!(out, "    assumed: [children, parents]");
            }
            _ => {
                let _ = writeln!(
                    out,
                    "    children: {{min: 0, typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed: DDL has no fan-out"
                );
                let _ = writeln!(out, "    assumed: [children]");
            }
        }
        if !r.column.is_empty() {
            let _ = writeln!(out, "    child_field: {}", q(&r.column));
        }
        if r.kind != "many-to-many" && r.parent != r.child {
            // Another table that references the child needs it on its own.
            let referenced = rels.iter().any(|o| o.parent == r.child && o.name != r.name);
            if referenced {
                let _ = writeln!(
                    out,
                    "    standalone: true  # other tables reference {}",
                    r.child
                );
            }
        }
        if !r.attributes.is_empty() {
            let _ = writeln!(out, "    attributes:");
            let link = schema.table(&r.table);
            for a in &r.attributes {
                let shown = attribute_name(schema, r, a);
                let sql = link
                    .and_then(|t| t.columns.iter().find(|c| &c.name == a))
                    .map_or("text".to_string(), |c| c.sql_type.clone());
                let (ty, _) = field_type(&sql);
                let _ = writeln!(out, "      {}: {}", q(&shown), q(&ty));
            }
        }
    }
    if let Some(e) = evidence.filter(|e| !e.operations.is_empty()) {
        // Comments alone would leave `operations:` empty (null).
        if e.operations
            .iter()
            .any(|l| !l.trim_start().starts_with('#'))
        {
            let _ = writeln!(out, "operations:");
        }
        for line in &e.operations {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// Children per parent per day, and rows per second, when the workload
/// measured inserts rows into `child`.
fn growth(evidence: Option<&Evidence>, child: &str, parent: &str) -> Option<(f64, f64)> {
    let e = evidence?;
    let per_second = *e.inserts.get(child)?;
    let parents = *e.counts.get(parent)?;
    (per_second > 0.0 && parents > 0).then(|| (per_second * 86_400.0 / parents as f64, per_second))
}

/// The field type of a column with measured statistics: a string, binary
/// or JSON value sized by its average width, other types as declared.
fn measured_type(sql: &str, st: &ColumnStats) -> (String, Option<String>) {
    let (ty, note) = field_type(sql);
    let base = ty.split(['(', '[']).next().unwrap_or("string").to_string();
    if !matches!(base.as_str(), "string" | "binary" | "object") || ty.ends_with(']') {
        return (ty, note);
    }
    // A variable-length value carries a 1-byte header when short (4 when long).
    let width = if st.avg_width > 127 {
        st.avg_width.saturating_sub(4)
    } else {
        st.avg_width.saturating_sub(1)
    }
    .max(1);
    (
        format!("{base}({width})"),
        Some(format!(
            "measured: {width} byte{} on average{}",
            if width == 1 { "" } else { "s" },
            if st.null_frac > 0.0 {
                format!(", null in {:.1}%", st.null_frac * 100.0)
            } else {
                String::new()
            }
        )),
    )
}

/// `file:line:column: message` for a note.
pub fn located(file: &str, at: Position, message: &str) -> String {
    format!("{file}:{}:{}: {message}", at.line, at.column)
}

/// The model's name of column `a` of many-to-many `r`'s linking table: the
/// column's, or `{table}_{a}` when a side has a column of that name (an
/// attribute may not share a side's field name).
pub fn attribute_name(schema: &Schema, r: &Rel, a: &str) -> String {
    let on_side = |e: &str| {
        schema
            .table(e)
            .is_some_and(|t| t.columns.iter().any(|c| c.name == a))
    };
    if on_side(&r.parent) || on_side(&r.child) {
        format!("{}_{a}", r.table)
    } else {
        a.to_string()
    }
}
