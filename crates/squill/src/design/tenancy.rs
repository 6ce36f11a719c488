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
    /// The operations that span every tenant (`all_tenants: true`): they
    /// name none, and are priced over every tenant's documents, so their
    /// cost is the same at the typical and the largest tenant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all_tenants: Vec<String>,
}

impl TenancyReport {
    /// What follows "every operation names its store" in the reports:
    /// ` but log_in, which finds it, and purge, which spans every store`,
    /// each name through `name` (the report's own escaping), or nothing.
    pub fn exceptions(&self, name: impl Fn(&str) -> String) -> String {
        let list = |names: &[String]| names.iter().map(|n| name(n)).collect::<Vec<_>>().join(", ");
        let verb = |names: &[String], one: &str, many: &str| {
            if names.len() == 1 {
                one.to_string()
            } else {
                many.to_string()
            }
        };
        let mut parts = Vec::new();
        if !self.finders.is_empty() {
            parts.push(format!(
                "{}, which {} it",
                list(&self.finders),
                verb(&self.finders, "finds", "find")
            ));
        }
        if !self.all_tenants.is_empty() {
            parts.push(format!(
                "{}, which {} every {}",
                list(&self.all_tenants),
                verb(&self.all_tenants, "spans", "span"),
                name(&self.tenant)
            ));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" but {}", parts.join(", and "))
        }
    }
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
