//! `fathom suite cdm`: CrystalDiskMark 8's tests (sequential 1 MiB and random 4 KiB at
//! several queue depths and thread counts), each read then written on one test file with
//! direct I/O, the best of `--loops` runs reported in MB/s (decimal) and IOPS, as
//! CrystalDiskMark reports them.

use anyhow::{bail, Result};
use fathom::{Engine, Job, RwKind};
use std::time::Duration;

/// One CrystalDiskMark test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Test {
    /// Label, e.g. `SEQ1M Q8T1`.
    pub label: &'static str,
    /// Sequential (else random).
    pub seq: bool,
    /// Block size.
    pub bs: u64,
    /// Queue depth per thread.
    pub q: u32,
    /// Threads.
    pub t: u32,
}

const fn test(label: &'static str, seq: bool, bs: u64, q: u32, t: u32) -> Test {
    Test {
        label,
        seq,
        bs,
        q,
        t,
    }
}

/// CrystalDiskMark 8's default profile.
pub const DEFAULT: [Test; 4] = [
    test("SEQ1M Q8T1", true, 1 << 20, 8, 1),
    test("SEQ1M Q1T1", true, 1 << 20, 1, 1),
    test("RND4K Q32T1", false, 4096, 32, 1),
    test("RND4K Q1T1", false, 4096, 1, 1),
];

/// CrystalDiskMark 8's NVMe SSD profile.
pub const NVME: [Test; 4] = [
    test("SEQ1M Q8T1", true, 1 << 20, 8, 1),
    test("SEQ128K Q32T1", true, 128 << 10, 32, 1),
    test("RND4K Q32T16", false, 4096, 32, 16),
    test("RND4K Q1T1", false, 4096, 1, 1),
];

/// Options of the suite.
#[derive(Debug, Clone)]
pub struct Opts {
    /// Directory for the test file.
    pub dir: std::path::PathBuf,
    /// Test file size.
    pub size: u64,
    /// Measurement runs per test (the best is reported).
    pub loops: u32,
    /// Time per measurement run.
    pub runtime: Duration,
    /// The profile.
    pub tests: Vec<Test>,
    /// Engine for queue depths above 1.
    pub engine: Engine,
}

/// Best (bytes/s, IOPS) of each test and direction.
#[derive(Debug, Clone, Copy, Default)]
pub struct Score {
    /// Read bytes/s.
    pub read_bw: f64,
    /// Read IOPS.
    pub read_iops: f64,
    /// Write bytes/s.
    pub write_bw: f64,
    /// Write IOPS.
    pub write_iops: f64,
}

fn measure(o: &Opts, t: &Test, write: bool, file: &std::path::Path) -> Result<(f64, f64)> {
    let rw = match (t.seq, write) {
        (true, false) => RwKind::Read,
        (true, true) => RwKind::Write,
        (false, false) => RwKind::RandRead,
        (false, true) => RwKind::RandWrite,
    };
    let engine = if t.q > 1 {
        o.engine.clone()
    } else {
        Engine::Psync
    };
    let job = Job::builder(t.label)
        .engine(engine)
        .rw(rw)
        .bs(t.bs)
        .iodepth(t.q)
        .numjobs(t.t)
        .filename(file)
        .size(o.size)
        .direct(true)
        .time_based()
        .runtime(o.runtime)
        .flag("group_reporting")
        .build()?;
    let what = format!("{} {}", t.label, if write { "write" } else { "read" });
    let j = super::run_step(job, &what)?;
    let d = &j.stats.dirs[usize::from(write)];
    let secs = j.stats.runtime.as_secs_f64().max(1e-9);
    Ok((d.bytes as f64 / secs, d.ios as f64 / secs))
}

/// Run every test `loops` times; keep the best of each.
pub fn run_tests(o: &Opts) -> Result<Vec<(Test, Score)>> {
    std::fs::create_dir_all(&o.dir)?;
    let file = o.dir.join("fathom-cdm.tmp");
    let existed = file.exists();
    let result = (|| {
        let mut out = Vec::new();
        for t in &o.tests {
            if super::stopped() {
                // A signal: the tests finished so far are reported.
                break;
            }
            let mut s = Score::default();
            for _ in 0..o.loops.max(1) {
                let (bw, iops) = match measure(o, t, false, &file) {
                    Ok(x) => x,
                    Err(_) if super::stopped() => break,
                    Err(e) => return Err(e),
                };
                if bw > s.read_bw {
                    (s.read_bw, s.read_iops) = (bw, iops);
                }
            }
            for _ in 0..o.loops.max(1) {
                let (bw, iops) = match measure(o, t, true, &file) {
                    Ok(x) => x,
                    Err(_) if super::stopped() => break,
                    Err(e) => return Err(e),
                };
                if bw > s.write_bw {
                    (s.write_bw, s.write_iops) = (bw, iops);
                }
            }
            if !super::stopped() {
                out.push((*t, s));
            }
        }
        Ok(out)
    })();
    if !existed {
        let _ = std::fs::remove_file(&file);
    }
    result
}

/// The result table.
pub fn table(o: &Opts, scores: &[(Test, Score)]) -> String {
    let mut s = format!(
        "fathom cdm: {} MiB test file in {}, best of {} x {} s, direct I/O\n\n\
         {:<14} {:>12} {:>12} {:>12} {:>12}\n",
        o.size >> 20,
        o.dir.display(),
        o.loops,
        o.runtime.as_secs_f64(),
        "",
        "Read MB/s",
        "Write MB/s",
        "Read IOPS",
        "Write IOPS"
    );
    for (t, sc) in scores {
        s.push_str(&format!(
            "{:<14} {:>12.2} {:>12.2} {:>12.2} {:>12.2}\n",
            t.label,
            sc.read_bw / 1e6,
            sc.write_bw / 1e6,
            sc.read_iops,
            sc.write_iops
        ));
    }
    s
}

/// Parse `fathom suite cdm` arguments.
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts {
        dir: std::path::PathBuf::from("."),
        size: 1 << 30,
        loops: 5,
        runtime: Duration::from_secs(5),
        tests: DEFAULT.to_vec(),
        engine: Engine::Libaio,
    };
    let mut opts = super::Opts::new(args);
    while let Some((k, a, inline)) = opts.next_opt() {
        let mut val = || opts.value(k, inline.clone());
        match k {
            "--dir" | "--directory" => o.dir = val()?.into(),
            "--size" => {
                o.size = fathom_job::units::parse_size(&val()?, 1024, fathom_job::Dialect::Fio)
                    .map_err(|e| anyhow::anyhow!("--size: {e}"))?
            }
            "--loops" => o.loops = val()?.parse().map_err(|_| anyhow::anyhow!("--loops: a number"))?,
            "--runtime" => {
                o.runtime = fathom_job::units::parse_time(&val()?, fathom_job::units::TimeUnit::Seconds)
                    .map_err(|e| anyhow::anyhow!("--runtime: {e}"))?
            }
            "--profile" => {
                o.tests = match val()?.as_str() {
                    "default" => DEFAULT.to_vec(),
                    "nvme" => NVME.to_vec(),
                    p => bail!("--profile={p}: use default or nvme"),
                }
            }
            "--ioengine" => {
                o.engine = match val()?.as_str() {
                    "libaio" => Engine::Libaio,
                    "io_uring" => Engine::IoUring,
                    e => bail!("--ioengine={e}: use libaio or io_uring"),
                }
            }
            _ => bail!(
                "unknown option '{a}'{} (use --dir, --size, --loops, --runtime, --profile, --ioengine)",
                super::did_you_mean(a, &["--dir", "--directory", "--size", "--loops", "--runtime", "--profile", "--ioengine"])
            ),
        }
    }
    if o.loops == 0 {
        bail!("--loops must be at least 1");
    }
    Ok(o)
}

/// `--help`: cdm's options.
pub const HELP: &str = "usage: fathom suite cdm [--dir=DIR] [--size=SIZE] [--loops=N] [--runtime=T]
                        [--profile=default|nvme] [--ioengine=ENGINE]
CrystalDiskMark 8's tests with direct I/O on one test file: SEQ1M Q8T1, SEQ1M Q1T1,
RND4K Q32T1 and RND4K Q1T1 (nvme: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K
Q1T1), each read then written; the best of the loops in MB/s and IOPS.
  --dir=DIR         where the test file goes [.]
  --size=SIZE       the test file [1g]
  --loops=N         runs of each test, the best reported [5]
  --runtime=T       each run's length [5s]
  --profile=NAME    default or nvme [default]
  --ioengine=NAME   the engine [libaio]
e.g. fathom suite cdm --dir=/mnt/disk --size=1g --loops=3 --runtime=5";

/// Run `fathom suite cdm`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{HELP}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    let scores = run_tests(&o)?;
    print!("{}", table(&o, &scores));
    let mut m = Vec::new();
    for (t, sc) in &scores {
        m.push((format!("{} read MB/s", t.label), sc.read_bw / 1e6));
        m.push((format!("{} write MB/s", t.label), sc.write_bw / 1e6));
    }
    Ok((0, m))
}
