//! What a find's filter asks of an index: its conditions sorted by what an
//! index does with them, the keys of the index that serves them, the keys
//! walked, and, for instances embedded in other documents, how many of
//! those documents hold them. `find.rs` puts these into the plan's step.

use super::*;

/// A filter's conditions by what an index does with each.
pub(super) struct Conditions {
    /// Equalities and memberships, in the filter's order.
    pub(super) eq: Vec<(String, FilterOp, ValueSource)>,
    pub(super) range: Vec<(String, FilterOp, ValueSource)>,
    /// Paths of `attributes` fields tested: indexed by name and value.
    pub(super) pairs: Vec<String>,
    /// The GeoJSON condition (one a query, as MongoDB allows one `$near`):
    /// its key is the index's `2dsphere` key, after the equalities.
    pub(super) geo: Option<(String, FilterOp, ValueSource)>,
    pub(super) radius_m: Option<f64>,
    /// Each condition's path, for the keys of a unique combination.
    pub(super) paths: Vec<String>,
}

impl<'a> Planner<'a> {
    /// The conditions of `filter` on `e`'s documents (reached through
    /// `acc`), each at its path; a condition on a related entity not copied
    /// here adds its step to the plan first (`filter_path`).
    pub(super) fn conditions(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        acc: &Access,
        filter: &[Filter],
    ) -> Conditions {
        let mut out = Conditions {
            eq: Vec::new(),
            range: Vec::new(),
            pairs: Vec::new(),
            geo: None,
            radius_m: None,
            paths: Vec::with_capacity(filter.len()),
        };
        for c in filter {
            let (path, from) = self.filter_path(plan, op, e, acc, c);
            out.paths.push(path.clone());
            if self.attributes_of(e, c).is_some() {
                out.pairs.push(path.clone());
            }
            // The test as every step makes it (`filter_keys`): a value an
            // earlier step found is a membership, an `under` an equality.
            if c.op.is_geo() {
                out.radius_m = super::filter_keys::radius_m(c);
                out.geo = Some((path, c.op, from));
            } else if c.op == FilterOp::Range {
                out.range.push((path, c.op, from));
            } else {
                let op = super::filter_keys::test_op(c.op, &from);
                out.eq.push((path, op, from));
            }
        }
        out
    }

    /// Puts the test of the discriminator first among the equalities when
    /// the find reads some kinds of a polymorphic collection: every kind of
    /// it needs no test, some are the ones the application names, one is
    /// its own value.
    pub(super) fn test_kind(
        &self,
        eq: &mut Vec<(String, FilterOp, ValueSource)>,
        kinds: &[EntityId],
        acc: &Access,
        by_id: bool,
    ) {
        let group = self.p.poly[acc.root.index()];
        let whole = group.is_some_and(|g| {
            self.facts
                .model
                .entity_ids()
                .filter(|x| self.p.poly[x.index()] == Some(g))
                .count()
                == kinds.len()
        });
        if kinds.len() > 1 && !whole && !by_id {
            eq.insert(0, ("kind".to_string(), FilterOp::In, ValueSource::Param));
        }
        if let Some(kind) = &acc.kind
            && !by_id
            && kinds.len() == 1
        {
            eq.insert(
                0,
                (
                    "kind".to_string(),
                    FilterOp::Eq,
                    ValueSource::Literal {
                        value: kind.clone(),
                    },
                ),
            );
        }
    }

    /// The keys of the index that serves the find (none: a collection
    /// scan). By `_id`, that index alone; every key of a unique combination
    /// tested for equality, that combination's index alone (the other
    /// conditions test the one document); else equality, then the
    /// `2dsphere` key, then sort, then range (the ESR order).
    pub(super) fn find_keys(
        &self,
        kinds: &[EntityId],
        acc: &Access,
        read: &Read<'_>,
        conditions: &Conditions,
        by_id: bool,
    ) -> Vec<(String, i32)> {
        let e = kinds[0];
        let Conditions {
            eq,
            range,
            pairs,
            geo,
            paths,
            ..
        } = conditions;
        let mut keys: Vec<(String, i32)> = Vec::new();
        // Every key of a unique combination tested for equality: one
        // document, found by that combination's index alone (the other
        // conditions test it); `{store: 1, sku: 1}`, never `sku` after.
        let identity = crate::model::identity(self.facts.model, e, read.filter);
        // An instance embedded in the document whose `_id` the filter
        // names (an order by its id and its store's, the orders inside
        // the store): that document by `_id_`, the rest tested in it.
        let root_by_id = identity.is_some()
            && !acc.prefix.is_empty()
            && eq.iter().any(|(p, o, _)| p == "_id" && *o == FilterOp::Eq);
        let unique_parts = match identity {
            Some(crate::model::Identity::Unique { parts, .. })
                if kinds.len() == 1 && !by_id && acc.prefix.is_empty() =>
            {
                Some(parts)
            }
            _ => None,
        };
        if by_id || root_by_id {
            keys.push(("_id".to_string(), 1));
        } else if let Some(parts) = unique_parts {
            if let Some((k, _, _)) = eq.first().filter(|(k, _, _)| k == "kind") {
                keys.push((k.clone(), 1));
            }
            keys.extend(parts.iter().map(|&i| (paths[i].clone(), 1)));
        } else {
            keys = query_keys(&QueryShape {
                eq: eq.iter().map(|(p, _, _)| p.as_str()).collect(),
                pairs,
                geo: geo.as_ref().map(|(p, _, _)| p.as_str()),
                sort: read
                    .sort
                    .iter()
                    .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
                    .collect(),
                // The test of an expiring entity's life keeps nearly every
                // document: a key of its own narrows nothing (a sort on the
                // date already has it in the index).
                range: range
                    .iter()
                    .filter(|(_, _, v)| !matches!(v, ValueSource::Unexpired { .. }))
                    .map(|(p, _, _)| p.as_str())
                    .collect(),
            });
            super::paging::after_id(&mut keys, read.sort, read.paging, acc);
        }
        keys
    }

    /// The entries of the find's index: one per document, or per instance
    /// when they are embedded, times the ids a key on an array of ids holds
    /// (a book's categories: a multikey index has that many per document).
    pub(super) fn index_entries(&self, kinds: &[EntityId], acc: &Access, filter: &[Filter]) -> f64 {
        let e = kinds[0];
        let per_doc = filter
            .iter()
            .map(|c| self.ids_per_document(e, c))
            .fold(1.0, f64::max);
        let docs: f64 = if kinds.len() > 1 {
            kinds.iter().map(|k| self.access(*k).docs).sum()
        } else {
            acc.docs
        };
        per_doc
            * if acc.prefix.is_empty() {
                docs
            } else {
                docs * acc.per_root
            }
    }

    /// The index keys the find walks to find `roots` documents
    /// (`walked`). The documents fetched are those that pass (the range
    /// field is in the key).
    pub(super) fn keys_walked(
        &self,
        e: EntityId,
        read: &Read<'_>,
        scan: bool,
        by_id: bool,
        roots: f64,
    ) -> f64 {
        let &Read {
            filter,
            sort,
            limit,
            ..
        } = read;
        if scan || by_id {
            return roots;
        }
        walked(filter, sort, limit, |f| self.matched(e, f, None)).map_or(roots, |w| w.max(roots))
    }
}

/// The index keys walked for `filter` in `sort`'s order up to `limit`,
/// where that walk is not what the filter matches; `matched` counts the
/// instances a filter keeps (over the collection, or under one parent
/// for a parent's children). One rule for a find and for a parent's
/// children read by their reference (a read under a tenant is one: its
/// two ranges once walked only the keys that pass both, audit46 D5).
///
/// A range after the sort in the index (equality, sort, range) is tested
/// on each key walked in the sort's order: to find `limit` that pass it,
/// the walk reads about `limit` over its share, and without a limit every
/// key under the equalities. A range on a sort field bounds the walk
/// itself (readings of the last hour in time order). With no sort, several
/// ranges walk the first one's keys (`ranges_walked`).
pub(super) fn walked(
    filter: &[Filter],
    sort: &[SortKey],
    limit: Option<u64>,
    matched: impl Fn(&[Filter]) -> f64,
) -> Option<f64> {
    let after_sort = |c: &&Filter| {
        c.op == FilterOp::Range
            && !sort
                .iter()
                .any(|s| c.related.is_none() && c.path.len() == 1 && c.path[0] == s.field)
    };
    if !sort.is_empty() && filter.iter().any(|c| after_sort(&c)) {
        let equal: Vec<Filter> = filter.iter().filter(|c| !after_sort(c)).cloned().collect();
        let under_equalities = matched(&equal);
        let share = (matched(filter) / under_equalities.max(1.0)).clamp(f64::MIN_POSITIVE, 1.0);
        Some(limit.map_or(under_equalities, |l| {
            (l as f64 / share).min(under_equalities)
        }))
    } else if sort.is_empty() {
        ranges_walked(filter, limit, matched)
    } else {
        None
    }
}

/// The documents a find of `m` instances reads. Embedded instances found
/// by their own fields (items of a category inside their sellers) lie in
/// different parents: about one parent document each. Only a filter on the
/// holder's id groups them.
pub(super) fn parents_holding(acc: &Access, eq: &[(String, FilterOp, ValueSource)], m: f64) -> f64 {
    let inside = format!("{}.", acc.prefix);
    let grouped = eq
        .iter()
        .any(|(p, _, _)| !p.starts_with(&inside) && (p == "_id" || p.ends_with("._id")));
    if acc.prefix.is_empty() {
        m
    } else if grouped {
        (m / acc.per_root.max(1.0)).ceil().max(1.0).min(acc.docs)
    } else {
        documents_hit(acc.docs, m)
    }
}

/// The whole documents among `r` that `m` instances spread at random
/// over them lie in: `r * (1 - (1 - 1/r)^m)`, rounded up. Computed as
/// `-expm1(m * ln_1p(-1/r))` and rounded up only past a rounding error:
/// the plain formula makes one instance among 1,000,000 documents
/// 1.00000000003, which `ceil` made 2 documents and 2 index keys for a
/// step that finds one (audit45 gap 10, cms `preview_by_token`).
pub(super) fn documents_hit(r: f64, m: f64) -> f64 {
    let r = r.max(1.0);
    let hit = -r * (m * (-1.0 / r).ln_1p()).exp_m1();
    (hit - 1e-6).ceil().max(1.0)
}

/// The index keys walked for a filter with several ranges and no sort:
/// the index holds the equalities, then the ranges in the filter's order;
/// the first range bounds the walk, and each one after it is tested on
/// every key of that walk (`{store, price, rating}` for price and rating
/// in ranges walks every key of the price range). With a limit the walk
/// stops at the limit's worth of keys that pass. `None` with fewer than
/// two ranges (or a geo test, whose walk is its own): the walk is what
/// the filter matches. `matched` counts the instances a filter keeps.
fn ranges_walked(
    filter: &[Filter],
    limit: Option<u64>,
    matched: impl Fn(&[Filter]) -> f64,
) -> Option<f64> {
    let ranges: Vec<usize> = (0..filter.len())
        .filter(|&i| filter[i].op == FilterOp::Range)
        .collect();
    if ranges.len() < 2 || filter.iter().any(|c| c.op.is_geo()) {
        return None;
    }
    let bound: Vec<Filter> = filter
        .iter()
        .enumerate()
        .filter(|(i, c)| c.op != FilterOp::Range || *i == ranges[0])
        .map(|(_, c)| c.clone())
        .collect();
    let walk = matched(&bound);
    let share = (matched(filter) / walk.max(1.0)).clamp(f64::MIN_POSITIVE, 1.0);
    Some(limit.map_or(walk, |l| (l as f64 / share).min(walk)))
}
