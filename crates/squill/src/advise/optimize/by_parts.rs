//! The search part by part (`advise::parts`): each part of the model is
//! searched on its own, from the same starts as the whole model's search,
//! and keeps the start that gives it the lowest score. A part's moves
//! re-price only its own operations, so its descent is the one it would
//! have alone; what changes against one search of the whole model is that
//! a part no longer takes the start that is best for the sum of all parts,
//! but its own best (no part scores more than under the start the whole
//! search would have kept), and that a small part in a large model gets
//! the five starts a small model gets (`starts_for`).
//!
//! Parts are searched side by side on rayon's threads. Nothing a part's
//! descent reads depends on another part (its operations, its entities'
//! placement, the indexes of its collections), and its share of the plan
//! budget is fixed before any part starts (`shares`), so each part ends
//! the same whatever the threads and whichever part ran first: the design,
//! the count of plans priced and whether the search stopped are the same
//! with one thread or many (`advise::tests::parts` checks it).

use super::{
    Placement, Planner, Search, Searched, State, Var, all_starts, objective, priced_total, repair,
    starts_for, vars, wanted_cost,
};
use crate::advise::parts::{Part, Parts};
use crate::candidates::facts::Facts;
use crate::candidates::space::Space;
use crate::model::OperationId;
use rayon::prelude::*;

/// `local_search_within` over `parts`, pricing at most about `budget`
/// operation plans in all (each part its share, `shares`).
pub(super) fn search(
    facts: &Facts<'_>,
    space: &Space,
    budget: u64,
    parts: &Parts,
) -> Option<Searched> {
    let n_starts = parts
        .parts
        .iter()
        .map(|p| starts_for(p.size()))
        .max()
        .unwrap_or(0);
    let starts: Vec<State> = all_starts(facts, space)
        .into_iter()
        .take(n_starts)
        .collect();
    search_starts(facts, space, budget, &parts.parts, starts, |p| {
        starts_for(p.size())
    })
}

/// `local_search_from` over `parts`: every part descends from `start`
/// alone, on its share of `budget`.
pub(super) fn search_from(
    facts: &Facts<'_>,
    space: &Space,
    start: State,
    budget: u64,
    parts: &Parts,
) -> Option<Searched> {
    search_starts(facts, space, budget, &parts.parts, vec![start], |_| 1)
}

/// Each part's share of `budget`, by its count of operations (what its
/// moves re-price), fixed before the search: a part run beside others
/// cannot be given what the parts before it left, since "before" would
/// depend on the threads. A part that needs less leaves its rest unused.
fn shares(parts: &[Part], budget: u64) -> Vec<u64> {
    let weight = |p: &Part| p.ops.len().max(1) as u64;
    let all: u64 = parts.iter().map(weight).sum();
    parts
        .iter()
        .map(|p| (u128::from(budget) * u128::from(weight(p)) / u128::from(all.max(1))) as u64)
        .collect()
}

/// A priced start, as the threads share it: what a `Search` holds, without
/// the cells that let one thread price moves on it in place.
struct Seed<'s> {
    /// The start's index among the starts (a part takes start `si` when
    /// `si` is below its count of starts).
    si: usize,
    state: State,
    p: Placement<'s>,
    unsupported: usize,
    op_score: Vec<f64>,
    op_idx: Vec<Vec<super::Wish>>,
    wanted: rustc_hash::FxHashMap<String, super::Wanted>,
}

impl<'s> Seed<'s> {
    fn of(si: usize, search: Search<'_, 's>) -> Self {
        Seed {
            si,
            state: search.state,
            p: search.p.into_inner(),
            unsupported: search.unsupported,
            op_score: search.op_score,
            op_idx: search.op_idx,
            wanted: search.wanted,
        }
    }

    /// A search of its own from this start, for one thread.
    fn search<'f>(&self, facts: &'f Facts<'f>, space: &'s Space) -> Search<'f, 's> {
        Search {
            facts,
            space,
            planned: std::cell::Cell::new(0),
            budget: u64::MAX,
            state: self.state.clone(),
            p: std::cell::RefCell::new(self.p.clone()),
            unsupported: self.unsupported,
            op_score: self.op_score.clone(),
            op_idx: self.op_idx.clone(),
            wanted: self.wanted.clone(),
            total: 0.0,
        }
    }
}

/// A part's choices in a state: its relationships' options, its
/// entity-level candidates on or off (`restriction`).
type Choices = (Vec<usize>, Vec<bool>);

/// What one part's descents found: for each start it took (an index into
/// the seeds), its choices there; the plans they priced beyond each
/// start's first pricing; whether its share stopped it.
struct PartFound {
    took: Vec<(usize, Choices)>,
    planned: u64,
    stopped: bool,
}

/// The search of `parts` from `starts`, part `p` taking the first
/// `takes(p)` of them.
fn search_starts<'f>(
    facts: &'f Facts<'f>,
    space: &Space,
    budget: u64,
    parts: &[Part],
    starts: Vec<State>,
    takes: impl Fn(&Part) -> usize + Sync,
) -> Option<Searched> {
    let vars = vars(space);
    let mut ent_var: Vec<Option<usize>> = vec![None; space.entity.len()];
    for (vi, v) in vars.iter().enumerate() {
        if let Var::Ent(i) = v {
            ent_var[*i] = Some(vi);
        }
    }
    // The caller's watch (`advise::watch`) follows the parts' threads.
    let watch = crate::advise::watch::open();
    // Each start repaired and priced on the operations of the parts that
    // take it (a placement and a pricing of the whole model each, so one
    // a thread); a start the same as one before it is left out.
    let repaired: Vec<Option<State>> = starts
        .into_par_iter()
        .map(|s| repair(facts, space, s))
        .collect();
    let mut distinct: Vec<(usize, State)> = Vec::new();
    for (si, start) in repaired.into_iter().enumerate() {
        if let Some(start) = start
            && !distinct.iter().any(|(_, s)| *s == start)
        {
            distinct.push((si, start));
        }
    }
    let seeds: Vec<Seed<'_>> = distinct
        .into_par_iter()
        .filter_map(|(si, start)| {
            crate::advise::watch::within(watch.clone(), || {
                let mut ops: Vec<OperationId> = parts
                    .iter()
                    .filter(|p| si < takes(p))
                    .flat_map(|p| p.ops.iter().copied())
                    .collect();
                ops.sort();
                Search::pricing(facts, space, start.clone(), ops).map(|s| Seed::of(si, s))
            })
        })
        .collect();
    if seeds.is_empty() {
        return None;
    }
    let mut planned: u64 = seeds.iter().map(|s| s.first_priced(parts, &takes)).sum();
    let shares = shares(parts, budget);
    // Each part's descents, side by side. A thread's searches go from part
    // to part: a part's descent changes only its own choices, and reads
    // nothing another part's changes, so it ends the same on them as on
    // the start itself.
    let found: Vec<PartFound> = parts
        .par_iter()
        .zip(&shares)
        .map_init(
            || {
                seeds
                    .iter()
                    .map(|s| s.search(facts, space))
                    .collect::<Vec<_>>()
            },
            |searches, (part, &share)| {
                crate::advise::watch::within(watch.clone(), || {
                    descend_part(searches, &seeds, &vars, &ent_var, part, share, &takes)
                })
            },
        )
        .collect();
    let stopped = found.iter().any(|f| f.stopped);
    planned += found.iter().map(|f| f.planned).sum::<u64>();
    // Each start's state once every part that took it descended from it.
    let states: Vec<State> = seeds
        .iter()
        .enumerate()
        .map(|(k, seed)| {
            let mut state = seed.state.clone();
            for (part, f) in parts.iter().zip(&found) {
                if let Some((_, (rels, ents))) = f.took.iter().find(|(j, _)| *j == k) {
                    for (r, o) in part.rels.iter().zip(rels) {
                        state.rel[*r] = *o;
                    }
                    for (i, on) in part.entity.iter().zip(ents) {
                        state.entity[*i] = *on;
                    }
                }
            }
            state
        })
        .collect();
    // Each part's score under each start it took, from scratch.
    let scores: Vec<Vec<Option<f64>>> = states
        .par_iter()
        .enumerate()
        .map(|(k, state)| {
            let want: Vec<bool> = found
                .iter()
                .map(|f| f.took.iter().any(|(j, _)| *j == k))
                .collect();
            part_scores(facts, space, state, parts, &want)
        })
        .collect::<Option<Vec<_>>>()?;
    let mut state = states[0].clone();
    for (pi, part) in parts.iter().enumerate() {
        let mut best: Option<(usize, f64)> = None;
        for &(k, _) in &found[pi].took {
            let Some(t) = scores[k][pi] else { continue };
            if best.is_none_or(|(_, b)| t < b - 1e-12) {
                best = Some((k, t));
            }
        }
        if let Some((k, _)) = best {
            for &r in &part.rels {
                state.rel[r] = states[k].rel[r];
            }
            for &i in &part.entity {
                state.entity[i] = states[k].entity[i];
            }
        }
    }
    let score = objective(facts, space, &state)?;
    Some(Searched {
        state,
        score,
        planned,
        stopped,
    })
}

impl Seed<'_> {
    /// The plans of this start's first pricing: the operations of the
    /// parts that take it.
    fn first_priced(&self, parts: &[Part], takes: &impl Fn(&Part) -> usize) -> u64 {
        parts
            .iter()
            .filter(|p| self.si < takes(p))
            .map(|p| p.ops.len() as u64)
            .sum()
    }
}

/// One part's descents from each start it takes, on `searches` (this
/// thread's, one per seed), within `share` plans: its first pricing of
/// each start is counted against the share as the part's own.
#[allow(clippy::too_many_arguments)]
fn descend_part(
    searches: &mut [Search<'_, '_>],
    seeds: &[Seed<'_>],
    vars: &[Var],
    ent_var: &[Option<usize>],
    part: &Part,
    share: u64,
    takes: &impl Fn(&Part) -> usize,
) -> PartFound {
    let ents: Vec<usize> = part.entity.iter().filter_map(|i| ent_var[*i]).collect();
    let order: Vec<usize> = part
        .rels
        .iter()
        .copied()
        .chain(ents.iter().copied())
        .collect();
    let mut dirty = vec![true; vars.len()];
    let mut found = PartFound {
        took: Vec::new(),
        planned: 0,
        stopped: false,
    };
    let mut used = 0u64;
    let mut from: Vec<Choices> = Vec::new();
    for (k, (search, seed)) in searches.iter_mut().zip(seeds).enumerate() {
        if seed.si >= takes(part) {
            continue;
        }
        // Two starts the same on this part end the same on it.
        let here = restriction(&seed.state, part);
        if from.contains(&here) {
            continue;
        }
        from.push(here);
        if used >= share {
            found.stopped = true;
            break;
        }
        used += part.ops.len() as u64;
        search.planned.set(used);
        search.budget = share;
        search.total = part_total(search, part);
        search.descend_over(vars, &order, &ents, &mut dirty);
        found.planned += search.planned.get() - used;
        used = search.planned.get();
        found.stopped |= used >= share;
        found.took.push((k, restriction(&search.state, part)));
    }
    found
}

/// A state's choices on `part`.
fn restriction(state: &State, part: &Part) -> Choices {
    (
        part.rels.iter().map(|r| state.rel[*r]).collect(),
        part.entity.iter().map(|i| state.entity[*i]).collect(),
    )
}

/// The score of `part` in `search`, from the search's running figures:
/// what its moves are weighed against (a part's total, not the model's,
/// so that its descent is the one it would make alone).
fn part_total(search: &Search<'_, '_>, part: &Part) -> f64 {
    let mut total = 0.0;
    let mut colls: Vec<&str> = Vec::new();
    for op in &part.ops {
        total += search.op_score[op.index()];
        for w in &search.op_idx[op.index()] {
            colls.push(&w.key.0);
        }
    }
    colls.sort_unstable();
    colls.dedup();
    for c in colls {
        total += search
            .wanted
            .get(c)
            .map_or(0.0, |w| wanted_cost(w, &search.facts.settings.design.costs));
    }
    total + unsupported_in(search.space, &search.state, part) as f64 * charge(search.facts)
}

fn charge(facts: &Facts<'_>) -> f64 {
    facts.settings.design.costs.unsupported_layout
}

/// The relationships of `part` whose chosen option no rule supports.
fn unsupported_in(space: &Space, state: &State, part: &Part) -> usize {
    part.rels
        .iter()
        .filter(|r| space.rels[**r][state.rel[**r]].support.is_empty())
        .count()
}

/// The score of each part `want` names under `state`, from scratch: what
/// `objective` gives the part alone (its penalty, its operations, the
/// indexes they want). `None` when the state cannot exist.
pub(crate) fn part_scores(
    facts: &Facts<'_>,
    space: &Space,
    state: &State,
    parts: &[Part],
    want: &[bool],
) -> Option<Vec<Option<f64>>> {
    let p = Placement::build(facts, space, state)?;
    let planner = Planner {
        facts,
        space,
        p: &p,
    };
    Some(
        parts
            .iter()
            .zip(want)
            .map(|(part, w)| {
                w.then(|| {
                    let penalty = unsupported_in(space, state, part) as f64 * charge(facts);
                    priced_total(&planner, part.ops.iter().copied(), penalty)
                })
            })
            .collect(),
    )
}
