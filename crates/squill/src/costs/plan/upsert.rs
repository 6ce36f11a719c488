//! The upsert of a write with `otherwise: insert` ("add 3 of this sku to
//! the cart, or add the line"), on the plan its update made:
//! - in documents of its own, the update becomes one `updateOne(…,
//!   {upsert: true})`: the filter names the instance by its unique key, on
//!   the unique index, so of two callers adding the same key at once the
//!   second gets a duplicate key error (E11000), and the cookbook runs the
//!   write once more;
//! - embedded in its parent's array, the `$inc` through the positional `$`
//!   stays first; only when it matched nothing, a `$push` of the whole
//!   element guarded by `{array.key: {$ne: key}}` (two racing callers: one
//!   push matches, the other matches nothing); and only when that matched
//!   nothing too (a racer pushed it meanwhile), the `$inc` once more.
//!
//! Elsewhere (below an embedded parent, in buckets: the rule
//! `upsert-in-one-document` keeps the search from choosing those where it
//! can) the plan warns.

use super::*;

impl Planner<'_> {
    /// Makes the plan of `op`, an update, an upsert when its terms say
    /// `otherwise: insert`.
    pub(super) fn upsert(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        let o = model.operation(op);
        if !o.terms.upserts() {
            return;
        }
        let e = o.entity_in(model);
        let acc = self.access(e);
        let own = plan.steps.iter().position(|s| {
            s.collection == acc.collection && !s.fallback && s.action == Action::UpdateOne
        });
        let home = self.p.home[e.index()];
        match (home, own) {
            (Home::Own, Some(i)) => {
                plan.steps[i].action = Action::Upsert;
            }
            (
                Home::Embedded {
                    host, array: true, ..
                },
                Some(i),
            ) if host == self.p.root(e)
                && plan.steps[i]
                    .filter
                    .iter()
                    .any(|f| f.path.starts_with(&format!("{}.", acc.prefix))) =>
            {
                self.push_when_missing(plan, op, (i, e), &acc, o.terms.insert_share());
            }
            _ => plan.warnings.push(Warning::UpsertUnplanned {
                operation: o.name.clone(),
                entity: model.entity(e).name.clone(),
            }),
        }
    }

    /// After the `$inc` of the element at step `i`: the guarded `$push`
    /// of the whole element when it matched nothing, priced at the share of
    /// calls that add one (`every`), then the `$inc` once more when the
    /// push matched nothing either (a racing caller pushed the element
    /// first; rare, so not priced).
    fn push_when_missing(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (i, e): (usize, EntityId),
        acc: &Access,
        share: f64,
    ) {
        let inc = plan.steps[i].clone();
        let inside = format!("{}.", acc.prefix);
        // The same filter, each test of the element's key now "held by no
        // element": only the first of two racing pushes matches.
        let filter: Vec<StepFilter> = inc
            .filter
            .iter()
            .map(|f| {
                let mut f = f.clone();
                // The key's tests; an expiring element's life test stays
                // (held by no live element: an expired one is skipped by
                // the `$inc` too).
                if f.path.starts_with(&inside) && f.value_from == ValueSource::Param {
                    f.value_from = ValueSource::NotHeld;
                }
                f
            })
            .collect();
        // The steps after the `$inc` (none in most plans) follow the two
        // added, and what they take from a step by its number moves too.
        let tail = plan.steps.split_off(i + 1);
        let (mut step, cost, index) = self.root_write(
            plan,
            RootWrite {
                entity: acc.root,
                action: Action::UpdateOne,
                filter,
                updates: vec![UpdateOp::Push {
                    path: acc.prefix.clone(),
                    sort: None,
                    slice: None,
                }],
                docs: 1.0,
                sync: 0.0,
                purpose: Purpose::AddInside {
                    entity: self.name(e).to_string(),
                    host: self.name(acc.root).to_string(),
                },
            },
        );
        step.fallback = true;
        if share < 1.0 {
            step.every = Some(super::insert::every_one_in(share));
        }
        self.push(plan, op, step, cost, index);
        let mut again = inc;
        again.fallback = true;
        again.every = None;
        plan.steps.push(again);
        for mut s in tail {
            shift_steps(&mut s, i + 1, 2);
            plan.steps.push(s);
        }
    }
}

/// Step numbers (1-based) after `after` in what `s` takes from earlier
/// steps, moved by `by`: two steps were put before them.
fn shift_steps(s: &mut Step, after: usize, by: usize) {
    let moved = |n: &mut usize| {
        if *n > after {
            *n += by;
        }
    };
    for f in &mut s.filter {
        match &mut f.value_from {
            ValueSource::FromStep { step } => moved(step),
            ValueSource::FromSteps { steps } => steps.iter_mut().for_each(moved),
            _ => {}
        }
    }
    if let Some(n) = &mut s.if_matched {
        moved(n);
    }
}
