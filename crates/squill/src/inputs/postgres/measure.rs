//! The figures DDL cannot know, measured in SQL: rows per table, children
//! per parent of each relationship (min, median, 95th and 99th
//! percentile, max), how many values of an inferred reference match a key,
//! and the planner's column statistics. Tables above the sample limit are
//! measured on a repeatable Bernoulli sample of their parents; the maximum
//! is then looked for over the whole child table, within the timeout.

use super::connect::{LiveError, MARK, Target, qualified, quote};
use crate::inputs::sql::ddl::Schema;
use crate::inputs::sql::evidence::{ColumnStats, Evidence, Spread};
use crate::inputs::sql::map::{Mapping, Rel};
use postgres::Client;

/// What is measured, and how far.
pub struct Measure<'a> {
    pub client: &'a mut Client,
    pub target: &'a Target,
    /// The namespace of the tables.
    pub schema: &'a str,
    /// Parents measured at most per relationship (a sample above).
    pub sample: u64,
}

impl Measure<'_> {
    fn fail(&self, doing: &str) -> impl Fn(postgres::Error) -> LiveError + '_ {
        let doing = doing.to_string();
        move |e| self.target.classify(&e, &doing)
    }

    /// Rows per table: `count(*)`, or the planner's estimate when counting
    /// takes longer than the timeout.
    pub fn counts(
        &mut self,
        schema: &Schema,
        into: &mut Evidence,
        notes: &mut Vec<String>,
    ) -> Result<(), LiveError> {
        for t in &schema.tables {
            let sql = format!(
                "{MARK} SELECT count(*)::int8 FROM {}",
                qualified(self.schema, &t.name)
            );
            let n: i64 = match self.client.query_one(&sql, &[]) {
                Ok(row) => row.get(0),
                Err(e) if e.code().map(postgres::error::SqlState::code) == Some("57014") => {
                    notes.push(format!(
                        "{}: counting took longer than the timeout; the planner's estimate is used",
                        t.name
                    ));
                    let row = self
                        .client
                        .query_one(
                            &format!(
                                "{MARK} SELECT greatest(c.reltuples, 0)::int8 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2"
                            ),
                            &[&self.schema, &t.name],
                        )
                        .map_err(self.fail("estimating a row count"))?;
                    row.get(0)
                }
                Err(e) => return Err(self.fail(&format!("counting the rows of {}", t.name))(e)),
            };
            into.counts.insert(t.name.clone(), n.max(0) as u64);
        }
        Ok(())
    }

    /// Column widths, null shares and distinct values from `pg_stats`.
    pub fn column_stats(&mut self, into: &mut Evidence) -> Result<usize, LiveError> {
        let rows = self
            .client
            .query(
                &format!(
                    "{MARK} SELECT tablename::text, attname::text, null_frac::float8, avg_width::int4, n_distinct::float8
                     FROM pg_stats WHERE schemaname = $1 AND NOT inherited"
                ),
                &[&self.schema],
            )
            .map_err(self.fail("reading pg_stats"))?;
        let n = rows.len();
        for row in rows {
            let width: i32 = row.get(3);
            into.columns.insert(
                (row.get(0), row.get(1)),
                ColumnStats {
                    null_frac: row.get(2),
                    avg_width: width.max(0) as u32,
                    n_distinct: row.get(4),
                },
            );
        }
        Ok(n)
    }

    /// The distribution of how many rows of `child` hold each key of
    /// `parent` in `column` (`parent_key` the parent's column), over the
    /// parents or a sample of them.
    fn spread(
        &mut self,
        parent: &str,
        parent_key: &str,
        child: &str,
        column: &str,
        parents: u64,
    ) -> Result<Spread, LiveError> {
        let sampled = parents > self.sample;
        let sample = if sampled {
            format!(
                " TABLESAMPLE BERNOULLI ({:.6}) REPEATABLE (42)",
                (100.0 * self.sample as f64 / parents as f64).min(100.0)
            )
        } else {
            String::new()
        };
        let sql = format!(
            "{MARK} WITH p AS (SELECT {pk} AS k FROM {ptable}{sample}),
                  n AS (SELECT count(c.{col}) AS n FROM p LEFT JOIN {ctable} c ON c.{col} = p.k GROUP BY p.k)
             SELECT coalesce(min(n), 0)::int8,
                    coalesce(percentile_disc(0.5) WITHIN GROUP (ORDER BY n), 0)::int8,
                    coalesce(percentile_disc(0.95) WITHIN GROUP (ORDER BY n), 0)::int8,
                    coalesce(percentile_disc(0.99) WITHIN GROUP (ORDER BY n), 0)::int8,
                    coalesce(max(n), 0)::int8, count(*)::int8
             FROM n",
            pk = quote(parent_key),
            col = quote(column),
            ptable = qualified(self.schema, parent),
            ctable = qualified(self.schema, child),
        );
        let row = self
            .client
            .query_one(&sql, &[])
            .map_err(self.fail(&format!("measuring {child}.{column} per {parent}")))?;
        let get = |i: usize| row.get::<_, i64>(i).max(0) as u64;
        let mut s = Spread {
            min: get(0),
            p50: get(1),
            p95: get(2),
            p99: get(3),
            max: get(4),
            over: get(5),
            sampled,
        };
        if sampled {
            // The largest parent is rare: look for it over the whole child table.
            let sql = format!(
                "{MARK} SELECT coalesce(max(n), 0)::int8 FROM (SELECT count(*) AS n FROM {} WHERE {col} IS NOT NULL GROUP BY {col}) m",
                qualified(self.schema, child),
                col = quote(column)
            );
            if let Ok(row) = self.client.query_one(&sql, &[]) {
                s.max = s.max.max(row.get::<_, i64>(0).max(0) as u64);
            }
        }
        Ok(s)
    }

    /// Rows of `table` whose `column` is null, among the first `sample`.
    fn nulls(&mut self, table: &str, column: &str) -> Result<Spread, LiveError> {
        let sql = format!(
            "{MARK} SELECT count(*)::int8, count(v)::int8 FROM (SELECT {col} AS v FROM {t} LIMIT {n}) s",
            col = quote(column),
            t = qualified(self.schema, table),
            n = self.sample
        );
        let row = self
            .client
            .query_one(&sql, &[])
            .map_err(self.fail(&format!("counting nulls of {table}.{column}")))?;
        let (all, set): (i64, i64) = (row.get(0), row.get(1));
        Ok(Spread {
            min: u64::from(set == all),
            p50: 1,
            p95: 1,
            p99: 1,
            max: 1,
            over: all.max(0) as u64,
            sampled: false,
        })
    }

    /// Of an inferred reference: how many values were tested, how many
    /// match a key of the parent.
    fn matches(&mut self, r: &Rel) -> Result<(u64, u64), LiveError> {
        let sql = format!(
            "{MARK} SELECT count(*)::int8, count(p.{pk})::int8
             FROM (SELECT {col} AS v FROM {c} WHERE {col} IS NOT NULL LIMIT {n}) s
             LEFT JOIN {p} p ON p.{pk} = s.v",
            pk = quote(&r.parent_key),
            col = quote(&r.column),
            c = qualified(self.schema, &r.child),
            p = qualified(self.schema, &r.parent),
            n = self.sample
        );
        let row = self
            .client
            .query_one(&sql, &[])
            .map_err(self.fail(&format!(
                "matching {}.{} against {}",
                r.child, r.column, r.parent
            )))?;
        Ok((
            row.get::<_, i64>(0).max(0) as u64,
            row.get::<_, i64>(1).max(0) as u64,
        ))
    }

    /// Measures every relationship of `mapping`; inferred ones whose values
    /// mostly match no key are returned to be dropped, with the reason.
    pub fn relationships(
        &mut self,
        mapping: &Mapping,
        into: &mut Evidence,
    ) -> Result<Vec<(usize, String)>, LiveError> {
        let mut dropped = Vec::new();
        for (i, r) in mapping.relationships.iter().enumerate() {
            let parents = into.counts.get(&r.parent).copied().unwrap_or(0);
            match &r.link {
                Some((pcol, ccol, ckey)) => {
                    let key = (r.table.clone(), pcol.clone());
                    let children =
                        self.spread(&r.parent, &r.parent_key, &r.table, pcol, parents)?;
                    let children_count = into.counts.get(&r.child).copied().unwrap_or(0);
                    let per_child = self.spread(&r.child, ckey, &r.table, ccol, children_count)?;
                    into.children.insert(key.clone(), children);
                    into.parents.insert(key, per_child);
                }
                None => {
                    let key = (r.table.clone(), r.column.clone());
                    if r.inferred {
                        let (tested, matched) = self.matches(r)?;
                        into.matched.insert(key.clone(), (tested, matched));
                        // A reference holds keys of its parent, nearly all of them.
                        if tested == 0 || (matched as f64) < 0.95 * tested as f64 {
                            dropped.push((
                                i,
                                format!(
                                    "{}.{} is no reference to {}: {} of {} values tested match its key",
                                    r.child, r.column, r.parent, matched, tested
                                ),
                            ));
                            continue;
                        }
                    }
                    let children =
                        self.spread(&r.parent, &r.parent_key, &r.child, &r.column, parents)?;
                    into.children.insert(key.clone(), children);
                    into.parents.insert(key, self.nulls(&r.child, &r.column)?);
                }
            }
        }
        Ok(dropped)
    }
}
