//! Choosing the design: minimize the workload's total score over every
//! combination of candidates. Choices interact (an entity embedded in its
//! parent has no collection of its own; an extended reference only pays if the
//! relationship is referenced), so the search is over whole designs: coordinate
//! descent from several starts (the rules' preferred layouts, all references,
//! all embedded where allowed), re-costing after each move only the operations
//! the moved choice can change. `exhaustive` checks it on small models.

use super::facts::Facts;
use super::placement::Placement;
use super::space::{Space, State};
use crate::costs::index_score;
use crate::costs::plan::Planner;
use crate::model::{OperationId, RelationshipKind};
use rustc_hash::FxHashMap;

type IndexKey = (String, Vec<(String, i32)>);
/// A move's new total, option, and the re-costed operations' scores and indexes.
type Move = (f64, usize, Vec<f64>, Vec<Vec<(IndexKey, f64)>>);

/// The total score of a state, from scratch. `None` when the state cannot exist.
pub fn objective(facts: &Facts<'_>, space: &Space, state: &State) -> Option<f64> {
    let p = Placement::build(facts, space, state)?;
    let planner = Planner {
        facts,
        space,
        p: &p,
    };
    let mut total = penalty(facts, space, state);
    let mut indexes: FxHashMap<IndexKey, f64> = FxHashMap::default();
    for op in facts.model.operation_ids() {
        let plan = planner.plan(op);
        total += plan.cost.score * facts.model.operation(op).rate(facts.mix);
        for need in plan.indexes {
            let c = index_score(
                need.entries,
                need.writes,
                need.keys.len() as f64,
                &facts.settings.design.costs,
            );
            indexes.entry((need.collection, need.keys)).or_insert(c);
        }
    }
    total += indexes.values().sum::<f64>();
    Some(total)
}

/// The rules' tie-break: a small charge for each choice no rule supports.
fn penalty(facts: &Facts<'_>, space: &Space, state: &State) -> f64 {
    let c = facts.settings.design.costs.unsupported_layout;
    let rels = state
        .rel
        .iter()
        .enumerate()
        .filter(|(r, i)| space.rels[*r][**i].support.is_empty())
        .count();
    rels as f64 * c
}

/// Incremental evaluation of states that differ from the current one by a move.
struct Search<'f, 's> {
    facts: &'f Facts<'f>,
    space: &'s Space,
    deps_rel: Vec<Vec<OperationId>>,
    deps_ent: Vec<Vec<OperationId>>,
    state: State,
    op_score: Vec<f64>,
    op_idx: Vec<Vec<(IndexKey, f64)>>,
    idx_refs: FxHashMap<IndexKey, (u32, f64)>,
    total: f64,
}

impl<'f, 's> Search<'f, 's> {
    fn new(facts: &'f Facts<'f>, space: &'s Space, state: State) -> Option<Self> {
        let model = facts.model;
        let expand = |ops: &[OperationId]| -> Vec<OperationId> {
            let mut out: Vec<OperationId> = ops.to_vec();
            for g in &model.workload.atomic_groups {
                if g.operations.iter().any(|o| out.contains(o)) {
                    out.extend(g.operations.iter().copied());
                }
            }
            out.sort();
            out.dedup();
            out
        };
        let deps_rel = facts.ops_by_rel.iter().map(|o| expand(o)).collect();
        let deps_ent = space
            .entity
            .iter()
            .map(|c| match c {
                crate::candidates::EntityCandidate::Polymorphic { entities, .. } => {
                    let mut v: Vec<OperationId> = entities
                        .iter()
                        .flat_map(|e| facts.ops_by_entity[e.index()].iter().copied())
                        .collect();
                    v.sort();
                    v.dedup();
                    expand(&v)
                }
                crate::candidates::EntityCandidate::Computed { relationship, .. } => {
                    expand(&facts.ops_by_rel[relationship.index()])
                }
            })
            .collect();
        let n_ops = model.workload.operations.len();
        let mut s = Search {
            facts,
            space,
            deps_rel,
            deps_ent,
            state,
            op_score: vec![0.0; n_ops],
            op_idx: vec![Vec::new(); n_ops],
            idx_refs: FxHashMap::default(),
            total: 0.0,
        };
        let all: Vec<OperationId> = model.operation_ids().collect();
        let (delta, scores, idx) = s.evaluate(&s.state.clone(), &all)?;
        s.total = delta;
        s.apply(&all, scores, idx);
        s.total = s.recount();
        Some(s)
    }

    fn recount(&self) -> f64 {
        self.op_score.iter().sum::<f64>()
            + self.idx_refs.values().map(|(_, c)| c).sum::<f64>()
            + penalty(self.facts, self.space, &self.state)
    }

    /// Plans `ops` under `state`; returns the new total and the per-op results.
    #[allow(clippy::type_complexity)]
    fn evaluate(
        &self,
        state: &State,
        ops: &[OperationId],
    ) -> Option<(f64, Vec<f64>, Vec<Vec<(IndexKey, f64)>>)> {
        let p = Placement::build(self.facts, self.space, state)?;
        let planner = Planner {
            facts: self.facts,
            space: self.space,
            p: &p,
        };
        let coef = &self.facts.settings.design.costs;
        let mut scores = Vec::with_capacity(ops.len());
        let mut idx = Vec::with_capacity(ops.len());
        let mut refs: FxHashMap<&IndexKey, i64> = FxHashMap::default();
        let mut total = self.total + penalty(self.facts, self.space, state)
            - penalty(self.facts, self.space, &self.state);
        for op in ops {
            total -= self.op_score[op.index()];
            for (k, _) in &self.op_idx[op.index()] {
                *refs.entry(k).or_insert(0) -= 1;
            }
        }
        let mut new_keys: Vec<(IndexKey, f64)> = Vec::new();
        for op in ops {
            let plan = planner.plan(*op);
            let s = plan.cost.score * self.facts.model.operation(*op).rate(self.facts.mix);
            total += s;
            scores.push(s);
            let mut mine = Vec::new();
            for need in plan.indexes {
                let c = index_score(need.entries, need.writes, need.keys.len() as f64, coef);
                let key = (need.collection, need.keys);
                mine.push((key.clone(), c));
                new_keys.push((key, c));
            }
            idx.push(mine);
        }
        // Index standing costs: count each index once across the design.
        let mut added: FxHashMap<&IndexKey, (i64, f64)> = FxHashMap::default();
        for (k, c) in &new_keys {
            added.entry(k).or_insert((0, *c)).0 += 1;
        }
        let mut keys: Vec<&IndexKey> = refs.keys().copied().collect();
        keys.extend(added.keys().copied());
        keys.sort();
        keys.dedup();
        for k in keys {
            let (before, cost) = self.idx_refs.get(k).copied().unwrap_or((0, 0.0));
            let removed = refs.get(k).copied().unwrap_or(0);
            let (plus, new_cost) = added.get(k).copied().unwrap_or((0, cost));
            let after = i64::from(before) + removed + plus;
            if before > 0 && after <= 0 {
                total -= cost;
            } else if before == 0 && after > 0 {
                total += new_cost;
            }
        }
        Some((total, scores, idx))
    }

    fn apply(&mut self, ops: &[OperationId], scores: Vec<f64>, idx: Vec<Vec<(IndexKey, f64)>>) {
        for op in ops {
            for (k, _) in std::mem::take(&mut self.op_idx[op.index()]) {
                if let Some(e) = self.idx_refs.get_mut(&k) {
                    e.0 -= 1;
                    if e.0 == 0 {
                        self.idx_refs.remove(&k);
                    }
                }
            }
        }
        for ((op, s), mine) in ops.iter().zip(scores).zip(idx) {
            self.op_score[op.index()] = s;
            for (k, c) in &mine {
                self.idx_refs.entry(k.clone()).or_insert((0, *c)).0 += 1;
            }
            self.op_idx[op.index()] = mine;
        }
    }

    /// Coordinate descent: try every option of every choice, keep improvements.
    fn descend(&mut self, vars: &[Var]) {
        for _pass in 0..30 {
            let mut improved = false;
            for var in vars {
                let (ops, options): (&[OperationId], Vec<usize>) = match var {
                    Var::Rel(r) => (&self.deps_rel[*r], self.space.allowed(*r)),
                    Var::Ent(i) => (&self.deps_ent[*i], vec![0, 1]),
                };
                let ops = ops.to_vec();
                let current = match var {
                    Var::Rel(r) => self.state.rel[*r],
                    Var::Ent(i) => usize::from(self.state.entity[*i]),
                };
                let mut best: Option<Move> = None;
                for o in options {
                    if o == current {
                        continue;
                    }
                    let mut st = self.state.clone();
                    match var {
                        Var::Rel(r) => st.rel[*r] = o,
                        Var::Ent(i) => st.entity[*i] = o == 1,
                    }
                    if let Some((t, s, ix)) = self.evaluate(&st, &ops)
                        && t < self.total - 1e-9 * self.total.abs().max(1.0)
                        && best.as_ref().is_none_or(|b| t < b.0)
                    {
                        best = Some((t, o, s, ix));
                    }
                }
                if let Some((t, o, s, ix)) = best {
                    match var {
                        Var::Rel(r) => self.state.rel[*r] = o,
                        Var::Ent(i) => self.state.entity[*i] = o == 1,
                    }
                    self.apply(&ops, s, ix);
                    self.total = t;
                    improved = true;
                }
            }
            if !improved {
                break;
            }
        }
        self.total = self.recount();
    }
}

#[derive(Debug, Clone, Copy)]
enum Var {
    Rel(usize),
    Ent(usize),
}

fn vars(space: &Space) -> Vec<Var> {
    let mut v: Vec<Var> = (0..space.rels.len()).map(Var::Rel).collect();
    v.extend(
        (0..space.entity.len())
            .filter(|i| !space.entity_support[*i].is_empty())
            .map(Var::Ent),
    );
    v
}

/// Starting states: the rules' favourites, all references, all embedded.
fn starts(facts: &Facts<'_>, space: &Space) -> Vec<State> {
    let pick = |score: &dyn Fn(usize, usize) -> i64| -> State {
        State {
            rel: (0..space.rels.len())
                .map(|r| {
                    let allowed = space.allowed(r);
                    allowed
                        .iter()
                        .copied()
                        .max_by_key(|i| (score(r, *i), -(*i as i64)))
                        .unwrap_or(0)
                })
                .collect(),
            entity: vec![false; space.entity.len()],
        }
    };
    let rules = pick(&|r, i| space.rels[r][i].support.len() as i64);
    let refs = pick(&|r, i| {
        use crate::candidates::Layout as L;
        match space.rels[r][i].layout {
            L::ParentReference | L::ManyToManyOneWay { .. } => 2,
            L::ChildReferences => 1,
            _ => 0,
        }
    });
    let embeds = pick(&|r, i| {
        use crate::candidates::Layout as L;
        let one = facts.model.relationships[r].kind == RelationshipKind::OneToOne;
        match space.rels[r][i].layout {
            L::Embed => 2,
            L::EmbedParentInChild if one => 1,
            _ => 0,
        }
    });
    let mut with_entities = rules.clone();
    with_entities.entity = (0..space.entity.len())
        .map(|i| !space.entity_support[i].is_empty())
        .collect();
    vec![rules, refs, embeds, with_entities]
}

/// Makes a state feasible by replacing embedding choices that conflict.
fn repair(facts: &Facts<'_>, space: &Space, state: State) -> Option<State> {
    repair_keeping(facts, space, state, usize::MAX)
}

/// `repair`, never changing relationship `keep`.
pub fn repair_keeping(
    facts: &Facts<'_>,
    space: &Space,
    mut state: State,
    keep: usize,
) -> Option<State> {
    for _ in 0..=space.rels.len() + space.entity.len() {
        if Placement::build(facts, space, &state).is_some() {
            return Some(state);
        }
        // Drop entity candidates first, then un-embed the last embedding relationship.
        if let Some(i) = state.entity.iter().rposition(|on| *on) {
            state.entity[i] = false;
            continue;
        }
        let embedding = (0..space.rels.len())
            .rev()
            .filter(|r| *r != keep)
            .find(|r| {
                use crate::candidates::Layout as L;
                matches!(
                    space.rels[*r][state.rel[*r]].layout,
                    L::Embed | L::EmbedParentInChild | L::Bucket { .. }
                )
            })?;
        let alt = space.allowed(embedding).into_iter().find(|i| {
            use crate::candidates::Layout as L;
            !matches!(
                space.rels[embedding][*i].layout,
                L::Embed | L::EmbedParentInChild | L::Bucket { .. }
            )
        })?;
        state.rel[embedding] = alt;
    }
    None
}

/// Local search from several starts; the best state found and its score.
pub fn local_search(facts: &Facts<'_>, space: &Space) -> Option<(State, f64)> {
    let vars = vars(space);
    let mut best: Option<(State, f64)> = None;
    let mut seen: Vec<State> = Vec::new();
    for start in starts(facts, space) {
        let Some(start) = repair(facts, space, start) else {
            continue;
        };
        if seen.contains(&start) {
            continue;
        }
        seen.push(start.clone());
        let Some(mut search) = Search::new(facts, space, start) else {
            continue;
        };
        search.descend(&vars);
        let total = objective(facts, space, &search.state)?;
        if best.as_ref().is_none_or(|(_, b)| total < *b - 1e-12) {
            best = Some((search.state, total));
        }
    }
    best
}

/// Every combination (for tests on small models): the best state and its score.
pub fn exhaustive(facts: &Facts<'_>, space: &Space) -> Option<(State, f64)> {
    let rel_opts: Vec<Vec<usize>> = (0..space.rels.len()).map(|r| space.allowed(r)).collect();
    let ent: Vec<usize> = (0..space.entity.len())
        .filter(|i| !space.entity_support[*i].is_empty())
        .collect();
    let mut idx = vec![0usize; rel_opts.len()];
    let mut best: Option<(State, f64)> = None;
    loop {
        for mask in 0..(1u64 << ent.len()) {
            let mut entity = vec![false; space.entity.len()];
            for (b, i) in ent.iter().enumerate() {
                entity[*i] = mask & (1 << b) != 0;
            }
            let state = State {
                rel: idx.iter().zip(&rel_opts).map(|(i, o)| o[*i]).collect(),
                entity,
            };
            if let Some(t) = objective(facts, space, &state)
                && best.as_ref().is_none_or(|(_, b)| t < *b)
            {
                best = Some((state, t));
            }
        }
        let mut k = 0;
        loop {
            if k == idx.len() {
                return best;
            }
            idx[k] += 1;
            if idx[k] < rel_opts[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}
