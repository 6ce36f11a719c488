//! Latency percentiles in fixed memory: the first 256 samples exactly, then
//! buckets: one per millisecond below 64, 3 % wide above (so p50 and p95 are
//! within 3 % of the truth). The maximum is always exact.

const EXACT: u64 = 64;
/// Samples kept as they are before the buckets take over.
const SAMPLES: usize = 256;
const GROWTH: f64 = 1.03;
/// 64 ms × 1.03^600 ≈ 3.1 × 10^9 ms: longer than any operation runs.
const BUCKETS: usize = EXACT as usize + 600;

#[derive(Debug, Clone, Default)]
pub struct Sketch {
    samples: Vec<u64>,
    counts: Vec<u64>,
    n: u64,
    max: u64,
}

fn bucket(ms: u64) -> usize {
    if ms < EXACT {
        return ms as usize;
    }
    let above = ((ms as f64) / (EXACT as f64)).ln() / GROWTH.ln();
    (EXACT as usize + above as usize).min(BUCKETS - 1)
}

/// The value a bucket stands for: its own for exact buckets, the middle of
/// its range above.
fn value(b: usize) -> u64 {
    if (b as u64) < EXACT {
        return b as u64;
    }
    let low = EXACT as f64 * GROWTH.powi((b - EXACT as usize) as i32);
    (low * (1.0 + GROWTH) / 2.0).round() as u64
}

impl Sketch {
    pub fn add(&mut self, ms: u64) {
        self.n += 1;
        self.max = self.max.max(ms);
        if self.counts.is_empty() && self.samples.len() < SAMPLES {
            self.samples.push(ms);
            return;
        }
        for v in std::mem::take(&mut self.samples) {
            self.count(v);
        }
        self.count(ms);
    }

    fn count(&mut self, ms: u64) {
        let b = bucket(ms);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
    }

    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The `q` quantile (0–1): the smallest value with at least `q` of the
    /// samples at or below it.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        if !self.samples.is_empty() {
            let mut sorted = self.samples.clone();
            sorted.sort_unstable();
            return sorted.get(rank as usize - 1).copied();
        }
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(value(b).min(self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_below_64_and_within_3_percent_above() {
        let mut s = Sketch::default();
        for ms in 1..=100 {
            s.add(ms);
        }
        assert_eq!((s.quantile(0.5), s.quantile(0.95)), (Some(50), Some(95)));
        for ms in 101..=1000 {
            s.add(ms);
        }
        assert_eq!(s.quantile(0.01), Some(10));
        let p95 = s.quantile(0.95).unwrap() as f64;
        assert!((p95 - 950.0).abs() / 950.0 <= 0.03, "{p95}");
        assert_eq!(s.max(), Some(1000));
        let mut big = Sketch::default();
        big.add(u64::MAX);
        big.add(369_525);
        assert_eq!(big.max(), Some(u64::MAX));
        let p50 = big.quantile(0.5).unwrap() as f64;
        assert!((p50 - 369_525.0).abs() / 369_525.0 <= 0.03, "{p50}");
        assert_eq!(Sketch::default().quantile(0.5), None);
    }
}
