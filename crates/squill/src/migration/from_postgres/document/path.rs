//! A tree's paths: for each node, the keys of the nodes from a root down
//! to itself, computed once per query by a recursive walk from the roots,
//! then read per document as the path of its own node or of the node it
//! references. Items are the nodes' ids, or objects with copies of their
//! fields, in the path's order.
//!
//! The walk starts at every node whose parent is null or missing (an
//! orphan is a root of what is left); the nodes of a cycle are reached
//! from no root and get no path.

use super::{Builder, Built, Ctx, Out, typed};
use crate::design::ShapeType;
use crate::inputs::postgres::connect::{qualified, quote};
use crate::inputs::sql::map::Mapping;

impl Builder<'_> {
    /// The path of `ctx`'s row in `tree`, or of the node it references
    /// through `via`, as the field `name` of type `ty`.
    pub(super) fn tree_path(
        &self,
        coll: &str,
        ctx: Ctx<'_>,
        name: &str,
        ty: &ShapeType,
        tree: &str,
        via: Option<&str>,
    ) -> Out {
        let t = self.rel(coll, tree)?.clone();
        if t.parent != t.child || t.link.is_some() {
            return Err(Self::unsupported(
                coll,
                name,
                format!("{tree} is not a table's foreign key to itself"),
            ));
        }
        let nodes = self.table(coll, &t.child)?;
        let Some(key) = Mapping::id_column(nodes) else {
            return Err(Self::unsupported(
                coll,
                name,
                format!("{} has no one-column key to make paths of", nodes.name),
            ));
        };
        // The column of this row that names its node.
        let node_of_row = match via {
            None if ctx.table.name == nodes.name => format!("{}.{}", ctx.alias, quote(key)),
            Some(v) => {
                let r = self.rel(coll, v)?;
                if r.link.is_some() || r.child != ctx.table.name || r.parent != nodes.name {
                    return Err(Self::unsupported(
                        coll,
                        name,
                        format!(
                            "{v} does not lead from {} to a node of {tree}",
                            ctx.table.name
                        ),
                    ));
                }
                format!("{}.{}", ctx.alias, quote(&r.column))
            }
            None => {
                return Err(Self::unsupported(
                    coll,
                    name,
                    format!("{} is no node of {tree}", ctx.table.name),
                ));
            }
        };
        let table = qualified(self.namespace, &nodes.name);
        let (k, pcol) = (quote(key), quote(&t.column));
        let d = self.alias();
        let walk = format!(
            "LEFT JOIN (WITH RECURSIVE w(k, path) AS (\
             SELECT r.{k}, ARRAY[r.{k}] FROM {table} r \
             WHERE r.{pcol} IS NULL OR NOT EXISTS (SELECT 1 FROM {table} q WHERE q.{k} = r.{pcol}) \
             UNION ALL SELECT c.{k}, w.path || c.{k} FROM {table} c JOIN w ON c.{pcol} = w.k\
             ) SELECT k, path FROM w) {d} ON {d}.k = {node_of_row}"
        );
        let n = self.alias();
        let item_ty = match ty {
            ShapeType::Array { items, .. } => items.as_ref(),
            other => other,
        };
        let sql = Self::column_type(nodes, key).unwrap_or("integer");
        let (item, joins) = match item_ty {
            ShapeType::Object { shape } => {
                let inner = Ctx {
                    table: nodes,
                    alias: &n,
                    reached_by: Some(tree),
                    link: None,
                };
                let built = self.object(coll, inner, shape, None)?;
                (built.expr, built.joins.join(" "))
            }
            scalar => (typed(&format!("{n}.{k}"), scalar, sql), String::new()),
        };
        Ok(Built {
            expr: format!(
                "(SELECT json_agg({item} ORDER BY u.o) FROM unnest({d}.path) WITH ORDINALITY u(v, o) \
                 JOIN {table} {n} ON {n}.{k} = u.v {joins})"
            ),
            joins: vec![walk],
            // A node on the path renamed or moved.
            changed: vec![format!(
                "EXISTS (SELECT 1 FROM unnest({d}.path) u(v) JOIN {table} {n} ON {n}.{k} = u.v WHERE {})",
                self.mark(nodes, &n)
            )],
        })
    }
}
