//! The one place where the model's conditions become a step's tests and
//! the keys of the index that serves them, for every step that finds its
//! documents by a model filter: reads (`find.rs`), the reads a tenant
//! scopes to a parent (`include.rs`), writes that test their own filter
//! (`update.rs`, `delete.rs`), and claims and conditional writes
//! (`conditional.rs`). A place condition keeps its area (the radius the
//! cookbook gives `$near` or `$centerSphere`, in metres) and its `2dsphere`
//! key, after the equality keys (the tenant first, as the filter names it
//! first). Built apart, a claim once keyed a point on a B-tree and tested
//! `$maxDistance: 0`, which finds only the documents at the very point
//! (audit43 O, U).

use super::*;

/// What a step tests of condition `c` whose value comes from `from`: a
/// value an earlier step found is a membership (`in` the ids it returned),
/// an `under` the given node's id among a path's ids, a place its area.
pub(super) fn test_of(path: String, c: &Filter, from: ValueSource) -> StepFilter {
    StepFilter {
        op: test_op(c.op, &from),
        radius_m: radius_m(c),
        path,
        value_from: from,
    }
}

/// The operator a step tests a condition of operator `op` with, its value
/// from `from`.
pub(super) fn test_op(op: FilterOp, from: &ValueSource) -> FilterOp {
    match (from, op) {
        (ValueSource::FromStep { .. } | ValueSource::FromSteps { .. }, _) => FilterOp::In,
        (_, FilterOp::Under) => FilterOp::Eq,
        (_, o) => o,
    }
}

/// The radius a place condition searches, in metres (`near(3 km)`: 3,000);
/// `None` for an area the query gives whole (a polygon) and off places.
pub(super) fn radius_m(c: &Filter) -> Option<f64> {
    if !c.op.is_geo() {
        return None;
    }
    c.geo.and_then(|g| g.radius_km).map(|r| r * 1000.0)
}

/// The keys of the index that serves a step's `tests` in order `sort`, as
/// `query_keys` orders a read's: the tests `equal` says find one value
/// (in the tests' order, each once), the place's `2dsphere` key, the sort
/// (none after a place: a `2dsphere` key gives no order), then the other
/// tests. `pairs`: paths of `attributes` fields, keyed by name and value.
pub(super) fn keys_of(
    tests: &[StepFilter],
    pairs: &[String],
    sort: &[(String, i32)],
    equal: impl Fn(&StepFilter) -> bool,
) -> Vec<(String, i32)> {
    let mut eq: Vec<&str> = Vec::new();
    let mut range: Vec<&str> = Vec::new();
    let mut geo = None;
    for t in tests {
        if t.op.is_geo() {
            geo = geo.or(Some(t.path.as_str()));
        } else if equal(t) {
            if !eq.contains(&t.path.as_str()) {
                eq.push(&t.path);
            }
        } else if !range.contains(&t.path.as_str()) {
            range.push(&t.path);
        }
    }
    let mut keys = query_keys(&QueryShape {
        eq,
        pairs,
        geo,
        sort: sort.to_vec(),
        range,
    });
    // A sort on a field tested by equality keys it once.
    let mut seen: Vec<String> = Vec::new();
    keys.retain(|(k, _)| {
        let first = !seen.contains(k);
        seen.push(k.clone());
        first
    });
    keys
}

/// Whether `tests` search an area while `sort` orders by something else:
/// the index then walks every document in the area and the server sorts
/// them before the limit (audit43 P). `near` with no sort of its own is
/// ordered by the distance, and stops at the limit.
pub(super) fn area_sorted_apart(geo: bool, sort: &[SortKey]) -> bool {
    geo && !sort.is_empty()
}

impl Planner<'_> {
    /// An update of one document found by a place in an order of its own
    /// (a claim of the oldest ready order within 3 km) walks the
    /// `2dsphere` key over every document in the area that passes its
    /// equalities, each fetched to test its exact distance and sorted:
    /// priced at those, not at the one key and document the write was
    /// priced at (audit43 O); where the places are densest, the step says
    /// what it walks there. With no order of its own it takes the first
    /// document that passes (`$near`: the nearest), as a read near a
    /// point stops at its limit (`area_sorted_apart`): a claim of the
    /// nearest was priced at the whole circle while a read of the 25
    /// nearest was priced at 25 (audit46 D4). An update of many already
    /// prices every document it matches.
    pub(super) fn price_place_walk(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        let OperationKind::Update {
            entity: e,
            filter,
            multi: false,
            ..
        } = &model.operation(op).kind
        else {
            return;
        };
        if !filter.iter().any(|c| c.op.is_geo()) {
            return;
        }
        let acc = self.access(*e);
        let Some(step) = plan.steps.iter_mut().find(|s| {
            s.collection == acc.collection
                && s.documents <= 1.0
                && s.filter.iter().any(|f| f.op.is_geo())
        }) else {
            return;
        };
        if step.sort.is_empty() {
            return;
        }
        let walk = self.matched_expected(*e, filter, None);
        let more = (walk - 1.0).max(0.0);
        plan.cost.index_keys_examined += more;
        plan.cost.documents_examined += more;
        plan.cost.bytes_read += more * acc.root_bytes;
        step.densest = self.matched_densest(*e, filter, None).map(|d| {
            Box::new(crate::design::StepDensest {
                documents: 1.0,
                examined: d,
                bytes_read: d * acc.root_bytes,
                share: model.entity(*e).density.and_then(|x| x.densest_share),
            })
        });
    }
}
