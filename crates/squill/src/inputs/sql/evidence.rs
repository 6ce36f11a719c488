//! What a live database measured about a schema (`squill import
//! postgres://…`): the figures that replace the DDL import's assumptions.
//! Plain data, so the model writer (`map`) stays free of any driver.

use rustc_hash::FxHashMap;

/// Measurements of one database, keyed by table and column names as the
/// catalog spells them.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// Where it was measured, without credentials (`127.0.0.1:5432/sakila`).
    pub source: String,
    /// Rows per table.
    pub counts: FxHashMap<String, u64>,
    /// Per (table, column): width and null fraction from the planner's
    /// statistics.
    pub columns: FxHashMap<(String, String), ColumnStats>,
    /// Children per parent of a relationship, keyed by the relationship's
    /// (table, column) as `map::Rel` has them (a many-to-many: its linking
    /// table and the column to the parent).
    pub children: FxHashMap<(String, String), Spread>,
    /// Parents per child, for a many-to-many (same key); for a one-to-many
    /// whose reference is sometimes null, `min` is 0.
    pub parents: FxHashMap<(String, String), Spread>,
    /// Of an inferred reference (same key): values tested, values that match
    /// a key of the parent.
    pub matched: FxHashMap<(String, String), (u64, u64)>,
    /// The `operations:` section, one YAML line per entry (indented by two
    /// spaces), from the statements the database ran.
    pub operations: Vec<String>,
    /// Rows inserted per second per table, from the workload measured: a
    /// relationship whose children keep arriving has no maximum, whatever
    /// the largest parent holds today.
    pub inserts: FxHashMap<String, f64>,
}

/// Planner statistics of a column (`pg_stats`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnStats {
    /// Average stored width in bytes, as the planner reports it.
    pub avg_width: u32,
    /// Share of rows where the column is null.
    pub null_frac: f64,
    /// Distinct values: a count when positive, minus a share of the rows
    /// when negative (PostgreSQL's convention), unknown at 0.
    pub n_distinct: f64,
}

impl ColumnStats {
    /// Distinct values among `rows`, when known.
    pub fn distinct(&self, rows: u64) -> Option<u64> {
        let d = if self.n_distinct > 0.0 {
            self.n_distinct
        } else if self.n_distinct < 0.0 {
            -self.n_distinct * rows as f64
        } else {
            return None;
        };
        let d = d.round() as u64;
        (d >= 1).then_some(d.min(rows))
    }
}

/// A measured distribution of children per parent (or parents per child).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spread {
    pub min: u64,
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
    pub max: u64,
    /// Parents measured.
    pub over: u64,
    /// Whether `over` is a sample of the parents rather than all of them.
    pub sampled: bool,
}

impl Spread {
    /// The model's cardinality map: `{min: 0, typical: 3, p95: 9, p99: 14, max: 40}`.
    pub fn yaml(&self) -> String {
        self.yaml_growing(None)
    }

    /// The same, for children that keep arriving at `growth` per parent per
    /// day: no maximum but the growth.
    pub fn yaml_growing(&self, growth: Option<f64>) -> String {
        let typical = self.p50.max(self.min);
        let p95 = self.p95.max(typical);
        let p99 = self.p99.max(p95);
        let max = self.max.max(p99);
        match growth {
            Some(g) => format!(
                "{{min: {}, typical: {typical}, p95: {p95}, p99: {p99}, max: unbounded, growth_per_day: {}}}",
                self.min,
                crate::words::num(g).replace(',', "")
            ),
            None => format!(
                "{{min: {}, typical: {typical}, p95: {p95}, p99: {p99}, max: {max}}}",
                self.min
            ),
        }
    }

    /// Says how it was measured, for the comment beside it.
    pub fn how(&self) -> String {
        format!(
            "measured over {} {}parents",
            crate::words::int(self.over),
            if self.sampled { "sampled " } else { "" }
        )
    }
}
