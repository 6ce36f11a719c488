//! Finding the parents of matching children kept as an outlier: the
//! children up to the threshold live in their parent's array, only the
//! rest in their own collection, so one query of that collection misses
//! most of them (the players a reader follows, when each follow sits in
//! the followed player's `followers` array). Both places are searched and
//! the next step matches the ids of the two together.

use super::*;

impl<'a> Planner<'a> {
    /// The parents through outlier `r` (of at most `threshold` embedded
    /// children) whose children pass `cf`: a query of the parents by the
    /// embedded children's fields (a multikey index) returning the
    /// parents' ids, and one of the children kept apart returning their
    /// reference to the parent. Returns the parent's `_id` path in `acc`
    /// and both steps as the source of its values.
    pub(super) fn outlier_parents(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        r: RelationshipId,
        threshold: u64,
        cf: &Filter,
        field: &str,
    ) -> ValueSource {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let own = self.access(rel.child);
        let host = self.access(rel.parent);
        // Computed once: a condition that needs a step of its own (the
        // follower's kept ids) pushes it once, and both queries use it.
        let conditions = self.conditions(plan, op, rel.child, &own, std::slice::from_ref(cf));
        let tests: Vec<(String, FilterOp, ValueSource)> =
            conditions.eq.into_iter().chain(conditions.range).collect();
        let apart = rel.children.items_share_above(threshold).unwrap_or(1.0);
        let all = self.matched(rel.child, std::slice::from_ref(cf), None);

        // In the parents' arrays: each child found is in one parent read
        // whole (a multikey index cannot cover), for its `_id`.
        let array = host.path(&rel.parent_field);
        let inside = all * (1.0 - apart);
        let mut step = Self::step(
            &host.collection,
            Action::Find,
            Purpose::FindMatching {
                entity: self.name(rel.parent).to_string(),
                field: format!("{}.{field}", rel.parent_field),
            },
        );
        step.filter = tests
            .iter()
            .map(|(p, o, v)| filt(format!("{array}.{p}"), *o, v.clone()))
            .collect();
        step.projection = vec![host.path("_id")];
        step.documents = inside;
        let cost = StepCost {
            keys: inside,
            docs: inside,
            bytes_read: inside * host.root_bytes,
            ..StepCost::default()
        };
        let keys: Vec<(String, i32)> = step.filter.iter().map(|t| (t.path.clone(), 1)).collect();
        let entries = f.count(rel.child) * (1.0 - apart);
        let a = self.push(plan, op, step, cost, Some((keys, rel.child, entries)));

        // Past the threshold, in their own collection: their reference to
        // the parent. Every reader asks (none knows beforehand whether a
        // parent it matches is past the threshold).
        let outside = all * apart;
        let mut step = Self::step(
            &own.collection,
            Action::Find,
            Purpose::FindMatching {
                entity: self.name(rel.child).to_string(),
                field: field.to_string(),
            },
        );
        step.filter = tests
            .iter()
            .map(|(p, o, v)| filt(p.clone(), *o, v.clone()))
            .collect();
        step.projection = vec![own.path(&rel.child_field)];
        step.documents = outside;
        let cost = StepCost {
            keys: outside,
            docs: outside,
            bytes_read: outside * own.root_bytes,
            ..StepCost::default()
        };
        let keys: Vec<(String, i32)> = step.filter.iter().map(|t| (t.path.clone(), 1)).collect();
        let b = self.push(plan, op, step, cost, Some((keys, rel.child, own.docs)));
        ValueSource::FromSteps { steps: vec![a, b] }
    }
}
