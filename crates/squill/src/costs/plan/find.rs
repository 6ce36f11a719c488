//! Finding instances by a filter, and the steps a filter through a relationship needs.

use super::find_keys::{Conditions, parents_holding};
use super::*;

impl<'a> Planner<'a> {
    /// Finds instances of `e`; returns how many and the step number.
    pub(super) fn find(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        read: &Read<'_>,
        purpose: Purpose,
    ) -> (f64, usize) {
        self.find_kinds(plan, op, &[e], read, purpose)
    }

    /// A read over a family of entities (`read: [car, phone, flat]`): one
    /// query per collection that holds some of them, each with the read's
    /// limit, merged by the application; kinds that share a polymorphic
    /// collection are found together.
    pub(super) fn find_family(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        kinds: &[EntityId],
        read: &Read<'_>,
    ) {
        let mut done: Vec<EntityId> = Vec::new();
        for &e in kinds {
            if done.contains(&e) {
                continue;
            }
            let together: Vec<EntityId> = match self.p.poly[self.p.root(e).index()] {
                Some(g) => kinds
                    .iter()
                    .copied()
                    .filter(|k| self.p.poly[self.p.root(*k).index()] == Some(g))
                    .collect(),
                None => vec![e],
            };
            done.extend(&together);
            let purpose = Purpose::Find {
                entity: together
                    .iter()
                    .map(|k| self.name(*k))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            self.find_kinds(plan, op, &together, read, purpose);
        }
    }

    /// Finds instances of `kinds` (one entity, or kinds of one polymorphic
    /// collection found by one query); returns how many and the step number.
    /// The conditions, the index keys and the keys walked are each a step of
    /// their own (`find_keys.rs`); this puts them into the plan's step.
    fn find_kinds(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        kinds: &[EntityId],
        read: &Read<'_>,
        purpose: Purpose,
    ) -> (f64, usize) {
        let &Read {
            filter,
            sort,
            limit,
            fields,
            paging,
            count,
            most,
        } = read;
        let e = kinds[0];
        let acc = self.access(e);
        let mut conditions = self.conditions(plan, op, e, &acc, filter);
        let by_id =
            conditions.eq.iter().any(|(p, _, _)| *p == acc.path("_id")) && acc.prefix.is_empty();
        let m = match kinds {
            [_] => self.matched_expected(e, filter, limit),
            _ => {
                let all: f64 = kinds.iter().map(|k| self.matched(*k, filter, None)).sum();
                let all = if by_id { all.min(1.0) } else { all };
                all.min(limit.map_or(f64::MAX, |l| l as f64))
            }
        }
        .min(most.unwrap_or(f64::MAX));
        self.test_kind(&mut conditions.eq, kinds, &acc, by_id);
        let keys = self.find_keys(kinds, &acc, read, &conditions, by_id);
        let scan = keys.is_empty();
        // A search of an area sorted by another field (the best rated
        // within 2 km): the `2dsphere` key gives no such order, so the
        // server reads every document in the area that passes the other
        // tests and sorts them before the limit. Only the distance's own
        // order stops at the limit (audit43 P).
        let apart = super::filter_keys::area_sorted_apart(conditions.geo.is_some(), sort)
            && kinds.len() == 1;
        let in_area = if apart {
            self.matched_expected(e, filter, None)
        } else {
            m
        };
        // The documents that hold the matches, and those the walk reads:
        // more when a test is no key of the index (the life of an
        // expiring entity, `unwalked`), fetched, then dropped.
        let held = parents_holding(&acc, &conditions.eq, in_area);
        let roots = match unwalked(filter, &keys, &acc) {
            Some(walk) if !apart => {
                let all = self.matched_expected(e, &walk, None);
                let kept = (self.matched(e, filter, None) / all.max(f64::MIN_POSITIVE)).min(1.0);
                let read = limit.map_or(all, |l| (l as f64 / kept.max(1e-9)).min(all));
                parents_holding(&acc, &conditions.eq, read).max(held)
            }
            _ => held,
        };
        // The same search where the places are densest: documents found
        // and read there (one kind: a family's kinds have no one density).
        let densest = match kinds {
            [_] => self
                .matched_densest(e, filter, if apart { None } else { limit })
                .map(|d| {
                    let examined = if scan {
                        acc.docs
                    } else {
                        parents_holding(&acc, &conditions.eq, d)
                    };
                    crate::design::StepDensest {
                        documents: d.min(limit.map_or(f64::MAX, |l| l as f64)),
                        examined,
                        bytes_read: examined * acc.root_bytes,
                        share: self
                            .facts
                            .model
                            .entity(e)
                            .density
                            .and_then(|x| x.densest_share),
                    }
                }),
            _ => None,
        };
        let looked_up = match kinds {
            [_] if by_id && !scan => self.ids_looked_up(e, read, &conditions.paths, &acc, m),
            _ => None,
        };
        // A sorted find by the ids a step read walks a range per id
        // (`sorted_ids.rs`); priced at one id's matches it was 50× low
        // (audit48 A8).
        let by_list = match kinds {
            [_] if looked_up.is_none() && !scan => {
                self.sorted_by_ids(plan, e, &acc, read, &conditions.eq, &keys)
            }
            _ => None,
        };
        // The same find at the largest parent (audit48 B3): by the ids an
        // earlier step found there, or by one parent's id.
        let by_ids_at_largest = match kinds {
            [_] if by_list.is_some() => {
                self.sorted_by_ids_at_largest(plan, e, &acc, read, &conditions.eq, &keys)
            }
            _ => None,
        };
        let examined = if scan {
            kinds.iter().map(|k| self.access(*k).docs).sum()
        } else if let Some((_, docs)) = by_list {
            docs.max(roots)
        } else {
            looked_up.map_or(roots, |n| n.max(roots))
        };
        let Conditions {
            eq,
            range,
            geo,
            radius_m,
            ..
        } = conditions;
        let mut step = Self::step(&acc.collection, Action::Find, purpose);
        step.filter = eq
            .into_iter()
            .chain(geo)
            .chain(range)
            .map(|(p, o, f)| StepFilter {
                radius_m: radius_m.filter(|_| o.is_geo()),
                ..filt(p, o, f)
            })
            .collect();
        step.sort = sort
            .iter()
            .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
            .collect();
        step.limit = limit;
        step.projection = fields.iter().map(|f| acc.path(f)).collect();
        // The documents the server returns: those that hold the instances
        // found, where the instances are embedded (one purchase for its two
        // lines, by its id; audit46 D8). The plan goes on with `m`.
        step.documents = if acc.prefix.is_empty() {
            m
        } else {
            held.min(m)
        };
        step.densest = densest.map(Box::new);
        let entries = self.index_entries(kinds, &acc, filter);
        let walked = match (looked_up, by_list) {
            (Some(n), _) => n.max(roots),
            (None, Some((keys, _))) => keys.max(roots),
            (None, None) => self.keys_walked(e, read, scan, by_id, roots),
        };
        let mut cost = StepCost {
            keys: if scan { 0.0 } else { walked },
            docs: examined,
            bytes_read: examined * acc.root_bytes,
            ..StepCost::default()
        };
        step.largest = match (by_ids_at_largest, kinds) {
            (Some(l), _) => Some(l),
            // A paged read states its deepest page instead.
            (None, [_]) if paging.is_none() && !by_id && !scan => {
                self.largest_parent(e, filter).map(|(r, max, scale)| {
                    // The matches grow with the parent up to the limit;
                    // the documents that hold them, the documents read
                    // and the keys walked grow as much.
                    let found = (m * scale).min(limit.map_or(f64::MAX, |l| l as f64));
                    let grows = found / m.max(f64::MIN_POSITIVE);
                    let rel = self.facts.model.relationship(r);
                    crate::design::StepLargest {
                        relationship: rel.name.clone(),
                        parent: self.name(rel.parent).to_string(),
                        child: self.name(rel.child).to_string(),
                        children: max,
                        ids: None,
                        documents: step.documents * grows,
                        examined: examined * grows,
                        keys: walked * grows,
                    }
                })
            }
            _ => None,
        }
        .filter(|l| l.keys > cost.keys.max(walked) || l.documents > step.documents)
        .map(Box::new);
        // Without an index the skipped documents are read whole.
        let matches = match (kinds, paging) {
            ([_], Some(_)) => self
                .largest_parent_scale(e, filter)
                .map(|scale| self.matched_expected(e, filter, None) * scale)
                .map(|m| (m, m / crate::model::history_share(self.facts.model, e))),
            _ => None,
        };
        super::paging::paged(
            &mut step,
            &mut cost,
            paging,
            limit,
            1.0,
            !scan,
            acc.root_bytes,
            matches,
        );
        if count {
            let arrays = super::count::tests_an_array(self.facts.model, e, filter);
            super::count::count_only(&mut step, &mut cost, &keys, &acc, scan || arrays);
        }
        let n = self.push(plan, op, step, cost, (!scan).then_some((keys, e, entries)));
        (m, n)
    }

    /// How many times a typical parent's matches the largest parent's
    /// are, for a filter that names one parent of `e` by its id
    /// (`event: eq`): the relationship's `max` children over its
    /// `typical`, the least of them when it names several. `None` when it
    /// names no parent with a bounded `max`: the matches of the largest
    /// are then unknown, and the paging is priced as stated.
    fn largest_parent_scale(&self, e: EntityId, filter: &[crate::model::Filter]) -> Option<f64> {
        let f = self.facts;
        filter
            .iter()
            .filter(|c| c.op == crate::model::FilterOp::Eq)
            .filter_map(|c| c.related.as_ref())
            .filter(|r| r.field == "_id" && r.further.is_empty())
            // The tenant beside a field whose values are each one
            // tenant's (an owner's contacts) scales nothing: its matches
            // do not grow with the tenant (`tenant_local_read`).
            .filter(|r| !self.tenant_local_read(r.relationship, e, filter))
            .filter_map(|r| {
                let rel = f.model.relationship(r.relationship);
                let max = rel.children.max.finite()?;
                (rel.child == e).then(|| (max as f64 / f.typical(r.relationship)).max(1.0))
            })
            .reduce(f64::min)
    }

    /// The relationship whose largest parent a filter that names one
    /// parent by its id reaches, with that parent's children (its `max`)
    /// and how many times a typical parent's matches its matches are
    /// (`largest_parent_scale`, with the relationship it comes from).
    fn largest_parent(
        &self,
        e: EntityId,
        filter: &[crate::model::Filter],
    ) -> Option<(crate::model::RelationshipId, f64, f64)> {
        let f = self.facts;
        filter
            .iter()
            .filter(|c| c.op == crate::model::FilterOp::Eq)
            .filter_map(|c| c.related.as_ref())
            .filter(|r| r.field == "_id" && r.further.is_empty())
            .filter(|r| !self.tenant_local_read(r.relationship, e, filter))
            // A tenant's own largest share is the Tenants section's.
            .filter(|r| f.model.relationship(r.relationship).tenant_chain.is_empty())
            .filter_map(|r| {
                let rel = f.model.relationship(r.relationship);
                let max = rel.children.max.finite()? as f64;
                (rel.child == e).then(|| {
                    (
                        r.relationship,
                        max,
                        (max / f.typical(r.relationship)).max(1.0),
                    )
                })
            })
            .filter(|(_, _, scale)| *scale > 1.0)
            .min_by(|a, b| a.2.total_cmp(&b.2))
    }

    /// The ids a find by `_id: {$in: ids from a step}` looks up when its
    /// other conditions or its sort are not in `_id_`: each id is a key
    /// and a document fetched to test them, whatever passes (a slot of a
    /// practitioner's 650 by their ids, then its status and its date);
    /// sorted, every one of them (the order is not the ids', a blocking
    /// sort), else until the limit's share passes. `None` when the ids
    /// alone answer the find (the documents found are the ones fetched).
    fn ids_looked_up(
        &self,
        e: EntityId,
        read: &Read<'_>,
        paths: &[String],
        acc: &Access,
        found: f64,
    ) -> Option<f64> {
        let id = acc.path("_id");
        let by_ids: Vec<Filter> = read
            .filter
            .iter()
            .zip(paths)
            .filter(|(c, p)| **p == id && c.related.is_some())
            .map(|(c, _)| c.clone())
            .collect();
        if by_ids.is_empty() || (by_ids.len() == read.filter.len() && read.sort.is_empty()) {
            return None;
        }
        let ids = self.matched(e, &by_ids, None);
        if !read.sort.is_empty() {
            return Some(ids);
        }
        let share =
            (self.matched(e, read.filter, None) / ids.max(1.0)).clamp(f64::MIN_POSITIVE, 1.0);
        Some(
            read.limit
                .map_or(ids, |l| (l as f64 / share).min(ids))
                .max(found),
        )
    }

    /// What a query of `r`'s children by their parent asks of an index, as
    /// `find` plans it: an equality on the children's reference to the
    /// parent, after the one on their tenant when the model has one and
    /// the children are scoped by it (every operation names its tenant
    /// first). `None` when the children hold no reference to the parent.
    pub(crate) fn children_by_parent(&self, r: RelationshipId) -> Option<Vec<String>> {
        let model = self.facts.model;
        let e = model.relationship(r).child;
        let acc = self.access(e);
        let mut eq = Vec::new();
        if let Some(t) = model.tenant_relationship(e).filter(|&t| t != r) {
            eq.push(acc.path(&self.parent_ref_path(t)?));
        }
        eq.push(acc.path(&self.parent_ref_path(r)?));
        Some(eq)
    }

    /// The path of `acc`'s documents that holds their parent's id through
    /// `r`, tested against the ids step `n` found (the document's own `_id`
    /// when the parent keeps the ids instead).
    pub(super) fn by_parent_ids(
        &self,
        acc: &Access,
        r: RelationshipId,
        n: usize,
    ) -> (String, ValueSource) {
        let from = ValueSource::FromStep { step: n };
        match self.parent_ref_path(r) {
            Some(p) => (acc.path(&p), from),
            None => (acc.path("_id"), from),
        }
    }

    /// How many values `e`'s documents hold under a filter path: the ids of
    /// the other side when the layout keeps them as an array here (a
    /// many-to-many, shared children, or the children's ids in a parent),
    /// else one.
    pub(super) fn ids_per_document(&self, e: EntityId, c: &Filter) -> f64 {
        let f = self.facts;
        if let Some(per) = self.attributes_of(e, c) {
            return per;
        }
        if c.op == FilterOp::Under {
            return self.under_entries(e, c);
        }
        // A field of the entity's own: an entry per element when it is an
        // array (tags, a store's locations), multikey.
        let Some(related) = &c.related else {
            return f
                .model
                .entity(e)
                .index_entries_at(&c.path.join("."), |name| self.ids_held(e, name));
        };
        let r = related.relationship;
        let rel = f.model.relationship(r);
        if rel.child == e && self.parent_ref_path(r).is_some() {
            self.parent_ids_per_child(r)
        } else if rel.parent == e && self.child_ids_path(r).is_some() {
            f.typical(r).max(1.0)
        } else {
            1.0
        }
    }

    /// The names an instance of `e` has when `c` tests an `attributes`
    /// field of it (a listing's specs), each a multikey index entry.
    pub(super) fn attributes_of(&self, e: EntityId, c: &Filter) -> Option<f64> {
        let [name] = c.path.as_slice() else {
            return None;
        };
        let (per, _) = self.facts.model.entity(e).field(name)?.attribute_names()?;
        Some(per as f64)
    }

    /// How many parent ids a child of `r` holds where it references its
    /// parent: several in a many-to-many or for shared children, else one.
    pub(super) fn parent_ids_per_child(&self, r: RelationshipId) -> f64 {
        let rel = self.facts.model.relationship(r);
        if rel.kind == RelationshipKind::ManyToMany || rel.shared {
            self.facts.typical_parents(r).max(1.0)
        } else {
            1.0
        }
    }

    /// The path a filter condition tests in `e`'s documents, adding a step
    /// first when the condition is on a related entity that is not copied here.
    pub(super) fn filter_path(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        acc: &Access,
        c: &Filter,
    ) -> (String, ValueSource) {
        let f = self.facts;
        if c.op == FilterOp::Under {
            return self.under_path(plan, op, e, acc, c);
        }
        let Some(Related {
            relationship: r,
            field,
            further,
        }) = c.related.clone()
        else {
            return (acc.path(&c.path.join(".")), own_value(f.model, e, c));
        };
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        if rel.child == e {
            // e's parent's field.
            match layout {
                Layout::Embed if self.p.root(e) == self.p.root(rel.parent) => {
                    let host = self.access(rel.parent);
                    if further.is_empty() {
                        return (host.path(&field), ValueSource::Param);
                    }
                    // The hops beyond start at the host, whose document
                    // holds `e`: the condition is the host's own (the
                    // stories of the users I follow are in the users the
                    // follows name, by their ids), not a field `further[0]`
                    // of the host, which it does not have (audit48 A1).
                    let pf = Filter::new(f.model, rel.parent, further.clone(), c.op);
                    return self.filter_path(plan, op, rel.parent, &host, &pf);
                }
                // The parent's copy holds the parent's own fields; a path
                // that goes on through the parent's relationships is
                // answered below, by the ids the hop beyond finds.
                Layout::EmbedParentInChild if further.is_empty() => {
                    return (
                        acc.path(&format!("{}.{field}", rel.child_field)),
                        ValueSource::Param,
                    );
                }
                Layout::Bucket { .. } if field == "_id" => {
                    return (rel.child_field.clone(), ValueSource::Param);
                }
                Layout::ExtendedReference {
                    copies_into: Side::Child,
                    fields,
                } if field == "_id" || fields.contains(&field) => {
                    return (
                        acc.path(&format!("{}.{field}", rel.child_field)),
                        ValueSource::Param,
                    );
                }
                _ => {}
            }
            // The tenant's id a bucket holds once, at its top level
            // (`Model::bucket_tenant`), not in each element.
            if field == "_id"
                && matches!(self.p.home[e.index()], Home::Bucketed { rel: b }
                    if f.model.bucket_tenant(b) == Some(r))
            {
                return (rel.child_field.clone(), ValueSource::Param);
            }
            if field == "_id"
                && let Some(p) = self.parent_ref_path(r)
            {
                return (acc.path(&p), ValueSource::Param);
            }
            // A step on the parent first (itself through more hops if the
            // path goes on).
            let pf = if further.is_empty() {
                Filter::new(f.model, rel.parent, vec![field.clone()], c.op)
            } else {
                Filter::new(f.model, rel.parent, further.clone(), c.op)
            };
            // The parents' ids come straight from the hop beyond: no step
            // on the parent that would only return them.
            if !further.is_empty()
                && let Some(p) = self.parent_ref_path(r)
            {
                let pacc = self.access(rel.parent);
                let (path, from) = self.filter_path(plan, op, rel.parent, &pacc, &pf);
                if path == pacc.path("_id") && !matches!(from, ValueSource::Param) {
                    return (acc.path(&p), from);
                }
            }
            let purpose = Purpose::FindMatching {
                entity: self.name(rel.parent).to_string(),
                field: field.to_string(),
            };
            let (_, n) = if field == "_id" {
                let purpose = Purpose::ReadIds {
                    entity: self.name(rel.parent).to_string(),
                    field: rel.parent_field.clone(),
                };
                let hop = self.scoped_hop(op, rel.parent, pf);
                self.find(plan, op, rel.parent, &Read::by(&hop, &[]), purpose)
            } else {
                let hop = self.scoped_hop(op, rel.parent, pf);
                self.find(
                    plan,
                    op,
                    rel.parent,
                    &Read::by(&hop, &["_id".to_string()]),
                    purpose,
                )
            };
            self.by_parent_ids(acc, r, n)
        } else {
            // e's children's field.
            if field == "_id"
                && let Some(p) = self.child_ids_path(r)
            {
                return (acc.path(&p), ValueSource::Param);
            }
            match layout {
                Layout::Embed => (
                    acc.path(&format!("{}.{field}", rel.parent_field)),
                    ValueSource::Param,
                ),
                // Most children in the parents' arrays, the rest apart:
                // both searched (a query of the rest alone missed most).
                Layout::Outlier { threshold } => {
                    let cf = if further.is_empty() {
                        Filter::new(f.model, rel.child, vec![field.clone()], c.op)
                    } else {
                        Filter::new(f.model, rel.child, further.clone(), c.op)
                    };
                    let from = self.outlier_parents(plan, op, r, *threshold, &cf, &field);
                    (acc.path("_id"), from)
                }
                _ => {
                    let cf = if further.is_empty() {
                        Filter::new(f.model, rel.child, vec![field.clone()], c.op)
                    } else {
                        Filter::new(f.model, rel.child, further.clone(), c.op)
                    };
                    let purpose = Purpose::FindMatching {
                        entity: self.name(rel.child).to_string(),
                        field: field.to_string(),
                    };
                    // What the next step matches: the children's own ids
                    // where the parent keeps them, else the parents' ids
                    // the children hold, which this step then returns (the
                    // products an order's items name, not the items' ids).
                    let ids = self.child_ids_path(r);
                    let returned: Vec<String> = match (&ids, self.parent_ref_path(r)) {
                        (None, Some(p)) => vec![p],
                        _ => Vec::new(),
                    };
                    let hop = self.scoped_hop(op, rel.child, cf);
                    let read = Read::by(&hop, &returned);
                    let (_, n) = self.find(plan, op, rel.child, &read, purpose);
                    let from = ValueSource::FromStep { step: n };
                    match ids {
                        Some(p) => (acc.path(&p), from),
                        None => (acc.path("_id"), from),
                    }
                }
            }
        }
    }
}

/// Where the value of a test of `e`'s own field comes from: the caller's
/// parameter, or, for the life of an entity that expires (`Age::expiry`,
/// added by `model::expiry`), now less that life.
pub(super) fn own_value(model: &crate::model::Model, e: EntityId, c: &Filter) -> ValueSource {
    match (&model.entity(e).expires, c.age) {
        (Some(x), Some(age)) if age.expiry => ValueSource::Unexpired { seconds: x.seconds },
        _ => ValueSource::Param,
    }
}

/// `filter` without the tests of an expiring entity's life that are no key
/// of the index on `keys` (`find_keys` gives the life a key only where a
/// sort on the date put it there), when it has one: what the walk of
/// that index narrows by. Every document holding a key walked is fetched
/// and tested: a multikey index on `tickets.mode` finds each lane with a
/// ticket of that mode, live or expired (an expired element stays in its
/// array: no TTL index deletes it), and the date is tested on the lane.
fn unwalked(
    filter: &[crate::model::Filter],
    keys: &[(String, i32)],
    acc: &Access,
) -> Option<Vec<crate::model::Filter>> {
    let unkeyed = |c: &crate::model::Filter| {
        c.age.is_some_and(|a| a.expiry)
            && c.related.is_none()
            && !keys.iter().any(|(k, _)| *k == acc.path(&c.path.join(".")))
    };
    filter
        .iter()
        .any(unkeyed)
        .then(|| filter.iter().filter(|c| !unkeyed(c)).cloned().collect())
}
