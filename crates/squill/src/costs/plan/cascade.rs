//! A parent's delete takes the children it owns with it (audit 43 Q).
//!
//! An owned child (not `standalone`, not `shared`, not many-to-many) has no
//! life apart from its parent: embedded, it goes with the parent's
//! document; kept apart (its own collection, buckets, an outlier's
//! overflow documents) the plan must delete it too, or the layouts compared
//! would not do the same work. Grandchildren kept apart go the same way,
//! found by their parents' ids.
//!
//! Order: the deepest children first, the parent last. A failure part-way
//! then leaves a parent with fewer children, still found by its id, and the
//! delete run again finishes the work; the parent first would leave
//! children that nothing finds any more. No transaction is asked for beyond
//! what the model's atomic groups ask: children first is safe to retry
//! without one.

use super::*;
use crate::design::Unreached;

/// Where a parent's owned children are, for its delete.
enum Reach {
    /// Documents of their own that hold the parent's id under `path`;
    /// `upkeep`: another parent keeps their ids or figures.
    ParentRef { path: String, upkeep: bool },
    /// Documents of their own whose ids the parent keeps under `path`.
    IdsInParent { path: String, upkeep: bool },
    /// Bucket documents, each with the parent's id (`child_field`).
    Buckets,
    /// An outlier's children past its threshold, in documents of their own
    /// with the parent's id (`child_field`); the rest go with the parent.
    Overflow { threshold: u64 },
    /// Elements of an array in another entity's documents (a member's
    /// comments, owned by their issue): pulled from every document that
    /// holds one, found by the parent's id each element holds under `path`
    /// (`ids: false`), or by the children's ids the parent keeps under
    /// `path` (`ids: true`), read from it first.
    Embedded { path: String, ids: bool },
}

impl Planner<'_> {
    /// The owned children of `e` kept apart from its documents: each
    /// relationship with how the delete reaches them, or why it cannot
    /// (the plan then warns).
    fn owned_apart(&self, e: EntityId) -> Vec<(RelationshipId, Result<Reach, Unreached>)> {
        let f = self.facts;
        let model = f.model;
        let mut out = Vec::new();
        for &r in &f.rels_from[e.index()] {
            let rel = model.relationship(r);
            let owned = !rel.child_standalone
                && !rel.shared
                && rel.kind != crate::model::RelationshipKind::ManyToMany
                && rel.parent != rel.child;
            let c = rel.child;
            // Embedded in `e`'s own documents, the children go with them;
            // embedded in another entity's (a member's comments, owned by
            // their issue), they are pulled from its documents
            // (`Reach::Embedded`).
            let apart = self.p.root(c) != self.p.root(e);
            if !owned || !apart {
                continue;
            }
            // A child that lives in another parent's array (an outlier's
            // first children) is not all in its documents: not reached.
            // One whose ids, latest or figures another parent keeps (a
            // member's count of its comments) is deleted as a delete of it
            // would be, those kept up too (`Reach::upkeep`).
            let elsewhere = |x: RelationshipId| x != r;
            let blocked = f.rels_to[c.index()].iter().any(|&x| {
                elsewhere(x)
                    && matches!(
                        self.layout(x),
                        Layout::Outlier { .. } | Layout::Bucket { .. }
                    )
            });
            let upkeep = f.rels_to[c.index()].iter().any(|&x| {
                elsewhere(x)
                    && (self.child_ids_path(x).is_some()
                        || matches!(self.layout(x), Layout::Subset { .. })
                        || self.computed(x).next().is_some())
            });
            // A collection shared with the parent (a polymorphic one):
            // the delete's conditions would land on the children's step.
            let same_collection = self.access(c).collection == self.access(e).collection;
            let refs = (self.parent_ref_path(r), self.child_ids_path(r));
            let reach = if blocked {
                Err(Unreached::OtherParentsArray)
            } else if same_collection {
                Err(Unreached::SameCollection)
            } else {
                match (self.p.home[c.index()], self.layout(r)) {
                    (Home::Bucketed { rel: b }, Layout::Bucket { .. }) if b == r && !upkeep => {
                        Ok(Reach::Buckets)
                    }
                    (Home::Own, Layout::Outlier { threshold }) if !upkeep => Ok(Reach::Overflow {
                        threshold: *threshold,
                    }),
                    (Home::Own, Layout::Outlier { .. }) | (Home::Bucketed { .. }, _) => {
                        Err(Unreached::KeptUpInBuckets)
                    }
                    (Home::Own, _) => match refs {
                        (Some(path), _) => Ok(Reach::ParentRef { path, upkeep }),
                        (None, Some(path)) => Ok(Reach::IdsInParent { path, upkeep }),
                        _ => Err(Unreached::NoReference),
                    },
                    // In an array at the top of the host's documents, with
                    // nothing kept over them elsewhere (a count the host
                    // keeps would need each host's share of the pulled
                    // elements): one `$pull` by the key each holds. Deeper
                    // (an array in an array) or kept up: warned of.
                    (Home::Embedded { host, array, .. }, _) => {
                        if !array || host != self.p.root(c) {
                            Err(Unreached::NestedInHost)
                        } else if upkeep {
                            Err(Unreached::KeptUpInHost)
                        } else {
                            match refs {
                                (Some(path), _) => Ok(Reach::Embedded { path, ids: false }),
                                (None, Some(path)) => Ok(Reach::Embedded { path, ids: true }),
                                _ => Err(Unreached::NoReference),
                            }
                        }
                    }
                }
            };
            out.push((r, reach));
        }
        out
    }

    /// Whether a delete of `e` has owned children to delete with it.
    pub(super) fn deletes_children(&self, e: EntityId) -> bool {
        self.owned_apart(e).iter().any(|(_, reach)| reach.is_ok())
    }

    /// The steps that delete the owned children of `m` deleted `e`s, whose
    /// ids `ids` gives (`one_or_in`: one id or several), and their own
    /// children below them, deepest first; a warning for those it cannot
    /// reach. Priced by the model's typical children per parent.
    pub(super) fn delete_owned_children(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        (m, ids, one_or_in): (f64, &ValueSource, FilterOp),
        above: &[EntityId],
    ) {
        let f = self.facts;
        // The entities this delete already takes, `e` last: a cycle of
        // owned relationships (which a model may only close with a
        // `standalone` one, but a hand-built one may not) stops here.
        let chain: Vec<EntityId> = above.iter().copied().chain([e]).collect();
        for (r, reach) in self.owned_apart(e) {
            let rel = f.model.relationship(r);
            let c = rel.child;
            let reach = if chain.contains(&c) {
                Err(Unreached::Cycle)
            } else {
                reach
            };
            let reach = match reach {
                Ok(reach) => reach,
                Err(why) => {
                    plan.warnings.push(Warning::OrphanedChildren {
                        entity: self.name(e).to_string(),
                        children: self.name(c).to_string(),
                        relationship: rel.name.clone(),
                        why,
                    });
                    continue;
                }
            };
            let n = m * f.typical(r);
            let cname = self.name(c).to_string();
            let pname = self.name(e).to_string();
            let gone = Purpose::DeleteOwnedChildren {
                entity: cname.clone(),
                parent: pname.clone(),
            };
            match reach {
                Reach::ParentRef { path, upkeep } => {
                    let path = self.access(c).path(&path);
                    let by_parent = filt(path.clone(), one_or_in, ids.clone());
                    if upkeep {
                        let refs = self.refs_to_keep_up(c, r);
                        let step = self.find_ids(plan, op, c, by_parent, n, refs);
                        self.delete_children_found(plan, op, (c, r), n, step, &chain);
                        continue;
                    }
                    // Their own children need their ids: read first.
                    if self.deletes_children(c) {
                        let step = self.find_ids(plan, op, c, by_parent.clone(), n, Vec::new());
                        let theirs = ValueSource::FromStep { step };
                        self.delete_owned_children(plan, op, c, (n, &theirs, FilterOp::In), &chain);
                    } else {
                        self.warn_unreached_below(plan, c);
                    }
                    self.delete_children_step(plan, op, c, by_parent, n, gone);
                }
                Reach::IdsInParent { path, upkeep } => {
                    let step = self.ids_kept_by(plan, op, e, &path, (m, ids, one_or_in));
                    let theirs = ValueSource::FromStep { step };
                    let acc = self.access(c);
                    let by_ids = filt(acc.path("_id"), FilterOp::In, theirs.clone());
                    if upkeep {
                        let refs = self.refs_to_keep_up(c, r);
                        let step = self.find_ids(plan, op, c, by_ids, n, refs);
                        self.delete_children_found(plan, op, (c, r), n, step, &chain);
                        continue;
                    }
                    self.delete_owned_children(plan, op, c, (n, &theirs, FilterOp::In), &chain);
                    self.delete_children_step(plan, op, c, by_ids, n, gone);
                }
                Reach::Buckets => {
                    let per_parent = self
                        .p
                        .buckets_holding(f, r, f.typical(r), self.bucket_fill(r))
                        .max(1.0);
                    self.warn_unreached_below(plan, c);
                    let by_parent = filt(rel.child_field.clone(), one_or_in, ids.clone());
                    self.delete_children_step(
                        plan,
                        op,
                        c,
                        by_parent,
                        m * per_parent,
                        Purpose::DeleteBuckets {
                            entity: cname,
                            parent: pname,
                        },
                    );
                }
                Reach::Overflow { threshold } => {
                    // Only the children past the threshold have documents.
                    let share = rel.children.items_share_above(threshold).unwrap_or(0.0);
                    self.warn_unreached_below(plan, c);
                    let path = self.access(c).path(&rel.child_field);
                    let by_parent = filt(path, one_or_in, ids.clone());
                    self.delete_children_step(plan, op, c, by_parent, n * share, gone);
                }
                Reach::Embedded { path, ids: by_ids } => {
                    let acc = self.access(c);
                    // Their elements: by the children's ids the parent
                    // keeps, read from it first (their own children then
                    // go by those ids too), or by the parent's id each
                    // holds, when no id of theirs is read and their own
                    // children kept apart are warned of.
                    let test = if by_ids {
                        let step = self.ids_kept_by(plan, op, e, &path, (m, ids, one_or_in));
                        let theirs = ValueSource::FromStep { step };
                        self.delete_owned_children(plan, op, c, (n, &theirs, FilterOp::In), &chain);
                        filt(acc.path("_id"), FilterOp::In, theirs)
                    } else {
                        self.warn_unreached_below(plan, c);
                        filt(acc.path(&path), one_or_in, ids.clone())
                    };
                    // The documents holding them: each child in as many
                    // hosts as the relationship that embeds it says
                    // (one for a one-to-many), every child in a host of
                    // its own at most (the model does not say how the
                    // children of one parent share hosts), and no more
                    // than the host's documents.
                    let per_child = match self.p.home[c.index()] {
                        Home::Embedded { rel: held, .. } => f.typical_parents(held),
                        _ => 1.0,
                    };
                    let hosts = (n * per_child).min(acc.docs.max(1.0));
                    self.write_root(
                        plan,
                        op,
                        RootWrite {
                            entity: c,
                            action: Action::UpdateMany,
                            filter: vec![test],
                            updates: vec![UpdateOp::Pull {
                                path: acc.prefix.clone(),
                            }],
                            docs: hosts,
                            sync: 0.0,
                            purpose: Purpose::PullOwnedChildren {
                                entity: cname,
                                parent: pname,
                                host: self.name(acc.root).to_string(),
                            },
                        },
                    );
                }
            }
        }
    }

    /// The step that reads the ids of its children `e`'s documents keep
    /// under `path`, before they go: the find of the parents that read
    /// their ids, when there is one (the path added to what it returns),
    /// or a find of its own by `ids`. Returns its step number.
    fn ids_kept_by(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        path: &str,
        (m, ids, one_or_in): (f64, &ValueSource, FilterOp),
    ) -> usize {
        let pacc = self.access(e);
        let held = pacc.path(path);
        match ids {
            ValueSource::FromStep { step: n }
                if plan.steps.get(n.wrapping_sub(1)).is_some_and(|s| {
                    s.action == Action::Find && s.collection == pacc.collection
                }) =>
            {
                let found = &mut plan.steps[n - 1];
                if !found.projection.contains(&held) {
                    found.projection.push(held);
                }
                *n
            }
            _ => {
                let by_id = filt(pacc.path("_id"), one_or_in, ids.clone());
                self.find_ids(plan, op, e, by_id, m, vec![held])
            }
        }
    }

    /// Whether every step a delete of `m` instances of `e` by the caller's
    /// ids takes for its owned children lands in a collection whose
    /// documents carry the tenant's id: the steps are planned aside and
    /// looked at. Each of their writes then tests the tenant (tenant.rs),
    /// so a parent's id of another tenant takes nothing, and the delete
    /// needs no find of its parent first.
    pub(super) fn children_carry_tenant(
        &self,
        op: OperationId,
        e: EntityId,
        (m, one_or_in): (f64, FilterOp),
    ) -> bool {
        let mut aside = OpPlan::default();
        self.delete_owned_children(&mut aside, op, e, (m, &ValueSource::Param, one_or_in), &[]);
        aside
            .steps
            .iter()
            .all(|s| self.tenant_path_in(&s.collection).is_some())
    }

    /// The references to its other parents a child's find returns, for
    /// their figures or latest children to follow its delete (as
    /// `delete` reads them for a delete of the child by a filter).
    fn refs_to_keep_up(&self, c: EntityId, r: RelationshipId) -> Vec<String> {
        let acc = self.access(c);
        let mut out = vec![acc.path("_id")];
        for &x in &self.facts.rels_to[c.index()] {
            let needs = x != r
                && self.child_ids_path(x).is_none()
                && (self.computed(x).next().is_some()
                    || matches!(self.layout(x), Layout::Subset { .. }));
            if let Some(p) = self.parent_ref_path(x).filter(|_| needs) {
                out.push(acc.path(&p));
            }
        }
        out
    }

    /// `n` children of `c` found by the find `step`, deleted as a delete of
    /// them by a filter is: each other parent's loss counted, their own
    /// children, their documents by those ids, then the other parents' ids
    /// and figures (the deleted parent, through `r`, goes anyway).
    fn delete_children_found(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (c, r): (EntityId, RelationshipId),
        n: f64,
        step: usize,
        above: &[EntityId],
    ) {
        let theirs = ValueSource::FromStep { step };
        self.delete_found(
            plan,
            op,
            c,
            (n, true, FilterOp::In),
            (&theirs, &theirs, &theirs),
            (Some(r), above),
        );
    }

    /// Children of `c` kept apart, where `c`'s own ids are not read (in
    /// buckets, or an outlier's array): warned of, not deleted.
    pub(super) fn warn_unreached_below(&self, plan: &mut OpPlan, c: EntityId) {
        let model = self.facts.model;
        for (g, _) in self.owned_apart(c) {
            let rel = model.relationship(g);
            plan.warnings.push(Warning::OrphanedChildren {
                entity: self.name(c).to_string(),
                children: self.name(rel.child).to_string(),
                relationship: rel.name.clone(),
                why: Unreached::BelowUnread,
            });
        }
    }

    /// A find of `n` documents of `e` by `test`, returning their ids (and
    /// `projection`), for the deletes after it. Returns its step number.
    fn find_ids(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        test: StepFilter,
        n: f64,
        projection: Vec<String>,
    ) -> usize {
        let acc = self.access(e);
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::FindToDelete {
                entity: self.name(e).to_string(),
            },
        );
        let keys = self.write_keys(e, std::slice::from_ref(&test));
        step.filter = vec![test];
        step.projection = if projection.is_empty() {
            vec![acc.path("_id")]
        } else {
            projection
        };
        step.documents = n;
        let cost = StepCost {
            keys: n,
            docs: n,
            bytes_read: n * acc.root_bytes,
            ..StepCost::default()
        };
        self.push(plan, op, step, cost, Some((keys, acc.root, acc.docs)))
    }

    /// The delete of `docs` documents of `c` by `test`.
    fn delete_children_step(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        c: EntityId,
        test: StepFilter,
        docs: f64,
        purpose: Purpose,
    ) {
        self.write_root(
            plan,
            op,
            RootWrite {
                entity: c,
                action: Action::DeleteMany,
                filter: vec![test],
                updates: Vec::new(),
                docs,
                sync: 0.0,
                purpose,
            },
        );
    }
}
