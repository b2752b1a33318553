//! Recent keys are popular, as YCSB's `SkewedLatestGenerator` (`requestdistribution=latest`).
//!
//! key = last − zipf(last), where `last` is the highest acknowledged insert;
//! the inner zipfian grows with the key space.

use super::zipfian::Zipfian;
use super::Rng;

/// Zipfian distance back from the latest key.
#[derive(Debug, Clone)]
pub struct SkewedLatest {
    zipfian: Zipfian,
}

impl SkewedLatest {
    /// A generator for a key space whose latest key is `last` (ζ(last) is computed once here).
    pub fn new(last: u64) -> Self {
        Self {
            zipfian: Zipfian::new(0, last.max(1) - 1),
        }
    }

    /// The next key given the current latest key `last`.
    #[inline]
    pub fn next_key(&mut self, rng: &mut Rng, last: u64) -> u64 {
        if last == 0 {
            return 0;
        }
        last - self.zipfian.next_long(rng, last)
    }
}
