//! Exponentially distributed offsets, as YCSB's `ExponentialGenerator`.
//!
//! γ = −ln(1 − percentile/100) / range, so `percentile` % of the draws fall
//! below `range`. The workload subtracts the draw from the latest key.

use super::{unit_f64, Generator, Rng};

/// Exponential with rate γ.
#[derive(Debug, Clone, Copy)]
pub struct Exponential {
    gamma: f64,
}

impl Exponential {
    /// `percentile` % of the draws fall below `range`.
    pub fn new(percentile: f64, range: f64) -> Self {
        Self {
            gamma: -(1.0 - percentile / 100.0).ln() / range,
        }
    }

    /// The rate γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Generator for Exponential {
    #[inline]
    fn next_value(&mut self, rng: &mut Rng) -> u64 {
        // `as` saturates: ln(0) gives u64::MAX, which the caller rejects and redraws.
        (-unit_f64(rng).ln() / self.gamma) as u64
    }
}
