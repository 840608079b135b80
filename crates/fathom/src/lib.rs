//! fathom: run fio-style storage I/O jobs from Rust.
//!
//! A [`Runner`] takes parsed jobs (a [`fathom_job::JobSet`], from a job file, TOML or the
//! command line), plans them — groups, clones, files, sizes, all checked before anything
//! is created — lays out files before the clock starts, runs one OS thread per job clone,
//! and returns a [`RunResult`] with exact, mergeable statistics.
//!
//! ```
//! use fathom::{Runner, JobSet, JobSpec, SizeSpec};
//! use fathom_job::{Rw, RwKind};
//! let job = JobSpec {
//!     name: "oracle".into(),
//!     ioengine: "null".into(),
//!     rw: Rw { kind: RwKind::RandRead, suffix: 0 },
//!     size: Some(SizeSpec::Bytes(16 << 20)),
//!     ..Default::default()
//! };
//! let result = Runner::new(JobSet { jobs: vec![job], global_options: vec![] })
//!     .run()
//!     .unwrap();
//! assert_eq!(result.jobs[0].stats.dirs[0].ios, 4096);
//! ```
#![deny(missing_docs)]

mod error;
pub mod guard;
pub mod live;
pub mod plan;
mod run;
pub mod worker;

pub use error::RunError;
pub use fathom_job::{JobSet, JobSpec, SizeSpec};
pub use fathom_stats::RunResult;
pub use plan::Plan;

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
}

impl Runner {
    /// A runner for these jobs.
    pub fn new(set: JobSet) -> Runner {
        Runner {
            set,
            cancel: CancelHandle::default(),
            live: std::sync::Mutex::new(None),
        }
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
    pub fn run(self) -> Result<RunResult, RunError> {
        let p = self.plan()?;
        self.run_planned(&p)
    }
    /// Run an already made plan.
    pub fn run_planned(&self, plan: &Plan) -> Result<RunResult, RunError> {
        let board = self.live_board(plan);
        run::execute(plan, &self.cancel.0, &board)
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
