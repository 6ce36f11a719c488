//! Figures over a subset of a parent's children kept in the parent
//! (`count(tickets where status = open)`, `sum(invoices.amount where paid
//! = false)`). An insert and a delete move such a figure by what the child
//! adds when it meets the test; the cookbook works that out from the
//! child's own document (`artifacts::cookbook`). An update moves it too
//! when it changes the tested field (the child enters or leaves the
//! subset) or the summed one. That update is planned here: the child's
//! write returns the child as it was (`findOneAndUpdate`, `before`), and
//! the parent, found by the reference the child held, gets one `$inc` by
//! what the child adds now less what it added then. Each write is atomic
//! on its own document, and no other writer can change the old values
//! between the read and the write, so concurrent updates add up.

use super::*;

impl Planner<'_> {
    /// The kept figures over a subset of `e`'s siblings that an update of
    /// `changes` can move: `(relationship, figure)`, for each figure whose
    /// test or summed field is among the changes, where the child keeps its
    /// parent's id in its own document (the `$inc` finds the parent by it).
    pub(super) fn subset_moves(
        &self,
        e: EntityId,
        changes: &[String],
    ) -> Vec<(RelationshipId, String)> {
        let f = self.facts;
        let mut out = Vec::new();
        for r in f.rels_to[e.index()].iter().copied() {
            if self.parent_ref_path(r).is_none() {
                continue;
            }
            for (_, field, cname) in self.computed(r) {
                let Some(c) = self.kept_filter(r, cname) else {
                    continue;
                };
                if changes.contains(&c.field) || field.is_some_and(|x| changes.contains(x)) {
                    out.push((r, cname.clone()));
                }
            }
        }
        out
    }

    /// The update's own write, step `k` (1-based), returns the child as it
    /// was; each moved figure is then one `$inc` of the parent the old
    /// child referenced. A write of several children at once cannot
    /// return them: the figure is left to the warning.
    pub(super) fn keep_subsets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        k: usize,
        moves: &[(RelationshipId, String)],
    ) {
        let Some(own) = plan.steps.get_mut(k - 1) else {
            return;
        };
        if own.action != Action::UpdateOne {
            plan.warnings.push(Warning::SubsetFigureNotKept {
                entity: self.name(e).to_string(),
                figures: moves.iter().map(|(_, n)| n.clone()).collect(),
            });
            return;
        }
        own.action = Action::FindOneAndUpdate;
        own.before = true;
        let acc = self.access(e);
        for (r, cname) in moves {
            let mut wanted: Vec<String> = Vec::new();
            if let Some(p) = self.parent_ref_path(*r) {
                wanted.push(p);
            }
            if let Some(c) = self.kept_filter(*r, cname) {
                wanted.push(acc.path(&c.field));
            }
            if let Some((_, Some(x), _)) = self.computed(*r).find(|(_, _, n)| *n == cname) {
                wanted.push(acc.path(x));
            }
            for w in wanted {
                if !own.projection.contains(&w) {
                    own.projection.push(w);
                }
            }
        }
        // The document it returns, as it was: a few fields.
        plan.cost.bytes_read += 64.0;
        let mut parents: Vec<RelationshipId> = Vec::new();
        for (r, _) in moves {
            if !parents.contains(r) {
                parents.push(*r);
            }
        }
        // One `$inc` per parent, of every figure of it the update moves.
        for r in parents {
            let rel = self.facts.model.relationship(r);
            let pacc = self.access(rel.parent);
            let updates: Vec<UpdateOp> = moves
                .iter()
                .filter(|(x, _)| *x == r)
                .map(|(_, cname)| UpdateOp::Inc {
                    path: pacc.path(cname),
                    by: None,
                    amount: None,
                })
                .collect();
            let purpose: Vec<Purpose> = moves
                .iter()
                .filter(|(x, _)| *x == r)
                .map(|(_, cname)| Purpose::MaintainComputed {
                    field: cname.clone(),
                    parent: self.name(rel.parent).to_string(),
                })
                .collect();
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: rel.parent,
                    action: Action::UpdateOne,
                    filter: vec![filt(
                        pacc.path("_id"),
                        FilterOp::Eq,
                        ValueSource::FromStep { step: k },
                    )],
                    updates,
                    docs: 1.0,
                    sync: 0.0,
                    purpose,
                },
            );
        }
    }
}
