//! The random map: tracks which blocks of a file were touched in the current pass, so a
//! random pattern touches every block exactly once per pass (fio's default; `norandommap`
//! turns it off).

/// A bitmap over `n` blocks.
#[derive(Clone, Debug)]
pub struct RandomMap {
    words: Vec<u64>,
    n: u64,
    used: u64,
    /// fio's lfsr over the blocks (`random_generator=lfsr`), seeded again as the map is
    /// cleared (fio resets both at a file's reset).
    lfsr: Option<crate::rng::FioLfsr>,
}

impl RandomMap {
    /// A map over `n` blocks, all free.
    pub fn new(n: u64) -> RandomMap {
        RandomMap {
            words: vec![0; n.div_ceil(64) as usize],
            n,
            used: 0,
            lfsr: None,
        }
    }
    /// Draw the blocks from fio's lfsr over the map's blocks, seeded with `seed` (none
    /// when fio would refuse that seed: the draws are then the caller's).
    pub fn with_lfsr(mut self, seed: u64) -> RandomMap {
        self.lfsr = crate::rng::FioLfsr::new(self.n, seed);
        self
    }
    /// The map's lfsr, if it has one.
    #[inline]
    pub fn lfsr(&mut self) -> Option<&mut crate::rng::FioLfsr> {
        self.lfsr.as_mut()
    }
    /// Number of blocks.
    pub fn len(&self) -> u64 {
        self.n
    }
    /// True when the map covers no blocks.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// True when every block was taken.
    pub fn is_full(&self) -> bool {
        self.used >= self.n
    }
    /// Forget all taken blocks (new pass).
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
        self.used = 0;
        if let Some(l) = &mut self.lfsr {
            l.reset();
        }
    }
    /// Take the free blocks from `from` on, up to `max` of them, stopping at the first
    /// taken block or the end; returns how many were taken.
    pub fn take_run(&mut self, from: u64, max: u64) -> u64 {
        let mut n = 0;
        while n < max && from + n < self.n {
            let (wi, bit) = (((from + n) / 64) as usize, (from + n) % 64);
            if self.words[wi] & (1 << bit) != 0 {
                break;
            }
            self.words[wi] |= 1 << bit;
            n += 1;
        }
        self.used += n;
        n
    }

    /// Mark blocks `from..from + n` (those past the end ignored) taken, whether or not
    /// they were: fio's sequential I/Os of a partly random job mark the blocks they touch.
    pub fn mark(&mut self, from: u64, n: u64) {
        for b in from..from.saturating_add(n).min(self.n) {
            let (wi, bit) = ((b / 64) as usize, b % 64);
            if self.words[wi] & (1 << bit) == 0 {
                self.words[wi] |= 1 << bit;
                self.used += 1;
            }
        }
    }

    /// Take block `want` if free, else the next free block after it (wrapping).
    /// Returns None when the map is full.
    #[inline]
    pub fn take_near(&mut self, want: u64) -> Option<u64> {
        let idx = self.free_near(want)?;
        self.words[(idx / 64) as usize] |= 1 << (idx % 64);
        self.used += 1;
        Some(idx)
    }

    /// Block `want` if free, else the next free block after it (wrapping), left free.
    /// None when the map is full.
    pub fn free_near(&self, want: u64) -> Option<u64> {
        if self.is_full() {
            return None;
        }
        let nw = self.words.len();
        let mut wi = (want / 64) as usize;
        // First word: only bits at or above `want`.
        let first_mask = !0u64 << (want % 64);
        let mut free = !self.words[wi] & first_mask;
        let mut scanned = 0;
        loop {
            if free != 0 {
                let bit = free.trailing_zeros() as u64;
                let idx = wi as u64 * 64 + bit;
                if idx < self.n {
                    return Some(idx);
                }
            }
            wi += 1;
            scanned += 1;
            if wi == nw {
                wi = 0;
            }
            if scanned > nw {
                return None;
            }
            free = !self.words[wi];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_stop_at_a_taken_block_and_at_the_end() {
        let mut m = RandomMap::new(10);
        assert_eq!(m.take_near(5), Some(5));
        assert_eq!(m.take_run(2, 8), 3, "blocks 2, 3, 4; 5 is taken");
        assert_eq!(m.take_run(6, 8), 4, "blocks 6..9, then the end");
        assert_eq!(m.take_near(0), Some(0));
        assert_eq!(m.take_run(1, 1), 1);
        assert!(m.is_full());
    }

    #[test]
    fn marking_takes_free_and_taken_blocks_alike() {
        let mut m = RandomMap::new(4);
        assert_eq!(m.take_near(1), Some(1));
        m.mark(0, 3);
        assert!(!m.is_full());
        assert_eq!(m.take_near(0), Some(3), "0..2 are taken");
        m.mark(3, 5);
        assert!(m.is_full());
    }

    #[test]
    fn every_block_exactly_once() {
        let mut m = RandomMap::new(1000);
        let mut seen = vec![false; 1000];
        let mut x = 12345u64;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = m.take_near((x >> 33) % 1000).unwrap();
            assert!(!seen[b as usize]);
            seen[b as usize] = true;
        }
        assert!(m.is_full());
        assert_eq!(m.take_near(5), None);
        m.clear();
        assert_eq!(m.take_near(999), Some(999));
        assert_eq!(m.take_near(999), Some(0));
    }
}
