//! A claim's partial index (the jobs whose condition it tests, `status =
//! pending`) beside an index of the same keys over every document, which
//! another operation wants: either both are kept, or the partial one goes
//! and its claims walk the full one, past the documents their condition
//! refuses. The search (`optimize`) and the report (`build`) both decide
//! with these figures, so the total the search chose a design on is the
//! total the report shows.

use crate::design::PartialCondition;
use crate::settings::CostCoefficients;

/// One wanted index as the walk sees it.
pub(super) struct Side<'a> {
    pub keys: &'a [(String, i32)],
    pub partial: &'a [PartialCondition],
    /// Entries the index holds.
    pub entries: f64,
    /// The fewest first keys its users test by equality.
    pub equalities: usize,
    pub unique: bool,
}

/// The keys (and documents, each fetched to test the condition) a claim
/// walks past on each run when `partial`'s users read `full` instead:
/// about `1 / share - 1`, the share being `partial`'s entries over
/// `full`'s (audit45 gap 6: `book_earliest` was priced at 1 key on an
/// index without `status`). `Some(0.0)` when `full` goes straight to the
/// documents that meet the condition; `None` when `full` cannot stand in
/// for `partial`: it is partial too, it does not serve the same queries,
/// or `partial` is unique (it enforces its uniqueness over the documents
/// it holds, which the full one does not, issue 41).
pub(super) fn past(partial: &Side<'_>, full: &Side<'_>) -> Option<f64> {
    if partial.partial.is_empty() || partial.unique || !full.partial.is_empty() {
        return None;
    }
    if !crate::costs::plan::covers_after_equalities(full.keys, partial.keys, partial.equalities) {
        return None;
    }
    if full.entries <= 0.0 || partial.entries <= 0.0 || partial.entries >= full.entries {
        return Some(0.0);
    }
    // A full index that keys the condition's field by equality (`{org,
    // status, …}` under a claim filtered on `status` too) goes straight
    // to the documents that meet it: no walk.
    let keyed = partial.partial.iter().all(|c| match c {
        PartialCondition::Equals { path, .. } => full
            .keys
            .iter()
            .take(partial.equalities)
            .any(|(k, _)| k == path),
        _ => false,
    });
    if keyed {
        return Some(0.0);
    }
    Some(full.entries / partial.entries - 1.0)
}

/// What the walk costs per second: `past` keys and documents for each run
/// of the claims, at their summed `rate`.
pub(super) fn per_second(past: f64, rate: f64, c: &CostCoefficients) -> f64 {
    rate * past * (c.index_key + c.document_examined)
}

/// Of two wanted indexes `full` could stand in for, the one whose walk is
/// shorter (the first on a tie): both the search and the report pick so.
pub(super) fn shorter(a: Option<(usize, f64)>, b: (usize, f64)) -> Option<(usize, f64)> {
    match a {
        Some(x) if x.1 <= b.1 => Some(x),
        _ => Some(b),
    }
}
