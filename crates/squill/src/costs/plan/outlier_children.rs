//! An outlier's children read by their own fields through their parent (a
//! parcel's scans of one kind, or how many there are): most sit in the
//! parent's array, the rest of a full parent in their own collection. The
//! array's elements are tested on the server (`$filter` in the parent's
//! projection) as the query of the rest tests its documents. A count adds
//! the two: the array's matching elements counted on the server (`$size`
//! of the `$filter`) and the rest's `countDocuments`, run only for a full
//! parent. The array once came back whole, untested, and a count matched
//! the parent's id against the children's and counted nothing. Children
//! that expire: the array's expired elements are left out by their date
//! (nothing deletes them), and the rest's query tests the life against
//! now, not a range the caller gives (fixe48).

use super::*;
use crate::model::Include;

impl Planner<'_> {
    /// Makes the parent's find at `from_step` return the array of `inc`'s
    /// children tested on the include's own conditions (and, when a rest
    /// is read, the array's stored length beside it, which says whether
    /// the parent is full). In the include's order, cut to its limit when
    /// it is not paged: the merge with the rest cuts again. Nothing when
    /// the include tests no field of the children.
    pub(super) fn filter_outlier_array(
        &self,
        plan: &mut OpPlan,
        (from, from_step): (EntityId, usize),
        inc: &Include,
        stored: bool,
    ) {
        let rel = self.facts.model.relationship(inc.relationship);
        let own = self.access(rel.child);
        let array = self.access(from).path(&rel.parent_field);
        let filter: Vec<StepFilter> = inc
            .filter
            .iter()
            .filter(|c| c.related.is_none() && !c.age.is_some_and(|a| a.expiry))
            .map(|c| {
                let path = format!("{array}.{}", own.path(&c.path.join(".")));
                filter_keys::test_of(path, c, ValueSource::Param)
            })
            .collect();
        let unexpired = self.live_elements(rel.child);
        if filter.is_empty() && unexpired.is_none() {
            return;
        }
        let Some(s) = plan.steps.get_mut(from_step.wrapping_sub(1)) else {
            return;
        };
        if s.action != Action::Find || s.slices.iter().any(|x| x.path == array) {
            return;
        }
        let cut = inc.paging.is_none();
        s.slices.push(crate::design::ArraySlice {
            path: array,
            sort: if cut {
                inc.sort
                    .iter()
                    .map(|k| (k.field.clone(), if k.descending { -1 } else { 1 }))
                    .collect()
            } else {
                Vec::new()
            },
            limit: inc.limit.filter(|_| cut),
            unexpired,
            filter,
            count: false,
            stored,
            figures: Vec::new(),
        });
    }

    /// The life of `e`'s elements kept in an outlier's array, when `e`
    /// expires: nothing deletes an expired element from the array (a TTL
    /// index deletes whole documents), so a read or a count of them
    /// leaves it out by its date against now less the life, as a read of
    /// embedded children does (`include::slice_embedded`). The life the
    /// model adds to a count's filter (`model::expiry`) is this test, not
    /// a range the caller gives. `None` when `e` does not expire or its
    /// date may be missing (a child without it never expires).
    fn live_elements(&self, e: EntityId) -> Option<crate::design::SliceUnexpired> {
        let model = self.facts.model;
        crate::model::unexpired_test(model, e, &[])?;
        let x = model.entity(e).expires.as_ref()?;
        Some(crate::design::SliceUnexpired {
            field: x.field.clone(),
            seconds: x.seconds,
        })
    }

    /// Turns the include route's read of an outlier's children into their
    /// count: the parent's array comes back as the number of its elements
    /// that pass (`ArraySlice::count`), and the rest, read only for a full
    /// parent, is a `countDocuments` of the same tests. The cookbook adds
    /// the two. Its price stays the parent read whole and the rest's
    /// documents once in so many runs. `false` when `e` is no outlier's
    /// child read so (no array filtered at a parent's find).
    pub(super) fn count_outlier(&self, plan: &mut OpPlan, e: EntityId) -> bool {
        let Some((r, _, _)) = self.outlier_of(e) else {
            return false;
        };
        let rel = self.facts.model.relationship(r);
        let host = self.access(rel.parent);
        let array = host.path(&rel.parent_field);
        let rest = plan.steps.iter().any(|s| s.if_full.is_some());
        let Some(holder) = plan.steps.iter_mut().find(|s| {
            s.action == Action::Find
                && s.collection == host.collection
                && (s.projection.contains(&array) || s.slices.iter().any(|x| x.path == array))
        }) else {
            return false;
        };
        // Every child of the parent (no test of their own): the array's size.
        if !holder.slices.iter().any(|x| x.path == array) {
            holder.slices.push(crate::design::ArraySlice {
                path: array.clone(),
                sort: Vec::new(),
                limit: None,
                unexpired: self.live_elements(e),
                filter: Vec::new(),
                count: true,
                stored: rest,
                figures: Vec::new(),
            });
        }
        for x in holder.slices.iter_mut().filter(|x| x.path == array) {
            x.count = true;
            x.sort.clear();
            x.limit = None;
        }
        let entity = self.name(e).to_string();
        holder.purpose.push(Purpose::Count {
            entity: entity.clone(),
        });
        if let Some(rest) = plan.steps.iter_mut().find(|s| s.if_full.is_some()) {
            rest.count = Some(crate::design::StepCount { covered: false });
            rest.projection.clear();
            rest.sort.clear();
            rest.limit = None;
            rest.purpose = vec![Purpose::Count { entity }];
        }
        true
    }
}
