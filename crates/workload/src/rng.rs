//! fathom's pseudo-random generator.
//!
//! fio uses Tausworthe generators; fathom uses xoshiro256** (Blackman & Vigna), seeded
//! through SplitMix64. It is fast (a few ns), has a 2^256−1 period and passes BigCrush.
//! The same seed always yields the same sequence on every platform, so a job with
//! `randrepeat=1` does the same I/O in every run. Offsets therefore differ from fio's
//! for the same seed; counts, shares and coverage do not. A read/write mix's directions
//! are the exception: [`FioTaus`] is fio's own generator, seeded as fio seeds it, so a
//! mix makes fio's reads and writes I/O for I/O.

/// SplitMix64 step: used to expand a 64-bit seed into generator state.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256** generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator seeded from `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let mut s = [0u64; 4];
        for x in s.iter_mut() {
            *x = splitmix64(&mut sm);
        }
        Rng { s }
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform integer in `[0, n)` (n > 0), without modulo bias (Lemire's method).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = (self.next_u64() as u128) * (n as u128);
        let mut lo = m as u64;
        if lo < n {
            let t = n.wrapping_neg() % n;
            while lo < t {
                m = (self.next_u64() as u128) * (n as u128);
                lo = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// Uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let mut a = Rng::new(0x89);
        let mut b = Rng::new(0x89);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut c = Rng::new(0x8a);
        assert_ne!(Rng::new(0x89).next_u64(), c.next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let v = r.below(10);
            counts[v as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}

/// fio's 32-bit combined Tausworthe generator (L'Ecuyer's taus88) with fio's seeding,
/// for the draws fathom makes exactly as fio makes them (a read/write mix's direction):
/// with the same seed it yields fio's sequence.
#[derive(Clone, Debug)]
pub struct FioTaus {
    s: [u32; 3],
}

/// fio's seed schedule under randrepeat: the seed of generator `off` (fio's
/// `FIO_RAND_*_OFF` order) of the thread numbered `thread` (from 1, in job order).
pub fn fio_seed(rand_seed: u64, thread: u32, off: u32) -> u64 {
    const K: u64 = 0x9e37_0001;
    let mut seed = rand_seed;
    for _ in 0..4 {
        seed = seed.wrapping_mul(K);
    }
    for _ in 0..off {
        seed = seed.wrapping_mul(K);
    }
    seed.wrapping_mul(u64::from(thread))
        .wrapping_add(u64::from(off))
}

/// fio's seed schedule under allrandrepeat: every generator's seed from the thread's
/// number alone (`0xb1899bed` × thread + the generator's index), randseed not used.
pub fn fio_all_seed(thread: u32, off: u32) -> u64 {
    0xb189_9bed_u64
        .wrapping_mul(u64::from(thread))
        .wrapping_add(u64::from(off))
}

/// fio's index of the read/write mix generator among its seeds.
pub const FIO_RAND_MIX_OFF: u32 = 4;

impl FioTaus {
    /// Seeded as fio seeds one (its 32-bit seed; the first draws discarded).
    pub fn new(seed: u32) -> FioTaus {
        // fio's LCG steps, from its fixed start value ((2^31)+(2^17)+(2^7) in C: 53),
        // each state word kept above the generator's minimum.
        let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
        let at_least = |x: u32, m: u32| if x < m { x + m } else { x };
        let s1 = at_least(lcg(53), 1);
        let s2 = at_least(lcg(s1), 7);
        let s3 = at_least(lcg(s2), 15);
        let mut t = FioTaus { s: [s1, s2, s3] };
        for _ in 0..6 {
            t.next_u32();
        }
        t
    }

    /// The next 32 bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        fn step(s: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
            ((s & c) << d) ^ (((s << a) ^ s) >> b)
        }
        let [s1, s2, s3] = &mut self.s;
        *s1 = step(*s1, 13, 19, 0xFFFF_FFFE, 12);
        *s2 = step(*s2, 2, 25, 0xFFFF_FFF8, 4);
        *s3 = step(*s3, 3, 11, 0xFFFF_FFF0, 17);
        *s1 ^ *s2 ^ *s3
    }

    /// A number from `start` to `end` inclusive, scaled from the next draw as fio scales
    /// it (through a double).
    pub fn between(&mut self, start: u32, end: u32) -> u32 {
        let r = self.next_u32();
        let span = f64::from(end - start + 1);
        start + (span * (f64::from(r) / 4_294_967_296.0)) as u32
    }
}

/// fio's 64-bit combined Tausworthe generator (L'Ecuyer's taus258) with fio's seeding:
/// the one fio draws block sizes from with `random_generator=tausworthe64`.
#[derive(Clone, Debug)]
pub struct FioTaus64 {
    s: [u64; 5],
}

impl FioTaus64 {
    /// Seeded as fio seeds one (the whole 64-bit seed; the first draws discarded).
    pub fn new(seed: u64) -> FioTaus64 {
        // As the 32-bit one: fio's LCG steps (its 64-bit multiplier) from the same start
        // value, each state word kept above the generator's minimum.
        let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
        let at_least = |x: u64, m: u64| if x < m { x + m } else { x };
        let s1 = at_least(lcg(53), 1);
        let s2 = at_least(lcg(s1), 7);
        let s3 = at_least(lcg(s2), 15);
        let s4 = at_least(lcg(s3), 33);
        let s5 = at_least(lcg(s4), 49);
        let mut t = FioTaus64 {
            s: [s1, s2, s3, s4, s5],
        };
        for _ in 0..6 {
            t.next_u64();
        }
        t
    }

    /// The next 64 bits (taus258's five components).
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        // (shift a, shift b, mask, shift c) per component, as L'Ecuyer's table gives them.
        const K: [(u32, u32, u64, u32); 5] = [
            (1, 53, !1, 10),
            (24, 50, !511, 5),
            (3, 23, !4095, 29),
            (5, 24, !131_071, 23),
            (3, 33, !8_388_607, 8),
        ];
        let mut x = 0;
        for (s, &(a, b, m, c)) in self.s.iter_mut().zip(&K) {
            let v = ((*s << a) ^ *s) >> b;
            *s = ((*s & m) << c) ^ v;
            x ^= *s;
        }
        x
    }
}

/// One of fio's generators, 32- or 64-bit (`random_generator=tausworthe64`), for draws
/// that fio scales by its generator's largest value.
#[derive(Clone, Debug)]
pub enum FioRand {
    /// taus88.
    Taus32(FioTaus),
    /// taus258.
    Taus64(FioTaus64),
}

impl FioRand {
    /// Seeded as fio seeds one: the seed's low 32 bits for the 32-bit generator.
    pub fn new(seed: u64, use64: bool) -> FioRand {
        if use64 {
            FioRand::Taus64(FioTaus64::new(seed))
        } else {
            FioRand::Taus32(FioTaus::new(seed as u32))
        }
    }

    /// The next draw scaled to `0..n` as fio scales its draws: `n × r / (max + 1)`
    /// through a double (so a 64-bit draw near the top may round up to `n`).
    #[inline]
    pub fn scaled(&mut self, n: u64) -> u64 {
        let (r, max) = self.draw();
        (n as f64 * (r as f64 / (max as f64 + 1.0))) as u64
    }

    /// The next draw and the generator's largest value.
    #[inline]
    pub fn draw(&mut self) -> (u64, u64) {
        match self {
            FioRand::Taus32(t) => (u64::from(t.next_u32()), u64::from(u32::MAX)),
            FioRand::Taus64(t) => (t.next_u64(), u64::MAX),
        }
    }
}

/// The taps of a maximal-length Galois LFSR of each width from 3 to 63 bits (the
/// published table of maximal-length taps fio uses), by width.
const LFSR_TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

/// fio's `random_generator=lfsr` over `n` blocks: each of `0..n` once a cycle, in fio's
/// order for the same seed. The register is the narrowest of the table wider than `n`
/// (values past `n - 1` are stepped over); each step shifts right with the top bit set
/// and, when the bit shifted out was 0, flips the taps. The first value after seeding
/// takes two steps, later ones (a reset included) one, as fio's spin-free LFSR does.
#[derive(Clone, Debug)]
pub struct FioLfsr {
    xormask: u64,
    top: u64,
    max: u64,
    seed: u64,
    state: u64,
    given: u64,
    fresh: bool,
}

impl FioLfsr {
    /// One over `n` blocks seeded with `seed`; None when no register fits `n` or the
    /// seed leaves the register all ones (fio refuses both).
    pub fn new(n: u64, seed: u64) -> Option<FioLfsr> {
        let width = (3..64).find(|&w| (1u64 << w) > n)?;
        let taps = LFSR_TAPS[width];
        let xormask = taps.iter().fold(0u64, |m, &t| m | 1 << (t - 1));
        let top = 1u64 << (taps[0] - 1);
        let mut l = FioLfsr {
            xormask,
            top,
            max: n.checked_sub(1)?,
            seed,
            state: 0,
            given: 0,
            fresh: true,
        };
        l.reset().then_some(l)
    }

    /// Back to the seed, as fio's reset at a file's open (false: an all-ones register).
    pub fn reset(&mut self) -> bool {
        let mask = (self.top << 1) - 1;
        self.given = 0;
        self.state = self.seed & mask;
        self.state != mask
    }

    #[inline]
    fn step(&mut self) {
        let v = self.state;
        let flip = if v & 1 == 0 { self.xormask } else { 0 };
        self.state = ((v >> 1) | self.top) ^ flip;
    }

    /// The next block, or None once every block was given since the last reset.
    #[inline]
    pub fn next_block(&mut self) -> Option<u64> {
        if self.given > self.max {
            return None;
        }
        self.given += 1;
        loop {
            if std::mem::take(&mut self.fresh) {
                self.step();
            }
            self.step();
            if self.state <= self.max {
                return Some(self.state);
            }
        }
    }
}

#[cfg(test)]
mod fio_taus_tests {
    use super::*;

    #[test]
    fn lfsr_gives_every_block_once_a_cycle_and_again_after_a_reset() {
        for n in [1u64, 2, 3, 5, 8, 100, 2048, 3000] {
            let mut l = FioLfsr::new(n, 0xb189_9bed).unwrap();
            let mut seen = vec![false; n as usize];
            for _ in 0..n {
                let b = l.next_block().unwrap();
                assert!(!seen[b as usize], "n={n}: {b} twice");
                seen[b as usize] = true;
            }
            assert_eq!(l.next_block(), None, "n={n}");
            assert!(l.reset());
            let again: Vec<u64> = (0..n).map(|_| l.next_block().unwrap()).collect();
            let mut sorted = again.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "n={n}");
        }
        // The register all ones is refused, as fio refuses it.
        assert!(FioLfsr::new(100, 0x7f).is_none());
    }

    #[test]
    fn fio_s_seed_schedule_and_first_draws() {
        // fio 3.33 with randseed=0x89 (its default), thread 1: the mix seed's low 32
        // bits; the generator's state words stay above their minimums.
        let s = fio_seed(0x89, 1, FIO_RAND_MIX_OFF);
        let k: u64 = 0x9e37_0001;
        assert_eq!(s, 0x89u64.wrapping_mul(k.wrapping_pow(8)).wrapping_add(4));
        let mut t = FioTaus::new(s as u32);
        let d: Vec<u32> = (0..1000).map(|_| t.between(1, 100)).collect();
        assert!(d.iter().all(|v| (1..=100).contains(v)));
        assert!(d.iter().filter(|v| **v <= 70).count().abs_diff(700) < 60);
    }

    #[test]
    fn the_64_bit_generator_keeps_its_words_above_their_minimums_and_spreads() {
        let mut t = FioTaus64::new(fio_seed(0x89, 1, 0));
        let mins = [1u64, 7, 15, 33, 49];
        assert!(t.s.iter().zip(mins).all(|(&s, m)| s >= m));
        let d: Vec<u64> = (0..4000).map(|_| t.next_u64()).collect();
        // The top bit about half the time, no repeats in a short run.
        let high = d.iter().filter(|v| **v >> 63 == 1).count();
        assert!(high.abs_diff(2000) < 150, "{high}");
        let mut u = d.clone();
        u.sort_unstable();
        u.dedup();
        assert_eq!(u.len(), d.len());
        // The same seed, the same sequence; another seed, another.
        let mut again = FioTaus64::new(fio_seed(0x89, 1, 0));
        assert!(d.iter().all(|&v| v == again.next_u64()));
        assert_ne!(FioTaus64::new(7).next_u64(), FioTaus64::new(8).next_u64());
    }
}
