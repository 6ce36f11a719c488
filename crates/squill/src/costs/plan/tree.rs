//! Recursive includes over a relationship of an entity with itself (a
//! category's ancestors, a subtree): one `$graphLookup` from the documents
//! found, up or down the references the layout keeps.

use super::*;

impl<'a> Planner<'a> {
    /// Plans `inc`, which repeats its self-relationship up to `levels`
    /// times; `false` when the layout keeps no reference to walk (the
    /// caller plans one level as usual).
    pub(super) fn walk_tree(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        cx: &Joined<'_>,
        levels: u32,
    ) -> bool {
        let &Joined {
            from,
            m,
            from_step,
            inc,
            ..
        } = cx;
        let f = self.facts;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        // A tree nested in its root document: every level is there already.
        if matches!(self.layout(r), Layout::Embed) {
            self.return_holder(plan, from, rel, inc.to_children, from_step);
            return true;
        }
        let up = !inc.to_children;
        if let Layout::TreePath { fields } = self.layout(r)
            && self.walk_paths(plan, op, cx, levels, fields)
        {
            return true;
        }
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

/// Subtrees (`under`) and the paths a tree's nodes and what references
/// them keep.
impl<'a> Planner<'a> {
    /// A recursive include over a tree whose nodes keep their paths: the
    /// ancestors' copied fields are in the node's own document (its path),
    /// and a subtree is one query on the path's ids. `false` when the
    /// path cannot answer it (a walk up for fields the path does not copy,
    /// or going on to further includes): the caller walks the references.
    fn walk_paths(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        cx: &Joined<'_>,
        levels: u32,
        copies: &[String],
    ) -> bool {
        let &Joined {
            from,
            m,
            from_step,
            inc,
            ..
        } = cx;
        let f = self.facts;
        let r = inc.relationship;
        let acc = self.access(from);
        let pf = f.model.tree_path_field(r);
        if !inc.to_children {
            let copied = !inc.fields.is_empty()
                && inc.fields.iter().all(|x| x == "_id" || copies.contains(x));
            if !copied || !inc.include.is_empty() {
                return false;
            }
            if let Some(s) = plan.steps.get_mut(from_step.wrapping_sub(1)) {
                super::include::project_whole(&mut s.projection, acc.path(&pf));
            }
            return true;
        }
        let h = f.model.tree_height(r).min(f64::from(levels) + 1.0);
        let n = m * h;
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::Subtree {
                entity: self.name(from).to_string(),
                via: f.model.relationship(r).name.clone(),
            },
        );
        step.filter = vec![filt(
            acc.path(&format!("{pf}._id")),
            FilterOp::In,
            ValueSource::FromStep { step: from_step },
        )];
        step.projection = inc.fields.iter().map(|x| acc.path(x)).collect();
        step.documents = n;
        let cost = StepCost {
            keys: n,
            docs: n,
            bytes_read: n * acc.root_bytes,
            ..StepCost::default()
        };
        let entries = f.count(from) * f.model.tree_height(r);
        let s = self.push(
            plan,
            op,
            step,
            cost,
            Some((vec![(acc.path(&format!("{pf}._id")), 1)], from, entries)),
        );
        self.includes(plan, op, from, n, s, &inc.include);
        true
    }

    /// The share of `e`'s instances an `under` filter keeps: a subtree
    /// holds the tree's height in nodes on average (each node is in the
    /// subtrees of itself and of its ancestors), and under a reference to
    /// a tree's node, the children of those nodes.
    pub(super) fn subtree_share(&self, e: EntityId, c: &Filter) -> f64 {
        let f = self.facts;
        let model = f.model;
        let share = match &c.related {
            None => model
                .tree_of(e)
                .map_or(1.0, |t| model.tree_height(t) / f.count(e).max(1.0)),
            Some(x) => {
                let node = model.relationship(x.relationship).parent;
                let h = model.tree_of(node).map_or(1.0, |t| model.tree_height(t));
                h * f.typical(x.relationship) / f.count(e).max(1.0)
            }
        };
        share.min(1.0)
    }

    /// The path an `under` filter tests in `e`'s documents and where its
    /// value comes from: the given node's id in a path the documents keep,
    /// or the subtree's ids found by a step first.
    pub(super) fn under_path(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        acc: &Access,
        c: &Filter,
    ) -> (String, ValueSource) {
        let model = self.facts.model;
        match &c.related {
            None => {
                let Some(t) = model.tree_of(e) else {
                    return (acc.path("_id"), ValueSource::Param);
                };
                if matches!(self.layout(t), Layout::TreePath { .. }) {
                    let path = format!("{}._id", model.tree_path_field(t));
                    return (acc.path(&path), ValueSource::Param);
                }
                let n = self.subtree_walk(plan, op, e, t);
                (acc.path("_id"), ValueSource::FromStep { step: n })
            }
            Some(x) => {
                let r = x.relationship;
                if matches!(self.layout(r), Layout::PathReference) {
                    return (acc.path(&model.path_reference_field(r)), ValueSource::Param);
                }
                let node = model.relationship(r).parent;
                let tree = model.tree_of(node);
                // The walk itself gives the subtree's ids; a query on the
                // nodes' paths when they keep them.
                let n = match tree {
                    Some(t) if !matches!(self.layout(t), Layout::TreePath { .. }) => {
                        self.subtree_walk(plan, op, node, t)
                    }
                    _ => {
                        let nodes =
                            Filter::new(model, node, vec!["_id".to_string()], FilterOp::Under);
                        let purpose = Purpose::Subtree {
                            entity: self.name(node).to_string(),
                            via: tree.map_or(String::new(), |t| model.relationship(t).name.clone()),
                        };
                        let (nodes, id) = ([nodes], ["_id".to_string()]);
                        let read = Read::by(&nodes, &id);
                        self.find(plan, op, node, &read, purpose).1
                    }
                };
                self.by_parent_ids(acc, r, n)
            }
        }
    }

    /// How many values an `under` filter's path holds per document: a
    /// path's ids (the tree's height) where the documents keep one.
    pub(super) fn under_entries(&self, e: EntityId, c: &Filter) -> f64 {
        let model = self.facts.model;
        let tree = match &c.related {
            None => model
                .tree_of(e)
                .filter(|t| matches!(self.layout(*t), Layout::TreePath { .. })),
            Some(x) if matches!(self.layout(x.relationship), Layout::PathReference) => {
                model.tree_of(model.relationship(x.relationship).parent)
            }
            Some(_) => None,
        };
        tree.map_or(1.0, |t| model.tree_height(t))
    }

    /// The subtree of the given node of `e` through tree `t` when the nodes
    /// keep no path: one `$graphLookup` down the references, the node
    /// itself included. Returns the step number.
    fn subtree_walk(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        t: RelationshipId,
    ) -> usize {
        let model = self.facts.model;
        let rel = model.relationship(t);
        let acc = self.access(e);
        let h = model.tree_height(t);
        let (start, connect_from, connect_to) =
            match (self.parent_ref_path(t), self.child_ids_path(t)) {
                (Some(p), _) => ("_id".to_string(), "_id".to_string(), p),
                (None, Some(c)) => (c.clone(), c, "_id".to_string()),
                (None, None) => ("_id".to_string(), "_id".to_string(), "_id".to_string()),
            };
        // Every level, however deep the tree grows (at most the model's
        // `levels`): the ids must be the whole subtree.
        let levels = rel.levels.unwrap_or(100).max(1);
        let purpose = Purpose::Subtree {
            entity: self.name(e).to_string(),
            via: rel.name.clone(),
        };
        let index = (vec![(acc.path(&connect_to), 1)], e, self.facts.count(e));
        let graph = crate::design::GraphWalk {
            start_with: start,
            connect_from,
            connect_to,
            into: "descendants".to_string(),
            max_depth: levels.saturating_sub(1),
        };
        self.walk_from_node(plan, op, e, h, ValueSource::Param, purpose, graph, index)
    }

    /// A `$graphLookup` from the one node of `e` whose id is `id`,
    /// reaching `h` nodes, each looked up through `index`.
    #[allow(clippy::too_many_arguments)]
    fn walk_from_node(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        h: f64,
        id: ValueSource,
        purpose: Purpose,
        graph: crate::design::GraphWalk,
        index: IndexUse,
    ) -> usize {
        let acc = self.access(e);
        let mut step = Self::step(&acc.collection, Action::GraphLookup, purpose);
        step.filter = vec![filt(acc.path("_id"), FilterOp::Eq, id)];
        step.projection = vec![acc.path("_id")];
        step.documents = h;
        step.graph = Some(Box::new(graph));
        let cost = StepCost {
            keys: h,
            docs: h,
            bytes_read: h * acc.root_bytes,
            ..StepCost::default()
        };
        self.push(plan, op, step, cost, Some(index))
    }

    /// Reads the path of one node of `e`'s tree, to copy it (a new node's
    /// parent, a new product's category, given as `id`: the parameter, or
    /// the new parent a move sets): its own field when the nodes keep one,
    /// else a walk up to the root.
    pub(super) fn read_path(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        id: ValueSource,
    ) {
        let model = self.facts.model;
        let Some(t) = model.tree_of(e) else {
            return;
        };
        let field = model.tree_path_field(t);
        if matches!(self.layout(t), Layout::TreePath { .. }) {
            self.read_copies(plan, op, e, &[field], 1.0);
            if let Some(s) = plan.steps.last_mut() {
                s.filter[0].value_from = id;
            }
            return;
        }
        let acc = self.access(e);
        let h = model.tree_height(t);
        let Some(p) = self.parent_ref_path(t) else {
            return;
        };
        let purpose = Purpose::Walk {
            entity: self.name(e).to_string(),
            up: true,
            via: model.relationship(t).name.clone(),
        };
        let graph = crate::design::GraphWalk {
            start_with: p.clone(),
            connect_from: p,
            connect_to: "_id".to_string(),
            into: "ancestors".to_string(),
            // The whole path, however deep the tree grows.
            max_depth: model
                .relationship(t)
                .levels
                .unwrap_or(100)
                .saturating_sub(1),
        };
        let index = (vec![("_id".to_string(), 1)], e, acc.docs);
        self.walk_from_node(plan, op, e, h, id, purpose, graph, index);
    }
}
