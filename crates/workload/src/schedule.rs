//! Rate control: every I/O gets an *intended* issue time from the schedule, so a job
//! limited to a rate issues I/Os when a real client would, and latency can be measured
//! from that intended time (queueing delay included) — a slow device cannot hide behind
//! the limiter (no coordinated omission).

use crate::rng::Rng;
use std::time::Duration;

/// Arrival process (fio's `rate_process`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateProcess {
    /// Evenly spaced arrivals.
    #[default]
    Linear,
    /// Exponentially distributed gaps with the same mean (a Poisson process).
    Poisson,
}

/// Rate limits per direction (read, write, trim); 0 = unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSpec {
    /// Bytes per second.
    pub bytes_per_sec: [u64; 3],
    /// I/Os per second (used for a direction whose byte rate is 0).
    pub iops: [u64; 3],
    /// Arrival process.
    pub process: RateProcess,
}

impl RateSpec {
    /// True if any direction is limited.
    pub fn is_limited(&self) -> bool {
        self.bytes_per_sec
            .iter()
            .chain(self.iops.iter())
            .any(|&r| r > 0)
    }
}

/// The per-direction schedule of intended issue times, as offsets from the start of the
/// job's I/O.
#[derive(Clone, Debug)]
pub struct Schedule {
    spec: RateSpec,
    next_ns: [f64; 3],
    /// Each direction's last I/O length (a byte rate's gap per I/O).
    last_len: [u64; 3],
    rng: Rng,
}

impl Schedule {
    /// A schedule for `spec`; `seed` drives the Poisson gaps.
    pub fn new(spec: RateSpec, seed: u64) -> Schedule {
        Schedule {
            spec,
            next_ns: [0.0; 3],
            last_len: [0; 3],
            rng: Rng::new(seed ^ 0x5c4e_d01e),
        }
    }

    /// The intended issue time of the next I/O of direction `dir` and `len` bytes, or
    /// None when that direction is unlimited. Advances the schedule.
    pub fn intended(&mut self, dir: usize, len: u64) -> Option<Duration> {
        let mean_gap_ns = self.gap_ns(dir, len)?;
        self.last_len[dir] = len;
        let gap = match self.spec.process {
            RateProcess::Linear => mean_gap_ns,
            RateProcess::Poisson => -mean_gap_ns * (1.0 - self.rng.unit()).ln(),
        };
        let at = self.next_ns[dir];
        self.next_ns[dir] += gap;
        Some(Duration::from_nanos(at as u64))
    }

    /// When the next I/O of direction `dir` may go (None: that direction is unlimited),
    /// without advancing the schedule.
    pub fn next_at(&self, dir: usize) -> Option<Duration> {
        self.gap_ns(dir, 1)
            .map(|_| Duration::from_nanos(self.next_ns[dir] as u64))
    }

    /// The mean gap between I/Os of `len` bytes in direction `dir` (None: unlimited).
    fn gap_ns(&self, dir: usize, len: u64) -> Option<f64> {
        if self.spec.bytes_per_sec[dir] > 0 {
            Some(len as f64 * 1e9 / self.spec.bytes_per_sec[dir] as f64)
        } else if self.spec.iops[dir] > 0 {
            Some(1e9 / self.spec.iops[dir] as f64)
        } else {
            None
        }
    }

    /// `rate_ignore_thinktime`: the job stalled for `by`; its schedule moves on by as
    /// much less one I/O's gap (as fio: the first I/O after the stall goes at once), so
    /// the I/Os the stall skipped are not caught up.
    pub fn skip(&mut self, by: Duration) {
        let by = by.as_nanos() as f64;
        for dir in 0..3 {
            if let Some(gap) = self.gap_ns(dir, self.last_len[dir].max(1)) {
                self.next_ns[dir] += if gap <= by { by - gap } else { by };
            }
        }
    }

    /// Restart the schedule at time zero (after ramp).
    pub fn reset(&mut self) {
        self.next_ns = [0.0; 3];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_stall_moves_the_schedule_on_less_one_gap() {
        let mut s = Schedule::new(
            RateSpec {
                iops: [1000, 0, 0],
                ..Default::default()
            },
            1,
        );
        s.intended(0, 4096);
        s.skip(Duration::from_millis(100));
        // Due at 1 ms, moved on by 100 ms less the 1 ms gap.
        assert_eq!(s.intended(0, 4096), Some(Duration::from_millis(100)));
        // A stall shorter than one gap moves it on by the whole stall.
        s.skip(Duration::from_micros(400));
        assert_eq!(s.intended(0, 4096), Some(Duration::from_micros(101_400)));
    }

    #[test]
    fn linear_spacing_is_exact() {
        let mut s = Schedule::new(
            RateSpec {
                iops: [1000, 0, 0],
                ..Default::default()
            },
            1,
        );
        let t: Vec<u128> = (0..4)
            .map(|_| s.intended(0, 4096).unwrap().as_micros())
            .collect();
        assert_eq!(t, vec![0, 1000, 2000, 3000]);
        assert_eq!(s.intended(1, 4096), None, "writes are unlimited");
    }

    #[test]
    fn byte_rates_divide_by_length() {
        let mut s = Schedule::new(
            RateSpec {
                bytes_per_sec: [0, 1 << 20, 0],
                ..Default::default()
            },
            1,
        );
        s.intended(1, 1 << 19);
        assert_eq!(s.intended(1, 1 << 19).unwrap(), Duration::from_millis(500));
    }

    #[test]
    fn poisson_mean_rate_within_one_percent() {
        // 3 s at 10k IOPS: the 30000th arrival lands within 1% of 3 s.
        let mut s = Schedule::new(
            RateSpec {
                iops: [10_000, 0, 0],
                process: RateProcess::Poisson,
                ..Default::default()
            },
            42,
        );
        let mut last = Duration::ZERO;
        for _ in 0..30_001 {
            last = s.intended(0, 4096).unwrap();
        }
        let secs = last.as_secs_f64();
        assert!((secs - 3.0).abs() < 0.03, "{secs}");
    }
}
