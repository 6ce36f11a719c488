//! A small builder for `Model` values in tests (until the model files are
#![allow(dead_code)] // helpers for tests still to come
//! parsed on main, and for models no file needs to hold).

use crate::model::*;

pub struct B {
    pub m: Model,
}

pub fn field(name: &str, ty: FieldType, size: Option<u32>) -> Field {
    Field {
        name: name.to_string(),
        ty,
        avg_size: size,
        distinct: None,
        enum_values: Vec::new(),
        required: true,
        description: None,
    }
}

pub fn s(name: &str, size: u32) -> Field {
    field(name, FieldType::String, Some(size))
}
pub fn int(name: &str) -> Field {
    field(name, FieldType::Int, None)
}
pub fn dbl(name: &str) -> Field {
    field(name, FieldType::Double, None)
}
pub fn date(name: &str) -> Field {
    field(name, FieldType::Date, None)
}

pub fn card(min: u64, typical: u64, max: Option<u64>) -> Cardinality {
    Cardinality {
        min,
        typical,
        max: max.map_or(Count::Unbounded, Count::Finite),
        growth_per_day: None,
    }
}

pub fn eq(path: &str) -> Filter {
    Filter {
        path: path.split('.').map(str::to_string).collect(),
        op: FilterOp::Eq,
        related: None,
    }
}
pub fn range(path: &str) -> Filter {
    Filter {
        path: path.split('.').map(str::to_string).collect(),
        op: FilterOp::Range,
        related: None,
    }
}
pub fn desc(field: &str) -> SortKey {
    SortKey {
        field: field.to_string(),
        descending: true,
    }
}

pub fn inc(rel: RelationshipId, down: bool, fields: &[&str]) -> Include {
    Include {
        relationship: rel,
        to_children: down,
        fields: fields.iter().map(|f| f.to_string()).collect(),
        limit: None,
        sort: Vec::new(),
        filter: Vec::new(),
        include: Vec::new(),
    }
}

impl B {
    pub fn new(name: &str) -> B {
        B {
            m: Model {
                name: name.to_string(),
                entities: Vec::new(),
                relationships: Vec::new(),
                workload: Workload {
                    mixes: vec![Mix {
                        name: "default".to_string(),
                        description: None,
                    }],
                    operations: Vec::new(),
                    atomic_groups: Vec::new(),
                },
            },
        }
    }

    pub fn mixes(&mut self, names: &[&str]) -> &mut Self {
        self.m.workload.mixes = names
            .iter()
            .map(|n| Mix {
                name: n.to_string(),
                description: None,
            })
            .collect();
        self
    }

    pub fn entity(&mut self, name: &str, count: u64, fields: Vec<Field>) -> EntityId {
        self.m.entities.push(Entity {
            name: name.to_string(),
            count,
            fields,
            description: None,
        });
        EntityId::from_index(self.m.entities.len() - 1)
    }

    /// A one-to-many (or one-to-one / many-to-many by `kind`) relationship.
    #[allow(clippy::too_many_arguments)]
    pub fn rel(
        &mut self,
        name: &str,
        kind: RelationshipKind,
        parent: EntityId,
        child: EntityId,
        children: Cardinality,
        parents: Cardinality,
        standalone: bool,
    ) -> RelationshipId {
        let parent_name = self.m.entities[parent.index()].name.clone();
        self.m.relationships.push(Relationship {
            name: name.to_string(),
            kind,
            parent,
            child,
            children,
            parents,
            child_standalone: standalone,
            shared: false,
            parent_field: name.to_string(),
            child_field: parent_name,
            layout: None,
            description: None,
        });
        RelationshipId::from_index(self.m.relationships.len() - 1)
    }

    pub fn one_to_many(
        &mut self,
        name: &str,
        parent: EntityId,
        child: EntityId,
        children: Cardinality,
        standalone: bool,
    ) -> RelationshipId {
        self.rel(
            name,
            RelationshipKind::OneToMany,
            parent,
            child,
            children,
            Cardinality::ONE,
            standalone,
        )
    }

    pub fn op(&mut self, name: &str, rates: &[f64], kind: OperationKind) -> OperationId {
        self.m.workload.operations.push(Operation {
            name: name.to_string(),
            kind,
            rates: rates.to_vec(),
            description: None,
        });
        OperationId::from_index(self.m.workload.operations.len() - 1)
    }

    /// A read of `entity` by `filter`, with includes.
    pub fn read(
        &mut self,
        name: &str,
        rate: f64,
        entity: EntityId,
        filter: Vec<Filter>,
        include: Vec<Include>,
    ) -> OperationId {
        self.op(
            name,
            &[rate],
            OperationKind::Read {
                entity,
                filter,
                sort: Vec::new(),
                limit: None,
                fields: Vec::new(),
                include,
                aggregates: Vec::new(),
            },
        )
    }

    pub fn insert(
        &mut self,
        name: &str,
        rate: f64,
        entity: EntityId,
        links: Vec<RelationshipId>,
    ) -> OperationId {
        self.op(
            name,
            &[rate],
            OperationKind::Insert {
                entity,
                links,
                count: 1,
            },
        )
    }

    pub fn update(
        &mut self,
        name: &str,
        rate: f64,
        entity: EntityId,
        changes: &[&str],
        relinks: Vec<RelationshipId>,
    ) -> OperationId {
        self.op(
            name,
            &[rate],
            OperationKind::Update {
                entity,
                filter: vec![eq("_id")],
                changes: changes.iter().map(|c| c.to_string()).collect(),
                relinks,
                multi: false,
            },
        )
    }

    pub fn build(&self) -> Model {
        self.m.clone()
    }
}
