//! fio's terse (`--minimal`) output, versions 2 to 5: one `;`-separated line per job.
//!
//! Per direction: io KiB, bandwidth KiB/s, IOPS, runtime ms; slat, clat min/max (µs,
//! whole) and mean/stdev (µs, 6 decimals); 20 percentile fields `P%=µs` (from lat when
//! lat_percentiles is set, else clat; padded with `0%=0`); lat min/max/mean/stdev;
//! bandwidth samples min/max/agg%/mean/stdev; version 5 adds the bandwidth sample count
//! and IOPS samples min/max/mean/stdev/count. Then CPU, I/O depths, latency buckets in
//! µs (ns buckets folded into the first) and ms, and with continue_on_error the error
//! count and first error. Version 2 has no fio-version field; versions 2, 4 and 5 have a
//! trim direction. fathom has no disk statistics section (fio prints it only when it
//! sampled disks).

use crate::normal::{bw_percent_of_group, depth_percentages, lat_percentages};
use crate::{runtime_ms, Reporter};
use fathom_stats::{DirStats, GroupResult, JobResult, LatStat, RunResult, SampleSummary};
use std::io::{self, Write};

/// The terse format of one version.
pub struct Terse {
    /// 2, 3, 4 or 5.
    pub version: u32,
}

fn us(ns: u64) -> u64 {
    ns / 1000
}

fn lat4(f: &mut Vec<String>, l: &LatStat) {
    f.push(us(l.min()).to_string());
    f.push(us(l.max()).to_string());
    f.push(format!("{:.6}", l.mean() / 1000.0));
    f.push(format!("{:.6}", l.stddev() / 1000.0));
}

fn dir(
    f: &mut Vec<String>,
    j: &JobResult,
    d: &DirStats,
    i: usize,
    group: Option<&GroupResult>,
    v: u32,
) {
    let rt = runtime_ms(&j.stats, i);
    let rt = if d.bytes > 0 || d.ios > 0 { rt } else { 0 };
    let bw_bytes = if rt == 0 {
        0
    } else {
        (d.bytes as u128 * 1000 / rt as u128) as u64
    };
    let iops = (d.ios * 1000).checked_div(rt).unwrap_or(0);
    f.push((d.bytes >> 10).to_string());
    f.push((bw_bytes / 1024).to_string());
    f.push(iops.to_string());
    f.push(rt.to_string());
    lat4(f, &d.slat);
    lat4(f, &d.clat);
    let src = if j.info.lat_percentiles {
        &d.lat
    } else {
        &d.clat
    };
    let list = &j.info.percentile_list;
    for k in 0..20 {
        match list.get(k) {
            Some(&p) if j.info.clat_percentiles || j.info.lat_percentiles => {
                let val = if src.count() > 0 {
                    us(src.percentile(p))
                } else {
                    0
                };
                f.push(format!("{p:.6}%={val}"));
            }
            _ => f.push("0%=0".into()),
        }
    }
    lat4(f, &d.lat);
    let bw = SampleSummary::of(d.bw_samples().map(|b| (b / 1024.0).floor()));
    let agg = if bw.n > 0 {
        bw_percent_of_group(bw.mean, group.map(|g| (g, i)))
    } else {
        0.0
    };
    f.push((bw.min as u64).to_string());
    f.push((bw.max as u64).to_string());
    f.push(format!("{agg:.6}%"));
    f.push(format!("{:.6}", bw.mean));
    f.push(format!("{:.6}", bw.stddev));
    if v == 5 {
        f.push(bw.n.to_string());
        let io = SampleSummary::of(d.iops_samples().map(f64::floor));
        f.push((io.min as u64).to_string());
        f.push((io.max as u64).to_string());
        f.push(format!("{:.6}", io.mean));
        f.push(format!("{:.6}", io.stddev));
        f.push(io.n.to_string());
    }
}

/// The terse fields of one job.
pub fn fields(
    j: &JobResult,
    group: Option<&GroupResult>,
    version: u32,
    fathom_version: &str,
) -> Vec<String> {
    let s = &j.stats;
    let mut f: Vec<String> = vec![version.to_string()];
    if version != 2 {
        f.push(format!("fathom-{fathom_version}"));
    }
    f.push(j.name.clone());
    f.push(j.groupid.to_string());
    f.push(s.reported_error().to_string());
    let dirs = if version == 3 { 2 } else { 3 };
    for i in 0..dirs {
        dir(&mut f, j, &s.dirs[i], i, group, version);
    }
    let (usr, sys) = crate::cpu_percent(s);
    f.push(format!("{usr:.6}%"));
    f.push(format!("{sys:.6}%"));
    f.push(s.cpu.ctx.to_string());
    f.push(s.cpu.majf.to_string());
    f.push(s.cpu.minf.to_string());
    for p in depth_percentages(&s.depth_levels) {
        f.push(format!("{p:.1}%"));
    }
    let lat = lat_percentages(&s.lat_buckets);
    // µs buckets, with every ns bucket folded into the first (≤ 2 µs).
    let ns: f64 = lat[..10].iter().sum();
    for (k, p) in lat[10..20].iter().enumerate() {
        let p = if k == 0 { p + ns } else { *p };
        f.push(format!("{p:.2}%"));
    }
    for p in &lat[20..32] {
        f.push(format!("{p:.2}%"));
    }
    if s.count_errors {
        f.push(s.total_err.to_string());
        f.push(s.first_error.to_string());
    }
    f
}

impl Reporter for Terse {
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()> {
        for j in &run.jobs {
            let g = run.groups.iter().find(|g| g.groupid == j.groupid);
            let mut f = fields(j, g, self.version, &run.version);
            let desc = j.info.description.clone().unwrap_or_default();
            match (self.version, desc.is_empty()) {
                (2, false) => {
                    writeln!(out, "{}", f.join(";"))?;
                    writeln!(out, "{desc}")?;
                    continue;
                }
                (_, false) => f.push(desc),
                _ => {}
            }
            writeln!(out, "{}", f.join(";"))?;
        }
        Ok(())
    }
}
