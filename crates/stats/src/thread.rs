//! Per-thread (per job clone) recorded statistics and their exact merge.

use crate::lat::LatStat;
use std::time::Duration;

/// fio's latency distribution breakpoints in ns: each is the exclusive upper bound of a
/// bucket `[previous, key)`. Ten ns buckets, ten µs buckets, twelve ms buckets (the last,
/// `>=2000` ms, is unbounded).
pub const LAT_BUCKET_BOUNDS_NS: [u64; 31] = [
    2,
    4,
    10,
    20,
    50,
    100,
    250,
    500,
    750,
    1000,
    2_000,
    4_000,
    10_000,
    20_000,
    50_000,
    100_000,
    250_000,
    500_000,
    750_000,
    1_000_000,
    2_000_000,
    4_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    750_000_000,
    1_000_000_000,
    2_000_000_000,
];

/// Number of latency distribution buckets (31 bounded + `>=2000ms`).
pub const LAT_BUCKETS: usize = 32;

/// Index of the latency bucket for `ns`.
#[inline]
pub fn lat_bucket(ns: u64) -> usize {
    LAT_BUCKET_BOUNDS_NS.partition_point(|&b| b <= ns)
}

/// Index into fio's iodepth map (`1, 2, 4, 8, 16, 32, >=64`) for a depth.
#[inline]
pub fn depth_level_index(depth: u32) -> usize {
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// Index into fio's submit/complete map (`0, 4, 8, 16, 32, 64, >=64`) for a batch size.
#[inline]
pub fn batch_index(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// One interval sample: bytes and ios completed in one sampling interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// Milliseconds since the start of the measured window at the end of the interval.
    pub t_ms: u64,
    /// Length of the interval in ms (the last one may be short).
    pub len_ms: u64,
    /// Bytes completed in the interval.
    pub bytes: u64,
    /// I/Os completed in the interval.
    pub ios: u64,
    /// Completion latency of this interval's I/Os, ns: median (merged samples of several
    /// clones keep the highest of each percentile: an upper bound).
    #[serde(default)]
    pub clat_p50: u64,
    /// 99th percentile.
    #[serde(default)]
    pub clat_p99: u64,
    /// 99.9th percentile.
    #[serde(default)]
    pub clat_p999: u64,
    /// Maximum.
    #[serde(default)]
    pub clat_max: u64,
    /// Exact sum of this interval's completion latencies, ns (its mean is this over
    /// `ios`; merged samples add).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub clat_sum: u64,
    /// Sum of their squares, ns² (for the interval's standard deviation).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub clat_sumsq: f64,
}

/// Statistics of one direction (read, write or trim).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DirStats {
    /// Completed I/Os.
    pub ios: u64,
    /// Completed bytes.
    pub bytes: u64,
    /// I/Os that completed short and were retried for the remainder.
    pub short_ios: u64,
    /// I/Os dropped.
    pub drop_ios: u64,
    /// Submission latency (engines with a submit phase only).
    pub slat: LatStat,
    /// Completion latency: submission → completion.
    pub clat: LatStat,
    /// Total latency: start of submission → completion.
    pub lat: LatStat,
    /// Response latency of rate-limited jobs: from the I/O's *intended* issue time (its
    /// slot in the rate schedule) to completion, so queueing delay behind a slow device
    /// is never hidden (no coordinated omission). Empty for jobs without a rate.
    pub resp: LatStat,
    /// Interval samples (bandwidth and IOPS), one per sampling interval while running.
    pub samples: Vec<Sample>,
    /// clat of I/Os without a submit phase, whose lat equals their clat: recorded once
    /// here while running; [`ThreadStats::finish`] adds it to both `clat` and `lat`.
    clat_noslat: LatStat,
    /// cmdprio jobs: the latency of the I/Os of each priority (clat, or lat with
    /// `lat_percentiles`), the job's own priority first, as fio's per-priority stats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<PrioLat>,
}

/// The latencies of the I/Os issued with one priority.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PrioLat {
    /// The ioprio value (class << 13 | level).
    pub ioprio: u16,
    /// Their latencies.
    pub lat: LatStat,
}

impl PrioLat {
    /// The priority class (fio's `prioclass`).
    pub fn class(&self) -> u16 {
        self.ioprio >> 13
    }
    /// The level within the class (fio's `prio`).
    pub fn level(&self) -> u16 {
        self.ioprio & 7
    }
}

impl DirStats {
    /// Bandwidth samples in bytes/s.
    pub fn bw_samples(&self) -> impl Iterator<Item = f64> + '_ {
        self.samples
            .iter()
            .filter(|s| s.len_ms > 0)
            .map(|s| s.bytes as f64 * 1000.0 / s.len_ms as f64)
    }
    /// IOPS samples.
    pub fn iops_samples(&self) -> impl Iterator<Item = f64> + '_ {
        self.samples
            .iter()
            .filter(|s| s.len_ms > 0)
            .map(|s| s.ios as f64 * 1000.0 / s.len_ms as f64)
    }

    /// Every direction as one (fio's unified_rw_reporting "mixed"): counters and latency
    /// histograms added, interval samples added interval by interval.
    pub fn mixed(dirs: &[DirStats; 3]) -> DirStats {
        let mut m = dirs[0].clone();
        m.merge(&dirs[1], true);
        m.merge(&dirs[2], true);
        m
    }

    /// The entry of priority `ioprio`, made (last) when there is none.
    pub fn prio_entry(&mut self, ioprio: u16) -> &mut PrioLat {
        match self.prios.iter().position(|p| p.ioprio == ioprio) {
            Some(i) => &mut self.prios[i],
            None => {
                self.prios.push(PrioLat {
                    ioprio,
                    lat: LatStat::new(),
                });
                self.prios.last_mut().expect("just pushed")
            }
        }
    }

    /// How many priorities have latencies (fio shows them from two on).
    pub fn prios_with_samples(&self) -> usize {
        self.prios.iter().filter(|p| p.lat.count() > 0).count()
    }

    /// Sum (ns) and count of every completion latency recorded so far.
    pub fn clat_sum_count(&self) -> (u128, u64) {
        (
            self.clat.sum() + self.clat_noslat.sum(),
            self.clat.count() + self.clat_noslat.count(),
        )
    }

    /// The exact largest completion latency so far (the deferred ones included).
    pub fn clat_exact_max(&self) -> u64 {
        self.clat.max().max(self.clat_noslat.max())
    }

    /// Exact sum and sum of squares of every completion latency recorded so far (the
    /// deferred ones included): the difference of two readings is one interval's.
    pub fn clat_sums(&self) -> (u128, u128) {
        (
            self.clat.sum() + self.clat_noslat.sum(),
            self.clat.sumsq() + self.clat_noslat.sumsq(),
        )
    }

    /// Every completion latency recorded so far (the deferred ones included), for
    /// per-interval percentiles: the difference of two snapshots is one interval.
    pub fn clat_snapshot(&self) -> hdrhistogram::Histogram<u64> {
        let mut h = self.clat.histogram().clone();
        if self.clat_noslat.count() > 0 {
            let _ = h.add(self.clat_noslat.histogram());
        }
        h
    }

    fn merge(&mut self, o: &DirStats, sum_samples: bool) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.short_ios += o.short_ios;
        self.drop_ios += o.drop_ios;
        self.slat += &o.slat;
        self.clat += &o.clat;
        self.lat += &o.lat;
        self.resp += &o.resp;
        self.clat_noslat += &o.clat_noslat;
        for p in &o.prios {
            self.prio_entry(p.ioprio).lat += &p.lat;
        }
        if sum_samples {
            // Clones of a group run side by side: the group's bandwidth in interval k is the
            // sum of every clone's bandwidth in interval k.
            add_samples(&mut self.samples, &o.samples);
        } else {
            self.samples.extend_from_slice(&o.samples);
        }
    }
}

/// Add `add`'s samples to `into`, interval by interval (side by side: counts and sums
/// add, percentiles and maxima keep the highest).
fn add_samples(into: &mut Vec<Sample>, add: &[Sample]) {
    for (i, s) in add.iter().enumerate() {
        match into.get_mut(i) {
            Some(d) => {
                d.bytes += s.bytes;
                d.ios += s.ios;
                d.clat_p50 = d.clat_p50.max(s.clat_p50);
                d.clat_p99 = d.clat_p99.max(s.clat_p99);
                d.clat_p999 = d.clat_p999.max(s.clat_p999);
                d.clat_max = d.clat_max.max(s.clat_max);
                d.clat_sum += s.clat_sum;
                d.clat_sumsq += s.clat_sumsq;
                d.len_ms = d.len_ms.max(s.len_ms);
                d.t_ms = d.t_ms.max(s.t_ms);
            }
            None => into.push(*s),
        }
    }
}

/// Summary of simple sample statistics (min, max, mean, sample stddev, count).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SampleSummary {
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n−1).
    pub stddev: f64,
    /// Number of samples.
    pub n: u64,
}

impl SampleSummary {
    /// Summarise an iterator of samples.
    pub fn of(it: impl Iterator<Item = f64>) -> SampleSummary {
        let v: Vec<f64> = it.collect();
        if v.is_empty() {
            return SampleSummary::default();
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = if v.len() > 1 {
            v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        SampleSummary {
            min: v.iter().cloned().fold(f64::INFINITY, f64::min),
            max: v.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
            mean,
            stddev: var.sqrt(),
            n: v.len() as u64,
        }
    }
}

/// CPU usage of a thread over its run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuUsage {
    /// User CPU time.
    pub usr: Duration,
    /// System CPU time.
    pub sys: Duration,
    /// Voluntary + involuntary context switches.
    pub ctx: u64,
    /// Major page faults.
    pub majf: u64,
    /// Minor page faults.
    pub minf: u64,
}

impl CpuUsage {
    /// Usage of the calling thread so far (getrusage RUSAGE_THREAD).
    pub fn current_thread() -> CpuUsage {
        use nix::sys::resource::{getrusage, UsageWho};
        let Ok(ru) = getrusage(UsageWho::RUSAGE_THREAD) else {
            return CpuUsage::default();
        };
        let tv = |t: nix::sys::time::TimeVal| {
            Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
        };
        CpuUsage {
            usr: tv(ru.user_time()),
            sys: tv(ru.system_time()),
            ctx: (ru.voluntary_context_switches() + ru.involuntary_context_switches()) as u64,
            majf: ru.major_page_faults() as u64,
            minf: ru.minor_page_faults() as u64,
        }
    }
    /// The usage between `earlier` and `self`.
    pub fn since(&self, earlier: &CpuUsage) -> CpuUsage {
        CpuUsage {
            usr: self.usr.saturating_sub(earlier.usr),
            sys: self.sys.saturating_sub(earlier.sys),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majf: self.majf.saturating_sub(earlier.majf),
            minf: self.minf.saturating_sub(earlier.minf),
        }
    }
}

/// Everything one job clone recorded (or, after merging, a group of clones).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ThreadStats {
    /// Per direction, indexed read 0, write 1, trim 2.
    pub dirs: [DirStats; 3],
    /// The job's syncs (fsync, fdatasync, sync_file_range every N writes): latency of
    /// each call. (end_fsync and fsync_on_close are not the job's syncs, as in fio.)
    pub sync: LatStat,
    /// Of those, the fsyncs: fio's `sync` total_ios (its fdatasyncs and
    /// sync_file_ranges have latencies but no count in its output).
    #[serde(default)]
    pub fsyncs: u64,
    /// Latency distribution over clat: counts per [`LAT_BUCKET_BOUNDS_NS`] bucket.
    pub lat_buckets: [u64; LAT_BUCKETS],
    /// I/Os in flight at each submission, per fio's `1,2,4,8,16,32,>=64` map.
    pub depth_levels: [u64; 7],
    /// Submit batch sizes per fio's `0,4,8,16,32,64,>=64` map.
    pub depth_submit: [u64; 7],
    /// Completion batch sizes per the same map.
    pub depth_complete: [u64; 7],
    /// I/Os issued per direction (read, write, trim), including those still in flight
    /// at the end.
    pub issued: [u64; 3],
    /// Measured time (after ramp, without layout): the denominator of IOPS and bandwidth.
    pub runtime: Duration,
    /// CPU usage over the measured window.
    pub cpu: CpuUsage,
    /// First error (errno), 0 if none.
    pub error: i32,
    /// Errors tolerated under continue_on_error (fio's total_err).
    pub total_err: u64,
    /// The first tolerated error's errno (fio's first_error), 0 if none.
    pub first_error: i32,
    /// continue_on_error was on: report total_err/first_error.
    pub count_errors: bool,
    /// Number of job clones merged into these stats.
    pub clones: u32,
    /// Data verification: what was checked and what failed (None: no verify).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyStats>,
    /// The queue depth a latency_target search ended at (0: no search).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub latency_depth: u32,
    /// Metadata operations (create, stat, delete, mkdir, …), one entry per kind in the
    /// order first seen: empty for data jobs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<OpStats>,
    /// The clones' runtimes added (fio's total_run_time: a group's `job_runtime`, and the
    /// time its CPU shares are of); zero: `runtime` × `clones` (a single clone, or a
    /// result from before this field).
    #[serde(default, skip_serializing_if = "Duration::is_zero")]
    pub runtime_sum: Duration,
    /// zonemode=zbd: zones whose write pointer was reset (fio's "zone resets").
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub zone_resets: u64,
    /// `Control::file_gate` (vdbench's FILE_BUSY): draws of a file another clone held.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub file_busy: u64,
    /// Each direction's runtime (read, write, trim) where they differ from `runtime`, as
    /// fio keeps one per direction: the verify phase counts for the reads only, the
    /// writes it checks ran before it. None: every direction ran the whole `runtime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir_runtime: Option<[Duration; 3]>,
}

/// What data verification checked.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VerifyStats {
    /// The verify type (`crc32c`, `md5`, …).
    pub kind: String,
    /// Chunks checked.
    pub blocks: u64,
    /// Bytes checked.
    pub bytes: u64,
    /// Chunks that failed.
    pub failures: u64,
    /// Reads with at least one failed chunk: fio's unit of a verify error (`total_err`
    /// counts reads, not the `verify_interval` chunks within one).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub failed_reads: u64,
    /// The first failures, described (file, offset, class, headers, first bad byte).
    pub first: Vec<String>,
}

/// How many failure descriptions a result keeps.
pub const VERIFY_FAILURES_KEPT: usize = 10;

impl VerifyStats {
    fn merge(&mut self, o: &VerifyStats) {
        self.blocks += o.blocks;
        self.bytes += o.bytes;
        self.failures += o.failures;
        self.failed_reads += o.failed_reads;
        for t in &o.first {
            if self.first.len() < VERIFY_FAILURES_KEPT {
                self.first.push(t.clone());
            }
        }
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// One kind of metadata operation (create, stat, …): how many were done, how long each
/// took, and what could not be done.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct OpStats {
    /// Operation name (`create`, `stat`, `delete`, `mkdir`, …).
    pub name: String,
    /// Operations done (failed ones included: they took time too).
    pub ops: u64,
    /// Operations that failed with an error.
    pub errors: u64,
    /// Operations chosen but skipped because no target qualified (no file to stat, no
    /// empty directory to remove).
    pub skipped: u64,
    /// Data bytes moved by the operations (read, write, create with filesize).
    pub bytes: u64,
    /// Latency of each operation, ns.
    pub lat: LatStat,
    /// Interval samples (operations as `ios`, their times as completion latency), one per
    /// sampling interval while running.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<Sample>,
}

impl OpStats {
    /// An empty entry for `name`.
    pub fn named(name: &str) -> OpStats {
        OpStats {
            name: name.to_string(),
            ..Default::default()
        }
    }
    /// Operations per second over `runtime`.
    pub fn rate(&self, runtime: Duration) -> f64 {
        let s = runtime.as_secs_f64();
        if s > 0.0 {
            self.ops as f64 / s
        } else {
            0.0
        }
    }
    fn merge(&mut self, o: &OpStats) {
        self.ops += o.ops;
        self.errors += o.errors;
        self.skipped += o.skipped;
        self.bytes += o.bytes;
        self.lat += &o.lat;
        add_samples(&mut self.samples, &o.samples);
    }
}

impl ThreadStats {
    /// An empty recorder for one clone.
    pub fn new() -> ThreadStats {
        ThreadStats {
            clones: 1,
            ..Default::default()
        }
    }

    /// The job's error as fio reports it (`error` in JSON and terse, `err=` in the normal
    /// output): the error that ended the job, else, with continue_on_error on, the first
    /// error tolerated. Only the first makes the run's exit code 1.
    pub fn reported_error(&self) -> i32 {
        if self.error == 0 && self.count_errors {
            self.first_error
        } else {
            self.error
        }
    }

    /// Record a completed I/O: direction index, bytes, optional slat, clat (ns).
    /// `lat` is slat + clat. The numbers are complete at once (see
    /// [`ThreadStats::record_io_deferred`] for the hot path).
    pub fn record_io(&mut self, dir: usize, bytes: u64, slat_ns: Option<u64>, clat_ns: u64) {
        self.record_io_deferred(dir, bytes, slat_ns, clat_ns);
        self.finish();
    }

    /// As [`ThreadStats::record_io`], for the hot path: an I/O without slat has lat =
    /// clat, so its latency is recorded once, and [`ThreadStats::finish`] (which must run
    /// before the numbers are read) adds it to both populations. Exact either way.
    #[inline]
    pub fn record_io_deferred(
        &mut self,
        dir: usize,
        bytes: u64,
        slat_ns: Option<u64>,
        clat_ns: u64,
    ) {
        let d = &mut self.dirs[dir];
        d.ios += 1;
        d.bytes += bytes;
        match slat_ns {
            Some(s) => {
                d.slat.record(s);
                d.clat.record(clat_ns);
                d.lat.record(s + clat_ns);
            }
            None => d.clat_noslat.record(clat_ns),
        }
        self.lat_buckets[lat_bucket(clat_ns)] += 1;
    }

    /// A synchronous engine's I/O that started `before_ns` before its issue (fio's
    /// start time: a verified write's data is made in between): that time is in its
    /// total latency, not in its completion latency, and there is no submission latency.
    pub fn record_io_started(&mut self, dir: usize, bytes: u64, before_ns: u64, clat_ns: u64) {
        let d = &mut self.dirs[dir];
        d.ios += 1;
        d.bytes += bytes;
        d.clat.record(clat_ns);
        d.lat.record(before_ns + clat_ns);
        self.lat_buckets[lat_bucket(clat_ns)] += 1;
    }

    /// cmdprio: the latency `ns` of an I/O of direction `dir` issued with priority
    /// `ioprio` (a priority not seeded is added last).
    #[inline]
    pub fn record_prio(&mut self, dir: usize, ioprio: u16, ns: u64) {
        let d = &mut self.dirs[dir];
        match d.prios.iter_mut().find(|p| p.ioprio == ioprio) {
            Some(p) => p.lat.record(ns),
            None => d.prio_entry(ioprio).lat.record(ns),
        }
    }

    /// cmdprio: the priorities of direction `dir`, in the order fio lists them (the
    /// job's own first), before any is recorded.
    pub fn seed_prios(&mut self, dir: usize, values: &[u16]) {
        for &v in values {
            self.dirs[dir].prio_entry(v);
        }
    }

    /// Record a fake I/O of a metadata engine (fio's FAKEIO/NOSTATS): it counts as an I/O
    /// of `bytes` in direction `dir` but has no latency of its own.
    #[inline]
    pub fn record_fake_io(&mut self, dir: usize, bytes: u64) {
        let d = &mut self.dirs[dir];
        d.ios += 1;
        d.bytes += bytes;
    }

    /// The entry for operation `name`, made on first use.
    pub fn op_mut(&mut self, name: &str) -> &mut OpStats {
        match self.ops.iter().position(|o| o.name == name) {
            Some(i) => &mut self.ops[i],
            None => {
                self.ops.push(OpStats::named(name));
                self.ops.last_mut().expect("just pushed")
            }
        }
    }

    /// Record one metadata operation that took `ns`. With `dir`, its time is also a
    /// completion latency sample of that direction, as fio's metadata engines report it
    /// (clat only: those engines have no submission phase and no lat).
    pub fn record_op(&mut self, name: &str, dir: Option<usize>, ns: u64, bytes: u64, ok: bool) {
        if let Some(d) = dir {
            self.dirs[d].clat.record(ns);
        }
        let o = self.op_mut(name);
        o.ops += 1;
        o.bytes += bytes;
        if !ok {
            o.errors += 1;
        }
        o.lat.record(ns);
    }

    /// Fold what [`ThreadStats::record_io_deferred`] kept aside into clat and lat.
    /// Idempotent and cheap when there is nothing to fold.
    pub fn finish(&mut self) {
        for d in &mut self.dirs {
            if d.clat_noslat.count() == 0 {
                continue;
            }
            let ns = std::mem::take(&mut d.clat_noslat);
            if d.clat.count() == 0 && d.lat.count() == 0 {
                d.lat = ns.clone();
                d.clat = ns;
            } else {
                d.clat += &ns;
                d.lat += &ns;
            }
        }
    }

    /// Direction `i`'s runtime (fio's per-direction runtime; the denominator of its
    /// bandwidth and IOPS).
    pub fn dir_runtime(&self, i: usize) -> Duration {
        self.dir_runtime.map_or(self.runtime, |r| r[i])
    }

    /// The clones' runtimes added (fio's total_run_time): a single clone's runtime.
    pub fn total_run_time(&self) -> Duration {
        if self.runtime_sum.is_zero() {
            self.runtime * self.clones.max(1)
        } else {
            self.runtime_sum
        }
    }

    /// Merge another clone's stats into these (group reporting). Counters and histograms
    /// add exactly; runtime is the longest; bandwidth samples add interval by interval.
    pub fn merge(&mut self, o: &ThreadStats) {
        self.finish();
        // `o` with its no-slat completions folded in, copied only when it has any.
        let finished;
        let o = if o.dirs.iter().any(|d| d.clat_noslat.count() > 0) {
            let mut c = o.clone();
            c.finish();
            finished = c;
            &finished
        } else {
            o
        };
        for i in 0..3 {
            self.dirs[i].merge(&o.dirs[i], true);
            self.issued[i] += o.issued[i];
        }
        self.sync += &o.sync;
        self.fsyncs = self.fsyncs.saturating_add(o.fsyncs);
        for i in 0..LAT_BUCKETS {
            self.lat_buckets[i] += o.lat_buckets[i];
        }
        for i in 0..7 {
            self.depth_levels[i] += o.depth_levels[i];
            self.depth_submit[i] += o.depth_submit[i];
            self.depth_complete[i] += o.depth_complete[i];
        }
        // In whole ms per part, as fio adds its clones' runtimes.
        let ms = |d: Duration| Duration::from_millis(d.as_millis() as u64);
        self.runtime_sum = ms(self.total_run_time()) + ms(o.total_run_time());
        // Each direction's: the longest clone's, as fio's group.
        if self.dir_runtime.is_some() || o.dir_runtime.is_some() {
            self.dir_runtime = Some([0, 1, 2].map(|i| self.dir_runtime(i).max(o.dir_runtime(i))));
        }
        self.runtime = self.runtime.max(o.runtime);
        self.cpu.usr += o.cpu.usr;
        self.cpu.sys += o.cpu.sys;
        self.cpu.ctx += o.cpu.ctx;
        self.cpu.majf += o.cpu.majf;
        self.cpu.minf += o.cpu.minf;
        if self.error == 0 {
            self.error = o.error;
        }
        self.total_err += o.total_err;
        self.zone_resets += o.zone_resets;
        self.file_busy += o.file_busy;
        if self.first_error == 0 {
            self.first_error = o.first_error;
        }
        self.count_errors |= o.count_errors;
        self.clones += o.clones;
        if self.latency_depth == 0 {
            self.latency_depth = o.latency_depth;
        }
        match (&mut self.verify, &o.verify) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.verify = Some(b.clone()),
            _ => {}
        }
        for op in &o.ops {
            self.op_mut(&op.name).merge(op);
        }
    }
}

/// serde: a zero count is left out of the stored result.
pub(crate) fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

/// serde: a zero sum is left out of the stored result.
pub(crate) fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lat_buckets_use_exclusive_upper_bounds() {
        assert_eq!(lat_bucket(0), 0);
        assert_eq!(lat_bucket(1), 0);
        assert_eq!(lat_bucket(2), 1);
        assert_eq!(lat_bucket(999), 9);
        assert_eq!(lat_bucket(1000), 10);
        assert_eq!(lat_bucket(1999), 10);
        assert_eq!(lat_bucket(749_999), 18);
        assert_eq!(lat_bucket(750_000), 19);
        assert_eq!(lat_bucket(1_999_999_999), 30);
        assert_eq!(lat_bucket(2_000_000_000), 31);
        assert_eq!(lat_bucket(u64::MAX), 31);
    }

    #[test]
    fn depth_maps_match_fio() {
        assert_eq!(depth_level_index(1), 0);
        assert_eq!(depth_level_index(16), 4);
        assert_eq!(depth_level_index(64), 6);
        assert_eq!(batch_index(1), 1);
        assert_eq!(batch_index(4), 1);
        assert_eq!(batch_index(5), 2);
        assert_eq!(batch_index(65), 6);
    }

    #[test]
    fn merge_adds_counts_and_samples_per_interval() {
        let mut a = ThreadStats::new();
        let mut b = ThreadStats::new();
        a.record_io(0, 4096, None, 1000);
        b.record_io(0, 4096, None, 3000);
        b.record_io(1, 8192, Some(10), 3000);
        a.dirs[0].samples.push(Sample {
            t_ms: 500,
            len_ms: 500,
            bytes: 4096,
            ios: 1,
            ..Default::default()
        });
        b.dirs[0].samples.push(Sample {
            t_ms: 500,
            len_ms: 500,
            bytes: 4096,
            ios: 1,
            ..Default::default()
        });
        a.merge(&b);
        assert_eq!(a.dirs[0].ios, 2);
        assert_eq!(a.dirs[0].bytes, 8192);
        assert_eq!(a.dirs[1].lat.min(), 3010);
        assert_eq!(a.dirs[0].samples.len(), 1);
        assert_eq!(a.dirs[0].samples[0].bytes, 8192);
        assert_eq!(a.clones, 2);
        assert_eq!(a.lat_buckets.iter().sum::<u64>(), 3);
    }

    #[test]
    fn ops_merge_by_name_and_feed_clat_only() {
        let mut a = ThreadStats::new();
        a.record_op("create", Some(1), 5000, 0, true);
        a.record_fake_io(1, 4096);
        let mut b = ThreadStats::new();
        b.record_op("stat", None, 700, 0, true);
        b.record_op("create", None, 3000, 4096, false);
        a.merge(&b);
        assert_eq!(a.ops.len(), 2);
        let c = &a.ops[0];
        assert_eq!(
            (c.name.as_str(), c.ops, c.errors, c.bytes),
            ("create", 2, 1, 4096)
        );
        assert_eq!((c.lat.min(), c.lat.max()), (3000, 5000));
        assert_eq!(a.ops[1].ops, 1);
        assert_eq!(a.dirs[1].ios, 1);
        assert_eq!(a.dirs[1].clat.count(), 1);
        assert_eq!(a.dirs[1].lat.count(), 0);
        assert_eq!(a.lat_buckets.iter().sum::<u64>(), 0);
        assert!((c.rate(Duration::from_millis(500)) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn sample_summary_of_known_values() {
        let s = SampleSummary::of([1.0, 2.0, 3.0, 4.0].into_iter());
        assert_eq!((s.min, s.max, s.mean, s.n), (1.0, 4.0, 2.5, 4));
        assert!((s.stddev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }
}

#[cfg(test)]
mod deferred_tests {
    use super::*;

    #[test]
    fn deferred_recording_equals_direct_recording_even_when_mixed() {
        let mut a = ThreadStats::new();
        let mut b = ThreadStats::new();
        for i in 0..1000u64 {
            let slat = (i % 3 == 0).then_some(100 + i);
            let clat = 1000 + i * 7;
            a.record_io(0, 4096, slat, clat);
            b.record_io_deferred(0, 4096, slat, clat);
        }
        b.finish();
        b.finish(); // idempotent
        for (x, y) in [
            (&a.dirs[0].clat, &b.dirs[0].clat),
            (&a.dirs[0].lat, &b.dirs[0].lat),
        ] {
            assert_eq!(
                (x.count(), x.min(), x.max(), x.sum()),
                (y.count(), y.min(), y.max(), y.sum())
            );
            assert_eq!(x.percentile(99.0), y.percentile(99.0));
        }
        assert_eq!(b.dirs[0].lat.count(), 1000);
    }
}
