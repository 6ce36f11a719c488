//! Runs of roots to bytes, as `generate data` encodes them: flat documents
//! from their steps (`flat`), the others by walking the collection's shape
//! (`documents`). The builder threads use it, and so does the generate bench
//! for its CPU-only figure, so that both measure the same code.

use super::documents::Builder;
use super::flat::FlatPlan;
use super::plan::ShapePlan;
use super::population::Population;
use super::roots::Run;
use super::sink::Encoder;
use super::values::Scratch;
use crate::design::Collection;
use crate::model::EntityId;

/// Encodes one collection's runs of roots.
pub struct RunEncoder<'c> {
    shape: ShapePlan<'c>,
    /// Per entity met so far: its flat plan, if its documents are flat.
    flat: Vec<(EntityId, Option<FlatPlan>)>,
}

impl<'c> RunEncoder<'c> {
    pub fn new<'a: 'c>(pop: &Population<'a>, coll: &'c Collection) -> Self {
        RunEncoder {
            shape: ShapePlan::of_collection(pop, coll),
            flat: Vec::new(),
        }
    }

    /// Appends the documents of `run` as Extended JSON lines to `json` and
    /// as BSON to `bson` (each when given).
    pub fn encode(
        &mut self,
        builder: &Builder<'_, '_>,
        run: &Run,
        json: Option<&mut Vec<u8>>,
        bson: Option<&mut Vec<u8>>,
        scratch: &mut Scratch,
    ) {
        if let Run::Entities {
            entity,
            parent,
            indices,
        } = run
            && let Some((shape, flat)) = self.flat_plan(builder, *entity)
        {
            let indices = indices.clone();
            builder.encode_flat(shape, flat, *parent, indices, json, bson, scratch);
            return;
        }
        // One encoder for the run: it is back to empty after each document.
        let mut encoder = Encoder::new(json, bson);
        run.for_each(|root| builder.encode(&self.shape, root, &mut encoder, scratch));
    }

    /// The collection's plan and `entity`'s flat plan, if its documents
    /// are flat.
    fn flat_plan(
        &mut self,
        builder: &Builder<'_, '_>,
        entity: EntityId,
    ) -> Option<(&ShapePlan<'c>, &FlatPlan)> {
        let i = match self.flat.iter().position(|(e, _)| *e == entity) {
            Some(i) => i,
            None => {
                let plan = FlatPlan::new(builder.pop, &self.shape, entity);
                self.flat.push((entity, plan));
                self.flat.len() - 1
            }
        };
        Some((&self.shape, self.flat[i].1.as_ref()?))
    }
}
