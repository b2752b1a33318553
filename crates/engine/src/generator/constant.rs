//! A generator that always returns the same value (`fieldlengthdistribution=constant`).

use super::{Generator, Rng};

/// Always `value`.
#[derive(Debug, Clone, Copy)]
pub struct Constant {
    value: u64,
}

impl Constant {
    /// A generator of `value`.
    pub fn new(value: u64) -> Self {
        Self { value }
    }
}

impl Generator for Constant {
    #[inline]
    fn next_value(&mut self, _rng: &mut Rng) -> u64 {
        self.value
    }
}
