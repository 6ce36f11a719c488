//! A model's independent parts: entities joined by no relationship, no
//! operation, no atomic group and no entity-level candidate. A choice in one
//! part changes no plan of another (the search re-prices a move's operations
//! from the entities it touches, `Facts::ops_touching`), so each part's best
//! design is its own: the search looks for it part by part (issue 45).

use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::space::Space;
use crate::model::{EntityId, Model, OperationId};

/// The parts of a model that have choices to make, in the order of their
/// first choice (relationships first, then entity-level candidates: the
/// search's order of choices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub parts: Vec<Part>,
}

/// One part: its choices and the operations they can change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Part {
    /// Its relationships, ascending (relationship r is choice r).
    pub rels: Vec<usize>,
    /// Its entity-level candidates, ascending, whether or not a rule supports them.
    pub entity: Vec<usize>,
    /// Its operations, ascending.
    pub ops: Vec<OperationId>,
}

impl Part {
    /// How many choices the search would weigh for this part alone: what
    /// decides how many starts it gets (`optimize::starts`).
    pub fn size(&self) -> usize {
        self.rels.len() + self.entity.len()
    }
}

/// The entities an entity-level candidate puts together: its documents
/// change with any of them.
pub fn candidate_entities(model: &Model, candidate: &EntityCandidate, out: &mut Vec<EntityId>) {
    match candidate {
        EntityCandidate::Polymorphic { entities, .. } => out.extend(entities.iter().copied()),
        EntityCandidate::Computed { relationship, .. } => {
            let rel = model.relationship(*relationship);
            out.push(rel.parent);
            out.push(rel.child);
        }
        EntityCandidate::Timeline { feed, .. } => {
            for r in [feed.items, feed.followers, feed.following] {
                let rel = model.relationship(r);
                out.push(rel.parent);
                out.push(rel.child);
            }
        }
    }
}

/// Union-find over entities, the smaller index as the representative.
struct Joined(Vec<usize>);

impl Joined {
    fn top(&mut self, mut e: usize) -> usize {
        while self.0[e] != e {
            self.0[e] = self.0[self.0[e]];
            e = self.0[e];
        }
        e
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.top(a), self.top(b));
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        self.0[hi] = lo;
    }
}

/// The model's parts that have a choice; parts without one (an entity
/// with no relationship and no candidate) have nothing to search.
pub fn of(facts: &Facts<'_>, space: &Space) -> Parts {
    let model = facts.model;
    let n_ent = model.entities.len();
    let n_ops = model.workload.operations.len();
    let mut joined = Joined((0..n_ent).collect());
    for rel in &model.relationships {
        joined.join(rel.parent.index(), rel.child.index());
    }
    // An operation joins every entity it touches; `anchor` is the first.
    let mut anchor: Vec<Option<usize>> = vec![None; n_ops];
    for op in model.operation_ids() {
        anchor[op.index()] = Some(model.operation(op).entity_in(model).index());
    }
    for (e, ops) in facts.ops_touching.iter().enumerate() {
        for op in ops {
            match anchor[op.index()] {
                Some(a) => joined.join(a, e),
                None => anchor[op.index()] = Some(e),
            }
        }
    }
    // An atomic group's operations are re-priced together (its commit).
    for g in &model.workload.atomic_groups {
        let mut first: Option<usize> = None;
        for o in &g.operations {
            let Some(a) = anchor[o.index()] else { continue };
            match first {
                Some(f) => joined.join(f, a),
                None => first = Some(a),
            }
        }
    }
    let mut members = Vec::new();
    for c in &space.entity {
        members.clear();
        candidate_entities(model, c, &mut members);
        for w in members.windows(2) {
            joined.join(w[0].index(), w[1].index());
        }
    }
    // Number the parts in the order of their first choice.
    let mut number: Vec<Option<usize>> = vec![None; n_ent];
    let mut parts: Vec<Part> = Vec::new();
    let mut part_of = |joined: &mut Joined, e: usize, parts: &mut Vec<Part>| {
        let t = joined.top(e);
        *number[t].get_or_insert_with(|| {
            parts.push(Part::default());
            parts.len() - 1
        })
    };
    for (r, rel) in model.relationships.iter().enumerate() {
        let p = part_of(&mut joined, rel.parent.index(), &mut parts);
        parts[p].rels.push(r);
    }
    for (i, c) in space.entity.iter().enumerate() {
        members.clear();
        candidate_entities(model, c, &mut members);
        if let Some(e) = members.first() {
            let p = part_of(&mut joined, e.index(), &mut parts);
            parts[p].entity.push(i);
        }
    }
    for op in model.operation_ids() {
        let Some(a) = anchor[op.index()] else {
            continue;
        };
        if let Some(p) = number[joined.top(a)] {
            parts[p].ops.push(op);
        }
    }
    // A part whose only candidates no rule supports has nothing to choose.
    parts.retain(|p| {
        !p.rels.is_empty()
            || p.entity
                .iter()
                .any(|i| !space.entity_support[*i].is_empty())
    });
    Parts { parts }
}
