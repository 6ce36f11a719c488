//! Inserts: where a new instance goes, and what its links write. The new
//! document's own step depends on where the entity lives (embedded in a
//! host, in a bucket, in documents of its own), each in a function of its
//! own; the parents' updates its links make are collected per parent and
//! written after it.

use super::*;

/// The updates of parents an insert collects, one write per parent after
/// the new document: exact ones, and counters written once every so many
/// inserts (readers accept an error).
#[derive(Default)]
pub(super) struct ParentUpdates {
    exact: Vec<(EntityId, Vec<UpdateOp>, Vec<Purpose>)>,
    batched: Vec<(EntityId, UpdateOp, Purpose, u64)>,
    /// The host a batch of new instances is pushed into at once (`$each`
    /// of the batch's list, one write): its write is a batch step.
    batch_host: Option<EntityId>,
}

impl ParentUpdates {
    /// Adds an exact update of `parent`, joining its other updates.
    pub(super) fn add(&mut self, parent: EntityId, u: UpdateOp, why: Purpose) {
        if let Some(x) = self.exact.iter_mut().find(|x| x.0 == parent) {
            x.1.push(u);
            x.2.push(why);
        } else {
            self.exact.push((parent, vec![u], vec![why]));
        }
    }
}

impl<'a> Planner<'a> {
    pub(super) fn insert(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        links: &[RelationshipId],
        count: f64,
    ) {
        let f = self.facts;
        let mut updates = ParentUpdates::default();
        self.check_parents_in_tenant(plan, op, e, links, count);
        // A new parent holds its children's ids with copies of their fields:
        // they are read from the children first. (Through a relationship of
        // an entity with itself, the new instance is the child: a new hire
        // joins a manager and has no reports yet.)
        for &r in links {
            let rel = f.model.relationship(r);
            let fields = self.layout(r).copies_in(Side::Parent);
            if rel.parent == e && rel.child != e && !fields.is_empty() {
                self.read_copies(plan, op, rel.child, fields, f.typical(r).max(1.0));
            }
        }
        // A new node of a tree that keeps paths, or a new child of a node
        // whose path it keeps, copies its parent's path: read first.
        for &r in links {
            if matches!(
                self.layout(r),
                Layout::TreePath { .. } | Layout::PathReference
            ) {
                self.read_path(plan, op, f.model.relationship(r).parent, ValueSource::Param);
            }
        }
        // A child of an outlier layout goes into its parent's array; only
        // an outlier's children past the threshold get documents of their
        // own, one insert in so many, when the array has no room.
        let outlier = self.outlier_of(e).filter(|(r, _, _)| links.contains(r));
        // The step that inserts a document of the entity's own, which its
        // unique indexes serve.
        let mut own_step = None;
        match self.p.home.get(e.index()).copied() {
            Some(Home::Embedded { rel, host, array }) => {
                self.insert_embedded(plan, op, e, (rel, host, array), &mut updates);
                if array && count > 1.0 && f.model.relationship(rel).child == e {
                    updates.batch_host = Some(host);
                }
            }
            Some(Home::Bucketed { rel }) => {
                if self.add_to_bucket(plan, op, e, rel, count).is_none() {
                    return;
                }
            }
            _ => own_step = Some(self.insert_own(plan, op, e, count, outlier)),
        }
        self.unique_indexes(plan, op, e, own_step);
        for &r in links {
            if f.model.relationship(r).child == e {
                self.child_link_updates(r, e, &mut updates);
            }
        }
        let parents = |parent: EntityId| self.parents_of_batch(e, parent, count);
        // A batch brings its children at once: an approximate counter
        // waits for `every` of them, which a batch as large is on its own.
        for (parent, u, why, every) in std::mem::take(&mut updates.batched) {
            match crate::candidates::facts::runs_per_write(every, count / parents(parent)) {
                1 => updates.add(parent, u, why),
                runs => updates.batched.push((parent, u, why, runs)),
            }
        }
        self.write_parent_updates(plan, op, updates, &parents);
        self.link_new_parent(plan, op, e, links);
    }

    /// The parents `count` new instances of `e` are written into: one (an
    /// order's lines, inserted with it), but an archive's batch is the
    /// oldest instances the job moves, each in a parent of its own as far
    /// as the parents go: about 1,000 parents for a batch of 1,000 among
    /// millions, not one.
    fn parents_of_batch(&self, e: EntityId, parent: EntityId, count: f64) -> f64 {
        if count <= 1.0 || self.facts.model.entity(e).archive_of.is_none() {
            return 1.0;
        }
        let all = self.facts.count(parent).max(1.0);
        (all * (1.0 - (1.0 - 1.0 / all).powf(count)))
            .round()
            .clamp(1.0, count)
    }

    /// A new instance embedded in its host (pushed into its array, or set
    /// as its field), or a parent folded into its children, written into
    /// each of them.
    fn insert_embedded(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        (rel, host, array): (RelationshipId, EntityId, bool),
        updates: &mut ParentUpdates,
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let r = f.model.relationship(rel);
        if r.child == e {
            // Inside a host that is itself an element of an array
            // (bids in an item in its seller), the filter matched
            // that element: the positional `$` names it.
            let hacc = self.access(host);
            let path = if hacc.per_root > 1.0 && !hacc.prefix.is_empty() {
                format!("{}.$.{}", hacc.prefix, r.parent_field)
            } else {
                acc.prefix.clone()
            };
            // An expiring child pushed into an array of a document of
            // its host's own (not one found by the positional `$`, which
            // an update pipeline has not): the same write drops the
            // expired ones, which no TTL index deletes.
            let expired = array && !path.contains('$');
            let expired = expired
                .then(|| self.pull_expired(plan, e, host, &path))
                .flatten();
            let u = if array {
                UpdateOp::Push {
                    path,
                    sort: None,
                    slice: None,
                }
            } else {
                UpdateOp::Set { path }
            };
            updates.add(
                host,
                u,
                Purpose::AddInside {
                    entity: name.clone(),
                    host: self.name(host).to_string(),
                },
            );
            if let Some(pull) = expired {
                updates.add(
                    host,
                    pull,
                    Purpose::DropExpired {
                        entity: name.clone(),
                        host: self.name(host).to_string(),
                    },
                );
            }
        } else {
            // A parent folded into its child: written with the child.
            let step_f = vec![filt(acc.path("_id"), FilterOp::Eq, ValueSource::Param)];
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: e,
                    action: Action::UpdateMany,
                    filter: step_f,
                    updates: vec![UpdateOp::Set {
                        path: acc.prefix.clone(),
                    }],
                    docs: f.typical(rel),
                    sync: f.typical(rel) - 1.0,
                    purpose: Purpose::WriteIntoEach {
                        entity: name.clone(),
                        host: self.name(host).to_string(),
                    },
                },
            );
        }
    }

    /// A new instance in a document of its own (or, for an outlier's child,
    /// in its parent's array while it has room); returns the step number.
    fn insert_own(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        count: f64,
        outlier: Option<(RelationshipId, u64, u64)>,
    ) -> usize {
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let many = if count > 1.0 {
            Action::InsertMany
        } else {
            Action::InsertOne
        };
        let mut step = Self::step(
            &acc.collection,
            many,
            Purpose::Insert {
                entity: name.clone(),
            },
        );
        step.documents = count;
        if let Some((r, threshold, _)) = outlier {
            self.push_while_room(plan, op, r, threshold, &name);
        }
        Self::as_fallback(&mut step, outlier.map(|(_, _, every)| every));
        let cost = StepCost {
            docs_written: count,
            bytes_written: count * (self.p.typical[e.index()] - self.arriving_later(e)).max(0.0),
            ..StepCost::default()
        };
        Self::target(plan, e, count > 1.0);
        self.push(plan, op, step, cost, None) - 1
    }

    /// The bytes of `e`'s typical document that its embedded children
    /// bring after it is written: an array of children that may be empty
    /// (`min: 0`) and that inserts of their own push into it (a question's
    /// answers). A new question holds none of them; it was priced at the
    /// typical question with its 20 answers (audit46 D8).
    fn arriving_later(&self, e: EntityId) -> f64 {
        let f = self.facts;
        f.rels_from[e.index()]
            .iter()
            .filter(|&&r| {
                let rel = f.model.relationship(r);
                matches!(self.layout(r), Layout::Embed)
                    && rel.kind != RelationshipKind::OneToOne
                    && rel.child != e
                    && rel.children.min == 0
                    && f.rels[r.index()].child_inserts > 0.0
            })
            .map(|&r| {
                let child = f.model.relationship(r).child;
                f.typical(r)
                    * (crate::candidates::placement::ELEMENT + self.p.typical[child.index()])
            })
            .sum()
    }

    /// What a new child writes in its parent through `r`: its id (with
    /// copies) in the parent's array, the latest K, the computed fields.
    fn child_link_updates(&self, r: RelationshipId, e: EntityId, updates: &mut ParentUpdates) {
        let rel = self.facts.model.relationship(r);
        let name = self.name(e).to_string();
        let layout = self.layout(r);
        let parent = rel.parent;
        match layout {
            // Bare ids in an array of the parent (or one id for a
            // one-to-one); ids in objects with copies of the child's
            // fields (or the link's attributes) are pushed whole, below.
            l if matches!(l, Layout::ChildReferences | Layout::TwoWayReferences)
                || (l.many_sides().is_some()
                    && self.child_ids_path(r).is_some_and(|p| !p.ends_with("._id"))) =>
            {
                updates.add(
                    parent,
                    add_id(rel, l, self.access(parent).path(&rel.parent_field)),
                    Purpose::AddId {
                        entity: name.clone(),
                        fields: Vec::new(),
                        parent: self.name(parent).to_string(),
                    },
                );
            }
            l @ (Layout::ManyToManyTwoWay
            | Layout::ManyToManyOneWay { .. }
            | Layout::ExtendedReference { .. }
            | Layout::TwoWayExtendedReference { .. })
                if self.child_ids_path(r).is_some() =>
            {
                let fields = l.copies_in(Side::Parent);
                updates.add(
                    parent,
                    UpdateOp::Push {
                        path: self.access(parent).path(&rel.parent_field),
                        sort: None,
                        slice: None,
                    },
                    Purpose::AddId {
                        entity: name.clone(),
                        fields: fields.iter().map(|f| f.to_string()).collect(),
                        parent: self.name(parent).to_string(),
                    },
                );
            }
            Layout::Subset { k, sort_field, .. } => {
                updates.add(
                    parent,
                    UpdateOp::Push {
                        path: self.access(parent).path(&rel.parent_field),
                        sort: sort_field.clone().map(|s| (s, -1)),
                        // Sorted newest first, the latest K are the
                        // first K; unsorted, pushed at the end, the last.
                        slice: Some(if sort_field.is_some() {
                            *k as i64
                        } else {
                            -(*k as i64)
                        }),
                    },
                    Purpose::KeepLatest {
                        k: *k,
                        entity: name.clone(),
                        parent: self.name(parent).to_string(),
                    },
                );
            }
            _ => {}
        }
        for (func, field, cname) in self.computed(r) {
            let path = self.access(parent).path(cname);
            let u = match func {
                AggregateFn::Min => UpdateOp::Min { path },
                AggregateFn::Max => UpdateOp::Max { path },
                AggregateFn::Last | AggregateFn::First => UpdateOp::Set { path },
                _ => UpdateOp::Inc {
                    path,
                    by: None,
                    amount: None,
                },
            };
            let why = Purpose::KeepComputed {
                function: crate::candidates::fn_name(func).to_string(),
                field: field.map(|x| x.to_string()),
                entity: name.clone(),
                parent: self.name(parent).to_string(),
            };
            match self.batch(r, cname) {
                1 => updates.add(parent, u, why),
                every => updates.batched.push((parent, u, why, every)),
            }
        }
    }

    /// Writes the parents' updates: one write per parent, and the batched
    /// counters of a parent written anyway with it.
    fn write_parent_updates(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        updates: ParentUpdates,
        parents: &dyn Fn(EntityId) -> f64,
    ) {
        let ParentUpdates {
            exact: mut parent_updates,
            batched,
            batch_host,
        } = updates;
        // An approximate counter in a parent written anyway rides along
        // exactly: batching saves only a write of its own. Counters of one
        // parent batched alike are one write.
        let mut own: Vec<(EntityId, u64, Vec<UpdateOp>, Vec<Purpose>)> = Vec::new();
        for (parent, u, why, every) in batched {
            if let Some(x) = parent_updates.iter_mut().find(|x| x.0 == parent) {
                x.1.push(u);
                x.2.push(why);
            } else if let Some(x) = own.iter_mut().find(|x| x.0 == parent && x.1 == every) {
                x.2.push(u);
                x.3.push(why);
            } else {
                own.push((parent, every, vec![u], vec![why]));
            }
        }
        // A parent folded into its children is written in every copy (a
        // page's count in each of its views), not in one of them.
        // Parents of a batch (an archive's move): each of them, by the ids
        // the batch names.
        let in_every_copy = |parent: EntityId| {
            let n = self.copies(parent);
            let action = if n * parents(parent) > 1.0 {
                Action::UpdateMany
            } else {
                Action::UpdateOne
            };
            (action, n)
        };
        let filter_of = |parent: EntityId| {
            let mut filter = self.id_filter(parent, ValueSource::Param);
            if parents(parent) > 1.0 {
                for f in &mut filter {
                    f.op = FilterOp::In;
                }
            }
            filter
        };
        for (parent, every, updates, why) in own {
            let (action, copies) = in_every_copy(parent);
            let n = copies * parents(parent);
            let filter = filter_of(parent);
            let (mut step, cost, index) = self.root_write(
                plan,
                RootWrite {
                    entity: parent,
                    action,
                    filter,
                    updates,
                    docs: n,
                    sync: n - parents(parent),
                    purpose: why,
                },
            );
            step.every = Some(every);
            self.push(plan, op, step, cost, index);
        }
        for (parent, updates, why) in parent_updates {
            let (action, copies) = in_every_copy(parent);
            let n = copies * parents(parent);
            let filter = filter_of(parent);
            let (mut step, cost, index) = self.root_write(
                plan,
                RootWrite {
                    entity: parent,
                    action,
                    filter,
                    updates,
                    docs: n,
                    sync: n - parents(parent),
                    purpose: why,
                },
            );
            // A batch pushed into its host at once: one write of the host
            // (priced so already), whose `$push` takes the batch's list.
            step.batch = batch_host == Some(parent);
            self.push(plan, op, step, cost, index);
        }
    }

    /// Links a new parent to its children when they keep its id.
    fn link_new_parent(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        links: &[RelationshipId],
    ) {
        let f = self.facts;
        let name = self.name(e).to_string();
        // A new parent of children that keep their parents' ids (both ways
        // in a many-to-many): each child linked gets the new id, with the
        // copies of the new parent's fields, which the caller has.
        for &r in links {
            let rel = f.model.relationship(r);
            let many = rel.kind == RelationshipKind::ManyToMany || rel.shared;
            if rel.parent != e || rel.child == e || !many {
                continue;
            }
            let Some(path) = self.parent_ref_path(r) else {
                continue;
            };
            let child = rel.child;
            let acc = self.access(child);
            let u = if path.ends_with("._id") {
                UpdateOp::Push {
                    path: acc.path(&rel.child_field),
                    sort: None,
                    slice: None,
                }
            } else {
                UpdateOp::AddToSet {
                    path: acc.path(&path),
                }
            };
            let n = f.typical(r).max(1.0);
            let (action, filter) = if n > 1.0 {
                (
                    Action::UpdateMany,
                    vec![filt(acc.path("_id"), FilterOp::In, ValueSource::Param)],
                )
            } else {
                (Action::UpdateOne, self.id_filter(child, ValueSource::Param))
            };
            let why = Purpose::Link {
                entity: self.name(child).to_string(),
                to: name.clone(),
            };
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: child,
                    action,
                    filter,
                    updates: vec![u],
                    docs: n,
                    sync: n - 1.0,
                    purpose: why,
                },
            );
        }
    }

    /// The unique indexes an inserted entity's `unique:` combinations need,
    /// where the design keeps it in documents of its own (`step` inserts
    /// them) with every key (partial over the documents that have them when
    /// some may lack one); otherwise the application has to check, and
    /// the plan says so (a unique index on an embedded array's paths does
    /// not compare the elements of one document).
    pub(super) fn unique_indexes(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        step: Option<usize>,
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let entity = f.model.entity(e);
        // Carried by an operation that does not insert `e`
        // (`unique_without_insert`): the data keeps it, the operation
        // does not use it.
        let by_data = !matches!(
            f.model.operation(op).kind,
            OperationKind::Insert { entity, .. } if entity == e
        );
        for (combination, (keys, partial)) in entity.unique.iter().zip(self.unique_keys(e)) {
            let keys = keys.filter(|_| step.is_some());
            match (keys, step) {
                (Some(keys), Some(step)) => plan.indexes.push(IndexNeed {
                    collection: acc.collection.clone(),
                    entries: acc.docs * self.array_entries(e, &keys),
                    held: acc.docs * self.array_entries(e, &keys) * f.held_share(acc.root),
                    writes: self.writes_of(e),
                    keys_per_write: self.keys_per_write(e, &keys),
                    keys,
                    operation: op,
                    step,
                    unique: true,
                    partial,
                    equalities: 0,
                    by_data,
                }),
                _ => plan.warnings.push(Warning::UniqueUnchecked {
                    entity: self.name(e).to_string(),
                    keys: combination
                        .iter()
                        .map(|k| match k {
                            KeyPart::Field(name) => name.clone(),
                            KeyPart::Parent(r) => f.model.relationship(*r).child_field.clone(),
                        })
                        .collect(),
                }),
            }
        }
    }
}

/// An index's keys with their directions.
type IndexKeys = Vec<(String, i32)>;

impl Planner<'_> {
    /// The index keys of each `unique:` combination of `e`, at their paths
    /// in the design, with the conditions that make the index partial: a
    /// key some documents lack (an optional field, or every key of the
    /// other kinds in a polymorphic collection) is indexed as null, and
    /// two nulls collide, so the index holds only the documents that have
    /// it. `None` keys: the design keeps no reference the index could key.
    fn unique_keys(&self, e: EntityId) -> Vec<(Option<IndexKeys>, Vec<PartialCondition>)> {
        let f = self.facts;
        let acc = self.access(e);
        let entity = f.model.entity(e);
        entity
            .unique
            .iter()
            .map(|combination| {
                let mut partial: Vec<PartialCondition> = Vec::new();
                if let Some(kind) = &acc.kind {
                    partial.push(PartialCondition::Equals {
                        path: "kind".to_string(),
                        value: kind.clone(),
                    });
                }
                let keys: Option<Vec<(String, i32)>> = combination
                    .iter()
                    .map(|k| {
                        let (path, optional) = match k {
                            KeyPart::Field(name) => (
                                acc.path(name),
                                entity.field(name).is_some_and(|x| !x.required),
                            ),
                            KeyPart::Parent(r) => {
                                let rel = f.model.relationship(*r);
                                let p = self.parent_ref_path(*r)?;
                                (acc.path(&p), rel.parents.min == 0)
                            }
                        };
                        if optional {
                            partial.push(PartialCondition::Exists { path: path.clone() });
                        }
                        Some((path, 1))
                    })
                    .collect();
                (keys, partial)
            })
            .collect()
    }

    /// The unique indexes of `e`'s `unique:` combinations, as keys and
    /// partial conditions, for an entity kept in documents of its own (an
    /// embedded one has none that could enforce them): what the data
    /// needs whatever the workload does, for `advise::build` to add where
    /// no operation's plan carries them (no operation reads or writes the
    /// entity: an admin tool or a migration loads it).
    pub(crate) fn data_unique(&self, e: EntityId) -> Vec<(IndexKeys, Vec<PartialCondition>)> {
        if !matches!(self.p.home.get(e.index()), Some(Home::Own)) {
            return Vec::new();
        }
        self.unique_keys(e)
            .into_iter()
            .filter_map(|(keys, partial)| Some((keys?, partial)))
            .collect()
    }
}

impl Planner<'_> {
    /// A `unique:` combination is a property of the data, not of this
    /// workload's inserts: an entity no operation inserts (its documents
    /// come from another service or a migration) still gets its unique
    /// indexes, carried by the first operation that reads or writes it,
    /// on its step on the entity's collection. Where the design keeps the
    /// entity inside other documents, that plan warns instead, as an
    /// insert's does.
    pub(super) fn unique_without_insert(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        // The writes first (a read may be answered without a step of
        // its own on the collection), then the reads.
        let writes = |kind: &OperationKind| match kind {
            OperationKind::Update { entity, .. } | OperationKind::Delete { entity, .. } => {
                Some(*entity)
            }
            _ => None,
        };
        let reads = |kind: &OperationKind| match kind {
            OperationKind::Read { entity, .. } => Some(*entity),
            _ => None,
        };
        let Some(e) = writes(&model.operation(op).kind).or(reads(&model.operation(op).kind)) else {
            return;
        };
        if model.entity(e).unique.is_empty() {
            return;
        }
        let ops = &model.workload.operations;
        let inserted = ops
            .iter()
            .any(|o| matches!(o.kind, OperationKind::Insert { entity, .. } if entity == e));
        let first = |by: &dyn Fn(&OperationKind) -> Option<EntityId>| {
            ops.iter().position(|o| by(&o.kind) == Some(e))
        };
        if inserted || first(&writes).or_else(|| first(&reads)) != Some(op.index()) {
            return;
        }
        let step = match self.p.home.get(e.index()) {
            Some(Home::Embedded { .. } | Home::Bucketed { .. }) => None,
            _ => {
                let coll = self.access(e).collection;
                Some(
                    plan.steps
                        .iter()
                        .rposition(|s| s.collection == coll)
                        .unwrap_or(0),
                )
            }
        };
        let before = plan.warnings.len();
        self.unique_indexes(plan, op, e, step);
        // An upsert into the parent's array adds an element only where no
        // element holds its key (the `$ne` guard of its `$push`): that is
        // the check of the combination its filter names, so the plan does
        // not tell the application to make it.
        if let OperationKind::Update { filter, .. } = &model.operation(op).kind
            && model.operation(op).terms.upserts()
            && step.is_none()
            && let Some(crate::model::Identity::Unique { combination, .. }) =
                crate::model::identity(model, e, filter)
        {
            let keys: Vec<String> = model.entity(e).unique[combination]
                .iter()
                .map(|k| match k {
                    KeyPart::Field(name) => name.clone(),
                    KeyPart::Parent(r) => model.relationship(*r).child_field.clone(),
                })
                .collect();
            let mut i = 0;
            plan.warnings.retain(|w| {
                i += 1;
                !(i > before && matches!(w, Warning::UniqueUnchecked { keys: k, .. } if *k == keys))
            });
        }
    }

    /// The drop of the expired elements of `e` from the array at `path` of
    /// its `host`, for a write that pushes one, when `e` expires by a date
    /// every instance has (a missing date never expires); and the warning
    /// that says how big the array gets. An expert keeps the array at its
    /// live elements this way at no cost of its own: the push rewrites the
    /// document anyway, and one update pipeline (`$filter`, then
    /// `$concatArrays`) does both in one atomic write, where a periodic
    /// job would need an index on the date in every array and a walk of
    /// every host. A host that is not written again keeps what it held at
    /// its last push (at most its cap), which every read leaves out.
    fn pull_expired(
        &self,
        plan: &mut OpPlan,
        e: EntityId,
        host: EntityId,
        path: &str,
    ) -> Option<UpdateOp> {
        let f = self.facts;
        let entity = f.model.entity(e);
        let x = entity.expires.as_ref()?;
        if !entity.field(&x.field).is_some_and(|d| d.required) {
            return None;
        }
        let rate = f.entity_inserts[e.index()] / f.count(host).max(1.0);
        let life = x.seconds as f64;
        let max = match self.p.home[e.index()] {
            Home::Embedded { rel, .. } => f.model.relationship(rel).children.max.finite(),
            _ => None,
        };
        plan.warnings.push(crate::design::Warning::ExpiredDropped {
            entity: entity.name.clone(),
            host: self.name(host).to_string(),
            per_host_per_second: rate,
            live: rate * life,
            lingering: -(-rate * life).exp_m1(),
            max,
        });
        Some(UpdateOp::PullExpired {
            path: path.to_string(),
            field: x.field.clone(),
            seconds: x.seconds,
        })
    }

    /// Pushes a new child into its parent's array while it has room: the
    /// filter finds no document once the last place is taken.
    fn push_while_room(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        r: RelationshipId,
        threshold: u64,
        name: &str,
    ) {
        let rel = self.facts.model.relationship(r);
        let parent = rel.parent;
        let path = self.access(parent).path(&rel.parent_field);
        let mut filter = self.id_filter(parent, ValueSource::Param);
        filter.push(filt(
            format!("{path}.{}", threshold.saturating_sub(1)),
            FilterOp::Eq,
            ValueSource::Missing,
        ));
        self.write_root(
            plan,
            op,
            RootWrite {
                entity: parent,
                action: Action::UpdateOne,
                filter,
                updates: vec![UpdateOp::Push {
                    path,
                    sort: None,
                    slice: None,
                }],
                docs: 1.0,
                sync: 0.0,
                purpose: Purpose::AddInside {
                    entity: name.to_string(),
                    host: self.name(parent).to_string(),
                },
            },
        );
    }
}

/// A step that runs for a `share` of executions, as "once every N".
pub(super) fn every_one_in(share: f64) -> u64 {
    if share <= 0.0 {
        u64::MAX
    } else {
        (1.0 / share).round().max(1.0) as u64
    }
}
