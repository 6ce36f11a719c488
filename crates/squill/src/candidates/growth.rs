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

#[cfg(test)]
mod tests {
    use crate::candidates::enumerate;
    use crate::candidates::facts::Facts;
    use crate::design::{BucketBy, Layout};
    use crate::model::RelationshipId;
    use crate::settings::Settings;

    /// 10,000 meters, read an hour at a time; readings a day per meter:
    /// typically 2,000, at most 40,000 (GROWTH); inserts at RATE/s.
    const METERS: &str = r"
entities:
  meter:
    count: 10000
    fields: {serial: string(12)}
  reading:
    count: 1000000000
    fields: {at: date, value: double}
relationships:
  readings:
    parent: meter
    child: reading
    children: {min: 0, typical: 100000, max: unbounded, GROWTH}
    child_field: meter
operations:
  record:
    insert: reading
    links: [readings]
    rate: RATE
  an_hour:
    read: meter
    rate: 10
    filter: {_id: eq}
    include:
      readings: {filter: {at: range(0.001)}, sort: at}
";

    fn with(growth: &str, rate: &str) -> crate::model::Model {
        let yaml = METERS.replace("GROWTH", growth).replace("RATE", rate);
        crate::inputs::model_file::parse("meters.yaml", &yaml).unwrap_or_else(|e| panic!("{e}"))
    }

    fn time_units(model: &crate::model::Model) -> Vec<String> {
        let settings = Settings::default();
        let facts = Facts::new(model, &settings, 0);
        enumerate::for_relationship(&facts, RelationshipId::from_index(0))
            .into_iter()
            .filter_map(|l| match l {
                Layout::Bucket {
                    by: BucketBy::Time { unit, .. },
                    ..
                } => Some(unit),
                _ => None,
            })
            .collect()
    }

    /// An hour holds 84 readings of the typical meter but 1,667 of the
    /// busiest: the minute (28 at most) bounds them all, and the hour is
    /// still offered, for rule unbounded-bucket to reject with its numbers.
    /// Without the spread, the hour alone.
    #[test]
    fn the_time_unit_is_bounded_at_the_busiest_parent() {
        // 10,000 meters × 2,000 a day = 231/s; with a busy tail up to
        // 40,000 the inserts' 2,000/s (17,280 a day per meter) fit.
        let spread = with("growth: {typical: 2000, p99: 20000, max: 40000}", "2000");
        assert_eq!(time_units(&spread), ["minute", "hour"]);
        let flat = with("growth_per_day: 2000", "231.5");
        assert_eq!(time_units(&flat), ["hour"]);
    }

    /// The growth is the inserts' once they disagree beyond 2×: the
    /// stated 2,000 a day sized hour buckets, the inserts' 17,280 make an
    /// hour 720 readings, past the bound: minutes then.
    #[test]
    fn disagreeing_inserts_size_the_buckets() {
        let model = with("growth_per_day: 2000", "2000");
        let settings = Settings::default();
        let facts = Facts::new(&model, &settings, 0);
        let r = RelationshipId::from_index(0);
        let figures = facts.growth_figures(r).unwrap_or_else(|| panic!("figures"));
        assert!(figures.disagree());
        assert!((figures.inserts_per_parent - 17_280.0).abs() < 1e-9);
        assert_eq!(facts.growth(r).map(|g| g.typical), Some(17_280.0));
        assert_eq!(time_units(&model), ["minute"]);
        // Just within 2× (8,640 a day stated): as stated.
        let within = with("growth_per_day: 8640", "2000");
        let facts = Facts::new(&within, &settings, 0);
        assert_eq!(facts.growth(r).map(|g| g.typical), Some(8640.0));
    }
}
