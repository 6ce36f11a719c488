//! Deep pages: what a page past the first costs under the paging the model
//! states. Keyset paging starts a range scan after the last item's sort key
//! (the index holds the sort keys after the equality keys, as it does for
//! every sorted, limited read), so a page 1,000 deep reads `limit` keys as
//! page 1 does. `skip` walks every key before its page: priced by the
//! expected depth, with the deepest page reported as the worst case.

use super::StepCost;
use crate::design::{Step, StepPaging};
use crate::model::{Paging, PagingBy};

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
