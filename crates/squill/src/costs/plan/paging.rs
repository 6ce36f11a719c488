//! Deep pages: what a page past the first costs under the paging the model
//! states. Keyset paging starts a range scan after the last item's sort key
//! (the index holds the sort keys after the equality keys, as it does for
//! every sorted, limited read), so a page 1,000 deep reads `limit` keys as
//! page 1 does. `skip` walks every key before its page: priced by the
//! expected depth, with the deepest page reported as the worst case.

use super::{Access, StepCost};
use crate::design::{Step, StepPaging};
use crate::model::{Paging, PagingBy, SortKey};

/// Keyset pages start after the last item's sort key and its `_id`: items
/// that tie on the key are neither skipped nor read twice. The index keys
/// `_id` right after the sort's last key, in that key's direction, so one
/// walk gives both in the sort's order (a sort that has `_id` already
/// needs nothing).
pub(super) fn after_id(
    keys: &mut Vec<(String, i32)>,
    sort: &[SortKey],
    paging: Option<Paging>,
    acc: &Access,
) {
    if !paging.is_some_and(|p| p.by == PagingBy::Keyset) || sort.iter().any(|s| s.field == "_id") {
        return;
    }
    let Some(last) = sort.last().map(|s| acc.path(&s.field)) else {
        return;
    };
    if let Some(at) = keys.iter().position(|(k, _)| *k == last) {
        let dir = keys[at].1;
        keys.insert(at + 1, (acc.path("_id"), dir));
    }
}

/// Adds the paging of a sorted, limited step whose page holds `limit`
/// items: `pages` pages are read per execution (one per parent for an include); `covered` says whether the
/// index holds every key the filter tests (otherwise a skipped entry is
/// also a document fetched, of `doc_bytes`).
pub(super) fn paged(
    step: &mut Step,
    cost: &mut StepCost,
    paging: Option<Paging>,
    limit: Option<u64>,
    pages: f64,
    covered: bool,
    doc_bytes: f64,
) {
    let (Some(p), Some(page)) = (paging, limit) else {
        return;
    };
    let skipped = p.skipped(page) * pages;
    cost.keys += skipped;
    if !covered {
        cost.docs += skipped;
        cost.bytes_read += skipped * doc_bytes;
    }
    step.paging = Some(Box::new(StepPaging {
        by: p.by,
        after: match p.by {
            PagingBy::Keyset => step.sort.first().map(|(k, _)| k.clone()),
            PagingBy::Skip => None,
        },
        skipped,
        deepest_skipped: p.deepest_skipped(page),
        page: page as f64,
    }));
}
