//! A write that moves what it finds out of its own selection (a sweep
//! that cancels the requests nobody accepted within 5 minutes, every
//! minute): priced at what a run finds once the backlog is gone, the
//! instances that arrived since the run before and are still in the
//! state it selects (`model::clears_own_selection`). Every matching
//! instance ever inserted was the price (audit48 A6: 6,888,000 rides a
//! run, 96% of the workload's documents examined), which only the first
//! run after deployment finds.

use super::*;

impl Planner<'_> {
    /// The instances a run of `op` on `e` finds in steady state: the
    /// inserts between two runs (`model::arrivals_per_run`) times the
    /// share of `e` in the state the write selects (its tests without
    /// their ages), at least one. `None` when `op` is no such write, or
    /// when that is not below `today`, what its filter matches now.
    pub(super) fn steady(&self, op: OperationId, e: EntityId, today: f64) -> Option<f64> {
        let model = self.facts.model;
        let o = model.operation(op);
        let arrivals = crate::model::arrivals_per_run(model, o, self.facts.mix)?;
        let share = self.selectivity(e, &crate::model::state_tests(model, o));
        let per_run = (arrivals * share).max(1.0);
        (per_run < today).then_some(per_run)
    }
}
