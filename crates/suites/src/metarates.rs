//! `fathom suite metarates` (or fathom linked as `metarates`): NCAR's MPI metadata
//! benchmark. Every rank (under `mpirun`; one process otherwise) works on its share of
//! `-n` files in `-d` (one folder for all, or a folder per rank with `-u`) and the rates
//! of three system calls are measured, each phase started together on every rank:
//!
//! - `-C`: creat() and close() (with fsync() between them under `-s`);
//! - `-S`: stat(), on files rank 0 created beforehand for every rank;
//! - `-U`: utime() to the current time, on files made the same way.
//!
//! Rank 0 prints the run parameters and, per phase, metarates' line: the fastest and the
//! slowest rank's rate, the average rank's rate (files per rank over the mean time) and the
//! total rate (every rank at the slowest rank's pace). Files go between phases and at the
//! end unless `-k` keeps them.

use anyhow::{anyhow, bail, Context, Result};
use fathom::Cluster;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// metarates' options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opts {
    /// `-d`: the directory of the test files.
    pub dir: PathBuf,
    /// `-n`: files in all, split evenly over the ranks.
    pub files: u64,
    /// `-k`: keep the files between phases and at the end.
    pub keep: bool,
    /// `-u`: a folder per rank (DIR/RANK).
    pub unique: bool,
    /// `-C`: measure creates (creat + close).
    pub creates: bool,
    /// `-S`: measure stats.
    pub stats: bool,
    /// `-U`: measure utimes.
    pub utimes: bool,
    /// `-s`: fsync before each close in the create phase.
    pub fsync: bool,
    /// `-r`: repetitions of each phase.
    pub reps: u32,
}

/// metarates' usage, with what fathom adds.
pub const USAGE: &str = "usage: metarates -d dirname -n numfiles [-k] [-u] [-C] [-U] [-S] [-s]
  measures metadata transaction rates (fathom's metarates: NCAR's benchmark under mpirun,
  or one process without it)
  -d dirname   the directory where the test files are made
  -n numfiles  the total number of files the operations work on (split evenly over the
               MPI ranks; it must divide by their number)
  -k           keep the test files between tests and at the end
  -u           each rank uses its own folder (dirname/RANK); otherwise one folder for all
  -C           measure creates per second (creat and close)
  -U           measure utime calls per second
  -S           measure stat calls per second
  -s           fsync each file before its close in the create test
fathom's additions:
  -f           as -s            -a  all three tests (-C -U -S)
  -r N         repeat each test N times (a line each)
e.g. mpirun -np 4 -machinefile ./machinefile fathom suite metarates -d junk -n 1000000 -C -U -S";

/// Parse metarates' command line (getopt's rules: `-CUS` bundles flags, `-n1000` and
/// `-n 1000` both give a value).
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts {
        reps: 1,
        ..Default::default()
    };
    let mut dir = None;
    let mut files = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) else {
            bail!("'{a}': metarates takes no arguments besides its options\n{USAGE}");
        };
        for (i, c) in flags.char_indices() {
            match c {
                'k' => o.keep = true,
                'u' => o.unique = true,
                'C' => o.creates = true,
                'S' => o.stats = true,
                'U' => o.utimes = true,
                's' | 'f' => o.fsync = true,
                'a' => (o.creates, o.stats, o.utimes) = (true, true, true),
                'd' | 'n' | 'r' => {
                    let rest = &flags[i + c.len_utf8()..];
                    let v = if rest.is_empty() {
                        it.next()
                            .cloned()
                            .ok_or_else(|| anyhow!("-{c} needs a value\n{USAGE}"))?
                    } else {
                        rest.to_string()
                    };
                    match c {
                        'd' => dir = Some(PathBuf::from(v)),
                        'n' => {
                            files = Some(v.parse::<u64>().map_err(|_| {
                                anyhow!("-n {v}: the number of files, a whole number")
                            })?)
                        }
                        _ => {
                            o.reps = v
                                .parse()
                                .ok()
                                .filter(|&r| r > 0)
                                .ok_or_else(|| anyhow!("-r {v}: repetitions, at least 1"))?
                        }
                    }
                    break;
                }
                'h' => bail!("{USAGE}"),
                other => bail!(
                    "unknown option '-{other}' (in '{a}'){}\n{USAGE}",
                    super::did_you_mean(
                        &format!("-{other}"),
                        &["-d", "-n", "-k", "-u", "-C", "-S", "-U", "-s", "-f", "-a", "-r", "-h"]
                    )
                ),
            }
        }
    }
    o.dir = dir.ok_or_else(|| anyhow!("-d dirname is needed\n{USAGE}"))?;
    o.files = files.ok_or_else(|| anyhow!("-n numfiles is needed\n{USAGE}"))?;
    if o.files == 0 {
        bail!("-n 0: no files to work on");
    }
    if !(o.creates || o.stats || o.utimes) {
        bail!("no test chosen: give -C (creates), -U (utimes) and/or -S (stats)\n{USAGE}");
    }
    Ok(o)
}

/// What one test measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Test {
    Create,
    Stat,
    Utime,
}

impl Test {
    /// metarates' heading and unit for the test.
    fn heading(self) -> (&'static str, &'static str) {
        match self {
            Test::Create => ("created and closed", "creates"),
            Test::Stat => ("stat'd", "stats"),
            Test::Utime => ("utime'd", "utimes"),
        }
    }
}

/// One test's figures over every rank (per-rank times in seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// The fastest rank's rate (files per rank over its time).
    pub max: f64,
    /// The slowest rank's rate.
    pub min: f64,
    /// Files per rank over the mean of the ranks' times.
    pub avg: f64,
    /// The whole run at the slowest rank's pace: every rank's files over the longest time.
    pub total: f64,
}

/// metarates' four rates from each rank's time for `per_rank` files.
pub fn rates(per_rank: u64, times: &[f64]) -> Rates {
    let n = per_rank as f64;
    let tiny = 1e-9;
    let longest = times.iter().copied().fold(tiny, f64::max);
    let shortest = times
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .max(tiny);
    let sum = times.iter().sum::<f64>().max(tiny);
    Rates {
        max: n / shortest,
        min: n / longest,
        avg: n * times.len() as f64 / sum,
        total: n / longest * times.len() as f64,
    }
}

/// The lines metarates prints for one test.
fn report(test: Test, ranks: u32, r: Rates) -> String {
    let (what, unit) = test.heading();
    // The create and stat lines lack the comma before "avg rate" that the utime line has:
    // metarates prints them so, and parsers of its output split on these words.
    let comma = if test == Test::Utime { "," } else { "" };
    format!(
        "\nrates at which files can be {what} with {ranks} pes:\n\
         max rate = {:.6} {unit} per second, min rate = {:.6} {unit} per second{comma} \
         avg rate = {:.6} {unit} per second, total rate = {:.6} {unit} per second\n",
        r.max, r.min, r.avg, r.total
    )
}

/// The files rank `rank` works on.
fn file_list(o: &Opts, rank: u32, per_rank: u64) -> Vec<PathBuf> {
    let dir = if o.unique {
        o.dir.join(rank.to_string())
    } else {
        o.dir.clone()
    };
    (0..per_rank)
        .map(|i| dir.join(format!("n{rank}f{i}")))
        .collect()
}

/// creat(): one open system call (O_CREAT | O_WRONLY | O_TRUNC, mode 0666), the fsync
/// with -s, and the close.
fn create(path: &Path, fsync: bool) -> Result<()> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::CREATE | OFlags::WRONLY | OFlags::TRUNC | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )
    .with_context(|| format!("creat {}", path.display()))?;
    if fsync {
        rustix::fs::fsync(&fd).with_context(|| format!("fsync {}", path.display()))?;
    }
    drop(fd);
    Ok(())
}

fn stat(path: &Path) -> Result<()> {
    rustix::fs::stat(path).with_context(|| format!("stat {}", path.display()))?;
    Ok(())
}

fn utime(path: &Path) -> Result<()> {
    let now = rustix::fs::Timespec {
        tv_sec: 0,
        tv_nsec: rustix::fs::UTIME_NOW,
    };
    rustix::fs::utimensat(
        rustix::fs::CWD,
        path,
        &rustix::fs::Timestamps {
            last_access: now,
            last_modification: now,
        },
        rustix::fs::AtFlags::empty(),
    )
    .with_context(|| format!("utime {}", path.display()))?;
    Ok(())
}

/// One timed pass of `test` over this rank's files: the seconds it took, and whether a
/// signal cut it short (this rank's, which it tells the others, or another rank's).
fn pass(
    test: Test,
    o: &Opts,
    files: &[PathBuf],
    peers: Option<fathom::cluster::StopSignals>,
) -> Result<(f64, bool)> {
    let t0 = Instant::now();
    for (i, f) in files.iter().enumerate() {
        if i % 256 == 0 {
            if super::stopped() {
                if let Some(p) = peers {
                    (p.announce)();
                }
                return Ok((t0.elapsed().as_secs_f64(), true));
            }
            if peers.is_some_and(|p| (p.peer_stopped)()) {
                return Ok((t0.elapsed().as_secs_f64(), true));
            }
        }
        match test {
            Test::Create => create(f, o.fsync)?,
            Test::Stat => stat(f)?,
            Test::Utime => utime(f)?,
        }
    }
    Ok((t0.elapsed().as_secs_f64(), false))
}

fn remove(files: &[PathBuf]) -> Result<()> {
    for f in files {
        match std::fs::remove_file(f) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("unlink {}", f.display())),
        }
    }
    Ok(())
}

/// Run `fathom suite metarates` as one process.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    run_on(args, &fathom::cluster::Alone)
}

/// Run `fathom suite metarates` as one rank of `cl` (under `mpirun`).
pub fn run_on(args: &[String], cl: &dyn Cluster) -> Result<super::Outcome> {
    let root = cl.rank() == 0;
    if args.iter().any(|a| a == "-h" || a == "--help") {
        if root {
            println!("{USAGE}");
        }
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    let ranks = cl.size();
    if o.files % ranks as u64 != 0 {
        bail!(
            "number of files, {}, not divisible by number of processes {ranks}",
            o.files
        );
    }
    let per_rank = o.files / ranks as u64;
    if root {
        print!("{}", parameters(&o, per_rank));
    }
    let mine = file_list(&o, cl.rank(), per_rank);
    let result = tests(&o, cl, per_rank, &mine);
    // After an error or a stop (a signal here or on another rank) this rank's files go too
    // (each test removes its own when it ends), and with -u its folder, unless -k keeps
    // them.
    let cut = result.as_ref().map_or(true, |r| r.1) || super::stopped();
    if cut {
        let _ = remove(&mine);
    }
    if o.unique && (!o.keep || cut) {
        let _ = std::fs::remove_dir(o.dir.join(cl.rank().to_string()));
    }
    let (figures, _) = result?;
    Ok((0, figures))
}

/// The run parameters rank 0 prints first.
fn parameters(o: &Opts, per_rank: u64) -> String {
    let mut s = format!(
        "\n\nrun parameters:\ndirname = {}\ntotal number of files used in tests = {}\n\
         number of files used per process in tests = {per_rank}\n",
        o.dir.display(),
        o.files
    );
    if o.reps > 1 {
        s.push_str(&format!("repetitions = {}\n", o.reps));
    }
    s.push_str(if o.unique {
        "unique subdirectories will be used by each process\n"
    } else {
        "a common directory will be used by all processes\n"
    });
    s.push_str(if o.keep {
        "test files will NOT be removed between tests or at the end\n"
    } else {
        "test files will be removed between tests and at the end\n"
    });
    if o.creates {
        s.push_str("file creation rates will be measured\n");
        s.push_str(if o.fsync {
            "\tfsync will be called prior to close call\n"
        } else {
            "\tfsync will not be called prior to close call\n"
        });
    }
    if o.stats {
        s.push_str("file stat rates will be measured\n");
    }
    if o.utimes {
        s.push_str("file utime rates will be measured\n");
    }
    s
}

/// The chosen tests in metarates' order (create, stat, utime); the headline figures
/// (each test's total rate) for `--repeat`, and whether a stop cut the tests short.
fn tests(
    o: &Opts,
    cl: &dyn Cluster,
    per_rank: u64,
    mine: &[PathBuf],
) -> Result<(Vec<(String, f64)>, bool)> {
    let root = cl.rank() == 0;
    let ranks = cl.size();
    if root {
        // The folder, and with -u one per rank (rank 0 makes them all, as metarates).
        std::fs::create_dir_all(&o.dir).with_context(|| format!("mkdir {}", o.dir.display()))?;
        for r in (0..ranks).filter(|_| o.unique) {
            let d = o.dir.join(r.to_string());
            std::fs::create_dir_all(&d).with_context(|| format!("mkdir {}", d.display()))?;
        }
    }
    cl.barrier();
    let mut figures = Vec::new();
    for test in [Test::Create, Test::Stat, Test::Utime] {
        let chosen = match test {
            Test::Create => o.creates,
            Test::Stat => o.stats,
            Test::Utime => o.utimes,
        };
        if !chosen {
            continue;
        }
        if test != Test::Create && root {
            // As metarates: rank 0 makes every rank's files before a stat or utime test.
            for r in (0..ranks).rev() {
                for f in file_list(o, r, per_rank) {
                    create(&f, false)?;
                }
            }
        }
        let mut last = None;
        for _ in 0..o.reps {
            // Every rank starts together; a signal to any rank stops them all here.
            if cl.any(super::stopped()) {
                return Ok((figures, true));
            }
            let (secs, cut) = pass(test, o, mine, cl.stop_signals())?;
            let times = cl.gather_f64(&[secs, f64::from(u8::from(cut))]);
            if cl.any(cut) {
                return Ok((figures, true));
            }
            if root {
                let t: Vec<f64> = times.iter().map(|v| v[0]).collect();
                let r = rates(per_rank, &t);
                print!("{}", report(test, ranks, r));
                last = Some(r.total);
            }
        }
        if !o.keep {
            remove(mine)?;
        }
        if let Some(total) = last {
            let (_, unit) = test.heading();
            figures.push((format!("total {unit}/s"), total));
        }
        // The next test's files are made by rank 0 once every rank has removed these.
        cl.barrier();
    }
    Ok((figures, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn takes_metarates_command_line_and_getopt_bundles() {
        let o = parse(&args("-d junk -n 1000000 -C -U -S")).unwrap();
        assert_eq!(o.dir, PathBuf::from("junk"));
        assert_eq!(o.files, 1_000_000);
        assert!(o.creates && o.utimes && o.stats && !o.fsync && !o.keep && !o.unique);
        let b = parse(&args("-djunk -n1000 -CUSsku -r 3")).unwrap();
        assert_eq!(b.files, 1000);
        assert!(b.creates && b.utimes && b.stats && b.fsync && b.keep && b.unique);
        assert_eq!(b.reps, 3);
        assert_eq!(parse(&args("-d x -n 4 -a -f")).unwrap(), {
            let mut e = parse(&args("-d x -n 4 -C -S -U -s")).unwrap();
            e.reps = 1;
            e
        });
        for (bad, says) in [
            ("-n 10 -C", "-d dirname"),
            ("-d x -C", "-n numfiles"),
            ("-d x -n 10", "no test chosen"),
            ("-d x -n ten -C", "-n ten"),
            ("-d x -n 10 -C -q", "unknown option '-q'"),
            ("-d x -n 10 -C extra", "'extra'"),
            ("-d x -n 10 -C -r 0", "-r 0"),
            ("-d x -n", "-n needs a value"),
        ] {
            let e = parse(&args(bad)).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn rates_are_metarates_max_min_avg_and_total() {
        // 1000 files a rank; ranks took 1 s, 2 s and 4 s.
        let r = rates(1000, &[1.0, 2.0, 4.0]);
        assert_eq!(r.max, 1000.0);
        assert_eq!(r.min, 250.0);
        assert!((r.avg - 3000.0 / 7.0).abs() < 1e-9);
        assert_eq!(r.total, 750.0);
        let line = report(Test::Create, 3, r);
        assert!(line.contains("rates at which files can be created and closed with 3 pes:"));
        assert!(line.contains(
            "max rate = 1000.000000 creates per second, min rate = 250.000000 creates per \
             second avg rate = 428.571429 creates per second, total rate = 750.000000 \
             creates per second"
        ));
        assert!(report(Test::Utime, 1, r).contains("utimes per second, avg rate"));
    }

    #[test]
    fn file_names_are_metarates_n_rank_f_index() {
        let mut o = parse(&args("-d /t -n 4 -C")).unwrap();
        assert_eq!(
            file_list(&o, 3, 2),
            vec![PathBuf::from("/t/n3f0"), PathBuf::from("/t/n3f1")]
        );
        o.unique = true;
        assert_eq!(file_list(&o, 1, 1), vec![PathBuf::from("/t/1/n1f0")]);
    }
}
