//! IOR's command line: its flags, letter groups, long names and `-O` directives.

use super::Opts;
use anyhow::{anyhow, bail, Result};

/// The flags `parse` knows (for "did you mean").
pub(super) const FLAGS: &[&str] = &[
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
    "-D",
    "--deadlineForStonewalling",
    "-T",
    "--maxTimeDuration",
    "-K",
    "--keepFileWithError",
    "-G",
    "--setTimeStampSignature",
    "-A",
    "--refNum",
    "-B",
    "--useO_DIRECT",
    "--summaryFormat",
    "--summaryFile",
    "-f",
    "--testscripts",
    "--summaryAlways",
    "-M",
    "--memoryPerNode",
    "--memoryPerTask",
    "-j",
    "--outlierThreshold",
    "--random-offset-seed",
    "--warningAsErrors",
    "-y",
    "--dualMount",
    "-l",
    "--dataPacketType",
    "-x",
    "--singleXferAttempt",
    "--dryRun",
    "--randomPrefill",
    "--minTimeDuration",
    "--posix.rangelocks",
    "--gpuDirect",
    "--interIODelay",
    "--saveRankPerformanceDetailsCSV",
];

/// IOR's one-letter options that take a value.
pub(super) const VALUED: &str = "abdfiostNOQXDTGAMjl";
/// IOR's one-letter flags.
pub(super) const FLAG_LETTERS: &str = "wrYzECgvucWRmFekZhKByx";

/// IOR's groups of one-letter options as IOR's parser reads them, one argument each:
/// `-vvv` and `-wrk` are flags one by one, `-b64k` and `-t1m` a letter and its value
/// (IOR 4.0 then also takes the value's letters as flags: `-t1m` turns on -m there; fathom
/// takes the value only).
pub(super) fn split_groups(args: &[String]) -> Vec<String> {
    crate::getopt_clusters(args, VALUED, FLAG_LETTERS)
}

/// IOR's directives as `-O` takes them (`-O useO_DIRECT=1,keepFile=1`), case-blind, and
/// the command-line flag each stands for: flags (set by 1, left off by 0) and values.
pub(super) const DIRECTIVES: &[(&str, &str, bool)] = &[
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
    (
        "deadlineforstonewalling",
        "--deadlineForStonewalling",
        false,
    ),
    ("stonewallingwearout", "--stoneWallingWearOut", false),
    (
        "stonewallingwearoutiterations",
        "--stoneWallingWearOutIterations",
        false,
    ),
    ("stonewallingstatusfile", "--stoneWallingStatusFile", false),
    ("maxtimeduration", "--maxTimeDuration", false),
    ("keepfilewitherror", "--keepFileWithError", true),
    ("settimestampsignature", "--setTimeStampSignature", false),
    ("refnum", "--refNum", false),
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
    ("posix.rangelocks", "--posix.rangelocks", true),
    ("checkwrite", "--checkWrite", true),
    ("checkread", "--checkRead", true),
    ("collective", "--collective", true),
    ("multifile", "--multiFile", true),
    ("summaryformat", "--summaryFormat", false),
    ("summaryalways", "--summaryAlways", true),
    ("summaryfile", "--summaryFile", false),
    ("memorypertask", "--memoryPerTask", false),
    ("memorypernode", "--memoryPerNode", false),
    ("outlierthreshold", "--outlierThreshold", false),
    ("warningaserrors", "--warningAsErrors", true),
    ("dualmount", "--dualMount", true),
    ("datapackettype", "--dataPacketType", false),
    ("singlexferattempt", "--singleXferAttempt", true),
    ("dryrun", "--dryRun", true),
    ("mintimeduration", "--minTimeDuration", false),
    ("gpudirect", "--gpuDirect", true),
    ("interiodelay", "--interIODelay", false),
    (
        "saverankperformancedetailscsv",
        "--saveRankPerformanceDetailsCSV",
        false,
    ),
];

/// The prefix of the internal argument that turns a flag off (a directive's `=0`).
const UNSET: &str = "--unset:";

/// A flag directive set to 0: the setting off again.
fn unset(o: &mut Opts, flag: &str) -> Result<()> {
    match flag {
        "--writeFile" => o.write = false,
        "--readFile" => o.read = false,
        "--fsyncPerWrite" => o.fsync_each = false,
        "--randomOffset" => o.random = false,
        "--useExistingTestFile" => o.existing = false,
        "--reorderTasks" => o.reorder = false,
        "--reorderTasksRandom" => o.reorder_random = 0,
        "--keepFileWithError" => o.keep_with_error = false,
        "--filePerProc" => o.file_per_proc = false,
        "--keepFile" => o.keep = false,
        "--fsync" => o.fsync = false,
        "--uniqueDir" => o.unique_dir = false,
        "--posix.odirect" => o.direct = false,
        "--posix.rangelocks" => o.range_locks = false,
        "--checkWrite" => o.check_write = false,
        "--checkRead" => o.check_read = false,
        "--multiFile" => o.multi_file = false,
        "--verbose" => o.verbose = 0,
        "--summaryAlways" => o.summary_always = false,
        "--warningAsErrors" => o.warnings_as_errors = false,
        "--dualMount" => o.dual_mount = false,
        // Off is what fathom does.
        "--singleXferAttempt" => o.single_attempt = false,
        "--dryRun" | "--gpuDirect" => {}
        "--collective" | "--intraTestBarriers" => {}
        other => bail!("{other}: cannot be set to 0"),
    }
    Ok(())
}

/// IOR's `-f SCRIPT`: the tests of the script, each as the command line (without `-f`)
/// followed by its directives as `-O` arguments. As IOR reads a script: lines between
/// `IOR START` and `IOR STOP` (case-blind), `#` comments, directives `name=value` (several
/// on a line, comma-separated); `RUN` ends a test, the next directive starts the next one
/// from the last one's settings, and `RUN` twice runs a test twice. Without `-f`, the
/// command line is the one test.
pub(super) fn tests(args: &[String]) -> Result<Vec<Vec<String>>> {
    let args = split_groups(args);
    let Some(i) = args
        .iter()
        .position(|a| a == "-f" || a.starts_with("--testscripts"))
    else {
        return Ok(vec![args]);
    };
    let (path, skip) = match args[i].split_once('=') {
        Some((_, p)) => (p.to_string(), 1),
        None => (
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| anyhow!("-f needs a script file"))?,
            2,
        ),
    };
    let mut base = args.clone();
    base.drain(i..i + skip);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow!("-f {path}: cannot read the script: {e}"))?;
    let is = |line: &str, word: &str| line.trim().eq_ignore_ascii_case(word);
    let mut lines = text.lines().enumerate();
    if !lines.any(|(_, l)| is(l, "ior start")) {
        bail!("-f {path}: no 'IOR START' line (IOR's scripts hold their tests between IOR START and IOR STOP)");
    }
    // Each test's directives so far (a test starts from the one before it).
    let mut list: Vec<Vec<String>> = vec![Vec::new()];
    let mut ran = false;
    for (n, line) in lines {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if is(t, "ior stop") {
            break;
        }
        if is(t, "run") {
            if ran {
                let again = list.last().cloned().unwrap_or_default();
                list.push(again);
            }
            ran = true;
            continue;
        }
        if ran {
            let next = list.last().cloned().unwrap_or_default();
            list.push(next);
            ran = false;
        }
        let t = t.split('#').next().unwrap_or("");
        for d in t.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            let Some((k, v)) = d.split_once('=') else {
                bail!(
                    "-f {path}:{}: '{d}': directives look like name=value",
                    n + 1
                );
            };
            let (k, v) = (k.trim().trim_start_matches("--"), v.trim());
            // Checked here, so that the error names the script's line.
            expand_directives(&["-O".to_string(), format!("{k}={v}")])
                .map_err(|e| anyhow!("-f {path}:{}: {e}", n + 1))?;
            if let Some(last) = list.last_mut() {
                last.push(format!("{k}={v}"));
            }
        }
    }
    Ok(list
        .into_iter()
        .map(|ds| {
            let mut a = base.clone();
            for d in ds {
                a.push("-O".into());
                a.push(d);
            }
            a
        })
        .collect())
}

/// The command line with each `-O a=1,b=2` replaced by the flags it stands for.
pub(super) fn expand_directives(args: &[String]) -> Result<Vec<String>> {
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
                    crate::did_you_mean(&key, &names)
                );
            };
            let v = v.trim();
            if *is_flag {
                // As IOR: a directive sets its setting, so 0 turns off what the command
                // line (or an earlier line of a script) turned on.
                out.push(format!("{UNSET}{flag}"));
                match v {
                    "0" => {}
                    "1" => out.push(flag.to_string()),
                    // verbose is a level.
                    _ if key == "verbose" && v.parse::<u32>().is_ok() => {
                        let n = v.parse::<u32>().unwrap_or(0).min(9);
                        out.extend((0..n).map(|_| flag.to_string()));
                    }
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
      [-d delay] [-E] [-D seconds] [-T minutes] [-K] [-G seed] [-A refNum] [-B]
      [-M memoryPerNode] [-j seconds] [--random-offset-seed N] [-O directives]
      [-f script]
  -a api (POSIX: pread/pwrite, MMAP: mapped)   -b bytes per task per segment (1m)
  -t bytes per transfer (256k)  -s segments (1)  -i repetitions (1)
  -N tasks (under mpirun: the first N ranks, all by default; alone: N threads)
  -o test file (testFile; N-N files are testFile.00000003; a directory: files in it)
  -F file per task  -w write only  -r read only  -e fsync after the write phase
  -Y fsync after every write  -k keep the files  -z random offsets  -d seconds between
  repetitions  -E use the existing file  -u with -F, a folder per task
  -m a file per repetition  -W check the data after the write phase  -R the read
  phase checks what it reads (timed; without -w needs -G)
  -C read back the data of the task -Q nodes on (1)  -Z a random task's (-Z -Z: a
  shuffle; -X its seed)  -v verbose (-vvv: the file each task reads)  -g -c accepted
  -D stop each write/read phase after this many seconds (IOR's stonewalling; with
  -O stoneWallingWearOut=1 every task then goes on to the most transfers any did, and
  -O stoneWallingStatusFile=F keeps that count for a later -r run)
  -T no phase starts after this many minutes  -K keep the files when a check failed
  -G IOR's data signature  -A reference number (in the summary)  -B O_DIRECT (IOR 3)
  -M memory the tasks of a node take and touch for the test, as IOR reads it: a leading
  number is a percentage of the node's memory (IOR's '2g' is 2%); -O memoryPerTask=SIZE
  for each task  -j N warn of a task N seconds off the mean (IOR's outlier check)
  --random-offset-seed N the seed of -z's offsets (needed with -z -R)
  --warningAsErrors a warning ends the run  -O interIODelay=USEC after each transfer
  -y with -F, each task's file on its NUMA node's mount (FILE<node>/data.TASK)
  -O saveRankPerformanceDetailsCSV=FILE each task's times and rates per phase
  -O minTimeDuration=N a phase repeats its whole passes until it has run N seconds
  --randomPrefill=SIZE with -z, the write phase first writes each task's blocks whole
  in SIZE writes (0xFF bytes), timed with the phase, not counted in its bytes
  -l t|o|i|r IOR's data packets: timestamp (default), offset, incompressible, random
  -o A@B files on several file systems: -F task T's on the (T mod count)th name
  -O directives (e.g. -O useO_DIRECT=1,keepFile=1,stoneWallingWearOutIterations=N;
  -O summaryFormat=default|JSON|CSV, -O summaryFile=FILE, -O summaryalways=1: IOR 4.0's
  report formats)
  -f script: IOR's script of tests (directives between IOR START and IOR STOP, RUN
  after each test), run one after the other on the command line's settings
  e.g. mpirun -np 4 fathom suite ior -a POSIX -b 64k -F -i 10 -s 200 -t 4k";

/// A count of IOR's (seconds, minutes, transfers).
fn number(k: &str, v: &str) -> Result<u64> {
    v.trim()
        .parse()
        .map_err(|_| anyhow!("{k}: '{v}' is not a number"))
}

/// `-o`: the test file, as given; names joined by '@' are files on several file systems
/// (an existing directory keeps fathom's older meaning: files in it).
pub(super) fn set_test_file(o: &mut Opts, v: &str) -> Result<()> {
    o.test_file = Some(v.to_string());
    let mut names = v.split('@').filter(|n| !n.is_empty()).map(|n| {
        let (dir, file) = crate::file_arg(n.into());
        let name = file.and_then(|f| Some(f.file_name()?.to_string_lossy().into_owned()));
        (dir, name)
    });
    let (dir, name) = names.next().ok_or_else(|| anyhow!("-o: no file name"))?;
    o.dir = dir;
    if name.is_some() {
        o.name = name;
    }
    o.other_files = names.collect();
    Ok(())
}

/// `-M`'s value as IOR 4.0 reads it: a leading whole number is a percentage of the
/// node's memory (IOR's scan takes the number and stops, so `-M 2g` is 2 percent, and
/// `-M 75%` 75 percent); without one, a size.
fn node_memory(v: &str) -> Result<u64> {
    let t = v.trim_start();
    let sign = usize::from(t.starts_with(['-', '+']));
    let digits = t[sign..].chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return size(v);
    }
    let percent: i64 = t[..sign + digits]
        .parse()
        .map_err(|_| anyhow!("-M: '{v}' is not a number"))?;
    if !(0..=100).contains(&percent) {
        bail!("percentage must be between 0 and 100");
    }
    let mem = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .unwrap_or(4096) as u64
        * nix::unistd::sysconf(nix::unistd::SysconfVar::_PHYS_PAGES)
            .ok()
            .flatten()
            .unwrap_or(0) as u64;
    // (IOR divides first.)
    Ok(mem / 100 * percent as u64)
}

/// A signed number of IOR's (a seed, a reference number).
fn signed(k: &str, v: &str) -> Result<i64> {
    v.trim()
        .parse()
        .map_err(|_| anyhow!("{k}: '{v}' is not a number"))
}

pub(super) fn size(v: &str) -> Result<u64> {
    fathom_job::units::parse_size(v, 1024, fathom_job::Dialect::Fio)
        .map_err(|e| anyhow!("'{v}': {e}"))
}

impl Opts {
    /// IOR's defaults.
    pub(super) fn defaults() -> Opts {
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
            other_files: Vec::new(),
            reorder: false,
            task_offset: 1,
            reorder_random: 0,
            random_seed: 0,
            tasks_given: false,
            verbose: 0,
            deadline: 0,
            wear_out: false,
            wear_out_iterations: 0,
            status_file: None,
            max_minutes: 0,
            keep_with_error: false,
            signature: None,
            ref_num: None,
            check_write: false,
            check_read: false,
            multi_file: false,
            rep: None,
            format: super::Format::Text,
            summary_file: None,
            test_file: None,
            api: "POSIX".into(),
            stamp: 0,
            packet: super::Packet::Timestamp,
            summary_always: false,
            memory_per_task: 0,
            memory_per_node: 0,
            outlier: 0,
            random_offset_seed: None,
            test_id: 0,
            dual_mount: false,
            warnings_as_errors: false,
            inter_io_delay: 0,
            min_time: 0,
            prefill: 0,
            range_locks: false,
            single_attempt: false,
            deadline_left: None,
            rank_csv: None,
            z_seed: 0,
        }
    }

    /// After the flags: IOR's default phases, and its checks on the sizes.
    pub(super) fn settle(&mut self) -> Result<()> {
        // IOR: none of -w, -r, -W, -R means -w -r.
        if !(self.write || self.read || self.check_write || self.check_read) {
            self.write = true;
            self.read = true;
        }
        if self.min_time > 0 && (self.deadline > 0 || !self.ior_data()) {
            bail!(
                "-O minTimeDuration with -D, or with -N threads of one process, is not \
                 supported: run the tasks as ranks under mpirun, without -D"
            );
        }
        // IOR's rules on the prefill, then fathom's: with -D, IOR prefills each segment
        // as its deadline's loop reaches it (one segment: before it, as without -D).
        if self.prefill > 0 && !self.random {
            bail!("Setting the randomPrefill option without using random is not useful");
        }
        if self.prefill > 0 && self.block % self.prefill != 0 {
            bail!("The randomPrefill option must divide the blockSize");
        }
        if self.prefill > 0 && self.deadline > 0 && self.segments > 1 {
            bail!(
                "--randomPrefill with -D and several segments (-s {}) is not supported \
                 (IOR prefills each segment as the deadline's loop reaches it); use -s 1 \
                 or no -D",
                self.segments
            );
        }
        if self.dual_mount && !self.file_per_proc {
            bail!("Dual Mount can only be used with File Per Process");
        }
        // IOR's rules on several file systems (-o A@B).
        if !self.other_files.is_empty() && self.unique_dir {
            bail!("cannot use multiple file names with unique directories");
        }
        if !self.other_files.is_empty() && self.file_per_proc && self.tasks > 1 {
            bail!(
                "-o with several file names ('@') and -F places each task's file by its \
                 rank: run the tasks as ranks under mpirun (fathom's MPI build), not as -N \
                 threads of one process"
            );
        }
        // IOR's rules on -z with a shared file and another task's data.
        if self.random && !self.file_per_proc && self.reorder_random > 0 {
            bail!(
                "random offset and random reorder tasks specified with single-shared-file. \
                 Choose one and resubmit"
            );
        }
        if self.random && !self.file_per_proc && self.reorder {
            bail!(
                "random offset and constant reorder tasks specified with single-shared-file. \
                 Choose one and resubmit"
            );
        }
        // IOR's rule: -z's offsets must be known again to check them.
        if self.random && self.check_read && self.random_offset_seed.is_none() {
            bail!("random offset with read check option requires to set the random seed");
        }
        // IOR's rule: a -R without a write phase compares with -G's signature.
        if self.check_read && !self.write && self.signature.is_none() {
            bail!("using readCheck only requires to write a timeStampSignature -- use -G");
        }
        if self.tasks == 0 || self.segments == 0 || self.iterations == 0 {
            bail!("--tasks, --segments and --iterations must be at least 1");
        }
        if self.transfer == 0 || self.block % self.transfer != 0 {
            bail!("--block must be a multiple of --transfer (IOR's rule)");
        }
        // IOR's rules on stonewalling.
        if self.status_file.is_some() && !self.keep {
            bail!(
                "a StoneWallingStatusFile is only sensible when splitting write/read into \
                 multiple executions of ior, please use -k"
            );
        }
        if self.status_file.is_some() && !self.wear_out && self.write {
            bail!(
                "the StoneWallingStatusFile is only sensible for a write test when using \
                 stoneWallingWearOut"
            );
        }
        if self.deadline == 0 && self.wear_out {
            bail!("the stoneWallingWearOut is only sensible when setting a stonewall deadline with -D");
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
    let mut opts = crate::Opts::new(&args);
    while let Some((k, a, inline)) = opts.next_opt() {
        if let Some(flag) = k.strip_prefix(UNSET) {
            unset(&mut o, flag)?;
            continue;
        }
        let mut val = || opts.value(k, inline.clone());
        match k {
            "--dir" => o.dir = val()?.into(),
            "-o" | "--testFile" => set_test_file(&mut o, &val()?)?,
            "-a" | "--api" => match val()?.as_str() {
                // (IOR shows the API as it was given.)
                v if v.eq_ignore_ascii_case("POSIX") => {
                    o.mmap = false;
                    o.api = v.to_string();
                }
                v if v.eq_ignore_ascii_case("MMAP") => {
                    o.mmap = true;
                    o.api = v.to_string();
                }
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
            "-D" | "--deadlineForStonewalling" => o.deadline = number(k, &val()?)?,
            "--stoneWallingWearOut" => o.wear_out = number(k, &val()?)? != 0,
            "--stoneWallingWearOutIterations" => o.wear_out_iterations = number(k, &val()?)?,
            "--stoneWallingStatusFile" => o.status_file = Some(val()?.into()),
            "--summaryFormat" => {
                o.format = match val()?.to_ascii_lowercase().as_str() {
                    "default" => super::Format::Text,
                    "json" => super::Format::Json,
                    "csv" => super::Format::Csv,
                    v => bail!("Unknown summaryFormat '{v}': use default, JSON or CSV"),
                }
            }
            "--summaryFile" => o.summary_file = Some(val()?.into()),
            "--summaryAlways" => o.summary_always = true,
            "-T" | "--maxTimeDuration" => o.max_minutes = number(k, &val()?)?,
            "-K" | "--keepFileWithError" => o.keep_with_error = true,
            "-G" | "--setTimeStampSignature" => o.signature = Some(signed(k, &val()?)?),
            // IOR: the one or the other, the last given.
            "-M" | "--memoryPerNode" => {
                o.memory_per_node = node_memory(&val()?)?;
                o.memory_per_task = 0;
            }
            "--memoryPerTask" => {
                o.memory_per_task = size(&val()?)?;
                o.memory_per_node = 0;
            }
            "-j" | "--outlierThreshold" => o.outlier = number(k, &val()?)?,
            "--random-offset-seed" => o.random_offset_seed = Some(signed(k, &val()?)?),
            "--warningAsErrors" => o.warnings_as_errors = true,
            "-y" | "--dualMount" => o.dual_mount = true,
            // IOR reads the first letter only.
            "-l" | "--dataPacketType" => {
                let v = val()?;
                o.packet = match v.chars().next() {
                    None | Some('t') => super::Packet::Timestamp,
                    Some('o') => super::Packet::Offset,
                    Some('i') => super::Packet::Incompressible,
                    Some('r') => super::Packet::Random,
                    Some(c) => bail!(
                        "-l {v}: unknown packet type \"{c}\" (IOR's are t: timestamp, o: \
                         offset, i: incompressible, r: random)"
                    ),
                };
            }
            // -x: a transfer that comes back short is an error (IOR aborts: "cannot
            // write to file"), its rest not asked for again.
            "-x" | "--singleXferAttempt" => o.single_attempt = true,
            "--dryRun" => bail!(
                "--dryRun is not supported (IOR 4.0.0's own dry run fails to create its file)"
            ),
            "--minTimeDuration" => o.min_time = number(k, &val()?)?,
            // -z: each task's blocks written whole in writes of this size, inside the
            // timed write phase, before its random transfers (IOR's default: none).
            "--randomPrefill" => o.prefill = size(&val()?)?,
            // Each POSIX transfer holds a byte-range lock over its range (a read lock
            // for reads), as IOR's POSIX backend takes it with fcntl.
            "--posix.rangelocks" => o.range_locks = true,
            "--gpuDirect" => bail!("{k} is not supported by fathom's IOR"),
            "--interIODelay" => o.inter_io_delay = number(k, &val()?)?,
            "--saveRankPerformanceDetailsCSV" => o.rank_csv = Some(val()?.into()),
            "-A" | "--refNum" => o.ref_num = Some(signed(k, &val()?)?),
            // IOR 3's flag for O_DIRECT (IOR 4: --posix.odirect).
            "-B" => o.direct = true,
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
                crate::did_you_mean(a, FLAGS)
            ),
        }
    }
    o.settle()?;
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
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
}
