//! Deep pages: what a page past the first costs under the paging the model
//! states. Keyset paging starts a range scan after the last item's sort key
//! (the index holds the sort keys after the equality keys, as it does for
//! every sorted, limited read), so a page 1,000 deep reads `limit` keys as
//! page 1 does. `skip` walks every key before its page: priced by the
//! expected depth, with the deepest page reported as the worst case.

use super::{Access, StepCost};
use crate::design::{PastTheMatches, Step, StepPaging};
use crate::model::{Paging, PagingBy, SortKey};

/// Keyset pages start after the last item's sort key and its `_id`: items
/// that tie on the key are neither skipped nor read twice. Pages by `skip`
/// need the same order: each page is a query of its own, and items that
/// tie on the key, in no stated order, could change places between two
/// pages' queries (one on both pages, one on neither). The index keys
/// `_id` right after the sort's last key, in that key's direction, so one
/// walk gives both in the sort's order (a sort that has `_id` already
/// needs nothing).
pub(super) fn after_id(
    keys: &mut Vec<(String, i32)>,
    sort: &[SortKey],
    paging: Option<Paging>,
    acc: &Access,
) {
    if paging.is_none() || sort.iter().any(|s| s.field == "_id") {
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

/// The sort a paged step's index serves, with the `_id` tie-breaker
/// `after_id` keyed right after the sort's last key: that key is sorted on
/// too (the cookbook sorts by it), so the index's spelling must turn it
/// with the other sort keys. Left as an unsorted key, it kept direction 1
/// where the sort's first key flipped the rest, and the index walked
/// either way no longer gave the cookbook's order (a blocking sort).
pub(super) fn sort_with_id(keys: &[(String, i32)], sort: &[(String, i32)]) -> Vec<(String, i32)> {
    let mut out = sort.to_vec();
    let Some((last, dir)) = sort.last() else {
        return out;
    };
    let is_id = |k: &str| k == "_id" || k.ends_with("._id");
    if sort.iter().any(|(k, _)| is_id(k)) {
        return out;
    }
    if let Some(at) = keys.iter().position(|(k, _)| k == last)
        && let Some((next, _)) = keys.get(at + 1)
        && is_id(next)
    {
        out.push((next.clone(), *dir));
    }
    out
}

/// Items a paged read's filter matches at the largest parent (`None`
/// where the step does not know them), in the collection it reads, and
/// as the relationship states them: more where an archive split keeps
/// only a share of each parent's children in that collection
/// (`model::history_share`). The skip is priced at the first; the depth
/// and the `max` disagree only past the second (audit48 B5: a rider's
/// 346 rides of the last day are no disagreement with a page 4,000 deep
/// of a rider with at most 20,000).
pub(super) type Matches = Option<(f64, f64)>;

/// Adds the paging of a sorted, limited step whose page holds `limit`
/// items: `pages` pages are read per execution (one per parent for an include); `covered` says whether the
/// index holds every key the filter tests (otherwise a skipped entry is
/// also a document fetched, of `doc_bytes`). Where the filter's matches
/// at the largest parent are known, a skip walks no further than them
/// (audit44 K), on average and to the deepest page, and a deepest page
/// past them is noted. Not the typical parent's matches: readers who page
/// deep do so where there are pages (a forum's typical thread has 30
/// posts, and its readers who page are typically on page 22 of a long one).
#[allow(clippy::too_many_arguments)] // the step's figures, each a number
pub(super) fn paged(
    step: &mut Step,
    cost: &mut StepCost,
    paging: Option<Paging>,
    limit: Option<u64>,
    pages: f64,
    covered: bool,
    doc_bytes: f64,
    matches: Matches,
) {
    let (Some(p), Some(page)) = (paging, limit) else {
        return;
    };
    let stated = matches.map(|(_, s)| s);
    let matches = matches.map(|(m, _)| m);
    let skipped = matches.map_or_else(|| p.skipped(page), |m| p.skipped_within(page, m)) * pages;
    let deepest_items = p.deepest.max(1.0) * page as f64;
    let past_the_matches = stated
        .filter(|&largest| deepest_items > largest)
        .map(|largest| PastTheMatches {
            deepest_items,
            matched_at_largest: largest,
        });
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
        // A later page of a sort on several keys is an `$or` of one range
        // per key (`a < last a`, or `a = last a` and `b > last b`, …), each
        // a bounded walk of the same index; MongoDB can merge the walks in
        // the sort's order and stop at the limit (`SORT_MERGE`), so a page
        // is priced at `limit` keys as for one key.
        then: match p.by {
            PagingBy::Keyset => step.sort.iter().skip(1).map(|(k, _)| k.clone()).collect(),
            PagingBy::Skip => Vec::new(),
        },
        skipped,
        deepest_skipped: matches.map_or_else(
            || p.deepest_skipped(page),
            |largest| p.deepest_skipped(page).min(largest.max(0.0)),
        ),
        page: page as f64,
        past_the_matches,
        deepest_share: p.deepest_share,
    }));
}

/// Pages past the first of children kept in buckets of `per` children
/// each (issue 41): a page spans `limit / per` bucket documents. Under
/// keyset paging the next page starts after the last bucket read, by its
/// key, at any depth. Under `skip` the read walks the bucket keys before
/// its page, whatever the buckets are keyed by: buckets numbered by page
/// are skipped too (`.skip(page - 1)` over `{parent, page}`, as the
/// cookbook writes it), so page N walks N − 1 keys, the skipped children
/// over `per` bucket keys per page, `pages` pages an execution.
pub(super) fn paged_buckets(
    step: &mut Step,
    cost: &mut StepCost,
    (paging, limit): (Option<Paging>, Option<u64>),
    per: f64,
    pages: f64,
    key: &str,
) {
    let (Some(p), Some(limit)) = (paging, limit) else {
        return;
    };
    let per = per.max(1.0);
    let walked = |children: f64| children / per;
    let skipped = walked(p.skipped(limit)) * pages;
    cost.keys += skipped;
    step.paging = Some(Box::new(StepPaging {
        by: p.by,
        after: match p.by {
            PagingBy::Keyset => Some(key.to_string()),
            PagingBy::Skip => None,
        },
        then: Vec::new(),
        skipped,
        deepest_skipped: walked(p.deepest_skipped(limit)),
        page: (limit as f64 / per).ceil(),
        past_the_matches: None,
        deepest_share: p.deepest_share,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::{Action, Purpose};

    fn step() -> Step {
        super::super::Planner::step("posts_by_day", Action::Find, Vec::<Purpose>::new())
    }

    /// Buckets of 10 posts each, pages of 25 read by `skip` 5 pages
    /// deep on average by 5% of the reads, 1,000 at the deepest: a read
    /// walks 0.05 × 4 × 25 = 5 posts, half a bucket, on average, and
    /// 2,497.5 buckets' worth (24,975 posts) to the deepest page, by day or
    /// by page alike. Buckets of one page (25 posts) walk page − 1 keys:
    /// 0.05 × 4 = 0.2 on average, 999 to page 1,000. Keyset paging walks
    /// none.
    #[test]
    fn skip_walks_the_buckets_before_its_page() {
        let paging = |by| Paging {
            by,
            past_first: 0.05,
            depth: 5.0,
            deepest: 1000.0,
            deepest_share: None,
        };
        let walk = |by, per, key| {
            let (mut s, mut cost) = (step(), StepCost::default());
            paged_buckets(
                &mut s,
                &mut cost,
                (Some(paging(by)), Some(25)),
                per,
                1.0,
                key,
            );
            (cost.keys, s.paging.expect("paged"))
        };
        let (keys, p) = walk(PagingBy::Skip, 10.0, "day");
        assert!((keys - 0.5).abs() < 1e-9, "{keys}");
        assert!((p.deepest_skipped - 2497.5).abs() < 1e-9, "{p:?}");
        assert_eq!(p.page, 3.0);
        let (keys, p) = walk(PagingBy::Skip, 25.0, "page");
        assert!((keys - 0.2).abs() < 1e-9, "{keys}");
        assert!((p.deepest_skipped - 999.0).abs() < 1e-9, "{p:?}");
        let (keys, p) = walk(PagingBy::Keyset, 10.0, "day");
        assert_eq!((keys, p.after.as_deref()), (0.0, Some("day")));
    }
}
