//! The results of a run, as handed to the report writers.

use crate::thread::{is_zero_f64, is_zero_u64, ThreadStats};
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
    /// Report slat percentiles (`slat_percentiles`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub slat_percentiles: bool,
    /// 1024 or 1000.
    pub kb_base: u32,
    /// Free-text description.
    pub description: Option<String>,
    /// Options set in the job's own section, as typed.
    pub job_options: Vec<(String, String)>,
    /// `unit_base`: 1 for bits.
    #[serde(default)]
    pub unit_base: u32,
    /// `significant_figures` (0 means fio's default, 4).
    #[serde(default)]
    pub sig_figs: u32,
    /// `unified_rw_reporting`: 0 none, 1 mixed, 2 both.
    #[serde(default)]
    pub unified_rw: u8,
    /// `latency_target` in ns (0: no queue-depth search).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub latency_target_ns: u64,
    /// `latency_window` in µs.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub latency_window_us: u64,
    /// `latency_percentile` of a queue-depth search (0 without one: fio's 100).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub latency_percentile: f64,
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
    /// Steady-state detection (`ss_dur` set): the window's samples and the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<SteadyState>,
}

/// What steady-state detection saw (fio's `steadystate` JSON object).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SteadyState {
    /// The criterion as written by fio: `iops_slope:0.010000%`.
    pub ss: String,
    /// Window length in seconds.
    pub duration: u64,
    /// The criterion was met (the job was ended there).
    pub attained: bool,
    /// The last value of the criterion (`%` when the limit is a percentage).
    pub criterion: String,
    /// Largest deviation from the window's mean (deviation criteria).
    pub max_deviation: f64,
    /// Slope of the least-squares line, per interval (slope criteria).
    pub slope: f64,
    /// Mean bandwidth over the window, B/s.
    pub bw_mean: u64,
    /// Mean IOPS over the window.
    pub iops_mean: u64,
    /// Mean completion latency over the window, ns.
    pub lat_mean: u64,
    /// The window's samples, oldest first: IOPS, B/s and mean clat (ns) per interval.
    pub iops: Vec<u64>,
    /// See `iops`.
    pub bw: Vec<u64>,
    /// See `iops`.
    pub lat: Vec<u64>,
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
    /// Bytes all jobs had moved when the first of them finished (at `min_run`; from the
    /// interval samples of the jobs still running) — elbencho's "first done".
    #[serde(default)]
    pub first_done_bytes: u64,
}

impl GroupDir {
    /// Aggregate bandwidth until the first job finished, bytes/s.
    pub fn first_done_bw(&self) -> f64 {
        if self.min_run.is_zero() {
            0.0
        } else {
            self.first_done_bytes as f64 / self.min_run.as_secs_f64()
        }
    }
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
        let clones: Vec<&ThreadStats> = clones.collect();
        let mut seen = [false; 3];
        for ts in clones.iter().copied() {
            for (i, gd) in g.dirs.iter_mut().enumerate() {
                let d = &ts.dirs[i];
                if d.ios == 0 {
                    continue;
                }
                let rt = ts.dir_runtime(i);
                // As fio (and each job's own line): bytes over whole ms, at least 1.
                let bw = d.bytes as f64 * 1000.0 / whole_ms(rt) as f64;
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
        for (i, gd) in g.dirs.iter_mut().enumerate() {
            let first_ms = gd.min_run.as_millis() as u64;
            gd.first_done_bytes = clones
                .iter()
                .filter(|ts| ts.dirs[i].ios > 0)
                .map(|ts| {
                    if ts.dir_runtime(i) <= gd.min_run {
                        ts.dirs[i].bytes
                    } else {
                        ts.dirs[i]
                            .samples
                            .iter()
                            .filter(|s| s.t_ms <= first_ms)
                            .map(|s| s.bytes)
                            .sum()
                    }
                })
                .sum();
            gd.agg_bw = if gd.io_bytes == 0 {
                0.0
            } else {
                gd.io_bytes as f64 * 1000.0 / whole_ms(gd.max_run) as f64
            };
        }
        g
    }
}

/// A runtime in whole ms, at least 1 (fio's unit for every rate).
fn whole_ms(d: std::time::Duration) -> u64 {
    fio_ms(d).max(1)
}

/// A runtime in whole ms as fio counts them: its microseconds rounded up.
pub fn fio_ms(d: std::time::Duration) -> u64 {
    (d.as_micros().min(u64::MAX as u128) as u64).div_ceil(1000)
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
    /// The machine it ran on.
    #[serde(default)]
    pub host: crate::HostFacts,
    /// The files and devices the jobs used.
    #[serde(default)]
    pub targets: Vec<crate::TargetFacts>,
    /// When this result merges several (`fathom merge`): where each came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<MergedSource>,
    /// The block devices under the jobs' files and what they did during the run (fio's
    /// `Disk stats` and `disk_util`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disk_util: Vec<DiskUtil>,
}

/// One block device's activity over a run, from `/sys/block/DEV/stat` at its start and
/// end: reads and writes completed and merged, ms spent on each, the weighted time in
/// queue (ms), and the share of the run the device was busy.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DiskUtil {
    /// Device name (`vda`, `nvme0n1`, `sda1`).
    pub name: String,
    /// Reads and writes completed.
    pub ios: [u64; 2],
    /// Reads and writes merged.
    pub merges: [u64; 2],
    /// ms spent reading and writing.
    pub ticks: [u64; 2],
    /// Weighted ms in queue.
    pub in_queue: u64,
    /// Busy time over the run's time, in percent (at most 100).
    pub util: f64,
}

/// One input of a merged result.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MergedSource {
    /// Host name of that run.
    pub hostname: String,
    /// Its start, ms since the Unix epoch.
    pub timestamp_ms: u64,
    /// fathom version that produced it.
    pub version: String,
}

impl JobResult {
    /// Add another result of the same job run at the same time (another clone, another
    /// host): statistics merge exactly, elapsed is the longest, the start the earliest,
    /// the first error and every note are kept.
    pub fn absorb(&mut self, o: JobResult) {
        self.stats.merge(&o.stats);
        self.absorb_rest(o);
    }

    /// Everything [`JobResult::absorb`] takes besides the statistics.
    fn absorb_rest(&mut self, o: JobResult) {
        self.elapsed = self.elapsed.max(o.elapsed);
        self.job_start_ms = self.job_start_ms.min(o.job_start_ms);
        if self.error_text.is_none() {
            self.error_text = o.error_text;
        }
        self.notes.extend(o.notes);
        if self.steadystate.is_none() {
            self.steadystate = o.steadystate;
        }
    }
}

impl RunResult {
    /// Add other runs of the same jobs to this one, exactly: jobs are matched by name and
    /// reporting group and their statistics merged (counters add, histograms add bucket by
    /// bucket, interval samples add by interval, runtime is the longest), as if every run
    /// had been one more clone of the job running at the same time (the multi-host view).
    /// Jobs present in only some runs are kept as they are. Groups are recomputed.
    pub fn merge(runs: Vec<RunResult>) -> Result<RunResult, String> {
        Self::merge_as(runs, false)
    }

    /// Add repetitions of the same jobs run one after another: as [`RunResult::merge`],
    /// but each job's runtime is the sum of its runtimes and its interval samples follow
    /// each other in time, so IOPS and bandwidth are the averages over all repetitions
    /// while latency histograms hold every I/O of every repetition.
    pub fn merge_sequential(runs: Vec<RunResult>) -> Result<RunResult, String> {
        Self::merge_as(runs, true)
    }

    fn merge_as(runs: Vec<RunResult>, sequential: bool) -> Result<RunResult, String> {
        let mut it = runs.into_iter();
        let Some(mut out) = it.next() else {
            return Err("nothing to merge".into());
        };
        let source = |r: &RunResult| MergedSource {
            hostname: r.host.hostname.clone(),
            timestamp_ms: r.timestamp_ms,
            version: r.version.clone(),
        };
        if out.merged_from.is_empty() {
            out.merged_from.push(source(&out));
        }
        for r in it {
            if r.merged_from.is_empty() {
                out.merged_from.push(source(&r));
            } else {
                out.merged_from.extend(r.merged_from.iter().cloned());
            }
            for j in r.jobs {
                match out
                    .jobs
                    .iter_mut()
                    .find(|o| o.name == j.name && o.groupid == j.groupid)
                {
                    Some(o) => {
                        if o.info.kb_base != j.info.kb_base {
                            return Err(format!(
                                "job '{}': kb_base {} and {} differ; results would mix units",
                                j.name, o.info.kb_base, j.info.kb_base
                            ));
                        }
                        if sequential {
                            let offset = o.stats.runtime.as_millis() as u64;
                            let mut add = j.stats.clone();
                            let later: Vec<Vec<crate::Sample>> = add
                                .dirs
                                .iter_mut()
                                .map(|d| std::mem::take(&mut d.samples))
                                .collect();
                            // Saturating: a damaged result file must not panic a merge.
                            let total = o.stats.runtime.saturating_add(add.runtime);
                            let dirs = (o.stats.dir_runtime.is_some() || add.dir_runtime.is_some())
                                .then(|| {
                                    [0, 1, 2].map(|i| {
                                        o.stats.dir_runtime(i).saturating_add(add.dir_runtime(i))
                                    })
                                });
                            o.stats.merge(&add);
                            o.stats.runtime = total;
                            o.stats.dir_runtime = dirs;
                            for (d, samples) in later.into_iter().enumerate() {
                                o.stats.dirs[d]
                                    .samples
                                    .extend(samples.into_iter().map(|mut x| {
                                        x.t_ms = x.t_ms.saturating_add(offset);
                                        x
                                    }));
                            }
                            o.elapsed = o.elapsed.saturating_add(j.elapsed);
                            o.absorb_rest(j);
                        } else {
                            o.absorb(j);
                        }
                    }
                    None => out.jobs.push(j),
                }
            }
            if !sequential {
                out.threads += r.threads;
            }
            out.interrupted |= r.interrupted;
            out.timestamp_ms = out.timestamp_ms.min(r.timestamp_ms);
            for t in r.targets {
                if !out.targets.contains(&t) {
                    out.targets.push(t);
                }
            }
        }
        let mut gids: Vec<u32> = out.jobs.iter().map(|j| j.groupid).collect();
        gids.sort_unstable();
        gids.dedup();
        out.groups = gids
            .into_iter()
            .map(|g| {
                let members: Vec<&JobResult> = out.jobs.iter().filter(|j| j.groupid == g).collect();
                GroupResult::from_clones(
                    g,
                    members[0].info.kb_base,
                    members.iter().map(|j| &j.stats),
                )
            })
            .collect();
        Ok(out)
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    fn run(host: &str, lats: &[u64]) -> RunResult {
        let mut stats = ThreadStats::new();
        for &l in lats {
            stats.record_io(0, 4096, None, l);
        }
        stats.runtime = Duration::from_secs(1);
        stats.finish();
        RunResult {
            jobs: vec![JobResult {
                name: "j".into(),
                info: JobInfo {
                    kb_base: 1024,
                    ..Default::default()
                },
                stats,
                ..Default::default()
            }],
            host: crate::HostFacts {
                hostname: host.into(),
                ..Default::default()
            },
            threads: 1,
            ..Default::default()
        }
    }

    #[test]
    fn merging_runs_equals_one_run_of_everything() {
        let a: Vec<u64> = (1..=3000).map(|i| i * 1000).collect();
        let b: Vec<u64> = (1..=1000).map(|i| i * 7919 % 5_000_000 + 1).collect();
        let all: Vec<u64> = a.iter().chain(&b).copied().collect();
        // Through serde, as `fathom merge` reads stored results.
        let trip = |r: RunResult| -> RunResult {
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap()
        };
        let m = RunResult::merge(vec![trip(run("h1", &a)), trip(run("h2", &b))]).unwrap();
        let one = run("h1", &all);
        let (x, y) = (&m.jobs[0].stats.dirs[0], &one.jobs[0].stats.dirs[0]);
        assert_eq!(m.jobs.len(), 1);
        assert_eq!((x.ios, x.bytes), (4000, 4000 * 4096));
        for p in [1.0, 50.0, 90.0, 99.0, 99.9, 100.0] {
            assert_eq!(x.clat.percentile(p), y.clat.percentile(p), "p{p}");
        }
        assert_eq!(x.clat.mean(), y.clat.mean());
        assert_eq!(x.clat.stddev(), y.clat.stddev());
        assert_eq!(m.threads, 2);
        assert_eq!(m.groups.len(), 1);
        assert_eq!(m.groups[0].dirs[0].io_bytes, 4000 * 4096);
        let hosts: Vec<&str> = m.merged_from.iter().map(|s| s.hostname.as_str()).collect();
        assert_eq!(hosts, ["h1", "h2"]);
    }

    #[test]
    fn sequential_merging_averages_rates_and_keeps_every_latency() {
        let mut a = run("h", &[1000; 100]);
        a.jobs[0].stats.dirs[0].samples = vec![crate::Sample {
            t_ms: 0,
            len_ms: 1000,
            bytes: 4096 * 100,
            ios: 100,
            ..Default::default()
        }];
        let mut b = run("h", &[3000; 300]);
        b.jobs[0].stats.dirs[0].samples = vec![crate::Sample {
            t_ms: 0,
            len_ms: 1000,
            bytes: 4096 * 300,
            ios: 300,
            ..Default::default()
        }];
        let m = RunResult::merge_sequential(vec![a, b]).unwrap();
        let j = &m.jobs[0];
        assert_eq!(j.stats.runtime, Duration::from_secs(2));
        assert_eq!(j.stats.dirs[0].ios, 400, "200 IOPS over 2 s");
        assert_eq!(j.stats.dirs[0].clat.count(), 400);
        let t: Vec<u64> = j.stats.dirs[0].samples.iter().map(|s| s.t_ms).collect();
        assert_eq!(t, [0, 1000]);
        assert_eq!(m.threads, 1);
    }

    #[test]
    fn sequential_merging_of_absurd_times_saturates_instead_of_panicking() {
        // Found by tests/fuzz (a native file with a huge elapsed time and runtime).
        let mut a = run("h", &[1]);
        a.jobs[0].elapsed = Duration::MAX;
        a.jobs[0].stats.runtime = Duration::MAX;
        a.jobs[0].stats.dirs[0].samples = vec![crate::Sample {
            t_ms: u64::MAX,
            ..Default::default()
        }];
        let m = RunResult::merge_sequential(vec![a.clone(), a]).unwrap();
        assert_eq!(m.jobs[0].elapsed, Duration::MAX);
        assert_eq!(m.jobs[0].stats.runtime, Duration::MAX);
    }

    #[test]
    fn merging_refuses_mixed_units_and_nothing() {
        let mut b = run("h", &[1]);
        b.jobs[0].info.kb_base = 1000;
        assert!(RunResult::merge(vec![run("h", &[1]), b]).is_err());
        assert!(RunResult::merge(vec![]).is_err());
    }
}
