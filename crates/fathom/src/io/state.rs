//! The state a clone's timing loop owns ([`Loop`]), below the modules that act on it:
//! [`super::issue`] and [`super::reap`] take it, [`super::run_loop`] starts and turns it.

use crate::io::cmdprio::PrioPick;
use crate::io::prepare::Prepared;
use crate::io::sampler::Sampler;
use crate::io::source::Source;
use crate::io::sync::SyncState;
use crate::pace::flow::FlowMember;
use crate::pace::latency_target::LatTarget;
use crate::pace::{MinRate, Thinker};
use crate::plan::{PlannedClone, PlannedJob};
use crate::record::outcome::CloneOutcome;
use crate::verify::readback::Backlog;
use fathom_engine::Completion;
use fathom_job::JobSpec;
use fathom_stats::{CpuUsage, ThreadStats};
use fathom_workload::IoReq;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Record a failure in the outcome (the first error and its text).
pub(crate) fn fail(out: &mut CloneOutcome, errno: i32, text: String) {
    out.stats.error = errno;
    out.error_text = Some(text);
}

/// Everything a clone's timing loop owns.
pub(crate) struct Loop<'a> {
    pub(crate) job: &'a PlannedJob,
    pub(crate) clone: &'a PlannedClone,
    pub(crate) spec: &'a JobSpec,
    pub(crate) cancel: &'a AtomicBool,
    pub(crate) live: Option<&'a crate::record::live::LiveClone>,
    pub(crate) out: CloneOutcome,
    pub(crate) t_start: Instant,
    /// What `prepare` set up: the engine, its slots and batching, verification.
    pub(crate) p: Prepared,
    // Write contents.
    pub(crate) refill: bool,
    pub(crate) draw: fathom_workload::Rng,
    pub(crate) dedupe_set: Option<fathom_engine::DedupeSet>,
    pub(crate) uniques: u64,
    pub(crate) writes: u64,
    /// verify: the completed writes waiting for a backlog check.
    pub(crate) backlog: Backlog,
    /// An I/O that could not be issued yet (rate, overlap, open files), and its intended
    /// issue time (rate limits), taken from the schedule once.
    pub(crate) held: Option<IoReq>,
    pub(crate) held_at: Option<Instant>,
    /// The held I/O was steered to its zone already (zonemode=zbd).
    pub(crate) held_steered: bool,
    /// zonemode=zbd: the clone's zones (None without).
    pub(crate) zbd: Option<Box<crate::io::zbd::ZbdClone>>,
    /// Reap until this time rather than sleep to it: the next I/O is due then.
    pub(crate) wake: Option<Instant>,
    pub(crate) gen: Source,
    pub(crate) schedule: Option<fathom_workload::Schedule>,
    pub(crate) sched_origin: Instant,
    pub(crate) thinker: Thinker,
    pub(crate) flow: Option<FlowMember<'a>>,
    /// Depth group (vdbench's WD priority=): a place taken for each I/O in flight.
    pub(crate) depth: Option<crate::pace::depth::DepthMember<'a>>,
    /// A depth group, fileio=(sequential,delete) or a pre-read: a step before each I/O
    /// is queued.
    pub(crate) before_queue: bool,
    /// vdbench's data validation: the reads it makes around a write (None without).
    pub(crate) chain: Option<Box<crate::io::chain::Chain>>,
    /// The I/O in hand came from the chain: not paced, not given a pre-read.
    pub(crate) chained: bool,
    /// The chain has an I/O whose turn has come (the one flag the issue path reads).
    pub(crate) chain_ready: bool,
    pub(crate) io_start: Instant,
    /// latency_target: the queue-depth search (and, after a ramp down, a quiesce).
    pub(crate) lt: Option<LatTarget>,
    pub(crate) quiesce: bool,
    pub(crate) draining: bool,
    pub(crate) ramping: bool,
    pub(crate) ramp_end: Instant,
    pub(crate) measure_start: Instant,
    pub(crate) deadline: Option<Instant>,
    /// Per-I/O events, only when the job writes log files.
    pub(crate) iolog: Option<crate::record::logs::IoLog>,
    /// write_iolog: the issued I/Os in fio's replayable format.
    pub(crate) wlog: Option<crate::record::iolog::IologWriter>,
    pub(crate) cpu_start: CpuUsage,
    pub(crate) sampling: ([bool; 3], Duration, bool),
    pub(crate) sampler: Sampler<'a>,
    pub(crate) min_rate: MinRate,
    pub(crate) syncs: SyncState,
    /// fsync, fdatasync or sync_file_range every N writes.
    pub(crate) sync_cadence: bool,
    pub(crate) wrote: bool,
    pub(crate) now: Instant,
    // The slots: free ones, ones queued but not yet submitted, how many are in flight.
    pub(crate) free: Vec<usize>,
    pub(crate) pending: Vec<usize>,
    pub(crate) inflight: usize,
    pub(crate) comps: Vec<Completion>,
    pub(crate) stopping: bool,
    pub(crate) engine_broken: bool,
    /// Metadata engines: the operation's name, the direction its time is reported in (as
    /// fio: read if the job reads, else write), and what is left of each file's pass.
    pub(crate) meta_op: Option<&'static str>,
    pub(crate) stat_dir: usize,
    pub(crate) meta_left: Vec<u64>,
    /// cmdprio: each I/O's own priority.
    pub(crate) prio: Option<PrioPick>,
    /// unlink_each_loop, or a verifying job of several loops: the generator's loop, and a
    /// turn to make once the queue drained.
    pub(crate) cur_loop: u32,
    pub(crate) loop_turn: bool,
    /// A verifying job reads back each loop's writes before the next loop, as fio.
    pub(crate) verify_each_loop: bool,
    /// A time-based verifying job on an asynchronous engine reads back each pass's writes
    /// before the next pass, as fio's does (fio breaks out to verify once it has issued
    /// `size` bytes, which it counts for queued I/O only: its synchronous engines never
    /// verify in a time-based job, nor does fathom there). The generator's pass now.
    pub(crate) verify_each_pass: bool,
    /// Any of unlink_each_loop, verify_each_loop, verify_each_pass: the one flag the issue
    /// path reads before looking for a loop's or pass's turn.
    pub(crate) turns: bool,
    /// end_fsync or fsync_on_close on a writing job: as fio, which syncs (and closes) the
    /// files at the end of each of its loops — each loop, each io_size pass, each pass of
    /// a time-based job over several files (not the wrap of one file, nor a random map
    /// starting over, which fio makes in place) — each such pass ends with the sync.
    pub(crate) sync_each_pass: bool,
    pub(crate) cur_pass: u32,
    /// invalidate=1 on a buffered job: as fio, each pass over the files (a loop, a
    /// time-based job's wrap, each direction's wrap of a time-based mix over one file,
    /// an io_size pass) drops a file's cached pages before its first I/O. `cache_pass`:
    /// the generator's cache epoch now; `cache_dropped`: the files dropped in it
    /// (`cache_left` not yet).
    pub(crate) drop_cache_each_pass: bool,
    pub(crate) cache_pass: u32,
    /// The generator's whole epoch at `cache_pass` (passes and wraps: every file).
    pub(crate) cache_whole: u32,
    pub(crate) cache_dropped: Vec<bool>,
    pub(crate) cache_left: usize,
    /// The turn being made comes with a new loop (not only a new pass).
    pub(crate) new_loop: bool,
    /// The time spent in verify phases (each loop's read-back and the one at the end)
    /// since the measurement started: fio counts it for the reads only.
    pub(crate) verify_time: std::time::Duration,
    /// The job's I/O is all issued (the generator ran out), not cut short.
    pub(crate) work_done: bool,
    pub(crate) prio_values: Option<[Vec<u16>; 2]>,
}

impl Loop<'_> {
    /// cmdprio: the priorities each direction reports under, before any is recorded.
    pub(crate) fn seed_prios(&mut self) {
        for (d, v) in self.prio_values.iter().flatten().enumerate() {
            self.out.stats.seed_prios(d, v);
        }
    }

    /// Start the measured window afresh (after ramp_time, or for latency_target's final
    /// window): forget what was recorded so far.
    pub(crate) fn restart_window(&mut self, now: Instant) {
        self.out.stats = ThreadStats::new();
        self.seed_prios();
        self.seed_ops();
        self.measure_start = now;
        self.verify_time = std::time::Duration::ZERO;
        if let Some(l) = &mut self.iolog {
            l.events.clear();
        }
        self.cpu_start = CpuUsage::current_thread();
        self.sampler = Sampler::new(now, self.sampling, self.live);
        self.sample_ops();
        self.min_rate = MinRate::new(self.spec, now);
    }

    /// fileio=(sequential,delete): its operations listed from the start (so their
    /// samples line up with the intervals) and sampled with the I/O.
    pub(crate) fn seed_ops(&mut self) {
        if self.spec.control.delete_before_write {
            for op in ["delete", "create"] {
                self.out.stats.op_mut(op);
            }
        }
        if self.spec.control.count_opens {
            for op in ["open", "close"] {
                self.out.stats.op_mut(op);
            }
        }
    }

    /// See [`Loop::seed_ops`].
    pub(crate) fn sample_ops(&mut self) {
        if self.spec.control.delete_before_write || self.spec.control.count_opens {
            let (start, every) = (self.sampler.start, self.sampler.every);
            let n = self.out.stats.ops.len();
            let mut o = crate::meta::OpSampler::new(start, every, n, false);
            o.share_ops = self.spec.control.live_samples;
            self.sampler.ops = Some(o);
        }
    }
}

/// Remove a file; one already gone is no error.
pub(crate) fn remove_if_there(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
