//! `fathom suite ior`: IOR's write-then-read test by `--tasks` threads, file per task
//! (`--file-per-proc`, N-N) or one shared file (N-1, segmented as IOR lays it out:
//! segment s of task t at s×(tasks×block) + t×block), with IOR's block (`-b`), transfer
//! (`-t`), segment (`-s`) sizes and repetitions (`-i`), and IOR's results table and
//! "Max Write/Max Read" summary. Across hosts, run it under `mpirun` with the
//! `mpi` build: every rank runs the same tasks (see the MPI section of the README).

use anyhow::{anyhow, bail, Result};
use fathom::{Cluster, Engine, Job, RwKind};

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
    /// `-u`: with `-F`, each task's file in a folder of its own (DIR/TASK/testFile.TASK).
    pub unique_dir: bool,
    /// `-m`: a file (or set of files) per repetition, named with its number.
    pub multi_file: bool,
    /// The repetition whose files `-m` names (set per repetition).
    pub rep: Option<u32>,
    /// `-W`: read the data back after each write phase and check it.
    pub check_write: bool,
    /// `-R`: read the data back after each read phase and check it.
    pub check_read: bool,
    /// `-C`: read back the data of the task `-Q` nodes on (IOR's constant task offset).
    pub reorder: bool,
    /// `-Q`: IOR's taskPerNodeOffset, in nodes (1).
    pub task_offset: u32,
    /// `-Z` (given twice: 2): read back a random task's data (IOR's reorderTasksRandom;
    /// 2: a shuffle, each task's data read once).
    pub reorder_random: u32,
    /// `-X`: the seed of `-Z` (negative: its size plus the repetition's number).
    pub random_seed: i64,
    /// `-N` was given (under mpirun: that many of the ranks take part).
    pub tasks_given: bool,
    /// `-v`, once per `v`.
    pub verbose: u32,
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

/// This process's place among the ranks of the run (one process: rank 0 of 1), and the
/// task whose data a step of it handles.
#[derive(Clone, Copy)]
struct Place<'a> {
    cl: &'a dyn Cluster,
    /// IOR's tasks under mpirun: the ranks that take part (the first `-N`); 1 alone.
    tasks: u32,
    /// The task (rank) whose files or blocks this rank's step goes through: its own, or
    /// with -C/-Z in the read phase another's (IOR's `(rank + rankOffset) % numTasks`).
    data_of: u32,
}

impl Place<'_> {
    fn rank(&self) -> u32 {
        self.cl.rank()
    }
    /// The ranks that take part.
    fn ranks(&self) -> u32 {
        self.tasks
    }
    fn root(&self) -> bool {
        self.cl.rank() == 0
    }
    /// A rank past `-N`'s tasks: it joins the barriers and runs nothing, as IOR's.
    fn idle(&self) -> bool {
        self.cl.rank() >= self.tasks
    }
    /// This place going through `task`'s data.
    fn as_task(&self, task: u32) -> Self {
        Place {
            data_of: task,
            ..*self
        }
    }
    fn limits(&self) -> fathom::plan::Limits {
        fathom::plan::Limits {
            rank: (self.ranks() > 1).then_some(fathom::plan::Rank {
                rank: self.data_of,
                size: self.ranks(),
            }),
            ..Default::default()
        }
    }
}

/// What a job of the run does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Write,
    Read,
    /// `-W`/`-R`: read the data back and check it (not timed, not in the table).
    Check,
}

/// The fathom job of one step: every task of this rank over its file, its region of the
/// shared file or its blocks of IOR's segments.
fn job(o: &Opts, step: Step, at: Place) -> Result<fathom::JobSpec> {
    let write = step == Step::Write;
    let per_task = o.block * o.segments;
    let kind = match (write, o.random) {
        (true, false) => RwKind::Write,
        (true, true) => RwKind::RandWrite,
        (false, false) => RwKind::Read,
        (false, true) => RwKind::RandRead,
    };
    let name = match step {
        Step::Write => "write",
        Step::Read => "read",
        Step::Check => "check",
    };
    let mut b = Job::builder(name)
        .engine(if o.mmap { Engine::Mmap } else { Engine::Psync })
        .rw(kind)
        .bs(o.transfer)
        .numjobs(o.tasks)
        .directory(&o.dir)
        .direct(o.direct)
        .option("number_ios", (per_task / o.transfer).to_string())
        .flag("group_reporting");
    if o.random && !o.file_per_proc && o.segments > 1 {
        bail!("-z (random offsets) with a segmented shared file is not supported; use -F or -s 1");
    }
    if write && o.fsync_each {
        b = b.option("fsync", "1");
    }
    if o.file_per_proc {
        b = b
            .option("filename_format", o.task_format(at))
            .size(per_task);
    } else if o.segments > 1 {
        // IOR's segmented layout: segment s holds one block of every task of every rank,
        // task t's at s x tasks x block + t x block; each task goes through its segments
        // in order.
        b = b
            .option("filename", o.shared_name())
            .option("segments", o.segments.to_string())
            .size(per_task);
    } else {
        // One region per task, rank after rank (the plan numbers the clones of every rank
        // in order).
        b = b
            .option("filename", o.shared_name())
            .option("offset_increment", per_task.to_string())
            .size(per_task);
    }
    if write && o.fsync {
        b = b.option("end_fsync", "1");
    }
    if !write {
        b = b.option("invalidate", "1");
    }
    // -W/-R: the writes carry a checked header per transfer, which the check reads back.
    // (No verify state file: IOR leaves nothing beside its test files.)
    if o.check_write || o.check_read {
        b = b
            .option("verify", "crc32c")
            .option("verify_state_save", "0");
        if write {
            b = b.option("do_verify", "0");
        }
    }
    Ok(b.build()?)
}

/// Run `step`'s job on every rank, started together; this rank's result (None on a rank
/// that does not take part).
fn run_step(o: &Opts, step: Step, at: Place) -> Result<Option<fathom::JobResult>> {
    if at.idle() {
        at.cl.barrier();
        return Ok(None);
    }
    let job = job(o, step, at)?;
    if o.verbose >= 3 && step == Step::Read {
        // IOR's -vvv: which file each task reads.
        let file = if o.file_per_proc {
            o.task_files(at).swap_remove(0)
        } else {
            o.dir.join(o.shared_name())
        };
        println!("task {} reading {}", at.rank(), file.display());
    }
    // Every rank lays out and starts together (IOR's barrier before each phase).
    at.cl.barrier();
    let mut runner = fathom::Runner::new(job);
    // A rank stopped alone tells the others, which stop this phase too.
    if let Some(s) = at.cl.stop_signals() {
        runner = fathom::cluster::stop_with_peers(runner, s);
    }
    let r = super::stop::run_runner_with(runner, at.limits())?;
    r.jobs
        .into_iter()
        .next()
        .map(Some)
        .ok_or_else(|| anyhow!("stopped before the run started"))
}

/// One phase (write or read) of one iteration on every rank: the ranks start together,
/// each runs its tasks, and rank 0 gets the phase's figures over all of them (None on
/// the other ranks): the bytes and transfers of every task over the slowest rank's time,
/// as IOR's aggregate bandwidth.
fn phase(o: &Opts, write: bool, at: Place) -> Result<Option<Phase>> {
    let what = if write { "write phase" } else { "read phase" };
    let j = run_step(o, if write { Step::Write } else { Step::Read }, at)?;
    // A rank that takes no part adds nothing.
    let mut mine = [0.0; 4];
    if let Some(j) = &j {
        if let Some(e) = &j.error_text {
            bail!("{what}: {e}");
        }
        let d = &j.stats.dirs[usize::from(write)];
        let want = o.block * o.segments / o.transfer * o.tasks as u64;
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
        mine = [
            d.bytes as f64,
            d.ios as f64,
            secs,
            d.lat.mean() * d.ios as f64,
        ];
    }
    let all = at.cl.gather_f64(&mine);
    if !at.root() {
        return Ok(None);
    }
    let sum = |k: usize| all.iter().map(|v| v[k]).sum::<f64>();
    let secs = all.iter().map(|v| v[2]).fold(1e-9, f64::max);
    let ios = sum(1);
    Ok(Some(Phase {
        bw: sum(0) / secs,
        iops: ios / secs,
        latency: if ios > 0.0 { sum(3) / ios / 1e9 } else { 0.0 },
        secs,
    }))
}

/// `-W`/`-R`: every task reads its data back and checks each transfer's header (written
/// with the data); the transfers that fail, over every rank, at rank 0 (IOR counts
/// 8-byte words, fathom whole transfers), and IOR's warning when any failed (rank 0).
fn check(o: &Opts, after: &str, at: Place) -> Result<(u64, String)> {
    let j = run_step(o, Step::Check, at)?;
    let failed = j
        .as_ref()
        .and_then(|j| j.stats.verify.as_ref())
        .map_or(0, |v| v.failures);
    // A check that could not read (not a data error) is an error of the run.
    if failed == 0 {
        if let Some(e) = j.as_ref().and_then(|j| j.error_text.as_ref()) {
            bail!("check after {after}: {e}");
        }
    }
    let all = at.cl.gather_f64(&[failed as f64]);
    let total = all.iter().map(|v| v[0]).sum::<f64>() as u64;
    let mut warn = String::new();
    if at.root() && total > 0 {
        warn = format!("WARNING: incorrect data on {after} ({total} errors found).\n");
        let verify = j.as_ref().and_then(|j| j.stats.verify.as_ref());
        if let Some(first) = verify.and_then(|v| v.first.first()) {
            warn.push_str(&format!("  first on rank 0: {first}\n"));
        }
    }
    Ok((total, warn))
}

impl Opts {
    /// The per-task files' names (-F): testFile.TASK; under MPI testFile.RANK (one task a
    /// rank, as IOR) or testFile.RANK.TASK (several).
    fn task_format(&self, at: Place) -> String {
        let task = match (at.ranks() > 1, self.tasks > 1) {
            (false, _) => "$jobnum",
            (true, false) => "$rank",
            (true, true) => "$rank.$jobnum",
        };
        // -u: IOR's DIR/TASK/testFile.TASK.
        let dir = if self.unique_dir {
            format!("{task}/")
        } else {
            String::new()
        };
        format!("{dir}{}.{task}{}", self.file_name(), self.rep_suffix())
    }
    /// `-m`: the repetition's number after the name, as IOR adds it.
    fn rep_suffix(&self) -> String {
        self.rep.map_or(String::new(), |r| format!(".{r}"))
    }
    /// These options for repetition `i` (with `-m`, its own files).
    fn for_rep(&self, i: u32) -> Opts {
        let mut o = self.clone();
        o.rep = self.multi_file.then_some(i);
        o
    }
    /// The per-task files of the task (rank) `at` goes through (none on an idle rank).
    fn task_files(&self, at: Place) -> Vec<std::path::PathBuf> {
        let tasks = if at.idle() { 0 } else { self.tasks };
        (0..tasks)
            .map(|t| {
                let name = self
                    .task_format(at)
                    .replace("$rank", &at.data_of.to_string())
                    .replace("$jobnum", &t.to_string());
                self.dir.join(name)
            })
            .collect()
    }
    fn file_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "ior".into())
    }
    fn shared_name(&self) -> String {
        let base = self.name.clone().unwrap_or_else(|| "ior.shared".into());
        format!("{base}{}", self.rep_suffix())
    }
}

/// The flags `parse` knows (for "did you mean").
const FLAGS: &[&str] = &[
    "--dir",
    "-o",
    "--testFile",
    "-a",
    "--api",
    "-w",
    "--writeFile",
    "-r",
    "--readFile",
    "-Y",
    "--fsyncPerWrite",
    "-z",
    "--randomOffset",
    "-E",
    "--useExistingTestFile",
    "-d",
    "--interTestDelay",
    "-C",
    "--reorderTasks",
    "-g",
    "--intraTestBarriers",
    "-v",
    "--verbose",
    "-h",
    "--help",
    "-c",
    "--collective",
    "-W",
    "--checkWrite",
    "-R",
    "--checkRead",
    "-u",
    "--uniqueDir",
    "-m",
    "--multiFile",
    "-Q",
    "-O",
    "-N",
    "--tasks",
    "-b",
    "--block",
    "-t",
    "--transfer",
    "-s",
    "--segments",
    "-i",
    "--iterations",
    "-F",
    "--file-per-proc",
    "--direct",
    "--posix.odirect",
    "-e",
    "--fsync",
    "-k",
    "--keep",
    "--blockSize",
    "--transferSize",
    "--segmentCount",
    "--repetitions",
    "--numTasks",
    "--filePerProc",
    "--keepFile",
    "--taskPerNodeOffset",
    "--reorderTasksConstant",
    "-Z",
    "--reorderTasksRandom",
    "-X",
    "--reorderTasksRandomSeed",
];

/// IOR's one-letter options that take a value.
const VALUED: &str = "abdiostNOQX";
/// IOR's one-letter flags.
const FLAG_LETTERS: &str = "wrYzECgvucWRmFekZh";

/// IOR's groups of one-letter options as IOR's parser reads them, one argument each:
/// `-vvv` and `-wrk` are flags one by one, `-b64k` and `-t1m` a letter and its value
/// (IOR 4.0 then also takes the value's letters as flags: `-t1m` turns on -m there; fathom
/// takes the value only).
fn split_groups(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in args {
        // The value of a letter before it (`-X -17`) is left whole.
        let after_letter = out
            .last()
            .is_some_and(|p| p.len() == 2 && p.starts_with('-') && VALUED.contains(&p[1..]));
        let Some(rest) = a.strip_prefix('-') else {
            out.push(a.clone());
            continue;
        };
        let letters = rest
            .chars()
            .take_while(|c| !VALUED.contains(*c))
            .all(|c| FLAG_LETTERS.contains(c));
        if after_letter
            || rest.len() < 2
            || rest.starts_with('-')
            || rest.contains('=')
            || !rest.is_ascii()
            || !letters
        {
            out.push(a.clone());
            continue;
        }
        for (i, c) in rest.char_indices() {
            if VALUED.contains(c) {
                out.push(format!("-{c}"));
                if i + 1 < rest.len() {
                    out.push(rest[i + 1..].to_string());
                }
                break;
            }
            out.push(format!("-{c}"));
        }
    }
    out
}

/// IOR's directives as `-O` takes them (`-O useO_DIRECT=1,keepFile=1`), case-blind, and
/// the command-line flag each stands for: flags (set by 1, left off by 0) and values.
const DIRECTIVES: &[(&str, &str, bool)] = &[
    ("api", "--api", false),
    ("testfile", "--testFile", false),
    ("blocksize", "--blockSize", false),
    ("transfersize", "--transferSize", false),
    ("segmentcount", "--segmentCount", false),
    ("repetitions", "--repetitions", false),
    ("numtasks", "--numTasks", false),
    ("intertestdelay", "--interTestDelay", false),
    ("taskpernodeoffset", "--taskPerNodeOffset", false),
    ("reordertasksrandomseed", "--reorderTasksRandomSeed", false),
    ("reordertasksrandom", "--reorderTasksRandom", true),
    ("verbose", "--verbose", true),
    ("writefile", "--writeFile", true),
    ("readfile", "--readFile", true),
    ("fileperproc", "--filePerProc", true),
    ("keepfile", "--keepFile", true),
    ("fsync", "--fsync", true),
    ("fsyncperwrite", "--fsyncPerWrite", true),
    ("randomoffset", "--randomOffset", true),
    ("useexistingtestfile", "--useExistingTestFile", true),
    ("reordertasks", "--reorderTasks", true),
    ("reordertasksconstant", "--reorderTasks", true),
    ("intratestbarriers", "--intraTestBarriers", true),
    ("uniquedir", "--uniqueDir", true),
    ("useo_direct", "--posix.odirect", true),
    ("posix.odirect", "--posix.odirect", true),
    ("checkwrite", "--checkWrite", true),
    ("checkread", "--checkRead", true),
    ("collective", "--collective", true),
    ("multifile", "--multiFile", true),
];

/// The command line with each `-O a=1,b=2` replaced by the flags it stands for.
fn expand_directives(args: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let list = match a.as_str() {
            "-O" => it
                .next()
                .cloned()
                .ok_or_else(|| anyhow!("-O needs directives, e.g. -O useO_DIRECT=1"))?,
            x if x.starts_with("-O") && x.len() > 2 => x[2..].to_string(),
            _ => {
                out.push(a.clone());
                continue;
            }
        };
        for d in list.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            let (k, v) = d
                .split_once('=')
                .ok_or_else(|| anyhow!("-O {d}: directives look like name=value"))?;
            let key = k.trim().to_ascii_lowercase();
            let Some((_, flag, is_flag)) = DIRECTIVES.iter().find(|(n, ..)| *n == key) else {
                let names: Vec<&str> = DIRECTIVES.iter().map(|d| d.0).collect();
                bail!(
                    "-O {k}: not a directive fathom's IOR method takes{}",
                    super::did_you_mean(&key, &names)
                );
            };
            let v = v.trim();
            if *is_flag {
                match v {
                    "0" => {}
                    "1" => out.push(flag.to_string()),
                    // verbose is a level.
                    _ if key == "verbose" && v.parse::<u32>().is_ok() => out.push(flag.to_string()),
                    _ => bail!("-O {k}={v}: a flag directive is 0 or 1"),
                }
            } else {
                out.push(format!("{flag}={v}"));
            }
        }
    }
    Ok(out)
}

/// IOR's usage, as far as fathom takes it.
pub const USAGE: &str = "usage: fathom suite ior [-a POSIX|MMAP] [-b blockSize] [-t transferSize]
      [-s segmentCount] [-i repetitions] [-N numTasks] [-o testFile] [-F] [-w] [-r]
      [-e] [-Y] [-k] [-z] [-u] [-m] [-W] [-R] [-C] [-Z] [-Q N] [-X seed] [-g] [-v] [-c]
      [-d delay] [-E] [-O directives]
  -a api (POSIX: pread/pwrite, MMAP: mapped)   -b bytes per task per segment (1m)
  -t bytes per transfer (256k)  -s segments (1)  -i repetitions (1)
  -N tasks (under mpirun: the first N ranks, all by default; alone: N threads)
  -o test file (testFile; N-N files are testFile.TASK; a directory: files in it)
  -F file per task  -w write only  -r read only  -e fsync after the write phase
  -Y fsync after every write  -k keep the files  -z random offsets  -d seconds between
  repetitions  -E use the existing file  -u with -F, a folder per task
  -m a file per repetition  -W/-R check the data after each write/read phase
  -C read back the data of the task -Q nodes on (1)  -Z a random task's (-Z -Z: a
  shuffle; -X its seed)  -v verbose (-vvv: the file each task reads)  -g -c accepted
  -O directives (e.g. -O useO_DIRECT=1,keepFile=1)
  e.g. mpirun -np 4 fathom suite ior -a POSIX -b 64k -F -i 10 -s 200 -t 4k";

fn size(v: &str) -> Result<u64> {
    fathom_job::units::parse_size(v, 1024, fathom_job::Dialect::Fio)
        .map_err(|e| anyhow!("'{v}': {e}"))
}

impl Opts {
    /// IOR's defaults.
    fn defaults() -> Opts {
        Opts {
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
            unique_dir: false,
            reorder: false,
            task_offset: 1,
            reorder_random: 0,
            random_seed: 0,
            tasks_given: false,
            verbose: 0,
            check_write: false,
            check_read: false,
            multi_file: false,
            rep: None,
        }
    }

    /// After the flags: IOR's default phases, and its checks on the sizes.
    fn settle(&mut self) -> Result<()> {
        // IOR: none of -w, -r, -W, -R means -w -r.
        if !(self.write || self.read || self.check_write || self.check_read) {
            self.write = true;
            self.read = true;
        }
        if self.tasks == 0 || self.segments == 0 || self.iterations == 0 {
            bail!("--tasks, --segments and --iterations must be at least 1");
        }
        if self.transfer == 0 || self.block % self.transfer != 0 {
            bail!("--block must be a multiple of --transfer (IOR's rule)");
        }
        if self.reorder && self.reorder_random > 0 {
            bail!(
                "Both Constant and Random task re-ordering specified. Choose one and \
                 resubmit (-C or -Z)"
            );
        }
        Ok(())
    }
}

/// Parse `fathom suite ior` options (IOR's short and long names).
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts::defaults();
    let args = split_groups(&expand_directives(args)?);
    let mut opts = super::Opts::new(&args);
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
            // -C: each task reads back the data of the task -Q nodes on (IOR's constant
            // task offset); -Z: a random task's (twice: a shuffle), drawn as IOR draws it
            // (glibc's rand() seeded with -X).
            "-C" | "--reorderTasks" | "--reorderTasksConstant" => o.reorder = true,
            "-Q" | "--taskPerNodeOffset" => {
                o.task_offset = val()?
                    .parse()
                    .map_err(|_| anyhow!("-Q: taskPerNodeOffset, a number"))?
            }
            "-Z" | "--reorderTasksRandom" => o.reorder_random += 1,
            "-X" | "--reorderTasksRandomSeed" => {
                o.random_seed = val()?
                    .parse()
                    .map_err(|_| anyhow!("-X: reorderTasksRandomSeed, a number"))?
            }
            // -v: IOR's verbosity (-vvv: which file each task reads).
            "-v" | "--verbose" => o.verbose += 1,
            // Accepted: -g (the phases start together already).
            "-g" | "--intraTestBarriers" => {}
            "-u" | "--uniqueDir" => o.unique_dir = true,
            "-h" | "--help" => bail!("{USAGE}"),
            // As IOR with -a POSIX: collective I/O belongs to MPI-IO; warned and reset.
            "-c" | "--collective" => {
                eprintln!("WARNING: collective not available in POSIX, using value of 0.")
            }
            "-W" | "--checkWrite" => o.check_write = true,
            "-R" | "--checkRead" => o.check_read = true,
            "-m" | "--multiFile" => o.multi_file = true,
            "-N" | "--tasks" | "--numTasks" => {
                o.tasks = val()?.parse().map_err(|_| anyhow!("--tasks: a number"))?;
                o.tasks_given = true;
            }
            "-b" | "--block" | "--blockSize" => o.block = size(&val()?)?,
            "-t" | "--transfer" | "--transferSize" => o.transfer = size(&val()?)?,
            "-s" | "--segments" | "--segmentCount" => {
                o.segments = val()?
                    .parse()
                    .map_err(|_| anyhow!("--segments: a number"))?
            }
            "-i" | "--iterations" | "--repetitions" => {
                o.iterations = val()?
                    .parse()
                    .map_err(|_| anyhow!("--iterations: a number"))?
            }
            "-F" | "--file-per-proc" | "--filePerProc" => o.file_per_proc = true,
            "--direct" | "--posix.odirect" | "--useO_DIRECT" => o.direct = true,
            "-e" | "--fsync" => o.fsync = true,
            "-k" | "--keep" | "--keepFile" => o.keep = true,
            _ => bail!(
                "unknown option '{a}'{}\n{USAGE}",
                super::did_you_mean(a, FLAGS)
            ),
        }
    }
    o.settle()?;
    Ok(o)
}

fn cleanup(o: &Opts, at: Place) {
    if o.keep {
        return;
    }
    // The shared file by rank 0, after every rank's last phase (its figures reached rank
    // 0, so every rank is done with the file); each rank its own task files.
    if at.root() {
        let _ = std::fs::remove_file(o.dir.join(o.shared_name()));
    }
    for f in o.task_files(at) {
        let _ = std::fs::remove_file(&f);
        if o.unique_dir {
            if let Some(d) = f.parent() {
                let _ = std::fs::remove_dir(d);
            }
        }
    }
}

/// Where IOR's tasks run, as IOR counts it: the ranks on rank 0's host (IOR's
/// numTasksOnNode0, the `tPN` column), the hosts, and whether rank 1 shares rank 0's host
/// (IOR's by-slot mapping, which -C's offset counts in whole nodes). IOR's test knobs
/// `IOR_FAKE_TASK_PER_NODES` and `IOR_FAKE_NODES` (read at rank 0) stand in for the first
/// two, as in IOR, with IOR's line saying so.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Nodes {
    on_node0: u32,
    nodes: u32,
    by_slot: bool,
}

fn nodes(cl: &dyn Cluster, threads: u32, notes: &mut String) -> Nodes {
    let host = fathom::facts::host().hostname;
    let all = cl.gather_bytes(host.as_bytes());
    let fake = |name: &str| -> Option<u32> {
        let v = std::env::var(name).ok()?;
        // IOR reads it with atoi().
        let digits: String = v.trim().chars().take_while(char::is_ascii_digit).collect();
        Some(digits.parse().unwrap_or(0))
    };
    let mut n = [threads as f64, 1.0, 1.0];
    if let Some(h0) = all.first() {
        let distinct: std::collections::BTreeSet<&Vec<u8>> = all.iter().collect();
        n = [
            (all.iter().filter(|h| *h == h0).count() as u32 * threads) as f64,
            distinct.len() as f64,
            f64::from(u8::from(all.get(1).is_none_or(|h| h == h0))),
        ];
        if let Some(v) = fake("IOR_FAKE_NODES") {
            notes.push_str(&format!("Fake number of node: using {v}\n"));
            n[1] = v as f64;
        }
        if let Some(v) = fake("IOR_FAKE_TASK_PER_NODES") {
            notes.push_str(&format!("Fake tasks per node: using {v}\n"));
            n[0] = v as f64;
        }
    }
    let n = n.map(|v| cl.broadcast(v));
    Nodes {
        on_node0: n[0] as u32,
        nodes: n[1] as u32,
        by_slot: n[2] != 0.0,
    }
}

/// glibc's `rand()` after `srand(seed)` (its additive feedback generator, TYPE_3), which
/// IOR's -Z draws its task offsets from: the same seed gives IOR's offsets.
struct GlibcRand {
    r: [u32; 34],
    i: usize,
}

impl GlibcRand {
    fn new(seed: u32) -> Self {
        let mut r = [0u32; 34];
        r[0] = if seed == 0 { 1 } else { seed };
        for i in 1..31 {
            // 16807 x r mod (2^31 - 1) by Schrage's method, on the signed word, as glibc.
            let w = r[i - 1] as i32;
            let (hi, lo) = (w / 127_773, w % 127_773);
            let mut v = 16_807 * lo - 2_836 * hi;
            if v < 0 {
                v += 2_147_483_647;
            }
            r[i] = v as u32;
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        let mut g = GlibcRand { r, i: 0 };
        // The first 310 outputs are thrown away.
        for _ in 34..344 {
            g.step();
        }
        g
    }
    fn step(&mut self) -> u32 {
        // r[k] = r[k-31] + r[k-3], over a ring of the last 34.
        let v = self.r[(self.i + 3) % 34].wrapping_add(self.r[(self.i + 31) % 34]);
        self.r[self.i % 34] = v;
        self.i += 1;
        v
    }
    fn next(&mut self) -> u32 {
        self.step() >> 1
    }
}

/// The task whose data `rank` reads back in repetition `rep`'s read phase (IOR's
/// `(rank + rankOffset) % numTasks`): -C: `-Q` nodes on (whole nodes with a by-slot
/// mapping, else `-Q` ranks); -Z: a random task at least `-Q` nodes on (as far as there are
/// nodes), drawn with glibc's rand() seeded with rank + `-X`; -Z -Z: a shuffle of the tasks
/// seeded with `-X`. (-X below 0: its size plus the repetition.)
fn read_task(o: &Opts, nodes: Nodes, tasks: u32, rank: u32, rep: u32) -> Result<u32> {
    let shift = if nodes.by_slot { nodes.on_node0 } else { 1 };
    let seed = if o.random_seed < 0 {
        (-o.random_seed + i64::from(rep)) as u32
    } else {
        o.random_seed as u32
    };
    let n = tasks.max(1);
    if o.reorder {
        let off = (u64::from(o.task_offset) * u64::from(shift) % u64::from(n)) as u32;
        return Ok((rank + off) % n);
    }
    match o.reorder_random {
        0 => Ok(rank),
        1 => {
            let node_off = o.task_offset.min(nodes.nodes.saturating_sub(1));
            let floor = u64::from(node_off) * u64::from(nodes.on_node0);
            if floor >= u64::from(n) {
                bail!(
                    "-Z with -Q {}: no task is {node_off} node(s) of {} tasks each away \
                     among {n} tasks (IOR would draw forever)",
                    o.task_offset,
                    nodes.on_node0
                );
            }
            let mut g = GlibcRand::new(rank.wrapping_add(seed));
            let mut off = g.next() % n;
            while u64::from(off) < floor {
                off = g.next() % n;
            }
            Ok((rank + off) % n)
        }
        _ => {
            let mut g = GlibcRand::new(seed);
            let mut order: Vec<u32> = (0..n).collect();
            for i in 0..n as usize {
                let t = i + (g.next() % (n - i as u32)) as usize;
                order.swap(i, t);
            }
            Ok(order[rank as usize % n as usize])
        }
    }
}

/// The task whose data `rank` checks after a write phase (-W): with -C, two nodes on (as
/// IOR 4.0), else its own.
fn write_check_task(o: &Opts, nodes: Nodes, tasks: u32, rank: u32) -> u32 {
    if !o.reorder {
        return rank;
    }
    let shift = if nodes.by_slot { nodes.on_node0 } else { 1 };
    let n = tasks.max(1);
    (rank + (2 * u64::from(shift) % u64::from(n)) as u32) % n
}

/// Run `fathom suite ior` as one process.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    run_on(args, &fathom::cluster::Alone)
}

/// Run `fathom suite ior` as one rank of `cl` (under `mpirun`): the ranks are IOR's tasks
/// (`-N`: the first N of them), they start each phase together, and rank 0 prints the
/// results of them all. Alone, `-N` tasks are threads of this process.
pub fn run_on(args: &[String], cl: &dyn Cluster) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        if cl.rank() == 0 {
            println!("{USAGE}");
        }
        return Ok((0, Vec::new()));
    }
    let mut o = parse(args)?;
    let mut s = String::new();
    let world = cl.size();
    let tasks = if world > 1 {
        // IOR: -N takes that many of the ranks, one task each; more than there are is
        // warned of and cut to the ranks.
        let n = if o.tasks_given { o.tasks } else { world };
        if n > world && cl.rank() == 0 {
            eprintln!(
                "WARNING: More tasks requested ({n}) than available ({world}),\n\
                 WARNING:          running with {world} tasks."
            );
        }
        o.tasks = 1;
        n.min(world)
    } else {
        1
    };
    let at = Place {
        cl,
        tasks,
        data_of: cl.rank(),
    };
    std::fs::create_dir_all(&o.dir)?;
    let nodes = nodes(cl, o.tasks, &mut s);
    let all_tasks = o.tasks * tasks;
    ready(&o, at, nodes)?;
    s.push_str(&options_text(&o, all_tasks, nodes));
    let mut bw = Bandwidths::default();
    let result = iterations(&o, at, nodes, &mut s, &mut bw);
    // Every rank is done with every file (with -C/-Z another rank reads this one's)
    // before any goes, as IOR's barrier before its removal.
    cl.barrier();
    for i in 0..o.iterations {
        cleanup(&o.for_rep(i), at);
    }
    let errors = result?;
    if !at.root() {
        return Ok((0, Vec::new()));
    }
    let metrics = summary(&o, (all_tasks, nodes.on_node0), &bw, &mut s);
    print!("{s}");
    Ok((u8::from(errors > 0), metrics))
}

/// What a run needs before its first phase: -r alone finds the files an earlier -w -k
/// run left; -C/-Z among the threads of one process is refused; -u makes each task's
/// folder.
fn ready(o: &Opts, at: Place, nodes: Nodes) -> Result<()> {
    if !o.write && !at.idle() {
        // -r alone reads what an earlier -w -k run left.
        let o0 = o.for_rep(0);
        let first = if o.file_per_proc {
            o0.task_files(at).swap_remove(0)
        } else {
            o.dir.join(o0.shared_name())
        };
        if !first.exists() {
            bail!(
                "-r without -w reads existing test files, and {} does not exist: write them \
                 first with -w -k",
                first.display()
            );
        }
    }
    // (-Z's draw can fail only on its sizes, the same on every rank.)
    read_task(o, nodes, at.ranks(), at.rank(), 0)?;
    // One process: its -N tasks are threads of one job, which read their own data; a
    // reordering that would move them (IOR_FAKE_TASK_PER_NODES below -N, -Z) is refused.
    if at.cl.size() == 1 && o.tasks > 1 && (o.reorder || o.reorder_random > 0) {
        let moved = (0..o.iterations).any(|rep| {
            (0..o.tasks).any(|t| read_task(o, nodes, o.tasks, t, rep).map_or(true, |d| d != t))
        });
        if moved {
            bail!(
                "-C/-Z among the -N threads of one process: each thread reads its own data \
                 here; run the tasks as ranks under mpirun (fathom's MPI build) to reorder them"
            );
        }
    }
    if o.unique_dir && o.file_per_proc {
        for f in o.task_files(at) {
            if let Some(d) = f.parent() {
                std::fs::create_dir_all(d)
                    .map_err(|e| anyhow!("-u: cannot make {}: {e}", d.display()))?;
            }
        }
    }
    Ok(())
}

fn mib(b: f64) -> f64 {
    b / 1048576.0
}

/// IOR's header: the options, then the results table's head.
fn options_text(o: &Opts, tasks: u32, nodes: Nodes) -> String {
    // IOR's lines on the order of the offsets and of the tasks' data.
    let order = match (o.reorder, o.reorder_random > 0) {
        (true, _) => format!(
            "ordering inter file : constant task offset\n\
             task offset         : {}\n",
            o.task_offset
        ),
        (false, true) => format!(
            "ordering inter file : random task offset\n\
             task offset         : {}\n\
             reorder random seed : {}\n",
            o.task_offset, o.random_seed
        ),
        (false, false) => "ordering inter file : no tasks offsets\n".to_string(),
    };
    format!(
        "fathom {} (IOR method)\n\n\
         Options:\n\
         api                 : {}\n\
         access              : {}\n\
         segments            : {}\n\
         ordering in a file  : {}\n\
         {order}\
         nodes               : {}\n\
         tasks               : {}\n\
         clients per node    : {}\n\
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
        o.segments,
        if o.random { "random" } else { "sequential" },
        nodes.nodes,
        tasks,
        nodes.on_node0,
        o.block >> 10,
        o.transfer >> 10,
        mib((o.block * o.segments * tasks as u64) as f64),
        o.iterations
    )
}

/// Each repetition's bandwidth, per phase that ran.
#[derive(Default)]
struct Bandwidths {
    writes: Vec<f64>,
    reads: Vec<f64>,
}

/// Every repetition: its write and read phases (each with its -W/-R check) and their
/// result lines. Returns the transfers whose check failed, over every rank (at rank 0).
fn iterations(
    o: &Opts,
    at: Place,
    nodes: Nodes,
    s: &mut String,
    bw: &mut Bandwidths,
) -> Result<u64> {
    let cl = at.cl;
    let mut errors = 0u64;
    for i in 0..o.iterations {
        // A signal to any rank stops every rank here.
        if cl.any(super::stopped()) {
            break;
        }
        if i > 0 && o.delay > 0 {
            std::thread::sleep(std::time::Duration::from_secs(o.delay));
        }
        // -m: this repetition's own files.
        let o = o.for_rep(i);
        let w = if o.write { phase(&o, true, at)? } else { None };
        // A phase cut short by a signal is not reported (its figures are partial).
        let stopped = cl.any(super::stopped());
        let w = w.filter(|_| !stopped);
        let mut warnings = String::new();
        if o.check_write && !stopped {
            let at = at.as_task(write_check_task(&o, nodes, at.ranks(), at.rank()));
            let (n, warn) = check(&o, "write", at)?;
            errors += n;
            warnings.push_str(&warn);
        }
        let stopped = cl.any(super::stopped());
        // -C/-Z: the read phase (and its -R check) goes through another task's data.
        let read_at = at.as_task(read_task(&o, nodes, at.ranks(), at.rank(), i)?);
        let r = if o.read && !stopped {
            phase(&o, false, read_at)?
        } else {
            None
        };
        // (Every rank asks, also those without figures: it is a collective call.)
        let stopped = cl.any(super::stopped());
        let r = r.filter(|_| !stopped);
        if o.check_read && !stopped {
            let (n, warn) = check(&o, "read", read_at)?;
            errors += n;
            warnings.push_str(&warn);
        }
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
        s.push_str(&warnings);
        bw.writes.extend(w.map(|p| p.bw));
        bw.reads.extend(r.map(|p| p.bw));
    }
    Ok(errors)
}

/// The Max lines and the summary table of every phase that ran; returns the headline
/// figures.
fn summary(
    o: &Opts,
    (tasks, per_node): (u32, u32),
    bw: &Bandwidths,
    s: &mut String,
) -> Vec<(String, f64)> {
    let (writes, reads) = (&bw.writes, &bw.reads);
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
        [("Write", "write", writes), ("Read", "read", reads)]
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
            tasks,
            per_node,
            o.iterations
        ));
    }
    phases
        .iter()
        .map(|(title, _, v)| (format!("Max {title} (MiB/s)"), mib(stats(v).0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn glibc_rand_gives_glibc_s_numbers() {
        // glibc 2.36's srand()/rand(), read with ctypes.
        for (seed, want) in [
            (0u32, [1804289383u32, 846930886, 1681692777, 1714636915]),
            (1, [1804289383, 846930886, 1681692777, 1714636915]),
            (5, [590011675, 99788765, 2131925610, 171864072]),
            (12345, [383100999, 858300821, 357768173, 455528251]),
            (4294967295, [254925627, 1205188300, 366127624, 1401405153]),
            (2147483648, [1336741213, 1210407648, 1447044896, 337392383]),
        ] {
            let mut g = GlibcRand::new(seed);
            let got: Vec<u32> = (0..4).map(|_| g.next()).collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn ior_s_letter_groups_split_as_ior_reads_them() {
        let got = split_groups(&args(&[
            "-vvv", "-wrk", "-b64k", "-t1m", "-s4", "-X", "-17", "-Fb", "8k", "--dir", "x",
            "-b=2k", "-O",
        ]));
        let want = [
            "-v", "-v", "-v", "-w", "-r", "-k", "-b", "64k", "-t", "1m", "-s", "4", "-X", "-17",
            "-F", "-b", "8k", "--dir", "x", "-b=2k", "-O",
        ];
        assert_eq!(got, args(&want));
        let o = parse(&args(&["-vvv", "-wr", "-b64k", "-t16k", "-Q2", "-C"])).unwrap();
        assert_eq!(
            (o.verbose, o.block, o.transfer, o.task_offset),
            (3, 65536, 16384, 2)
        );
        assert!(o.write && o.read && o.reorder);
        // An unknown letter leaves the argument whole, for the error to name it.
        let e = parse(&args(&["-wq"])).unwrap_err().to_string();
        assert!(e.contains("'-wq'"), "{e}");
        let e = parse(&args(&["-C", "-Z"])).unwrap_err().to_string();
        assert!(e.contains("Both Constant and Random"), "{e}");
    }

    #[test]
    fn reordered_reads_take_ior_s_task_offsets() {
        let o = |f: &[&str]| parse(&args(f)).unwrap();
        let by_slot = Nodes {
            on_node0: 4,
            nodes: 2,
            by_slot: true,
        };
        let round_robin = Nodes {
            by_slot: false,
            ..by_slot
        };
        let reads = |o: &Opts, n: Nodes, rep: u32| -> Vec<u32> {
            (0..8)
                .map(|r| read_task(o, n, 8, r, rep).unwrap())
                .collect()
        };
        // -C: one node on (4 tasks by slot, 1 round robin); -Q2: two nodes (all 8: own).
        assert_eq!(reads(&o(&["-C"]), by_slot, 0), [4, 5, 6, 7, 0, 1, 2, 3]);
        assert_eq!(reads(&o(&["-C"]), round_robin, 0), [1, 2, 3, 4, 5, 6, 7, 0]);
        assert_eq!(
            reads(&o(&["-C", "-Q", "2"]), by_slot, 0),
            [0, 1, 2, 3, 4, 5, 6, 7]
        );
        assert_eq!(reads(&o(&[]), by_slot, 0), [0, 1, 2, 3, 4, 5, 6, 7]);
        // -W with -C checks two nodes on.
        let c = o(&["-C"]);
        let w: Vec<u32> = (0..8)
            .map(|r| write_check_task(&c, round_robin, 8, r))
            .collect();
        assert_eq!(w, [2, 3, 4, 5, 6, 7, 0, 1]);
        // -Z: rand() seeded with rank + X, redrawn below a node away; each task reads
        // outside its node.
        let z = reads(&o(&["-Z"]), by_slot, 0);
        for (r, d) in z.iter().enumerate() {
            let off = (*d + 8 - r as u32) % 8;
            assert!(off >= 4, "rank {r} reads {d}: {z:?}");
            let mut g = GlibcRand::new(r as u32);
            let mut want = g.next() % 8;
            while want < 4 {
                want = g.next() % 8;
            }
            assert_eq!(off, want);
        }
        // -Z -Z: a shuffle, every task's data read once; -X below 0 changes per repetition.
        let zz = o(&["-Z", "-Z", "-X", "-3"]);
        let (a, b) = (reads(&zz, by_slot, 0), reads(&zz, by_slot, 1));
        for v in [&a, &b] {
            let mut s = v.clone();
            s.sort();
            assert_eq!(s, [0, 1, 2, 3, 4, 5, 6, 7]);
        }
        assert_ne!(a, b);
        // More than the tasks' nodes: IOR would draw forever; refused.
        let one = Nodes {
            on_node0: 8,
            nodes: 2,
            by_slot: true,
        };
        assert!(read_task(&o(&["-Z"]), one, 8, 0, 0).is_err());
    }
}
