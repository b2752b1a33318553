//! Field names and values: `field0..fieldN`, values of random printable ASCII
//! whose length comes from `fieldlengthdistribution`.

use rand::RngCore as _;

use super::properties::{CoreConfig, LengthDistribution};
use crate::generator::{Constant, Generator, Rng, Uniform, Zipfian};

/// A length generator (field lengths, scan lengths).
#[derive(Debug, Clone)]
pub enum LengthGenerator {
    Constant(Constant),
    Uniform(Uniform),
    Zipfian(Zipfian),
}

impl LengthGenerator {
    /// The generator for `distribution` over `[min, max]` (constant: always `max`).
    pub fn new(distribution: LengthDistribution, min: u64, max: u64) -> Self {
        match distribution {
            LengthDistribution::Constant => Self::Constant(Constant::new(max)),
            LengthDistribution::Uniform => Self::Uniform(Uniform::new(min, max)),
            LengthDistribution::Zipfian => Self::Zipfian(Zipfian::new(min, max)),
        }
    }

    /// The next length.
    #[inline]
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        match self {
            Self::Constant(g) => g.next_value(rng),
            Self::Uniform(g) => g.next_value(rng),
            Self::Zipfian(g) => g.next_value(rng),
        }
    }
}

/// The field names of a record: `{prefix}0 .. {prefix}{fieldcount-1}`.
pub fn field_names(config: &CoreConfig) -> Vec<String> {
    (0..config.field_count)
        .map(|i| format!("{}{i}", config.field_name_prefix))
        .collect()
}

/// Fills `buf` with `len` random printable ASCII bytes (32–126).
///
/// Hand-rolled for the hot path: four characters per 64-bit draw, each from 16
/// random bits scaled onto 95 values (bias below 0.2%), instead of one
/// range-checked draw per byte.
#[inline]
pub fn fill_printable(rng: &mut Rng, buf: &mut Vec<u8>, len: usize) {
    buf.clear();
    buf.reserve(len);
    let mut remaining = len;
    while remaining > 0 {
        let mut bits = rng.next_u64();
        for _ in 0..remaining.min(4) {
            let char16 = (bits & 0xffff) as u32;
            buf.push(32 + ((char16 * 95) >> 16) as u8);
            bits >>= 16;
        }
        remaining = remaining.saturating_sub(4);
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng as _;

    use super::*;

    #[test]
    fn values_are_printable_and_sized() {
        let mut rng = Rng::seed_from_u64(1);
        let mut buf = Vec::new();
        for len in [0usize, 1, 3, 4, 5, 100] {
            fill_printable(&mut rng, &mut buf, len);
            assert_eq!(buf.len(), len);
            assert!(buf.iter().all(|b| (32..=126).contains(b)));
        }
        fill_printable(&mut rng, &mut buf, 100_000);
        assert!(
            buf.contains(&b' ') && buf.contains(&b'~'),
            "both ends of the range occur"
        );
    }
}
