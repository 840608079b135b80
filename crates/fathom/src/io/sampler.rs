//! Bandwidth/IOPS samples at the job's averaging interval and the live counters the progress line reads.

use fathom_stats::{Sample, ThreadStats};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Interval of bandwidth/IOPS samples (fio's bwavgtime/iopsavgtime default).
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(500);

/// How often a job's bandwidth and IOPS are sampled (bw_min/max/dev/samples), as fio:
/// `bwavgtime` (or `iopsavgtime`), else `log_avg_msec` when a bw or IOPS log is written
/// (no longer than `bwavgtime` when both are set), else 500 ms.
pub fn sample_interval(spec: &fathom_job::JobSpec) -> Duration {
    let set = spec.control.bwavgtime.or(spec.control.iopsavgtime);
    let logged = (spec.logs.bw.is_some() || spec.logs.iops.is_some()) && spec.logs.avg_msec > 0;
    let log = Duration::from_millis(spec.logs.avg_msec as u64);
    let d = match (set, logged) {
        (Some(t), true) => t.min(log),
        (Some(t), false) => t,
        (None, true) => log,
        (None, false) => SAMPLE_INTERVAL,
    };
    d.max(Duration::from_millis(1))
}

/// How often a clone publishes its live counters (progress line, status intervals).
pub(crate) const LIVE_INTERVAL: Duration = Duration::from_millis(50);

pub(crate) struct Sampler<'a> {
    pub(crate) live: Option<&'a crate::record::live::LiveClone>,
    /// The next sample or publication, whichever is first (one comparison per I/O).
    pub(crate) wake: Instant,
    pub(crate) live_next: Instant,
    pub(crate) next: Instant,
    pub(crate) start: Instant,
    pub(crate) last_at: Instant,
    pub(crate) last_bytes: [u64; 3],
    pub(crate) last_ios: [u64; 3],
    /// Completion latencies up to the previous sample (the next one's percentiles are
    /// of the difference).
    pub(crate) last_clat: [Option<hdrhistogram::Histogram<u64>>; 3],
    /// Exact latency sums up to the previous sample.
    pub(crate) last_sums: [(u128, u128); 3],
    pub(crate) dirs: [bool; 3],
    /// Time between samples (see [`sample_interval`]).
    pub(crate) every: Duration,
    /// `live_samples`: hand each sample to the live board too.
    pub(crate) share: bool,
    /// Sample the job's operations too, with the metadata jobs' sampler (those an I/O
    /// job records beside its I/O: fileio=(sequential,delete)'s deletes and creates).
    pub(crate) ops: Option<crate::meta::OpSampler>,
}

impl<'a> Sampler<'a> {
    pub(crate) fn new(
        start: Instant,
        (dirs, every, share): ([bool; 3], Duration, bool),
        live: Option<&'a crate::record::live::LiveClone>,
    ) -> Sampler<'a> {
        Sampler {
            live,
            wake: start + LIVE_INTERVAL.min(every),
            live_next: start + LIVE_INTERVAL,
            next: start + every,
            every,
            start,
            last_at: start,
            last_bytes: [0; 3],
            last_ios: [0; 3],
            last_clat: [None, None, None],
            last_sums: [(0, 0); 3],
            dirs,
            share,
            ops: None,
        }
    }
    #[inline]
    pub(crate) fn tick(&mut self, now: Instant, st: &mut ThreadStats) {
        if now < self.wake {
            return;
        }
        if now >= self.live_next {
            if let Some(l) = self.live {
                l.publish_stats(st, now.duration_since(self.start).as_millis() as u64);
            }
            while self.live_next <= now {
                self.live_next += LIVE_INTERVAL;
            }
        }
        if now >= self.next {
            self.sample(now, st);
        }
        self.wake = self.next.min(self.live_next);
    }

    /// At the job's end with `final_sample`: the last, partial interval too (when it
    /// lasted at least a millisecond, or did anything: a format on tmpfs that ends within
    /// a millisecond of its last sample, or of its start, has its last opens and closes
    /// there, which vdbench's line counts).
    pub(crate) fn finish(&mut self, now: Instant, st: &mut ThreadStats) {
        let moved = (0..3).any(|d| st.dirs[d].ios != self.last_ios[d])
            || self.ops.as_ref().is_some_and(|o| o.pending(st));
        if moved || now.duration_since(self.last_at) >= Duration::from_millis(1) {
            self.sample(now, st);
        }
    }

    pub(crate) fn sample(&mut self, now: Instant, st: &mut ThreadStats) {
        // Samples count whole milliseconds: a last piece under one counts one.
        let len_ms = (now.duration_since(self.last_at).as_millis() as u64).max(1);
        let t_ms = now.duration_since(self.start).as_millis() as u64;
        // The operations beside the I/O first: a reader that sees the directions'
        // sample of this interval finds theirs too.
        if let Some(o) = &mut self.ops {
            o.sample(now, st, self.live);
        }
        let mut shared: [(usize, Sample); 3] = [(0, Sample::default()); 3];
        let mut n_shared = 0;
        for d in 0..3 {
            if !self.dirs[d] {
                continue;
            }
            let ds = &mut st.dirs[d];
            // This interval's latencies: everything so far minus the previous snapshot
            // (a few tens of KiB copied every 500 ms, nothing per I/O).
            let now_h = ds.clat_snapshot();
            let sums = ds.clat_sums();
            let (sum, sumsq) = (
                sums.0.saturating_sub(self.last_sums[d].0),
                sums.1.saturating_sub(self.last_sums[d].1),
            );
            self.last_sums[d] = sums;
            let mut delta = now_h.clone();
            if let Some(prev) = &self.last_clat[d] {
                let _ = delta.subtract(prev);
            }
            let pct = |q: f64| {
                if delta.is_empty() {
                    0
                } else {
                    delta.value_at_quantile(q)
                }
            };
            ds.samples.push(Sample {
                t_ms,
                len_ms,
                bytes: ds.bytes - self.last_bytes[d],
                ios: ds.ios - self.last_ios[d],
                clat_p50: pct(0.5),
                clat_p99: pct(0.99),
                clat_p999: pct(0.999),
                // The histogram's top bucket can end past the exact maximum: never report
                // more than the job's exact max.
                clat_max: if delta.is_empty() {
                    0
                } else {
                    delta.max().min(ds.clat_exact_max())
                },
                clat_sum: sum.min(u64::MAX as u128) as u64,
                clat_sumsq: sumsq as f64,
            });
            if let (true, Some(last)) = (self.share, ds.samples.last()) {
                shared[n_shared] = (d, *last);
                n_shared += 1;
            }
            self.last_clat[d] = Some(now_h);
            self.last_bytes[d] = ds.bytes;
            self.last_ios[d] = ds.ios;
        }
        if let Some(l) = self.live.filter(|_| n_shared > 0) {
            l.push_samples(&shared[..n_shared]);
        }
        self.last_at = now;
        if let Some(l) = self.live {
            l.publish_stats(st, t_ms);
        }
        while self.next <= now {
            self.next += self.every;
        }
    }
}

pub(crate) fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
