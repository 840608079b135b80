//! Aligned I/O buffers and their contents.

use std::sync::Arc;

/// A zeroed buffer with a chosen alignment (O_DIRECT needs the logical block size or
/// page size): its own heap allocation ([`AlignedBuf::new`]) or one of a set carved out of
/// a single lazily-zeroed mapping ([`AlignedBuf::many`]), so that a job's iodepth buffers
/// cost no memory until they are touched, as fio's one buffer region.
pub struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
    /// Keeps the bytes alive; `ptr` points into them.
    _store: Store,
}

// The fields are only held, never read: dropping them frees the bytes.
#[allow(dead_code)]
enum Store {
    /// A zeroed heap block with room to start on the alignment; `ptr` points into it.
    Heap(Vec<u8>),
    /// Keeps the shared mapping alive; this buffer is a disjoint part of it.
    Shared(Arc<Region>),
}

/// An anonymous private mapping: the kernel hands out zero pages on first touch.
struct Region {
    base: *mut u8,
    len: usize,
}

// SAFETY: the region is only unmapped on drop; the buffers carved out of it are disjoint
// and each owned by one AlignedBuf.
unsafe impl Send for Region {}
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: base/len is the mapping made in `Region::map`.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

impl Region {
    fn map(len: usize) -> Option<Region> {
        // SAFETY: an anonymous private mapping with no address hint.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED).then_some(Region {
            base: p.cast(),
            len,
        })
    }
}

// SAFETY: AlignedBuf owns its bytes exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}

const PAGE: usize = 4096;

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least 1) aligned to `align` (a power of two).
    pub fn new(len: usize, align: usize) -> AlignedBuf {
        let (len, align) = (len.max(1), align.max(1));
        assert!(
            align.is_power_of_two(),
            "buffer alignment must be a power of two"
        );
        // A zeroed block (calloc: untouched pages cost nothing) with slack for alignment.
        let mut block = vec![0u8; len + align - 1];
        let base = block.as_mut_ptr();
        // In bounds: the skip is below `align`, so skip + len <= the block's length.
        let ptr = base.wrapping_add((base as usize).next_multiple_of(align) - base as usize);
        AlignedBuf {
            ptr,
            len,
            _store: Store::Heap(block),
        }
    }

    /// `count` zeroed buffers of `len` bytes each aligned to `align`, carved out of one
    /// anonymous mapping: pages are zero-filled by the kernel when first touched, so
    /// buffers a job never writes into (a read job's, the null engine's) take no memory.
    /// Falls back to one heap allocation each if the mapping fails.
    pub fn many(count: usize, len: usize, align: usize) -> Vec<AlignedBuf> {
        let align = align.max(1);
        assert!(
            align.is_power_of_two(),
            "buffer alignment must be a power of two"
        );
        let len = len.max(1);
        // Each buffer starts on an `align` boundary; the mapping is page-aligned, so a
        // larger alignment needs slack at the front.
        let stride = len.div_ceil(align).saturating_mul(align);
        let slack = align.saturating_sub(PAGE);
        let total = stride
            .checked_mul(count)
            .and_then(|t| t.checked_add(slack))
            .filter(|&t| t > 0);
        let region = total.and_then(Region::map).map(Arc::new);
        let Some(region) = region else {
            return (0..count).map(|_| AlignedBuf::new(len, align)).collect();
        };
        let first = (region.base as usize).next_multiple_of(align) - region.base as usize;
        (0..count)
            .map(|i| AlignedBuf {
                // In bounds: first + i * stride + len <= slack + count * stride.
                ptr: region.base.wrapping_add(first + i * stride),
                len,
                _store: Store::Shared(Arc::clone(&region)),
            })
            .collect()
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
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
        // SAFETY: ptr is a live allocation (or a disjoint part of a live mapping) of
        // `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    /// The bytes, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access (no two buffers of one
        // mapping overlap).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
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
    fn many_buffers_are_aligned_zeroed_and_disjoint() {
        for (count, len, align) in [(3, 4096, 4096), (5, 1000, 512), (4, 8192, 65536), (1, 1, 1)] {
            let mut bufs = AlignedBuf::many(count, len, align);
            assert_eq!(bufs.len(), count);
            for (i, b) in bufs.iter_mut().enumerate() {
                assert_eq!(b.len(), len);
                assert_eq!(b.as_mut_ptr() as usize % align, 0);
                assert!(b.as_slice().iter().all(|&x| x == 0));
                b.as_mut_slice().fill(i as u8 + 1);
            }
            for (i, b) in bufs.iter().enumerate() {
                assert!(
                    b.as_slice().iter().all(|&x| x == i as u8 + 1),
                    "buffer {i} overlapped"
                );
            }
            // Buffers outlive each other in any order.
            bufs.remove(0);
            drop(bufs);
        }
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
