//! The results of a run, as handed to the report writers.

use crate::thread::ThreadStats;
use std::time::Duration;

/// What the report needs to know about a job besides its numbers (the job line).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct JobInfo {
    /// `rw=` as fio prints it (`randrw`, `read`, ...).
    pub rw: String,
    /// Block size range per direction (min, max) in bytes.
    pub bs: [(u64, u64); 3],
    /// Engine name.
    pub ioengine: String,
    /// Requested iodepth.
    pub iodepth: u32,
    /// Percentiles to report.
    pub percentile_list: Vec<f64>,
    /// Report clat percentiles.
    pub clat_percentiles: bool,
    /// Report lat percentiles.
    pub lat_percentiles: bool,
    /// 1024 or 1000.
    pub kb_base: u32,
    /// Free-text description.
    pub description: Option<String>,
    /// Options set in the job's own section, as typed.
    pub job_options: Vec<(String, String)>,
}

/// One reported job: a single clone, or (with group_reporting) the merge of all clones of
/// the jobs in its group.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct JobResult {
    /// Job name (the first job's name for a merged group).
    pub name: String,
    /// Reporting group id.
    pub groupid: u32,
    /// Static job facts.
    pub info: JobInfo,
    /// The recorded numbers (merged if several clones).
    pub stats: ThreadStats,
    /// Job start, ms since the Unix epoch.
    pub job_start_ms: u64,
    /// Wall time from the job's start to its end (layout and ramp included).
    pub elapsed: Duration,
    /// Time spent laying out files before the clock started.
    pub layout: Duration,
    /// Error text for `err=` when the job failed (errno and where).
    pub error_text: Option<String>,
    /// Process id (the same for all threads of the run).
    pub pid: u32,
    /// Things the user should know about this job's numbers (e.g. a rate limit the
    /// device could not keep up with). The CLI prints them on stderr.
    pub notes: Vec<String>,
}

/// Aggregates of one direction over a reporting group (fio's "Run status group" lines).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroupDir {
    /// Total bytes over all jobs.
    pub io_bytes: u64,
    /// Aggregate bandwidth: total bytes / longest runtime, bytes/s.
    pub agg_bw: f64,
    /// Lowest per-job bandwidth, bytes/s.
    pub min_bw: f64,
    /// Highest per-job bandwidth, bytes/s.
    pub max_bw: f64,
    /// Shortest runtime of a job that did I/O in this direction.
    pub min_run: Duration,
    /// Longest runtime.
    pub max_run: Duration,
}

/// A reporting group.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct GroupResult {
    /// Group id.
    pub groupid: u32,
    /// 1024 or 1000 (from the group's first job).
    pub kb_base: u32,
    /// Per direction.
    pub dirs: [GroupDir; 3],
}

impl GroupResult {
    /// Build a group's aggregate lines from every clone's individual stats (fio computes
    /// min/max over jobs, not over merged groups).
    pub fn from_clones<'a>(
        groupid: u32,
        kb_base: u32,
        clones: impl Iterator<Item = &'a ThreadStats>,
    ) -> GroupResult {
        let mut g = GroupResult {
            groupid,
            kb_base,
            dirs: Default::default(),
        };
        let mut seen = [false; 3];
        for ts in clones {
            for (i, gd) in g.dirs.iter_mut().enumerate() {
                let d = &ts.dirs[i];
                if d.ios == 0 {
                    continue;
                }
                let rt = ts.runtime;
                let bw = if rt.is_zero() {
                    0.0
                } else {
                    d.bytes as f64 / rt.as_secs_f64()
                };
                gd.io_bytes += d.bytes;
                if !seen[i] {
                    gd.min_bw = bw;
                    gd.max_bw = bw;
                    gd.min_run = rt;
                    gd.max_run = rt;
                    seen[i] = true;
                } else {
                    gd.min_bw = gd.min_bw.min(bw);
                    gd.max_bw = gd.max_bw.max(bw);
                    gd.min_run = gd.min_run.min(rt);
                    gd.max_run = gd.max_run.max(rt);
                }
            }
        }
        for gd in g.dirs.iter_mut() {
            gd.agg_bw = if gd.max_run.is_zero() {
                0.0
            } else {
                gd.io_bytes as f64 / gd.max_run.as_secs_f64()
            };
        }
        g
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// Reported jobs, in order.
    pub jobs: Vec<JobResult>,
    /// Reporting groups, in order.
    pub groups: Vec<GroupResult>,
    /// Options from `[global]` sections, as typed.
    pub global_options: Vec<(String, String)>,
    /// Run start, ms since the Unix epoch.
    pub timestamp_ms: u64,
    /// fathom's version string.
    pub version: String,
    /// Total number of clones that ran.
    pub threads: u32,
    /// The run was cancelled (SIGINT/SIGTERM or a cancel handle): the numbers cover the
    /// work done until then.
    pub interrupted: bool,
}
