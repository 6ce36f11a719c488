//! The collector: takes entries from every file in turn, keeps one of a
//! write's two log entries, folds getMores, groups the rest by namespace and
//! shape, and counts unreadable lines; `finish` makes the report.

use super::entry::Op;
use super::problem::{Problem, Reason};
use super::report::{
    BucketWrites, ErrorCount, FileError, FileSummary, Latency, NameCount, NamespaceReport,
    Problems, ReasonCount, ShapeReport, Span, Totals, WorkloadReport,
};
use super::shape::Shape;
use super::shape_table::ShapeTable;
use super::stats::ShapeStats;
use super::timestamp::iso;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Unreadable lines kept with their place, per file and reason.
const EXAMPLES_PER_REASON: usize = 5;
/// Names of other commands kept; the rest are counted under `other`.
const MAX_COMMAND_NAMES: usize = 200;
/// Connections remembered between a write's WRITE and COMMAND entries.
const MAX_PENDING: usize = 10_000;

#[derive(Default)]
pub(super) struct Collector {
    shapes: FxHashMap<String, ShapeTable>,
    /// Per time-series collection (`db.X`): the writes to its buckets.
    buckets: FxHashMap<String, BucketWrites>,
    other_commands: FxHashMap<String, u64>,
    /// Per connection: the namespace of the write statements logged since
    /// its last command, waiting for that command's own entry.
    pending_writes: FxHashMap<String, String>,
    /// Per connection: a write command's entry seen before its statements'
    /// (the sample logs are not always in order).
    deferred: FxHashMap<String, Box<Op>>,
    totals: Totals,
    first: Option<i64>,
    last: Option<i64>,
    ctime: bool,
    problem_counts: BTreeMap<Reason, u64>,
    examples: Vec<Problem>,
    files: Vec<FileSummary>,
    errors: Vec<FileError>,
}

impl Collector {
    pub(super) fn add(&mut self, mut op: Box<Op>) {
        if let Some(t) = op.time {
            self.first = Some(self.first.map_or(t, |f| f.min(t)));
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
        }
        let Some(conn) = op.connection.take() else {
            self.count(op);
            return;
        };
        if self.pending_writes.len() >= MAX_PENDING {
            self.pending_writes.clear();
        }
        if self.deferred.len() >= MAX_PENDING {
            self.flush_deferred();
        }
        let deferred = self.deferred.remove(&conn);
        if op.write_statement {
            match deferred {
                // Its command's entry came first: the statement replaces it.
                Some(d) if d.ns == op.ns => self.totals.duplicate_write_commands += 1,
                other => {
                    if let Some(d) = other {
                        self.count(d);
                    }
                    self.pending_writes.insert(conn, op.ns.clone());
                }
            }
            self.count(op);
            return;
        }
        if let Some(d) = deferred {
            self.count(d);
        }
        let pending = self.pending_writes.remove(&conn);
        if op.write_command {
            if pending.is_some_and(|p| p == op.ns) {
                // The command entry of statements already counted.
                self.totals.duplicate_write_commands += 1;
                return;
            }
            // Its statements may still follow (lines out of order): wait
            // for them until the connection's next entry.
            self.deferred.insert(conn, op);
            return;
        }
        self.count(op);
    }

    /// Counts the write commands still waiting for statements that never came.
    fn flush_deferred(&mut self) {
        let mut waiting: Vec<(String, Box<Op>)> = self.deferred.drain().collect();
        waiting.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, op) in waiting {
            self.count(op);
        }
    }

    fn count(&mut self, mut op: Box<Op>) {
        let Some((shape, seen)) = op.shape.take() else {
            self.totals.other_commands += 1;
            let name = op.other_name.take().unwrap_or_default();
            let key = if self.other_commands.len() < MAX_COMMAND_NAMES
                || self.other_commands.contains_key(&name)
            {
                name
            } else {
                "other".to_string()
            };
            *self.other_commands.entry(key).or_default() += 1;
            return;
        };
        let (db, coll) = op.namespace();
        if let Some(series) = coll.strip_prefix("system.buckets.")
            && shape.kind.is_write()
            && !series.is_empty()
        {
            // mongod logs an insert into a time-series collection as the
            // write of a bucket document: the application's work, on `db.X`.
            let ns = format!("{db}.{series}");
            let ms = op.metrics.duration_ms.unwrap_or(0);
            let b = self.buckets.entry(ns).or_default();
            b.operations += 1;
            b.total_ms = b.total_ms.saturating_add(ms);
            b.max_ms = b.max_ms.max(ms);
            self.totals.bucket_writes += 1;
            return;
        }
        if matches!(db, "admin" | "local" | "config") || coll.starts_with("system.") {
            self.totals.internal_operations += 1;
            return;
        }
        self.totals.operations += 1;
        if op.folded_getmore {
            self.totals.folded_getmores += 1;
        }
        let ns = std::mem::take(&mut op.ns);
        self.shapes
            .entry(ns)
            .or_default()
            .entry(shape)
            .add(&op, seen);
    }

    pub(super) fn saw_ctime(&mut self) {
        self.ctime = true;
    }

    pub(super) fn problem(&mut self, file: &str, line: u64, reason: Reason) {
        self.record(file, line, None, reason);
    }

    /// A problem in a `.bson` file, at a byte offset.
    pub(super) fn problem_at(&mut self, file: &str, offset: u64, reason: Reason) {
        self.record(file, 0, Some(offset), reason);
    }

    fn record(&mut self, file: &str, line: u64, offset: Option<u64>, reason: Reason) {
        *self.problem_counts.entry(reason).or_default() += 1;
        let kept = self
            .examples
            .iter()
            .filter(|p| p.reason == reason && p.file == file)
            .count();
        if kept < EXAMPLES_PER_REASON {
            self.examples.push(Problem {
                file: file.to_string(),
                line,
                offset,
                reason,
            });
        }
    }

    pub(super) fn file(&mut self, summary: FileSummary) {
        self.totals.lines += summary.lines;
        self.files.push(summary);
    }

    pub(super) fn error(&mut self, path: &str, message: String) {
        self.errors.push(FileError {
            path: path.to_string(),
            message,
        });
    }

    pub(super) fn finish(mut self, show_values: bool) -> WorkloadReport {
        self.flush_deferred();
        let span = match (self.first, self.last) {
            (Some(first), Some(last)) => Some(Span {
                first: iso(first),
                last: iso(last),
                seconds: (last - first) as f64 / 1000.0,
                year_known: !self.ctime,
            }),
            _ => None,
        };
        let seconds = span.as_ref().map_or(0.0, |s| s.seconds);
        // Every operation's time: shapes kept or not, and bucket writes.
        let all_ms: u64 = self
            .shapes
            .values()
            .map(ShapeTable::total_ms)
            .chain(self.buckets.values().map(|b| b.total_ms))
            .fold(0, u64::saturating_add);
        for ns in self.buckets.keys() {
            if !self.shapes.contains_key(ns) {
                self.shapes.insert(ns.clone(), ShapeTable::default());
            }
        }
        let mut buckets = self.buckets;
        let mut namespaces: Vec<NamespaceReport> = self
            .shapes
            .into_iter()
            .map(|(ns, table)| {
                let (shapes, shapes_not_kept) = table.finish();
                let bucket_writes = buckets.remove(&ns).unwrap_or_default();
                let (database, collection) = ns
                    .split_once('.')
                    .map_or((ns.clone(), String::new()), |(d, c)| {
                        (d.to_string(), c.to_string())
                    });
                let mut shapes: Vec<ShapeReport> = shapes
                    .into_iter()
                    .map(|(shape, stats)| shape_report(shape, stats, seconds, all_ms, show_values))
                    .collect();
                shapes.sort_by(|a, b| {
                    b.total_ms
                        .cmp(&a.total_ms)
                        .then(b.count.cmp(&a.count))
                        .then_with(|| a.text.cmp(&b.text))
                });
                NamespaceReport {
                    operations: shapes.iter().map(|s| s.count + s.getmores).sum::<u64>()
                        + shapes_not_kept.operations
                        + bucket_writes.operations,
                    total_ms: shapes
                        .iter()
                        .map(|s| s.total_ms)
                        .fold(0, u64::saturating_add)
                        .saturating_add(shapes_not_kept.total_ms)
                        .saturating_add(bucket_writes.total_ms),
                    namespace: ns,
                    database,
                    collection,
                    shapes,
                    shapes_not_kept,
                    bucket_writes,
                }
            })
            .collect();
        namespaces.sort_by(|a, b| {
            b.total_ms
                .cmp(&a.total_ms)
                .then(b.operations.cmp(&a.operations))
                .then_with(|| a.namespace.cmp(&b.namespace))
        });
        // Ids by heat over the whole report: S1 is the hottest shape anywhere.
        let mut order: Vec<(u64, u64, usize, usize)> = Vec::new();
        for (n, ns) in namespaces.iter().enumerate() {
            for (s, shape) in ns.shapes.iter().enumerate() {
                order.push((shape.total_ms, shape.count, n, s));
            }
        }
        order.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(b.1.cmp(&a.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        for (rank, &(_, _, n, s)) in order.iter().enumerate() {
            namespaces[n].shapes[s].id = format!("S{}", rank + 1);
        }
        let mut other_commands: Vec<NameCount> = self
            .other_commands
            .into_iter()
            .map(|(name, count)| NameCount { name, count })
            .collect();
        other_commands.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        let mut totals = self.totals;
        totals.shapes = order.len() as u64;
        totals.namespaces = namespaces.len() as u64;
        totals.unreadable_lines = self.problem_counts.values().sum();
        totals.total_ms = all_ms;
        WorkloadReport {
            files: self.files,
            span,
            totals,
            namespaces,
            other_commands,
            problems: Problems {
                by_reason: self
                    .problem_counts
                    .into_iter()
                    .map(|(reason, count)| ReasonCount { reason, count })
                    .collect(),
                examples: self.examples,
            },
            errors: self.errors,
            findings: Vec::new(),
            suggested_indexes: Vec::new(),
            show_values,
        }
    }
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

fn shape_report(
    shape: Shape,
    s: ShapeStats,
    seconds: f64,
    all_ms: u64,
    show_values: bool,
) -> ShapeReport {
    let rate = (seconds > 0.0).then(|| s.count as f64 / seconds);
    let mut plans: Vec<NameCount> = s
        .plans
        .into_iter()
        .map(|(name, count)| NameCount { name, count })
        .collect();
    plans.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    if s.other_plans > 0 {
        plans.push(NameCount {
            name: "other".into(),
            count: s.other_plans,
        });
    }
    let mut errors: Vec<ErrorCount> = s
        .errors
        .into_iter()
        .map(|(code, count)| ErrorCount {
            code: Some(code),
            count,
        })
        .collect();
    errors.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(&b.code)));
    if s.other_errors > 0 {
        errors.push(ErrorCount {
            code: None,
            count: s.other_errors,
        });
    }
    ShapeReport {
        id: String::new(),
        text: shape.to_string(),
        shape,
        count: s.count,
        getmores: s.getmores,
        rate_per_second: rate,
        rate_per_hour: rate.map(|r| r * 3600.0),
        total_ms: s.total_ms,
        time_share: if all_ms > 0 {
            s.total_ms as f64 / all_ms as f64
        } else {
            0.0
        },
        latency_ms: Latency {
            p50: s.latency.quantile(0.5),
            p95: s.latency.quantile(0.95),
            max: s.latency.max(),
        },
        keys_examined: s.keys_examined,
        docs_examined: s.docs_examined,
        returned: s.returned,
        keys_examined_per_returned: ratio(s.keys_examined, s.returned),
        docs_examined_per_returned: ratio(s.docs_examined, s.returned),
        plans,
        in_memory_sorts: s.in_memory_sorts,
        errors,
        largest_in: s.largest_in,
        unanchored_regex: s.unanchored_regex,
        case_insensitive_regex: s.case_insensitive_regex,
        multi: s.multi,
        limit: s.limit,
        radius_m: s.radius_m,
        radius_flat: s.radius_flat,
        area_km2: s.area_km2,
        example: if show_values { s.example } else { None },
    }
}
