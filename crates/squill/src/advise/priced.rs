//! What a chosen state costs: each operation's plan and the weighted totals.
//! `build` prices the state once and both the design and its reasons
//! (`reasons`) read the result, so it lives below them both.

use crate::candidates::facts::Facts;
use crate::candidates::placement::Placement;
use crate::candidates::space::Space;
use crate::costs::plan::{OpPlan, Planner};
use crate::design::Cost;

/// An index by collection, keys and partial conditions.
type IndexKey = (
    String,
    Vec<(String, i32)>,
    Vec<crate::design::PartialCondition>,
);

/// Weighted totals of a state, and each operation's plan.
pub(super) struct Priced {
    pub totals: Cost,
    pub plans: Vec<OpPlan>,
}

/// Each operation's plan for the report, and the weighted totals; `score`
/// is the search's own figure for the state (the evaluator has it: the
/// operations are not planned again for it).
pub(super) fn price(facts: &Facts<'_>, space: &Space, p: &Placement<'_>, score: f64) -> Priced {
    let planner = Planner { facts, space, p };
    let mut totals = Cost::default();
    let mut plans = Vec::new();
    let mut seen: Vec<IndexKey> = Vec::new();
    for op in facts.model.operation_ids() {
        let mut plan = planner.plan(op);
        plan.name_indexes();
        totals.add_scaled(&plan.cost, facts.model.operation(op).rate(facts.mix));
        // The steps' indexes, and the TTL index an insert of an expiring
        // entity carries (costs/plan/expiry.rs).
        // A partial index and a full one of the same keys are two
        // (`build` takes out a partial one that goes for a full one).
        let none = Vec::new();
        let ttl = plan
            .expiry
            .as_ref()
            .map(|t| (&t.collection, &t.keys, &none, t.held));
        let needs = plan
            .indexes
            .iter()
            .map(|n| (&n.collection, &n.keys, &n.partial, n.held))
            .chain(ttl);
        for (coll, keys, partial, held) in needs {
            let key = (coll.clone(), keys.clone(), partial.clone());
            if !seen.contains(&key) {
                seen.push(key);
                totals.index_entries += held;
            }
        }
        plans.push(plan);
    }
    totals.score = score;
    Priced { totals, plans }
}
