//! Running the runs: each as fathom jobs, its intervals printed as vdbench prints them,
//! and the output folder written as it goes (summary, totals, flat file, histograms,
//! per-SD and per-WD reports, the error log, and each run's native fathom result).

mod one;
mod showlba;

use crate::jobs::{JobOpts, Place};
use crate::model::{LoopSpec, Model};
use crate::report;
use crate::runs::{Run, RunRate};
use anyhow::{anyhow, bail, Context, Result};
use one::one_run;
use std::io::Write;
use std::path::PathBuf;
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
    /// `-vw`, `-vr`.
    pub dv_reads: crate::model::DvReads,
    /// Journal.
    pub journal: JournalMode,
    /// Delete file-system trees first (`-c`).
    pub clean_first: bool,
    /// Engine for raw runs (None: io_uring when the kernel has it, else libaio).
    pub ioengine: Option<String>,
    /// Lines said (and logged) before the first run, each with its time of day.
    pub notes: Vec<String>,
}

/// Write to stdout now; a closed stdout (`| head`) does not stop the run.
pub fn emit(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// Local time of day and a timestamp, as vdbench stamps lines.
fn now_stamps() -> (String, String) {
    stamps_at(crate::report::now_ms())
}

/// [`now_stamps`] of a moment (ms since the epoch); the timestamp with its zone, as
/// vdbench's flat file writes it (`11/28/2026-18:59:22-UTC`).
fn stamps_at(ms: u64) -> (String, String) {
    let tod = format!(
        "{}.{:03}",
        fathom_report::units::local_time(ms, c"%H:%M:%S"),
        ms % 1000
    );
    (
        tod,
        fathom_report::units::local_time(ms, c"%m/%d/%Y-%H:%M:%S-%Z"),
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
    /// The pass of `loop=` (or `-l`) under way; None without one.
    pass: std::cell::Cell<Option<u64>>,
}

/// What stops a run or the whole execution from outside, read as each interval ends:
/// `monitor=FILE` (its first line `end_rd` or `shutdown` ends the run under way,
/// `end_vdbench` or `terminate` ends the execution; the file is emptied after each) and
/// vdbench's `/tmp/vdbench.shutdown.PID` (its presence ends the execution).
pub(crate) struct Monitor {
    file: Option<PathBuf>,
    shutdown: PathBuf,
    end_all: std::sync::atomic::AtomicBool,
    said: std::sync::Mutex<Vec<String>>,
}

impl Monitor {
    fn new(file: Option<&str>) -> Result<Monitor> {
        let shutdown = PathBuf::from(format!("/tmp/vdbench.shutdown.{}", std::process::id()));
        let _ = std::fs::remove_file(&shutdown);
        let file = file.map(PathBuf::from);
        if let Some(f) = &file {
            std::fs::write(f, "").with_context(|| format!("monitor={}", f.display()))?;
        }
        Ok(Monitor {
            file,
            shutdown,
            end_all: Default::default(),
            said: Default::default(),
        })
    }
    /// True when the run under way is to end now.
    pub(crate) fn check(&self) -> bool {
        let (end_all, msg) = if std::fs::remove_file(&self.shutdown).is_ok() {
            (
                true,
                format!(
                    "User requested early termination using file '{}'.",
                    self.shutdown.display()
                ),
            )
        } else {
            let Some(f) = &self.file else { return false };
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let first = text
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            match first.as_str() {
                "shutdown" | "end_rd" => {
                    (false, "User requested early shutdown of this run.".into())
                }
                "terminate" | "end_vdbench" => (true, "User requested early termination.".into()),
                _ => return false,
            }
        };
        if let Some(f) = &self.file {
            let _ = std::fs::write(f, "");
        }
        emit(&format!("{msg}\n"));
        if end_all {
            self.end_all
                .store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.said
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(msg);
        true
    }
    fn ended_all(&self) -> bool {
        self.end_all.load(std::sync::atomic::Ordering::SeqCst)
    }
    /// What was said since the last call (for the log).
    fn take_said(&self) -> Vec<String> {
        std::mem::take(&mut *self.said.lock().unwrap_or_else(|e| e.into_inner()))
    }
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
    let place = place_of(m, o, cluster)?;
    let cl = cluster.filter(|_| !place.hosts.is_empty());
    let out = open_output(o, &place, parm_text, m.sds.is_empty() && !m.fsds.is_empty())?;
    let (jo, journal_dirs) = job_opts(m, runs, o, &out)?;
    if place.rank == 0 {
        dv_maps_said(m, &jo, &out)?;
    }
    if o.journal == JournalMode::Recover {
        let code = recover(&journal_dirs, &out, &jo.key_maps)?;
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
    if place.rank == 0 {
        for n in &o.notes {
            let (tod, _) = now_stamps();
            out.say(&format!("{tod} {n}"));
            out.log(n)?;
        }
    }
    if let Some(c) = &m.general.startcmd {
        if place.rank == 0 {
            shell(c, &out)?;
        }
    }
    // One host reads the monitor file; many hosts would each need to see it.
    let monitor = match cl {
        None => {
            let mon = Monitor::new(m.general.monitor.as_deref())?;
            if let Some(f) = &m.general.monitor {
                out.say(&format!(
                    "User requesting monitoring of this run using file '{f}'."
                ));
            }
            Some(std::sync::Arc::new(mon))
        }
        Some(_) if m.general.monitor.is_some() => {
            bail!("monitor= with many hosts (hd=) is not implemented: stop a many-host run with a signal to mpirun")
        }
        Some(_) => None,
    };
    let ctx = Ctx {
        m,
        fs_ops: fs_ops_used(m, runs),
        jo: &jo,
        out: &out,
        place: &place,
        cluster: cl,
        monitor,
    };
    let mut code = run_all(&ctx, runs)?;
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

/// Where this process stands among the hosts: one rank per `hd=` under mpirun, or alone;
/// a parameter file with hosts on a single process says how to run it.
fn place_of(m: &Model, o: &ExecOpts, cluster: Option<&dyn Cluster>) -> Result<Place> {
    Ok(match cluster {
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
    })
}

/// The output folder, emptied of an earlier run's files, with the parameter file, the
/// flat file's header and the log's first line written (rank 0 only).
fn open_output(o: &ExecOpts, place: &Place, parm_text: &str, fs: bool) -> Result<Out> {
    if place.rank == 0 {
        std::fs::create_dir_all(&o.out).with_context(|| format!("creating {}", o.out.display()))?;
        for f in [
            "summary.html",
            "totals.html",
            "logfile.html",
            "flatfile.html",
            "histogram.html",
            "errorlog.html",
            "parmfile.html",
        ] {
            let _ = std::fs::remove_file(o.out.join(f));
        }
    }
    let out = Out {
        dir: o.out.clone(),
        quiet: place.rank != 0,
        pass: Default::default(),
    };
    out.append("parmfile.html", parm_text)?;
    // As vdbench, the error log is there from the start, so a script can read it after a
    // clean run too.
    let ms = crate::report::now_ms();
    out.append(
        "errorlog.html",
        &format!(
            "fathom vdbench error log, created {}\n\
             Error log. If there are no error messages beyond this line then there were no \
             Data Validation or I/O errors.\n\n",
            fathom_report::units::local_time(ms, c"%H:%M:%S %b %d %Y %Z")
        ),
    )?;
    // A file-system execution's flat file has vdbench's file-system columns (vdbench
    // takes SDs or FSDs, never both).
    let flat_head = if fs {
        report::fs_flat_head()
    } else {
        report::flat_head(report::FLAT_COLUMNS)
    };
    out.append("flatfile.html", &flat_head)?;
    out.log(&format!(
        "fathom {} vdbench front end; output directory {}",
        fathom::VERSION,
        o.out.display()
    ))?;
    Ok(out)
}

/// What every run's jobs share (engine, validation, journal, compression and dedup), and
/// the journal folders, made.
fn job_opts(m: &Model, runs: &[Run], o: &ExecOpts, out: &Out) -> Result<(JobOpts, Vec<PathBuf>)> {
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
        dv_reads: o.dv_reads.or(m.general.dv_reads),
        key_blocks: match validate {
            true => crate::jobs::key_blocks(runs)?,
            false => Default::default(),
        },
        key_maps: Default::default(),
        journal: journal_dir,
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
        pattern: pattern_of(m, runs, validate, out)?,
        concat: m
            .general
            .concat
            .then(|| m.wds.iter().map(|w| w.name.clone()).collect()),
    };
    if m.general.concat {
        if validate {
            bail!(
                "data validation (-v, -j or validate=) and concatenatesds=yes may not be used \
                 together (as in vdbench)"
            );
        }
        if m.general.showlba {
            bail!("showlba=yes with concatenatesds=yes is not implemented");
        }
    }
    Ok((jo, journal_dirs))
}

/// Data validation: each SD's map, as vdbench's slaves note it in errorlog.html when they
/// make it (one entry per key block of the SD).
fn dv_maps_said(m: &Model, jo: &JobOpts, out: &Out) -> Result<()> {
    use crate::value::grouped;
    // An SD's map covers the SD; an FSD's, its files end to end.
    let sds = m.sds.iter().map(|sd| {
        let size = sd.size.or_else(|| crate::jobs::lun_size(&sd.lun));
        (sd.name.clone(), sd.name.clone(), size, sd.host.as_deref())
    });
    let fsds = m.fsds.iter().map(|f| {
        let size: u64 = crate::tree::file_list(f).iter().map(|x| x.1).sum();
        (
            crate::jobs::fsd_key(&f.name),
            f.name.clone(),
            Some(size),
            None,
        )
    });
    for (key, name, size, host) in sds.chain(fsds) {
        let Some(&kb) = jo.key_blocks.get(&key) else {
            continue;
        };
        let size = size.unwrap_or(0);
        let n = size / kb.max(1);
        let host = format!("{}-0", host.unwrap_or("localhost"));
        let (tod, _) = now_stamps();
        out.append(
            "errorlog.html",
            &format!(
                "{tod} {host}: Allocating Data Validation map: {} one-byte entries for each \
                 {}-byte block.\n{tod} {host}: Created new DV map: {} size: {} bytes; key block \
                 size: {kb}; entries: {}\n",
                grouped(n),
                grouped(kb),
                name,
                grouped(size),
                grouped(n)
            ),
        )?;
    }
    Ok(())
}

/// `pattern=FILE`, loaded (None without it); refused beside what vdbench refuses it with:
/// dedupratio=, data validation and compratio= (each would change the data written).
fn pattern_of(m: &Model, runs: &[Run], validate: bool, out: &Out) -> Result<Option<Vec<u8>>> {
    let Some(path) = &m.general.pattern else {
        return Ok(None);
    };
    let with = if m.general.dedupratio > 1.0 || m.general.dedupunit.is_some() {
        Some("dedupratio=")
    } else if validate {
        Some("data validation (-v, -j, validate=yes)")
    } else if m.general.compratio_coded
        || runs
            .iter()
            .flat_map(|r| &r.wds)
            .any(|w| w.p.compratio.is_some())
    {
        Some("compratio=")
    } else {
        None
    };
    if let Some(what) = with {
        bail!("pattern={path}: pattern= and {what} cannot be used together (as in vdbench: each decides the data written)");
    }
    // The largest transfer any run writes decides the pattern buffer's size.
    let max_xfer = runs
        .iter()
        .flat_map(|r| {
            let wds = r.wds.iter().map(|w| w.p.xfer.max());
            let fwds = r.fwds.iter().map(|f| f.p.xfer.max());
            let format = r.format_fwd.iter().map(|f| f.xfer.max());
            wds.chain(fwds).chain(format)
        })
        .chain(m.general.formatxfersize)
        .max()
        .unwrap_or(0);
    let l = crate::pattern::load(path, max_xfer)?;
    if let Some(note) = &l.note {
        out.say(note);
        out.log(note)?;
    }
    out.log(&format!(
        "Successfully loaded data pattern from {} ({} bytes repeated in every write)",
        l.shown.display(),
        l.bytes.len()
    ))?;
    Ok(Some(l.bytes))
}

/// Every run in order (a curve: its maximum, then each point at its share of that rate,
/// until stopcurve= is passed); returns the worst exit code.
fn run_all(ctx: &Ctx<'_>, runs: &[Run]) -> Result<u8> {
    let (cl, out) = (ctx.cluster, ctx.out);
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
    let repeat = ctx.m.general.repeat;
    let first = std::time::Instant::now();
    let mut code = 0u8;
    let mut pass = 1u64;
    loop {
        if repeat.is_some() {
            out.pass.set(Some(pass));
            let msg = format!("Starting loop {pass}");
            out.say(&msg);
            out.log(&msg)?;
        }
        code = code.max(run_pass(ctx, runs, &stop_agreed)?);
        if stop_agreed() || ctx.monitor.as_ref().is_some_and(|m| m.ended_all()) {
            break;
        }
        // Rank 0's clock decides for every host.
        let done = match repeat {
            None => true,
            Some(LoopSpec::Forever) => false,
            Some(LoopSpec::Count(n)) => pass >= n,
            Some(LoopSpec::Secs(s)) => first.elapsed().as_secs_f64() > s,
        };
        let done = cl.map_or(done, |c| c.broadcast(if done { 1.0 } else { 0.0 }) > 0.5);
        if done {
            match repeat {
                Some(LoopSpec::Count(n)) => {
                    let msg = format!("Terminating loop run after {n} loops");
                    out.say(&msg);
                    out.log(&msg)?;
                }
                Some(LoopSpec::Secs(_)) => {
                    let msg = format!(
                        "Terminating loop run after {} seconds",
                        first.elapsed().as_secs()
                    );
                    out.say(&msg);
                    out.log(&msg)?;
                }
                _ => {}
            }
            break;
        }
        pass += 1;
    }
    Ok(code)
}

/// One pass over every run; returns the worst exit code.
fn run_pass(ctx: &Ctx<'_>, runs: &[Run], stop_agreed: &dyn Fn() -> bool) -> Result<u8> {
    let (cl, out) = (ctx.cluster, ctx.out);
    let ended_all = || ctx.monitor.as_ref().is_some_and(|m| m.ended_all());
    let mut code = 0u8;
    for run in runs {
        if stop_agreed() || ended_all() {
            break;
        }
        match run.rate {
            RunRate::Curve => {
                let max = one_run(ctx, run, &run.rd, RunRate::Curve)?;
                code = code.max(max.1);
                // Every host holds the rate rank 0 measured.
                let max_rate = cl.map_or(max.0, |c| c.broadcast(max.0));
                for p in &run.pace.curve {
                    if stop_agreed() || ended_all() {
                        break;
                    }
                    let target = round_rate(max_rate * p / 100.0);
                    let name = format!("{}_({}%)", run.rd, crate::value::show_num(*p));
                    let (_, c, resp) = one_run(ctx, run, &name, RunRate::Fixed(target))?;
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
                let (_, c, _) = one_run(ctx, run, &run.rd, r)?;
                code = code.max(c);
            }
        }
        if let Some(m) = &ctx.monitor {
            for msg in m.take_said() {
                out.log(&msg)?;
            }
        }
        if run.pace.pause > 0.0 && !crate::stop::stopped() && !ended_all() {
            std::thread::sleep(Duration::from_secs_f64(run.pace.pause));
        }
    }
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
fn recover(dirs: &[PathBuf], out: &Out, maps: &fathom_job::KeyMaps) -> Result<u8> {
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
        // The runs after the recovery know what it found, as vdbench's recovered map.
        r.keep(maps);
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

/// The optional file-system operations (getattr, setattr, access, copy, move) any FWD or
/// RD of the execution names: vdbench gives each used one its columns, in every run.
fn fs_ops_used(m: &Model, runs: &[Run]) -> [bool; crate::report::FS_OPTIONAL] {
    let names =
        &crate::report::META_COLS[crate::report::META_COLS.len() - crate::report::FS_OPTIONAL..];
    let defined = m.fwds.iter().flat_map(|f| f.p.operations.iter());
    let run = runs
        .iter()
        .flat_map(|r| r.fwds.iter().flat_map(|f| f.p.operations.iter()));
    let ops: Vec<&String> = defined.chain(run).collect();
    std::array::from_fn(|k| ops.iter().any(|o| o.as_str() == names[k]))
}

/// What every run of an execution shares.
struct Ctx<'a> {
    m: &'a Model,
    /// The optional file-system columns the execution prints (see [`fs_ops_used`]).
    fs_ops: [bool; crate::report::FS_OPTIONAL],
    jo: &'a JobOpts,
    out: &'a Out,
    place: &'a Place,
    cluster: Option<&'a dyn Cluster>,
    /// One host: the monitor file and vdbench's shutdown file.
    monitor: Option<std::sync::Arc<Monitor>>,
}
