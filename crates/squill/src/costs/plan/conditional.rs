//! The terms a write states (issue 41): conditions tested on the current
//! document, amounts added (`$inc`), and claims. They are applied to the
//! plan the write's kind makes, on the step that writes the entity's own
//! document: the condition joins that step's filter, so the test and the
//! change are one single-document write (atomic, no transaction, no
//! window between a read and the write); a claim becomes one
//! `findOneAndUpdate` with its sort, on an index of the filter's equality
//! keys followed by the sort keys.

use super::*;
use crate::design::StepCondition;
use crate::model::Otherwise;

impl<'a> Planner<'a> {
    /// Applies operation `op`'s terms to its plan. A plan with no write of
    /// the entity's own documents (an entity folded into others) keeps
    /// its steps: the terms then guard nothing, and the plan says so by
    /// carrying no condition.
    pub(super) fn apply_terms(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        let o = model.operation(op);
        let terms = &o.terms;
        if terms.is_plain() {
            return;
        }
        let e = o.entity_in(model);
        let acc = self.access(e);
        let Some(i) = plan.steps.iter().position(|s| {
            s.collection == acc.collection
                && !s.fallback
                && !matches!(s.action, Action::Find | Action::GraphLookup)
        }) else {
            return;
        };
        let elem = if acc.per_root > 1.0 && !acc.prefix.is_empty() {
            format!("{}.$", acc.prefix)
        } else {
            acc.prefix.clone()
        };
        let at = |field: &str| {
            if elem.is_empty() {
                field.to_string()
            } else {
                format!("{elem}.{field}")
            }
        };
        if let Some(sort) = &terms.claim {
            self.claim(plan, op, i, &acc, sort);
        }
        let step = &mut plan.steps[i];
        for inc in &terms.increments {
            let path = at(&inc.field);
            let op = if inc.by < 0.0 {
                UpdateOp::Dec { path: path.clone() }
            } else {
                UpdateOp::Inc { path: path.clone() }
            };
            match step
                .updates
                .iter_mut()
                .find(|u| matches!(u, UpdateOp::Set { path: p } if *p == path))
            {
                Some(u) => *u = op,
                None => step.updates.push(op),
            }
        }
        step.conditions = terms
            .conditions
            .iter()
            .map(|c| StepCondition {
                path: acc.path(&c.field),
                test: c.test,
                value: c.value.clone(),
            })
            .collect();
        if terms.is_conditional() {
            step.otherwise = Some(terms.otherwise);
        }
    }

    /// Step `i`, the write of the claimed entity, becomes the claim: one
    /// `findOneAndUpdate` that takes the first document of the filter in
    /// the claim's order. When the write was planned by ids a find returned
    /// (copies elsewhere must follow it), the find takes the order instead
    /// and the write keeps its condition, so a document another worker
    /// claimed in between matches nothing.
    fn claim(&self, plan: &mut OpPlan, op: OperationId, i: usize, acc: &Access, sort: &[SortKey]) {
        let order: Vec<(String, i32)> = sort
            .iter()
            .map(|k| (acc.path(&k.field), if k.descending { -1 } else { 1 }))
            .collect();
        let by_ids = plan.steps[i]
            .filter
            .iter()
            .any(|f| matches!(f.value_from, ValueSource::FromStep { .. }));
        let target = if by_ids {
            match plan.steps[..i]
                .iter()
                .rposition(|s| s.action == Action::Find)
            {
                Some(f) => f,
                None => return,
            }
        } else {
            plan.steps[i].action = Action::FindOneAndUpdate;
            i
        };
        let step = &mut plan.steps[target];
        step.sort.clone_from(&order);
        step.limit = Some(1);
        // Equality keys, then the sort keys in the sort's direction, then
        // ranges: the walk starts at the first document to claim.
        let mut keys: Vec<(String, i32)> = step
            .filter
            .iter()
            .filter(|f| f.op == FilterOp::Eq)
            .map(|f| (f.path.clone(), 1))
            .collect();
        for (k, d) in &order {
            if !keys.iter().any(|(x, _)| x == k) {
                keys.push((k.clone(), *d));
            }
        }
        for f in step.filter.iter().filter(|f| f.op != FilterOp::Eq) {
            if !keys.iter().any(|(x, _)| *x == f.path) {
                keys.push((f.path.clone(), 1));
            }
        }
        // In the sort's own direction (not `canonical_keys`' spelling, whose
        // first sort key is ascending): the index reads as the claim does.
        if keys.len() == 1 && keys[0].0 == "_id" {
            return;
        }
        match plan
            .indexes
            .iter_mut()
            .find(|n| n.step == target && !n.unique)
        {
            Some(need) => need.keys = keys,
            None => plan.indexes.push(IndexNeed {
                collection: step.collection.clone(),
                keys,
                entries: acc.docs,
                held: acc.docs * self.facts.held_share(acc.root),
                writes: self.facts.entity_writes[acc.root.index()],
                operation: op,
                step: target,
                unique: false,
                partial: Vec::new(),
            }),
        }
    }

    /// Whether atomic group `group` is kept by its conditional write's
    /// `otherwise: undo` (the application undoes the group's earlier
    /// writes when the condition fails) rather than by a transaction.
    pub(super) fn compensated(&self, group: &crate::model::AtomicGroup) -> bool {
        let model = self.facts.model;
        group.operations.iter().any(|o| {
            let t = &model.operation(*o).terms;
            t.is_conditional() && t.otherwise == Otherwise::Undo
        })
    }
}
