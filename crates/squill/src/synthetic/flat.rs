//! Flat documents, whose every field is a scalar (the instance's id, one of
//! its own values or a related instance's, its parent's id, a constant) or
//! an extended reference to its parent (`{_id, ipaddr}`), are encoded from a
//! list of steps worked out once per collection and entity, rather than by
//! walking the shape per document (`documents`).
//!
//! Most of the bytes of a large data set are in such documents: the
//! "squillions" side of a one-to-squillions relationship (log messages,
//! events, readings) is flat. For them, the walk (a context per document,
//! the match on each field's origin and type, the search for whose value it
//! is, the encoder's stack of open containers) was about a quarter of the
//! instructions per document (BENCHMARKS.md "generate").
//!
//! Each step does what the walk does for its field, through the same
//! functions (`Builder::value_of`, `id_scalar`, `absent`), so the bytes are
//! the same; a test compares the two on every example model.

use super::appender::Appender;
use super::documents::{Builder, IdType, stands_for_itself};
use super::plan::{FieldPlan, Origin, ShapePlan};
use super::population::{Population, is_shared};
use super::sink::Key;
use super::value::{Scalar, bson_len};
use super::values::{Generated, Scratch};
use crate::design::{FieldOrigin, ShapeType};
use crate::model::{EntityId, Model, RelationshipId};
use std::ops::Range;

/// How one entity's documents in one collection are encoded: a step per
/// field of the collection's plan, in its order.
#[derive(Debug)]
pub(super) struct FlatPlan {
    entity: EntityId,
    steps: Vec<Step>,
}

/// Where a field's value comes from.
#[derive(Debug)]
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
    /// That parent as a subdocument of its id and its own values (an
    /// extended reference): a step per field of the field's sub-plan, each
    /// an `Id`, `Own` or `Null` of the parent.
    ParentObject {
        relationship: RelationshipId,
        parent: EntityId,
        steps: Vec<Step>,
    },
    /// The entity's name (a discriminator).
    EntityName,
    Null,
}

impl FlatPlan {
    /// The steps for `entity`'s documents of the collection `plan` is of,
    /// when they are flat.
    pub(super) fn new(
        pop: &Population<'_>,
        plan: &ShapePlan<'_>,
        entity: EntityId,
    ) -> Option<Self> {
        Some(FlatPlan {
            entity,
            steps: steps(pop.model, plan, entity, None)?,
        })
    }
}

/// The steps of `plan`'s fields for an instance of `entity`: a document's
/// (`outer` is `None`), or a parent's in an extended reference inside an
/// `outer` document, which takes only ids and its own values.
fn steps(
    model: &Model,
    plan: &ShapePlan<'_>,
    entity: EntityId,
    outer: Option<EntityId>,
) -> Option<Vec<Step>> {
    let top = outer.is_none();
    let step = |f: &FieldPlan<'_>| {
        let scalar = matches!(f.field.ty, ShapeType::Scalar { .. });
        Some(match &f.origin {
            Origin::Id => Step::Id(IdType::of(&f.field.ty)),
            Origin::Value(v) if scalar && v.spec.is_scalar() => match v.entity {
                Some(e) if e != entity => Step::Related,
                _ => Step::Own,
            },
            Origin::Reference { relationship: None }
            | Origin::Embedded {
                relationship: None, ..
            } => Step::Null,
            // Inside the element that stands for the related instance, a
            // reference between it and the outer document is its own id
            // (as `reference` has it).
            Origin::Reference {
                relationship: Some(r),
            } if scalar && let Some(o) = outer => {
                if !stands_for_itself(model.relationship(*r), entity, o) {
                    return None;
                }
                Step::Id(IdType::of(&f.field.ty))
            }
            Origin::Reference {
                relationship: Some(r),
            } if top => {
                let rel = model.relationship(*r);
                if rel.parent == entity || is_shared(rel) {
                    // The children's ids, or several parents' ids.
                    return None;
                }
                match (&f.field.ty, &f.sub) {
                    (ShapeType::Scalar { .. }, _) => Step::ParentId {
                        relationship: *r,
                        parent: rel.parent,
                        id: IdType::of(&f.field.ty),
                    },
                    (ShapeType::Object { .. }, Some(sub)) => Step::ParentObject {
                        relationship: *r,
                        parent: rel.parent,
                        steps: steps(model, sub, rel.parent, Some(entity))?,
                    },
                    _ => return None,
                }
            }
            Origin::Other if top && matches!(f.field.origin, FieldOrigin::Discriminator) => {
                Step::EntityName
            }
            _ => return None,
        })
    };
    let steps: Vec<Step> = plan.fields.iter().map(step).collect::<Option<_>>()?;
    // A parent's fields: its id and its own values only.
    let parent_only = |s: &Step| matches!(s, Step::Id(_) | Step::Own | Step::Null);
    (top || steps.iter().all(parent_only)).then_some(steps)
}

impl Builder<'_, '_> {
    /// Encodes the documents of instances `indices` of the plan's entity,
    /// all under `parent`, as Extended JSON lines into `json` and BSON into
    /// `bson` (each when given). `plan` is the one `flat` was made from.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn encode_flat(
        &self,
        plan: &ShapePlan<'_>,
        flat: &FlatPlan,
        parent: Option<(RelationshipId, u64)>,
        indices: Range<u64>,
        json: Option<&mut Vec<u8>>,
        bson: Option<&mut Vec<u8>>,
        scratch: &mut Scratch,
    ) {
        let run = (plan, flat, parent, indices);
        let mut none = Vec::new();
        match (json, bson) {
            (Some(json), Some(bson)) => {
                self.flat_run(run, &mut Out::<true, true>::new(json, bson), scratch)
            }
            (Some(json), None) => {
                self.flat_run(run, &mut Out::<true, false>::new(json, &mut none), scratch)
            }
            (None, Some(bson)) => {
                self.flat_run(run, &mut Out::<false, true>::new(&mut none, bson), scratch)
            }
            (None, None) => {}
        }
    }

    /// `encode_flat` into `out`.
    fn flat_run<const J: bool, const B: bool>(
        &self,
        (plan, flat, parent, indices): (
            &ShapePlan<'_>,
            &FlatPlan,
            Option<(RelationshipId, u64)>,
            Range<u64>,
        ),
        out: &mut Out<'_, J, B>,
        scratch: &mut Scratch,
    ) {
        let entity = flat.entity;
        debug_assert_eq!(plan.fields.len(), flat.steps.len(), "a plan and its steps");
        let held = self.held_steps::<J, B>(plan, flat, parent, &indices, scratch);
        for key in indices {
            let start = out.open(None);
            let mut comma = false;
            for (i, (f, step)) in plan.fields.iter().zip(&flat.steps).enumerate() {
                if self.absent(key, f) {
                    continue;
                }
                if let Some(Some(held)) = held.get(i) {
                    out.put_held(&f.key, comma, held);
                } else if let Step::ParentObject {
                    relationship,
                    parent: parent_entity,
                    steps,
                } = step
                {
                    let p = self.sole_parent(*relationship, key, parent);
                    self.put_object(out, f, comma, steps, (*parent_entity, p), scratch);
                } else {
                    let value = self.step_value(step, f, (entity, key), parent, scratch);
                    out.put(&f.key, comma, value);
                }
                comma = true;
            }
            out.close(start, true);
        }
    }

    /// What is the same in every document of a run of one parent's
    /// children, per step, encoded once for the run rather than once per
    /// document: the value of a `Related` step that is the parent's (a copy
    /// of its field), and the subdocument of a `ParentObject` step (an
    /// extended reference to it). The bench's log messages copy their
    /// host's `ipaddr`: one core built 13% more of them per second
    /// (BENCHMARKS.md "generate"). Empty when no step is such, or the run
    /// has one document.
    fn held_steps<const J: bool, const B: bool>(
        &self,
        plan: &ShapePlan<'_>,
        flat: &FlatPlan,
        parent: Option<(RelationshipId, u64)>,
        indices: &Range<u64>,
        scratch: &mut Scratch,
    ) -> Vec<Option<Held>> {
        let Some((r, p)) = parent else {
            return Vec::new();
        };
        let holds = |s: &Step| matches!(s, Step::Related | Step::ParentObject { .. });
        if indices.end - indices.start < 2 || !flat.steps.iter().any(holds) {
            return Vec::new();
        }
        let of_parent = self.pop.model.relationship(r).parent;
        let held = |(f, step): (&FieldPlan<'_>, &Step)| match (step, &f.origin, &f.sub) {
            // As `instance_of` finds it: the run's parent, for a field of
            // the parent's entity (a `Related` step is never the
            // document's own entity).
            (Step::Related, Origin::Value(v), _) if v.entity == Some(of_parent) => {
                let Generated::Scalar(value) = Self::value_of(v, p, scratch) else {
                    return None;
                };
                let mut held = Held {
                    type_byte: value.bson_type_byte(),
                    json: Vec::new(),
                    bson: Vec::new(),
                };
                if J {
                    value.write_ejson(&mut held.json);
                }
                if B {
                    value.write_bson_payload(&mut held.bson);
                }
                Some(held)
            }
            // As `sole_parent` finds it: the run's parent.
            (
                Step::ParentObject {
                    relationship,
                    parent: parent_entity,
                    steps,
                },
                _,
                Some(sub),
            ) if *relationship == r => {
                let (mut json, mut bson) = (Vec::new(), Vec::new());
                {
                    let mut o = Out::<J, B>::new(&mut json, &mut bson);
                    let start = o.open(None);
                    self.object_fields(&mut o, sub, steps, (*parent_entity, p), scratch);
                    o.close(start, false);
                }
                Some(Held {
                    type_byte: 0x03,
                    json,
                    bson,
                })
            }
            _ => None,
        };
        plan.fields.iter().zip(&flat.steps).map(held).collect()
    }

    /// The value of a scalar step of field `f` for instance `key` of
    /// `entity`, enumerated under `parent`.
    #[inline(always)]
    fn step_value<'s>(
        &'s self,
        step: &Step,
        f: &'s FieldPlan<'_>,
        (entity, key): (EntityId, u64),
        parent: Option<(RelationshipId, u64)>,
        scratch: &'s mut Scratch,
    ) -> Scalar<'s> {
        match *step {
            Step::Id(id) => self.id_scalar(id, Some(entity), key, scratch),
            Step::Own | Step::Related => {
                let Origin::Value(v) = &f.origin else {
                    debug_assert!(false, "a value step planned for another origin");
                    return Scalar::Null;
                };
                let key = match step {
                    Step::Related => self.instance_of_root(v.entity, entity, key, parent),
                    _ => key,
                };
                match Self::value_of(v, key, scratch) {
                    Generated::Scalar(s) => s,
                    Generated::Value(_) => {
                        debug_assert!(
                            false,
                            "a value step planned for a non-scalar: {}",
                            f.field.name
                        );
                        Scalar::Null
                    }
                }
            }
            Step::ParentId {
                relationship,
                parent: parent_entity,
                id,
            } => {
                let p = self.sole_parent(relationship, key, parent);
                self.id_scalar(id, Some(parent_entity), p, scratch)
            }
            Step::EntityName => Scalar::Str(self.entity_name(Some(entity))),
            Step::Null => Scalar::Null,
            Step::ParentObject { .. } => {
                debug_assert!(false, "an object step written as a scalar");
                Scalar::Null
            }
        }
    }

    /// Appends field `f`, an extended reference: instance `(parent, p)` as a
    /// subdocument, its fields from `steps`.
    fn put_object<const J: bool, const B: bool>(
        &self,
        out: &mut Out<'_, J, B>,
        f: &FieldPlan<'_>,
        comma: bool,
        steps: &[Step],
        (parent, p): (EntityId, u64),
        scratch: &mut Scratch,
    ) {
        let Some(sub) = &f.sub else {
            debug_assert!(false, "an object step planned without a sub-plan");
            return;
        };
        let start = out.open(Some((&f.key, comma)));
        self.object_fields(out, sub, steps, (parent, p), scratch);
        out.close(start, false);
    }

    /// The fields of `put_object`'s subdocument, from `steps`.
    fn object_fields<const J: bool, const B: bool>(
        &self,
        out: &mut Out<'_, J, B>,
        sub: &ShapePlan<'_>,
        steps: &[Step],
        (parent, p): (EntityId, u64),
        scratch: &mut Scratch,
    ) {
        debug_assert_eq!(sub.fields.len(), steps.len());
        let mut comma = false;
        for (sf, step) in sub.fields.iter().zip(steps) {
            if self.absent(p, sf) {
                continue;
            }
            let value = self.step_value(step, sf, (parent, p), None, scratch);
            out.put(&sf.key, comma, value);
            comma = true;
        }
    }
}

/// A field's value that is the same in every document of a run, encoded
/// once (`held_steps`): a scalar, or a subdocument (from `{` to `}`, and
/// from its length to its closing zero).
struct Held {
    /// The BSON element's type.
    type_byte: u8,
    /// The value as Extended JSON, and as BSON after the element's name.
    json: Vec<u8>,
    bson: Vec<u8>,
}

/// Where flat documents go: Extended JSON (when `J`) and BSON (when `B`),
/// known at compile time so that the loop does not ask per field. Each goes
/// through an `Appender`, which keeps the buffer's end in registers.
struct Out<'v, const J: bool, const B: bool> {
    json: Appender<'v>,
    bson: Appender<'v>,
}

impl<'v, const J: bool, const B: bool> Out<'v, J, B> {
    fn new(json: &'v mut Vec<u8>, bson: &'v mut Vec<u8>) -> Self {
        Out {
            json: Appender::new(json),
            bson: Appender::new(bson),
        }
    }

    /// Appends one field: its name and value.
    #[inline(always)]
    fn put(&mut self, key: &Key, comma: bool, value: Scalar<'_>) {
        if J {
            key.push_json(&mut self.json, comma);
            value.write_ejson(&mut self.json);
        }
        if B {
            key.push_bson(&mut self.bson, value.bson_type_byte());
            value.write_bson_payload(&mut self.bson);
        }
    }

    /// Appends a field whose value is encoded already.
    #[inline(always)]
    fn put_held(&mut self, key: &Key, comma: bool, held: &Held) {
        if J {
            key.push_json(&mut self.json, comma);
            self.json.put(&held.json);
        }
        if B {
            key.push_bson(&mut self.bson, held.type_byte);
            self.bson.put(&held.bson);
        }
    }

    /// Opens a document: the top-level one, or a field's (`key`, after a
    /// comma when the `bool` says). Gives where its BSON length goes.
    #[inline(always)]
    fn open(&mut self, key: Option<(&Key, bool)>) -> usize {
        if J {
            if let Some((key, comma)) = key {
                key.push_json(&mut self.json, comma);
            }
            self.json.put_byte(b'{');
        }
        if !B {
            return 0;
        }
        if let Some((key, _)) = key {
            key.push_bson(&mut self.bson, 0x03);
        }
        let start = self.bson.len();
        self.bson.put(&[0; 4]);
        start
    }

    /// Closes the document `open` gave `start` for; a top-level one ends
    /// its line.
    #[inline(always)]
    fn close(&mut self, start: usize, top: bool) {
        if J {
            self.json.put(if top { b"}\n" } else { b"}" });
        }
        if B {
            self.bson.put_byte(0);
            self.bson.patch(start, bson_len(self.bson.len() - start));
        }
    }
}
