//! Writes under a tenant (`tenant: store`): every write a plan sends to a
//! collection whose documents carry the tenant's id tests that id beside
//! its own filter, as a read does. The operation names its tenant (the
//! model adds the filter on it), so an id of another tenant's document
//! then matches nothing, rather than being updated or deleted (issue 41).
//!
//! One pass over the finished plan, not each place a write is made: the
//! instance's own update or delete by `_id`, and every write the plan adds
//! (a parent's kept counter or sum, copies kept in other documents and
//! their fan-out, a link pushed to the parent, a guard, a bucket's upsert,
//! a fallback, a count-down after a bulk delete, an element written through
//! its parent's `_id`) are scoped by the same test. The pass adds a test
//! and nothing else: the step keeps its index and its documents. The
//! documents a write of the operation reaches all lie in its tenant, so
//! the test keeps every one of them; on `_id_` (or a unique index) the
//! index still finds the one document and the tenant only tests it. An
//! upsert's equality is also what it sets when it creates its document.

use super::{OpPlan, Planner, filt};
use crate::candidates::placement::Home;
use crate::design::{Action, ValueSource};
use crate::model::{EntityId, Filter, FilterOp, OperationId};

impl Planner<'_> {
    /// Adds the test on the tenant to each write step of `plan` on a
    /// collection whose documents carry the tenant's id, where the step's
    /// filter lacks it. Only for an operation that lies within one tenant:
    /// an operation on a global entity (a category whose name products of
    /// every store copy) writes across tenants, and the tenant's own
    /// documents are found by their `_id`, which is the tenant.
    pub(super) fn scope_writes_to_tenant(&self, plan: &mut OpPlan, op: OperationId) {
        if !self.operation_within_tenant(op) {
            return;
        }
        for (i, step) in plan.steps.iter_mut().enumerate() {
            if !writes_by_filter(step.action) {
                continue;
            }
            let Some(path) = self.tenant_path_in(&step.collection) else {
                continue;
            };
            if step.filter.iter().any(|f| f.path == path) {
                continue;
            }
            // In the tenant's own documents (a team embedded in its org)
            // the test is the document's `_id`: `_id_` finds it, as it
            // would have had the write named it (`write_keys`), and the
            // index on the element's id that the step asked for serves
            // nothing. The write's cost is the same on either index.
            if path == "_id" {
                plan.indexes.retain(|n| n.step != i || n.unique);
                step.index = Some("_id_".to_string());
            }
            step.filter
                .insert(0, filt(path, FilterOp::Eq, ValueSource::Param));
        }
    }

    /// The filter of a step that a read of `op` takes on the way through
    /// a chained filter (the follows whose follower is the caller, before
    /// the stories of the users they name), on scoped entity `e`: the
    /// condition on the tenant first, as the model puts it before the
    /// operation's own (review48 A8). Every operation names its tenant,
    /// so the hop is scoped like the last step, and its index leads with
    /// the tenant. The hop's documents are the tenant's (a follower in the
    /// space), so the test keeps all of them: `implied` gives the tenant
    /// no share beside a parent within it. Unchanged for an operation that
    /// names no tenant (`all_tenants`, `finds_tenant`), an entity outside
    /// it, or a filter that already names it.
    pub(super) fn scoped_hop(&self, op: OperationId, e: EntityId, c: Filter) -> Vec<Filter> {
        let model = self.facts.model;
        let Some(r) = model.tenant_relationship(e) else {
            return vec![c];
        };
        let names = |x: &Filter| {
            x.related
                .as_ref()
                .is_some_and(|x| x.relationship == r && x.field == "_id" && x.further.is_empty())
        };
        if model.operation(op).finds_tenant || !self.operation_within_tenant(op) || names(&c) {
            return vec![c];
        }
        let path = vec![model.relationship(r).name.clone(), "_id".to_string()];
        vec![Filter::new(model, e, path, FilterOp::Eq), c]
    }

    /// Whether operation `op` lies within one tenant (see
    /// `scope_writes_to_tenant`); `false` without a tenant.
    fn operation_within_tenant(&self, op: OperationId) -> bool {
        let model = self.facts.model;
        if model.tenant.is_none() {
            return false;
        }
        let operation = model.operation(op);
        // An operation across every tenant (`all_tenants`) names none: its
        // writes reach every tenant's documents, and there is no id to test.
        if operation.all_tenants {
            return false;
        }
        match &operation.kind {
            crate::model::OperationKind::Link { relationship, .. }
            | crate::model::OperationKind::UpdateLink { relationship, .. } => {
                let rel = model.relationship(*relationship);
                self.within_tenant(rel.parent) || self.within_tenant(rel.child)
            }
            _ => self.within_tenant(operation.entity_in(model)),
        }
    }

    /// Buckets that hold their tenant's id at their top level
    /// (`Model::bucket_tenant`: a symbol's ticks, each bucket of one
    /// symbol and so of one org): every step of an operation within the
    /// tenant that finds such buckets by a filter, read or write, tests
    /// the tenant first, and its index leads with it, as every index of a
    /// scoped collection does. The read of a symbol's ticks then names the
    /// org beside the symbol on the bucket's own key (`org_1_symbol_1_minute_1`),
    /// and the upsert of a new tick opens a bucket only in the caller's
    /// org, with the org set on it (an upsert sets its equalities). The
    /// test keeps every document the step found: a bucket's children are
    /// its parent's, all of the one tenant.
    pub(super) fn tenant_leads_buckets(&self, plan: &mut OpPlan, op: OperationId) {
        if !self.operation_within_tenant(op) {
            return;
        }
        for (i, step) in plan.steps.iter_mut().enumerate() {
            if !(writes_by_filter(step.action) || step.action == Action::Find) {
                continue;
            }
            let Some(path) = self.bucket_tenant_in(&step.collection) else {
                continue;
            };
            if !step.filter.iter().any(|f| f.path == path) {
                step.filter
                    .insert(0, filt(path.clone(), FilterOp::Eq, ValueSource::Param));
            }
            for need in plan.indexes.iter_mut().filter(|n| n.step == i) {
                if !need.keys.iter().any(|(k, _)| *k == path) {
                    need.keys.insert(0, (path.clone(), 1));
                    if need.equalities > 0 {
                        need.equalities += 1;
                    }
                }
            }
        }
    }

    /// Children embedded in a document within the tenant (an order's
    /// lines, the order a shop's): their tenant is their host's, so every
    /// read of them by a filter tests the host's tenant field first, at the
    /// top level beside the test on the elements (`$elemMatch`), and its
    /// index leads with it, as a write to them does (`scope_writes_to_tenant`)
    /// and a read of the host does. An unwound count or list matches the
    /// holders first, so the test keeps only the caller's tenant's elements.
    /// The test keeps every document the step found: the holders of an
    /// operation within the tenant all lie in it (review47 item 4).
    pub(super) fn tenant_leads_embedded(&self, plan: &mut OpPlan, op: OperationId) {
        if !self.operation_within_tenant(op) {
            return;
        }
        let model = self.facts.model;
        let e = model.operation(op).entity_in(model);
        if !matches!(self.p.home[e.index()], Home::Embedded { .. }) {
            return;
        }
        let collection = self.p.collection(self.facts, self.space, e);
        let Some(path) = self.tenant_path_in(&collection) else {
            return;
        };
        for (i, step) in plan.steps.iter_mut().enumerate() {
            if step.action != Action::Find
                || step.collection != collection
                || step.filter.iter().any(|f| f.path == path)
            {
                continue;
            }
            step.filter
                .insert(0, filt(path.clone(), FilterOp::Eq, ValueSource::Param));
            // In the tenant's own documents (a team embedded in its org)
            // the test is the document's `_id`, which `_id_` finds.
            if path == "_id" {
                plan.indexes.retain(|n| n.step != i || n.unique);
                step.index = Some("_id_".to_string());
                continue;
            }
            // A holder found by its `_id` (an order, then its line): the
            // id finds the one document, and the tenant only tests it.
            if step.filter.iter().any(|f| f.path == "_id") {
                continue;
            }
            for need in plan.indexes.iter_mut().filter(|n| n.step == i) {
                if !need.keys.iter().any(|(k, _)| *k == path) {
                    need.keys.insert(0, (path.clone(), 1));
                    need.equalities += 1;
                }
            }
        }
    }

    /// A read of an outlier's children under their tenant, through their
    /// parent (`as_tenant_parent_include`): the parent's find by its `_id`
    /// and the query of the rest each test the caller's tenant. The id
    /// finds the one parent, so its find keeps `_id_`; the rest's index
    /// leads with the tenant, as every index of the collection does.
    /// Without it, a parcel of another carrier would be read and counted.
    pub(super) fn tenant_leads_outlier(&self, plan: &mut OpPlan, op: OperationId) {
        if !self.operation_within_tenant(op) {
            return;
        }
        let model = self.facts.model;
        let e = model.operation(op).entity_in(model);
        if self.p.home[e.index()] != Home::Own {
            return;
        }
        let Some((r, _, _)) = self.outlier_of(e) else {
            return;
        };
        let parent = self.access(model.relationship(r).parent).collection;
        let apart = self.access(e).collection;
        for (i, step) in plan.steps.iter_mut().enumerate() {
            if step.action != Action::Find
                || !(step.collection == parent || step.collection == apart)
            {
                continue;
            }
            let Some(path) = self.tenant_path_in(&step.collection) else {
                continue;
            };
            if step.filter.iter().any(|f| f.path == path) {
                continue;
            }
            step.filter
                .insert(0, filt(path.clone(), FilterOp::Eq, ValueSource::Param));
            if step.filter.iter().any(|f| f.path == "_id") {
                continue;
            }
            for need in plan.indexes.iter_mut().filter(|n| n.step == i) {
                if !need.keys.iter().any(|(k, _)| *k == path) {
                    need.keys.insert(0, (path.clone(), 1));
                    need.equalities += 1;
                }
            }
        }
    }

    /// The top-level field in which the bucket documents of `collection`
    /// hold their tenant's id (`Model::bucket_tenant`); `None` for any
    /// other collection.
    fn bucket_tenant_in(&self, collection: &str) -> Option<String> {
        let model = self.facts.model;
        model.entity_ids().find_map(|e| {
            let Home::Bucketed { rel } = self.p.home[e.index()] else {
                return None;
            };
            let t = model.bucket_tenant(rel)?;
            (self.p.collection(self.facts, self.space, e) == collection)
                .then(|| model.relationship(t).child_field.clone())
        })
    }

    /// Whether every instance of `e` lies within one tenant: `e` is scoped
    /// (a store's product), or belongs through one-parent relationships to
    /// an entity that is (a show's seats, where the tenant is the venue).
    /// The tenant itself is not: an operation on it may span tenants.
    pub(super) fn within_tenant(&self, e: EntityId) -> bool {
        let model = self.facts.model;
        let mut seen = vec![e];
        let mut cur = vec![e];
        while let Some(x) = cur.pop() {
            if model.tenant_relationship(x).is_some() {
                return true;
            }
            for r in model.relationships_to(x) {
                let rel = model.relationship(r);
                if rel.one_parent() && !seen.contains(&rel.parent) {
                    seen.push(rel.parent);
                    cur.push(rel.parent);
                }
            }
        }
        false
    }

    /// Where the documents of `collection` hold their tenant's id: the
    /// reference each root holds (`store`, `store._id`), the bucket's
    /// parent when the bucket is the tenant's, or `_id` in the tenant's own
    /// documents. `None` where a root of the collection holds no tenant
    /// (a global entity), or its roots disagree. A bucket of a parent
    /// within the tenant holds the tenant's id at its top level
    /// (`Model::bucket_tenant`).
    pub(super) fn tenant_path_in(&self, collection: &str) -> Option<String> {
        let model = self.facts.model;
        let tenant = model.tenant?.entity;
        let mut found: Option<String> = None;
        for r in model.entity_ids() {
            if self.p.root(r) != r || self.p.collection(self.facts, self.space, r) != collection {
                continue;
            }
            let path = if r == tenant {
                "_id".to_string()
            } else {
                let t = model.tenant_relationship(r)?;
                match self.p.home[r.index()] {
                    Home::Bucketed { rel } if rel == t || model.bucket_tenant(rel) == Some(t) => {
                        model.relationship(t).child_field.clone()
                    }
                    Home::Bucketed { .. } => return None,
                    _ => self.parent_ref_path(t)?,
                }
            };
            match &found {
                Some(p) if *p != path => return None,
                _ => found = Some(path),
            }
        }
        found
    }
}

/// The actions that pick the documents they write by their filter.
fn writes_by_filter(action: Action) -> bool {
    match action {
        Action::UpdateOne
        | Action::UpdateMany
        | Action::Upsert
        | Action::DeleteOne
        | Action::DeleteMany
        | Action::FindOneAndUpdate
        | Action::BulkWrite => true,
        Action::Find | Action::GraphLookup | Action::InsertOne | Action::InsertMany => false,
    }
}
