//! fio's human-readable summary ("normal" output).

use crate::units::{bytes, count, ctime, lat_unit, percentile_unit};
use crate::{runtime_ms, Reporter};
use fathom_stats::{
    DirStats, GroupResult, JobInfo, JobResult, LatStat, RunResult, SampleSummary, LAT_BUCKETS,
};
use std::io::{self, Write};

/// The normal format.
pub struct Normal;

const DIRS: [&str; 3] = ["read", "write", "trim"];
const GROUP_DIRS: [&str; 3] = ["READ", "WRITE", "TRIM"];

impl Reporter for Normal {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        if run.interrupted {
            writeln!(
                out,
                "fathom: interrupted; the results cover the work done until then\n"
            )?;
        }
        for job in &run.jobs {
            let group = run.groups.iter().find(|g| g.groupid == job.groupid);
            write_job(job, group, out)?;
        }
        for (i, g) in run.groups.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            write_group(g, out)?;
        }
        Ok(())
    }
}

/// Both units of a byte rate, the kb_base one first, as fio: `48.4MiB/s (50.7MB/s)`.
fn rate_pair(bps: f64, kb_base: u32) -> String {
    if kb_base == 1000 {
        format!("{}/s ({}/s)", bytes(bps, false), bytes(bps, true))
    } else {
        format!("{}/s ({}/s)", bytes(bps, true), bytes(bps, false))
    }
}

fn write_job(job: &JobResult, group: Option<&GroupResult>, out: &mut dyn Write) -> io::Result<()> {
    let s = &job.stats;
    writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}",
        job.name,
        job.groupid,
        s.clones,
        s.error,
        job.pid,
        ctime(job.job_start_ms)
    )?;
    if let Some(d) = &job.info.description {
        writeln!(out, "  Description  : [{d}]")?;
    }
    if !job.layout.is_zero() {
        // fathom extension: file setup happened before the clock started.
        writeln!(
            out,
            "  layout       : {}msec before the clock started (not in the numbers below)",
            job.layout.as_millis()
        )?;
    }
    let rt = runtime_ms(s);
    for (i, name) in DIRS.iter().enumerate() {
        let d = &s.dirs[i];
        if d.ios == 0 {
            continue;
        }
        let kb = job.info.kb_base;
        writeln!(
            out,
            "  {name}: IOPS={}, BW={}({}/{rt}msec)",
            count(d.ios as f64 * 1000.0 / rt as f64),
            rate_pair(d.bytes as f64 * 1000.0 / rt as f64, kb),
            bytes(d.bytes as f64, kb != 1000)
        )?;
        if d.slat.count() > 0 {
            lat_line("slat", &d.slat, out)?;
        }
        lat_line("clat", &d.clat, out)?;
        lat_line(" lat", &d.lat, out)?;
        if d.resp.count() > 0 {
            // fathom extension: latency from the intended issue time of rate-limited I/O.
            lat_line("resp", &d.resp, out)?;
        }
        if job.info.lat_percentiles {
            percentiles("lat", &d.lat, &job.info, out)?;
        } else if job.info.clat_percentiles {
            percentiles("clat", &d.clat, &job.info, out)?;
        }
        samples(d, job, group, i, out)?;
    }
    if s.sync.count() > 0 {
        writeln!(out, "  fsync/fdatasync/sync_file_range:")?;
        lat_line("sync", &s.sync, out)?;
        percentiles("sync", &s.sync, &job.info, out)?;
    }
    lat_distribution(&s.lat_buckets, out)?;
    let secs = rt as f64 / 1000.0;
    writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, majf={}, minf={}",
        s.cpu.usr.as_secs_f64() / secs * 100.0,
        s.cpu.sys.as_secs_f64() / secs * 100.0,
        s.cpu.ctx,
        s.cpu.majf,
        s.cpu.minf
    )?;
    depth_line(
        "  IO depths    :",
        &["1", "2", "4", "8", "16", "32", ">=64"],
        &s.depth_levels,
        out,
    )?;
    depth_line(
        "     submit    :",
        &["0", "4", "8", "16", "32", "64", ">=64"],
        &s.depth_submit,
        out,
    )?;
    depth_line(
        "     complete  :",
        &["0", "4", "8", "16", "32", "64", ">=64"],
        &s.depth_complete,
        out,
    )?;
    let [r, w, t] = s.issued;
    let sh: Vec<u64> = s.dirs.iter().map(|d| d.short_ios).collect();
    let dr: Vec<u64> = s.dirs.iter().map(|d| d.drop_ios).collect();
    writeln!(
        out,
        "     issued rwts: total={r},{w},{t},0 short={},{},{},0 dropped={},{},{},0",
        sh[0], sh[1], sh[2], dr[0], dr[1], dr[2]
    )?;
    if s.count_errors {
        writeln!(
            out,
            "     errors    : total={}, first_error={}/<{}>",
            s.total_err,
            s.first_error,
            std::io::Error::from_raw_os_error(s.first_error)
        )?;
    }
    writeln!(
        out,
        "     latency   : target=0, window=0, percentile=100.00%, depth={}",
        job.info.iodepth
    )?;
    writeln!(out)
}

fn lat_line(name: &str, l: &LatStat, out: &mut dyn Write) -> io::Result<()> {
    let (unit, div) = lat_unit(l.min(), l.max(), l.mean(), l.stddev());
    writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={:.2}, stdev={:.2}",
        (l.min() as f64 / div) as u64,
        (l.max() as f64 / div) as u64,
        l.mean() / div,
        l.stddev() / div
    )
}

fn percentiles(name: &str, l: &LatStat, info: &JobInfo, out: &mut dyn Write) -> io::Result<()> {
    if l.count() == 0 || info.percentile_list.is_empty() {
        return Ok(());
    }
    let vals: Vec<(f64, u64)> = info
        .percentile_list
        .iter()
        .map(|&p| (p, l.percentile(p)))
        .collect();
    let minv = vals.iter().map(|v| v.1).min().unwrap_or(0);
    let maxv = vals.iter().map(|v| v.1).max().unwrap_or(0);
    let (unit, div) = percentile_unit(minv, maxv);
    let width = (((maxv / div).max(1) as f64).log10() as usize + 1).max(5);
    writeln!(out, "    {name} percentiles ({unit}):")?;
    for chunk in vals.chunks(4) {
        let cells: Vec<String> = chunk
            .iter()
            .map(|(p, v)| format!("{p:5.2}th=[{:>width$}]", v / div))
            .collect();
        writeln!(
            out,
            "     | {}",
            cells.join(", ") + if chunk.len() == 4 { "," } else { "" }
        )?;
    }
    Ok(())
}

fn samples(
    d: &DirStats,
    job: &JobResult,
    group: Option<&GroupResult>,
    i: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let bw = SampleSummary::of(d.bw_samples().map(|b| b / 1024.0));
    if bw.n == 0 {
        return Ok(());
    }
    let agg_kib = group.map(|g| g.dirs[i].agg_bw / 1024.0).unwrap_or(0.0);
    let per = if agg_kib > 0.0 {
        bw.mean / agg_kib * 100.0
    } else {
        0.0
    };
    let (unit, div) = if bw.max >= 1e9 {
        ("GiB", 1024.0 * 1024.0)
    } else if bw.max >= 1e6 {
        ("MiB", 1024.0)
    } else {
        ("KiB", 1.0)
    };
    let _ = job;
    writeln!(
        out,
        "   bw (  {unit}/s): min={:5}, max={:5}, per={:3.2}%, avg={:5.2}, stdev={:5.2}, samples={}",
        (bw.min / div) as u64,
        (bw.max / div) as u64,
        per,
        bw.mean / div,
        bw.stddev / div,
        bw.n
    )?;
    let io = SampleSummary::of(d.iops_samples());
    writeln!(
        out,
        "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
        io.min as u64, io.max as u64, io.mean, io.stddev, io.n
    )
}

fn lat_distribution(b: &[u64; LAT_BUCKETS], out: &mut dyn Write) -> io::Result<()> {
    let total: u64 = b.iter().sum();
    if total == 0 {
        return Ok(());
    }
    let keys = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ];
    let groups: [(&str, &[u64], Vec<&str>); 3] = [
        ("nsec", &b[0..10], keys.to_vec()),
        ("usec", &b[10..20], keys.to_vec()),
        ("msec", &b[20..32], {
            let mut k = keys.to_vec();
            k.push("2000");
            k.push(">=2000");
            k
        }),
    ];
    for (unit, counts, keys) in groups {
        let cells: Vec<String> = counts
            .iter()
            .zip(keys)
            .filter(|(c, _)| **c > 0)
            .map(|(c, k)| {
                let pct = (*c as f64 / total as f64 * 100.0).max(0.01);
                format!("{k}={pct:.2}%")
            })
            .collect();
        for chunk in cells.chunks(5) {
            writeln!(out, "  lat ({unit})   : {}", chunk.join(", "))?;
        }
    }
    Ok(())
}

fn depth_line(label: &str, keys: &[&str], v: &[u64; 7], out: &mut dyn Write) -> io::Result<()> {
    let total: u64 = v.iter().sum();
    let cells: Vec<String> = keys
        .iter()
        .zip(v)
        .map(|(k, c)| {
            let pct = if total == 0 {
                0.0
            } else {
                *c as f64 / total as f64 * 100.0
            };
            format!("{k}={pct:.1}%")
        })
        .collect();
    writeln!(out, "{label} {}", cells.join(", "))
}

fn write_group(g: &GroupResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "Run status group {} (all jobs):", g.groupid)?;
    let iec = g.kb_base != 1000;
    for (i, label) in GROUP_DIRS.iter().enumerate() {
        let d = &g.dirs[i];
        if d.io_bytes == 0 {
            continue;
        }
        let r = |x: f64| format!("{}/s", bytes(x, iec));
        let ro = |x: f64| format!("{}/s", bytes(x, !iec));
        writeln!(
            out,
            "{label:>7}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            r(d.agg_bw),
            ro(d.agg_bw),
            r(d.min_bw),
            r(d.max_bw),
            ro(d.min_bw),
            ro(d.max_bw),
            bytes(d.io_bytes as f64, iec),
            bytes(d.io_bytes as f64, !iec),
            d.min_run.as_millis(),
            d.max_run.as_millis()
        )?;
    }
    Ok(())
}

/// The start-up lines.
pub fn preamble(
    jobs: &[(String, u32, JobInfo, u32)],
    version: &str,
    threads: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    for (name, g, info, clones) in jobs {
        let bs = |i: usize| format!("{}B-{}B", info.bs[i].0, info.bs[i].1);
        writeln!(
            out,
            "{name}: (g={g}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}",
            info.rw,
            bs(0),
            bs(1),
            bs(2),
            info.ioengine,
            info.iodepth
        )?;
        if *clones > 1 {
            writeln!(out, "...")?;
        }
    }
    writeln!(out, "fathom-{version}")?;
    writeln!(
        out,
        "Starting {threads} thread{}",
        if threads == 1 { "" } else { "s" }
    )?;
    writeln!(out)
}
