//! The search part by part (`advise::parts`): each part of the model is
//! searched on its own, from the same starts as the whole model's search,
//! and keeps the start that gives it the lowest score. A part's moves
//! re-price only its own operations, so its descent is the one it would
//! have alone; what changes against one search of the whole model is that
//! a part no longer takes the start that is best for the sum of all parts,
//! but its own best (no part scores more than under the start the whole
//! search would have kept), and that a small part in a large model gets
//! the five starts a small model gets (`starts_for`).

use super::{
    Placement, Planner, Search, Searched, State, Var, all_starts, objective, priced_total, repair,
    starts_for, vars, wanted_cost,
};
use crate::advise::parts::{Part, Parts};
use crate::candidates::facts::Facts;
use crate::candidates::space::Space;
use crate::model::OperationId;

/// `local_search_within` over `parts`, pricing at most about `budget`
/// operation plans in all: each part may spend its share (by its count of
/// operations) of what the parts before it left.
pub(super) fn search(
    facts: &Facts<'_>,
    space: &Space,
    budget: u64,
    parts: &Parts,
) -> Option<Searched> {
    let vars = vars(space);
    let mut ent_var: Vec<Option<usize>> = vec![None; space.entity.len()];
    for (vi, v) in vars.iter().enumerate() {
        if let Var::Ent(i) = v {
            ent_var[*i] = Some(vi);
        }
    }
    let parts = &parts.parts;
    let n_starts = parts
        .iter()
        .map(|p| starts_for(p.size()))
        .max()
        .unwrap_or(0);
    // One search per distinct start, pricing the operations of the parts
    // that take it: the first pricing of a start is shared by its parts.
    let mut searches: Vec<(usize, Search<'_, '_>)> = Vec::new();
    let mut seen: Vec<State> = Vec::new();
    let mut planned = 0u64;
    for (si, start) in all_starts(facts, space)
        .into_iter()
        .take(n_starts)
        .enumerate()
    {
        let Some(start) = repair(facts, space, start) else {
            continue;
        };
        if seen.contains(&start) {
            continue;
        }
        seen.push(start.clone());
        let mut ops: Vec<OperationId> = parts
            .iter()
            .filter(|p| si < starts_for(p.size()))
            .flat_map(|p| p.ops.iter().copied())
            .collect();
        ops.sort();
        let Some(search) = Search::pricing(facts, space, start, ops) else {
            continue;
        };
        planned += search.planned.get();
        searches.push((si, search));
    }
    if searches.is_empty() {
        return None;
    }
    let weight = |p: &Part| p.ops.len().max(1) as u64;
    let mut weight_left: u64 = parts.iter().map(weight).sum();
    let mut left = budget;
    let mut stopped = false;
    let mut dirty = vec![true; vars.len()];
    // For each part, the searches it took, in the order of the starts.
    let mut took: Vec<Vec<usize>> = Vec::with_capacity(parts.len());
    for part in parts {
        let share = (u128::from(left) * u128::from(weight(part)) / u128::from(weight_left)) as u64;
        weight_left -= weight(part);
        let ents: Vec<usize> = part.entity.iter().filter_map(|i| ent_var[*i]).collect();
        let order: Vec<usize> = part
            .rels
            .iter()
            .copied()
            .chain(ents.iter().copied())
            .collect();
        let mut used = 0u64;
        let mut mine: Vec<usize> = Vec::new();
        let mut from: Vec<(Vec<usize>, Vec<bool>)> = Vec::new();
        for (k, (si, search)) in searches.iter_mut().enumerate() {
            if *si >= starts_for(part.size()) {
                continue;
            }
            // Two starts the same on this part end the same on it.
            let here = restriction(&search.state, part);
            if from.contains(&here) {
                continue;
            }
            from.push(here);
            if used >= share {
                stopped = true;
                break;
            }
            // Its operations' first pricing, made with the search's.
            used += part.ops.len() as u64;
            search.planned.set(used);
            search.budget = share;
            search.total = part_total(search, part);
            search.descend_over(&vars, &order, &ents, &mut dirty);
            planned += search.planned.get() - used;
            used = search.planned.get();
            stopped |= used >= share;
            mine.push(k);
        }
        left = left.saturating_sub(used);
        took.push(mine);
    }
    // Each part's score under each search it took, from scratch.
    let mut scores: Vec<Vec<Option<f64>>> = vec![Vec::new(); searches.len()];
    for (k, (_, search)) in searches.iter().enumerate() {
        let want: Vec<bool> = took.iter().map(|m| m.contains(&k)).collect();
        scores[k] = part_scores(facts, space, &search.state, parts, &want)?;
    }
    let mut state = searches[0].1.state.clone();
    for (pi, part) in parts.iter().enumerate() {
        let mut best: Option<(usize, f64)> = None;
        for &k in &took[pi] {
            let Some(t) = scores[k][pi] else { continue };
            if best.is_none_or(|(_, b)| t < b - 1e-12) {
                best = Some((k, t));
            }
        }
        if let Some((k, _)) = best {
            let chosen = &searches[k].1.state;
            for &r in &part.rels {
                state.rel[r] = chosen.rel[r];
            }
            for &i in &part.entity {
                state.entity[i] = chosen.entity[i];
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

/// A state's choices on `part`.
fn restriction(state: &State, part: &Part) -> (Vec<usize>, Vec<bool>) {
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
        for ((coll, _), _) in &search.op_idx[op.index()] {
            colls.push(coll);
        }
    }
    colls.sort_unstable();
    colls.dedup();
    for c in colls {
        total += search.wanted.get(c).map_or(0.0, wanted_cost);
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
