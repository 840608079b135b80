//! Running a plan: phase by phase, lay out files, start one thread per clone, wait, then
//! assemble the reported jobs and groups.

mod phase;

use crate::error::RunError;
use crate::events::{Events, ProgressTracker};
use crate::plan::{Plan, PlannedJob};
use crate::record::outcome::CloneOutcome;
use fathom_engine::layout::{layout_file_until, LayoutRequest};
use fathom_stats::{GroupResult, JobResult, RunResult, ThreadStats};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Directories fathom created for a run (removed again at the end when empty).
#[derive(Default)]
struct Cleanup {
    dirs: Vec<PathBuf>,
    /// Directories known to exist (one check per directory, not per file).
    present: HashSet<PathBuf>,
    /// Facts about each job's files, taken when its phase ends (before unlink).
    targets: Vec<fathom_stats::TargetFacts>,
}

impl Cleanup {
    fn ensure_dir(&mut self, dir: &std::path::Path) -> std::io::Result<()> {
        if dir.as_os_str().is_empty() || self.present.contains(dir) {
            return Ok(());
        }
        if dir.exists() {
            self.present.insert(dir.to_path_buf());
            return Ok(());
        }
        // Create parents first, remembering each one we made.
        if let Some(parent) = dir.parent() {
            self.ensure_dir(parent)?;
        }
        self.present.insert(dir.to_path_buf());
        match std::fs::create_dir(dir) {
            Ok(()) => self.dirs.push(dir.to_path_buf()),
            // Another process (an MPI rank, a parallel run) made it meanwhile: not ours.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }
    fn finish(self) {
        for d in self.dirs.iter().rev() {
            // Only empty directories go: remove_dir refuses anything else.
            let _ = std::fs::remove_dir(d);
        }
    }
}

pub(crate) fn execute(
    plan: &Plan,
    cancel: &Arc<AtomicBool>,
    board: &Arc<crate::record::live::LiveBoard>,
    events: &mut Events,
) -> Result<RunResult, RunError> {
    let run_start_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut outcomes: Vec<Vec<CloneOutcome>> = plan.jobs.iter().map(|_| Vec::new()).collect();
    let mut layout_time: Vec<Duration> = vec![Duration::ZERO; plan.jobs.len()];
    // Calibrate the hot path's clock before anything is timed.
    crate::clock::init();
    let mut cleanup = Cleanup::default();
    // fio's disk utilisation: the devices under every file the jobs use.
    let disks = crate::record::facts::DiskWatch::start(
        plan.jobs
            .iter()
            .filter(|j| !j.caps.diskless && !j.spec.control.no_disk_util)
            .flat_map(|j| j.clones.iter().flat_map(|c| c.files.iter()))
            .map(|f| f.path.as_path()),
    );
    let result = run_phases(
        plan,
        cancel,
        board,
        events,
        &mut outcomes,
        &mut layout_time,
        &mut cleanup,
    );
    let targets = std::mem::take(&mut cleanup.targets);
    cleanup.finish();
    result?;
    let mut run = assemble(plan, outcomes, layout_time, run_start_ms);
    run.interrupted = cancel.load(std::sync::atomic::Ordering::SeqCst);
    run.host = crate::record::facts::host();
    run.targets = targets;
    run.disk_util = disks.finish();
    Ok(run)
}

fn run_phases(
    plan: &Plan,
    cancel: &Arc<AtomicBool>,
    board: &Arc<crate::record::live::LiveBoard>,
    events: &mut Events,
    outcomes: &mut [Vec<CloneOutcome>],
    layout_time: &mut [Duration],
    cleanup: &mut Cleanup,
) -> Result<(), RunError> {
    let mut progress = ProgressTracker::new(plan);
    let fresh_tree_dirs = fresh_tree_dirs(plan);
    // exitall with exit_what=all: later phases do not start.
    let mut stop_all = false;
    for phase in 0..plan.phases() {
        if cancel.load(Ordering::Relaxed) || stop_all {
            // The run stops: later phases do not start. The hook is still called for each,
            // in order, so that a distributed run makes the same collective calls on every
            // rank (a rank stopped alone must not leave the others at a barrier).
            events.fire_before_phase(phase);
            continue;
        }
        let jobs: Vec<(usize, &PlannedJob)> = plan
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.phase == phase)
            .collect();
        let (created, created_dirs) = made_by_phase(&jobs);
        // Layout, before the clock starts.
        let t0 = Instant::now();
        let failed = lay_out_phase(plan, phase, &jobs, cancel, cleanup);
        let lt = t0.elapsed();
        for (ji, _) in &jobs {
            layout_time[*ji] = lt;
        }
        let stopped_before = cancel.load(Ordering::Relaxed);
        events.fire_before_phase(phase);
        if !stopped_before && cancel.load(Ordering::Relaxed) {
            // The hook stopped the run (in a distributed run: another rank was stopped):
            // the phase does not start. (A stop during the layout still starts the jobs,
            // which end at once and are reported with what they did: nothing.)
            continue;
        }
        let pr = phase::PhaseRun::new(plan, phase, &jobs, board, &failed);
        stop_all |= pr.end_unlaid(events, outcomes, layout_time);
        let (results, stop) = pr.run(cancel, events, &mut progress, layout_time);
        stop_all |= stop;
        for (ji, o) in results {
            outcomes[ji].push(o);
        }
        note_targets(&jobs, cleanup);
        unlink_phase(&jobs, &created, created_dirs, &fresh_tree_dirs);
    }
    Ok(())
}

/// filetree directories that do not exist before the run: unlink=1 in a later phase
/// (a delete phase) removes them again once empty, though an earlier phase made them.
fn fresh_tree_dirs(plan: &Plan) -> HashSet<PathBuf> {
    plan.jobs
        .iter()
        .flat_map(|j| j.clones.iter().filter_map(|c| c.tree.as_ref()))
        .flat_map(|t| {
            t.root
                .ancestors()
                .map(Path::to_path_buf)
                .chain((0..t.tree.dirs()).map(|k| t.dir_path(Some(k))))
                .collect::<Vec<_>>()
        })
        .filter(|p| !p.as_os_str().is_empty() && !p.exists())
        .collect()
}

/// What a phase makes that is not there yet: files (only those may be removed by
/// unlink=1, laid out now or created on open by the job; metadata engines create their
/// files or directories themselves) and the directories of trees (removed with their
/// files).
fn made_by_phase(jobs: &[(usize, &PlannedJob)]) -> (HashSet<PathBuf>, Vec<PathBuf>) {
    let makes = |j: &PlannedJob| !j.caps.diskless || j.caps.metadata.is_some();
    let created: HashSet<PathBuf> = jobs
        .iter()
        .filter(|(_, j)| makes(j) && j.spec.unlink)
        .flat_map(|(_, j)| j.clones.iter().flat_map(|c| c.files.iter()))
        .filter(|f| !f.path.exists())
        .map(|f| f.path.clone())
        .collect();
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    for (_, j) in jobs.iter().filter(|(_, j)| j.spec.unlink) {
        let mut seen = HashSet::new();
        for f in j.clones.iter().flat_map(|c| c.files.iter()) {
            let mut d = f.path.parent();
            while let Some(p) = d.filter(|p| !p.as_os_str().is_empty()) {
                if !seen.insert(p.to_path_buf()) || p.exists() {
                    break;
                }
                created_dirs.push(p.to_path_buf());
                d = p.parent();
            }
        }
    }
    (created, created_dirs)
}

/// Lay out the files of a phase. A file that cannot be laid out fails the jobs that use
/// it (as fio, each such job ends with the error, reported in every format); the others
/// go on. The failed jobs, with their errno and text.
fn lay_out_phase(
    plan: &Plan,
    phase: u32,
    jobs: &[(usize, &PlannedJob)],
    cancel: &Arc<AtomicBool>,
    cleanup: &mut Cleanup,
) -> HashMap<usize, (i32, String)> {
    let needs: Vec<&crate::plan::FileNeed> =
        plan.files.iter().filter(|n| n.phase == phase).collect();
    let users = |path: &Path| -> Vec<usize> {
        jobs.iter()
            .filter(|(_, j)| {
                j.clones
                    .iter()
                    .any(|c| c.files.iter().any(|f| f.path == path))
            })
            .map(|(ji, _)| *ji)
            .collect()
    };
    let mut failed: HashMap<usize, (i32, String)> = HashMap::new();
    let mut live: Vec<&crate::plan::FileNeed> = needs.clone();
    // An earlier phase's unlink=1 may have removed directories since.
    cleanup.present.clear();
    loop {
        let mut err = live.iter().find_map(|need| {
            let parent = need.path.parent()?;
            let e = cleanup.ensure_dir(parent).err()?;
            Some((*need, e))
        });
        if err.is_none() {
            err = lay_out(&live, cancel).map(|(i, e)| (live[i], e));
        }
        let Some((need, e)) = err else { break };
        let errno = crate::error::errno_of(&e);
        let text = format!("layout: {}", crate::error::with_path(&need.path, &e));
        for ji in users(&need.path) {
            failed.entry(ji).or_insert((errno, text.clone()));
        }
        live.retain(|n| users(&n.path).iter().any(|ji| !failed.contains_key(ji)));
    }
    failed
}

/// The facts of each target of a phase's jobs (its files, or for metadata jobs, trees
/// and jobs of many files, their directories), once per job and path.
fn note_targets(jobs: &[(usize, &PlannedJob)], cleanup: &mut Cleanup) {
    for (_, job) in jobs {
        let known: HashSet<(String, String)> = cleanup
            .targets
            .iter()
            .map(|t| (t.job.clone(), t.path.clone()))
            .collect();
        // Metadata jobs, trees and jobs of many files: their targets are the directories.
        let many = job.caps.metadata.is_some()
            || job
                .clones
                .iter()
                .any(|c| c.tree.is_some() || c.files.len() > 16);
        let mut paths: Vec<PathBuf> = Vec::new();
        for c in &job.clones {
            if let Some(t) = &c.tree {
                paths.push(t.root.clone());
            } else if many {
                let mut dirs = HashSet::new();
                paths.extend(
                    c.files
                        .iter()
                        .filter_map(|f| f.path.parent())
                        .filter(|p| dirs.insert(*p))
                        .map(|p| p.to_path_buf()),
                );
            } else {
                paths.extend(c.files.iter().map(|f| f.path.clone()));
            }
        }
        let mut seen = HashSet::new();
        for p in paths {
            let key = (job.spec.name.clone(), p.display().to_string());
            if known.contains(&key) || !seen.insert(key) {
                continue;
            }
            let diskless = job.caps.diskless && job.caps.metadata.is_none();
            cleanup
                .targets
                .push(crate::record::facts::target(&job.spec.name, &p, diskless));
        }
    }
}

/// unlink=1: remove a phase's files, but only those fathom created (a file that was
/// there before the run is the user's), then the directories it made, deepest first (one
/// still holding something stays).
fn unlink_phase(
    jobs: &[(usize, &PlannedJob)],
    created: &HashSet<PathBuf>,
    mut created_dirs: Vec<PathBuf>,
    fresh_tree_dirs: &HashSet<PathBuf>,
) {
    // unlink=1: remove this phase's files, but only those fathom created: a file that
    // was there before the run is the user's.
    let mut removed = HashSet::new();
    for (_, job) in jobs.iter().filter(|(_, j)| j.spec.unlink) {
        let dirs = matches!(job.caps.metadata, Some("mkdir" | "dirstat" | "rmdir"));
        for f in job.clones.iter().flat_map(|c| c.files.iter()) {
            if created.contains(&f.path) && removed.insert(f.path.clone()) {
                let _ = if dirs {
                    std::fs::remove_dir(&f.path)
                } else {
                    std::fs::remove_file(&f.path)
                };
            }
        }
    }
    for (_, job) in jobs.iter().filter(|(_, j)| j.spec.unlink) {
        for t in job.clones.iter().filter_map(|c| c.tree.as_ref()) {
            for k in 0..t.tree.dirs() {
                let p = t.dir_path(Some(k));
                if fresh_tree_dirs.contains(&p) {
                    created_dirs.push(p);
                }
            }
            created_dirs.extend(
                t.root
                    .ancestors()
                    .filter(|p| fresh_tree_dirs.contains(*p))
                    .map(Path::to_path_buf),
            );
        }
    }
    // Then the tree directories they made, deepest first (one still holding
    // something stays).
    created_dirs.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    for d in &created_dirs {
        let _ = std::fs::remove_dir(d);
    }
}

/// Lay out the files (see [`fathom_engine::layout::layout_file`]), on several threads when there are many: a
/// layout of small files is system calls, which run in parallel. Stops early on a cancel
/// (the run then stops before its jobs start). The first failure in file order.
fn lay_out(
    needs: &[&crate::plan::FileNeed],
    cancel: &AtomicBool,
) -> Option<(usize, std::io::Error)> {
    let one = |i: usize| -> Option<(usize, std::io::Error)> {
        let need = needs[i];
        layout_file_until(
            &need.path,
            &LayoutRequest {
                size: need.size,
                fill: need.fill,
                extend: need.extend,
                replace: need.replace,
                fallocate: need.fallocate,
                zero: need.zero,
                seed: 0x1a70 ^ need.size,
                fsync: need.fsync,
            },
            cancel,
        )
        .err()
        .map(|e| (i, e))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
        .min(needs.len() / 64)
        .max(1);
    let cancelled = || cancel.load(std::sync::atomic::Ordering::Relaxed);
    if threads == 1 {
        return (0..needs.len()).take_while(|_| !cancelled()).find_map(one);
    }
    // Each thread takes the next file from a shared counter; all stop at a failure.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let mut errors: Vec<(usize, std::io::Error)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    use std::sync::atomic::Ordering::Relaxed;
                    let mut mine = Vec::new();
                    while !cancelled() && !failed.load(Relaxed) {
                        let i = next.fetch_add(1, Relaxed);
                        if i >= needs.len() {
                            break;
                        }
                        if let Some(e) = one(i) {
                            failed.store(true, Relaxed);
                            mine.push(e);
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    errors.sort_by_key(|(i, _)| *i);
    errors.into_iter().next()
}

fn assemble(
    plan: &Plan,
    mut outcomes: Vec<Vec<CloneOutcome>>,
    layout_time: Vec<Duration>,
    timestamp_ms: u64,
) -> RunResult {
    let pid = std::process::id();
    let mut run = RunResult {
        global_options: plan.global_options.clone(),
        timestamp_ms,
        version: env!("CARGO_PKG_VERSION").to_string(),
        threads: plan.threads(),
        ..Default::default()
    };
    let ngroups = plan.jobs.iter().map(|j| j.groupid + 1).max().unwrap_or(0);
    for g in 0..ngroups {
        let members: Vec<usize> = (0..plan.jobs.len())
            .filter(|&i| plan.jobs[i].groupid == g)
            .collect();
        let first = &plan.jobs[members[0]];
        let grouped = members.iter().any(|&i| plan.jobs[i].spec.group_reporting);
        let all_stats = || {
            members
                .iter()
                .flat_map(|&i| outcomes[i].iter().map(|o| &o.stats))
        };
        if !grouped {
            run.groups
                .push(GroupResult::from_clones(g, first.spec.kb_base, all_stats()));
        }
        if grouped {
            let mut merged: Option<JobResult> = None;
            for &i in &members {
                for o in &mut outcomes[i] {
                    let stats = std::mem::take(&mut o.stats);
                    let r = job_result(&plan.jobs[i], o, stats, layout_time[i], pid);
                    match &mut merged {
                        None => merged = Some(r),
                        Some(m) => m.absorb(r),
                    }
                }
            }
            // As fio, the group line of a group_reporting group is its one merged job's:
            // the range is that job's bandwidth (min = max) and its runtime.
            let group = match &merged {
                Some(m) => {
                    GroupResult::from_clones(g, first.spec.kb_base, std::iter::once(&m.stats))
                }
                // No clones at all.
                None => GroupResult::from_clones(g, first.spec.kb_base, std::iter::empty()),
            };
            run.groups.push(group);
            if let Some(m) = merged {
                run.jobs.push(m);
            }
        } else {
            for &i in &members {
                // Each clone's stats move into its result (not copied: a copy of every
                // clone's histograms at once would be the run's peak memory).
                for o in &mut outcomes[i] {
                    let stats = std::mem::take(&mut o.stats);
                    run.jobs
                        .push(job_result(&plan.jobs[i], o, stats, layout_time[i], pid));
                }
            }
        }
    }
    run
}

/// Tells the run loop that a clone's thread has ended (also when it panicked).
struct DoneSignal(std::sync::mpsc::Sender<usize>, usize);

impl Drop for DoneSignal {
    fn drop(&mut self) {
        let _ = self.0.send(self.1);
    }
}

fn join_clone(h: std::thread::ScopedJoinHandle<'_, CloneOutcome>) -> CloneOutcome {
    h.join().unwrap_or_else(|_| CloneOutcome {
        error_text: Some("job thread panicked".into()),
        stats: ThreadStats {
            error: libc::EIO,
            ..ThreadStats::new()
        },
        ..Default::default()
    })
}

/// The reported results of one job: its clones merged under group_reporting, else one
/// per clone (what `on_job_end` is given).
fn job_results<'a>(
    job: &PlannedJob,
    clones: impl Iterator<Item = &'a CloneOutcome>,
    layout: Duration,
    pid: u32,
) -> Vec<JobResult> {
    let mut out: Vec<JobResult> = Vec::new();
    for o in clones {
        let r = job_result(job, o, o.stats.clone(), layout, pid);
        match out.first_mut() {
            Some(m) if job.spec.group_reporting => m.absorb(r),
            _ => out.push(r),
        }
    }
    out
}

/// `o`'s result, with `stats` (its stats, moved or copied out by the caller).
fn job_result(
    job: &PlannedJob,
    o: &CloneOutcome,
    stats: ThreadStats,
    layout: Duration,
    pid: u32,
) -> JobResult {
    let mut notes = o.notes.clone();
    let st = &stats;
    // A filetree job's rate is in operations, checked against its ops, not I/Os.
    if !st.runtime.is_zero() && job.caps.metadata != Some("mix") {
        let k = job.spec.rw.kind;
        let does = [k.reads(), k.writes(), k.trims()];
        for d in fathom_job::Ddir::ALL {
            let i = d.index();
            if !does[i] {
                continue; // fio's R,W,T rule gives every direction the rate
            }
            let secs = st.runtime.as_secs_f64();
            let (want, got, unit) = if job.rate.bytes_per_sec[i] > 0 {
                (
                    job.rate.bytes_per_sec[i] as f64,
                    st.dirs[i].bytes as f64 / secs,
                    "B/s",
                )
            } else if job.rate.iops[i] > 0 {
                (
                    job.rate.iops[i] as f64,
                    st.dirs[i].ios as f64 / secs,
                    "IOPS",
                )
            } else {
                continue;
            };
            if got < want * 0.99 {
                notes.push(format!(
                    "{} rate {:.0} {unit} reached only {:.0} {unit} ({:.1}%): the target could not keep up; response latency includes the queueing delay",
                    d.name(),
                    want,
                    got,
                    got / want * 100.0
                ));
            }
        }
    }
    if let Some(t) = &o.first_error_text {
        notes.push(format!(
            "{} error(s) tolerated (continue_on_error/ignore_error); the first: {t}",
            stats.total_err
        ));
    }
    JobResult {
        notes,
        name: job.spec.name.clone(),
        groupid: job.groupid,
        info: job.info(),
        stats,
        job_start_ms: o.start_ms,
        elapsed: o.elapsed,
        layout: layout.max(o.setup),
        error_text: o.error_text.clone(),
        pid,
        steadystate: o.steadystate.clone(),
    }
}
