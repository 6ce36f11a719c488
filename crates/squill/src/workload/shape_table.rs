//! One namespace's shapes, at most `KEPT_SHAPES` of them reported. An
//! application that builds its filters from user input (a field per search
//! box, a key per tenant) logs a new shape with nearly every line: a
//! million lines made a million shapes, and the table grew until the
//! process was killed (issue 40, item 19). So when the table reaches twice
//! the cap, the heaviest `KEPT_SHAPES` (by time, then count) stay and the
//! others are folded into `Dropped`: their operations and time still count
//! in the namespace and the totals, their detail is gone. Pruning costs a
//! linear selection once every `KEPT_SHAPES` new shapes, so reading stays
//! linear in lines and memory bounded per namespace.

use super::shape::Shape;
use super::stats::ShapeStats;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Shapes reported per namespace; between prunings up to twice as many are
/// held.
pub const KEPT_SHAPES: usize = 10_000;

/// What the shapes folded away had done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Shapes folded away; a shape that came back after being dropped and was
    /// dropped again counts twice.
    pub shapes: u64,
    /// Their executions and folded getMores.
    pub operations: u64,
    pub total_ms: u64,
}

#[derive(Default)]
pub struct ShapeTable {
    shapes: FxHashMap<Shape, ShapeStats>,
    dropped: Dropped,
}

impl ShapeTable {
    /// The statistics of `shape`, new when it was not held.
    pub fn entry(&mut self, shape: Shape) -> &mut ShapeStats {
        if self.shapes.len() >= 2 * KEPT_SHAPES && !self.shapes.contains_key(&shape) {
            self.prune(KEPT_SHAPES);
        }
        self.shapes.entry(shape).or_default()
    }

    /// Keeps the `keep` heaviest shapes; folds the others into `dropped`.
    fn prune(&mut self, keep: usize) {
        if self.shapes.len() <= keep {
            return;
        }
        let mut all: Vec<(Shape, ShapeStats)> = self.shapes.drain().collect();
        // Heaviest first; ties by the shape itself, so the kept set does not
        // depend on the hash map's order.
        all.select_nth_unstable_by(keep, |a, b| {
            b.1.total_ms
                .cmp(&a.1.total_ms)
                .then(b.1.count.cmp(&a.1.count))
                .then_with(|| a.0.cmp(&b.0))
        });
        for (_, stats) in all.drain(keep..) {
            self.dropped.shapes += 1;
            self.dropped.operations += stats.count + stats.getmores;
            self.dropped.total_ms = self.dropped.total_ms.saturating_add(stats.total_ms);
        }
        self.shapes.extend(all);
    }

    /// Every time of every shape, dropped ones included.
    pub fn total_ms(&self) -> u64 {
        self.shapes
            .values()
            .map(|s| s.total_ms)
            .fold(self.dropped.total_ms, u64::saturating_add)
    }

    /// The shapes to report (at most `KEPT_SHAPES`) and what the others did.
    pub fn finish(mut self) -> (FxHashMap<Shape, ShapeStats>, Dropped) {
        self.prune(KEPT_SHAPES);
        (self.shapes, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::shape::{FieldUse, OpClass, OpKind};

    fn shape(i: usize) -> Shape {
        Shape {
            kind: OpKind::Find,
            filter: vec![FieldUse {
                path: format!("f{i}"),
                op: OpClass::Eq,
            }],
            or: false,
            sort: Vec::new(),
            projection: false,
            limit: false,
            stages: Vec::new(),
            update: Vec::new(),
            key: None,
        }
    }

    #[test]
    fn holds_at_most_twice_the_cap_and_reports_the_heaviest() {
        let mut table = ShapeTable::default();
        let n = 5 * KEPT_SHAPES + 7;
        for i in 0..n {
            let s = table.entry(shape(i));
            s.count += 1;
            // Every 100th shape is slow: those must survive every pruning.
            s.total_ms += if i % 100 == 0 { 1_000 } else { 1 };
            assert!(table.shapes.len() <= 2 * KEPT_SHAPES);
        }
        let (kept, dropped) = table.finish();
        assert_eq!(kept.len(), KEPT_SHAPES);
        assert_eq!(dropped.shapes as usize, n - KEPT_SHAPES);
        assert_eq!(dropped.operations as usize + kept.len(), n);
        let slow = kept.values().filter(|s| s.total_ms == 1_000).count();
        assert_eq!(slow, n.div_ceil(100));
        let all_ms: u64 = (0..n).map(|i| if i % 100 == 0 { 1_000 } else { 1 }).sum();
        let kept_ms: u64 = kept.values().map(|s| s.total_ms).sum();
        assert_eq!(kept_ms + dropped.total_ms, all_ms);
    }

    #[test]
    fn under_the_cap_nothing_is_dropped() {
        let mut table = ShapeTable::default();
        for i in 0..KEPT_SHAPES {
            table.entry(shape(i)).count += 1;
        }
        let (kept, dropped) = table.finish();
        assert_eq!(kept.len(), KEPT_SHAPES);
        assert_eq!(dropped, Dropped::default());
    }
}
