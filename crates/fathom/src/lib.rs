//! fathom: run fio-style storage I/O jobs from Rust.
//!
//! Describe jobs with the [`Job`] builder (the option names of a job file), or parse a
//! job file's text ([`JobSpec::from_fio_str`], [`JobSet::from_toml_str`]); hand them to a
//! [`Runner`], which plans them (groups, clones, files, sizes, all checked before anything
//! is created), lays out files before the clock starts, runs one OS thread per job clone
//! and returns a [`Report`]: exact, mergeable statistics whose latency histograms answer
//! any percentile, serde-serializable without loss.
//!
//! ```
//! use fathom::{Engine, Job, Runner, RwKind};
//! use std::time::Duration;
//!
//! let job = Job::builder("randread")
//!     .rw(RwKind::RandRead)
//!     .bs(4096)
//!     .size(16 << 20)
//!     .engine(Engine::Null)
//!     .iodepth(8)
//!     .runtime(Duration::from_secs(10))
//!     .build()?;
//! let report = Runner::new(job).run()?;
//! let read = &report.jobs[0].stats.dirs[0];
//! assert_eq!(read.ios, 4096); // 16 MiB in 4 KiB blocks, each once
//! println!("p99.9 = {} ns, mean = {:.0} ns", read.clat.percentile(99.9), read.clat.mean());
//!
//! // The report is plain data: store it, load it, merge it.
//! let text = serde_json::to_string(&report)?;
//! let back: fathom::Report = serde_json::from_str(&text)?;
//! assert_eq!(back.jobs[0].stats.dirs[0].clat.percentile(99.9), read.clat.percentile(99.9));
//!
//! // The same job from a job file's text.
//! let same = fathom::JobSpec::from_fio_str(
//!     "[randread]\nrw=randread\nbs=4k\nsize=16m\nioengine=null\niodepth=8\nruntime=10\n",
//! )?;
//! assert_eq!(same.size, Runner::new(same.clone()).plan()?.jobs[0].spec.size);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! While it runs, [`Runner::on_interval`] and [`Runner::on_job_end`] report progress and
//! finished jobs (see [`events`]); [`Runner::cancel_handle`] stops it from another thread
//! (what SIGINT does in the binary). Custom I/O paths plug in as engines: implement
//! [`IoEngine`] and [`register_engine`] it by name, then jobs say `ioengine=NAME` (the
//! crate's `examples/memory_engine.rs` does this with an in-memory engine).
//!
//! The source is in rooms, in the order a run passes through them: `plan/` decides
//! everything before the clock starts (groups, clones, files, sizes, limits, the
//! [`guard`], zonemode=zbd's zones); `run/` starts a thread per clone, phase by phase
//! (`phase.rs` supervises them); `io/` is a clone's thread (`worker.rs` from start to end)
//! and timing loop (`run_loop.rs` its start and turns, `state.rs` what it owns, `issue.rs`
//! generates, paces and queues, `reap.rs` takes completions, `slot.rs` accounts each,
//! `zbd.rs` steers I/O to its zone), `meta/` the metadata engines (`walk.rs` a filetree
//! clone's run); `pace/` holds
//! every wait (think time, rate_min, latency_target, flow, steady state); `verify/`
//! checks what was written (and keeps the crash [`journal`]); `record/` holds what comes
//! out besides the statistics (clone outcomes, [`logs`], [`live`] counters, [`facts`],
//! [`gate`]s).
#![deny(missing_docs)]

pub mod clock;
pub mod cluster;
mod error;
pub mod events;
mod io;
mod meta;
mod pace;
pub mod plan;
pub mod record;
mod run;
mod verify;

pub use io::worker;
pub use plan::guard;
pub use record::{facts, gate, live, logs};
pub use verify::journal;

pub use cluster::Cluster;
pub use error::RunError;
pub use events::{JobProgress, Progress};
pub use fathom_engine as engine;
pub use fathom_engine::{register_engine, IoEngine};
pub use fathom_job::{Engine, IoData, IoOrder, Job, JobBuilder, JobSet, JobSpec, RwKind, SizeSpec};
pub use fathom_stats::{CpuUsage, DirStats, JobResult, LatStat, RunResult, Sample};
pub use plan::Plan;

/// What a run returns: every job's and group's statistics, serde-serializable and
/// lossless (histograms included), the same data the native output format holds.
pub type Report = RunResult;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// fathom's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A handle that stops a running [`Runner`]: every job ends after its current I/O and
/// the results so far are reported.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<AtomicBool>);

impl CancelHandle {
    /// Ask the run to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    /// True once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Runs a set of jobs.
pub struct Runner {
    set: JobSet,
    cancel: CancelHandle,
    live: std::sync::Mutex<Option<Arc<live::LiveBoard>>>,
    events: std::sync::Mutex<events::Events>,
}

impl Runner {
    /// A runner for these jobs: a [`JobSet`] (a parsed job file), a [`JobSpec`] (e.g.
    /// from [`Job::builder`]) or a `Vec<JobSpec>`.
    pub fn new(jobs: impl Into<JobSet>) -> Runner {
        Runner {
            set: jobs.into(),
            cancel: CancelHandle::default(),
            live: std::sync::Mutex::new(None),
            events: std::sync::Mutex::new(events::Events::default()),
        }
    }
    /// Call `f` every `period` while jobs run, with each job's progress (totals and the
    /// interval's I/Os and bytes). Counters are published by the job threads every
    /// 500 ms, so a shorter period sees the same numbers twice.
    pub fn on_interval(
        self,
        period: std::time::Duration,
        f: impl FnMut(&Progress) + Send + 'static,
    ) -> Runner {
        self.lock_events().interval =
            Some((period.max(std::time::Duration::from_millis(1)), Box::new(f)));
        self
    }
    /// Call `f` with each job's result as soon as the job ends (all its clones; merged
    /// when the job sets group_reporting, else once per clone), before later jobs end.
    pub fn on_job_end(self, f: impl FnMut(&JobResult) + Send + 'static) -> Runner {
        self.lock_events().job_end = Some(Box::new(f));
        self
    }
    /// Call `f(phase)` when a phase's files are laid out, just before its job threads
    /// start (a distributed run puts a barrier here, so every rank starts together). It
    /// is called for every phase in order, also for the phases a stopped run skips (so
    /// that every rank of a distributed run makes the same calls); if `f` cancels the run
    /// (through [`Runner::cancel_handle`]), the phase does not start.
    pub fn before_phase(self, f: impl FnMut(u32) + Send + 'static) -> Runner {
        self.lock_events().before_phase = Some(Box::new(f));
        self
    }
    /// Call `f` about every 50 ms while a phase runs, on the thread that called
    /// [`Runner::run`] (also once as each phase ends): where a distributed run looks for a
    /// stop from another rank, and cancels through [`Runner::cancel_handle`].
    pub fn on_poll(self, f: impl FnMut() + Send + 'static) -> Runner {
        self.lock_events().poll = Some(Box::new(f));
        self
    }
    fn lock_events(&self) -> std::sync::MutexGuard<'_, events::Events> {
        self.events.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// A handle that cancels this runner's run (e.g. from a signal handler thread).
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }
    /// Plan the run without doing any I/O: every check that can fail before the clock
    /// starts fails here.
    pub fn plan(&self) -> Result<Plan, RunError> {
        plan::plan(&self.set)
    }
    /// [`Runner::plan`] with run limits (e.g. read-only).
    pub fn plan_with(&self, limits: plan::Limits) -> Result<Plan, RunError> {
        plan::plan_with(&self.set, limits)
    }
    /// Plan and run. I/O errors inside jobs are recorded in the result (each job's
    /// `stats.error`); only planning and setup failures are errors.
    pub fn run(self) -> Result<Report, RunError> {
        let p = self.plan()?;
        self.run_planned(&p)
    }
    /// Run an already made plan.
    pub fn run_planned(&self, plan: &Plan) -> Result<RunResult, RunError> {
        let board = self.live_board(plan);
        let mut events = self.lock_events();
        run::execute(plan, &self.cancel.0, &board, &mut events)
    }
    /// The live counters of `plan`'s clones (for progress or a status dump while
    /// [`Runner::run_planned`] runs on another thread). Publication is every 500 ms.
    pub fn live_board(&self, plan: &Plan) -> Arc<live::LiveBoard> {
        let mut slot = self.live.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| {
            let names = plan
                .jobs
                .iter()
                .flat_map(|j| j.clones.iter().map(|_| j.spec.name.clone()))
                .collect();
            Arc::new(live::LiveBoard::new(names))
        })
        .clone()
    }
}
