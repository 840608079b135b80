//! latency_target: the search for the deepest queue that meets the latency goal, then the measured window.

use fathom_stats::ThreadStats;
use std::time::{Duration, Instant};

/// What a latency_target check decided.
pub(crate) enum LtEvent {
    None,
    /// The best depth is found: its final window starts now, with fresh statistics.
    Reset,
    /// The final window is over: the job ends.
    Done,
}

/// fio's latency_target search: start at depth 1, double while a window's I/Os meet the
/// target (in latency_percentile of them), bisect between the last good and the first
/// bad depth, and once the depth settles run one more window with fresh statistics
/// (unless latency_run keeps adjusting). An I/O over the target at depth 1 with a 100%
/// percentile is fatal (ETIMEDOUT).
pub(crate) struct LatTarget {
    pub(crate) target_ns: u64,
    pub(crate) window: Duration,
    pub(crate) pct: f64,
    pub(crate) keep_running: bool,
    pub(crate) max: u32,
    pub(crate) qd: u32,
    pub(crate) low: u32,
    pub(crate) high: u32,
    pub(crate) stable: u32,
    pub(crate) since: Instant,
    pub(crate) ios_at: u64,
    pub(crate) failed: u64,
    pub(crate) end_run: bool,
}

pub(crate) fn total_ios(st: &ThreadStats) -> u64 {
    st.dirs.iter().map(|d| d.ios).sum()
}

impl LatTarget {
    pub(crate) fn new(spec: &fathom_job::JobSpec, depth: u32, now: Instant) -> Option<LatTarget> {
        (!spec.latency_target.is_zero()).then(|| LatTarget {
            target_ns: spec.latency_target.as_nanos() as u64,
            window: spec.latency_window,
            pct: spec.latency_percentile,
            keep_running: spec.latency_run,
            max: depth.max(1),
            qd: 1,
            low: 1,
            high: depth.max(1),
            stable: 0,
            since: now,
            ios_at: 0,
            failed: 0,
            end_run: false,
        })
    }
    pub(crate) fn new_cycle(&mut self, now: Instant, st: &ThreadStats) {
        self.since = now;
        self.ios_at = total_ios(st);
        self.failed = 0;
    }
    /// An I/O took `lat_ns`; true if that is fatal (over the target at depth 1).
    pub(crate) fn on_complete(&mut self, lat_ns: u64, now: Instant, st: &ThreadStats) -> bool {
        if lat_ns <= self.target_ns {
            return false;
        }
        if self.pct < 100.0 {
            self.failed += 1;
            return false;
        }
        self.ramp_down(now, st)
    }
    pub(crate) fn fatal_text(&self, lat_ns: u64) -> String {
        format!(
            "latency_target: an I/O took {lat_ns} ns, over the target of {} ns, at queue \
             depth 1: the target cannot be met",
            self.target_ns
        )
    }
    /// A window (or, at 100%, one I/O) missed the target: bisect down. True at depth 1.
    pub(crate) fn ramp_down(&mut self, now: Instant, st: &ThreadStats) -> bool {
        if self.qd == 1 {
            return true;
        }
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = ((self.qd + self.low) / 2).max(1);
        self.stable = 0;
        self.new_cycle(now, st);
        false
    }
    pub(crate) fn check(&mut self, now: Instant, st: &ThreadStats) -> LtEvent {
        if now.duration_since(self.since) < self.window {
            return LtEvent::None;
        }
        let ios = total_ios(st).saturating_sub(self.ios_at);
        if ios == 0 {
            return LtEvent::None;
        }
        let ok = (ios - self.failed.min(ios)) as f64 / ios as f64 * 100.0;
        if ok < self.pct {
            // Below the percentile: down (at depth 1 it stays; only a single slow I/O
            // at 100% is fatal, as in fio).
            let _ = self.ramp_down(now, st);
            return LtEvent::None;
        }
        let qd = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            // Stuck one below the first bad depth: after three good windows try higher.
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        if self.high != self.max {
            self.qd = (self.qd + self.high) / 2;
        } else {
            self.qd *= 2;
        }
        self.qd = self.qd.clamp(1, self.max);
        let mut ev = LtEvent::None;
        if !self.keep_running && self.qd == qd {
            if self.end_run {
                ev = LtEvent::Done;
            } else {
                self.end_run = true;
                ev = LtEvent::Reset;
            }
        }
        let fresh = ThreadStats::new();
        self.new_cycle(
            now,
            if matches!(ev, LtEvent::Reset) {
                &fresh
            } else {
                st
            },
        );
        ev
    }
}

#[cfg(test)]
mod lat_target_tests {
    use super::*;

    /// A device whose latency is 100 µs per queued I/O: with a 450 µs target the
    /// search must settle at depth 4.
    #[test]
    pub(crate) fn the_search_settles_at_the_deepest_queue_that_meets_the_target() {
        let spec = fathom_job::parse_fio_str(
            "[a]\nsize=1m\nlatency_target=450us\nlatency_window=1ms\nlatency_percentile=99\n",
            "t.fio",
        )
        .unwrap()
        .jobs
        .remove(0);
        let t0 = Instant::now();
        let mut l = LatTarget::new(&spec, 64, t0).unwrap();
        let mut st = ThreadStats::new();
        let mut now = t0;
        let mut seen = Vec::new();
        for _ in 0..200 {
            // One window of 100 I/Os at the current depth.
            for _ in 0..100 {
                st.record_io(0, 4096, None, 100_000 * l.qd as u64);
                assert!(!l.on_complete(100_000 * l.qd as u64, now, &st));
            }
            now += Duration::from_millis(2);
            seen.push(l.qd);
            match l.check(now, &st) {
                LtEvent::Done => break,
                LtEvent::Reset => st = ThreadStats::new(),
                LtEvent::None => {}
            }
        }
        assert_eq!(l.qd, 4, "depths tried: {seen:?}");
        assert_eq!(&seen[..4], &[1, 2, 4, 8], "doubling until the first miss");
        assert!(l.end_run);
    }

    #[test]
    pub(crate) fn a_slow_io_at_depth_one_is_fatal_at_100_percent() {
        let spec = fathom_job::parse_fio_str("[a]\nsize=1m\nlatency_target=10us\n", "t.fio")
            .unwrap()
            .jobs
            .remove(0);
        let now = Instant::now();
        let mut l = LatTarget::new(&spec, 8, now).unwrap();
        let st = ThreadStats::new();
        assert!(!l.on_complete(9_000, now, &st));
        assert!(l.on_complete(11_000, now, &st));
        assert!(l.fatal_text(11_000).contains("11000 ns"));
    }
}
