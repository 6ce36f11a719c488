//! A timeline collection (fan-out on write) filled from the tables: one
//! document per reader, with copies of the newest items (posts) of the
//! parents it follows, as many as the feed shows, in the feed's order —
//! what the application would have pushed had the timeline existed from
//! the start. Parents with more followers than the design's threshold are
//! outliers: their items are not copied, their ids go in `outliers`, and
//! the feed reads them at read time.
//!
//! The items are chosen set-wise (one window over follows joined to items,
//! keyed by the item's id) before any item document is built, so the
//! server builds `limit` documents per reader, not one per followed post,
//! and needs no index on the items' parent column.

use super::{Builder, Built, Ctx, Out, Unsupported, bucket, typed};
use crate::candidates::feed::feeds;
use crate::design::{EntityDecision, FieldOrigin, Shape, ShapeType};
use crate::inputs::postgres::connect::{qualified, quote};
use crate::inputs::sql::map::{Mapping, Rel};

/// What the design says of a timeline collection.
pub(super) struct TimelineOf<'d> {
    /// The entity with one timeline each (the reader).
    pub reader: &'d str,
    /// The feed operation the timeline serves.
    pub feed: &'d str,
    pub limit: u64,
    pub threshold: Option<u64>,
}

/// The tables and columns behind one feed: `edge` rows tie a follower
/// (`following` column) to a followed parent (`followed` column), whose
/// items are the `items` table's rows by its `parent` column.
struct FeedSql {
    edge: String,
    following: String,
    followed: String,
    items: Rel,
    /// The followed side's key in the parents' table (what `followed`
    /// holds), and the items' (what `items.column` holds): when they
    /// differ, the parents' table joins the two.
    followed_key: String,
    parents: String,
}

impl<'a> Builder<'a> {
    /// The timeline decision of `coll`, when it is a timeline collection.
    pub(super) fn timeline_of(&self, coll: &str) -> Option<TimelineOf<'a>> {
        self.design.entities.iter().find_map(|e| match e {
            EntityDecision::Timeline {
                collection,
                reader,
                feed,
                limit,
                threshold,
                ..
            } if collection == coll => Some(TimelineOf {
                reader,
                feed,
                limit: *limit,
                threshold: *threshold,
            }),
            _ => None,
        })
    }

    /// A timeline's `items` or `outliers` field of the reader's row `ctx`.
    pub(super) fn timeline_field(
        &self,
        c: &str,
        ctx: Ctx<'_>,
        name: &str,
        ty: &ShapeType,
        origin: &FieldOrigin,
    ) -> Out {
        let Some(t) = self.timeline_of(c) else {
            return Err(Self::unsupported(
                c,
                name,
                "a timeline's field outside its timeline collection",
            ));
        };
        let f = self.feed_sql(c, name, t.feed)?;
        let reader_key = match Mapping::id_column(ctx.table) {
            Some(k) => format!("{}.{}", ctx.alias, quote(k)),
            None => {
                return Err(Self::unsupported(
                    c,
                    name,
                    format!("{} has no one-column key to follow from", ctx.table.name),
                ));
            }
        };
        let ns = self.namespace;
        let edge_t = self.table(c, &f.edge)?;
        // Parents past the threshold: read at feed time, never copied.
        let outlier_set = t.threshold.map(|n| {
            format!(
                "(SELECT h.{fd} FROM {e} h WHERE h.{fd} IS NOT NULL GROUP BY h.{fd} HAVING count(*) > {n})",
                fd = quote(&f.followed),
                e = qualified(ns, &f.edge)
            )
        });
        let g = self.alias();
        let d = self.alias();
        let mut changed_edges = vec![self.mark(edge_t, &g)];
        let (expr, join) = match origin {
            FieldOrigin::Outliers { .. } => {
                let item_ty = match ty {
                    ShapeType::Array { items, .. } => items.as_ref(),
                    one => one,
                };
                let sql = Self::column_type(edge_t, &f.followed).unwrap_or("text");
                let only = match &outlier_set {
                    Some(set) => format!(" AND {g}.{} IN {set}", quote(&f.followed)),
                    // No threshold: every parent is pushed to, none is an outlier.
                    None => " AND false".into(),
                };
                (
                    format!("coalesce({d}.v, '[]'::json)"),
                    format!(
                        "LEFT JOIN (SELECT {g}.{fg} AS k, json_agg({v} ORDER BY {g}.{fd}) AS v FROM {e} {g} WHERE {g}.{fg} IS NOT NULL{only} GROUP BY {g}.{fg}) {d} ON {d}.k = {reader_key}",
                        fg = quote(&f.following),
                        fd = quote(&f.followed),
                        e = qualified(ns, &f.edge),
                        v = typed(&format!("{g}.{}", quote(&f.followed)), item_ty, sql),
                    ),
                )
            }
            _ => {
                let items_t = self.table(c, &f.items.child)?;
                let p = self.alias();
                let s = self.alias();
                let item_shape = match ty {
                    ShapeType::Array { items, .. } => match items.as_ref() {
                        ShapeType::Object { shape } => shape.clone(),
                        _ => Shape::default(),
                    },
                    _ => Shape::default(),
                };
                let item_ctx = Ctx {
                    table: items_t,
                    alias: &p,
                    reached_by: None,
                    link: None,
                };
                let item = self.object(c, item_ctx, &item_shape, None)?;
                let Some(item_key) = Mapping::id_column(items_t) else {
                    return Err(Self::unsupported(
                        c,
                        name,
                        format!("{} has no one-column key to copy items by", items_t.name),
                    ));
                };
                let order = self.feed_order(c, name, t.feed, items_t, &p)?;
                // The items of the followed parent of edge row `g`.
                let of_followed = if f.followed_key == f.items.parent_key {
                    format!(
                        "{p}.{} = {g}.{}",
                        quote(&f.items.column),
                        quote(&f.followed)
                    )
                } else {
                    let m = self.alias();
                    format!(
                        "{p}.{pc} = (SELECT {m}.{ik} FROM {pt} {m} WHERE {m}.{fk} = {g}.{fd})",
                        pc = quote(&f.items.column),
                        ik = quote(&f.items.parent_key),
                        pt = qualified(ns, &f.parents),
                        fk = quote(&f.followed_key),
                        fd = quote(&f.followed)
                    )
                };
                let it = qualified(ns, &items_t.name);
                let not_outlier = match &outlier_set {
                    Some(set) => format!(" AND {g}.{} NOT IN {set}", quote(&f.followed)),
                    None => String::new(),
                };
                // The newest `limit` items per reader by key, then their
                // documents: the window sorts keys, not documents.
                let chosen = format!(
                    "SELECT {g}.{fg} AS r, {p}.{ik} AS i, row_number() OVER (PARTITION BY {g}.{fg} ORDER BY {order}) AS n FROM {e} {g} JOIN {it} {p} ON {of_followed} WHERE {g}.{fg} IS NOT NULL{not_outlier}",
                    fg = quote(&f.following),
                    ik = quote(item_key),
                    e = qualified(ns, &f.edge),
                );
                let joins = item.joins.join(" ");
                let join = format!(
                    "LEFT JOIN (SELECT {s}.r AS k, json_agg({doc} ORDER BY {s}.n) AS v FROM ({chosen}) {s} JOIN {it} {p} ON {p}.{ik} = {s}.i {joins} WHERE {s}.n <= {limit} GROUP BY {s}.r) {d} ON {d}.k = {reader_key}",
                    doc = item.expr,
                    ik = quote(item_key),
                    limit = t.limit,
                );
                // A new or edited item of a followed parent changes the
                // timeline, as a new follow does. (Aliases are scoped: this
                // `p` is the condition's own.)
                let mut any = vec![self.mark(items_t, &p)];
                any.extend(item.changed.iter().cloned());
                changed_edges.push(format!(
                    "EXISTS (SELECT 1 FROM {it} {p} WHERE {of_followed} AND ({}))",
                    any.join(" OR ")
                ));
                (format!("coalesce({d}.v, '[]'::json)"), join)
            }
        };
        Ok(Built {
            expr,
            joins: vec![join],
            changed: vec![format!(
                "EXISTS (SELECT 1 FROM {e} {g} WHERE {g}.{fg} = {reader_key} AND ({}))",
                changed_edges.join(" OR "),
                e = qualified(ns, &f.edge),
                fg = quote(&f.following),
            )],
        })
    }

    /// The tables behind feed `feed`: its follows and its items.
    fn feed_sql(&self, coll: &str, field: &str, feed: &str) -> Result<FeedSql, Unsupported> {
        let m = self.model;
        let Some(found) = feeds(m)
            .into_iter()
            .find(|f| m.operation(f.operation).name == feed)
        else {
            return Err(Self::unsupported(
                coll,
                field,
                format!(
                    "`{feed}` is no feed of the model (a read of `parent.followers.following: eq`)"
                ),
            ));
        };
        let rel = |id| self.rel(coll, &m.relationship(id).name).cloned();
        let items = rel(found.items)?;
        let followers = rel(found.followers)?;
        let following = rel(found.following)?;
        if [&items, &followers, &following]
            .iter()
            .any(|r| r.link.is_some())
            || followers.child != following.child
        {
            return Err(Self::unsupported(
                coll,
                field,
                "a feed whose follows are not rows of one table with a foreign key to each side",
            ));
        }
        Ok(FeedSql {
            edge: followers.child.clone(),
            following: following.column.clone(),
            followed: followers.column.clone(),
            followed_key: followers.parent_key.clone(),
            parents: followers.parent.clone(),
            items,
        })
    }

    /// The feed's order over the items' alias `p` (newest first), with the
    /// items' key after it so that ties fall the same way at every run.
    fn feed_order(
        &self,
        coll: &str,
        field: &str,
        feed: &str,
        items: &crate::inputs::sql::ddl::Table,
        p: &str,
    ) -> Result<String, Unsupported> {
        let m = self.model;
        let sort = m
            .operation_ids()
            .map(|id| m.operation(id))
            .find(|o| o.name == feed)
            .and_then(|o| match &o.kind {
                crate::model::OperationKind::Read { sort, .. } => Some(sort.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let mut order = Vec::new();
        for k in &sort {
            let column = match k.field.as_str() {
                "_id" => Mapping::id_column(items).map(str::to_string),
                f => Self::column_type(items, f).map(|_| f.to_string()),
            };
            let Some(column) = column else {
                return Err(Self::unsupported(
                    coll,
                    field,
                    format!(
                        "the feed sorts by {}, which {} has no column for",
                        k.field, items.name
                    ),
                ));
            };
            let dir = if k.descending { " DESC" } else { "" };
            order.push(format!("{p}.{}{dir}", quote(&column)));
        }
        order.extend(
            bucket::arrival_columns(items)
                .iter()
                .map(|k| format!("{p}.{k} DESC")),
        );
        Ok(order.join(", "))
    }
}
