//! Writes that move what they find out of their own selection: a sweep
//! that cancels the requests nobody accepted (`status = requested`, then
//! `status` changed), or a claim that takes a pending job. Once such a
//! write has run, the instances it wrote no longer match it, so each later
//! run finds only what arrived since the one before: the inserts of one
//! interval (`1 / rate`) that are still in the state it selects. Only the
//! first run after deployment finds the whole backlog. The planner prices
//! a run at the arrivals (`costs::plan::steady`), and an archive split
//! keeps such a state on the live side when the sweep clears it before
//! the horizon (`model::archive`): one rule for both.

use super::{Filter, FilterOp, Literal, Model, Operation, OperationKind, Test};

/// The fields an update fixes to one constant state by its `when:`
/// (`status = requested`): the value is the same on every run.
fn fixed_states(op: &Operation) -> Vec<&str> {
    op.terms
        .conditions
        .iter()
        .filter(|c| c.test == Test::Eq && c.plus.is_none() && c.value.is_constant())
        .map(|c| c.field.as_str())
        .collect()
}

/// A test of the entity's own field (not through a relationship).
/// Whether `c` is the equality on its tenant that scoping puts before
/// every filter of a tenant's entity `e` (`inputs/model_file/tenancy.rs`):
/// each run names one tenant, and what it selects there is that tenant's
/// part of the same selection (review49 A3: the tenant had counted as a
/// caller's value, and a sweep under a tenant was priced whole).
fn names_tenant(model: &Model, e: super::EntityId, c: &Filter) -> bool {
    c.op == FilterOp::Eq
        && c.related.as_ref().is_some_and(|x| {
            Some(x.relationship) == model.tenant_relationship(e)
                && x.field == "_id"
                && x.further.is_empty()
        })
}

fn own_field(c: &Filter) -> Option<&str> {
    (c.related.is_none() && c.path.len() == 1 && c.path[0] != "_id").then(|| c.path[0].as_str())
}

/// Whether `op` is a write that moves each instance it writes out of
/// what it selects, with the same selection on every run:
/// - it changes a field that its `when:` fixes to a constant (`status =
///   requested`), that its filter tests for equality (the state named),
///   or that an age of its filter tests (`before(5 minutes)` on a date
///   the write sets again);
/// - and its filter asks the same on every run: only ages (measured from
///   now) and tests of such states. A filter with the caller's own value
///   (a rider, an id, a place) selects other instances on each call, and
///   what one call leaves says nothing of the next.
///
/// A delete moves every instance it finds out of its selection: it is
/// such a write when its filter asks the same on every run (a purge of
/// the sessions unused for 30 minutes, every minute).
pub fn clears_own_selection(model: &Model, op: &Operation) -> bool {
    let fixed = fixed_states(op);
    let e = op.entity_in(model);
    let tenant = |c: &Filter| names_tenant(model, e, c);
    let (filter, changes): (&[Filter], &[String]) = match &op.kind {
        OperationKind::Update {
            filter, changes, ..
        } => (filter, changes),
        OperationKind::Delete { filter, .. } => {
            let state = |c: &Filter| {
                own_field(c).is_some_and(|f| c.op == FilterOp::Eq && fixed.contains(&f))
            };
            return !filter.is_empty()
                && filter
                    .iter()
                    .all(|c| c.age.is_some() || state(c) || tenant(c));
        }
        _ => return false,
    };
    let changed = |f: &str| changes.iter().any(|c| c == f);
    let state = |c: &Filter| {
        own_field(c).is_some_and(|f| {
            matches!(c.op, FilterOp::Eq | FilterOp::In) && (changed(f) || fixed.contains(&f))
        })
    };
    let same_every_run = filter
        .iter()
        .all(|c| c.age.is_some() || state(c) || tenant(c));
    let cleared = fixed.iter().any(|f| changed(f))
        || filter.iter().any(|c| {
            own_field(c).is_some_and(|f| {
                changed(f)
                    && (matches!(c.op, FilterOp::Eq | FilterOp::In)
                        || c.age.is_some_and(|a| a.older))
            })
        });
    same_every_run && cleared
}

/// The tests that say which state such a write selects, without its
/// ages: its filter's other tests, and an equality for each field its
/// `when:` fixes that the filter leaves out. Their share of the entity,
/// times the instances inserted between two runs, is what a run finds
/// once the backlog is gone.
pub fn state_tests(model: &Model, op: &Operation) -> Vec<Filter> {
    let (OperationKind::Update { entity, filter, .. } | OperationKind::Delete { entity, filter }) =
        &op.kind
    else {
        return Vec::new();
    };
    // The tenant's equality is no share of what arrives: a run per
    // tenant, at the write's whole rate, finds each tenant's arrivals
    // since its own last run, the entity's inserts over the rate as one
    // run over every tenant would.
    let mut out: Vec<Filter> = filter
        .iter()
        .filter(|c| c.age.is_none() && !names_tenant(model, *entity, c))
        .cloned()
        .collect();
    for f in fixed_states(op) {
        if !out.iter().any(|c| c.path.len() == 1 && c.path[0] == f) {
            out.push(Filter::new(
                model,
                *entity,
                vec![f.to_string()],
                FilterOp::Eq,
            ));
        }
    }
    out
}

/// Instances of its entity inserted between two runs of `op` in `mix`:
/// the entity's inserts a second over the write's rate. `None` when `op`
/// does not clear its own selection (`clears_own_selection`) or does not
/// run in `mix`.
pub fn arrivals_per_run(model: &Model, op: &Operation, mix: usize) -> Option<f64> {
    let (OperationKind::Update { entity, .. } | OperationKind::Delete { entity, .. }) = &op.kind
    else {
        return None;
    };
    let rate = op.rate(mix);
    (rate > 0.0 && clears_own_selection(model, op))
        .then(|| model.inserts_per_second(*entity, mix) / rate)
}

/// The states (field and constant) that a sweep clears from every
/// instance older than the returned age in days: its `before` age on
/// `field` plus one interval between its runs. The instances past that
/// age are never in those states (once the first run is over).
pub fn states_cleared_after(
    model: &Model,
    op: &Operation,
    field: &str,
) -> Option<(Vec<(String, Literal)>, f64)> {
    let OperationKind::Update { filter, .. } = &op.kind else {
        return None;
    };
    if !clears_own_selection(model, op) {
        return None;
    }
    let age = filter.iter().find_map(|c| {
        c.age
            .filter(|a| a.older && c.path.len() == 1 && c.path[0] == field)
    })?;
    let rate = op.rates.iter().copied().fold(f64::INFINITY, f64::min);
    if rate.is_nan() || rate <= 0.0 || rate.is_infinite() {
        return None;
    }
    let states: Vec<(String, Literal)> = op
        .terms
        .conditions
        .iter()
        .filter(|c| c.test == Test::Eq && c.plus.is_none() && c.value.is_constant())
        .map(|c| (c.field.clone(), c.value.clone()))
        .collect();
    (!states.is_empty()).then(|| (states, age.days + 1.0 / rate / 86_400.0))
}
