//! fio's human-readable summary ("normal" output), line for line as fio 3.33 lays it out:
//! one block per reported job, then one "Run status group" block per group.

use crate::units::{
    bytes, ctime, lat_unit, num2str, percentile_precision, percentile_unit, rate, scale_up,
};
use crate::{runtime_ms, Reporter};
use fathom_stats::{
    DirStats, GroupResult, JobInfo, JobResult, LatStat, RunResult, SampleSummary, LAT_BUCKETS,
};
use std::io::{self, Write};

/// The normal format.
pub struct Normal;

const DIRS: [&str; 3] = ["read", "write", "trim"];
const GROUP_DIRS: [&str; 3] = ["   READ", "  WRITE", "   TRIM"];

impl Reporter for Normal {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        if run.interrupted {
            writeln!(
                out,
                "fathom: interrupted; the results cover the work done until then"
            )?;
        }
        // fio starts its summary with an empty line (after the progress line).
        writeln!(out)?;
        for job in &run.jobs {
            let group = run.groups.iter().find(|g| g.groupid == job.groupid);
            write_job(job, group, out)?;
        }
        for g in &run.groups {
            write_group(g, out)?;
        }
        if !run.disk_util.is_empty() {
            writeln!(out, "\nDisk stats (read/write):")?;
            for d in &run.disk_util {
                writeln!(
                    out,
                    "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
                    d.name,
                    d.ios[0],
                    d.ios[1],
                    d.merges[0],
                    d.merges[1],
                    d.ticks[0],
                    d.ticks[1],
                    d.in_queue,
                    d.util
                )?;
            }
        }
        Ok(())
    }
}

/// `1000 × n / ms` in integers, as fio computes bandwidth and IOPS (0 when ms is 0).
fn per_sec(n: u64, ms: u64) -> u64 {
    if ms == 0 {
        0
    } else {
        (n as u128 * 1000 / ms as u128).min(u64::MAX as u128) as u64
    }
}

fn write_job(job: &JobResult, group: Option<&GroupResult>, out: &mut dyn Write) -> io::Result<()> {
    let s = &job.stats;
    // fio leaves out a job that moved no data and issued nothing.
    if s.dirs.iter().all(|d| d.bytes == 0) && s.issued.iter().all(|&n| n == 0) && s.ops.is_empty() {
        return Ok(());
    }
    job_header(job, out)?;
    // The kb_base of the group decides which unit comes first (fio uses the group's).
    let kb_base = group.map(|g| g.kb_base).unwrap_or(job.info.kb_base);
    let iec = kb_base != 1000;
    // unified_rw_reporting: "mixed" replaces (1) or follows (2) the directions.
    let mixed = fathom_stats::DirStats::mixed(&s.dirs);
    let mut shown: Vec<(&str, &DirStats, usize)> = Vec::new();
    if job.info.unified_rw != 1 {
        for (i, name) in DIRS.iter().enumerate() {
            shown.push((name, &s.dirs[i], i));
        }
    }
    if job.info.unified_rw != 0 {
        shown.push(("mixed", &mixed, 0));
    }
    for (name, d, i) in shown {
        let rt = if name == "mixed" {
            crate::mixed_runtime_ms(s)
        } else {
            runtime_ms(s, i)
        };
        if d.bytes == 0 || rt == 0 {
            continue;
        }
        dir_block(job, name, d, rt, iec, out)?;
        samples(d, group.map(|g| (g, i)), kb_base, out)?;
    }
    lat_distribution(&s.lat_buckets, out)?;
    if s.sync.count() > 0 {
        writeln!(out, "  fsync/fdatasync/sync_file_range:")?;
        lat_line("sync", &s.sync, out)?;
        percentiles("sync", &s.sync, &job.info.percentile_list, out)?;
    }
    ops_table(s, out)?;
    if let Some(v) = &s.verify {
        // fathom extension: how much was really verified.
        writeln!(
            out,
            "  verify       : {}, {} chunks ({}) checked, {} failed",
            v.kind,
            v.blocks,
            bytes(v.bytes, iec),
            v.failures
        )?;
        for f in &v.first {
            writeln!(out, "    {f}")?;
        }
    }
    let (usr, sys) = crate::cpu_percent(s);
    writeln!(
        out,
        "  cpu          : usr={usr:3.2}%, sys={sys:3.2}%, ctx={}, majf={}, minf={}",
        s.cpu.ctx, s.cpu.majf, s.cpu.minf
    )?;
    if s.issued.iter().all(|&n| n == 0) && !s.ops.is_empty() {
        // An operation mix (filetree) issues no I/Os: no depths to show.
        return Ok(());
    }
    depths_block(job, out)?;
    if let Some(ss) = &job.steadystate {
        let metric = ss.ss.split(['_', ':']).next().unwrap_or("iops");
        writeln!(
            out,
            "  steadystate  : attained={}, bw={} ({}), iops={}, {metric}{}={}",
            if ss.attained { "yes" } else { "no" },
            crate::units::rate(ss.bw_mean, true),
            crate::units::rate(ss.bw_mean, false),
            crate::units::count(ss.iops_mean),
            if ss.ss.contains("_slope") {
                " slope"
            } else {
                " mean dev"
            },
            ss.criterion
        )?;
    }
    Ok(())
}

/// The job's first lines: name, group, clones, error, pid and start; its description and
/// layout time.
fn job_header(job: &JobResult, out: &mut dyn Write) -> io::Result<()> {
    let s = &job.stats;
    let err = match (&job.error_text, s.error, s.reported_error()) {
        (Some(t), e, _) if e != 0 => format!("{e:2} ({t})"),
        // continue_on_error: fio shows the first error tolerated.
        (_, 0, e) if e != 0 => format!("{e:2} (tolerated: {})", strerror(e)),
        (_, e, _) => format!("{e:2}"),
    };
    writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={err}: pid={}: {}",
        job.name,
        job.groupid,
        s.clones,
        job.pid,
        ctime(job.job_start_ms)
    )?;
    if let Some(d) = &job.info.description {
        writeln!(out, "  Description  : [{d}]")?;
    }
    if job.layout.as_millis() > 0 {
        // fathom extension: file setup happened before the clock started (a setup
        // shorter than a millisecond, as for the null engine, is not worth a line).
        writeln!(
            out,
            "  layout       : {}msec before the clock started (not in the numbers below)",
            job.layout.as_millis()
        )?;
    }
    Ok(())
}

/// One direction's block: its IOPS and bandwidth line, latencies (per priority too) and
/// percentiles.
fn dir_block(
    job: &JobResult,
    name: &str,
    d: &DirStats,
    rt: u64,
    iec: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let sig = if job.info.sig_figs == 0 {
        4
    } else {
        job.info.sig_figs as usize
    };
    let bits = job.info.unit_base == 1;
    let bw_text = |bps: u64, iec: bool| {
        if bits {
            format!("{}bit/s", num2str(bps.saturating_mul(8), sig, iec))
        } else {
            format!("{}B/s", num2str(bps, sig, iec))
        }
    };
    let bw = per_sec(d.bytes, rt);
    writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}B/{rt}msec){}",
        num2str(per_sec(d.ios, rt), sig, false),
        bw_text(bw, iec),
        bw_text(bw, !iec),
        num2str(d.bytes, sig, iec),
        if name == "write" {
            format!("; {} zone resets", job.stats.zone_resets)
        } else {
            String::new()
        }
    )?;
    lat_line("slat", &d.slat, out)?;
    lat_line("clat", &d.clat, out)?;
    lat_line(" lat", &d.lat, out)?;
    // cmdprio: each priority's latencies, once two priorities have any (as fio).
    let prio_kind = if job.info.lat_percentiles {
        "lat"
    } else {
        "clat"
    };
    let by_prio = d.prios_with_samples() >= 2;
    for p in d.prios.iter().filter(|_| by_prio) {
        let name = format!("{prio_kind} prio {}/{}", p.class(), p.level());
        lat_line(&name, &p.lat, out)?;
    }
    // fathom extension: latency from the intended issue time of rate-limited I/O.
    lat_line("resp", &d.resp, out)?;
    let list = &job.info.percentile_list;
    if job.info.slat_percentiles && d.slat.count() > 0 {
        percentiles("slat", &d.slat, list, out)?;
    }
    if job.info.clat_percentiles {
        percentiles("clat", &d.clat, list, out)?;
    }
    if job.info.lat_percentiles {
        percentiles("lat", &d.lat, list, out)?;
    }
    if by_prio && (job.info.clat_percentiles || job.info.lat_percentiles) {
        let all = if job.info.lat_percentiles {
            d.lat.count()
        } else {
            d.clat.count()
        };
        for p in d.prios.iter().filter(|p| p.lat.count() > 0) {
            let name = format!(
                "{prio_kind} prio {}/{} ({:.2}% of IOs)",
                p.class(),
                p.level(),
                100.0 * p.lat.count() as f64 / all.max(1) as f64
            );
            percentiles(&name, &p.lat, list, out)?;
        }
    }
    Ok(())
}

/// The depth distributions, issued counts, errors and latency target lines.
fn depths_block(job: &JobResult, out: &mut dyn Write) -> io::Result<()> {
    let s = &job.stats;
    depth_line(
        "  IO depths    :",
        &["1", "2", "4", "8", "16", "32", ">=64"],
        &s.depth_levels,
        out,
    )?;
    let batch = ["0", "4", "8", "16", "32", "64", ">=64"];
    depth_line("     submit    :", &batch, &s.depth_submit, out)?;
    depth_line("     complete  :", &batch, &s.depth_complete, out)?;
    let [r, w, t] = s.issued;
    let sh: Vec<u64> = s.dirs.iter().map(|d| d.short_ios).collect();
    let dr: Vec<u64> = s.dirs.iter().map(|d| d.drop_ios).collect();
    writeln!(
        out,
        "     issued rwts: total={r},{w},{t},{} short={},{},{},0 dropped={},{},{},0",
        s.fsyncs, sh[0], sh[1], sh[2], dr[0], dr[1], dr[2]
    )?;
    if s.count_errors {
        writeln!(
            out,
            "     errors    : total={}, first_error={}/<{}>",
            s.total_err,
            s.first_error,
            strerror(s.first_error)
        )?;
    }
    let pct = if job.info.latency_percentile > 0.0 {
        job.info.latency_percentile
    } else {
        100.0
    };
    writeln!(
        out,
        "     latency   : target={}, window={}, percentile={pct:.2}%, depth={}",
        job.info.latency_target_ns,
        job.info.latency_window_us,
        match s.latency_depth {
            0 => job.info.iodepth,
            d => d,
        }
    )
}

/// fathom extension: one row per metadata operation (count, rate, errors, skipped, data
/// moved, latency min/avg/percentiles/max), all latencies in one unit.
fn ops_table(s: &fathom_stats::ThreadStats, out: &mut dyn Write) -> io::Result<()> {
    if s.ops.is_empty() {
        return Ok(());
    }
    let lo = s.ops.iter().map(|o| o.lat.min()).min().unwrap_or(0);
    let hi = s.ops.iter().map(|o| o.lat.max()).max().unwrap_or(0);
    let unit = crate::units::percentile_unit(lo, hi);
    let d = unit.divisor() as f64;
    writeln!(
        out,
        "  operations   : {:>8} {:>11} {:>6} {:>7} {:>9} | lat ({}): {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "count", "ops/s", "errors", "skipped", "bytes", unit.name(), "min", "avg", "p50", "p99", "p99.9", "max"
    )?;
    for o in &s.ops {
        let l = &o.lat;
        let prec = if d == 1.0 { 0 } else { 2 };
        let f = |ns: u64| format!("{:.prec$}", ns as f64 / d);
        let (min, avg, p50, p99, p999, max) = if l.count() == 0 {
            Default::default()
        } else {
            (
                f(l.min()),
                format!("{:.prec$}", l.mean() / d),
                f(l.percentile(50.0)),
                f(l.percentile(99.0)),
                f(l.percentile(99.9)),
                f(l.max()),
            )
        };
        writeln!(
            out,
            "    {:<10} : {:>8} {:>11.1} {:>6} {:>7} {:>9} |            {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            o.name,
            o.ops,
            o.rate(s.runtime),
            o.errors,
            o.skipped,
            o.bytes,
            min,
            avg,
            p50,
            p99,
            p999,
            max
        )?;
    }
    Ok(())
}

/// The C library's text for an errno, as fio's `strerror`.
fn strerror(errno: i32) -> String {
    let s = io::Error::from_raw_os_error(errno).to_string();
    // Rust appends " (os error N)"; fio prints strerror alone.
    match s.rfind(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// `    clat (usec): min=41, max=1152, avg=79.91, stdev=20.96` (nothing if no samples).
fn lat_line(name: &str, l: &LatStat, out: &mut dyn Write) -> io::Result<()> {
    if l.count() == 0 {
        return Ok(());
    }
    let unit = lat_unit(l.min(), l.max(), l.stddev());
    let div = unit.divisor();
    writeln!(
        out,
        "    {name} ({}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
        unit.name(),
        num2str(l.min() / div, 6, false),
        num2str(l.max() / div, 6, false),
        l.mean() / div as f64,
        l.stddev() / div as f64
    )
}

/// The percentile block: fio's unit choice, rounding up, label precision, column width
/// and entries per line.
fn percentiles(name: &str, l: &LatStat, list: &[f64], out: &mut dyn Write) -> io::Result<()> {
    if l.count() == 0 {
        return Ok(());
    }
    let mut list: Vec<f64> = list.iter().copied().filter(|&p| p > 0.0).collect();
    if list.is_empty() {
        return Ok(());
    }
    list.sort_by(f64::total_cmp);
    let vals: Vec<u64> = list.iter().map(|&p| l.percentile(p)).collect();
    let minv = vals.iter().copied().min().unwrap_or(0);
    let maxv = vals.iter().copied().max().unwrap_or(0);
    let unit = percentile_unit(minv, maxv);
    let prec = percentile_precision(&list);
    let scaled_max = maxv / unit.divisor();
    let width = if scaled_max == 0 {
        5
    } else {
        (scaled_max.ilog10() as usize + 1).max(5)
    };
    let per_line = ((80 - 7) / (prec + 10 + width)).max(1);
    write!(out, "    {name} percentiles ({}):\n     |", unit.name())?;
    for (j, (p, v)) in list.iter().zip(&vals).enumerate() {
        if j != 0 && j % per_line == 0 {
            write!(out, "     |")?;
        }
        let last = j == list.len() - 1;
        write!(
            out,
            " {p:w$.prec$}th=[{:>width$}]{}",
            scale_up(*v, unit),
            if last { '\n' } else { ',' },
            w = prec + 3,
        )?;
        if !last && j % per_line == per_line - 1 {
            writeln!(out)?;
        }
    }
    Ok(())
}

/// The `bw (  KiB/s):` and `iops        :` lines from the interval samples. fio's samples
/// are whole KiB/s (whatever kb_base) and whole IOPS; `per` is this job's mean bandwidth
/// as a share of its group's aggregate, at most 100%.
fn samples(
    d: &DirStats,
    group: Option<(&GroupResult, usize)>,
    kb_base: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let bw = SampleSummary::of(d.bw_samples().map(|b| (b / 1024.0).floor()));
    if bw.n > 0 {
        let per = bw_percent_of_group(bw.mean, group);
        let kb = if kb_base == 0 { 1024.0 } else { kb_base as f64 };
        let (mut min, mut max) = (bw.min as u64, bw.max as u64);
        let (mut mean, mut dev) = (bw.mean, bw.stddev);
        let mut label = if kb_base == 1000 { "kB" } else { "KiB" };
        if mean > kb * kb {
            min = (min as f64 / kb) as u64;
            max = (max as f64 / kb) as u64;
            mean /= kb;
            dev /= kb;
            label = "MiB";
        }
        writeln!(
            out,
            "   bw ({label:>5}/s): min={min:5}, max={max:5}, per={per:3.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            bw.n
        )?;
    }
    let io = SampleSummary::of(d.iops_samples().map(f64::floor));
    if io.n > 0 {
        writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            io.min as u64, io.max as u64, io.mean, io.stddev, io.n
        )?;
    }
    Ok(())
}

/// fio's `convert_agg_kbytes_percent`: the whole-KiB/s mean bandwidth as a percentage of
/// the group's aggregate (100 when the aggregate is at most 1 KiB/s), capped at 100.
pub(crate) fn bw_percent_of_group(mean_kib: f64, group: Option<(&GroupResult, usize)>) -> f64 {
    let agg = group.map(|(g, i)| g.dirs[i].agg_bw.floor()).unwrap_or(0.0);
    if agg > 1024.0 {
        (mean_kib.trunc() * 100.0 / (agg / 1024.0)).min(100.0)
    } else {
        100.0
    }
}

/// Latency distribution percentages as fio: share of all I/Os, a non-empty bucket below
/// 0.01% shows as 0.01%.
pub(crate) fn lat_percentages(b: &[u64; LAT_BUCKETS]) -> [f64; LAT_BUCKETS] {
    let total: u64 = b.iter().sum();
    let mut p = [0.0; LAT_BUCKETS];
    if total == 0 {
        return p;
    }
    for (o, &c) in p.iter_mut().zip(b) {
        *o = c as f64 / total as f64 * 100.0;
        if *o < 0.01 && c > 0 {
            *o = 0.01;
        }
    }
    p
}

/// Depth distribution percentages as fio: a non-empty level below 0.1% shows as 0.1%.
pub(crate) fn depth_percentages(v: &[u64; 7]) -> [f64; 7] {
    let total: u64 = v.iter().sum();
    let mut p = [0.0; 7];
    if total == 0 {
        return p;
    }
    for (o, &c) in p.iter_mut().zip(v) {
        *o = c as f64 / total as f64 * 100.0;
        if *o < 0.1 && c > 0 {
            *o = 0.1;
        }
    }
    p
}

/// Bucket labels of the nsec and usec rows; the msec row adds `2000` and `>=2000`.
pub(crate) const LAT_KEYS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

fn lat_distribution(b: &[u64; LAT_BUCKETS], out: &mut dyn Write) -> io::Result<()> {
    let pct = lat_percentages(b);
    for (unit, range) in [("nsec", 0..10), ("usec", 10..20), ("msec", 20..32)] {
        let start = range.start;
        let cells: Vec<String> = range
            .filter(|&k| pct[k] > 0.0)
            .map(|k| format!("{}={:3.2}%", LAT_KEYS[k - start], pct[k]))
            .collect();
        for chunk in cells.chunks(5) {
            writeln!(out, "  lat ({unit})   : {}", chunk.join(", "))?;
        }
    }
    Ok(())
}

fn depth_line(label: &str, keys: &[&str], v: &[u64; 7], out: &mut dyn Write) -> io::Result<()> {
    let pct = depth_percentages(v);
    let cells: Vec<String> = keys
        .iter()
        .zip(pct)
        .map(|(k, p)| format!("{k}={p:3.1}%"))
        .collect();
    writeln!(out, "{label} {}", cells.join(", "))
}

fn write_group(g: &GroupResult, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\nRun status group {} (all jobs):", g.groupid)?;
    let iec = g.kb_base != 1000;
    for (i, label) in GROUP_DIRS.iter().enumerate() {
        let d = &g.dirs[i];
        if d.max_run.is_zero() && d.io_bytes == 0 {
            continue;
        }
        let (agg, min, max) = (d.agg_bw as u64, d.min_bw as u64, d.max_bw as u64);
        writeln!(
            out,
            "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            rate(agg, iec),
            rate(agg, !iec),
            rate(min, iec),
            rate(max, iec),
            rate(min, !iec),
            rate(max, !iec),
            bytes(d.io_bytes, iec),
            bytes(d.io_bytes, !iec),
            fathom_stats::fio_ms(d.min_run),
            fathom_stats::fio_ms(d.max_run)
        )?;
    }
    // fathom extension (elbencho's first/last done), only when jobs ended apart: the
    // aggregate until the first job finished, and at the end.
    for (i, label) in GROUP_DIRS.iter().enumerate() {
        let d = &g.dirs[i];
        let (lo, hi) = (
            fathom_stats::fio_ms(d.min_run),
            fathom_stats::fio_ms(d.max_run),
        );
        if d.io_bytes == 0 || hi == 0 || (hi - lo) * 100 < hi {
            continue;
        }
        writeln!(
            out,
            "{label}: first done: bw={} at {lo}msec ({} moved); last done: bw={} at {hi}msec",
            rate(d.first_done_bw() as u64, iec),
            bytes(d.first_done_bytes, iec),
            rate(d.agg_bw as u64, iec),
        )?;
    }
    Ok(())
}

/// The start-up lines: one per job definition (`...` when it has clones), the version and
/// the thread count. Block sizes are printed with fio's `num2str` (`4096B`, `64.0KiB`).
pub fn preamble(
    jobs: &[(String, u32, JobInfo, u32)],
    version: &str,
    threads: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    for (name, g, info, clones) in jobs {
        let bs = |i: usize| {
            let (lo, hi) = info.bs[i];
            format!("{}-{}", bytes(lo, true), bytes(hi, true))
        };
        if let Some(mix) = info.rw.strip_prefix("meta_mix=") {
            // filetree: operations, not a pattern of I/Os.
            writeln!(
                out,
                "{name}: (g={g}): meta_mix={mix}, ioengine={}",
                info.ioengine
            )?;
            if *clones > 1 {
                writeln!(out, "...")?;
            }
            continue;
        }
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
    )
}
