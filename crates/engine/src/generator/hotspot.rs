//! A hot set and a cold set, as YCSB's `HotspotIntegerGenerator`.
//!
//! The first ⌊range × hot_data_fraction⌋ values get `hot_op_fraction` of the
//! draws; inside each set the choice is uniform.

use rand::Rng as _;

use super::{unit_f64, Generator, Rng};

/// Hot/cold split of `[lower, upper]`.
#[derive(Debug, Clone, Copy)]
pub struct Hotspot {
    lower: u64,
    hot_interval: u64,
    cold_interval: u64,
    hot_op_fraction: f64,
}

impl Hotspot {
    /// `hot_data_fraction` and `hot_op_fraction` are clamped to [0, 1] (YCSB does the same).
    pub fn new(lower: u64, upper: u64, hot_data_fraction: f64, hot_op_fraction: f64) -> Self {
        let (lower, upper) = (lower.min(upper), lower.max(upper));
        let data = hot_data_fraction.clamp(0.0, 1.0);
        let interval = upper - lower + 1;
        let hot_interval = (interval as f64 * data) as u64;
        Self {
            lower,
            hot_interval,
            cold_interval: interval - hot_interval,
            hot_op_fraction: hot_op_fraction.clamp(0.0, 1.0),
        }
    }

    /// The size of the hot set.
    pub fn hot_interval(&self) -> u64 {
        self.hot_interval
    }
}

impl Generator for Hotspot {
    #[inline]
    fn next_value(&mut self, rng: &mut Rng) -> u64 {
        let hot = unit_f64(rng) < self.hot_op_fraction;
        if (hot && self.hot_interval > 0) || self.cold_interval == 0 {
            self.lower + rng.random_range(0..self.hot_interval)
        } else {
            self.lower + self.hot_interval + rng.random_range(0..self.cold_interval)
        }
    }
}
