//! A sorted find by a list of ids an earlier step read (the stories of
//! the 200 users I follow, newest first, 100 of them): what it walks is
//! set by the list, not by one id's matches. With the sort in the index
//! after the list's key, the server merges one range per id in the
//! sort's order (a `SORT_MERGE`): it reads the first key of every range
//! before it can return the first document, then one key per document up
//! to the limit. Without the sort in the index (the elements of the hosts
//! the ids name, unwound), it reads every match and sorts them.

use super::*;

/// The keys walked and the documents read by a sorted find whose list
/// of `ids` bounds the walk, out of `total` matches, `limit` at most:
/// merged in the index's order (`merged`), or all read and sorted.
fn walk(ids: f64, total: f64, limit: Option<u64>, merged: bool, hosts: f64) -> (f64, f64) {
    if merged {
        let page = limit.map_or(total, |l| (l as f64).min(total));
        ((page + ids).min(total).max(page), page)
    } else {
        (hosts, hosts)
    }
}

impl Planner<'_> {
    /// The keys walked and documents read by a find of one kind `e` that
    /// is sorted and whose equalities hold a list of the ids step `n`
    /// read (`eq`, as `conditions` found them; `keys`, the index's).
    /// `None` when it has no sort or no such list.
    pub(super) fn sorted_by_ids(
        &self,
        plan: &OpPlan,
        e: EntityId,
        acc: &Access,
        read: &Read<'_>,
        eq: &[(String, FilterOp, ValueSource)],
        keys: &[(String, i32)],
    ) -> Option<(f64, f64)> {
        if read.sort.is_empty() {
            return None;
        }
        let ids = eq.iter().find_map(|(_, o, v)| match v {
            ValueSource::FromStep { step } if *o == FilterOp::In => plan
                .steps
                .get(step.checked_sub(1)?)
                .map(|s| s.documents.max(1.0)),
            _ => None,
        })?;
        let total = self.matched_expected(e, read.filter, None);
        let merged = read
            .sort
            .iter()
            .all(|s| keys.iter().any(|(k, _)| *k == acc.path(&s.field)));
        let hosts = find_keys::parents_holding(acc, eq, total);
        Some(walk(ids, total, read.limit, merged, hosts))
    }
}

impl Planner<'_> {
    /// `sorted_by_ids` at the largest parent: when the step whose ids the
    /// find takes has a figure at the largest parent (`Step::largest`),
    /// the same walk with that many ids, the matches scaled with them.
    pub(super) fn sorted_by_ids_at_largest(
        &self,
        plan: &OpPlan,
        e: EntityId,
        acc: &Access,
        read: &Read<'_>,
        eq: &[(String, FilterOp, ValueSource)],
        keys: &[(String, i32)],
    ) -> Option<crate::design::StepLargest> {
        if read.sort.is_empty() {
            return None;
        }
        let from = eq.iter().find_map(|(_, o, v)| match v {
            ValueSource::FromStep { step } if *o == FilterOp::In => {
                plan.steps.get(step.checked_sub(1)?)
            }
            _ => None,
        })?;
        let at = from.largest.as_deref()?;
        let (ids, ids_at) = (from.documents.max(1.0), at.documents.max(1.0));
        let total = self.matched_expected(e, read.filter, None) * ids_at / ids;
        let merged = read
            .sort
            .iter()
            .all(|s| keys.iter().any(|(k, _)| *k == acc.path(&s.field)));
        let hosts = find_keys::parents_holding(acc, eq, total);
        let (walked, examined) = walk(ids_at, total, read.limit, merged, hosts);
        Some(crate::design::StepLargest {
            relationship: at.relationship.clone(),
            parent: at.parent.clone(),
            child: at.child.clone(),
            children: at.children,
            ids: Some(ids_at),
            documents: total.min(read.limit.map_or(f64::MAX, |l| l as f64)),
            examined,
            keys: walked,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::walk;

    /// 200 ids, 400 matches, 100 a page: the first key of each of the
    /// 200 ranges, then the page, 300 keys for 100 documents.
    #[test]
    fn a_merge_of_ranges_walks_one_key_a_range_and_the_page() {
        assert_eq!(walk(200.0, 400.0, Some(100), true, 200.0), (300.0, 100.0));
        // Fewer matches than the walk: every match, once.
        assert_eq!(walk(200.0, 250.0, Some(100), true, 200.0), (250.0, 100.0));
        // No limit: every match.
        assert_eq!(walk(200.0, 400.0, None, true, 200.0), (400.0, 400.0));
    }

    /// The sort not in the index: every host the ids name read, sorted.
    #[test]
    fn a_sort_outside_the_index_reads_every_host() {
        assert_eq!(walk(200.0, 400.0, Some(100), false, 200.0), (200.0, 200.0));
    }
}
