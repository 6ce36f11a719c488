//! A read that returns only how many match (`returns: count`): one
//! `countDocuments` on the filter. The server walks the index keys of the
//! matches as a find would; where the index holds every condition it
//! counts them from the keys alone (a covered count: `COUNT_SCAN`) and
//! fetches no document, otherwise it fetches each candidate to test the
//! rest. Either way only a number comes back.

use super::{Access, StepCost};
use crate::design::Step;
use crate::model::{EntityId, FieldType, Filter, Model};

/// Turns the find `step` of a read into its count, and its `cost` into
/// the count's: no document fetched when the index `keys` hold every
/// condition of the step and `fetched` (a scan, or a condition on an
/// array: `tests_an_array`) does not say otherwise. A count of instances kept inside other
/// documents (`acc.prefix`) is left a find: the application counts the
/// elements of the documents it reads.
pub(super) fn count_only(
    step: &mut Step,
    cost: &mut StepCost,
    keys: &[(String, i32)],
    acc: &Access,
    fetched: bool,
) {
    if !acc.prefix.is_empty() {
        return;
    }
    step.projection.clear();
    let covered = !fetched && covers(keys, step);
    step.count = Some(crate::design::StepCount { covered });
    if covered {
        cost.docs = 0.0;
        cost.bytes_read = 0.0;
    }
}

/// Whether an index on `keys` answers every condition of `step` from its
/// keys: each tested path is a key, none is a place, and none leads into
/// a sub-document or an array (a multikey index counts a document once
/// per element it matches, so the server fetches to count it once).
fn covers(keys: &[(String, i32)], step: &Step) -> bool {
    step.filter
        .iter()
        .all(|f| !f.op.is_geo() && !f.path.contains('.') && keys.iter().any(|(k, _)| *k == f.path))
}

/// Whether a condition of `filter` on `e` tests an array (a list field,
/// attributes, or references a many-to-many keeps in a list): its index
/// is multikey, with an entry per element, and the server fetches each
/// document to count it once.
pub(super) fn tests_an_array(model: &Model, e: EntityId, filter: &[Filter]) -> bool {
    let entity = model.entity(e);
    filter.iter().any(|c| match &c.related {
        Some(r) => !model.relationship(r.relationship).one_parent(),
        None => c
            .path
            .first()
            .and_then(|p| entity.field(p))
            .is_some_and(|f| matches!(f.ty, FieldType::Array(_) | FieldType::Attributes { .. })),
    })
}

impl super::Planner<'_> {
    /// Turns the find of a count of `e`'s instances kept inside other
    /// documents into the count of those instances (REVIEW46 4): a count
    /// of sales embedded in their products, or of ticks kept in buckets,
    /// came back as the documents that hold them. The step the read
    /// planned (`elements`: the holders `$match`ed through the index,
    /// each element `$unwind`ed and tested again) ends in `$count` and
    /// returns a number; its price stays the holders it reads whole, and
    /// `documents` becomes the instances expected to match. One instance
    /// per holder document (a sub-document, not an array, of a document
    /// of its own collection): `countDocuments` of the holders is the
    /// count. Nothing changes for an entity of its own collection
    /// (`count_only` did it) or one whose holders cannot be counted so
    /// (nested arrays, copies folded into children).
    pub(super) fn count_elements(&self, plan: &mut super::OpPlan, e: EntityId, filter: &[Filter]) {
        use crate::candidates::placement::Home;
        let acc = self.access(e);
        if acc.prefix.is_empty() {
            return;
        }
        let one_per_holder = match self.p.home[e.index()] {
            Home::Embedded {
                host, array: false, ..
            } => {
                self.folded_into(e).is_none()
                    && self.p.root(e) == host
                    && self.p.home[host.index()] == Home::Own
            }
            _ => false,
        };
        let entity = self.name(e).to_string();
        let Some(s) =
            plan.steps.iter_mut().rev().find(|s| {
                s.action == crate::design::Action::Find && s.collection == acc.collection
            })
        else {
            return;
        };
        if s.elements.is_none() && !one_per_holder {
            return;
        }
        s.count = Some(crate::design::StepCount { covered: false });
        s.projection.clear();
        s.sort.clear();
        s.limit = None;
        s.paging = None;
        s.bucket_order = None;
        s.purpose = vec![crate::design::Purpose::Count { entity }];
        s.documents = self.matched_expected(e, filter, None);
    }
}
