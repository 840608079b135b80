//! `fathom suite bonnie`: bonnie++ 2.00's twelve tests, run by fathom, printed as
//! bonnie's text table and (with `--output-format=csv`) its 1.98 CSV line, which the
//! bonnie++ package's `bon_csv2txt` and `bon_csv2html` render.
//!
//! I/O tests on one file of `--size`: per-character write (one byte per call through a
//! user-space buffer, like stdio's putc), block write, rewrite (read a chunk, change it,
//! write it back), per-character read, block read, and random seeks (`--seekers` threads,
//! 8000 seeks each: read a chunk at a random chunk offset, and one in ten written back).
//! File tests on `--files` × 1024 empty files: create, stat and delete in name order, then
//! in random order. A test that took less than 0.5 s is shown as `+++++`, as bonnie does:
//! too fast to mean anything. Latency is the slowest single operation of each test.

use anyhow::{anyhow, bail, Context, Result};
use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Below this, a result is `+++++` (too fast to measure).
const MIN_TIME: Duration = Duration::from_millis(500);

/// Options (bonnie++'s, long form).
#[derive(Debug, Clone)]
pub struct Opts {
    /// `-d`: directory.
    pub dir: PathBuf,
    /// `-s`: file size in bytes.
    pub size: u64,
    /// `-r`: RAM in bytes (the file must be at least twice as large).
    pub ram: u64,
    /// `-n`: number of files in units of 1024 (0 skips the file tests).
    pub files: u32,
    /// `-m`: machine name.
    pub machine: String,
    /// `-b`: fsync after every write.
    pub fsync: bool,
    /// `-D`: O_DIRECT for the block tests.
    pub direct: bool,
    /// Chunk size.
    pub chunk: usize,
    /// Seeker threads.
    pub seekers: u32,
    /// Seeks per seeker.
    pub seeks: u32,
    /// Output: normal (table) or csv.
    pub csv: bool,
    /// Random seed.
    pub seed: u64,
    /// Bytes of the per-character tests: 3 MiB, as bonnie++ 2.00a writes and reads one
    /// byte at a time (seen with strace); `-f` alone (fast mode) skips them (None), and
    /// `-f SIZE`, as bonnie++'s manual describes, sizes them.
    pub char_size: Option<u64>,
    /// `-n num:max:min`: file sizes for the file tests (max 0: empty files).
    pub file_max: u64,
    /// Smallest file of the file tests.
    pub file_min: u64,
    /// `-n ...:dirs`: the files are spread over this many directories (0: one).
    pub file_dirs: u32,
    /// `-q`: quiet: the CSV on stdout, the table and progress on stderr.
    pub quiet: bool,
    /// `-x N`: N runs, each a CSV line after one header line (no table).
    pub runs: u32,
    /// `-u USER[:GROUP]` / `-g GROUP`: run as this user and group.
    pub user: Option<String>,
    /// `-g`.
    pub group: Option<String>,
}

/// One measured test: rate per second, CPU %, slowest operation, elapsed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measure {
    /// KiB/s for I/O tests, operations/s for seeks and file tests.
    pub rate: f64,
    /// CPU use over the test, %.
    pub cpu: f64,
    /// Slowest single operation.
    pub latency: Duration,
    /// Whole test time.
    pub elapsed: Duration,
}

fn cpu_now() -> Duration {
    use nix::sys::resource::{getrusage, UsageWho};
    let Ok(u) = getrusage(UsageWho::RUSAGE_SELF) else {
        return Duration::ZERO;
    };
    let tv =
        |t: nix::sys::time::TimeVal| Duration::new(t.tv_sec() as u64, t.tv_usec() as u32 * 1000);
    tv(u.user_time()) + tv(u.system_time())
}

/// Times a test: `f` returns (units done, slowest operation).
fn measure(f: impl FnOnce() -> Result<(f64, Duration)>) -> Result<Measure> {
    let (c0, t0) = (cpu_now(), Instant::now());
    let (units, latency) = f()?;
    let elapsed = t0.elapsed();
    let cpu = (cpu_now() - c0).as_secs_f64() / elapsed.as_secs_f64().max(1e-9) * 100.0;
    Ok(Measure {
        rate: units / elapsed.as_secs_f64().max(1e-9),
        cpu,
        latency,
        elapsed,
    })
}

/// A test cut short by SIGINT/SIGTERM counts as not run (its cells stay empty).
fn unless_stopped(r: Result<Measure>) -> Result<Option<Measure>> {
    match r {
        Ok(m) if !super::stopped() => Ok(Some(m)),
        Ok(_) => Ok(None),
        Err(_) if super::stopped() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Run a test unless a signal stopped the suite (then: not run).
macro_rules! test_or_skip {
    ($e:expr) => {
        if crate::stopped() {
            None
        } else {
            unless_stopped($e)?
        }
    };
}

// After the macro its tests use.
mod io;
use io::io_tests;

/// Inside a test's loop: end it when a signal stopped the suite.
fn check_stop() -> Result<()> {
    if super::stopped() {
        bail!("stopped by a signal");
    }
    Ok(())
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn open(path: &Path, write: bool, create: bool, direct: bool) -> Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(write).create(create).truncate(create);
    if direct {
        o.custom_flags(libc::O_DIRECT);
    }
    o.open(path)
        .with_context(|| format!("opening {}", path.display()))
}

fn aligned(len: usize) -> fathom::engine::AlignedBuf {
    fathom::engine::AlignedBuf::new(len, 4096)
}

/// The twelve results in bonnie's order.
pub struct Results {
    /// putc, block write, rewrite, getc, block read, seeks.
    pub io: [Option<Measure>; 6],
    /// seq create, seq stat, seq delete, random create, random stat, random delete.
    pub files: [Option<Measure>; 6],
}

/// bonnie-style names: sequential ones start with the number, random ones with letters.
fn names(n: usize, sequential: bool, rng: &mut Rng) -> Vec<String> {
    const AL: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    (0..n)
        .map(|i| {
            let tail: String = (0..(rng.next() % 12) as usize)
                .map(|_| AL[(rng.next() % AL.len() as u64) as usize] as char)
                .collect();
            if sequential {
                format!("{i:07}{tail}")
            } else {
                format!("{tail}{i:07}")
            }
        })
        .collect()
}

fn file_tests(o: &Opts) -> Result<[Option<Measure>; 6]> {
    let n = o.files as usize * 1024;
    let dir = o.dir.join(format!("Bonnie.{}", std::process::id()));
    std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut rng = Rng(o.seed | 1);
    let mut out = [None; 6];
    // -n ...:dirs: the files go round the directories 00000, 00001, ...
    let subdirs: Vec<PathBuf> = (0..o.file_dirs.max(1))
        .map(|i| {
            if o.file_dirs > 0 {
                dir.join(format!("{i:05}"))
            } else {
                dir.clone()
            }
        })
        .collect();
    let result = (|| -> Result<()> {
        for d in subdirs.iter().filter(|d| **d != dir) {
            std::fs::create_dir(d)?;
        }
        // -n num:max:min: files of a random size in [min, max] get data written when
        // made and read back in the stat test.
        let data = vec![b'x'; o.file_max as usize];
        let mut buf = vec![0u8; o.file_max.max(1) as usize];
        for (k, sequential) in [(0usize, true), (3, false)] {
            let names = names(n, sequential, &mut rng);
            let mut list: Vec<PathBuf> = names
                .iter()
                .enumerate()
                .map(|(i, nm)| subdirs[i % subdirs.len()].join(nm))
                .collect();
            if !sequential {
                // Random order: shuffle.
                for i in (1..list.len()).rev() {
                    let j = (rng.next() % (i as u64 + 1)) as usize;
                    list.swap(i, j);
                }
            }
            let what = if sequential { "sequential" } else { "random" };
            eprint!("Create files in {what} order...");
            let sizes: Vec<usize> = (0..list.len())
                .map(|_| {
                    if o.file_max == 0 {
                        0
                    } else {
                        (o.file_min + rng.next() % (o.file_max - o.file_min + 1)) as usize
                    }
                })
                .collect();
            out[k] = test_or_skip!(measure(|| create_files(&list, &sizes, &data)));
            eprintln!("done.");
            eprint!("Stat files in {what} order...");
            let order = if sequential { None } else { Some(&list[..]) };
            out[k + 1] = test_or_skip!(measure(|| stat_files(o, order, &subdirs, &mut buf)));
            eprintln!("done.");
            eprint!("Delete files in {what} order...");
            out[k + 2] = test_or_skip!(measure(|| delete_files(&list)));
            eprintln!("done.");
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result.map(|()| out)
}

/// Do `op` to each item, timing each: the items done and the slowest (a signal stops the
/// test between two).
fn time_each<T>(
    items: impl Iterator<Item = T>,
    mut op: impl FnMut(T) -> Result<()>,
) -> Result<(f64, Duration)> {
    let (mut n, mut worst) = (0u64, Duration::ZERO);
    for item in items {
        check_stop()?;
        let t = Instant::now();
        op(item)?;
        worst = worst.max(t.elapsed());
        n += 1;
    }
    Ok((n as f64, worst))
}

/// Create each file, with `sizes` bytes of data; the files made and the slowest.
fn create_files(list: &[PathBuf], sizes: &[usize], data: &[u8]) -> Result<(f64, Duration)> {
    time_each(list.iter().zip(sizes), |(p, &len)| {
        let mut f = File::create(p)?;
        if len > 0 {
            std::io::Write::write_all(&mut f, &data[..len])?;
        }
        Ok(())
    })
}

/// Stat each file (and read its data back when files have data), in `order`, or, for
/// the sequential test, in the order the directories list them (bonnie's readdir pass).
fn stat_files(
    o: &Opts,
    order: Option<&[PathBuf]>,
    subdirs: &[PathBuf],
    buf: &mut [u8],
) -> Result<(f64, Duration)> {
    let listed;
    let order = match order {
        Some(v) => v,
        None => {
            let mut v = Vec::new();
            for d in subdirs {
                for e in std::fs::read_dir(d)? {
                    let e = e?;
                    if e.file_type()?.is_file() {
                        v.push(e.path());
                    }
                }
            }
            listed = v;
            &listed[..]
        }
    };
    time_each(order.iter(), |p| {
        let md = std::fs::metadata(p)?;
        if o.file_max > 0 && md.len() > 0 {
            let mut f = File::open(p)?;
            std::io::Read::read_exact(&mut f, &mut buf[..md.len() as usize])?;
        }
        Ok(())
    })
}

/// Delete each file; the files deleted and the slowest.
fn delete_files(list: &[PathBuf]) -> Result<(f64, Duration)> {
    time_each(list.iter(), |p| Ok(std::fs::remove_file(p)?))
}

/// Run every test.
pub fn run_tests(o: &Opts) -> Result<Results> {
    std::fs::create_dir_all(&o.dir)?;
    let io = if o.size > 0 {
        let path = o.dir.join(format!("Bonnie.{}.data", std::process::id()));
        let r = io_tests(o, &path);
        let _ = std::fs::remove_file(&path);
        r?
    } else {
        [None; 6]
    };
    let files = if o.files > 0 {
        file_tests(o)?
    } else {
        [None; 6]
    };
    Ok(Results { io, files })
}

/// The header line bonnie++ prints before its CSV lines with -x.
const CSV_HEADER: &str = "format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size,putc,putc_cpu,put_block,put_block_cpu,rewrite,rewrite_cpu,getc,getc_cpu,get_block,get_block_cpu,seeks,seeks_cpu,num_files,max_size,min_size,num_dirs,file_chunk_size,seq_create,seq_create_cpu,seq_stat,seq_stat_cpu,seq_del,seq_del_cpu,ran_create,ran_create_cpu,ran_stat,ran_stat_cpu,ran_del,ran_del_cpu,putc_latency,put_block_latency,rewrite_latency,getc_latency,get_block_latency,seeks_latency,seq_create_latency,seq_stat_latency,seq_del_latency,ran_create_latency,ran_stat_latency,ran_del_latency";

/// bonnie++'s -u and -g: run as that user and group (by name or number), as bonnie++
/// does (it refuses to run as root without -u; fathom runs as whoever starts it).
fn switch_user(o: &Opts) -> Result<()> {
    if o.user.is_none() && o.group.is_none() {
        return Ok(());
    }
    use nix::unistd::{getgid, getuid, setgid, setuid, Gid, Group, Uid, User};
    let lookup_user = |u: &str| -> Result<(u32, u32)> {
        if let Ok(n) = u.parse::<u32>() {
            return Ok((n, getgid().as_raw()));
        }
        match User::from_name(u) {
            Ok(Some(pw)) => Ok((pw.uid.as_raw(), pw.gid.as_raw())),
            Ok(None) => bail!("-u {u}: no such user"),
            Err(e) => bail!("-u {u}: {e}"),
        }
    };
    let lookup_group = |g: &str| -> Result<u32> {
        if let Ok(n) = g.parse::<u32>() {
            return Ok(n);
        }
        match Group::from_name(g) {
            Ok(Some(gr)) => Ok(gr.gid.as_raw()),
            Ok(None) => bail!("-g {g}: no such group"),
            Err(e) => bail!("-g {g}: {e}"),
        }
    };
    let (uid, mut gid) = match &o.user {
        Some(u) => lookup_user(u)?,
        None => (getuid().as_raw(), getgid().as_raw()),
    };
    if let Some(g) = &o.group {
        gid = lookup_group(g)?;
    }
    // The group first, while still allowed to change it.
    if getgid().as_raw() != gid {
        setgid(Gid::from_raw(gid)).map_err(|e| anyhow!("-g {gid}: {e}"))?;
    }
    if getuid().as_raw() != uid {
        setuid(Uid::from_raw(uid)).map_err(|e| anyhow!("-u {uid}: {e}"))?;
    }
    if !o.quiet {
        eprintln!("Using uid:{uid}, gid:{gid}.");
    }
    Ok(())
}

/// bonnie's size notation: 256M, 2G.
fn size_label(b: u64) -> String {
    if b % (1 << 30) == 0 {
        format!("{}G", b >> 30)
    } else if b % (1 << 20) == 0 {
        format!("{}M", b >> 20)
    } else {
        format!("{}K", b >> 10)
    }
}

/// Latency as bonnie++ 2.00a writes it: up to five digits of µs (10406us, 99999us), then
/// of ms (416ms), then s.
fn latency(d: Duration) -> String {
    let us = d.as_micros();
    if us < 100_000 {
        format!("{us}us")
    } else if us < 100_000_000 {
        format!("{}ms", us / 1000)
    } else {
        format!("{}s", us / 1_000_000)
    }
}

/// (value, cpu) cells of the CSV: `+++++`/`+++` when too fast, empty when not run.
fn cells(m: &Option<Measure>, one_decimal: bool) -> (String, String) {
    match m {
        None => (String::new(), String::new()),
        Some(m) if m.elapsed < MIN_TIME => ("+++++".into(), "+++".into()),
        Some(m) if one_decimal => (format!("{:.1}", m.rate), format!("{:.0}", m.cpu)),
        Some(m) => (format!("{:.0}", m.rate), format!("{:.0}", m.cpu)),
    }
}

/// The 1.98 CSV line.
pub fn csv(o: &Opts, r: &Results) -> String {
    let mut f: Vec<String> = vec![
        "1.98".into(),
        "2.00a".into(),
        o.machine.clone(),
        "1".into(),
        o.seed.to_string(),
    ];
    if o.size > 0 {
        f.extend([
            size_label(o.size),
            String::new(),
            o.chunk.to_string(),
            o.seekers.to_string(),
        ]);
    } else {
        f.extend([String::new(), String::new(), String::new(), String::new()]);
    }
    for (i, m) in r.io.iter().enumerate() {
        let (v, c) = cells(m, i == 5);
        f.push(v);
        f.push(c);
    }
    if o.files > 0 {
        let opt = |v: u64| if v > 0 { v.to_string() } else { String::new() };
        // As bonnie++ 2.00a writes them: the number of directories comes after an
        // empty field (seen with -n 1:4k:1k:3, and with a chunk size too).
        f.extend([
            o.files.to_string(),
            opt(o.file_max),
            opt(o.file_min),
            String::new(),
            opt(o.file_dirs as u64),
        ]);
    } else {
        f.extend([
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    for m in &r.files {
        let (v, c) = cells(m, false);
        f.push(v);
        f.push(c);
    }
    for m in r.io.iter().chain(&r.files) {
        f.push(m.map(|m| latency(m.latency)).unwrap_or_default());
    }
    f.join(",") + "\n"
}

/// bonnie's speed cell: KiB/s as k, m or g.
fn speed(v: &str) -> String {
    let Ok(k) = v.parse::<f64>() else {
        return v.to_string();
    };
    if k < 10000.0 {
        format!("{:>4}k", k as u64)
    } else if k / 1024.0 < 1000.0 {
        let m = k / 1024.0;
        if m < 100.0 {
            format!("{m:4.1}m")
        } else {
            format!("{:>4}m", (m + 0.5) as u64)
        }
    } else {
        format!("{:4.1}g", k / 1024.0 / 1024.0)
    }
}

/// The text table (bonnie++'s layout).
pub fn table(o: &Opts, r: &Results) -> String {
    let line = csv(o, r);
    let a: Vec<&str> = line.trim_end().split(',').collect();
    let mut s = String::new();
    let desc = |name: &str, size: &str| {
        let mut d = format!("{name}                   ");
        if size.len() < 18 {
            d.truncate(18 - size.len());
            d.push(' ');
            d.push_str(size);
            d
        } else {
            size.to_string()
        }
    };
    if o.size > 0 {
        s.push_str(&format!(
            "Version {:<12}------Sequential Output------ --Sequential Input- --Random-\n\
             \x20                   -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n\
             Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n",
            "2.00a"
        ));
        // bonnie's own table shows the size alone (bon_csv2txt adds chunk and seekers).
        let size = a[5];
        s.push_str(&format!(
            "{:>19} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3}\n",
            desc(&o.machine, size),
            speed(a[9]),
            a[10],
            speed(a[11]),
            a[12],
            speed(a[13]),
            a[14],
            speed(a[15]),
            a[16],
            speed(a[17]),
            a[18],
            a[19],
            a[20]
        ));
        s.push_str(&format!(
            "Latency           {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
            a[38], a[39], a[40], a[41], a[42], a[43]
        ));
    }
    if o.files > 0 {
        // As bonnie++ 2.00a: the version line again, the machine on the test-name line,
        // and the file count alone in the first column.
        s.push_str(&format!(
            "Version {:<12}------Sequential Create------ --------Random Create--------\n\
             {:<20}-Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n\
             \x20             files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n",
            "2.00a", o.machine
        ));
        s.push_str(&format!(
            "{:>19} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3} {:>5} {:>3}\n",
            a[21],
            a[26],
            a[27],
            a[28],
            a[29],
            a[30],
            a[31],
            a[32],
            a[33],
            a[34],
            a[35],
            a[36],
            a[37]
        ));
        s.push_str(&format!(
            "Latency           {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
            a[44], a[45], a[46], a[47], a[48], a[49]
        ));
    }
    s
}

fn mem_total() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kib| kib * 1024)
}

/// The flags `parse` knows (for "did you mean").
const FLAGS: &[&str] = &[
    "--char-size",
    "-f",
    "--dir",
    "-d",
    "--size",
    "-s",
    "--ram",
    "-r",
    "--files",
    "-n",
    "-x",
    "-q",
    "-u",
    "-g",
    "-z",
    "-Z",
    "-p",
    "-y",
    "-c",
    "--help",
    "-h",
    "--machine",
    "-m",
    "--fsync",
    "-b",
    "--direct",
    "-D",
    "--seekers",
    "--seeks",
    "--seed",
    "--output-format",
];

/// A bonnie++ size: MiB unless a unit follows.
fn mib_or_size(k: &str, v: &str) -> Result<u64> {
    if v.chars().all(|c| c.is_ascii_digit()) {
        Ok(v.parse::<u64>()? << 20)
    } else {
        fathom_job::units::parse_size(v, 1024, fathom_job::Dialect::Fio)
            .map_err(|e| anyhow!("{k}: {e}"))
    }
}

impl Opts {
    /// bonnie++'s defaults (the size follows the RAM unless -s gives it).
    fn defaults() -> Opts {
        let host = fathom::facts::host().hostname;
        Opts {
            dir: PathBuf::from("."),
            size: 0,
            ram: mem_total(),
            files: 16,
            machine: if host.is_empty() {
                "fathom".into()
            } else {
                host
            },
            fsync: false,
            direct: false,
            chunk: 8192,
            seekers: 5,
            seeks: 8000,
            csv: false,
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64 & 0x7fff_ffff),
            char_size: Some(3 << 20),
            file_max: 0,
            file_min: 0,
            file_dirs: 0,
            quiet: false,
            runs: 1,
            user: None,
            group: None,
        }
    }

    /// -s size(MiB)[:chunk-size(bytes)].
    fn size_option(&mut self, k: &str, v: String) -> Result<()> {
        let (size, chunk) = match v.split_once(':') {
            Some((s, c)) => (s.to_string(), Some(c.to_string())),
            None => (v, None),
        };
        self.size = mib_or_size(k, &size)?;
        if let Some(c) = chunk {
            self.chunk = fathom_job::units::parse_size(&c, 1024, fathom_job::Dialect::Fio)
                .map_err(|e| anyhow!("{k} chunk size: {e}"))? as usize;
            if self.chunk == 0 {
                bail!("{k}: the chunk size must be more than 0");
            }
        }
        Ok(())
    }

    /// -n number(x1024)[:max-size[:min-size[:num-dirs]]].
    fn files_option(&mut self, k: &str, v: String) -> Result<()> {
        let mut parts = v.split(':');
        self.files = parts
            .next()
            .unwrap_or("")
            .parse()
            .map_err(|_| anyhow!("{k}: a number of files (x1024), e.g. -n 16:64k:1k:8"))?;
        let mut size = |what: &str| -> Result<u64> {
            match parts.next() {
                None | Some("") => Ok(0),
                Some(x) if x.chars().all(|c| c.is_ascii_digit()) => Ok(x.parse()?),
                Some(x) => fathom_job::units::parse_size(x, 1024, fathom_job::Dialect::Fio)
                    .map_err(|e| anyhow!("{k} {what}: {e}")),
            }
        };
        self.file_max = size("max-size")?;
        self.file_min = size("min-size")?;
        self.file_dirs = size("num-directories")? as u32;
        if self.file_min > self.file_max {
            bail!(
                "{k}: min-size {} is above max-size {}",
                self.file_min,
                self.file_max
            );
        }
        Ok(())
    }

    /// The file must outgrow the page cache (twice the RAM) and hold a chunk.
    fn check(&self) -> Result<()> {
        if self.size > 0 && self.size < self.ram * 2 {
            bail!(
                "--size ({} MiB) must be at least twice the RAM ({} MiB) so the page cache cannot \
                 hold the file, as bonnie++ requires; give a smaller --ram to override",
                self.size >> 20,
                self.ram >> 20
            );
        }
        if self.size > 0 && self.size < self.chunk as u64 {
            bail!("--size must be at least one chunk ({} bytes)", self.chunk);
        }
        Ok(())
    }
}

/// Parse `fathom suite bonnie` options.
pub fn parse(args: &[String]) -> Result<Opts> {
    let mut o = Opts::defaults();
    let mut size_set = false;
    let mut opts = super::Opts::new(args);
    while let Some((k, a, inline)) = opts.next_opt() {
        let mut val = || opts.value(k, inline.clone());
        let bytes = |v: String| mib_or_size(k, &v);
        match k {
            "--char-size" | "-f" => {
                // bonnie++: `-f` alone skips the per-character tests, `-f SIZE` sizes them.
                let given = inline.is_some() || opts.next_is_value();
                o.char_size = if given {
                    Some(bytes(opts.value(k, inline.clone())?)?)
                } else {
                    None
                };
            }
            "--dir" | "-d" => o.dir = val()?.into(),
            "--size" | "-s" => {
                o.size_option(k, val()?)?;
                size_set = true;
            }
            "--ram" | "-r" => o.ram = bytes(val()?)?,
            "--files" | "-n" => o.files_option(k, val()?)?,
            "-x" => {
                o.runs = val()?
                    .parse()
                    .map_err(|_| anyhow!("-x: a number of test runs"))?;
                if o.runs == 0 {
                    bail!("-x: at least 1 run");
                }
            }
            "-q" => o.quiet = true,
            "-u" => {
                let v = val()?;
                match v.split_once(':') {
                    Some((u, g)) => {
                        o.user = Some(u.to_string()).filter(|u| !u.is_empty());
                        o.group = Some(g.to_string()).filter(|g| !g.is_empty());
                    }
                    None => o.user = Some(v),
                }
            }
            "-g" => o.group = Some(val()?),
            "-z" => {
                o.seed = val()?
                    .parse()
                    .map_err(|_| anyhow!("-z: a number (the seed)"))?
            }
            "-Z" => bail!(
                "-Z (seeds from a file of random data) is not supported: give the seed with -z"
            ),
            "-p" | "-y" | "-c" => bail!(
                "{k} (several bonnie++ processes synchronised by semaphores, or run \
                 concurrently) is not supported: run one `fathom suite bonnie` per process, \
                 each with its own -d"
            ),
            "--help" | "-h" => bail!("{}", USAGE),
            "--machine" | "-m" => o.machine = val()?,
            "--fsync" | "-b" => o.fsync = true,
            "--direct" | "-D" => o.direct = true,
            "--seekers" => {
                o.seekers = val()?.parse().map_err(|_| anyhow!("--seekers: a number"))?
            }
            "--seeks" => o.seeks = val()?.parse().map_err(|_| anyhow!("--seeks: a number"))?,
            "--seed" => o.seed = val()?.parse().map_err(|_| anyhow!("--seed: a number"))?,
            "--output-format" => match val()?.as_str() {
                "csv" => o.csv = true,
                "normal" | "text" => o.csv = false,
                f => bail!("--output-format={f}: use normal or csv"),
            },
            _ => bail!(
                "unknown option '{a}'{}\n{USAGE}",
                super::did_you_mean(a, FLAGS)
            ),
        }
    }
    if !size_set {
        o.size = (o.ram * 2).max(1 << 20);
    }
    o.check()?;
    Ok(o)
}

/// bonnie++'s usage, with fathom's long spellings.
pub const USAGE: &str = "usage: fathom suite bonnie [-d scratch-dir] [-s size(MiB)[:chunk-size(b)]]
      [-n number-to-stat(x1024)[:max-size[:min-size][:num-directories]]]
      [-m machine-name] [-r ram-size-in-MiB] [-x number-of-tests]
      [-u uid-to-use:gid-to-use] [-g gid-to-use] [-q] [-f [size]] [-b] [-D] [-z seed]
  fathom's spellings: --dir --size --ram --files --machine --fsync --direct --char-size
  --seekers --seeks --seed --output-format=normal|csv
  e.g. fathom suite bonnie -d /mnt/raid -s 16g -r 8g -n 16 -m raid10 -u root -x 3";

/// Run `fathom suite bonnie`.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok((0, Vec::new()));
    }
    let o = parse(args)?;
    switch_user(&o)?;
    if o.runs > 1 {
        // bonnie++ -x N: the CSV header, then a line per run (no table).
        println!("{CSV_HEADER}");
    }
    let mut r = run_tests(&o)?;
    for k in 1..=o.runs {
        if k > 1 {
            if super::stopped() {
                break;
            }
            r = run_tests(&o)?;
        }
        if o.runs > 1 || o.csv {
            print!("{}", csv(&o, &r));
        } else if o.quiet {
            // bonnie++ -q: the CSV line on stdout, the table on stderr.
            eprint!("{}", table(&o, &r));
            print!("{}", csv(&o, &r));
        } else {
            print!("{}", table(&o, &r));
            print!("{}", csv(&o, &r));
        }
    }
    const NAMES: [&str; 12] = [
        "per-char write KiB/s",
        "block write KiB/s",
        "rewrite KiB/s",
        "per-char read KiB/s",
        "block read KiB/s",
        "seeks/s",
        "seq create/s",
        "seq stat/s",
        "seq delete/s",
        "random create/s",
        "random stat/s",
        "random delete/s",
    ];
    let metrics =
        r.io.iter()
            .chain(&r.files)
            .zip(NAMES)
            .filter_map(|(m, n)| m.map(|m| (n.to_string(), m.rate)))
            .collect();
    Ok((0, metrics))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_latencies_read_like_bonnie() {
        assert_eq!(speed("3741"), "3741k");
        assert_eq!(speed("51200"), "50.0m");
        assert_eq!(speed("204800"), " 200m");
        assert_eq!(speed("2097152"), " 2.0g");
        assert_eq!(speed("+++++"), "+++++");
        assert_eq!(latency(Duration::from_micros(2691)), "2691us");
        // bonnie++ 2.00a: 10406us and 12197us as such, 419ms and 416ms in ms.
        assert_eq!(latency(Duration::from_micros(10406)), "10406us");
        assert_eq!(latency(Duration::from_millis(25)), "25000us");
        assert_eq!(latency(Duration::from_millis(419)), "419ms");
        assert_eq!(latency(Duration::from_secs(120)), "120s");
        assert_eq!(size_label(256 << 20), "256M");
    }

    #[test]
    fn the_size_must_be_twice_the_ram_unless_overridden() {
        let e = parse(&["--size=64".into(), "--ram=64".into()]).unwrap_err();
        assert!(e.to_string().contains("twice the RAM"), "{e}");
        let o = parse(&["--size=64".into(), "--ram=32".into()]).unwrap();
        assert_eq!(o.size, 64 << 20);
    }
}
