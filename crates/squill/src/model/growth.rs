//! How fast children arrive per parent, with the spread between parents:
//! the typical parent, the 95th and 99th percentiles, the busiest. Kept as
//! figures per day, with the period the model stated them in so reports
//! say them back the same way.
//!
//! A typical figure alone sizes a layout for the median parent. A time
//! bucket sized so (one per device-day at 50 events) holds 200,000 events
//! for the busiest device: the spread lets the design be bounded at the
//! busiest parent instead. Capacity projections (issue 42) read the same
//! value: how many children the typical and the busiest parent have after
//! a given time.

use serde::Serialize;

/// The period a growth figure is stated per.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

impl Period {
    /// The names a model may use, in order of length.
    pub const ALL: [Period; 6] = [
        Period::Minute,
        Period::Hour,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Year,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Period::Minute => "minute",
            Period::Hour => "hour",
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
            Period::Year => "year",
        }
    }

    /// How many days the period lasts (a month is 30 days, a year 365, as
    /// the time buckets count them).
    pub fn days(self) -> f64 {
        match self {
            Period::Minute => 1.0 / 1440.0,
            Period::Hour => 1.0 / 24.0,
            Period::Day => 1.0,
            Period::Week => 7.0,
            Period::Month => 30.0,
            Period::Year => 365.0,
        }
    }

    /// `v` per this period, per day (multiplied or divided by a whole
    /// number, so a figure written back reads as it was given).
    pub fn to_per_day(self, v: f64) -> f64 {
        match self {
            Period::Minute => v * 1440.0,
            Period::Hour => v * 24.0,
            Period::Day => v,
            Period::Week => v / 7.0,
            Period::Month => v / 30.0,
            Period::Year => v / 365.0,
        }
    }

    /// `v` per day, per this period (the inverse of `to_per_day`).
    pub fn from_per_day(self, v: f64) -> f64 {
        match self {
            Period::Minute => v / 1440.0,
            Period::Hour => v / 24.0,
            Period::Day => v,
            Period::Week => v * 7.0,
            Period::Month => v * 30.0,
            Period::Year => v * 365.0,
        }
    }

    pub fn parse(s: &str) -> Option<Period> {
        Period::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// Which figure of a spread a number is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Percentile {
    Typical,
    P95,
    P99,
    Max,
}

impl Percentile {
    pub fn name(self) -> &'static str {
        match self {
            Percentile::Typical => "typical",
            Percentile::P95 => "p95",
            Percentile::P99 => "p99",
            Percentile::Max => "max",
        }
    }
}

/// Children added per parent, per day: the typical parent and, when the
/// model knows them, the percentiles and the busiest parent.
///
/// Invariant (checked by whoever builds the model): every figure is finite
/// and `0 ≤ typical ≤ p95 ≤ p99 ≤ max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Growth {
    pub typical: f64,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
    /// The period the model stated the figures per (`growth_per_day` is
    /// `Day`); the figures above are per day whatever it is.
    pub per: Period,
}

impl Growth {
    /// One figure per day, no spread (the model's `growth_per_day`).
    pub fn per_day(typical: f64) -> Self {
        Growth {
            typical,
            p95: None,
            p99: None,
            max: None,
            per: Period::Day,
        }
    }

    /// Whether the model gave more than the typical figure.
    pub fn has_spread(&self) -> bool {
        self.p95.is_some() || self.p99.is_some() || self.max.is_some()
    }

    /// The busiest parent the model knows of: the maximum, else the highest
    /// percentile, else the typical parent. A layout bounded by growth is
    /// bounded here.
    pub fn busiest(&self) -> (Percentile, f64) {
        [
            (Percentile::Max, self.max),
            (Percentile::P99, self.p99),
            (Percentile::P95, self.p95),
        ]
        .into_iter()
        .find_map(|(p, v)| v.map(|v| (p, v)))
        .unwrap_or((Percentile::Typical, self.typical))
    }

    /// The figures given, from the typical parent to the busiest.
    pub fn figures(&self) -> Vec<(Percentile, f64)> {
        let mut out = vec![(Percentile::Typical, self.typical)];
        for (p, v) in [
            (Percentile::P95, self.p95),
            (Percentile::P99, self.p99),
            (Percentile::Max, self.max),
        ] {
            if let Some(v) = v {
                out.push((p, v));
            }
        }
        out
    }

    /// The least and the most that the mean parent can add per day while
    /// the figures hold: `typical` is the median (half the parents add at
    /// least that much), `p95`/`p99` leave 5% / 1% above them, `max` caps
    /// everyone. Without a cap the top share is unbounded above. A figure
    /// alone is its own mean (how a model without a spread is read).
    pub fn mean_bounds(&self) -> (f64, f64) {
        if !self.has_spread() {
            return (self.typical, self.typical);
        }
        // Each step: the share of parents at or above the figure.
        let mut steps = vec![(0.5, self.typical)];
        if let Some(p) = self.p95 {
            steps.push((0.05, p));
        }
        if let Some(p) = self.p99 {
            steps.push((0.01, p));
        }
        // Least: every parent sits at the floor of its band.
        let mut least = 0.0;
        for (i, (share, v)) in steps.iter().enumerate() {
            let next = steps.get(i + 1).map_or(0.0, |(s, _)| *s);
            least += (share - next) * v;
        }
        // Most: every parent sits at the ceiling of its band: the next
        // figure up, the cap for the top band (none: unbounded).
        let Some(cap) = self.max else {
            return (least, f64::INFINITY);
        };
        let mut most = 0.5 * self.typical;
        for (i, (share, _)) in steps.iter().enumerate() {
            let next = steps.get(i + 1);
            let (next_share, ceiling) = next.map_or((0.0, cap), |(s, v)| (*s, *v));
            most += (share - next_share) * ceiling;
        }
        (least, most)
    }

    /// The same spread times `k` (the stated period kept).
    pub fn scaled(&self, k: f64) -> Self {
        Growth {
            typical: self.typical * k,
            p95: self.p95.map(|v| v * k),
            p99: self.p99.map(|v| v * k),
            max: self.max.map(|v| v * k),
            per: self.per,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S20's devices: 50 events a day typically, 5,000 at the 99th
    /// percentile, 200,000 at most.
    fn devices() -> Growth {
        Growth {
            typical: 50.0,
            p95: None,
            p99: Some(5000.0),
            max: Some(200_000.0),
            per: Period::Day,
        }
    }

    #[test]
    fn the_busiest_parent_is_the_highest_figure_given() {
        assert_eq!(devices().busiest(), (Percentile::Max, 200_000.0));
        let no_max = Growth {
            max: None,
            ..devices()
        };
        assert_eq!(no_max.busiest(), (Percentile::P99, 5000.0));
        assert_eq!(Growth::per_day(8.0).busiest(), (Percentile::Typical, 8.0));
    }

    /// Half the devices add at least 50 (49% of them between 50 and
    /// 5,000), 1% at least 5,000 and at most 200,000.
    #[test]
    fn the_mean_lies_between_the_floors_and_the_ceilings_of_the_bands() {
        let (least, most) = devices().mean_bounds();
        assert!(
            (least - (0.49 * 50.0 + 0.01 * 5000.0)).abs() < 1e-9,
            "{least}"
        );
        assert!(
            (most - (0.5 * 50.0 + 0.49 * 5000.0 + 0.01 * 200_000.0)).abs() < 1e-9,
            "{most}"
        );
        let open = Growth {
            max: None,
            ..devices()
        };
        assert_eq!(open.mean_bounds().1, f64::INFINITY);
        assert_eq!(Growth::per_day(8.0).mean_bounds(), (8.0, 8.0));
    }

    #[test]
    fn periods_count_days() {
        assert_eq!(Period::parse("hour").map(Period::days), Some(1.0 / 24.0));
        assert_eq!(Period::parse("fortnight"), None);
    }
}
