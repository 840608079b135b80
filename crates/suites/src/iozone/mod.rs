//! `fathom suite iozone`: iozone's thirteen tests (write, rewrite, read, reread, random
//! read, random write, backward read, record rewrite, stride read, fwrite, frewrite,
//! fread, freread) over its `-a` matrix of file sizes × record sizes, with `-I` direct,
//! `-e` fsync included, `-k N` POSIX asynchronous I/O, `-t N` (or `-l`..`-u`) throughput
//! mode with stonewalling (on many hosts with `-+m`); iozone's table, `-R` report, `-b`
//! spreadsheet, `-Q` offset/latency files, CSV, and an SVG heat map per test.

mod cluster;
mod output;
mod passes;
mod throughput;

use anyhow::{anyhow, bail, Context, Result};
use output::write_book;
pub use output::{csv, report, table};
pub use passes::Method;
use passes::{cpu_seconds, open, permutation, timed, LatencyLog, Pass};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use throughput::throughput;

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
    /// `-I` direct, `-e` fsync in the timing, `-k N` POSIX asynchronous I/O, `-p` purge.
    pub method: Method,
    /// `-t N`: throughput mode with N threads (0: the matrix); `-l`/`-u`: from `threads`
    /// up to `max_threads`, one throughput test each.
    pub threads: u32,
    /// `-u` (or `-t`): the most threads of the throughput tests.
    pub max_threads: u32,
    /// `-T`: say "threads" (fathom's throughput tests always run threads).
    pub pthreads: bool,
    /// `-x`: no stonewalling (every thread moves its whole file before throughput counts).
    pub no_stonewall: bool,
    /// `-+u`: CPU utilization line per throughput test.
    pub cpu_util: bool,
    /// `-j N`: stride of the stride read test, in records.
    pub stride: u64,
    /// `-S N`: the processor cache size iozone assumes, in bytes (1 MiB unless given):
    /// what `-p` touches before each record at most.
    pub cache_size: u64,
    /// `-L N`: the processor cache line size iozone assumes (32 bytes unless given): the
    /// step of `-p`'s touch.
    pub cache_line: u64,
    /// `-Q`: offset/latency files (wol.dat, rwol.dat, rol.dat, rrol.dat; per thread
    /// Child_N_*.dat in throughput mode) in the current directory.
    pub latency_files: bool,
    /// `-U DIR`: unmount and mount DIR before each test.
    pub remount: Option<PathBuf>,
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
    /// iozone's crossover is on: files above 16 MiB skip the records below 64 kB.
    pub cross_over: bool,
    /// `-+m FILE`, `-+h NAME`, `-+i PORT`: cluster mode (throughput tests on the clients
    /// the file lists, started over `$RSH`).
    pub cluster: cluster::ClusterFlags,
    /// `-F FILE...`: each child's own file in throughput mode (one per child of the
    /// largest count), as iozone's.
    pub child_files: Vec<PathBuf>,
    /// `-+p N`: the mixed workload's readers are the first N% of the children (else
    /// every other one).
    pub mix_read_pct: Option<u32>,
    /// `-+B`: the mixed workload goes in order (else at random offsets).
    pub seq_mix: bool,
    /// iozone's lines about the options, in the order they were given (`File size set
    /// to 1024 kB`, `Include fsync in write timing`, ...), printed before the results.
    pub splash: Vec<String>,
}

/// kB/s of moving `bytes` in `d`.
fn kbs(bytes: u64, d: Duration) -> u64 {
    (bytes as f64 / 1024.0 / d.as_secs_f64().max(1e-9)) as u64
}

/// `-U`: unmount and mount the mount point again (its /etc/fstab entry), as iozone does
/// before each test, so that no cached data survives; each is tried a few times while the
/// device is busy.
pub fn remount(mount: &Path) -> Result<()> {
    for cmd in ["umount", "mount"] {
        let mut last = String::new();
        let mut ok = false;
        for attempt in 0..5 {
            super::check_stop()?;
            let o = std::process::Command::new(cmd)
                .arg(mount)
                .output()
                .with_context(|| format!("-U: running {cmd}"))?;
            if o.status.success() {
                ok = true;
                break;
            }
            last = String::from_utf8_lossy(&o.stderr).trim().to_string();
            std::thread::sleep(Duration::from_millis(200 * (attempt + 1)));
        }
        if !ok {
            bail!(
                "-U {}: '{cmd} {}' failed: {last} (the mount point needs an /etc/fstab entry)",
                mount.display(),
                mount.display()
            );
        }
    }
    Ok(())
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
    // `-i 11` alone names no test of iozone's Linux build: an empty row, as iozone's.
    if o.nothing_to_run() {
        return Ok(r);
    }
    let mut q = o.latency_files.then(LatencyLog::default);
    // One pass of a test: remounted first with -U, its records logged to `qfile` with -Q.
    let mut pass = |write: bool, create: bool, order: &dyn Fn(u64) -> u64, qfile: Option<&str>| {
        if let Some(m) = &o.remount {
            remount(m)?;
        }
        let (c0, t0) = (cpu_seconds(), Instant::now());
        let log = q.as_mut().filter(|_| qfile.is_some());
        let p = Pass {
            path,
            write,
            create,
            n,
            rec,
            order,
        };
        let d = timed(&o.method, &p, &mut buf, log)?;
        if let (Some(q), Some(f)) = (q.as_mut(), qfile) {
            let c1 = cpu_seconds();
            q.append_to(
                Path::new(f),
                LatencyLog::HEADER,
                Some(((c1.0 - c0.0, c1.1 - c0.1), t0.elapsed().as_secs_f64())),
            )?;
        }
        Ok::<u64, anyhow::Error>(kbs(n * rec, d))
    };
    let seq = |k: u64| k;
    // Test 0 (write, rewrite) always runs first: the others need the file.
    r[0] = Some(pass(true, true, &seq, Some("wol.dat"))?);
    if !o.no_retests {
        r[1] = Some(pass(true, false, &seq, Some("rwol.dat"))?);
    }
    if run(1) {
        r[2] = Some(pass(false, false, &seq, Some("rol.dat"))?);
        if !o.no_retests {
            r[3] = Some(pass(false, false, &seq, Some("rrol.dat"))?);
        }
    }
    // A fixed pseudo-random permutation of record numbers (every record once).
    let perm = permutation(n);
    if run(2) {
        r[4] = Some(pass(false, false, &perm, None)?);
        r[5] = Some(pass(true, false, &perm, None)?);
    }
    if run(3) {
        r[6] = Some(pass(false, false, &|k| n - 1 - k, None)?);
    }
    if run(4) {
        // Record rewrite: the same record, over and over.
        r[7] = Some(pass(true, false, &|_| n / 2, None)?);
    }
    if run(5) {
        // Stride read: every `-j`-th record (17 by default, as iozone), going round the
        // file until n records are read.
        let stride = o.stride.max(1);
        r[8] = Some(pass(false, false, &|k| (k * stride) % n.max(1), None)?);
    }
    if run(6) {
        r[9] = Some(fwrite(o, path, (n, rec), &buf, true)?);
        if !o.no_retests {
            r[10] = Some(fwrite(o, path, (n, rec), &buf, false)?);
        }
    }
    if run(7) {
        r[11] = Some(fread(o, path, (n, rec), &mut buf)?);
        if !o.no_retests {
            r[12] = Some(fread(o, path, (n, rec), &mut buf)?);
        }
    }
    Ok(r)
}

/// fwrite (test 6): `n` records of `rec` bytes through a 64 KiB buffer; kB/s.
fn fwrite(
    o: &Opts,
    path: &Path,
    (n, rec): (u64, u64),
    buf: &fathom::engine::AlignedBuf,
    create: bool,
) -> Result<u64> {
    if let Some(m) = &o.remount {
        remount(m)?;
    }
    let t = Instant::now();
    let f = open(path, true, create, false)?;
    let mut w = BufWriter::with_capacity(64 << 10, f);
    for _ in 0..n {
        super::check_stop()?;
        w.write_all(&buf.as_slice()[..rec as usize])?;
    }
    w.flush()?;
    if o.method.fsync {
        w.get_ref().sync_all()?;
    }
    Ok(kbs(n * rec, t.elapsed()))
}

/// fread (test 7): `n` records of `rec` bytes through a 64 KiB buffer; kB/s.
fn fread(
    o: &Opts,
    path: &Path,
    (n, rec): (u64, u64),
    buf: &mut fathom::engine::AlignedBuf,
) -> Result<u64> {
    if let Some(m) = &o.remount {
        remount(m)?;
    }
    let t = Instant::now();
    let mut rd = BufReader::with_capacity(64 << 10, open(path, false, false, false)?);
    for _ in 0..n {
        super::check_stop()?;
        rd.read_exact(&mut buf.as_mut_slice()[..rec as usize])?;
    }
    Ok(kbs(n * rec, t.elapsed()))
}

/// Every (file size, record size, results) of the matrix.
pub type Matrix = Vec<(u64, u64, [Option<u64>; 13])>;

/// Run the matrix (with iozone's crossover, files above 16 MiB skip the records below
/// 64 KiB; each skipped cell is kept as a placeholder, all None, which the `-R` report and
/// the spreadsheet show as 0s, as iozone's dummy entries).
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
                if rec > size {
                    continue;
                }
                if o.cross_over && size > 16 << 20 && rec < 64 << 10 {
                    out.push((size, rec, [None; 13]));
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

/// iozone's usage, as far as fathom takes it.
pub const USAGE: &str = "usage: fathom suite iozone [-a|-A] [-s size] [-r record] [-n min] [-g max]
      [-y minrec] [-q maxrec] [-i test ...] [-f file] [-I] [-e] [-k depth] [-j stride]
      [-t threads | -l min -u max] [-F file ...] [-T] [-x] [-O] [-R] [-b file.xlsx] [-+n]
      [-+u] [-Q]
      [-p] [-U mountpoint] [-w] [-z] [-c] [-M] [-+m clientfile [-+h name] [-+i port]]
      [--csv] [--svg=DIR]
  -i: 0 write/rewrite, 1 read/reread, 2 random read/write, 3 backward read,
      4 record rewrite, 5 stride read, 6 fwrite/frewrite, 7 fread/freread; in
      throughput mode also 8 mixed workload, 9 pwrite, 10 pread
  -+p N the mixed workload's readers: the first N% of the children (else every other);
      -+B the mixed workload in order (else at random offsets)
  -A auto mode with small records of large files, write and read tests only (-az -i0 -i1)
  -k N POSIX async I/O with N in flight; -j N stride read every N-th record (17)
  -t N throughput test with N threads (-F FILE... each child's file, after -t); -l/-u
  one test per count from min to max; -x no
  stonewalling; -+u CPU utilization; -T threads (always threads in fathom)
  -Q offset/latency files (wol.dat rwol.dat rol.dat rrol.dat) in the current directory
  -p touch a cache-sized buffer before each record, a cache line at a time (-S KB the
  cache size, 1024; -L BYTES the line, 32); -U unmount and mount DIR before each
  test (its /etc/fstab entry)
  -O operations per second instead of kB/s; -R Excel-style report; -b FILE the report
  as a spreadsheet (written as .xlsx whatever the name); -+n no re-tests
  -+m FILE cluster mode: with -t N, one child on each of the first N clients of FILE
      (lines 'host workdir path_to_iozone [file]', # comments), started as iozone does
      over $RSH (rsh when unset; RSH=ssh), the path being fathom linked as iozone;
      -+h NAME the master's name as the clients reach it, -+i PORT its port (20000)
  e.g. fathom suite iozone -Rb report.xlsx -O -i 0 -i 1 -i 2 -e -+n -r 4k -s 64m";

/// iozone's one-letter options that take a value, and its flags (getopt's clusters:
/// `-Rab FILE` is `-R -a -b FILE`, `-s16g` is `-s 16g`, `-+n` stays one flag).
const WITH_VALUE: &str = "bfgnqrstyijkluUSL";
const ALONE: &str = "aAROIewczMhTQxp";

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

/// iozone's limit on throughput streams.
const MAX_STREAMS: u64 = 256;

/// The flags `parse` knows (for "did you mean").
const FLAGS: &[&str] = &[
    "-a", "-n", "-g", "-y", "-q", "-s", "-r", "-i", "-A", "-I", "-e", "-k", "-j", "-t", "-l", "-u",
    "-T", "-x", "-+u", "-Q", "-p", "-S", "-L", "-U", "-+m", "-+h", "-+i", "-+s", "-+p", "-+B",
    "-F", "--dir", "-f", "-O", "-+n", "-R", "-b", "-w", "-z", "-M", "-c", "-h", "--help", "--csv",
    "--svg",
];

/// Parse iozone-style options.
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts::defaults();
    let mut m = MatrixFlags::default();
    let args = crate::getopt_clusters(args, WITH_VALUE, ALONE);
    let mut opts = super::Opts::new(&args);
    let mut f_given = false;
    while let Some((k, a, inline)) = opts.next_opt() {
        let mut val = || opts.value(k, inline.clone());
        // iozone's line about this option, if it prints one.
        let line = |o: &mut Opts, text: String| o.splash.push(format!("\t{text}\n"));
        match k {
            "-a" => {
                m.auto = true;
                line(&mut o, "Auto Mode".into());
            }
            "-n" => {
                m.nmin = size(&val()?)?;
                line(
                    &mut o,
                    format!("Using minimum file size of {} kilobytes.", m.nmin / 1024),
                );
            }
            "-g" => {
                m.gmax = size(&val()?)?;
                line(
                    &mut o,
                    format!("Using maximum file size of {} kilobytes.", m.gmax / 1024),
                );
            }
            "-y" => {
                m.ymin = size(&val()?)?;
                m.yq = true;
                line(
                    &mut o,
                    format!("Using Minimum Record Size {} kB", m.ymin / 1024),
                );
            }
            "-q" => {
                m.qmax = size(&val()?)?;
                m.yq = true;
                line(
                    &mut o,
                    format!("Using Maximum Record Size {} kB", m.qmax / 1024),
                );
            }
            "-s" => {
                let v = size(&val()?)?;
                m.s_one = Some(v);
                line(&mut o, format!("File size set to {} kB", v / 1024));
            }
            "-r" => {
                let v = size(&val()?)?;
                m.r_one = Some(v);
                line(&mut o, format!("Record Size {} kB", v / 1024));
            }
            "-i" => {
                let v: i64 = val()?
                    .trim()
                    .parse()
                    .map_err(|_| anyhow!("-i: a test number 0-10"))?;
                // As iozone's Linux build (tests 0 to 10): a negative number is 0; 11
                // names no test there and runs nothing; 12 and up run test 0, with
                // iozone's line saying so.
                let t = v.clamp(0, 12) as u32;
                if t == 12 {
                    line(&mut o, "Selected test not available on the version.".into());
                }
                o.groups.push(if t == 12 { 0 } else { t });
            }
            "-A" => {
                // iozone's "auto mode 2": -az with the write and read tests only.
                m.auto = true;
                o.small_records = true;
                m.auto_tests = true;
                line(
                    &mut o,
                    "Auto Mode 2. This option is obsolete. Use -az -i0 -i1 ".into(),
                );
            }
            "-I" => {
                o.method.direct = true;
                line(&mut o, "O_DIRECT feature enabled".into());
            }
            "-e" => {
                o.method.fsync = true;
                line(&mut o, "Include fsync in write timing".into());
            }
            "-k" => {
                o.method.aio_depth = count(&val()?, "-k", 1 << 16)? as usize;
                if o.method.aio_depth == 0 {
                    bail!("-k: give the number of asynchronous I/Os in flight (at least 1)");
                }
                let d = o.method.aio_depth;
                line(&mut o, format!("POSIX Async I/O (no bcopy). Depth {d} "));
            }
            "-j" => o.stride = count(&val()?, "-j", u32::MAX as u64)?,
            "-t" => m.t_one = Some(count(&val()?, "-t", MAX_STREAMS)? as u32),
            "-l" => m.l_min = Some(count(&val()?, "-l", MAX_STREAMS)?.max(1) as u32),
            "-u" => m.u_max = Some(count(&val()?, "-u", MAX_STREAMS)?.max(1) as u32),
            "-T" => o.pthreads = true,
            "-x" => {
                o.no_stonewall = true;
                line(&mut o, "Stonewall disabled".into());
            }
            "-+u" => {
                o.cpu_util = true;
                // fathom's CPU times are the kernel's per-thread clock (nanoseconds).
                line(&mut o, "CPU utilization Resolution = 0.000 seconds.".into());
                line(&mut o, "CPU utilization Excel chart enabled".into());
            }
            "-Q" => {
                o.latency_files = true;
                line(&mut o, "Offset/latency files enabled.".into());
            }
            // iozone's purge reads min(record, cache size) a cache line at a time (the
            // sizes are set once every flag is read: -S and -L may come after -p).
            "-p" => {
                o.method.purge = 1;
                line(&mut o, "Purge Mode On".into());
            }
            // -S/-L: iozone's processor cache and cache line sizes (kB, bytes; 0 keeps
            // its defaults), printed before the results and used by -p.
            "-S" => {
                // (At most 1 GiB: -p holds a buffer of this size.)
                let kb = count(&val()?, "-S", 1 << 20)?;
                o.cache_size = if kb == 0 { 1 << 20 } else { kb * 1024 };
            }
            "-L" => {
                let b = count(&val()?, "-L", 1 << 20)?;
                o.cache_line = if b == 0 { 32 } else { b };
            }
            "-U" => o.remount = Some(val()?.into()),
            "-+m" => {
                o.cluster.clients = Some(val()?.into());
                line(&mut o, "Network distribution mode enabled.".into());
            }
            "-+h" => {
                let h = val()?;
                line(&mut o, format!("Hostname = {h}"));
                o.cluster.master_host = Some(h);
            }
            "-+i" => {
                let v = val()?;
                o.cluster.port = Some(
                    v.parse()
                        .map_err(|_| anyhow!("-+i: '{v}' is not a port number"))?,
                );
            }
            // Clients run silent: fathom's clients print nothing anyway.
            "-+s" => {}
            "-+p" => {
                // As iozone: 1 to 100.
                let p = count(&val()?, "-+p", u32::MAX as u64)?.clamp(1, 100) as u32;
                o.mix_read_pct = Some(p);
                line(&mut o, format!("Percent read in mix test is {p}"));
            }
            "-F" => {
                // As iozone: after -t (or -l/-u), one name per child of the largest count.
                let Some(n) = m.u_max.or(m.t_one).or(m.l_min) else {
                    bail!(
                        "-F: give -t N (or -l/-u) before -F, as iozone: -F names each child's file"
                    );
                };
                if f_given {
                    bail!("-f and -F cannot be used together (iozone: mutually exclusive)");
                }
                for _ in 0..n {
                    let f = val().map_err(|_| {
                        anyhow!("-F: not enough file names for {n} children (one each)")
                    })?;
                    o.child_files.push(f.into());
                }
            }
            "-+B" => {
                o.seq_mix = true;
                line(&mut o, ">>> Sequential Mixed workload. <<<".into());
            }
            "--dir" => o.dir = val()?.into(),
            "-f" => {
                if !o.child_files.is_empty() {
                    bail!("-f and -F cannot be used together (iozone: mutually exclusive)");
                }
                f_given = true;
                // iozone: the temporary file; an existing directory keeps the older
                // meaning (the file goes in it).
                let (dir, file) = super::file_arg(val()?.into());
                o.dir = dir;
                if file.is_some() {
                    o.file = file;
                }
            }
            "-O" => {
                o.ops = true;
                line(
                    &mut o,
                    "OPS Mode. Output is in operations per second.".into(),
                );
            }
            "-+n" => {
                o.no_retests = true;
                line(&mut o, "No retest option selected".into());
            }
            "-R" => {
                o.report = true;
                line(&mut o, "Excel chart generation enabled".into());
            }
            "-b" => o.book = Some(val()?.into()),
            "-w" => {
                o.keep = true;
                line(&mut o, "Setting no_unlink".into());
            }
            // Accepted: -z (auto mode also tests small records of large files: fathom's
            // matrix skips them as iozone does without -z; with -z they run), -M (the
            // machine's uname, printed first), -c (close inside the timing: every
            // fathom pass opens and closes its file inside the timing already).
            "-z" => {
                o.small_records = true;
                line(&mut o, "Cross over of record size disabled.".into());
            }
            "-c" => line(&mut o, "Include close in write timing".into()),
            "-M" => {
                let uname = std::process::Command::new("uname").arg("-a").output();
                match uname {
                    Ok(u) if u.status.success() => o.splash.push(format!(
                        "\n\tMachine = {}\n",
                        String::from_utf8_lossy(&u.stdout).trim_end()
                    )),
                    _ => o
                        .splash
                        .push("\n\tError using popen() on uname\n\t-M option suppressed.\n".into()),
                }
            }
            "-h" | "--help" => bail!("{USAGE}"),
            "--csv" => o.csv = true,
            "--svg" => o.svg = Some(val()?.into()),
            _ => bail!(
                "unknown option '{a}'{}\n{USAGE}",
                crate::did_you_mean(a, FLAGS)
            ),
        }
    }
    m.apply(&mut o)?;
    if o.method.purge > 0 {
        o.method.purge = o.cache_size as usize;
    }
    o.method.purge_line = o.cache_line as usize;
    Ok(o)
}

/// A count option's value, at most `max`.
fn count(v: &str, flag: &str, max: u64) -> Result<u64> {
    let n: u64 = v
        .trim()
        .parse()
        .map_err(|_| anyhow!("{flag}: '{v}' is not a whole number"))?;
    if n > max {
        bail!("{flag}: {n} is more than {max}");
    }
    Ok(n)
}

/// What the matrix and throughput flags said (-a/-A, -n -g -y -q, -s -r, -t -l -u),
/// turned into the sizes, records and thread counts once every flag is read.
struct MatrixFlags {
    auto: bool,
    auto_tests: bool,
    nmin: u64,
    gmax: u64,
    ymin: u64,
    qmax: u64,
    s_one: Option<u64>,
    r_one: Option<u64>,
    /// -y or -q given (iozone's crossover then stays off).
    yq: bool,
    t_one: Option<u32>,
    l_min: Option<u32>,
    u_max: Option<u32>,
}

impl Default for MatrixFlags {
    fn default() -> Self {
        MatrixFlags {
            auto: false,
            auto_tests: false,
            nmin: 64 << 10,
            gmax: 512 << 20,
            ymin: 4 << 10,
            qmax: 16 << 20,
            s_one: None,
            r_one: None,
            yq: false,
            t_one: None,
            l_min: None,
            u_max: None,
        }
    }
}

impl MatrixFlags {
    fn apply(self, o: &mut Opts) -> Result<()> {
        let m = self;
        if m.auto_tests && o.groups.is_empty() {
            o.groups = vec![0, 1];
        }
        // Throughput mode: -t N, or one test per count from -l to -u (either alone: that one).
        (o.threads, o.max_threads) = match (m.t_one, m.l_min, m.u_max) {
            (Some(t), None, None) => (t, t),
            (_, Some(l), Some(u)) => (l, u.max(l)),
            (_, Some(l), None) => (l, l),
            (_, None, Some(u)) => (1, u),
            (None, None, None) => (0, 0),
        };
        if o.cluster.clients.is_some() && o.threads == 0 {
            bail!(
                "-+m runs iozone's throughput tests on the clients: give -t N (the number of \
                 clients to use) or -l/-u"
            );
        }
        if o.threads > 0 && (o.csv || o.svg.is_some()) {
            bail!(
                "--csv and --svg are fathom's views of the -a/-s matrix; throughput mode (-t, -l, \
                 -u) prints iozone's lines (and -R/-b its report)"
            );
        }
        if o.threads > 0 && o.remount.is_some() {
            bail!("-U (remount between tests) cannot be combined with throughput tests (-t, -l, -u), as in iozone");
        }
        if o.groups.contains(&11) {
            eprintln!(
                "fathom: note: -i 11 (pwritev) is not in iozone's Linux build, which runs \
                 nothing for it; nor does fathom"
            );
        }
        if o.threads == 0 && o.groups.iter().any(|&g| (8..=10).contains(&g)) {
            // As iozone: the matrix has no column for them.
            eprintln!(
                "fathom: note: -i 8, 9 and 10 (mixed workload, pwrite, pread) run in \
                 throughput mode (-t); the matrix has no column for them, as in iozone"
            );
        }
        if m.nmin == 0 || m.ymin == 0 {
            bail!("-n and -y: the smallest file and record sizes must be at least 1 kB");
        }
        o.sizes = match (m.auto, m.s_one) {
            (_, Some(s)) => vec![s],
            (true, None) => doubling(m.nmin, m.gmax),
            // Throughput mode without -s: iozone's 512 kB files.
            (false, None) if o.threads > 0 => vec![512 << 10],
            (false, None) => bail!("give -a (the automatic matrix) or -s SIZE [-r RECORD]"),
        };
        // As iozone: the record sizes from -y to -q in auto mode, else -r or 4 kB.
        o.records = match m.r_one {
            Some(r) => vec![r],
            None if m.auto => doubling(m.ymin, m.qmax),
            None => vec![4 << 10],
        };
        // iozone's crossover: in auto mode with none of -r -s -y -q, files above 16 MiB
        // skip the records below 64 kB (-z keeps them).
        o.cross_over =
            m.auto && m.r_one.is_none() && m.s_one.is_none() && !m.yq && !o.small_records;
        if o.method.direct && o.records.iter().any(|r| r % 512 != 0) {
            bail!("-I (direct) needs record sizes in multiples of 512 bytes");
        }
        Ok(())
    }
}

impl Opts {
    /// `-i 11` (pwritev) and nothing else: iozone's Linux build has no such test and
    /// runs nothing.
    pub(crate) fn nothing_to_run(&self) -> bool {
        !self.groups.is_empty() && self.groups.iter().all(|&g| g == 11)
    }

    /// iozone's defaults.
    fn defaults() -> Opts {
        Opts {
            dir: ".".into(),
            sizes: Vec::new(),
            records: Vec::new(),
            groups: Vec::new(),
            method: Method::default(),
            threads: 0,
            max_threads: 0,
            pthreads: false,
            no_stonewall: false,
            cpu_util: false,
            stride: 17,
            cache_size: 1 << 20,
            cache_line: 32,
            latency_files: false,
            remount: None,
            csv: false,
            svg: None,
            file: None,
            ops: false,
            no_retests: false,
            report: false,
            book: None,
            keep: false,
            small_records: false,
            cross_over: false,
            cluster: cluster::ClusterFlags::default(),
            splash: Vec::new(),
            mix_read_pct: None,
            seq_mix: false,
            child_files: Vec::new(),
        }
    }
}

/// What iozone prints before its results: fathom's line in place of iozone's banner,
/// the start, iozone's line for each option given (in their order), the command line,
/// the unit and the stride.
fn preamble(o: &Opts) -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let cmd: Vec<String> = std::env::args().collect();
    let mut s = format!(
        "\tfathom {} (iozone method)\n\n\tRun began: {}\n\n",
        fathom::VERSION,
        fathom_report::units::ctime(ms)
    );
    for l in &o.splash {
        s.push_str(l);
    }
    s.push_str(&format!("\tCommand line used: {}\n", cmd.join(" ")));
    if !o.ops {
        s.push_str("\tOutput is in kBytes/sec\n");
    }
    s.push_str(&format!(
        "\tTime Resolution = {:.6} seconds.\n\
         \tProcessor cache size set to {} kBytes.\n\
         \tProcessor cache line size set to {} bytes.\n\
         \tFile stride size set to {} * record size.\n",
        time_resolution(),
        o.cache_size / 1024,
        o.cache_line,
        o.stride
    ));
    s
}

/// The finest step of the clock fathom times with, as iozone measures its own (the
/// smallest change seen between two reads), at least the microsecond its line can show.
fn time_resolution() -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..1000 {
        let t0 = std::time::Instant::now();
        let mut t1 = std::time::Instant::now();
        while t1 == t0 {
            t1 = std::time::Instant::now();
        }
        best = best.min((t1 - t0).as_secs_f64());
    }
    best.max(1e-6)
}

/// Run `fathom suite iozone`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok((0, Vec::new()));
    }
    if cluster::is_client(args) {
        cluster::client(args)?;
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    if o.threads > 0 {
        print!("{}", preamble(&o));
        print!("{}", throughput(&o, args)?);
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
        print!("{}{}\niozone test complete.\n", preamble(&o), table(&m));
    }
    if o.report {
        // iozone's record sizes of the run: every one of the matrix's list.
        print!("{}", report(&m, &o.records));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(a: &[&str]) -> Opts {
        parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn tests_past_10_as_iozone_3_471_s_linux_build() {
        // 11 (pwritev) names no test there: nothing runs for it.
        let o = opts(&["-i", "11", "-s", "64k"]);
        assert!(o.nothing_to_run());
        assert!(!opts(&["-i", "11", "-i", "0", "-s", "64k"]).nothing_to_run());
        // 12 and up (and below 0): test 0, with iozone's line for the former.
        let o = opts(&["-i", "12", "-s", "64k"]);
        assert_eq!(o.groups, [0]);
        assert!(o.splash[0].contains("Selected test not available on the version."));
        assert_eq!(opts(&["-i", "-3", "-s", "64k"]).groups, [0]);
        assert!(parse(&["-i".to_string(), "x".to_string()]).is_err());
    }

    #[test]
    fn record_sizes_and_the_crossover_as_iozone_3_471() {
        // -s without -a: one record size, 4 kB, whatever -y/-q say.
        assert_eq!(opts(&["-s", "256k"]).records, [4 << 10]);
        assert_eq!(
            opts(&["-s", "256k", "-y", "64k", "-q", "128k"]).records,
            [4 << 10]
        );
        // -a: -y to -q; the crossover only with none of -r -s -y -q, and not with -z/-A.
        let a = opts(&["-a", "-n", "16m", "-g", "32m"]);
        assert!(a.cross_over);
        assert_eq!(a.records.len(), 13);
        assert!(!opts(&["-a", "-n", "16m", "-g", "32m", "-y", "8k"]).cross_over);
        assert!(!opts(&["-az", "-n", "16m", "-g", "32m"]).cross_over);
        assert!(!opts(&["-A"]).cross_over);
        assert!(!opts(&["-a", "-s", "32m"]).cross_over);
        // The options' lines, in their order.
        assert_eq!(
            opts(&["-e", "-s", "1m", "-I", "-r", "64k"]).splash,
            [
                "\tInclude fsync in write timing\n",
                "\tFile size set to 1024 kB\n",
                "\tO_DIRECT feature enabled\n",
                "\tRecord Size 64 kB\n"
            ]
        );
    }

    #[test]
    fn cache_sizes_are_iozones_and_feed_the_purge() {
        // Defaults: 1024 kB, 32-byte lines, printed before the results as iozone does.
        let d = opts(&["-s", "64k"]);
        let p = preamble(&d);
        assert!(
            p.contains("\tProcessor cache size set to 1024 kBytes.\n"),
            "{p}"
        );
        assert!(
            p.contains("\tProcessor cache line size set to 32 bytes.\n"),
            "{p}"
        );
        let res = p
            .find("\tTime Resolution = 0.0000")
            .expect("time resolution line");
        assert!(res < p.find("\tProcessor cache size").unwrap());
        assert!(
            p.ends_with("\tFile stride size set to 17 * record size.\n"),
            "{p}"
        );
        assert_eq!(d.method.purge, 0);
        // -p touches the -S cache a -L line at a time, whichever comes first; 0 keeps
        // iozone's default.
        let o = opts(&["-p", "-S", "2048", "-L", "64", "-s", "64k"]);
        assert_eq!((o.method.purge, o.method.purge_line), (2 << 20, 64));
        assert!(preamble(&o)
            .contains("set to 2048 kBytes.\n\tProcessor cache line size set to 64 bytes."));
        let o = opts(&["-S0", "-L", "0", "-p", "-s", "64k"]);
        assert_eq!((o.method.purge, o.method.purge_line), (1 << 20, 32));
        assert!(parse(&["-S", "x", "-s", "64k"].map(String::from)).is_err());
    }
}
