//! The verification format of a block: a 32-byte header, then data derived from
//! the header so every block's content is unique and reproducible.
//!
//! ```text
//! 0..8    magic  "CONTIOVB"
//! 8..16   offset of the block in its file (u64 LE)
//! 16..24  generation (u64 LE)
//! 24..28  CRC-32 of the whole block with these 4 bytes zeroed (u32 LE)
//! 28..32  block length (u32 LE)
//! 32..    xorshift64 stream seeded by offset and generation
//! ```
//! A check names what disagrees: the magic (never written, or overwritten by
//! something else), the offset (written to the wrong place), the generation
//! (a stale or lost write), or the checksum (corrupted in place).

use std::fmt;

/// The header's first 8 bytes.
pub const MAGIC: &[u8; 8] = b"CONTIOVB";
/// The header's size; blocks must be at least this long to verify.
pub const HEADER_LEN: usize = 32;

/// Writes a block for `offset` and `generation` into `block`.
pub fn fill(block: &mut [u8], offset: u64, generation: u64) {
    let mut state = (offset ^ generation.rotate_left(32)) | 1;
    for chunk in block[HEADER_LEN..].chunks_mut(8) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
    }
    block[..8].copy_from_slice(MAGIC);
    block[8..16].copy_from_slice(&offset.to_le_bytes());
    block[16..24].copy_from_slice(&generation.to_le_bytes());
    block[24..28].fill(0);
    let len = block.len() as u32;
    block[28..32].copy_from_slice(&len.to_le_bytes());
    let crc = checksum(block);
    block[24..28].copy_from_slice(&crc.to_le_bytes());
}

fn checksum(block: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&block[..24]);
    h.update(&[0; 4]);
    h.update(&block[28..]);
    h.finalize()
}

fn u64_at(block: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&block[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Why a block failed verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// No header: never written with verification, or overwritten.
    NoHeader,
    /// The header says it belongs elsewhere.
    WrongOffset { stored: u64 },
    /// Written by another generation.
    WrongGeneration { stored: u64, expected: u64 },
    /// The content does not match its checksum.
    Checksum { stored: u32, computed: u32 },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::NoHeader => write!(f, "no block header (magic missing)"),
            Mismatch::WrongOffset { stored } => {
                write!(f, "header names offset {stored} (misplaced write)")
            }
            Mismatch::WrongGeneration { stored, expected } => write!(
                f,
                "generation {stored}, expected {expected} (stale or lost write)"
            ),
            Mismatch::Checksum { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
            ),
        }
    }
}

/// Checks a block read from `offset`; `expected` is the generation it must carry.
pub fn check(block: &[u8], offset: u64, expected: u64) -> Result<(), Mismatch> {
    if block.len() < HEADER_LEN || &block[..8] != MAGIC {
        return Err(Mismatch::NoHeader);
    }
    let stored_offset = u64_at(block, 8);
    let stored_crc = u32::from_le_bytes([block[24], block[25], block[26], block[27]]);
    let computed = checksum(block);
    if computed != stored_crc {
        return Err(Mismatch::Checksum {
            stored: stored_crc,
            computed,
        });
    }
    if stored_offset != offset {
        return Err(Mismatch::WrongOffset {
            stored: stored_offset,
        });
    }
    let generation = u64_at(block, 16);
    if generation != expected {
        return Err(Mismatch::WrongGeneration {
            stored: generation,
            expected,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_kind_of_mismatch() {
        let mut b = vec![0u8; 4096];
        fill(&mut b, 8192, 3);
        assert_eq!(check(&b, 8192, 3), Ok(()));
        assert_eq!(
            check(&b, 4096, 3),
            Err(Mismatch::WrongOffset { stored: 8192 })
        );
        assert_eq!(
            check(&b, 8192, 4),
            Err(Mismatch::WrongGeneration {
                stored: 3,
                expected: 4
            })
        );
        b[1000] ^= 1;
        assert!(matches!(check(&b, 8192, 3), Err(Mismatch::Checksum { .. })));
        assert_eq!(check(&[0u8; 4096], 0, 3), Err(Mismatch::NoHeader));
    }
}
