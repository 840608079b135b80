//! vdbench parameter files, run by fathom: `fathom vdbench -f PARMFILE` (or fathom
//! linked as `vdbench`).
//!
//! The way through: [`parse`] reads the file into definitions (comments, continuation
//! lines, `include=`, `$var`), [`model`] types them (defaults, wildcards, every keyword
//! understood or refused by name), [`runs`] expands each RD into its runs (for-loops,
//! rate lists, curves), [`jobs`] turns a run into fathom jobs in fio's option names (so
//! the same checks apply as to a job file: this is not a second engine), and [`exec`]
//! runs them, printing vdbench's interval lines and writing its output folder
//! ([`report`], [`tree`] for file-system anchors, [`flat`] for `parseflat`).

pub mod exec;
pub mod flat;
pub mod jobs;
pub mod model;
pub mod parse;
pub mod report;
pub mod runs;
pub mod tree;
pub mod value;

/// Stopping on a signal: the suites' stop switch (the CLI's SIGINT/SIGTERM handler sets it).
pub mod stop {
    pub use fathom_suites::stop::{run_runner as run, stopped};
}

use anyhow::{anyhow, bail, Result};
use std::collections::HashMap;
use std::path::PathBuf;

/// `fathom vdbench --help`.
pub const HELP: &str = "\
fathom vdbench: run vdbench parameter files as they are (no Java)

usage: fathom vdbench -f PARMFILE [-f MORE...] [-o OUTDIR[+]] [-e SECS] [-i SECS] [-w SECS]
                      [-v|-vr|-vw] [-j|-jr|-jn] [-s] [-c] [--ioengine=ENGINE] [var=value ...]
       fathom vdbench -t [-o OUTDIR]
       fathom vdbench parseflat -i flatfile.html [-o out.csv] [-c COL ...] [-a] [-f COL VALUE ...]
       (fathom linked or copied as `vdbench` takes the same arguments)

  -f FILE     parameter file; several are read as one, in order
  -o DIR      output folder (default: output); DIR+ adds a timestamp to the name
  -e/-i/-w S  override every run's elapsed=, interval=, warmup= (seconds, or 5m, 1h)
  -v          data validation: every written 512-byte sector carries its key (write
              generation), offset and checksum; every read is checked; errors name the SD,
              lun, offset (hex and decimal) and what was expected and found
  -vr, -vw    accepted as -v (reads are checked after writes)
  -j          -v with a journal of every write (its intent before, its acknowledgement after,
              O_DSYNC) in OUTDIR/journal or journal=DIR
  -jr         recover: re-read everything the journals say was written and check it, then run
  -jn         as -j
  -s          simulate: read, check and expand the file; list the runs, no I/O
  -c          delete file-system trees (FSD anchors' vdb.* folders) first
  -t          a short built-in test on a temporary file
  var=value   replace $var (or ${var}) in the parameter file
  --ioengine  raw I/O engine (default io_uring, else libaio): an SD's threads= are its
              I/Os in flight on one asynchronous job
  --hostfile  print mpirun's hostfile from the file's hd= list (one slot per host)

Many hosts (hd=): fathom's MPI build runs one rank per hd, in their order; SDs, WDs and
FWDs with host= run on that rank (without host=, on every rank), an FSD shared=yes splits
its files between the hosts using it, rank 0 prints and writes the merged report:
  fathom vdbench --hostfile -f FILE > hosts
  mpirun --hostfile hosts -np N fathom vdbench -f FILE

Output folder: summary.html (every interval and average), totals.html (averages),
flatfile.html (one row per interval and average, whitespace-separated columns),
histogram.html, logfile.html, parmfile.html, errorlog.html, sd_NAME.html, wd_NAME.html
and RUN.fathom.json (fathom's native result: `fathom compare`, `fathom plot`; a loop's
runs as RUN_key=value.fathom.json).
Interval lines: times in ms, MB/sec in 1024², the average line avg_F-N leaves out the first
interval and the warmup. Lines are printed as each interval ends (with many hosts, by
rank 0 when the run ends).

FWD operations: read and write (files held open, each thread with files of its own);
mkdir, rmdir, create, delete, open, close, getattr, setattr, access, copy and move on
the FSD's tree, the FWD's threads sharing one view of it (an operation's run ends when
nothing is left for it to do). An RD's operations=(a,b) runs them together, each with
its share of threads and rate; reads or writes beside operations that add or remove
files on one tree are refused.

Dedup: dedupratio=, dedupunit= and dedupsets= (general parameters): each dedupunit
block is unique or in a duplicate set by its offset, so written data dedupes R:1.

Not implemented (refused by name): -j/-jr with many hosts, metadata operations on a
tree several hosts share, dedup hot sets and flip-flop, replay, a range= that wraps
round the SD's end, streams= with a read/write mix.

Streams: streams=N on the run's one WD splits each SD into N equal parts, each walked
sequentially by threads/N of the SD's threads (threads a multiple of N).

Priorities: a WD's own iorate= needs priority= (1 first), and then every WD of the run
has a priority of its own, without gaps, those with iorate= first; the SD's threads are
shared by its WDs and the waiting I/O of the highest priority starts first.

Hot bands: hotband=(from,to) on a WD is its range (percent, or bytes past 100), with the
random seeks drawn from vdbench's hot-band curve: most of them near the band's start,
writes a hundredth of the band on from the reads. A raw device's first block (/dev/...)
is never touched, as in vdbench.
";

/// What `fathom vdbench` was asked.
#[derive(Debug, Clone, Default)]
pub struct Cli {
    /// Parameter files.
    pub files: Vec<PathBuf>,
    /// Output folder as given.
    pub out: Option<String>,
    /// Overrides.
    pub elapsed: Option<f64>,
    /// See elapsed.
    pub interval: Option<f64>,
    /// See elapsed.
    pub warmup: Option<f64>,
    /// -v.
    pub validate: bool,
    /// -j / -jr.
    pub journal: exec::JournalMode,
    /// -s.
    pub simulate: bool,
    /// -c.
    pub clean: bool,
    /// -t.
    pub test: bool,
    /// var=value.
    pub vars: HashMap<String, String>,
    /// --ioengine.
    pub ioengine: Option<String>,
    /// --hostfile: print mpirun's hostfile from the hd list.
    pub hostfile: bool,
}

/// Read the command line (after `vdbench`).
pub fn parse_cli(args: &[String]) -> Result<Cli> {
    let mut c = Cli::default();
    let mut it = args.iter();
    let secs = |f: &str, v: Option<&String>| -> Result<f64> {
        let v = v.ok_or_else(|| anyhow!("{f} needs a value in seconds"))?;
        value::secs(v).map_err(|e| anyhow!("{f}: {e}"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "-f" => {
                let v = it
                    .next()
                    .ok_or_else(|| anyhow!("-f needs a parameter file"))?;
                c.files.push(v.into());
            }
            "-o" => {
                c.out = Some(
                    it.next()
                        .ok_or_else(|| anyhow!("-o needs a folder"))?
                        .clone(),
                )
            }
            "-e" => c.elapsed = Some(secs("-e", it.next())?),
            "-i" => c.interval = Some(secs("-i", it.next())?),
            "-w" => c.warmup = Some(secs("-w", it.next())?),
            "-v" | "-vr" | "-vw" | "-vt" => c.validate = true,
            "-j" | "-jn" => c.journal = exec::JournalMode::On,
            "-jr" => c.journal = exec::JournalMode::Recover,
            "-s" => c.simulate = true,
            "-c" => c.clean = true,
            "-t" => c.test = true,
            "--hostfile" => c.hostfile = true,
            s if s.starts_with("--ioengine=") => {
                c.ioengine = Some(s["--ioengine=".len()..].to_string())
            }
            s if s.starts_with('-') => {
                bail!("vdbench flag {s} is not known; `fathom vdbench --help` lists them")
            }
            s => match s.split_once('=') {
                Some((k, v)) if !k.is_empty() => {
                    c.vars.insert(k.to_string(), v.to_string());
                }
                _ => bail!("'{s}': vdbench takes -f PARMFILE (and var=value substitutions)"),
            },
        }
    }
    if c.files.is_empty() && !c.test {
        bail!("give a parameter file: fathom vdbench -f PARMFILE (or -t for a short test)");
    }
    Ok(c)
}

/// The output folder: `output` by default; a trailing `+` adds a timestamp.
fn out_dir(o: Option<&str>) -> PathBuf {
    let o = o.unwrap_or("output");
    match o.strip_suffix('+') {
        Some(base) => {
            let ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_millis() as u64;
            let stamp = fathom_report::units::local_time(ms, c"%Y%m%d-%H.%M.%S");
            PathBuf::from(format!("{base}.{stamp}"))
        }
        None => PathBuf::from(o),
    }
}

/// Read, type and expand parameter files (what `-s` shows).
pub fn load(c: &Cli) -> Result<(model::Model, Vec<runs::Run>, String)> {
    let pf = parse::read_files(&c.files, &c.vars)?;
    let mut m = model::Model::from_parm(&pf)?;
    for rd in &mut m.rds {
        if let Some(v) = c.elapsed {
            rd.pace.elapsed = v;
        }
        if let Some(v) = c.interval {
            rd.pace.interval = v;
        }
        if let Some(v) = c.warmup {
            rd.pace.warmup = v;
        }
        if rd.pace.elapsed < rd.pace.interval * 2.0 {
            bail!(
                "rd={}: elapsed={} must be at least twice interval={}",
                rd.name,
                rd.pace.elapsed,
                rd.pace.interval
            );
        }
    }
    let r = runs::expand(&m)?;
    for run in &r {
        jobs::check_static(run)?;
    }
    Ok((m, r, pf.text))
}

/// Run `fathom vdbench ARGS` (after the word `vdbench`); the exit code.
pub fn main(args: &[String]) -> Result<u8> {
    main_with(args, None)
}

/// [`main`] on many hosts: `cluster` is MPI (one rank per `hd=`), or None.
pub fn main_with(args: &[String], cluster: Option<&dyn exec::Cluster>) -> Result<u8> {
    if args.first().is_some_and(|a| a == "parseflat") {
        let o = flat::parse_args(&args[1..])?;
        let text = std::fs::read_to_string(&o.input).map_err(|e| anyhow!("{}: {e}", o.input))?;
        let csv = flat::to_csv(&text, &o)?;
        match o.output.as_deref() {
            None | Some("-") => exec::emit(&csv),
            Some(p) => std::fs::write(p, csv).map_err(|e| anyhow!("{p}: {e}"))?,
        }
        return Ok(0);
    }
    if args
        .iter()
        .any(|a| a == "--help" || a == "-h" || a == "-help")
        || args.is_empty()
    {
        exec::emit(HELP);
        return Ok(0);
    }
    let mut c = parse_cli(args)?;
    let _tmp;
    if c.test {
        let dir = std::env::temp_dir().join(format!("fathom-vdbench-t.{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let p = dir.join("parmfile");
        std::fs::write(
            &p,
            format!(
                "* fathom vdbench -t: a short test on a temporary file\n\
                 sd=sd1,lun={},size=40m\n\
                 wd=wd1,sd=sd1,xfersize=4k,rdpct=50\n\
                 rd=rd1,wd=wd1,iorate=100,elapsed=5,interval=1\n",
                dir.join("vdbench_test.file").display()
            ),
        )?;
        c.files = vec![p];
        _tmp = TempDir(dir);
    }
    let (m, runs, text) = load(&c)?;
    if c.hostfile {
        if m.hds.is_empty() {
            bail!("--hostfile: the parameter file names no hosts (hd=)");
        }
        exec::emit(&exec::hostfile(&m));
        return Ok(0);
    }
    if c.simulate {
        exec::emit(&runs::simulate(&runs));
        if m.hds.len() > 1 {
            exec::emit(&format!(
                "{} hosts (hd=): the run needs fathom's MPI build, one rank per hd: mpirun -np {} fathom vdbench ...\n",
                m.hds.len(),
                m.hds.len()
            ));
        }
        exec::emit(&format!(
            "fathom vdbench -s: {} run(s), no I/O done\n",
            runs.len()
        ));
        return Ok(0);
    }
    let o = exec::ExecOpts {
        out: out_dir(c.out.as_deref()),
        validate: c.validate,
        journal: c.journal,
        clean_first: c.clean,
        ioengine: c.ioengine.clone(),
    };
    exec::execute(&m, &runs, &text, &o, cluster)
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
