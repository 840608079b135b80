//! Command-line arguments: fathom's own flags (clap) and fio-style job options.

use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;

/// fathom — a storage I/O benchmark and workload generator driven by fio-style job files.
#[derive(Parser, Debug)]
#[command(
    name = "fathom",
    version,
    about = "A storage I/O benchmark and workload generator driven by fio-style job files",
    long_about = "A storage I/O benchmark and workload generator driven by fio-style job files.\n\n\
Run fio INI job files (.fio) or TOML job files (.toml) as they are, or give a job on the\n\
command line as fio does: options before the first --name are global, each --name starts a\n\
job, e.g.\n\n    fathom --name=a --rw=randread --bs=4k --size=1g\n\n\
The command line is read as fio's getopt reads it: one dash works too (-name=a -thread\n\
-iodepth 16), so does a unique beginning of a name (--runt=60), and fio's letters\n\
(-o FILE, -m, -P, -x SECTION).\n\n\
Job options written after a job file override what the file says:\n\n\
\x20   fathom jobs/oltp-8k.fio --directory=/mnt/disk --size=4g\n\n\
Every job option fathom knows is listed by --cmdhelp; --cmdhelp=OPTION explains one;\n\
--list-jobs (or `fathom jobs`) shows the preset job library.\n\n\
More commands (each with --help):\n\
\x20   fathom merge A.native B.native     add stored results exactly\n\
\x20   fathom compare BASE NEW            faster, slower or within noise (a CI gate)\n\
\x20   fathom plot RESULT... -o DIR       SVG charts\n\
\x20   fathom suite NAME ...              bonnie, dd, dbench, cdm, sysbench, iozone, curve, ior, metarates\n\
\x20   fathom vdbench -f PARMFILE ...     a vdbench parameter file, vdbench's flags and output\n\
\x20   fathom verify --journal PATH       check a crashed verify_journal run\n\
\x20   fathom install-links DIR           DIR/bonnie++, iozone, sysbench, IOR, dd, dbench, metarates, vdbench, fio -> fathom\n\n\
Run under a classic tool's name (a link or copy: bonnie++, bonnie, iozone, sysbench, IOR,\n\
ior, dd, dbench, metarates, vdbench), fathom runs that tool's suite with the command line as
given (IOR and metarates under mpirun too).",
    after_help = "Exit codes: 0 success, 1 a job hit an I/O error, 2 bad job file or usage, \
3 an assert= condition failed, 130/143 interrupted by SIGINT/SIGTERM (results so far are still \
printed).\n\nMore: fathom merge --help, fathom plot --help, fathom --list-jobs."
)]
pub struct Cli {
    /// Job files to run (fio INI, or TOML when the name ends in .toml; "-" reads stdin).
    #[arg(value_name = "JOBFILE")]
    pub files: Vec<String>,

    /// Write the report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Report formats, a comma list: normal, terse, json, json+, csv, markdown, native.
    /// Several are written one after another (to stdout or --output), except those sent
    /// to their own file with --output-FORMAT.
    #[arg(long, value_name = "LIST", default_value = "normal")]
    pub output_format: String,

    /// Same as --output-format=terse.
    #[arg(long)]
    pub minimal: bool,

    /// Version of the terse format: 2, 3, 4 or 5 (fio's; default 3).
    #[arg(long, value_name = "N", require_equals = true, value_parser = clap::value_parser!(u32).range(2..=5))]
    pub terse_version: Option<u32>,

    /// Write the normal report to FILE (and select it).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub output_normal: Option<PathBuf>,
    /// Write the terse report to FILE (and select it).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub output_terse: Option<PathBuf>,
    /// Write the JSON report to FILE (and select it).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub output_json: Option<PathBuf>,
    /// Write the JSON+ report to FILE (and select it).
    #[arg(long = "output-json-plus", value_name = "FILE", require_equals = true)]
    pub output_json_plus: Option<PathBuf>,
    /// Write the CSV report to FILE (and select it).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub output_csv: Option<PathBuf>,
    /// Write the Markdown report to FILE (and select it).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub output_markdown: Option<PathBuf>,
    /// Write the native result to FILE (and select it).
    #[arg(long, value_name = "FILE", require_equals = true)]
    pub output_native: Option<PathBuf>,

    /// fio's --showcmd: print each job file as one command line (its globals, then
    /// --name=JOB and the job's options) and exit.
    #[arg(long)]
    pub showcmd: bool,

    /// fio's --max-jobs: accepted for fio command lines; fio 3.x ignores it too (it no
    /// longer has a fixed table of jobs), and so does fathom.
    #[arg(long, value_name = "N")]
    pub max_jobs: Option<u32>,

    /// fio's --eta-newline: end the progress line with a newline every T (e.g. 5s), so a
    /// terminal keeps a line per period.
    #[arg(long, value_name = "T")]
    pub eta_newline: Option<String>,

    /// fio's --append-terse: the terse line as well as the selected formats.
    #[arg(long)]
    pub append_terse: bool,

    /// fio's --warnings-fatal: fathom's advice about a job (what --warnings prints, such
    /// as an engine capping iodepth) is an error (exit 2) instead.
    #[arg(long)]
    pub warnings_fatal: bool,

    /// fio's --alloc-size (its shared-memory pool, in KiB): accepted so fio command lines
    /// run; fathom has no fixed pool, so it changes nothing.
    #[arg(long, value_name = "KB")]
    pub alloc_size: Option<u64>,

    /// Print fathom's advice and notes on stderr (an engine that caps iodepth, buffered
    /// libaio, a rate not reached, tolerated errors). Without it stderr stays as quiet as
    /// fio's (scripts treat any stderr as failure); JSON keeps the notes in each job's
    /// "notes".
    #[arg(long)]
    pub warnings: bool,

    /// Check the jobs' options only, as fio does: nothing on this machine is looked at
    /// (targets, sizes, engines' kernel support), nothing printed on success, no I/O.
    #[arg(long)]
    pub parse_only: bool,

    /// Merge the blktrace traces of every job with merge_blktrace_file (its read_iolog
    /// list) into that file, then stop: no I/O, as fio's --merge-blktrace-only.
    #[arg(long)]
    pub merge_blktrace_only: bool,

    /// Run only the job section NAME (repeatable).
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,

    /// Help on job options: all of them, or one (--cmdhelp=bs).
    #[arg(long, value_name = "OPTION", num_args = 0..=1, default_missing_value = "all", require_equals = true)]
    pub cmdhelp: Option<String>,

    /// Write nothing: refuse every job that writes or trims, a file that would have to be
    /// laid out (created or extended), unlink=1 and metadata engines that create or remove,
    /// before anything is opened.
    #[arg(long)]
    pub readonly: bool,

    /// Write to block devices even when they carry a partition table, a file system or
    /// another signature, or are in use (fathom refuses by default).
    #[arg(long)]
    pub allow_destructive: bool,

    /// Run the jobs N times; report each run and, per job and metric, the mean, stddev,
    /// min, max and 95% confidence interval (native output keeps every repetition).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,

    /// IOR-style stonewalling: every job stops after T (e.g. 30s) from its synchronized
    /// start; in a distributed run every rank stops together, and the per-rank breakdown
    /// shows first-done and last-done. Same as an overriding --runtime=T.
    #[arg(long, value_name = "T", require_equals = true)]
    pub stonewall_time: Option<String>,

    /// The progress line on stderr: auto (only when stderr is a terminal), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub eta: String,

    /// How often the progress line is refreshed (e.g. 500ms, 2s).
    #[arg(long, value_name = "T", default_value = "1s", require_equals = true)]
    pub eta_interval: String,

    /// Every T (e.g. 5s), a status block with that interval's numbers (not only the
    /// totals): normal text and/or one JSON object per line, as the selected formats.
    #[arg(long, value_name = "T", require_equals = true)]
    pub status_interval: Option<String>,

    /// Write aggregate bandwidth logs agg-read_bw.log, agg-write_bw.log, agg-trim_bw.log
    /// (every job's bandwidth added up per 500 ms interval, fio's log line format).
    #[arg(long)]
    pub bandwidth_log: bool,

    /// List the preset job files (jobs/) with their descriptions.
    #[arg(long)]
    pub list_jobs: bool,

    /// Print a preset job file (NAME, NAME.fio or NAME.toml), e.g. to copy and edit it.
    #[arg(long, value_name = "NAME", require_equals = true)]
    pub show_job: Option<String>,

    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[arg(long, value_name = "SHELL", require_equals = true)]
    pub completions: Option<clap_complete::Shell>,

    /// Print fathom's man page (roff) on stdout.
    #[arg(long)]
    pub man: bool,

    /// List the I/O engines (or describe one: --enghelp=psync).
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub enghelp: Option<String>,
}

/// `fathom merge`: add stored runs (native results, fio's JSON+) exactly into one.
#[derive(Parser, Debug)]
#[command(
    name = "fathom merge",
    about = "Add native results (--output-format=native) or fio's JSON+ of the same jobs into one",
    long_about = "Add native results (written with --output-format=native) of the same jobs \
exactly into one: jobs are matched by name and group, counters and latency histograms add \
bucket by bucket, interval samples add by interval and runtime is the longest, as if every \
run had been one more clone running at the same time (one job run on several hosts). The \
merged result lists where each input came from (merged_from).\n\n\
fio's JSON+ (fio --output-format=json+, or fathom's) merges too: its latency bins become \
the histograms (at fio's bin precision) with fio's exact count, min, max, mean and \
stddev; fio's JSON holds no interval samples, so the bw/iops sample lines are left out. \
Plain fio JSON has no latency bins and is refused where it holds I/Os.\n\n\
    fathom merge host1.native host2.native > all.native\n\
    fathom merge --output-format=normal a.native b.native\n\
    fathom merge --output-format=json fio-host1.json fio-host2.json"
)]
pub struct MergeCli {
    /// Native result files or fio JSON+ output ("-" reads stdin).
    #[arg(value_name = "RESULT", required = true)]
    pub files: Vec<String>,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Formats of the merged result, a comma list (native, json, normal).
    #[arg(long, value_name = "LIST", default_value = "native")]
    pub output_format: String,
}

/// `fathom verify --journal PATH`: after a crash, check what a journaled run acknowledged.
#[derive(Parser, Debug)]
#[command(
    name = "fathom verify",
    about = "Check every acknowledged block of a verify_journal run (after a crash, SIGKILL or power cut)",
    long_about = "Replay a verify_journal (written by a job with verify=TYPE and \
verify_journal=PATH) and read back every chunk whose write was acknowledged: it must hold \
that generation (or a newer one whose write was in flight at the crash). A chunk in flight \
may hold old or new data, never anything else. Exit 0 when every acknowledged chunk \
checks out, 1 when one does not, 2 when the journal cannot be read.\n\n\
    fathom verify --journal /var/tmp/soak.journal\n\
    fathom verify --journal /var/tmp/soak.journal --offsets > acked.txt"
)]
pub struct VerifyCli {
    /// The journal written by verify_journal=PATH.
    #[arg(long, value_name = "PATH")]
    pub journal: PathBuf,
    /// Print the acknowledged chunks' offsets, one per line (with the file when the
    /// journal covers several), instead of the summary.
    #[arg(long)]
    pub offsets: bool,
}

/// `fathom compare`: is NEW faster or slower than BASE, beyond noise?
#[derive(Parser, Debug)]
#[command(
    name = "fathom compare",
    about = "Compare two native results per job, direction and metric, with a significance test",
    long_about = "Compare two native results (--output-format=native) per job, direction and \
metric (iops, bw, clat mean/p50/p99/p99.9): the change in %, its 95% confidence interval, a \
p-value and a verdict: faster, slower, or within noise. With repetitions on both sides \
(--repeat=N, N >= 2) the test is Welch's t-test across repetitions; on single runs IOPS and \
bandwidth use the 500 ms interval samples, the latency mean every I/O, and latency \
percentiles the Mann-Whitney U test on the whole latency histograms. A change is a verdict \
only when p < alpha and it is at least --noise percent.\n\n\
    fathom compare before.native after.native\n\
    fathom compare --fail-if-slower=5 main.native pr.native      # CI gate: exit 3\n\
    fathom compare --fail-if-slower=iops=3,clat.p99=10 --format=markdown a.native b.native"
)]
pub struct CompareCli {
    /// The baseline result: native, or JSON/JSON+ written by fio (or fathom).
    #[arg(value_name = "BASE")]
    pub base: String,
    /// The result to judge (native, JSON or JSON+).
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Output: table, markdown or json.
    #[arg(long, value_name = "FORMAT", default_value = "table")]
    pub format: String,
    /// Exit with code 3 when a metric is significantly worse by more than PCT percent:
    /// PCT for every metric, or METRIC=PCT pairs (iops=3,clat.p99=10).
    #[arg(long, value_name = "GATE", require_equals = true)]
    pub fail_if_slower: Option<String>,
    /// Changes smaller than this many percent are noise.
    #[arg(long, value_name = "PCT", default_value_t = 1.0)]
    pub noise: f64,
    /// Significance level.
    #[arg(long, value_name = "ALPHA", default_value_t = 0.05)]
    pub alpha: f64,
}

/// `fathom plot`: SVG charts of results.
#[derive(Parser, Debug)]
#[command(
    name = "fathom plot",
    about = "Write SVG charts of results: latency percentile spectrum, IOPS and bandwidth over \
time, IOPS compared across results",
    long_about = "Write SVG charts of results into a directory: per job and direction the \
completion-latency percentile spectrum (a log \"nines\" axis: 90%, 99%, 99.9% ...), IOPS and \
bandwidth over time (500 ms samples), and a bar chart of IOPS across every result given. \
Several results overlay in one chart per job, so a before/after pair reads at a glance.\n\n\
Native results (--output-format=native) have everything; fio JSON+ results give the \
spectrum and totals, fio JSON the totals only.\n\n\
    fathom plot before.native after.native -o plots/"
)]
pub struct PlotCli {
    /// Result files: fathom native, or fio JSON / JSON+.
    #[arg(value_name = "RESULT", required = true)]
    pub files: Vec<String>,
    /// Directory to write the SVG files to (created if missing).
    #[arg(short, long, value_name = "DIR", default_value = "fathom-plots")]
    pub output: PathBuf,
}

/// Names of fathom's own long flags (everything else starting with `--` that names a job
/// option is a job option).
const OWN_FLAGS: &[&str] = &[
    "output",
    "output-format",
    "minimal",
    "terse-version",
    "output-normal",
    "output-terse",
    "output-json",
    "output-json-plus",
    "output-csv",
    "output-markdown",
    "output-native",
    "parse-only",
    "warnings",
    "showcmd",
    "max-jobs",
    "eta-newline",
    "append-terse",
    "warnings-fatal",
    "alloc-size",
    "section",
    "cmdhelp",
    "enghelp",
    "readonly",
    "allow-destructive",
    "list-jobs",
    "repeat",
    "bandwidth-log",
    "eta",
    "eta-interval",
    "status-interval",
    "stonewall-time",
    "show-job",
    "completions",
    "man",
    "help",
    "version",
];

/// fio's command-line flags fathom does not take, each with the reason and what to use.
pub const FIO_REFUSED: &[(&str, &str)] = &[
    ("server", "fathom has no fio server; run on many hosts with mpirun (build with --features mpi): mpirun -np N --hostfile HOSTS fathom job.fio"),
    ("client", "fathom has no fio client/server protocol; run on many hosts with mpirun (build with --features mpi): mpirun -np N --hostfile HOSTS fathom job.fio"),
    ("daemonize", "fathom has no fio server to put in the background; see mpirun for multi-host runs"),
    ("remote-config", "fathom has no fio server; with mpirun every rank reads the same job file"),
    ("debug", "fathom has no debug trace classes; --warnings prints its advice, and strace or perf show the system calls"),
    ("cpuclock-test", "fathom's clock is the kernel's CLOCK_MONOTONIC (through the vDSO); there is no CPU clock to test"),
    ("crctest", "fathom has no checksum speed test; cargo bench measures its hot path"),
    ("idle-prof", "fathom does not profile CPU idleness; each job's usr/sys CPU is in its report"),
    ("inflate-log", "fathom does not write compressed logs, so there is none to inflate"),
    ("trigger-file", "fathom has no trigger commands"),
    ("trigger-timeout", "fathom has no trigger commands"),
    ("trigger", "fathom has no trigger commands"),
    ("trigger-remote", "fathom has no trigger commands"),
    ("aux-path", "fathom writes its state files (verify state) in the working directory"),
    ("latency-log", "fio 3.33 refuses it too (deprecated): give each job write_lat_log=NAME"),
    ("profile", "fio's built-in job sets (tiobench, act) are not built; fio 3.33 ignores the tiobench profile's own options, so write its jobs out as a job file"),
    ("memcpytest", "fathom has no memcpy speed test; cargo bench measures its hot path"),
    ("server-internal", "fathom has no fio server"),
];

/// The reason a fio command-line flag in `args` is refused, if one is.
pub fn fio_refusal(args: &[OsString]) -> Option<String> {
    args.iter().skip(1).find_map(|a| {
        let a = a.to_string_lossy();
        let name = a.strip_prefix("--")?.split('=').next()?.to_string();
        FIO_REFUSED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, why)| format!("fio's --{n} is not supported: {why}"))
    })
}

/// Whether a command-line flag takes a value, as fio's getopt table says.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Takes {
    No,
    /// Required: joined (`-ofile`, `--output=file`) or the next argument.
    Value,
    /// Optional: only joined (`-cbs`, `--cmdhelp=bs`).
    Optional,
}

/// fio's one-letter flags (its getopt string), with the long flag each stands for. `-V`
/// (fio's --terse-version) is left out: it stays fathom's --version, and `-h` is clap's
/// --help as in fio.
const FIO_SHORT: &[(char, &str, Takes)] = &[
    ('o', "output", Takes::Value),
    ('l', "latency-log", Takes::Value),
    ('b', "bandwidth-log", Takes::No),
    ('m', "minimal", Takes::No),
    ('F', "output-format", Takes::Value),
    ('f', "append-terse", Takes::Optional),
    ('v', "version", Takes::No),
    ('h', "help", Takes::No),
    ('c', "cmdhelp", Takes::Optional),
    ('i', "enghelp", Takes::Optional),
    ('s', "showcmd", Takes::No),
    ('r', "readonly", Takes::No),
    ('e', "eta", Takes::Value),
    ('O', "eta-interval", Takes::Value),
    ('E', "eta-newline", Takes::Value),
    ('d', "debug", Takes::Value),
    ('P', "parse-only", Takes::No),
    ('x', "section", Takes::Value),
    ('X', "inflate-log", Takes::Value),
    ('a', "alloc-size", Takes::Value),
    ('p', "profile", Takes::Value),
    ('w', "warnings-fatal", Takes::No),
    ('j', "max-jobs", Takes::Value),
    ('S', "server", Takes::Optional),
    ('N', "server-internal", Takes::Value),
    ('D', "daemonize", Takes::Value),
    ('C', "client", Takes::Value),
    ('R', "remote-config", Takes::Value),
    ('T', "cpuclock-test", Takes::No),
    ('G', "crctest", Takes::Optional),
    ('M', "memcpytest", Takes::Optional),
    ('I', "idle-prof", Takes::Value),
    ('L', "status-interval", Takes::Value),
    ('W', "trigger-file", Takes::Value),
    ('B', "trigger-timeout", Takes::Value),
    ('H', "trigger", Takes::Value),
    ('J', "trigger-remote", Takes::Value),
    ('K', "aux-path", Takes::Value),
    ('A', "merge-blktrace-only", Takes::No),
];

/// fathom's own long flags (clap's), each with whether it takes a value.
fn own_long_flags() -> Vec<(String, Takes)> {
    use clap::CommandFactory;
    Cli::command()
        .get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?.to_string();
            let takes = if !a.get_action().takes_values() {
                Takes::No
            } else if a.get_num_args().is_some_and(|r| r.min_values() == 0) {
                Takes::Optional
            } else {
                Takes::Value
            };
            Some((long, takes))
        })
        .chain([
            ("help".to_string(), Takes::No),
            ("version".to_string(), Takes::No),
        ])
        .collect()
}

/// What a long name given on the command line (in full or shortened) stands for.
enum Long {
    /// A flag or job option, by its full name, and what it takes (None: a job option,
    /// whose value `split_args_indexed` finds).
    Found(String, Option<Takes>),
    Ambiguous(Vec<String>),
    Unknown,
}

/// Every long name of the command line, flags first (fathom's, then fio's), then every job
/// option and alias, with what a flag takes (None: a job option).
fn long_names(own: &[(String, Takes)]) -> Vec<(&str, Option<Takes>)> {
    own.iter()
        .map(|(n, t)| (n.as_str(), Some(*t)))
        .chain(FIO_SHORT.iter().map(|(_, n, t)| (*n, Some(*t))))
        .chain(FIO_REFUSED.iter().map(|(n, _)| (*n, Some(Takes::Optional))))
        .chain(fathom_job::job_option_names().map(|n| (n, None)))
        .collect()
}

/// Match `name` as fio's getopt does: an exact name wins, otherwise the one long name it
/// begins; two or more is an error, as in fio.
fn match_long(name: &str, all: &[(&str, Option<Takes>)]) -> Long {
    if name.is_empty() {
        return Long::Unknown;
    }
    // A flag's name wins over a job option of the same name (`--readonly`, `--section`).
    if let Some((n, t)) = all.iter().find(|(n, _)| *n == name) {
        return Long::Found(n.to_string(), *t);
    }
    let mut hits: Vec<(&str, Option<Takes>)> = Vec::new();
    for (n, t) in all.iter().filter(|(n, _)| n.starts_with(name)) {
        if !hits.iter().any(|(h, _)| h == n) {
            hits.push((n, *t));
        }
    }
    match hits.as_slice() {
        [] => Long::Unknown,
        [(n, t)] => Long::Found(n.to_string(), *t),
        _ => Long::Ambiguous(hits.iter().map(|(n, _)| n.to_string()).collect()),
    }
}

/// fio's command line as its getopt (`getopt_long_only`) reads it, rewritten into the
/// `--name=value` form the rest of fathom parses: a long flag or job option with one dash
/// (`-name=x -rw=read -thread -iodepth 16 -minimal`), a unique beginning of a long name
/// (`--runt=10` for `--runtime`), fio's one-letter flags (`-o FILE`, `-ofile`, `-m`,
/// `-P`, `-x NAME`), and a flag's value as the next argument (`--status-interval 5`).
/// A shortened name that fits several long names is an error that lists them. Nothing
/// after `--` is touched.
pub fn fio_getopt(args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let own = own_long_flags();
    let all = long_names(&own);
    let mut out: Vec<OsString> = Vec::with_capacity(args.len());
    let mut it = args.into_iter();
    out.extend(it.next());
    // A flag with a required value, written with its value joined (the next argument
    // when it has none).
    fn joined(
        long: &str,
        value: Option<String>,
        it: &mut impl Iterator<Item = OsString>,
    ) -> OsString {
        match value.or_else(|| it.next().map(|v| v.to_string_lossy().into_owned())) {
            Some(v) => OsString::from(format!("--{long}={v}")),
            None => OsString::from(format!("--{long}")),
        }
    }
    while let Some(arg) = it.next() {
        let s = arg.to_string_lossy().into_owned();
        if s == "--" {
            out.push(arg);
            out.extend(it);
            break;
        }
        let (body, dashes) = match (s.strip_prefix("--"), s.strip_prefix('-')) {
            (Some(b), _) => (b, 2),
            (None, Some(b)) if !b.is_empty() => (b, 1),
            _ => {
                out.push(arg);
                continue;
            }
        };
        let first = body.chars().next().unwrap_or(' ');
        let short = FIO_SHORT.iter().find(|(c, ..)| *c == first);
        // getopt_long_only: a single dash and one letter that is a short flag is that
        // flag; anything longer is tried as a long name first.
        let try_long = dashes == 2 || body.chars().count() > 1 || short.is_none();
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if try_long {
            match match_long(name, &all) {
                Long::Found(long, Some(Takes::Value)) if value.is_none() => {
                    out.push(joined(&long, None, &mut it));
                    continue;
                }
                Long::Found(long, _) => {
                    out.push(OsString::from(match &value {
                        Some(v) => format!("--{long}={v}"),
                        None => format!("--{long}"),
                    }));
                    continue;
                }
                Long::Ambiguous(names) => {
                    return Err(format!(
                        "option '{}' is ambiguous (as in fio's getopt, a shortened name must \
                         fit one option): {}",
                        s.split('=').next().unwrap_or(&s),
                        names
                            .iter()
                            .map(|n| format!("--{n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                Long::Unknown if dashes == 2 || short.is_none() => {
                    out.push(arg);
                    continue;
                }
                Long::Unknown => {}
            }
        }
        // One-letter flags, bundled as getopt allows (`-mP`), the last one taking the rest
        // of the word (or the next argument) as its value.
        let mut expanded = Vec::new();
        let mut ok = true;
        for (i, c) in body.char_indices() {
            let Some((_, long, takes)) = FIO_SHORT.iter().find(|(l, ..)| *l == c) else {
                ok = false;
                break;
            };
            let rest = &body[i + c.len_utf8()..];
            match takes {
                Takes::No => expanded.push(OsString::from(format!("--{long}"))),
                Takes::Optional => {
                    expanded.push(OsString::from(if rest.is_empty() {
                        format!("--{long}")
                    } else {
                        format!("--{long}={rest}")
                    }));
                    break;
                }
                Takes::Value => {
                    let v = (!rest.is_empty()).then(|| rest.to_string());
                    expanded.push(joined(long, v, &mut it));
                    break;
                }
            }
        }
        if ok {
            out.extend(expanded);
        } else {
            out.push(arg);
        }
    }
    Ok(out)
}

/// Split argv into (clap arguments, job options in order).
#[cfg(test)]
pub fn split_args(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    let (c, j) = split_args_indexed(args);
    (
        c.into_iter().map(|(_, a)| a).collect(),
        j.into_iter().map(|(_, a)| a).collect(),
    )
}

/// Arguments with their positions in argv.
pub type Indexed<T> = Vec<(usize, T)>;

/// `split_args` keeping each argument's position in argv.
pub fn split_args_indexed(args: Vec<OsString>) -> (Indexed<OsString>, Indexed<String>) {
    let mut clap_args = Vec::new();
    let mut job_args = Vec::new();
    let mut it = args.into_iter().enumerate();
    if let Some(argv0) = it.next() {
        clap_args.push(argv0);
    }
    let mut after_double_dash = false;
    let mut it = it.peekable();
    while let Some((i, a)) = it.next() {
        if after_double_dash {
            clap_args.push((i, a));
            continue;
        }
        let s = a.to_string_lossy().to_string();
        if s == "--" {
            after_double_dash = true;
            clap_args.push((i, a));
            continue;
        }
        if let Some(rest) = s.strip_prefix("--") {
            let name = rest.split('=').next().unwrap_or("");
            if !OWN_FLAGS.contains(&name) && fathom_job::is_job_option(name) {
                // fio's getopt form, `--ioengine null`: an option that takes a value takes
                // the next argument when it has no `=`; a flag takes a following 0 or 1.
                let takes_next = !rest.contains('=')
                    && it.peek().is_some_and(|(_, next)| {
                        let next = next.to_string_lossy();
                        match fathom_job::options::find(name) {
                            Some(d) if d.flag => next == "0" || next == "1",
                            _ => name == "name" || !next.starts_with("--"),
                        }
                    });
                if takes_next {
                    let (_, v) = it.next().expect("peeked");
                    job_args.push((i, format!("--{name}={}", v.to_string_lossy())));
                } else {
                    job_args.push((i, s));
                }
                continue;
            }
        }
        clap_args.push((i, a));
    }
    (clap_args, job_args)
}

/// Command-line job options sorted by where they stand: `(defaults and command-line jobs,
/// overrides)`. Options before the first job file are defaults for every job (fio's
/// rule: a job file's own setting wins); options after a job file and before any
/// `--name` override what the job files say. `first_file` is the argv position of the
/// first job file, if any.
pub fn partition_job_args(
    job_args: &[(usize, String)],
    first_file: Option<usize>,
) -> (Vec<String>, Vec<String>) {
    let mut defaults = Vec::new();
    let mut overrides = Vec::new();
    let mut in_jobs = false;
    for (i, a) in job_args {
        in_jobs |= a == "--name" || a.starts_with("--name=");
        if !in_jobs && first_file.is_some_and(|f| *i > f) {
            overrides.push(a.clone());
        } else {
            defaults.push(a.clone());
        }
    }
    (defaults, overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn getopt(v: &[&str]) -> Result<Vec<String>, String> {
        fio_getopt(os(v)).map(|a| {
            a.into_iter()
                .skip(1)
                .map(|x| x.to_string_lossy().into_owned())
                .collect()
        })
    }

    #[test]
    fn fio_getopt_forms_become_long_options() {
        // One dash: a long name first (job options and flags), as getopt_long_only.
        assert_eq!(
            getopt(&["fio", "-name=a", "-thread", "-iodepth", "4", "-minimal"]).unwrap(),
            ["--name=a", "--thread", "--iodepth", "4", "--minimal"]
        );
        // fio's letters: alone, bundled, value joined or next.
        assert_eq!(
            getopt(&["fio", "-o", "out", "-mP", "-ofile", "-x", "sec", "-cbs"]).unwrap(),
            [
                "--output=out",
                "--minimal",
                "--parse-only",
                "--output=file",
                "--section=sec",
                "--cmdhelp=bs"
            ]
        );
        // A unique beginning stands for the whole name; a flag's value may come next.
        assert_eq!(
            getopt(&[
                "fio",
                "--runt=5",
                "--output-form",
                "json",
                "--status-interval",
                "2"
            ])
            .unwrap(),
            ["--runtime=5", "--output-format=json", "--status-interval=2"]
        );
        // Several fits: an error naming them.
        let e = getopt(&["fio", "--iodep=4"]).unwrap_err();
        assert!(
            e.contains("--iodepth,") && e.contains("--iodepth_low"),
            "{e}"
        );
        // Exact names win over longer ones; values, files and what follows `--` stay.
        assert_eq!(
            getopt(&["fio", "--rw=read", "job.fio", "-", "--", "-thread"]).unwrap(),
            ["--rw=read", "job.fio", "-", "--", "-thread"]
        );
        // -V stays fathom's --version (clap's), unknown words are left for clap.
        assert_eq!(getopt(&["fio", "-V", "-zz"]).unwrap(), ["-V", "-zz"]);
    }

    #[test]
    fn job_options_are_split_from_own_flags() {
        let (c, j) = split_args(os(&[
            "fathom",
            "--output-format=json",
            "--size=1m",
            "--name=a",
            "--rw=randread",
            "job.fio",
            "--section",
            "x",
        ]));
        assert_eq!(j, vec!["--size=1m", "--name=a", "--rw=randread"]);
        assert_eq!(
            c,
            os(&[
                "fathom",
                "--output-format=json",
                "job.fio",
                "--section",
                "x"
            ])
        );
    }

    #[test]
    fn fio_s_getopt_form_takes_the_next_argument_as_the_value() {
        let (c, j) = split_args(os(&[
            "fathom",
            "--name",
            "a",
            "--ioengine",
            "null",
            "--direct",
            "1",
            "--time_based",
            "--runtime",
            "2",
            "--output-format=json",
            "job.fio",
        ]));
        assert_eq!(
            j,
            vec![
                "--name=a",
                "--ioengine=null",
                "--direct=1",
                "--time_based",
                "--runtime=2"
            ]
        );
        assert_eq!(c, os(&["fathom", "--output-format=json", "job.fio"]));
    }

    #[test]
    fn options_after_a_job_file_override_and_before_it_default() {
        let (c, j) = split_args_indexed(os(&[
            "fathom",
            "--size=1m",
            "jobs/oltp.fio",
            "--directory=/mnt",
            "--name=extra",
            "--rw=write",
        ]));
        let first_file = c
            .iter()
            .find(|(_, a)| a == "jobs/oltp.fio")
            .map(|(i, _)| *i);
        let (d, o) = partition_job_args(&j, first_file);
        assert_eq!(d, vec!["--size=1m", "--name=extra", "--rw=write"]);
        assert_eq!(o, vec!["--directory=/mnt"]);
        // No job file: everything is a default or a command-line job.
        let (d, o) = partition_job_args(&j, None);
        assert_eq!(d.len(), 4);
        assert!(o.is_empty());
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
