//! A read of children embedded in an array, by their own fields (audit45
//! gap 3): the matching children, not the documents that hold them.

use super::*;
use crate::model::{Include, Operation, PagingBy};

impl Planner<'_> {
    /// Plans a read of `op`'s entity, embedded in an array of its host's
    /// documents (`elements_array`), as its elements: the documents that
    /// hold a matching element (`$elemMatch`, through the multikey index),
    /// each element unwound and tested again, sorted, paged and cut by the
    /// read's own `sort`, `paging` and `limit`, and projected to the read's
    /// fields and the host fields its include of the host asks for. A flash
    /// sale read by its state came back as its product, with every other
    /// sale of it, ordered by any sale's date.
    ///
    /// An element of an expiring entity is tested against its life
    /// (`field > now − life`): no TTL index deletes it from the array, and
    /// the list must agree with the count of the same children.
    ///
    /// The limit does not cut the walk: the elements are sorted after the
    /// unwinding, so the server reads every document that holds a match
    /// (the index orders documents by any element's key, not the
    /// matching elements). The step is priced so, and the search weighs
    /// it against the layouts that keep the children apart.
    ///
    /// `false` (nothing planned) for a child embedded otherwise, or read
    /// with includes other than of its host's own fields.
    pub(super) fn read_unwound(
        &self,
        plan: &mut OpPlan,
        op_id: OperationId,
        op: &Operation,
        include: &[Include],
    ) -> bool {
        let OperationKind::Read {
            entity,
            filter,
            sort,
            limit,
            fields,
            ..
        } = &op.kind
        else {
            return false;
        };
        // A count of embedded children is left to the count's own plan
        // (`returns: count`), which counts the documents holding them.
        if op.counts {
            return false;
        }
        let e = *entity;
        let Some((array, within)) = self.elements_array(e) else {
            return false;
        };
        let Home::Embedded { rel: home, .. } = self.p.home[e.index()] else {
            return false;
        };
        let of_host = |i: &Include| {
            !i.to_children && i.relationship == home && i.include.is_empty() && i.filter.is_empty()
        };
        if !include.iter().all(of_host) {
            return false;
        }
        // Nothing deletes an expired element from its array (a TTL index
        // deletes whole documents): the read leaves them out by the date,
        // as the count of the same children does and the parent's read of
        // its array does (`include::slice_embedded`).
        let mut filter = filter.clone();
        filter.extend(crate::model::unexpired_test(self.facts.model, e, &filter));
        let read = Read {
            filter: &filter,
            sort: &[],
            limit: None,
            fields,
            paging: None,
            count: false,
            most: None,
        };
        let purpose = Purpose::Find {
            entity: self.name(e).to_string(),
        };
        let (m, n) = self.find(plan, op_id, e, &read, purpose);
        let acc = self.access(e);
        let Some(s) = plan.steps.get_mut(n.wrapping_sub(1)) else {
            return true;
        };
        s.sort = sort
            .iter()
            .map(|k| (acc.path(&k.field), if k.descending { -1 } else { 1 }))
            .collect();
        s.limit = *limit;
        s.documents = limit.map_or(m, |l| m.min(l as f64));
        // Every match is read and sorted whatever the page: a page past
        // the first skips sorted elements, no index key.
        if let (Some(p), Some(l)) = (op.paging, *limit) {
            s.paging = Some(Box::new(crate::design::StepPaging {
                by: p.by,
                after: match p.by {
                    PagingBy::Keyset => s.sort.first().map(|(k, _)| k.clone()),
                    PagingBy::Skip => None,
                },
                then: match p.by {
                    PagingBy::Keyset => s.sort.iter().skip(1).map(|(k, _)| k.clone()).collect(),
                    PagingBy::Skip => Vec::new(),
                },
                skipped: 0.0,
                deepest_skipped: 0.0,
                page: l as f64,
                past_the_matches: None,
                deepest_share: None,
            }));
        }
        // The host's fields beside the element (a preview and its page's
        // title): the element whole unless the read names its fields.
        if !include.is_empty() {
            if s.projection.is_empty() {
                s.projection.push(array.clone());
            }
            let host = self.facts.model.relationship(home).parent;
            let host_acc = self.access(host);
            for inc in include {
                let named: Vec<String> = if inc.fields.is_empty() {
                    let entity = self.facts.model.entity(host);
                    entity.fields.iter().map(|f| f.name.clone()).collect()
                } else {
                    inc.fields.clone()
                };
                for f in named {
                    let p = host_acc.path(&f);
                    if !s.projection.contains(&p) {
                        s.projection.push(p);
                    }
                }
            }
        }
        s.elements = Some(array);
        s.elements_within = within;
        true
    }
}
