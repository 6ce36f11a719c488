//! A bucket collection as one query: the child rows grouped by their
//! parent and by the bucket they fall in (a page of a fixed number of
//! children in key order, or the time unit of a date column), each group
//! one document with its key, its count, the aggregates the design keeps
//! and the children as an array. The `_id` is an ObjectId made from the
//! parent's id and the bucket's key, so a later run upserts the same
//! document.

use super::{Buckets, Builder, CollectionQuery, Ctx, Group, Part, typed};
use crate::design::{BucketBy, BucketPart, Collection, FieldOrigin, Layout, Shape, ShapeType};
use crate::inputs::postgres::connect::{qualified, quote};
use crate::inputs::sql::ddl::Table;
use crate::model::AggregateFn;

/// Where `select` puts the group's "changed" column, when it asks for one.
pub(super) const GROUP_CHANGED: &str = "⟪changed⟫";

impl Builder<'_> {
    /// The query of `coll` when it holds buckets; `Ok(None)` otherwise.
    pub(super) fn bucket_collection(
        &self,
        coll: &Collection,
    ) -> Result<Option<CollectionQuery>, super::Unsupported> {
        if !coll
            .shape
            .fields
            .iter()
            .any(|f| matches!(f.origin, FieldOrigin::Bucket { .. }))
        {
            return Ok(None);
        }
        let c = coll.name.as_str();
        let Some((items_field, relationship)) =
            coll.shape.fields.iter().find_map(|f| match &f.origin {
                FieldOrigin::Embedded { relationship } => Some((f, relationship)),
                _ => None,
            })
        else {
            return Err(Self::unsupported(c, "", "a bucket without its children"));
        };
        let Some(Layout::Bucket { by, per_bucket, .. }) = self
            .design
            .relationships
            .iter()
            .find(|d| &d.relationship == relationship)
            .map(|d| &d.chosen)
        else {
            return Err(Self::unsupported(
                c,
                &items_field.name,
                format!("{relationship} is not bucketed in the design"),
            ));
        };
        let r = self.rel(c, relationship)?.clone();
        if r.link.is_some() {
            return Err(Self::unsupported(
                c,
                &items_field.name,
                "buckets of a many-to-many",
            ));
        }
        let child = self.table(c, &r.child)?;
        let a = self.alias();
        let g = self.alias();
        let fk = format!("{a}.{}", quote(&r.column));
        let arrival = arrival_columns(child);
        let order: Vec<String> = arrival.iter().map(|k| format!("{a}.{k}")).collect();
        let t = qualified(self.namespace, &child.name);
        let (bucket, bucket_sql) = match by {
            BucketBy::Count => {
                let within: Vec<String> = arrival.iter().map(|k| format!("s.{k}")).collect();
                (
                    format!(
                        "(row_number() OVER (PARTITION BY s.{} ORDER BY {}) - 1) / {per_bucket}",
                        quote(&r.column),
                        within.join(", ")
                    ),
                    "bigint",
                )
            }
            BucketBy::Time { field, unit } => {
                if Self::column_type(child, field).is_none() {
                    return Err(Self::unsupported(
                        c,
                        &items_field.name,
                        format!("{} has no column {field}", child.name),
                    ));
                }
                (
                    format!("date_trunc({}, s.{})", super::literal(unit), quote(field)),
                    "timestamp",
                )
            }
        };
        // The children: each row as its document in the array.
        let ctx = Ctx {
            table: child,
            alias: &a,
            reached_by: None,
            link: None,
        };
        let item_shape = match &items_field.ty {
            ShapeType::Array { items, .. } => match items.as_ref() {
                ShapeType::Object { shape } => shape.clone(),
                _ => Shape::default(),
            },
            _ => Shape::default(),
        };
        let item = self.object(c, ctx, &item_shape, Some(&child.name))?;
        let mut grouped = vec![
            format!("{fk} AS p"),
            format!("{a}.squill_bucket AS b"),
            "count(*) AS n".to_string(),
            format!(
                "json_agg({} ORDER BY {}) AS items",
                item.expr,
                order.join(", ")
            ),
        ];
        let mut fields = Vec::new();
        // The parent's reference and the bucket's key as text, `|` between:
        // the same at every run, and no bucket key holds a `|`.
        let id_hex = format!("substr(md5(concat_ws('|', {g}.p, {g}.b)), 1, 24)");
        for f in &coll.shape.fields {
            let value = match &f.origin {
                FieldOrigin::Id => format!("json_build_object('$oid', {id_hex})"),
                FieldOrigin::Reference {
                    relationship: x, ..
                } if *x == r.name => {
                    let sql = Self::column_type(child, &r.column).unwrap_or("text");
                    typed(&format!("{g}.p"), &f.ty, sql)
                }
                FieldOrigin::Bucket {
                    part: BucketPart::Page | BucketPart::Start,
                    ..
                } => typed(&format!("{g}.b"), &f.ty, bucket_sql),
                FieldOrigin::Bucket {
                    part: BucketPart::Count | BucketPart::Arrived,
                    ..
                } => typed(&format!("{g}.n"), &f.ty, "bigint"),
                FieldOrigin::Embedded { relationship: x } if *x == r.name => {
                    format!("{g}.items")
                }
                FieldOrigin::Computed {
                    function,
                    field: Some(x),
                    ..
                } => {
                    let column = format!("v{}", grouped.len());
                    grouped.push(format!(
                        "{} AS {column}",
                        aggregate(*function, &format!("{a}.{}", quote(x)), &order)
                    ));
                    let sql = match function {
                        AggregateFn::Count => "bigint",
                        AggregateFn::Avg => "double precision",
                        _ => Self::column_type(child, x).unwrap_or("numeric"),
                    };
                    typed(&format!("{g}.{column}"), &f.ty, sql)
                }
                _ => {
                    return Err(Self::unsupported(
                        c,
                        &f.name,
                        "a field of a bucket that is not its key, count, aggregates or children",
                    ));
                }
            };
            fields.push(format!("{value} AS {}", quote(&f.name)));
        }
        let mut from = format!(
            "(SELECT s.*, s.xmin AS xmin, s.ctid AS ctid, {bucket} AS squill_bucket FROM {t} s) {a}"
        );
        for j in &item.joins {
            from.push(' ');
            from.push_str(j);
        }
        let mut changed = vec![self.mark(child, &a)];
        changed.extend(item.changed);
        Ok(Some(CollectionQuery {
            collection: coll.name.clone(),
            key: None,
            tables: vec![child.name.clone()],
            columns: Vec::new(),
            parts: vec![Part {
                from: format!(
                    "(SELECT {} {GROUP_CHANGED}FROM {from} WHERE {fk} IS NOT NULL GROUP BY {fk}, {a}.squill_bucket) {g}",
                    grouped.join(", "),
                ),
                key: format!("json_build_array({g}.p::text, {id_hex})"),
                typed: Vec::new(),
                document: format!(
                    "(SELECT row_to_json(x) FROM (SELECT {}) x)",
                    fields.join(", ")
                ),
                changed,
                table: child.name.clone(),
                group: Some(Group {
                    alias: g.clone(),
                    by: fk.clone(),
                    parent: Buckets {
                        parent: r.parent.clone(),
                        parent_key: r.parent_key.clone(),
                    },
                }),
                root: None,
            }],
            split: None,
        }))
    }
}

/// The columns (quoted) that order a table's rows by arrival: its key,
/// else the row's place in the table.
pub(super) fn arrival_columns(table: &Table) -> Vec<String> {
    if table.primary_key.is_empty() {
        vec!["ctid".into()]
    } else {
        table.primary_key.iter().map(|k| quote(k)).collect()
    }
}

/// SQL for `function` of `value` over a group whose rows arrive in `order`.
pub(super) fn aggregate(function: AggregateFn, value: &str, order: &[String]) -> String {
    let desc: Vec<String> = order.iter().map(|o| format!("{o} DESC")).collect();
    match function {
        AggregateFn::Count => "count(*)".into(),
        AggregateFn::Sum => format!("sum({value})"),
        AggregateFn::Avg => format!("avg({value})"),
        AggregateFn::Min => format!("min({value})"),
        AggregateFn::Max => format!("max({value})"),
        AggregateFn::First => format!("(array_agg({value} ORDER BY {}))[1]", order.join(", ")),
        AggregateFn::Last => format!("(array_agg({value} ORDER BY {}))[1]", desc.join(", ")),
    }
}
