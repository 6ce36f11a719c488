//! Builders of models and designs by hand, for the one test design the
//! advisor cannot produce (`tests::flat_kinds`: a string `_id` with an int
//! reference, a design enum narrower than the model's) and for designs a
//! test breaks on purpose. Every other test design is advised from a YAML
//! model (`crate::fixtures`).

use crate::design::Layout;
use crate::design::*;
use crate::model::*;

pub(crate) fn field(name: &str, ty: FieldType) -> Field {
    Field {
        name: name.into(),
        ty,
        avg_size: None,
        element_size: None,
        distinct: None,
        enum_values: Vec::new(),
        required: true,
        description: None,
    }
}

pub(crate) fn enum_field(name: &str, values: &[&str]) -> Field {
    Field {
        enum_values: values.iter().map(|v| v.to_string()).collect(),
        ..field(name, FieldType::String)
    }
}

pub(crate) fn entity(name: &str, count: u64, fields: Vec<Field>) -> Entity {
    Entity {
        expires: None,
        name: name.into(),
        count,
        fields,
        description: None,
        unique: Vec::new(),
        archive_of: None,
        density: None,
        growth: None,
    }
}

pub(crate) fn card(min: u64, typical: u64, max: Option<u64>) -> Cardinality {
    Cardinality {
        mean: None,
        min,
        typical,
        max: max.map_or(Count::Unbounded, Count::Finite),
        growth: None,
        p95: None,
        p99: None,
    }
}

pub(crate) fn rel(
    name: &str,
    kind: RelationshipKind,
    parent: usize,
    child: usize,
    children: Cardinality,
    parents: Cardinality,
) -> Relationship {
    Relationship {
        tenant_chain: Vec::new(),
        stated_parents: None,
        name: name.into(),
        kind,
        parent: EntityId::from_index(parent),
        child: EntityId::from_index(child),
        children,
        parents,
        child_standalone: true,
        shared: false,
        parent_field: name.into(),
        child_field: String::new(),
        layout: None,
        snapshot: Vec::new(),
        attributes: Vec::new(),
        edge: false,
        levels: None,
        description: None,
    }
}

pub(crate) fn model(
    name: &str,
    entities: Vec<Entity>,
    relationships: Vec<Relationship>,
    operations: Vec<Operation>,
) -> Model {
    Model {
        name: name.into(),
        entities,
        relationships,
        workload: Workload {
            mixes: vec![Mix {
                name: "default".into(),
                description: None,
            }],
            operations,
            atomic_groups: Vec::new(),
        },
        assumed: Vec::new(),
        current: Vec::new(),
        without: crate::model::Without::default(),
        tenant: None,
        deployment: Default::default(),
    }
}

pub(crate) fn s(t: &str) -> ShapeType {
    ShapeType::Scalar {
        bson_type: t.into(),
        enum_values: Vec::new(),
    }
}

pub(crate) fn obj(fields: Vec<ShapeField>) -> ShapeType {
    ShapeType::Object {
        shape: Shape { fields },
    }
}

pub(crate) fn id() -> ShapeField {
    sf("_id", s("objectId"), FieldOrigin::Id)
}

pub(crate) fn sf(name: &str, ty: ShapeType, origin: FieldOrigin) -> ShapeField {
    ShapeField {
        name: name.into(),
        ty,
        required: true,
        origin,
    }
}

/// The entity's own field, with the model's type and enum values.
pub(crate) fn own(m: &Model, entity: &str, field: &str) -> ShapeField {
    let e = &m.entities[m.entity_by_name(entity).unwrap().index()];
    let f = e.field(field).unwrap();
    let ty = ShapeType::Scalar {
        bson_type: f.ty.bson_type().into(),
        enum_values: f.enum_values.clone(),
    };
    ShapeField {
        name: field.into(),
        ty,
        required: f.required,
        origin: FieldOrigin::Own {
            entity: entity.into(),
            field: field.into(),
        },
    }
}

pub(crate) fn reference(name: &str, ty: ShapeType, relationship: &str) -> ShapeField {
    sf(
        name,
        ty,
        FieldOrigin::Reference {
            relationship: relationship.into(),
            side: None,
        },
    )
}

pub(crate) fn collection(
    name: &str,
    entities: &[&str],
    documents: u64,
    fields: Vec<ShapeField>,
    indexes: Vec<Index>,
) -> Collection {
    Collection {
        name: name.into(),
        entities: entities.iter().map(|e| e.to_string()).collect(),
        discriminator: None,
        shape: Shape { fields },
        example: serde_json::Value::Null,
        documents,
        size: DocumentSize {
            typical_bytes: 200,
            max_bytes: Some(2000),
            nesting_depth: 2,
        },
        indexes,
        sharding: None,
    }
}

pub(crate) fn index(name: &str, keys: &[(&str, i32)], used_by: &[&str]) -> Index {
    Index {
        name: name.into(),
        keys: keys.iter().map(|(k, d)| (k.to_string(), *d)).collect(),
        unique: false,
        used_by: used_by.iter().map(|u| u.to_string()).collect(),
        partial: Vec::new(),
        expire_after_seconds: None,
        expired_per_second: None,
        monitor_delay_share: None,
        kept_beside: None,
        kept_by_data: false,
        expires_buckets_of: None,
    }
}

pub(crate) fn decision(m: &Model, relationship: &str, chosen: Layout) -> RelationshipDecision {
    let r = m.relationship(m.relationship_by_name(relationship).unwrap());
    RelationshipDecision {
        relationship: relationship.into(),
        parent: m.entity(r.parent).name.clone(),
        child: m.entity(r.child).name.clone(),
        class: "one-to-many".into(),
        chosen,
        rules: Vec::new(),
        alternatives: Vec::new(),
        tradeoffs: Vec::new(),
        snapshot: r.snapshot.clone(),
    }
}

pub(crate) fn design(
    m: &Model,
    collections: Vec<Collection>,
    relationships: Vec<RelationshipDecision>,
    operations: Vec<OperationPlan>,
) -> Design {
    Design {
        schema_version: DESIGN_SCHEMA_VERSION,
        model: m.name.clone(),
        mix: "default".into(),
        collections,
        relationships,
        entities: Vec::new(),
        operations,
        totals: Cost::default(),
        mixes: Vec::new(),
        findings: Vec::new(),
        current: None,
        tenancy: None,
        capacity: None,
    }
}
