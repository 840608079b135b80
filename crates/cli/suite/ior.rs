//! `fathom suite ior`: IOR's write-then-read test by `--tasks` threads, file per task
//! (`--file-per-proc`, N-N) or one shared file (N-1, segmented as IOR lays it out:
//! segment s of task t at s×(tasks×block) + t×block), with IOR's block (`-b`), transfer
//! (`-t`), segment (`-s`) sizes and repetitions (`-i`), and IOR's results table and
//! "Max Write/Max Read" summary. Across hosts, run it under `mpirun` with the
//! `mpi` build: every rank runs the same tasks (see the MPI section of the README).

use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, Runner, RwKind};

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
    let mut b = Job::builder(if write { "write" } else { "read" })
        .engine(Engine::Psync)
        .rw(if write { RwKind::Write } else { RwKind::Read })
        .bs(o.transfer)
        .numjobs(o.tasks)
        .directory(&o.dir)
        .direct(o.direct)
        .option("number_ios", xfers_per_task.to_string())
        .flag("group_reporting");
    if o.file_per_proc {
        b = b.option("filename_format", "ior.$jobnum").size(per_task);
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
                .option("filename", "ior.shared")
                .option("offset_increment", o.block.to_string())
                // Each task's region ends with its last block, the last task's at the end
                // of the file, so the file is exactly tasks x block x segments long.
                .size(file_len - hole);
        } else {
            b = b
                .option("filename", "ior.shared")
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
    let r = Runner::new(b.build()?).run()?;
    let j = &r.jobs[0];
    if let Some(e) = &j.error_text {
        bail!("{} phase: {e}", if write { "write" } else { "read" });
    }
    let d = &j.stats.dirs[usize::from(write)];
    let want = xfers_per_task * o.tasks as u64;
    if d.ios != want {
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
    };
    let mut opts = super::Opts::new(args);
    while let Some((k, a, inline)) = opts.next_opt() {
        let mut val = || opts.value(k, inline.clone());
        match k {
            "-o" | "--dir" => o.dir = val()?.into(),
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
            _ => bail!("unknown option '{a}' (use -o, -N, -b, -t, -s, -i, -F, -e, -k, --direct)"),
        }
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
    let _ = std::fs::remove_file(o.dir.join("ior.shared"));
    for t in 0..o.tasks {
        let _ = std::fs::remove_file(o.dir.join(format!("ior.{t}")));
    }
}

/// Run `fathom suite ior`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    let o = parse(args)?;
    std::fs::create_dir_all(&o.dir)?;
    let mib = |b: f64| b / 1048576.0;
    let mut s = format!(
        "fathom {} (IOR method)\n\n\
         Options:\n\
         api                 : POSIX (psync{})\n\
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
        if o.direct { ", O_DIRECT" } else { "" },
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
            let w = phase(&o, true)?;
            let r = phase(&o, false)?;
            for (name, p) in [("write", w), ("read", r)] {
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
            writes.push(w.bw);
            reads.push(r.bw);
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
    let (wmax, wmin, wmean, wsd) = stats(&writes);
    let (rmax, rmin, rmean, rsd) = stats(&reads);
    s.push_str(&format!(
        "\nMax Write: {:.2} MiB/sec ({:.2} MB/sec)\nMax Read:  {:.2} MiB/sec ({:.2} MB/sec)\n\n\
         Summary of all tests:\n\
         Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   #Tasks  tPN  reps\n\
         write     {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8} {:>4} {:>5}\n\
         read      {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8} {:>4} {:>5}\n",
        mib(wmax),
        wmax / 1e6,
        mib(rmax),
        rmax / 1e6,
        mib(wmax),
        mib(wmin),
        mib(wmean),
        mib(wsd),
        o.tasks,
        o.tasks,
        o.iterations,
        mib(rmax),
        mib(rmin),
        mib(rmean),
        mib(rsd),
        o.tasks,
        o.tasks,
        o.iterations
    ));
    print!("{s}");
    Ok((
        0,
        vec![
            ("Max Write (MiB/s)".to_string(), mib(wmax)),
            ("Max Read (MiB/s)".to_string(), mib(rmax)),
        ],
    ))
}
