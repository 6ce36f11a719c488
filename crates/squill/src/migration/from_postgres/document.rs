//! A collection of the design as one SQL query over the source tables that
//! returns each document as Extended JSON, built by PostgreSQL itself: the
//! entity's row, its embedded children and parents as nested objects and
//! arrays, references as ids, copies from the related row, attributes from
//! the linking row, computed fields as aggregates — the shape's field tree
//! walked once. The same walk gives the condition "this document changed
//! since": its own row or any row it is built from.
//!
//! Values are typed as the design's validator expects: `long` as
//! `$numberLong`, `decimal` as `$numberDecimal`, `double` as
//! `$numberDouble`, dates as `$date` (the session runs in UTC), binary as
//! `$binary`. Objects are `row_to_json` of a subselect, which keeps the
//! shape's field order and has no limit on the number of fields.

pub use super::error::Unsupported;
use super::ledger::Touched;
use crate::design::{Collection, Design, FieldOrigin, Layout, Shape, ShapeType, Side};
pub use crate::inputs::postgres::connect::literal;
use crate::inputs::postgres::connect::{qualified, quote};
use crate::inputs::sql::ddl::{Schema, Table};
use crate::inputs::sql::map::{Mapping, Rel};
use crate::model::{AggregateFn, Model};
use std::cell::Cell;
use std::collections::BTreeSet;

mod bucket;
mod path;
mod split;
mod timeline;

pub use split::ArrayPart;

/// What marks a row as changed since the last run.
#[derive(Debug, Clone, PartialEq)]
pub enum Changed {
    /// Rows written by a transaction at or after this one (PostgreSQL's
    /// 32-bit `xmin`, compared modulo 2^32).
    Xmin(u32),
    /// Rows whose column (a timestamp) is later than `since`; in a table
    /// without the column, by `xmin` as above.
    Column {
        column: String,
        since: String,
        xmin: u32,
    },
    /// Every row counts as changed: a bucket collection whose record of
    /// the last run's buckets is missing, rewritten whole to start one.
    Everything,
}

/// The query of one collection.
#[derive(Debug, Clone)]
pub struct CollectionQuery {
    pub collection: String,
    /// The column a single-entity collection is ordered and resumed by,
    /// with its SQL type; `None` when it cannot resume within the collection.
    pub key: Option<(String, String)>,
    /// The tables it reads (for the summary).
    pub tables: Vec<String>,
    /// The document's top-level values that travel as typed columns
    /// (between the key and the JSON rest), in order: squill builds them
    /// into BSON itself, which spares the server a JSON value per field.
    pub columns: Vec<Column>,
    parts: Vec<Part>,
    /// A full run's form with arrays of child rows read as typed rows.
    split: Option<split::Split>,
}

/// A top-level field read as a typed column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
}

/// How a typed column arrives (its SQL type in the COPY) and which BSON
/// type it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `int4` → int32.
    Int32,
    /// `int8` → int64.
    Int64,
    /// `float8` → double.
    Double,
    /// `numeric` as text → decimal128.
    Decimal,
    /// `timestamp` (microseconds since 2000, UTC) → date.
    Date,
    /// `bool` → bool.
    Bool,
    /// `text` → string.
    Str,
    /// `bytea` → binary.
    Binary,
    /// 24 hexadecimal digits as text → ObjectId.
    ObjectIdHex,
}

/// The rows of one entity of a collection.
#[derive(Debug, Clone)]
struct Part {
    from: String,
    key: String,
    /// The typed columns' expressions, as `CollectionQuery::columns`.
    typed: Vec<String>,
    /// The rest of the document, as JSON.
    document: String,
    changed: Vec<String>,
    table: String,
    /// For rows grouped into documents (buckets): a change is then asked
    /// of the group, and of every group of the same parent.
    group: Option<Group>,
    /// A document per row of `table`: how its `_id` is made from the row.
    root: Option<Root>,
}

/// Rows grouped into documents per parent (buckets), as the query has
/// them.
#[derive(Debug, Clone)]
struct Group {
    /// The groups' alias.
    alias: String,
    /// The rows' reference to their parent (`t1."order_id"`), which the
    /// groups are partitioned by.
    by: String,
    /// The parent's table and the column the reference holds.
    parent: Buckets,
}

/// Whose buckets a bucket collection's documents are: the parent's table
/// and the column of it that the children's reference holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buckets {
    pub parent: String,
    pub parent_key: String,
}

/// The row a document is made of: its table (qualified), the row's alias
/// in `id`, and its `_id` as JSON.
#[derive(Debug, Clone)]
struct Root {
    from: String,
    alias: String,
    id: String,
}

impl CollectionQuery {
    /// The arrays read as child rows, and every typed column of a row
    /// (the parent's, then each array's), when the query for `changed`
    /// reads them so: its rows are then `(tag, key, columns…, rest)`.
    pub fn arrays(&self, changed: Option<&Changed>) -> Option<(&[Column], &[ArrayPart])> {
        match (&self.split, changed) {
            (Some(s), None) => Some((&s.columns, &s.arrays)),
            _ => None,
        }
    }

    /// The tables its documents are built from: every table a change is
    /// looked for in.
    pub fn sources(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for p in &self.parts {
            out.insert(p.table.clone());
            for c in &p.changed {
                out.extend(marks(c).0.into_iter().map(|(_, m)| m.table));
            }
        }
        out
    }

    /// Whose buckets the documents are, when rows are grouped into
    /// documents (buckets). Each such document's key (`k`) is then the JSON
    /// array `[parent, _id]`: the parent's reference as text and the
    /// `_id`'s 24 hexadecimal digits.
    pub fn buckets(&self) -> Option<&Buckets> {
        self.parts
            .iter()
            .find_map(|p| p.group.as_ref().map(|g| &g.parent))
    }

    /// `SELECT _id` (as JSON text) of the documents the deleted rows of
    /// `table` were, given the rows' keys as text (`columns` name them);
    /// `None` when no document of this collection is a row of `table`.
    pub fn deleted_ids(
        &self,
        table: &str,
        columns: &[String],
        keys: &[Vec<String>],
    ) -> Option<String> {
        let root = self
            .parts
            .iter()
            .filter(|p| p.group.is_none() && p.table == table)
            .find_map(|p| p.root.as_ref())?;
        let rows: Vec<serde_json::Value> = keys
            .iter()
            .map(|k| {
                serde_json::Value::Object(
                    columns
                        .iter()
                        .zip(k)
                        .map(|(c, v)| (c.clone(), serde_json::Value::String(v.clone())))
                        .collect(),
                )
            })
            .collect();
        let json = serde_json::Value::Array(rows).to_string();
        Some(format!(
            "SELECT ({})::text FROM json_populate_recordset(NULL::{}, {}::json) {}",
            root.id,
            root.from,
            literal(&json),
            root.alias
        ))
    }

    /// `SELECT key::text, document FROM …`, resumed after `after` (a key
    /// as text), restricted to documents changed since `changed`.
    pub fn select(&self, after: Option<&str>, changed: Option<&Changed>) -> String {
        self.select_touched(after, changed, &Touched::default())
    }

    /// As `select`, where a row `touched` names counts as changed too.
    pub fn select_touched(
        &self,
        after: Option<&str>,
        changed: Option<&Changed>,
        touched: &Touched,
    ) -> String {
        if let (Some(s), None, Some((_, ty))) = (&self.split, changed, &self.key) {
            return s.select(after, ty);
        }
        let mut selects = Vec::new();
        for p in &self.parts {
            let mut conditions = Vec::new();
            if let (Some(after), Some((_, ty))) = (after, &self.key) {
                conditions.push(format!("{} > {}::{ty}", p.key, literal(after)));
            }
            let mut from = p.from.clone();
            if let Some(c) = changed {
                let any: Vec<String> = p.changed.iter().map(|x| expand(x, c, touched)).collect();
                match &p.group {
                    Some(g) => {
                        // A changed row changes every bucket of its parent
                        // (a page's rows shift when one comes or goes), and
                        // a parent that lost or gained a row since the last
                        // run has every bucket rebuilt, the lost ones found
                        // by the record of the buckets written
                        // (`buckets.rs`).
                        let mut whole = format!(
                            "bool_or(bool_or({})) OVER (PARTITION BY {})",
                            any.join(" OR "),
                            g.by
                        );
                        let key = [g.parent.parent_key.clone()];
                        if let Some(t) = touched.test_as(&g.parent.parent, &key, &[&g.by]) {
                            whole = format!("{whole} OR {t}");
                        }
                        from = from.replace(
                            bucket::GROUP_CHANGED,
                            &format!(", ({whole}) AS squill_changed "),
                        );
                        conditions.push(format!("{}.squill_changed", g.alias));
                    }
                    None => conditions.push(format!("({})", any.join(" OR "))),
                }
            }
            let from = from.replace(bucket::GROUP_CHANGED, "");
            let r#where = if conditions.is_empty() {
                String::new()
            } else {
                format!(" WHERE {}", conditions.join(" AND "))
            };
            let typed: String = p.typed.iter().map(|t| format!("{t}, ")).collect();
            selects.push(format!(
                "SELECT {key}::text AS k, {typed}{doc} AS d FROM {from}{where}",
                key = p.key,
                doc = p.document,
                r#where = r#where
            ));
        }
        let mut sql = selects.join(" UNION ALL ");
        if self.key.is_some() && self.parts.len() == 1 {
            sql.push_str(&format!(" ORDER BY {}", self.parts[0].key));
        }
        sql
    }
}

/// The placeholder a change test is written as until the mode is known:
/// `⟦alias|table|column,column…⟧`, the table's and columns' names in
/// hexadecimal (a name from the database may hold `|`, `,` or `⟧`).
fn changed_mark(alias: &str, table: &Table) -> String {
    let columns: Vec<String> = table.columns.iter().map(|c| hex(&c.name)).collect();
    format!("⟦{alias}|{}|{}⟧", hex(&table.name), columns.join(","))
}

fn hex(name: &str) -> String {
    name.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> String {
    let bytes: Vec<u8> = (0..text.len() / 2)
        .filter_map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// One change mark, read back.
struct Mark {
    alias: String,
    table: String,
    columns: Vec<String>,
}

/// The marks of `sql` in order, each with the text before it; the text
/// after the last one is returned apart.
fn marks(sql: &str) -> (Vec<(&str, Mark)>, &str) {
    let mut found = Vec::new();
    let mut rest = sql;
    while let Some(start) = rest.find('⟦') {
        let before = &rest[..start];
        let after = &rest[start + '⟦'.len_utf8()..];
        let end = after.find('⟧').unwrap_or(after.len());
        let mut fields = after[..end].split('|');
        let alias = fields.next().unwrap_or_default().to_string();
        let table = unhex(fields.next().unwrap_or_default());
        let columns = fields
            .next()
            .unwrap_or_default()
            .split(',')
            .filter(|c| !c.is_empty())
            .map(unhex)
            .collect();
        found.push((
            before,
            Mark {
                alias,
                table,
                columns,
            },
        ));
        rest = &after[(end + '⟧'.len_utf8()).min(after.len())..];
    }
    (found, rest)
}

/// Replaces every change mark in `sql` by the test of `mode`, or'ed with
/// "one of the rows that `touched` names" (a row that lost a row built
/// into its document since the last run).
fn expand(sql: &str, mode: &Changed, touched: &Touched) -> String {
    let (found, tail) = marks(sql);
    let mut out = String::new();
    for (before, mark) in found {
        out.push_str(before);
        let alias = &mark.alias;
        let by_xmin = |x: u32| {
            format!(
                "((({alias}.xmin::text::int8 - {x} + 4294967296) % 4294967296) < 2147483648 AND {alias}.xmin::text::int8 > 2)"
            )
        };
        let test = match mode {
            Changed::Xmin(x) => by_xmin(*x),
            Changed::Column { column, since, .. } if mark.columns.iter().any(|c| c == column) => {
                format!(
                    "{alias}.{} > {}::timestamptz",
                    quote(column),
                    literal(since)
                )
            }
            // A table without the column: its rows' xmin tells.
            Changed::Column { xmin, .. } => by_xmin(*xmin),
            Changed::Everything => "true".to_string(),
        };
        match touched.test(&mark.table, alias) {
            Some(rows) => out.push_str(&format!("({test} OR {rows})")),
            None => out.push_str(&test),
        }
    }
    out.push_str(tail);
    out
}

/// Builds the queries of a design whose model was imported from `schema`.
pub struct Builder<'a> {
    pub schema: &'a Schema,
    pub mapping: &'a Mapping,
    pub model: &'a Model,
    pub design: &'a Design,
    /// The namespace of the tables.
    pub namespace: &'a str,
    aliases: Cell<usize>,
    /// A many-to-many advise made an entity of its own (an edge
    /// collection): the linking table's two foreign keys as one-to-manys,
    /// named as the rewritten model names them (`film_actor_of_actor`).
    edges: Vec<Rel>,
}

/// Where a shape is being filled from.
#[derive(Clone, Copy)]
struct Ctx<'t> {
    table: &'t Table,
    alias: &'t str,
    /// The relationship this row was reached through, from the document
    /// above it (its `Reference` fields are then this row's id).
    reached_by: Option<&'t str>,
    /// The linking row it was reached through, for a many-to-many's
    /// attributes: (relationship, alias of the linking table).
    link: Option<(&'t str, &'t str)>,
}

type Out = Result<Built, Unsupported>;

impl<'a> Builder<'a> {
    pub fn new(
        schema: &'a Schema,
        mapping: &'a Mapping,
        model: &'a Model,
        design: &'a Design,
        namespace: &'a str,
    ) -> Self {
        let mut edges = Vec::new();
        for r in &mapping.relationships {
            let Some((pcol, ccol, ckey)) = &r.link else {
                continue;
            };
            for (side, column, key) in [(&r.parent, pcol, &r.parent_key), (&r.child, ccol, ckey)] {
                edges.push(Rel {
                    name: format!("{}_of_{side}", r.name),
                    kind: "one-to-many",
                    parent: side.clone(),
                    child: r.table.clone(),
                    column: column.clone(),
                    parent_key: key.clone(),
                    link: None,
                    attributes: Vec::new(),
                    table: r.table.clone(),
                    why: String::new(),
                    inferred: false,
                    parent_field: String::new(),
                    child_field: column.clone(),
                });
            }
        }
        Builder {
            schema,
            mapping,
            model,
            design,
            namespace,
            aliases: Cell::new(0),
            edges,
        }
    }

    /// Relationship `name`: a foreign key, a linking table, or one side of
    /// an edge collection's linking table (`film_actor_of_actor`).
    pub fn relationship(&self, name: &str) -> Option<&Rel> {
        self.mapping
            .relationships
            .iter()
            .chain(&self.edges)
            .find(|r| r.name == name)
    }

    /// The many-to-many whose links entity `name` holds, when it is one
    /// (for another builder of the same documents: `to_spark`).
    pub fn link_of(&self, name: &str) -> Option<&'a Rel> {
        self.link_entity(name)
    }

    /// The many-to-many whose links entity `name` holds, when it is one.
    fn link_entity(&self, name: &str) -> Option<&'a Rel> {
        self.mapping
            .relationships
            .iter()
            .find(|r| r.link.is_some() && r.name == name)
    }

    fn alias(&self) -> String {
        let n = self.aliases.get() + 1;
        self.aliases.set(n);
        format!("t{n}")
    }

    fn table(&self, coll: &str, name: &str) -> Result<&'a Table, Unsupported> {
        let table = match self.link_entity(name) {
            Some(r) if self.schema.table(name).is_none() => r.table.as_str(),
            _ => name,
        };
        self.schema.table(table).ok_or_else(|| Unsupported {
            collection: coll.into(),
            field: String::new(),
            why: format!(
                "entity `{name}` is no table of the database: migrate needs the model `squill import` wrote from it"
            ),
        })
    }

    fn rel(&self, coll: &str, name: &str) -> Result<&Rel, Unsupported> {
        self.mapping
            .relationships
            .iter()
            .chain(&self.edges)
            .find(|r| r.name == name)
            .ok_or_else(|| Unsupported {
                collection: coll.into(),
                field: String::new(),
                why: format!(
                    "relationship `{name}` is no foreign key or linking table of the database"
                ),
            })
    }

    /// The query of `coll`.
    pub fn collection(&self, coll: &Collection) -> Result<CollectionQuery, Unsupported> {
        if let Some(q) = self.bucket_collection(coll)? {
            return Ok(q);
        }
        // A timeline holds no entity: its documents are its readers'.
        let entities = match self.timeline_of(&coll.name) {
            Some(t) => vec![t.reader.to_string()],
            None => coll.entities.clone(),
        };
        let mut parts = Vec::new();
        let mut split_of = None;
        let mut all_columns = Vec::new();
        for entity in &entities {
            let table = self.table(&coll.name, entity)?;
            let alias = self.alias();
            let ctx = Ctx {
                table,
                alias: &alias,
                reached_by: None,
                link: None,
            };
            // One entity: its own scalar values as typed columns, the rest
            // (nested, related) as JSON. Several (a polymorphic
            // collection): all JSON, since the parts' columns must agree.
            let mut rest = Shape::default();
            let mut typed = Vec::new();
            let mut columns = Vec::new();
            for f in &coll.shape.fields {
                match (entities.len(), self.typed_column(ctx, &f.ty, &f.origin)) {
                    (1, Some((expr, kind))) => {
                        typed.push(expr);
                        columns.push(Column {
                            name: f.name.clone(),
                            kind,
                        });
                    }
                    _ => rest.fields.push(f.clone()),
                }
            }
            if entities.len() == 1 {
                split_of = self.split(&coll.name, ctx, &rest, entity, &typed, &columns)?;
            }
            // A full run reads the arrays as child rows and closes them onto
            // the document after its other fields; a run of changes builds
            // the whole document in SQL. Both write the fields in that one
            // order, so a document rewritten by a run of changes is the
            // document the full run wrote (the arrays had come before an
            // embedded parent there).
            if let Some(s) = &split_of {
                let is_array =
                    |f: &&crate::design::ShapeField| s.arrays.iter().any(|a| a.name == f.name);
                let (arrays, others): (Vec<_>, Vec<_>) = rest.fields.iter().partition(is_array);
                rest.fields = others.into_iter().chain(arrays).cloned().collect();
            }
            let built = self.object(&coll.name, ctx, &rest, Some(entity))?;
            all_columns = columns;
            let mut changed = vec![self.mark(table, &alias)];
            changed.extend(built.changed);
            let key = match Mapping::id_column(table) {
                Some(k) => format!("{alias}.{}", quote(k)),
                None => format!("{alias}.ctid"),
            };
            let mut from = format!("{} {alias}", qualified(self.namespace, &table.name));
            for j in &built.joins {
                from.push(' ');
                from.push_str(j);
            }
            parts.push(Part {
                from,
                key,
                typed,
                document: built.expr,
                changed,
                table: table.name.clone(),
                group: None,
                root: coll
                    .shape
                    .fields
                    .iter()
                    .find(|f| matches!(f.origin, FieldOrigin::Id))
                    .map(|f| Root {
                        from: qualified(self.namespace, &table.name),
                        alias: alias.clone(),
                        id: format!("to_json({})", self.id(ctx, &f.ty)),
                    }),
            });
        }
        let key = match (parts.as_slice(), entities.as_slice()) {
            ([_], [entity]) => {
                let t = self.table(&coll.name, entity)?;
                Mapping::id_column(t).map(|k| {
                    let ty = Self::column_type(t, k).unwrap_or("text").to_string();
                    (k.to_string(), ty)
                })
            }
            _ => None,
        };
        Ok(CollectionQuery {
            collection: coll.name.clone(),
            key,
            tables: parts.iter().map(|p| p.table.clone()).collect(),
            columns: all_columns,
            parts,
            split: split_of,
        })
    }

    /// The split form of a one-entity collection whose JSON rest is
    /// `rest`, when some of its arrays can be read as child rows.
    fn split(
        &self,
        coll: &str,
        ctx: Ctx<'_>,
        rest: &Shape,
        entity: &str,
        typed: &[String],
        columns: &[Column],
    ) -> Result<Option<split::Split>, Unsupported> {
        let mut arrays = Vec::new();
        let mut left = Shape::default();
        for f in &rest.fields {
            let part = match &f.origin {
                FieldOrigin::Embedded { relationship }
                | FieldOrigin::Reference { relationship, .. } => match self.rel(coll, relationship)
                {
                    Ok(r) => {
                        let r = r.clone();
                        self.array_part(coll, ctx, &f.name, &f.ty, &r)
                    }
                    Err(_) => None,
                },
                _ => None,
            };
            match part {
                Some(p) => arrays.push(p),
                None => left.fields.push(f.clone()),
            }
        }
        if arrays.is_empty() {
            return Ok(None);
        }
        let built = self.object(coll, ctx, &left, Some(entity))?;
        let key = match Mapping::id_column(ctx.table) {
            Some(k) => format!("{}.{}", ctx.alias, quote(k)),
            None => return Ok(None),
        };
        let mut from = format!(
            "{} {}",
            qualified(self.namespace, &ctx.table.name),
            ctx.alias
        );
        for j in &built.joins {
            from.push(' ');
            from.push_str(j);
        }
        let mut all = columns.to_vec();
        for a in &arrays {
            all.extend(a.columns.iter().cloned());
        }
        Ok(Some(split::Split {
            root: Part {
                from,
                key,
                typed: typed.to_vec(),
                document: built.expr,
                changed: Vec::new(),
                table: ctx.table.name.clone(),
                group: None,
                // The split form is a full run's: nothing is deleted.
                root: None,
            },
            columns: all,
            arrays,
        }))
    }

    /// `(SELECT row_to_json(x) FROM (SELECT v AS "k", …) x)` for `shape`
    /// filled from the row `ctx`, with the joins its fields need;
    /// `discriminator` the entity name a `Discriminator` field holds.
    fn object(&self, coll: &str, ctx: Ctx<'_>, shape: &Shape, discriminator: Option<&str>) -> Out {
        let mut items = Vec::new();
        let mut out = Built::default();
        let mut parents = Vec::new();
        for f in &shape.fields {
            let b = self.field(
                coll,
                ctx,
                &f.name,
                &f.ty,
                &f.origin,
                discriminator,
                &mut parents,
            )?;
            items.push(format!("{} AS {}", b.expr, quote(&f.name)));
            out.joins.extend(b.joins);
            out.changed.extend(b.changed);
        }
        out.expr = if items.is_empty() {
            "'{}'::json".into()
        } else {
            format!(
                "(SELECT row_to_json(x) FROM (SELECT {}) x)",
                items.join(", ")
            )
        };
        Ok(out)
    }

    /// A top-level value of the row itself as a typed column: its `_id`,
    /// an own scalar, the reference to a parent it keeps, its kind.
    fn typed_column(
        &self,
        ctx: Ctx<'_>,
        ty: &ShapeType,
        origin: &FieldOrigin,
    ) -> Option<(String, Kind)> {
        let ShapeType::Scalar { bson_type, .. } = ty else {
            return None;
        };
        let a = ctx.alias;
        let column = match origin {
            FieldOrigin::Id => Mapping::id_column(ctx.table)?.to_string(),
            FieldOrigin::Own { field, entity } => match self.link_entity(entity) {
                Some(r) => attribute_column(r, field),
                None => field.clone(),
            },
            FieldOrigin::Reference { relationship, .. } => {
                let r = self
                    .mapping
                    .relationships
                    .iter()
                    .chain(&self.edges)
                    .find(|r| &r.name == relationship)?;
                if r.link.is_some() || ctx.table.name != r.child {
                    return None;
                }
                r.column.clone()
            }
            FieldOrigin::Discriminator => {
                return Some((format!("{}::text", literal(&ctx.table.name)), Kind::Str));
            }
            _ => return None,
        };
        let sql = Self::column_type(ctx.table, &column)?.to_ascii_lowercase();
        if sql.contains("[]") {
            return None;
        }
        let c = format!("{a}.{}", quote(&column));
        Some(match bson_type.as_str() {
            "int" => (format!("({c})::int4"), Kind::Int32),
            "long" => (format!("({c})::int8"), Kind::Int64),
            "double" => (format!("({c})::float8"), Kind::Double),
            "decimal" => (format!("({c})::numeric::text"), Kind::Decimal),
            "date" if sql.starts_with("time") && !sql.starts_with("timestamp") => {
                (format!("('2000-01-01'::date + {c})::timestamp"), Kind::Date)
            }
            "date" => (format!("({c})::timestamp"), Kind::Date),
            "bool" if sql.starts_with("bool") => (c, Kind::Bool),
            "bool" => (format!("(({c}) <> 0)"), Kind::Bool),
            "string" => (format!("({c})::text"), Kind::Str),
            "binData" => (format!("({c})::bytea"), Kind::Binary),
            "objectId" => (format!("({c})::text"), Kind::ObjectIdHex),
            _ => return None,
        })
    }

    fn unsupported(coll: &str, field: &str, why: impl Into<String>) -> Unsupported {
        Unsupported {
            collection: coll.into(),
            field: field.into(),
            why: why.into(),
        }
    }

    fn column_type<'t>(table: &'t Table, column: &str) -> Option<&'t str> {
        table
            .columns
            .iter()
            .find(|c| c.name == column)
            .map(|c| c.sql_type.as_str())
    }

    #[allow(clippy::too_many_lines, clippy::too_many_arguments)] // one arm per origin
    fn field(
        &self,
        coll: &str,
        ctx: Ctx<'_>,
        name: &str,
        ty: &ShapeType,
        origin: &FieldOrigin,
        discriminator: Option<&str>,
        parents: &mut Vec<(String, String)>,
    ) -> Out {
        let a = ctx.alias;
        let value = |expr: String| {
            Ok(Built {
                expr,
                ..Built::default()
            })
        };
        match origin {
            FieldOrigin::Id => value(self.id(ctx, ty)),
            FieldOrigin::Own { field, entity } => {
                // A link entity's fields are its many-to-many's attributes.
                let field = match self.link_entity(entity) {
                    Some(r) => attribute_column(r, field),
                    None => field.clone(),
                };
                let sql = Self::column_type(ctx.table, &field).ok_or_else(|| {
                    Self::unsupported(
                        coll,
                        name,
                        format!("{} has no column {field}", ctx.table.name),
                    )
                })?;
                value(typed(&format!("{a}.{}", quote(&field)), ty, sql))
            }
            FieldOrigin::Discriminator => value(literal(discriminator.unwrap_or(&ctx.table.name))),
            FieldOrigin::Attribute {
                relationship,
                field,
            } => {
                let r = self.rel(coll, relationship)?;
                let Some((_, j)) = ctx.link.filter(|(rel, _)| rel == relationship) else {
                    return Err(Self::unsupported(
                        coll,
                        name,
                        "an attribute outside its link",
                    ));
                };
                let link = self.table(coll, &r.table)?;
                let column = attribute_column(r, field);
                let sql = Self::column_type(link, &column).unwrap_or("text");
                value(typed(&format!("{j}.{}", quote(&column)), ty, sql))
            }
            FieldOrigin::Reference { relationship, .. } if ctx.reached_by == Some(relationship) => {
                value(self.id(ctx, ty))
            }
            FieldOrigin::Reference { relationship, .. }
            | FieldOrigin::Embedded { relationship } => {
                let r = self.rel(coll, relationship)?.clone();
                let embedded = matches!(origin, FieldOrigin::Embedded { .. });
                let side = match origin {
                    FieldOrigin::Reference { side, .. } => *side,
                    _ => None,
                };
                self.related(coll, ctx, ty, &r, embedded, side)
            }
            FieldOrigin::Copy {
                relationship,
                entity,
                field,
                ..
            } => {
                if &ctx.table.name == entity {
                    let own = FieldOrigin::Own {
                        entity: entity.clone(),
                        field: field.clone(),
                    };
                    return self.field(coll, ctx, name, ty, &own, discriminator, parents);
                }
                let r = self.rel(coll, relationship)?.clone();
                let step = self.step(coll, ctx, &r, false)?;
                let sql = Self::column_type(step.other, field).ok_or_else(|| {
                    Self::unsupported(coll, name, format!("{entity} has no column {field}"))
                })?;
                let b_ctx_mark = |b: &str| self.mark(step.other, b);
                if step.to_many {
                    return Err(Self::unsupported(
                        coll,
                        name,
                        "a copy from one of many related rows",
                    ));
                }
                if step.to_parent {
                    // One join per parent, whatever the number of copies.
                    let key = relationship.clone();
                    let b = match parents.iter().find(|(k, _)| *k == key) {
                        Some((_, b)) => b.clone(),
                        None => {
                            let b = self.alias();
                            parents.push((key, b.clone()));
                            let mut built = Built::default();
                            built.joins.push(format!(
                                "LEFT JOIN {} {b} ON {b}.{} = {}",
                                qualified(self.namespace, &step.other.name),
                                quote(&r.parent_key),
                                step.outer_key
                            ));
                            built.expr = typed(&format!("{b}.{}", quote(field)), ty, sql);
                            built.changed.push(format!(
                                "EXISTS (SELECT 1 FROM {} {b} WHERE {b}.{} = {} AND {})",
                                qualified(self.namespace, &step.other.name),
                                quote(&r.parent_key),
                                step.outer_key,
                                b_ctx_mark(&b)
                            ));
                            return Ok(built);
                        }
                    };
                    return value(typed(&format!("{b}.{}", quote(field)), ty, sql));
                }
                // From the one child of a one-to-one.
                let d = self.alias();
                let b = &step.alias;
                Ok(Built {
                    expr: format!("{d}.v"),
                    joins: vec![format!(
                        "LEFT JOIN LATERAL (SELECT {} AS v FROM {} WHERE {} = {} LIMIT 1) {d} ON true",
                        typed(&format!("{b}.{}", quote(field)), ty, sql),
                        step.inner_from,
                        step.inner_key,
                        step.outer_key
                    )],
                    changed: vec![format!(
                        "EXISTS (SELECT 1 FROM {} WHERE {} = {} AND {})",
                        step.inner_from,
                        step.inner_key,
                        step.outer_key,
                        b_ctx_mark(b)
                    )],
                })
            }
            FieldOrigin::Computed {
                function,
                field,
                relationship,
                ..
            } => {
                let r = self.rel(coll, relationship)?.clone();
                let step = self.step(coll, ctx, &r, true)?;
                let b = &step.alias;
                let agg = match (function, field) {
                    (AggregateFn::Count, _) => "count(*)".to_string(),
                    (_, Some(f)) => {
                        let order: Vec<String> = bucket::arrival_columns(step.other)
                            .iter()
                            .map(|k| format!("{b}.{k}"))
                            .collect();
                        bucket::aggregate(*function, &format!("{b}.{}", quote(f)), &order)
                    }
                    (_, None) => {
                        return Err(Self::unsupported(
                            coll,
                            name,
                            format!("a computed {} without a field", function_sql(*function)),
                        ));
                    }
                };
                let sql_type = match (function, field) {
                    (AggregateFn::Count, _) => "bigint",
                    (AggregateFn::Avg, _) => "double precision",
                    (_, Some(f)) => Self::column_type(step.other, f).unwrap_or("numeric"),
                    _ => "numeric",
                };
                let d = self.alias();
                let v = if matches!(function, AggregateFn::Count) {
                    format!("coalesce({d}.v, 0)")
                } else {
                    format!("{d}.v")
                };
                Ok(Built {
                    expr: typed(&v, ty, sql_type),
                    joins: vec![format!(
                        "LEFT JOIN (SELECT {} AS k, {agg} AS v FROM {} GROUP BY {}) {d} ON {d}.k = {}",
                        step.inner_key, step.inner_from, step.inner_key, step.outer_key
                    )],
                    changed: vec![self.changed_through(&step, &[])],
                })
            }
            FieldOrigin::Path { tree, via } => {
                self.tree_path(coll, ctx, name, ty, tree, via.as_deref())
            }
            FieldOrigin::Timeline { .. } | FieldOrigin::Outliers { .. } => {
                self.timeline_field(coll, ctx, name, ty, origin)
            }
            FieldOrigin::Bucket { .. } => Err(Self::unsupported(
                coll,
                name,
                "a bucket's own field outside a bucket collection",
            )),
        }
    }

    /// The document's `_id`: the table's one-column key, else an ObjectId
    /// made from the key's (or the row's) values, the same at every run.
    fn id(&self, ctx: Ctx<'_>, ty: &ShapeType) -> String {
        let a = ctx.alias;
        match Mapping::id_column(ctx.table) {
            Some(k) => {
                let sql = Self::column_type(ctx.table, k).unwrap_or("text");
                typed(&format!("{a}.{}", quote(k)), ty, sql)
            }
            None => {
                let cols = identity_columns(ctx.table, a);
                format!(
                    "json_build_object('$oid', substr(md5(concat_ws('|', {})), 1, 24))",
                    cols.join(", ")
                )
            }
        }
    }

    fn mark(&self, table: &Table, alias: &str) -> String {
        changed_mark(alias, table)
    }

    /// "A related row, or one of its own sources, changed": an EXISTS over
    /// the step's rows (and its linking rows).
    fn changed_through(&self, step: &StepSql<'_>, inner: &[String]) -> String {
        let mut any = vec![self.mark(step.other, &step.alias)];
        if let Some((j, link)) = &step.link {
            any.push(self.mark(link, j));
        }
        any.extend(inner.iter().cloned());
        format!(
            "EXISTS (SELECT 1 FROM {} WHERE {} = {} AND ({}))",
            step.inner_from,
            step.inner_key,
            step.outer_key,
            any.join(" OR ")
        )
    }

    /// The step from `ctx`'s row through `r`. For a relationship of a table
    /// with itself, `many` says which way: to the children (the parent's
    /// side) or to the parents.
    fn step(
        &self,
        coll: &str,
        ctx: Ctx<'_>,
        r: &Rel,
        many: bool,
    ) -> Result<StepSql<'a>, Unsupported> {
        let a = ctx.alias;
        let b = self.alias();
        let ns = self.namespace;
        let to_children = if r.parent == r.child {
            many
        } else if ctx.table.name == r.parent {
            true
        } else if ctx.table.name == r.child || (r.link.is_some() && ctx.table.name == r.table) {
            false
        } else {
            return Err(Self::unsupported(
                coll,
                &r.name,
                format!("{} is not on either side of {}", ctx.table.name, r.name),
            ));
        };
        if let Some((pcol, ccol, ckey)) = &r.link {
            let j = format!("{b}j");
            let link = self.table(coll, &r.table)?;
            let (other, from, inner_key, outer_key) = if to_children {
                let other = self.table(coll, &r.child)?;
                (
                    other,
                    format!(
                        "{} {j} JOIN {} {b} ON {b}.{} = {j}.{}",
                        qualified(ns, &r.table),
                        qualified(ns, &other.name),
                        quote(ckey),
                        quote(ccol)
                    ),
                    format!("{j}.{}", quote(pcol)),
                    format!("{a}.{}", quote(&r.parent_key)),
                )
            } else {
                let other = self.table(coll, &r.parent)?;
                (
                    other,
                    format!(
                        "{} {j} JOIN {} {b} ON {b}.{} = {j}.{}",
                        qualified(ns, &r.table),
                        qualified(ns, &other.name),
                        quote(&r.parent_key),
                        quote(pcol)
                    ),
                    format!("{j}.{}", quote(ccol)),
                    format!("{a}.{}", quote(ckey)),
                )
            };
            return Ok(StepSql {
                other,
                alias: b,
                inner_from: from,
                inner_key,
                outer_key,
                to_many: true,
                to_parent: false,
                link: Some((j, link)),
            });
        }
        if to_children {
            let other = self.table(coll, &r.child)?;
            Ok(StepSql {
                other,
                inner_from: format!("{} {b}", qualified(ns, &other.name)),
                inner_key: format!("{b}.{}", quote(&r.column)),
                outer_key: format!("{a}.{}", quote(&r.parent_key)),
                alias: b,
                to_many: r.kind != "one-to-one",
                to_parent: false,
                link: None,
            })
        } else {
            let other = self.table(coll, &r.parent)?;
            Ok(StepSql {
                other,
                inner_from: format!("{} {b}", qualified(ns, &other.name)),
                inner_key: format!("{b}.{}", quote(&r.parent_key)),
                outer_key: format!("{a}.{}", quote(&r.column)),
                alias: b,
                to_many: false,
                to_parent: true,
                link: None,
            })
        }
    }

    /// A reference or an embedding: the related rows' ids, or their
    /// documents, as one value or an array. `side` is the design's word on
    /// whose reference it is, for a table with itself: a user's array of
    /// followers goes to the parents, though it is an array.
    fn related(
        &self,
        coll: &str,
        ctx: Ctx<'_>,
        ty: &ShapeType,
        r: &Rel,
        embedded: bool,
        side: Option<Side>,
    ) -> Out {
        let many = matches!(ty, ShapeType::Array { .. });
        // The parent's id kept in the child is the child's own column.
        if !embedded
            && r.link.is_none()
            && ctx.table.name == r.child
            && matches!(ty, ShapeType::Scalar { .. })
        {
            let sql = Self::column_type(ctx.table, &r.column).unwrap_or("text");
            return Ok(Built {
                expr: typed(&format!("{}.{}", ctx.alias, quote(&r.column)), ty, sql),
                ..Built::default()
            });
        }
        let step = self.step(coll, ctx, r, side.map_or(many, |s| s == Side::Parent))?;
        let b = step.alias.clone();
        let j = step.link.as_ref().map(|(j, _)| j.clone());
        let inner = Ctx {
            table: step.other,
            alias: &b,
            reached_by: Some(&r.name),
            link: j.as_deref().map(|j| (r.name.as_str(), j)),
        };
        let item_ty = match ty {
            ShapeType::Array { items, .. } => items.as_ref(),
            one => one,
        };
        let item = match item_ty {
            ShapeType::Object { shape } => self.object(coll, inner, shape, None)?,
            scalar => Built {
                expr: self.id(inner, scalar),
                ..Built::default()
            },
        };
        // Arrival order: the key (all its columns), else the row's place;
        // the same order the split form reads child rows in.
        let key = bucket::arrival_columns(step.other)
            .iter()
            .map(|k| format!("{b}.{k}"))
            .collect::<Vec<_>>()
            .join(", ");
        let changed = vec![self.changed_through(&step, &item.changed)];
        let joins = item.joins.join(" ");
        if many {
            let d = self.alias();
            // A subset keeps the newest K per parent by its sort field.
            let (from, filter, order) = match self.subset(&r.name, step.other) {
                Some((sort, k)) if step.link.is_none() => (
                    format!(
                        "(SELECT *, row_number() OVER (PARTITION BY {col} ORDER BY {sort} DESC) AS squill_rn FROM {t}) {b}",
                        col = quote(&r.column),
                        t = qualified(self.namespace, &step.other.name)
                    ),
                    format!(" WHERE {b}.squill_rn <= {k}"),
                    format!("{b}.{sort} DESC"),
                ),
                _ => (step.inner_from.clone(), String::new(), key),
            };
            return Ok(Built {
                expr: format!("coalesce({d}.v, '[]'::json)"),
                joins: vec![format!(
                    "LEFT JOIN (SELECT {ik} AS k, json_agg({item} ORDER BY {order}) AS v FROM {from} {joins}{filter} GROUP BY {ik}) {d} ON {d}.k = {ok}",
                    ik = step.inner_key,
                    item = item.expr,
                    ok = step.outer_key,
                )],
                changed,
            });
        }
        if step.to_parent {
            // The parent is one row by its key: a plain join.
            let mut all = vec![format!(
                "LEFT JOIN {} ON {} = {}",
                step.inner_from, step.inner_key, step.outer_key
            )];
            all.extend(item.joins);
            return Ok(Built {
                expr: format!(
                    "CASE WHEN {} IS NULL THEN NULL ELSE {} END",
                    step.inner_key, item.expr
                ),
                joins: all,
                changed,
            });
        }
        // The one child of a one-to-one: the first, should there be more.
        let d = self.alias();
        Ok(Built {
            expr: format!("{d}.v"),
            joins: vec![format!(
                "LEFT JOIN LATERAL (SELECT {} AS v FROM {} {joins} WHERE {} = {} ORDER BY {key} LIMIT 1) {d} ON true",
                item.expr, step.inner_from, step.inner_key, step.outer_key
            )],
            changed,
        })
    }

    /// For a subset layout: the sort column (quoted) and K.
    fn subset(&self, relationship: &str, child: &Table) -> Option<(String, u64)> {
        subset_order(self.design, relationship, child).map(|(c, k)| (quote(&c), k))
    }
}

/// A value and what computing it needs.
#[derive(Debug, Default)]
struct Built {
    expr: String,
    /// Joins to append to the FROM of the row it is computed for.
    joins: Vec<String>,
    /// Conditions on that row under which the value changed.
    changed: Vec<String>,
}

/// One step through a relationship, as SQL: the related rows `alias` (and
/// the linking rows) in `inner_from`, tied to the row before by
/// `inner_key = outer_key`.
struct StepSql<'a> {
    other: &'a Table,
    alias: String,
    inner_from: String,
    inner_key: String,
    outer_key: String,
    to_many: bool,
    to_parent: bool,
    link: Option<(String, &'a Table)>,
}

fn function_sql(f: AggregateFn) -> &'static str {
    match f {
        AggregateFn::Count => "count",
        AggregateFn::Sum => "sum",
        AggregateFn::Avg => "avg",
        AggregateFn::Min => "min",
        AggregateFn::Max => "max",
        AggregateFn::First => "first",
        AggregateFn::Last => "last",
    }
}

/// The linking table's column an attribute of the model comes from: its
/// own name, or with the table's name in front when that was added to tell
/// it from a side's field (`film_actor_last_update`).
pub fn attribute_column(r: &Rel, field: &str) -> String {
    if r.attributes.iter().any(|a| a == field) {
        return field.to_string();
    }
    field
        .strip_prefix(&format!("{}_", r.table))
        .filter(|a| r.attributes.iter().any(|x| x == a))
        .unwrap_or(field)
        .to_string()
}

/// A column reference as the JSON value the design's type wants.
fn typed(column: &str, ty: &ShapeType, sql_type: &str) -> String {
    let sql = sql_type.to_ascii_lowercase();
    let ShapeType::Scalar { bson_type, .. } = ty else {
        // Arrays and sub-documents held in one column (arrays, json).
        return format!("to_json({column})");
    };
    // Extended JSON wrappers as text cast to json: about twice as fast on
    // the server as json_build_object and to_char (BENCHMARKS.md, session
    // 21); a null column makes the whole text null, which is dropped.
    let wrap = |key: &str, text: String| format!("('{{\"{key}\":\"' || {text} || '\"}}')::json");
    match bson_type.as_str() {
        "int" if sql.starts_with("bool") => format!("({column})::int"),
        "int" | "string" if sql.contains("[]") => format!("to_json({column})"),
        "int" => column.to_string(),
        "long" => wrap("$numberLong", format!("({column})::int8::text")),
        "double" => wrap("$numberDouble", format!("({column})::float8::text")),
        "decimal" => wrap("$numberDecimal", format!("({column})::numeric::text")),
        "date" => {
            let ts = if sql.starts_with("time") && !sql.starts_with("timestamp") {
                format!("('2000-01-01'::date + {column})")
            } else {
                format!("({column})::timestamp")
            };
            // Milliseconds since the epoch (the session is in UTC).
            format!(
                "('{{\"$date\":{{\"$numberLong\":\"' || floor(extract(epoch FROM {ts}) * 1000)::int8::text || '\"}}}}')::json"
            )
        }
        "bool" if !sql.starts_with("bool") => format!("(({column}) <> 0)"),
        "bool" => column.to_string(),
        "binData" => format!(
            "('{{\"$binary\":{{\"base64\":\"' || translate(encode({column}, 'base64'), E'\\n', '') || '\",\"subType\":\"00\"}}}}')::json"
        ),
        "object" => format!("({column})::json"),
        "objectId" => wrap("$oid", format!("({column})::text")),
        "string" => format!("({column})::text"),
        _ => format!("to_json({column})"),
    }
}

/// The columns that tell a row of `table` (aliased `alias`) from the others,
/// quoted: its primary key, or every column when it has none. A document
/// built from such a row takes its `_id` from them.
pub(crate) fn identity_columns(table: &Table, alias: &str) -> Vec<String> {
    if table.primary_key.is_empty() {
        table
            .columns
            .iter()
            .map(|c| format!("{alias}.{}", quote(&c.name)))
            .collect()
    } else {
        table
            .primary_key
            .iter()
            .map(|c| format!("{alias}.{}", quote(c)))
            .collect()
    }
}

/// For relationship `relationship` kept as a subset: the column of `child`
/// its K children are chosen by (unquoted; the key when the subset sorts
/// by `_id` or by nothing) and K. `None` for any other layout.
pub(crate) fn subset_order(
    design: &Design,
    relationship: &str,
    child: &Table,
) -> Option<(String, u64)> {
    let decision = design
        .relationships
        .iter()
        .find(|d| d.relationship == relationship)?;
    let Layout::Subset { k, sort_field, .. } = &decision.chosen else {
        return None;
    };
    let column = match sort_field.as_deref() {
        Some(f) if f != "_id" => f.to_string(),
        _ => Mapping::id_column(child)?.to_string(),
    };
    Some((column, *k))
}
