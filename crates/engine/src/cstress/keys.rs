//! What a partition holds, as a function of its seed: the key and every column value.
//!
//! As in cassandra-stress, nothing about the data is stored on the client: a writer
//! and any later reader compute the same bytes from the seed, so a read checks the
//! row it gets against the row that was written. The key is 10 bytes of the
//! characters `0`-`9` and `K`-`P` (the look of the real tool's keys), a bijection
//! of the seed's low 40 bits, so distinct seeds below 2^40 never share a key; the
//! column values are pseudo-random bytes of the seed and the column's number.

/// The key's length in bytes (cassandra-stress's default key size).
pub const KEY_SIZE: usize = 10;
/// Seeds must be below this: the key encodes 40 bits.
pub const SEED_LIMIT: u64 = 1 << 40;
const MASK: u64 = SEED_LIMIT - 1;

/// The shape of a row: `-col n=FIXED(columns) size=FIXED(column_size)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub columns: usize,
    pub column_size: usize,
}

impl Default for Layout {
    /// cassandra-stress's default: five columns of 34 bytes.
    fn default() -> Self {
        Self {
            columns: 5,
            column_size: 34,
        }
    }
}

impl Layout {
    /// The column names, `C0`, `C1`, … as the real tool names them.
    pub fn column_names(&self) -> Vec<String> {
        (0..self.columns).map(|c| format!("C{c}")).collect()
    }

    /// Bytes a row holds (key and values), without the server's overhead.
    pub fn row_bytes(&self) -> usize {
        KEY_SIZE + self.columns * self.column_size
    }
}

/// A bijection of 40-bit numbers: odd multipliers and xor-shifts, each invertible.
fn scramble(seed: u64) -> u64 {
    let mut x = seed & MASK;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) & MASK;
    x ^= x >> 21;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9) & MASK;
    x ^= x >> 19;
    x
}

/// The key of partition `seed` (below `SEED_LIMIT`).
pub fn key(seed: u64) -> [u8; KEY_SIZE] {
    let mut x = scramble(seed);
    let mut out = [0u8; KEY_SIZE];
    for byte in &mut out {
        let nibble = (x & 15) as u8;
        *byte = if nibble < 10 {
            b'0' + nibble
        } else {
            b'K' + nibble - 10
        };
        x >>= 4;
    }
    out
}

/// SplitMix64's step: a well-mixed 64-bit stream from a counter.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Fills `out` with column `column`'s value of partition `seed`.
pub fn fill_value(seed: u64, column: usize, out: &mut [u8]) {
    let mut state = seed
        .wrapping_mul(0xD6E8_FEB8_6659_FD93)
        .wrapping_add(column as u64 + 1);
    for chunk in out.chunks_mut(8) {
        let bytes = splitmix(&mut state).to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

/// One thread's buffers for a row: the key and every column value of one seed,
/// rewritten in place so the hot path does not allocate.
#[derive(Debug, Clone)]
pub struct Row {
    pub layout: Layout,
    pub seed: u64,
    pub key: [u8; KEY_SIZE],
    pub values: Vec<Vec<u8>>,
}

impl Row {
    pub fn new(layout: Layout) -> Self {
        Self {
            layout,
            seed: 0,
            key: key(0),
            values: vec![vec![0; layout.column_size]; layout.columns],
        }
    }

    /// Computes the row of partition `seed`.
    pub fn fill(&mut self, seed: u64) {
        self.seed = seed;
        self.key = key(seed);
        for (c, v) in self.values.iter_mut().enumerate() {
            fill_value(seed, c, v);
        }
    }

    /// The key as cassandra-stress prints it in error messages: hex with `0x`.
    pub fn key_hex(&self) -> String {
        let mut s = String::from("0x");
        for b in self.key {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn keys_are_distinct_printable_and_stable() {
        let keys: HashSet<[u8; KEY_SIZE]> = (1..=200_000).map(key).collect();
        assert_eq!(keys.len(), 200_000);
        assert!(keys
            .iter()
            .flatten()
            .all(|b| b.is_ascii_digit() || (b'K'..=b'P').contains(b)));
        // A writer and a later reader must agree: the key of a seed never changes.
        assert_eq!(&key(1), b"71OLK1540N");
        assert_eq!(key(SEED_LIMIT - 1), key(SEED_LIMIT - 1));
        assert_ne!(key(0), key(SEED_LIMIT - 1));
    }

    #[test]
    fn values_depend_on_the_seed_and_the_column() {
        let layout = Layout::default();
        assert_eq!(layout.column_names(), ["C0", "C1", "C2", "C3", "C4"]);
        assert_eq!(layout.row_bytes(), 180);
        let mut a = Row::new(layout);
        let mut b = Row::new(layout);
        a.fill(42);
        b.fill(42);
        assert_eq!(a.values, b.values);
        assert!(a.values.iter().all(|v| v.len() == 34));
        assert_ne!(a.values[0], a.values[1]);
        b.fill(43);
        assert_ne!(a.values[0], b.values[0]);
        assert_eq!(a.key_hex().len(), 2 + 2 * KEY_SIZE);
    }
}
