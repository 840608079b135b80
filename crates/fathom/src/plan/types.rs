//! What a plan holds: the planned jobs, clones, files and directory trees, and the limits planning checks against.

use crate::error::RunError;
use fathom_engine::Caps;
use fathom_job::JobSpec;
use fathom_job::RandomDist;
use fathom_stats::JobInfo;
use fathom_workload::{Distribution, FileRegion, Params, Zone};
use std::path::PathBuf;
use std::sync::Arc;

/// One file a clone uses.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFile {
    /// Path.
    pub path: PathBuf,
    /// The part of the file the clone does I/O to.
    pub region: FileRegion,
}

/// What the run's earlier jobs leave of each file they lay out, as a later job's plan
/// sees it: its size then (None: removed by unlink=1).
pub(crate) type Made = std::collections::HashMap<PathBuf, Option<u64>>;

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
    /// `read_iolog`: the log the clone replays instead of generating I/O.
    pub replay: Option<std::sync::Arc<fathom_workload::replay::Replay>>,
    /// `lockfile`: per file, the lock every clone that locks it shares (empty: none).
    pub locks: Vec<FileLock>,
    /// Another clone of the run writes where one of this clone's regions lies (a file
    /// shared by `numjobs` clones or by several jobs): verification then takes a chunk
    /// another writer left whole, as fio does.
    pub overlapped: bool,
}

/// A file's lock under `lockfile`, one per path for the whole run.
pub type FileLock = std::sync::Arc<std::sync::RwLock<()>>;

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
    /// vdbench's names (`vdb.1_1.dir`, `vdb_f0001.file`) instead of `dN` and the prefix
    /// and suffix.
    pub vdbench_names: bool,
}

impl TreePlan {
    /// Path of directory `k` of the tree (None: the root).
    pub fn dir_path(&self, k: Option<u64>) -> PathBuf {
        match k {
            Some(k) if self.vdbench_names => self.root.join(self.tree.dir_rel_vdbench(k)),
            Some(k) => self.root.join(self.tree.dir_rel(k)),
            None => self.root.clone(),
        }
    }
    /// Path of file `i`.
    pub fn file_path(&self, i: u64) -> PathBuf {
        let mut p = self.dir_path(self.tree.file_dir(i));
        p.push(self.file_name(self.tree.file_in_dir(i)));
        p
    }
    /// The name of the `n`-th file (from 0) of a directory.
    pub fn file_name(&self, n: u64) -> String {
        if self.vdbench_names {
            format!("vdb_f{:04}.file", n + 1)
        } else {
            format!("{}{}{}", self.name_prefix, n, self.name_suffix)
        }
    }
    /// The number (from 0) of the file called `name`, if it is one of the tree's names.
    pub fn file_number(&self, name: &str) -> Option<u64> {
        let per = self.tree.files_per_dir();
        if self.vdbench_names {
            let d = name.strip_prefix("vdb_f")?.strip_suffix(".file")?;
            if !d.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let n: u64 = d.parse().ok()?;
            // vdb_f0001 .. vdb_f9999, then as many digits as it takes.
            let canonical = n >= 1 && format!("{n:04}") == d;
            return (canonical && n <= per).then(|| n - 1);
        }
        let d = name
            .strip_prefix(self.name_prefix.as_str())?
            .strip_suffix(self.name_suffix.as_str())?;
        if !d.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u64 = d.parse().ok()?;
        (n < per && (n == 0 || !d.starts_with('0'))).then_some(n)
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
    /// `dedupe_global`: the seeds of every clone sharing the dedupe working set, in plan
    /// order (empty: none shared).
    pub dedupe_peers: Arc<Vec<u64>>,
    /// zonemode=zbd: every file's zones, shared by the run's jobs.
    pub zones: Arc<super::zones::ZoneRegistry>,
    /// The flow group (`flow`/`flow_id`) this job's clones share with other jobs.
    pub flow: Option<Arc<Flow>>,
    /// The depth group (`Control::depth_share`) this job's clones share with other jobs.
    pub depth_group: Option<Arc<DepthGroup>>,
}

/// I/Os in flight shared by a group of jobs with priorities (vdbench's WD priority=):
/// a member takes a place before it starts an I/O and gives it back when the I/O ends;
/// while a member of a higher priority waits for a place, one of a lower priority gets
/// none.
#[derive(Debug)]
pub struct DepthGroup {
    /// I/Os in flight in the group now.
    pub inflight: std::sync::atomic::AtomicU32,
    /// Places in all.
    pub depth: u32,
    /// Per priority (index 0 unused): members waiting for a place now.
    pub waiting: Vec<std::sync::atomic::AtomicU32>,
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
    /// Give it its size before the job starts even without filling it (a job's engine
    /// maps the file, as fio's mmap): a job that only writes otherwise grows the file by
    /// its writes, as in fio.
    pub extend: bool,
    /// Every job of the phase only writes it (not file_append): a file too small for them
    /// is removed and made anew, as fio's layout unlinks it, rather than extended.
    pub replace: bool,
    /// Zero fill.
    pub zero: bool,
    /// Preallocation.
    pub fallocate: fathom_job::Fallocate,
    /// Remove at the end of the phase (`unlink=1`).
    pub unlink: bool,
    /// fsync it once laid out (`create_fsync`, any job of the phase asking).
    pub fsync: bool,
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
    /// I/O clones (those of jobs that move data) not yet ended, for cpuio's
    /// `exit_on_io_done`.
    pub io_clones_left: Arc<std::sync::atomic::AtomicUsize>,
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
pub(crate) fn distribution(d: &RandomDist) -> Distribution {
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

pub(crate) fn plan_err(spec: &JobSpec, message: impl Into<String>) -> RunError {
    RunError::Plan {
        job: spec.name.clone(),
        location: spec.origin.to_string(),
        message: message.into(),
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
