//! Random offset distributions (fio's `random_distribution`).
//!
//! The skewed distributions (zipf, pareto, normal) draw as fio 3.33 draws them, from fio's
//! own generators seeded as fio seeds them ([`FioSkew`]): a *rank* (0 = hottest) over the
//! file's ranges, spread over the file by fio's multiplicative hash, turned by a random
//! offset (zipf, pareto) or by `center`. `zoned` and `zoned_abs` pick a zone by its share
//! and draw uniformly within it.

use crate::rng::{FioTaus, Rng};

/// One zone of a `zoned` / `zoned_abs` distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    /// Percent of I/Os that go to this zone.
    pub pct: f64,
    /// Size of the zone: percent of the region (`zoned`) or bytes (`zoned_abs`).
    pub size: f64,
}

/// fio's `random_distribution`.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Distribution {
    /// Uniform (the default).
    #[default]
    Random,
    /// Zipf with exponent θ (θ > 0, θ ≠ 1).
    Zipf {
        /// Exponent.
        theta: f64,
        /// Hot-spot position (0..1); None: where fio's first draw puts it, as fio.
        center: Option<f64>,
    },
    /// Pareto with shape h (0 < h < 1): h of the accesses go to 1−h of the blocks.
    Pareto {
        /// Shape.
        h: f64,
        /// Hot-spot position (0..1); None: where fio's first draw puts it, as fio.
        center: Option<f64>,
    },
    /// fio's "normal": the mean of twelve uniform draws plus a uniform deviation of up to
    /// ±`dev`/2 percent of the region, scattered over the region as fio hashes it.
    Normal {
        /// Deviation, percent of the region (0 ≤ dev < 100).
        dev: f64,
        /// Turns the scattered draws round the region (0..1, default 0.5: not at all), as
        /// fio's center does.
        center: f64,
    },
    /// Zones given as percentages of the region.
    Zoned(Vec<Zone>),
    /// Zones given in bytes.
    ZonedAbs(Vec<Zone>),
}

impl Distribution {
    /// True for the uniform distribution (only it keeps the random map).
    pub fn is_uniform(&self) -> bool {
        matches!(self, Distribution::Random)
    }

    /// True for zipf, pareto and normal (drawn by [`FioSkew`]).
    pub fn is_skewed(&self) -> bool {
        matches!(
            self,
            Distribution::Zipf { .. } | Distribution::Pareto { .. } | Distribution::Normal { .. }
        )
    }
}

/// fio's cap on the terms of its zipf normalising sum (`zetan`).
const ZIPF_MAX_TERMS: u64 = 10_000_000;

/// The multiplier of fio's 64-bit hash, which scatters the ranks over the file.
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;

/// fio's draw of a skewed distribution (its `zipf_next`, `pareto_next`, `gauss_next`):
/// with fio's seed (a file's: `jhash(name) × thread number` under randrepeat) it yields
/// fio's sequence of ranges, I/O for I/O.
///
/// - zipf: Gray et al.'s approximation as fio computes it (its normalising sum over at
///   most ten million terms);
/// - pareto: `(n − 1) · u^(ln h / ln(1−h))`;
/// - normal: the mean of twelve uniform draws over `[0, n]` (rounded up) moved by a
///   uniform deviation of ±dev/2 percent of n, halved until it stays inside;
///
/// then, unless the hash is off (a file choice), the rank times fio's golden-ratio
/// multiplier; then turned: zipf and pareto by fio's first draw (or `center × n`), normal
/// by `(center − ½) × n` in fio's 32-bit arithmetic; modulo n.
#[derive(Clone, Debug)]
pub struct FioSkew {
    law: Law,
    nranges: u64,
    rand: FioTaus,
    rand_off: u64,
    hash: bool,
}

#[derive(Clone, Debug)]
enum Law {
    Zipf { theta: f64, zeta2: f64, zetan: f64 },
    Pareto { pow: f64 },
    Gauss { stddev: u32 },
}

impl FioSkew {
    /// fio's generator of `dist` over `nranges` ranges (at least 1) from `seed`; `hash`:
    /// scatter the ranks (offsets; a file choice does not). None: not a skewed
    /// distribution.
    pub fn new(dist: &Distribution, nranges: u64, seed: u32, hash: bool) -> Option<FioSkew> {
        let n = nranges.max(1);
        let mut rand = FioTaus::new(seed);
        // zipf and pareto: fio's first draw is the turn, unless a center replaces it.
        let mut turn = |center: Option<f64>| {
            let first = u64::from(rand.next_u32());
            match center {
                Some(c) => (n as f64 * c) as u64,
                None => first,
            }
        };
        let (law, rand_off) = match *dist {
            Distribution::Zipf { theta, center } => {
                let zetan = (0..n.min(ZIPF_MAX_TERMS))
                    .fold(0.0, |z, i| z + (1.0 / (i + 1) as f64).powf(theta));
                let zeta2 = 1.0f64.powf(theta) + 0.5f64.powf(theta);
                (
                    Law::Zipf {
                        theta,
                        zeta2,
                        zetan,
                    },
                    turn(center),
                )
            }
            Distribution::Pareto { h, center } => (
                Law::Pareto {
                    pow: h.ln() / (1.0 - h).ln(),
                },
                turn(center),
            ),
            Distribution::Normal { dev, center } => {
                let mut stddev = 0u32;
                if dev != 0.0 {
                    stddev = ((n as f64 * dev) / 100.0).ceil() as u32;
                    if u64::from(stddev) > n / 2 {
                        stddev = (n / 2) as u32;
                    }
                }
                // (fio keeps this turn in 32 bits: a negative one wraps there.)
                let off = (n as f64 * (center - 0.5)) as i64 as u32;
                (Law::Gauss { stddev }, u64::from(off))
            }
            _ => return None,
        };
        Some(FioSkew {
            law,
            nranges: n,
            rand,
            rand_off,
            hash,
        })
    }

    /// The next range, below the number of ranges.
    pub fn draw(&mut self) -> u64 {
        let n = self.nranges;
        let unit = |r: u32| f64::from(r) / f64::from(u32::MAX);
        let v = match self.law {
            Law::Zipf {
                theta,
                zeta2,
                zetan,
            } => {
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let u = unit(self.rand.next_u32());
                let z = u * zetan;
                let rank = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                rank - 1
            }
            Law::Pareto { pow } => ((n - 1) as f64 * unit(self.rand.next_u32()).powf(pow)) as u64,
            Law::Gauss { stddev } => {
                let mut sum = (0..12).fold(0u64, |s, _| {
                    s.wrapping_add(u64::from(self.rand.next_u32()) % (n + 1))
                });
                sum = sum.div_ceil(12);
                if stddev != 0 {
                    let r = f64::from(self.rand.next_u32());
                    let vr = (f64::from(stddev) * (r / 4_294_967_296.0)) as i32;
                    let mut dev = vr.wrapping_sub((stddev / 2) as i32);
                    // (fio's sum is unsigned: a deviation below 0 wraps, and is halved.)
                    while (dev as i64 as u64).wrapping_add(sum) >= n && dev != 0 {
                        dev /= 2;
                    }
                    sum = sum.wrapping_add(dev as i64 as u64);
                }
                sum
            }
        };
        let v = match self.hash {
            true => v.wrapping_mul(GOLDEN_RATIO_64),
            false => v,
        };
        v.wrapping_add(self.rand_off) % n
    }
}

/// fio's `jhash` of a file name (Bob Jenkins' hash as fio 3.33 computes it, which adds
/// one byte, not one word, of each 12-byte block before the last): the seed of a file's
/// skewed distribution is this times the thread number.
pub fn fio_jhash(key: &[u8]) -> u32 {
    // One step of the mix: x -= z, x ^= z rotated, z += y.
    fn step(x: &mut u32, y: u32, z: &mut u32, r: u32) {
        *x = x.wrapping_sub(*z) ^ z.rotate_left(r);
        *z = z.wrapping_add(y);
    }
    // One step of the final mix: x ^= y, x -= y rotated.
    fn fin(x: &mut u32, y: u32, r: u32) {
        *x = (*x ^ y).wrapping_sub(y.rotate_left(r));
    }
    let start = 0x61C8_8647u32.wrapping_add(key.len() as u32);
    let (mut a, mut b, mut c) = (start, start, start);
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        step(&mut a, b, &mut c, 4);
        step(&mut b, c, &mut a, 6);
        step(&mut c, a, &mut b, 8);
        step(&mut a, b, &mut c, 16);
        step(&mut b, c, &mut a, 19);
        step(&mut c, a, &mut b, 4);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    // The last block, little-endian words (missing bytes are 0).
    let word = |w: usize| {
        (0..4).fold(0u32, |v, i| {
            v.wrapping_add(k.get(w * 4 + i).map_or(0, |&x| u32::from(x) << (8 * i)))
        })
    };
    a = a.wrapping_add(word(0));
    b = b.wrapping_add(word(1));
    c = c.wrapping_add(word(2));
    fin(&mut c, b, 14);
    fin(&mut a, c, 11);
    fin(&mut b, a, 25);
    fin(&mut c, b, 16);
    fin(&mut a, c, 4);
    fin(&mut b, a, 14);
    fin(&mut c, b, 24);
    c
}

/// Draws places from a distribution for one file: a skewed one's range (fio's
/// [`FioSkew`]), or a zoned one's block.
#[derive(Clone, Debug)]
pub struct Sampler {
    dist: Distribution,
    n: u64,
    skew: Option<FioSkew>,
    /// For zoned: cumulative pct and [start, end) block ranges.
    zones: Vec<(f64, u64, u64)>,
    /// For zoned in whole percents adding up to 100: fio's table of where each of its
    /// draws from 1 to 100 goes, (start, end) in percent of the region, or in bytes for
    /// zoned_abs (see `fio_zone`).
    fio_zones: Vec<(u64, u64)>,
}

impl Sampler {
    /// A sampler over `n` blocks of `block` bytes (block size matters for zoned_abs); a
    /// skewed distribution draws over `nranges` ranges (fio's: the file's size in its
    /// smallest block size) from fio's generator seeded with `seed`.
    pub fn new(dist: &Distribution, n: u64, block: u64, (nranges, seed): (u64, u32)) -> Sampler {
        let n = n.max(1);
        let mut zones = Vec::new();
        let mk = |zs: &[Zone], abs: bool| {
            let mut out = Vec::new();
            let (mut cum, mut start) = (0.0, 0u64);
            for z in zs {
                let len = if abs {
                    (z.size / block as f64) as u64
                } else {
                    (z.size / 100.0 * n as f64).round() as u64
                };
                let end = (start + len.max(1)).min(n);
                cum += z.pct;
                out.push((cum, start, end.max(start + 1).min(n.max(start + 1))));
                start = end;
            }
            out
        };
        match dist {
            Distribution::Zoned(z) => zones = mk(z, false),
            Distribution::ZonedAbs(z) => zones = mk(z, true),
            _ => {}
        }
        Sampler {
            dist: dist.clone(),
            n,
            skew: FioSkew::new(dist, nranges, seed, true),
            zones,
            fio_zones: match dist {
                Distribution::Zoned(z) => fio_zone_table(z, false),
                Distribution::ZonedAbs(z) => fio_zone_table(z, true),
                _ => Vec::new(),
            },
        }
    }

    /// fio's zone for its draw `v` (1 to 100) of a zoned distribution in whole
    /// percents: (start, end) in percent of the region (`zoned`) or in bytes
    /// (`zoned_abs`, [`Sampler::zones_in_bytes`]). None: not such a distribution.
    pub fn fio_zone(&self, v: u32) -> Option<(u64, u64)> {
        self.fio_zones.get((v as usize).checked_sub(1)?).copied()
    }

    /// The zones of [`Sampler::fio_zone`] are in bytes (`zoned_abs`).
    pub fn zones_in_bytes(&self) -> bool {
        matches!(self.dist, Distribution::ZonedAbs(_))
    }

    /// A skewed distribution's next range (fio places it at range × blockalign). None:
    /// a zoned one (see [`Sampler::sample`]).
    pub fn next_range(&mut self) -> Option<u64> {
        self.skew.as_mut().map(FioSkew::draw)
    }

    /// A zoned distribution's (or a uniform one's) next block index in `[0, n)`.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match &self.dist {
            Distribution::Zoned(_) | Distribution::ZonedAbs(_) => {
                let total = self.zones.last().map(|z| z.0).unwrap_or(100.0);
                let p = rng.unit() * total;
                let z = self
                    .zones
                    .iter()
                    .find(|z| p < z.0)
                    .or(self.zones.last())
                    .expect("at least one zone");
                z.1 + rng.below((z.2 - z.1).max(1))
            }
            _ => rng.below(self.n),
        }
    }
}

/// fio's table for `zoned` and `zoned_abs`: for each hundredth of the accesses (in the
/// zones' order), the zone's start and end, in percent of the region (`zoned`) or in
/// bytes (`zoned_abs`). Empty unless every share (and a `zoned` size) is a whole percent
/// and the shares add up to 100.
fn fio_zone_table(zones: &[Zone], abs: bool) -> Vec<(u64, u64)> {
    let whole = |x: f64| x.fract() == 0.0 && (0.0..=100.0).contains(&x);
    let pcts: f64 = zones.iter().map(|z| z.pct).sum();
    if pcts != 100.0 || !zones.iter().all(|z| whole(z.pct) && (abs || whole(z.size))) {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(100);
    let mut start = 0u64;
    for z in zones {
        let end = match abs {
            true => start + z.size as u64,
            false => (start + z.size as u64).min(100),
        };
        out.extend(std::iter::repeat_n((start, end), z.pct as usize));
        start = end;
    }
    out
}

/// fio's ranges per file in a non-uniform file choice (its `FIO_FSERVICE_SHIFT`).
const FILE_RANGE_SHIFT: u32 = 10;

/// The file choice of `file_service_type=zipf|pareto|normal`, drawn as fio 3.33 draws it:
/// fio's generator ([`FioSkew`], seeded as fio seeds its file picks) over 1024 ranges per
/// file, ranks not hashed, and the file whose ranges the draw falls in. So zipf:1.1 over
/// 8 files sends 86% of the I/Os to the hottest file (zipf over the ranges, not over the
/// files, which would give 40%), and normal is fio's sum of twelve uniform draws plus a
/// uniform deviation of ±dev/2 percent. zipf and pareto turn the hottest file by fio's
/// first draw unless a center places it; normal's is the middle one unless a center
/// moves it.
#[derive(Clone, Debug)]
pub struct FileChooser {
    dist: Distribution,
    files: u64,
    skew: FioSkew,
}

impl FileChooser {
    /// The chooser among `files` files (≥ 1), from fio's seed of its file picks. None:
    /// not a skewed distribution.
    pub fn new(dist: &Distribution, files: u64, seed: u32) -> Option<FileChooser> {
        let files = files.max(1);
        Some(FileChooser {
            dist: dist.clone(),
            files,
            skew: FioSkew::new(dist, files << FILE_RANGE_SHIFT, seed, false)?,
        })
    }

    /// Start over from `seed` (fio seeds its file picks again at each loop under
    /// randrepeat).
    pub fn reseed(&mut self, seed: u32) {
        if let Some(c) = FileChooser::new(&self.dist, self.files, seed) {
            *self = c;
        }
    }

    /// The next file, an index below the number of files.
    pub fn sample(&mut self) -> u64 {
        self.skew.draw() >> FILE_RANGE_SHIFT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chi-square statistic of observed counts against expected probabilities.
    fn chi2(obs: &[u64], exp_p: &[f64]) -> f64 {
        let total: u64 = obs.iter().sum();
        obs.iter()
            .zip(exp_p)
            .filter(|(_, &p)| p > 0.0)
            .map(|(&o, &p)| {
                let e = p * total as f64;
                (o as f64 - e).powi(2) / e
            })
            .sum()
    }

    #[test]
    fn zipf_is_fios_approximation() {
        // fio's draw gives rank 1 to a share 1/ζ(n) of the draws and rank 2 to 2^-θ/ζ(n)
        // exactly (ζ(n) = Σ k^-θ), and spreads the ranks over the file by its hash.
        let n = 1000u64;
        let theta = 1.2;
        let dist = Distribution::Zipf {
            theta,
            center: Some(0.0),
        };
        let mut z = FioSkew::new(&dist, n, 77, true).unwrap();
        let mut hits = vec![0u64; n as usize];
        let draws = 200_000;
        for _ in 0..draws {
            hits[z.draw() as usize] += 1;
        }
        let zeta: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
        // Rank 1 is range 0 (0 hashed is 0, the center puts no turn); rank 2 is where
        // fio's multiplier sends 1.
        let r2 = (GOLDEN_RATIO_64 % n) as usize;
        let p1 = hits[0] as f64 / draws as f64;
        let p2 = hits[r2] as f64 / draws as f64;
        assert!((p1 - 1.0 / zeta).abs() < 0.005, "{p1} vs {}", 1.0 / zeta);
        assert!(
            (p2 - 0.5f64.powf(theta) / zeta).abs() < 0.005,
            "{p2} vs {}",
            0.5f64.powf(theta) / zeta
        );
        // Without a center, fio's first draw turns the whole file.
        let dist = Distribution::Zipf {
            theta,
            center: None,
        };
        let mut turned = FioSkew::new(&dist, n, 77, true).unwrap();
        let off = u64::from(FioTaus::new(77).next_u32()) % n;
        let mut c = vec![0u64; n as usize];
        for _ in 0..20_000 {
            c[turned.draw() as usize] += 1;
        }
        let hottest = (0..n as usize).max_by_key(|&i| c[i]).unwrap() as u64;
        assert_eq!(hottest, off);
    }

    #[test]
    fn file_names_hash_as_fio() {
        // (That fio's zipf offsets come out I/O for I/O, which needs this hash, is
        // tested side by side with fio: tests/fio_equal.rs.) An empty name is the start
        // value, fio's 32-bit golden ratio; these names' hashes seeded zipf jobs whose
        // I/Os came out as fio 3.33's (`directory=/tmp/f21/d` and `/tmp/f21/d/`).
        assert_eq!(fio_jhash(b""), 0x61C8_8647);
        assert_eq!(fio_jhash(b"/tmp/f21/d/z.0.0"), 0x6b36_5247);
        assert_eq!(fio_jhash(b"/tmp/f21/d//a.0.0"), 0x106d_5888);
        assert_eq!(fio_jhash(b"m.0.0"), 0x0d04_1757);
        // Each length takes its own path through the last block and the 12-byte loop.
        let names: Vec<Vec<u8>> = (0..40).map(|n| vec![b'a'; n]).collect();
        let hashes: std::collections::HashSet<u32> = names.iter().map(|n| fio_jhash(n)).collect();
        assert_eq!(hashes.len(), 40);
        // fio adds only the first byte of each 4 in a block before the last: names that
        // differ elsewhere there hash alike, as in fio.
        assert_eq!(
            fio_jhash(b"abcdefghijklmnop"),
            fio_jhash(b"aXXXeXXXiXXXmnop")
        );
        assert_ne!(
            fio_jhash(b"abcdefghijklmnop"),
            fio_jhash(b"abcdefghijklmnoq")
        );
    }

    #[test]
    fn uniform_is_uniform() {
        let s = Sampler::new(&Distribution::Random, 20, 4096, (20, 1));
        let mut rng = Rng::new(3);
        let mut c = vec![0u64; 20];
        for _ in 0..100_000 {
            c[s.sample(&mut rng) as usize] += 1;
        }
        let x = chi2(&c, &[0.05; 20]);
        assert!(x < 43.8, "chi2 {x}"); // 19 dof, 99.9%
    }

    #[test]
    fn normal_is_fios_bell_scattered_over_the_file() {
        // 16384 draws over 1024 blocks (fio 3.33, 4k reads of a 4 MiB file, io_size=64m):
        // normal:10 puts 24.8% of the I/Os on the hottest tenth of the blocks touched and
        // 87.4% on the hottest half; normal:50 19.7% and 78.6%, touching 868 blocks.
        for (dev, top10, top50, touched) in [(10.0, 0.248, 0.874, 553), (50.0, 0.197, 0.786, 868)] {
            let dist = Distribution::Normal { dev, center: 0.5 };
            let mut s = FioSkew::new(&dist, 1024, 5, true).unwrap();
            let mut c = vec![0u32; 1024];
            for _ in 0..16384 {
                c[s.draw() as usize] += 1;
            }
            let mut hot: Vec<(u32, usize)> = c.iter().enumerate().map(|(i, &n)| (n, i)).collect();
            hot.sort_by(|a, b| b.cmp(a));
            let hit: Vec<u32> = hot.iter().map(|h| h.0).filter(|&n| n > 0).collect();
            let share = |k: usize| hit[..k].iter().sum::<u32>() as f64 / 16384.0;
            let n = hit.len();
            assert!((n as i64 - touched).abs() < 60, "dev {dev}: {n} blocks");
            assert!(
                (share(n / 10) - top10).abs() < 0.03,
                "dev {dev}: {}",
                share(n / 10)
            );
            assert!(
                (share(n / 2) - top50).abs() < 0.03,
                "dev {dev}: {}",
                share(n / 2)
            );
            // As fio hashes them, the hottest blocks are spread over the file.
            let (lo, hi) = hot[..8]
                .iter()
                .fold((1024, 0), |(l, h), x| (l.min(x.1), h.max(x.1)));
            assert!(hi - lo > 256, "{:?}", &hot[..8]);
        }
    }

    #[test]
    fn pareto_puts_h_of_accesses_on_1_minus_h_of_ranks() {
        // fio's pareto:0.2 → 80% of the draws fall on 20% of the ranks (the 80/20 rule;
        // fio's hash then sends some ranks to the same block, so its blocks are hotter
        // still: 87% on the hottest fifth here).
        let n = 10_000u64;
        let dist = Distribution::Pareto {
            h: 0.2,
            center: None,
        };
        let mut s = FioSkew::new(&dist, n, 9, false).unwrap();
        let mut hits = vec![0u64; n as usize];
        let draws = 200_000;
        for _ in 0..draws {
            hits[s.draw() as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        let top20: u64 = hits[..(n / 5) as usize].iter().sum();
        let share = top20 as f64 / draws as f64;
        assert!((0.77..0.83).contains(&share), "{share}");
    }

    #[test]
    fn zoned_sends_each_share_to_its_zone() {
        let zones = vec![
            Zone {
                pct: 60.0,
                size: 10.0,
            },
            Zone {
                pct: 30.0,
                size: 20.0,
            },
            Zone {
                pct: 10.0,
                size: 70.0,
            },
        ];
        let s = Sampler::new(&Distribution::Zoned(zones), 1000, 4096, (1000, 1));
        let mut rng = Rng::new(11);
        let mut z = [0u64; 3];
        for _ in 0..100_000 {
            let b = s.sample(&mut rng);
            z[if b < 100 {
                0
            } else if b < 300 {
                1
            } else {
                2
            }] += 1;
        }
        for (got, want) in z.iter().zip([0.6, 0.3, 0.1]) {
            let share = *got as f64 / 100_000.0;
            assert!((share - want).abs() < 0.01, "{z:?}");
        }
    }

    #[test]
    fn zoned_abs_uses_byte_sizes() {
        let zones = vec![
            Zone {
                pct: 50.0,
                size: 4096.0 * 10.0,
            },
            Zone {
                pct: 50.0,
                size: 4096.0 * 90.0,
            },
        ];
        let s = Sampler::new(&Distribution::ZonedAbs(zones), 100, 4096, (100, 1));
        let mut rng = Rng::new(1);
        let low = (0..10_000).filter(|_| s.sample(&mut rng) < 10).count();
        assert!((4_800..5_200).contains(&low), "{low}");
    }

    #[test]
    fn a_zipf_file_choice_sends_most_to_one_file() {
        // fio 3.33: file_service_type=zipf:1.1 over 8 files sends 86% of the I/Os to the
        // hottest file (zipf over 8192 ranges, not hashed).
        let dist = Distribution::Zipf {
            theta: 1.1,
            center: Some(0.0),
        };
        let mut c = FileChooser::new(&dist, 8, 3).unwrap();
        let mut files = [0u32; 8];
        for _ in 0..20_000 {
            files[c.sample() as usize] += 1;
        }
        let top = *files.iter().max().unwrap() as f64 / 20_000.0;
        assert!((0.83..0.89).contains(&top), "{files:?}");
        // Seeded again, it starts over.
        c.reseed(3);
        let mut fresh = FileChooser::new(&dist, 8, 3).unwrap();
        let again: Vec<u64> = (0..50).map(|_| c.sample()).collect();
        let want: Vec<u64> = (0..50).map(|_| fresh.sample()).collect();
        assert_eq!(again, want);
    }
}
