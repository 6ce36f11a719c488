//! A mergeable, log-bucketed histogram of non-negative integers (document sizes,
//! array lengths, children per parent). Memory stays bounded whatever the input:
//! values below 64 are counted exactly, larger ones fall into 32 buckets per power
//! of two, so a reported quantile is within 1/64 (≈ 1.6 %) of the true value
//! (the bucket's midpoint, clamped to the exact min and max). Count, sum, min and
//! max are exact. Two histograms merge by adding counts, so per-thread profiles
//! combine without losing accuracy.

use serde::Serialize;

const EXACT: u64 = 64;
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

/// A range of values and how many fell in it: `lo <= v < hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bin {
    pub lo: u64,
    pub hi: u64,
    pub count: u64,
}

/// The summary reports carry: exact count, min, mean, max; sketched quantiles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Distribution {
    pub count: u64,
    pub min: u64,
    pub mean: f64,
    pub p50: u64,
    pub p95: u64,
    pub max: u64,
}

fn bucket(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let e = 63 - u64::from(v.leading_zeros()); // >= 6
    let mant = (v >> (e - u64::from(SUB_BITS))) & (SUB - 1);
    (EXACT + (e - 6) * SUB + mant) as usize
}

/// Lowest value and width of bucket `i`.
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT {
        return (i, 1);
    }
    let e = (i - EXACT) / SUB + 6;
    let mant = (i - EXACT) % SUB;
    let shift = e - u64::from(SUB_BITS);
    ((SUB + mant) << shift, 1 << shift)
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        self.n += 1;
        self.sum += u128::from(v);
    }

    /// Records `v` `times` times (for zeros counted in bulk).
    pub fn record_n(&mut self, v: u64, times: u64) {
        if times == 0 {
            return;
        }
        let b = bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += times;
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.n += times;
        self.sum += u128::from(v) * u128::from(times);
    }

    pub fn merge(&mut self, other: &Histogram) {
        if other.n == 0 {
            return;
        }
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.min = if self.n == 0 {
            other.min
        } else {
            self.min.min(other.min)
        };
        self.max = self.max.max(other.max);
        self.n += other.n;
        self.sum += other.sum;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn min(&self) -> u64 {
        self.min
    }

    pub fn sum(&self) -> u128 {
        self.sum
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// The value at quantile `q` (0..=1), within 1/64 relative error.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        // The extremes are known exactly.
        if rank == self.n {
            return self.max;
        }
        if rank == 1 {
            return self.min;
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, width) = bucket_range(i);
                return (lo + width / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// The counts in bins of equal shares of a power of two: `per_octave`
    /// bins (1, 2, 4 or 8) from each power of two to the next, the values
    /// below `per_octave` one bin each. The buckets are finer than that and
    /// aligned with it, so every count lands in its true bin. Only the bins
    /// from the lowest to the highest value recorded, empty ones included.
    pub fn bins(&self, per_octave: u32) -> Vec<Bin> {
        assert!(
            matches!(per_octave, 1 | 2 | 4 | 8),
            "per_octave: {per_octave}"
        );
        let step = u64::from(per_octave.trailing_zeros());
        // The bin holding `v`: its lowest value and width.
        let bin = |v: u64| -> (u64, u64) {
            if v < u64::from(per_octave) {
                return (v, 1);
            }
            let e = 63 - u64::from(v.leading_zeros());
            let width = 1u64 << e.saturating_sub(step);
            (v - (v - (1 << e)) % width, width)
        };
        let mut out: Vec<Bin> = Vec::new();
        if self.n == 0 {
            return out;
        }
        let mut lo = self.min;
        while lo <= self.max {
            let (start, width) = bin(lo);
            out.push(Bin {
                lo: start,
                hi: start.saturating_add(width),
                count: 0,
            });
            match start.checked_add(width) {
                Some(next) => lo = next,
                None => break,
            }
        }
        for (i, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            // A bucket lies inside one bin: its lowest value names the bin.
            let (start, _) = bin(bucket_range(i).0);
            if let Ok(at) = out.binary_search_by_key(&start, |b| b.lo) {
                out[at].count += c;
            }
        }
        out
    }

    pub fn distribution(&self) -> Distribution {
        Distribution {
            count: self.n,
            min: self.min,
            mean: (self.mean() * 10.0).round() / 10.0,
            p50: self.quantile(0.5),
            p95: self.quantile(0.95),
            max: self.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::default();
        for v in 0..=20 {
            h.record(v);
        }
        let d = h.distribution();
        assert_eq!((d.min, d.p50, d.p95, d.max), (0, 10, 19, 20));
        assert!((d.mean - 10.0).abs() < 1e-9);
    }

    #[test]
    fn large_values_stay_within_the_stated_error() {
        let mut h = Histogram::default();
        let values: Vec<u64> = (1..=100_000u64).map(|i| i * 37 + 1000).collect();
        for &v in &values {
            h.record(v);
        }
        for q in [0.5, 0.95, 0.99] {
            let exact = values[((q * values.len() as f64).ceil() as usize) - 1];
            let got = h.quantile(q);
            let err = (got as f64 - exact as f64).abs() / exact as f64;
            assert!(err <= 1.0 / 64.0, "q={q} exact={exact} got={got}");
        }
        assert_eq!(h.max(), *values.last().unwrap());
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let (mut a, mut b, mut all) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        for v in 0..5000u64 {
            let v = v * v % 100_003;
            if v % 3 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
            all.record(v);
        }
        a.merge(&b);
        assert_eq!(a, all);
    }

    #[test]
    fn bins_count_every_value_in_its_range() {
        let mut h = Histogram::default();
        let values: Vec<u64> = (0..3000u64).map(|i| (i * i) % 70_001 + 3).collect();
        for &v in &values {
            h.record(v);
        }
        for per_octave in [1, 2, 4, 8] {
            let bins = h.bins(per_octave);
            assert!(bins.first().unwrap().lo <= 3);
            assert!(bins.last().unwrap().hi > h.max());
            assert!(bins.windows(2).all(|w| w[0].hi == w[1].lo), "{bins:?}");
            for b in &bins {
                let exact = values.iter().filter(|&&v| b.lo <= v && v < b.hi).count();
                assert_eq!(b.count, exact as u64, "{b:?} at {per_octave} per octave");
            }
        }
        // 8 per power of two: 4096..8192 splits at every 512.
        assert!(h.bins(8).iter().any(|b| (b.lo, b.hi) == (4608, 5120)));
        assert!(Histogram::default().bins(8).is_empty());
    }

    #[test]
    fn bucket_ranges_cover_their_values() {
        for v in [0, 63, 64, 65, 100, 1 << 20, (1 << 20) + 12345, u64::MAX / 3] {
            let (lo, w) = bucket_range(bucket(v));
            assert!(lo <= v && v - lo < w, "{v}: [{lo}, +{w})");
        }
    }
}
