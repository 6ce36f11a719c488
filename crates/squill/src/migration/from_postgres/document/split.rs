//! Arrays of child rows read as typed rows beside their parent's row.
//!
//! `json_agg` per parent made PostgreSQL build a JSON value per child and
//! per field: for Sakila's customers with their payments, half of the
//! server's time (BENCHMARKS.md, session 21). When every item of a
//! top-level array is a child row's own columns (or the child's id alone),
//! a full run reads the children as typed rows instead, in one stream with
//! the parents: `UNION ALL` of the parent rows (tag 0) and each array's
//! child rows (tag i), ordered by the parent's key, then the tag, then the
//! child's key, so that a document's rows arrive together, its own first.
//! squill groups them (`migrate::stream`) and builds the arrays itself.
//!
//! A run of changes keeps the JSON form: there a document is selected by
//! whether any of its rows changed, which the grouped form cannot say per
//! child row.

use super::{Builder, Column, Ctx, Kind, Part, literal};
use crate::design::{FieldOrigin, ShapeType};
use crate::inputs::postgres::connect::{qualified, quote};
use crate::inputs::sql::ddl::Table;
use crate::inputs::sql::map::Rel;

/// One array of a document read as typed child rows.
#[derive(Debug, Clone)]
pub struct ArrayPart {
    /// The document's field.
    pub name: String,
    /// The item's fields, or one nameless column when the items are ids.
    pub columns: Vec<Column>,
    /// Whether items are bare values (ids), not objects.
    pub scalar: bool,
    exprs: Vec<String>,
    from: String,
    /// The child's reference to the parent.
    fk: String,
    /// The child rows' order within a parent, with each column's type.
    order: Vec<(String, String)>,
}

/// A full run's form of a collection with arrays read as rows.
#[derive(Debug, Clone)]
pub(super) struct Split {
    /// The parent's part, its rest without those arrays.
    pub root: Part,
    /// The parent's typed columns, then the arrays'.
    pub columns: Vec<Column>,
    pub arrays: Vec<ArrayPart>,
}

impl Kind {
    /// The SQL type of the column as it travels (for a typed NULL).
    fn sql_type(self) -> &'static str {
        match self {
            Kind::Int32 => "int4",
            Kind::Int64 => "int8",
            Kind::Double => "float8",
            Kind::Decimal | Kind::Str | Kind::ObjectIdHex => "text",
            Kind::Date => "timestamp",
            Kind::Bool => "bool",
            Kind::Binary => "bytea",
        }
    }
}

impl Builder<'_> {
    /// The array field `name` of type `ty` through `r`, from the row `ctx`,
    /// as typed child rows; `None` when some item field needs more than
    /// the child's own row (a copy from elsewhere, a nested array), or the
    /// relationship is no plain one-to-many from this row.
    pub(super) fn array_part(
        &self,
        coll: &str,
        ctx: Ctx<'_>,
        name: &str,
        ty: &ShapeType,
        r: &Rel,
    ) -> Option<ArrayPart> {
        let ShapeType::Array { items, .. } = ty else {
            return None;
        };
        if r.link.is_some()
            || r.parent == r.child
            || r.parent != ctx.table.name
            || r.kind == "one-to-one"
            || self.subset(&r.name, ctx.table).is_some()
        {
            return None;
        }
        let child = self.table(coll, &r.child).ok()?;
        let c = self.alias();
        let cctx = Ctx {
            table: child,
            alias: &c,
            reached_by: Some(&r.name),
            link: None,
        };
        let (columns, exprs, scalar) = match items.as_ref() {
            item @ ShapeType::Scalar { .. } => {
                let (e, kind) = self.typed_column(cctx, item, &FieldOrigin::Id)?;
                (
                    vec![Column {
                        name: String::new(),
                        kind,
                    }],
                    vec![e],
                    true,
                )
            }
            ShapeType::Object { shape } => {
                let mut columns = Vec::new();
                let mut exprs = Vec::new();
                for f in &shape.fields {
                    let origin = match &f.origin {
                        FieldOrigin::Reference { relationship, .. } if *relationship == r.name => {
                            FieldOrigin::Id
                        }
                        FieldOrigin::Copy { entity, field, .. }
                        | FieldOrigin::Own { entity, field }
                            if *entity == child.name =>
                        {
                            FieldOrigin::Own {
                                entity: entity.clone(),
                                field: field.clone(),
                            }
                        }
                        FieldOrigin::Id | FieldOrigin::Reference { .. } => f.origin.clone(),
                        _ => return None,
                    };
                    let (e, kind) = self.typed_column(cctx, &f.ty, &origin)?;
                    columns.push(Column {
                        name: f.name.clone(),
                        kind,
                    });
                    exprs.push(e);
                }
                (columns, exprs, false)
            }
            ShapeType::Array { .. } => return None,
        };
        let order = order_columns(child, &c);
        Some(ArrayPart {
            name: name.to_string(),
            columns,
            scalar,
            exprs,
            from: format!("{} {c}", qualified(self.namespace, &child.name)),
            fk: format!("{c}.{}", quote(&r.column)),
            order,
        })
    }
}

/// The columns that order a table's rows by arrival (its key, else its
/// place in the table), over alias `a`, each with its SQL type.
fn order_columns(table: &Table, a: &str) -> Vec<(String, String)> {
    if table.primary_key.is_empty() {
        return vec![(format!("{a}.ctid"), "tid".into())];
    }
    table
        .primary_key
        .iter()
        .map(|k| {
            let ty = table
                .columns
                .iter()
                .find(|c| &c.name == k)
                .map_or("text", |c| c.sql_type.as_str());
            (format!("{a}.{}", quote(k)), ty.to_string())
        })
        .collect()
}

impl Split {
    /// The query: the parent rows and every array's child rows, in
    /// document order, resumed after the parent key `after` (of SQL type
    /// `key_type`). Columns: tag, key as text, the parent's typed columns,
    /// each array's, the parent's JSON rest.
    pub(super) fn select(&self, after: Option<&str>, key_type: &str) -> String {
        // The parent's own typed columns come first in `columns`.
        let root_n = self.root.typed.len();
        let nulls = |cols: &[Column]| -> Vec<String> {
            cols.iter()
                .map(|c| format!("NULL::{}", c.kind.sql_type()))
                .collect()
        };
        let order_nulls = |a: &ArrayPart| -> Vec<String> {
            a.order.iter().map(|(_, t)| format!("NULL::{t}")).collect()
        };
        let after_cond = |expr: &str| after.map(|a| format!("{expr} > {}::{key_type}", literal(a)));
        // The parent's branch names the columns.
        let mut names = Vec::new();
        let mut root = vec![
            format!("({})::{key_type} AS o", self.root.key),
            "0::int2 AS tag".to_string(),
            format!("({})::text AS k", self.root.key),
        ];
        for (i, e) in self.root.typed.iter().enumerate() {
            root.push(format!("{e} AS c{i}"));
            names.push(format!("u.c{i}"));
        }
        let mut order_names = Vec::new();
        for (i, a) in self.arrays.iter().enumerate() {
            for (j, n) in nulls(&a.columns).into_iter().enumerate() {
                root.push(format!("{n} AS a{i}_{j}"));
                names.push(format!("u.a{i}_{j}"));
            }
            for (j, n) in order_nulls(a).into_iter().enumerate() {
                root.push(format!("{n} AS s{i}_{j}"));
                order_names.push(format!("u.s{i}_{j}"));
            }
        }
        root.push(format!("{} AS d", self.root.document));
        let mut branches = vec![format!(
            "SELECT {} FROM {}{}",
            root.join(", "),
            self.root.from,
            after_cond(&self.root.key)
                .map(|c| format!(" WHERE {c}"))
                .unwrap_or_default()
        )];
        for (i, a) in self.arrays.iter().enumerate() {
            let o = format!("({})::{key_type}", a.fk);
            let mut cols = vec![o.clone(), format!("{}::int2", i + 1), format!("{o}::text")];
            cols.extend(nulls(&self.columns[..root_n]));
            for (x, b) in self.arrays.iter().enumerate() {
                if x == i {
                    cols.extend(a.exprs.iter().cloned());
                } else {
                    cols.extend(nulls(&b.columns));
                }
                if x == i {
                    cols.extend(a.order.iter().map(|(e, _)| e.clone()));
                } else {
                    cols.extend(order_nulls(b));
                }
            }
            cols.push("NULL::json".into());
            let mut conditions = vec![format!("{} IS NOT NULL", a.fk)];
            conditions.extend(after_cond(&o));
            branches.push(format!(
                "SELECT {} FROM {} WHERE {}",
                cols.join(", "),
                a.from,
                conditions.join(" AND ")
            ));
        }
        let mut outer = vec!["u.tag".to_string(), "u.k".to_string()];
        outer.extend(names);
        outer.push("u.d".into());
        let mut by = vec!["u.o".to_string(), "u.tag".to_string()];
        by.extend(order_names);
        format!(
            "SELECT {} FROM ({}) u ORDER BY {}",
            outer.join(", "),
            branches.join(" UNION ALL "),
            by.join(", ")
        )
    }
}
