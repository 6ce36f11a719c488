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
        if count > 1.0 || !matches!(self.p.home.get(e.index()), Some(Home::Own) | None) {
            return;
        }
        if model.operation(op).all_tenants {
            return;
        }
        let Some(tenant_field) = self.parent_ref_path(own_tenant) else {
            return;
        };
        // One find per parent entity: the cookbook names a parameter by
        // the entity and field it stands for, so two parents of one entity
        // (a follow's follower and followed) would share one id. The second
        // is left unchecked rather than set to the first's id.
        let mut checked: Vec<EntityId> = Vec::new();
        for &r in links {
            let rel = model.relationship(r);
            if checked.contains(&rel.parent) {
                continue;
            }
            if r == own_tenant || rel.child != e || rel.parent == tenant || rel.parent == e {
                continue;
            }
            if !rel.one_parent() || !self.within_tenant(rel.parent) {
                continue;
            }
            let acc = self.access(rel.parent);
            let (Some(field), Some(parent_tenant)) = (
                self.parent_ref_path(r),
                self.tenant_path_in(&acc.collection),
            ) else {
                continue;
            };
            // A parent in documents of its own is found on `_id_`, its
            // tenant tested; one embedded in its tenant's document (a
            // project in its org) is found by the tenant's `_id` on `_id_`,
            // its own id tested in the array. A parent embedded elsewhere
            // would need an index of its own: not checked.
            let own = acc.prefix.is_empty();
            if own == (parent_tenant == "_id") {
                continue;
            }
            let mut step = Self::step(
                &acc.collection,
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
                filt(acc.path("_id"), FilterOp::Eq, ValueSource::Param),
            ];
            step.projection = vec!["_id".to_string()];
            step.limit = Some(1);
            step.documents = 1.0;
            let cost = StepCost {
                keys: 1.0,
                docs: 1.0,
                bytes_read: acc.root_bytes,
                ..StepCost::default()
            };
            checked.push(rel.parent);
            self.push(
                plan,
                op,
                step,
                cost,
                Some((vec![("_id".to_string(), 1)], acc.root, acc.docs)),
            );
        }
    }
}
