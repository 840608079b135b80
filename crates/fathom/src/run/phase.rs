//! One phase's jobs while they run: a thread per clone, and the supervising loop that
//! passes stops on (cancel, exitall, steady state, cpuio's exit_on_io_done), fires the
//! interval and poll events, and collects each job as its last clone ends.

use super::{job_results, join_clone, DoneSignal};
use crate::events::{Events, ProgressTracker};
use crate::io::worker::run_clone;
use crate::pace::steady::{Totals, Tracker};
use crate::plan::{Plan, PlannedJob};
use crate::record::live::LiveBoard;
use crate::record::outcome::CloneOutcome;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

const RELAXED: Ordering = Ordering::Relaxed;

/// Wake at least every 50 ms to pass a cancel on to the job threads.
const POLL: Duration = Duration::from_millis(50);

/// Jobs whose files could not be laid out: (errno, message) by job index.
pub(super) type Failed = HashMap<usize, (i32, String)>;

/// A phase's jobs while they run.
pub(super) struct PhaseRun<'a> {
    pub plan: &'a Plan,
    pub phase: u32,
    pub jobs: &'a [(usize, &'a PlannedJob)],
    pub board: &'a LiveBoard,
    pub failed: &'a Failed,
    /// A stop flag per job: the run's cancel (SIGINT, a cancel handle) sets them all;
    /// exitall sets those of the jobs it names.
    stops: Vec<AtomicBool>,
    /// Jobs of this phase that have ended (for wait_for); earlier phases' jobs all have.
    ended: Vec<AtomicBool>,
}

impl<'a> PhaseRun<'a> {
    pub fn new(
        plan: &'a Plan,
        phase: u32,
        jobs: &'a [(usize, &'a PlannedJob)],
        board: &'a LiveBoard,
        failed: &'a Failed,
    ) -> Self {
        PhaseRun {
            plan,
            phase,
            jobs,
            board,
            failed,
            stops: plan.jobs.iter().map(|_| AtomicBool::new(false)).collect(),
            ended: plan
                .jobs
                .iter()
                .enumerate()
                .map(|(ji, j)| AtomicBool::new(j.phase < phase || failed.contains_key(&ji)))
                .collect(),
        }
    }

    fn stop_every_job(&self) {
        for s in &self.stops {
            s.store(true, RELAXED);
        }
    }

    /// Jobs whose files could not be laid out end now, with the error, and do no I/O.
    /// Returns true when one of them stops the whole run (exitall_on_error).
    pub fn end_unlaid(
        &self,
        events: &mut Events,
        outcomes: &mut [Vec<CloneOutcome>],
        layout_time: &[Duration],
    ) -> bool {
        let mut stop_all = false;
        for (&ji, (errno, text)) in self.failed {
            let job = &self.plan.jobs[ji];
            if !job.caps.no_data {
                self.plan
                    .io_clones_left
                    .fetch_sub(job.clones.len(), Ordering::Relaxed);
            }
            let mine: Vec<CloneOutcome> = job
                .clones
                .iter()
                .map(|_| {
                    let mut o = CloneOutcome {
                        start_ms: crate::io::sampler::epoch_ms(),
                        error_text: Some(text.clone()),
                        ..Default::default()
                    };
                    o.stats.error = *errno;
                    o
                })
                .collect();
            if job.spec.control.exitall_on_error {
                stop_all = true;
                self.stop_every_job();
            }
            if events.job_end.is_some() {
                for r in job_results(job, mine.iter(), layout_time[ji], std::process::id()) {
                    events.fire_job_end(&r);
                }
            }
            outcomes[ji].extend(mine);
        }
        stop_all
    }

    /// Run the phase: one thread per clone; each tells the loop when it ends, so a job's
    /// result is handed to `on_job_end` as soon as its last clone is done. Returns every
    /// clone's outcome and whether later phases must not start.
    pub fn run(
        &self,
        cancel: &AtomicBool,
        events: &mut Events,
        progress: &mut ProgressTracker,
        layout_time: &[Duration],
    ) -> (Vec<(usize, CloneOutcome)>, bool) {
        // Steady-state watches of this phase's jobs, fed from the live board.
        let phase_start = Instant::now();
        let trackers: Vec<Option<Tracker>> = self
            .plan
            .jobs
            .iter()
            .map(|j| {
                (j.phase == self.phase)
                    .then(|| Tracker::new(&j.spec, phase_start))
                    .flatten()
            })
            .collect();
        std::thread::scope(|s| {
            let (tx, rx) = channel::<usize>();
            let handles = self.spawn(s, tx);
            let mut sup = Supervisor {
                run: self,
                handles,
                trackers,
                got: Vec::new(),
                stop_all: false,
            };
            sup.watch(rx, cancel, events, progress, layout_time);
            // Once more as the phase ends (a stop that ended it is announced from here).
            events.fire_poll();
            (sup.got, sup.stop_all)
        })
    }

    /// A thread per clone of every job of the phase that was laid out.
    fn spawn<'s>(
        &'s self,
        s: &'s Scope<'s, '_>,
        tx: Sender<usize>,
    ) -> Vec<(usize, Option<ScopedJoinHandle<'s, CloneOutcome>>)> {
        let plan = self.plan;
        let mut handles = Vec::new();
        // Every clone's flow weight is in its group before the first thread starts.
        let mut weights: Vec<Option<crate::pace::flow::FlowWeight>> = self
            .jobs
            .iter()
            .filter(|(ji, _)| !self.failed.contains_key(ji))
            .flat_map(|(_, job)| {
                job.clones.iter().map(|_| {
                    job.flow
                        .clone()
                        .map(|f| crate::pace::flow::FlowWeight::count(f, job.spec.flow))
                })
            })
            .collect();
        weights.reverse();
        for (ji, job) in self
            .jobs
            .iter()
            .filter(|(ji, _)| !self.failed.contains_key(ji))
        {
            let (ji, job) = (*ji, *job);
            let first = plan.jobs[..ji]
                .iter()
                .map(|j| j.clones.len())
                .sum::<usize>();
            let waitee = job
                .spec
                .wait_for
                .as_ref()
                .and_then(|w| plan.jobs[..ji].iter().position(|o| &o.spec.name == w));
            for (ci, clone) in job.clones.iter().enumerate() {
                let stop = &self.stops[ji];
                let ended = &self.ended;
                let live = &self.board.clones[first + ci].1;
                let name = format!("fathom-{}-{}", job.spec.name, clone.jobnum);
                let done = DoneSignal(tx.clone(), ji);
                let weight = weights.pop().flatten();
                let h = std::thread::Builder::new()
                    .name(name.chars().take(15).collect())
                    .spawn_scoped(s, move || {
                        let _done = done;
                        let _weight = weight;
                        if let Some(w) = waitee {
                            while !ended[w].load(RELAXED) && !stop.load(RELAXED) {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                        }
                        let out = run_clone(job, clone, stop, Some(live));
                        if !job.caps.no_data {
                            plan.io_clones_left.fetch_sub(1, Ordering::Relaxed);
                        }
                        out
                    })
                    .expect("spawning a job thread");
                handles.push((ji, Some(h)));
            }
        }
        handles
    }
}

/// The loop that watches a phase's threads.
struct Supervisor<'r, 'a, 's> {
    run: &'r PhaseRun<'a>,
    handles: Vec<(usize, Option<ScopedJoinHandle<'s, CloneOutcome>>)>,
    trackers: Vec<Option<Tracker>>,
    got: Vec<(usize, CloneOutcome)>,
    stop_all: bool,
}

impl Supervisor<'_, '_, '_> {
    fn watch(
        &mut self,
        rx: Receiver<usize>,
        cancel: &AtomicBool,
        events: &mut Events,
        progress: &mut ProgressTracker,
        layout_time: &[Duration],
    ) {
        let mut left: Vec<usize> = self.run.plan.jobs.iter().map(|_| 0).collect();
        for (ji, _) in &self.handles {
            left[*ji] += 1;
        }
        let period = events.interval_period();
        let mut next_tick = period.map(|p| Instant::now() + p);
        loop {
            let wait = next_tick.map_or(POLL, |t| {
                t.saturating_duration_since(Instant::now()).min(POLL)
            });
            let msg = rx.recv_timeout(wait);
            self.watch_steady(Instant::now());
            self.stop_burners();
            // The caller's poll (a distributed run's stop from another rank) may cancel.
            events.fire_poll();
            if cancel.load(RELAXED) {
                self.run.stop_every_job();
            }
            match msg {
                // A poll, not yet the interval event.
                Err(RecvTimeoutError::Timeout) if next_tick.is_none_or(|t| Instant::now() < t) => {}
                Ok(ji) => {
                    left[ji] -= 1;
                    if left[ji] == 0 {
                        self.job_done(ji, events, progress, layout_time[ji]);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    let p = progress.snapshot(self.run.board);
                    events.fire_interval(&p);
                    next_tick = period.map(|p| Instant::now() + p);
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }

    /// Steady-state watches that are due: a job that has shown what it does ends.
    fn watch_steady(&mut self, now: Instant) {
        let plan = self.run.plan;
        for (ji, t) in self.trackers.iter_mut().enumerate() {
            let Some(t) = t.as_mut().filter(|t| now >= t.due()) else {
                continue;
            };
            let first = plan.jobs[..ji]
                .iter()
                .map(|j| j.clones.len())
                .sum::<usize>();
            let mut tot = Totals::default();
            for (_, l) in &self.run.board.clones[first..first + plan.jobs[ji].clones.len()] {
                tot.ios += l.ios.iter().map(|x| x.load(RELAXED)).sum::<u64>();
                tot.bytes += l.bytes.iter().map(|x| x.load(RELAXED)).sum::<u64>();
                tot.clat_sum_ns += l.clat_sum_ns.load(RELAXED);
                tot.clat_n += l.clat_n.load(RELAXED);
            }
            if t.poll(now, tot) {
                self.run.stops[ji].store(true, RELAXED);
            }
        }
    }

    /// cpuio's exit_on_io_done: once every I/O clone of the run has ended, the burners
    /// that wait for that end too (checked as clones end, and at each poll, off the
    /// jobs' I/O path).
    fn stop_burners(&self) {
        if self.run.plan.io_clones_left.load(Ordering::Relaxed) == 0 {
            for (ji, j) in self.run.jobs {
                if j.caps.no_data && j.spec.engine.exit_on_io_done {
                    self.run.stops[*ji].store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Every clone of job `ji` has ended: collect and announce it, and pass on the stops
    /// its end asks for (exitall, exitall_on_error).
    fn job_done(
        &mut self,
        ji: usize,
        events: &mut Events,
        progress: &mut ProgressTracker,
        layout: Duration,
    ) {
        let plan = self.run.plan;
        let mut mine = Vec::new();
        for (hj, h) in self.handles.iter_mut().filter(|(hj, _)| *hj == ji) {
            let h = h.take().expect("joined once");
            mine.push((*hj, join_clone(h)));
        }
        if let (Some(t), Some((_, o))) = (self.trackers[ji].take(), mine.first_mut()) {
            o.steadystate = Some(t.result());
        }
        progress.finish(ji, mine.iter().map(|(_, o)| o));
        self.run.ended[ji].store(true, RELAXED);
        let ended = &plan.jobs[ji];
        if ended.spec.exitall {
            for (k, other) in plan.jobs.iter().enumerate() {
                let hit = match ended.spec.exit_what {
                    0 => other.groupid == ended.groupid,
                    _ => other.phase == ended.phase,
                };
                if hit {
                    self.run.stops[k].store(true, RELAXED);
                }
            }
            self.stop_all |= ended.spec.exit_what == 2;
        }
        // exitall_on_error: a job that failed stops every job.
        if ended.spec.control.exitall_on_error && mine.iter().any(|(_, o)| o.error_text.is_some()) {
            self.run.stop_every_job();
            self.stop_all = true;
        }
        if events.job_end.is_some() {
            let pid = std::process::id();
            for r in job_results(ended, mine.iter().map(|(_, o)| o), layout, pid) {
                events.fire_job_end(&r);
            }
        }
        self.got.extend(mine);
    }
}
