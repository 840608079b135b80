//! `fathom suite ior`: IOR's write-then-read test by `--tasks` threads, file per task
//! (`--file-per-proc`, N-N) or one shared file (N-1, segmented as IOR lays it out:
//! segment s of task t at s×(tasks×block) + t×block), with IOR's block (`-b`), transfer
//! (`-t`), segment (`-s`) sizes and repetitions (`-i`), and IOR's results table and
//! "Max Write/Max Read" summary. Across hosts, run it under `mpirun` with the
//! `mpi` build: every rank runs the same tasks (see the MPI section of the README).

use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, RwKind};

/// Options (IOR's names).
#[derive(Debug, Clone)]
pub struct Opts {
    /// Directory of the test file(s).
    pub dir: std::path::PathBuf,
    /// Tasks (threads).
    pub tasks: u32,
    /// Block size per task per segment.
    pub block: u64,
    /// Transfer size.
    pub transfer: u64,
    /// Segments.
    pub segments: u64,
    /// Repetitions.
    pub iterations: u32,
    /// File per task (N-N) instead of one shared file (N-1).
    pub file_per_proc: bool,
    /// O_DIRECT.
    pub direct: bool,
    /// fsync after the write phase.
    pub fsync: bool,
    /// Keep the files afterwards.
    pub keep: bool,
    /// `-o FILE`: the test file's name (IOR's testFile; N-N files are FILE.TASK). None:
    /// `-o` named a directory (fathom's older spelling), files ior.shared / ior.TASK.
    pub name: Option<String>,
    /// `-a`: POSIX (psync) or MMAP (mmap).
    pub mmap: bool,
    /// `-w` / `-r`: the phases to run (neither given: both).
    pub write: bool,
    /// Read phase.
    pub read: bool,
    /// `-Y`: fsync after every write.
    pub fsync_each: bool,
    /// `-z`: random offsets within each task's blocks.
    pub random: bool,
    /// `-d S`: seconds between iterations.
    pub delay: u64,
    /// `-E`: use the existing file (do not remove it first).
    pub existing: bool,
}

/// One phase of one iteration.
#[derive(Debug, Clone, Copy)]
pub struct Phase {
    /// Bytes/s over the whole phase.
    pub bw: f64,
    /// Transfers per second.
    pub iops: f64,
    /// Mean latency per transfer, seconds.
    pub latency: f64,
    /// Phase time, seconds.
    pub secs: f64,
}

fn phase(o: &Opts, write: bool) -> Result<Phase> {
    let per_task = o.block * o.segments;
    let xfers_per_task = per_task / o.transfer;
    let kind = match (write, o.random) {
        (true, false) => RwKind::Write,
        (true, true) => RwKind::RandWrite,
        (false, false) => RwKind::Read,
        (false, true) => RwKind::RandRead,
    };
    let mut b = Job::builder(if write { "write" } else { "read" })
        .engine(if o.mmap { Engine::Mmap } else { Engine::Psync })
        .rw(kind)
        .bs(o.transfer)
        .numjobs(o.tasks)
        .directory(&o.dir)
        .direct(o.direct)
        .option("number_ios", xfers_per_task.to_string())
        .flag("group_reporting");
    if o.random && !o.file_per_proc && o.segments > 1 {
        bail!("-z (random offsets) with a segmented shared file is not supported; use -F or -s 1");
    }
    if write && o.fsync_each {
        b = b.option("fsync", "1");
    }
    if o.file_per_proc {
        b = b
            .option("filename_format", format!("{}.$jobnum", o.file_name()))
            .size(per_task);
    } else {
        let file_len = per_task * o.tasks as u64;
        if o.segments > 1 {
            // Segmented: after each block, skip the other tasks' blocks.
            let hole = (o.tasks as u64 - 1) * o.block;
            if o.transfer != o.block && hole > 0 {
                bail!(
                    "a shared file with --segments > 1 needs --transfer equal to --block \
                     (fathom's holes follow each transfer); use --file-per-proc or -t = -b"
                );
            }
            b = b
                .option(
                    "rw",
                    if write {
                        format!("write:{hole}")
                    } else {
                        format!("read:{hole}")
                    },
                )
                .option("filename", o.shared_name())
                .option("offset_increment", o.block.to_string())
                // Each task's region ends with its last block, the last task's at the end
                // of the file, so the file is exactly tasks x block x segments long.
                .size(file_len - hole);
        } else {
            b = b
                .option("filename", o.shared_name())
                .option("offset_increment", per_task.to_string())
                .size(per_task);
        }
    }
    if write && o.fsync {
        b = b.option("end_fsync", "1");
    }
    if !write {
        b = b.option("invalidate", "1");
    }
    let what = if write { "write phase" } else { "read phase" };
    let j = super::run_step(b.build()?, what)?;
    let d = &j.stats.dirs[usize::from(write)];
    let want = xfers_per_task * o.tasks as u64;
    if d.ios != want && !super::stopped() {
        bail!(
            "{} phase did {} transfers, expected {want}",
            if write { "write" } else { "read" },
            d.ios
        );
    }
    let secs = j
        .elapsed
        .as_secs_f64()
        .max(j.stats.runtime.as_secs_f64())
        .max(1e-9);
    Ok(Phase {
        bw: d.bytes as f64 / secs,
        iops: d.ios as f64 / secs,
        latency: d.lat.mean() / 1e9,
        secs,
    })
}

impl Opts {
    fn file_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "ior".into())
    }
    fn shared_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "ior.shared".into())
    }
}

/// IOR's usage, as far as fathom takes it.
pub const USAGE: &str = "usage: fathom suite ior [-a POSIX|MMAP] [-b blockSize] [-t transferSize]
      [-s segmentCount] [-i repetitions] [-N numTasks] [-o testFile] [-F] [-w] [-r]
      [-e] [-Y] [-k] [-z] [-C] [-g] [-v] [-d delay] [-E]
  -a api (POSIX: pread/pwrite, MMAP: mapped)   -b bytes per task per segment (1m)
  -t bytes per transfer (256k)  -s segments (1)  -i repetitions (1)  -N tasks (1)
  -o test file (testFile; N-N files are testFile.TASK; a directory: files in it)
  -F file per task  -w write only  -r read only  -e fsync after the write phase
  -Y fsync after every write  -k keep the files  -z random offsets  -d seconds between
  repetitions  -E use the existing file  -C -g -v accepted (see README)
  e.g. mpirun -np 4 fathom suite ior -a POSIX -b 64k -F -i 10 -s 200 -t 4k";

fn size(v: &str) -> Result<u64> {
    fathom_job::units::parse_size(v, 1024, fathom_job::Dialect::Fio)
        .map_err(|e| anyhow!("'{v}': {e}"))
}

/// Parse `fathom suite ior` options (IOR's short and long names).
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts {
        dir: ".".into(),
        tasks: 1,
        block: 1 << 20,
        transfer: 256 << 10,
        segments: 1,
        iterations: 1,
        file_per_proc: false,
        direct: false,
        fsync: false,
        keep: false,
        name: None,
        mmap: false,
        write: false,
        read: false,
        fsync_each: false,
        random: false,
        delay: 0,
        existing: false,
    };
    let mut opts = super::Opts::new(args);
    while let Some((k, a, inline)) = opts.next_opt() {
        let mut val = || opts.value(k, inline.clone());
        match k {
            "--dir" => o.dir = val()?.into(),
            "-o" | "--testFile" => {
                // IOR: the test file; an existing directory keeps fathom's older meaning.
                let (dir, file) = super::file_arg(val()?.into());
                o.dir = dir;
                if let Some(f) = file {
                    o.name = f.file_name().map(|n| n.to_string_lossy().into_owned());
                }
            }
            "-a" | "--api" => match val()?.to_ascii_uppercase().as_str() {
                "POSIX" => o.mmap = false,
                "MMAP" => o.mmap = true,
                other => bail!(
                    "-a {other}: fathom runs IOR's POSIX and MMAP interfaces; MPIIO, HDF5, \
                     NCMPI and the object-store APIs need their libraries (use -a POSIX)"
                ),
            },
            "-w" | "--writeFile" => o.write = true,
            "-r" | "--readFile" => o.read = true,
            "-Y" | "--fsyncPerWrite" => o.fsync_each = true,
            "-z" | "--randomOffset" => o.random = true,
            "-E" | "--useExistingTestFile" => o.existing = true,
            "-d" | "--interTestDelay" => {
                o.delay = val()?.parse().map_err(|_| anyhow!("-d: seconds"))?
            }
            // Accepted: -C (another task reads each block back: fathom's tasks share one
            // page cache, which the read phase drops anyway), -g (the phases start
            // together already), -v (fathom's table is the verbose one).
            "-C" | "--reorderTasks" | "-g" | "--intraTestBarriers" | "-v" | "--verbose" => {}
            "-h" | "--help" => bail!("{USAGE}"),
            "-c" | "--collective" => {
                bail!("-c (collective I/O) needs MPI-IO: use -a POSIX without -c")
            }
            "-W" | "--checkWrite" | "-R" | "--checkRead" => bail!(
                "{k} (IOR's data check) is not supported here: verify data with a fathom job \
                 (verify=crc32c) over the same files"
            ),
            "-u" | "--uniqueDir" | "-m" | "--multiFile" | "-Q" | "-O" => {
                bail!("{k} is not supported by fathom's IOR method\n{USAGE}")
            }
            "-N" | "--tasks" => {
                o.tasks = val()?.parse().map_err(|_| anyhow!("--tasks: a number"))?
            }
            "-b" | "--block" => o.block = size(&val()?)?,
            "-t" | "--transfer" => o.transfer = size(&val()?)?,
            "-s" | "--segments" => {
                o.segments = val()?
                    .parse()
                    .map_err(|_| anyhow!("--segments: a number"))?
            }
            "-i" | "--iterations" => {
                o.iterations = val()?
                    .parse()
                    .map_err(|_| anyhow!("--iterations: a number"))?
            }
            "-F" | "--file-per-proc" => o.file_per_proc = true,
            "--direct" | "--posix.odirect" => o.direct = true,
            "-e" | "--fsync" => o.fsync = true,
            "-k" | "--keep" => o.keep = true,
            _ => bail!("unknown option '{a}'\n{USAGE}"),
        }
    }
    if !o.write && !o.read {
        o.write = true;
        o.read = true;
    }
    if o.tasks == 0 || o.segments == 0 || o.iterations == 0 {
        bail!("--tasks, --segments and --iterations must be at least 1");
    }
    if o.transfer == 0 || o.block % o.transfer != 0 {
        bail!("--block must be a multiple of --transfer (IOR's rule)");
    }
    Ok(o)
}

fn cleanup(o: &Opts) {
    if o.keep {
        return;
    }
    let _ = std::fs::remove_file(o.dir.join(o.shared_name()));
    for t in 0..o.tasks {
        let _ = std::fs::remove_file(o.dir.join(format!("{}.{t}", o.file_name())));
    }
}

/// Run `fathom suite ior`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    std::fs::create_dir_all(&o.dir)?;
    if !o.write {
        // -r alone reads what an earlier -w -k run left.
        let first = if o.file_per_proc {
            o.dir.join(format!("{}.0", o.file_name()))
        } else {
            o.dir.join(o.shared_name())
        };
        if !first.exists() {
            bail!(
                "-r without -w reads existing test files, and {} does not exist: write them \
                 first with -w -k",
                first.display()
            );
        }
    }
    let mib = |b: f64| b / 1048576.0;
    let mut s = format!(
        "fathom {} (IOR method)\n\n\
         Options:\n\
         api                 : {}\n\
         access              : {}\n\
         tasks               : {}\n\
         segments            : {}\n\
         blocksize           : {} KiB\n\
         xfersize            : {} KiB\n\
         aggregate filesize  : {:.2} MiB\n\
         repetitions         : {}\n\n\
         Results:\n\n\
         access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  total(s)   iter\n\
         ------    ---------  ----       ----------  ---------- ---------  --------   ----\n",
        fathom::VERSION,
        match (o.mmap, o.direct) {
            (true, _) => "MMAP (mmap)".to_string(),
            (false, d) => format!("POSIX (psync{})", if d { ", O_DIRECT" } else { "" }),
        },
        if o.file_per_proc {
            "file-per-process"
        } else {
            "single-shared-file"
        },
        o.tasks,
        o.segments,
        o.block >> 10,
        o.transfer >> 10,
        mib((o.block * o.segments * o.tasks as u64) as f64),
        o.iterations
    );
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let result = (|| -> Result<()> {
        for i in 0..o.iterations {
            if super::stopped() {
                break;
            }
            if i > 0 && o.delay > 0 {
                std::thread::sleep(std::time::Duration::from_secs(o.delay));
            }
            let w = if o.write {
                Some(phase(&o, true)?)
            } else {
                None
            };
            // A phase cut short by a signal is not reported (its figures are partial).
            let w = w.filter(|_| !super::stopped());
            let r = if o.read && !super::stopped() {
                Some(phase(&o, false)?)
            } else {
                None
            };
            let r = r.filter(|_| !super::stopped());
            for (name, p) in [("write", w), ("read", r)] {
                let Some(p) = p else { continue };
                s.push_str(&format!(
                    "{name:<9} {:<10.2} {:<10.2} {:<11.6} {:<10} {:<10} {:<10.5} {i}\n",
                    mib(p.bw),
                    p.iops,
                    p.latency,
                    o.block >> 10,
                    o.transfer >> 10,
                    p.secs
                ));
            }
            writes.extend(w.map(|p| p.bw));
            reads.extend(r.map(|p| p.bw));
        }
        Ok(())
    })();
    cleanup(&o);
    result?;
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let max = v.iter().copied().fold(0.0, f64::max);
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        (max, min, mean, sd)
    };
    // Only the phases that ran (-w / -r), as IOR prints them.
    let phases: Vec<(&str, &str, &Vec<f64>)> =
        [("Write", "write", &writes), ("Read", "read", &reads)]
            .into_iter()
            .filter(|(_, _, v)| !v.is_empty())
            .collect();
    s.push('\n');
    for (title, _, v) in &phases {
        let (max, ..) = stats(v);
        let pad = if *title == "Read" { "  " } else { " " };
        s.push_str(&format!(
            "Max {title}:{pad}{:.2} MiB/sec ({:.2} MB/sec)\n",
            mib(max),
            max / 1e6
        ));
    }
    s.push_str(
        "\nSummary of all tests:\n\
         Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   #Tasks  tPN  reps\n",
    );
    for (_, name, v) in &phases {
        let (max, min, mean, sd) = stats(v);
        s.push_str(&format!(
            "{name:<9} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8} {:>4} {:>5}\n",
            mib(max),
            mib(min),
            mib(mean),
            mib(sd),
            o.tasks,
            o.tasks,
            o.iterations
        ));
    }
    print!("{s}");
    Ok((
        0,
        phases
            .iter()
            .map(|(title, _, v)| (format!("Max {title} (MiB/s)"), mib(stats(v).0)))
            .collect(),
    ))
}
