//! Value fingerprints and a consistent hash sample of them: how `scan` matches
//! references to keys across collections in bounded memory.
//!
//! Every candidate key or reference value (an ObjectId, a string up to
//! `MAX_STRING_KEY` bytes, an integral number of any type) becomes a 64-bit fingerprint of its type
//! class and bytes. A `Sample` keeps all fingerprints up to its cap (exact), then
//! keeps only those below a threshold that halves each time the cap is reached.
//! Because the decision depends on the value alone, a value is kept everywhere or
//! nowhere: matching two samples below the lower of their thresholds is an
//! unbiased estimate of the match share, and each kept parent keeps *all* its
//! references, so children-per-parent counts stay exact for the sampled parents.
//! This replaces a Bloom filter (which would add false positives) and a
//! HyperLogLog (distinct values = distinct sampled / sampling rate).

use crate::inputs::bson::Scalar;
use std::hash::Hasher;

/// Longer strings are not treated as keys or references.
pub const MAX_STRING_KEY: usize = 64;

/// Type class tags: numbers of any type match each other by value, as the
/// server matches them (an int `_id` 3 is found by a double 3.0).
const OID: u8 = 1;
const STR: u8 = 2;
const INT: u8 = 3;

/// The fingerprint of a value that could be a key or a reference, if it could.
#[inline]
pub fn of(value: &Scalar<'_>) -> Option<u64> {
    let mut h = rustc_hash::FxHasher::default();
    match value {
        Scalar::ObjectId(b) => {
            h.write_u8(OID);
            h.write(&b[..]);
        }
        Scalar::String(s) if !s.is_empty() && s.len() <= MAX_STRING_KEY => {
            h.write_u8(STR);
            h.write(s.as_bytes());
        }
        Scalar::Int32(_) | Scalar::Int64(_) | Scalar::Double(_) | Scalar::Decimal128(_) => {
            h.write_u8(INT);
            h.write_i64(value.integral_value()?);
        }
        _ => return None,
    }
    Some(mix(h.finish()))
}

/// A finalizer (murmur3's fmix64) so the high bits are uniform for sampling.
#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A multiset of fingerprints: exact up to `cap`, then a consistent sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    threshold: u64,
    values: Vec<u64>,
    /// Whether `values` is sorted: `sort` does it once after the last push
    /// and merge, so the analysis reads sorted values without copying them.
    sorted: bool,
    cap: usize,
    /// Every value offered, kept or not.
    pub offered: u64,
}

impl Sample {
    pub fn new(cap: usize) -> Self {
        Sample {
            threshold: u64::MAX,
            values: Vec::new(),
            sorted: true,
            cap: cap.max(16),
            offered: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, fp: u64) {
        self.offered += 1;
        if fp <= self.threshold {
            self.values.push(fp);
            self.sorted = false;
            if self.values.len() > self.cap {
                self.shrink();
            }
        }
    }

    /// Takes back one `push` of `fp` (a rejected document's). A shrink that
    /// push caused stays: the sample is then a consistent sample at a lower rate.
    pub fn unpush(&mut self, fp: u64) {
        self.offered = self.offered.saturating_sub(1);
        if fp <= self.threshold
            && let Some(at) = self.values.iter().rposition(|&v| v == fp)
        {
            self.values.swap_remove(at);
            self.sorted = false;
        }
    }

    fn shrink(&mut self) {
        while self.values.len() > self.cap && self.threshold > 0 {
            self.threshold >>= 1;
            let t = self.threshold;
            self.values.retain(|&v| v <= t);
        }
    }

    pub fn merge(&mut self, other: &Sample) {
        self.offered += other.offered;
        let t = self.threshold.min(other.threshold);
        self.threshold = t;
        self.values.retain(|&v| v <= t);
        self.values
            .extend(other.values.iter().copied().filter(|&v| v <= t));
        self.sorted = false;
        self.cap = self.cap.max(other.cap);
        self.shrink();
    }

    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Share of all possible fingerprints kept (1.0 while exact).
    pub fn rate(&self) -> f64 {
        if self.threshold == u64::MAX {
            1.0
        } else {
            (self.threshold as f64 + 1.0) / 18_446_744_073_709_551_616.0
        }
    }

    pub fn is_exact(&self) -> bool {
        self.threshold == u64::MAX
    }

    /// Sorts the kept values (once: later reads use them in place).
    pub fn sort(&mut self) {
        if !self.sorted {
            self.values.sort_unstable();
            self.sorted = true;
        }
    }

    /// The kept values, sorted (borrowed once `sort` has run).
    fn sorted_values(&self) -> std::borrow::Cow<'_, [u64]> {
        if self.sorted {
            std::borrow::Cow::Borrowed(&self.values)
        } else {
            let mut v = self.values.clone();
            v.sort_unstable();
            std::borrow::Cow::Owned(v)
        }
    }

    /// The kept fingerprints at or below `t`, sorted.
    pub fn sorted_below(&self, t: u64) -> std::borrow::Cow<'_, [u64]> {
        let mut v = self.sorted_values();
        let n = v.partition_point(|&x| x <= t);
        match &mut v {
            std::borrow::Cow::Borrowed(s) => *s = &s[..n],
            std::borrow::Cow::Owned(o) => o.truncate(n),
        }
        v
    }

    pub fn kept(&self) -> usize {
        self.values.len()
    }

    /// Distinct kept values.
    fn distinct_kept(&self) -> usize {
        let v = self.sorted_values();
        v.chunk_by(|a, b| a == b).count()
    }

    /// Estimated number of distinct values offered.
    pub fn distinct_estimate(&self) -> u64 {
        (self.distinct_kept() as f64 / self.rate()).round() as u64
    }

    /// Distinct kept values over kept values (1.0 for a unique key).
    pub fn distinct_share(&self) -> f64 {
        if self.values.is_empty() {
            return 0.0;
        }
        self.distinct_kept() as f64 / self.values.len() as f64
    }

    /// Whether no kept value repeats (a unique key, as far as the sample shows).
    pub fn all_distinct(&self) -> bool {
        self.distinct_kept() == self.values.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::bson::Text;

    fn fp(i: i64) -> u64 {
        of(&Scalar::Int64(i)).unwrap()
    }

    #[test]
    fn integers_of_any_width_match_and_types_do_not() {
        assert_eq!(of(&Scalar::Int32(7)), of(&Scalar::Int64(7)));
        assert_ne!(of(&Scalar::Int32(7)), of(&Scalar::String("7".into())));
        // Issue 46: a double or decimal reference equals an int key by value.
        assert_eq!(of(&Scalar::Double(7.0)), of(&Scalar::Int32(7)));
        let seven = crate::inputs::ejson::decimal::parse("7.0").unwrap();
        assert_eq!(of(&Scalar::Decimal128(&seven)), of(&Scalar::Int64(7)));
        assert_eq!(of(&Scalar::Double(7.5)), None);
        assert_eq!(
            of(&Scalar::String(Text::from("x".repeat(65).as_str()))),
            None
        );
    }

    #[test]
    fn exact_below_the_cap_then_a_consistent_sample() {
        let mut s = Sample::new(1000);
        for i in 0..500 {
            s.push(fp(i));
        }
        assert!(s.is_exact());
        assert_eq!(s.distinct_estimate(), 500);
        for i in 500..100_000 {
            s.push(fp(i));
        }
        assert!(!s.is_exact());
        assert!(s.kept() <= 1000);
        let est = s.distinct_estimate() as f64;
        assert!((est - 100_000.0).abs() / 100_000.0 < 0.15, "{est}");
    }

    #[test]
    fn a_kept_value_keeps_all_its_repeats_and_merges_agree() {
        let (mut a, mut b) = (Sample::new(64), Sample::new(64));
        for i in 0..10_000 {
            a.push(fp(i % 2000));
            b.push(fp(i % 2000));
        }
        a.merge(&b);
        let kept = a.sorted_below(a.threshold());
        // Every kept value was offered 10 times (5 in each half).
        for w in kept.chunk_by(|x, y| x == y) {
            assert_eq!(w.len(), 10);
        }
        assert!(!a.all_distinct());
    }
}
