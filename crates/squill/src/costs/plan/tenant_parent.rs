//! An insert under a tenant finds the new instance's parents in the
//! caller's tenant first (review46 item 8). The new document carries the
//! tenant's id and its parents' ids; nothing else ties them together. A
//! visit filed under clinic A for a patient of clinic B is invisible to
//! A's reads, and B's reads see it only when they name A. So each parent
//! that lies within the tenant is found by `{tenant, _id}` on `_id_`
//! (one key, one document) before the insert, and the insert sets both
//! ids to the ones it found by: a parent of another tenant is not found,
//! and nothing is written.
//!
//! A parent embedded in its tenant's document (a project in its org) is
//! found by the tenant's `_id` and its own id in the array, on `_id_`.
//!
//! Where the new instance is written inside its parent (embedded in it),
//! the write itself is the parent's, by its `_id` with the tenant tested
//! (`tenant.rs`): a parent of another tenant matches nothing and nothing
//! is inserted, so no find is added. A parent's update after the insert
//! (a counter, an id pushed) does not spare the find: it runs after the
//! document is written.
//!
//! The same holds wherever the new child lands in a document that names
//! its parent (review48, issue 41):
//! - a bucket's upsert (a tick into its symbol's minute bucket): the
//!   upsert opens a bucket `{org: A, symbol: B's}` when B's symbol is
//!   named, so the symbol is found in A first, and the upsert's equalities
//!   are the ids it was found by;
//! - an outlier's insert: the push into the parent's array tests the
//!   tenant and matches nothing for another tenant's parent, and the
//!   fallback then files the child in the overflow collection under that
//!   parent. The find before the push refuses it;
//! - a parent kept in buckets never occurs: a parent has children that
//!   keep its id, and rule `bucket-loses-identity` keeps such an entity
//!   out of buckets (audit49 A1/A2), so no layout of a parent skips this
//!   find. A `layout: bucket` pinned on one anyway carries that rule's
//!   error, and its elements have no id a find could name;
//! - a parent that keeps no tenant id of its own because its tenant keeps
//!   its id (an org's `projects: [ids]`): the parent is found as an id in
//!   the tenant's array, `{_id: org, projects: project}` on `_id_`, one
//!   key, the tenant's document read.

use super::*;

impl Planner<'_> {
    /// Adds, before an insert of `e` through `links`, a find of each
    /// parent that lies within the tenant (not the tenant itself) by its
    /// `_id` and the tenant's id. Only for one new document of its own
    /// (`insertOne`): a batch's documents may have different parents.
    pub(super) fn check_parents_in_tenant(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        links: &[RelationshipId],
        count: f64,
    ) {
        let f = self.facts;
        let model = f.model;
        let Some(tenant) = model.tenant.as_ref().map(|t| t.entity) else {
            return;
        };
        let Some(own_tenant) = model.tenant_relationship(e) else {
            return;
        };
        // A new document of its own, or a child pushed into its bucket (a
        // tick into its symbol's): either names its parent at its top
        // level. One written inside its parent is the parent's write.
        let bucketed = match self.p.home.get(e.index()) {
            Some(Home::Own) | None => None,
            Some(Home::Bucketed { rel }) => Some(*rel),
            Some(Home::Embedded { .. }) => return,
        };
        if count > 1.0 {
            return;
        }
        if model.operation(op).all_tenants {
            return;
        }
        let Some(tenant_field) = self.parent_ref_path(own_tenant) else {
            return;
        };
        // Two parents of one entity (a follow's follower and followed):
        // the one the new document names gets an id parameter of its own
        // (`followed_id`), so the two are never one id; the one that keeps
        // the new document's id shares the parameter of its push. Only
        // one find per parent entity and parameter.
        let mut checked: Vec<(EntityId, Option<String>)> = Vec::new();
        for &r in links {
            let rel = model.relationship(r);
            if r == own_tenant || rel.child != e || rel.parent == tenant || rel.parent == e {
                continue;
            }
            if !rel.one_parent() || !self.within_tenant(rel.parent) {
                continue;
            }
            let acc = self.access(rel.parent);
            // Where the new child names its parent: its reference, the
            // bucket's parent at the bucket's top level, an outlier's
            // overflow document's reference.
            let field = match self.layout(r) {
                Layout::Bucket { .. } if bucketed == Some(r) => Some(rel.child_field.clone()),
                Layout::Outlier { .. } => Some(rel.child_field.clone()),
                _ => self.parent_ref_path(r),
            };
            // A parent that keeps the new document's id (an array of ids)
            // is written after the insert, which a find first spares.
            if field.is_none() && !self.layout(r).parent_keeps_child_ids() {
                continue;
            }
            let twin = links.iter().any(|&x| {
                let other = model.relationship(x);
                x != r && other.child == e && other.parent == rel.parent
            });
            let id_from = match &field {
                Some(_) if twin => ValueSource::LinkId {
                    field: rel.child_field.clone(),
                },
                _ => ValueSource::Param,
            };
            let key = (
                rel.parent,
                matches!(id_from, ValueSource::LinkId { .. }).then(|| rel.child_field.clone()),
            );
            if checked.contains(&key) {
                continue;
            }
            let Some((parent_tenant, id_path)) = self.parent_in_tenant(rel.parent, &acc) else {
                continue;
            };
            let tenant_collection = parent_tenant.0.clone();
            let parent_tenant = parent_tenant.1;
            let mut step = Self::step(
                &tenant_collection,
                Action::Find,
                Purpose::CheckParent {
                    entity: self.name(e).to_string(),
                    parent: self.name(rel.parent).to_string(),
                    tenant: self.name(tenant).to_string(),
                    field,
                    tenant_field: tenant_field.clone(),
                },
            );
            step.filter = vec![
                filt(parent_tenant, FilterOp::Eq, ValueSource::Param),
                filt(id_path, FilterOp::Eq, id_from),
            ];
            step.projection = vec!["_id".to_string()];
            step.limit = Some(1);
            step.documents = 1.0;
            // One `_id` key, one document read: the parent's root, or the
            // tenant's document that holds the parent's id.
            let holder = if tenant_collection == acc.collection {
                (acc.root, acc.docs, acc.root_bytes)
            } else {
                let t = self.access(tenant);
                (t.root, t.docs, t.root_bytes)
            };
            let cost = StepCost {
                keys: 1.0,
                docs: 1.0,
                bytes_read: holder.2,
                ..StepCost::default()
            };
            checked.push(key);
            self.push(
                plan,
                op,
                step,
                cost,
                Some((vec![("_id".to_string(), 1)], holder.0, holder.1)),
            );
        }
    }

    /// How a parent `p` (its access `acc`) is found in the caller's tenant
    /// on `_id_`: the collection to ask, the path of the tenant's id there
    /// (tested first), and the path of the parent's id. A parent in
    /// documents of its own that keep the tenant's id is found by
    /// `{tenant, _id}`; one embedded in its tenant's document (a project
    /// in its org) by the tenant's `_id` and its own id in the array; one
    /// whose tenant keeps its id instead (an org's `projects: [ids]`) by
    /// the tenant's `_id` and its id in that array. `None` for a parent
    /// embedded elsewhere, which would need an index of its own.
    fn parent_in_tenant(&self, p: EntityId, acc: &Access) -> Option<((String, String), String)> {
        let model = self.facts.model;
        let own = acc.prefix.is_empty();
        if let Some(path) = self.tenant_path_in(&acc.collection) {
            // In its own documents with the tenant's id, or inside the
            // tenant's documents (`_id` is the tenant's).
            if own != (path == "_id") {
                return Some(((acc.collection.clone(), path), acc.path("_id")));
            }
            return None;
        }
        // The tenant keeps the parent's id (child references, or two-way
        // where the parent's side is not kept): an id in its array.
        let t = model.tenant_relationship(p)?;
        if !own || !self.layout(t).parent_keeps_child_ids() {
            return None;
        }
        let ids = self.child_ids_path(t)?;
        let tenant = self.access(model.relationship(t).parent);
        if !tenant.prefix.is_empty() {
            return None;
        }
        Some((
            (tenant.collection.clone(), "_id".to_string()),
            tenant.path(&ids),
        ))
    }
}
