//! Random offset distributions (fio's `random_distribution`).
//!
//! Each distribution draws a block index in `[0, n)`. Skewed distributions (zipf, pareto)
//! draw a *rank* (0 = hottest) and then spread ranks over the file with a fixed
//! pseudo-random permutation, so hot blocks are not all at the start of the file (fio
//! hashes ranks for the same reason). `center` (0..1) moves the hot spot: the rank (or
//! the normal distribution's mean) is shifted by `center × n`, wrapping around.

use crate::rng::Rng;

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
        /// Hot-spot position (0..1).
        center: f64,
    },
    /// Pareto with shape h (0 < h < 1): h of the accesses go to 1−h of the blocks.
    Pareto {
        /// Shape.
        h: f64,
        /// Hot-spot position (0..1).
        center: f64,
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
}

/// A bijection on `[0, n)`: a keyed mixing function on the smallest power-of-two domain
/// that holds n, applied repeatedly until the value falls inside `[0, n)` (cycle walking).
#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    bits: u32,
    key: u64,
}

impl Permutation {
    /// A permutation of `[0, n)` chosen by `key`.
    pub fn new(n: u64, key: u64) -> Permutation {
        let bits = 64 - n.max(2).saturating_sub(1).leading_zeros();
        Permutation {
            n,
            bits: bits.max(1),
            key,
        }
    }
    fn mix(&self, mut x: u64) -> u64 {
        let mask = if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        // Each step is invertible on `bits`-bit integers: xor with a key, multiply by an
        // odd constant, xorshift right.
        for r in 0..3u64 {
            x ^= self.key.wrapping_add(r.wrapping_mul(0x9E37_79B9_7F4A_7C15)) & mask;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9 | 1) & mask;
            x ^= x >> (self.bits / 2).max(1);
        }
        x & mask
    }
    /// The image of `i` (< n).
    pub fn apply(&self, i: u64) -> u64 {
        let mut x = self.mix(i);
        while x >= self.n {
            x = self.mix(x);
        }
        x
    }
}

/// Draws block indices from a distribution.
#[derive(Clone, Debug)]
pub struct Sampler {
    dist: Distribution,
    n: u64,
    perm: Permutation,
    zipf: Option<ZipfSampler>,
    /// For zoned: cumulative pct and [start, end) block ranges.
    zones: Vec<(f64, u64, u64)>,
    /// For zoned in whole percents adding up to 100: fio's table of where each of its
    /// draws from 1 to 100 goes, (start, end) in percent of the region (see `fio_zone`).
    fio_zones: Vec<(u8, u8)>,
}

impl Sampler {
    /// A sampler over `n` blocks of `block` bytes (block size matters for zoned_abs).
    pub fn new(dist: &Distribution, n: u64, block: u64, seed: u64) -> Sampler {
        let n = n.max(1);
        let zipf = match dist {
            Distribution::Zipf { theta, .. } => Some(ZipfSampler::new(n, *theta)),
            _ => None,
        };
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
            perm: Permutation::new(n, seed ^ 0xC0FF_EE00),
            zipf,
            zones,
            fio_zones: match dist {
                Distribution::Zoned(z) => fio_zone_table(z),
                _ => Vec::new(),
            },
        }
    }

    /// fio's zone for its draw `v` (1 to 100) of a `zoned` distribution in whole
    /// percents: (start, end) in percent of the region. None: not such a distribution.
    pub fn fio_zone(&self, v: u32) -> Option<(u64, u64)> {
        let &(a, b) = self.fio_zones.get((v as usize).checked_sub(1)?)?;
        Some((u64::from(a), u64::from(b)))
    }

    fn shift(&self, rank: u64, center: f64) -> u64 {
        let off = (center.clamp(0.0, 1.0) * self.n as f64) as u64;
        (rank + off) % self.n
    }

    /// The next block index in `[0, n)`.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match &self.dist {
            Distribution::Random => rng.below(self.n),
            Distribution::Zipf { center, .. } => {
                let rank = self.zipf.as_ref().expect("zipf sampler").sample(rng) - 1;
                self.perm.apply(self.shift(rank, *center))
            }
            Distribution::Pareto { h, center } => {
                // Inverse transform of fio's power law: rank = n · u^(ln h / ln(1−h)).
                let u = rng.unit();
                let pow = h.ln() / (1.0 - h).ln();
                let rank = ((self.n as f64) * u.powf(pow)) as u64;
                self.perm.apply(self.shift(rank.min(self.n - 1), *center))
            }
            Distribution::Normal { dev, center } => {
                // fio's bell (see `fio_gauss`), its values scattered over the file as fio
                // hashes them, then turned by the center as fio turns them.
                let v = fio_gauss(self.n, *dev, rng).min(self.n - 1);
                let off = (self.n as f64 * (center - 0.5)) as i128;
                (self.perm.apply(v) as i128 + off).rem_euclid(self.n as i128) as u64
            }
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
        }
    }
}

/// fio's table for `zoned`: for each hundredth of the accesses (in the zones' order),
/// the zone's start and end in percent of the region. Empty unless every share and size
/// is a whole percent and the shares add up to 100.
fn fio_zone_table(zones: &[Zone]) -> Vec<(u8, u8)> {
    let whole = |x: f64| x.fract() == 0.0 && (0.0..=100.0).contains(&x);
    let pcts: f64 = zones.iter().map(|z| z.pct).sum();
    if pcts != 100.0 || !zones.iter().all(|z| whole(z.pct) && whole(z.size)) {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(100);
    let mut start = 0u32;
    for z in zones {
        let end = (start + z.size as u32).min(100);
        out.extend(std::iter::repeat_n(
            (start as u8, end as u8),
            z.pct as usize,
        ));
        start = end;
    }
    out
}

/// fio's ranges per file in a non-uniform file choice (its `FIO_FSERVICE_SHIFT`).
const FILE_RANGE_SHIFT: u32 = 10;

/// The file choice of `file_service_type=zipf|pareto|normal`, drawn as fio 3.33 draws it:
/// the distribution over 1024 ranges per file, ranks not hashed, and the file whose ranges
/// the draw falls in. So zipf:1.1 over 8 files sends 86% of the I/Os to the hottest file
/// (zipf over the ranges, not over the files, which would give 40%), and normal is fio's
/// sum of twelve uniform draws plus a uniform deviation of ±dev/2 percent. The hottest
/// file is the first (fio turns it by a random offset unless a center is given; `center`
/// moves it here as there).
#[derive(Clone, Debug)]
pub struct FileChooser {
    dist: Distribution,
    ranges: u64,
    off: i128,
    zipf: Option<ZipfSampler>,
}

impl FileChooser {
    /// The chooser among `files` files (≥ 1).
    pub fn new(dist: &Distribution, files: u64) -> FileChooser {
        let ranges = files.max(1) << FILE_RANGE_SHIFT;
        let (zipf, off) = match *dist {
            Distribution::Zipf { theta, center } => (
                Some(ZipfSampler::new(ranges, theta)),
                (ranges as f64 * center) as i128,
            ),
            Distribution::Pareto { center, .. } => (None, (ranges as f64 * center) as i128),
            Distribution::Normal { center, .. } => (None, (ranges as f64 * (center - 0.5)) as i128),
            _ => (None, 0),
        };
        FileChooser {
            dist: dist.clone(),
            ranges,
            off,
            zipf,
        }
    }

    /// The next file, an index below the number of files.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let n = self.ranges;
        let v = match self.dist {
            Distribution::Zipf { .. } => self.zipf.as_ref().expect("zipf sampler").sample(rng) - 1,
            Distribution::Pareto { h, .. } => {
                let pow = h.ln() / (1.0 - h).ln();
                ((n - 1) as f64 * rng.unit().powf(pow)) as u64
            }
            Distribution::Normal { dev, .. } => fio_gauss(n, dev, rng),
            _ => rng.below(n),
        };
        ((v as i128 + self.off).rem_euclid(n as i128) as u64) >> FILE_RANGE_SHIFT
    }
}

/// fio's "normal" draw over `[0, n]`: the mean of twelve uniform draws (a bell around
/// n/2 with a deviation of n/12), moved by a uniform deviation of up to ±dev/2 percent of
/// n (halved until it stays inside). So `normal:50` is a bell, not nearly uniform.
fn fio_gauss(n: u64, dev: f64, rng: &mut Rng) -> u64 {
    let mut sum: u64 = (0..12).map(|_| rng.below(n + 1)).sum();
    sum = sum.div_ceil(12);
    let sd = ((n as f64 * dev) / 100.0).ceil().min((n / 2) as f64) as i64;
    if sd > 0 {
        let mut d = (sd as f64 * rng.unit()) as i64 - sd / 2;
        while d + sum as i64 >= n as i64 || d + (sum as i64) < 0 {
            d /= 2;
        }
        sum = (sum as i64 + d) as u64;
    }
    sum
}

/// Zipf sampling by rejection inversion (Hörmann & Derflinger, 1996): O(1) per draw for
/// any n. Returns ranks in `[1, n]`.
#[derive(Clone, Debug)]
struct ZipfSampler {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    s_check: f64,
}

impl ZipfSampler {
    fn new(n: u64, s: f64) -> ZipfSampler {
        let n = n as f64;
        let mut z = ZipfSampler {
            n,
            s,
            h_x1: 0.0,
            h_n: 0.0,
            s_check: 0.0,
        };
        z.h_x1 = z.h(1.5) - 1.0;
        z.h_n = z.h(n + 0.5);
        z.s_check = 2.0 - z.h_inv(z.h(2.5) - (2.0f64).powf(-s));
        z
    }
    /// H(x) = ∫ x^-s: (x^(1−s) − 1)/(1−s), or ln x at s = 1.
    fn h(&self, x: f64) -> f64 {
        let e = 1.0 - self.s;
        if e.abs() < 1e-12 {
            x.ln()
        } else {
            (x.powf(e) - 1.0) / e
        }
    }
    fn h_inv(&self, x: f64) -> f64 {
        let e = 1.0 - self.s;
        if e.abs() < 1e-12 {
            x.exp()
        } else {
            (1.0 + x * e).powf(1.0 / e)
        }
    }
    fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.unit() * (self.h_x1 - self.h_n);
            let x = self.h_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s_check || u >= self.h(k + 0.5) - k.powf(-self.s) {
                return k as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 7, 1000, 4097] {
            let p = Permutation::new(n, 99);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let v = p.apply(i) as usize;
                assert!(!seen[v], "n={n}");
                seen[v] = true;
            }
        }
    }

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
    fn zipf_ranks_follow_the_zipf_pmf() {
        // Ranks (before the permutation) against 1/k^θ, chi-square with 49 dof: the
        // 99.9% critical value is about 85.
        let n = 50u64;
        let z = ZipfSampler::new(n, 1.2);
        let mut rng = Rng::new(7);
        let mut counts = vec![0u64; n as usize];
        for _ in 0..200_000 {
            counts[(z.sample(&mut rng) - 1) as usize] += 1;
        }
        let norm: f64 = (1..=n).map(|k| (k as f64).powf(-1.2)).sum();
        let p: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-1.2) / norm).collect();
        let x = chi2(&counts, &p);
        assert!(x < 85.0, "chi2 {x}");
    }

    #[test]
    fn uniform_is_uniform() {
        let s = Sampler::new(&Distribution::Random, 20, 4096, 1);
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
            let s = Sampler::new(&Distribution::Normal { dev, center: 0.5 }, 1024, 4096, 1);
            let mut rng = Rng::new(5);
            let mut c = vec![0u32; 1024];
            for _ in 0..16384 {
                c[s.sample(&mut rng) as usize] += 1;
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
        // fio's pareto:0.2 → 80% of accesses hit 20% of the blocks (the 80/20 rule).
        let n = 10_000u64;
        let s = Sampler::new(
            &Distribution::Pareto {
                h: 0.2,
                center: 0.0,
            },
            n,
            4096,
            1,
        );
        let mut rng = Rng::new(9);
        let mut hits = vec![0u64; n as usize];
        let draws = 200_000;
        for _ in 0..draws {
            hits[s.sample(&mut rng) as usize] += 1;
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
        let s = Sampler::new(&Distribution::Zoned(zones), 1000, 4096, 1);
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
        let s = Sampler::new(&Distribution::ZonedAbs(zones), 100, 4096, 1);
        let mut rng = Rng::new(1);
        let low = (0..10_000).filter(|_| s.sample(&mut rng) < 10).count();
        assert!((4_800..5_200).contains(&low), "{low}");
    }
}
