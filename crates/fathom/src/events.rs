//! Events while a run goes on: periodic progress and each job's result as soon as it ends.
//!
//! Register them on the [`Runner`](crate::Runner):
//!
//! ```
//! use fathom::{Engine, Job, Runner, RwKind};
//! use std::sync::{Arc, Mutex};
//! use std::time::Duration;
//! let ended = Arc::new(Mutex::new(Vec::new()));
//! let seen = ended.clone();
//! let job = Job::builder("probe")
//!     .engine(Engine::Null)
//!     .rw(RwKind::RandRead)
//!     .size(8 << 20)
//!     .build()
//!     .unwrap();
//! let report = Runner::new(job)
//!     .on_interval(Duration::from_millis(500), |p| eprintln!("{:.1}s", p.elapsed.as_secs_f64()))
//!     .on_job_end(move |j| seen.lock().unwrap().push((j.name.clone(), j.stats.dirs[0].ios)))
//!     .run()
//!     .unwrap();
//! assert_eq!(*ended.lock().unwrap(), vec![("probe".to_string(), 2048)]);
//! assert_eq!(report.jobs[0].stats.dirs[0].ios, 2048);
//! ```

use fathom_stats::JobResult;
use std::time::Duration;

/// Progress of one job (all its clones together) at an interval event.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct JobProgress {
    /// Job name.
    pub name: String,
    /// Completed I/Os so far per direction (read, write, trim).
    pub ios: [u64; 3],
    /// Completed bytes so far per direction.
    pub bytes: [u64; 3],
    /// I/Os completed since the previous interval event, per direction.
    pub interval_ios: [u64; 3],
    /// Bytes completed since the previous interval event, per direction.
    pub interval_bytes: [u64; 3],
    /// True once every clone of the job has ended.
    pub done: bool,
}

/// What an interval event sees.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Progress {
    /// Time since the run started (layout included).
    pub elapsed: Duration,
    /// Length of the interval this event covers.
    pub interval: Duration,
    /// Every job of the run, in job order.
    pub jobs: Vec<JobProgress>,
}

impl Progress {
    /// IOPS of job `i` in direction `d` (0 read, 1 write, 2 trim) over this interval.
    pub fn interval_iops(&self, i: usize, d: usize) -> f64 {
        let secs = self.interval.as_secs_f64();
        if secs > 0.0 {
            self.jobs[i].interval_ios[d] as f64 / secs
        } else {
            0.0
        }
    }
    /// IOPS of job `j` (one of this event's jobs) in direction `d` over this interval.
    pub fn interval_iops_of(&self, j: &JobProgress, d: usize) -> f64 {
        let secs = self.interval.as_secs_f64();
        if secs > 0.0 {
            j.interval_ios[d] as f64 / secs
        } else {
            0.0
        }
    }
    /// Bytes/s of job `j` in direction `d` over this interval.
    pub fn interval_bw_of(&self, j: &JobProgress, d: usize) -> f64 {
        let secs = self.interval.as_secs_f64();
        if secs > 0.0 {
            j.interval_bytes[d] as f64 / secs
        } else {
            0.0
        }
    }
    /// Bytes/s of job `i` in direction `d` over this interval.
    pub fn interval_bw(&self, i: usize, d: usize) -> f64 {
        let secs = self.interval.as_secs_f64();
        if secs > 0.0 {
            self.jobs[i].interval_bytes[d] as f64 / secs
        } else {
            0.0
        }
    }
}

type IntervalFn = Box<dyn FnMut(&Progress) + Send>;
type JobEndFn = Box<dyn FnMut(&JobResult) + Send>;
type PhaseFn = Box<dyn FnMut(u32) + Send>;
type PollFn = Box<dyn FnMut() + Send>;

/// The registered callbacks.
#[derive(Default)]
pub(crate) struct Events {
    pub interval: Option<(Duration, IntervalFn)>,
    pub job_end: Option<JobEndFn>,
    pub before_phase: Option<PhaseFn>,
    pub poll: Option<PollFn>,
}

impl Events {
    pub(crate) fn interval_period(&self) -> Option<Duration> {
        self.interval.as_ref().map(|(d, _)| *d)
    }
    pub(crate) fn fire_interval(&mut self, p: &Progress) {
        if let Some((_, f)) = &mut self.interval {
            f(p);
        }
    }
    pub(crate) fn fire_before_phase(&mut self, phase: u32) {
        if let Some(f) = &mut self.before_phase {
            f(phase);
        }
    }
    pub(crate) fn fire_poll(&mut self) {
        if let Some(f) = &mut self.poll {
            f();
        }
    }
    pub(crate) fn fire_job_end(&mut self, j: &JobResult) {
        if let Some(f) = &mut self.job_end {
            f(j);
        }
    }
}

/// Builds [`Progress`] from the live board, remembering the previous totals.
pub(crate) struct ProgressTracker {
    /// Per job: the board's clone indexes.
    clones_of: Vec<std::ops::Range<usize>>,
    names: Vec<String>,
    prev: Vec<([u64; 3], [u64; 3])>,
    /// Exact totals of jobs that have ended.
    finals: Vec<Option<([u64; 3], [u64; 3])>>,
    last: std::time::Instant,
}

impl ProgressTracker {
    pub(crate) fn new(plan: &crate::plan::Plan) -> ProgressTracker {
        let mut at = 0;
        let clones_of = plan
            .jobs
            .iter()
            .map(|j| {
                let r = at..at + j.clones.len();
                at = r.end;
                r
            })
            .collect();
        ProgressTracker {
            clones_of,
            names: plan.jobs.iter().map(|j| j.spec.name.clone()).collect(),
            prev: vec![([0; 3], [0; 3]); plan.jobs.len()],
            finals: vec![None; plan.jobs.len()],
            last: std::time::Instant::now(),
        }
    }

    /// Job `j` has ended with these clones' outcomes: its totals are exact from now on.
    pub(crate) fn finish<'a>(
        &mut self,
        j: usize,
        clones: impl Iterator<Item = &'a crate::record::outcome::CloneOutcome>,
    ) {
        let mut ios = [0u64; 3];
        let mut bytes = [0u64; 3];
        for o in clones {
            for d in 0..3 {
                ios[d] += o.stats.dirs[d].ios;
                bytes[d] += o.stats.dirs[d].bytes;
            }
        }
        self.finals[j] = Some((ios, bytes));
    }

    pub(crate) fn snapshot(&mut self, board: &crate::record::live::LiveBoard) -> Progress {
        use std::sync::atomic::Ordering::Relaxed;
        let now = std::time::Instant::now();
        let interval = now - self.last;
        self.last = now;
        let jobs = (0..self.names.len())
            .map(|j| {
                let (ios, bytes) = self.finals[j].unwrap_or_else(|| {
                    let mut ios = [0u64; 3];
                    let mut bytes = [0u64; 3];
                    for (_, c) in &board.clones[self.clones_of[j].clone()] {
                        for d in 0..3 {
                            ios[d] += c.ios[d].load(Relaxed);
                            bytes[d] += c.bytes[d].load(Relaxed);
                        }
                    }
                    (ios, bytes)
                });
                let (pi, pb) = self.prev[j];
                self.prev[j] = (ios, bytes);
                JobProgress {
                    name: self.names[j].clone(),
                    ios,
                    bytes,
                    interval_ios: std::array::from_fn(|d| ios[d].saturating_sub(pi[d])),
                    interval_bytes: std::array::from_fn(|d| bytes[d].saturating_sub(pb[d])),
                    done: self.finals[j].is_some(),
                }
            })
            .collect();
        Progress {
            elapsed: now - board.start,
            interval,
            jobs,
        }
    }
}
