//! The design's collections lowered to the plan the Spark job walks: per
//! collection, the tables it reads (each a JDBC read of typed columns) and
//! the document's field tree, whose nodes say where each value comes from
//! (a column of a read, a join to a parent, children grouped by their
//! reference and nested with `collect_list`, a count). The values are typed
//! in the read's SQL exactly as the native builder types them
//! (`from_postgres::document`), so that both engines write the same
//! documents; field order follows the native one too (typed top-level
//! columns first, arrays read as child rows last).
//!
//! Whatever the walk does not know how to build yet is refused by
//! collection, field and layout, never built differently.

use crate::design::{Collection, Design, FieldOrigin, Shape, ShapeType, Side};
use crate::inputs::postgres::connect::{literal, qualified, quote};
use crate::inputs::sql::ddl::{Schema, Table};
use crate::inputs::sql::map::{Mapping, Rel};
use crate::migration::from_postgres::document::attribute_column;
use crate::migration::from_postgres::{Builder, Unsupported};
use crate::model::AggregateFn;
use serde_json::{Value, json};

/// One JDBC read of a table: its typed columns, each `SQL AS alias`.
#[derive(Debug, Clone)]
struct Read {
    table: String,
    columns: Vec<(String, String)>,
    /// The column the read is split on (an integer key), as an alias.
    split: Option<String>,
    /// The table's columns, for the job's test of a change column.
    names: Vec<String>,
}

/// The plan of every collection, as JSON for the job.
pub fn plan(
    schema: &Schema,
    builder: &Builder<'_>,
    design: &Design,
    namespace: &str,
) -> Result<Value, Vec<Unsupported>> {
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for c in &design.collections {
        let mut l = Lower {
            schema,
            builder,
            design,
            namespace,
            coll: &c.name,
            reads: Vec::new(),
        };
        match l.collection(c) {
            Ok(v) => out.push(v),
            Err(u) => refused.push(u),
        }
    }
    if refused.is_empty() {
        Ok(Value::Array(out))
    } else {
        Err(refused)
    }
}

struct Lower<'a, 'b> {
    schema: &'a Schema,
    builder: &'a Builder<'b>,
    design: &'a Design,
    namespace: &'a str,
    coll: &'a str,
    reads: Vec<Read>,
}

/// Where a shape is filled from: a read of `table`, reached through
/// relationship `reached_by`, with the linking read of a many-to-many.
#[derive(Clone)]
struct Ctx<'t> {
    table: &'t Table,
    read: usize,
    reached_by: Option<String>,
    link: Option<(String, usize, &'t Table)>,
}

impl<'a> Lower<'a, '_> {
    fn refuse(&self, field: &str, why: impl Into<String>) -> Unsupported {
        Unsupported {
            collection: self.coll.to_string(),
            field: field.to_string(),
            why: why.into(),
        }
    }

    fn table(&self, name: &str) -> Result<&'a Table, Unsupported> {
        let table = match self.builder.link_of(name) {
            Some(r) if self.schema.table(name).is_none() => r.table.as_str(),
            _ => name,
        };
        self.schema
            .table(table)
            .ok_or_else(|| self.refuse("", format!("entity `{name}` is no table of the database")))
    }

    fn rel(&self, name: &str) -> Result<Rel, Unsupported> {
        self.builder.relationship(name).cloned().ok_or_else(|| {
            self.refuse(
                "",
                format!("relationship `{name}` is no foreign key or linking table of the database"),
            )
        })
    }

    /// A new read of `table`, split on its first key column when that is
    /// an integer.
    fn read(&mut self, table: &Table) -> usize {
        let i = self.reads.len();
        let mut read = Read {
            table: qualified(self.namespace, &table.name),
            columns: Vec::new(),
            split: None,
            names: table.columns.iter().map(|c| c.name.clone()).collect(),
        };
        if let Some(k) = table.primary_key.first()
            && column_type(table, k).is_some_and(is_integer)
        {
            read.split = Some(format!("r{i}c0"));
            read.columns
                .push((format!("(t.{})::int8", quote(k)), format!("r{i}c0")));
        }
        self.reads.push(read);
        i
    }

    /// `sql` (over the read's alias `t`) as a column of read `r`.
    fn column(&mut self, r: usize, sql: String) -> String {
        let read = &mut self.reads[r];
        if let Some((_, a)) = read.columns.iter().find(|(s, _)| *s == sql) {
            return a.clone();
        }
        let alias = format!("r{r}c{}", read.columns.len());
        read.columns.push((sql, alias.clone()));
        alias
    }

    /// A value node: `column` of `table` in read `r`, typed for `ty`.
    fn value(&mut self, r: usize, table: &Table, column: &str, ty: &ShapeType) -> Value {
        let sql = column_type(table, column).unwrap_or("text").to_string();
        let (expr, kind) = typed(&format!("t.{}", quote(column)), ty, &sql);
        let c = self.column(r, expr);
        json!({"t": "value", "c": c, "kind": kind})
    }

    fn collection(&mut self, c: &Collection) -> Result<Value, Unsupported> {
        let [entity] = c.entities.as_slice() else {
            return Err(self.refuse("", "a polymorphic collection (several entities in one collection) is not built by the Spark job yet"));
        };
        let layout_field = c.shape.fields.iter().find_map(|f| match &f.origin {
            FieldOrigin::Bucket { .. } => Some((f.name.as_str(), "bucket")),
            FieldOrigin::Timeline { .. } | FieldOrigin::Outliers { .. } => {
                Some((f.name.as_str(), "timeline"))
            }
            FieldOrigin::Path { .. } => Some((f.name.as_str(), "tree path")),
            _ => None,
        });
        if let Some((field, layout)) = layout_field {
            return Err(self.refuse(
                field,
                format!("the {layout} layout is not built by the Spark job yet"),
            ));
        }
        // The native builder's order: typed top-level columns first, arrays
        // read as child rows last (`from_postgres::document::split`).
        let native = self.builder.collection(c)?;
        let typed: Vec<&str> = native.columns.iter().map(|k| k.name.as_str()).collect();
        let split: Vec<&str> = native
            .arrays(None)
            .map(|(_, a)| a.iter().map(|p| p.name.as_str()).collect())
            .unwrap_or_default();
        let rank = |name: &str| {
            if typed.contains(&name) {
                0
            } else if split.contains(&name) {
                2
            } else {
                1
            }
        };
        let mut fields = c.shape.fields.clone();
        fields.sort_by_key(|f| rank(&f.name));
        let table = self.table(entity)?;
        let root = self.read(table);
        let ctx = Ctx {
            table,
            read: root,
            reached_by: None,
            link: None,
        };
        let doc = self.object(&ctx, &Shape { fields }, entity)?;
        let reads: Vec<Value> = self
            .reads
            .iter()
            .map(|r| {
                json!({
                    "table": r.table,
                    "columns": r.columns.iter().map(|(s, a)| json!([s, a])).collect::<Vec<_>>(),
                    "split": r.split,
                    "names": r.names,
                })
            })
            .collect();
        Ok(json!({"collection": c.name, "root": root, "reads": reads, "document": doc}))
    }

    fn object(&mut self, ctx: &Ctx<'a>, shape: &Shape, entity: &str) -> Result<Value, Unsupported> {
        let mut fields = Vec::new();
        for f in &shape.fields {
            let node = self.field(ctx, &f.name, &f.ty, &f.origin, entity)?;
            fields.push(json!([f.name, node]));
        }
        Ok(json!({"t": "object", "fields": fields}))
    }

    /// The document's `_id` of the row in `ctx`.
    fn id(&mut self, ctx: &Ctx<'a>, ty: &ShapeType) -> Value {
        if let Some(k) = Mapping::id_column(ctx.table) {
            return self.value(ctx.read, ctx.table, k, ty);
        }
        let cols = crate::migration::from_postgres::document::identity_columns(ctx.table, "t");
        let c = self.column(
            ctx.read,
            format!("substr(md5(concat_ws('|', {})), 1, 24)", cols.join(", ")),
        );
        json!({"t": "value", "c": c, "kind": "objectId"})
    }

    fn field(
        &mut self,
        ctx: &Ctx<'a>,
        name: &str,
        ty: &ShapeType,
        origin: &FieldOrigin,
        entity: &str,
    ) -> Result<Value, Unsupported> {
        match origin {
            FieldOrigin::Id => Ok(self.id(ctx, ty)),
            FieldOrigin::Own { field, entity } => {
                let column = match self.builder.link_of(entity) {
                    Some(r) => attribute_column(r, field),
                    None => field.clone(),
                };
                if column_type(ctx.table, &column).is_none() {
                    return Err(
                        self.refuse(name, format!("{} has no column {column}", ctx.table.name))
                    );
                }
                Ok(self.value(ctx.read, ctx.table, &column, ty))
            }
            FieldOrigin::Discriminator => {
                let c = self.column(ctx.read, format!("{}::text", literal(entity)));
                Ok(json!({"t": "value", "c": c, "kind": "string"}))
            }
            FieldOrigin::Attribute {
                relationship,
                field,
            } => {
                let r = self.rel(relationship)?;
                let Some((_, j, link)) = ctx.link.clone().filter(|(rel, _, _)| rel == relationship)
                else {
                    return Err(self.refuse(name, "an attribute outside its link"));
                };
                let column = attribute_column(&r, field);
                Ok(self.value(j, link, &column, ty))
            }
            FieldOrigin::Reference { relationship, .. }
                if ctx.reached_by.as_ref() == Some(relationship) =>
            {
                Ok(self.id(ctx, ty))
            }
            FieldOrigin::Reference { relationship, side } => {
                let r = self.rel(relationship)?;
                self.related(ctx, name, ty, &r, false, *side)
            }
            FieldOrigin::Embedded { relationship } => {
                let r = self.rel(relationship)?;
                self.related(ctx, name, ty, &r, true, None)
            }
            FieldOrigin::Copy {
                relationship,
                entity: from,
                field,
                ..
            } => {
                if &ctx.table.name == from {
                    let own = FieldOrigin::Own {
                        entity: from.clone(),
                        field: field.clone(),
                    };
                    return self.field(ctx, name, ty, &own, entity);
                }
                let r = self.rel(relationship)?;
                let step = self.step(ctx, name, &r, false)?;
                // The native migrate copies from the one child of a
                // one-to-one too; no design of the tests does, so the job
                // cannot be shown to build the same documents: refused.
                if !step.to_parent {
                    return Err(self.refuse(
                        name,
                        "a copy from a child row is not built by the Spark job yet",
                    ));
                }
                if column_type(step.other, field).is_none() {
                    return Err(self.refuse(name, format!("{from} has no column {field}")));
                }
                let item = self.value(step.read, step.other, field, ty);
                Ok(step.node("parent", item))
            }
            FieldOrigin::Computed {
                function,
                field,
                relationship,
                ..
            } => {
                let r = self.rel(relationship)?;
                let step = self.step(ctx, name, &r, true)?;
                if let (AggregateFn::First | AggregateFn::Last, Some(f)) = (function, field) {
                    return self.first_or_last(name, ty, &step, f, *function == AggregateFn::Last);
                }
                let (c, sql_type) = match (function, field) {
                    (AggregateFn::Count, _) => (Value::Null, "bigint".to_string()),
                    (AggregateFn::Sum | AggregateFn::Min | AggregateFn::Max, Some(f)) => {
                        let sql = column_type(step.other, f).unwrap_or("numeric").to_string();
                        let c = self.column(step.read, format!("t.{}", quote(f)));
                        (Value::String(c), sql)
                    }
                    // The native avg is PostgreSQL's, exact in numeric
                    // then rounded once; Spark's sums doubles in the
                    // order rows arrive, which can differ in the last bit.
                    _ => {
                        return Err(self.refuse(name, format!("a computed {function:?} is not built by the Spark job (Spark's floating-point sum depends on the order rows arrive in, so its value could differ from the native one in the last digit)")));
                    }
                };
                // The aggregate is computed by Spark on the raw column, then
                // typed as the native query types it.
                let (_, kind) = typed("v", ty, &sql_type);
                if kind == "json" || kind == "date" || kind == "decimal" {
                    return Err(self.refuse(name, format!("a computed {function:?} of a {sql_type} column is not built by the Spark job yet")));
                }
                let mut node = step.node("aggregate", Value::Null);
                node["fn"] = json!(format!("{function:?}").to_lowercase());
                node["c"] = c;
                node["kind"] = json!(kind);
                Ok(node)
            }
            FieldOrigin::Path { .. }
            | FieldOrigin::Timeline { .. }
            | FieldOrigin::Outliers { .. }
            | FieldOrigin::Bucket { .. } => {
                Err(self.refuse(name, "this layout is not built by the Spark job yet"))
            }
        }
    }

    /// A reference or an embedding: the related rows' ids or documents,
    /// one value or an array, as `from_postgres::document` builds them.
    fn related(
        &mut self,
        ctx: &Ctx<'a>,
        name: &str,
        ty: &ShapeType,
        r: &Rel,
        embedded: bool,
        side: Option<Side>,
    ) -> Result<Value, Unsupported> {
        let many = matches!(ty, ShapeType::Array { .. });
        if !embedded
            && r.link.is_none()
            && ctx.table.name == r.child
            && matches!(ty, ShapeType::Scalar { .. })
        {
            return Ok(self.value(ctx.read, ctx.table, &r.column, ty));
        }
        let step = self.step(ctx, name, r, side.map_or(many, |s| s == Side::Parent))?;
        let inner = Ctx {
            table: step.other,
            read: step.read,
            reached_by: Some(r.name.clone()),
            link: step
                .link
                .as_ref()
                .map(|(j, t, _, _)| (r.name.clone(), *j, *t)),
        };
        let item_ty = match ty {
            ShapeType::Array { items, .. } => items.as_ref(),
            one => one,
        };
        let item = match item_ty {
            ShapeType::Object { shape } => self.object(&inner, shape, &step.other.name)?,
            scalar => self.id(&inner, scalar),
        };
        if step.to_parent && !many {
            return Ok(step.node("parent", item));
        }
        // A subset's newest K first; one related row: the first.
        let (newest, limit) = match self
            .subset(&r.name, step.other)
            .filter(|_| step.link.is_none())
        {
            Some((sort, k)) => (Some(sort), json!(k)),
            None => (None, Value::Null),
        };
        let desc = newest.is_some();
        let (kind, limit) = if many {
            ("many", limit)
        } else {
            ("one", json!(1))
        };
        self.in_key_order(name, &step, kind, item, (newest, desc), limit)
    }

    /// A computed first or last value of `field` over the related rows, in
    /// their arrival order (the key), as the native `array_agg(… ORDER BY
    /// key)[1]`: the value of the first row of the sorted group (reversed
    /// for the last), null or not.
    fn first_or_last(
        &mut self,
        name: &str,
        ty: &ShapeType,
        step: &Step<'a>,
        field: &str,
        last: bool,
    ) -> Result<Value, Unsupported> {
        if column_type(step.other, field).is_none() {
            return Err(self.refuse(name, format!("{} has no column {field}", step.other.name)));
        }
        let item = self.value(step.read, step.other, field, ty);
        self.in_key_order(name, step, "one", item, (None, last), json!(1))
    }

    /// The node (`kind` "one" or "many") of `step`'s rows in their arrival
    /// order, the related table's key, as the native builder reads them
    /// (`first`: a column before the key, a subset's sort column; `desc`:
    /// reversed, a subset's newest or the last row first), at most `limit`
    /// rows. A table without a key is refused: a JDBC read does not keep
    /// the rows' place in the table.
    fn in_key_order(
        &mut self,
        name: &str,
        step: &Step<'a>,
        kind: &str,
        item: Value,
        (first, desc): (Option<String>, bool),
        limit: Value,
    ) -> Result<Value, Unsupported> {
        if step.other.primary_key.is_empty() {
            return Err(self.refuse(name, format!("{} has no primary key: its rows arrive in their place in the table, which a JDBC read does not keep", step.other.name)));
        }
        let mut order: Vec<String> = step
            .other
            .primary_key
            .iter()
            .map(|k| self.column(step.read, format!("t.{}", quote(k))))
            .collect();
        if let Some(sort) = first {
            order.insert(0, self.column(step.read, format!("t.{}", quote(&sort))));
        }
        let mut node = step.node(kind, item);
        node["order"] = json!(order);
        node["desc"] = json!(desc);
        node["limit"] = limit;
        Ok(node)
    }

    /// For a subset layout: the sort column and K.
    fn subset(&self, relationship: &str, child: &Table) -> Option<(String, u64)> {
        crate::migration::from_postgres::document::subset_order(self.design, relationship, child)
    }

    /// The step from `ctx`'s row through `r`, as `from_postgres` takes it.
    fn step(
        &mut self,
        ctx: &Ctx<'a>,
        name: &str,
        r: &Rel,
        many: bool,
    ) -> Result<Step<'a>, Unsupported> {
        let to_children = if r.parent == r.child {
            many
        } else if ctx.table.name == r.parent {
            true
        } else if ctx.table.name == r.child || (r.link.is_some() && ctx.table.name == r.table) {
            false
        } else {
            return Err(self.refuse(
                name,
                format!("{} is not on either side of {}", ctx.table.name, r.name),
            ));
        };
        let here = ctx.read;
        let outer = |l: &mut Self, col: &str| l.column(here, format!("t.{}", quote(col)));
        if let Some((pcol, ccol, ckey)) = &r.link {
            let link_table = self.table(&r.table)?;
            let other_name = if to_children { &r.child } else { &r.parent };
            let other = self.table(other_name)?;
            let (other_key, link_to_other, link_to_this, this_key) = if to_children {
                (
                    ckey.as_str(),
                    ccol.as_str(),
                    pcol.as_str(),
                    r.parent_key.as_str(),
                )
            } else {
                (
                    r.parent_key.as_str(),
                    pcol.as_str(),
                    ccol.as_str(),
                    ckey.as_str(),
                )
            };
            let o = self.read(other);
            let j = self.read(link_table);
            let ok = self.column(o, format!("t.{}", quote(other_key)));
            let jo = self.column(j, format!("t.{}", quote(link_to_other)));
            let inner = self.column(j, format!("t.{}", quote(link_to_this)));
            let outer_c = outer(self, this_key);
            return Ok(Step {
                other,
                read: o,
                link: Some((j, link_table, jo, ok)),
                inner,
                outer: outer_c,
                to_parent: false,
            });
        }
        let (other_name, inner_col, outer_col, to_parent) = if to_children {
            (&r.child, &r.column, &r.parent_key, false)
        } else {
            (&r.parent, &r.parent_key, &r.column, true)
        };
        let other = self.table(other_name)?;
        let o = self.read(other);
        let inner = self.column(o, format!("t.{}", quote(inner_col)));
        let outer_c = outer(self, outer_col);
        Ok(Step {
            other,
            read: o,
            link: None,
            inner,
            outer: outer_c,
            to_parent,
        })
    }
}

/// One step through a relationship: the rows of `other` in read `read`
/// (with the linking read, its column to `other` and `other`'s key), tied
/// to the row before by `inner = outer`.
struct Step<'t> {
    other: &'t Table,
    read: usize,
    link: Option<(usize, &'t Table, String, String)>,
    inner: String,
    outer: String,
    to_parent: bool,
}

impl Step<'_> {
    fn node(&self, t: &str, item: Value) -> Value {
        json!({
            "t": t,
            "read": self.read,
            "link": self.link.as_ref().map(|(j, _, jo, ok)| json!([j, jo, ok])),
            "inner": self.inner,
            "outer": self.outer,
            "item": item,
        })
    }
}

fn column_type<'t>(table: &'t Table, column: &str) -> Option<&'t str> {
    table
        .columns
        .iter()
        .find(|c| c.name == column)
        .map(|c| c.sql_type.as_str())
}

fn is_integer(sql: &str) -> bool {
    matches!(
        sql.to_ascii_lowercase().as_str(),
        "smallint"
            | "integer"
            | "bigint"
            | "int"
            | "int2"
            | "int4"
            | "int8"
            | "serial"
            | "bigserial"
            | "smallserial"
    )
}

/// A column as the SQL the job reads it by and the kind its value becomes
/// in BSON, after `from_postgres::document::typed`: the same casts, so
/// the same values.
fn typed(column: &str, ty: &ShapeType, sql_type: &str) -> (String, &'static str) {
    let sql = sql_type.to_ascii_lowercase();
    let ShapeType::Scalar { bson_type, .. } = ty else {
        return (format!("to_json({column})::text"), "json");
    };
    match bson_type.as_str() {
        "int" if sql.starts_with("bool") => (format!("({column})::int"), "int"),
        "int" | "string" if sql.contains("[]") => (format!("to_json({column})::text"), "json"),
        "int" if is_integer(&sql) => (format!("({column})::int8"), "int"),
        "int" => (format!("to_json({column})::text"), "json"),
        "long" => (format!("({column})::int8"), "long"),
        "double" => (format!("({column})::float8"), "double"),
        "decimal" => (format!("({column})::numeric::text"), "decimal"),
        "date" => {
            let ts = if sql.starts_with("time") && !sql.starts_with("timestamp") {
                format!("('2000-01-01'::date + {column})")
            } else {
                format!("({column})::timestamp")
            };
            (
                format!("floor(extract(epoch FROM {ts}) * 1000)::int8"),
                "date",
            )
        }
        "bool" if !sql.starts_with("bool") => (format!("(({column}) <> 0)"), "bool"),
        "bool" => (column.to_string(), "bool"),
        "binData" => (format!("({column})::bytea"), "binData"),
        "object" => (format!("({column})::json::text"), "json"),
        "objectId" => (format!("({column})::text"), "objectId"),
        "string" => (format!("({column})::text"), "string"),
        _ => (format!("to_json({column})::text"), "json"),
    }
}
