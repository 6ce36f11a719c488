//! What the largest tenant's operations cost beside the typical tenant's,
//! for a model with a `tenant:`: the same design, planned again with each
//! scoped relationship at the largest tenant's children.

use super::Cost;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TenancyReport {
    /// The tenant's entity (`store`).
    pub tenant: String,
    /// Each entity the tenant scopes, with its instances in the typical
    /// tenant and in the largest.
    pub scoped: Vec<ScopedEntity>,
    /// Each operation on a scoped entity: its cost per execution at the
    /// typical tenant (as in `operations`) and at the largest.
    pub operations: Vec<TenantCost>,
    /// The reads that find their tenant (`finds_tenant: true`): they name
    /// none, so their cost does not depend on the tenant's size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finders: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ScopedEntity {
    pub entity: String,
    /// Instances of the typical tenant (the relationship's `typical`).
    pub typical: f64,
    /// Instances of the largest tenant (the relationship's `max`, or the
    /// tenant's `largest` share of the entity's count).
    pub largest: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TenantCost {
    pub operation: String,
    pub typical: Cost,
    pub largest: Cost,
}
