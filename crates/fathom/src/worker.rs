//! The per-clone thread: open files, then the timing loop. Everything here is owned by
//! the thread: generator, engine, buffers and recorder; nothing is shared on the hot path
//! except the cancel flag (a relaxed atomic load per I/O).

use crate::plan::{PlannedClone, PlannedJob};
use fathom_engine::{AlignedBuf, EngineBuf, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use fathom_stats::{batch_index, depth_level_index, CpuUsage, Sample, ThreadStats};
use fathom_workload::{Generator, IoReq};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What a clone's thread hands back.
#[derive(Debug, Default)]
pub struct CloneOutcome {
    /// Recorded numbers.
    pub stats: ThreadStats,
    /// When the clone started (ms since the epoch).
    pub start_ms: u64,
    /// Wall time of the clone, start delay and ramp included.
    pub elapsed: Duration,
    /// Error description (errno, file, offset, length) if the clone failed.
    pub error_text: Option<String>,
    /// The first error tolerated under continue_on_error/ignore_error.
    pub first_error_text: Option<String>,
    /// Set-up the clone did itself before its clock started (a filetree format).
    pub setup: Duration,
    /// The job's steady-state verdict (on its first clone's outcome).
    pub steadystate: Option<fathom_stats::SteadyState>,
    /// What the user should know that is not an error (a failed exec_postrun).
    pub notes: Vec<String>,
}

/// fill_device: a full file system is where the job ends, not an error.
fn fills_device(spec: &fathom_job::JobSpec, errno: i32) -> bool {
    spec.control.fill_device && (errno == libc::ENOSPC || errno == libc::EDQUOT)
}

/// How many tolerated errors `error_dump` prints per clone.
const ERROR_DUMP_MAX: u64 = 100;

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
const LIVE_INTERVAL: Duration = Duration::from_millis(50);

struct Sampler<'a> {
    live: Option<&'a crate::live::LiveClone>,
    /// The next sample or publication, whichever is first (one comparison per I/O).
    wake: Instant,
    live_next: Instant,
    next: Instant,
    start: Instant,
    last_at: Instant,
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
    /// Completion latencies up to the previous sample (the next one's percentiles are
    /// of the difference).
    last_clat: [Option<hdrhistogram::Histogram<u64>>; 3],
    dirs: [bool; 3],
    /// Time between samples (see [`sample_interval`]).
    every: Duration,
}

impl<'a> Sampler<'a> {
    fn new(
        start: Instant,
        (dirs, every): ([bool; 3], Duration),
        live: Option<&'a crate::live::LiveClone>,
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
            dirs,
        }
    }
    #[inline]
    fn tick(&mut self, now: Instant, st: &mut ThreadStats) {
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

    fn sample(&mut self, now: Instant, st: &mut ThreadStats) {
        let len_ms = now.duration_since(self.last_at).as_millis() as u64;
        let t_ms = now.duration_since(self.start).as_millis() as u64;
        for d in 0..3 {
            if !self.dirs[d] {
                continue;
            }
            let ds = &mut st.dirs[d];
            // This interval's latencies: everything so far minus the previous snapshot
            // (a few tens of KiB copied every 500 ms, nothing per I/O).
            let now_h = ds.clat_snapshot();
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
            });
            self.last_clat[d] = Some(now_h);
            self.last_bytes[d] = ds.bytes;
            self.last_ios[d] = ds.ios;
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

fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The system's text for an errno with its number once: "No space left on device (errno 28)".
fn errno_text(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let bare = text
        .strip_suffix(&format!(" (os error {errno})"))
        .unwrap_or(&text);
    format!("{bare} (errno {errno})")
}

/// Run one clone to completion.
pub fn run_clone(
    job: &PlannedJob,
    clone: &PlannedClone,
    cancel: &AtomicBool,
    live: Option<&crate::live::LiveClone>,
) -> CloneOutcome {
    let spec = &job.spec;
    let mut out = CloneOutcome {
        stats: ThreadStats {
            count_errors: spec.continue_on_error_set
                || spec.ignore_error.iter().any(|l| !l.is_empty()),
            ..ThreadStats::new()
        },
        start_ms: epoch_ms(),
        ..Default::default()
    };
    let t_start = crate::clock::now();
    // CPU affinity, nice value and I/O priority of this clone's thread.
    if let Err(text) = place_thread(spec, clone.jobnum) {
        out.stats.error = libc::EINVAL;
        out.error_text = Some(text);
        out.elapsed = t_start.elapsed();
        return out;
    }
    // Start delay (a random value in the range when one is given).
    let (lo, hi) = spec.startdelay;
    let delay = if hi > lo {
        let mut r = fathom_workload::Rng::new(clone.params.seed ^ 0xde1a);
        lo + Duration::from_nanos(r.below((hi - lo).as_nanos() as u64 + 1))
    } else {
        lo
    };
    if !delay.is_zero() && !sleep_cancellable(delay, cancel) {
        out.elapsed = t_start.elapsed();
        return out;
    }

    // lockmem: this clone pins that much memory while it runs.
    let _locked = match LockedMem::new(spec.control.lockmem) {
        Ok(l) => l,
        Err(text) => {
            out.stats.error = libc::ENOMEM;
            out.error_text = Some(text);
            out.elapsed = t_start.elapsed();
            return out;
        }
    };
    if spec.control.create_only {
        // The files were laid out before the clones started; no I/O.
        out.elapsed = t_start.elapsed();
        return out;
    }
    if let Some(cmd) = &spec.control.exec_prerun {
        if let Err(text) = exec_hook(&spec.name, "prerun", cmd) {
            out.stats.error = libc::EINVAL;
            out.error_text = Some(text);
            out.elapsed = t_start.elapsed();
            return out;
        }
    }
    if let Some(t) = &clone.tree {
        return crate::meta::run(job, clone, t, cancel, live, out, t_start);
    }
    let fail = |out: &mut CloneOutcome, errno: i32, text: String| {
        out.stats.error = errno;
        out.error_text = Some(text);
    };

    let mut engine = match fathom_engine::create_with(&spec.ioengine, &job.engine_options) {
        Ok(e) => e,
        Err(e) => {
            fail(&mut out, libc::EINVAL, e.to_string());
            return out;
        }
    };
    let k = spec.rw.kind;
    let opts = OpenOptions {
        write: k.writes() || k.trims(),
        direct: spec.direct,
        create: spec.create_on_open,
        sync: spec.sync == fathom_job::SyncMode::Sync,
        dsync: spec.sync == fathom_job::SyncMode::Dsync,
        advice: {
            use fathom_engine::Advice as A;
            use fathom_job::FadviseHint as F;
            match spec.control.fadvise_hint {
                F::None => A::None,
                F::ByPattern if k.is_random() => A::Random,
                F::ByPattern | F::Sequential => A::Sequential,
                F::Random => A::Random,
                F::NoReuse => A::NoReuse,
            }
        },
    };
    // Buffers: one per I/O slot, aligned for O_DIRECT, allocated once.
    let depth = job.effective_iodepth.max(1) as usize;
    let max_bs = (0..3)
        .map(|d| clone.params.len_range(d).1)
        .max()
        .unwrap_or(4096) as usize;
    // O_DIRECT buffers: aligned to max(logical block size, page size, iomem_align).
    let lbs = clone
        .files
        .iter()
        .filter(|_| spec.direct)
        .filter_map(|f| fathom_engine::logical_block_size(&f.path))
        .max()
        .unwrap_or(0) as usize;
    let align = (spec.iomem_align as usize)
        .max(4096)
        .max(lbs.next_power_of_two());
    let mut slots: Vec<Slot> = (0..depth).map(|_| Slot::new(max_bs, align)).collect();
    // fio's batching: I/Os per submit call, completions per reap, refill low-water mark.
    let batch = match spec.iodepth_batch_submit as usize {
        0 => depth,
        b => b.min(depth),
    };
    let cmin = (spec.iodepth_batch_complete_min as usize).min(depth);
    let cmax = match spec.iodepth_batch_complete_max as usize {
        0 => cmin.max(1),
        m => m.max(cmin).max(1),
    };
    let low = spec
        .iodepth_low
        .map(|l| l as usize)
        .unwrap_or(depth)
        .min(depth);
    let mut draining = false;
    let content = &job.buffers;
    let mut draw = fathom_workload::Rng::new(clone.params.seed ^ 0xb0f);
    for (i, s) in slots.iter_mut().enumerate() {
        content.fill(
            s.buf.as_mut_slice(),
            clone.params.seed ^ (i as u64 + 1) << 48,
            100,
        );
    }
    let refill = content.refills();
    let mut writes = 0u64;
    // verify: the clone's verifier, the completed writes waiting for a backlog check.
    let mut verifier = match spec.verify.kind {
        Some(kind) => {
            let min_bs = (0..3)
                .filter(|&d| clone.params.len_range(d).0 > 0)
                .map(|d| clone.params.len_range(d).0)
                .min()
                .unwrap_or(4096);
            let regions: Vec<(u64, u64)> = clone
                .files
                .iter()
                .map(|f| (f.region.start, f.region.len))
                .collect();
            match crate::verify::Verifier::new(
                &spec.verify,
                kind,
                clone.params.seed,
                clone.index,
                min_bs,
                &regions,
            ) {
                Ok(mut v) => {
                    out.stats.verify = Some(fathom_stats::VerifyStats {
                        kind: kind.name().to_string(),
                        ..Default::default()
                    });
                    if spec.verify.state_load {
                        if let Err(text) = v.load_state(&state_path(spec, clone.jobnum)) {
                            fail(&mut out, libc::ENOENT, format!("verify_state_load: {text}"));
                            out.elapsed = t_start.elapsed();
                            return out;
                        }
                    }
                    Some(v)
                }
                Err(text) => {
                    fail(&mut out, libc::EINVAL, text);
                    out.elapsed = t_start.elapsed();
                    return out;
                }
            }
        }
        None => None,
    };
    let mut backlog = Backlog::default();
    // verify_journal: intents and acknowledgements of this clone's writes.
    let mut journal = match (&verifier, &spec.verify.journal) {
        (Some(v), Some(p)) => {
            let path = if p.contains("$jobnum") {
                p.replace("$jobnum", &clone.jobnum.to_string())
            } else if spec.numjobs > 1 {
                format!("{p}.{}", clone.jobnum)
            } else {
                p.clone()
            };
            let files: Vec<std::path::PathBuf> =
                clone.files.iter().map(|f| f.path.clone()).collect();
            // The most records one write makes: a crash can tear that many at the end.
            let max_len = (0..3)
                .map(|d| clone.params.len_range(d).1)
                .max()
                .unwrap_or(0);
            let batch = max_len.div_ceil(v.interval.max(1));
            match crate::journal::JournalWriter::create(
                std::path::Path::new(&path),
                &files,
                v,
                batch,
            ) {
                Ok(j) => Some(j),
                Err(e) => {
                    fail(
                        &mut out,
                        fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
                        format!("verify_journal {path}: {e}"),
                    );
                    out.elapsed = t_start.elapsed();
                    return out;
                }
            }
        }
        _ => None,
    };
    let ebufs: Vec<EngineBuf> = slots
        .iter_mut()
        .map(|s| EngineBuf {
            ptr: s.buf.as_mut_ptr(),
            len: s.buf.len(),
        })
        .collect();
    // SAFETY: `slots` (and so every buffer) lives until after the engine is closed and
    // dropped at the end of this function; buffers are never reallocated.
    if let Err(e) = unsafe { engine.setup(depth, &ebufs) } {
        fail(
            &mut out,
            e.raw_os_error().unwrap_or(libc::EINVAL),
            e.to_string(),
        );
        out.elapsed = t_start.elapsed();
        return out;
    }
    // openfiles below the number of files: only the first that many are opened now;
    // later the least recently used idle file makes way for the next.
    let open_limit = spec
        .openfiles
        .map(|o| o.max(1) as usize)
        .filter(|&l| l < clone.files.len() && job.caps.metadata.is_none());
    for (fi, f) in clone.files.iter().enumerate() {
        if spec.control.pre_read && !job.caps.diskless {
            // pre_read: the region through the page cache, before the clock (and no
            // invalidate after it, as in fio).
            if let Err(e) = pre_read(&f.path, f.region.start, f.region.len) {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                fail(
                    &mut out,
                    errno,
                    format!("pre_read {}: {e}", f.path.display()),
                );
                out.elapsed = t_start.elapsed();
                return out;
            }
        }
        let opened = match open_limit {
            Some(limit) if fi >= limit => engine.add_closed_file(&f.path, &opts),
            _ => engine.open_file(&f.path, &opts),
        };
        // invalidate=1: through the job's own descriptor where the engine has one.
        let invalidate = spec.invalidate && !spec.control.pre_read && !spec.direct;
        if invalidate && !job.caps.diskless && job.caps.metadata.is_none() {
            match opened.as_ref().ok().and_then(|&i| engine.raw_fd(i)) {
                Some(fd) if fd >= 0 => fathom_engine::layout::invalidate_fd(fd),
                _ => {
                    let _ = fathom_engine::layout::invalidate(&f.path);
                }
            }
        }
        if let Err(e) = opened {
            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            let hint = if errno == libc::EMFILE || errno == libc::ENFILE {
                format!(
                    " (the job has {} files; set openfiles= below the descriptor limit, {})",
                    clone.files.len(),
                    crate::plan::nofile_soft()
                )
            } else {
                String::new()
            };
            fail(&mut out, errno, format!("open: {e}{hint}"));
            out.elapsed = t_start.elapsed();
            return out;
        }
    }
    let mut openset = open_limit.map(|limit| OpenSet::new(clone.files.len(), limit));
    let mut held: Option<IoReq> = None;

    let mut gen = match Generator::new(clone.params.clone()) {
        Ok(g) => g,
        Err(e) => {
            fail(&mut out, libc::EINVAL, e.to_string());
            return out;
        }
    };

    let mut schedule = job
        .rate
        .is_limited()
        .then(|| fathom_workload::Schedule::new(job.rate, clone.params.seed));
    let mut thinker = Thinker::new(job.thinktime);
    let dirs = [k.reads(), k.writes(), k.trims()];
    let ramp = spec.ramp_time;
    let runtime = spec.runtime;
    let mut flow = job.flow.as_deref().map(|f| FlowMember::join(f, spec.flow));
    let io_start = crate::clock::now();
    // latency_target: the queue-depth search (and, after a ramp down, a quiesce).
    let mut lt = LatTarget::new(spec, depth as u32, io_start);
    let mut quiesce = false;
    let mut ramping = !ramp.is_zero();
    let mut measure_start = io_start;
    // Per-I/O events, only when the job writes log files.
    let mut iolog = spec.logs.any().then(crate::logs::IoLog::default);
    let mut cpu_start = CpuUsage::current_thread();
    let sampling = (dirs, sample_interval(spec));
    let mut sampler = Sampler::new(io_start, sampling, live);
    let mut min_rate = MinRate::new(spec, io_start);
    let mut deadline = runtime.map(|r| io_start + ramp + r);
    let ramp_end = io_start + ramp;
    let mut syncs = SyncState {
        ranges: vec![None; clone.files.len()],
        ..Default::default()
    };
    let mut wrote = false;
    let mut now = io_start;

    let mut sched_origin = io_start;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut pending: Vec<usize> = Vec::with_capacity(depth);
    let mut inflight = 0usize;
    let mut stopping = false;
    let mut comps = Vec::with_capacity(depth);
    let mut engine_broken = false;
    // Metadata engines: the operation's name, the direction its time is reported in (as
    // fio: read if the job reads, else write), and what is left of each file's pass.
    let meta_op = job.caps.metadata;
    let stat_dir = if k.reads() || !k.writes() { 0 } else { 1 };
    let mut meta_left: Vec<u64> = match meta_op {
        Some(_) => vec![0; clone.files.len()],
        None => Vec::new(),
    };

    // Start the measured window afresh (after ramp_time, or for latency_target's final
    // window): forget what was recorded so far.
    macro_rules! restart_window {
        ($now:expr) => {{
            out.stats = ThreadStats::new();
            measure_start = $now;
            if let Some(l) = &mut iolog {
                l.events.clear();
            }
            cpu_start = CpuUsage::current_thread();
            sampler = Sampler::new($now, sampling, live);
            min_rate = MinRate::new(spec, $now);
        }};
    }

    'run: loop {
        if spec.verify.only {
            // verify_only: nothing is written; the check below reads everything back.
            break;
        }
        // Issue while there are free slots (and, after the queue filled up, once it has
        // drained to iodepth_low).
        if draining && inflight <= low {
            draining = false;
        }
        if quiesce && inflight == 0 {
            quiesce = false;
        }
        if backlog.due && inflight == 0 {
            // verify_backlog: every write of the batch has completed; check them now.
            backlog.due = false;
            let mut batch = std::mem::take(&mut backlog.chunks);
            if let Some(os) = &mut openset {
                if let Err(e) = os.open_all(&mut *engine, &clone.files, &opts) {
                    fail(
                        &mut out,
                        libc::EIO,
                        format!("verify: reopening the files: {e}"),
                    );
                    stopping = true;
                }
            }
            if spec.verify.backlog_batch > 0 && (spec.verify.backlog_batch as usize) < batch.len() {
                batch.drain(..batch.len() - spec.verify.backlog_batch as usize);
            }
            let vf = verifier.as_mut().expect("a backlog needs a verifier");
            if let Err((errno, text)) = verify_chunks(
                &mut *engine,
                &mut slots[0].buf,
                &ReadBack {
                    v: vf,
                    files: &clone.files,
                    known: true,
                    spec,
                },
                &batch,
                &mut out.stats,
            ) {
                fail(&mut out, errno, text);
                stopping = true;
            }
            for &(file, offset, _) in &batch {
                vf.checked(file, offset);
            }
            now = crate::clock::now();
        }
        while !stopping
            && !free.is_empty()
            && !draining
            && !quiesce
            && !backlog.due
            && lt.as_ref().is_none_or(|l| inflight < l.qd as usize)
        {
            if cancel.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
                stopping = true;
                break;
            }
            if thinker.due {
                // thinktime: the queue drains first (fio quiesces), then the stall.
                if inflight > 0 {
                    quiesce = true;
                    break;
                }
                if !thinker.stall(cancel, deadline) {
                    stopping = true;
                    break;
                }
                now = crate::clock::now();
                continue;
            }
            if ramping && now >= ramp_end {
                // Ramp over: forget what was recorded and start the measured window.
                ramping = false;
                restart_window!(now);
                deadline = runtime.map(|r| now + r);
                if let Some(s) = &mut schedule {
                    s.reset();
                    sched_origin = now;
                }
            }
            if let Some(f) = &mut flow {
                if f.ahead() {
                    // Ahead of this job's share of its flow group: wait, or go reap.
                    if !spec.flow_sleep.is_zero() {
                        sleep_cancellable(spec.flow_sleep, cancel);
                    } else {
                        std::thread::yield_now();
                    }
                    now = crate::clock::now();
                    if inflight > 0 {
                        break;
                    }
                    continue;
                }
                f.issued();
            }
            let Some(req) = held.take().or_else(|| gen.next_io()) else {
                stopping = true;
                break;
            };
            if !syncs.due.is_empty() {
                if let Some(err) = due_syncs(&mut *engine, &mut syncs, &mut out.stats) {
                    fail(&mut out, err.0, err.1);
                    stopping = true;
                    break;
                }
                now = crate::clock::now();
            }
            // serialize_overlap: an I/O overlapping one in flight waits for it.
            if spec.control.serialize_overlap
                && inflight > 0
                && overlaps_inflight(&slots, &free, &req)
            {
                held = Some(req);
                break;
            }
            if let Some(os) = &mut openset {
                match os.ensure(
                    req.file,
                    &mut *engine,
                    &clone.files,
                    &opts,
                    spec,
                    &mut out.stats,
                ) {
                    Ok(true) => os.written[req.file] |= req.ddir == Ddir::Write,
                    // Every open file has I/O in flight: reap, then try again.
                    Ok(false) => {
                        held = Some(req);
                        break;
                    }
                    Err(e) => {
                        let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                        fail(&mut out, errno, format!("openfiles: {e}"));
                        stopping = true;
                        break;
                    }
                }
            }
            // Rate limit: wait for this I/O's intended issue time.
            let intended = match &mut schedule {
                Some(s) => s
                    .intended(req.ddir.index(), req.len)
                    .map(|t| sched_origin + t),
                None => None,
            };
            if let Some(at) = intended {
                if at > now {
                    if !wait_until(at, cancel, deadline) {
                        stopping = true;
                        break;
                    }
                    now = crate::clock::now();
                }
            }
            if let Some(op) = meta_op {
                // A metadata engine: opening the file is the operation (at its first I/O
                // and again after each full pass over it); its I/Os are fake.
                let left = &mut meta_left[req.file];
                if *left == 0 {
                    match engine.file_op(req.file) {
                        Ok(ns) => out.stats.record_op(op, Some(stat_dir), ns, 0, true),
                        Err(e) => {
                            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                            fail(&mut out, errno, e.to_string());
                            stopping = true;
                            break;
                        }
                    }
                    *left = clone.files[req.file].region.len.max(1);
                }
                *left = left.saturating_sub(req.len);
            }
            let si = free.pop().expect("a free slot");
            let slot = &mut slots[si];
            slot.req = req;
            slot.done = 0;
            slot.short = 0;
            slot.intended = intended;
            if req.ddir == Ddir::Write {
                let data = &mut slot.buf.as_mut_slice()[..req.len as usize];
                if refill {
                    // Refilled data is a function of the seed and the offset, so the same
                    // job writes the same bytes on every engine and at every depth.
                    let unique = clone.params.seed ^ req.offset.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    content.fill(data, unique, draw.below(100));
                } else if content.scramble {
                    writes += 1;
                    content.scramble(data, clone.params.seed ^ writes);
                }
                if let Some(v) = &mut verifier {
                    v.fill_noting(req.file, req.offset, data, &mut slot.gens);
                    if let Some(j) = &mut journal {
                        if let Err(e) = j.intent(req.file, &slot.gens, v.interval) {
                            free.push(si);
                            fail(&mut out, libc::EIO, format!("verify_journal: {e}"));
                            stopping = true;
                            break;
                        }
                    }
                }
            }
            let io = slot.unit(si, &clone.files);
            let st = &mut out.stats;
            st.issued[req.ddir.index()] += 1;
            let t0 = crate::clock::now();
            slot.t_start = t0;
            // SAFETY: the slot's buffer holds max_bs ≥ io.len bytes, is 4096-aligned, and
            // is neither touched nor freed until the I/O completes (the slot is off the
            // free list until then, and the loop drains every in-flight I/O before exit).
            match unsafe { engine.queue(&io) } {
                Ok(Queued::Done(c)) => {
                    now = crate::clock::now();
                    st.depth_levels[depth_level_index(inflight as u32 + 1)] += 1;
                    st.depth_submit[batch_index(1)] += 1;
                    st.depth_complete[batch_index(1)] += 1;
                    let clat = now.duration_since(t0).as_nanos() as u64;
                    free.push(si);
                    let mut rec =
                        Recorder::new(&mut out, spec, iolog.as_mut().map(|l| (l, measure_start)));
                    rec.fake = meta_op.is_some();
                    if let Some((errno, text)) =
                        complete(&mut rec, &slots[si], &c, None, clat, &clone.files)
                    {
                        if !fills_device(spec, errno) {
                            fail(&mut out, errno, text);
                        }
                        stopping = true;
                        break;
                    }
                    if let Some(l) = &mut lt {
                        if l.on_complete(clat, now, &out.stats) {
                            fail(&mut out, libc::ETIMEDOUT, l.fatal_text(clat));
                            stopping = true;
                            break;
                        }
                        match l.check(now, &out.stats) {
                            LtEvent::Reset => restart_window!(now),
                            LtEvent::Done => {
                                stopping = true;
                                break;
                            }
                            LtEvent::None => {}
                        }
                    }
                    sampler.tick(now, &mut out.stats);
                    if let Some(text) = min_rate.check(now, &out.stats) {
                        fail(&mut out, libc::EIO, text);
                        stopping = true;
                        break;
                    }
                    // A synchronous I/O is issued and completed at once.
                    thinker.count();
                }
                Ok(Queued::Queued) => {
                    if thinker.t.on_issue {
                        thinker.count();
                    }
                    if let Some(os) = &mut openset {
                        os.inflight[req.file] += 1;
                    }
                    inflight += 1;
                    st.depth_levels[depth_level_index(inflight as u32)] += 1;
                    pending.push(si);
                    if inflight >= depth && low < depth {
                        draining = true;
                    }
                    if pending.len() >= batch
                        && !submit(&mut *engine, &mut pending, &mut slots, &mut out)
                    {
                        stopping = true;
                        engine_broken = true;
                        break;
                    }
                    continue;
                }
                Err(e) => {
                    free.push(si);
                    fail(
                        &mut out,
                        e.raw_os_error().unwrap_or(libc::EIO),
                        e.to_string(),
                    );
                    stopping = true;
                    break;
                }
            }
            // Synchronous completion: writes may call for a sync.
            if req.ddir == Ddir::Write {
                wrote = true;
                if let Some(err) = sync_cadence(
                    &mut *engine,
                    spec,
                    (req.file, req.offset, req.len),
                    &mut syncs,
                    &mut out.stats,
                ) {
                    fail(&mut out, err.0, err.1);
                    stopping = true;
                    break;
                }
            }
            if let Some(v) = &mut verifier {
                if let Err((errno, text)) = after_io(
                    v,
                    journal.as_mut(),
                    (req.ddir, req.file, req.offset, req.len),
                    (&slots[si], &clone.files[req.file].path),
                    spec,
                    &mut backlog,
                    &mut out.stats,
                ) {
                    fail(&mut out, errno, text);
                    stopping = true;
                    break;
                }
            }
        }
        if !pending.is_empty()
            && !engine_broken
            && !submit(&mut *engine, &mut pending, &mut slots, &mut out)
        {
            stopping = true;
            engine_broken = true;
        }
        if inflight == 0 {
            if stopping {
                break;
            }
            continue;
        }
        if engine_broken {
            break;
        }
        // Reap: wait for iodepth_batch_complete_min (0 = poll), take at most _max. When no
        // more I/O will be issued, wait for at least one.
        comps.clear();
        let min = if stopping { cmin.max(1) } else { cmin };
        let n = match engine.reap(min, cmax, &mut comps) {
            Ok(n) => n,
            Err(e) => {
                fail(
                    &mut out,
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!("reap: {e}"),
                );
                engine_broken = true;
                break;
            }
        };
        now = crate::clock::now();
        if n > 0 {
            out.stats.depth_complete[batch_index(n as u32)] += 1;
        }
        for &c0 in comps.iter() {
            let si = c0.tag as usize;
            let slot = &mut slots[si];
            let mut c = c0;
            // A short transfer: reissue the remainder from the same slot.
            if c.res > 0 && slot.done + (c.res as u64) < slot.req.len {
                slot.done += c.res as u64;
                slot.short += 1;
                let io = slot.unit(si, &clone.files);
                // SAFETY: as for the first submission of this slot.
                match unsafe { engine.queue(&io) } {
                    Ok(Queued::Queued) => {
                        pending.push(si);
                        continue;
                    }
                    Ok(Queued::Done(rest)) => c = rest,
                    Err(e) => {
                        c.res = -(e.raw_os_error().unwrap_or(libc::EIO) as i64);
                    }
                }
            }
            inflight -= 1;
            if let Some(os) = &mut openset {
                os.inflight[slot.req.file] -= 1;
            }
            let slat = slot.t_sub.duration_since(slot.t_start).as_nanos() as u64;
            let clat = now.duration_since(slot.t_sub).as_nanos() as u64;
            let ddir = slot.req.ddir;
            let file = slot.req.file;
            let (off, len) = (slot.req.offset, slot.req.len);
            free.push(si);
            let mut rec = Recorder::new(&mut out, spec, iolog.as_mut().map(|l| (l, measure_start)));
            if let Some((errno, text)) =
                complete(&mut rec, &slots[si], &c, Some(slat), clat, &clone.files)
            {
                if out.error_text.is_none() && !fills_device(spec, errno) {
                    fail(&mut out, errno, text);
                }
                stopping = true;
                continue;
            }
            if let Some(l) = &mut lt {
                let before = l.qd;
                if l.on_complete(slat + clat, now, &out.stats) {
                    if out.error_text.is_none() {
                        fail(&mut out, libc::ETIMEDOUT, l.fatal_text(slat + clat));
                    }
                    stopping = true;
                    continue;
                }
                // Ramped down: let the deeper queue drain before judging the new depth.
                quiesce |= l.qd < before;
            }
            if !thinker.t.on_issue {
                thinker.count();
            }
            if ddir == Ddir::Write {
                wrote = true;
                if let Some(err) = sync_cadence(
                    &mut *engine,
                    spec,
                    (file, off, len),
                    &mut syncs,
                    &mut out.stats,
                ) {
                    fail(&mut out, err.0, err.1);
                    stopping = true;
                }
            }
            if let Some(v) = &mut verifier {
                if let Err((errno, text)) = after_io(
                    v,
                    journal.as_mut(),
                    (ddir, file, off, len),
                    (&slots[si], &clone.files[file].path),
                    spec,
                    &mut backlog,
                    &mut out.stats,
                ) {
                    if out.error_text.is_none() {
                        fail(&mut out, errno, text);
                    }
                    stopping = true;
                }
            }
        }
        if let Some(l) = lt.as_mut().filter(|_| !stopping) {
            let before = l.qd;
            match l.check(now, &out.stats) {
                LtEvent::Reset => {
                    restart_window!(now);
                    quiesce = true;
                }
                LtEvent::Done => stopping = true,
                LtEvent::None => quiesce |= l.qd < before,
            }
        }
        sampler.tick(now, &mut out.stats);
        if let Some(text) = min_rate.check(now, &out.stats) {
            fail(&mut out, libc::EIO, text);
            stopping = true;
        }
        if !pending.is_empty() {
            continue 'run;
        }
    }
    if engine_broken && inflight > 0 {
        // The engine cannot tell us when the kernel is done with these buffers: keep
        // them allocated for the rest of the process rather than risk a use after free.
        std::mem::forget(slots);
        slots = Vec::new();
    }
    if ramping {
        // The job ended during ramp: nothing was measured.
        let v = out.stats.verify.take();
        out.stats = ThreadStats::new();
        out.stats.verify = v;
        measure_start = crate::clock::now();
    }
    // verify_state_save: as fio, a verifying job that writes leaves what it wrote,
    // generation by generation, for a later verify_state_load (a run cut short included).
    if let (Some(v), true) = (&verifier, spec.verify.state_save && k.writes()) {
        if !spec.verify.only {
            let p = state_path(spec, clone.jobnum);
            if let Err(e) = v.save_state(&p) {
                if out.error_text.is_none() {
                    let errno = e.raw_os_error().unwrap_or(libc::EIO);
                    fail(
                        &mut out,
                        errno,
                        format!("verify_state_save {}: {e}", p.display()),
                    );
                }
            }
        }
    }
    // The verify pass: read back every chunk this clone wrote (verify_only: every chunk
    // of its regions, or with a loaded state those it knows) and check it, after all of
    // its writes have completed.
    if let Some(v) = &verifier {
        let pass = (spec.verify.do_verify && (k.writes() || k.trims())) || spec.verify.only;
        if let (Some(os), true) = (&mut openset, pass) {
            // The check reads every file: open the ones openfiles had closed.
            if let Err(e) = os.open_all(&mut *engine, &clone.files, &opts) {
                fail(
                    &mut out,
                    libc::EIO,
                    format!("verify: reopening the files: {e}"),
                );
            }
        }
        if pass && out.error_text.is_none() && !engine_broken && inflight == 0 {
            let mut list: Vec<(usize, u64, u64)> = (0..clone.files.len())
                .flat_map(|fi| {
                    let r = clone.files[fi].region;
                    let blocks: Vec<(u64, u64)> = if spec.verify.only && !spec.verify.state_load {
                        (0..r.len / v.interval)
                            .map(|i| (r.start + i * v.interval, v.interval))
                            .collect()
                    } else if spec.verify.only {
                        v.written(fi).map(|o| (o, v.interval)).collect()
                    } else {
                        // Each write not yet checked (verify_backlog checked the others).
                        v.unchecked(fi)
                    };
                    blocks.into_iter().map(move |(o, n)| (fi, o, n))
                })
                .collect();
            if spec.verify.experimental && !spec.verify.only {
                // experimental_verify: replay the job's writes from its seed and read
                // them back in the order they were written (as many as were written).
                let writes = out.stats.issued[1];
                let mut g = fathom_workload::Generator::new(clone.params.clone())
                    .expect("the generator was built from these parameters before");
                list = std::iter::from_fn(|| g.next_io())
                    .filter(|io| io.ddir == Ddir::Write)
                    .take(writes as usize)
                    .map(|io| (io.file, io.offset, io.len))
                    .collect();
            }
            let known = !spec.verify.only || spec.verify.state_load;
            if let Err((errno, text)) = verify_chunks(
                &mut *engine,
                &mut slots[0].buf,
                &ReadBack {
                    v,
                    files: &clone.files,
                    known,
                    spec,
                },
                &list,
                &mut out.stats,
            ) {
                fail(&mut out, errno, text);
            }
        }
        let vs = out.stats.verify.clone().unwrap_or_default();
        let tolerated =
            spec.continue_on_error_verify || spec.ignore_error_verify.contains(&libc::EILSEQ);
        if vs.failures > 0 && out.error_text.is_none() && tolerated {
            // continue_on_error=verify / ignore_error=,,EILSEQ: counted, not fatal.
            out.stats.count_errors = true;
            out.stats.total_err += vs.failures;
            if out.stats.first_error == 0 {
                out.stats.first_error = libc::EILSEQ;
                out.first_error_text = vs.first.first().cloned();
            }
        } else if vs.failures > 0 && out.error_text.is_none() {
            let more = if vs.failures > 1 {
                format!(" (and {} more failed chunks)", vs.failures - 1)
            } else {
                String::new()
            };
            let first = vs.first.first().cloned().unwrap_or_default();
            fail(&mut out, libc::EILSEQ, format!("{first}{more}"));
        } else if vs.blocks == 0 && out.error_text.is_none() && (pass || spec.verify.backlog > 0) {
            fail(
                &mut out,
                libc::EINVAL,
                format!(
                    "verify={} checked nothing: no written (or, with trim_verify_zero, \
                     trimmed) chunk to read back",
                    vs.kind
                ),
            );
        }
    }
    if wrote && (spec.end_fsync || spec.fsync_on_close) && out.error_text.is_none() {
        for fi in 0..clone.files.len() {
            if let Some(os) = &openset {
                // A closed file was synced on close (fsync_on_close) or is synced now
                // through a fresh descriptor.
                if !os.open[fi] {
                    if spec.fsync_on_close || !os.written[fi] {
                        continue;
                    }
                    if let Err(e) = engine.reopen_file(fi, &clone.files[fi].path, &opts) {
                        out.stats.error = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                        out.error_text = Some(format!("end fsync: {e}"));
                        break;
                    }
                }
            }
            // As fio, the closing sync is not one of the job's syncs (JSON `sync`): it
            // is timed into the runtime, not counted.
            if let Err(e) = engine.sync_file(fi, false) {
                out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
                out.error_text = Some(format!("end fsync: {e}"));
                break;
            }
        }
    }
    let end = crate::clock::now();
    if let Some(l) = &lt {
        out.stats.latency_depth = l.qd;
    }
    out.stats.finish();
    out.stats.runtime = end.duration_since(measure_start);
    out.stats.cpu = CpuUsage::current_thread().since(&cpu_start);
    if let Err(e) = engine.close_files() {
        if out.error_text.is_none() {
            out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
            out.error_text = Some(format!("close: {e}"));
        }
    }
    drop(engine);
    drop(slots);
    if let Some(l) = &iolog {
        let deadline_ns =
            deadline.map(|d| d.saturating_duration_since(measure_start).as_nanos() as u64);
        let base = crate::logs::epoch_base_ms(&spec.logs, measure_start.elapsed());
        if let Err(e) = crate::logs::write_logs(&spec.logs, clone.index, l, deadline_ns, base) {
            if out.error_text.is_none() {
                out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
                out.error_text = Some(format!("writing the job's logs: {e}"));
            }
        }
    }
    if let Some(cmd) = &spec.control.exec_postrun {
        // As fio, a failing postrun command is reported but does not fail the job.
        if let Err(text) = exec_hook(&spec.name, "postrun", cmd) {
            out.notes.push(text);
        }
    }
    out.elapsed = t_start.elapsed();
    out
}

/// `lockmem`: memory pinned with mlock(2) for as long as this lives.
struct LockedMem(Vec<u8>);

impl LockedMem {
    fn new(bytes: u64) -> Result<Option<LockedMem>, String> {
        if bytes == 0 {
            return Ok(None);
        }
        // SAFETY: sysconf has no preconditions.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_AVPHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let avail = (pages.max(0) as u64).saturating_mul(page.max(0) as u64);
        if bytes > avail {
            return Err(format!(
                "lockmem={bytes}: more than this machine's available memory ({avail} bytes)"
            ));
        }
        let mut v: Vec<u8> = Vec::new();
        v.try_reserve_exact(bytes as usize)
            .map_err(|e| format!("lockmem={bytes}: {e}"))?;
        // SAFETY: mlock over the Vec's own allocation (its capacity; mlock faults the
        // pages in, nothing reads them), which lives as long as `self`.
        if unsafe { libc::mlock(v.as_mut_ptr().cast(), v.capacity()) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!(
                "lockmem={bytes}: mlock failed: {e}; raise the locked-memory limit \
                 (ulimit -l) or run as root"
            ));
        }
        Ok(Some(LockedMem(v)))
    }
}

impl Drop for LockedMem {
    fn drop(&mut self) {
        // SAFETY: unlocks the range locked in `new`, still allocated.
        unsafe { libc::munlock(self.0.as_ptr().cast(), self.0.capacity()) };
    }
}

/// True when `req` overlaps an I/O still in flight (a slot not in `free`) on its file.
fn overlaps_inflight(slots: &[Slot], free: &[usize], req: &IoReq) -> bool {
    let idle: std::collections::HashSet<usize> = free.iter().copied().collect();
    slots.iter().enumerate().any(|(i, s)| {
        !idle.contains(&i)
            && s.req.file == req.file
            && s.req.offset < req.offset + req.len
            && req.offset < s.req.offset + s.req.len
    })
}

/// exec_prerun / exec_postrun: `sh -c CMD`, its output in `JOB.WHICH.txt` (fio's file).
fn exec_hook(job: &str, which: &str, cmd: &str) -> Result<(), String> {
    let log = format!("{job}.{which}.txt");
    let file = std::fs::File::create(&log).map_err(|e| format!("exec_{which}: {log}: {e}"))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("exec_{which}: {log}: {e}"))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(std::process::Stdio::null())
        .stdout(file)
        .stderr(err)
        .status()
        .map_err(|e| format!("exec_{which} '{cmd}': {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "exec_{which} '{cmd}' failed ({status}); its output is in {log}"
        ))
    }
}

/// pre_read: read `len` bytes of `path` from `start` through the page cache.
fn pre_read(path: &std::path::Path, start: u64, len: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    f.seek(std::io::SeekFrom::Start(start))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = f.read(&mut buf[..left.min(1 << 20) as usize])?;
        if n == 0 {
            break;
        }
        left -= n as u64;
    }
    Ok(())
}

/// verify_backlog: completed writes waiting for a check, and whether one is due.
#[derive(Default)]
struct Backlog {
    chunks: Vec<(usize, u64, u64)>,
    due: bool,
}

/// After a completed I/O of a verifying job, on either completion path: a write is
/// acknowledged in the journal (verify_journal) and joins the backlog (a full backlog asks
/// for a check); a read of a read-only job is checked at once.
fn after_io(
    v: &mut crate::verify::Verifier,
    journal: Option<&mut crate::journal::JournalWriter>,
    (ddir, file, offset, len): (Ddir, usize, u64, u64),
    (slot, path): (&Slot, &std::path::Path),
    spec: &fathom_job::JobSpec,
    backlog: &mut Backlog,
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let k = spec.rw.kind;
    if let (Some(j), Ddir::Write) = (journal, ddir) {
        j.ack(file, &slot.gens, v.interval)
            .map_err(|e| (libc::EIO, format!("verify_journal: {e}")))?;
    }
    if ddir == Ddir::Write && spec.verify.backlog > 0 {
        backlog.chunks.push((file, offset, len));
        if backlog.chunks.len() as u64 >= spec.verify.backlog {
            backlog.due = true;
        }
    } else if ddir == Ddir::Trim {
        v.trimmed(file, offset, len);
    } else if ddir == Ddir::Read && !k.writes() {
        let data = &slot.buf.as_slice()[..len as usize];
        for (off, n) in v.chunks(offset, len) {
            let b = &data[(off - offset) as usize..(off - offset + n) as usize];
            check_chunk(v, (path, b, off), None, spec, st)?;
        }
    }
    Ok(())
}

/// Record the check of one chunk; Err ends the job (verify_fatal).
fn check_chunk(
    v: &crate::verify::Verifier,
    (path, b, offset): (&std::path::Path, &[u8], u64),
    expected: Option<u64>,
    spec: &fathom_job::JobSpec,
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let r = v.check(b, offset, expected);
    record_check(v, (path, b.len(), Some(b)), r, spec, st)
}

/// Count a chunk's check (done here or by a verify_async thread); Err ends the job
/// (verify_fatal). verify_dump writes a failed chunk as read and as expected.
fn record_check(
    v: &crate::verify::Verifier,
    (path, len, data): (&std::path::Path, usize, Option<&[u8]>),
    r: Result<(), Box<crate::verify::Failure>>,
    spec: &fathom_job::JobSpec,
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let vs = st.verify.get_or_insert_with(Default::default);
    vs.blocks += 1;
    vs.bytes += len as u64;
    if let Err(f) = r {
        vs.failures += 1;
        let mut text = f.text(path);
        if let (true, Some(b)) = (spec.verify.dump, data) {
            let base = format!("{}.{}", path.display(), f.offset);
            let expected = v.expected_of(&f, b.len());
            let wrote = std::fs::write(format!("{base}.received"), b)
                .and_then(|_| std::fs::write(format!("{base}.expected"), expected));
            text.push_str(&match wrote {
                Ok(()) => format!("; dumped to {base}.received and {base}.expected"),
                Err(e) => format!("; verify_dump failed: {e}"),
            });
        }
        if vs.first.len() < fathom_stats::VERIFY_FAILURES_KEPT {
            vs.first.push(text.clone());
        }
        if spec.verify.fatal {
            return Err((libc::EILSEQ, text));
        }
    }
    Ok(())
}

/// Read back and check chunks (file, offset, length), one at a time through the engine
/// with nothing else in flight; the reads count as reads of the job, as in fio. With
/// `checkers`, each chunk goes to the verify_async threads instead of being checked here.
fn read_and_check(
    engine: &mut dyn fathom_engine::IoEngine,
    buf: &mut AlignedBuf,
    rb: &ReadBack<'_>,
    list: &[(usize, u64, u64)],
    st: &mut ThreadStats,
    checkers: Option<&std::sync::mpsc::SyncSender<CheckItem>>,
) -> Result<(), (i32, String)> {
    let ReadBack {
        v,
        files,
        known,
        spec,
    } = *rb;
    let mut comps = Vec::with_capacity(1);
    for &(file, offset, len) in list {
        // One read per block, as fio reads a write back; its chunks are checked apart.
        let chunks: Vec<(u64, u64, bool)> = v
            .chunks(offset, len)
            .map(|(o, n)| (o, n, v.is_trimmed(file, o)))
            .collect();
        if !spec.verify.trim_zero && chunks.iter().all(|c| c.2) {
            continue; // trim_verify_zero=0: trimmed chunks are not checked
        }
        let io = IoUnit {
            ddir: Ddir::Read,
            file,
            offset,
            buf: buf.as_mut_ptr(),
            len: len as usize,
            tag: 0,
        };
        let t0 = crate::clock::now();
        let path = &files[file].path;
        let io_err = |e: std::io::Error| {
            (
                fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
                format!("verify read of {} at offset {offset}: {e}", path.display()),
            )
        };
        // SAFETY: `buf` holds at least `len` bytes (a block is at most the largest block
        // size), is aligned for the files' open mode, and nothing else is in flight.
        let (res, slat) = match unsafe { engine.queue(&io) }.map_err(io_err)? {
            Queued::Done(c) => (c.res, None),
            Queued::Queued => {
                engine.commit().map_err(io_err)?;
                let t_sub = crate::clock::now();
                comps.clear();
                while comps.is_empty() {
                    engine.reap(1, 1, &mut comps).map_err(io_err)?;
                }
                (
                    comps[0].res,
                    Some(t_sub.duration_since(t0).as_nanos() as u64),
                )
            }
        };
        let total = crate::clock::now().duration_since(t0).as_nanos() as u64;
        if res != len as i64 {
            let errno = if res < 0 { (-res) as i32 } else { libc::EIO };
            return Err((
                errno,
                format!(
                    "verify read of {} at offset {offset} (0x{offset:x}), length {len}: {}",
                    path.display(),
                    if res < 0 {
                        errno_text(errno)
                    } else {
                        format!("short read of {res} bytes")
                    }
                ),
            ));
        }
        st.record_io_deferred(0, len, slat, total.saturating_sub(slat.unwrap_or(0)));
        for (off, n, trimmed) in chunks {
            let at = (off - offset) as usize;
            let data = &buf.as_slice()[at..at + n as usize];
            if trimmed {
                if spec.verify.trim_zero {
                    let r = v.check_trimmed(data, off);
                    record_check(v, (path, data.len(), Some(data)), r, spec, st)?;
                }
                continue;
            }
            let expected = known.then(|| v.generation(file, off) as u64);
            match checkers {
                Some(tx) => {
                    if tx.send((file, off, expected, data.to_vec())).is_err() {
                        return Ok(());
                    }
                }
                None => check_chunk(v, (path, data, off), expected, spec, st)?,
            }
        }
    }
    Ok(())
}

/// verify_state_save/load's file: `local-JOB-N-verify.state` in the working directory.
fn state_path(spec: &fathom_job::JobSpec, jobnum: u32) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("local-{}-{jobnum}-verify.state", spec.name))
}

/// What a read-back pass checks against: the verifier, the clone's files, whether the
/// expected generations are known, and the job.
#[derive(Clone, Copy)]
struct ReadBack<'a> {
    v: &'a crate::verify::Verifier,
    files: &'a [crate::plan::PlannedFile],
    known: bool,
    spec: &'a fathom_job::JobSpec,
}

/// A chunk for a verify_async thread: (file, offset, expected generation, data).
type CheckItem = (usize, u64, Option<u64>, Vec<u8>);

/// [`read_and_check`] with verify_async: the reads stay on this thread, the checks run
/// on `spec.verify.async_threads` threads; results are counted here, in read order.
fn verify_chunks(
    engine: &mut dyn fathom_engine::IoEngine,
    buf: &mut AlignedBuf,
    rb: &ReadBack<'_>,
    list: &[(usize, u64, u64)],
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let ReadBack { v, files, spec, .. } = *rb;
    let threads = spec.verify.async_threads as usize;
    if threads == 0 {
        return read_and_check(engine, buf, rb, list, st, None);
    }
    // (file, length, result, the data when the check failed)
    type Checked = (
        usize,
        usize,
        Result<(), Box<crate::verify::Failure>>,
        Option<Vec<u8>>,
    );
    let (tx, rx) = std::sync::mpsc::sync_channel::<CheckItem>(threads * 4);
    let rx = std::sync::Mutex::new(rx);
    let (rtx, rrx) = std::sync::mpsc::channel::<Checked>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (rx, rtx) = (&rx, rtx.clone());
            s.spawn(move || loop {
                let item = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((file, off, expected, data)) = item else {
                    break;
                };
                let r = v.check(&data, off, expected);
                let keep = r.is_err().then_some(data.clone());
                if rtx.send((file, data.len(), r, keep)).is_err() {
                    break;
                }
            });
        }
        drop(rtx);
        // Results are counted as they come; a fatal failure stops the reads.
        let read = read_and_check(engine, buf, rb, list, st, Some(&tx));
        drop(tx);
        let mut outcome = read;
        for (file, len, r, data) in rrx {
            let at = (files[file].path.as_path(), len, data.as_deref());
            if let Err(e) = record_check(v, at, r, spec, st) {
                if outcome.is_ok() {
                    outcome = Err(e);
                }
            }
        }
        outcome
    })
}

/// openfiles: which of a clone's files are open, how recently each was used, and the
/// I/Os each has in flight (a file is closed only when idle).
struct OpenSet {
    limit: usize,
    /// The files open now (at most `limit`, more after a verify pass opened them all).
    opened: Vec<usize>,
    open: Vec<bool>,
    last: Vec<u64>,
    inflight: Vec<u32>,
    written: Vec<bool>,
    tick: u64,
    count: usize,
}

impl OpenSet {
    fn new(n: usize, limit: usize) -> OpenSet {
        OpenSet {
            limit,
            opened: (0..limit.min(n)).collect(),
            open: (0..n).map(|i| i < limit).collect(),
            last: vec![0; n],
            inflight: vec![0; n],
            written: vec![false; n],
            tick: 0,
            count: limit.min(n),
        }
    }

    /// Open every closed file (a verify pass reads them all); later I/O closes the least
    /// recently used ones again down to the limit.
    fn open_all(
        &mut self,
        engine: &mut dyn fathom_engine::IoEngine,
        files: &[crate::plan::PlannedFile],
        opts: &OpenOptions,
    ) -> std::io::Result<()> {
        for (f, file) in files.iter().enumerate() {
            if !self.open[f] {
                engine.reopen_file(f, &file.path, opts)?;
                self.open[f] = true;
                self.opened.push(f);
                self.count += 1;
            }
        }
        Ok(())
    }

    /// Make file `f` open for an I/O, closing the least recently used idle file when at
    /// the limit (after an fsync with fsync_on_close). False: every open file has I/O in
    /// flight, so nothing can be closed yet.
    fn ensure(
        &mut self,
        f: usize,
        engine: &mut dyn fathom_engine::IoEngine,
        files: &[crate::plan::PlannedFile],
        opts: &OpenOptions,
        spec: &fathom_job::JobSpec,
        st: &mut ThreadStats,
    ) -> std::io::Result<bool> {
        self.tick += 1;
        if !self.open[f] {
            // Down to the limit (more than one after a verify pass opened them all).
            // The search is over the open files only: its cost follows openfiles, not
            // the number of files.
            while self.count >= self.limit {
                let victim = (0..self.opened.len())
                    .filter(|&k| self.inflight[self.opened[k]] == 0)
                    .min_by_key(|&k| self.last[self.opened[k]]);
                let Some(k) = victim else {
                    return Ok(false);
                };
                let v = self.opened[k];
                if spec.fsync_on_close && self.written[v] {
                    timed_sync(engine, v, false, st)?;
                }
                engine.close_file(v)?;
                self.opened.swap_remove(k);
                self.open[v] = false;
                self.count -= 1;
            }
            engine.reopen_file(f, &files[f].path, opts)?;
            self.open[f] = true;
            self.opened.push(f);
            self.count += 1;
        }
        self.last[f] = self.tick;
        Ok(true)
    }
}

/// What a latency_target check decided.
enum LtEvent {
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
struct LatTarget {
    target_ns: u64,
    window: Duration,
    pct: f64,
    keep_running: bool,
    max: u32,
    qd: u32,
    low: u32,
    high: u32,
    stable: u32,
    since: Instant,
    ios_at: u64,
    failed: u64,
    end_run: bool,
}

fn total_ios(st: &ThreadStats) -> u64 {
    st.dirs.iter().map(|d| d.ios).sum()
}

impl LatTarget {
    fn new(spec: &fathom_job::JobSpec, depth: u32, now: Instant) -> Option<LatTarget> {
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
    fn new_cycle(&mut self, now: Instant, st: &ThreadStats) {
        self.since = now;
        self.ios_at = total_ios(st);
        self.failed = 0;
    }
    /// An I/O took `lat_ns`; true if that is fatal (over the target at depth 1).
    fn on_complete(&mut self, lat_ns: u64, now: Instant, st: &ThreadStats) -> bool {
        if lat_ns <= self.target_ns {
            return false;
        }
        if self.pct < 100.0 {
            self.failed += 1;
            return false;
        }
        self.ramp_down(now, st)
    }
    fn fatal_text(&self, lat_ns: u64) -> String {
        format!(
            "latency_target: an I/O took {lat_ns} ns, over the target of {} ns, at queue \
             depth 1: the target cannot be met",
            self.target_ns
        )
    }
    /// A window (or, at 100%, one I/O) missed the target: bisect down. True at depth 1.
    fn ramp_down(&mut self, now: Instant, st: &ThreadStats) -> bool {
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
    fn check(&mut self, now: Instant, st: &ThreadStats) -> LtEvent {
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

/// A clone's membership of a flow group (fio's flow control): it may issue while its
/// share of the group's I/Os is at most its share of the group's weight.
pub(crate) struct FlowMember<'a> {
    flow: &'a crate::plan::Flow,
    weight: u64,
    own: u64,
}

impl<'a> FlowMember<'a> {
    pub(crate) fn join(flow: &'a crate::plan::Flow, weight: u32) -> FlowMember<'a> {
        flow.total_weight
            .fetch_add(weight as u64, Ordering::Relaxed);
        FlowMember {
            flow,
            weight: weight as u64,
            own: 0,
        }
    }
    /// True when this member has done more than its share.
    pub(crate) fn ahead(&self) -> bool {
        let total = self.flow.counter.load(Ordering::Relaxed).max(1) as f64;
        let weights = self.flow.total_weight.load(Ordering::Relaxed).max(1) as f64;
        self.own as f64 / total > self.weight as f64 / weights
    }
    /// Count one I/O.
    pub(crate) fn issued(&mut self) {
        self.flow.counter.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
    }
}

impl Drop for FlowMember<'_> {
    fn drop(&mut self) {
        // Leaving: the group goes on as if this member had never been in it.
        self.flow.counter.fetch_sub(self.own, Ordering::Relaxed);
        self.flow
            .total_weight
            .fetch_sub(self.weight, Ordering::Relaxed);
    }
}

/// Apply cpus_allowed/cpumask (with cpus_allowed_policy), nice, prio and prioclass to the
/// calling thread.
fn place_thread(spec: &fathom_job::JobSpec, jobnum: u32) -> Result<(), String> {
    if let Some(nodes) = &spec.control.numa_cpu_nodes {
        crate::numa::run_on_nodes(nodes, spec.cpus.as_deref())?;
    }
    if let Some(p) = &spec.control.numa_mem_policy {
        crate::numa::set_mem_policy(p)?;
    }
    // SAFETY: the libc calls below take plain values and a zeroed cpu_set_t we own.
    unsafe {
        let tid = libc::gettid();
        if let Some(cpus) = &spec.cpus {
            let mine: Vec<usize> = if spec.cpus_split {
                vec![cpus[jobnum as usize % cpus.len()]]
            } else {
                cpus.clone()
            };
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in &mine {
                libc::CPU_SET(c, &mut set);
            }
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(format!(
                    "cpus_allowed {mine:?}: {} (the machine has {} CPUs online)",
                    std::io::Error::last_os_error(),
                    std::thread::available_parallelism().map_or(1, |n| n.get())
                ));
            }
        }
        if let Some(n) = spec.nice {
            if libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, n) != 0 {
                return Err(format!("nice={n}: {}", std::io::Error::last_os_error()));
            }
        }
        if spec.prio.is_some() || spec.prioclass.is_some() {
            // Best-effort when only prio is given, priority 4 when only the class is.
            let class = spec.prioclass.unwrap_or(2) as libc::c_long;
            let prio = spec.prio.unwrap_or(4) as libc::c_long;
            const IOPRIO_WHO_PROCESS: libc::c_long = 1;
            let value = (class << 13) | prio;
            if libc::syscall(
                libc::SYS_ioprio_set,
                IOPRIO_WHO_PROCESS,
                tid as libc::c_long,
                value,
            ) != 0
            {
                return Err(format!(
                    "prioclass={class} prio={prio}: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
    }
    Ok(())
}

/// One I/O slot: its buffer and the I/O using it.
struct Slot {
    buf: AlignedBuf,
    req: IoReq,
    /// Bytes already done (short transfers are reissued for the rest).
    done: u64,
    short: u32,
    /// Start of submission.
    t_start: Instant,
    /// When the engine accepted it (end of the submit call).
    t_sub: Instant,
    /// Intended issue time from the rate schedule.
    intended: Option<Instant>,
    /// verify: the (offset, generation) of each chunk this slot's write carries.
    gens: Vec<(u64, u32)>,
}

impl Slot {
    fn new(len: usize, align: usize) -> Slot {
        let now = crate::clock::now();
        Slot {
            buf: AlignedBuf::new(len, align),
            req: IoReq {
                ddir: Ddir::Read,
                file: 0,
                offset: 0,
                len: 0,
            },
            done: 0,
            short: 0,
            t_start: now,
            t_sub: now,
            intended: None,
            gens: Vec::new(),
        }
    }
    fn unit(&mut self, si: usize, _files: &[crate::plan::PlannedFile]) -> IoUnit {
        IoUnit {
            ddir: self.req.ddir,
            file: self.req.file,
            offset: self.req.offset + self.done,
            buf: self.buf.as_mut_ptr().wrapping_add(self.done as usize),
            len: (self.req.len - self.done) as usize,
            tag: si as u64,
        }
    }
}

/// Submit what is pending; on failure record it in the outcome and return false.
fn submit(
    engine: &mut dyn fathom_engine::IoEngine,
    pending: &mut Vec<usize>,
    slots: &mut [Slot],
    out: &mut CloneOutcome,
) -> bool {
    match commit(engine, pending, slots, &mut out.stats) {
        Ok(()) => true,
        Err(e) => {
            out.stats.error = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            out.error_text = Some(format!("submit: {e}"));
            false
        }
    }
}

/// Submit what is pending; stamps each I/O's submission time.
fn commit(
    engine: &mut dyn fathom_engine::IoEngine,
    pending: &mut Vec<usize>,
    slots: &mut [Slot],
    st: &mut ThreadStats,
) -> std::io::Result<()> {
    let n = engine.commit()?;
    let t = crate::clock::now();
    st.depth_submit[batch_index(n as u32)] += 1;
    for si in pending.drain(..) {
        slots[si].t_sub = t;
    }
    Ok(())
}

/// The recorder with the job's error policy.
struct Recorder<'a> {
    stats: &'a mut ThreadStats,
    tolerate: &'a [bool; 3],
    ignore: &'a [Vec<i32>; 3],
    first_error_text: &'a mut Option<String>,
    /// Per-I/O events for the job's log files, with the time they count from.
    log: Option<(&'a mut crate::logs::IoLog, Instant)>,
    /// The I/Os are a metadata engine's fake ones: counted, without latency.
    fake: bool,
    /// `max_latency` in ns (0: none): a slower I/O ends the job with ETIMEDOUT.
    max_lat: u64,
    /// `error_dump`: print each tolerated error (the first 100) on stderr, as fio does.
    dump: bool,
    job: &'a str,
}

impl<'a> Recorder<'a> {
    fn new(
        out: &'a mut CloneOutcome,
        spec: &'a fathom_job::JobSpec,
        log: Option<(&'a mut crate::logs::IoLog, Instant)>,
    ) -> Recorder<'a> {
        Recorder {
            stats: &mut out.stats,
            tolerate: &spec.continue_on_error,
            ignore: &spec.ignore_error,
            first_error_text: &mut out.first_error_text,
            log,
            fake: false,
            max_lat: spec.control.max_latency.as_nanos() as u64,
            dump: !spec.control.no_error_dump,
            job: &spec.name,
        }
    }
}

/// Record a completed I/O; returns (errno, text) if it failed and the failure ends the
/// job (errors tolerated by continue_on_error/ignore_error are counted instead).
fn complete(
    st: &mut Recorder<'_>,
    slot: &Slot,
    c: &fathom_engine::Completion,
    slat: Option<u64>,
    clat: u64,
    files: &[crate::plan::PlannedFile],
) -> Option<(i32, String)> {
    let req = &slot.req;
    if c.res < 0 {
        let errno = (-c.res) as i32;
        let f = &files[req.file].path;
        let text = format!(
            "{} error on {} at offset {} (0x{:x}), length {}: {}",
            req.ddir.name(),
            f.display(),
            req.offset,
            req.offset,
            req.len,
            errno_text(errno)
        );
        let d = req.ddir.index();
        if st.tolerate[d] || st.ignore[d].contains(&errno) {
            // continue_on_error / ignore_error: count it and go on.
            st.stats.total_err += 1;
            if st.dump && st.stats.total_err <= ERROR_DUMP_MAX {
                eprintln!("fathom: job '{}': {text} (tolerated)", st.job);
                if st.stats.total_err == ERROR_DUMP_MAX {
                    eprintln!(
                        "fathom: job '{}': further tolerated errors are counted, not printed",
                        st.job
                    );
                }
            }
            if st.stats.first_error == 0 {
                st.stats.first_error = errno;
                *st.first_error_text = Some(text);
            }
            return None;
        }
        return Some((errno, text));
    }
    if st.fake {
        st.stats
            .record_fake_io(req.ddir.index(), slot.done + c.res as u64);
        return None;
    }
    if let Some((log, origin)) = &mut st.log {
        let lat = slat.unwrap_or(0) + clat;
        log.events.push(crate::logs::LogEvent {
            t_ns: slot.t_start.saturating_duration_since(*origin).as_nanos() as u64 + lat,
            ddir: req.ddir.index() as u8,
            bs: (slot.done + c.res as u64) as u32,
            offset: req.offset,
            slat: slat.unwrap_or(0),
            clat,
        });
    }
    let max_lat = st.max_lat;
    let st = &mut st.stats;
    let bytes = slot.done + c.res as u64;
    if c.short > 0 || slot.short > 0 {
        st.dirs[req.ddir.index()].short_ios += 1;
    }
    st.record_io_deferred(req.ddir.index(), bytes, slat, clat);
    let lat = slat.unwrap_or(0) + clat;
    if let Some(at) = slot.intended {
        // Response time from the intended issue time; never less than lat.
        let resp = (slot.t_start.saturating_duration_since(at).as_nanos() as u64) + lat;
        st.dirs[req.ddir.index()].resp.record(resp);
    }
    if max_lat > 0 && lat > max_lat {
        // max_latency: as fio, the job ends with ETIMEDOUT (this I/O is counted).
        return Some((
            libc::ETIMEDOUT,
            format!(
                "latency of {lat} ns exceeds max_latency ({max_lat} ns): {} at offset {} of {}",
                req.ddir.name(),
                req.offset,
                files[req.file].path.display()
            ),
        ));
    }
    None
}

/// fsync=N / fdatasync=N after writes; returns (errno, text) on failure.
/// Writes since each kind of sync, and per file the range written since its last
/// sync_file_range.
#[derive(Default)]
struct SyncState {
    since_fsync: u32,
    since_fdatasync: u32,
    since_range: u32,
    ranges: Vec<Option<(u64, u64)>>,
    /// fsync/fdatasync calls due (file, data only): as fio, each is issued before the
    /// job's next I/O, so a job that has no next I/O ends without it (end_fsync syncs).
    due: Vec<(usize, bool)>,
}

/// Issue the fsync/fdatasync calls `sync_cadence` found due, timed and counted.
fn due_syncs(
    engine: &mut dyn fathom_engine::IoEngine,
    s: &mut SyncState,
    st: &mut ThreadStats,
) -> Option<(i32, String)> {
    for (file, data_only) in s.due.drain(..) {
        if let Err(e) = timed_sync(engine, file, data_only, st) {
            let what = if data_only { "fdatasync" } else { "fsync" };
            return Some((
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("{what}: {e}"),
            ));
        }
    }
    None
}

fn sync_cadence(
    engine: &mut dyn fathom_engine::IoEngine,
    spec: &fathom_job::JobSpec,
    (file, offset, len): (usize, u64, u64),
    s: &mut SyncState,
    st: &mut ThreadStats,
) -> Option<(i32, String)> {
    if let Some((flags, every)) = spec.sync_file_range {
        let r = &mut s.ranges[file];
        *r = Some(match *r {
            Some((a, b)) => (a.min(offset), b.max(offset + len)),
            None => (offset, offset + len),
        });
        s.since_range += 1;
        if s.since_range >= every {
            s.since_range = 0;
            if let Some((a, b)) = r.take() {
                let t0 = crate::clock::now();
                if let Err(e) = engine.sync_range(file, a, b - a, flags) {
                    return Some((
                        fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
                        format!("sync_file_range: {e}"),
                    ));
                }
                st.sync.record(t0.elapsed().as_nanos() as u64);
            }
        }
    }
    if spec.fsync > 0 {
        s.since_fsync += 1;
        if s.since_fsync >= spec.fsync {
            s.since_fsync = 0;
            s.due.push((file, false));
        }
    }
    if spec.fdatasync > 0 {
        s.since_fdatasync += 1;
        if s.since_fdatasync >= spec.fdatasync {
            s.since_fdatasync = 0;
            s.due.push((file, true));
        }
    }
    None
}

fn timed_sync(
    engine: &mut dyn fathom_engine::IoEngine,
    file: usize,
    data_only: bool,
    st: &mut ThreadStats,
) -> std::io::Result<()> {
    let t0 = crate::clock::now();
    engine.sync_file(file, data_only)?;
    st.sync.record(t0.elapsed().as_nanos() as u64);
    Ok(())
}

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

/// rate_min / rate_iops_min: after 2 s of settling, every rate_cycle the direction's
/// bandwidth and IOPS over that cycle must reach the minimum, else the job fails.
struct MinRate {
    bytes_min: [u64; 3],
    iops_min: [u64; 3],
    cycle: Duration,
    /// When the next check (or, before `armed`, the window's start) is due.
    next: Option<Instant>,
    /// A cycle's start has been taken: checks compare against it.
    armed: bool,
    last: ([u64; 3], [u64; 3], Instant),
}

impl MinRate {
    fn new(spec: &fathom_job::JobSpec, start: Instant) -> MinRate {
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
    fn check(&mut self, now: Instant, st: &ThreadStats) -> Option<String> {
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
    t: crate::plan::ThinkTime,
    since: u32,
    io_start: Instant,
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

/// Sleep, waking early if cancelled. Returns false when cancelled.
fn sleep_cancellable(d: Duration, cancel: &AtomicBool) -> bool {
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

#[cfg(test)]
mod lat_target_tests {
    use super::*;

    /// A device whose latency is 100 µs per queued I/O: with a 450 µs target the
    /// search must settle at depth 4.
    #[test]
    fn the_search_settles_at_the_deepest_queue_that_meets_the_target() {
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
    fn a_slow_io_at_depth_one_is_fatal_at_100_percent() {
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
