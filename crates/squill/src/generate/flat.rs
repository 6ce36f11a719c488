//! Flat documents, whose every field is a scalar (the instance's id, one of
//! its own values or a related instance's, its parent's id, a constant), are
//! encoded from a list of steps worked out once per collection and entity,
//! rather than by walking the shape per document (`documents`).
//!
//! Most of the bytes of a large data set are in such documents: the
//! "squillions" side of a one-to-squillions relationship (log messages,
//! events, readings) is flat. For them, the walk (a context per document,
//! the match on each field's origin and type, the search for whose value it
//! is, the encoder's stack of open containers) cost more instructions than
//! drawing and writing the values (BENCHMARKS.md "generate").
//!
//! Each step does what the walk does for its field, through the same
//! functions (`Builder::value_of`, `id_scalar`, `absent`), so the bytes are
//! the same; a test compares the two on every example model.

use super::documents::{Builder, IdType};
use super::plan::{Origin, ShapePlan};
use super::population::is_shared;
use super::sink::Key;
use super::value::{Scalar, patch_len};
use super::values::{Generated, Scratch};
use crate::design::{FieldOrigin, ShapeType};
use crate::model::{EntityId, RelationshipId};
use std::ops::Range;

/// How one entity's documents in one collection are encoded: a step per
/// field of the collection's plan, in its order.
#[derive(Debug)]
pub struct FlatPlan {
    entity: EntityId,
    steps: Vec<Step>,
}

/// Where a field's value comes from.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// The instance's own id.
    Id(IdType),
    /// A value of the instance's own field.
    Own,
    /// A value of a field of another instance (its parent's, say), found
    /// as the walk finds it.
    Related,
    /// The id of its parent through a relationship whose children are not
    /// shared.
    ParentId {
        relationship: RelationshipId,
        parent: EntityId,
        id: IdType,
    },
    /// The entity's name (a discriminator).
    EntityName,
    Null,
}

impl FlatPlan {
    /// The steps for `entity`'s documents of the collection `plan` is of,
    /// when they are flat.
    pub fn new(builder: &Builder<'_, '_>, plan: &ShapePlan<'_>, entity: EntityId) -> Option<Self> {
        let model = builder.pop.model;
        let steps = plan.fields.iter().map(|f| {
            let scalar = matches!(f.field.ty, ShapeType::Scalar { .. });
            Some(match &f.origin {
                Origin::Id => Step::Id(IdType::of(&f.field.ty)),
                Origin::Value(v) if scalar && v.spec.is_scalar() => match v.entity {
                    Some(e) if e != entity => Step::Related,
                    _ => Step::Own,
                },
                Origin::Reference {
                    relationship: Some(r),
                } if scalar => {
                    let rel = model.relationship(*r);
                    if rel.parent == entity || is_shared(rel) {
                        // The children's ids, or several parents' ids.
                        return None;
                    }
                    Step::ParentId {
                        relationship: *r,
                        parent: rel.parent,
                        id: IdType::of(&f.field.ty),
                    }
                }
                Origin::Reference { relationship: None }
                | Origin::Embedded {
                    relationship: None, ..
                } => Step::Null,
                Origin::Other if matches!(f.field.origin, FieldOrigin::Discriminator) => {
                    Step::EntityName
                }
                _ => return None,
            })
        });
        Some(FlatPlan {
            entity,
            steps: steps.collect::<Option<_>>()?,
        })
    }

    pub fn entity(&self) -> EntityId {
        self.entity
    }
}

impl Builder<'_, '_> {
    /// Encodes the documents of instances `indices` of the plan's entity,
    /// all under `parent`, as Extended JSON lines into `json` and BSON into
    /// `bson` (each when given). `plan` is the one `flat` was made from.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_flat(
        &self,
        plan: &ShapePlan<'_>,
        flat: &FlatPlan,
        parent: Option<(RelationshipId, u64)>,
        indices: Range<u64>,
        mut json: Option<&mut Vec<u8>>,
        mut bson: Option<&mut Vec<u8>>,
        scratch: &mut Scratch,
    ) {
        let entity = flat.entity;
        for key in indices {
            if let Some(json) = json.as_deref_mut() {
                json.push(b'{');
            }
            let mut start = 0;
            if let Some(bson) = bson.as_deref_mut() {
                start = bson.len();
                bson.extend_from_slice(&[0; 4]);
            }
            let mut comma = false;
            for (f, step) in plan.fields.iter().zip(&flat.steps) {
                if self.absent(key, f) {
                    continue;
                }
                let value = match *step {
                    Step::Id(id) => self.id_scalar(id, Some(entity), key, scratch),
                    Step::Own | Step::Related => {
                        let Origin::Value(v) = &f.origin else {
                            continue;
                        };
                        let key = match step {
                            Step::Related => self.instance_of_root(v.entity, entity, key, parent),
                            _ => key,
                        };
                        match Self::value_of(v, key, scratch) {
                            Generated::Scalar(s) => s,
                            // Not planned: the step is for scalar values only.
                            Generated::Value(_) => Scalar::Null,
                        }
                    }
                    Step::ParentId {
                        relationship,
                        parent: parent_entity,
                        id,
                    } => {
                        let p = match parent {
                            Some((r, p)) if r == relationship => p,
                            _ => self.pop.first_parent(relationship, key),
                        };
                        self.id_scalar(id, Some(parent_entity), p, scratch)
                    }
                    Step::EntityName => Scalar::Str(self.entity_name(Some(entity))),
                    Step::Null => Scalar::Null,
                };
                put(
                    json.as_deref_mut(),
                    bson.as_deref_mut(),
                    &f.key,
                    comma,
                    value,
                );
                comma = true;
            }
            if let Some(json) = json.as_deref_mut() {
                json.extend_from_slice(b"}\n");
            }
            if let Some(bson) = bson.as_deref_mut() {
                bson.push(0);
                patch_len(bson, start);
            }
        }
    }
}

/// Appends one field: its name and value.
#[inline(always)]
fn put(
    json: Option<&mut Vec<u8>>,
    bson: Option<&mut Vec<u8>>,
    key: &Key,
    comma: bool,
    value: Scalar<'_>,
) {
    if let Some(json) = json {
        key.push_json(json, comma);
        value.write_ejson(json);
    }
    if let Some(bson) = bson {
        key.push_bson(bson, value.bson_type_byte());
        value.write_bson_payload(bson);
    }
}
