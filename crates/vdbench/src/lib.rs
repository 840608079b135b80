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

pub mod abbrev;
pub mod exec;
pub mod flat;
pub mod jobs;
pub mod model;
pub mod parse;
pub mod pattern;
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

usage: fathom vdbench -f PARMFILE [MORE...] [-o OUTDIR[+]] [-e SECS] [-i SECS] [-w SECS]
                      [-l [SECS]] [-v|-vr|-vw] [-j|-jr|-jn] [-s] [-c|-cy|-cn|-co] [-mb]
                      [-r RDNAME]
                      [--ioengine=ENGINE] [var=value ...] [+ RDPARM=VALUE,...]
       fathom vdbench -t|-t1|-t2|-tf [-o OUTDIR]
       fathom vdbench parseflat -i flatfile.html [-o out.csv] [-c COL ...] [-a] [-f COL VALUE ...]
       (fathom linked or copied as `vdbench` takes the same arguments)

  -f FILE     parameter file; several (-f a b, or -f a -f b) are read as one, in order
  -o DIR      output folder (default: output); DIR+ adds a timestamp to the name
  -e/-i/-w S  override every run's elapsed=, interval=, warmup= (seconds, or 5m, 1h)
              (as in vdbench, a flag's value may be joined to it: -fparm, -e60)
  -r RD       start at rd=RD: the RDs before it in the file are not run (vdbench 5.04.07's
              restart of a long file from a given run)
  -l [T]      run every RD again and again: until stopped, or (T: seconds, or 30m, 2h)
              starting passes until T has gone by (loop= in the file: loop=3 passes,
              loop=2h); each pass's native results are RUN_loop=N.fathom.json
  -v          data validation: every written key block (an SD's smallest xfersize)
              carries its key (write generation), offset and checksum; every read of a
              block written in this execution (any earlier run too) is checked, and a
              block known so is read and checked before it is written again (vdbench's
              pre-read, counted as a read, beyond iorate=); after each run the console
              says how many key blocks were read and validated (a run that validated
              none fails, as in vdbench, unless validate=ignore_zero_reads); errors
              name the SD and lun (the file), offset (hex and decimal) and what was
              expected and found. File-system runs too: the format writes keyed
              blocks (an FSD's key block: its smallest xfersize, the format's
              included), reads and writes of its files are validated; create,
              delete, copy, move, fileio=(random,shared) and -j are refused there
  -vr, -v2    -v, and each write is read back and checked at once (validate=read_after_write)
  -vw         -v without the read before a write (validate=no_preread)
  -j          -v with a journal of every write (its intent before, its acknowledgement after,
              O_DSYNC) in OUTDIR/journal or journal=DIR
  -jr         recover: re-read everything the journals say was written and check it, then run
              (the runs know the recovered blocks and validate them)
  -jn         as -j
  -s          simulate: read, check and expand the file; list the runs, no I/O
  -c          delete file-system trees (FSD anchors' vdb.* folders) first
  -cy/-cn/-co every file-system RD with format=yes / no / only
  -mb         MB in the reports is 1000² bytes (default 1024²)
  -t          a short built-in test on a temporary file (1k, half reads, 100 I/O/s);
              -t1 the same with o_sync, -t2 1k writes at max, -tf a file-system test
  + P=V,...   add RD parameters to every RD (after its own, so they win)
  -m N, -p N, -k  accepted: vdbench's JVM count, port and Solaris kstat report have no
              meaning here (one process per host; many hosts talk over MPI)
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
histogram.html, logfile.html, parmfile.html, errorlog.html, NAME.html per SD, WD, FSD and FWD
and RUN.fathom.json (fathom's native result: `fathom compare`, `fathom plot`; a loop's
runs as RUN_key=value.fathom.json).
Interval lines: times in ms, MB/sec in 1024², the average line avg_F-N leaves out the first
interval and the warmup. Lines are printed as each interval ends (with many hosts, by
rank 0 when the run ends).

FWD operations: read and write (a file is one thread's at a time, across every FWD on
the FSD: a thread drawing a busy file draws again 200 µs later, counted as FILE_BUSY in
the run's closing Miscellaneous statistics; under -v each thread keeps files of its own);
mkdir, rmdir, create, delete, open, close, getattr, setattr, access, copy and move on
the FSD's tree, the FWD's threads sharing one view of it (an operation's run ends when
nothing is left for it to do). An RD's operations=(a,b) runs them together, each with
its share of threads and rate; reads or writes beside operations that add or remove
files on one tree are refused.

Dedup: dedupratio=, dedupunit= and dedupsets= (general parameters): each dedupunit
block is unique or in a duplicate set by its offset, so written data dedupes R:1.

Keywords may be abbreviated as vdbench allows: any leading part, read in vdbench's own
order per definition (xf= is xfersize=, th= threads=, an RD's e= elapsed=, i= iorate=).

monitor=FILE: read as each interval ends; a first line end_rd (or shutdown) ends the
run under way, end_vdbench (or terminate) the execution. /tmp/vdbench.shutdown.PID
ends it too. formatsds=yes: a first run, SD_format, writes every SD whole
(formatxfersize=, default 128k); without it, SD_format writes the lun files that are
missing or shorter than size= (not under /dev), as vdbench does. A file-system
read or write opens each file a thread picks and closes the one it leaves, counted in
the open and close columns. pattern=FILE: every write's data is the file's bytes
repeated from each write's start, as vdbench writes them (whole 4-byte words in the
machine's byte order: ABCD is written DCBA on x86). showlba=yes: each raw run's I/O
trace, a line per I/O (SD WD READ LBA MS) in OUTDIR/localhost-0.showlba.txt.
concatenatesds=yes: each WD's SDs, in its sd= order, are one device end to end
(concat#01 for the first WD defined, reported as concat#01.html); its range,
hot band, seeks and streams are of the whole; an I/O reaching past an SD's end goes
to the next SD's start, and no SD's first block is touched. threads= on the WD, or
the RD's threads= shared by all its WDs. The SDs must exist (nothing is made); not
with -v, formatsds=, showlba=, rhpct=/whpct=, priority=, an SD's offset= or range=,
or many hosts.

Not implemented (refused by name): -j/-jr with many hosts, metadata operations on a
tree several hosts share, dedup hot sets and flip-flop, replay, a range= that wraps
round the end of a lun under /dev (or with streams= or rhpct=/whpct=).
A range= ending between 100 and 200 percent wraps round the SD's end to its start, as
vdbench's.

Sequential I/O (seekpct=0 or eof, and a partly random WD's sequential part) walks one
position for reads and writes, as vdbench does: a mix touches each block once per pass.

Streams: streams=N on the run's one WD splits each SD into N equal parts, each walked
sequentially by threads/N of the SD's threads (threads a multiple of N), reads and
writes along one position.

Priorities: a WD's own iorate= needs priority= (1 first), and then every WD of the run
has a priority of its own, without gaps, those with iorate= first; the SD's threads are
shared by its WDs and the waiting I/O of the highest priority starts first.

Hot bands: hotband=(from,to) on a WD is its range (percent, or bytes past 100), with the
random seeks drawn from vdbench's hot-band curve: most of them near the band's start,
writes a hundredth of the band on from the reads. A raw device's first block (/dev/...)
is never touched, as in vdbench.
";

/// `-cy`, `-cn`, `-co`: every file-system RD's format= overridden from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForceFormat {
    /// `-cy`: format=yes.
    Yes,
    /// `-cn`: format=no.
    No,
    /// `-co`: format=only.
    Only,
}

/// Which built-in quick test `-t` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuickTest {
    /// `-t`, `-td`: 1k transfers, half reads, 100 I/Os a second, on a 40 MB file.
    Mixed,
    /// `-t1`: as `-t` with o_sync.
    Sync,
    /// `-t2`: 1k writes as fast as they go.
    Writes,
    /// `-tf`: a file-system test (100 files of 128k, random reads and writes).
    Files,
}

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
    /// -vw, -vr (-v2).
    pub dv_reads: model::DvReads,
    /// -j / -jr.
    pub journal: exec::JournalMode,
    /// -s.
    pub simulate: bool,
    /// -c.
    pub clean: bool,
    /// -cy / -cn / -co.
    pub force_format: Option<ForceFormat>,
    /// -t and its kinds.
    pub test: Option<QuickTest>,
    /// -l: run everything again (a `loop=` in the file overrides it).
    pub repeat: Option<model::LoopSpec>,
    /// -mb: MB in the reports is 1000² bytes, not 1024².
    pub decimal: bool,
    /// `+ key=value,...`: added to every RD (after its own parameters).
    pub rd_extras: Option<String>,
    /// -r RDNAME: start at that RD (the ones before it are not run).
    pub start_rd: Option<String>,
    /// var=value.
    pub vars: HashMap<String, String>,
    /// --ioengine.
    pub ioengine: Option<String>,
    /// --hostfile: print mpirun's hostfile from the hd list.
    pub hostfile: bool,
}

/// vdbench's way with its arguments: a one-letter flag takes the word after it as its
/// value (`-f parmfile` is `-fparmfile`, `-e 60` is `-e60`, `-l 2h` is `-l2h`) unless
/// that word starts with `-` or holds `=`; a word after a joined pair stands alone (so
/// `-f a b` names two files). `+ WORDS` at the end is returned apart.
fn join_args(args: &[String]) -> Result<(Vec<String>, Option<String>)> {
    let mut out: Vec<String> = Vec::new();
    let mut joined = false;
    for (i, a) in args.iter().enumerate() {
        if let Some(first) = a.strip_prefix('+') {
            let mut words = vec![first.trim()];
            words.extend(args[i + 1..].iter().map(|w| w.trim()));
            let extras = words.join(" ").trim().to_string();
            if extras.is_empty() {
                bail!("'+' adds RD parameters to every RD: + iorate=max,elapsed=60");
            }
            if extras.contains(char::is_whitespace) {
                bail!("'+ {extras}': no blanks in the RD parameters after '+' (separate them with commas)");
            }
            return Ok((out, Some(extras)));
        }
        let joinable = match out.last() {
            Some(p) if !joined && p.starts_with('-') && !p.starts_with("--") && p.len() == 2 => {
                p != "-" && !a.starts_with('-') && !a.contains('=')
            }
            _ => false,
        };
        if joinable {
            out.last_mut().expect("a previous word").push_str(a);
            joined = true;
        } else {
            out.push(a.clone());
            joined = false;
        }
    }
    Ok((out, None))
}

/// Read the command line (after `vdbench`), as vdbench reads it.
pub fn parse_cli(args: &[String]) -> Result<Cli> {
    let mut c = Cli::default();
    let (words, extras) = join_args(args)?;
    c.rd_extras = extras;
    let secs = |f: &str, v: &str| -> Result<f64> {
        if v.is_empty() {
            bail!("{f} needs a value in seconds");
        }
        value::secs(v).map_err(|e| anyhow!("{f}: {e}"))
    };
    // After -f (or a var=value), a plain word is one more parameter file.
    let mut more_files = false;
    for a in &words {
        let a = a.as_str();
        if let Some(long) = a.strip_prefix("--") {
            more_files = false;
            match long.split_once('=') {
                Some(("ioengine", v)) => c.ioengine = Some(v.to_string()),
                None if long == "hostfile" => c.hostfile = true,
                _ => bail!("vdbench flag {a} is not known; `fathom vdbench --help` lists them"),
            }
            continue;
        }
        if !a.starts_with('-') {
            match a.split_once('=') {
                Some((k, v)) if !k.is_empty() => {
                    c.vars.insert(k.to_string(), v.to_string());
                    more_files = true;
                }
                _ if more_files => c.files.push(a.into()),
                _ => bail!("'{a}': vdbench takes -f PARMFILE (and var=value substitutions)"),
            }
            continue;
        }
        more_files = false;
        // The flag's letter and its joined value (a word split on a character's edge).
        let cut = if a.is_char_boundary(2) { 2 } else { a.len() };
        let (flag, rest) = a.split_at(cut.min(a.len()));
        match flag {
            "-f" if rest.is_empty() => bail!("-f needs a parameter file"),
            "-f" => {
                c.files.push(rest.into());
                more_files = true;
            }
            "-o" if rest.is_empty() => bail!("-o needs a folder"),
            "-o" => c.out = Some(rest.to_string()),
            "-e" => c.elapsed = Some(secs("-e", rest)?),
            "-i" => c.interval = Some(secs("-i", rest)?),
            "-w" => c.warmup = Some(secs("-w", rest)?),
            "-v" if rest.contains('c') => {
                bail!("-vc: vdbench no longer continues an old validation map (validate=continue)")
            }
            "-v" if rest.chars().all(|x| "rw2tq".contains(x)) => {
                c.validate = true;
                c.dv_reads.read_after_write |= rest.contains(['r', '2']);
                c.dv_reads.no_pre_read |= rest.contains('w');
            }
            "-j" => {
                c.journal = exec::JournalMode::On;
                for x in rest.chars() {
                    match x {
                        'r' => c.journal = exec::JournalMode::Recover,
                        // fathom's journal always writes through (O_DSYNC).
                        'n' => {}
                        _ => bail!(
                            "-j{rest}: vdbench's journal option '{x}' is not implemented \
                             (fathom takes -j, -jn and -jr)"
                        ),
                    }
                }
            }
            "-c" => match rest {
                "" => c.clean = true,
                r if r.contains('o') => c.force_format = Some(ForceFormat::Only),
                r if r.contains('y') => c.force_format = Some(ForceFormat::Yes),
                r if r.contains('n') => c.force_format = Some(ForceFormat::No),
                _ => bail!("{a}: use -c (delete the FSD trees first), -cy, -cn or -co"),
            },
            "-l" if rest.is_empty() => c.repeat = Some(model::LoopSpec::Forever),
            "-l" => {
                c.repeat = Some(model::LoopSpec::parse(rest, true).map_err(|e| anyhow!("-l {e}"))?)
            }
            "-s" if rest.is_empty() => c.simulate = true,
            "-t" => {
                c.test = Some(match rest {
                    "" | "d" => QuickTest::Mixed,
                    "1" => QuickTest::Sync,
                    "2" => QuickTest::Writes,
                    "f" => QuickTest::Files,
                    _ => bail!("{a}: vdbench's quick tests are -t, -t1, -t2, -tf and -td"),
                })
            }
            "-m" if rest == "b" => c.decimal = true,
            "-r" if rest.is_empty() => bail!("-r needs the name of the RD to start at (-r rd2)"),
            "-r" => c.start_rd = Some(rest.to_string()),
            // vdbench's JVM count per host, its master's port and Solaris's kstat
            // report: fathom runs one process per host (MPI ranks talk over MPI), and
            // Linux has no kstat.
            "-m" if rest.parse::<u32>().is_ok() => {}
            "-p" if rest.parse::<u16>().is_ok() => {}
            "-k" if rest.is_empty() => {}
            "-d" => bail!("{a}: vdbench's debug codes (-d) are not implemented"),
            "-" => bail!(
                "'-': vdbench no longer reads parameters from the command line; write them in a \
                 file and give it with -f"
            ),
            _ => bail!("vdbench flag {a} is not known; `fathom vdbench --help` lists them"),
        }
    }
    if c.files.is_empty() && c.test.is_none() {
        bail!("give a parameter file: fathom vdbench -f PARMFILE (or -t for a short test)");
    }
    Ok(c)
}

/// The output folder: `output` by default; a trailing `+` adds a timestamp.
fn out_dir(o: Option<&str>) -> PathBuf {
    let o = o.unwrap_or("output");
    match o.strip_suffix('+') {
        Some(base) => {
            let stamp = fathom_report::units::local_time(report::now_ms(), c"%Y%m%d-%H.%M.%S");
            PathBuf::from(format!("{base}.{stamp}"))
        }
        None => PathBuf::from(o),
    }
}

/// Read, type and expand parameter files (what `-s` shows).
pub fn load(c: &Cli) -> Result<(model::Model, Vec<runs::Run>, String)> {
    let mut pf = parse::read_files(&c.files, &c.vars)?;
    if let Some(x) = &c.rd_extras {
        parse::add_to_rds(&mut pf, x)?;
    }
    let mut m = model::Model::from_parm(&pf)?;
    if let Some(start) = &c.start_rd {
        let Some(at) = m.rds.iter().position(|rd| rd.name == *start) else {
            let names: Vec<&str> = m.rds.iter().map(|rd| rd.name.as_str()).collect();
            bail!(
                "-r {start}: the parameter file has no rd={start} (its RDs: {})",
                names.join(", ")
            );
        };
        m.rds.drain(..at);
    }
    if m.general.repeat.is_none() {
        m.general.repeat = c.repeat;
    }
    if let Some(f) = c.force_format {
        for rd in &mut m.rds {
            rd.pace.format = match f {
                ForceFormat::Yes => model::Format::Yes,
                ForceFormat::No => model::Format::No,
                ForceFormat::Only => model::Format::Only,
            };
        }
    }
    if m.general.repeat.is_some() && c.journal == exec::JournalMode::Recover {
        bail!("-l (or loop=) with -jr: recover the journal in a run of its own, then loop");
    }
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
    let mut r = runs::expand(&m)?;
    // (A file with no raw run has nothing to format: vdbench then adds no run either.)
    if let Some(f) = runs::format_run(&m, &r).filter(|_| m.general.formatsds) {
        r.insert(0, f);
    }
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
    if let Some(kind) = c.test {
        let dir = std::env::temp_dir().join(format!("fathom-vdbench-t.{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let p = dir.join("parmfile");
        std::fs::write(&p, quick_test(kind, &dir))?;
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
    report::set_decimal(c.decimal);
    // A lun file missing or short: vdbench's first run writes it whole.
    let mut runs = runs;
    let mut notes = Vec::new();
    if let Some((said, f)) = runs::missing_lun_format(&m, &runs) {
        notes = said;
        runs.insert(0, f);
    }
    let o = exec::ExecOpts {
        notes,
        out: out_dir(c.out.as_deref()),
        validate: c.validate,
        dv_reads: c.dv_reads,
        journal: c.journal,
        clean_first: c.clean,
        ioengine: c.ioengine.clone(),
    };
    exec::execute(&m, &runs, &text, &o, cluster)
}

/// The parameter file of a built-in quick test, on a file in `dir`.
fn quick_test(kind: QuickTest, dir: &std::path::Path) -> String {
    let file = dir.join("quick_vdbench_test").display().to_string();
    let head = "* fathom vdbench's quick test: made for this run in a temporary folder\n";
    match kind {
        QuickTest::Mixed | QuickTest::Sync => format!(
            "{head}sd=sd1,lun={file},size=40m{}\n\
             wd=wd1,sd=sd1,xf=1k,rdpct=50\n\
             rd=rd1,wd=wd1,iorate=100,elapsed=5,interval=1\n",
            if kind == QuickTest::Sync {
                ",openflags=o_sync"
            } else {
                ""
            }
        ),
        QuickTest::Writes => format!(
            "{head}sd=sd1,lun={file},size=40m\n\
             wd=wd1,sd=sd1,xf=1k,rdpct=0\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=5,interval=1\n"
        ),
        QuickTest::Files => format!(
            "{head}fsd=fsd1,anchor={},depth=1,width=1,files=100,size=128k\n\
             fwd=default,xfersize=4k,fileio=random,fileselect=random,threads=8,stopafter=100\n\
             fwd=fwd1,fsd=fsd1,operation=read\n\
             fwd=fwd2,fsd=fsd1,operation=write\n\
             rd=rd1,fwd=fwd*,fwdrate=100,format=yes,elapsed=5,interval=1\n",
            dir.join("fsd1").display()
        ),
    }
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::LoopSpec;

    fn cli(line: &str) -> Result<Cli> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_cli(&args)
    }

    #[test]
    fn flags_take_their_values_joined_or_apart() {
        let c = cli("-f a b -o out -e 60 -i5 -w 10 -l 2h").unwrap();
        assert_eq!(c.files, vec![PathBuf::from("a"), PathBuf::from("b")]);
        assert_eq!(c.out.as_deref(), Some("out"));
        assert_eq!(
            (c.elapsed, c.interval, c.warmup),
            (Some(60.0), Some(5.0), Some(10.0))
        );
        assert_eq!(c.repeat, Some(LoopSpec::Secs(7200.0)));
        let c = cli("-fparm -oout2 -l -vr").unwrap();
        assert_eq!(c.files, vec![PathBuf::from("parm")]);
        assert_eq!(c.out.as_deref(), Some("out2"));
        assert_eq!(c.repeat, Some(LoopSpec::Forever));
        assert!(c.validate);
        // -l's bare number is seconds (loop= in the file counts passes).
        assert_eq!(
            cli("-f p -l 600").unwrap().repeat,
            Some(LoopSpec::Secs(600.0))
        );
        // A var=value keeps later plain words as parameter files.
        let c = cli("-f a lun=/dev/sdb b").unwrap();
        assert_eq!(c.files.len(), 2);
        assert_eq!(c.vars["lun"], "/dev/sdb");
    }

    #[test]
    fn format_overrides_quick_tests_and_extras() {
        assert_eq!(
            cli("-f p -cy").unwrap().force_format,
            Some(ForceFormat::Yes)
        );
        assert_eq!(cli("-f p -cn").unwrap().force_format, Some(ForceFormat::No));
        assert_eq!(
            cli("-f p -co").unwrap().force_format,
            Some(ForceFormat::Only)
        );
        let c = cli("-f p -c").unwrap();
        assert!(c.clean && c.force_format.is_none());
        assert_eq!(cli("-tf").unwrap().test, Some(QuickTest::Files));
        assert_eq!(cli("-t2").unwrap().test, Some(QuickTest::Writes));
        assert_eq!(cli("-t").unwrap().test, Some(QuickTest::Mixed));
        let c = cli("-f p -mb -m 4 -k -p 5570 + iorate=max,elapsed=10").unwrap();
        assert!(c.decimal);
        assert_eq!(c.rd_extras.as_deref(), Some("iorate=max,elapsed=10"));
        let e = cli("-f p + iorate=max elapsed=10").unwrap_err();
        assert!(e.to_string().contains("no blanks"), "{e}");
    }

    #[test]
    fn what_vdbench_refuses_is_refused_by_name() {
        for (line, want) in [
            ("-f p -", "no longer reads parameters"),
            ("-f p -d 3", "debug"),
            ("-f p -vc", "validate=continue"),
            ("-f p -jm", "not implemented"),
            ("-f p -x", "not known"),
            ("-o out", "give a parameter file"),
            ("-t9", "quick tests"),
            ("-é", "not known"),
        ] {
            let e = cli(line).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }

    #[test]
    fn loop_values_are_counts_or_times() {
        assert_eq!(LoopSpec::parse("3", false), Ok(LoopSpec::Count(3)));
        assert_eq!(LoopSpec::parse("30m", false), Ok(LoopSpec::Secs(1800.0)));
        assert_eq!(LoopSpec::parse("45s", true), Ok(LoopSpec::Secs(45.0)));
        assert!(LoopSpec::parse("0", false).is_err());
        assert!(LoopSpec::parse("x", false).is_err());
    }
}
