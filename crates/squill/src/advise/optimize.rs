//! Choosing the design: minimize the workload's total score over every
//! combination of candidates. Choices interact (an entity embedded in its
//! parent has no collection of its own; an extended reference only pays if the
//! relationship is referenced), so the search is over whole designs: coordinate
//! descent from several starts (the rules' preferred layouts, all references,
//! all embedded where allowed), re-costing after each move only the operations
//! the moved choice can change. `exhaustive` checks it on small models.

use crate::candidates::facts::Facts;
use crate::candidates::placement::{Change, Placement};
use crate::candidates::space::{Space, State};
use crate::costs::index_score;
use crate::costs::plan::Planner;
use crate::model::{OperationId, RelationshipKind};
use rustc_hash::FxHashMap;

mod by_parts;
#[cfg(test)]
pub(crate) use by_parts::part_scores;

type Keys = Vec<(String, i32)>;
/// An index a plan step wants: its collection, keys and partial conditions
/// (a claim's partial index and a read's full one of the same keys are two
/// indexes, each with its own upkeep).
type IndexKey = (String, Keys, Vec<crate::design::PartialCondition>);
/// One collection's wanted indexes.
type Wanted = Vec<Want>;

/// One index the plans want on a collection.
#[derive(Clone)]
struct Want {
    keys: Keys,
    partial: Vec<crate::design::PartialCondition>,
    /// Its standing cost, and the entries it holds (the first wanter's figures).
    cost: f64,
    entries: f64,
    /// The plan steps that want it, by operation.
    users: Vec<User>,
}

/// An operation whose plan step wants an index.
#[derive(Clone, Copy, PartialEq)]
struct User {
    op: OperationId,
    /// The first keys the step tests by equality.
    equalities: usize,
    unique: bool,
    /// The operation's rate when it is a claim (it walks an index that
    /// stands in for its partial one), else 0.
    claim_rate: f64,
}

/// What one plan step's index adds to its collection's wants.
#[derive(Clone)]
struct Wish {
    key: IndexKey,
    cost: f64,
    entries: f64,
    user: User,
}

/// Whether index `long` serves every query index `short` would (the
/// planner's own matcher, `costs::plan::covers`).
pub use crate::costs::plan::covers;

/// Standing cost of one collection's indexes: one covered by another of
/// the same partial conditions costs nothing (`build` drops it); a claim's
/// partial index that a full one of the wanted indexes can stand in for
/// costs its upkeep or the claims' walk over the full one, whichever is
/// less (`build` keeps it or drops it so, `walk`).
fn wanted_cost(list: &Wanted, c: &crate::settings::CostCoefficients) -> f64 {
    let mut total = 0.0;
    for (i, w) in list.iter().enumerate() {
        let covered = list.iter().enumerate().any(|(j, o)| {
            j != i
                && o.partial == w.partial
                && covers(&o.keys, &w.keys)
                && (o.keys.len() > w.keys.len() || j < i)
        });
        if covered {
            continue;
        }
        total += match walked(list, i) {
            Some(past) => {
                let walk = super::walk::per_second(past, claim_rate(w), c);
                if walk > w.cost { w.cost } else { walk }
            }
            None => w.cost,
        };
    }
    total
}

/// How `list[i]` looks to `walk`.
fn side(w: &Want) -> super::walk::Side<'_> {
    super::walk::Side {
        keys: &w.keys,
        partial: &w.partial,
        entries: w.entries,
        equalities: w.users.iter().map(|u| u.equalities).min().unwrap_or(0),
        unique: w.users.iter().any(|u| u.unique),
    }
}

/// The keys each claim of partial index `list[i]` walks past per run over
/// the shortest-walked full index of `list` that can stand in for it.
fn walked(list: &Wanted, i: usize) -> Option<f64> {
    if list[i].partial.is_empty() {
        return None;
    }
    let me = side(&list[i]);
    let mut best = None;
    for (j, o) in list.iter().enumerate() {
        if let Some(past) = super::walk::past(&me, &side(o)) {
            best = super::walk::shorter(best, (j, past));
        }
    }
    best.map(|(_, past)| past)
}

/// The summed rate of the claims among `w`'s users, each operation once,
/// in the operations' order (the users are kept so).
fn claim_rate(w: &Want) -> f64 {
    let mut rate = 0.0;
    let mut last = None;
    for u in &w.users {
        if last != Some(u.op) {
            rate += u.claim_rate;
            last = Some(u.op);
        }
    }
    rate
}

fn want(map: &mut FxHashMap<String, Wanted>, wish: &Wish, delta: i64) {
    let key = &wish.key;
    // Look up before inserting: `entry` would clone the name on every call.
    let list = match map.get_mut(key.0.as_str()) {
        Some(l) => l,
        None => map.entry(key.0.clone()).or_default(),
    };
    let at = list
        .iter()
        .position(|w| w.keys == key.1 && w.partial == key.2);
    match at {
        Some(i) if delta > 0 => {
            let users = &mut list[i].users;
            let to = users.partition_point(|u| u.op <= wish.user.op);
            users.insert(to, wish.user);
        }
        Some(i) => {
            let users = &mut list[i].users;
            if let Some(u) = users.iter().position(|u| *u == wish.user) {
                users.remove(u);
            }
            if users.is_empty() {
                list.remove(i);
            }
        }
        None if delta > 0 => list.push(Want {
            keys: key.1.clone(),
            partial: key.2.clone(),
            cost: wish.cost,
            entries: wish.entries,
            users: vec![wish.user],
        }),
        None => {}
    }
}

/// The wish of a plan step's index `need` of operation `op`.
fn wish(facts: &Facts<'_>, op: OperationId, need: &crate::costs::plan::IndexNeed) -> Wish {
    let c = &facts.settings.design.costs;
    let o = facts.model.operation(op);
    Wish {
        key: (
            need.collection.clone(),
            need.keys.clone(),
            need.partial.clone(),
        ),
        cost: index_score(need.held, need.writes, need.keys_per_write, c),
        entries: need.entries,
        user: User {
            op,
            equalities: need.equalities,
            unique: need.unique,
            claim_rate: if o.terms.claim.is_some() {
                o.rate(facts.mix)
            } else {
                0.0
            },
        },
    }
}

/// The wish of the TTL index an insert's plan carries (costs/plan/expiry.rs).
fn ttl_wish(facts: &Facts<'_>, op: OperationId, t: &crate::costs::plan::expiry::TtlUpkeep) -> Wish {
    Wish {
        key: (t.collection.clone(), t.keys.clone(), Vec::new()),
        cost: index_score(
            t.held,
            t.writes,
            t.keys_per_write,
            &facts.settings.design.costs,
        ),
        entries: t.held,
        user: User {
            op,
            equalities: 0,
            unique: false,
            claim_rate: 0.0,
        },
    }
}

/// The total score of a state, from scratch. `None` when the state cannot exist.
pub fn objective(facts: &Facts<'_>, space: &Space, state: &State) -> Option<f64> {
    let p = Placement::build(facts, space, state)?;
    let planner = Planner {
        facts,
        space,
        p: &p,
    };
    Some(priced_total(
        &planner,
        facts.model.operation_ids(),
        penalty(facts, space, state),
    ))
}

/// `total` plus the scores of operations `ops` and of the indexes they want.
fn priced_total(
    planner: &Planner<'_>,
    ops: impl Iterator<Item = OperationId>,
    mut total: f64,
) -> f64 {
    let facts = planner.facts;
    let mut wanted: FxHashMap<String, Wanted> = FxHashMap::default();
    for op in ops {
        let plan = planner.plan(op);
        total += plan.cost.score * facts.model.operation(op).rate(facts.mix);
        for need in &plan.indexes {
            want(&mut wanted, &wish(facts, op, need), 1);
        }
        if let Some(t) = &plan.expiry {
            want(&mut wanted, &ttl_wish(facts, op, t), 1);
        }
    }
    let c = &facts.settings.design.costs;
    total + wanted.values().map(|w| wanted_cost(w, c)).sum::<f64>()
}

/// The rules' tie-break: a small charge for each choice no rule supports.
fn penalty(facts: &Facts<'_>, space: &Space, state: &State) -> f64 {
    unsupported(space, state) as f64 * facts.settings.design.costs.unsupported_layout
}

/// Operation plans the search may price before it stops where it is: a
/// bound on time that does not depend on the machine, so the same model gives
/// the same design everywhere. The largest models of the scale bench price
/// 43,213 (1,000 entities, relationships and operations) to 112,183 (200,
/// 300, 1,000) plans (BENCHMARKS.md, "advise at scale"): the budget is some
/// twenty times that.
pub const PLAN_BUDGET: u64 = 2_000_000;

/// What pricing a move gives: the new total, the re-planned operations,
/// their scores and their indexes.
type Priced = (f64, Vec<OperationId>, Vec<f64>, Vec<Vec<Wish>>);

/// Incremental evaluation of states that differ from the current one by a move.
struct Search<'f, 's> {
    facts: &'f Facts<'f>,
    space: &'s Space,
    /// Operation plans priced so far, by this search and the ones before it.
    planned: std::cell::Cell<u64>,
    budget: u64,
    state: State,
    /// The placement of `state`; a move is priced on it changed in place and
    /// put back (building it whole for each move made the search quadratic).
    p: std::cell::RefCell<Placement<'s>>,
    /// Relationships whose option no rule supports, under `state`.
    unsupported: usize,
    op_score: Vec<f64>,
    op_idx: Vec<Vec<Wish>>,
    wanted: FxHashMap<String, Wanted>,
    total: f64,
}

impl<'f, 's> Search<'f, 's> {
    fn new(facts: &'f Facts<'f>, space: &'s Space, state: State) -> Option<Self> {
        let all: Vec<OperationId> = facts.model.operation_ids().collect();
        Self::pricing(facts, space, state, all)
    }

    /// `new`, pricing only the operations `ops` (ascending): a search of
    /// some parts of the model (`by_parts`) re-prices no other.
    fn pricing(
        facts: &'f Facts<'f>,
        space: &'s Space,
        state: State,
        ops: Vec<OperationId>,
    ) -> Option<Self> {
        let model = facts.model;
        let n_ops = model.workload.operations.len();
        let p = Placement::build(facts, space, &state)?;
        let mut s = Search {
            facts,
            space,
            planned: std::cell::Cell::new(0),
            budget: u64::MAX,
            unsupported: unsupported(space, &state),
            state,
            p: std::cell::RefCell::new(p),
            op_score: vec![0.0; n_ops],
            op_idx: vec![Vec::new(); n_ops],
            wanted: FxHashMap::default(),
            total: 0.0,
        };
        let (_, ops, scores, idx) = s.evaluate(&Change::default(), Some(ops), None)?;
        s.apply(&ops, scores, idx);
        s.total = s.recount();
        Some(s)
    }

    fn recount(&self) -> f64 {
        self.op_score.iter().sum::<f64>()
            + self
                .wanted
                .values()
                .map(|w| wanted_cost(w, &self.facts.settings.design.costs))
                .sum::<f64>()
            + penalty(self.facts, self.space, &self.state)
    }

    /// How many relationships no rule supports after `change`.
    fn unsupported_after(&self, change: &Change) -> usize {
        let empty = |r: usize, o: usize| usize::from(self.space.rels[r][o].support.is_empty());
        change.rels.iter().fold(self.unsupported, |n, &(r, o)| {
            n + empty(r, o) - empty(r, self.state.rel[r])
        })
    }

    /// Re-plans, under `state` changed by `change`, the operations the change
    /// can alter (or `ops` when given): the new total, those operations, and
    /// their scores and indexes; also handing the plans to `keep` when given.
    /// `None` when the changed state cannot exist.
    fn evaluate(
        &self,
        change: &Change,
        ops: Option<Vec<OperationId>>,
        mut keep: Option<&mut Vec<crate::costs::plan::OpPlan>>,
    ) -> Option<Priced> {
        let mut p = self.p.borrow_mut();
        let seeds = self.seeds(change);
        let mut touching = match ops {
            Some(_) => Vec::new(),
            None => self.members(&p, &seeds),
        };
        if !p.change(self.facts, self.space, change) {
            return None;
        }
        let ops = match ops {
            Some(o) => o,
            None => {
                touching.extend(self.members(&p, &seeds));
                self.affected(&seeds, touching)
            }
        };
        let ops = &ops[..];
        let planner = Planner {
            facts: self.facts,
            space: self.space,
            p: &p,
        };
        let coef = &self.facts.settings.design.costs;
        let c = coef.unsupported_layout;
        let mut scores = Vec::with_capacity(ops.len());
        let mut idx = Vec::with_capacity(ops.len());
        // The penalties as `penalty` writes them (a count times the charge),
        // so the total is the one a whole re-count gives, to the bit.
        let mut total =
            self.total + self.unsupported_after(change) as f64 * c - self.unsupported as f64 * c;
        let mut touched: FxHashMap<String, Wanted> = FxHashMap::default();
        for op in ops {
            total -= self.op_score[op.index()];
            for w in &self.op_idx[op.index()] {
                self.touch(&mut touched, &w.key.0);
                want(&mut touched, w, -1);
            }
        }
        self.planned.set(self.planned.get() + ops.len() as u64);
        super::watch::priced(ops.len() as u64);
        for op in ops {
            let plan = planner.plan(*op);
            let s = plan.cost.score * self.facts.model.operation(*op).rate(self.facts.mix);
            total += s;
            scores.push(s);
            let mut mine = Vec::with_capacity(plan.indexes.len());
            // The TTL index an insert's plan carries is wanted as the
            // steps' indexes are (costs/plan/expiry.rs).
            let ttl = plan.expiry.as_ref().map(|t| ttl_wish(self.facts, *op, t));
            let wishes = plan
                .indexes
                .iter()
                .map(|n| wish(self.facts, *op, n))
                .chain(ttl);
            for w in wishes {
                self.touch(&mut touched, &w.key.0);
                want(&mut touched, &w, 1);
                mine.push(w);
            }
            idx.push(mine);
            if let Some(k) = keep.as_deref_mut() {
                k.push(plan);
            }
        }
        p.revert();
        for (coll, after) in &touched {
            let before = self.wanted.get(coll).map_or(0.0, |w| wanted_cost(w, coef));
            total += wanted_cost(after, coef) - before;
        }
        Some((total, ops.to_vec(), scores, idx))
    }

    /// Copies `coll`'s wanted indexes into `touched` the first time a move touches it.
    fn touch(&self, touched: &mut FxHashMap<String, Wanted>, coll: &str) {
        if !touched.contains_key(coll) {
            touched.insert(
                coll.to_string(),
                self.wanted.get(coll).cloned().unwrap_or_default(),
            );
        }
    }

    /// The entities a change moves: those of its relationships, and the
    /// members of its entity-level candidates.
    fn seeds(&self, change: &Change) -> Vec<crate::model::EntityId> {
        let model = self.facts.model;
        let mut seeds: Vec<crate::model::EntityId> = Vec::new();
        for (r, _) in &change.rels {
            let rel = &model.relationships[*r];
            seeds.push(rel.parent);
            seeds.push(rel.child);
        }
        for (i, _) in &change.entities {
            super::parts::candidate_entities(model, &self.space.entity[*i], &mut seeds);
        }
        seeds
    }

    /// Every entity that shares a top-level document with a seed under `p`.
    fn members(
        &self,
        p: &Placement<'s>,
        seeds: &[crate::model::EntityId],
    ) -> Vec<crate::model::EntityId> {
        let mut roots: Vec<crate::model::EntityId> = seeds.iter().map(|e| p.root(*e)).collect();
        roots.sort();
        roots.dedup();
        let mut out = Vec::new();
        for r in roots {
            p.members(self.facts, r, &mut out);
        }
        out
    }

    /// Operations whose plan a move can change: those touching an entity that
    /// shares a top-level document (before or after the move) with an entity
    /// of a moved relationship, or a member of a moved entity-level candidate;
    /// with the rest of their atomic groups.
    fn affected(
        &self,
        seeds: &[crate::model::EntityId],
        mut touching: Vec<crate::model::EntityId>,
    ) -> Vec<OperationId> {
        touching.extend_from_slice(seeds);
        touching.sort();
        touching.dedup();
        let mut out: Vec<OperationId> = Vec::new();
        for e in touching {
            out.extend(self.facts.ops_touching[e.index()].iter().copied());
        }
        out.sort();
        out.dedup();
        for g in &self.facts.model.workload.atomic_groups {
            if g.operations.iter().any(|o| out.binary_search(o).is_ok()) {
                for o in &g.operations {
                    if let Err(at) = out.binary_search(o) {
                        out.insert(at, *o);
                    }
                }
            }
        }
        out
    }

    fn apply(&mut self, ops: &[OperationId], scores: Vec<f64>, idx: Vec<Vec<Wish>>) {
        for op in ops {
            for w in std::mem::take(&mut self.op_idx[op.index()]) {
                want(&mut self.wanted, &w, -1);
            }
        }
        for ((op, s), mine) in ops.iter().zip(scores).zip(idx) {
            self.op_score[op.index()] = s;
            for w in &mine {
                want(&mut self.wanted, w, 1);
            }
            self.op_idx[op.index()] = mine;
        }
    }

    /// Makes `change` the search's state.
    fn make(&mut self, change: &Change) {
        self.unsupported = self.unsupported_after(change);
        let p = self.p.get_mut();
        let made = p.change(self.facts, self.space, change);
        debug_assert!(made, "a move priced as possible could not be made");
        p.keep();
        for &(r, o) in &change.rels {
            self.state.rel[r] = o;
        }
        for &(i, on) in &change.entities {
            self.state.entity[i] = on;
        }
    }

    /// Marks the choices next to moved relationships (sharing an entity with
    /// them or their neighbours) and every entity-level choice for another look.
    fn mark_dirty(&self, vars: &[Var], ents: &[usize], moved: &[usize], dirty: &mut [bool]) {
        let f = self.facts;
        let mut near: Vec<crate::model::EntityId> = Vec::new();
        for r in moved {
            let rel = &f.model.relationships[*r];
            for e in [rel.parent, rel.child] {
                near.push(e);
                for x in f.rels_from[e.index()].iter().chain(&f.rels_to[e.index()]) {
                    let o = f.model.relationship(*x);
                    near.push(o.parent);
                    near.push(o.child);
                }
            }
        }
        // Relationship r is choice r (`vars`): marking the relationships of
        // the entities near the move, rather than asking every choice
        // whether it is near, kept a move's cost from growing with the
        // model (issue 45).
        for e in near {
            for r in f.rels_from[e.index()].iter().chain(&f.rels_to[e.index()]) {
                debug_assert!(matches!(vars[r.index()], Var::Rel(v) if v == r.index()));
                dirty[r.index()] = true;
            }
        }
        // Entity-level choices (`ents`, of the part searched) follow the
        // relationships' (`vars`): always looked at again.
        for &vi in ents {
            debug_assert!(matches!(vars[vi], Var::Ent(_)));
            dirty[vi] = true;
        }
    }

    /// Coordinate descent: try every option of every choice, keep
    /// improvements; then the total from scratch.
    fn descend(&mut self, vars: &[Var]) {
        let order: Vec<usize> = (0..vars.len()).collect();
        let ents: Vec<usize> = (self.space.rels.len()..vars.len()).collect();
        self.descend_over(vars, &order, &ents, &mut vec![true; vars.len()]);
        self.total = self.recount();
    }

    /// Coordinate descent over the choices `order` (indexes into `vars`,
    /// its entity-level ones `ents`), `dirty` as long as `vars`.
    fn descend_over(&mut self, vars: &[Var], order: &[usize], ents: &[usize], dirty: &mut [bool]) {
        // After the first pass, only choices near a move that was made can improve.
        for &vi in order {
            dirty[vi] = true;
        }
        for _pass in 0..30 {
            let mut improved = false;
            for &vi in order {
                let var = &vars[vi];
                if self.planned.get() >= self.budget {
                    break;
                }
                if !std::mem::take(&mut dirty[vi]) {
                    continue;
                }
                let (rels, options): (Vec<usize>, Vec<usize>) = match var {
                    Var::Rel(r) => (vec![*r], self.space.allowed(*r)),
                    Var::Ent(_) => (Vec::new(), vec![0, 1]),
                };
                let current = match var {
                    Var::Rel(r) => self.state.rel[*r],
                    Var::Ent(i) => usize::from(self.state.entity[*i]),
                };
                let mut best: Option<(Change, Priced)> = None;
                for o in options {
                    if o == current {
                        continue;
                    }
                    let change = match var {
                        Var::Rel(r) => Change {
                            rels: vec![(*r, o)],
                            entities: Vec::new(),
                        },
                        Var::Ent(i) => Change {
                            rels: Vec::new(),
                            entities: vec![(*i, o == 1)],
                        },
                    };
                    if let Some(priced) = self.evaluate(&change, None, None)
                        && lower(priced.0, self.total)
                        && best.as_ref().is_none_or(|b| priced.0 < b.1.0)
                    {
                        best = Some((change, priced));
                    }
                }
                if let Some((change, (t, ops, sc, ix))) = best {
                    self.make(&change);
                    self.apply(&ops, sc, ix);
                    self.total = t;
                    improved = true;
                    self.mark_dirty(vars, ents, &rels, dirty);
                }
            }
            if !improved {
                break;
            }
        }
    }
}

/// Relationships whose chosen option no rule supports.
fn unsupported(space: &Space, state: &State) -> usize {
    state
        .rel
        .iter()
        .enumerate()
        .filter(|(r, i)| space.rels[*r][**i].support.is_empty())
        .count()
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

/// Starts a part of `size` choices gets (`Part::size`): on large models
/// the two that matter most (time grows with each).
fn starts_for(size: usize) -> usize {
    if size > 60 { 2 } else { 5 }
}

/// Starting states: the rules' favourites, all references, all embedded.
pub(super) fn starts(facts: &Facts<'_>, space: &Space) -> Vec<State> {
    let mut all = all_starts(facts, space);
    all.truncate(starts_for(space.rels.len() + space.entity.len()));
    all
}

/// The five starting states, the two that matter most first.
fn all_starts(facts: &Facts<'_>, space: &Space) -> Vec<State> {
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
        use crate::design::Layout as L;
        match space.rels[r][i].layout {
            L::ParentReference | L::ManyToManyOneWay { .. } => 2,
            L::ChildReferences => 1,
            _ => 0,
        }
    });
    let embeds = pick(&|r, i| {
        use crate::design::Layout as L;
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
    // A polymorphic collection only pays once its kinds all keep references:
    // from one relationship at a time the descent never reaches it.
    let mut refs_with_entities = refs.clone();
    refs_with_entities.entity = with_entities.entity.clone();
    vec![rules, refs, embeds, with_entities, refs_with_entities]
}

/// Makes a state feasible by replacing embedding choices that conflict.
pub(super) fn repair(facts: &Facts<'_>, space: &Space, state: State) -> Option<State> {
    repair_keeping(facts, space, state, usize::MAX)
}

/// `repair`, never changing relationship `keep`: entity candidates are
/// switched off first, last first; then the last embedding relationship is
/// given its first option that embeds nothing, one at a time, until the
/// state can exist.
pub fn repair_keeping(
    facts: &Facts<'_>,
    space: &Space,
    mut state: State,
    keep: usize,
) -> Option<State> {
    loop {
        if Placement::build(facts, space, &state).is_some() {
            return Some(state);
        }
        match state.entity.iter().rposition(|on| *on) {
            Some(i) => state.entity[i] = false,
            None => break,
        }
    }
    // Each step changes the placement in place: building it again per step
    // made the repair of a chain embedded thousands deep quadratic (issue 45).
    let mut sized = Sizing::new(facts, space, &state);
    // Relationships at or past `below` embed nothing (or are `keep`): each
    // step looks only below the last one it changed, where a look from the
    // end each time made a repair of thousands of steps quadratic (issue 45).
    let mut below = space.rels.len();
    loop {
        if sized.as_ref().is_some_and(|s| s.misfits == 0) {
            return Some(state);
        }
        let (r, option) = unembedding(space, &state, keep, below)?;
        below = r;
        state.rel[r] = option;
        let step = Change {
            rels: vec![(r, option)],
            entities: Vec::new(),
        };
        if sized
            .as_mut()
            .is_some_and(|s| !s.force(facts, space, &step))
        {
            sized = None;
        }
        if sized.is_none() {
            sized = Sizing::new(facts, space, &state);
        }
    }
}

fn embeds(layout: &crate::design::Layout) -> bool {
    use crate::design::Layout as L;
    matches!(layout, L::Embed | L::EmbedParentInChild | L::Bucket { .. })
}

/// The last relationship (not `keep`) below `below` whose option embeds,
/// and its first allowed option that does not.
fn unembedding(space: &Space, state: &State, keep: usize, below: usize) -> Option<(usize, usize)> {
    let r = (0..below)
        .rev()
        .filter(|r| *r != keep)
        .find(|r| embeds(&space.rels[*r][state.rel[*r]].layout))?;
    let option = space
        .allowed(r)
        .into_iter()
        .find(|i| !embeds(&space.rels[r][*i].layout))?;
    Some((r, option))
}

/// A placement as `Placement::sized` gives it, and which of its documents
/// do not fit: the state can exist when none is left.
struct Sizing<'s> {
    p: Placement<'s>,
    misfit: Vec<bool>,
    misfits: usize,
}

impl<'s> Sizing<'s> {
    fn new(facts: &Facts<'_>, space: &'s Space, state: &State) -> Option<Self> {
        let p = Placement::sized(facts, space, state)?;
        let mut misfit = vec![false; p.home.len()];
        let mut misfits = 0;
        for e in p.misfits(facts) {
            misfit[e] = true;
            misfits += 1;
        }
        Some(Sizing { p, misfit, misfits })
    }

    /// Applies `step`; `false` when the placement cannot take it in place.
    fn force(&mut self, facts: &Facts<'_>, space: &'s Space, step: &Change) -> bool {
        let Some(changed) = self.p.force(facts, space, step) else {
            return false;
        };
        for e in changed {
            let now = !self.p.fits(facts, e);
            if now != self.misfit[e] {
                self.misfit[e] = now;
                if now {
                    self.misfits += 1;
                } else {
                    self.misfits -= 1;
                }
            }
        }
        true
    }
}

/// Local search from several starts; the best state found and its score.
pub fn local_search(facts: &Facts<'_>, space: &Space) -> Option<(State, f64)> {
    local_search_within(facts, space, PLAN_BUDGET).map(|s| (s.state, s.score))
}

/// What a bounded search found.
pub struct Searched {
    pub state: State,
    pub score: f64,
    /// Operation plans priced.
    pub planned: u64,
    /// Whether the budget stopped the search before it settled: the state is
    /// the best found, not a local optimum.
    pub stopped: bool,
}

/// `local_search`, pricing at most about `budget` operation plans: part
/// by part when the model has more than one part with choices (`parts`).
pub fn local_search_within(facts: &Facts<'_>, space: &Space, budget: u64) -> Option<Searched> {
    let parts = super::parts::of(facts, space);
    if parts.parts.len() > 1 {
        return by_parts::search(facts, space, budget, &parts);
    }
    search_whole(facts, space, budget)
}

/// `local_search_within` over the whole model at once (every model's
/// search before issue 45's parts: the tests compare the two).
pub(crate) fn search_whole(facts: &Facts<'_>, space: &Space, budget: u64) -> Option<Searched> {
    let vars = vars(space);
    let mut best: Option<(State, f64)> = None;
    let mut seen: Vec<State> = Vec::new();
    let mut planned = 0u64;
    let mut stopped = false;
    for start in starts(facts, space) {
        if planned >= budget {
            stopped = true;
            break;
        }
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
        search.planned.set(planned + search.planned.get());
        search.budget = budget;
        search.descend(&vars);
        planned = search.planned.get();
        stopped |= planned >= budget;
        let total = objective(facts, space, &search.state)?;
        if best.as_ref().is_none_or(|(_, b)| total < *b - 1e-12) {
            best = Some((search.state, total));
        }
    }
    best.map(|(state, score)| Searched {
        state,
        score,
        planned,
        stopped,
    })
}

/// One descent from `start` (the best design of a model close to this one:
/// the same model with a many-to-many written as an entity), pricing at
/// most about `budget` plans. Starting near the answer, it settles in a
/// fraction of `local_search_within`'s plans. Part by part, as
/// `local_search_within`, when the model has more than one part.
pub fn local_search_from(
    facts: &Facts<'_>,
    space: &Space,
    start: State,
    budget: u64,
) -> Option<Searched> {
    let parts = super::parts::of(facts, space);
    if parts.parts.len() > 1 {
        return by_parts::search_from(facts, space, start, budget, &parts);
    }
    descend_whole_from(facts, space, start, budget)
}

/// `local_search_from` over the whole model at once (every model's before
/// issue 45's parts: the tests compare the two).
pub(crate) fn descend_whole_from(
    facts: &Facts<'_>,
    space: &Space,
    start: State,
    budget: u64,
) -> Option<Searched> {
    let start = repair(facts, space, start)?;
    let mut search = Search::new(facts, space, start)?;
    search.budget = budget;
    search.descend(&vars(space));
    let planned = search.planned.get();
    let score = objective(facts, space, &search.state)?;
    Some(Searched {
        state: search.state,
        score,
        planned,
        stopped: planned >= budget,
    })
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

/// Prices single changes to a settled design without re-planning everything:
/// what `decision` uses to cost each alternative.
pub struct Evaluator<'f, 's> {
    search: Search<'f, 's>,
}

impl<'f, 's> Evaluator<'f, 's> {
    pub fn new(facts: &'f Facts<'f>, space: &'s Space, state: State) -> Option<Self> {
        Search::new(facts, space, state).map(|search| Evaluator { search })
    }

    /// The total score of the design.
    pub fn total(&self) -> f64 {
        self.search.total
    }

    /// The total score of `state`, which differs from the design in the
    /// relationships `rels`, and the operations whose plans changed.
    pub fn total_with(
        &self,
        state: &State,
        rels: &[usize],
    ) -> Option<(f64, Vec<(OperationId, crate::costs::plan::OpPlan)>)> {
        self.total_with_entities(state, rels, &[])
    }

    /// `total_with`, where entity candidates `ents` changed too.
    pub fn total_with_entities(
        &self,
        state: &State,
        rels: &[usize],
        ents: &[usize],
    ) -> Option<(f64, Vec<(OperationId, crate::costs::plan::OpPlan)>)> {
        self.total_of(&Change {
            rels: rels.iter().map(|r| (*r, state.rel[*r])).collect(),
            entities: ents.iter().map(|i| (*i, state.entity[*i])).collect(),
        })
    }

    /// `total_with` for the design changed by `change`.
    pub fn total_of(
        &self,
        change: &Change,
    ) -> Option<(f64, Vec<(OperationId, crate::costs::plan::OpPlan)>)> {
        let mut plans = Vec::new();
        let (t, ops, ..) = self.search.evaluate(change, None, Some(&mut plans))?;
        Some((t, ops.into_iter().zip(plans).collect()))
    }
}

/// Whether a total is lower than another by more than the rounding of the
/// sums that make them: the search moves only on such a difference, and a
/// layout is reported cheaper than the chosen one only on such a difference
/// (two sums of the same costs in another order differ by about 1e-12).
pub(super) fn lower(total: f64, than: f64) -> bool {
    total < than - 1e-9 * than.abs().max(1.0)
}
