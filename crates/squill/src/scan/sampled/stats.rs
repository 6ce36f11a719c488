//! The statistics of a sampled scan: Wilson intervals for shares, order
//! statistics for percentiles, Chao1 for the parents a sample of children
//! missed. Each is the textbook estimator, named where it is used.

use super::super::estimate::{Percentile, ShareEstimate, Z};

/// `hits` of `n` as a share with its Wilson score interval (Wilson 1927;
/// it stays inside 0–1 and holds near 0 and 1, where the normal
/// approximation fails: 0 dangling of 1,000 gives 0–0.66 %, not 0–0).
pub fn wilson(hits: u64, n: u64) -> Option<ShareEstimate> {
    if n == 0 {
        return None;
    }
    let (k, n_f) = (hits.min(n) as f64, n as f64);
    let p = k / n_f;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n_f)) / (1.0 + z2 / n_f);
    let half = Z / (1.0 + z2 / n_f) * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    Some(ShareEstimate {
        share: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
        sampled: n,
    })
}

/// The `p` percentile of `sorted` values with its distribution-free
/// interval: the order statistics whose ranks the binomial (normal
/// approximation) puts around `n·p`. `None` when a rank of the interval
/// falls outside the sample or on its largest value: too few values to
/// claim that percentile.
pub fn percentile(sorted: &[u64], p: f64) -> Option<Percentile> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let n_f = n as f64;
    let centre = n_f * p;
    let spread = Z * (n_f * p * (1.0 - p)).sqrt();
    // 1-based ranks.
    let low = (centre - spread).floor();
    let high = (centre + spread).ceil() + 1.0;
    // An interval reaching the largest value seen bounds nothing above: the
    // largest seen is no bound on the collection's (a p99 from 1,000 values).
    if low < 1.0 || high >= n_f {
        return None;
    }
    let at = |rank: f64| sorted[(rank as usize).clamp(1, n) - 1];
    Some(Percentile {
        p,
        value: at(centre.ceil().max(1.0)),
        low: at(low),
        high: at(high),
    })
}

/// Distinct classes in a population from a sample's `seen` distinct ones,
/// `once` of them seen once and `twice` twice (Chao 1984, with the
/// bias-corrected form when none is seen twice). A lower bound where
/// classes differ much in size.
pub fn chao1(seen: u64, once: u64, twice: u64) -> f64 {
    let (s, f1, f2) = (seen as f64, once as f64, twice as f64);
    if f2 > 0.0 {
        s + f1 * f1 / (2.0 * f2)
    } else {
        s + f1 * (f1 - 1.0).max(0.0) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_match_the_textbook_values() {
        // 30 of 1,000 at 99 %: 1.89 % – 4.73 % (Wilson's formula by hand).
        let e = wilson(30, 1000).unwrap();
        assert!((e.low - 0.0189).abs() < 0.0002, "{e:?}");
        assert!((e.high - 0.0473).abs() < 0.0002, "{e:?}");
        // None of 1,000: the interval still admits a few.
        let zero = wilson(0, 1000).unwrap();
        assert_eq!(zero.low, 0.0);
        assert!(zero.high > 0.005 && zero.high < 0.008, "{zero:?}");
        assert!(wilson(0, 0).is_none());
    }

    #[test]
    fn percentiles_need_enough_values_above_them() {
        let values: Vec<u64> = (1..=100).collect();
        let p50 = percentile(&values, 0.5).unwrap();
        assert_eq!(p50.value, 50);
        assert!(p50.low < 50 && p50.high > 50, "{p50:?}");
        // The 95th percentile of 100 values: the upper rank passes the end.
        assert!(percentile(&values, 0.95).is_none());
        let many: Vec<u64> = (1..=1000).collect();
        assert!(percentile(&many, 0.95).is_some());
        // Issue 46: a p99 from 1,000 values cannot be claimed; from 2,000 it can.
        assert!(percentile(&many, 0.99).is_none());
        let more: Vec<u64> = (1..=2000).collect();
        assert!(percentile(&more, 0.99).is_some());
    }

    #[test]
    fn chao1_adds_the_unseen_from_singletons_and_doubletons() {
        assert_eq!(chao1(10, 0, 5), 10.0);
        assert_eq!(chao1(10, 4, 2), 14.0);
        assert_eq!(chao1(10, 4, 0), 16.0);
    }
}
