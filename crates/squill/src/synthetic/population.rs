//! The synthetic population: the numbering of who exists and who is whose
//! child (`numbering`), with the design's timelines worked out from it once
//! (`feeds`). Every builder reads both through this one value; `Deref`
//! gives the numbering's methods to it, so a builder never asks which of
//! the two holds what.

use super::feeds::{TimelineGen, timelines};
use super::numbering::Numbering;
use crate::design::Design;
use crate::model::Model;
use std::sync::Arc;

pub use super::numbering::{draw, effective_max, is_shared, owners, spread, unit_ms};
pub use super::rng::{Rng, mix, name_hash};

/// The synthetic population of one model at one scale and seed.
/// `Clone` gives each builder thread its own (the numbering's cursors are
/// only a cache of where the last lookup ended).
#[derive(Debug, Clone)]
pub struct Population<'a> {
    numbering: Numbering<'a>,
    /// The design's timelines (fan-out on write), with the follower counts
    /// worked out once: shared by the clones of the builder threads.
    pub(super) timelines: Arc<Vec<TimelineGen>>,
    /// When the data is loaded (`DataOptions::now_ms`): the dates an
    /// expiry counts from are alive then. `None` for example documents,
    /// whose dates stay where every other date is.
    pub now_ms: Option<i64>,
}

impl<'a> Population<'a> {
    pub fn new(model: &'a Model, design: &'a Design, scale: u64, seed: u64) -> Self {
        Self::with_max_children(model, design, scale, seed, None)
    }

    pub fn with_max_children(
        model: &'a Model,
        design: &'a Design,
        scale: u64,
        seed: u64,
        max_children: Option<u64>,
    ) -> Self {
        Self::of(Numbering::with_max_children(
            model,
            design,
            scale,
            seed,
            max_children,
        ))
    }

    /// The population example documents are built from (advise's and
    /// `examples.json`): `Numbering::for_examples`.
    pub fn for_examples(
        model: &'a Model,
        design: &'a Design,
        seed: u64,
        max_children: Option<u64>,
    ) -> Self {
        Self::of(Numbering::for_examples(model, design, seed, max_children))
    }

    fn of(numbering: Numbering<'a>) -> Self {
        let timelines = Arc::new(timelines(&numbering));
        Population {
            numbering,
            timelines,
            now_ms: None,
        }
    }

    /// The same population, loaded at `now_ms` (`now_ms` above).
    #[must_use]
    pub fn loaded_at(self, now_ms: i64) -> Self {
        Population {
            now_ms: Some(now_ms),
            ..self
        }
    }
}

impl<'a> std::ops::Deref for Population<'a> {
    type Target = Numbering<'a>;

    fn deref(&self) -> &Numbering<'a> {
        &self.numbering
    }
}
