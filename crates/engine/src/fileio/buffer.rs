//! Page-aligned I/O buffers: O_DIRECT needs the memory, like offsets and sizes,
//! aligned to the device's logical block; 4096 covers every device here.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// The alignment of every buffer.
pub const ALIGN: usize = 4096;

/// A zeroed, `ALIGN`-aligned byte buffer.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// The buffer owns its memory exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A buffer of `len` bytes (at least 1).
    pub fn new(len: usize) -> Self {
        let layout = Layout::from_size_align(len.max(1), ALIGN)
            .unwrap_or_else(|e| unreachable!("block sizes are validated: {e}"));
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Self { ptr, layout }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() initialised bytes, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// The start address (for io_uring, which keeps it while a request is in flight).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Fills the buffer with bytes that do not compress (file systems that compress
    /// or deduplicate would otherwise make writes cheaper than real data).
    pub fn fill_random(&mut self, seed: u64) {
        let mut state = seed | 1;
        for chunk in self.as_mut_slice().chunks_mut(8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bytes = state.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_filled() {
        let mut b = AlignedBuf::new(10_000);
        assert_eq!(b.as_mut_ptr() as usize % ALIGN, 0);
        assert!(b.as_slice().iter().all(|&x| x == 0));
        b.fill_random(7);
        assert!(b.as_slice().iter().filter(|&&x| x == 0).count() < 200);
    }
}
