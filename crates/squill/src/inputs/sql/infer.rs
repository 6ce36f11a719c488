//! References no foreign key declares (MyISAM, legacy and benchmark
//! schemas): an integer column named after another table (`user_id`,
//! `region` for `regions`) or ending in another table's key column
//! (`source_u_id` → `useracct.u_id`). The tables that can be referenced are
//! indexed once, by name and by key column, so each column is looked up
//! in the index instead of compared with every table: 50,000 tables read
//! in about a second, not minutes (issue 40, item 18).

use super::ddl::{Column, Schema, Table};
use super::mapping::plural;
use rustc_hash::FxHashMap;

/// The tables a column may reference: a one-column integer key.
pub(super) struct Targets<'s> {
    schema: &'s Schema,
    /// Tables keyed by `id`, by name (the first of a name).
    by_name: FxHashMap<&'s str, usize>,
    /// Tables keyed by another column, by that column's name, in schema order.
    by_key: FxHashMap<&'s str, Vec<usize>>,
}

fn integer(c: &Column) -> bool {
    c.sql_type.contains("int") || c.sql_type.contains("serial")
}

impl<'s> Targets<'s> {
    pub(super) fn of(schema: &'s Schema) -> Targets<'s> {
        let mut by_name = FxHashMap::default();
        let mut by_key: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for (i, t) in schema.tables.iter().enumerate() {
            let [pk] = t.primary_key.as_slice() else {
                continue;
            };
            if !t.columns.iter().any(|c| &c.name == pk && integer(c)) {
                continue;
            }
            if pk == "id" {
                by_name.entry(t.name.as_str()).or_insert(i);
            } else {
                by_key.entry(pk.as_str()).or_default().push(i);
            }
        }
        Targets {
            schema,
            by_name,
            by_key,
        }
    }

    /// The table column `column` of `t` seems to reference, and why; the
    /// first such table in the schema's order.
    pub(super) fn target(&self, t: &Table, column: &Column) -> Option<(String, String)> {
        if !integer(column) {
            return None;
        }
        let name = column.name.as_str();
        // The candidates, as (index in the schema, found by the table's name).
        let mut found: Option<(usize, bool)> = None;
        let mut offer = |i: usize, by_table: bool| {
            let other = &self.schema.tables[i];
            // A table's own key is no reference to itself.
            if other.name == t.name && other.primary_key.first().map(String::as_str) == Some(name) {
                return;
            }
            if found.is_none_or(|(j, _)| i < j) {
                found = Some((i, by_table));
            }
        };
        // `user_id`, `from_user_id`, `region` (for `regions`): the column's
        // name ends with the table's, singular or plural.
        let stem = name.strip_suffix("_id").unwrap_or(name);
        let mut suffixes = vec![stem];
        suffixes.extend(stem.match_indices('_').map(|(i, _)| &stem[i + 1..]));
        for s in suffixes {
            // One thing, not a count or a list: `bids` in `nb_of_bids` is not a bid.
            let p = plural(s);
            if p == s {
                continue;
            }
            for n in [s, p.as_str()] {
                if let Some(&i) = self.by_name.get(n) {
                    offer(i, true);
                }
            }
        }
        // `u_id`, `source_u_id`: the column is the key, or ends with `_{key}`.
        let mut keys = vec![name];
        keys.extend(name.match_indices('_').map(|(i, _)| &name[i + 1..]));
        for k in keys {
            for &i in self.by_key.get(k).into_iter().flatten() {
                offer(i, false);
            }
        }
        let (i, by_table) = found?;
        let other = &self.schema.tables[i];
        let pk = other.primary_key.first().map_or("id", String::as_str);
        Some((
            other.name.clone(),
            format!(
                "inferred: no foreign key declared; `{}.{name}` is an integer named after {} (`{}.{pk}`); the live import measures whether its values match",
                t.name,
                if by_table { "the table" } else { "its key" },
                other.name
            ),
        ))
    }
}
