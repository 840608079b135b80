//! `fathom suite NAME ...`: the classic tools' methods, run by fathom and printed in their
//! familiar formats.
//!
//! One module per tool, each taking that tool's own command line ([`run`] dispatches on
//! the first word): [`bonnie`] (bonnie++), [`iozone`], [`ior`] (IOR), [`sysbench`]
//! (sysbench fileio), [`dd`], [`dbench`], [`metarates`], [`cdm`] (CrystalDiskMark) and
//! [`curve`] (vdbench's iorate=curve); IOR and metarates also run across the ranks of an
//! MPI run ([`run_with`]). Every suite runs its I/O as fathom jobs ([`run_job`]) or its own loop,
//! and stops early when [`stop`] is asked to (the CLI does on SIGINT/SIGTERM): it then
//! prints what it measured and removes its files.

pub mod bonnie;
pub mod cdm;
pub mod curve;
pub mod dbench;
pub mod dd;
pub mod ior;
pub mod iozone;
pub mod metarates;
pub mod stop;
pub mod sysbench;

pub use stop::{check_stop, run_job, run_step, stopped};

/// Options in `--key=value`, `--key value` or `-k value` form, as the suites take them.
pub struct Opts<'a> {
    it: std::slice::Iter<'a, String>,
}

impl<'a> Opts<'a> {
    /// Over these arguments.
    pub fn new(args: &'a [String]) -> Opts<'a> {
        Opts { it: args.iter() }
    }
    /// The next option: its key, the whole argument, and its value if written inline.
    pub fn next_opt(&mut self) -> Option<(&'a str, &'a str, Option<String>)> {
        let a = self.it.next()?;
        Some(match a.split_once('=') {
            Some((k, v)) => (k, a.as_str(), Some(v.to_string())),
            None => (a.as_str(), a.as_str(), None),
        })
    }
    /// True when the next argument is a value (not an option): for options whose value
    /// may be left out, as bonnie++'s `-f [SIZE]`.
    pub fn next_is_value(&self) -> bool {
        self.it
            .as_slice()
            .first()
            .is_some_and(|a| !a.starts_with('-'))
    }
    /// The option's value: written inline, else the next argument.
    pub fn value(&mut self, key: &str, inline: Option<String>) -> anyhow::Result<String> {
        inline
            .or_else(|| self.it.next().cloned())
            .ok_or_else(|| anyhow::anyhow!("{key} needs a value"))
    }
}

/// getopt's clusters of one-letter options, one argument each: the letters of `alone`
/// are flags (`-wr` is `-w -r`), a letter of `with_value` takes the rest of the argument
/// as its value (`-b64k`, `-Rab FILE` is `-R -a -b FILE`). An argument with another
/// letter, a `=`, `--` or `-+` is left whole (a negative number, a long name), for the
/// parser to take or to name in its error.
pub fn getopt_clusters(args: &[String], with_value: &str, alone: &str) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        let Some(body) = a.strip_prefix('-') else {
            out.push(a.clone());
            continue;
        };
        if body.len() < 2 || body.starts_with(['-', '+']) || body.contains('=') {
            out.push(a.clone());
            continue;
        }
        let mut parts = Vec::new();
        let mut ok = true;
        for (i, c) in body.char_indices() {
            if with_value.contains(c) {
                parts.push(format!("-{c}"));
                let rest = &body[i + c.len_utf8()..];
                if !rest.is_empty() {
                    parts.push(rest.to_string());
                }
                break;
            } else if alone.contains(c) {
                parts.push(format!("-{c}"));
            } else {
                ok = false;
                break;
            }
        }
        if ok {
            out.extend(parts);
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// A tool's file argument (IOR's `-o`, iozone's `-f`): the directory the files go in and
/// the file itself; an existing directory keeps fathom's older meaning (the files go in
/// it, named by the suite).
pub fn file_arg(v: std::path::PathBuf) -> (std::path::PathBuf, Option<std::path::PathBuf>) {
    if v.is_dir() {
        return (v, None);
    }
    let dir = v
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| ".".into(), std::path::Path::to_path_buf);
    (dir, Some(v))
}

/// `" (did you mean 'X'?)"` when one of a tool's `known` options is close to the one given
/// (its key, before any `=`), as clap suggests; empty otherwise. A one-letter flag is only
/// matched by its other case (`-Z` for `-z`): every other letter is as near.
pub fn did_you_mean(given: &str, known: &[&str]) -> String {
    let key = given.split('=').next().unwrap_or(given);
    if key.len() > 64 {
        return String::new();
    }
    let short = |s: &str| s.trim_start_matches('-').chars().count() <= 1;
    let best = known
        .iter()
        .filter(|k| **k != key)
        .filter_map(|k| {
            if short(key) || short(k) {
                return k.eq_ignore_ascii_case(key).then_some((0, *k));
            }
            let d = strsim::levenshtein(key, k);
            (d <= (key.chars().count() / 3).max(2)).then_some((d, *k))
        })
        .min_by_key(|x| x.0);
    best.map_or(String::new(), |(_, k)| format!(" (did you mean '{k}'?)"))
}

/// A suite run's exit code and its headline figures (for `--repeat`).
pub type Outcome = (u8, Vec<(String, f64)>);

/// The suites and what they do.
pub const SUITES: &[(&str, &str)] = &[
    ("bonnie", "bonnie++ 2.00's twelve tests: text table and its 1.98 CSV line (bon_csv2txt reads it)"),
    ("curve", "vdbench's iorate=curve: a max run, then 10..100% of it; response time against rate (+SVG)"),
    ("dbench", "dbench 4.00: N clients replay an NBENCH loadfile; its per-second lines, operation table and Throughput line"),
    ("dd", "dd's operands (if/of/bs/count/skip/seek/iflag/oflag/conv) and closing lines, plus latency percentiles"),
    ("ior", "IOR's write/read by --tasks: file per task (N-N) or one shared, segmented file (N-1)"),
    ("metarates", "metarates (NCAR, MPI): creates, stats and utimes per second over -n files, on every rank together"),
    ("iozone", "iozone's 13 tests over its -a matrix of file and record sizes; table, CSV, SVG heat maps; -t throughput"),
    ("cdm", "CrystalDiskMark 8's tests (default or --profile=nvme): MB/s and IOPS, best of --loops"),
    ("sysbench", "sysbench fileio: prepare, run, cleanup with its options, defaults and report"),
];

fn help() -> String {
    let mut s =
        String::from("fathom suite NAME [OPTIONS]: run a classic tool's tests\n\nSuites:\n");
    for (n, d) in SUITES {
        s.push_str(&format!("  {n:<9} {d}\n"));
    }
    s.push_str(
        "\nExamples:\n  fathom suite dd if=/dev/zero of=/mnt/x bs=1M count=256 oflag=direct conv=fdatasync\n  \
         fathom suite dd if=/mnt/x of=/dev/null bs=1M iflag=direct\n  \
         fathom suite bonnie --dir=/mnt/disk --size=4g --ram=2g --files=16\n  \
         fathom suite curve --rw=randread --bs=4k --directory=/mnt --size=4g --ioengine=libaio --direct=1 --iodepth=16 --stop-curve=5ms --svg=curve.svg\n  \
         fathom suite ior -a POSIX -o /mnt/pfs/testFile -N 8 -b 16m -t 1m -s 4 -i 3 [-F]\n  \
         fathom suite iozone -a -g 64m -f /mnt/disk/iozone.tmp --svg=plots/\n  \
         fathom suite cdm --dir=/mnt/disk --size=1g --loops=3 --runtime=5\n  \
         fathom suite dbench -t 60 -D /mnt/share 8\n  \
         mpirun -np 4 fathom suite metarates -d /mnt/pfs/junk -n 100000 -C -U -S\n  \
         fathom suite sysbench --file-total-size=1G --file-num=16 prepare\n  \
         fathom suite sysbench --file-total-size=1G --file-num=16 --file-test-mode=rndrw --time=30 run\n\n\
         Any suite takes --repeat=N: N runs, then each headline figure's mean, stddev, min, max\n\
         and 95% confidence interval.\n",
    );
    s
}

/// Run `fathom suite ARGS...` (ARGS after the word `suite`) and return its exit code.
/// `--repeat=N` anywhere runs the suite N times and ends with each headline figure's
/// mean, stddev, min, max and 95% confidence interval.
pub fn run(args: &[String]) -> anyhow::Result<u8> {
    run_with(args, &fathom::cluster::Alone)
}

/// [`run`] as one rank of a distributed run (`mpirun`): the MPI tools' suites (IOR,
/// metarates) run their tasks on every rank and rank 0 reports; the others are not MPI
/// programs and refuse to run as many copies that would each print their own figures.
pub fn run_with(args: &[String], cl: &dyn fathom::Cluster) -> anyhow::Result<u8> {
    let name = args.first().map_or("", String::as_str);
    if cl.size() > 1 && !MPI_SUITES.contains(&name) {
        anyhow::bail!(
            "`{name}` is not an MPI program: under mpirun each of the {} ranks would run \
             its own copy on the same files and print its own figures; run it without \
             mpirun, or use `suite ior` or `suite metarates`, which run across ranks",
            cl.size()
        );
    }
    let root = cl.rank() == 0;
    let mut repeat = 1u32;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(v) = a.strip_prefix("--repeat=") {
            repeat = v
                .parse()
                .map_err(|_| anyhow::anyhow!("--repeat: a number"))?;
        } else if a == "--repeat" {
            let v = it
                .next()
                .ok_or_else(|| anyhow::anyhow!("--repeat needs a value"))?;
            repeat = v
                .parse()
                .map_err(|_| anyhow::anyhow!("--repeat: a number"))?;
        } else {
            rest.push(a.clone());
        }
    }
    if repeat == 0 {
        anyhow::bail!("--repeat must be at least 1");
    }
    if repeat == 1 {
        return run_once(&rest, cl).map(|o| o.0);
    }
    let mut runs: Vec<Vec<(String, f64)>> = Vec::new();
    let mut code = 0;
    for k in 1..=repeat {
        if root {
            println!("--- repetition {k} of {repeat} ---");
        }
        let (c, m) = run_once(&rest, cl)?;
        code = code.max(c);
        runs.push(m);
        if cl.any(c != 0 || stop::stopped()) {
            break;
        }
    }
    if root {
        print!("{}", repeat_summary(&runs));
    }
    Ok(code)
}

/// Per headline figure over the repetitions: mean, stddev, min, max, 95% CI, CV.
fn repeat_summary(runs: &[Vec<(String, f64)>]) -> String {
    let mut s = format!(
        "\nRepetitions: {} runs (mean, sample stddev, min, max, 95% confidence interval of the mean, cv)\n",
        runs.len()
    );
    let names: Vec<&String> = runs
        .first()
        .map(|r| r.iter().map(|x| &x.0).collect())
        .unwrap_or_default();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(6);
    s.push_str(&format!(
        "  {:<width$}  {:>12} {:>10} {:>12} {:>12}  95% CI  cv\n",
        "figure", "mean", "stddev", "min", "max"
    ));
    for name in names {
        let v: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.iter().find(|x| &x.0 == name).map(|x| x.1))
            .collect();
        let st = fathom_report::compare::describe(&v);
        let cv = if st.mean != 0.0 {
            st.stddev / st.mean * 100.0
        } else {
            0.0
        };
        s.push_str(&format!(
            "  {name:<width$}  {:>12.2} {:>10.2} {:>12.2} {:>12.2}  [{:.2}, {:.2}]  {cv:.1}%\n",
            st.mean, st.stddev, st.min, st.max, st.ci95.0, st.ci95.1
        ));
    }
    s
}

/// The suites that run across the ranks of an MPI run.
const MPI_SUITES: &[&str] = &["ior", "metarates"];

fn run_once(args: &[String], cl: &dyn fathom::Cluster) -> anyhow::Result<Outcome> {
    match args.first().map(String::as_str) {
        None | Some("--help") | Some("-h") | Some("help") => {
            print!("{}", help());
            Ok((0, Vec::new()))
        }
        Some("dd") => dd::run(&args[1..]),
        Some("dbench") => dbench::run(&args[1..]),
        Some("bonnie") => bonnie::run(&args[1..]),
        Some("cdm") => cdm::run(&args[1..]),
        Some("curve") => curve::run(&args[1..]),
        Some("ior") => ior::run_on(&args[1..], cl),
        Some("metarates") => metarates::run_on(&args[1..], cl),
        Some("iozone") => iozone::run(&args[1..]),
        Some("sysbench") => sysbench::main(&args[1..]),
        Some(other) => anyhow::bail!(
            "no suite '{other}'; available: {}",
            SUITES.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
        ),
    }
}
