//! What goes into write buffers (fio's buffer options): random data by default,
//! `zero_buffers`, `buffer_pattern`, `buffer_compress_percentage` with
//! `buffer_compress_chunk`, `dedupe_percentage`, and `scramble_buffers`.

use crate::buf::fill_random;

/// fio's `dedupe_mode=working_set`: a deduplicated write repeats one of `n` buffers, each
/// one of the first unique buffers some clone writes (the k-th unique write of a clone
/// with seed S is seeded `S ^ k·φ`): its own clone's alone, or, with `dedupe_global`,
/// every participating clone's, spread evenly (`seeds`, this clone's at `first`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DedupeSet {
    /// Blocks in the working set.
    pub n: u64,
    /// The clones' seeds.
    pub seeds: Vec<u64>,
    /// This clone's place in `seeds`.
    pub first: usize,
}

impl DedupeSet {
    /// The unique seed of the block a deduplicated write repeats (`unique` picks it).
    pub fn pick(&self, unique: u64) -> u64 {
        let n = self.n.max(1);
        let k = (unique.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 11) % n;
        let per = (n / self.seeds.len().max(1) as u64).max(1);
        let seed = self.seeds[(self.first + (k / per) as usize) % self.seeds.len().max(1)];
        Self::unique(seed, k % per)
    }
    /// The seed of the `k`-th unique write of the clone seeded `seed`.
    pub fn unique(seed: u64, k: u64) -> u64 {
        seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// How write buffers are filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferContent {
    /// All zeroes.
    pub zero: bool,
    /// A repeating pattern (from `buffer_pattern`).
    pub pattern: Option<Vec<u8>>,
    /// Target compressibility in percent: each chunk is this much zeroes (or pattern) and
    /// the rest random.
    pub compress_percentage: Option<u32>,
    /// Chunk size for compressibility (default 512).
    pub compress_chunk: usize,
    /// Percent of writes whose buffer repeats earlier content exactly (dedupable).
    pub dedupe_percentage: u32,
    /// Lightly scramble each buffer before a write so identical buffers do not dedupe
    /// (fio's default when buffers are not refilled).
    pub scramble: bool,
    /// Regenerate the contents for every write.
    pub refill: bool,
    /// vdbench's dedup: blocks unique or in duplicate sets by their offset.
    pub units: Option<fathom_job::DedupUnits>,
}

impl Default for BufferContent {
    fn default() -> Self {
        BufferContent {
            zero: false,
            pattern: None,
            compress_percentage: None,
            compress_chunk: 512,
            dedupe_percentage: 0,
            scramble: true,
            refill: false,
            units: None,
        }
    }
}

impl BufferContent {
    /// True when every write needs its buffer regenerated (fio forces refill on with
    /// compression or dedupe).
    pub fn refills(&self) -> bool {
        self.refill
            || self.compress_percentage.is_some()
            || self.dedupe_percentage > 0
            || self.units.is_some()
    }

    /// vdbench's dedup: fill `buf`, written at file offset `offset`, block by block: a
    /// duplicate block (chosen by its offset, the same on every write) gets its set's
    /// content, the same in every file; a unique block gets content of its own, new with
    /// each write (`write` tells writes apart).
    pub fn fill_units(&self, buf: &mut [u8], offset: u64, write: u64) {
        let Some(u) = self.units else {
            return self.fill(buf, write ^ offset, 100, None);
        };
        let unit = u.unit.max(1);
        for (i, chunk) in buf.chunks_mut(unit as usize).enumerate() {
            let block = offset / unit + i as u64;
            let h = mix(block ^ 0xdede_0b10c);
            let seed = if (h % 1_000_000) < u.dup_ppm as u64 {
                // The set's content: the set number alone decides it.
                mix(0x5e75_0000 ^ ((h >> 20) % u.sets.max(1)))
            } else {
                mix(block.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ write)
            };
            self.fill(chunk, seed, 100, None);
        }
    }

    /// Fill `buf` for one write. `unique` seeds unique content (e.g. from the offset);
    /// `draw` is a uniform number in [0, 100) that decides dedupe; `set` is the working
    /// set a deduplicated write repeats (None: fio's `repeat` mode, one repeated buffer).
    pub fn fill(&self, buf: &mut [u8], unique: u64, draw: u64, set: Option<&DedupeSet>) {
        if self.zero {
            buf.fill(0);
            return;
        }
        let mut state = if (draw as u32) < self.dedupe_percentage {
            match set {
                Some(s) if !s.seeds.is_empty() => s.pick(unique),
                // A deduped write repeats the content of one seed exactly.
                _ => 0x0ded_0ded,
            }
        } else {
            unique
        };
        match (self.compress_percentage, &self.pattern) {
            (Some(pct), _) => {
                let chunk = self.compress_chunk.max(1);
                for c in buf.chunks_mut(chunk) {
                    let random = c.len() * (100 - pct.min(100) as usize) / 100;
                    fill_random(&mut c[..random], &mut state);
                    match &self.pattern {
                        Some(p) if !p.is_empty() => repeat(&mut c[random..], p),
                        _ => c[random..].fill(0),
                    }
                }
            }
            (None, Some(p)) if !p.is_empty() => repeat(buf, p),
            _ => fill_random(buf, &mut state),
        }
    }

    /// fio's scramble: overwrite 8 bytes at the start of every 512-byte sector with a
    /// value unique to this write, so otherwise identical buffers do not dedupe.
    pub fn scramble(&self, buf: &mut [u8], unique: u64) {
        if self.zero || self.pattern.is_some() {
            return;
        }
        for (i, c) in buf.chunks_mut(512).enumerate() {
            let v = (unique ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes();
            let n = c.len().min(8);
            c[..n].copy_from_slice(&v[..n]);
        }
    }
}

/// A 64-bit mix (splitmix64's finalizer).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fill `buf` with the pattern `p` repeated from its first byte (fio's buffer_pattern, and
/// vdbench's pattern= files).
pub fn repeat(buf: &mut [u8], p: &[u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = p[i % p.len()];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn repeat_fills_from_the_pattern_s_first_byte() {
        let mut b = [0u8; 10];
        repeat(&mut b, b"1234");
        assert_eq!(&b, b"1234123412");
    }

    fn deflated_len(data: &[u8]) -> usize {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap().len()
    }

    #[test]
    fn compress_percentage_50_compresses_to_about_half() {
        let c = BufferContent {
            compress_percentage: Some(50),
            ..Default::default()
        };
        let mut buf = vec![0u8; 1 << 20];
        c.fill(&mut buf, 7, 99, None);
        let ratio = deflated_len(&buf) as f64 / buf.len() as f64;
        assert!((0.45..0.56).contains(&ratio), "compressed to {ratio}");
        // Random data does not compress.
        BufferContent::default().fill(&mut buf, 7, 99, None);
        assert!(deflated_len(&buf) as f64 / buf.len() as f64 > 0.99);
    }

    #[test]
    fn dedupe_repeats_content_and_scramble_breaks_it() {
        let c = BufferContent {
            dedupe_percentage: 100,
            ..Default::default()
        };
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        c.fill(&mut a, 1, 0, None);
        c.fill(&mut b, 2, 0, None);
        assert_eq!(a, b, "deduped writes are identical");
        c.scramble(&mut b, 3);
        assert_ne!(a, b);
        let u = BufferContent::default();
        u.fill(&mut a, 1, 0, None);
        u.fill(&mut b, 2, 0, None);
        assert_ne!(a, b, "unique writes differ");
    }

    #[test]
    fn pattern_and_zero_fill() {
        let c = BufferContent {
            pattern: Some(vec![0xde, 0xad]),
            ..Default::default()
        };
        let mut buf = vec![0u8; 6];
        c.fill(&mut buf, 1, 50, None);
        assert_eq!(buf, [0xde, 0xad, 0xde, 0xad, 0xde, 0xad]);
        let z = BufferContent {
            zero: true,
            ..Default::default()
        };
        z.fill(&mut buf, 1, 50, None);
        assert_eq!(buf, [0; 6]);
    }
}
