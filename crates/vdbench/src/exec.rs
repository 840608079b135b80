//! Running the runs: each as fathom jobs, its intervals printed as vdbench prints them,
//! and the output folder written as it goes (summary, totals, flat file, histograms,
//! per-SD and per-WD reports, the error log, and each run's native fathom result).

use crate::jobs::{self, JobOpts, JobTag, Place};
use crate::model::{Format, Model};
use crate::report::{self, Iv, RunFacts};
use crate::runs::{Run, RunRate};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Many hosts: what the MPI build gives the vdbench front end (one rank per `hd=`).
pub use fathom::Cluster;

/// Journal handling (`-j`, `-jr`, `-jn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JournalMode {
    /// No journal.
    #[default]
    Off,
    /// Journal each validated write (`-j`, `-jn`).
    On,
    /// Check the journals of an earlier run first, then go on journalling (`-jr`).
    Recover,
}

/// What the command line asked for.
#[derive(Debug, Clone, Default)]
pub struct ExecOpts {
    /// The output folder.
    pub out: PathBuf,
    /// Validate data.
    pub validate: bool,
    /// Journal.
    pub journal: JournalMode,
    /// Delete file-system trees first (`-c`).
    pub clean_first: bool,
    /// Engine for raw runs (None: io_uring when the kernel has it, else libaio).
    pub ioengine: Option<String>,
}

/// Write to stdout now; a closed stdout (`| head`) does not stop the run.
pub fn emit(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// Local time of day and a timestamp, as vdbench stamps lines.
fn now_stamps() -> (String, String) {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64;
    let tod = format!(
        "{}.{:03}",
        fathom_report::units::local_time(ms, c"%H:%M:%S"),
        ms % 1000
    );
    (
        tod,
        fathom_report::units::local_time(ms, c"%m/%d/%Y-%H:%M:%S"),
    )
}

/// /proc/stat's busy and system jiffies and the total.
fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let s = std::fs::read_to_string("/proc/stat").ok()?;
    let l = s.lines().next()?;
    let v: Vec<u64> = l
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    if v.len() < 5 {
        return None;
    }
    let total: u64 = v.iter().take(8).sum();
    let idle = v[3] + v[4];
    Some((total - idle, v[2], total))
}

struct Out {
    dir: PathBuf,
    /// Not rank 0: nothing is printed or written.
    quiet: bool,
}

impl Out {
    fn say(&self, text: &str) {
        if !self.quiet {
            emit(&format!("{text}\n"));
        }
    }
    fn append(&self, name: &str, text: &str) -> Result<()> {
        if self.quiet {
            return Ok(());
        }
        let p = self.dir.join(name);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .with_context(|| format!("writing {}", p.display()))?;
        f.write_all(text.as_bytes())?;
        Ok(())
    }
    fn log(&self, text: &str) -> Result<()> {
        let (tod, _) = now_stamps();
        self.append("logfile.html", &format!("{tod} {text}\n"))
    }
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
    let first = first.min(n).max(1);
    let mut a = Iv::default();
    for iv in &ivs[first - 1..] {
        a.add_after(iv);
    }
    (format!("avg_{first}-{n}"), a)
}

/// The hostfile lines for `mpirun --hostfile` from the hd list (one slot per host, in
/// rank order).
pub fn hostfile(m: &Model) -> String {
    m.hds
        .iter()
        .map(|h| {
            format!(
                "{} slots=1\n",
                h.system.clone().unwrap_or_else(|| h.name.clone())
            )
        })
        .collect()
}

/// Run everything; returns the exit code.
pub fn execute(
    m: &Model,
    runs: &[Run],
    parm_text: &str,
    o: &ExecOpts,
    cluster: Option<&dyn Cluster>,
) -> Result<u8> {
    let place = match cluster {
        Some(c) if m.hds.len() > 1 => {
            if c.size() as usize != m.hds.len() {
                bail!(
                    "the parameter file names {} hosts (hd=) but mpirun started {} ranks: \
                     use mpirun -np {} (one rank per hd, in their order)",
                    m.hds.len(),
                    c.size(),
                    m.hds.len()
                );
            }
            if o.journal != JournalMode::Off {
                bail!("-j/-jr with many hosts are not implemented: journal each host's run on its own, or use -v");
            }
            Place {
                rank: c.rank(),
                hosts: m.hds.iter().map(|h| h.name.clone()).collect(),
            }
        }
        Some(c) if c.size() > 1 => bail!(
            "started under mpirun with {} ranks, but the parameter file names {} host(s): \
             a many-host run has one hd= per rank",
            c.size(),
            m.hds.len()
        ),
        _ if m.hds.len() > 1 => {
            let systems: Vec<String> = m
                .hds
                .iter()
                .map(|h| h.system.clone().unwrap_or_else(|| h.name.clone()))
                .collect();
            bail!(
                "this parameter file names {n} hosts (hd=): run it on fathom's MPI build, one rank \
                 per hd in their order: `fathom vdbench --hostfile -f FILE > hosts` writes the \
                 hostfile, then `mpirun --hostfile hosts -np {n} fathom vdbench -f FILE` \
                 (hosts: {})",
                systems.join(" "),
                n = m.hds.len()
            );
        }
        _ => Place::default(),
    };
    let cl = cluster.filter(|_| !place.hosts.is_empty());
    if place.rank == 0 {
        std::fs::create_dir_all(&o.out).with_context(|| format!("creating {}", o.out.display()))?;
    }
    for f in [
        "summary.html",
        "totals.html",
        "logfile.html",
        "flatfile.html",
        "histogram.html",
        "errorlog.html",
        "parmfile.html",
    ] {
        if place.rank == 0 {
            let _ = std::fs::remove_file(o.out.join(f));
        }
    }
    let out = Out {
        dir: o.out.clone(),
        quiet: place.rank != 0,
    };
    out.append("parmfile.html", parm_text)?;
    let mut flat_head = String::from("* fathom vdbench flat file: one row per interval and one per run average (Interval avg_F-N).\n");
    flat_head.push_str(&report::FLAT_COLUMNS.join(" "));
    flat_head.push('\n');
    out.append("flatfile.html", &flat_head)?;
    out.log(&format!(
        "fathom {} vdbench front end; output directory {}",
        fathom::VERSION,
        o.out.display()
    ))?;
    let ioengine = o.ioengine.clone().unwrap_or_else(|| {
        let ok = fathom::engine::create("io_uring")
            .ok()
            .is_some_and(|e| e.probe().is_ok());
        if ok { "io_uring" } else { "libaio" }.to_string()
    });
    out.log(&format!(
        "raw I/O through ioengine={ioengine}; an SD's threads= are its I/Os in flight"
    ))?;
    let journal_dir = match (o.journal, &m.general.journal) {
        (JournalMode::Off, _) => None,
        (_, Some(d)) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => Some(o.out.join("journal")),
    };
    let validate = o.validate || m.general.validate || journal_dir.is_some();
    // The journal folders: the run's, and any SD's own journal=.
    let mut journal_dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = &journal_dir {
        journal_dirs.push(d.clone());
        for sd in &m.sds {
            if let Some(j) = &sd.journal {
                if !journal_dirs.contains(&PathBuf::from(j)) {
                    journal_dirs.push(PathBuf::from(j));
                }
            }
        }
    }
    for d in &journal_dirs {
        std::fs::create_dir_all(d)
            .with_context(|| format!("creating journal folder {}", d.display()))?;
    }
    let jo = JobOpts {
        ioengine,
        validate,
        journal: journal_dir.clone(),
        data_errors: m.general.data_errors,
        compratio: m.general.compratio,
        dedup: match (m.general.dedupratio, m.general.dedupunit) {
            (r, _) if r <= 1.0 => None,
            (r, Some(u)) => Some((r, u, m.general.dedupsets, m.general.dedupsets_pct)),
            (_, None) => bail!(
                "dedupratio={} needs dedupunit= (the block size dedup matches on, e.g. dedupunit=8k)",
                m.general.dedupratio
            ),
        },
    };
    let mut code = 0u8;
    if o.journal == JournalMode::Recover {
        code = code.max(recover(&journal_dirs, &out)?);
        if code != 0 {
            out.say(&format!(
                "fathom vdbench: journal recovery found data errors: see {}",
                o.out.join("errorlog.html").display()
            ));
            return Ok(code);
        }
    }
    if o.clean_first && place.rank == 0 {
        for f in &m.fsds {
            crate::tree::clean(f)?;
        }
    }
    if let Some(c) = cl {
        c.barrier();
    }
    if let Some(c) = &m.general.startcmd {
        if place.rank == 0 {
            shell(c, &out)?;
        }
    }
    let ctx = Ctx {
        m,
        jo: &jo,
        out: &out,
        place: &place,
        cluster: cl,
    };
    // A stop is agreed before each run and curve point: a rank stopped alone (a signal to
    // one process) stops every rank there, rather than leaving them at the next barrier.
    let stop_agreed = || {
        let mine = crate::stop::stopped();
        let any = cl.map_or(mine, |c| c.any(mine));
        if any && !mine {
            fathom_suites::stop::request();
        }
        any
    };
    for run in runs {
        if stop_agreed() {
            break;
        }
        match run.rate {
            RunRate::Curve => {
                let max = one_run(&ctx, run, &run.rd, RunRate::Curve)?;
                code = code.max(max.1);
                // Every host holds the rate rank 0 measured.
                let max_rate = cl.map_or(max.0, |c| c.broadcast(max.0));
                for p in &run.pace.curve {
                    if stop_agreed() {
                        break;
                    }
                    let target = round_rate(max_rate * p / 100.0);
                    let name = format!("{}_({}%)", run.rd, crate::value::show_num(*p));
                    let (_, c, resp) = one_run(&ctx, run, &name, RunRate::Fixed(target))?;
                    code = code.max(c);
                    let resp = cl.map_or(resp, |c| c.broadcast(resp));
                    if let Some(stop) = run.pace.stopcurve {
                        if resp > stop {
                            let msg = format!("curve stopped: requested stopcurve={stop:.3} with observed response time of {resp:.3} ms");
                            out.say(&msg);
                            out.log(&msg)?;
                            break;
                        }
                    }
                }
            }
            r => {
                let (_, c, _) = one_run(&ctx, run, &run.rd, r)?;
                code = code.max(c);
            }
        }
        if run.pace.pause > 0.0 && !crate::stop::stopped() {
            std::thread::sleep(Duration::from_secs_f64(run.pace.pause));
        }
    }
    if crate::stop::stopped() {
        // Interrupted (here or, agreed, on another host): as fathom's own runs.
        code = code.max(130);
    }
    if let Some(c) = cl {
        code = c.broadcast(code as f64) as u8;
    }
    if let Some(c) = &m.general.endcmd {
        if place.rank == 0 {
            shell(c, &out)?;
        }
    }
    let (tod, _) = now_stamps();
    let how = if code == 0 {
        "completed successfully"
    } else {
        "completed with errors"
    };
    out.say(&format!(
        "{tod} fathom vdbench {how}. Output directory: {}",
        o.out.display()
    ));
    out.log(how)?;
    Ok(code)
}

/// vdbench rounds a curve point's rate: to hundreds above 1000, tens above 100.
fn round_rate(r: f64) -> f64 {
    if r >= 1000.0 {
        (r / 100.0).round() * 100.0
    } else if r >= 100.0 {
        (r / 10.0).round() * 10.0
    } else {
        r.round().max(1.0)
    }
}

fn shell(cmd: &str, out: &Out) -> Result<()> {
    out.log(&format!("running: {cmd}"))?;
    let st = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .status()?;
    if !st.success() {
        bail!("'{cmd}' failed ({st})");
    }
    Ok(())
}

/// `-jr`: check every journal of the folder (what the journal says was acknowledged is
/// read back and checked).
fn recover(dirs: &[PathBuf], out: &Out) -> Result<u8> {
    let mut journals: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        journals.extend(
            std::fs::read_dir(dir)
                .with_context(|| format!("-jr: reading journal folder {}", dir.display()))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jnl")),
        );
    }
    journals.sort();
    if journals.is_empty() {
        bail!(
            "-jr: no journals (*.jnl) in {}; write them with -j first",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut bad = 0usize;
    for j in &journals {
        let r = fathom::journal::check(j).map_err(|e| anyhow!("-jr: {e}"))?;
        let msg = format!(
            "journal recovery {}: {} blocks ({} bytes) checked, {} in flight at the end, {} errors",
            j.display(),
            r.checked,
            r.bytes,
            r.in_flight,
            r.failures.len()
        );
        emit(&format!("{msg}\n"));
        out.log(&msg)?;
        for f in &r.failures {
            let line = format!("Data Validation error: {f}");
            emit(&format!("{line}\n"));
            out.append("errorlog.html", &format!("{line}\n"))?;
        }
        bad += r.failures.len();
    }
    Ok(if bad > 0 { 1 } else { 0 })
}

/// One run (or curve point): jobs, the run itself, its report. Returns its average rate,
/// its exit code, and its average response time in ms.
/// What every run of an execution shares.
struct Ctx<'a> {
    m: &'a Model,
    jo: &'a JobOpts,
    out: &'a Out,
    place: &'a Place,
    cluster: Option<&'a dyn Cluster>,
}

fn one_run(ctx: &Ctx<'_>, run: &Run, name: &str, rate: RunRate) -> Result<(f64, u8, f64)> {
    let (m, jo, out) = (ctx.m, ctx.jo, ctx.out);
    let (tod, _) = now_stamps();
    let rate_text = match rate {
        RunRate::Max => "Uncontrolled MAX".to_string(),
        RunRate::Curve => "Uncontrolled curve".to_string(),
        RunRate::Fixed(r) => crate::value::show_num(r),
    };
    let warm = if run.pace.warmup > 0.0 {
        format!(" warmup={}", crate::value::show_num(run.pace.warmup))
    } else {
        String::new()
    };
    let banner = format!(
        "{tod} Starting RD={name}; I/O rate: {rate_text}; elapsed={}{warm}{}\n",
        crate::value::show_num(run.pace.elapsed),
        run.loop_text()
    );
    if run.is_fs() && !prepare_trees(ctx, run)? {
        return Ok((0.0, 0, 0.0));
    }
    let specs: Vec<(fathom::JobSpec, JobTag)> = if run.is_fs() {
        jobs::fs_jobs(run, rate, jo, ctx.place)?
    } else {
        jobs::raw_jobs(run, rate, jo, ctx.place)?
    };
    if matches!(rate, RunRate::Max | RunRate::Curve)
        && run.wds.len() > 1
        && run.wds.iter().any(|w| w.p.skew.is_some())
    {
        let msg = "note: skew= is held only at a fixed iorate; at iorate=max each WD runs uncapped";
        out.say(msg);
        out.log(msg)?;
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
    let set: Vec<fathom::JobSpec> = specs
        .into_iter()
        .map(|mut s| {
            s.0.control.live_samples = live;
            s.0
        })
        .collect();
    // Every host starts the run together.
    if let Some(c) = ctx.cluster {
        c.barrier();
    }
    // Machine CPU per interval: read when each interval's line is due.
    type Cpu = (Vec<(f64, f64)>, Option<(u64, u64, u64)>);
    let cpu: Arc<Mutex<Cpu>> = Arc::new(Mutex::new((Vec::new(), cpu_ticks())));
    let tick = |c: &Mutex<Cpu>| {
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
    };
    // The line layout: vdbench's file-system layout for FSD runs, else the raw one.
    let fs = run.is_fs();
    let extra = run
        .fwds
        .iter()
        .flat_map(|f| f.p.operations.iter())
        .any(|o| matches!(o.as_str(), "access" | "copy" | "move"));
    let header = move || {
        if fs {
            report::fs_header(extra)
        } else {
            report::header()
        }
    };
    let fmt_line = move |tod: &str, label: &str, iv: &Iv| {
        if fs {
            report::fs_line(tod, label, iv, extra)
        } else {
            report::line(tod, label, iv)
        }
    };
    // Lines printed while the run went on.
    let printed = Arc::new(Mutex::new(0usize));
    let report = if set.is_empty() {
        // A host with no work in this run (its SDs or FWDs are elsewhere).
        fathom::Report::default()
    } else {
        let mut runner = fathom::Runner::new(set);
        // Many hosts: a host stopped alone tells the others, which stop this run too.
        if let Some(s) = ctx.cluster.and_then(|c| c.stop_signals()) {
            runner = fathom::cluster::stop_with_peers(runner, s);
        }
        let plan = runner.plan().map_err(|e| anyhow!("rd={name}: {e}"))?;
        let board = runner.live_board(&plan);
        let (seen, done) = (cpu.clone(), printed.clone());
        let interval = run.pace.interval;
        let period = Duration::from_secs_f64(if live {
            (interval / 10.0).min(0.1)
        } else {
            interval
        });
        let runner = runner.on_interval(period, move |_| {
            if !live {
                tick(&seen);
                return;
            }
            let mut k = done.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                // Interval k is complete once every clone has it.
                let mut line = Iv::default();
                let mut ready = true;
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
                            report::iv_of_meta(&ops, *k)
                        }
                        None => report::iv_of([&g[0], &g[1]], *k),
                    };
                    match iv {
                        Some(iv) if iv.secs >= interval / 2.0 => line.add_side(&iv),
                        _ => {
                            ready = false;
                            break;
                        }
                    }
                }
                if !ready {
                    break;
                }
                tick(&seen);
                line.cpu = seen
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .0
                    .last()
                    .copied();
                let (tod, _) = now_stamps();
                let mut text = String::new();
                if *k == 0 {
                    text.push_str(&header());
                }
                text.push_str(&fmt_line(&tod, &(*k + 1).to_string(), &line));
                emit(&text);
                *k += 1;
            }
        });
        crate::stop::run(runner).map_err(|e| anyhow!("rd={name}: {e}"))?
    };
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
    let mut meas = Measured {
        all: Vec::new(),
        by_sd: BTreeMap::new(),
        by_wd: BTreeMap::new(),
    };
    let mut code = 0u8;
    for j in reports.iter().flat_map(|r| r.jobs.iter()) {
        let tag = JobTag::of_name(&j.name);
        let ivs = report::intervals_of(j, run.pace.interval);
        side_by_side(&mut meas.all, &ivs);
        side_by_side(meas.by_sd.entry(tag.sd.clone()).or_default(), &ivs);
        side_by_side(meas.by_wd.entry(tag.wd.clone()).or_default(), &ivs);
        if let Some(op) = tag.op.as_deref().filter(|_| j.error_text.is_none()) {
            // A metadata operation that found nothing to act on says why, rather than
            // end its run with zeros and nothing else.
            let own = j.stats.ops.first();
            if own.is_some_and(|o| o.ops == 0 && o.skipped > 0) {
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
        }
        if let Some(e) = &j.error_text {
            let msg = format!("rd={name} wd={} sd={}: {e}", tag.wd, tag.sd);
            out.say(&msg);
            out.log(&msg)?;
            out.append("errorlog.html", &format!("{msg}\n"))?;
            code = 1;
        }
        if let Some(v) = &j.stats.verify {
            for f in &v.first {
                let line = format!(
                    "Data Validation error: rd={name} sd={} lun={}: {f}",
                    tag.sd,
                    sd_lun(m, &tag.sd)
                );
                out.say(&line);
                out.append("errorlog.html", &format!("{line}\n"))?;
                code = 1;
            }
            if v.failures > 0 {
                code = 1;
            }
        }
    }
    for (i, iv) in meas.all.iter_mut().enumerate() {
        iv.cpu = cpu.get(i).copied();
    }
    let first = ((run.pace.warmup / run.pace.interval).round() as usize + 1).max(2);
    let facts = facts(run, name, rate, m);
    let mut text = header();
    let mut console = if printed == 0 {
        header()
    } else {
        String::new()
    };
    let mut flat = String::new();
    let (tod0, stamp) = now_stamps();
    for (i, iv) in meas.all.iter().enumerate() {
        let l = fmt_line(&tod0, &(i + 1).to_string(), iv);
        if i >= printed {
            console.push_str(&l);
        }
        text.push_str(&l);
        flat.push_str(&report::flat_row(
            &tod0,
            &stamp,
            &(i + 1).to_string(),
            &facts,
            iv,
        ));
    }
    let (label, avg) = average(&meas.all, first);
    let avg_line = fmt_line(&tod0, &label, &avg);
    text.push_str(&avg_line);
    console.push_str(&avg_line);
    flat.push_str(&report::flat_row(&tod0, &stamp, &label, &facts, &avg));
    emit(&console);
    out.append("summary.html", &text)?;
    out.append("totals.html", &format!("{}{avg_line}", header()))?;
    out.append("flatfile.html", &flat)?;
    for (what, map) in [("sd", &meas.by_sd), ("wd", &meas.by_wd)] {
        for (n, ivs) in map {
            let mut t = format!("\n{banner}{}", header());
            for (i, iv) in ivs.iter().enumerate() {
                t.push_str(&fmt_line(&tod0, &(i + 1).to_string(), iv));
            }
            let (l, a) = average(ivs, first);
            t.push_str(&fmt_line(&tod0, &l, &a));
            out.append(&format!("{what}_{n}.html"), &t)?;
        }
    }
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
    )?;
    // One file per run: a loop's runs are told apart by their values.
    let mut stem = name.to_string();
    for (k, v) in &run.loops {
        stem.push_str(&format!("_{k}={v}"));
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
    Ok((avg.rate(), code, avg.resp()[0]))
}

fn sd_lun(m: &Model, sd: &str) -> String {
    m.sds
        .iter()
        .find(|s| s.name == sd)
        .map_or_else(String::new, |s| s.lun.clone())
}

fn facts(run: &Run, name: &str, rate: RunRate, m: &Model) -> RunFacts {
    let (xfer, rdpct, rh, wh, seek) = match run.wds.first() {
        Some(w) => (
            w.p.xfer.mean(),
            w.p.rdpct,
            w.p.rhpct,
            w.p.whpct,
            w.p.seek.show(),
        ),
        None => match run.fwds.first() {
            Some(f) => (
                f.p.xfer.mean(),
                f.p.rdpct.unwrap_or(if f.p.operations[0] == "read" {
                    100.0
                } else {
                    0.0
                }),
                0.0,
                0.0,
                if f.p.fileio_random {
                    "100".into()
                } else {
                    "0".into()
                },
            ),
            None => (0.0, 0.0, 0.0, 0.0, String::new()),
        },
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
        reqrate: match rate {
            RunRate::Fixed(r) => r,
            _ => 0.0,
        },
        xfersize: xfer,
        threads: run.threads(),
        rdpct,
        rhpct: rh,
        whpct: wh,
        seekpct: seek,
        lunsize: lun as f64 / (1u64 << 30) as f64,
        compratio: run
            .wds
            .first()
            .and_then(|w| w.p.compratio)
            .unwrap_or(m.general.compratio),
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
    }
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
                let b =
                    crate::tree::build(f, &mine, (xfer, threads), ctx.m.general.create_anchors)?;
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
    Ok(matches!(
        run.pace.format,
        Format::No | Format::Yes | Format::Restart
    ))
}
