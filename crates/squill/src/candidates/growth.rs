//! One fact, two figures: a relationship's growth per parent and the rate
//! the workload inserts its children at both say how many children arrive.
//! When they disagree beyond a factor of two, the insert rate is the one
//! used, everywhere the growth is read, with the stated spread's shape
//! kept: the insert rate is what the design's writes are priced on (each
//! insert's documents, keys and bytes), it is stated per mix, and it is
//! the figure a running deployment's logs measure; the growth per parent
//! is an estimate whose spread says how those inserts fall on the
//! parents. Reading the level from one and the size of a bucket from the
//! other is how "the last 30 days" came to read 144 day buckets.

use super::facts::Facts;
use crate::model::{Growth, RelationshipId};

/// Beyond this factor the two figures disagree (and the model is told).
pub const DISAGREE_FACTOR: f64 = 2.0;

const SECONDS_A_DAY: f64 = 86_400.0;

/// A relationship's growth as stated and as its inserts imply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrowthFigures {
    /// The growth the model states, per parent per day.
    pub stated: Growth,
    /// The least and the most the mean parent gains per day under it.
    pub mean_bounds: (f64, f64),
    /// Children the workload inserts per second through the relationship.
    pub inserts: f64,
    /// What those inserts make per parent per day, on average.
    pub inserts_per_parent: f64,
    /// The growth the design uses: as stated, or scaled to the inserts
    /// when the two disagree.
    pub used: Growth,
}

impl GrowthFigures {
    /// Whether the inserts lie beyond `DISAGREE_FACTOR` of what the stated
    /// growth admits.
    pub fn disagree(&self) -> bool {
        let (least, most) = self.mean_bounds;
        self.inserts_per_parent > most * DISAGREE_FACTOR
            || self.inserts_per_parent * DISAGREE_FACTOR < least
    }
}

impl Facts<'_> {
    /// The growth of `r`'s children per parent that every decision reads:
    /// the model's, unless its inserts say otherwise (`growth_figures`).
    pub fn growth(&self, r: RelationshipId) -> Option<Growth> {
        match self.growth_figures(r) {
            Some(g) => Some(g.used),
            None => self.model.relationship(r).children.growth,
        }
    }

    /// The stated growth of `r` beside its inserts, when the model gives
    /// both (children with one parent each, inserted through `r`).
    pub fn growth_figures(&self, r: RelationshipId) -> Option<GrowthFigures> {
        let rel = self.model.relationship(r);
        let stated = rel.children.growth?;
        let inserts = self.rel(r).child_inserts;
        if !rel.one_parent() || inserts <= 0.0 {
            return None;
        }
        let parents = self.count(rel.parent);
        let inserts_per_parent = inserts * SECONDS_A_DAY / parents;
        let mean_bounds = stated.mean_bounds();
        let mut figures = GrowthFigures {
            stated,
            mean_bounds,
            inserts,
            inserts_per_parent,
            used: stated,
        };
        if figures.disagree() {
            // The least change of level that lets the spread hold the
            // inserts: up to its most, or down to its least.
            // A stated growth of nothing has no shape to keep: the
            // inserts are the typical parent's.
            let (least, most) = mean_bounds;
            figures.used = if most <= 0.0 {
                Growth {
                    per: stated.per,
                    ..Growth::per_day(inserts_per_parent)
                }
            } else if inserts_per_parent > most {
                stated.scaled(inserts_per_parent / most)
            } else {
                stated.scaled(inserts_per_parent / least)
            };
        }
        Some(figures)
    }
}
