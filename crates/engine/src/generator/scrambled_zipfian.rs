//! Zipfian popularity spread over the key space, as YCSB's `ScrambledZipfianGenerator`
//! (what `requestdistribution=zipfian` means in YCSB).
//!
//! An inner zipfian draws a rank over 10^10 items (ζ precomputed, θ = 0.99);
//! the key is `min + FNV64(rank) mod item_count`, so popular keys are scattered
//! instead of clustered at the start of the range.

use super::zipfian::{Zipfian, ZIPFIAN_CONSTANT};
use super::{fnv_hash64, Generator, Rng};

/// Items of the inner zipfian.
pub const ITEM_COUNT: u64 = 10_000_000_000;
/// ζ(10^10, 0.99), as YCSB hard-codes it.
pub const ZETAN: f64 = 26.469_028_201_783_02;

/// Scrambled zipfian over `[min, max]`.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    min: u64,
    item_count: u64,
    inner: Zipfian,
}

impl ScrambledZipfian {
    /// Scrambled zipfian over `[min, max]`.
    pub fn new(min: u64, max: u64) -> Self {
        let (min, max) = (min.min(max), min.max(max));
        Self {
            min,
            item_count: max - min + 1,
            inner: Zipfian::with_zeta(0, ITEM_COUNT, ZIPFIAN_CONSTANT, ZETAN),
        }
    }
}

impl Generator for ScrambledZipfian {
    #[inline]
    fn next_value(&mut self, rng: &mut Rng) -> u64 {
        let rank = self.inner.next_value(rng);
        self.min + (fnv_hash64(rank).rem_euclid(self.item_count as i64) as u64)
    }
}
