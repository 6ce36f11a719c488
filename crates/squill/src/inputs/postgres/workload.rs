//! What the application runs, from the server's own counters: each
//! normalized statement of `pg_stat_statements` with its calls and rows,
//! and rows inserted, updated and deleted per table from
//! `pg_stat_user_tables`. Rates are over the time since the counters were
//! last reset, or the difference of two readings `observe` apart.

use super::connect::{LiveError, MARK, Target};
use crate::inputs::sql::statements::Observed;
use postgres::Client;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// One reading of the counters.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// Per statement id: text, calls, rows.
    pub statements: FxHashMap<i64, (String, i64, i64)>,
    /// Per table: rows inserted, updated, deleted.
    pub tables: FxHashMap<String, [i64; 3]>,
    /// Seconds the statement counters cover (since their reset).
    pub statements_seconds: f64,
    /// Seconds the table counters cover.
    pub tables_seconds: f64,
    /// Statements whose text the user may not see.
    pub hidden: usize,
    /// Whether `pg_stat_statements` is there to read.
    pub has_statements: bool,
}

/// Reads the counters once.
pub fn read(client: &mut Client, target: &Target, schema: &str) -> Result<Reading, LiveError> {
    let fail = |doing: &'static str| move |e: postgres::Error| target.classify(&e, doing);
    let mut r = Reading::default();
    for row in client
        .query(
            &format!(
                "{MARK} SELECT relname::text, n_tup_ins::int8, n_tup_upd::int8, n_tup_del::int8 FROM pg_stat_user_tables WHERE schemaname = $1"
            ),
            &[&schema],
        )
        .map_err(fail("reading pg_stat_user_tables"))?
    {
        r.tables
            .insert(row.get(0), [row.get(1), row.get(2), row.get(3)]);
    }
    let row = client
        .query_one(
            &format!(
                "{MARK} SELECT extract(epoch FROM now() - coalesce((SELECT stats_reset FROM pg_stat_database WHERE datname = current_database()), pg_postmaster_start_time()))::float8"
            ),
            &[],
        )
        .map_err(fail("reading when the statistics were reset"))?;
    r.tables_seconds = row.get(0);
    let ext = client
        .query_opt(
            &format!(
                "{MARK} SELECT n.nspname::text FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'"
            ),
            &[],
        )
        .map_err(fail("looking for pg_stat_statements"))?;
    let Some(ext) = ext else {
        return Ok(r);
    };
    let ns: String = ext.get(0);
    let ns = super::connect::quote(&ns);
    let rows = match client.query(
        &format!(
            "{MARK} SELECT coalesce(s.queryid, 0)::int8, s.query, s.calls::int8, s.rows::int8 FROM {ns}.pg_stat_statements s
             WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.toplevel"
        ),
        &[],
    ) {
        Ok(rows) => rows,
        // Created in the database but not loaded by the server.
        Err(e) if e.code().map(postgres::error::SqlState::code) == Some("55000") => return Ok(r),
        Err(e) => return Err(target.classify(&e, "reading pg_stat_statements")),
    };
    r.has_statements = true;
    for row in rows {
        let text: Option<String> = row.get(1);
        let Some(text) = text.filter(|t| !t.starts_with("<insufficient privilege>")) else {
            r.hidden += 1;
            continue;
        };
        if text.contains(MARK) {
            continue;
        }
        r.statements
            .insert(row.get(0), (text, row.get(2), row.get(3)));
    }
    let row = client
        .query_one(
            &format!(
                "{MARK} SELECT extract(epoch FROM now() - coalesce((SELECT stats_reset FROM {ns}.pg_stat_statements_info), pg_postmaster_start_time()))::float8"
            ),
            &[],
        )
        .map_err(fail("reading when pg_stat_statements was reset"))?;
    r.statements_seconds = row.get(0);
    Ok(r)
}

/// Two readings `observe` apart: the second, less the first, over the
/// time between them.
pub fn observe(
    client: &mut Client,
    target: &Target,
    schema: &str,
    observe: Duration,
    mut progress: impl FnMut(Duration),
) -> Result<Reading, LiveError> {
    let first = read(client, target, schema)?;
    let start = Instant::now();
    while start.elapsed() < observe {
        std::thread::sleep(Duration::from_secs(1).min(observe.saturating_sub(start.elapsed())));
        progress(start.elapsed());
    }
    let mut second = read(client, target, schema)?;
    let seconds = start.elapsed().as_secs_f64();
    second.statements.retain(|id, (_, calls, rows)| {
        if let Some((_, c0, r0)) = first.statements.get(id) {
            *calls -= c0;
            *rows -= r0;
        }
        *calls > 0
    });
    for (table, n) in &mut second.tables {
        if let Some(n0) = first.tables.get(table) {
            for i in 0..3 {
                n[i] -= n0[i];
            }
        }
    }
    second.statements_seconds = seconds;
    second.tables_seconds = seconds;
    Ok(second)
}

impl Reading {
    /// The statements as the translator takes them, busiest first.
    pub fn observed(&self) -> Vec<Observed> {
        let seconds = self.statements_seconds.max(1e-3);
        let mut out: Vec<Observed> = self
            .statements
            .values()
            .filter(|(_, calls, _)| *calls > 0)
            .map(|(text, calls, rows)| Observed {
                query: text.clone(),
                per_second: *calls as f64 / seconds,
                calls: *calls as u64,
                rows_per_call: *rows as f64 / *calls as f64,
            })
            .collect();
        out.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.query.cmp(&b.query)));
        out
    }
}
