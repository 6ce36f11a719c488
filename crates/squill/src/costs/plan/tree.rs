//! Recursive includes over a relationship of an entity with itself (a
//! category's ancestors, a subtree): one `$graphLookup` from the documents
//! found, up or down the references the layout keeps.

use super::*;

impl<'a> Planner<'a> {
    /// Plans `inc`, which repeats its self-relationship up to `levels`
    /// times; `false` when the layout keeps no reference to walk (the
    /// caller plans one level as usual).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walk_tree(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        from: EntityId,
        m: f64,
        from_step: usize,
        inc: &Include,
        levels: u32,
    ) -> bool {
        let f = self.facts;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        // A tree nested in its root document: every level is there already.
        if matches!(self.layout(r), Layout::Embed) {
            self.return_holder(plan, from, rel, inc.to_children, from_step);
            return true;
        }
        let up = !inc.to_children;
        let (start, connect_from, connect_to) =
            match (self.parent_ref_path(r), self.child_ids_path(r), up) {
                (Some(p), _, true) => (p.clone(), p, "_id".to_string()),
                (Some(p), _, false) => ("_id".to_string(), "_id".to_string(), p),
                (None, Some(c), true) => ("_id".to_string(), "_id".to_string(), c),
                (None, Some(c), false) => (c.clone(), c, "_id".to_string()),
                (None, None, _) => return false,
            };
        let acc = self.access(from);
        // Every node has as many descendants, on average, as ancestors:
        // the height of a tree of `count` nodes with the typical fan-out,
        // less one, within the levels asked.
        let height = f.count(from).max(2.0).ln() / f.typical(r).max(2.0).ln();
        let found = (height.ceil() - 1.0).clamp(1.0, f64::from(levels));
        let purpose = Purpose::Walk {
            entity: self.name(from).to_string(),
            up,
            via: rel.name.clone(),
        };
        let graph = crate::design::GraphWalk {
            start_with: start,
            connect_from,
            connect_to: connect_to.clone(),
            into: if up { "ancestors" } else { "descendants" }.to_string(),
            max_depth: levels.saturating_sub(1),
        };
        // The step that found the nodes by their ids (a product's
        // category) walks on from them in the same command when the walk
        // looks its levels up by `_id`: no round trip of its own.
        if connect_to == "_id"
            && let Some(s) = plan.steps.get_mut(from_step.wrapping_sub(1))
            && s.action == Action::Find
            && s.collection == acc.collection
            && s.sort.is_empty()
            && s.limit.is_none()
            && s.filter.len() == 1
            && s.filter[0].path == acc.path("_id")
        {
            s.action = Action::GraphLookup;
            s.graph = Some(Box::new(graph));
            s.purpose.push(purpose);
            s.projection.clear();
            s.documents += m * found;
            plan.cost.documents_examined += m * found;
            plan.cost.index_keys_examined += m * found;
            plan.cost.bytes_read += m * found * acc.root_bytes;
            self.includes(plan, op, from, m * found, from_step, &inc.include);
            return true;
        }
        let mut step = Self::step(&acc.collection, Action::GraphLookup, purpose);
        step.filter = vec![filt(
            acc.path("_id"),
            FilterOp::In,
            ValueSource::FromStep { step: from_step },
        )];
        step.documents = m * found;
        step.graph = Some(Box::new(graph));
        let examined = m * (1.0 + found);
        let cost = StepCost {
            keys: examined,
            docs: examined,
            bytes_read: examined * acc.root_bytes,
            ..StepCost::default()
        };
        // Each level looks up the next by `connect_to`: the `_id` index,
        // or one on the reference the walk follows.
        let entries = f.count(from);
        let n = self.push(
            plan,
            op,
            step,
            cost,
            Some((vec![(acc.path(&connect_to), 1)], from, entries)),
        );
        self.includes(plan, op, from, m * found, n, &inc.include);
        true
    }
}
