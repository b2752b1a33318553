//! Uniform integers over an inclusive range, as YCSB's `UniformLongGenerator`.

use rand::Rng as _;

use super::{Generator, Rng};

/// Uniform over `[lower, upper]`.
#[derive(Debug, Clone, Copy)]
pub struct Uniform {
    lower: u64,
    upper: u64,
}

impl Uniform {
    /// Uniform over `[lower, upper]`; the bounds are swapped if given in reverse.
    pub fn new(lower: u64, upper: u64) -> Self {
        Self {
            lower: lower.min(upper),
            upper: lower.max(upper),
        }
    }
}

impl Generator for Uniform {
    #[inline]
    fn next_value(&mut self, rng: &mut Rng) -> u64 {
        rng.random_range(self.lower..=self.upper)
    }
}
