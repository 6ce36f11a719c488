//! A collection's shape, worked out once before its documents are built:
//! every field's encoded name, the hash its random streams are keyed by, the
//! entity or relationship its origin names (found by name once, not per
//! value), and how its values are drawn (`ScalarSpec`). The builder walks
//! this beside the `Shape`; per document only the instance-dependent work
//! is left.

use super::population::{Population, name_hash};
use super::sink::Key;
use super::values::ScalarSpec;
use crate::design::Layout;
use crate::design::{Collection, FieldOrigin, Shape, ShapeField, ShapeType};
use crate::model::{EntityId, RelationshipId};

/// The fields of one (sub)document.
#[derive(Debug)]
pub struct ShapePlan<'c> {
    pub fields: Vec<FieldPlan<'c>>,
    /// Whose `_id` a document of the collection has when its root does not
    /// say (the collection's first entity); `None` in a subdocument's plan.
    pub id_entity: Option<EntityId>,
}

#[derive(Debug)]
pub struct FieldPlan<'c> {
    pub field: &'c ShapeField,
    /// Absent from one instance in ten: not required, and not `_id`.
    pub optional: bool,
    pub key: Key,
    /// `name_hash` of the field's name.
    pub name_hash: u64,
    pub origin: Origin<'c>,
    /// The plan of the object the field holds (itself, or each of its
    /// array's items).
    pub sub: Option<ShapePlan<'c>>,
}

/// A field's origin with its names resolved.
#[derive(Debug)]
pub enum Origin<'c> {
    /// `_id`.
    Id,
    /// The entity's own field, or a copy of a related entity's field.
    Value(ValuePlan<'c>),
    Embedded {
        relationship: Option<RelationshipId>,
        layout: Option<&'c Layout>,
    },
    Reference {
        relationship: Option<RelationshipId>,
    },
    /// A copy of `entity`'s own reference to its parent through
    /// `relationship` (the seller's region id in an item).
    CopiedReference {
        entity: EntityId,
        relationship: RelationshipId,
    },
    /// An attribute of a many-to-many's link (a member's role): drawn from
    /// the pair of instances, so both sides' copies of a link agree.
    Attribute(ValuePlan<'c>),
    /// A path from the root of tree `tree`: the node's own (itself last)
    /// when `via` is `None`, else that of the node the document references
    /// through `via`. Each item is the id of a node on the walk up
    /// `tree_parent`, or an object of the item plan's fields for that node.
    Path {
        tree: RelationshipId,
        via: Option<RelationshipId>,
    },
    /// A timeline's copies of the newest items (`timeline`: the index in
    /// `Population::timelines`), each built with `item`, the plan of the
    /// items' own collection (`None` without one: the field's sub-plan).
    Timeline {
        timeline: usize,
        item: Option<Box<ShapePlan<'c>>>,
    },
    /// A timeline's list of the followed outliers.
    Outliers { timeline: usize },
    /// Computed, discriminator and bucket fields: built as in the design.
    Other,
}

/// An entity's own field (or a copy of one).
#[derive(Debug)]
pub struct ValuePlan<'c> {
    /// `None` when the model has no entity of that name.
    pub entity: Option<EntityId>,
    /// How the value (or each item of an array) is drawn.
    pub spec: ScalarSpec<'c>,
    /// The design's enum, which wins over the model's when they differ.
    pub design_enum: &'c [String],
    /// Whether a drawn value may be outside `design_enum` (and must be
    /// checked): not when the design has none, nor when the model's enum
    /// is part of it. The check compared every drawn level of the bench's
    /// log messages with the design's four: without it, and with enum
    /// values written without the escape test, one core built 10% more
    /// documents per second (BENCHMARKS.md "generate").
    pub check_enum: bool,
    /// Items of an array field (the model's average size, else 3).
    pub items: u64,
    /// The field is part of a `unique:` combination of its entity: its
    /// value is made from the instance's number, one per instance (a drawn
    /// revision number repeated within a contract, which the server's
    /// unique index refused). The BSON type it is made in.
    pub unique: Option<&'static str>,
    /// An `attributes` field: its names in all, and the values one name takes.
    pub attributes: Option<(u64, u64)>,
}

impl<'c> ShapePlan<'c> {
    /// The plan of a collection's documents.
    pub fn of_collection<'a: 'c>(pop: &Population<'a>, coll: &'c Collection) -> Self {
        ShapePlan {
            id_entity: pop.root_entities(coll).first().copied(),
            ..Self::new(pop, &coll.shape)
        }
    }

    fn new<'a: 'c>(pop: &Population<'a>, shape: &'c Shape) -> Self {
        ShapePlan {
            fields: shape
                .fields
                .iter()
                .map(|f| FieldPlan::new(pop, f))
                .collect(),
            id_entity: None,
        }
    }
}

impl<'c> FieldPlan<'c> {
    fn new<'a: 'c>(pop: &Population<'a>, field: &'c ShapeField) -> Self {
        let model = pop.model;
        let origin = match &field.origin {
            FieldOrigin::Id => Origin::Id,
            FieldOrigin::Timeline { feed, .. } => {
                match pop.timelines.iter().position(|t| t.feed == *feed) {
                    Some(timeline) => Origin::Timeline {
                        timeline,
                        item: super::feeds::own_collection(pop, pop.timelines[timeline].item)
                            .map(|c| Box::new(ShapePlan::of_collection(pop, c))),
                    },
                    None => Origin::Other,
                }
            }
            FieldOrigin::Outliers { feed, .. } => {
                match pop.timelines.iter().position(|t| t.feed == *feed) {
                    Some(timeline) => Origin::Outliers { timeline },
                    None => Origin::Other,
                }
            }
            FieldOrigin::Copy {
                entity, field: f, ..
            } if let Some(e) = model.entity_by_name(entity)
                && model.entity(e).field(f).is_none()
                && let Some(r) = model.parent_reference(e, f) =>
            {
                Origin::CopiedReference {
                    entity: e,
                    relationship: r,
                }
            }
            FieldOrigin::Own { entity, field: f }
            | FieldOrigin::Copy {
                entity, field: f, ..
            } => {
                // The type values are drawn in: the field's, or the items' of
                // an array of the entity's own.
                let ty = match (&field.origin, &field.ty) {
                    (FieldOrigin::Own { .. }, ShapeType::Array { items, .. }) => items.as_ref(),
                    (_, ty) => ty,
                };
                let bson_type = scalar_type(ty);
                let e = model.entity_by_name(entity);
                let model_field = e.and_then(|e| model.entity(e).field(f));
                let spec = match e {
                    Some(e) => ScalarSpec::new(
                        pop.seed,
                        &model.entity(e).name,
                        f,
                        bson_type,
                        model_field,
                        model_field.map_or(&[], |mf| mf.enum_values.as_slice()),
                    )
                    .under(super::relations::ceilings(
                        model,
                        pop.seed,
                        e,
                        f,
                        &mut Vec::new(),
                    )),
                    None => ScalarSpec::new(pop.seed, "", f, bson_type, None, &[]),
                };
                // The date an expiry counts from (and its copies) is alive
                // when the data is loaded.
                let spec = match (e.and_then(|e| model.entity(e).expires.as_ref()), pop.now_ms) {
                    (Some(x), Some(now)) if x.field == *f && bson_type == "date" => {
                        spec.alive_at(now, x.seconds)
                    }
                    // A date only a later write sets follows the insert's
                    // dates (audit48 C6).
                    _ if bson_type == "date"
                        && e.is_some_and(|e| super::relations::set_later(model, e, f)) =>
                    {
                        spec.set_later()
                    }
                    _ => spec,
                };
                // The date an archive splits its entity by: each side's
                // dates on its side of the horizon.
                let spec = match (e, pop.now_ms) {
                    (Some(e), Some(now)) if bson_type == "date" => {
                        match super::archive_dates::window(model, pop.design, e, f, now) {
                            Some((from, to)) => spec.between(from, to),
                            None => spec,
                        }
                    }
                    _ => spec,
                };
                let design_enum = match (e, ty) {
                    (Some(_), ShapeType::Scalar { enum_values, .. }) => enum_values.as_slice(),
                    _ => &[],
                };
                // The field itself, or a copy of it (which must read the same).
                let in_unique = e.is_some_and(|e| {
                    model
                        .entity(e)
                        .unique
                        .iter()
                        .flatten()
                        .any(|k| matches!(k, crate::model::KeyPart::Field(x) if x == f))
                });
                let unique = match bson_type {
                    "int" => Some("int"),
                    "long" => Some("long"),
                    "double" => Some("double"),
                    "date" => Some("date"),
                    "string" => Some("string"),
                    _ => None,
                }
                .filter(|_| in_unique);
                Origin::Value(ValuePlan {
                    entity: e,
                    check_enum: !design_enum.is_empty() && !spec.only_strings_of(design_enum),
                    spec,
                    design_enum,
                    items: model_field
                        .and_then(|mf| {
                            mf.attribute_names()
                                .map(|(per, _)| per)
                                .or(mf.avg_size.map(u64::from))
                        })
                        .unwrap_or(3),
                    unique,
                    attributes: model_field.and_then(|mf| {
                        let (_, keys) = mf.attribute_names()?;
                        Some((keys.max(1), mf.distinct.unwrap_or(1000).max(1)))
                    }),
                })
            }
            FieldOrigin::Embedded { relationship } => {
                let r = model.relationship_by_name(relationship);
                Origin::Embedded {
                    relationship: r,
                    layout: r.and_then(|r| pop.layout(r)),
                }
            }
            FieldOrigin::Reference { relationship, .. } => Origin::Reference {
                relationship: model.relationship_by_name(relationship),
            },
            FieldOrigin::Attribute {
                relationship,
                field: f,
            } => {
                let attribute = model
                    .relationship_by_name(relationship)
                    .and_then(|r| model.relationship(r).attribute(f));
                let bson_type = scalar_type(&field.ty);
                let spec = ScalarSpec::new(
                    pop.seed,
                    relationship,
                    f,
                    bson_type,
                    attribute,
                    attribute.map_or(&[], |a| a.enum_values.as_slice()),
                );
                let design_enum = match &field.ty {
                    ShapeType::Scalar { enum_values, .. } => enum_values.as_slice(),
                    _ => &[],
                };
                Origin::Attribute(ValuePlan {
                    entity: None,
                    check_enum: !design_enum.is_empty() && !spec.only_strings_of(design_enum),
                    spec,
                    design_enum,
                    items: attribute.and_then(|a| a.avg_size).map_or(3, u64::from),
                    unique: None,
                    attributes: None,
                })
            }
            FieldOrigin::Path { tree, via } => match (
                model.relationship_by_name(tree),
                via.as_deref().map(|v| model.relationship_by_name(v)),
            ) {
                (Some(tree), None) => Origin::Path { tree, via: None },
                (Some(tree), Some(Some(via))) => Origin::Path {
                    tree,
                    via: Some(via),
                },
                _ => Origin::Reference { relationship: None },
            },
            FieldOrigin::Computed { .. }
            | FieldOrigin::Discriminator
            | FieldOrigin::Bucket { .. } => Origin::Other,
        };
        let sub = match &field.ty {
            ShapeType::Object { shape } => Some(ShapePlan::new(pop, shape)),
            ShapeType::Array { items, .. } => match items.as_ref() {
                ShapeType::Object { shape } => Some(ShapePlan::new(pop, shape)),
                _ => None,
            },
            ShapeType::Scalar { .. } => None,
        };
        FieldPlan {
            field,
            // A tree's reference to the parent is absent from its roots
            // only, not from one instance in ten.
            // A timeline's outliers are always written: the feed reads the
            // list, and a new reader's timeline starts with an empty one.
            optional: !field.required
                && !matches!(field.origin, FieldOrigin::Id | FieldOrigin::Outliers { .. })
                && !matches!(&origin, Origin::Reference { relationship: Some(r) }
                    if pop.tree(*r).is_some()),
            key: Key::new(&field.name),
            name_hash: name_hash(&field.name),
            origin,
            sub,
        }
    }
}

/// The BSON type a shape's field has, as `$jsonSchema` names it.
pub(super) fn scalar_type(ty: &ShapeType) -> &str {
    match ty {
        ShapeType::Scalar { bson_type, .. } => bson_type,
        ShapeType::Object { .. } => "object",
        ShapeType::Array { .. } => "array",
    }
}
