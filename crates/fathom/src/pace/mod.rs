//! Pace: every wait of a job's loop and what decides it. Waits end early on a stop or at
//! the runtime deadline ([`wait_until`], [`sleep_cancellable`]); think time ([`Thinker`]),
//! rate_min ([`MinRate`]), latency_target's depth search ([`latency_target`]), flow
//! groups ([`flow`]) and steady-state detection ([`steady`]).

pub(crate) mod depth;
pub(crate) mod flow;
pub(crate) mod latency_target;
pub(crate) mod steady;

use fathom_stats::ThreadStats;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Wait until `at` (sleeping, then spinning for the last stretch for precision). Returns
/// false when cancelled or when `at` lies past the deadline.
pub(crate) fn wait_until(at: Instant, cancel: &AtomicBool, deadline: Option<Instant>) -> bool {
    if deadline.is_some_and(|d| at >= d) {
        return false;
    }
    loop {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        let now = crate::clock::now();
        if now >= at {
            return true;
        }
        let left = at - now;
        if left > Duration::from_micros(200) {
            std::thread::sleep((left - Duration::from_micros(100)).min(Duration::from_millis(50)));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Sleep, waking early if cancelled. Returns false when cancelled.
pub(crate) fn sleep_cancellable(d: Duration, cancel: &AtomicBool) -> bool {
    let end = crate::clock::now() + d;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        let now = crate::clock::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// rate_min / rate_iops_min: after 2 s of settling, every rate_cycle the direction's
/// bandwidth and IOPS over that cycle must reach the minimum, else the job fails.
pub(crate) struct MinRate {
    pub(crate) bytes_min: [u64; 3],
    pub(crate) iops_min: [u64; 3],
    pub(crate) cycle: Duration,
    /// When the next check (or, before `armed`, the window's start) is due.
    pub(crate) next: Option<Instant>,
    /// A cycle's start has been taken: checks compare against it.
    pub(crate) armed: bool,
    pub(crate) last: ([u64; 3], [u64; 3], Instant),
}

impl MinRate {
    pub(crate) fn new(spec: &fathom_job::JobSpec, start: Instant) -> MinRate {
        // fio's R,W,T rule gives every direction the value: only those the job does count.
        let k = spec.rw.kind;
        let does = [k.reads(), k.writes(), k.trims()];
        let only =
            |v: [u64; 3]| -> [u64; 3] { std::array::from_fn(|d| if does[d] { v[d] } else { 0 }) };
        let (bytes_min, iops_min) = (only(spec.rate_min.0), only(spec.rate_iops_min.0));
        let on = bytes_min.iter().chain(&iops_min).any(|&x| x > 0);
        MinRate {
            bytes_min,
            iops_min,
            cycle: spec.rate_cycle,
            next: on.then(|| start + Duration::from_secs(2)),
            armed: false,
            last: ([0; 3], [0; 3], start),
        }
    }
    #[inline]
    pub(crate) fn check(&mut self, now: Instant, st: &ThreadStats) -> Option<String> {
        if now < self.next? {
            return None;
        }
        let bytes = [st.dirs[0].bytes, st.dirs[1].bytes, st.dirs[2].bytes];
        let ios = [st.dirs[0].ios, st.dirs[1].ios, st.dirs[2].ios];
        let mut err = None;
        if self.armed {
            let secs = now.duration_since(self.last.2).as_secs_f64().max(1e-9);
            for (d, name) in ["read", "write", "trim"].iter().enumerate() {
                let bps = (bytes[d] - self.last.0[d]) as f64 / secs;
                let iops = (ios[d] - self.last.1[d]) as f64 / secs;
                if err.is_none() && self.bytes_min[d] > 0 && bps < self.bytes_min[d] as f64 {
                    err = Some(format!(
                        "{name} bandwidth {bps:.0} B/s over the last {} ms is below rate_min {} B/s",
                        self.cycle.as_millis(),
                        self.bytes_min[d]
                    ));
                }
                if err.is_none() && self.iops_min[d] > 0 && iops < self.iops_min[d] as f64 {
                    err = Some(format!(
                        "{name} IOPS {iops:.0} over the last {} ms is below rate_iops_min {}",
                        self.cycle.as_millis(),
                        self.iops_min[d]
                    ));
                }
            }
        }
        self.armed = true;
        self.last = (bytes, ios, now);
        self.next = Some(now + self.cycle);
        err
    }
}

/// Counts I/Os (or I/O time) towards the next thinktime stall and stalls when due.
pub(crate) struct Thinker {
    pub(crate) t: crate::plan::ThinkTime,
    pub(crate) since: u32,
    pub(crate) io_start: Instant,
    /// A stall is due before the next I/O is issued.
    pub(crate) due: bool,
}

impl Thinker {
    pub(crate) fn new(t: crate::plan::ThinkTime) -> Thinker {
        Thinker {
            t,
            since: 0,
            io_start: crate::clock::now(),
            due: false,
        }
    }
    /// One more I/O; true if a stall is now due. As fio, the stall comes before the next
    /// I/O is issued (after the queue has drained), so I/Os completing at the end of a
    /// job make none.
    #[inline]
    pub(crate) fn count(&mut self) -> bool {
        if self.t.time.is_zero() {
            return false;
        }
        self.since += 1;
        let by_blocks = if self.t.iotime.is_zero() {
            self.since >= self.t.blocks.max(1)
        } else {
            // With thinktime_iotime, blocks count only when set above 1.
            self.t.blocks > 1 && self.since >= self.t.blocks
        };
        let by_time = !self.t.iotime.is_zero() && self.io_start.elapsed() >= self.t.iotime;
        if by_blocks || by_time {
            self.since = 0;
            self.due = true;
        }
        self.due
    }
    /// Make the due stall: spin for `thinktime_spin`, sleep the rest. False when a stop
    /// or the deadline came first (checked at least every 50 ms).
    pub(crate) fn stall(&mut self, cancel: &AtomicBool, deadline: Option<Instant>) -> bool {
        self.due = false;
        let start = crate::clock::now();
        let spin = self.t.spin.min(self.t.time);
        while start.elapsed() < spin {
            std::hint::spin_loop();
        }
        // A stall that would outlast the runtime sleeps until the deadline and ends
        // the job there, as fio's does.
        let end = start + self.t.time;
        let until = deadline.map_or(end, |d| d.min(end));
        let woke = wait_until(until, cancel, None);
        self.io_start = crate::clock::now();
        woke && until == end
    }
}
