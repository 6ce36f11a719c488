//! The `Model`: what every input (a model file, a scanned dump, later SQL DDL and
//! mongod logs) converges on, and what the advisor and the generator start from.
//!
//! It is a resolved, validated value: names are unique, every reference between
//! parts is an index that is known to be in range, cardinalities are consistent.
//! Anything that produces a `Model` is responsible for those guarantees, so the
//! rest of the pipeline never re-checks them (and never panics on them).

mod archive;
mod capacity;
mod cardinality;
mod conditional;
mod entity;
mod expiry;
mod growth;
mod ids;
mod junction;
mod relationship;
mod self_clearing;
mod sides;
mod sort_key;
#[doc(hidden)]
pub mod synthetic;
mod tenancy;
mod unlinked;
mod without;
mod workload;

pub use archive::{
    ARCHIVE_BATCH, Archive, archive_horizon, archive_horizons, archive_job_operation, as_archive,
    history_share,
};
pub use capacity::{
    CountGrowth, DAYS_A_MONTH, Deployment, GIB, Horizon, MAX_HORIZON_MONTHS, count_at, grown,
    parse_bytes,
};
pub use cardinality::{Cardinality, CardinalityClass, Count};
pub use conditional::{
    AmountOf, Condition, Expiry, Increment, Literal, Otherwise, Plus, SetValue, Test, WriteTerms,
    left_side,
};
pub use entity::{
    ATTRIBUTE_PAIR_BYTES, ATTRIBUTES_TYPICAL, Density, Entity, EntityId, Field, FieldType, KeyPart,
    POLYGON_CORNERS,
};
pub use expiry::{compare_expiry, unexpired_test};
pub use growth::{Growth, Percentile, Period};
pub use junction::as_junction;
pub use relationship::{CurrentLayout, LayoutKind, Relationship, RelationshipId, RelationshipKind};
pub use self_clearing::{
    arrivals_per_run, clears_own_selection, state_tests, states_cleared_after,
};
pub use sides::{DISAGREE_FACTOR as SIDES_DISAGREE_FACTOR, agree_sides, links_by_side};
pub use tenancy::{
    Tenant, by_id_alone, implied, own_conditions_within_tenant, searches_places, tenant_local,
};
pub use unlinked::inserts_without_parent;
pub use without::{KEY as WITHOUT_KEY, Scope, Without};
pub use workload::{
    Age, Aggregate, AggregateFn, AtomicGroup, Filter, FilterOp, GeoArea, Identity, Include, Mix,
    Operation, OperationId, OperationKind, Paging, PagingBy, Related, SortKey, TIME_UNITS, Window,
    Workload, identity, units_a_day,
};

use serde::Serialize;

/// An application: its entities, how they relate, and what it does to them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Model {
    /// A name for reports (the file stem when the file does not give one).
    pub name: String,
    pub entities: Vec<Entity>,
    pub relationships: Vec<Relationship>,
    pub workload: Workload,
    /// Figures the model states without knowing them (an import from DDL
    /// has no row counts): `entities.city.count`,
    /// `relationships.cities.children`. Decisions that rest on them say so.
    pub assumed: Vec<String>,
    /// The layout each of some relationships has in the deployment today
    /// (the model's `current:` section): advise prices the workload on it
    /// beside its own design.
    pub current: Vec<CurrentLayout>,
    /// The entity-level patterns the deployment does not use today (the
    /// `without:` entry of `current:`): the design of today leaves them out.
    pub without: Without,
    /// The tenant every operation names (`tenant: store`), when the
    /// application is shared by tenants.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<Tenant>,
    /// The deployment the model states (`deployment:`): RAM, disk,
    /// shards, compression, for a capacity projection.
    #[serde(skip_serializing_if = "Deployment::is_empty")]
    pub deployment: Deployment,
}

impl Model {
    /// The layout relationship `r` has today, when the model says.
    pub fn current_of(&self, r: RelationshipId) -> Option<&CurrentLayout> {
        self.current.iter().find(|c| c.relationship == r)
    }

    pub fn entity(&self, id: EntityId) -> &Entity {
        &self.entities[id.index()]
    }

    pub fn relationship(&self, id: RelationshipId) -> &Relationship {
        &self.relationships[id.index()]
    }

    pub fn operation(&self, id: OperationId) -> &Operation {
        &self.workload.operations[id.index()]
    }

    /// A filter path that goes through a relationship (`seller.region`,
    /// `category`, `post._id`): the relationship and the field of the related
    /// entity (`_id` when the path names only the relationship). `None` for a
    /// field of `entity` itself.
    /// The relationship through which `entity` holds a reference to one
    /// parent under `field` (its `child_field`): what a copy of that field
    /// of `entity` carries.
    pub fn parent_reference(&self, entity: EntityId, field: &str) -> Option<RelationshipId> {
        self.relationships_to(entity).find(|r| {
            let rel = self.relationship(*r);
            rel.child_field == field && rel.one_parent()
        })
    }

    pub fn related(&self, entity: EntityId, path: &[String]) -> Option<Related> {
        let first = path.first()?;
        if path.len() == 1 && (first == "_id" || self.entity(entity).field(first).is_some()) {
            return None;
        }
        // Up to a parent (through the child's field), then down to children
        // (through the parent's field).
        let up = self.relationships_to(entity).map(|r| (r, true));
        let down = self.relationships_from(entity).map(|r| (r, false));
        for (r, to_parent) in up.chain(down) {
            let rel = self.relationship(r);
            let (field, other) = if to_parent {
                (&rel.child_field, rel.parent)
            } else {
                (&rel.parent_field, rel.child)
            };
            if field == first || &rel.name == first || &self.entity(other).name == first {
                let rest = &path[1..];
                // More hops when the rest is itself a related path of the other entity.
                let further = if rest.len() > 1 && self.related(other, rest).is_some() {
                    rest.to_vec()
                } else {
                    Vec::new()
                };
                return Some(Related {
                    relationship: r,
                    field: self.field_of(other, rest),
                    further,
                });
            }
        }
        None
    }

    /// The field of `entity` that the rest of a filter path tests. A second hop
    /// through a relationship in which `entity` is the child (items whose
    /// seller is in a region: `seller.region`) tests the reference to that
    /// parent, which the entity's documents hold under the relationship's
    /// child field (`region`), not under the relationship's name.
    fn field_of(&self, entity: EntityId, rest: &[String]) -> String {
        let Some(first) = rest.first() else {
            return "_id".to_string();
        };
        if first == "_id" || self.entity(entity).field(first).is_some() {
            return first.clone();
        }
        self.relationships_to(entity)
            .map(|r| self.relationship(r))
            .find(|rel| {
                &rel.name == first
                    || &rel.child_field == first
                    || &self.entity(rel.parent).name == first
            })
            .map_or_else(|| first.clone(), |rel| rel.child_field.clone())
    }

    /// The tree `entity` forms: its one one-to-many with itself (a
    /// category's subcategories). `None` when it has none, or several
    /// (which one a subtree follows would be ambiguous).
    pub fn tree_of(&self, entity: EntityId) -> Option<RelationshipId> {
        let mut trees = self.relationship_ids().filter(|&r| {
            let rel = self.relationship(r);
            rel.parent == entity
                && rel.child == entity
                && rel.kind == RelationshipKind::OneToMany
                && !rel.shared
        });
        let first = trees.next()?;
        trees.next().is_none().then_some(first)
    }

    /// The height of the tree `r` forms: the levels a tree of the
    /// entity's count takes with the relationship's typical children per
    /// node. It is also the nodes a subtree holds on average (each node is
    /// in the subtrees of itself and its ancestors) and the length of a
    /// node's path from the root.
    pub fn tree_height(&self, r: RelationshipId) -> f64 {
        let rel = self.relationship(r);
        let n = self.entity(rel.parent).count.max(2) as f64;
        let b = rel.children.typical.max(2) as f64;
        (n.ln() / b.ln()).max(1.0)
    }

    /// The field a node of tree `r` keeps its path from the root in:
    /// `path`, unless the entity has a field of that name.
    pub fn tree_path_field(&self, r: RelationshipId) -> String {
        let rel = self.relationship(r);
        if self.entity(rel.parent).field("path").is_some() {
            format!("{}_path", rel.name)
        } else {
            "path".to_string()
        }
    }

    /// The field a child of `r` keeps the path of its parent (a tree's
    /// node) in: `category_path`.
    pub fn path_reference_field(&self, r: RelationshipId) -> String {
        format!("{}_path", self.relationship(r).child_field)
    }

    pub fn entity_by_name(&self, name: &str) -> Option<EntityId> {
        self.entities
            .iter()
            .position(|e| e.name == name)
            .map(EntityId::from_index)
    }

    pub fn relationship_by_name(&self, name: &str) -> Option<RelationshipId> {
        self.relationships
            .iter()
            .position(|r| r.name == name)
            .map(RelationshipId::from_index)
    }

    pub fn operation_by_name(&self, name: &str) -> Option<OperationId> {
        self.workload
            .operations
            .iter()
            .position(|o| o.name == name)
            .map(OperationId::from_index)
    }

    pub fn entity_ids(&self) -> impl Iterator<Item = EntityId> + '_ {
        (0..self.entities.len()).map(EntityId::from_index)
    }

    pub fn relationship_ids(&self) -> impl Iterator<Item = RelationshipId> + '_ {
        (0..self.relationships.len()).map(RelationshipId::from_index)
    }

    pub fn operation_ids(&self) -> impl Iterator<Item = OperationId> + '_ {
        (0..self.workload.operations.len()).map(OperationId::from_index)
    }

    /// Relationships in which `entity` is the parent (the "one" side, or side A of N:M).
    pub fn relationships_from(
        &self,
        entity: EntityId,
    ) -> impl Iterator<Item = RelationshipId> + '_ {
        self.relationship_ids()
            .filter(move |r| self.relationship(*r).parent == entity)
    }

    /// Relationships in which `entity` is the child (the "many" side, or side B of N:M).
    pub fn relationships_to(&self, entity: EntityId) -> impl Iterator<Item = RelationshipId> + '_ {
        self.relationship_ids()
            .filter(move |r| self.relationship(*r).child == entity)
    }
}

/// Defines a `u32` index newtype for one kind of model part.
macro_rules! index_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            /// # Panics
            /// Never in practice: a model with more than `u32::MAX` parts cannot be loaded.
            pub fn from_index(index: usize) -> Self {
                Self(u32::try_from(index).expect("model part index fits in u32"))
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
pub(crate) use index_type;
