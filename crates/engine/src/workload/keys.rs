//! Key names, as YCSB builds them: `user` + the decimal key number, hashed with
//! FNV-64 unless `insertorder=ordered`, left-padded with zeros to `zeropadding` digits.
//!
//! A name is made for every operation, so it is written in place into a
//! `KeyName`, with no call to libc: names are mostly 5–24 bytes, and on copies
//! that short the static musl build's `memcpy` (`rep movsq`, then byte moves)
//! cost more than making the name (the engine spent ~17 ns per operation in it,
//! 17% of its time on the `null` target). Every store on that path has a size
//! known at compile time, which the compiler turns into plain register moves.

use std::ops::Deref;

use crate::generator::fnv_hash64;

/// YCSB's key prefix.
pub const KEY_PREFIX: &str = "user";

/// Digits a `KeyName` always renders: 20 would hold `u64::MAX`; 24 is three
/// words of eight (the first starts with at least four zeros).
const RENDERED_DIGITS: usize = 24;

/// Turns key numbers into key names.
#[derive(Debug, Clone, Copy)]
pub struct KeyNamer {
    ordered: bool,
    zero_padding: usize,
}

impl KeyNamer {
    /// A namer for `insertorder` (ordered or hashed) and `zeropadding`.
    pub fn new(ordered: bool, zero_padding: usize) -> Self {
        Self {
            ordered,
            zero_padding,
        }
    }

    /// A buffer for this namer's names, to pass to `write` again and again.
    pub fn new_name(&self) -> KeyName {
        let len = KEY_PREFIX.len() + self.zero_padding.max(RENDERED_DIGITS);
        KeyName {
            bytes: vec![b'0'; len].into_boxed_slice(),
            start: len,
        }
    }

    /// Makes `name` the name of `keynum` (no allocation: on the hot path). `name`
    /// comes from this namer's `new_name`.
    #[inline]
    pub fn write(&self, keynum: u64, name: &mut KeyName) {
        let number = if self.ordered {
            keynum
        } else {
            // The hash is |h| as Java computes it, so i64::MIN stays negative.
            let hash = fnv_hash64(keynum);
            match u64::try_from(hash) {
                Ok(hash) => hash,
                Err(_) => return name.set_cold(&self.format(&hash.to_string())),
            }
        };
        name.set(number, self.zero_padding);
    }

    /// The name of `keynum` as a new string.
    pub fn name(&self, keynum: u64) -> String {
        let mut name = self.new_name();
        self.write(keynum, &mut name);
        name.as_str().to_owned()
    }

    /// YCSB's construction, for the rare name `write` does not make itself: the
    /// prefix, zeros up to `zero_padding` characters, then `number` (Java's
    /// `Long.toString`, so a negative hash keeps its sign after the zeros).
    #[cold]
    fn format(&self, number: &str) -> String {
        let zeros = self.zero_padding.saturating_sub(number.len());
        format!("{KEY_PREFIX}{}{number}", "0".repeat(zeros))
    }
}

/// A key name that `KeyNamer::write` rewrites in place; reads as a `&str`.
///
/// The name sits right-aligned at the end of `bytes`, so the digits always go to
/// the same place and only the start moves with the name's length: the last
/// `RENDERED_DIGITS` bytes hold the number with leading zeros, the prefix is
/// stored just before its last `max(digits, zeropadding)` of them, and any
/// padding beyond `RENDERED_DIGITS` is the zeros `bytes` was created with.
#[derive(Debug, Clone)]
pub struct KeyName {
    /// ASCII only (zeros, digits, the prefix, a minus sign), so `as_str` is valid.
    bytes: Box<[u8]>,
    /// Where the name starts in `bytes`.
    start: usize,
}

impl KeyName {
    /// The name.
    #[inline]
    pub fn as_str(&self) -> &str {
        // SAFETY: `bytes` holds only ASCII (see the field), so any slice of it is UTF-8.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[self.start..]) }
    }

    /// Writes `user` + `number` with leading zeros to `zero_padding` digits.
    #[inline]
    fn set(&mut self, number: u64, zero_padding: usize) {
        let len = self.bytes.len();
        let digits = &mut self.bytes[len - RENDERED_DIGITS..];
        digits[..8].copy_from_slice(&eight_digits(number / 10u64.pow(16)));
        digits[8..16].copy_from_slice(&eight_digits(number / 10u64.pow(8) % 10u64.pow(8)));
        digits[16..].copy_from_slice(&eight_digits(number % 10u64.pow(8)));
        let significant = number.checked_ilog10().map_or(1, |log| log as usize + 1);
        let start = len - significant.max(zero_padding) - KEY_PREFIX.len();
        self.bytes[start..start + KEY_PREFIX.len()].copy_from_slice(KEY_PREFIX.as_bytes());
        self.start = start;
    }

    /// Stores a name made elsewhere, right-aligned. Its zeros and digits fall where
    /// `set` keeps them, so `set` stays correct after it.
    #[cold]
    fn set_cold(&mut self, name: &str) {
        let start = self.bytes.len() - name.len();
        self.bytes[start..].copy_from_slice(name.as_bytes());
        self.start = start;
    }
}

impl Deref for KeyName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// The eight decimal digits of `n` (< 10^8, leading zeros included), most
/// significant first.
///
/// Arithmetic on all the digits at once in one 64-bit word (no table, no loop):
/// the number is split into lanes, and each lane divided with a multiply and a
/// shift that is exact for the lane's range. Step by step, `n = 12345678`:
/// - two 32-bit lanes: 1234 (low lane, stored first) and 5678;
/// - each lane / 100 as `× 10486 >> 20` (exact below 10^4; products fit in 32
///   bits), masked to 7 bits per lane: 12 and 56; the remainders are 34 and 78.
///   Quotients and remainders interleaved as 16-bit lanes: 12, 34, 56, 78;
/// - each 16-bit lane / 10 as `× 103 >> 10` (exact below 100; products fit in
///   16 bits), masked to 4 bits: tens 1, 3, 5, 7, ones 2, 4, 6, 8; the ones
///   shifted one byte up give one digit per byte: 1 2 3 4 5 6 7 8;
/// - plus `'0'` in every byte, and out as little-endian bytes (lowest first).
#[inline(always)]
fn eight_digits(n: u64) -> [u8; 8] {
    debug_assert!(n < 10u64.pow(8));
    let fours = (n / 10_000) | ((n % 10_000) << 32);
    let hundreds = ((fours * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let twos = hundreds | ((fours - 100 * hundreds) << 16);
    let tens = ((twos * 103) >> 10) & 0x000f_000f_000f_000f;
    let ones = twos - 10 * tens;
    (tens | (ones << 8) | 0x3030_3030_3030_3030).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_match_ycsb_vectors() {
        let k = KeyNamer::new(false, 1);
        assert_eq!(k.name(0), "user6284781860667377211");
        assert_eq!(k.name(1), "user8517097267634966620");
        assert_eq!(k.name(2), "user1820151046732198393");
        assert_eq!(k.name(1000), "user5952875239596136740");
    }

    #[test]
    fn ordered_names_are_padded() {
        assert_eq!(KeyNamer::new(true, 1).name(42), "user42");
        assert_eq!(KeyNamer::new(true, 6).name(42), "user000042");
        assert_eq!(KeyNamer::new(true, 2).name(12345), "user12345");
    }

    /// YCSB's construction spelled out with `format!`: the prefix, then the number's
    /// decimal text right-aligned in `padding` columns filled with zeros.
    fn reference(number: &str, padding: usize) -> String {
        format!("{KEY_PREFIX}{number:0>padding$}")
    }

    /// Key numbers around every power of ten, both ends of the range, and a block
    /// of small ones.
    fn sample_numbers() -> Vec<u64> {
        let mut numbers: Vec<u64> = (0..2_000).collect();
        for exp in 1..=19 {
            let power = 10u64.pow(exp);
            numbers.extend([power - 1, power, power + 1, power + power / 3]);
        }
        numbers.extend([u64::MAX - 1, u64::MAX, i64::MAX as u64, 1 << 63]);
        numbers
    }

    #[test]
    fn names_equal_the_formatted_ones_for_every_padding() {
        for padding in [0, 1, 2, 5, 18, 19, 20, 21, 23, 24, 25, 30] {
            let ordered = KeyNamer::new(true, padding);
            let hashed = KeyNamer::new(false, padding);
            // One buffer each throughout, so every name is written over a longer
            // or a shorter one.
            let (mut a, mut b) = (ordered.new_name(), hashed.new_name());
            for n in sample_numbers() {
                ordered.write(n, &mut a);
                assert_eq!(&*a, reference(&n.to_string(), padding), "ordered {n}");
                hashed.write(n, &mut b);
                let hash = fnv_hash64(n).to_string();
                assert_eq!(&*b, reference(&hash, padding), "hashed {n}");
            }
        }
    }

    #[test]
    fn a_negative_hash_keeps_its_sign_after_the_zeros_and_names_after_it_are_right() {
        // |i64::MIN| is i64::MIN in Java; YCSB then pads "-9223372036854775808".
        for padding in [1, 20, 21, 25, 30] {
            let namer = KeyNamer::new(false, padding);
            let text = i64::MIN.to_string();
            let mut name = namer.new_name();
            name.set_cold(&namer.format(&text));
            assert_eq!(&*name, reference(&text, padding));
            for n in [0, 1, 1000] {
                namer.write(n, &mut name);
                assert_eq!(&*name, reference(&fnv_hash64(n).to_string(), padding));
            }
        }
        assert_eq!(
            KeyNamer::new(false, 25).format("-9223372036854775808"),
            "user00000-9223372036854775808"
        );
    }

    #[test]
    fn eight_digits_of_every_four_digit_half() {
        // The two halves go through the same lane arithmetic independently: each
        // value of 0..10^4 in both halves at once covers every case.
        let numbers = (0..10_000).map(|half| half * 10_001);
        for n in numbers.chain([1, 9, 10, 99, 100, 10u64.pow(8) - 1]) {
            assert_eq!(&eight_digits(n), format!("{n:08}").as_bytes(), "{n}");
        }
    }
}
