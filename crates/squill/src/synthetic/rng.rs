//! The pseudo-random streams every generated value is drawn from: pure
//! functions of the seed and a path of numbers, so any value can be drawn
//! again on its own, in any order, on any thread.

/// SplitMix64: a tiny, good-enough mixer for reproducible pseudo-random values.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// FNV-1a of a name, to key random streams by field and relationship names.
pub fn name_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A reproducible random stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(parts: &[u64]) -> Self {
        Self::resume(0x5151_1a11, parts)
    }

    /// The state `Rng::new(parts)` starts in, for streams whose leading parts
    /// are the same for every value: mixed once, then `resume`d per value.
    pub fn prefix(parts: &[u64]) -> u64 {
        Self::new(parts).0
    }

    /// `Rng::new` of the prefix's parts followed by `parts`.
    pub fn resume(prefix: u64, parts: &[u64]) -> Self {
        Rng(parts.iter().fold(prefix, |h, p| mix(h ^ p)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
