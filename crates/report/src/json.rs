//! fio's JSON output with fio's keys and units: `bw` KiB/s, `bw_bytes` B/s, `runtime` ms,
//! latencies in ns. `"fio version"` names the fio release whose output this follows with
//! fathom after it (`fio-3.33-fathom-0.1.0`: readers that check for `fio-` or parse
//! `fio-X.Y` keep working), and a last key, `"fathom version"`, says what ran.

use crate::normal::{bw_percent_of_group, depth_percentages, lat_percentages, LAT_KEYS};
use crate::units::ctime;
use crate::{runtime_ms, Reporter};
use fathom_stats::{
    DirStats, GroupResult, JobInfo, JobResult, LatStat, RunResult, SampleSummary, LAT_BUCKETS,
};
use serde_json::{json, Map, Value};
use std::io::{self, Write};

/// The JSON format.
pub struct Json;

impl Reporter for Json {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        let doc = document(run);
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }
}

/// The whole document as a JSON value.
pub fn document(run: &RunResult) -> Value {
    let mut top = Map::new();
    top.insert(
        "fio version".into(),
        json!(format!("fio-{}-fathom-{}", crate::FIO_COMPAT, run.version)),
    );
    top.insert("timestamp".into(), json!(run.timestamp_ms / 1000));
    top.insert("timestamp_ms".into(), json!(run.timestamp_ms));
    top.insert("time".into(), json!(ctime(run.timestamp_ms)));
    if run.interrupted {
        // fathom extension: the run was stopped early; the numbers cover what was done.
        top.insert("interrupted".into(), json!(true));
    }
    if let Some(o) = options(&run.global_options) {
        top.insert("global options".into(), o);
    }
    let jobs: Vec<Value> = run
        .jobs
        .iter()
        .map(|j| job(j, run.groups.iter().find(|g| g.groupid == j.groupid)))
        .collect();
    top.insert("jobs".into(), Value::Array(jobs));
    let disks: Vec<Value> = run
        .disk_util
        .iter()
        .map(|d| {
            json!({
                "name": d.name,
                "read_ios": d.ios[0],
                "write_ios": d.ios[1],
                "read_merges": d.merges[0],
                "write_merges": d.merges[1],
                "read_ticks": d.ticks[0],
                "write_ticks": d.ticks[1],
                "in_queue": d.in_queue,
                "util": d.util,
            })
        })
        .collect();
    top.insert("disk_util".into(), Value::Array(disks));
    top.insert(
        "fathom version".into(),
        json!(format!("fathom-{}", run.version)),
    );
    Value::Object(top)
}

/// Options as a JSON object of strings, in the order given.
/// fio's `"global options"`/`"job options"`: the options given with a value (fio leaves
/// out those written bare, as `stonewall` or `time_based`); None when that leaves none.
fn options(o: &[(String, String)]) -> Option<Value> {
    let mut m = Map::new();
    for (k, v) in o.iter().filter(|(_, v)| !v.is_empty()) {
        m.insert(k.clone(), json!(v));
    }
    (!m.is_empty()).then_some(Value::Object(m))
}

fn lat(l: &LatStat, percentiles: Option<&[f64]>) -> Value {
    let mut m = Map::new();
    m.insert("min".into(), json!(l.min()));
    m.insert("max".into(), json!(l.max()));
    m.insert("mean".into(), json!(l.mean()));
    m.insert("stddev".into(), json!(l.stddev()));
    m.insert("N".into(), json!(l.count()));
    if let Some(list) = percentiles {
        if l.count() > 0 {
            let mut p = Map::new();
            for &x in list {
                p.insert(format!("{x:.6}"), json!(l.percentile(x)));
            }
            m.insert("percentile".into(), Value::Object(p));
        }
    }
    Value::Object(m)
}

/// One direction's object. As fio: `bw_bytes = io_bytes × 1000 / runtime` (integer),
/// `bw = bw_bytes / 1024` whatever kb_base, bandwidth samples in whole KiB/s, IOPS
/// samples whole, and `bw_agg` this job's share of the group's aggregate (0 without
/// samples, at most 100).
fn dir(d: &DirStats, rt_ms: u64, info: &JobInfo, group: Option<&GroupResult>, i: usize) -> Value {
    // A direction that moved nothing has no runtime in fio.
    let rt_ms = if d.bytes > 0 || d.ios > 0 { rt_ms } else { 0 };
    let bw_bytes = if rt_ms == 0 {
        0
    } else {
        (d.bytes as u128 * 1000 / rt_ms as u128).min(u64::MAX as u128) as u64
    };
    let iops = if rt_ms > 0 {
        d.ios as f64 * 1000.0 / rt_ms as f64
    } else {
        0.0
    };
    let bw = SampleSummary::of(d.bw_samples().map(|b| (b / 1024.0).floor()));
    let io = SampleSummary::of(d.iops_samples().map(f64::floor));
    let bw_agg = if bw.n > 0 {
        bw_percent_of_group(bw.mean, group.map(|g| (g, i)))
    } else {
        0.0
    };
    let pl = Some(info.percentile_list.as_slice());
    let mut m = Map::new();
    m.insert("io_bytes".into(), json!(d.bytes));
    m.insert("io_kbytes".into(), json!(d.bytes >> 10));
    m.insert("bw_bytes".into(), json!(bw_bytes));
    m.insert("bw".into(), json!(bw_bytes / 1024));
    m.insert("iops".into(), json!(iops));
    m.insert("runtime".into(), json!(rt_ms));
    m.insert("total_ios".into(), json!(d.ios));
    m.insert("short_ios".into(), json!(d.short_ios));
    m.insert("drop_ios".into(), json!(d.drop_ios));
    m.insert(
        "slat_ns".into(),
        lat(
            &d.slat,
            pl.filter(|_| info.slat_percentiles && d.slat.count() > 0),
        ),
    );
    m.insert(
        "clat_ns".into(),
        lat(&d.clat, pl.filter(|_| info.clat_percentiles)),
    );
    m.insert(
        "lat_ns".into(),
        lat(&d.lat, pl.filter(|_| info.lat_percentiles)),
    );
    if d.prios_with_samples() >= 2 {
        // cmdprio: each priority's latencies, once two priorities have any (as fio).
        let key = if info.lat_percentiles {
            "lat_ns"
        } else {
            "clat_ns"
        };
        let pl = pl.filter(|_| info.clat_percentiles || info.lat_percentiles);
        let prios: Vec<Value> = d
            .prios
            .iter()
            .filter(|p| p.lat.count() > 0)
            .map(|p| json!({"prioclass": p.class(), "prio": p.level(), key: lat(&p.lat, pl)}))
            .collect();
        m.insert("prios".into(), Value::Array(prios));
    }
    if d.resp.count() > 0 {
        // fathom extension: latency from each I/O's intended issue time (rate-limited jobs).
        m.insert("resp_ns".into(), lat(&d.resp, pl));
    }
    m.insert("bw_min".into(), json!(bw.min as u64));
    m.insert("bw_max".into(), json!(bw.max as u64));
    m.insert("bw_agg".into(), json!(bw_agg));
    m.insert("bw_mean".into(), json!(bw.mean));
    m.insert("bw_dev".into(), json!(bw.stddev));
    m.insert("bw_samples".into(), json!(bw.n));
    m.insert("iops_min".into(), json!(io.min as u64));
    m.insert("iops_max".into(), json!(io.max as u64));
    m.insert("iops_mean".into(), json!(io.mean));
    m.insert("iops_stddev".into(), json!(io.stddev));
    m.insert("iops_samples".into(), json!(io.n));
    Value::Object(m)
}

fn pct_map(keys: &[&str], pct: &[f64]) -> Value {
    let mut m = Map::new();
    for (k, p) in keys.iter().zip(pct) {
        m.insert((*k).to_string(), json!(p));
    }
    Value::Object(m)
}

fn job(j: &JobResult, group: Option<&GroupResult>) -> Value {
    let s = &j.stats;
    let mut m = Map::new();
    m.insert("jobname".into(), json!(j.name));
    m.insert("groupid".into(), json!(j.groupid));
    m.insert("job_start".into(), json!(j.job_start_ms));
    m.insert("error".into(), json!(s.reported_error()));
    m.insert("eta".into(), json!(0));
    m.insert(
        "elapsed".into(),
        json!(j.elapsed.as_millis().div_ceil(1000) as u64),
    );
    if let Some(o) = options(&j.info.job_options) {
        m.insert("job options".into(), o);
    }
    // unified_rw_reporting: "mixed" replaces (1) or follows (2) read, write and trim.
    if j.info.unified_rw != 1 {
        for (i, name) in ["read", "write", "trim"].iter().enumerate() {
            m.insert(
                (*name).into(),
                dir(&s.dirs[i], runtime_ms(s, i), &j.info, group, i),
            );
        }
    }
    if j.info.unified_rw != 0 {
        let mixed = fathom_stats::DirStats::mixed(&s.dirs);
        m.insert(
            "mixed".into(),
            dir(&mixed, crate::mixed_runtime_ms(s), &j.info, None, 0),
        );
    }
    m.insert(
        "sync".into(),
        json!({
            "total_ios": s.fsyncs,
            "lat_ns": lat(
                &s.sync,
                Some(j.info.percentile_list.as_slice())
                    .filter(|_| j.info.clat_percentiles || j.info.lat_percentiles)
            ),
        }),
    );
    m.insert("job_runtime".into(), json!(crate::total_run_ms(s)));
    let (usr, sys) = crate::cpu_percent(s);
    m.insert("usr_cpu".into(), json!(usr));
    m.insert("sys_cpu".into(), json!(sys));
    m.insert("ctx".into(), json!(s.cpu.ctx));
    m.insert("majf".into(), json!(s.cpu.majf));
    m.insert("minf".into(), json!(s.cpu.minf));
    depths(j, &mut m);
    if let Some(ss) = &j.steadystate {
        m.insert("steadystate".into(), steadystate(ss));
    }
    if let Some(d) = &j.info.description {
        m.insert("desc".into(), json!(d));
    }
    extensions(j, &mut m);
    Value::Object(m)
}

/// The depth distributions, the latency buckets, errors and the latency target.
fn depths(j: &JobResult, m: &mut Map<String, Value>) {
    let s = &j.stats;
    m.insert(
        "iodepth_level".into(),
        pct_map(
            &["1", "2", "4", "8", "16", "32", ">=64"],
            &depth_percentages(&s.depth_levels),
        ),
    );
    let batch = ["0", "4", "8", "16", "32", "64", ">=64"];
    m.insert(
        "iodepth_submit".into(),
        pct_map(&batch, &depth_percentages(&s.depth_submit)),
    );
    m.insert(
        "iodepth_complete".into(),
        pct_map(&batch, &depth_percentages(&s.depth_complete)),
    );
    let pct: [f64; LAT_BUCKETS] = lat_percentages(&s.lat_buckets);
    m.insert("latency_ns".into(), pct_map(&LAT_KEYS[..10], &pct[0..10]));
    m.insert("latency_us".into(), pct_map(&LAT_KEYS[..10], &pct[10..20]));
    m.insert("latency_ms".into(), pct_map(&LAT_KEYS, &pct[20..32]));
    if s.count_errors {
        m.insert("total_err".into(), json!(s.total_err));
        m.insert("first_error".into(), json!(s.first_error));
    }
    let depth = match s.latency_depth {
        0 => j.info.iodepth,
        d => d,
    };
    m.insert("latency_depth".into(), json!(depth));
    m.insert("latency_target".into(), json!(j.info.latency_target_ns));
    // A job result read back from an older native file has no percentile: fio's 100.
    let pct = if j.info.latency_percentile > 0.0 {
        j.info.latency_percentile
    } else {
        100.0
    };
    m.insert("latency_percentile".into(), json!(pct));
    m.insert("latency_window".into(), json!(j.info.latency_window_us));
}

/// A steady-state watch's result, as fio's `steadystate` object.
fn steadystate(ss: &fathom_stats::SteadyState) -> Value {
    let mut data = json!({
        "bw_mean": ss.bw_mean,
        "iops_mean": ss.iops_mean,
    });
    if ss.ss.starts_with("lat") {
        data["lat_mean"] = json!(ss.lat_mean);
        data["lat_ns"] = json!(ss.lat);
    }
    data["iops"] = json!(ss.iops);
    data["bw"] = json!(ss.bw);
    json!({
        "ss": ss.ss,
        "duration": ss.duration,
        "attained": ss.attained as u8,
        "criterion": ss.criterion,
        "max_deviation": ss.max_deviation,
        "slope": ss.slope,
        "data": data,
    })
}

/// fathom's keys after fio's: layout time, notes, verification and metadata operations.
fn extensions(j: &JobResult, m: &mut Map<String, Value>) {
    let s = &j.stats;
    // fathom extension (after fio's keys): time spent laying out files before the clock
    // started.
    m.insert("layout_ms".into(), json!(j.layout.as_millis() as u64));
    // fathom extension: what the user should know about this job's numbers (a rate not
    // reached, tolerated errors); on stderr only with --warnings.
    if !j.notes.is_empty() {
        m.insert("notes".into(), json!(j.notes));
    }
    // fathom extension: what data verification checked, and the first failures.
    if let Some(v) = &s.verify {
        m.insert(
            "verify".into(),
            json!({
                "type": v.kind,
                "blocks": v.blocks,
                "bytes": v.bytes,
                "failures": v.failures,
                "first_failures": v.first,
            }),
        );
    }
    // fathom extension: metadata operations, one object per kind.
    if !s.ops.is_empty() {
        let mut ops = Map::new();
        for o in &s.ops {
            ops.insert(
                o.name.clone(),
                json!({
                    "ops": o.ops,
                    "ops_per_sec": o.rate(s.runtime),
                    "errors": o.errors,
                    "skipped": o.skipped,
                    "bytes": o.bytes,
                    "lat_ns": lat(&o.lat, Some(j.info.percentile_list.as_slice())),
                }),
            );
        }
        m.insert("ops".into(), Value::Object(ops));
    }
}
