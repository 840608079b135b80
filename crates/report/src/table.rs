//! CSV and Markdown: one row per job and direction that did I/O (job, direction, I/Os,
//! bytes, runtime, IOPS, bandwidth, completion latency mean/p50/p99/p99.9/max, errors),
//! and one per metadata operation (`op:create`, …: operations, ops/s, their latency).
//! CSV carries raw units (ns, B/s) for scripts; Markdown readable units, for a CI job
//! summary.

use crate::{runtime_ms, Reporter};
use fathom_stats::RunResult;
use std::io::{self, Write};

/// One row's figures.
struct Row {
    job: String,
    dir: String,
    ios: u64,
    bytes: u64,
    runtime_ms: u64,
    iops: f64,
    bw: f64,
    mean: f64,
    p50: u64,
    p99: u64,
    p999: u64,
    max: u64,
    error: i32,
}

fn rows(run: &RunResult) -> Vec<Row> {
    let mut out = Vec::new();
    for j in &run.jobs {
        for (i, dir) in ["read", "write", "trim"].iter().enumerate() {
            let rt = runtime_ms(&j.stats, i);
            let d = &j.stats.dirs[i];
            if d.ios == 0 {
                continue;
            }
            let secs = rt as f64 / 1000.0;
            let per = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
            out.push(Row {
                job: j.name.clone(),
                dir: dir.to_string(),
                ios: d.ios,
                bytes: d.bytes,
                runtime_ms: rt,
                iops: per(d.ios),
                bw: per(d.bytes),
                mean: d.clat.mean(),
                p50: d.clat.percentile(50.0),
                p99: d.clat.percentile(99.0),
                p999: d.clat.percentile(99.9),
                max: d.clat.max(),
                error: j.stats.error,
            });
        }
        for o in &j.stats.ops {
            let secs = j.stats.runtime.as_secs_f64();
            let per = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
            out.push(Row {
                job: j.name.clone(),
                dir: format!("op:{}", o.name),
                ios: o.ops,
                bytes: o.bytes,
                runtime_ms: fathom_stats::fio_ms(j.stats.runtime),
                iops: per(o.ops),
                bw: per(o.bytes),
                mean: o.lat.mean(),
                p50: o.lat.percentile(50.0),
                p99: o.lat.percentile(99.0),
                p999: o.lat.percentile(99.9),
                max: o.lat.max(),
                error: j.stats.error,
            });
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV.
pub struct Csv;

impl Reporter for Csv {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "job,dir,ios,bytes,runtime_ms,iops,bw_bytes,clat_mean_ns,clat_p50_ns,clat_p99_ns,clat_p99.9_ns,clat_max_ns,error"
        )?;
        for r in rows(run) {
            writeln!(
                out,
                "{},{},{},{},{},{:.3},{:.0},{:.1},{},{},{},{},{}",
                csv_field(&r.job),
                r.dir,
                r.ios,
                r.bytes,
                r.runtime_ms,
                r.iops,
                r.bw,
                r.mean,
                r.p50,
                r.p99,
                r.p999,
                r.max,
                r.error
            )?;
        }
        Ok(())
    }
}

fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn bytes_per_sec(b: f64) -> String {
    crate::units::short_rate(b, false)
}

fn count(v: f64) -> String {
    crate::units::short_count(v)
}

/// Markdown (a table for a CI job summary).
pub struct Markdown;

impl Reporter for Markdown {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "| job | dir | IOPS | bandwidth | clat mean | p50 | p99 | p99.9 | max | I/Os | error |"
        )?;
        writeln!(
            out,
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        )?;
        for r in rows(run) {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.job.replace('|', "\\|"),
                r.dir,
                count(r.iops),
                bytes_per_sec(r.bw),
                time(r.mean),
                time(r.p50 as f64),
                time(r.p99 as f64),
                time(r.p999 as f64),
                time(r.max as f64),
                r.ios,
                r.error
            )?;
        }
        Ok(())
    }
}
