//! `fathom suite ior`: IOR's write-then-read test by `--tasks` threads, file per task
//! (`--file-per-proc`, N-N) or one shared file (N-1, segmented as IOR lays it out:
//! segment s of task t at s×(tasks×block) + t×block), with IOR's block (`-b`), transfer
//! (`-t`), segment (`-s`) sizes and repetitions (`-i`), and IOR 4.0's report (text, JSON,
//! CSV; see `report`). Across hosts, run it under `mpirun` with the `mpi` build: the
//! ranks are IOR's tasks (see the MPI section of the README).

use anyhow::{anyhow, bail, Result};
use fathom::Cluster;

mod args;
mod phases;
mod report;
mod tasks;

pub use args::{parse, USAGE};
use phases::iterations;
use report::Out;
use tasks::{nodes, read_task, Nodes};

/// IOR's data packets (`-l`), in IOR's order (its `dataPacketType` numbers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Packet {
    /// `t` (the default): every transfer the same words, `rank << 32 | (stamp + i)`.
    #[default]
    Timestamp,
    /// `o`: the timestamp words, with each 4 KiB's first word stamped with the
    /// transfer's offset.
    Offset,
    /// `i`: one word from the signature repeated, each 4 KiB's first stamped so.
    Incompressible,
    /// `r`: every word from a generator seeded with the transfer's offset.
    Random,
}

/// Options (IOR's names).
#[derive(Debug, Clone)]
pub struct Opts {
    /// Directory of the test file(s).
    pub dir: std::path::PathBuf,
    /// `-o A@B@...`: IOR's test files on several file systems, the names after the first
    /// (directory, file name): with -F task T's file is the (T mod count)th.
    pub other_files: Vec<(std::path::PathBuf, Option<String>)>,
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
    /// `-o` named a directory (fathom's older spelling), files testFile / testFile.TASK (IOR's default names).
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
    /// `-D`: seconds after which a write or read phase stops (IOR's
    /// deadlineForStonewalling; 0: none).
    pub deadline: u64,
    /// `-O stoneWallingWearOut=1`: after the deadline every task goes on to the most
    /// transfers any task did.
    pub wear_out: bool,
    /// `-O stoneWallingWearOutIterations=N`: each task moves at most N transfers.
    pub wear_out_iterations: u64,
    /// `-O stoneWallingStatusFile=F`: the stonewalled write's count kept for a later read.
    pub status_file: Option<std::path::PathBuf>,
    /// `-T`: minutes after which no further phase starts (0: none).
    pub max_minutes: u64,
    /// `-K`: keep the files when a -W/-R check found errors.
    pub keep_with_error: bool,
    /// `-G`: IOR's signature, here the seed of fathom's data.
    pub signature: Option<i64>,
    /// `-A`: IOR's reference number, shown in the summary.
    pub ref_num: Option<i64>,
    /// `-O summaryFormat=`: IOR's text, JSON or CSV.
    pub format: Format,
    /// `-O summaryFile=FILE`: the results go to FILE (the log lines stay on standard
    /// output).
    pub summary_file: Option<std::path::PathBuf>,
    /// `-o` as given (IOR's "test filename").
    pub test_file: Option<String>,
    /// `-a` as given (IOR shows it so).
    pub api: String,
    /// The repetition's time stamp signature (IOR's data; -G's value, else the time).
    pub stamp: i32,
    /// `-l`: IOR's data packets.
    pub packet: Packet,
    /// `-O summaryalways=1`: each test's summary lines after it (with -v), not its Max
    /// lines.
    pub summary_always: bool,
    /// `-O memoryPerTask=SIZE`: bytes each task allocates and touches for the test
    /// (IOR's simulation of an application's memory).
    pub memory_per_task: u64,
    /// `-M` / `-O memoryPerNode=`: bytes the tasks of a node hog between them.
    pub memory_per_node: u64,
    /// `-j N`: IOR's warning on a task whose times are N seconds off the mean.
    pub outlier: u64,
    /// `--random-offset-seed`: the seed of -z's offsets (IOR's randomSeed).
    pub random_offset_seed: Option<i64>,
    /// `--warningAsErrors`: a warning ends the run, as IOR's error.
    pub warnings_as_errors: bool,
    /// `-O minTimeDuration=N`: a write or read phase repeats its whole passes until it
    /// has run this many seconds.
    pub min_time: u64,
    /// `--randomPrefill=SIZE` (with -z): the write phase first writes each task's blocks
    /// whole, in writes of this size (0xFF bytes with IOR's packet stamps), timed with
    /// the phase but not counted in its bytes.
    pub prefill: u64,
    /// `--posix.rangelocks`: each transfer of the POSIX API holds an fcntl byte-range
    /// lock over its range while it is done (a read lock for reads; IOR's MMAP API takes
    /// none).
    pub range_locks: bool,
    /// `-x` (singleXferAttempt): a POSIX transfer that comes back short fails the phase
    /// instead of being finished (IOR gives up on it and aborts).
    pub single_attempt: bool,
    /// With -D and a prefill: what is left of the deadline when the transfers start.
    pub deadline_left: Option<std::time::Duration>,
    /// `-O interIODelay=N`: microseconds between transfers of the write and read phases.
    pub inter_io_delay: u64,
    /// `-O saveRankPerformanceDetailsCSV=FILE`: each rank's times and rates per phase.
    pub rank_csv: Option<std::path::PathBuf>,
    /// The test's number in the run (IOR's test id: a script's tests from 0).
    pub test_id: usize,
    /// `-y`: IOR's dual mount, the test file `-o` + the CPU's NUMA node + `/data`.
    pub dual_mount: bool,
    /// The seed -z's offsets are drawn with in this test: `--random-offset-seed`'s, else
    /// rank 0's clock at the test's start (IOR's time(NULL)).
    pub z_seed: i64,
}

pub use report::{Format, Phase};

/// This process's place among the ranks of the run (one process: rank 0 of 1), and the
/// task whose data a step of it handles.
#[derive(Clone, Copy)]
struct Place<'a> {
    pub(super) cl: &'a dyn Cluster,
    /// IOR's tasks under mpirun: the ranks that take part (the first `-N`); 1 alone.
    pub(super) tasks: u32,
    /// The task (rank) whose files or blocks this rank's step goes through: its own, or
    /// with -C/-Z in the read phase another's (IOR's `(rank + rankOffset) % numTasks`).
    pub(super) data_of: u32,
}

impl Place<'_> {
    pub(super) fn rank(&self) -> u32 {
        self.cl.rank()
    }
    /// The ranks that take part.
    pub(super) fn ranks(&self) -> u32 {
        self.tasks
    }
    pub(super) fn root(&self) -> bool {
        self.cl.rank() == 0
    }
    /// A rank past `-N`'s tasks: it joins the barriers and runs nothing, as IOR's.
    pub(super) fn idle(&self) -> bool {
        self.cl.rank() >= self.tasks
    }
    /// This place going through `task`'s data.
    pub(super) fn as_task(&self, task: u32) -> Self {
        Place {
            data_of: task,
            ..*self
        }
    }
    pub(super) fn limits(&self) -> fathom::plan::Limits {
        fathom::plan::Limits {
            rank: (self.ranks() > 1).then_some(fathom::plan::Rank {
                rank: self.data_of,
                size: self.ranks(),
            }),
            ..Default::default()
        }
    }
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
    // IOR's -f script: its tests one after the other, each on the command line's
    // settings and the script's directives up to it.
    let all: Vec<Opts> = args::tests(args)?
        .iter()
        .map(|a| parse(a))
        .collect::<Result<_>>()?;
    let first = all
        .first()
        .ok_or_else(|| anyhow!("the script has no test"))?;
    if let (Some(f), 0) = (&first.summary_file, cl.rank()) {
        println!("Writing output to {}", f.display());
    }
    let mut out = Out::new(first);
    if first.verbose >= 3 && cl.rank() == 0 {
        // IOR's -vvv: the environment.
        let mut env = String::from("STARTING ENVIRON LOOP\n");
        for (k, v) in std::env::vars_os() {
            env.push_str(&format!(
                "{}={}\n",
                k.to_string_lossy(),
                v.to_string_lossy()
            ));
        }
        env.push_str("ENDING ENVIRON LOOP\n");
        out.log(&env);
    }
    let mut errors = 0;
    for (id, mut o) in all.clone().into_iter().enumerate() {
        o.test_id = id;
        errors += run_test(o, cl, &mut out)?;
    }
    if cl.rank() != 0 {
        return Ok((0, Vec::new()));
    }
    let (text, metrics) = out.finish();
    match &first.summary_file {
        Some(f) => std::fs::write(f, text)
            .map_err(|e| anyhow!("cannot write the summary file {}: {e}", f.display()))?,
        None => print!("{text}"),
    }
    Ok((exit_status(errors), metrics))
}

/// IOR's exit status after checks (-W, -R) found `errors` wrong transfers over all its
/// tests: IOR 4.0.0 adds each check's count to its total twice and exits with the total,
/// so the status is twice the count, modulo 256. Where that wraps to 0, fathom exits 255
/// instead: a run that found wrong data never reports success.
fn exit_status(errors: u64) -> u8 {
    match errors {
        0 => 0,
        n => match (n.wrapping_mul(2) % 256) as u8 {
            0 => 255,
            c => c,
        },
    }
}

/// The NUMA node of the CPU this process runs on now (IOR's getcpu()), 0 when the
/// system does not say.
fn numa_node() -> u32 {
    let Ok(cpu) = nix::sched::sched_getcpu() else {
        return 0;
    };
    std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}"))
        .into_iter()
        .flatten()
        .flatten()
        .find_map(|e| e.file_name().to_str()?.strip_prefix("node")?.parse().ok())
        .unwrap_or(0)
}

/// One test of the run (the command line's, or one of a script's) on every rank; the
/// transfers whose check failed.
fn run_test(mut o: Opts, cl: &dyn Cluster, out: &mut Out) -> Result<u64> {
    let mut s = String::new();
    let world = cl.size();
    let tasks = if world > 1 {
        // IOR: -N takes that many of the ranks, one task each; more than there are is
        // warned of and cut to the ranks.
        let n = if o.tasks_given { o.tasks } else { world };
        if n > world && o.warnings_as_errors {
            bail!("More tasks requested ({n}) than available ({world}), (--warningAsErrors)");
        }
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
    // -y: each rank's files on the mount of the NUMA node it runs on (IOR's
    // FILE<node>/data), the test file's name shown as given.
    if o.dual_mount {
        let given = o.test_file.clone().unwrap_or_else(|| o.test_file_name());
        let node = numa_node();
        args::set_test_file(&mut o, &format!("{given}{node}/data"))?;
        o.test_file = Some(given);
    }
    // -O saveRankPerformanceDetailsCSV: made anew with its head when first named.
    if let Some(p) = o.rank_csv.as_ref().filter(|p| !out.rank_csvs.contains(p)) {
        if cl.rank() == 0 {
            std::fs::write(p, phases::RANK_CSV_HEAD).map_err(|e| {
                anyhow!(
                    "Cannot open saveRankPerformanceDetailsCSV file for write! ({}: {e})",
                    p.display()
                )
            })?;
        }
        out.rank_csvs.push(p.clone());
    }
    std::fs::create_dir_all(&o.dir)?;
    for (d, _) in &o.other_files {
        std::fs::create_dir_all(d)?;
    }
    let nodes = nodes(cl, o.tasks, &mut s);
    let all_tasks = o.tasks * tasks;
    ready(&o, at, nodes)?;
    if at.root() {
        out.log(&s);
        // (IOR names the file without -m's repetition number here.)
        let first = if o.file_per_proc {
            o.task_files(at).swap_remove(0)
        } else {
            o.dir.join(o.shared_name())
        };
        out.begin(&o, all_tasks, nodes, o.shown(&first));
    }
    let result = iterations(&o, at, nodes, out);
    // A run that failed leaves no files (each repetition removes its own when it ends).
    if result.is_err() && !o.keep {
        for i in 0..o.iterations {
            cleanup(&o.for_rep(i), at);
        }
    }
    result
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
    // stoneWallingWearOut takes each task on from where it stopped: one task a process.
    if o.wear_out && o.tasks > 1 {
        bail!(
            "stoneWallingWearOut with -N threads in one process is not supported: run the \
             tasks as ranks under mpirun (fathom's MPI build)"
        );
    }
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

#[cfg(test)]
mod tests {
    use super::exit_status;

    #[test]
    fn the_exit_status_is_ior_s_doubled_count() {
        assert_eq!(exit_status(0), 0);
        assert_eq!(exit_status(1), 2);
        assert_eq!(exit_status(4), 8);
        assert_eq!(exit_status(127), 254);
        assert_eq!(exit_status(129), 2);
        // (IOR's own would be 0 here.)
        assert_eq!(exit_status(128), 255);
        assert_eq!(exit_status(256), 255);
    }
}
