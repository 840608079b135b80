//! `fathom suite iozone`: iozone's thirteen tests (write, rewrite, read, reread, random
//! read, random write, backward read, record rewrite, stride read, fwrite, frewrite,
//! fread, freread) over its `-a` matrix of file sizes × record sizes, with `-I` direct,
//! `-e` fsync included, `-t N` throughput mode; iozone's table, CSV, and an SVG heat map
//! per test.

use anyhow::{anyhow, bail, Context, Result};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The tests in iozone's column order.
pub const TESTS: [&str; 13] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "random read",
    "random write",
    "bkwd read",
    "record rewrite",
    "stride read",
    "fwrite",
    "frewrite",
    "fread",
    "freread",
];

/// Options (iozone's letters).
#[derive(Debug, Clone)]
pub struct Opts {
    /// `-f`: directory for the test file.
    pub dir: PathBuf,
    /// File sizes to test (bytes).
    pub sizes: Vec<u64>,
    /// Record sizes to test (bytes).
    pub records: Vec<u64>,
    /// `-i`: test groups to run (0..=7); empty = all.
    pub groups: Vec<u32>,
    /// `-I`: O_DIRECT.
    pub direct: bool,
    /// `-e`: include fsync in write timings.
    pub fsync: bool,
    /// `-t`: threads (throughput mode) or 0.
    pub threads: u32,
    /// `--csv`.
    pub csv: bool,
    /// `--svg=DIR`.
    pub svg: Option<PathBuf>,
    /// `-f FILE`: the temporary file's name (None: iozone.PID.tmp in `dir`).
    pub file: Option<PathBuf>,
    /// `-O`: operations per second instead of kB/s.
    pub ops: bool,
    /// `-+n`: no re-tests (rewrite, reread, frewrite, freread).
    pub no_retests: bool,
    /// `-R`: iozone's Excel-style report after the table.
    pub report: bool,
    /// `-b FILE`: the report as a spreadsheet (xlsx).
    pub book: Option<PathBuf>,
    /// `-w`: keep the temporary file.
    pub keep: bool,
    /// `-z`: with -a, small records of large files too.
    pub small_records: bool,
}

fn open(p: &Path, write: bool, create: bool, direct: bool) -> Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(write).create(create).truncate(create);
    if direct {
        o.custom_flags(libc::O_DIRECT);
    }
    o.open(p)
        .with_context(|| format!("opening {}", p.display()))
}

/// kB/s of moving `bytes` in `f`.
fn rate(bytes: u64, f: impl FnOnce() -> Result<()>) -> Result<u64> {
    let t = Instant::now();
    f()?;
    Ok((bytes as f64 / 1024.0 / t.elapsed().as_secs_f64().max(1e-9)) as u64)
}

/// The 13 results (kB/s) for one file size and record size; None = not run.
fn one(o: &Opts, path: &Path, size: u64, rec: u64) -> Result<[Option<u64>; 13]> {
    let n = size / rec;
    let mut buf = fathom::engine::AlignedBuf::new(rec as usize, 4096);
    buf.as_mut_slice()
        .iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b = (i * 31) as u8);
    let run = |g: u32| o.groups.is_empty() || o.groups.contains(&g);
    let mut r = [None; 13];
    let write_pass = |buf: &fathom::engine::AlignedBuf, create: bool| -> Result<u64> {
        rate(n * rec, || {
            let f = open(path, true, create, o.direct)?;
            for k in 0..n {
                super::check_stop()?;
                f.write_all_at(buf.as_slice(), k * rec)?;
            }
            if o.fsync {
                f.sync_all()?;
            }
            Ok(())
        })
    };
    // Test 0 (write, rewrite) always runs first: the others need the file.
    r[0] = Some(write_pass(&buf, true)?);
    if !o.no_retests {
        r[1] = Some(write_pass(&buf, false)?);
    }
    let read_pass =
        |buf: &mut fathom::engine::AlignedBuf, order: &dyn Fn(u64) -> u64| -> Result<u64> {
            rate(n * rec, || {
                let f = open(path, false, false, o.direct)?;
                for k in 0..n {
                    super::check_stop()?;
                    f.read_exact_at(buf.as_mut_slice(), order(k) * rec)?;
                }
                Ok(())
            })
        };
    if run(1) {
        r[2] = Some(read_pass(&mut buf, &|k| k)?);
        if !o.no_retests {
            r[3] = Some(read_pass(&mut buf, &|k| k)?);
        }
    }
    // A fixed pseudo-random permutation of record numbers (every record once).
    let mul = (0x9E37_79B9u64 | 1) % n.max(1);
    let coprime = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a == 1
    };
    let mut m = mul.max(1);
    while n > 1 && !coprime(m, n) {
        m += 1;
    }
    let perm = move |k: u64| (k * m + 7) % n.max(1);
    if run(2) {
        r[4] = Some(read_pass(&mut buf, &perm)?);
        r[5] = Some(rate(n * rec, || {
            let f = open(path, true, false, o.direct)?;
            for k in 0..n {
                super::check_stop()?;
                f.write_all_at(buf.as_slice(), perm(k) * rec)?;
            }
            if o.fsync {
                f.sync_all()?;
            }
            Ok(())
        })?);
    }
    if run(3) {
        r[6] = Some(read_pass(&mut buf, &|k| n - 1 - k)?);
    }
    if run(4) {
        // Record rewrite: the same record, over and over.
        r[7] = Some(rate(n * rec, || {
            let f = open(path, true, false, o.direct)?;
            let at = (n / 2) * rec;
            for _ in 0..n {
                super::check_stop()?;
                f.write_all_at(buf.as_slice(), at)?;
            }
            if o.fsync {
                f.sync_all()?;
            }
            Ok(())
        })?);
    }
    if run(5) {
        // Stride read: every 17th record, wrapping, until n records are read.
        r[8] = Some(read_pass(&mut buf, &|k| (k * 17) % n.max(1))?);
    }
    if run(6) {
        let fwrite = |create: bool| -> Result<u64> {
            rate(n * rec, || {
                let f = open(path, true, create, false)?;
                let mut w = BufWriter::with_capacity(64 << 10, f);
                for _ in 0..n {
                    super::check_stop()?;
                    w.write_all(buf.as_slice())?;
                }
                w.flush()?;
                if o.fsync {
                    w.get_ref().sync_all()?;
                }
                Ok(())
            })
        };
        r[9] = Some(fwrite(true)?);
        if !o.no_retests {
            r[10] = Some(fwrite(false)?);
        }
    }
    if run(7) {
        let mut fread = || -> Result<u64> {
            rate(n * rec, || {
                let mut rd = BufReader::with_capacity(64 << 10, open(path, false, false, false)?);
                for _ in 0..n {
                    super::check_stop()?;
                    rd.read_exact(&mut buf.as_mut_slice()[..rec as usize])?;
                }
                Ok(())
            })
        };
        r[11] = Some(fread()?);
        if !o.no_retests {
            r[12] = Some(fread()?);
        }
    }
    Ok(r)
}

/// Every (file size, record size, results) of the matrix.
pub type Matrix = Vec<(u64, u64, [Option<u64>; 13])>;

/// Run the matrix (auto mode skips records below 64 KiB for files above 32 MiB, as iozone).
pub fn run_matrix(o: &Opts) -> Result<Matrix> {
    std::fs::create_dir_all(&o.dir)?;
    let path = o
        .file
        .clone()
        .unwrap_or_else(|| o.dir.join(format!("iozone.{}.tmp", std::process::id())));
    let mut out = Vec::new();
    let res = (|| -> Result<()> {
        for &size in &o.sizes {
            for &rec in &o.records {
                let skip_small = o.sizes.len() > 1 && !o.small_records;
                if rec > size || (skip_small && size > 32 << 20 && rec < 64 << 10) {
                    continue;
                }
                if super::stopped() {
                    return Ok(());
                }
                match one(o, &path, size, rec) {
                    Ok(r) => out.push((size, rec, r)),
                    // Cut short by a signal: the cells finished so far are reported.
                    Err(_) if super::stopped() => return Ok(()),
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    })();
    if !o.keep {
        let _ = std::fs::remove_file(&path);
    }
    res.map(|()| out)
}

/// iozone's table.
pub fn table(m: &Matrix) -> String {
    let mut s = String::from(
        "                                                              random    random     bkwd    record    stride\n\
         \x20             kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n",
    );
    for (size, rec, r) in m {
        s.push_str(&format!("{:>16}{:>8}", size / 1024, rec / 1024));
        let widths = [9, 9, 8, 10, 9, 10, 9, 10, 10, 9, 9, 9, 9];
        // Always a blank between columns, even when a figure is wider than its column.
        for (v, w) in r.iter().zip(widths) {
            let w = w - 1;
            match v {
                Some(v) => s.push_str(&format!(" {v:>w$}")),
                None => s.push_str(&format!(" {:>w$}", "")),
            }
        }
        s.push('\n');
    }
    s
}

/// iozone's report titles, in test order.
const REPORTS: [&str; 13] = [
    "Writer",
    "Re-writer",
    "Reader",
    "Re-Reader",
    "Random read",
    "Random write",
    "Backward read",
    "Record rewrite",
    "Stride read",
    "Fwrite",
    "Re-Fwrite",
    "Fread",
    "Re-Fread",
];

/// The file sizes and record sizes of a matrix, in order.
fn axes(m: &Matrix) -> (Vec<u64>, Vec<u64>) {
    let mut sizes: Vec<u64> = m.iter().map(|c| c.0).collect();
    let mut recs: Vec<u64> = m.iter().map(|c| c.1).collect();
    sizes.sort_unstable();
    sizes.dedup();
    recs.sort_unstable();
    recs.dedup();
    (sizes, recs)
}

/// iozone's `-R` report: per test a block titled `"Writer report"`, the record sizes
/// (kB) across, a row per file size (kB).
pub fn report(m: &Matrix, ops: bool) -> String {
    let (sizes, recs) = axes(m);
    let mut s = String::from("Excel output is below:\n");
    for (t, title) in REPORTS.iter().enumerate() {
        if m.iter().all(|c| c.2[t].is_none()) {
            continue;
        }
        let unit = if ops { " (ops/s)" } else { "" };
        s.push_str(&format!("\n\"{title} report\"{unit}\n        "));
        for r in &recs {
            s.push_str(&format!("\"{}\"  ", r / 1024));
        }
        s.push('\n');
        for &size in &sizes {
            s.push_str(&format!("\"{}\"   ", size / 1024));
            for &r in &recs {
                let v = m
                    .iter()
                    .find(|c| c.0 == size && c.1 == r)
                    .and_then(|c| c.2[t]);
                s.push_str(&v.map_or(String::new(), |v| v.to_string()));
                s.push(' ');
            }
            s.push('\n');
        }
    }
    s
}

/// `-b FILE`: the report as a spreadsheet (xlsx, which Excel, LibreOffice and pandas
/// open whatever the file is named), laid out as iozone's: one block per test.
fn write_book(path: &Path, m: &Matrix, ops: bool) -> Result<()> {
    use rust_xlsxwriter::Workbook;
    let (sizes, recs) = axes(m);
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    let mut row = 0u32;
    let x = |e: rust_xlsxwriter::XlsxError| anyhow!("{}: {e}", path.display());
    for (t, title) in REPORTS.iter().enumerate() {
        if m.iter().all(|c| c.2[t].is_none()) {
            continue;
        }
        let unit = if ops { " (ops/s)" } else { " (kB/s)" };
        ws.write_string(row, 0, format!("{title} report{unit}"))
            .map_err(x)?;
        row += 1;
        for (i, r) in recs.iter().enumerate() {
            ws.write_number(row, i as u16 + 1, (r / 1024) as f64)
                .map_err(x)?;
        }
        row += 1;
        for &size in &sizes {
            ws.write_number(row, 0, (size / 1024) as f64).map_err(x)?;
            for (i, &r) in recs.iter().enumerate() {
                if let Some(v) = m
                    .iter()
                    .find(|c| c.0 == size && c.1 == r)
                    .and_then(|c| c.2[t])
                {
                    ws.write_number(row, i as u16 + 1, v as f64).map_err(x)?;
                }
            }
            row += 1;
        }
        row += 1;
    }
    wb.save(path).map_err(x)?;
    Ok(())
}

/// CSV: one row per file and record size.
pub fn csv(m: &Matrix) -> String {
    let mut s = String::from("kB,reclen");
    for t in TESTS {
        s.push(',');
        s.push_str(&t.replace(' ', "_"));
    }
    s.push('\n');
    for (size, rec, r) in m {
        s.push_str(&format!("{},{}", size / 1024, rec / 1024));
        for v in r {
            s.push(',');
            if let Some(v) = v {
                s.push_str(&v.to_string());
            }
        }
        s.push('\n');
    }
    s
}

/// iozone's usage, as far as fathom takes it.
pub const USAGE: &str = "usage: fathom suite iozone [-a] [-s size] [-r record] [-n min] [-g max]
      [-y minrec] [-q maxrec] [-i test ...] [-f file] [-I] [-e] [-t threads] [-O] [-R]
      [-b file.xlsx] [-+n] [-w] [-z] [-c] [-M] [--csv] [--svg=DIR]
  -i: 0 write/rewrite, 1 read/reread, 2 random read/write, 3 backward read,
      4 record rewrite, 5 stride read, 6 fwrite/frewrite, 7 fread/freread
  -O operations per second instead of kB/s; -R Excel-style report; -b FILE the report
  as a spreadsheet (written as .xlsx whatever the name); -+n no re-tests
  e.g. fathom suite iozone -Rb report.xlsx -O -i 0 -i 1 -i 2 -e -+n -r 4k -s 64m";

/// getopt's clusters as iozone takes them: `-Rab FILE` is `-R -a -b FILE`, `-s16g` is
/// `-s 16g`, `-+n` stays one flag.
fn getopt_clusters(args: &[String]) -> Vec<String> {
    const WITH_VALUE: &str = "bfgnqrstyi";
    const ALONE: &str = "aAROIewczMh";
    let mut out = Vec::new();
    for a in args {
        let Some(body) = a.strip_prefix('-') else {
            out.push(a.clone());
            continue;
        };
        if body.len() < 2 || body.starts_with('-') || body.starts_with('+') {
            out.push(a.clone());
            continue;
        }
        let mut parts = Vec::new();
        let mut ok = true;
        for (i, c) in body.char_indices() {
            if WITH_VALUE.contains(c) {
                parts.push(format!("-{c}"));
                let rest = &body[i + c.len_utf8()..];
                if !rest.is_empty() {
                    parts.push(rest.to_string());
                }
                break;
            } else if ALONE.contains(c) {
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

fn size(v: &str) -> Result<u64> {
    // iozone sizes are in kB unless suffixed (k, m, g).
    if v.chars().all(|c| c.is_ascii_digit()) {
        return Ok(v.parse::<u64>()? << 10);
    }
    fathom_job::units::parse_size(v, 1024, fathom_job::Dialect::Fio)
        .map_err(|e| anyhow!("'{v}': {e}"))
}

/// lo, 2·lo, 4·lo, ... up to hi (at most 64 values; a zero lo gives none).
fn doubling(lo: u64, hi: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut x = lo;
    while x > 0 && x <= hi {
        v.push(x);
        match x.checked_mul(2) {
            Some(n) => x = n,
            None => break,
        }
    }
    v
}

/// Parse iozone-style options.
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut auto = false;
    let (mut nmin, mut gmax) = (64u64 << 10, 512u64 << 20);
    let (mut ymin, mut qmax) = (4u64 << 10, 16u64 << 20);
    let (mut s_one, mut r_one) = (None, None);
    let mut o = Opts {
        dir: ".".into(),
        sizes: Vec::new(),
        records: Vec::new(),
        groups: Vec::new(),
        direct: false,
        fsync: false,
        threads: 0,
        csv: false,
        svg: None,
        file: None,
        ops: false,
        no_retests: false,
        report: false,
        book: None,
        keep: false,
        small_records: false,
    };
    let args = getopt_clusters(args);
    let mut opts = super::Opts::new(&args);
    while let Some((k, a, inline)) = opts.next_opt() {
        let mut val = || opts.value(k, inline.clone());
        match k {
            "-a" => auto = true,
            "-n" => nmin = size(&val()?)?,
            "-g" => gmax = size(&val()?)?,
            "-y" => ymin = size(&val()?)?,
            "-q" => qmax = size(&val()?)?,
            "-s" => s_one = Some(size(&val()?)?),
            "-r" => r_one = Some(size(&val()?)?),
            "-i" => o.groups.push(
                val()?
                    .parse()
                    .map_err(|_| anyhow!("-i: a test number 0-7"))?,
            ),
            "-I" => o.direct = true,
            "-e" => o.fsync = true,
            "-t" => o.threads = val()?.parse().map_err(|_| anyhow!("-t: a number"))?,
            "--dir" => o.dir = val()?.into(),
            "-f" => {
                // iozone: the temporary file; an existing directory keeps the older
                // meaning (the file goes in it).
                let (dir, file) = super::file_arg(val()?.into());
                o.dir = dir;
                if file.is_some() {
                    o.file = file;
                }
            }
            "-O" => o.ops = true,
            "-+n" => o.no_retests = true,
            "-R" => o.report = true,
            "-b" => o.book = Some(val()?.into()),
            "-w" => o.keep = true,
            // Accepted: -z (auto mode also tests small records of large files: fathom's
            // matrix skips them as iozone does without -z; with -z they run), -M (the
            // machine's uname, printed first), -c (close inside the timing: every
            // fathom pass opens and closes its file inside the timing already).
            "-z" => o.small_records = true,
            "-M" | "-c" => {}
            "-h" | "--help" => bail!("{USAGE}"),
            "--csv" => o.csv = true,
            "--svg" => o.svg = Some(val()?.into()),
            _ => bail!("unknown option '{a}'\n{USAGE}"),
        }
    }
    if o.groups.iter().any(|&g| g > 7) {
        bail!("-i: tests are 0 (write) to 7 (fread)");
    }
    if nmin == 0 || ymin == 0 {
        bail!("-n and -y: the smallest file and record sizes must be at least 1 kB");
    }
    o.sizes = match (auto, s_one) {
        (_, Some(s)) => vec![s],
        (true, None) => doubling(nmin, gmax),
        (false, None) => bail!("give -a (the automatic matrix) or -s SIZE [-r RECORD]"),
    };
    o.records = match r_one {
        Some(r) => vec![r],
        None if auto || s_one.is_some() => doubling(ymin, qmax),
        None => vec![4 << 10],
    };
    if o.direct && o.records.iter().any(|r| r % 512 != 0) {
        bail!("-I (direct) needs record sizes in multiples of 512 bytes");
    }
    Ok(o)
}

/// Throughput mode: `-t N` threads, each on its own file, write/rewrite/read/reread.
fn throughput(o: &Opts) -> Result<String> {
    let size = o.sizes[0];
    let rec = o.records[0];
    std::fs::create_dir_all(&o.dir)?;
    let paths: Vec<PathBuf> = (0..o.threads)
        .map(|t| o.dir.join(format!("iozone.DUMMY.{t}")))
        .collect();
    let mut s = format!(
        "\tThroughput test with {} processes\n\tEach process writes a {} kByte file in {} kByte records\n\n",
        o.threads,
        size / 1024,
        rec / 1024
    );
    let phases: [(&str, bool, bool); 4] = [
        ("initial writers", true, true),
        ("rewriters", true, false),
        ("readers", false, false),
        ("re-readers", false, false),
    ];
    let res = (|| -> Result<()> {
        for (name, write, create) in phases {
            let t0 = Instant::now();
            let per: Vec<Result<f64>> = std::thread::scope(|sc| {
                let hs: Vec<_> = paths
                    .iter()
                    .map(|p| {
                        sc.spawn(move || -> Result<f64> {
                            let mut b = fathom::engine::AlignedBuf::new(rec as usize, 4096);
                            let f = open(p, write, create, o.direct)?;
                            let t = Instant::now();
                            for k in 0..size / rec {
                                super::check_stop()?;
                                if write {
                                    f.write_all_at(b.as_slice(), k * rec)?;
                                } else {
                                    f.read_exact_at(b.as_mut_slice(), k * rec)?;
                                }
                            }
                            if write && o.fsync {
                                f.sync_all()?;
                            }
                            Ok(size as f64 / 1024.0 / t.elapsed().as_secs_f64().max(1e-9))
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().expect("worker")).collect()
            });
            if super::stopped() {
                // Cut short by a signal: the phases finished so far are reported.
                return Ok(());
            }
            let rates: Vec<f64> = per.into_iter().collect::<Result<_>>()?;
            let wall = t0.elapsed().as_secs_f64().max(1e-9);
            let sum: f64 = rates.iter().sum();
            let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
            let max = rates.iter().copied().fold(0.0, f64::max);
            s.push_str(&format!(
                "\tChildren see throughput for {:>2} {:<16} = {:>12.2} kB/sec\n\
                 \tParent sees throughput for {:>2} {:<16} = {:>12.2} kB/sec\n\
                 \tMin throughput per process {:>20} = {:>12.2} kB/sec\n\
                 \tMax throughput per process {:>20} = {:>12.2} kB/sec\n\
                 \tAvg throughput per process {:>20} = {:>12.2} kB/sec\n\n",
                o.threads,
                name,
                sum,
                o.threads,
                name,
                (size * o.threads as u64) as f64 / 1024.0 / wall,
                "",
                min,
                "",
                max,
                "",
                sum / rates.len() as f64
            ));
        }
        Ok(())
    })();
    for p in &paths {
        let _ = std::fs::remove_file(p);
    }
    res.map(|()| s)
}

/// Run `fathom suite iozone`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    if o.threads > 0 {
        print!("{}", throughput(&o)?);
        return Ok((0, Vec::new()));
    }
    let measured = run_matrix(&o)?;
    // -O: operations (records) per second instead of kB/s.
    let m: Matrix = if o.ops {
        measured
            .iter()
            .map(|&(s, r, v)| (s, r, v.map(|x| x.map(|k| k * 1024 / r.max(1)))))
            .collect()
    } else {
        measured.clone()
    };
    if o.csv {
        print!("{}", csv(&m));
    } else {
        println!("\tfathom {} (iozone method)\n", fathom::VERSION);
        if o.ops {
            println!("\tOPS Mode. Output is in operations per second.\n");
        }
        if o.no_retests {
            println!("\tNo retest option selected\n");
        }
        print!("{}", table(&m));
    }
    if o.report {
        print!("\n{}", report(&m, o.ops));
    }
    if let Some(book) = &o.book {
        write_book(book, &m, o.ops)?;
    }
    if let Some(dir) = &o.svg {
        std::fs::create_dir_all(dir)?;
        let sizes: Vec<u64> = o.sizes.clone();
        let recs: Vec<u64> = o.records.clone();
        for (t, name) in TESTS.iter().enumerate() {
            let cells: Vec<(usize, usize, f64)> = m
                .iter()
                .filter_map(|(s, r, v)| {
                    let x = recs.iter().position(|q| q == r)?;
                    let y = sizes.iter().position(|q| q == s)?;
                    v[t].map(|k| (x, y, k as f64))
                })
                .collect();
            if cells.is_empty() {
                continue;
            }
            let svg = fathom_report::plot::heatmap(
                &format!("iozone {name} (kB/s)"),
                "record size (kB)",
                "file size (kB)",
                &recs
                    .iter()
                    .map(|r| (r / 1024).to_string())
                    .collect::<Vec<_>>(),
                &sizes
                    .iter()
                    .map(|s| (s / 1024).to_string())
                    .collect::<Vec<_>>(),
                &cells,
            )
            .map_err(|e| anyhow!(e))?;
            std::fs::write(
                dir.join(format!("iozone-{}.svg", name.replace(' ', "-"))),
                svg,
            )?;
        }
    }
    let mut metrics = Vec::new();
    for (size, rec, r) in &m {
        for (t, v) in TESTS.iter().zip(r) {
            if let Some(v) = v {
                metrics.push((
                    format!("{}k/{}k {t} kB/s", size / 1024, rec / 1024),
                    *v as f64,
                ));
            }
        }
    }
    Ok((0, metrics))
}
