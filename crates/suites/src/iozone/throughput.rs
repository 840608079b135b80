//! iozone's throughput mode (`-t N`, or `-l MIN -u MAX`): N threads, each on its own
//! file, run each test together; the first to finish stops the others (stonewalling, off
//! with `-x`: a writer still writes its whole file, counting only what it wrote before);
//! iozone's lines per test: children's and parent's throughput, min/max/avg per thread,
//! min transfer, and with `-+u` the CPU utilization.

use super::passes::{open, permutation, timed, LatencyLog, Method, Pass};
use super::Opts;
use anyhow::{bail, Result};
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// How a throughput test moves its records.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Write,
    Read,
    Fwrite,
    Fread,
    /// iozone's mixed workload: some children read, the others write (see `mixed`).
    Mix,
}

/// A test: its label in iozone's lines, whether the count is 2 wide there, the tabs after
/// the label (children's, parent's), how it moves data, its record order, its -Q file.
#[derive(Clone, Copy)]
pub(super) struct Test {
    label: &'static str,
    wide: bool,
    tabs: (&'static str, &'static str),
    kind: Kind,
    create: bool,
    order: Order,
    qfile: &'static str,
}

#[derive(Clone, Copy)]
enum Order {
    Seq,
    Reverse,
    Stride,
    Random,
}

/// iozone's throughput tests in its order: the -i group that runs each (0: always) and
/// whether -+n (no retests) leaves it out.
pub(super) const TESTS: &[(u32, bool, Test)] = {
    use Kind::*;
    use Order::*;
    const fn t(
        label: &'static str,
        wide: bool,
        tabs: (&'static str, &'static str),
        kind: Kind,
        create: bool,
        order: Order,
        qfile: &'static str,
    ) -> Test {
        Test {
            label,
            wide,
            tabs,
            kind,
            create,
            order,
            qfile,
        }
    }
    const ONE: (&str, &str) = ("\t", "\t");
    const TWO: (&str, &str) = ("\t\t", "\t\t");
    const F: (&str, &str) = ("\t", "\t\t");
    &[
        (
            0,
            false,
            t("initial writers", true, ONE, Write, true, Seq, "wol"),
        ),
        (
            0,
            true,
            t("rewriters", true, ONE, Write, false, Seq, "rwol"),
        ),
        (1, false, t("readers", true, TWO, Read, false, Seq, "rol")),
        (
            1,
            true,
            t("re-readers", false, ONE, Read, false, Seq, "rrol"),
        ),
        (
            3,
            false,
            t("reverse readers", false, ONE, Read, false, Reverse, "revol"),
        ),
        (
            5,
            false,
            t("stride readers", false, ONE, Read, false, Stride, "strol"),
        ),
        (
            2,
            false,
            t("random readers", false, ONE, Read, false, Random, "randrol"),
        ),
        (
            8,
            false,
            t("mixed workload", false, ONE, Mix, false, Random, "randrol"),
        ),
        (
            2,
            false,
            t(
                "random writers",
                false,
                ONE,
                Write,
                false,
                Random,
                "randwol",
            ),
        ),
        // fathom's readers and writers use pread and pwrite already: these are the same
        // calls, as their own tests.
        (
            9,
            false,
            t("pwrite writers", false, ONE, Write, false, Seq, "pwol"),
        ),
        (
            10,
            false,
            t("pread readers", false, ONE, Read, false, Seq, "prol"),
        ),
        (6, false, t("fwriters", true, F, Fwrite, true, Seq, "fwol")),
        (7, false, t("freaders", true, F, Fread, false, Seq, "frol")),
    ]
};

/// The tests the command line asks for (-i, -+n), in iozone's order, with their places
/// in TESTS.
fn tests(o: &Opts) -> Result<Vec<(usize, &'static Test)>> {
    if let Some(g) = o.groups.iter().find(|&&g| g == 4) {
        bail!("-i {g} (record rewrite) has no throughput test in iozone; use -i 0, 1, 2, 3, 5, 6 or 7");
    }
    // `-i 11` alone names no test of iozone's Linux build: nothing runs.
    if o.nothing_to_run() {
        return Ok(Vec::new());
    }
    let run = |g: u32| g == 0 || o.groups.is_empty() || o.groups.contains(&g);
    Ok(TESTS
        .iter()
        .enumerate()
        .filter(|(_, (g, retest, _))| run(*g) && !(*retest && o.no_retests))
        .map(|(k, (_, _, t))| (k, t))
        .collect())
}

/// What one thread did in a test.
#[derive(Default, Clone, Copy)]
pub(super) struct Child {
    /// kB (or records with -O) per second up to its stop.
    pub rate: f64,
    /// kB (or records) moved up to its stop.
    pub actual: f64,
    pub wall: f64,
    pub cpu: f64,
}

/// CPU seconds of the calling thread.
fn thread_cpu() -> f64 {
    let c = fathom::CpuUsage::current_thread();
    (c.usr + c.sys).as_secs_f64()
}

/// What child `i` of `children` does in iozone's mixed workload: with `-+p N` the first
/// N% of the children read and the rest write, else even children read and odd ones
/// write; at random offsets, or in order with `-+B` (iozone's files for `-Q`: the random
/// or sequential tests').
fn mixed(o: &Opts, t: &Test, i: usize, children: usize) -> Test {
    let reader = match o.mix_read_pct {
        Some(p) => i < p as usize * children / 100,
        None => i % 2 == 0,
    };
    let (kind, order, qfile) = match (reader, o.seq_mix) {
        (true, false) => (Kind::Read, Order::Random, "randrol"),
        (false, false) => (Kind::Write, Order::Random, "randwol"),
        (true, true) => (Kind::Read, Order::Seq, "rol"),
        (false, true) => (Kind::Write, Order::Seq, "wol"),
    };
    Test {
        kind,
        order,
        qfile,
        ..*t
    }
}

/// One thread's run of a test over its file.
#[allow(clippy::too_many_arguments)]
pub(super) fn child(
    o: &Opts,
    t: &Test,
    (i, children): (usize, usize),
    path: &Path,
    size: u64,
    rec: u64,
    start: &std::sync::Barrier,
    stop: &AtomicBool,
) -> Result<Child> {
    let mix;
    let t = if t.kind == Kind::Mix {
        mix = mixed(o, t, i, children);
        &mix
    } else {
        t
    };
    let n = size / rec;
    let unit = |bytes: u64| {
        if o.ops {
            (bytes / rec) as f64
        } else {
            bytes as f64 / 1024.0
        }
    };
    let mut q = o.latency_files.then(LatencyLog::default);
    let mut buf = fathom::engine::AlignedBuf::new(rec as usize, 4096);
    let (perm, stride) = (permutation(n), o.stride.max(1));
    let record = move |k: u64| match t.order {
        Order::Seq => k,
        Order::Reverse => n - 1 - k,
        Order::Stride => (k * stride) % n.max(1),
        Order::Random => perm(k),
    };
    start.wait();
    let (c0, t0) = (thread_cpu(), Instant::now());
    let mut w = Watch {
        stop,
        t0,
        cut: None,
        moved: 0,
    };
    let m: &Method = &o.method;
    match t.kind {
        Kind::Write | Kind::Read if m.aio_depth > 0 => {
            // -k: the pass with N in flight (no stonewalling within it).
            let p = Pass {
                path,
                write: t.kind == Kind::Write,
                create: t.create,
                n,
                rec,
                order: &record,
            };
            timed(m, &p, &mut buf, q.as_mut())?;
            w.moved = n * rec;
        }
        Kind::Write | Kind::Read => {
            let p = Pass {
                path,
                write: t.kind == Kind::Write,
                create: t.create,
                n,
                rec,
                order: &record,
            };
            records(m, &p, &mut buf, q.as_mut(), &mut w)?;
        }
        Kind::Fwrite => fwrite(m, t, path, n, &buf, &mut w)?,
        Kind::Fread => fread(path, n, &mut buf, &mut w)?,
        Kind::Mix => unreachable!("a mixed workload child reads or writes"),
    }
    let Watch { cut, moved, .. } = w;
    let wall = t0.elapsed().as_secs_f64();
    if cut.is_none() && !o.no_stonewall {
        // The first to finish stops the others.
        stop.store(true, Ordering::Relaxed);
    }
    if let Some(q) = q.as_mut() {
        let name = PathBuf::from(format!("Child_{i}_{}.dat", t.qfile));
        // iozone's: no time line in a child's file, and its initial writers' header
        // has one blank fewer.
        let header = if t.qfile == "wol" {
            "Offset in kBytes   Latency in microseconds Transfer size in bytes"
        } else {
            LatencyLog::HEADER
        };
        q.append_to(&name, header, None)?;
    }
    let (bytes, secs) = cut.unwrap_or((moved, wall));
    Ok(Child {
        rate: unit(bytes) / secs.max(1e-9),
        actual: unit(bytes),
        wall,
        cpu: thread_cpu() - c0,
    })
}

/// A thread's progress in a test, and where another thread's finish cut it
/// (stonewalling: the bytes moved and seconds by then).
struct Watch<'a> {
    stop: &'a AtomicBool,
    t0: Instant,
    cut: Option<(u64, f64)>,
    moved: u64,
}

impl Watch<'_> {
    /// True when another thread has finished (the first time: the cut is taken).
    fn stonewalled(&mut self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            self.cut
                .get_or_insert((self.moved, self.t0.elapsed().as_secs_f64()));
            return true;
        }
        false
    }
}

/// Records one system call each, in the test's order: writes go on to the end (iozone's
/// writers finish their file), reads stop when stonewalled.
fn records(
    m: &Method,
    p: &Pass<'_>,
    buf: &mut fathom::engine::AlignedBuf,
    mut q: Option<&mut LatencyLog>,
    w: &mut Watch<'_>,
) -> Result<()> {
    let f = open(p.path, p.write, p.create, m.direct)?;
    for k in 0..p.n {
        super::super::check_stop()?;
        if w.cut.is_none() && w.stonewalled() && !p.write {
            break;
        }
        let off = (p.order)(k) * p.rec;
        let s = Instant::now();
        if p.write {
            f.write_all_at(buf.as_slice(), off)?;
        } else {
            f.read_exact_at(buf.as_mut_slice(), off)?;
        }
        if let Some(q) = q.as_mut() {
            q.lines
                .push((off / 1024, s.elapsed().as_secs_f64() * 1e6, p.rec));
        }
        w.moved += p.rec;
    }
    if p.write && m.fsync {
        f.sync_all()?;
    }
    Ok(())
}

/// fwrite: records through a 64 KiB buffer, to the end of the file.
fn fwrite(
    m: &Method,
    t: &Test,
    path: &Path,
    n: u64,
    buf: &fathom::engine::AlignedBuf,
    w: &mut Watch<'_>,
) -> Result<()> {
    let mut out = BufWriter::with_capacity(64 << 10, open(path, true, t.create, false)?);
    for _ in 0..n {
        super::super::check_stop()?;
        if w.cut.is_none() {
            w.stonewalled();
        }
        out.write_all(buf.as_slice())?;
        w.moved += buf.as_slice().len() as u64;
    }
    out.flush()?;
    if m.fsync {
        out.get_ref().sync_all()?;
    }
    Ok(())
}

/// fread: records through a 64 KiB buffer, until stonewalled.
fn fread(
    path: &Path,
    n: u64,
    buf: &mut fathom::engine::AlignedBuf,
    w: &mut Watch<'_>,
) -> Result<()> {
    let mut r = BufReader::with_capacity(64 << 10, open(path, false, false, false)?);
    for _ in 0..n {
        super::super::check_stop()?;
        if w.stonewalled() {
            break;
        }
        r.read_exact(buf.as_mut_slice())?;
        w.moved += buf.as_slice().len() as u64;
    }
    Ok(())
}

/// Throughput tests with `threads` threads (or, in cluster mode, children on the first
/// `threads` clients): iozone's lines for each test.
fn with_threads(
    o: &Opts,
    threads: u32,
    mut cluster: Option<&mut super::cluster::Master>,
    out: &mut String,
    report: &mut Vec<Row>,
) -> Result<()> {
    let size = o.sizes[0];
    let rec = o.records[0];
    let port = port(o, cluster.is_some(), 1);
    let unit = if o.ops { "ops" } else { "kB" };
    out.push_str(&format!(
        "\tEach {port} writes a {} kByte file in {} kByte records\n",
        size / 1024,
        rec / 1024
    ));
    // -F: each child's own file (iozone's), else iozone.DUMMY.N in the directory.
    let paths: Vec<PathBuf> = (0..threads as usize)
        .map(|t| match o.child_files.get(t) {
            Some(f) => f.clone(),
            None => o.dir.join(format!("iozone.DUMMY.{t}")),
        })
        .collect();
    let res = (|| -> Result<()> {
        for (k, t) in tests(o)? {
            let mut t0 = Instant::now();
            let kids: Vec<Child> = match cluster.as_deref_mut() {
                Some(c) => {
                    match c.run_test(k, threads as usize)? {
                        Some(kids) => kids,
                        // Cut short by a signal: the tests finished so far are reported.
                        None => return Ok(()),
                    }
                }
                None => {
                    let stop = AtomicBool::new(false);
                    let start = std::sync::Barrier::new(threads as usize + 1);
                    let kids: Vec<Result<Child>> = {
                        let t0 = &mut t0;
                        let (t, stop, start) = (&t, &stop, &start);
                        std::thread::scope(|sc| {
                            let hs: Vec<_> = paths
                                .iter()
                                .enumerate()
                                .map(|(i, p)| {
                                    let who = (i, threads as usize);
                                    sc.spawn(move || child(o, t, who, p, size, rec, start, stop))
                                })
                                .collect();
                            start.wait();
                            *t0 = Instant::now();
                            hs.into_iter().map(|h| h.join().expect("worker")).collect()
                        })
                    };
                    if super::super::stopped() {
                        // Cut short by a signal: the tests finished so far are reported.
                        return Ok(());
                    }
                    kids.into_iter().collect::<Result<_>>()?
                }
            };
            let total_time = t0.elapsed().as_secs_f64().max(1e-9);
            let sum: f64 = kids.iter().map(|c| c.rate).sum();
            let (cpu_wall, cpu_sum) = (
                kids.iter().map(|c| c.wall.max(c.cpu)).fold(0.0, f64::max),
                kids.iter().map(|c| c.cpu).sum::<f64>(),
            );
            let cpu_pct = if cpu_wall == 0.0 {
                0.0
            } else {
                100.0 * cpu_sum / cpu_wall
            };
            match report.iter_mut().find(|r| r.test == k) {
                Some(r) => r.values.push((sum, cpu_pct)),
                None => report.push(Row {
                    test: k,
                    values: vec![(sum, cpu_pct)],
                }),
            }
            let ptotal: f64 = kids.iter().map(|c| c.actual).sum();
            let min = kids.iter().map(|c| c.rate).fold(f64::INFINITY, f64::min);
            let max = kids.iter().map(|c| c.rate).fold(0.0, f64::max);
            let min_xfer = kids.iter().map(|c| c.actual).fold(f64::INFINITY, f64::min);
            let w = if t.wide { 2 } else { 0 };
            // iozone's distributed mode: "Test running:" first, no parent's line (the
            // master moves no data).
            let parent = if cluster.is_some() {
                out.push_str("\n\tTest running:");
                String::new()
            } else {
                format!(
                    "\tParent sees throughput for {threads:>w$} {} {}= {:>10.2} {unit}/sec\n",
                    t.label,
                    t.tabs.1,
                    ptotal / total_time,
                )
            };
            out.push_str(&format!(
                "\n\tChildren see throughput for {threads:>w$} {} {}= {sum:>10.2} {unit}/sec\n\
                 {parent}\
                 \tMin throughput per {port} \t\t\t= {min:>10.2} {unit}/sec \n\
                 \tMax throughput per {port} \t\t\t= {max:>10.2} {unit}/sec\n\
                 \tAvg throughput per {port} \t\t\t= {:>10.2} {unit}/sec\n\
                 \tMin xfer \t\t\t\t\t= {min_xfer:>10.2} {unit}\n",
                t.label,
                t.tabs.0,
                sum / kids.len() as f64,
            ));
            if o.cpu_util {
                let (wall, cpu, pct) = (cpu_wall, cpu_sum, cpu_pct);
                // iozone's own spelling: a capital U for the initial writers' figure only.
                let word = if k == 0 && wall > 0.0 {
                    "Utilization"
                } else {
                    "utilization"
                };
                out.push_str(&format!(
                    "\tCPU {word}: Wall time {wall:>8.3}    CPU time {cpu:>8.3}    CPU utilization {pct:>6.2} %\n\n",
                ));
            }
        }
        Ok(())
    })();
    // -w keeps the files, as iozone's.
    if cluster.is_none() && !o.keep {
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
    }
    res
}

/// A test's figures over the thread counts, for `-R`'s throughput report: the children's
/// throughput and the CPU utilization (%), count by count.
pub(super) struct Row {
    test: usize,
    values: Vec<(f64, f64)>,
}

/// iozone's names of its throughput tests in the `-R` report, in its order (the CPU
/// report takes its names from this list by position, as iozone does).
const REPORT_NAMES: [&str; 13] = [
    "Initial write",
    "Rewrite",
    "Read",
    "Re-read",
    "Reverse Read",
    "Stride read",
    "Random read",
    "Mixed workload",
    "Random write",
    "Pwrite",
    "Pread",
    "Fwrite",
    "Fread",
];

/// The `-R` report of a throughput run, as iozone 3.471 prints it: a line per test with
/// the children's throughput at each thread count, then with `-+u` the CPU utilization.
fn throughput_report(o: &Opts, cluster: bool, rows: &[Row]) -> String {
    let port = port(o, cluster, 2);
    let rec = o.records[0] / 1024;
    let unit = if o.ops { "ops/sec" } else { "kBytes/sec" };
    let name = report_name;
    let mut s = format!(
        "\n\"Throughput report Y-axis is type of test X-axis is number of {port}\"\n\
         \"Record size = {rec} kBytes \"\n\"Output is in {unit}\"\n\n"
    );
    for r in rows {
        s.push_str(&format!("\"{:>15} \"", name(r.test)));
        for (v, _) in &r.values {
            s.push_str(&format!(" {v:>10.2} "));
        }
        s.push_str("\n\n");
    }
    if o.cpu_util {
        s.push_str(&format!(
            "\n\"CPU utilization report Y-axis is type of test X-axis is number of {port}\"\n\
             \"Record size = {rec} kBytes \"\n\"Output is in CPU%\"\n\n"
        ));
        for (i, r) in rows.iter().enumerate() {
            s.push_str(&format!("\"{:>15} \"", REPORT_NAMES[i]));
            for (_, c) in &r.values {
                s.push_str(&format!(" {c:>10.2} "));
            }
            s.push_str("\n\n");
        }
    }
    s
}

/// A report row's label and figures, from a test's row and its place.
type Pick = dyn Fn(&Row, usize) -> (String, Vec<f64>);

/// `-b FILE` in throughput mode: the throughput report as a spreadsheet (xlsx), as
/// iozone's: its title lines, then a row per test with its figure at each thread count
/// (and with `-+u` the CPU utilization report below).
fn throughput_book(path: &std::path::Path, o: &Opts, cluster: bool, rows: &[Row]) -> Result<()> {
    let x = |e: rust_xlsxwriter::XlsxError| anyhow::anyhow!("{}: {e}", path.display());
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    let port = port(o, cluster, 2);
    let unit = if o.ops { "ops/sec" } else { "kBytes/sec" };
    let rec = o.records[0] / 1024;
    let mut row = 0u32;
    let mut block = |title: String, unit: &str, pick: &Pick| {
        for line in [
            title,
            format!("Record size = {rec} kBytes"),
            format!("Output is in {unit}"),
        ] {
            ws.write_string(row, 0, line).map_err(x)?;
            row += 1;
        }
        for (i, r) in rows.iter().enumerate() {
            let (label, values) = pick(r, i);
            ws.write_string(row, 0, label).map_err(x)?;
            for (j, v) in values.iter().enumerate() {
                ws.write_number(row, j as u16 + 1, *v).map_err(x)?;
            }
            row += 1;
        }
        row += 1;
        Ok::<(), anyhow::Error>(())
    };
    block(
        format!("Throughput report Y-axis is type of test X-axis is number of {port}"),
        unit,
        &|r, _| {
            (
                report_name(r.test).to_string(),
                r.values.iter().map(|v| v.0).collect(),
            )
        },
    )?;
    if o.cpu_util {
        block(
            format!("CPU utilization report Y-axis is type of test X-axis is number of {port}"),
            "CPU%",
            &|r, i| {
                (
                    REPORT_NAMES[i].to_string(),
                    r.values.iter().map(|v| v.1).collect(),
                )
            },
        )?;
    }
    wb.save(path).map_err(x)?;
    Ok(())
}

/// iozone's name of a throughput test (an index of TESTS) in its reports.
fn report_name(k: usize) -> &'static str {
    match TESTS[k].2.label {
        "initial writers" => "Initial write",
        "rewriters" => "Rewrite",
        "readers" => "Read",
        "re-readers" => "Re-read",
        "reverse readers" => "Reverse Read",
        "stride readers" => "Stride read",
        "random readers" => "Random read",
        "random writers" => "Random write",
        "mixed workload" => "Mixed workload",
        "pwrite writers" => "Pwrite",
        "pread readers" => "Pread",
        "fwriters" => "Fwrite",
        _ => "Fread",
    }
}

/// iozone's word for its children: threads with -T (not on a cluster, whose children
/// are processes), plural for more than one.
fn port(o: &Opts, cluster: bool, n: u32) -> &'static str {
    match (o.pthreads && !cluster, n > 1) {
        (true, false) => "thread",
        (true, true) => "threads",
        (false, false) => "process",
        (false, true) => "processes",
    }
}

/// Throughput mode: one set of tests per thread count from `threads` to `max_threads`.
pub(super) fn throughput(o: &Opts, args: &[String]) -> Result<String> {
    let mut cluster = match &o.cluster.clients {
        Some(_) => Some(super::cluster::Master::start(
            o,
            &o.cluster,
            args,
            o.max_threads.max(o.threads) as usize,
        )?),
        None => {
            std::fs::create_dir_all(&o.dir)?;
            None
        }
    };
    let mut s = String::new();
    let on_cluster = cluster.is_some();
    if o.max_threads > o.threads {
        let port = port(o, on_cluster, 1);
        s.push_str(&format!(
            "\tMin {port} = {} \n\tMax {port} = {} \n",
            o.threads, o.max_threads
        ));
    }
    // As iozone: said once, of the first count.
    s.push_str(&format!(
        "\tThroughput test with {} {}\n",
        o.threads,
        port(o, on_cluster, o.threads)
    ));
    let mut rows = Vec::new();
    for n in o.threads..=o.max_threads.max(o.threads) {
        if super::super::stopped() {
            break;
        }
        with_threads(o, n, cluster.as_mut(), &mut s, &mut rows)?;
        s.push_str(if on_cluster { "\n" } else { "\n\n" });
    }
    if o.report && !super::super::stopped() {
        s.push_str(&throughput_report(o, on_cluster, &rows));
    }
    if let Some(book) = &o.book {
        throughput_book(book, o, on_cluster, &rows)?;
    }
    if !super::super::stopped() {
        // iozone's last lines (its clients' files are removed in the cleanup).
        if on_cluster {
            s.push_str("\tTest cleanup:\n\n");
        }
        s.push_str("\niozone test complete.\n");
    }
    Ok(s)
}
