//! Steady-state detection (fio's `steadystate`, `ss_dur`, `ss_ramp`, `ss_interval`).
//!
//! Once per interval, after the ramp and one more interval, the job's IOPS, bandwidth
//! and mean completion latency over that interval (all its clones together, from their
//! published counters) go into a rolling window of `ss_dur / ss_interval` samples. When
//! the window is full the criterion is checked at every new sample: the largest deviation
//! from the window's mean, or the slope of the least-squares line through it (per
//! interval), as a value or as a percentage of the mean. Below the limit, the job is
//! steady and ends.

use fathom_job::{JobSpec, SteadyCriterion, SteadyMetric};
use fathom_stats::SteadyState;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Totals of a job's clones at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    pub ios: u64,
    pub bytes: u64,
    pub clat_sum_ns: u64,
    pub clat_n: u64,
}

/// One job's steady-state watch.
#[derive(Debug)]
pub(crate) struct Tracker {
    crit: SteadyCriterion,
    dur: Duration,
    interval: Duration,
    n: usize,
    /// When samples start to count (start + ramp + one interval).
    collect_from: Instant,
    next: Instant,
    prev: Option<(Instant, Totals)>,
    /// (iops, bw B/s, mean clat ns) per interval, oldest first.
    window: VecDeque<(u64, u64, u64)>,
    attained: bool,
    criterion: f64,
    deviation: f64,
    slope: f64,
}

impl Tracker {
    /// A watch for `spec` if it asks for one (`ss_dur` > 0), starting now.
    pub(crate) fn new(spec: &JobSpec, start: Instant) -> Option<Tracker> {
        if spec.ss_dur.is_zero() {
            return None;
        }
        let n = (spec.ss_dur.as_millis() / spec.ss_interval.as_millis().max(1)) as usize;
        Some(Tracker {
            crit: spec.steadystate,
            dur: spec.ss_dur,
            interval: spec.ss_interval,
            n: n.max(2),
            collect_from: start + spec.ss_ramp + spec.ss_interval,
            next: start + spec.ss_interval,
            prev: None,
            window: VecDeque::with_capacity(n.max(2)),
            attained: false,
            criterion: 0.0,
            deviation: 0.0,
            slope: 0.0,
        })
    }

    /// When the next check is due.
    pub(crate) fn due(&self) -> Instant {
        self.next
    }

    /// Take a sample if one is due; true when the job has just become steady.
    pub(crate) fn poll(&mut self, now: Instant, t: Totals) -> bool {
        if self.attained || now < self.next {
            return false;
        }
        while self.next <= now {
            self.next += self.interval;
        }
        let Some((at, p)) = self.prev.replace((now, t)) else {
            return false;
        };
        // Counters restart at the end of ramp_time: that interval is not a sample.
        if t.ios < p.ios || t.bytes < p.bytes || t.clat_n < p.clat_n || now < self.collect_from {
            return false;
        }
        let secs = now.duration_since(at).as_secs_f64();
        if secs <= 0.0 {
            return false;
        }
        let iops = ((t.ios - p.ios) as f64 / secs) as u64;
        let bw = ((t.bytes - p.bytes) as f64 / secs) as u64;
        let dn = t.clat_n - p.clat_n;
        let lat = (t.clat_sum_ns.saturating_sub(p.clat_sum_ns))
            .checked_div(dn)
            .unwrap_or(0);
        self.push((iops, bw, lat))
    }

    /// Add a sample to the window; true when the criterion is met.
    fn push(&mut self, s: (u64, u64, u64)) -> bool {
        if self.window.len() == self.n {
            self.window.pop_front();
        }
        self.window.push_back(s);
        if self.window.len() < self.n {
            return false;
        }
        let ys: Vec<f64> = self
            .window
            .iter()
            .map(|&(i, b, l)| match self.crit.metric {
                SteadyMetric::Iops => i,
                SteadyMetric::Bw => b,
                SteadyMetric::Lat => l,
            } as f64)
            .collect();
        let n = ys.len() as f64;
        let mean = ys.iter().sum::<f64>() / n;
        let value = if self.crit.slope {
            // Least squares with x = 0, 1, …, n-1 (one step per interval).
            let xm = (n - 1.0) / 2.0;
            let sxy: f64 = ys
                .iter()
                .enumerate()
                .map(|(x, y)| (x as f64 - xm) * (y - mean))
                .sum();
            let sxx: f64 = (0..ys.len()).map(|x| (x as f64 - xm).powi(2)).sum();
            self.slope = sxy / sxx;
            self.slope
        } else {
            self.deviation = ys.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max);
            self.deviation
        };
        self.criterion = if self.crit.percent {
            if mean > 0.0 {
                100.0 * value / mean
            } else {
                f64::INFINITY
            }
        } else {
            value
        };
        if self.criterion.abs() < self.crit.limit {
            self.attained = true;
        }
        self.attained
    }

    /// What the watch saw, for the job's results.
    pub(crate) fn result(&self) -> SteadyState {
        let mean = |f: fn(&(u64, u64, u64)) -> u64| {
            if self.window.is_empty() {
                0
            } else {
                self.window.iter().map(f).sum::<u64>() / self.window.len() as u64
            }
        };
        let criterion = if self.criterion.is_finite() {
            self.criterion
        } else {
            0.0
        };
        SteadyState {
            ss: self.crit.text(),
            duration: self.dur.as_secs(),
            attained: self.attained,
            criterion: format!("{criterion:.6}{}", if self.crit.percent { "%" } else { "" }),
            max_deviation: self.deviation,
            slope: self.slope,
            bw_mean: mean(|s| s.1),
            iops_mean: mean(|s| s.0),
            lat_mean: mean(|s| s.2),
            iops: self.window.iter().map(|s| s.0).collect(),
            bw: self.window.iter().map(|s| s.1).collect(),
            lat: self.window.iter().map(|s| s.2).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracker(ss: &str, dur: u64) -> Tracker {
        let spec =
            fathom_job::parse_fio_str(&format!("[a]\nsize=1m\nss={ss}\nss_dur={dur}\n"), "t.fio")
                .unwrap()
                .jobs
                .remove(0);
        Tracker::new(&spec, Instant::now()).unwrap()
    }

    #[test]
    fn a_flat_window_is_steady_and_a_ramp_is_not() {
        let mut t = tracker("iops_slope:1%", 5);
        for v in [1000, 2000, 3000, 4000] {
            assert!(!t.push((v, v * 4096, 100)));
        }
        assert!(!t.push((5000, 0, 100)), "a steep ramp is not steady");
        assert!((t.slope - 1000.0).abs() < 1e-9);
        assert!((t.criterion - 1000.0 / 3000.0 * 100.0).abs() < 1e-9);
        for _ in 0..5 {
            t.push((5000, 5000 * 4096, 100));
        }
        assert!(t.attained);
        let r = t.result();
        assert_eq!(r.iops, vec![5000; 5]);
        assert_eq!((r.iops_mean, r.duration), (5000, 5));
        assert_eq!(r.ss, "iops_slope:1.000000%");
        assert_eq!(r.criterion, "0.000000%");

        let mut d = tracker("bw:100", 3);
        assert!(!d.push((0, 1000, 0)));
        assert!(!d.push((0, 1300, 0)));
        assert!(!d.push((0, 1000, 0)), "deviation 200 from the mean 1100");
        assert!((d.deviation - 200.0).abs() < 1e-9);
        assert!(!d.push((0, 1100, 0)), "1300, 1000, 1100: deviation 167");
        assert!(d.push((0, 1050, 0)), "1000, 1100, 1050: deviation 50");
    }
}
