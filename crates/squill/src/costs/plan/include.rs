//! Reads that include related entities: the steps that fetch them under each layout.

use super::*;

impl<'a> Planner<'a> {
    pub(super) fn includes(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        from: EntityId,
        m: f64,
        from_step: usize,
        includes: &[Include],
    ) {
        // Polymorphic: includes of children kept in one collection become one query.
        let mut merged: Vec<usize> = Vec::new();
        for (i, inc) in includes.iter().enumerate() {
            if merged.contains(&i) || !inc.to_children {
                continue;
            }
            let child = self.facts.model.relationship(inc.relationship).child;
            let Some(group) = self.p.poly[child.index()] else {
                continue;
            };
            // One query finds the kinds that hold the parent's id in the same
            // field (a post's photos and videos under `post`); kinds that
            // name it differently (a folder's subfolders under `parent`, its
            // files under `folder`) would need an `$or` of one index each,
            // and are read one kind at a time. So is a kind read only up to a
            // limit (a hotel's latest 5 reviews beside all its rooms): one
            // query has one limit, and without it would return every review.
            let path = self.parent_ref_path(inc.relationship);
            let members: Vec<usize> = includes
                .iter()
                .enumerate()
                .filter(|(_, x)| {
                    x.to_children
                        && self.p.poly[self.facts.model.relationship(x.relationship).child.index()]
                            == Some(group)
                        && path.is_some()
                        && self.parent_ref_path(x.relationship) == path
                        && x.limit.is_none()
                })
                .map(|(j, _)| j)
                .collect();
            if members.len() < 2 || !members.contains(&i) {
                continue;
            }
            let acc = self.access(child);
            let mut step = Self::step(
                &acc.collection,
                Action::Find,
                Purpose::AllKinds {
                    collection: if let Some(EntityCandidate::Polymorphic { collection, .. }) =
                        self.space.entity.get(group)
                    {
                        collection.clone()
                    } else {
                        String::new()
                    },
                },
            );
            let mut total = 0.0;
            let mut keys = Vec::new();
            for &j in &members {
                let x = &includes[j];
                let path = self.parent_ref_path(x.relationship).unwrap_or_default();
                if !step.filter.iter().any(|f| f.path == path) {
                    step.filter.push(filt(
                        path.clone(),
                        FilterOp::In,
                        ValueSource::FromStep { step: from_step },
                    ));
                    keys.push((path, 1));
                }
                // Every child of the kind: no member has a limit.
                let n = self.related_matching(
                    x.relationship,
                    true,
                    self.facts.model.relationship(x.relationship).child,
                    &x.filter,
                    self.facts.typical(x.relationship),
                );
                total += m * n;
            }
            keys.truncate(1);
            // One order for every kind (a feed newest first): the index serves it.
            let first = &includes[members[0]].sort;
            let same = |a: &crate::model::SortKey, b: &crate::model::SortKey| {
                a.field == b.field && a.descending == b.descending
            };
            if !first.is_empty()
                && members.iter().all(|&j| {
                    let s = &includes[j].sort;
                    s.len() == first.len() && s.iter().zip(first).all(|(a, b)| same(a, b))
                })
            {
                for s in first {
                    let k = (acc.path(&s.field), if s.descending { -1 } else { 1 });
                    step.sort.push(k.clone());
                    keys.push(k);
                }
            }
            // A filter every kind shares (since a date) is tested in the query.
            let common = &includes[members[0]].filter;
            if !common.is_empty() && members.iter().all(|&j| includes[j].filter == *common) {
                self.own_filters(&mut step, child, &acc, common);
                for c in common {
                    let k = acc.path(&c.path.join("."));
                    if !keys.iter().any(|(x, _)| *x == k) {
                        keys.push((k, 1));
                    }
                }
            }
            step.documents = total;
            let cost = StepCost {
                keys: total,
                docs: total,
                bytes_read: total * acc.root_bytes,
                ..StepCost::default()
            };
            let entries = acc.docs;
            let n = self.push(plan, op, step, cost, Some((keys, child, entries)));
            for &j in &members {
                let x = &includes[j];
                let c = self.facts.model.relationship(x.relationship).child;
                let k = m * self.facts.typical(x.relationship);
                self.includes(plan, op, c, k, n, &x.include);
            }
            merged.extend(members);
        }
        for (i, inc) in includes.iter().enumerate() {
            if merged.contains(&i) {
                continue;
            }
            self.include(plan, op, from, m, from_step, inc);
        }
    }

    pub(super) fn include(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        from: EntityId,
        m: f64,
        from_step: usize,
        inc: &Include,
    ) {
        let f = self.facts;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        let target = if inc.to_children {
            rel.child
        } else {
            rel.parent
        };
        // A filter on the related side (the last 30 days) keeps its share.
        let side = if inc.to_children {
            f.typical(r)
        } else {
            f.typical_parents(r)
        };
        let each = self.related_matching(r, inc.to_children, target, &inc.filter, side);
        let wanted = inc.limit.map_or(each, |l| each.min(l as f64));
        let returned = (m * wanted).min(f.count(target).max(m));
        let cx = Joined {
            from,
            m,
            from_step,
            inc,
            target,
            each,
            wanted,
            returned,
            every: None,
        };
        if let Some(levels) = inc.recursive
            && rel.parent == rel.child
            && self.walk_tree(plan, op, &cx, levels)
        {
            return;
        }
        let layout = self.layout(r);
        let (free, by_id_path, by_ref_path) = self.answers(&cx, layout);
        // An outlier's parent holds its first children; for the few parents
        // past the threshold a query by reference fetches the rest, unless
        // the read wants no more than the array holds in its order.
        if let (true, Layout::Outlier { threshold }) = (inc.to_children, layout) {
            self.include_outlier(plan, op, &cx, *threshold);
            self.includes(plan, op, target, returned, from_step, &inc.include);
            return;
        }
        let copies_here = layout.copies_in(Self::here_side(inc));
        // Copies in a reference carry the fields they copy, not what the
        // related documents hold of their own relations: a nested include
        // still reads those documents. So do a subset's items: copies of
        // the latest children's own fields (not their authors' names).
        let copies_only =
            !copies_here.is_empty() || (inc.to_children && matches!(layout, Layout::Subset { .. }));
        if free && (!copies_only || inc.include.is_empty()) {
            // Answered inside the documents read before: that step returns
            // the field that holds the children (or the parent's copy).
            self.return_holder(plan, from, rel, inc.to_children, from_step);
            self.slice_embedded(plan, from, &cx, layout);
            self.includes(plan, op, target, returned, from_step, &inc.include);
            // A subset holds the first page; the pages past it are read
            // from the children's own collection, by the executions that
            // ask for them (a range from the last item the subset showed).
            if let Some(share) = Self::past_subset(inc, layout) {
                let cx = Joined {
                    every: Some(super::insert::every_one_in(share)),
                    ..cx
                };
                self.join(plan, op, &cx, None, Some(rel.child_field.clone()));
            }
            return;
        }
        // The query of the other side: the link's attributes it tests,
        // orders by or returns are in that side's array of references when
        // it keeps them (`teams.role`); otherwise they came with the ids
        // from the documents read before, and the application applies them.
        let there = self.on_the_other_side(r, inc, layout);
        let inc = there.as_ref().unwrap_or(inc);
        let cx = Joined { inc, ..cx };
        if let (true, Layout::Bucket { per_bucket, by, .. }) = (inc.to_children, layout) {
            let n = self.read_buckets(plan, op, &cx, *per_bucket, by);
            self.include_bucket_elements(plan, op, &cx, (*per_bucket, by));
            self.includes(plan, op, target, returned, n, &inc.include);
            return;
        }
        self.join(plan, op, &cx, by_id_path, by_ref_path);
    }

    /// Embedded children included up to a limit (a post with its newest 3
    /// comments): the step that read their parents returns the array cut
    /// to the limit in the include's order (`$slice`, or `$sortArray` then
    /// `$firstN` for an order of the children's own fields), not every
    /// child. Its price does not change: the server reads the whole
    /// document either way (`bytes_read` is the top-level document's).
    /// The same for an expiring child kept in its parent: only its
    /// unexpired elements come back (`$filter` on the date against now
    /// less the life, computed when the operation runs).
    /// Left whole: an include that filters the children (the cut would
    /// come before the test), pages them, or reads below them, and an
    /// array inside another array (a path through an array cuts each).
    fn slice_embedded(&self, plan: &mut OpPlan, from: EntityId, cx: &Joined<'_>, layout: &Layout) {
        let inc = cx.inc;
        if !inc.to_children || *layout != Layout::Embed {
            return;
        }
        let rel = self.facts.model.relationship(inc.relationship);
        // An expiring child kept in its parent (a pin `expiry-lost`
        // refuses): its expired elements stay, so every read leaves them out.
        let unexpired = self
            .facts
            .model
            .entity(rel.child)
            .expires
            .as_ref()
            .map(|x| crate::design::SliceUnexpired {
                field: x.field.clone(),
                seconds: x.seconds,
            });
        let limit = inc
            .limit
            .filter(|&l| rel.children.max.finite().is_none_or(|max| l < max));
        if limit.is_none() && unexpired.is_none() {
            return;
        }
        let acc = self.access(from);
        if !inc.filter.is_empty()
            || inc.paging.is_some()
            || !inc.include.is_empty()
            || !acc.prefix.is_empty()
        {
            return;
        }
        let path = acc.path(&rel.parent_field);
        let Some(s) = plan.steps.get_mut(cx.from_step.wrapping_sub(1)) else {
            return;
        };
        if s.action != Action::Find || s.slices.iter().any(|x| x.path == path) {
            return;
        }
        s.slices.push(crate::design::ArraySlice {
            path,
            sort: inc
                .sort
                .iter()
                .map(|k| (k.field.clone(), if k.descending { -1 } else { 1 }))
                .collect(),
            limit,
            unexpired,
            filter: Vec::new(),
            count: false,
            stored: false,
            figures: Vec::new(),
        });
    }

    /// The share of executions of a paged include that ask for a page
    /// the subset `layout` does not hold (the deepest page ends past its
    /// `k` children): every page past the first, read from the children's
    /// own collection. `None` when the subset holds every page asked for,
    /// or the layout is no subset.
    fn past_subset(inc: &Include, layout: &Layout) -> Option<f64> {
        let (Layout::Subset { k, .. }, Some(p), Some(limit)) = (layout, inc.paging, inc.limit)
        else {
            return None;
        };
        (inc.to_children && p.past_first > 0.0 && p.deepest * limit as f64 > *k as f64)
            .then_some(p.past_first)
    }

    /// The side of `inc`'s relationship the read starts from.
    fn here_side(inc: &Include) -> Side {
        if inc.to_children {
            Side::Parent
        } else {
            Side::Child
        }
    }

    /// Whether the documents read before answer the include (`free`), and
    /// else the path the other side is found by: its ids held here, or its
    /// reference to this side.
    fn answers(&self, cx: &Joined<'_>, layout: &Layout) -> (bool, Option<String>, Option<String>) {
        let f = self.facts;
        let inc = cx.inc;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        let here_side = Self::here_side(inc);
        // The link's attributes kept on the side the read starts from (a
        // member's role in the team's array) are read with its ids.
        let attrs: Vec<&str> = f
            .attributes_on(r, here_side, layout)
            .map(|a| a.name.as_str())
            .collect();
        // Copies answer the include when they hold every field it returns
        // and every field its conditions test (a condition on another
        // entity needs that entity).
        let covered_fields = |fields: &[String]| {
            let has = |x: &str| x == "_id" || fields.iter().any(|f| f == x) || attrs.contains(&x);
            !inc.fields.is_empty()
                && inc.fields.iter().all(|x| has(x))
                && inc
                    .filter
                    .iter()
                    .all(|c| c.related.is_none() && c.path.len() == 1 && has(&c.path[0]))
        };
        // Only the other side's ids (and the link's attributes kept with
        // them): the reference kept here answers it.
        let ids_only = covered_fields(&[]) && inc.sort.is_empty() && inc.limit.is_none();
        let copies_here = layout.copies_in(here_side);
        if inc.to_children {
            match layout {
                Layout::Embed => (true, None, None),
                Layout::Subset {
                    k,
                    fields,
                    sort_field,
                } => {
                    let order = match (inc.sort.first(), sort_field) {
                        (None, _) => true,
                        (Some(s), Some(f)) => s.descending && s.field == *f,
                        (Some(_), None) => false,
                    };
                    let fits = order
                        && inc.filter.is_empty()
                        && (inc.limit.is_some_and(|l| l <= *k) || f.typical(r) <= *k as f64);
                    let has = fields.is_empty() || covered_fields(fields);
                    (fits && has, None, Some(rel.child_field.clone()))
                }
                Layout::ExtendedReference {
                    copies_into: Side::Parent,
                    ..
                }
                | Layout::TwoWayExtendedReference { .. }
                    if !copies_here.is_empty() =>
                {
                    (covered_fields(copies_here), Some("_id".to_string()), None)
                }
                Layout::Bucket { .. } => (false, None, None),
                Layout::EmbedParentInChild => {
                    (false, None, Some(format!("{}._id", rel.child_field)))
                }
                _ => (
                    ids_only && self.child_ids_path(r).is_some(),
                    self.child_ids_path(r).map(|_| "_id".to_string()),
                    self.parent_ref_path(r),
                ),
            }
        } else {
            match layout {
                Layout::Embed | Layout::EmbedParentInChild => (true, None, None),
                Layout::ExtendedReference {
                    copies_into: Side::Child,
                    ..
                }
                | Layout::TwoWayExtendedReference { .. }
                    if !copies_here.is_empty() =>
                {
                    (covered_fields(copies_here), Some("_id".to_string()), None)
                }
                Layout::Bucket { .. } => (false, Some("_id".to_string()), None),
                _ => (
                    ids_only && self.parent_ref_path(r).is_some(),
                    self.parent_ref_path(r).map(|_| "_id".to_string()),
                    self.child_ids_path(r),
                ),
            }
        }
    }

    /// An outlier's children: those in the parent's array, returned with
    /// it, and the rest past the threshold by a query of their own.
    fn include_outlier(&self, plan: &mut OpPlan, op: OperationId, cx: &Joined<'_>, threshold: u64) {
        let f = self.facts;
        let &Joined {
            from,
            m,
            from_step,
            inc,
            target,
            ..
        } = cx;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        let here = ValueSource::FromStep { step: from_step };
        self.return_holder(plan, from, rel, true, from_step);
        let within = inc.limit.is_some_and(|l| l <= threshold) && inc.sort.is_empty();
        let rest = self.outlier_rest(r, threshold, m).filter(|_| !within);
        // The array's elements tested as the rest's documents are (a
        // parcel's scans of one kind), and its stored length beside them
        // when the rest is read: the full-array test needs it.
        self.filter_outlier_array(plan, (from, from_step), inc, rest.is_some());
        if let Some(rest) = rest {
            let acc = self.access(target);
            let mut step = Self::step(
                &acc.collection,
                Action::Find,
                Purpose::Join {
                    target: self.name(target).to_string(),
                    many: true,
                    from: self.name(from).to_string(),
                    via: rel.name.clone(),
                },
            );
            let path = acc.path(&rel.child_field);
            step.filter.push(filt(path.clone(), FilterOp::In, here));
            self.own_filters(&mut step, target, &acc, &inc.filter);
            step.projection = inc.fields.iter().map(|x| acc.path(x)).collect();
            // Only a parent whose array is full has children apart: the
            // query runs for it alone. Under a limit it runs once for each
            // such parent, by its id, and reads that parent's newest
            // children in the include's order up to the limit (the
            // application merges them with that parent's array and cuts
            // each parent's list to the limit). One query over them all cut
            // to `limit × parents` could give one parent every slot and
            // another none. Its index leads with the parent, then the sort
            // (`{parcel, ts: -1}`).
            let each = inc.limit.is_some();
            step.if_full = Some(Box::new(crate::design::IfFull {
                step: from_step,
                array: self.access(from).path(&rel.parent_field),
                threshold,
                each,
            }));
            step.sort = inc
                .sort
                .iter()
                .map(|k| (acc.path(&k.field), if k.descending { -1 } else { 1 }))
                .collect();
            step.limit = inc.limit;
            // Each of the m parents read is full as rarely as one: the
            // step's share is one parent's, and m queries of at most
            // `limit` children each when they all are.
            let rest = (
                inc.limit
                    .map_or(rest.0, |l| rest.0.min(l as f64 * m.max(1.0))),
                rest.1,
            );
            let trips = if each { m.max(1.0) } else { 1.0 };
            self.push_outlier_rest(plan, op, step, path, (rest, trips), target, false);
        }
    }

    /// The query of the other side, by the ids held here or by its
    /// reference to this side, and the includes under it.
    fn join(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        cx: &Joined<'_>,
        by_id_path: Option<String>,
        by_ref_path: Option<String>,
    ) {
        let f = self.facts;
        let &Joined {
            from,
            m,
            from_step,
            inc,
            target,
            each,
            wanted,
            returned,
            every,
        } = cx;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        let here = ValueSource::FromStep { step: from_step };
        let acc = self.access(target);
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::Join {
                target: self.name(target).to_string(),
                many: inc.to_children,
                from: self.name(from).to_string(),
                via: rel.name.clone(),
            },
        );
        if by_id_path.is_some() {
            // The ids come from a field of the documents read before: that
            // step must return it.
            self.return_holder(plan, from, rel, inc.to_children, from_step);
        }
        // Conditions on another entity's fields (items whose seller is in a
        // region) are resolved as a read's are, with a step first if needed;
        // the others test the target's own fields.
        // Each with the operator the include states and, for a place, its
        // radius (`filter_keys`).
        let mut related: Vec<StepFilter> = Vec::new();
        for c in inc.filter.iter().filter(|c| c.related.is_some()) {
            let (p, source) = self.filter_path(plan, op, target, &acc, c);
            related.push(StepFilter {
                radius_m: super::filter_keys::radius_m(c),
                ..filt(p, c.op, source)
            });
        }
        let own: Vec<Filter> = inc
            .filter
            .iter()
            .filter(|c| c.related.is_none())
            .cloned()
            .collect();
        let tenant = f
            .model
            .tenant_relationship(target)
            .filter(|&t| t != r && acc.prefix.is_empty() && by_ref_path.is_some())
            .and_then(|t| self.parent_ref_path(t))
            .map(|t| acc.path(&t));
        let (path, keys, examined, walked) = if let Some(p) = by_id_path {
            // Fetch by the ids at hand. `_id_` holds none of the include's
            // other conditions nor its order: each id is a key and a
            // document fetched to test them, whatever passes (a slot among
            // a practitioner's 650, then its status), every one of them
            // when sorted (a blocking sort), else until the limit passes.
            let p = acc.path(&p);
            let all = m * if inc.to_children {
                f.typical(r)
            } else {
                f.typical_parents(r)
            };
            let examined = match inc.limit {
                _ if !inc.sort.is_empty() => all,
                Some(l) if each > 0.0 => (m * l as f64 * all / (m * each)).min(all),
                _ => all,
            }
            .max(m * wanted);
            (
                p.clone(),
                vec![(p, 1)],
                examined.min(f.count(target).max(1.0)),
                None,
            )
        } else if let Some(p) = by_ref_path {
            let p = acc.path(&p);
            // Children in a collection of their own, scoped by the tenant
            // every operation names: the query names it too, and the index
            // leads with it. The parent lies in one tenant, so the tenant
            // selects nothing the parent's id has not (no share of its own).
            // Then the parent's reference, the equality tests, a place's
            // `2dsphere` key, the sort, the ranges: the keys a read's
            // tests get (`filter_keys`), so a place keeps its key type
            // (audit43 U).
            let mut tests: Vec<StepFilter> = tenant
                .iter()
                .map(|t| filt(t.clone(), FilterOp::Eq, ValueSource::Param))
                .collect();
            tests.push(filt(p.clone(), FilterOp::In, here.clone()));
            tests.extend(related.iter().filter(|t| t.op != FilterOp::Range).cloned());
            let mut pairs = Vec::new();
            for c in &own {
                let k = acc.path(&c.path.join("."));
                if self.attributes_of(target, c).is_some() {
                    pairs.push(k.clone());
                }
                tests.push(super::filter_keys::test_of(k, c, ValueSource::Param));
            }
            let sort: Vec<(String, i32)> = inc
                .sort
                .iter()
                .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
                .collect();
            let mut keys =
                super::filter_keys::keys_of(&tests, &pairs, &sort, |t| t.op != FilterOp::Range);
            super::paging::after_id(&mut keys, &inc.sort, inc.paging, &acc);
            // A place searched in another order: every child in the area
            // is read and sorted before the limit (audit43 P).
            let geo = own.iter().any(|c| c.op.is_geo());
            let per = if super::filter_keys::area_sorted_apart(geo, &inc.sort) {
                each
            } else {
                wanted
            };
            // The keys under each parent walked as a find's are (two
            // ranges walk the first one's keys; a range after the sort
            // is tested on each key in the sort's order): the index holds
            // every test, so the documents fetched are those that pass.
            let side = if inc.to_children {
                f.typical(r)
            } else {
                f.typical_parents(r)
            };
            let walk = super::find_keys::walked(&inc.filter, &inc.sort, inc.limit, |x| {
                self.related_matching(r, inc.to_children, target, x, side)
            })
            .map_or(per, |w| w.max(per));
            (p, keys, m * per, Some(m * walk))
        } else {
            let p = acc.path("_id");
            (p.clone(), vec![(p, 1)], m * each, None)
        };
        let by_root_id = path == "_id";
        if let Some(t) = tenant {
            step.filter.push(filt(t, FilterOp::Eq, ValueSource::Param));
        }
        step.filter.push(filt(path, FilterOp::In, here));
        self.own_filters(&mut step, target, &acc, &own);
        for t in related {
            if !step.filter.iter().any(|x| x.path == t.path) {
                step.filter.push(t);
            }
        }
        step.sort = inc
            .sort
            .iter()
            .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
            .collect();
        step.limit = inc.limit.map(|l| (l as f64 * m).ceil() as u64);
        step.projection = inc.fields.iter().map(|x| acc.path(x)).collect();
        step.documents = returned;
        // Embedded targets found by a field of their own (the items of a
        // category, embedded in their sellers) lie in different host
        // documents, about one each.
        let roots = if acc.prefix.is_empty() {
            examined
        } else {
            super::find_keys::documents_hit(acc.docs, examined)
        };
        let mut cost = StepCost {
            keys: walked.unwrap_or(examined),
            docs: roots,
            bytes_read: roots * acc.root_bytes,
            ..StepCost::default()
        };
        // The planner's index holds every key the include tests. A
        // parent's children that pass, at the largest parent: the typical
        // parent's times the relationship's `max` over its `typical`.
        // Not where the filter's values are each one tenant's (an
        // owner's contacts): they do not grow with the tenant, and the
        // model bounds no owner's, so the paging is priced as stated.
        let largest = match rel.children.max.finite() {
            Some(_) if self.tenant_local_read(r, target, &inc.filter) => None,
            Some(max) if inc.to_children => {
                let here = each * (max as f64 / f.typical(r)).max(1.0);
                Some((here, here / crate::model::history_share(f.model, target)))
            }
            _ => None,
        };
        super::paging::paged(
            &mut step,
            &mut cost,
            inc.paging,
            inc.limit,
            m,
            true,
            acc.root_bytes,
            largest,
        );
        let entries = if acc.prefix.is_empty() && !keys[0].0.contains('.') && by_root_id {
            acc.docs
        } else {
            // A multikey or nested index: one entry per element, and one per
            // id where the children keep their parents' ids in an array.
            acc.docs
                * acc.per_root.max(1.0)
                * if inc.to_children {
                    self.parent_ids_per_child(r)
                } else {
                    f.typical(r)
                }
        };
        step.every = every;
        let n = self.push(plan, op, step, cost, Some((keys, target, entries)));
        self.includes(plan, op, target, returned, n, &inc.include);
    }
}

impl Planner<'_> {
    /// Makes step `from_step` (1-based) return the field of `from` that holds
    /// the relationship: the children's field in a parent, the parent's in a
    /// child.
    pub(super) fn return_holder(
        &self,
        plan: &mut OpPlan,
        from: EntityId,
        rel: &crate::model::Relationship,
        to_children: bool,
        from_step: usize,
    ) {
        let holder = self.access(from).path(if to_children {
            &rel.parent_field
        } else {
            &rel.child_field
        });
        if let Some(s) = plan.steps.get_mut(from_step.wrapping_sub(1)) {
            project_whole(&mut s.projection, holder);
        }
    }
}

/// Adds `path` to a projection that lists fields (an empty one returns
/// everything): its sub-paths give way to it, and a projected prefix already
/// covers it. MongoDB refuses `a.b` and `a.b.c` in one projection.
pub(super) fn project_whole(projection: &mut Vec<String>, path: String) {
    if projection.is_empty()
        || projection
            .iter()
            .any(|p| *p == path || path.starts_with(&format!("{p}.")))
    {
        return;
    }
    let under = format!("{path}.");
    projection.retain(|p| !p.starts_with(&under));
    projection.push(path);
}

impl Planner<'_> {
    /// `inc` with the many-to-many's attributes moved to where the other
    /// side keeps them (`None` when the relationship has none).
    fn on_the_other_side(
        &self,
        r: RelationshipId,
        inc: &Include,
        layout: &Layout,
    ) -> Option<Include> {
        let rel = self.facts.model.relationship(r);
        if rel.attributes.is_empty() {
            return None;
        }
        let (side, array) = if inc.to_children {
            (Side::Child, &rel.child_field)
        } else {
            (Side::Parent, &rel.parent_field)
        };
        let kept: Vec<&str> = self
            .facts
            .attributes_on(r, side, layout)
            .map(|a| a.name.as_str())
            .collect();
        let at = |name: &str| -> Option<Option<String>> {
            rel.attribute(name)
                .map(|_| kept.contains(&name).then(|| format!("{array}.{name}")))
        };
        let mut out = inc.clone();
        out.filter = inc
            .filter
            .iter()
            .filter_map(|c| match (c.path.len(), c.path.first().map(|p| at(p))) {
                (1, Some(Some(Some(moved)))) => Some(Filter {
                    path: vec![moved],
                    ..c.clone()
                }),
                (1, Some(Some(None))) => None,
                _ => Some(c.clone()),
            })
            .collect();
        out.sort = inc
            .sort
            .iter()
            .filter_map(|k| match at(&k.field) {
                Some(Some(moved)) => Some(SortKey {
                    field: moved,
                    ..k.clone()
                }),
                Some(None) => None,
                None => Some(k.clone()),
            })
            .collect();
        out.fields = inc
            .fields
            .iter()
            .filter_map(|x| match at(x) {
                Some(Some(moved)) => Some(moved),
                Some(None) => None,
                None => Some(x.clone()),
            })
            .collect();
        Some(out)
    }
}
