//! One repetition's phases: the fathom job of each step (write, read, check), run on every
//! rank together, and the figures rank 0 gathers.

use super::report::{mib, Bandwidths};
use super::tasks::{read_task, write_check_task, Nodes};
use super::{Opts, Phase, Place};
use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, RwKind};

/// What a job of the run does.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Write,
    Read,
    /// `-W`/`-R`: read the data back and check it (not timed, not in the table).
    Check,
}

/// The fathom job of one step: every task of this rank over its file, its region of the
/// shared file or its blocks of IOR's segments.
pub(super) fn job(o: &Opts, step: Step, at: Place) -> Result<fathom::JobSpec> {
    let write = step == Step::Write;
    let per_task = o.block * o.segments;
    let kind = match (write, o.random) {
        (true, false) => RwKind::Write,
        (true, true) => RwKind::RandWrite,
        (false, false) => RwKind::Read,
        (false, true) => RwKind::RandRead,
    };
    let name = match step {
        Step::Write => "write",
        Step::Read => "read",
        Step::Check => "check",
    };
    let mut b = Job::builder(name)
        .engine(if o.mmap { Engine::Mmap } else { Engine::Psync })
        .rw(kind)
        .bs(o.transfer)
        .numjobs(o.tasks)
        .directory(&o.dir)
        .direct(o.direct)
        .option("number_ios", (per_task / o.transfer).to_string())
        .flag("group_reporting");
    if o.random && !o.file_per_proc && o.segments > 1 {
        bail!("-z (random offsets) with a segmented shared file is not supported; use -F or -s 1");
    }
    if write && o.fsync_each {
        b = b.option("fsync", "1");
    }
    if o.file_per_proc {
        b = b
            .option("filename_format", o.task_format(at))
            .size(per_task);
    } else if o.segments > 1 {
        // IOR's segmented layout: segment s holds one block of every task of every rank,
        // task t's at s x tasks x block + t x block; each task goes through its segments
        // in order.
        b = b
            .option("filename", o.shared_name())
            .option("segments", o.segments.to_string())
            .size(per_task);
    } else {
        // One region per task, rank after rank (the plan numbers the clones of every rank
        // in order).
        b = b
            .option("filename", o.shared_name())
            .option("offset_increment", per_task.to_string())
            .size(per_task);
    }
    if write && o.fsync {
        b = b.option("end_fsync", "1");
    }
    if !write {
        b = b.option("invalidate", "1");
    }
    // -W/-R: the writes carry a checked header per transfer, which the check reads back.
    // (No verify state file: IOR leaves nothing beside its test files.)
    if o.check_write || o.check_read {
        b = b
            .option("verify", "crc32c")
            .option("verify_state_save", "0");
        if write {
            b = b.option("do_verify", "0");
        }
    }
    Ok(b.build()?)
}

/// Run `step`'s job on every rank, started together; this rank's result (None on a rank
/// that does not take part).
pub(super) fn run_step(o: &Opts, step: Step, at: Place) -> Result<Option<fathom::JobResult>> {
    if at.idle() {
        at.cl.barrier();
        return Ok(None);
    }
    let job = job(o, step, at)?;
    if o.verbose >= 3 && step == Step::Read {
        // IOR's -vvv: which file each task reads.
        let file = if o.file_per_proc {
            o.task_files(at).swap_remove(0)
        } else {
            o.dir.join(o.shared_name())
        };
        println!("task {} reading {}", at.rank(), file.display());
    }
    // Every rank lays out and starts together (IOR's barrier before each phase).
    at.cl.barrier();
    let mut runner = fathom::Runner::new(job);
    // A rank stopped alone tells the others, which stop this phase too.
    if let Some(s) = at.cl.stop_signals() {
        runner = fathom::cluster::stop_with_peers(runner, s);
    }
    let r = crate::stop::run_runner_with(runner, at.limits())?;
    r.jobs
        .into_iter()
        .next()
        .map(Some)
        .ok_or_else(|| anyhow!("stopped before the run started"))
}

/// One phase (write or read) of one iteration on every rank: the ranks start together,
/// each runs its tasks, and rank 0 gets the phase's figures over all of them (None on
/// the other ranks): the bytes and transfers of every task over the slowest rank's time,
/// as IOR's aggregate bandwidth.
pub(super) fn phase(o: &Opts, write: bool, at: Place) -> Result<Option<Phase>> {
    let what = if write { "write phase" } else { "read phase" };
    let j = run_step(o, if write { Step::Write } else { Step::Read }, at)?;
    // A rank that takes no part adds nothing.
    let mut mine = [0.0; 4];
    if let Some(j) = &j {
        if let Some(e) = &j.error_text {
            bail!("{what}: {e}");
        }
        let d = &j.stats.dirs[usize::from(write)];
        let want = o.block * o.segments / o.transfer * o.tasks as u64;
        if d.ios != want && !crate::stopped() {
            bail!(
                "{} phase did {} transfers, expected {want}",
                if write { "write" } else { "read" },
                d.ios
            );
        }
        let secs = j
            .elapsed
            .as_secs_f64()
            .max(j.stats.runtime.as_secs_f64())
            .max(1e-9);
        mine = [
            d.bytes as f64,
            d.ios as f64,
            secs,
            d.lat.mean() * d.ios as f64,
        ];
    }
    let all = at.cl.gather_f64(&mine);
    if !at.root() {
        return Ok(None);
    }
    let sum = |k: usize| all.iter().map(|v| v[k]).sum::<f64>();
    let secs = all.iter().map(|v| v[2]).fold(1e-9, f64::max);
    let ios = sum(1);
    Ok(Some(Phase {
        bw: sum(0) / secs,
        iops: ios / secs,
        latency: if ios > 0.0 { sum(3) / ios / 1e9 } else { 0.0 },
        secs,
    }))
}

/// `-W`/`-R`: every task reads its data back and checks each transfer's header (written
/// with the data); the transfers that fail, over every rank, at rank 0 (IOR counts
/// 8-byte words, fathom whole transfers), and IOR's warning when any failed (rank 0).
pub(super) fn check(o: &Opts, after: &str, at: Place) -> Result<(u64, String)> {
    let j = run_step(o, Step::Check, at)?;
    let failed = j
        .as_ref()
        .and_then(|j| j.stats.verify.as_ref())
        .map_or(0, |v| v.failures);
    // A check that could not read (not a data error) is an error of the run.
    if failed == 0 {
        if let Some(e) = j.as_ref().and_then(|j| j.error_text.as_ref()) {
            bail!("check after {after}: {e}");
        }
    }
    let all = at.cl.gather_f64(&[failed as f64]);
    let total = all.iter().map(|v| v[0]).sum::<f64>() as u64;
    let mut warn = String::new();
    if at.root() && total > 0 {
        warn = format!("WARNING: incorrect data on {after} ({total} errors found).\n");
        let verify = j.as_ref().and_then(|j| j.stats.verify.as_ref());
        if let Some(first) = verify.and_then(|v| v.first.first()) {
            warn.push_str(&format!("  first on rank 0: {first}\n"));
        }
    }
    Ok((total, warn))
}

impl Opts {
    /// The per-task files' names (-F): testFile.TASK; under MPI testFile.RANK (one task a
    /// rank, as IOR) or testFile.RANK.TASK (several).
    pub(super) fn task_format(&self, at: Place) -> String {
        let task = match (at.ranks() > 1, self.tasks > 1) {
            (false, _) => "$jobnum",
            (true, false) => "$rank",
            (true, true) => "$rank.$jobnum",
        };
        // -u: IOR's DIR/TASK/testFile.TASK.
        let dir = if self.unique_dir {
            format!("{task}/")
        } else {
            String::new()
        };
        format!("{dir}{}.{task}{}", self.file_name(), self.rep_suffix())
    }
    /// `-m`: the repetition's number after the name, as IOR adds it.
    pub(super) fn rep_suffix(&self) -> String {
        self.rep.map_or(String::new(), |r| format!(".{r}"))
    }
    /// These options for repetition `i` (with `-m`, its own files).
    pub(super) fn for_rep(&self, i: u32) -> Opts {
        let mut o = self.clone();
        o.rep = self.multi_file.then_some(i);
        o
    }
    /// The per-task files of the task (rank) `at` goes through (none on an idle rank).
    pub(super) fn task_files(&self, at: Place) -> Vec<std::path::PathBuf> {
        let tasks = if at.idle() { 0 } else { self.tasks };
        (0..tasks)
            .map(|t| {
                let name = self
                    .task_format(at)
                    .replace("$rank", &at.data_of.to_string())
                    .replace("$jobnum", &t.to_string());
                self.dir.join(name)
            })
            .collect()
    }
    pub(super) fn file_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "ior".into())
    }
    pub(super) fn shared_name(&self) -> String {
        let base = self.name.clone().unwrap_or_else(|| "ior.shared".into());
        format!("{base}{}", self.rep_suffix())
    }
}

/// Every repetition: its write and read phases (each with its -W/-R check) and their
/// result lines. Returns the transfers whose check failed, over every rank (at rank 0).
pub(super) fn iterations(
    o: &Opts,
    at: Place,
    nodes: Nodes,
    s: &mut String,
    bw: &mut Bandwidths,
) -> Result<u64> {
    let cl = at.cl;
    let mut errors = 0u64;
    for i in 0..o.iterations {
        // A signal to any rank stops every rank here.
        if cl.any(crate::stopped()) {
            break;
        }
        if i > 0 && o.delay > 0 {
            std::thread::sleep(std::time::Duration::from_secs(o.delay));
        }
        // -m: this repetition's own files.
        let o = o.for_rep(i);
        let w = if o.write { phase(&o, true, at)? } else { None };
        // A phase cut short by a signal is not reported (its figures are partial).
        let stopped = cl.any(crate::stopped());
        let w = w.filter(|_| !stopped);
        let mut warnings = String::new();
        if o.check_write && !stopped {
            let at = at.as_task(write_check_task(&o, nodes, at.ranks(), at.rank()));
            let (n, warn) = check(&o, "write", at)?;
            errors += n;
            warnings.push_str(&warn);
        }
        let stopped = cl.any(crate::stopped());
        // -C/-Z: the read phase (and its -R check) goes through another task's data.
        let read_at = at.as_task(read_task(&o, nodes, at.ranks(), at.rank(), i)?);
        let r = if o.read && !stopped {
            phase(&o, false, read_at)?
        } else {
            None
        };
        // (Every rank asks, also those without figures: it is a collective call.)
        let stopped = cl.any(crate::stopped());
        let r = r.filter(|_| !stopped);
        if o.check_read && !stopped {
            let (n, warn) = check(&o, "read", read_at)?;
            errors += n;
            warnings.push_str(&warn);
        }
        for (name, p) in [("write", w), ("read", r)] {
            let Some(p) = p else { continue };
            s.push_str(&format!(
                "{name:<9} {:<10.2} {:<10.2} {:<11.6} {:<10} {:<10} {:<10.5} {i}\n",
                mib(p.bw),
                p.iops,
                p.latency,
                o.block >> 10,
                o.transfer >> 10,
                p.secs
            ));
        }
        s.push_str(&warnings);
        bw.writes.extend(w.map(|p| p.bw));
        bw.reads.extend(r.map(|p| p.bw));
    }
    Ok(errors)
}
