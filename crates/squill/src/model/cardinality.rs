//! How many children a parent has: the first question of every embed-or-reference
//! decision (000_34acd10fa9a500cb.txt: "what is the cardinality of the relationship?").

use super::growth::Growth;
use serde::Serialize;

/// A count that may have no upper bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    Finite(u64),
    Unbounded,
}

impl Count {
    pub fn finite(self) -> Option<u64> {
        match self {
            Count::Finite(n) => Some(n),
            Count::Unbounded => None,
        }
    }

    pub fn is_unbounded(self) -> bool {
        matches!(self, Count::Unbounded)
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Count::Finite(n) => write!(f, "{n}"),
            Count::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// Related items per owner: min / typical / max, and how fast it grows.
///
/// Invariant (checked by whoever builds the model): `min <= typical <= max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cardinality {
    pub min: u64,
    pub typical: u64,
    pub max: Count,
    /// Items added per owner over time, when the model says so: the typical
    /// owner's and, when known, the spread up to the busiest owner
    /// (`model::Growth`). A bounded maximum with growth means "capped"; an
    /// unbounded maximum with growth lets the advisor say when a document
    /// would cross a limit.
    pub growth: Option<Growth>,
    /// The 95th and 99th percentiles, when the model knows them: how far
    /// the usual parents reach, below a maximum set by a few outliers.
    pub p95: Option<u64>,
    pub p99: Option<u64>,
    /// The mean the model states when it is not a whole number (0.2 deals
    /// per contact: most contacts have none, one in five has one); then
    /// `typical` is it rounded. `None`: `typical` is the figure stated.
    /// Sizes and synthetic data use the mean; counts that must be whole
    /// (an array's bound, a page) use `typical` (audit48 C7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
}

impl Cardinality {
    /// Children per owner on average as the model states it: the
    /// fractional mean when it gave one, else `typical`.
    pub fn mean_or_typical(&self) -> f64 {
        self.mean.unwrap_or(self.typical as f64)
    }

    pub const ONE: Cardinality = Cardinality {
        mean: None,
        min: 1,
        typical: 1,
        max: Count::Finite(1),
        growth: None,
        p95: None,
        p99: None,
    };

    pub fn exactly(n: u64) -> Self {
        Cardinality {
            mean: None,
            min: n,
            typical: n,
            max: Count::Finite(n),
            growth: None,
            p95: None,
            p99: None,
        }
    }
}

impl Cardinality {
    /// The spread between parents a growth with a spread states, where the
    /// count states none itself: the typical parent's children span
    /// `typical / growth.typical` days, and a percentile's or the busiest
    /// parent's children arrive at the growth's figure over as many days
    /// (S20's devices: 1,500 a device typically at 50 a day, so 30 days;
    /// the busiest, 200,000 a day, 6,000,000). A percentile or maximum the
    /// count states is kept; without a growth spread, or with a typical
    /// growth of 0, the count as it is.
    pub fn spread_from_growth(&self) -> Cardinality {
        let mut c = *self;
        let Some(g) = self.growth.filter(|g| g.has_spread() && g.typical > 0.0) else {
            return c;
        };
        let days = self.typical as f64 / g.typical;
        let over = |per_day: f64| (per_day * days).round() as u64;
        if c.p95.is_none() {
            c.p95 = g.p95.map(over);
        }
        if c.p99.is_none() {
            c.p99 = g.p99.map(over);
        }
        if let (Count::Unbounded, Some(m)) = (c.max, g.max) {
            c.max = Count::Finite(over(m).max(c.typical));
        }
        c
    }

    /// The highest percentile the model gives, by name (`p99`, else `p95`).
    pub fn highest_percentile(&self) -> Option<(&'static str, u64)> {
        match (self.p99, self.p95) {
            (Some(p), _) => Some(("p99", p)),
            (None, Some(p)) => Some(("p95", p)),
            (None, None) => None,
        }
    }

    /// The spread of a skewed count as a log-normal through the typical
    /// value (its median) and the highest percentile given: `(μ, σ)` of
    /// the logarithm. `None` without a percentile or a typical count.
    fn log_normal(&self) -> Option<(f64, f64)> {
        // z of the 99th and the 95th percentile of a normal distribution.
        let (name, p) = self.highest_percentile()?;
        let z = if name == "p99" { 2.326_348 } else { 1.644_854 };
        if self.typical == 0 {
            return None;
        }
        let mu = (self.typical as f64).ln();
        Some((mu, ((p as f64).ln() - mu).max(0.0) / z))
    }

    /// The share of owners with more than `t` items (from the percentiles;
    /// none when the maximum is at most `t`).
    pub fn share_above(&self, t: u64) -> Option<f64> {
        if self.max.finite().is_some_and(|m| m <= t) {
            return Some(0.0);
        }
        let (mu, sigma) = self.log_normal()?;
        if sigma == 0.0 {
            return Some(if (self.typical) > t { 1.0 } else { 0.0 });
        }
        Some(1.0 - normal_cdf(((t as f64).ln() - mu) / sigma))
    }

    /// Items per owner counted only over owners with at most `t` items,
    /// averaged over all owners: E[n · 1{n ≤ t}] (the followers a post is
    /// pushed to when authors above `t` are left out).
    pub fn mean_at_most(&self, t: u64) -> Option<f64> {
        let (mu, sigma) = self.log_normal()?;
        let mean = (mu + sigma * sigma / 2.0).exp();
        if sigma == 0.0 {
            return Some(if self.typical <= t { mean } else { 0.0 });
        }
        let z = ((t as f64).ln() - mu) / sigma;
        Some(mean * normal_cdf(z - sigma))
    }

    /// The share of all items that lie beyond the first `t` of their owner
    /// (the overflow of an outlier layout): `E[(n - t)+] / E[n]`.
    pub fn items_share_above(&self, t: u64) -> Option<f64> {
        if self.max.finite().is_some_and(|m| m <= t) {
            return Some(0.0);
        }
        let (mu, sigma) = self.log_normal()?;
        if sigma == 0.0 {
            let n = self.typical as f64;
            return Some(((n - t as f64) / n).max(0.0));
        }
        let z = ((t as f64).ln() - mu) / sigma;
        let mean = (mu + sigma * sigma / 2.0).exp();
        let beyond = mean * normal_cdf(sigma - z) - t as f64 * (1.0 - normal_cdf(z));
        Some((beyond / mean).clamp(0.0, 1.0))
    }
}

/// Φ, the standard normal distribution function, from the complementary
/// error function of Abramowitz and Stegun 7.1.26 (error below 1.5e-7).
fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-z * z).exp();
    if x >= 0.0 {
        1.0 - erfc / 2.0
    } else {
        erfc / 2.0
    }
}

/// The seeds' vocabulary for a cardinality. Where the class boundaries lie is a
/// setting (`rules::settings::CardinalitySettings`), not a constant, because the
/// published numbers disagree; see `CardinalityClass::classify` in `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardinalityClass {
    OneToOne,
    OneToFew,
    OneToMany,
    OneToSquillions,
}

impl std::fmt::Display for CardinalityClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CardinalityClass::OneToOne => "one-to-one",
            CardinalityClass::OneToFew => "one-to-few",
            CardinalityClass::OneToMany => "one-to-many",
            CardinalityClass::OneToSquillions => "one-to-squillions",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attendees() -> Cardinality {
        Cardinality {
            mean: None,
            min: 0,
            typical: 30,
            max: Count::Finite(2_000_000),
            growth: None,
            p95: None,
            p99: Some(400),
        }
    }

    #[test]
    fn the_normal_distribution_function_matches_its_table() {
        for (x, phi) in [
            (0.0, 0.5),
            (1.0, 0.841_344_7),
            (-1.96, 0.024_997_9),
            (2.326_348, 0.99),
        ] {
            assert!((normal_cdf(x) - phi).abs() < 1e-6, "{x}: {}", normal_cdf(x));
        }
    }

    /// The percentile the model gives is where the share above is 1%.
    #[test]
    fn the_share_above_the_p99_is_one_percent() {
        let c = attendees();
        assert!((c.share_above(400).unwrap() - 0.01).abs() < 1e-4);
        assert!(c.share_above(1000).unwrap() < 0.002);
        assert_eq!(c.share_above(2_000_000), Some(0.0));
        assert_eq!(Cardinality::exactly(5).share_above(3), None);
    }

    /// Below a threshold far above the data, the mean is the whole mean
    /// (typical e^{σ²/2}); at the median it is a small part of it.
    #[test]
    fn the_mean_up_to_a_threshold_grows_to_the_mean() {
        let c = attendees();
        let sigma = (400f64 / 30.0).ln() / 2.326_348;
        let whole = 30.0 * (sigma * sigma / 2.0).exp();
        assert!((c.mean_at_most(u64::MAX / 2).unwrap() - whole).abs() < 1e-6 * whole);
        assert!(c.mean_at_most(30).unwrap() < whole / 2.0);
        assert!(c.mean_at_most(400).unwrap() < c.mean_at_most(4000).unwrap());
    }

    #[test]
    fn items_beyond_a_threshold_are_a_small_share() {
        let c = attendees();
        let share = c.items_share_above(1000).unwrap();
        assert!(share > 0.0 && share < 0.01, "{share}");
        assert!(c.items_share_above(100).unwrap() > share);
    }
}
