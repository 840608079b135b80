//! Aligned I/O buffers and their contents.

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// A heap buffer with a chosen alignment (O_DIRECT needs the logical block size or page
/// size). Zero-initialised.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least 1) aligned to `align` (a power of two).
    pub fn new(len: usize, align: usize) -> AlignedBuf {
        let layout = Layout::from_size_align(len.max(1), align.max(1))
            .expect("buffer alignment must be a power of two");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, layout }
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }
    /// Always false: buffers have at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }
    /// Raw pointer for engines.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is a live allocation of layout.size() initialised bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }
    /// The bytes, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Fill `buf` with pseudo-random bytes from `state` (advanced), as fio's default
/// (incompressible) buffer contents.
pub fn fill_random(buf: &mut [u8], state: &mut u64) {
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next(state).to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let v = next(state).to_le_bytes();
    let n = rest.len();
    rest.copy_from_slice(&v[..n]);
}

#[inline]
fn next(s: &mut u64) -> u64 {
    // SplitMix64: fast and good enough for incompressible data.
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_zeroed() {
        let b = AlignedBuf::new(8192, 4096);
        assert_eq!(b.as_slice().as_ptr() as usize % 4096, 0);
        assert!(b.as_slice().iter().all(|&x| x == 0));
    }

    #[test]
    fn random_fill_differs_and_is_deterministic() {
        let mut a = vec![0u8; 1001];
        let mut b = vec![0u8; 1001];
        let (mut s1, mut s2) = (5, 5);
        fill_random(&mut a, &mut s1);
        fill_random(&mut b, &mut s2);
        assert_eq!(a, b);
        assert!(a.iter().filter(|&&x| x == 0).count() < 20);
    }
}
