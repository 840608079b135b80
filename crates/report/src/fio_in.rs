//! fio's JSON+ output (and fathom's own JSON+) read back as a [`RunResult`], so that
//! `fathom merge` adds fio runs to each other and to fathom's native results, and renders
//! them in any format.
//!
//! What fio's JSON+ holds comes across: per job and direction the I/O counts and bytes,
//! short and dropped I/Os, the slat/clat/lat populations (their latency bins as the
//! histogram, at fio's bin precision, with fio's exact count, min, max, mean and
//! standard deviation), fsync latency, runtime, CPU use, the I/O depth distributions
//! (from fio's percentages), errors, the job options and the disk statistics. What it does
//! not hold stays out: the interval samples behind fio's `bw`/`iops` min/max/stddev lines
//! (those lines are left out of the merged report). fio's JSON+ has bins for the
//! populations it printed percentiles of (clat by default); the others (lat, slat) come
//! with their exact moments only. Plain JSON has percentiles but no bins: a population
//! with percentiles and I/Os is refused, naming `--output-format=json+`, rather than
//! given percentiles that cannot be merged.

use fathom_stats::{
    lat_bucket, CpuUsage, DiskUtil, JobInfo, JobResult, LatStat, RunResult, ThreadStats,
};
use serde_json::Value;
use std::time::Duration;

/// The most any count read may be (2^40: a trillion I/Os), and any latency (2^44 ns,
/// about five hours): beyond them a file is damaged, and merged sums could overflow.
const MAX_COUNT: u64 = 1 << 40;
const MAX_NS: u64 = 1 << 44;

fn u(o: &Value, k: &str) -> u64 {
    o.get(k)
        .and_then(|x| x.as_u64().or_else(|| x.as_f64().map(|f| f.max(0.0) as u64)))
        .unwrap_or(0)
}

/// `u`, refused above `max`.
fn bounded(o: &Value, k: &str, max: u64, what: &str) -> Result<u64, String> {
    let v = u(o, k);
    if v > max {
        return Err(format!(
            "{what}: {k}={v} is not a plausible value (damaged file?)"
        ));
    }
    Ok(v)
}

fn f(o: &Value, k: &str) -> f64 {
    o.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0)
}

/// One latency population (`clat_ns` and the like): its bins and moments. `what` names it
/// for errors.
fn population(o: Option<&Value>, what: &str, strict: bool) -> Result<LatStat, String> {
    let Some(o) = o else {
        return Ok(LatStat::new());
    };
    let n = bounded(o, "N", MAX_COUNT, what)?;
    let bins: Vec<(u64, u64)> = match o.get("bins").and_then(|b| b.as_object()) {
        Some(b) => {
            let bins: Vec<(u64, u64)> = b
                .iter()
                .filter_map(|(k, v)| Some((k.parse::<u64>().ok()?, v.as_u64()?)))
                .collect();
            let total = bins.iter().try_fold(0u64, |t, &(ns, k)| {
                (ns <= MAX_NS).then(|| t.checked_add(k)).flatten()
            });
            if total.is_none_or(|t| t > MAX_COUNT) {
                return Err(format!(
                    "{what}: its bins are not plausible (damaged file?)"
                ));
            }
            bins
        }
        // fio gives bins for what it printed percentiles of (clat; lat and slat with
        // lat_percentiles/slat_percentiles): the rest come with their moments only.
        None if n == 0 || o.get("percentile").is_none() || !strict => Vec::new(),
        None => {
            return Err(format!(
                "{what} holds {n} I/Os without latency bins (plain JSON): fio's percentiles \
                 cannot be merged; write fio's results with --output-format=json+"
            ))
        }
    };
    let (min, max) = (
        bounded(o, "min", MAX_NS, what)?,
        bounded(o, "max", MAX_NS, what)?,
    );
    let mean = f(o, "mean").clamp(0.0, max as f64);
    let sd = f(o, "stddev").clamp(0.0, max as f64);
    Ok(LatStat::from_bins(bins, (n, min, max, mean, sd)))
}

/// fio's percentage maps (`iodepth_level` and the like) as counts over `total`.
fn depth_counts(o: Option<&Value>, keys: &[&str], total: u64) -> [u64; 7] {
    let mut out = [0u64; 7];
    for (i, k) in keys.iter().enumerate() {
        let pct = o.map_or(0.0, |m| f(m, k)).clamp(0.0, 100.0);
        out[i] = (pct / 100.0 * total as f64).round() as u64;
    }
    out
}

/// A size as fio's job options write it (`4k`, `1m`, `4096`): bytes, 0 if not one.
fn size(v: &str) -> u64 {
    let v = v.trim().to_ascii_lowercase();
    let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let mult = match &v[digits.len()..] {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => 0,
    };
    digits.parse::<u64>().map_or(0, |n| n.saturating_mul(mult))
}

fn job(j: &Value, i: usize, strict: bool) -> Result<JobResult, String> {
    let name = j
        .get("jobname")
        .and_then(|x| x.as_str())
        .ok_or(format!("job {i} has no \"jobname\""))?
        .to_string();
    let mut stats = ThreadStats::new();
    let at = format!("job '{name}'");
    // job_runtime is fio's total_run_time: a group's clones' runtimes added. The group's
    // span (its bandwidth's denominator) is the longest direction's runtime.
    let runtime_ms = bounded(j, "job_runtime", MAX_COUNT, &at)?;
    stats.runtime_sum = Duration::from_millis(runtime_ms);
    let span = ["read", "write", "trim"]
        .iter()
        .filter_map(|d| {
            j.get(*d)
                .and_then(|o| o.get("runtime"))
                .and_then(|v| v.as_u64())
        })
        .max()
        .filter(|&ms| ms > 0 && ms <= runtime_ms)
        .unwrap_or(runtime_ms);
    stats.runtime = Duration::from_millis(span);
    // Each direction's own runtime (a verify phase's reads ran apart from the writes).
    let own: Vec<Option<u64>> = ["read", "write", "trim"]
        .iter()
        .map(|d| {
            j.get(*d)
                .and_then(|o| o.get("runtime"))
                .and_then(|v| v.as_u64())
                .filter(|&ms| ms <= span)
        })
        .collect();
    if own.iter().flatten().any(|&ms| ms != span) {
        stats.dir_runtime = Some([0, 1, 2].map(|i| Duration::from_millis(own[i].unwrap_or(0))));
    }
    let mut percentiles: Vec<f64> = Vec::new();
    let mut clat_pct = false;
    let mut lat_pct = false;
    for (d, dname) in ["read", "write", "trim"].iter().enumerate() {
        let Some(o) = j.get(*dname) else { continue };
        let at = |p: &str| format!("job '{name}': {dname} {p}");
        let pct = (&mut percentiles, &mut clat_pct, &mut lat_pct);
        direction(o, &mut stats, d, &at, strict, pct)?;
    }
    if let Some(s) = j.get("sync") {
        stats.sync = population(s.get("lat_ns"), &format!("job '{name}': sync lat"), strict)?;
        stats.fsyncs = s.get("total_ios").and_then(|v| v.as_u64()).unwrap_or(0);
    }
    let total: u64 = stats.issued.iter().sum();
    stats.depth_levels = depth_counts(
        j.get("iodepth_level"),
        &["1", "2", "4", "8", "16", "32", ">=64"],
        total,
    );
    let batch = ["0", "4", "8", "16", "32", "64", ">=64"];
    stats.depth_submit = depth_counts(j.get("iodepth_submit"), &batch, total);
    stats.depth_complete = depth_counts(j.get("iodepth_complete"), &batch, total);
    // CPU use in percent of the runtime (of one CPU per thread, at most a few thousand).
    let cpu = |k: &str| {
        let secs = f(j, k).clamp(0.0, 1e5) / 100.0 * runtime_ms as f64 / 1e3;
        Duration::try_from_secs_f64(secs).unwrap_or_default()
    };
    stats.cpu = CpuUsage {
        usr: cpu("usr_cpu"),
        sys: cpu("sys_cpu"),
        ctx: bounded(j, "ctx", MAX_COUNT, &at)?,
        majf: bounded(j, "majf", MAX_COUNT, &at)?,
        minf: bounded(j, "minf", MAX_COUNT, &at)?,
    };
    stats.error = bounded(j, "error", i32::MAX as u64, &at)? as i32;
    stats.total_err = bounded(j, "total_err", MAX_COUNT, &at)?;
    stats.first_error = bounded(j, "first_error", i32::MAX as u64, &at)? as i32;
    stats.count_errors = j.get("total_err").is_some();
    if stats.count_errors && stats.total_err > 0 && stats.error == stats.first_error {
        // fio reports the first tolerated error as the job's error: the job went on.
        stats.error = 0;
    }
    stats.clones = 1;
    percentiles.sort_by(f64::total_cmp);
    let info = info_of(j, percentiles, clat_pct, lat_pct);
    let start = u(j, "job_start");
    Ok(JobResult {
        name,
        groupid: u(j, "groupid") as u32,
        info,
        stats,
        job_start_ms: start,
        elapsed: Duration::from_secs(bounded(j, "elapsed", MAX_COUNT, &at)?),
        pid: 0,
        ..Default::default()
    })
}

/// One direction's object: counts, latencies, the percentiles it lists (added to
/// `percentiles`; the flags say whether clat and lat had any) and its latency bins.
fn direction(
    o: &Value,
    stats: &mut ThreadStats,
    d: usize,
    at: &dyn Fn(&str) -> String,
    strict: bool,
    (percentiles, clat_pct, lat_pct): (&mut Vec<f64>, &mut bool, &mut bool),
) -> Result<(), String> {
    let ds = &mut stats.dirs[d];
    ds.ios = bounded(o, "total_ios", MAX_COUNT, &at(""))?;
    ds.bytes = bounded(o, "io_bytes", MAX_COUNT << 20, &at(""))?;
    ds.short_ios = bounded(o, "short_ios", MAX_COUNT, &at(""))?;
    ds.drop_ios = bounded(o, "drop_ios", MAX_COUNT, &at(""))?;
    ds.slat = population(o.get("slat_ns"), &at("slat"), strict)?;
    ds.clat = population(o.get("clat_ns"), &at("clat"), strict)?;
    ds.lat = population(o.get("lat_ns"), &at("lat"), strict)?;
    stats.issued[d] = ds.ios;
    for (p, flag) in [("clat_ns", &mut *clat_pct), ("lat_ns", &mut *lat_pct)] {
        if let Some(m) = o
            .get(p)
            .and_then(|c| c.get("percentile"))
            .and_then(|x| x.as_object())
        {
            *flag = true;
            for k in m.keys() {
                if let Ok(x) = k.parse::<f64>() {
                    if !percentiles.iter().any(|y| (y - x).abs() < 1e-9) {
                        percentiles.push(x);
                    }
                }
            }
        }
    }
    // fio's latency distribution lines come from the completion latencies.
    if let Some(b) = o
        .get("clat_ns")
        .and_then(|c| c.get("bins"))
        .and_then(|b| b.as_object())
    {
        for (k, n) in b {
            if let (Ok(ns), Some(n)) = (k.parse::<u64>(), n.as_u64()) {
                stats.lat_buckets[lat_bucket(ns)] += n;
            }
        }
    }
    Ok(())
}

/// The job's facts: its options as fio listed them, and the percentiles its output has.
fn info_of(j: &Value, percentiles: Vec<f64>, clat_pct: bool, lat_pct: bool) -> JobInfo {
    let opts: Vec<(String, String)> = j
        .get("job options")
        .and_then(|o| o.as_object())
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map_or(v.to_string(), str::to_string)))
                .collect()
        })
        .unwrap_or_default();
    let opt = |k: &str| opts.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let bs = size(opt("bs").unwrap_or("4k")).max(1);
    let kb_base = opt("kb_base").and_then(|v| v.parse().ok()).unwrap_or(1024);
    JobInfo {
        rw: opt("rw").or(opt("readwrite")).unwrap_or("read").to_string(),
        bs: [(bs, bs); 3],
        ioengine: opt("ioengine").unwrap_or("psync").to_string(),
        iodepth: opt("iodepth").and_then(|v| v.parse().ok()).unwrap_or(1),
        percentile_list: percentiles,
        clat_percentiles: clat_pct,
        lat_percentiles: lat_pct,
        kb_base,
        description: j.get("desc").and_then(|x| x.as_str()).map(str::to_string),
        job_options: opts,
        ..Default::default()
    }
}

/// Read fio's JSON+ output (a `note:` line before it is skipped). Plain JSON is read as
/// far as it goes: a job with I/Os but no latency bins is refused (see the module text).
pub fn run_of_fio_json(text: &str) -> Result<RunResult, String> {
    read(text, true)
}

/// [`run_of_fio_json`] for what only shows totals (plots): plain JSON is taken too, its
/// latency populations with their moments and no histogram.
pub fn run_of_fio_json_lenient(text: &str) -> Result<RunResult, String> {
    read(text, false)
}

fn read(text: &str, strict: bool) -> Result<RunResult, String> {
    let start = text
        .find('{')
        .ok_or("not JSON: no '{' (is this fio's JSON output?)")?;
    let v: Value = serde_json::from_str(&text[start..]).map_err(|e| format!("not JSON: {e}"))?;
    let jobs = v
        .get("jobs")
        .and_then(|j| j.as_array())
        .ok_or("no \"jobs\" array: not fio JSON")?;
    let mut run = RunResult {
        version: v
            .get("fio version")
            .or_else(|| v.get("fathom version"))
            .and_then(|x| x.as_str())
            .unwrap_or("fio")
            .to_string(),
        timestamp_ms: u(&v, "timestamp_ms"),
        global_options: v
            .get("global options")
            .and_then(|o| o.as_object())
            .map(|m| {
                m.iter()
                    .map(|(k, x)| (k.clone(), x.as_str().map_or(x.to_string(), str::to_string)))
                    .collect()
            })
            .unwrap_or_default(),
        ..Default::default()
    };
    for (i, j) in jobs.iter().enumerate() {
        let mut r = job(j, i, strict)?;
        if r.job_start_ms == 0 {
            // fio 3.33 gives the run's start only.
            r.job_start_ms = run.timestamp_ms;
        }
        run.threads += 1;
        run.jobs.push(r);
    }
    if run.jobs.is_empty() {
        return Err("fio's JSON holds no jobs".into());
    }
    for d in v
        .get("disk_util")
        .and_then(|x| x.as_array())
        .into_iter()
        .flatten()
    {
        run.disk_util.push(DiskUtil {
            name: d
                .get("name")
                .and_then(|x| x.as_str())
                .unwrap_or("")
                .to_string(),
            ios: [u(d, "read_ios"), u(d, "write_ios")],
            merges: [u(d, "read_merges"), u(d, "write_merges")],
            ticks: [u(d, "read_ticks"), u(d, "write_ticks")],
            in_queue: u(d, "in_queue"),
            util: f(d, "util").clamp(0.0, 100.0),
        });
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLUS: &str = r#"note: both iodepth >= 1 and synchronous I/O engine are selected
{"fio version":"fio-3.33","timestamp_ms":1700000000000,"global options":{"bs":"4k"},
 "jobs":[{"jobname":"r","groupid":0,"error":0,"job options":{"rw":"randread","bs":"8k","iodepth":"4"},
  "read":{"io_bytes":24576,"total_ios":3,"short_ios":0,"drop_ios":0,
   "slat_ns":{"min":0,"max":0,"mean":0.0,"stddev":0.0,"N":0},
   "clat_ns":{"min":1000,"max":5000,"mean":2666.666667,"stddev":2081.665999,"N":3,
     "percentile":{"50.000000":2000,"99.000000":5000},"bins":{"1000":1,"2000":1,"5000":1}},
   "lat_ns":{"min":1100,"max":5100,"mean":2766.666667,"stddev":2081.665999,"N":3}},
  "write":{"io_bytes":0,"total_ios":0,"clat_ns":{"N":0}},
  "trim":{"io_bytes":0,"total_ios":0},
  "sync":{"total_ios":0,"lat_ns":{"N":0}},
  "job_runtime":10,"usr_cpu":50.0,"sys_cpu":10.0,"ctx":7,"majf":0,"minf":3,
  "iodepth_level":{"1":100.0},"iodepth_submit":{"4":100.0},"iodepth_complete":{"4":100.0}}],
 "disk_util":[{"name":"vda","read_ios":3,"write_ios":0,"util":1.5}]}"#;

    #[test]
    fn fio_json_plus_comes_back_with_its_bins_and_moments() {
        // Plain JSON: clat's percentiles without bins are refused, naming json+.
        let plain = PLUS.replace(r#","bins":{"1000":1,"2000":1,"5000":1}"#, "");
        let e = run_of_fio_json(&plain).unwrap_err();
        assert!(e.contains("read clat") && e.contains("json+"), "{e}");
        let r = run_of_fio_json(PLUS).unwrap();
        // lat has no percentiles and so no bins: its moments come across alone.
        let l = &r.jobs[0].stats.dirs[0].lat;
        assert_eq!((l.count(), l.min(), l.max()), (3, 1100, 5100));
        let j = &r.jobs[0];
        assert_eq!(
            (j.name.as_str(), j.info.bs[0], j.info.iodepth),
            ("r", (8192, 8192), 4)
        );
        let c = &j.stats.dirs[0].clat;
        assert_eq!((c.count(), c.min(), c.max()), (3, 1000, 5000));
        assert!((c.mean() - 2666.67).abs() < 0.01 && (c.stddev() - 2081.67).abs() < 0.5);
        assert_eq!(c.percentile(50.0), 2000);
        assert_eq!(j.info.percentile_list, [50.0, 99.0]);
        assert_eq!(j.stats.depth_levels[0], 3);
        assert_eq!(j.stats.cpu.usr, Duration::from_millis(5));
        assert_eq!(r.disk_util[0].ios, [3, 0]);
        assert!(run_of_fio_json("{}").is_err());
        assert!(run_of_fio_json("plain").is_err());
    }

    #[test]
    fn each_directions_runtime_comes_across() {
        // A write job's verify phase: its reads ran 6 ms, its writes 3 of the 10.
        let two = PLUS
            .replace(
                r#""read":{"io_bytes":24576,"#,
                r#""read":{"io_bytes":24576,"runtime":6,"#,
            )
            .replace(
                r#""write":{"io_bytes":0,"total_ios":0,"#,
                r#""write":{"io_bytes":8192,"total_ios":2,"runtime":3,"#,
            );
        let r = run_of_fio_json(&two).unwrap();
        let s = &r.jobs[0].stats;
        assert_eq!(s.runtime, Duration::from_millis(6));
        assert_eq!(s.dir_runtime(0), Duration::from_millis(6));
        assert_eq!(s.dir_runtime(1), Duration::from_millis(3));
        let bw = crate::compare::metric_value(crate::compare::MetricKind::Bw, &r.jobs[0], 1);
        assert!((bw - 8192.0 / 0.003).abs() < 1.0, "{bw}");
    }
}
