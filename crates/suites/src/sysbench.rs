//! `fathom suite sysbench [fileio] [OPTIONS] prepare|run|cleanup`: sysbench fileio's
//! method, options and defaults, run by fathom's engines, with sysbench's report.
//!
//! Mapping: each sysbench thread is a job clone sharing the `test_file.N` files; a request
//! picks a file at random (random modes) or walks them in turn (sequential modes).
//! `--file-fsync-freq=N` syncs after every N requests; fathom syncs the file being written
//! (sysbench syncs every file), so at `--file-num` > 1 fathom issues fewer syncs.
//! Events are reads + writes + syncs, as sysbench counts them.

use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, RwKind};
use std::path::PathBuf;
use std::time::Duration;

/// sysbench fileio options.
#[derive(Debug, Clone, PartialEq)]
pub struct Opts {
    /// prepare, run or cleanup.
    pub command: String,
    /// Directory of the test files (fathom's addition; sysbench uses the current one).
    pub dir: PathBuf,
    /// `--file-num`.
    pub file_num: u32,
    /// `--file-block-size`.
    pub block: u64,
    /// `--file-total-size`.
    pub total: u64,
    /// `--file-test-mode`.
    pub mode: String,
    /// `--file-io-mode`.
    pub io_mode: String,
    /// `--file-async-backlog`.
    pub backlog: u32,
    /// `--file-extra-flags`.
    pub extra: Vec<String>,
    /// `--file-fsync-freq`.
    pub fsync_freq: u32,
    /// `--file-fsync-all`.
    pub fsync_all: bool,
    /// `--file-fsync-end`.
    pub fsync_end: bool,
    /// `--file-fsync-mode`.
    pub fsync_mode: String,
    /// `--file-rw-ratio`.
    pub rw_ratio: f64,
    /// `--threads`.
    pub threads: u32,
    /// `--time`.
    pub time: u64,
    /// `--events`/`--max-requests`.
    pub events: u64,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            command: String::new(),
            dir: PathBuf::from("."),
            file_num: 128,
            block: 16384,
            total: 2 << 30,
            mode: String::new(),
            io_mode: "sync".into(),
            backlog: 128,
            extra: Vec::new(),
            fsync_freq: 100,
            fsync_all: false,
            fsync_end: true,
            fsync_mode: "fsync".into(),
            rw_ratio: 1.5,
            threads: 1,
            time: 10,
            events: 0,
        }
    }
}

fn size(v: &str) -> Result<u64> {
    // sysbench sizes: 2G, 16K, 100M (binary).
    let (num, suffix) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
    let n: u64 = num
        .parse()
        .map_err(|_| anyhow!("'{v}' is not a size (e.g. 2G)"))?;
    let m: u64 = match suffix.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" => 1 << 10,
        "M" | "MB" => 1 << 20,
        "G" | "GB" => 1 << 30,
        "T" | "TB" => 1 << 40,
        s => bail!("'{v}': unknown size suffix '{s}'"),
    };
    Ok(n * m)
}

fn on_off(v: &str) -> Result<bool> {
    match v {
        "on" | "yes" | "1" | "true" => Ok(true),
        "off" | "no" | "0" | "false" => Ok(false),
        _ => bail!("'{v}': use on or off"),
    }
}

/// The options fathom's sysbench fileio knows (for "did you mean").
const OPTIONS: &[&str] = &[
    "--dir",
    "--file-num",
    "--file-block-size",
    "--file-total-size",
    "--file-test-mode",
    "--file-io-mode",
    "--file-async-backlog",
    "--file-extra-flags",
    "--file-fsync-freq",
    "--file-fsync-all",
    "--file-fsync-end",
    "--file-fsync-mode",
    "--file-rw-ratio",
    "--file-merged-requests",
    "--threads",
    "--num-threads",
    "--time",
    "--max-time",
    "--events",
    "--max-requests",
];

/// Parse the arguments after `sysbench`.
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts::default();
    for a in args {
        if a == "fileio" {
            continue;
        }
        let Some(opt) = a.strip_prefix("--") else {
            if ["prepare", "run", "cleanup"].contains(&a.as_str()) && o.command.is_empty() {
                o.command = a.clone();
                continue;
            }
            bail!("'{a}': expected prepare, run or cleanup");
        };
        // On/off options may stand alone (`--file-fsync-all` is on), as sysbench takes them.
        let (k, v) = match opt.split_once('=') {
            Some(kv) => kv,
            None if ["file-fsync-all", "file-fsync-end"].contains(&opt) => (opt, "on"),
            None => bail!("--{opt} needs a value (--{opt}=...)"),
        };
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| anyhow!("--{k}: '{v}' is not a number"))
        };
        match k {
            "dir" => o.dir = v.into(),
            "file-num" => o.file_num = num(v)? as u32,
            "file-block-size" => o.block = size(v)?,
            "file-total-size" => o.total = size(v)?,
            "file-test-mode" => o.mode = v.into(),
            "file-io-mode" => o.io_mode = v.into(),
            "file-async-backlog" => o.backlog = num(v)? as u32,
            "file-extra-flags" => o.extra = v.split(',').map(str::to_string).collect(),
            "file-fsync-freq" => o.fsync_freq = num(v)? as u32,
            "file-fsync-all" => o.fsync_all = on_off(v)?,
            "file-fsync-end" => o.fsync_end = on_off(v)?,
            "file-fsync-mode" => o.fsync_mode = v.into(),
            "file-rw-ratio" => {
                o.rw_ratio = v
                    .parse()
                    .map_err(|_| anyhow!("--{k}: '{v}' is not a number"))?
            }
            "file-merged-requests" if v == "0" => {}
            "file-merged-requests" => bail!("--file-merged-requests is not supported (use 0)"),
            "threads" | "num-threads" => o.threads = num(v)? as u32,
            "time" | "max-time" => o.time = num(v)?,
            "events" | "max-requests" => o.events = num(v)?,
            _ => bail!(
                "sysbench fileio option --{k} is not supported{}",
                super::did_you_mean(&format!("--{k}"), OPTIONS)
            ),
        }
    }
    if o.command.is_empty() {
        bail!("say what to do: prepare, run or cleanup (e.g. fathom suite sysbench --file-test-mode=rndrw run)");
    }
    if o.file_num == 0 || o.block == 0 || o.total < o.file_num as u64 * o.block {
        bail!("--file-total-size must hold at least one block per file");
    }
    if o.command == "run" {
        if !["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"].contains(&o.mode.as_str()) {
            bail!("--file-test-mode: use seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw");
        }
        if !["sync", "async", "mmap"].contains(&o.io_mode.as_str()) {
            bail!("--file-io-mode: use sync, async or mmap");
        }
        if !["fsync", "fdatasync"].contains(&o.fsync_mode.as_str()) {
            bail!("--file-fsync-mode: use fsync or fdatasync");
        }
        for f in &o.extra {
            if !["direct", "dsync", "sync", ""].contains(&f.as_str()) {
                bail!("--file-extra-flags: use direct, dsync or sync");
            }
        }
    }
    Ok(o)
}

fn files(o: &Opts) -> Vec<PathBuf> {
    (0..o.file_num)
        .map(|i| o.dir.join(format!("test_file.{i}")))
        .collect()
}

fn prepare(o: &Opts) -> Result<String> {
    std::fs::create_dir_all(&o.dir)?;
    let mut s = format!(
        "fathom {} (sysbench fileio method)\n\n{} files, {}KiB each, {}MiB total\nCreating files for the test...\n",
        fathom::VERSION,
        o.file_num,
        o.total / o.file_num as u64 / 1024,
        o.total >> 20
    );
    for i in 0..o.file_num {
        s.push_str(&format!("Creating file test_file.{i}\n"));
    }
    let job = Job::builder("prepare")
        .engine(Engine::Psync)
        .rw(RwKind::Write)
        .bs(o.block)
        .directory(&o.dir)
        .option("filename_format", "test_file.$filenum")
        .nrfiles(o.file_num)
        .size(o.total)
        .option("file_service_type", "sequential")
        .option("end_fsync", "1")
        // sysbench's files and writes are zeroes (compressing storage sees them so).
        .option("zero_buffers", "1")
        .build()?;
    let j = super::run_step(job, "")?;
    let secs = j.elapsed.as_secs_f64().max(1e-9);
    let bytes = j.stats.dirs[1].bytes;
    s.push_str(&format!(
        "{bytes} bytes written in {secs:.2} seconds ({:.2} MiB/sec).\n",
        bytes as f64 / 1048576.0 / secs
    ));
    Ok(s)
}

/// The report, whether a job failed, and the headline figures.
type RunOut = (String, bool, Vec<(String, f64)>);

fn run(o: &Opts) -> Result<RunOut> {
    for f in files(o) {
        if !f.exists() {
            bail!(
                "{} is missing: run `fathom suite sysbench ... prepare` first",
                f.display()
            );
        }
    }
    let report = super::run_job(job_of(o)?)?;
    let failed = report.jobs.iter().any(|j| j.stats.error != 0);
    let t = Tally::of(&report);
    let secs = t.secs.max(1e-9);
    let ms = |ns: f64| ns / 1e6;
    let metrics = vec![
        ("reads/s".to_string(), t.reads as f64 / secs),
        ("writes/s".to_string(), t.writes as f64 / secs),
        ("fsyncs/s".to_string(), t.syncs as f64 / secs),
        ("latency avg (ms)".to_string(), ms(t.lat.mean())),
        (
            "latency p95 (ms)".to_string(),
            ms(t.lat.percentile(95.0) as f64),
        ),
    ];
    Ok((report_text(o, &t), failed, metrics))
}

/// sysbench's test as a fathom job: its mode, I/O mode, files, threads, events or time,
/// and its fsync cadence.
fn job_of(o: &Opts) -> Result<fathom::JobSpec> {
    let (rw, random) = match o.mode.as_str() {
        "seqwr" | "seqrewr" => (RwKind::Write, false),
        "seqrd" => (RwKind::Read, false),
        "rndrd" => (RwKind::RandRead, true),
        "rndwr" => (RwKind::RandWrite, true),
        _ => (RwKind::RandRw, true),
    };
    let read_pct = (o.rw_ratio / (1.0 + o.rw_ratio) * 100.0).round() as u32;
    let (engine, depth) = match o.io_mode.as_str() {
        "async" => (Engine::Libaio, o.backlog),
        "mmap" => (Engine::Mmap, 1),
        _ => (Engine::Psync, 1),
    };
    let mut b = Job::builder("sysbench")
        .engine(engine)
        .rw(rw)
        .bs(o.block)
        .directory(&o.dir)
        .option("filename_format", "test_file.$filenum")
        .nrfiles(o.file_num)
        .size(o.total)
        .numjobs(o.threads)
        .iodepth(depth)
        .option(
            "file_service_type",
            if random { "random" } else { "sequential" },
        )
        .option("invalidate", "0")
        .option("zero_buffers", "1")
        .runtime(Duration::from_secs(o.time.max(1)))
        .direct(o.extra.iter().any(|f| f == "direct"));
    if o.events == 0 || o.time > 0 {
        b = b.time_based();
    }
    if o.events > 0 {
        b = b.option(
            "number_ios",
            (o.events / o.threads as u64).max(1).to_string(),
        );
    }
    if rw == RwKind::RandRw {
        b = b.rwmixread(read_pct);
    }
    if o.extra.iter().any(|f| f == "sync") {
        b = b.option("sync", "sync");
    } else if o.extra.iter().any(|f| f == "dsync") {
        b = b.option("sync", "dsync");
    }
    if rw.writes() {
        let write_share = if rw == RwKind::RandRw {
            1.0 - read_pct as f64 / 100.0
        } else {
            1.0
        };
        let every = if o.fsync_all {
            1
        } else {
            ((o.fsync_freq as f64 * write_share).round() as u64).max(1)
        };
        if o.fsync_all || o.fsync_freq > 0 {
            let key = if o.fsync_mode == "fdatasync" {
                "fdatasync"
            } else {
                "fsync"
            };
            b = b.option(key, every.to_string());
        }
        if o.fsync_end {
            b = b.option("end_fsync", "1");
        }
    }
    let mut spec = b.build()?;
    // sysbench's sync follows the Nth request whatever comes after it.
    spec.control.sync_per_nth_write = true;
    // --file-fsync-end: once, when the run ends.
    spec.control.sync_at_end_only = true;
    Ok(spec)
}

/// What the run's threads did, added up.
struct Tally {
    reads: u64,
    writes: u64,
    syncs: u64,
    rbytes: u64,
    wbytes: u64,
    /// Every read, write and sync's latency.
    lat: fathom::LatStat,
    /// Per thread: its events and the seconds it spent in them.
    per_thread_events: Vec<f64>,
    per_thread_secs: Vec<f64>,
    /// The longest thread's run time.
    secs: f64,
}

impl Tally {
    fn of(report: &fathom::Report) -> Tally {
        let mut t = Tally {
            reads: 0,
            writes: 0,
            syncs: 0,
            rbytes: 0,
            wbytes: 0,
            lat: fathom::LatStat::new(),
            per_thread_events: Vec::new(),
            per_thread_secs: Vec::new(),
            secs: 0.0,
        };
        for j in &report.jobs {
            let s = &j.stats;
            t.reads += s.dirs[0].ios;
            t.writes += s.dirs[1].ios;
            t.syncs += s.sync.count();
            t.rbytes += s.dirs[0].bytes;
            t.wbytes += s.dirs[1].bytes;
            t.lat += &s.dirs[0].lat;
            t.lat += &s.dirs[1].lat;
            t.lat += &s.sync;
            t.per_thread_events
                .push((s.dirs[0].ios + s.dirs[1].ios + s.sync.count()) as f64);
            let busy = (s.dirs[0].lat.sum() + s.dirs[1].lat.sum() + s.sync.sum()) as f64 / 1e9;
            t.per_thread_secs.push(busy);
            t.secs = t.secs.max(s.runtime.as_secs_f64());
            if let Some(e) = &j.error_text {
                eprintln!("fathom sysbench: {e}");
            }
        }
        t
    }
}

/// sysbench fileio's report: the options, then the rates, throughput, statistics,
/// latency and thread fairness.
fn report_text(o: &Opts, t: &Tally) -> String {
    let secs = t.secs.max(1e-9);
    let (reads, writes, syncs, rbytes, wbytes) = (t.reads, t.writes, t.syncs, t.rbytes, t.wbytes);
    let lat = &t.lat;
    let events = reads + writes + syncs;
    let ms = |ns: f64| ns / 1e6;
    let avg_sd = |v: &[f64]| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt();
        (m, sd)
    };
    let (ea, es) = avg_sd(&t.per_thread_events);
    let (ta, ts) = avg_sd(&t.per_thread_secs);
    let flags = if o.extra.is_empty() || o.extra == [""] {
        "(none)".to_string()
    } else {
        o.extra.join(",")
    };
    let mut s = format!(
        "fathom {} (sysbench fileio method)\n\n\
         Running the test with following options:\n\
         Number of threads: {}\n\n\n\
         Extra file open flags: {flags}\n\
         {} files, {}MiB each\n\
         {}MiB total file size\n\
         Block size {}KiB\n",
        fathom::VERSION,
        o.threads,
        o.file_num,
        (o.total / o.file_num as u64) >> 20,
        o.total >> 20,
        o.block >> 10,
    );
    s.push_str(&format!(
        "Number of IO requests: {}\nRead/Write ratio for combined random IO test: {:.2}\n",
        o.events, o.rw_ratio
    ));
    s.push_str(&format!(
        "Periodic FSYNC enabled, calling {}() each {} requests.\n",
        o.fsync_mode, o.fsync_freq
    ));
    s.push_str(&format!(
        "Calling fsync() at the end of test, {}.\n",
        if o.fsync_end { "Enabled" } else { "Disabled" }
    ));
    s.push_str(&format!(
        "Using {} I/O mode\nDoing {} test\n\n",
        match o.io_mode.as_str() {
            "async" => "asynchronous",
            "mmap" => "mmap",
            _ => "synchronous",
        },
        match o.mode.as_str() {
            "seqwr" => "sequential write (creation)",
            "seqrewr" => "sequential rewrite",
            "seqrd" => "sequential read",
            "rndrd" => "random read",
            "rndwr" => "random write",
            _ => "random r/w",
        }
    ));
    s.push_str(&format!(
        "File operations:\n    reads/s:                      {:.2}\n    writes/s:                     {:.2}\n    fsyncs/s:                     {:.2}\n\n",
        reads as f64 / secs,
        writes as f64 / secs,
        syncs as f64 / secs
    ));
    s.push_str(&format!(
        "Throughput:\n    read, MiB/s:                  {:.2}\n    written, MiB/s:               {:.2}\n\n",
        rbytes as f64 / 1048576.0 / secs,
        wbytes as f64 / 1048576.0 / secs
    ));
    s.push_str(&format!(
        "General statistics:\n    total time:                          {secs:.4}s\n    total number of events:              {events}\n\n"
    ));
    s.push_str(&format!(
        "Latency (ms):\n         min:                              {:>10.2}\n         avg:                              {:>10.2}\n         max:                              {:>10.2}\n         95th percentile:                  {:>10.2}\n         sum:                              {:>10.2}\n\n",
        ms(lat.min() as f64),
        ms(lat.mean()),
        ms(lat.max() as f64),
        ms(lat.percentile(95.0) as f64),
        ms(lat.sum() as f64)
    ));
    s.push_str(&format!(
        "Threads fairness:\n    events (avg/stddev):           {ea:.4}/{es:.2}\n    execution time (avg/stddev):   {ta:.4}/{ts:.2}\n"
    ));
    s
}

fn cleanup(o: &Opts) -> Result<String> {
    let mut s = format!(
        "fathom {} (sysbench fileio method)\n\nRemoving test files...\n",
        fathom::VERSION
    );
    let mut n = 0;
    for f in files(o) {
        match std::fs::remove_file(&f) {
            Ok(()) => n += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => bail!("{}: {e}", f.display()),
        }
    }
    if n == 0 {
        s.push_str("(no test files found)\n");
    }
    Ok(s)
}

/// Run `fathom suite sysbench ...`.
/// `sysbench fileio help` (or `--help`): the test's options with their defaults.
pub const HELP: &str = "usage: fathom suite sysbench [fileio] [options] prepare|run|cleanup
  (or fathom linked as sysbench: sysbench fileio [options] prepare|run|cleanup)

fileio options [default]:
  --file-num=N                  files to create [128]
  --file-block-size=N           bytes per I/O request [16384]
  --file-total-size=SIZE        size of all the files together [2G]
  --file-test-mode=STRING       seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw (required for run)
  --file-io-mode=STRING         sync, async or mmap [sync]
  --file-async-backlog=N        requests in flight per thread in async mode [128]
  --file-extra-flags=LIST       sync, dsync, direct: flags the files are opened with []
  --file-fsync-freq=N           fsync after this many requests, 0 never [100]
  --file-fsync-all[=on|off]     fsync after every write [off]
  --file-fsync-end[=on|off]     fsync at the end of the test [on]
  --file-fsync-mode=STRING      fsync or fdatasync [fsync]
  --file-merged-requests=N      merged requests (fathom takes 0 only) [0]
  --file-rw-ratio=N             reads per write in rndrw [1.5]

general options:
  --threads=N (--num-threads)   worker threads [1]
  --time=N (--max-time)         seconds to run, 0 no limit [10]
  --events=N (--max-requests)   requests in all, 0 no limit [0]
  --dir=DIR                     where the files are (fathom's) [.]

e.g. fathom suite sysbench fileio --file-total-size=1G --file-test-mode=rndrw --time=60 run";

pub fn main(args: &[String]) -> Result<super::Outcome> {
    if args
        .iter()
        .any(|a| a == "--help" || a == "-h" || a == "help")
    {
        println!("{HELP}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    match o.command.as_str() {
        "prepare" => print!("{}", prepare(&o)?),
        "cleanup" => print!("{}", cleanup(&o)?),
        _ => {
            let (s, failed, metrics) = run(&o)?;
            print!("{s}");
            return Ok((u8::from(failed), metrics));
        }
    }
    Ok((0, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysbench_defaults_and_options() {
        let o = parse(&[
            "fileio".into(),
            "run".into(),
            "--file-test-mode=rndrw".into(),
        ])
        .unwrap();
        assert_eq!(
            (o.file_num, o.block, o.total, o.fsync_freq),
            (128, 16384, 2 << 30, 100)
        );
        assert_eq!((o.rw_ratio, o.time, o.threads), (1.5, 10, 1));
        let e = parse(&["run".into(), "--file-test-mode=bogus".into()]).unwrap_err();
        assert!(e.to_string().contains("rndrw"), "{e}");
        assert!(parse(&["--file-num=4".into()])
            .unwrap_err()
            .to_string()
            .contains("prepare"));
        assert!(parse(&["run".into(), "--nope=1".into()]).is_err());
        assert_eq!(size("16K").unwrap(), 16384);
    }
}
