//! A tenant's children read by a field whose values are each one tenant's
//! (`model::tenant_local`: an owner's id, a SKU): the read of a user's
//! contacts, planned as the workspace's contacts that pass the filter.
//! The filter's share of the whole collection, taken again of the
//! tenant's children, counted an owner's 250 contacts as 0.0013 (the
//! share of one workspace of 200,000, as if an owner's contacts were
//! spread over every workspace). They all lie in the owner's workspace:
//! the tenant keeps no share of its own (audit48 A9). The same for a
//! search of the tenant's places (audit49 A5): `density` counts one
//! tenant's places, and the read found 0.0079 stores where 16 lie.

use super::Planner;
use crate::model::{EntityId, Filter, RelationshipId};

impl Planner<'_> {
    /// How many of `target` one instance on the other side of `r` has that
    /// pass `filter`, where it has `side` of them (`r`'s typical children
    /// or parents): `side` times the filter's share of `target`, or, for
    /// the tenant's children read by a field each of whose values is one
    /// tenant's, the filter's matches over the whole collection, no more
    /// than the tenant has.
    pub(super) fn related_matching(
        &self,
        r: RelationshipId,
        to_children: bool,
        target: EntityId,
        filter: &[Filter],
        side: f64,
    ) -> f64 {
        if to_children && self.tenant_local_read(r, target, filter) {
            return self.matched(target, filter, None).min(side);
        }
        side * self.selectivity(target, filter)
    }

    /// Whether `filter` reads the children of `target`'s tenant through
    /// `r` by a field whose values are each one tenant's. Their matches do
    /// not grow with the tenant: the largest tenant's are the typical's.
    pub(super) fn tenant_local_read(
        &self,
        r: RelationshipId,
        target: EntityId,
        filter: &[Filter],
    ) -> bool {
        let model = self.facts.model;
        model.tenant_relationship(target) == Some(r)
            && crate::model::own_conditions_within_tenant(model, target, filter)
    }
}
