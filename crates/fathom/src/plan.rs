//! Planning: groups, phases, clones, files and sizes, all decided before the clock starts.

use crate::error::RunError;
use fathom_engine::Caps;
use fathom_job::{FileServiceKind, RandomDist};
use fathom_job::{JobSet, JobSpec, SizeSpec};
use fathom_stats::JobInfo;
use fathom_workload::{splitmix64, BsMix, Distribution, FileRegion, FileService, Params, Zone};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One file a clone uses.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFile {
    /// Path.
    pub path: PathBuf,
    /// The part of the file the clone does I/O to.
    pub region: FileRegion,
}

/// One job clone (one thread).
#[derive(Clone, Debug)]
pub struct PlannedClone {
    /// Clone number within its job (fio's `$jobnum`).
    pub jobnum: u32,
    /// The clone's number in the whole run, from 1 (names log files, as fio's thread
    /// numbers do).
    pub index: u32,
    /// The clone's files, in order.
    pub files: Vec<PlannedFile>,
    /// Generator parameters.
    pub params: Params,
    /// `filetree` jobs: the clone's tree (the clone runs an operation mix over it, not
    /// I/Os; `files` is empty).
    pub tree: Option<TreePlan>,
}

/// A `filetree` clone's tree: where it is, its shape, and how its files are named.
#[derive(Clone, Debug)]
pub struct TreePlan {
    /// The tree's root directory.
    pub root: PathBuf,
    /// The shape.
    pub tree: fathom_workload::Tree,
    /// A file's name is this prefix, its number within its directory, and the suffix
    /// (`filename_format` with `$filenum` in between).
    pub name_prefix: String,
    /// See `name_prefix`.
    pub name_suffix: String,
}

impl TreePlan {
    /// Path of directory `k` of the tree (None: the root).
    pub fn dir_path(&self, k: Option<u64>) -> PathBuf {
        match k {
            Some(k) => self.root.join(self.tree.dir_rel(k)),
            None => self.root.clone(),
        }
    }
    /// Path of file `i`.
    pub fn file_path(&self, i: u64) -> PathBuf {
        let mut p = self.dir_path(self.tree.file_dir(i));
        p.push(format!(
            "{}{}{}",
            self.name_prefix,
            self.tree.file_in_dir(i),
            self.name_suffix
        ));
        p
    }
}

/// One job, with its clones.
#[derive(Clone, Debug)]
pub struct PlannedJob {
    /// The job as parsed.
    pub spec: Arc<JobSpec>,
    /// Reporting group.
    pub groupid: u32,
    /// Execution phase: jobs of one phase run together; a stonewall starts a new phase.
    pub phase: u32,
    /// Engine capabilities.
    pub caps: Caps,
    /// The clones.
    pub clones: Vec<PlannedClone>,
    /// The iodepth the engine will really use.
    pub effective_iodepth: u32,
    /// Engine-specific options.
    pub engine_options: fathom_engine::EngineOptions,
    /// Rate limits (intended issue times) for each clone.
    pub rate: fathom_workload::RateSpec,
    /// Think time after each block of I/Os.
    pub thinktime: ThinkTime,
    /// What write buffers hold.
    pub buffers: fathom_engine::BufferContent,
    /// The flow group (`flow`/`flow_id`) this job's clones share with other jobs.
    pub flow: Option<Arc<Flow>>,
}

/// A flow group (fio's flow control): I/Os issued by all its members and their total
/// weight; a member ahead of its weighted share waits.
#[derive(Debug)]
pub struct Flow {
    /// I/Os issued by the members running now (+1, as fio starts it).
    pub counter: std::sync::atomic::AtomicU64,
    /// Sum of the weights of the members running now.
    pub total_weight: std::sync::atomic::AtomicU64,
}

/// fio's thinktime options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThinkTime {
    /// Stall after each block of I/Os.
    pub time: std::time::Duration,
    /// Of the stall, how much to busy-spin (the rest sleeps).
    pub spin: std::time::Duration,
    /// I/Os between stalls (≥ 1).
    pub blocks: u32,
    /// Count issued I/Os (thinktime_blocks_type=issue), not completed ones.
    pub on_issue: bool,
    /// Stall after this much I/O time too (thinktime_iotime; zero = off).
    pub iotime: std::time::Duration,
}

/// What a file needs before its phase starts.
#[derive(Clone, Debug, PartialEq)]
pub struct FileNeed {
    /// Path.
    pub path: PathBuf,
    /// Minimum size in bytes.
    pub size: u64,
    /// Some job of the phase reads it (or asked for `overwrite`): fill it with data.
    pub fill: bool,
    /// Zero fill.
    pub zero: bool,
    /// Preallocation.
    pub fallocate: fathom_job::Fallocate,
    /// Remove at the end of the phase (`unlink=1`).
    pub unlink: bool,
    /// Phase.
    pub phase: u32,
}

/// A whole run, planned.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Jobs in order.
    pub jobs: Vec<PlannedJob>,
    /// Files to lay out, per phase, deduplicated by path.
    pub files: Vec<FileNeed>,
    /// Warnings to show the user (stderr).
    pub warnings: Vec<String>,
    /// Options from `[global]` sections.
    pub global_options: Vec<(String, String)>,
}

impl Plan {
    /// Number of phases.
    pub fn phases(&self) -> u32 {
        self.jobs.iter().map(|j| j.phase + 1).max().unwrap_or(0)
    }
    /// Total number of clones (threads).
    pub fn threads(&self) -> u32 {
        self.jobs.iter().map(|j| j.clones.len() as u32).sum()
    }
}

/// The workload crate's form of `random_distribution`.
fn distribution(d: &RandomDist) -> Distribution {
    match d {
        RandomDist::Random => Distribution::Random,
        RandomDist::Zipf(theta, center) => Distribution::Zipf {
            theta: *theta,
            center: *center,
        },
        RandomDist::Pareto(h, center) => Distribution::Pareto {
            h: *h,
            center: *center,
        },
        RandomDist::Normal(dev, center) => Distribution::Normal {
            dev: *dev,
            center: *center,
        },
        RandomDist::Zoned(z) => {
            Distribution::Zoned(z.iter().map(|&(pct, size)| Zone { pct, size }).collect())
        }
        RandomDist::ZonedAbs(z) => Distribution::ZonedAbs(
            z.iter()
                .map(|&(pct, size)| Zone {
                    pct,
                    size: size as f64,
                })
                .collect(),
        ),
    }
}

impl PlannedJob {
    /// What the report prints about the job besides its numbers.
    pub fn info(&self) -> JobInfo {
        let s = &self.spec;
        let ranges = match self.clones.first() {
            Some(c) => [0, 1, 2].map(|d| c.params.len_range(d)),
            None => [0, 1, 2].map(|d| (s.bs.0[d], s.bs.0[d])),
        };
        // A filetree job's "pattern" is its operation mix.
        let rw = if self.caps.metadata == Some("mix") {
            let mix = if s.meta_mix.is_empty() {
                "create/100".to_string()
            } else {
                s.meta_mix
                    .iter()
                    .map(|(o, p)| format!("{}/{p}", o.name()))
                    .collect::<Vec<_>>()
                    .join(":")
            };
            format!("meta_mix={mix}")
        } else {
            s.rw.kind.name().to_string()
        };
        JobInfo {
            rw,
            bs: ranges,
            ioengine: s.ioengine.clone(),
            iodepth: s.iodepth,
            percentile_list: s.percentile_list.clone(),
            clat_percentiles: s.clat_percentiles,
            lat_percentiles: s.lat_percentiles,
            slat_percentiles: s.control.slat_percentiles,
            kb_base: s.kb_base,
            description: s.description.clone(),
            job_options: s.job_options.clone(),
            unit_base: s.unit_base,
            sig_figs: s.sig_figs,
            unified_rw: s.unified_rw,
            latency_target_ns: s.latency_target.as_nanos() as u64,
            latency_window_us: s.latency_window.as_micros() as u64,
            latency_percentile: if s.latency_target.is_zero() {
                0.0
            } else {
                s.latency_percentile
            },
        }
    }
}

/// Refuse to write or trim a block device that holds data (see [`crate::guard`]).
fn guard_job(job: &PlannedJob) -> Result<(), RunError> {
    let s = &job.spec;
    if !(s.rw.kind.writes() || s.rw.kind.trims()) || job.caps.diskless {
        return Ok(());
    }
    let mut seen: std::collections::HashSet<&Path> = std::collections::HashSet::new();
    // Regular files are read for disk-image signatures up to a bound (a job of many
    // files is not read whole before it starts); loop backing is checked for all.
    let mut probes = 0usize;
    for f in job.clones.iter().flat_map(|c| &c.files) {
        if !seen.insert(&f.path) {
            continue;
        }
        probes += 1;
        let findings =
            crate::guard::check_target(&f.path, probes <= 16).map_err(|e| RunError::Setup {
                job: s.name.clone(),
                path: f.path.clone(),
                source: e,
            })?;
        if findings.is_empty() {
            continue;
        }
        let mounted = findings
            .iter()
            .any(|x| matches!(x, crate::guard::Finding::Mounted(_)));
        if mounted && s.allow_mounted_write {
            continue;
        }
        let what: Vec<String> = findings.iter().map(|x| x.to_string()).collect();
        return Err(plan_err(
            s,
            format!(
                "refusing to {} {}: {}. Writing would destroy that data; if that is what you \
                 want, add --allow-destructive{}",
                if s.rw.kind.writes() {
                    "write to"
                } else {
                    "trim"
                },
                f.path.display(),
                what.join(", "),
                if mounted {
                    " (or allow_mounted_write=1)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

fn plan_err(spec: &JobSpec, message: impl Into<String>) -> RunError {
    RunError::Plan {
        job: spec.name.clone(),
        location: spec.origin.to_string(),
        message: message.into(),
    }
}

/// Expand fio's `filename_format` keywords.
pub fn expand_filename_format(fmt: &str, jobname: &str, jobnum: u32, filenum: u32) -> String {
    expand_filename_format_rank(fmt, jobname, jobnum, filenum, 0)
}

/// [`expand_filename_format`] with fathom's `$rank` (the MPI rank; 0 outside MPI).
pub fn expand_filename_format_rank(
    fmt: &str,
    jobname: &str,
    jobnum: u32,
    filenum: u32,
    rank: u32,
) -> String {
    fmt.replace("$jobname", jobname)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
        .replace("$rank", &rank.to_string())
}

fn join_dir(dir: Option<&str>, name: &str) -> PathBuf {
    let p = Path::new(name);
    match dir {
        Some(d) if !p.is_absolute() => Path::new(d).join(p),
        _ => p.to_path_buf(),
    }
}

/// Checks that depend on how the run is invoked rather than on the jobs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Refuse any job that writes or trims (`--readonly`).
    pub readonly: bool,
    /// Write to block devices even when they hold data (`--allow-destructive`).
    pub allow_destructive: bool,
    /// This process is one rank of a distributed run (MPI): file names and shared-file
    /// regions are made per rank.
    pub rank: Option<Rank>,
    /// Check the options only (`--parse-only`): nothing on this machine is looked at
    /// (targets that do not exist here, their sizes and contents, the kernel's engines,
    /// memory and limits), as a job file written for another machine must pass.
    pub parse_only: bool,
}

/// A process's place in a distributed run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rank {
    /// This rank, 0-based.
    pub rank: u32,
    /// Number of ranks.
    pub size: u32,
}

/// Plan a job set: check every job against its engine and work out each clone's files,
/// regions and generator parameters.
pub fn plan(set: &JobSet) -> Result<Plan, RunError> {
    plan_with(set, Limits::default())
}

/// [`plan`] with run limits.
pub fn plan_with(set: &JobSet, limits: Limits) -> Result<Plan, RunError> {
    if limits.readonly {
        if let Some(j) = set
            .jobs
            .iter()
            .find(|j| j.rw.kind.writes() || j.rw.kind.trims())
        {
            return Err(plan_err(
                j,
                format!(
                    "rw={} writes or trims, and --readonly forbids that; use a read pattern",
                    j.rw.kind.name()
                ),
            ));
        }
    }
    let mut out = Plan {
        global_options: set.global_options.clone(),
        ..Default::default()
    };
    let mut groupid = 0u32;
    let mut phase = 0u32;
    for (ji, spec) in set.jobs.iter().enumerate() {
        if ji > 0 && (spec.stonewall || spec.new_group) {
            groupid += 1;
        }
        if ji > 0 && spec.stonewall {
            phase += 1;
        }
        let job = plan_job(ji, spec, groupid, phase, limits, &mut out.warnings)?;
        if !limits.allow_destructive && !limits.parse_only {
            guard_job(&job)?;
        }
        out.jobs.push(job);
    }
    // Flow groups: one shared counter per flow_id.
    let mut flows: Vec<(u32, Arc<Flow>)> = Vec::new();
    for j in out.jobs.iter_mut().filter(|j| j.spec.flow > 0) {
        let id = j.spec.flow_id;
        let f = match flows.iter().find(|(i, _)| *i == id) {
            Some((_, f)) => f.clone(),
            None => {
                let f = Arc::new(Flow {
                    counter: 1.into(),
                    total_weight: 0.into(),
                });
                flows.push((id, f.clone()));
                f
            }
        };
        j.flow = Some(f);
    }
    // wait_for names an earlier job.
    for (ji, j) in out.jobs.iter().enumerate() {
        if let Some(w) = &j.spec.wait_for {
            if !out.jobs[..ji].iter().any(|o| &o.spec.name == w) {
                return Err(plan_err(
                    &j.spec,
                    format!(
                        "wait_for={w}: no job of that name before this one (have: {})",
                        out.jobs[..ji]
                            .iter()
                            .map(|o| o.spec.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    // Descriptors: jobs of many files (with no openfiles below that) keep them all open.
    let need: u64 = out
        .jobs
        .iter()
        .filter(|j| !j.caps.diskless && j.caps.metadata.is_none())
        .flat_map(|j| {
            let open = j.spec.openfiles.map_or(u64::MAX, u64::from);
            j.clones
                .iter()
                .map(move |c| (c.files.len() as u64).min(open))
        })
        .sum();
    if !limits.parse_only {
        out.warnings.extend(raise_nofile(need));
    }
    // Number the clones of the run from 1, in job order (log file names use it).
    let mut n = 0;
    for c in out.jobs.iter_mut().flat_map(|j| j.clones.iter_mut()) {
        n += 1;
        c.index = n;
    }
    // Files each phase needs, merged by path: the largest size wins; fill if any job reads.
    let mut need_at: std::collections::HashMap<(PathBuf, u32), usize> =
        std::collections::HashMap::new();
    for j in &out.jobs {
        if j.caps.diskless {
            continue;
        }
        let s = &j.spec;
        let fill = s.rw.kind.reads() || s.overwrite;
        if s.create_on_open && !fill {
            // The files are created when the job opens them, not during setup.
            continue;
        }
        for c in &j.clones {
            for f in &c.files {
                let size = f.region.start + f.region.len;
                if let Some(&i) = need_at.get(&(f.path.clone(), j.phase)) {
                    let n = &mut out.files[i];
                    n.size = n.size.max(size);
                    n.fill |= fill;
                    n.unlink |= s.unlink;
                } else {
                    need_at.insert((f.path.clone(), j.phase), out.files.len());
                    out.files.push(FileNeed {
                        path: f.path.clone(),
                        size,
                        fill,
                        zero: s.zero_buffers,
                        fallocate: s.fallocate,
                        unlink: s.unlink,
                        phase: j.phase,
                    });
                }
            }
        }
    }
    Ok(out)
}

fn plan_job(
    ji: usize,
    spec: &JobSpec,
    groupid: u32,
    phase: u32,
    limits: Limits,
    warnings: &mut Vec<String>,
) -> Result<PlannedJob, RunError> {
    let engine = fathom_engine::create(&spec.ioengine).map_err(|e| RunError::Engine {
        job: spec.name.clone(),
        location: spec.origin.to_string(),
        source: e,
    })?;
    let caps = engine.caps();
    let k = spec.rw.kind;
    if k.trims() && caps.no_trim {
        return Err(plan_err(
            spec,
            format!(
                "rw={} needs trim, which the {} engine cannot do",
                k.name(),
                spec.ioengine
            ),
        ));
    }
    let nfiles = if spec.filenames.is_empty() {
        spec.nrfiles
    } else {
        spec.filenames.len() as u32
    };
    // Metadata engines hold a file only for its operation; filetree's open table is
    // openfiles long.
    let reopen = caps.reopen && !(spec.ioengine == "io_uring" && spec.engine.registerfiles);
    if spec.openfiles.is_some_and(|o| o < nfiles) && caps.metadata.is_none() && !reopen {
        return Err(plan_err(
            spec,
            format!(
                "openfiles={} is below the job's {nfiles} files, and the {} engine{} keeps \
                 every file open; use psync, sync, vsync, pvsync, pvsync2, libaio or \
                 io_uring (without registerfiles), or drop openfiles",
                spec.openfiles.unwrap_or(0),
                spec.ioengine,
                if spec.engine.registerfiles {
                    " with registerfiles"
                } else {
                    ""
                }
            ),
        ));
    }
    if spec.numjobs == 0 {
        return Err(plan_err(spec, "numjobs must be at least 1"));
    }
    let vs = &spec.verify;
    if vs.kind.is_none()
        && (vs.backlog > 0
            || vs.only
            || vs.interval > 0
            || vs.offset > 0
            || vs.fatal
            || vs.journal.is_some())
    {
        return Err(plan_err(
            spec,
            "verify_backlog, verify_only, verify_interval, verify_offset, verify_fatal and \
             verify_journal need verify=TYPE (e.g. verify=crc32c)",
        ));
    }
    if let Some(kind) = spec.verify.kind {
        use fathom_job::VerifyKind;
        let why = if caps.metadata.is_some() {
            Some(format!(
                "the {} engine moves no data to verify",
                spec.ioengine
            ))
        } else if caps.diskless && kind != VerifyKind::Null {
            Some(format!(
                "the {} engine stores nothing to read back; use a real engine or verify=null",
                spec.ioengine
            ))
        } else if matches!(kind, VerifyKind::Pattern | VerifyKind::PatternHdr)
            && spec.verify.pattern.is_none()
        {
            Some(format!(
                "verify={} needs verify_pattern (e.g. verify_pattern=0xdeadbeef)",
                kind.name()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(plan_err(spec, why));
        }
        let iv = verify_interval(spec);
        if iv > 0 {
            for d in 0..3 {
                if let Some(b) = block_sizes(spec, d)
                    .into_iter()
                    .find(|&b| b > 0 && b % iv != 0)
                {
                    return Err(plan_err(
                        spec,
                        format!("verify_interval={iv} does not divide the block size {b}"),
                    ));
                }
            }
        }
    }
    if caps.metadata == Some("mix") {
        let dir_ops = spec
            .meta_mix
            .iter()
            .any(|(o, _)| matches!(o, fathom_job::MetaOp::Mkdir | fathom_job::MetaOp::Rmdir));
        if dir_ops && spec.numjobs > 1 && !spec.tree.unique {
            return Err(plan_err(
                spec,
                "mkdir and rmdir change the directories every clone of a shared tree uses: \
                 add unique_dir=1 (a tree per clone) or use numjobs=1",
            ));
        }
        if spec.rate.0.iter().any(|&r| r > 0) {
            return Err(plan_err(
                spec,
                "a filetree job runs operations, not bytes: give its rate as rate_iops \
                 (operations per second)",
            ));
        }
    } else if !spec.meta_mix.is_empty() || spec.fileselect_sequential || spec.tree.format.is_some()
    {
        return Err(plan_err(
            spec,
            format!(
                "meta_mix, fileselect and tree_format are for ioengine=filetree, not {}",
                spec.ioengine
            ),
        ));
    }
    if spec.lfsr && spec.norandommap && spec.rw.kind.is_random() {
        warnings.push(format!(
            "note: job '{}': random_generator=lfsr visits every block once per pass, which \
             fathom keeps with its random map (a bit per block) even with norandommap",
            spec.name
        ));
    }
    for (i, &bs) in spec.bs.0.iter().enumerate() {
        if bs == 0 && [k.reads(), k.writes(), k.trims()][i] {
            return Err(plan_err(spec, "bs must be greater than 0"));
        }
    }
    // The kernel's support is this machine's, not the job file's.
    let probed = if limits.parse_only {
        Ok(())
    } else {
        engine.probe()
    };
    if let Err(e) = probed {
        return Err(plan_err(spec, e.to_string()));
    }
    if !limits.parse_only {
        if let Some(n) = &spec.control.numa_cpu_nodes {
            crate::numa::check("numa_cpu_nodes", n).map_err(|e| plan_err(spec, e))?;
        }
        if let Some(p) = &spec.control.numa_mem_policy {
            crate::numa::check("numa_mem_policy", &p.nodes).map_err(|e| plan_err(spec, e))?;
        }
    }
    let eo = &spec.engine;
    if eo.hipri && spec.ioengine == "io_uring" && !spec.direct {
        return Err(plan_err(
            spec,
            "hipri (IOPOLL) needs direct=1 on a device that supports polled I/O",
        ));
    }
    let effective_iodepth = if caps.is_async {
        spec.iodepth.max(1)
    } else {
        1
    };
    if spec.iodepth > 1 && !caps.is_async {
        warnings.push(format!(
            "note: job '{}': the {} engine is synchronous; iodepth={} is capped at 1",
            spec.name, spec.ioengine, spec.iodepth
        ));
    }
    if spec.iodepth > 1 && spec.ioengine == "libaio" && !spec.direct && !caps.diskless {
        warnings.push(format!(
            "note: job '{}': libaio without direct=1 completes buffered I/O inside io_submit, \
             so iodepth={} is rarely reached; add direct=1, or use io_uring for buffered \
             asynchronous I/O",
            spec.name, spec.iodepth
        ));
    }
    if spec.direct && caps.no_direct {
        return Err(plan_err(
            spec,
            format!(
                "the {} engine cannot do direct I/O (its data path copies through buffers \
                 it owns); use direct=0, or io_uring/libaio for direct I/O",
                spec.ioengine
            ),
        ));
    }
    let mut clones = Vec::with_capacity(spec.numjobs as usize);
    for jobnum in 0..spec.numjobs {
        clones.push(plan_clone(ji, spec, jobnum, caps, limits)?);
    }
    // Buffers are allocated up front: iodepth × largest block × clones. Refuse what the
    // machine cannot hold rather than run out of memory mid-run.
    let max_len = clones
        .first()
        .map(|c| (0..3).map(|d| c.params.len_range(d).1).max().unwrap_or(0))
        .unwrap_or(0);
    let need = (effective_iodepth as u128) * (max_len as u128) * (spec.numjobs as u128);
    let have = physical_memory();
    if need > (have as u128) / 2 && !limits.parse_only {
        return Err(plan_err(
            spec,
            format!(
                "I/O buffers would need {} bytes (iodepth {} × block {} × {} clones), more than \
                 half of this machine's {} bytes of memory; lower iodepth, bs or numjobs",
                need, effective_iodepth, max_len, spec.numjobs, have
            ),
        ));
    }
    let mut spec = spec.clone();
    spec.verify.interval = verify_interval(&spec);
    // The ioprio value the logs' priority column shows: fio's class << 13 | level (a
    // level alone is in the best-effort class).
    spec.logs.ioprio = match (spec.prioclass, spec.prio) {
        (Some(c), p) => ((c as u16 & 7) << 13) | p.unwrap_or(0) as u16 & 0x1fff,
        (None, Some(p)) => (2 << 13) | p as u16 & 0x1fff,
        (None, None) => 0,
    };
    let spec = &spec;
    Ok(PlannedJob {
        spec: Arc::new(spec.clone()),
        groupid,
        phase,
        caps,
        clones,
        effective_iodepth,
        engine_options: fathom_engine::EngineOptions {
            job: *eo,
            poll_reap: spec.iodepth_batch_complete_min == 0,
        },
        rate: fathom_workload::RateSpec {
            bytes_per_sec: spec.rate.0,
            iops: spec.rate_iops.0,
            process: if spec.rate_poisson {
                fathom_workload::RateProcess::Poisson
            } else {
                fathom_workload::RateProcess::Linear
            },
        },
        thinktime: ThinkTime {
            time: spec.thinktime,
            spin: spec.thinktime_spin,
            blocks: spec.thinktime_blocks,
            on_issue: spec.thinktime_on_issue,
            iotime: spec.thinktime_iotime,
        },
        buffers: fathom_engine::BufferContent {
            zero: spec.zero_buffers,
            refill: spec.refill_buffers,
            pattern: spec.buffer_pattern.clone(),
            compress_percentage: spec.buffer_compress_percentage,
            compress_chunk: spec.buffer_compress_chunk as usize,
            dedupe_percentage: spec.dedupe_percentage,
            scramble: spec.scramble_buffers,
        },
        flow: None,
    })
}

fn plan_clone(
    ji: usize,
    spec: &JobSpec,
    jobnum: u32,
    caps: Caps,
    limits: Limits,
) -> Result<PlannedClone, RunError> {
    let rank = limits.rank;
    let r = rank.map_or(0, |r| r.rank);
    // Under MPI each rank gets its own files unless the job names them (filename=, a
    // shared file) or places $rank itself.
    let format = if rank.is_some() && !spec.filename_format.contains("$rank") {
        format!("{}.$rank", spec.filename_format)
    } else {
        spec.filename_format.clone()
    };
    let dir = if spec.directories.is_empty() {
        None
    } else {
        Some(spec.directories[jobnum as usize % spec.directories.len()].as_str())
    };
    let tree_plan = tree_plan(spec, &format, dir, jobnum, r)?;
    if caps.metadata == Some("mix") {
        let tree = tree_plan.expect("filetree jobs always have a tree");
        let mut seed_state = spec.randseed ^ ((ji as u64) << 40) ^ ((jobnum as u64) << 20);
        let seed = splitmix64(&mut seed_state);
        let region = FileRegion { start: 0, len: 0 };
        return Ok(PlannedClone {
            jobnum,
            index: 0,
            files: Vec::new(),
            params: Params::simple(spec.rw, 4096, region, seed),
            tree: Some(tree),
        });
    }
    let paths: Vec<PathBuf> = if let Some(t) = &tree_plan {
        (0..t.tree.files()).map(|i| t.file_path(i)).collect()
    } else if !spec.filenames.is_empty() {
        spec.filenames.iter().map(|f| join_dir(dir, f)).collect()
    } else {
        (0..spec.nrfiles.max(1))
            .map(|n| {
                join_dir(
                    dir,
                    &expand_filename_format_rank(&format, &spec.name, jobnum, n, r),
                )
            })
            .collect()
    };
    let nfiles = paths.len() as u64;
    let min_bs = spec
        .bs
        .0
        .iter()
        .copied()
        .filter(|&b| b > 0)
        .min()
        .unwrap_or(4096);
    let mut seed_state =
        spec.randseed ^ ((ji as u64) << 40) ^ ((jobnum as u64) << 20) ^ ((r as u64) << 52);
    if !spec.randrepeat {
        seed_state ^= std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
            ^ ((std::process::id() as u64) << 32);
    }
    let seed = splitmix64(&mut seed_state);
    let mut size_rng = fathom_workload::Rng::new(seed ^ 0x5eed);

    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let (existing, device) = if caps.diskless {
            (None, false)
        } else if limits.parse_only {
            // Not looked at: sizes that come from the target are taken as unknown.
            (None, false)
        } else {
            size_of(&path).map_err(|e| RunError::Setup {
                job: spec.name.clone(),
                path: path.clone(),
                source: e,
            })?
        };
        // The file's nominal size: filesize (a draw from its range), or size split
        // over the files. Percentages of offset and offset_increment take the existing
        // file's size, or this one.
        let drawn = spec.filesize.map(|(lo, hi)| {
            if hi > lo {
                (lo + size_rng.below(hi - lo + 1)) / min_bs * min_bs
            } else {
                lo
            }
        });
        let split = match spec.size {
            Some(SizeSpec::Bytes(b)) => {
                // fio makes the first files a block bigger when size does not split evenly.
                let extra = (b - b / nfiles * nfiles) / min_bs;
                b / nfiles
                    + if (files.len() as u64) < extra {
                        min_bs
                    } else {
                        0
                    }
            }
            _ => 0,
        };
        if existing.is_none() && spec.control.no_file_create && !limits.parse_only {
            return Err(plan_err(
                spec,
                format!(
                    "{} does not exist and allow_file_create=0 forbids creating it; create \
                     the file first or drop allow_file_create=0",
                    path.display()
                ),
            ));
        }
        // --parse-only: a size that would come from the target is a nominal 1 PiB.
        let existing = existing.or(limits.parse_only.then_some(1 << 50));
        let fill = if spec.control.fill_device && !limits.parse_only && !caps.diskless {
            Some(fill_size(spec, &path, existing, device, nfiles, min_bs)?)
        } else {
            None
        };
        let per_file = match (drawn, spec.size) {
            _ if fill.is_some() => fill.unwrap_or(0),
            (Some(d), _) => d,
            (None, Some(SizeSpec::Bytes(_))) => split,
            (None, Some(SizeSpec::Percent(p))) => match existing {
                Some(len) => SizeSpec::Percent(p).resolve(len, min_bs),
                None => {
                    return Err(plan_err(
                        spec,
                        format!(
                            "size={p}% needs an existing file or device, and {} does not exist",
                            path.display()
                        ),
                    ))
                }
            },
            // fio's filecreate, dircreate, dirstat and dirdelete: one block per file.
            (None, None) if caps.metadata.is_some() && caps.diskless => min_bs,
            (None, None) => match existing {
                Some(len) if len > 0 => len,
                _ => {
                    return Err(plan_err(
                        spec,
                        format!(
                            "no size given and {} does not exist; set size= (e.g. size=1g)",
                            path.display()
                        ),
                    ))
                }
            },
        };
        let base = existing.unwrap_or(per_file);
        let offset = spec.offset.resolve(base, min_bs);
        let incr = spec.offset_increment.resolve(base, min_bs);
        // Ranks sharing named files (N-1) continue the clone numbering: rank r's clone j is
        // clone r*numjobs+j, each in its own region (offset_increment, or size when none).
        let shared = rank.is_some() && !spec.filenames.is_empty();
        let clone_index = if shared {
            r as u64 * spec.numjobs as u64 + jobnum as u64
        } else {
            jobnum as u64
        };
        let step = if shared && incr == 0 { per_file } else { incr };
        let start = match spec.offset {
            // As fio: a percentage offset, with its increment, rounds up to offset_align
            // (default the minimum block size).
            SizeSpec::Percent(_) => {
                let align = if spec.offset_align > 0 {
                    spec.offset_align
                } else {
                    min_bs
                };
                (spec.offset.resolve(base, 1) + step * clone_index).div_ceil(align) * align
            }
            SizeSpec::Bytes(_) => offset + step * clone_index,
        };
        let len = if let Some(f) = fill {
            f.saturating_sub(start)
        } else if drawn.is_none() && spec.size.is_none() && caps.diskless {
            per_file
        } else {
            region_len(spec, existing, drawn, split, start, min_bs)
                .map_err(|m| plan_err(spec, format!("{}: {m}", path.display())))?
        };
        if spec.segments > 1 {
            // IOR's segmented layout: the file is `segments` segments, each holding one
            // block per clone of the run (every rank's clones under MPI); clone c's block
            // of segment s starts at offset + s × clones × block + c × block.
            if spec.filenames.is_empty() {
                return Err(plan_err(
                    spec,
                    "segments lays out one shared file: name it with filename= (each clone \
                     of every rank then gets its block in each segment)",
                ));
            }
            let clones = rank.map_or(1, |r| r.size as u64) * spec.numjobs as u64;
            let block = per_file / spec.segments as u64 / min_bs * min_bs;
            if block == 0 {
                return Err(plan_err(
                    spec,
                    format!(
                        "size {per_file} split into {} segments leaves less than a block \
                         ({min_bs} bytes) per segment",
                        spec.segments
                    ),
                ));
            }
            let index = r as u64 * spec.numjobs as u64 + jobnum as u64;
            for s in 0..spec.segments as u64 {
                files.push(PlannedFile {
                    path: path.clone(),
                    region: FileRegion {
                        start: offset + s * clones * block + index * block,
                        len: block,
                    },
                });
            }
            continue;
        }
        if let (Some(dev_len), true) = (existing, device) {
            if start + len > dev_len {
                return Err(plan_err(
                    spec,
                    format!(
                        "the I/O region ends at byte {} but {} has only {dev_len} bytes",
                        start + len,
                        path.display()
                    ),
                ));
            }
        }
        files.push(PlannedFile {
            path,
            region: FileRegion { start, len },
        });
    }
    let total: u64 = files.iter().map(|f| f.region.len).sum();
    // fio's rule: size= bounds the job's I/O when it is smaller than its files' regions
    // (filesize=16m size=4m does 4 MiB of I/O over a 16 MiB file); io_size overrides both.
    let size_cap = match spec.size {
        Some(SizeSpec::Bytes(b)) if b > 0 && b < total => b,
        _ => total,
    };
    let params = Params {
        rw: spec.rw,
        bs: spec.bs.0,
        rwmixread: spec.rwmixread,
        files: files.iter().map(|f| f.region).collect(),
        io_bytes: spec.io_size.unwrap_or(size_cap),
        loops: spec.loops.max(1),
        number_ios: spec.number_ios,
        time_based: spec.time_based,
        wrap: spec.io_size.is_some() || spec.time_based,
        seed,
        // lfsr promises each block once per pass: fathom keeps it with the map.
        randommap: !spec.norandommap || spec.lfsr,
        bs_mix: [0, 1, 2].map(|i| {
            if !spec.bssplit[i].is_empty() {
                Some(BsMix::Split(spec.bssplit[i].clone()))
            } else {
                spec.bsrange[i].map(|(lo, hi)| BsMix::Range {
                    lo,
                    hi,
                    unaligned: spec.bs_unaligned,
                })
            }
        }),
        blockalign: spec.blockalign.0,
        dist: distribution(&spec.random_distribution),
        percentage_random: spec.percentage_random.0,
        sequencer_identical: spec.rw_sequencer_identical,
        bs_is_seq_rand: spec.bs_is_seq_rand,
        open_limit: match spec.openfiles {
            Some(o) if caps.metadata.is_none() => o.max(1) as usize,
            _ => 0,
        },
        dist_dirs: spec.random_distribution_dirs.as_ref().map(|d| {
            [0, 1, 2].map(|i| {
                d[i].as_ref()
                    .map(distribution)
                    .unwrap_or(Distribution::Random)
            })
        }),
        // A segmented layout goes through its segments in order, as IOR does.
        file_service: match (&spec.file_service_dist, spec.file_service) {
            (None, (FileServiceKind::RoundRobin, 1)) if spec.segments > 1 => {
                FileService::Sequential(0)
            }
            (Some(d), _) => FileService::Dist(distribution(d)),
            (None, (FileServiceKind::RoundRobin, n)) => FileService::RoundRobin(n),
            (None, (FileServiceKind::Random, n)) => FileService::Random(n),
            (None, (FileServiceKind::Sequential, n)) => FileService::Sequential(n),
        },
    };
    // The random map takes a bit per block: refuse one this machine cannot hold (fio
    // advises norandommap the same way) before allocating it.
    if params.randommap && spec.rw.kind.is_random() {
        let blocks: u64 = files.iter().map(|f| f.region.len / min_bs.max(1)).sum();
        let bytes = blocks / 8;
        let have = physical_memory();
        if bytes > have / 2 && !limits.parse_only {
            return Err(plan_err(
                spec,
                format!(
                    "the random map of {blocks} blocks would take {bytes} bytes, more than \
                     half of this machine's {have} bytes of memory; add norandommap (or \
                     random_generator=lfsr), or use a larger bs or a smaller size"
                ),
            ));
        }
    }
    // Check now, before anything is created, that every region holds a block (without
    // the random map: the worker allocates that, once).
    let check = Params {
        randommap: false,
        ..params.clone()
    };
    fathom_workload::Generator::new(check).map_err(|e| {
        plan_err(
            spec,
            format!("{e}; make size/filesize larger or bs smaller"),
        )
    })?;
    Ok(PlannedClone {
        jobnum,
        index: 0,
        files,
        params,
        tree: None,
    })
}

/// A direction's block sizes: its bssplit entries, bsrange ends, or bs.
fn block_sizes(spec: &JobSpec, d: usize) -> Vec<u64> {
    if !spec.bssplit[d].is_empty() {
        spec.bssplit[d].iter().map(|b| b.0).collect()
    } else if let Some((lo, hi)) = spec.bsrange[d] {
        vec![lo, hi]
    } else {
        vec![spec.bs.0[d]]
    }
}

/// verify_interval as fio applies it: no larger than the smallest write (for a job that
/// reads, also read) block, and a factor of the smallest and largest write block (else
/// their greatest common divisor). 0 (unset) stays 0: each write is one chunk when all
/// writes have one size, else the smallest size.
fn verify_interval(spec: &JobSpec) -> u64 {
    let writes = block_sizes(spec, 1);
    let (lo, hi) = (
        writes.iter().copied().filter(|&b| b > 0).min().unwrap_or(0),
        writes.iter().copied().max().unwrap_or(0),
    );
    let mut iv = spec.verify.interval;
    if lo == 0 {
        return iv;
    }
    if iv == 0 && hi != lo {
        iv = lo;
    }
    if iv == 0 {
        return 0;
    }
    let read_lo = block_sizes(spec, 0).into_iter().filter(|&b| b > 0).min();
    if iv > lo {
        iv = lo;
    } else if let Some(r) = read_lo.filter(|&r| spec.rw.kind.reads() && iv > r) {
        iv = r;
    }
    if lo % iv != 0 || hi % iv != 0 {
        iv = gcd(lo, hi);
    }
    iv
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The length of one file's I/O region from `start`, by fio's rules: with `filesize`, the
/// file's size (`drawn` from the range, or the existing file's when it lies in the range)
/// less the start; with `size`, its even `split` over the files; with neither, the existing
/// file from the start. `size=N%` then keeps N% of the file (start included), no more than
/// the region, aligned down to the smallest block.
fn region_len(
    spec: &JobSpec,
    existing: Option<u64>,
    drawn: Option<u64>,
    split: u64,
    start: u64,
    min_bs: u64,
) -> Result<u64, String> {
    let file = match (spec.filesize, drawn) {
        (Some((lo, hi)), Some(d)) => match existing {
            Some(e) if e >= lo && e <= hi => e,
            _ => d,
        },
        _ if split > 0 => return Ok(split),
        _ => existing.unwrap_or(0),
    };
    let Some(mut len) = file.checked_sub(start) else {
        return Err(format!(
            "the offset {start} lies beyond the end of the file ({file} bytes); \
             make filesize/size larger or the offset smaller"
        ));
    };
    if let Some(SizeSpec::Percent(p)) = spec.size {
        if p < 100.0 {
            len = len.min(((len + start) as f64 * p / 100.0) as u64);
            len -= len % min_bs.max(1);
        }
    }
    Ok(len)
}

/// The clone's directory tree: for `filetree` jobs always, for other jobs when they ask
/// for one (tree_depth or unique_dir). None: the job's files are named as fio names them.
fn tree_plan(
    spec: &JobSpec,
    format: &str,
    dir: Option<&str>,
    jobnum: u32,
    rank: u32,
) -> Result<Option<TreePlan>, RunError> {
    let t = &spec.tree;
    let filetree = spec.ioengine == "filetree";
    if !filetree && t.depth == 0 && !t.unique {
        return Ok(None);
    }
    if !spec.filenames.is_empty() {
        return Err(plan_err(
            spec,
            "a directory tree names its own files: drop filename= (use directory= for the \
             tree's root)",
        ));
    }
    let tree =
        fathom_workload::Tree::new(t.depth, t.width, spec.nrfiles.max(1) as u64, t.all_levels)
            .map_err(|e| plan_err(spec, e))?;
    // filetree files are named for their clone and number, not the job, so the phases
    // of an mdtest-style run (create, stat, delete jobs) meet the same files.
    let format =
        if filetree && spec.filename_format == fathom_job::JobSpec::default().filename_format {
            format.replacen("$jobname", "f", 1)
        } else {
            format.to_string()
        };
    const MARK: u32 = u32::MAX;
    let template = expand_filename_format_rank(&format, &spec.name, jobnum, MARK, rank);
    let (name_prefix, name_suffix) = match template.split_once(&MARK.to_string()) {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None if tree.files_per_dir() <= 1 => (template.clone(), String::new()),
        None => {
            return Err(plan_err(
                spec,
                format!(
                    "filename_format={} has no $filenum, so the {} files of a directory \
                     would share one name; add $filenum",
                    spec.filename_format,
                    tree.files_per_dir()
                ),
            ))
        }
    };
    if name_prefix.contains('/') || name_suffix.contains('/') {
        return Err(plan_err(
            spec,
            "in a directory tree filename_format names a file, not a path: drop the '/'",
        ));
    }
    let base = join_dir(dir, "");
    let root = if t.unique {
        // Named for the clone alone, so the phases of a run (separate jobs) share trees.
        base.join(format!(
            "tree.{}",
            rank as u64 * spec.numjobs as u64 + jobnum as u64
        ))
    } else {
        base
    };
    Ok(Some(TreePlan {
        root,
        tree,
        name_prefix,
        name_suffix,
    }))
}

/// The soft limit on open files (RLIMIT_NOFILE) now.
pub fn nofile_soft() -> u64 {
    nofile().0
}

fn nofile() -> (u64, u64) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } != 0 {
        return (1024, 1024);
    }
    (r.rlim_cur, r.rlim_max)
}

/// Raise the soft limit on open files to the hard limit (as much as the kernel allows),
/// once per process. A note when the job's `need` of descriptors was above the old soft
/// limit (the raise is what lets it run), or is above even the hard one.
fn raise_nofile(need: u64) -> Option<String> {
    let (soft, hard) = nofile();
    // Leave room for the engine's own descriptors, logs and standard streams.
    let want = need.saturating_add(64);
    if soft < hard {
        let r = libc::rlimit {
            rlim_cur: hard,
            rlim_max: hard,
        };
        // SAFETY: setrlimit reads the struct we pass; raising the soft limit up to the
        // hard one needs no privilege.
        let raised = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &r) } == 0;
        if raised && want > soft {
            return Some(format!(
                "raised the open-file limit (RLIMIT_NOFILE) from {soft} to {hard} for the \
                 jobs' {need} files"
            ));
        }
    }
    let (now, _) = nofile();
    (want > now).then(|| {
        format!(
            "the jobs keep {need} files open and the open-file limit is {now}: set openfiles= \
             (e.g. openfiles=64) or raise the hard limit (ulimit -Hn)"
        )
    })
}

fn physical_memory() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages.max(0) as u64).saturating_mul(size.max(0) as u64)
}

/// fill_device: a device's size, or a file's size now plus its share of the free space of
/// its file system (the job then writes until ENOSPC).
fn fill_size(
    spec: &JobSpec,
    path: &Path,
    existing: Option<u64>,
    device: bool,
    nfiles: u64,
    min_bs: u64,
) -> Result<u64, RunError> {
    if device {
        return Ok(existing.unwrap_or(0));
    }
    if !spec.rw.kind.writes() {
        return Err(plan_err(
            spec,
            "fill_device with a pattern that does not write: fill the file system in a \
             write job first, then read it in a stonewalled job (as fio's \
             examples/surface-scan.fio does)",
        ));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = dir
        .ancestors()
        .find(|p| p.exists())
        .unwrap_or(Path::new("."));
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| plan_err(spec, "fill_device: the directory name contains NUL"))?;
    // SAFETY: statvfs writes into the zeroed struct; the path is NUL-terminated.
    let mut v: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut v) } != 0 {
        return Err(plan_err(
            spec,
            format!(
                "fill_device: {}: {}",
                dir.display(),
                std::io::Error::last_os_error()
            ),
        ));
    }
    let free = (v.f_bavail as u64).saturating_mul(v.f_frsize as u64);
    let share = free / nfiles.max(1) / min_bs * min_bs;
    if share == 0 {
        return Err(plan_err(
            spec,
            format!("fill_device: {} has no free space", dir.display()),
        ));
    }
    Ok(existing.unwrap_or(0) + share)
}

/// A file's size (None: it does not exist yet) and whether it is a block device, from one
/// stat for a regular file.
fn size_of(path: &Path) -> std::io::Result<(Option<u64>, bool)> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() => Ok((fathom_engine::file_size(path)?, true)),
        Ok(m) => Ok((Some(m.len()), false)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((None, false)),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fathom_job::{Rw, RwKind};

    fn job(name: &str) -> JobSpec {
        JobSpec {
            name: name.into(),
            size: Some(SizeSpec::Bytes(1 << 20)),
            directories: vec!["/nonexistent-dir".into()],
            ..Default::default()
        }
    }

    #[test]
    fn groups_and_phases_follow_stonewall_and_new_group() {
        let mut b = job("b");
        b.new_group = true;
        let mut c = job("c");
        c.stonewall = true;
        let set = JobSet {
            jobs: vec![job("a"), b, c],
            global_options: vec![],
        };
        let p = plan(&set).unwrap();
        let gp: Vec<_> = p.jobs.iter().map(|j| (j.groupid, j.phase)).collect();
        assert_eq!(gp, vec![(0, 0), (1, 0), (2, 1)]);
    }

    #[test]
    fn clones_get_their_own_files_and_offsets() {
        let mut a = job("a");
        a.numjobs = 2;
        a.nrfiles = 2;
        a.offset = SizeSpec::Bytes(4096);
        a.offset_increment = SizeSpec::Bytes(1 << 20);
        let p = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap();
        let c1 = &p.jobs[0].clones[1];
        assert_eq!(c1.files[1].path, PathBuf::from("/nonexistent-dir/a.1.1"));
        assert_eq!(
            c1.files[0].region,
            FileRegion {
                start: 4096 + (1 << 20),
                len: 1 << 19
            }
        );
        assert_eq!(p.files.len(), 4);
        assert_ne!(p.jobs[0].clones[0].params.seed, c1.params.seed);
    }

    #[test]
    fn a_shared_file_is_laid_out_once_at_the_largest_size() {
        let mut a = job("a");
        a.numjobs = 2;
        a.filenames = vec!["shared".into()];
        a.offset_increment = SizeSpec::Bytes(256 << 10);
        a.rw = Rw {
            kind: RwKind::Read,
            suffix: 0,
        };
        let p = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].size, (1 << 20) + (256 << 10));
        assert!(p.files[0].fill);
    }

    #[test]
    fn missing_size_and_file_is_a_clear_error() {
        let mut a = job("a");
        a.size = None;
        let e = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap_err();
        assert!(e.to_string().contains("set size="), "{e}");
    }

    #[test]
    fn sync_engines_cap_iodepth_with_a_note() {
        let mut a = job("a");
        a.iodepth = 32;
        let p = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap();
        assert_eq!(p.jobs[0].effective_iodepth, 1);
        assert!(p.warnings[0].contains("capped at 1"));
    }
}
