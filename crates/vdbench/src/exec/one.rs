//! One run (or curve point) of a vdbench execution: its jobs, the run with its interval
//! lines printed as they end, and its reports (summary, totals, flat file, per-SD and
//! per-WD files, the histogram and the native fathom result).

use super::{cpu_ticks, emit, now_stamps, stamps_at, Ctx, Out};
use crate::jobs::{self, JobTag};
use crate::model::{Format, Model};
use crate::report::{self, Iv, RunFacts};
use crate::runs::{Run, RunRate};
use anyhow::{anyhow, bail, Result};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One run (or curve point): jobs, the run itself, its report. Returns its average rate,
/// its exit code, and its average response time in ms.
pub(super) fn one_run(
    ctx: &Ctx<'_>,
    run: &Run,
    name: &str,
    rate: RunRate,
) -> Result<(f64, u8, f64)> {
    if run.is_fs() && !prepare_trees(ctx, run)? {
        return Ok((0.0, 0, 0.0));
    }
    // (After a file-system format, which is a run of its own before this one.)
    let banner = banner(run, name, rate);
    let mut specs: Vec<(fathom::JobSpec, JobTag)> = if run.is_fs() {
        jobs::fs_jobs(run, rate, ctx.jo, ctx.place)?
    } else {
        jobs::raw_jobs(run, rate, ctx.jo, ctx.place)?
    };
    let out = ctx.out;
    if matches!(rate, RunRate::Max | RunRate::Curve)
        && run.wds.len() > 1
        && run.wds.iter().any(|w| w.p.skew.is_some())
    {
        let msg = "note: skew= is held only at a fixed iorate; at iorate=max each WD runs uncapped";
        out.say(msg);
        out.log(msg)?;
    }
    for (msg, console) in jobs::concat::concat_notes(run, ctx.jo) {
        if console {
            out.say(&msg);
        }
        out.log(&msg)?;
    }
    // As vdbench says: with seekpct=eof a range's end past 100 is set back to 100 (the
    // jobs are made so).
    for w in run
        .wds
        .iter()
        .filter(|w| matches!(w.p.seek, crate::model::Seek::Eof))
    {
        for s in &w.sds {
            let range = w.p.range.or(s.range);
            if let Some((a, b)) = range.filter(|r| r.1 > 100.0 && r.1 <= 200.0) {
                let (a, b) = (crate::value::show_num(a), crate::value::show_num(b));
                let msg = format!(
                    "wd={} sd={}: the end past 100 in range=({a},{b}) is ignored with \
                     seekpct=eof; range=({a},100) is used",
                    w.name, s.name
                );
                out.say(&msg);
                out.log(&msg)?;
            }
        }
    }
    if !out.quiet {
        emit(&format!("\n{banner}"));
    }
    out.append("summary.html", &format!("\n{banner}"))?;
    out.append("totals.html", &format!("\n{banner}"))?;
    out.log(&banner.trim_end()[13..])?;
    // One host: interval lines are printed as each interval ends (from the samples the
    // jobs hand to the live board); with many hosts rank 0 prints them after the run.
    let live = ctx.cluster.is_none();
    // showlba=yes: a raw run's I/O trace (file-system runs have none, as in vdbench).
    let trace = match ctx.m.general.showlba && !run.is_fs() && !specs.is_empty() {
        true => Some(super::showlba::Trace::arm(&mut specs, &out.dir)?),
        false => None,
    };
    let set: Vec<fathom::JobSpec> = specs
        .into_iter()
        .map(|mut s| {
            s.0.control.live_samples = live;
            if let Some(p) = &ctx.jo.pattern {
                s.0.buffer_pattern = Some(p.clone());
            }
            s.0
        })
        .collect();
    // Every host starts the run together.
    if let Some(c) = ctx.cluster {
        c.barrier();
    }
    let layout = Layout::of(run, ctx);
    let cpu: Arc<Mutex<Cpu>> = Arc::new(Mutex::new((Vec::new(), cpu_ticks())));
    // Lines printed while the run went on.
    let printed = Arc::new(Mutex::new(0usize));
    // When the run's jobs started (wall clock, ms): its intervals end from there.
    let mut started = crate::report::now_ms();
    let report = if set.is_empty() {
        // A host with no work in this run (its SDs or FWDs are elsewhere).
        Ok(fathom::Report::default())
    } else {
        let live = Live {
            on: live,
            interval: run.pace.interval,
            layout,
            cpu: cpu.clone(),
            printed: printed.clone(),
        };
        started = crate::report::now_ms();
        run_jobs(ctx, set, name, live)
    };
    // The trace of what ran, its logs removed, even when the run failed.
    if let Some(t) = trace {
        let host = ctx.place.hosts.get(ctx.place.rank as usize);
        let file = super::showlba::file_name(host.map(String::as_str));
        let n = t.write(&out.dir.join(&file))?;
        out.log(&format!("showlba=yes: {n} I/Os of rd={name} in {file}"))?;
    }
    let report = report?;
    // The sequential workloads that end at their lun's end ended the run (before its
    // elapsed time): vdbench says so.
    let eof = run
        .wds
        .iter()
        .any(|w| matches!(w.p.seek, crate::model::Seek::Eof));
    let ran = report
        .jobs
        .iter()
        .map(|j| j.elapsed.as_secs_f64())
        .fold(0.0, f64::max);
    if eof && ctx.place.rank == 0 && ran + run.pace.interval / 2.0 < run.pace.elapsed {
        let (tod, _) = now_stamps();
        out.say(&format!(
            "{tod} All sequential workloads on all slaves are done.\n{tod} This triggers end of run \
             inspite of possibly some non-sequential workloads that are still running."
        ));
    }
    // The last interval (the run ended before its event).
    tick(&cpu);
    let cpu = cpu.lock().unwrap_or_else(|e| e.into_inner()).0.clone();
    let printed = *printed.lock().unwrap_or_else(|e| e.into_inner());
    // Rank 0 reports every host's jobs.
    let reports = match ctx.cluster {
        Some(c) => {
            let all = c.gather(&report)?;
            if c.rank() != 0 {
                return Ok((0.0, 0, 0.0));
            }
            all
        }
        None => vec![report],
    };
    let (mut meas, code) = measure(ctx, run, name, &reports)?;
    for (i, iv) in meas.all.iter_mut().enumerate() {
        iv.cpu = cpu.get(i).copied();
    }
    let shown = Shown {
        banner: &banner,
        layout,
        printed,
        started,
    };
    let avg = write_reports(ctx, run, name, rate, &meas, &shown)?;
    if run.is_fs() {
        misc_statistics(ctx, run, &meas.all, Some(&reports))?;
    }
    write_histogram(out, &banner, &reports)?;
    let unvalidated = ctx.jo.validate && !dv_counters(ctx, run, &reports, false)?;
    write_native(out, run, name, reports)?;
    if unvalidated {
        // After the run's results are written, as vdbench's slave aborts after its count.
        bail!("No read validations done during a Data Validation run.")
    }
    Ok((avg.rate(), code, avg.resp()[0]))
}

/// A host's label in vdbench's messages (its first slave's).
fn host_label(ctx: &Ctx<'_>, rank: usize) -> String {
    let host = ctx
        .place
        .hosts
        .get(rank)
        .map_or("localhost", String::as_str);
    format!("{host}-0")
}

/// Data validation's count after a run, each host's as vdbench's slaves report it:
/// the key blocks read and checked (the workload's reads of known blocks, pre-reads,
/// reads after writes) and those found in error. False when the run checked nothing and
/// must fail, as vdbench's does (said here), unless it only wrote sequentially to the end
/// or formatted (`format`: a file-system format's run).
fn dv_counters(ctx: &Ctx<'_>, run: &Run, reports: &[fathom::Report], format: bool) -> Result<bool> {
    let out = ctx.out;
    // validate=ignore_zero_reads: neither the count nor the failure (vdbench's slaves
    // stop before both).
    if ctx.jo.dv_reads.ignore_zero_reads {
        return Ok(true);
    }
    let mut none = false;
    for (rank, r) in reports.iter().enumerate() {
        // (A host with no work in this run has nothing to say.)
        if r.jobs.is_empty() {
            continue;
        }
        let (mut read, mut bad) = (0u64, 0u64);
        for v in r.jobs.iter().filter_map(|j| j.stats.verify.as_ref()) {
            read += v.blocks;
            bad += v.failures;
        }
        let (tod, _) = now_stamps();
        let line = format!(
            "{tod} {}: {tod} Total amount of key blocks read and validated: {:>8}; key blocks \
             marked in error: {bad:>4} ",
            host_label(ctx, rank),
            crate::value::grouped(read)
        );
        out.say(&line);
        out.append("errorlog.html", &format!("{line}\n"))?;
        none |= read == 0;
    }
    let eof_writes = !run.wds.is_empty()
        && run
            .wds
            .iter()
            .all(|w| matches!(w.p.seek, crate::model::Seek::Eof) && w.p.rdpct == 0.0);
    if !none || format || run.rd == "SD_format" || eof_writes {
        return Ok(true);
    }
    let (tod, _) = now_stamps();
    let text = [
        "No read validations done during a Data Validation run.",
        "This means very likely that your run was not long enough to",
        "access the same data block twice. ",
        "There are several solutions to this: ",
        "- increase elapsed time. ",
        "- use larger xfersize. ",
        "- use only a subset of your lun by using the 'sd=...,size=' ",
        "  parameter or the 'sd=...,range=' parameter.",
        "Or, you never did any writes so Vdbench does not know what to ",
        "compare the data with. In that case, change the rdpct= parameter.",
    ];
    out.say(&format!("{tod} "));
    for l in text {
        out.say(&format!("{tod} {l}"));
        out.log(l)?;
    }
    Ok(false)
}

/// The line that opens a run, as vdbench words it: its time, name, rate (a raw run's
/// `I/O rate:`, a file-system run's `fwdrate=` after the elapsed time), elapsed time
/// (`(none)` for a run that ends with its work) and loop values (`For loops: None`).
fn banner(run: &Run, name: &str, rate: RunRate) -> String {
    let (tod, _) = now_stamps();
    let warm = if run.pace.warmup > 0.0 {
        format!(" warmup={}", crate::value::show_num(run.pace.warmup))
    } else {
        String::new()
    };
    let elapsed = if run.pace.elapsed == crate::runs::NO_ELAPSED {
        "(none)".to_string()
    } else {
        crate::value::show_num(run.pace.elapsed)
    };
    let loops = run.loop_text();
    if run.is_fs() {
        let fwdrate = match rate {
            RunRate::Max => "max.".to_string(),
            RunRate::Curve => "curve.".to_string(),
            RunRate::Fixed(r) => format!("{};", r as u64),
        };
        return format!(
            "{tod} Starting RD={name}; elapsed={elapsed}{warm}; fwdrate={fwdrate} {loops}\n"
        );
    }
    let rate_text = match rate {
        RunRate::Max => "Uncontrolled MAX".to_string(),
        RunRate::Curve => "Uncontrolled curve".to_string(),
        RunRate::Fixed(r) => crate::value::show_num(r),
    };
    format!("{tod} Starting RD={name}; I/O rate: {rate_text}; elapsed={elapsed}{warm}; {loops}\n")
}

/// The line layout: vdbench's file-system layout for FSD runs (with the getattr,
/// setattr, access, copy and move columns the execution uses), else the raw one.
#[derive(Clone, Copy)]
struct Layout {
    fs: bool,
    used: [bool; report::FS_OPTIONAL],
}

impl Layout {
    fn of(run: &Run, ctx: &Ctx<'_>) -> Layout {
        Layout {
            fs: run.is_fs(),
            used: ctx.fs_ops,
        }
    }
    fn header(self) -> String {
        if self.fs {
            report::fs_header(self.used)
        } else {
            report::header()
        }
    }
    fn line(self, tod: &str, label: &str, iv: &Iv) -> String {
        if self.fs {
            report::fs_line(tod, label, iv, self.used)
        } else {
            report::line(tod, label, iv)
        }
    }
    fn flat_row(self, tod: &str, stamp: &str, label: &str, f: &RunFacts, iv: &Iv) -> String {
        if self.fs {
            report::fs_flat_row(tod, stamp, label, f, iv)
        } else {
            report::flat_row(tod, stamp, label, f, iv)
        }
    }
}

/// Machine CPU per interval (busy and system percentages), and the last reading.
type Cpu = (Vec<(f64, f64)>, Option<(u64, u64, u64)>);

/// Read the machine's CPU when an interval's line is due.
fn tick(c: &Mutex<Cpu>) {
    let mut g = c.lock().unwrap_or_else(|e| e.into_inner());
    let now = cpu_ticks();
    if let (Some(a), Some(b)) = (g.1, now) {
        let total = (b.2 - a.2).max(1) as f64;
        g.0.push((
            (b.0 - a.0) as f64 * 100.0 / total,
            (b.1 - a.1) as f64 * 100.0 / total,
        ));
    }
    g.1 = now;
}

/// What the interval printer shares with the run.
struct Live {
    /// One host: lines are printed as intervals end.
    on: bool,
    interval: f64,
    layout: Layout,
    cpu: Arc<Mutex<Cpu>>,
    printed: Arc<Mutex<usize>>,
}

/// Run the jobs, printing each interval's line as every clone completes it.
fn run_jobs(
    ctx: &Ctx<'_>,
    set: Vec<fathom::JobSpec>,
    name: &str,
    live: Live,
) -> Result<fathom::Report> {
    let mut runner = fathom::Runner::new(set);
    // Many hosts: a host stopped alone tells the others, which stop this run too.
    if let Some(s) = ctx.cluster.and_then(|c| c.stop_signals()) {
        runner = fathom::cluster::stop_with_peers(runner, s);
    }
    let plan = runner.plan().map_err(|e| anyhow!("rd={name}: {e}"))?;
    let board = runner.live_board(&plan);
    let period = Duration::from_secs_f64(if live.on {
        (live.interval / 10.0).min(0.1)
    } else {
        live.interval
    });
    let cancel = runner.cancel_handle();
    let monitor = ctx.monitor.clone();
    let runner = runner.on_interval(period, move |_| {
        if !live.on {
            tick(&live.cpu);
            return;
        }
        let mut k = live.printed.lock().unwrap_or_else(|e| e.into_inner());
        let before = *k;
        while let Some(mut line) = interval_done(&board, *k, live.interval) {
            tick(&live.cpu);
            line.cpu = live
                .cpu
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .0
                .last()
                .copied();
            let (tod, _) = now_stamps();
            let mut text = String::new();
            if *k == 0 {
                text.push_str(&live.layout.header());
            }
            text.push_str(&live.layout.line(&tod, &(*k + 1).to_string(), &line));
            emit(&text);
            *k += 1;
        }
        // The monitor file is read as each interval ends, as vdbench does.
        let now = *k;
        drop(k);
        if now > before {
            if let Some(m) = &monitor {
                if m.check() {
                    cancel.cancel();
                }
            }
        }
    });
    crate::stop::run(runner).map_err(|e| anyhow!("rd={name}: {e}"))
}

/// Interval `k` summed over the clones, once every clone has it (None before).
fn interval_done(board: &fathom::live::LiveBoard, k: usize, interval: f64) -> Option<Iv> {
    let mut line = Iv::default();
    for (name, c) in &board.clones {
        let g = c.samples.lock().unwrap_or_else(|e| e.into_inner());
        // A metadata job's clone shares its mix's operations in order.
        let iv = match JobTag::of_name(name).op {
            Some(op) => {
                let ops: Vec<(&str, &[fathom::Sample])> = jobs::meta_mix(&op)
                    .split(':')
                    .filter_map(|p| p.split('/').next())
                    .zip(g.iter())
                    .map(|(n, v)| (n, &v[..]))
                    .collect();
                report::iv_of_meta(&ops, k)
            }
            None => report::iv_of([&g[0], &g[1]], k).map(|mut iv| {
                // The operations an I/O job records beside its I/O (opens and closes,
                // deletes and creates), in their columns.
                let ops = c.op_samples.lock().unwrap_or_else(|e| e.into_inner());
                for (op, ss) in ops.iter() {
                    if let (Some(s), Some(col)) = (ss.get(k), report::meta_col(op)) {
                        iv.meta[col].0 += s.ios;
                        iv.meta[col].1 += s.clat_sum as f64;
                    }
                }
                iv
            }),
        };
        match iv {
            Some(iv) if iv.secs >= interval / 2.0 => line.add_side(&iv),
            _ => return None,
        }
    }
    // Over the interval, as the lines written after the run (see `intervals_of`).
    line.secs = line.secs.max(interval);
    Some(line)
}

/// The measured intervals of one run: all jobs, per SD, per WD.
struct Measured {
    all: Vec<Iv>,
    by_sd: BTreeMap<String, Vec<Iv>>,
    by_wd: BTreeMap<String, Vec<Iv>>,
}

fn side_by_side(into: &mut Vec<Iv>, add: &[Iv]) {
    if into.len() < add.len() {
        into.resize(add.len(), Iv::default());
    }
    for (a, b) in into.iter_mut().zip(add) {
        a.add_side(b);
    }
}

/// The average over intervals `first..=n` (1-based), as `avg_first-n`.
fn average(ivs: &[Iv], first: usize) -> (String, Iv) {
    let n = ivs.len();
    // The label names the intervals asked for even when the run had fewer (a format of
    // one interval is `avg_2-1`, as vdbench labels it); the figures are then those of
    // the intervals it had, as vdbench 5.04.06 prints them.
    let label = format!("avg_{first}-{n}");
    let from = if first > n { 1 } else { first.max(1) };
    let mut a = Iv::default();
    for iv in ivs.iter().skip(from - 1) {
        a.add_after(iv);
    }
    (label, a)
}

/// Every job's intervals summed (all, per SD, per WD), and the run's exit code: errors
/// and data validation failures are said and logged.
fn measure(
    ctx: &Ctx<'_>,
    run: &Run,
    name: &str,
    reports: &[fathom::Report],
) -> Result<(Measured, u8)> {
    let out = ctx.out;
    let mut meas = Measured {
        all: Vec::new(),
        by_sd: BTreeMap::new(),
        by_wd: BTreeMap::new(),
    };
    let mut code = 0u8;
    for j in reports.iter().flat_map(|r| r.jobs.iter()) {
        let tag = JobTag::of_name(&j.name);
        let planned = run.pace.elapsed + run.pace.warmup;
        let ivs = report::intervals_of(j, run.pace.interval, planned);
        side_by_side(&mut meas.all, &ivs);
        side_by_side(meas.by_sd.entry(tag.sd.clone()).or_default(), &ivs);
        side_by_side(meas.by_wd.entry(tag.wd.clone()).or_default(), &ivs);
        if let Some(op) = tag.op.as_deref().filter(|_| j.error_text.is_none()) {
            say_if_idle(out, name, &tag, op, j);
        }
        // A file-system run's job is an FWD's on an FSD.
        let (wd, sd) = match run.is_fs() {
            true => ("fwd", "fsd"),
            false => ("wd", "sd"),
        };
        if let Some(e) = &j.error_text {
            let msg = format!("rd={name} {wd}={} {sd}={}: {e}", tag.wd, tag.sd);
            out.say(&msg);
            out.log(&msg)?;
            out.append("errorlog.html", &format!("{msg}\n"))?;
            code = 1;
        }
        if let Some(v) = &j.stats.verify {
            for f in &v.first {
                let line = match run.is_fs() {
                    // (The error names the file.)
                    true => format!("Data Validation error: rd={name} fsd={}: {f}", tag.sd),
                    false => format!(
                        "Data Validation error: rd={name} sd={} lun={}: {f}",
                        tag.sd,
                        sd_lun(ctx.m, &tag.sd)
                    ),
                };
                out.say(&line);
                out.append("errorlog.html", &format!("{line}\n"))?;
                code = 1;
            }
            if v.failures > 0 {
                code = 1;
            }
        }
    }
    Ok((meas, code))
}

/// A metadata operation that found nothing to act on says why, rather than end its run
/// with zeros and nothing else.
fn say_if_idle(out: &Out, name: &str, tag: &JobTag, op: &str, j: &fathom::JobResult) {
    let own = j.stats.ops.first();
    if !own.is_some_and(|o| o.ops == 0 && o.skipped > 0) {
        return;
    }
    let why = match op {
        "mkdir" => "every directory exists already (or its parent does not)",
        "rmdir" => "no directory is empty (or none exists)",
        "create" => {
            "every file exists already, or its directory does not (make the \
             directories with operation=mkdir, or with format=)"
        }
        _ => "no file exists (create them with operation=create, or format=)",
    };
    out.say(&format!(
        "rd={name} fwd={} fsd={}: operation={op} did nothing: {why}",
        tag.wd, tag.sd
    ));
}

/// How the run was shown while it went on.
struct Shown<'a> {
    banner: &'a str,
    layout: Layout,
    /// Interval lines already printed.
    printed: usize,
    /// When the run started (ms since the epoch).
    started: u64,
}

/// Each interval's end as vdbench stamps its line (time of day, timestamp), from the
/// run's start and the intervals' lengths; the last is the run's average's.
fn interval_stamps(started: u64, ivs: &[Iv]) -> Vec<(String, String)> {
    let mut at = started as f64;
    // A run that ended early shows its short last interval over a whole one (vdbench's
    // rate), but stamped when it ended, not an interval on.
    let now = crate::report::now_ms() as f64;
    let mut out: Vec<(String, String)> = ivs
        .iter()
        .map(|iv| {
            at += iv.secs * 1000.0;
            stamps_at(at.min(now).round() as u64)
        })
        .collect();
    out.push(out.last().cloned().unwrap_or_else(now_stamps));
    out
}

/// The run's lines (the ones not yet printed, and its average) on the console, in the
/// summary, totals and flat file, and per SD and per WD; returns the average.
fn write_reports(
    ctx: &Ctx<'_>,
    run: &Run,
    name: &str,
    rate: RunRate,
    meas: &Measured,
    shown: &Shown<'_>,
) -> Result<Iv> {
    let (out, layout) = (ctx.out, shown.layout);
    let first = ((run.pace.warmup / run.pace.interval).round() as usize + 1).max(2);
    let facts = facts(run, name, rate, ctx.m);
    let mut text = layout.header();
    let mut console = if shown.printed == 0 {
        layout.header()
    } else {
        String::new()
    };
    let mut flat = String::new();
    // Each line stamped at its interval's end (not when the reports are written).
    let stamps = interval_stamps(shown.started, &meas.all);
    for (i, iv) in meas.all.iter().enumerate() {
        let (tod, stamp) = &stamps[i];
        let l = layout.line(tod, &(i + 1).to_string(), iv);
        if i >= shown.printed {
            console.push_str(&l);
        }
        text.push_str(&l);
        flat.push_str(&layout.flat_row(tod, stamp, &(i + 1).to_string(), &facts, iv));
    }
    let (label, avg) = average(&meas.all, first);
    let (tod0, stamp) = &stamps[meas.all.len()];
    let avg_line = layout.line(tod0, &label, &avg);
    text.push_str(&avg_line);
    console.push_str(&avg_line);
    flat.push_str(&layout.flat_row(tod0, stamp, &label, &facts, &avg));
    emit(&console);
    out.append("summary.html", &text)?;
    out.append("totals.html", &format!("{}{avg_line}", layout.header()))?;
    out.append("flatfile.html", &flat)?;
    for (what, map) in [("sd", &meas.by_sd), ("wd", &meas.by_wd)] {
        for (n, ivs) in map {
            let mut t = format!("\n{}{}", shown.banner, layout.header());
            let stamps = interval_stamps(shown.started, ivs);
            for (i, iv) in ivs.iter().enumerate() {
                t.push_str(&layout.line(&stamps[i].0, &(i + 1).to_string(), iv));
            }
            let (l, a) = average(ivs, first);
            t.push_str(&layout.line(&stamps[ivs.len()].0, &l, &a));
            // vdbench's report of an SD or WD is named after it (`sd1.html`); a name
            // that is one of the folder's own files keeps its kind in front.
            let file = if RESERVED.contains(&n.as_str()) {
                format!("{what}_{n}.html")
            } else {
                format!("{n}.html")
            };
            out.append(&file, &t)?;
        }
    }
    Ok(avg)
}

/// The output folder's own reports, which an SD or WD of the same name must not write into.
const RESERVED: &[&str] = &[
    "summary",
    "totals",
    "logfile",
    "parmfile",
    "flatfile",
    "histogram",
    "errorlog",
    "status",
    "skew",
    "parmscan",
    "localhost",
];

/// The run's response time histogram: reads, writes and metadata operations together.
fn write_histogram(out: &Out, banner: &str, reports: &[fathom::Report]) -> Result<()> {
    let mut lat = fathom::LatStat::new();
    for j in reports.iter().flat_map(|r| r.jobs.iter()) {
        for d in &j.stats.dirs[..2] {
            lat += &d.clat;
        }
        // A metadata job's requested operation.
        if let Some(o) = j.stats.ops.first() {
            lat += &o.lat;
        }
    }
    out.append(
        "histogram.html",
        &format!("\n{banner}{}", report::histogram(&lat)),
    )
}

/// The run's native fathom result, every host's jobs in one file.
fn write_native(out: &Out, run: &Run, name: &str, reports: Vec<fathom::Report>) -> Result<()> {
    // One file per run: a loop's runs are told apart by their values.
    let mut stem = name.to_string();
    for (k, v) in &run.loops {
        stem.push_str(&format!("_{k}={v}"));
    }
    // Each pass of loop= (or -l) keeps its own.
    if let Some(pass) = out.pass.get() {
        stem.push_str(&format!("_loop={pass}"));
    }
    let native = out
        .dir
        .join(format!("{}.fathom.json", stem.replace(['/', ' '], "_")));
    // Hosts side by side: their results add up (every job of every host kept).
    let whole = if reports.len() == 1 {
        reports.into_iter().next().expect("one report")
    } else {
        fathom::Report::merge(reports.into_iter().filter(|r| !r.jobs.is_empty()).collect())
            .map_err(|e| anyhow!("merging the hosts' results: {e}"))?
    };
    let mut f = std::fs::File::create(&native)?;
    fathom_report::native::write_with_repetitions(&whole, &[], &mut f)?;
    Ok(())
}

fn sd_lun(m: &Model, sd: &str) -> String {
    m.sds
        .iter()
        .find(|s| s.name == sd)
        .map_or_else(String::new, |s| s.lun.clone())
}

/// What the flat file says of a run, as vdbench reports it: each WD's requested
/// xfersize (the first of its list), rdpct, rhpct, whpct and seekpct, or n/a where the
/// WDs differ; the threads the RD asks for, or the SDs' (-1 where they differ).
fn facts(run: &Run, name: &str, rate: RunRate, m: &Model) -> RunFacts {
    use crate::model::{Seek, Xfer};
    fn same<T: PartialEq + Copy>(mut it: impl Iterator<Item = Option<T>>) -> Option<T> {
        let first = it.next()??;
        it.all(|v| v == Some(first)).then_some(first)
    }
    let first_size = |x: &Xfer| match x {
        Xfer::Fixed(n) | Xfer::Range(n, _, _) => Some(*n),
        Xfer::Split(v) => v.first().map(|p| p.0),
    };
    let seek = |s: &Seek| match s {
        Seek::Seq => Some(0.0),
        Seek::Eof => None,
        Seek::Pct(p) => Some(*p),
    };
    let wds = &run.wds;
    let threads = match wds.first().and_then(|w| w.p.threads) {
        Some(t) => i64::from(t),
        None if wds.is_empty() => run.fwds.first().map_or(1, |f| i64::from(f.p.threads)),
        None => {
            let mut sds = wds.iter().flat_map(|w| w.sds.iter().map(|s| s.threads));
            let first = sds.next().map_or(-1, i64::from);
            if sds.all(|t| i64::from(t) == first) {
                first
            } else {
                -1
            }
        }
    };
    let mut lun = 0u64;
    let mut seen = std::collections::HashSet::new();
    for w in &run.wds {
        for s in &w.sds {
            if seen.insert(s.name.clone()) {
                lun += s.size.or_else(|| jobs::lun_size(&s.lun)).unwrap_or(0);
            }
        }
    }
    for f in &run.fwds {
        for s in &f.fsds {
            if seen.insert(s.name.clone()) {
                lun += crate::tree::file_list(s).iter().map(|x| x.1).sum::<u64>();
            }
        }
    }
    RunFacts {
        run: name.to_string(),
        // vdbench's stand-ins for an uncontrolled rate (its MAX_RATE and CURVE_RATE).
        reqrate: match rate {
            RunRate::Fixed(r) => r,
            RunRate::Max => 9_999_988.0,
            RunRate::Curve => 9_999_977.0,
        },
        xfersize: same(wds.iter().map(|w| first_size(&w.p.xfer))),
        threads,
        rdpct: same(wds.iter().map(|w| Some(w.p.rdpct))),
        rhpct: same(wds.iter().map(|w| Some(w.p.rhpct))),
        whpct: same(wds.iter().map(|w| Some(w.p.whpct))),
        seekpct: same(wds.iter().map(|w| seek(&w.p.seek))),
        lunsize: lun as f64 / (1u64 << 30) as f64,
        compratio: run
            .wds
            .first()
            .and_then(|w| w.p.compratio)
            .unwrap_or(m.general.compratio),
        dedupratio: (m.general.dedupratio > 1.0).then_some(m.general.dedupratio),
    }
}

/// Build, check or clean the run's trees as its format= says (with many hosts: rank 0
/// cleans, then each host builds or checks its share of the files); false when the run
/// is over after that (format=only, clean).
fn prepare_trees(ctx: &Ctx<'_>, run: &Run) -> Result<bool> {
    let out = ctx.out;
    let xfer = run.format_fwd.as_ref().map_or(128 << 10, |f| f.xfer.max());
    let threads = run.format_fwd.as_ref().map_or(1, |f| f.threads as usize);
    let shares = jobs::fsd_shares(run, ctx.place)?;
    let mut fsds: Vec<&crate::model::Fsd> = Vec::new();
    for f in run.fwds.iter().flat_map(|w| w.fsds.iter()) {
        if !fsds.iter().any(|x| x.name == f.name) {
            fsds.push(f);
        }
    }
    let barrier = || {
        if let Some(c) = ctx.cluster {
            c.barrier();
        }
    };
    if matches!(run.pace.format, Format::Clean | Format::Yes | Format::Only) {
        if ctx.place.rank == 0 {
            for f in &fsds {
                crate::tree::clean(f)?;
            }
        }
        barrier();
        // Data validation: what the cleaned files held is forgotten (each host's maps).
        if ctx.jo.validate {
            ctx.jo.key_maps.with(|m| {
                m.retain(|p, _| {
                    !fsds
                        .iter()
                        .any(|f| p.starts_with(std::path::Path::new(&f.anchor)))
                })
            });
        }
    }
    // vdbench reports a format as a run of its own, format_for_RD (one host: with many,
    // each builds its share unreported).
    let building = matches!(
        run.pace.format,
        Format::Yes | Format::Only | Format::Restart | Format::RestartOnly
    );
    let rec = (building && ctx.cluster.is_none()).then(|| {
        let cpu: Mutex<Cpu> = Mutex::new((Vec::new(), cpu_ticks()));
        (
            report::Recorder::new(run.pace.interval),
            cpu,
            crate::report::now_ms(),
        )
    });
    // Data validation's keyed format jobs.
    let mut keyed = fathom::Report::default();
    for f in &fsds {
        let mine = jobs::my_files(f, &shares, ctx.place.rank);
        // Reads and writes need the files; metadata operations work on what is there.
        let data = run.fwds.iter().any(|w| {
            w.fsds.iter().any(|x| x.name == f.name)
                && w.p.operations.iter().any(|o| o == "read" || o == "write")
        });
        match run.pace.format {
            Format::No if data => crate::tree::check(f, &mine)?,
            Format::No => crate::tree::anchor(f, ctx.m.general.create_anchors)?,
            Format::Clean => {}
            Format::Yes | Format::Only | Format::Restart | Format::RestartOnly => {
                // With data validation the files are written by keyed jobs (their
                // blocks known to the runs after).
                let b = crate::tree::build(
                    f,
                    &mine,
                    (xfer, threads),
                    (ctx.m.general.create_anchors, !ctx.jo.validate),
                    ctx.jo.pattern.as_deref(),
                    rec.as_ref().map(|r| &r.0),
                )?;
                if ctx.jo.validate && !b.unwritten.is_empty() {
                    let rec = rec.as_ref().map(|r| &r.0);
                    let r = keyed_format(ctx, run, f, &b.unwritten, (xfer, threads), rec)?;
                    keyed.jobs.extend(r.jobs);
                }
                let what = if matches!(run.pace.format, Format::Yes | Format::Only) {
                    "format"
                } else {
                    "format=restart"
                };
                let msg = format!(
                    "fsd={}: {what} made {} directories and {} files ({} bytes)",
                    f.name, b.dirs, b.files, b.bytes
                );
                out.say(&msg);
                out.log(&msg)?;
            }
        }
    }
    barrier();
    if let Some((rec, cpu, started)) = rec {
        tick(&cpu);
        format_report(ctx, run, &rec, &cpu, started)?;
        if ctx.jo.validate && !keyed.jobs.is_empty() {
            dv_counters(ctx, run, &[keyed], true)?;
        }
    }
    Ok(matches!(
        run.pace.format,
        Format::No | Format::Yes | Format::Restart
    ))
}

/// The format's own run, as vdbench reports it: `Starting RD=format_for_RD`, its
/// interval lines (the writes its requested operations; directories made, files created,
/// opened and closed in their columns) and average, in the console, summary, totals and
/// flat file.
fn format_report(
    ctx: &Ctx<'_>,
    run: &Run,
    rec: &report::Recorder,
    cpu: &Mutex<Cpu>,
    started: u64,
) -> Result<()> {
    let out = ctx.out;
    let name = format!("format_for_{}", run.rd);
    let (tod, _) = now_stamps();
    let banner = format!("{tod} Starting RD={name}\n");
    if !out.quiet {
        emit(&format!("\n{banner}"));
    }
    out.append("summary.html", &format!("\n{banner}"))?;
    out.append("totals.html", &format!("\n{banner}"))?;
    out.log(&banner.trim_end()[13..])?;
    let mut all = rec.finish();
    // The machine's CPU over the format, in each of its lines.
    let use_cpu = cpu
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .first()
        .copied();
    for iv in &mut all {
        iv.cpu = use_cpu;
    }
    let meas = Measured {
        all,
        by_sd: BTreeMap::new(),
        by_wd: BTreeMap::new(),
    };
    let shown = Shown {
        banner: &banner,
        layout: Layout::of(run, ctx),
        printed: 0,
        started,
    };
    write_reports(ctx, run, &name, RunRate::Max, &meas, &shown)?;
    misc_statistics(ctx, run, &meas.all, None)?;
    Ok(())
}

/// vdbench's `Miscellaneous statistics` after a file-system run (its format's too), on
/// the console and in the log: the operations' counts over the run's intervals (opens
/// split by what the file was opened for: a format's and a writing FWD's for write,
/// as vdbench's write opens are for operation=write or any rdpct=), and the draws of a
/// busy file (`reports`: the run's jobs; None for a format).
fn misc_statistics(
    ctx: &Ctx<'_>,
    run: &Run,
    all: &[Iv],
    reports: Option<&[fathom::Report]>,
) -> Result<()> {
    let col = |name: &str| report::meta_col(name).expect("a metadata column");
    let total = |name: &str| all.iter().map(|iv| iv.meta[col(name)].0).sum::<u64>();
    let opens = total("open");
    let mut read_opens = 0;
    let mut busy = 0;
    for j in reports
        .unwrap_or_default()
        .iter()
        .flat_map(|r| r.jobs.iter())
    {
        busy += j.stats.file_busy;
        let tag = JobTag::of_name(&j.name);
        let Some(f) = run.fwds.iter().find(|f| f.name == tag.wd) else {
            continue;
        };
        let reads = match tag.op.as_deref() {
            Some(op) => op == "open",
            None => f.p.rdpct.is_none() && f.p.operations.first().is_none_or(|o| o == "read"),
        };
        if reads {
            read_opens += j
                .stats
                .ops
                .iter()
                .filter(|o| o.name == "open")
                .map(|o| o.samples.iter().map(|s| s.ios).sum::<u64>())
                .sum::<u64>();
        }
    }
    let read_opens = read_opens.min(opens);
    let counts: Vec<u64> = report::MISC_COUNTERS
        .iter()
        .map(|(name, _, column)| match (*name, column) {
            ("READ_OPENS", _) => read_opens,
            ("WRITE_OPENS", _) => opens - read_opens,
            ("FILE_BUSY", _) => busy,
            ("GET_ATTR", _) => total("getattr") + total("access"),
            (_, Some(c)) => total(c),
            (_, None) => 0,
        })
        .collect();
    let (tod, _) = now_stamps();
    let secs = (run.pace.interval.round() as u64).max(1);
    let block = report::misc_statistics(&tod, &counts, all.len() as u64, secs);
    emit(&block);
    for line in block.lines() {
        ctx.out.log(line.get(13..).unwrap_or(""))?;
    }
    Ok(())
}

/// Data validation's format: `files` (made at their lengths) written whole through keyed
/// jobs on the format's threads, so the runs after know every block's key; their report.
fn keyed_format(
    ctx: &Ctx<'_>,
    run: &Run,
    fsd: &crate::model::Fsd,
    files: &[(std::path::PathBuf, u64)],
    (xfer, threads): (u64, usize),
    rec: Option<&report::Recorder>,
) -> Result<fathom::Report> {
    let specs = jobs::dv_format_jobs(fsd, files, (xfer, threads), ctx.jo, run.pace.interval)?;
    let from = rec.map_or(0, |r| r.now_interval());
    let report = crate::stop::run(fathom::Runner::new(specs))
        .map_err(|e| anyhow!("rd={} fsd={}: format: {e}", run.rd, fsd.name))?;
    if let Some(e) = report.jobs.iter().find_map(|j| j.error_text.as_ref()) {
        bail!("rd={} fsd={}: format: {e}", run.rd, fsd.name);
    }
    // The keyed writes in the format's report, from the interval they started in.
    if let Some(r) = rec {
        for j in &report.jobs {
            r.add(from, &report::intervals_of(j, run.pace.interval, 0.0));
        }
    }
    Ok(report)
}
