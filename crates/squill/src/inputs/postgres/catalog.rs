//! The tables of one schema read from PostgreSQL's catalog into the same
//! `Schema` the DDL reader builds, so both map to a model the same way:
//! columns with their declared types, primary and unique keys, foreign
//! keys, other indexes. Partitions and tables that inherit from another
//! are left out (their parent is the table, and counts its rows); so are
//! views.

use super::connect::{LiveError, MARK, Target};
use crate::inputs::sql::ddl::{Column, ForeignKey, Position, Schema, Table, check_values};
use postgres::Client;

/// Reads the tables of `schema` (a namespace such as `public`).
pub fn read(client: &mut Client, target: &Target, schema: &str) -> Result<Schema, LiveError> {
    let fail = |e: postgres::Error| target.classify(&e, "reading the catalog");
    let mut out = Schema::default();
    let tables = client
        .query(
            &format!(
                "{MARK} SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                   AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)
                 ORDER BY c.relname"
            ),
            &[&schema],
        )
        .map_err(fail)?;
    for row in tables {
        out.tables.push(Table {
            name: row.get(0),
            ..Table::default()
        });
    }
    // Looked up by name for every column and key below.
    out.reindex();
    let columns = client
        .query(
            &format!(
                "{MARK} SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                   ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = a.atttypid ORDER BY e.enumsortorder)
                 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                   AND a.attnum > 0 AND NOT a.attisdropped
                 ORDER BY c.relname, a.attnum"
            ),
            &[&schema],
        )
        .map_err(fail)?;
    for row in columns {
        let table: String = row.get(0);
        if let Some(t) = out.table_mut(&table) {
            t.columns.push(Column {
                name: row.get(1),
                sql_type: row.get(2),
                not_null: row.get(3),
                values: row.get(4),
            });
        }
    }
    // Keys: primary, unique and foreign, with their columns in key order.
    let keys = client
        .query(
            &format!(
                "{MARK} SELECT c.relname::text, con.contype::text,
                   ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
                         JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i),
                   f.relname::text, fn.nspname::text,
                   ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
                         JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i)
                 FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 LEFT JOIN pg_class f ON f.oid = con.confrelid
                 LEFT JOIN pg_namespace fn ON fn.oid = f.relnamespace
                 WHERE n.nspname = $1 AND con.contype IN ('p', 'u', 'f') AND NOT c.relispartition
                 ORDER BY c.relname, con.conname"
            ),
            &[&schema],
        )
        .map_err(fail)?;
    for row in keys {
        let table: String = row.get(0);
        let kind: String = row.get(1);
        let cols: Vec<String> = row.get(2);
        let Some(t) = out.table_mut(&table) else {
            continue;
        };
        match kind.as_str() {
            "p" => t.primary_key = cols,
            "u" => t.unique.push(cols),
            _ => {
                let parent: Option<String> = row.get(3);
                let parent_schema: Option<String> = row.get(4);
                let Some(parent) = parent else { continue };
                if parent_schema.as_deref() != Some(schema) {
                    // A table of another schema: not part of this model.
                    continue;
                }
                t.foreign_keys.push(ForeignKey {
                    columns: cols,
                    table: parent,
                    referred: row.get(5),
                    at: Position::default(),
                });
            }
        }
    }
    // Checks that hold a column to a list of values (`status IN (…)`), read
    // from their text with the DDL reader's parser.
    let checks = client
        .query(
            &format!(
                "{MARK} SELECT c.relname::text, pg_get_constraintdef(con.oid)
                 FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = $1 AND con.contype = 'c' AND NOT c.relispartition
                 ORDER BY c.relname, con.conname"
            ),
            &[&schema],
        )
        .map_err(fail)?;
    for row in checks {
        let table: String = row.get(0);
        let definition: String = row.get(1);
        if let Some((col, values)) = check_values(&definition)
            && let Some(c) = out
                .table_mut(&table)
                .and_then(|t| t.columns.iter_mut().find(|c| c.name == col))
            && c.values.is_empty()
        {
            c.values = values;
        }
    }
    // Indexes that are no constraint: unique ones are keys too, the others
    // hints of what the application searches by.
    let indexes = client
        .query(
            &format!(
                "{MARK} SELECT c.relname::text, i.indisunique,
                   ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)
                         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o),
                   i.indnatts::int4
                 FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = $1 AND NOT c.relispartition AND i.indpred IS NULL
                   AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid)
                 ORDER BY c.relname, i.indexrelid"
            ),
            &[&schema],
        )
        .map_err(fail)?;
    for row in indexes {
        let table: String = row.get(0);
        let unique: bool = row.get(1);
        let cols: Vec<String> = row.get(2);
        let width: i32 = row.get(3);
        // An index on an expression names fewer columns than it has.
        if cols.is_empty() || cols.len() != width as usize {
            continue;
        }
        if let Some(t) = out.table_mut(&table) {
            if unique {
                t.unique.push(cols);
            } else {
                t.indexes.push(cols);
            }
        }
    }
    Ok(out)
}
