//! Finding instances by a filter, and the steps a filter through a relationship needs.

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
        } = read;
        let e = kinds[0];
        let acc = self.access(e);
        let mut eq: Vec<(String, FilterOp, ValueSource)> = Vec::new();
        let mut range: Vec<(String, FilterOp, ValueSource)> = Vec::new();
        // Paths of `attributes` fields tested: indexed by name and value.
        let mut pairs: Vec<String> = Vec::new();
        // The GeoJSON condition (one a query, as MongoDB allows one `$near`):
        // its key is the index's `2dsphere` key, after the equalities.
        let mut geo: Option<(String, FilterOp, ValueSource)> = None;
        let mut radius_m = None;
        // Each condition's path, for the keys of a unique combination.
        let mut paths: Vec<String> = Vec::with_capacity(filter.len());
        for c in filter {
            let (path, from) = self.filter_path(plan, op, e, &acc, c);
            paths.push(path.clone());
            if self.attributes_of(e, c).is_some() {
                pairs.push(path.clone());
            }
            if c.op.is_geo() {
                geo = Some((path, c.op, from));
                radius_m = c.geo.and_then(|g| g.radius_km).map(|r| r * 1000.0);
            } else if c.op == FilterOp::Range {
                range.push((path, c.op, from));
            } else if matches!(from, ValueSource::FromStep { .. }) {
                // The values an earlier step found: a membership test.
                eq.push((path, FilterOp::In, from));
            } else if c.op == FilterOp::Under {
                // The given node's id among a path's ids.
                eq.push((path, FilterOp::Eq, from));
            } else {
                eq.push((path, c.op, from));
            }
        }
        let by_id = eq.iter().any(|(p, _, _)| *p == acc.path("_id")) && acc.prefix.is_empty();
        let m = match kinds {
            [_] => self.matched(e, filter, limit),
            _ => {
                let all: f64 = kinds.iter().map(|k| self.matched(*k, filter, None)).sum();
                let all = if by_id { all.min(1.0) } else { all };
                all.min(limit.map_or(f64::MAX, |l| l as f64))
            }
        };
        let mut keys: Vec<(String, i32)> = Vec::new();
        // Several kinds of a polymorphic collection: every kind of it needs
        // no test, some are the ones the application names.
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
        // Every key of a unique combination tested for equality: one
        // document, found by that combination's index alone (the other
        // conditions test it); `{store: 1, sku: 1}`, never `sku` after.
        let identity = crate::model::identity(self.facts.model, e, filter);
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
                pairs: &pairs,
                geo: geo.as_ref().map(|(p, _, _)| p.as_str()),
                sort: sort
                    .iter()
                    .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
                    .collect(),
                range: range.iter().map(|(p, _, _)| p.as_str()).collect(),
            });
        }
        let scan = keys.is_empty();
        // Embedded instances found by their own fields (items of a category
        // inside their sellers) lie in different parents: about one parent
        // document each. Only a filter on the holder's id groups them.
        let inside = format!("{}.", acc.prefix);
        let grouped = eq
            .iter()
            .any(|(p, _, _)| !p.starts_with(&inside) && (p == "_id" || p.ends_with("._id")));
        let roots = if acc.prefix.is_empty() {
            m
        } else if grouped {
            (m / acc.per_root.max(1.0)).ceil().max(1.0).min(acc.docs)
        } else {
            let r = acc.docs.max(1.0);
            (r * (1.0 - (1.0 - 1.0 / r).powf(m))).ceil().max(1.0)
        };
        let examined = if scan {
            kinds.iter().map(|k| self.access(*k).docs).sum()
        } else {
            roots
        };
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
        step.documents = m;
        // A key on an array of ids holds one entry per id (a book's
        // categories): a multikey index has that many per document.
        let per_doc = filter
            .iter()
            .map(|c| self.ids_per_document(e, c))
            .fold(1.0, f64::max);
        let docs: f64 = if kinds.len() > 1 {
            kinds.iter().map(|k| self.access(*k).docs).sum()
        } else {
            acc.docs
        };
        let entries = per_doc
            * if acc.prefix.is_empty() {
                docs
            } else {
                docs * acc.per_root
            };
        // A range after the sort in the index (equality, sort, range) is
        // tested on each key walked in the sort's order: to find `limit`
        // that pass it, the walk reads about `limit` over its share, and
        // without a limit every key under the equalities. The documents
        // fetched are those that pass (the range field is in the key).
        // A range on a sort field bounds the walk itself (readings of the
        // last hour in time order).
        let after_sort = |c: &&Filter| {
            c.op == FilterOp::Range
                && !sort
                    .iter()
                    .any(|s| c.related.is_none() && c.path.len() == 1 && c.path[0] == s.field)
        };
        let walked = if !scan && !by_id && !sort.is_empty() && filter.iter().any(|c| after_sort(&c))
        {
            let equal: Vec<Filter> = filter.iter().filter(|c| !after_sort(c)).cloned().collect();
            let under_equalities = self.matched(e, &equal, None);
            let share = (self.matched(e, filter, None) / under_equalities.max(1.0))
                .clamp(f64::MIN_POSITIVE, 1.0);
            limit
                .map_or(under_equalities, |l| {
                    (l as f64 / share).min(under_equalities)
                })
                .max(roots)
        } else if !scan && !by_id && sort.is_empty() {
            ranges_walked(filter, limit, |f| self.matched(e, f, None))
                .map_or(roots, |w| w.max(roots))
        } else {
            roots
        };
        let mut cost = StepCost {
            keys: if scan { 0.0 } else { walked },
            docs: examined,
            bytes_read: examined * acc.root_bytes,
            ..StepCost::default()
        };
        // Without an index the skipped documents are read whole.
        super::paging::paged(
            &mut step,
            &mut cost,
            paging,
            limit,
            1.0,
            !scan,
            acc.root_bytes,
        );
        let n = self.push(plan, op, step, cost, (!scan).then_some((keys, e, entries)));
        (m, n)
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
        let Some(related) = &c.related else {
            return 1.0;
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
            return (acc.path(&c.path.join(".")), ValueSource::Param);
        };
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        if rel.child == e {
            // e's parent's field.
            match layout {
                Layout::Embed if self.p.root(e) == self.p.root(rel.parent) => {
                    let host = self.access(rel.parent);
                    return (host.path(&field), ValueSource::Param);
                }
                Layout::EmbedParentInChild => {
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
                self.find(plan, op, rel.parent, &Read::by(&[pf], &[]), purpose)
            } else {
                self.find(
                    plan,
                    op,
                    rel.parent,
                    &Read::by(&[pf], &["_id".to_string()]),
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
                    let read = Read::by(std::slice::from_ref(&cf), &returned);
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
