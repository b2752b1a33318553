//! Key names, as YCSB builds them: `user` + the decimal key number, hashed with
//! FNV-64 unless `insertorder=ordered`, left-padded with zeros to `zeropadding` digits.

use crate::generator::fnv_hash64;

/// Turns key numbers into key names.
#[derive(Debug, Clone, Copy)]
pub struct KeyNamer {
    ordered: bool,
    zero_padding: usize,
}

/// YCSB's key prefix.
pub const KEY_PREFIX: &str = "user";

impl KeyNamer {
    /// A namer for `insertorder` (ordered or hashed) and `zeropadding`.
    pub fn new(ordered: bool, zero_padding: usize) -> Self {
        Self {
            ordered,
            zero_padding,
        }
    }

    /// Writes the name of `keynum` into `buf` (cleared first; no allocation once
    /// `buf` has grown, which matters on the hot path).
    #[inline]
    pub fn write(&self, keynum: u64, buf: &mut String) {
        let mut digits = itoa::Buffer::new();
        let text = if self.ordered {
            digits.format(keynum)
        } else {
            digits.format(fnv_hash64(keynum))
        };
        buf.clear();
        buf.push_str(KEY_PREFIX);
        for _ in text.len()..self.zero_padding {
            buf.push('0');
        }
        buf.push_str(text);
    }

    /// The name of `keynum` as a new string.
    pub fn name(&self, keynum: u64) -> String {
        let mut s = String::new();
        self.write(keynum, &mut s);
        s
    }
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
}
