//! The verification format of a block: a 32-byte header, then data derived from
//! the header so every block's content is unique and reproducible.
//!
//! ```text
//! 0..8    magic  "CONTIOVB"
//! 8..16   offset of the block in its file (u64 LE)
//! 16..24  generation (u64 LE)
//! 24..28  CRC-32C (Castagnoli, as iSCSI and ext4) of the whole block with
//!         these 4 bytes zeroed (u32 LE)
//! 28..32  block length (u32 LE)
//! 32..    xorshift64 stream seeded by offset and generation
//! ```
//!
//! contio's own format: fio's verify header (magic 0xacca, its own fields and
//! layout) is different, so files written by one cannot be verified by the other.
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

/// CRC-32C of the block as if its checksum field were zero.
fn checksum(block: &[u8]) -> u32 {
    let crc = crc32c::crc32c_append(0, &block[..24]);
    let crc = crc32c::crc32c_append(crc, &[0; 4]);
    crc32c::crc32c_append(crc, &block[28..])
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

    /// CRC-32C bit by bit (reflected polynomial 0x82F63B78), from its definition.
    fn crc32c_reference(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82F6_3B78
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn the_checksum_is_crc32c_of_the_block_with_its_field_zeroed() {
        // The standard check value of CRC-32C (CRC-32/ISCSI); CRC-32 (IEEE) gives 0xcbf43926.
        assert_eq!(crc32c_reference(b"123456789"), 0xe306_9283);
        let mut b = vec![0u8; 4096];
        fill(&mut b, 12288, 7);
        let stored = u32::from_le_bytes([b[24], b[25], b[26], b[27]]);
        b[24..28].fill(0);
        assert_eq!(stored, crc32c_reference(&b));
    }
}
