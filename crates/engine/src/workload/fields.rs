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
/// Hand-rolled for the hot path (values are most of an update's cost): each
/// 64-bit draw gives eight characters at once. The bytes are split into two
/// sets of four 16-bit lanes, each lane multiplied by 95 and shifted down a
/// byte (so it lands in [0, 95) without touching its neighbours), then the
/// sets are merged and 32 added to every byte. Each character takes 2 or 3 of
/// the 256 byte values (like YCSB's own generator, not exactly uniform).
///
/// Three details keep it cheap: `buf` is only resized (not cleared first), so a
/// buffer reused at the same length is not zeroed before every fill; the RNG
/// runs on a local copy written back once at the end, since byte stores into
/// `buf` may alias `*rng` for the compiler, which would otherwise store the RNG
/// state back and reload it after every chunk; and the last `len % 8` bytes
/// are stored one by one from a shifted word rather than copied as a slice, as
/// a copy of variable length becomes a call to libc's `memcpy` (musl's costs
/// tens of cycles on a few bytes).
#[inline]
pub fn fill_printable(rng: &mut Rng, buf: &mut Vec<u8>, len: usize) {
    buf.resize(len, 0);
    let mut local = rng.clone();
    let mut chunks = buf.chunks_exact_mut(8);
    for chunk in &mut chunks {
        chunk.copy_from_slice(&printable8(local.next_u64()).to_le_bytes());
    }
    // Drawn even when no byte is left, as the engine always did: a seed keeps
    // giving the same values.
    let mut last = printable8(local.next_u64());
    for byte in chunks.into_remainder() {
        *byte = last as u8;
        last >>= 8;
    }
    *rng = local;
}

/// Fills `buf` with the value `dataintegrity` expects for `key`'s field `field`: the
/// text `key:field`, then repeatedly `:` and the decimal Java `String.hashCode` of all
/// the text so far, cut to `len` bytes (YCSB's construction, so data loaded by either
/// tool verifies in the other). Values are printable ASCII.
pub fn fill_deterministic(key: &str, field: &str, buf: &mut Vec<u8>, len: usize) {
    buf.clear();
    buf.extend_from_slice(key.as_bytes());
    buf.push(b':');
    buf.extend_from_slice(field.as_bytes());
    // The hash of everything so far, extended as bytes are appended (h = 31h + b).
    let mut hash = buf
        .iter()
        .fold(0i32, |h, &b| h.wrapping_mul(31).wrapping_add(i32::from(b)));
    let mut digits = itoa::Buffer::new();
    while buf.len() < len {
        let text = digits.format(hash);
        let start = buf.len();
        buf.push(b':');
        buf.extend_from_slice(text.as_bytes());
        hash = buf[start..]
            .iter()
            .fold(hash, |h, &b| h.wrapping_mul(31).wrapping_add(i32::from(b)));
    }
    buf.truncate(len);
}

/// Eight random bytes onto eight printable characters, the first in the lowest
/// byte (see `fill_printable`).
#[inline(always)]
fn printable8(bits: u64) -> u64 {
    const LOW_BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    let even = (((bits & LOW_BYTES) * 95) >> 8) & LOW_BYTES;
    let odd = ((((bits >> 8) & LOW_BYTES) * 95) >> 8) & LOW_BYTES;
    (even | (odd << 8)).wrapping_add(0x2020_2020_2020_2020)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng as _;

    use super::*;

    #[test]
    fn deterministic_values_follow_the_hash_chain() {
        let mut buf = Vec::new();
        fill_deterministic("user1", "field0", &mut buf, 40);
        // "user1:field0".hashCode() is 1621652138 in Java; the next link hashes the
        // whole text so far, so only the first link is checked by hand here.
        assert_eq!(&buf[..23], b"user1:field0:1621652138");
        assert_eq!(buf.len(), 40);
        let mut again = Vec::new();
        fill_deterministic("user1", "field0", &mut again, 40);
        assert_eq!(buf, again);
        fill_deterministic("user1", "field0", &mut again, 5);
        assert_eq!(again, b"user1");
    }

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

    /// The construction of `fill_printable` byte by byte: one draw per started
    /// group of eight bytes, plus one more when `len` is a multiple of 8, each
    /// byte `b` of a draw becoming `32 + b * 95 / 256`, the lowest byte first.
    fn reference_fill(rng: &mut Rng, len: usize) -> Vec<u8> {
        let mut value = Vec::with_capacity(len);
        for _ in 0..len / 8 + 1 {
            for b in rng.next_u64().to_le_bytes() {
                value.push(32 + (u32::from(b) * 95 / 256) as u8);
            }
        }
        value.truncate(len);
        value
    }

    #[test]
    fn values_equal_the_construction_and_cover_all_95_characters() {
        let (mut rng, mut expected_rng) = (Rng::seed_from_u64(3), Rng::seed_from_u64(3));
        let mut buf = b"stale".to_vec();
        let mut seen = [false; 128];
        for len in (0..=40).chain([100, 1000, 99, 0, 7]) {
            fill_printable(&mut rng, &mut buf, len);
            assert_eq!(buf, reference_fill(&mut expected_rng, len), "len {len}");
            buf.iter().for_each(|&b| seen[usize::from(b)] = true);
        }
        let missing: Vec<u8> = (32u8..=126).filter(|&c| !seen[usize::from(c)]).collect();
        assert!(missing.is_empty(), "never produced: {missing:?}");
        assert!(seen[..32].iter().chain(&seen[127..]).all(|s| !s));
    }

    #[test]
    fn refills_of_a_reused_buffer_vary_and_advance_the_rng() {
        let mut rng = Rng::seed_from_u64(7);
        let mut buf = Vec::new();
        fill_printable(&mut rng, &mut buf, 100);
        let first = buf.clone();
        // Same length again: the buffer is reused without clearing, so the new
        // value must come from fresh draws, not from what was left in it.
        fill_printable(&mut rng, &mut buf, 100);
        assert_eq!(buf.len(), 100);
        assert!(buf.iter().all(|b| (32..=126).contains(b)));
        assert_ne!(buf, first, "the RNG state is written back between fills");
        // Shrinking and growing keep the length exact and the bytes printable.
        fill_printable(&mut rng, &mut buf, 13);
        assert_eq!(buf.len(), 13);
        fill_printable(&mut rng, &mut buf, 250);
        assert_eq!(buf.len(), 250);
        assert!(buf.iter().all(|b| (32..=126).contains(b)));
        // 13 of 100 bytes repeating at the same place would mean stale content.
        let same = buf[..100]
            .iter()
            .zip(&first)
            .filter(|(a, b)| a == b)
            .count();
        assert!(
            same < 13,
            "{same} of 100 bytes unchanged from an earlier fill"
        );
    }
}
