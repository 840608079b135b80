//! IOR 4.0's report in its three formats (`-O summaryFormat=default|JSON|CSV`), to
//! standard output or `-O summaryFile=FILE`: the header (began, command line, machine),
//! the test's start (its file and file system), the options, a line per phase and
//! repetition with IOR's open, transfer and close times, `remove` lines and the Max lines
//! with `-v`, the summary of all tests and the finish time. The layout is IOR 4.0.0's,
//! checked side by side with IOR built from its source.

use super::tasks::Nodes;
use super::Opts;
use std::fmt::Write as _;

pub(super) fn mib(b: f64) -> f64 {
    b / 1048576.0
}

/// IOR's result formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// IOR's text.
    #[default]
    Text,
    /// `-O summaryFormat=JSON`: one JSON document.
    Json,
    /// `-O summaryFormat=CSV`: the results table as CSV.
    Csv,
}

/// One phase of one repetition, as IOR reports it (over every task, at rank 0).
#[derive(Debug, Clone, Copy, Default)]
pub struct Phase {
    /// Bytes every task moved (IOR's aggFileSizeForBW).
    pub bytes: f64,
    /// Transfers every task did.
    pub ios: f64,
    /// Seconds opening the files (the slowest rank's), IOR's `open(s)`.
    pub open: f64,
    /// Seconds of the transfers (the slowest rank's), IOR's `wr/rd(s)`.
    pub rdwr: f64,
    /// Seconds after the transfers: fsync, close (the slowest rank's), IOR's `close(s)`.
    pub close: f64,
    /// Seconds from the first open to the last close, IOR's `total(s)`.
    pub total: f64,
    /// IOR's latency: the least over the tasks of a task's transfer time over the
    /// transfers of one block.
    pub latency: f64,
    /// With stoneWallingWearOut: the stonewall's time and the mean bytes a task had moved
    /// by then.
    pub stonewall: Option<(f64, f64)>,
}

impl Phase {
    /// IOR's bandwidth: the bytes over the whole phase, open to close.
    pub fn bw(&self) -> f64 {
        self.bytes / self.total.max(1e-9)
    }
    /// IOR's IOPS: the transfers over the transfer time.
    pub fn iops(&self) -> f64 {
        self.ios / self.rdwr.max(1e-9)
    }
}

/// A line of IOR's results table.
#[derive(Debug, Clone, Copy)]
pub(super) enum Row {
    Io {
        write: bool,
        p: Phase,
        rep: u32,
    },
    /// `-v`: the time the repetition's files took to remove.
    Remove {
        secs: f64,
        rep: u32,
    },
}

/// One test of the run (a script's `RUN`; the command line's one test).
pub(super) struct Test {
    pub(super) o: Opts,
    tasks: u32,
    nodes: Nodes,
    /// The first task's file (IOR's Path).
    path: String,
    start: String,
    pub(super) rows: Vec<Row>,
}

/// The report as the run goes: the result lines (the summary file's), and IOR's log lines
/// (standard output), which go among them when both are standard output.
pub(super) struct Out {
    pub(super) format: Format,
    to_file: bool,
    text: String,
    pub(super) tests: Vec<Test>,
    began: String,
    /// The saveRankPerformanceDetailsCSV files begun in this run (their head written).
    pub(super) rank_csvs: Vec<std::path::PathBuf>,
}

pub(super) fn now() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    fathom_report::units::ctime(ms)
}

/// IOR's HumanReadable in base two: "65536 bytes", "1 MiB", "1.50 GiB".
fn human(v: u64) -> String {
    let units = [(1u64 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB")];
    for (u, name) in units {
        if v >= u {
            return if v % u == 0 {
                format!("{} {name}", v / u)
            } else {
                format!("{:.2} {name}", v as f64 / u as f64)
            };
        }
    }
    format!("{v} bytes")
}

/// IOR's PPDouble: ten wide, left-justified, 6 decimals below 1, 2 below 3600, else none.
fn pp(s: &mut String, x: f64, after: &str) {
    if x < 0.0 {
        let _ = write!(s, "   -      {after}");
        return;
    }
    let prec = if x < 1.0 {
        6
    } else if x < 3600.0 {
        2
    } else {
        0
    };
    let _ = write!(s, "{x:<10.prec$}{after}");
}

/// (max, min, mean, population standard deviation) of `v`.
fn stats(v: &[f64]) -> (f64, f64, f64, f64) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    let max = v.iter().copied().fold(f64::MIN, f64::max);
    let min = v.iter().copied().fold(f64::MAX, f64::min);
    (max, min, mean, sd)
}

/// (sysname, nodename, release, version, machine).
fn uname() -> [String; 5] {
    match nix::sys::utsname::uname() {
        Ok(u) => [
            u.sysname(),
            u.nodename(),
            u.release(),
            u.version(),
            u.machine(),
        ]
        .map(|s| s.to_string_lossy().into_owned()),
        Err(_) => Default::default(),
    }
}

/// A JSON string's text.
fn js(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

impl Out {
    /// The report of a run whose first test is `o` (its format and summary file are the
    /// run's): IOR's header (text), the CSV's head.
    pub(super) fn new(o: &Opts) -> Out {
        let mut out = Out {
            format: o.format,
            to_file: o.summary_file.is_some(),
            text: String::new(),
            tests: Vec::new(),
            began: now(),
            rank_csvs: Vec::new(),
        };
        match out.format {
            Format::Csv => out.text.push_str(
                "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter\n",
            ),
            Format::Json => {}
            Format::Text => {
                let t = &mut out.text;
                let _ = writeln!(
                    t,
                    "IOR-4.0.0: MPI Coordinated Test of Parallel I/O (fathom {})",
                    fathom::VERSION
                );
                let _ = writeln!(t, "{:<20}: {}", "Began", out.began);
                let _ = writeln!(t, "{:<20}: {}", "Command line", command_line());
                let _ = writeln!(t, "{:<20}: {}", "Machine", machine(o.verbose));
            }
        }
        out
    }

    fn verbose(&self) -> u32 {
        self.tests.last().map_or(0, |t| t.o.verbose)
    }

    /// A line of IOR's log: printed now where the results go to a file (or are JSON or
    /// CSV: then on standard error, so standard output stays the document), else among
    /// the result lines.
    pub(super) fn log(&mut self, line: &str) {
        if line.is_empty() {
            return;
        }
        match (self.to_file, self.format) {
            (true, _) => print!("{line}"),
            (false, Format::Text) => self.text.push_str(line),
            (false, _) => eprint!("{line}"),
        }
    }

    /// A test starts: its number, start, file and file system, IOR's log lines on it, its
    /// options and the results table's head (text).
    pub(super) fn begin(&mut self, o: &Opts, tasks: u32, nodes: Nodes, path: String) {
        let id = self.tests.len();
        self.tests.push(Test {
            o: o.clone(),
            tasks,
            nodes,
            path,
            start: now(),
            rows: Vec::new(),
        });
        if self.format != Format::Text {
            return;
        }
        let test = &self.tests[id];
        let t = &mut self.text;
        let _ = writeln!(t, "{:<20}: {id}", "TestID");
        let _ = writeln!(t, "{:<20}: {}", "StartTime", test.start);
        let _ = writeln!(t, "{:<20}: {}", "Path", test.path);
        if let Some((size, used, inodes, iused)) = fs_text(o) {
            let _ = writeln!(
                t,
                "{:<20}: {size}   Used FS: {used}   Inodes: {inodes}   Used Inodes: {iused}",
                "FS"
            );
        }
        if o.verbose >= 3 {
            t.push_str("\nParameters: \n");
            for (k, v) in parameters(o, id, nodes) {
                let _ = writeln!(t, "{k:<20}: {}", v.text());
            }
        }
        if o.verbose >= 1 {
            let _ = writeln!(t, "Participating tasks : {tasks}");
            if o.reorder {
                t.push_str("Using reorderTasks '-C' (useful to avoid read cache in client)\n");
            }
        }
        t.push_str("\nOptions: \n");
        for (k, v) in options(o, tasks, nodes) {
            let _ = writeln!(t, "{k:<20}: {}", v.text());
        }
        t.push_str("\nResults: \n");
    }

    /// The results table's head (text), after the first repetition's log lines.
    pub(super) fn table_head(&mut self) {
        if self.format == Format::Text {
            self.text.push_str("\naccess    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n");
            self.text.push_str("------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----\n");
        }
    }

    /// A phase's line of the results table.
    pub(super) fn row(&mut self, row: Row) {
        let verbose = self.verbose();
        let Some(test) = self.tests.last_mut() else {
            return;
        };
        test.rows.push(row);
        let (o, tasks) = (&test.o, test.tasks);
        let t = &mut self.text;
        match (row, self.format) {
            (Row::Io { write, p, rep }, Format::Text) => {
                let _ = write!(t, "{:<10}", if write { "write" } else { "read" });
                pp(t, mib(p.bw()), " ");
                pp(t, p.iops(), " ");
                pp(t, p.latency, "  ");
                pp(t, o.block as f64 / 1024.0, " ");
                pp(t, o.transfer as f64 / 1024.0, " ");
                for x in [p.open, p.rdwr, p.close, p.total] {
                    pp(t, x, " ");
                }
                let _ = writeln!(t, "{rep:<4}");
            }
            (Row::Io { write, p, rep }, Format::Csv) => {
                let _ = writeln!(
                    t,
                    "{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{tasks},{rep}",
                    if write { "write" } else { "read" },
                    mib(p.bw()),
                    p.iops(),
                    p.latency,
                    o.block as f64 / 1024.0,
                    o.transfer as f64 / 1024.0,
                    p.open,
                    p.rdwr,
                    p.close,
                    p.total
                );
            }
            (Row::Remove { secs, rep }, Format::Text) if verbose >= 1 => {
                t.push_str("remove    -          -          -           -          -          -          -          -          ");
                pp(t, secs, " ");
                let _ = writeln!(t, "{rep:<4}");
            }
            _ => {}
        }
    }

    /// The test's end: `-v`'s Max lines (text).
    pub(super) fn end_test(&mut self) {
        if self.verbose() == 0 || self.format != Format::Text {
            return;
        }
        let Some(test) = self.tests.last() else {
            return;
        };
        if test.o.summary_always {
            // -O summaryalways=1: the test's summary lines instead of the Max lines.
            summary_head(&mut self.text);
            let id = self.tests.len() - 1;
            for (write, ps) in test.ops() {
                self.text.push_str(&summary_line(test, id, write, &ps));
            }
            return;
        }
        for (write, ps) in test.ops() {
            let max = ps.iter().map(Phase::bw).fold(0.0, f64::max);
            let _ = writeln!(
                self.text,
                "Max {}{:.2} MiB/sec ({:.2} MB/sec)",
                if write { "Write: " } else { "Read:  " },
                mib(max),
                max / 1e6
            );
        }
    }

    /// The end: the summary of all tests and the finish time; the whole document in
    /// JSON. Returns the report's text and the headline figures (the tests' best).
    pub(super) fn finish(mut self) -> (String, Vec<(String, f64)>) {
        let mut headline: Vec<(String, f64)> = Vec::new();
        for test in &self.tests {
            for (write, ps) in test.ops() {
                let name = format!("Max {} (MiB/s)", if write { "Write" } else { "Read" });
                let best = ps.iter().map(|p| mib(p.bw())).fold(0.0, f64::max);
                match headline.iter_mut().find(|(n, _)| *n == name) {
                    Some(h) => h.1 = h.1.max(best),
                    None => headline.push((name, best)),
                }
            }
        }
        match self.format {
            Format::Csv => {}
            Format::Json => {
                let doc = self.json();
                self.text.push_str(&doc);
            }
            Format::Text => {
                let t = &mut self.text;
                t.push_str("\nSummary of all tests:");
                summary_head(t);
                for (id, test) in self.tests.iter().enumerate() {
                    for (write, ps) in test.ops() {
                        t.push_str(&summary_line(test, id, write, &ps));
                    }
                }
                let _ = writeln!(t, "{:<20}: {}", "Finished", now());
            }
        }
        (self.text, headline)
    }

    fn json(&self) -> String {
        let tests = self
            .tests
            .iter()
            .enumerate()
            .map(|(id, t)| V::Obj(t.json(id)))
            .collect();
        let summary = self
            .tests
            .iter()
            .enumerate()
            .flat_map(|(id, t)| {
                t.ops()
                    .into_iter()
                    .map(move |(write, ps)| V::Obj(summary_fields(t, id, write, &ps)))
            })
            .collect();
        let o = self.tests.first().map(|t| &t.o);
        let doc = V::Obj(vec![
            ("Version".into(), V::Str("4.0.0".into())),
            ("fathom version".into(), V::Str(fathom::VERSION.into())),
            ("Began".into(), V::Str(self.began.clone())),
            ("Command line".into(), V::Str(command_line())),
            (
                "Machine".into(),
                V::Str(machine(o.map_or(0, |o| o.verbose))),
            ),
            ("tests".into(), V::Arr(tests)),
            ("summary".into(), V::Arr(summary)),
            ("Finished".into(), V::Str(now())),
        ]);
        let mut s = String::new();
        doc.write(&mut s, 0);
        s.push('\n');
        s
    }
}

impl Test {
    /// Each operation that ran (write first) with its phases over the repetitions; as
    /// IOR, only those `-w`/`-r` asked for (a `-R` read phase without `-r` has its line
    /// in the table, not in the summary).
    fn ops(&self) -> Vec<(bool, Vec<Phase>)> {
        [true, false]
            .into_iter()
            .filter(|&w| if w { self.o.write } else { self.o.read })
            .filter_map(|w| {
                let ps: Vec<Phase> = self
                    .rows
                    .iter()
                    .filter_map(|r| match r {
                        Row::Io { write, p, .. } if *write == w => Some(*p),
                        _ => None,
                    })
                    .collect();
                (!ps.is_empty()).then_some((w, ps))
            })
            .collect()
    }

    /// The test's object of IOR's JSON document.
    fn json(&self, id: usize) -> Vec<(String, V)> {
        let o = &self.o;
        let mut test = vec![
            ("TestID".to_string(), V::Int(id as i64)),
            ("StartTime".into(), V::Str(self.start.clone())),
            ("Path".into(), V::Str(self.path.clone())),
        ];
        if let Some((size, used, inodes, iused)) = fs_text(o) {
            test.extend([
                ("Capacity".to_string(), V::Str(size)),
                ("Used Capacity".into(), V::Str(used)),
                ("Inodes".into(), V::Str(inodes)),
                ("Used Inodes".into(), V::Str(iused)),
            ]);
        }
        test.push(("Parameters".into(), V::Obj(parameters(o, id, self.nodes))));
        test.push(("Options".into(), V::Obj(options(o, self.tasks, self.nodes))));
        let results = self
            .rows
            .iter()
            .map(|r| match r {
                Row::Io { write, p, .. } => V::Obj(vec![
                    (
                        "access".into(),
                        V::Str(if *write { "write" } else { "read" }.into()),
                    ),
                    ("bwMiB".into(), V::Num(mib(p.bw()))),
                    ("blockKiB".into(), V::Num(o.block as f64 / 1024.0)),
                    ("xferKiB".into(), V::Num(o.transfer as f64 / 1024.0)),
                    ("iops".into(), V::Num(p.iops())),
                    ("latency".into(), V::Num(p.latency)),
                    ("openTime".into(), V::Num(p.open)),
                    ("wrRdTime".into(), V::Num(p.rdwr)),
                    ("closeTime".into(), V::Num(p.close)),
                    ("totalTime".into(), V::Num(p.total)),
                ]),
                Row::Remove { secs, .. } => V::Obj(vec![
                    ("access".into(), V::Str("remove".into())),
                    ("totalTime".into(), V::Num(*secs)),
                ]),
            })
            .collect();
        test.push(("Results".into(), V::Arr(results)));
        if o.verbose >= 1 {
            let mut max = Vec::new();
            for (write, ps) in self.ops() {
                let m = ps.iter().map(Phase::bw).fold(0.0, f64::max);
                let name = if write { "write" } else { "read" };
                max.push((format!("{name}MiB"), V::Num(mib(m))));
                max.push((format!("{name}MB"), V::Num(m / 1e6)));
            }
            test.push(("max".into(), V::Obj(max)));
        }
        test
    }
}

/// A JSON value of IOR's document, printed as IOR prints it: numbers with 4 decimals.
enum V {
    Str(String),
    Int(i64),
    Num(f64),
    Obj(Vec<(String, V)>),
    Arr(Vec<V>),
}

impl V {
    /// The value as IOR's text output shows it.
    fn text(&self) -> String {
        match self {
            V::Str(s) => s.clone(),
            V::Int(i) => i.to_string(),
            V::Num(x) => format!("{x:.4}"),
            _ => String::new(),
        }
    }

    fn write(&self, s: &mut String, indent: usize) {
        let pad = "  ".repeat(indent + 1);
        match self {
            V::Str(x) => s.push_str(&js(x)),
            V::Int(i) => {
                let _ = write!(s, "{i}");
            }
            // (IOR prints an infinite figure as a string.)
            V::Num(x) if x.is_finite() => {
                let _ = write!(s, "{x:.4}");
            }
            V::Num(x) => s.push_str(&js(&format!("{x:.4}"))),
            V::Obj(fields) => {
                s.push_str("{\n");
                for (i, (k, v)) in fields.iter().enumerate() {
                    let _ = write!(s, "{pad}{}: ", js(k));
                    v.write(s, indent + 1);
                    s.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                let _ = write!(s, "{}}}", "  ".repeat(indent));
            }
            V::Arr(items) => {
                s.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    s.push_str(&pad);
                    v.write(s, indent + 1);
                    s.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                let _ = write!(s, "{}]", "  ".repeat(indent));
            }
        }
    }
}

/// The command line as IOR prints it: the program and its arguments.
fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}

/// IOR's Machine: the system and host name (`-vv`: release, version and hardware too).
fn machine(verbose: u32) -> String {
    let [sys, node, release, version, hw] = uname();
    if verbose >= 2 {
        format!("{sys} {node} {release} {version} {hw}")
    } else {
        format!("{sys} {node}")
    }
}

/// The file system of the test file as IOR shows it: size, used share, inodes, used
/// share of the inodes.
fn fs_text(o: &Opts) -> Option<(String, String, String, String)> {
    let st = nix::sys::statvfs::statvfs(&o.dir).ok()?;
    let frag = st.fragment_size() as f64;
    let total = st.blocks() as f64 * frag;
    let free = st.blocks_free() as f64 * frag;
    let used = (1.0 - free / total) * 100.0;
    let (size, unit) = if total / (1u64 << 30) as f64 > 1024.0 {
        (total / (1u64 << 40) as f64, "TiB")
    } else {
        (total / (1u64 << 30) as f64, "GiB")
    };
    let inodes = st.files() as f64;
    let iused = (1.0 - st.files_free() as f64 / inodes) * 100.0;
    Some((
        format!("{size:.1} {unit}"),
        format!("{used:2.1}%"),
        format!("{:.1} Mi", inodes / (1u64 << 20) as f64),
        format!("{iused:2.1}%"),
    ))
}

fn api(o: &Opts) -> &str {
    &o.api
}

/// IOR's Options block, in its order.
fn options(o: &Opts, tasks: u32, nodes: Nodes) -> Vec<(String, V)> {
    let mut v: Vec<(String, V)> = vec![
        ("api".into(), V::Str(api(o).into())),
        ("apiVersion".into(), V::Str(String::new())),
        ("test filename".into(), V::Str(o.test_file_name())),
        (
            "access".into(),
            V::Str(
                if o.file_per_proc {
                    "file-per-process"
                } else {
                    "single-shared-file"
                }
                .into(),
            ),
        ),
        ("type".into(), V::Str("independent".into())),
        ("segments".into(), V::Int(o.segments as i64)),
        (
            "ordering in a file".into(),
            V::Str(if o.random { "random" } else { "sequential" }.into()),
        ),
    ];
    let order = |s: &str| ("ordering inter file".to_string(), V::Str(s.into()));
    match (o.reorder, o.reorder_random > 0) {
        (false, false) => v.push(order("no tasks offsets")),
        (true, _) => {
            v.push(order("constant task offset"));
            v.push(("task offset".into(), V::Int(o.task_offset.into())));
        }
        (false, true) => {
            v.push(order("random task offset"));
            v.push(("task offset".into(), V::Int(o.task_offset.into())));
            v.push(("reorder random seed".into(), V::Int(o.random_seed)));
        }
    }
    v.extend([
        ("nodes".to_string(), V::Int(nodes.nodes.into())),
        ("tasks".into(), V::Int(tasks.into())),
        ("clients per node".into(), V::Int(nodes.on_node0.into())),
    ]);
    // (IOR shows these only when set.)
    if o.memory_per_task > 0 {
        v.push(("memoryPerTask".into(), V::Str(human(o.memory_per_task))));
    }
    if o.memory_per_node > 0 {
        v.push(("memoryPerNode".into(), V::Str(human(o.memory_per_node))));
    }
    v.extend([
        ("repetitions".into(), V::Int(o.iterations.into())),
        ("xfersize".into(), V::Str(human(o.transfer))),
        ("blocksize".into(), V::Str(human(o.block))),
        (
            "aggregate filesize".into(),
            V::Str(human(o.block * o.segments * u64::from(tasks))),
        ),
    ]);
    if o.verbose > 0 {
        v.push(("verbose".into(), V::Int(o.verbose.into())));
    }
    if o.deadline > 0 {
        v.push(("stonewallingTime".into(), V::Int(o.deadline as i64)));
        v.push(("stoneWallingWearOut".into(), V::Int(o.wear_out.into())));
    }
    v
}

/// IOR's Parameters block (JSON): every setting, 0 for what fathom's IOR method does not
/// have.
fn parameters(o: &Opts, id: usize, nodes: Nodes) -> Vec<(String, V)> {
    let [sys, node, ..] = uname();
    let int = |k: &str, x: i64| (k.to_string(), V::Int(x));
    let b = |x: bool| i64::from(x);
    vec![
        int("testID", id as i64),
        int("refnum", o.ref_num.unwrap_or(0)),
        ("api".into(), V::Str(api(o).into())),
        ("platform".into(), V::Str(format!("{node}({sys})"))),
        ("testFileName".into(), V::Str(o.test_file_name())),
        int("deadlineForStonewall", o.deadline as i64),
        int("stoneWallingWearOut", b(o.wear_out)),
        int("maxTimeDuration", o.max_minutes as i64),
        int("outlierThreshold", o.outlier as i64),
        ("options".into(), V::Str("(null)".into())),
        int("dryRun", 0),
        int("nodes", nodes.nodes.into()),
        int("memoryPerTask", o.memory_per_task as i64),
        int("memoryPerNode", o.memory_per_node as i64),
        int("tasksPerNode", nodes.on_node0.into()),
        int("repetitions", o.iterations.into()),
        int("multiFile", b(o.multi_file)),
        int("interTestDelay", o.delay as i64),
        int("fsync", b(o.fsync)),
        int("fsyncperwrite", b(o.fsync_each)),
        int("useExistingTestFile", b(o.existing)),
        int("uniqueDir", b(o.unique_dir)),
        int("singleXferAttempt", 0),
        int("readFile", b(o.read)),
        int("writeFile", b(o.write)),
        int("filePerProc", b(o.file_per_proc)),
        int("reorderTasks", b(o.reorder)),
        int("reorderTasksRandom", o.reorder_random.into()),
        int("reorderTasksRandomSeed", o.random_seed),
        int("randomOffset", b(o.random)),
        int("checkWrite", b(o.check_write)),
        int("checkRead", b(o.check_read)),
        int("dataPacketType", o.packet as i64),
        int("keepFile", b(o.keep)),
        int("keepFileWithError", b(o.keep_with_error)),
        int("warningAsErrors", b(o.warnings_as_errors)),
        int("verbose", o.verbose.into()),
        // IOR's names, one off from its numbers (-l o shows "t").
        (
            "data packet type".into(),
            V::Str(["g", "t", "o", "i"][o.packet as usize].into()),
        ),
        int(
            "setTimeStampSignature/incompressibleSeed",
            o.signature.unwrap_or(0),
        ),
        int("collective", 0),
        int("segmentCount", o.segments as i64),
        int("transferSize", o.transfer as i64),
        int("blockSize", o.block as i64),
    ]
}

/// One operation's figures over the repetitions: bandwidths, operations per second (over
/// each phase's whole time, as IOR's summary), the mean time, the stonewall's.
struct Figures {
    bw: (f64, f64, f64, f64),
    ops: (f64, f64, f64, f64),
    mean_time: f64,
    stonewall: Option<(f64, f64)>,
    agg: f64,
}

fn figures(o: &Opts, ps: &[Phase]) -> Figures {
    let bws: Vec<f64> = ps.iter().map(Phase::bw).collect();
    let ops: Vec<f64> = ps
        .iter()
        .map(|p| p.bytes / o.transfer as f64 / p.total.max(1e-9))
        .collect();
    let n = ps.len().max(1) as f64;
    let stonewall = ps[0].stonewall.map(|_| {
        let time: f64 = ps.iter().filter_map(|p| p.stonewall).map(|s| s.0).sum();
        let data: f64 = ps.iter().filter_map(|p| p.stonewall).map(|s| s.1).sum();
        (time / n, data / time.max(1e-9))
    });
    Figures {
        bw: stats(&bws),
        ops: stats(&ops),
        mean_time: ps.iter().map(|p| p.total).sum::<f64>() / n,
        stonewall,
        agg: ps[0].bytes,
    }
}

/// The summary table's head, after a line break (IOR's PrintLongSummaryHeader).
fn summary_head(t: &mut String) {
    t.push('\n');
    let _ = write!(
        t,
        "{:<9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>13}",
        "Operation",
        "Max(MiB)",
        "Min(MiB)",
        "Mean(MiB)",
        "StdDev",
        "Max(OPs)",
        "Min(OPs)",
        "Mean(OPs)",
        "StdDev",
        "Mean(s)",
        "Stonewall(s)",
        "Stonewall(MiB)"
    );
    t.push_str(" Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt ");
    let _ = writeln!(
        t,
        "{:>8} {:>8} {:>9} {:>5} RefNum",
        " blksiz", "xsize", "aggs(MiB)", "API"
    );
}

fn summary_line(test: &Test, id: usize, write: bool, ps: &[Phase]) -> String {
    let (o, tasks, nodes) = (&test.o, test.tasks, test.nodes);
    let f = figures(o, ps);
    let mut t = format!("{:<9} ", if write { "write" } else { "read" });
    let (bmax, bmin, bmean, bsd) = f.bw;
    for x in [bmax, bmin, bmean, bsd].map(mib) {
        let _ = write!(t, "{x:10.2} ");
    }
    let (omax, omin, omean, osd) = f.ops;
    for x in [omax, omin, omean, osd] {
        let _ = write!(t, "{x:10.2} ");
    }
    let _ = write!(t, "{:10.5} ", f.mean_time);
    match f.stonewall {
        Some((time, rate)) => {
            let _ = write!(t, "{time:10.2} {:13.2} ", mib(rate));
        }
        None => {
            let _ = write!(t, "{:>10} {:>13} ", "NA", "NA");
        }
    }
    let _ = writeln!(
        t,
        "{:5} {:6} {:3} {:4} {:3} {:5} {:8} {:9} {:4} {:6} {:8} {:8} {:9.1} {:>3} {:6}",
        id,
        tasks,
        nodes.on_node0,
        o.iterations,
        u8::from(o.file_per_proc),
        u8::from(o.reorder),
        o.task_offset,
        o.reorder_random,
        o.random_seed,
        o.segments,
        o.block,
        o.transfer,
        mib(f.agg),
        api(o),
        o.ref_num.unwrap_or(0)
    );
    t
}

fn summary_fields(test: &Test, id: usize, write: bool, ps: &[Phase]) -> Vec<(String, V)> {
    let (o, tasks, nodes) = (&test.o, test.tasks, test.nodes);
    let f = figures(o, ps);
    let int = |k: &str, x: i64| (k.to_string(), V::Int(x));
    let num = |k: &str, x: f64| (k.to_string(), V::Num(x));
    let mut v = vec![
        (
            "operation".to_string(),
            V::Str(if write { "write" } else { "read" }.into()),
        ),
        ("API".into(), V::Str(api(o).into())),
        int("TestID", id as i64),
        int("ReferenceNumber", o.ref_num.unwrap_or(0)),
        int("segmentCount", o.segments as i64),
        int("blockSize", o.block as i64),
        int("transferSize", o.transfer as i64),
        int("numTasks", tasks.into()),
        int("tasksPerNode", nodes.on_node0.into()),
        int("repetitions", o.iterations.into()),
        int("filePerProc", o.file_per_proc.into()),
        int("reorderTasks", o.reorder.into()),
        int("taskPerNodeOffset", o.task_offset.into()),
        int("reorderTasksRandom", o.reorder_random.into()),
        int("reorderTasksRandomSeed", o.random_seed),
        num("bwMaxMIB", mib(f.bw.0)),
        num("bwMinMIB", mib(f.bw.1)),
        num("bwMeanMIB", mib(f.bw.2)),
        num("bwStdMIB", mib(f.bw.3)),
        num("OPsMax", f.ops.0),
        num("OPsMin", f.ops.1),
        num("OPsMean", f.ops.2),
        num("OPsSD", f.ops.3),
        num("MeanTime", f.mean_time),
    ];
    if let Some((time, rate)) = f.stonewall {
        v.push(num("StoneWallTime", time));
        v.push(num("StoneWallbwMeanMIB", mib(rate)));
    }
    v.push(num("xsizeMiB", mib(f.agg)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_print_as_ior_prints_them() {
        assert_eq!(human(65536), "65536 bytes");
        assert_eq!(human(1 << 20), "1 MiB");
        assert_eq!(human(3 << 29), "1.50 GiB");
        let mut s = String::new();
        pp(&mut s, 0.000031, " ");
        pp(&mut s, 1703.624, " ");
        pp(&mut s, 32063.4, "  ");
        pp(&mut s, -1.0, "|");
        assert_eq!(s, "0.000031   1703.62    32063          -      |");
        let mut s = String::new();
        V::Obj(vec![
            ("a".into(), V::Num(1.0)),
            ("b".into(), V::Arr(vec![V::Int(2), V::Str("x\"".into())])),
            ("c".into(), V::Num(f64::INFINITY)),
        ])
        .write(&mut s, 0);
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["b"][1], "x\"");
        assert_eq!(v["c"], "inf");
        assert!(s.contains("\"a\": 1.0000"), "{s}");
    }
}
