//! `fathom suite dd`: dd's operands and its familiar closing lines, with latency
//! percentiles added: a queue-depth-1 throughput and latency check.
//!
//! `if=/dev/zero of=FILE` writes FILE (zeroes, as dd; `if=/dev/urandom` fresh random
//! blocks) and `if=FILE of=/dev/null` reads it, each as a fathom job; anything else (a
//! copy between two files, `ibs` other than `obs`, a partial last block) runs dd's own
//! block loop (module `copy`). Operands: `bs` (default 512), `ibs`, `obs`,
//! `count`, `skip`, `seek`, `iflag`/`oflag` (`direct`, `dsync`, `sync`, `nocache`: the
//! page cache of what was moved is dropped, `fullblock`, `count_bytes`, `skip_bytes`,
//! `seek_bytes`), `conv` (`fdatasync`, `fsync`, `notrunc`: without it a regular output
//! file is truncated at the seek point, as dd does), `status` (`none`, `noxfer`,
//! `progress`). `count=0` moves nothing (with `nocache`, it drops the whole file's cache).

use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, RwKind};

mod copy;

/// Parsed dd operands.
#[derive(Debug, Default, PartialEq)]
pub struct Dd {
    input: Option<String>,
    output: Option<String>,
    /// Input block size (`ibs=`, `bs=`).
    ibs: u64,
    /// Output block size (`obs=`, `bs=`).
    obs: u64,
    count: Option<u64>,
    skip: u64,
    seek: u64,
    iflags: Vec<String>,
    oflags: Vec<String>,
    conv: Vec<String>,
    status: Status,
}

/// `status=`: what dd prints on stderr.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// The closing lines (and fathom's latency line).
    #[default]
    Default,
    /// Nothing but errors.
    None,
    /// The records lines without the transfer line.
    Noxfer,
    /// A transfer line about every second while it runs, then the closing lines.
    Progress,
}

/// A dd size: a number with dd's suffixes (c=1, w=2, b=512, kB=1000, K=1024, MB, M, GB, G,
/// and xN products are not supported).
fn dd_size(v: &str) -> Result<u64> {
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, suffix) = v.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| anyhow!("'{v}' is not a dd size (e.g. 4096, 1M, 64K)"))?;
    let mult: u64 = match suffix {
        "" | "c" => 1,
        "w" => 2,
        "b" => 512,
        "kB" => 1000,
        "k" | "K" | "KiB" => 1 << 10,
        "MB" => 1_000_000,
        "M" | "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "G" | "GiB" => 1 << 30,
        "TB" => 1_000_000_000_000,
        "T" | "TiB" => 1 << 40,
        _ => bail!("'{v}': unknown dd size suffix '{suffix}' (use K, M, G, kB, MB, GB, b, w or c)"),
    };
    n.checked_mul(mult)
        .ok_or_else(|| anyhow!("'{v}' is too large"))
}

impl Dd {
    /// Parse `key=value` operands.
    pub fn parse(args: &[String]) -> Result<Dd> {
        let mut d = Dd {
            ibs: 512,
            obs: 512,
            ..Default::default()
        };
        for a in args {
            let (k, v) = a
                .split_once('=')
                .ok_or_else(|| anyhow!("'{a}': dd operands look like bs=1M"))?;
            let list = || v.split(',').map(str::to_string).collect::<Vec<_>>();
            match k {
                "if" => d.input = Some(v.to_string()),
                "of" => d.output = Some(v.to_string()),
                "bs" => {
                    d.ibs = dd_size(v)?;
                    d.obs = d.ibs;
                }
                "ibs" => d.ibs = dd_size(v)?,
                "obs" => d.obs = dd_size(v)?,
                "count" => d.count = Some(dd_size(v)?),
                "skip" | "iseek" => d.skip = dd_size(v)?,
                "seek" | "oseek" => d.seek = dd_size(v)?,
                "iflag" => d.iflags = list(),
                "oflag" => d.oflags = list(),
                "conv" => d.conv = list(),
                "status" => {
                    d.status = match v {
                        "none" => Status::None,
                        "noxfer" => Status::Noxfer,
                        "progress" => Status::Progress,
                        _ => {
                            bail!("invalid status level: '{v}' (dd takes none, noxfer or progress)")
                        }
                    }
                }
                _ => bail!(
                    "dd operand '{k}' is not supported{} (use if, of, bs, count, skip, seek, \
                     iflag, oflag, conv)",
                    super::did_you_mean(
                        k,
                        &[
                            "if", "of", "bs", "count", "skip", "seek", "iflag", "oflag", "conv",
                            "status", "ibs", "obs", "iseek", "oseek"
                        ]
                    )
                ),
            }
        }
        const BOTH: [&str; 4] = ["direct", "dsync", "sync", "nocache"];
        for f in &d.iflags {
            if !BOTH.contains(&f.as_str())
                && !["fullblock", "count_bytes", "skip_bytes"].contains(&f.as_str())
            {
                bail!(
                    "iflag '{f}' is not supported (use direct, dsync, sync, nocache, fullblock, \
                     count_bytes or skip_bytes)"
                );
            }
        }
        for f in &d.oflags {
            if !BOTH.contains(&f.as_str()) && f != "seek_bytes" {
                bail!(
                    "oflag '{f}' is not supported (use direct, dsync, sync, nocache or \
                     seek_bytes)"
                );
            }
        }
        for c in &d.conv {
            if !["fdatasync", "fsync", "notrunc"].contains(&c.as_str()) {
                bail!("conv={c} is not supported (use fdatasync, fsync or notrunc)");
            }
        }
        if d.ibs == 0 || d.obs == 0 {
            bail!("bs, ibs and obs must be greater than 0");
        }
        Ok(d)
    }

    fn iflag(&self, f: &str) -> bool {
        self.iflags.iter().any(|x| x == f)
    }
    fn oflag(&self, f: &str) -> bool {
        self.oflags.iter().any(|x| x == f)
    }
    /// Where the input starts, in bytes (`skip=` in input blocks, or bytes with
    /// `iflag=skip_bytes`).
    fn in_off(&self) -> u64 {
        if self.iflag("skip_bytes") {
            self.skip
        } else {
            self.skip.saturating_mul(self.ibs)
        }
    }
    /// Where the output starts, in bytes (`seek=` in output blocks, or bytes with
    /// `oflag=seek_bytes`).
    fn out_off(&self) -> u64 {
        if self.oflag("seek_bytes") {
            self.seek
        } else {
            self.seek.saturating_mul(self.obs)
        }
    }
    /// The bytes `count=` asks for (input blocks, or bytes with `iflag=count_bytes`); None:
    /// to the input's end.
    fn count_bytes(&self) -> Option<u64> {
        self.count.map(|c| {
            if self.iflag("count_bytes") {
                c
            } else {
                c.saturating_mul(self.ibs)
            }
        })
    }

    /// How the transfer runs: one side as a fathom job, or dd's own block loop.
    fn mode(&self) -> Result<Mode<'_>> {
        let zero = |s: &Option<String>| {
            matches!(
                s.as_deref(),
                Some("/dev/zero" | "/dev/urandom" | "/dev/random")
            )
        };
        let null = |s: &Option<String>| s.as_deref() == Some("/dev/null");
        let (input, output) = match (&self.input, &self.output) {
            (Some(i), Some(o)) => (i, o),
            // count=0 moves nothing, so the other side (stdin, stdout) does not matter.
            (None, Some(o)) if self.count == Some(0) => {
                return Ok(Mode::Side(Side {
                    writing: true,
                    path: o,
                    flags: &self.oflags,
                    off: self.out_off(),
                    len: 0,
                }))
            }
            (Some(i), None) if self.count == Some(0) => {
                return Ok(Mode::Side(Side {
                    writing: false,
                    path: i,
                    flags: &self.iflags,
                    off: self.in_off(),
                    len: 0,
                }))
            }
            _ => bail!(
                "fathom's dd needs if= and of= (it does not read stdin or write stdout): \
                 write with if=/dev/zero of=FILE, read with if=FILE of=/dev/null, copy with \
                 if=FILE of=FILE2"
            ),
        };
        let len = match self.count_bytes() {
            Some(n) => n,
            None if zero(&self.input) => {
                bail!("give count= when reading {input} (dd would fill {output})")
            }
            None => input_len(input)?.saturating_sub(self.in_off()),
        };
        // One side as a job: whole blocks of one size between a file and /dev/zero or
        // /dev/null; anything else is dd's own loop.
        let whole = self.ibs == self.obs && len % self.ibs == 0;
        Ok(match (zero(&self.input), null(&self.output)) {
            (true, false) if whole => Mode::Side(Side {
                writing: true,
                path: output,
                flags: &self.oflags,
                off: self.out_off(),
                len,
            }),
            (false, true) if whole => Mode::Side(Side {
                writing: false,
                path: input,
                flags: &self.iflags,
                off: self.in_off(),
                len,
            }),
            _ => Mode::Copy { len },
        })
    }

    /// True when the input is the kernel's random source: each block written is new
    /// random data (fathom makes it itself, without reading /dev/urandom).
    fn random_input(&self) -> bool {
        matches!(self.input.as_deref(), Some("/dev/urandom" | "/dev/random"))
    }

    /// The fathom job that does the same I/O (one side of the copy).
    pub fn job(&self) -> Result<(fathom::JobSpec, bool)> {
        let Mode::Side(Side {
            writing,
            path,
            flags,
            off,
            len,
        }) = self.mode()?
        else {
            bail!("a copy between two files runs dd's own loop, not a job");
        };
        if len == 0 {
            bail!("nothing to transfer (count=0)");
        }
        let mut b = Job::builder("dd")
            .engine(Engine::Psync)
            .rw(if writing { RwKind::Write } else { RwKind::Read })
            .bs(self.ibs)
            .filename(path)
            .offset(off)
            .size(len)
            .direct(flags.iter().any(|f| f == "direct"))
            .option("invalidate", "0");
        if flags.iter().any(|f| f == "sync") {
            b = b.option("sync", "sync");
        } else if flags.iter().any(|f| f == "dsync") {
            b = b.option("sync", "dsync");
        }
        if writing && self.conv.iter().any(|c| c == "fsync" || c == "fdatasync") {
            b = b.option("end_fsync", "1");
        }
        if writing {
            // The data dd writes: zeroes from /dev/zero (storage that compresses or
            // dedupes them writes little), fresh random blocks from /dev/urandom.
            b = match self.random_input() {
                false => b.option("zero_buffers", "1"),
                true => b.option("refill_buffers", "1"),
            };
        }
        Ok((b.build()?, writing))
    }
}

/// How a dd transfer runs.
enum Mode<'a> {
    /// One side as a fathom job: a file written from /dev/zero (or /dev/urandom) or read
    /// to /dev/null, in whole blocks of one size.
    Side(Side<'a>),
    /// dd's own block loop over `len` bytes of input (a copy between files, `ibs` other
    /// than `obs`, a partial last block).
    Copy { len: u64 },
}

/// The file side of a one-sided transfer.
struct Side<'a> {
    writing: bool,
    path: &'a str,
    flags: &'a [String],
    /// Its first byte.
    off: u64,
    /// Bytes to move.
    len: u64,
}

/// The input's length: a file's size, a block device's (dd reads to its end).
fn input_len(path: &str) -> Result<u64> {
    fathom::engine::file_size(std::path::Path::new(path))
        .map_err(|e| anyhow!("failed to open '{path}': {e}"))?
        .ok_or_else(|| anyhow!("failed to open '{path}': No such file or directory"))
}

/// dd's human size: three significant digits at most, one decimal below 10.
fn human(v: f64, base: f64, units: &[&str]) -> String {
    let mut x = v;
    let mut i = 0;
    while x >= base && i + 1 < units.len() {
        x /= base;
        i += 1;
    }
    if x < 10.0 && i > 0 {
        let r = (x * 10.0).round() / 10.0;
        if r >= 10.0 {
            format!("{r:.0} {}", units[i])
        } else {
            format!("{r:.1} {}", units[i])
        }
    } else {
        format!("{:.0} {}", x.round(), units[i])
    }
}

/// `%g`-style seconds: six significant digits, trailing zeros dropped, and scientific
/// notation below 10^-4 (`2.115e-05`), as dd prints its time.
fn seconds(s: f64) -> String {
    if s <= 0.0 || !s.is_finite() {
        return "0".into();
    }
    let trim = |t: String| -> String {
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t
        }
    };
    // The exponent after rounding to six significant digits.
    let sci = format!("{s:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mant.to_string()), exp.abs());
    }
    trim(format!("{:.*}", (5 - exp) as usize, s))
}

/// dd's rate: kB/s at least, three significant digits (one decimal below 100).
fn rate(bytes_per_sec: f64) -> String {
    const SI: [&str; 7] = ["kB", "MB", "GB", "TB", "PB", "EB", "ZB"];
    let mut x = bytes_per_sec / 1000.0;
    let mut i = 0;
    loop {
        let shown = if x < 100.0 {
            (x * 10.0).round() / 10.0
        } else {
            x.round()
        };
        if shown >= 1000.0 && i + 1 < SI.len() {
            x /= 1000.0;
            i += 1;
            continue;
        }
        return if x < 100.0 {
            format!("{shown:.1} {}/s", SI[i])
        } else {
            format!("{shown:.0} {}/s", SI[i])
        };
    }
}

/// dd's three closing lines for `blocks` full blocks (and `partial` ones) of `bytes` in
/// `secs`, in and out alike.
pub fn closing_lines(blocks: u64, partial: u64, bytes: u64, secs: f64) -> String {
    closing_lines_io(
        Records::new(blocks, partial),
        Records::new(blocks, partial),
        bytes,
        secs,
    )
}

/// Full and partial records, as dd counts them (`F+P records in`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Records {
    /// Whole blocks.
    pub full: u64,
    /// Shorter ones.
    pub partial: u64,
}

impl Records {
    /// `full`+`partial`.
    pub fn new(full: u64, partial: u64) -> Self {
        Records { full, partial }
    }
    /// Count one block of `n` bytes where a whole one is `bs`.
    pub fn add(&mut self, n: u64, bs: u64) {
        if n == bs {
            self.full += 1;
        } else {
            self.partial += 1;
        }
    }
}

impl std::fmt::Display for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{}", self.full, self.partial)
    }
}

/// dd's three closing lines: the records read and written, and the transfer line.
pub fn closing_lines_io(rin: Records, rout: Records, bytes: u64, secs: f64) -> String {
    format!(
        "{rin} records in\n{rout} records out\n{}\n",
        transfer_line(bytes, secs)
    )
}

/// dd's transfer line (the last closing line, and what status=progress repeats).
pub fn transfer_line(bytes: u64, secs: f64) -> String {
    const SI: [&str; 7] = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    const IEC: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let rate = if secs > 0.0 {
        rate(bytes as f64 / secs)
    } else {
        "Infinity B/s".into()
    };
    let b = bytes as f64;
    let amount = if bytes < 1000 {
        format!("{bytes} byte{} copied", if bytes == 1 { "" } else { "s" })
    } else if bytes < 1024 {
        format!("{bytes} bytes ({}) copied", human(b, 1000.0, &SI))
    } else {
        format!(
            "{bytes} bytes ({}, {}) copied",
            human(b, 1000.0, &SI),
            human(b, 1024.0, &IEC)
        )
    };
    format!("{amount}, {} s, {rate}", seconds(secs))
}

/// dd's closing lines as `status=` has them.
fn closing(status: Status, rin: Records, rout: Records, bytes: u64, secs: f64) -> String {
    match status {
        Status::None => String::new(),
        Status::Noxfer => format!("{rin} records in\n{rout} records out\n"),
        Status::Default | Status::Progress => closing_lines_io(rin, rout, bytes, secs),
    }
}

/// `nocache`: drop the page cache of `len` bytes of `path` from `off` (0: to the end), as
/// dd's posix_fadvise(DONTNEED).
fn drop_cache(path: &str, off: u64, len: u64) -> Result<()> {
    use nix::fcntl::{posix_fadvise, PosixFadviseAdvice};
    let f = std::fs::File::open(path).map_err(|e| anyhow!("{path}: {e}"))?;
    posix_fadvise(
        &f,
        off as libc::off_t,
        len as libc::off_t,
        PosixFadviseAdvice::POSIX_FADV_DONTNEED,
    )
    .map_err(|e| anyhow!("{path}: cannot drop the cache: {e}"))
}

/// dd opens its output (creating it), and truncates a regular file at the seek point
/// (`Some(at)`) unless `conv=notrunc` (None); a seek point within the first output block
/// (`oflag=seek_bytes` below `obs`) empties the file first, as dd's O_TRUNC does then, so
/// the bytes before it read as zeroes.
fn open_output(path: &str, truncate_at: Option<u64>, obs: u64) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(path)
        .map_err(|e| anyhow!("{path}: {e}"))?;
    if let Some(at) = truncate_at.filter(|_| f.metadata().is_ok_and(|m| m.is_file())) {
        if at < obs {
            f.set_len(0)
                .map_err(|e| anyhow!("{path}: cannot truncate: {e}"))?;
        }
        f.set_len(at)
            .map_err(|e| anyhow!("{path}: cannot truncate at {at}: {e}"))?;
    }
    Ok(())
}

/// `--help`: the operands and flags fathom's dd takes.
pub const HELP: &str = "usage: fathom suite dd OPERAND...   (or fathom linked as dd)
fathom's dd writes a file from /dev/zero, reads one to /dev/null, or copies one file to
another, block by block as dd does.
  if=FILE         read from FILE (/dev/zero, /dev/urandom: write zeroes, random blocks)
  of=FILE         write to FILE (/dev/null: read only)
  bs=BYTES        block size [512], for input and output
  ibs=, obs=      input and output block sizes (dd gathers input blocks into output ones)
  count=N         input blocks to move (required from /dev/zero; else to the input's end)
  skip=N          input blocks skipped at the start of the input (iseek=)
  seek=N          output blocks skipped at the start of the output (oseek=)
  iflag=FLAGS     direct, dsync, sync, nocache, fullblock, count_bytes, skip_bytes
  oflag=FLAGS     direct, dsync, sync, nocache, seek_bytes
  conv=CONVS      fdatasync, fsync (sync the output at the end), notrunc (do not truncate
                  the output at the seek point)
  status=LEVEL    none, noxfer, progress
BYTES and N take dd's suffixes: c=1, w=2, b=512, kB=1000, K=KiB=1024, MB, M, GB, G, TB, T.
dd's closing lines go to stderr, last, as dd's do; before them the latency per block
(min, p50, p99, p99.9, max; for a copy, each block's read and write). if=/dev/zero
writes zeroes, as dd; if=/dev/urandom to a file in whole blocks writes fresh random blocks
made by fathom (the rate is the storage's, not the random source's).
e.g. fathom suite dd if=/dev/zero of=/mnt/test bs=1G count=1 oflag=dsync";

/// Run `fathom suite dd OPERANDS...`; dd's lines and the latency go to stderr, as dd's do.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "--help") {
        println!("{HELP}");
        return Ok((0, Vec::new()));
    }
    let dd = Dd::parse(args)?;
    let side = match dd.mode()? {
        Mode::Side(s) => s,
        Mode::Copy { len } => return copy::run(&dd, len),
    };
    let (writing, path, flags) = (side.writing, side.path, side.flags);
    let nocache = flags.iter().any(|f| f == "nocache");
    let truncate = writing && !dd.conv.iter().any(|c| c == "notrunc");
    if dd.count == Some(0) || side.len == 0 {
        // dd copies nothing; with nocache it drops the file's cache (a common idiom:
        // `dd of=FILE oflag=nocache conv=notrunc,fdatasync count=0`).
        let t0 = std::time::Instant::now();
        if writing {
            open_output(path, truncate.then_some(side.off), dd.obs)?;
        }
        if nocache {
            drop_cache(path, 0, 0)?;
        }
        let none = Records::default();
        eprint!(
            "{}",
            closing(dd.status, none, none, 0, t0.elapsed().as_secs_f64())
        );
        return Ok((0, Vec::new()));
    }
    let (job, writing) = dd.job()?;
    if truncate {
        open_output(path, Some(side.off), dd.obs)?;
    }
    let mut runner = fathom::Runner::new(job);
    let progress = dd.status == Status::Progress;
    if progress {
        // As dd: the line rewritten in place about every second.
        let d = usize::from(writing);
        runner = runner.on_interval(std::time::Duration::from_secs(1), move |p| {
            if let Some(j) = p.jobs.first() {
                let secs = p.elapsed.as_secs_f64();
                eprint!("\r{}", transfer_line(j.bytes[d], secs));
            }
        });
    }
    let report = super::stop::run_runner(runner)?;
    if progress
        && report
            .jobs
            .first()
            .is_some_and(|j| j.elapsed.as_secs() >= 1)
    {
        eprintln!();
    }
    let j = report
        .jobs
        .first()
        .ok_or_else(|| anyhow::anyhow!("stopped before the run started"))?;
    let d = &j.stats.dirs[if writing { 1 } else { 0 }];
    if let Some(e) = &j.error_text {
        eprintln!("fathom dd: {e}");
    }
    let records = Records::new(d.bytes / dd.ibs, u64::from(d.bytes % dd.ibs != 0));
    // dd's time covers the whole copy, the closing fsync included.
    let secs = j.elapsed.as_secs_f64().max(j.stats.runtime.as_secs_f64());
    if nocache {
        drop_cache(path, side.off, d.bytes)?;
    }
    // fathom's own lines first, dd's three closing lines last, so scripts that read dd's
    // last line (`tail -1`, the rate) or its last three read them unchanged.
    let us = |ns: u64| ns as f64 / 1000.0;
    let mut s = String::new();
    if writing && dd.random_input() {
        s.push_str(
            "fathom dd: each block is fresh random data made by fathom, not read from \
             /dev/urandom: the rate is the storage's (dd's includes the kernel's random \
             source, often the slower part)\n",
        );
    }
    s.push_str(&format!(
        "latency per block (us): min {:.1}, p50 {:.1}, p99 {:.1}, p99.9 {:.1}, max {:.1}\n",
        us(d.lat.min()),
        us(d.lat.percentile(50.0)),
        us(d.lat.percentile(99.0)),
        us(d.lat.percentile(99.9)),
        us(d.lat.max())
    ));
    if j.stats.sync.count() > 0 {
        s.push_str(&format!("final sync: {:.1} us\n", us(j.stats.sync.max())));
    }
    s.push_str(&closing(dd.status, records, records, d.bytes, secs));
    if dd.status == Status::None {
        s.clear();
    }
    eprint!("{s}");
    let metrics = vec![
        ("MB/s".to_string(), d.bytes as f64 / secs.max(1e-9) / 1e6),
        ("latency p99 (us)".to_string(), us(d.lat.percentile(99.0))),
    ];
    Ok((if j.stats.error != 0 { 1 } else { 0 }, metrics))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_lines_look_like_dd() {
        assert_eq!(
            closing_lines(100, 0, 104857600, 0.0578386),
            "100+0 records in\n100+0 records out\n\
             104857600 bytes (105 MB, 100 MiB) copied, 0.0578386 s, 1.8 GB/s\n"
        );
        let l = closing_lines(1024, 0, 1073741824, 1.23456789);
        assert!(
            l.ends_with("1073741824 bytes (1.1 GB, 1.0 GiB) copied, 1.23457 s, 870 MB/s\n"),
            "{l}"
        );
        assert!(closing_lines(1, 0, 512, 0.001).contains("512 bytes copied, 0.001 s, 512 kB/s"));
        // What GNU dd (coreutils, Debian) printed for these transfers.
        for (bytes, secs, line) in [
            (0, 2.115e-05, "0 bytes copied, 2.115e-05 s, 0.0 kB/s"),
            (10, 1.8435e-05, "10 bytes copied, 1.8435e-05 s, 542 kB/s"),
            (
                1536,
                1.7042e-05,
                "1536 bytes (1.5 kB, 1.5 KiB) copied, 1.7042e-05 s, 90.1 MB/s",
            ),
            (1, 1.20065, "1 byte copied, 1.20065 s, 0.0 kB/s"),
            (900, 1.1014, "900 bytes copied, 1.1014 s, 0.8 kB/s"),
            (
                9000,
                0.301236,
                "9000 bytes (9.0 kB, 8.8 KiB) copied, 0.301236 s, 29.9 kB/s",
            ),
            (
                20971520000,
                0.942181,
                "20971520000 bytes (21 GB, 20 GiB) copied, 0.942181 s, 22.3 GB/s",
            ),
        ] {
            assert_eq!(transfer_line(bytes, secs), line);
        }
    }

    #[test]
    fn operands_parse_like_dd() {
        let a: Vec<String> = [
            "if=/dev/zero",
            "of=x",
            "bs=1M",
            "count=8",
            "oflag=direct,dsync",
            "conv=fdatasync",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let d = Dd::parse(&a).unwrap();
        assert_eq!((d.ibs, d.obs, d.count), (1 << 20, 1 << 20, Some(8)));
        let (job, writing) = d.job().unwrap();
        assert!(writing && job.direct && job.end_fsync);
        assert_eq!(job.size, Some(fathom::SizeSpec::Bytes(8 << 20)));
        assert!(Dd::parse(&["bs=1Q".to_string()]).is_err());
        assert!(Dd::parse(&["if=a".into(), "of=b".into(), "count=1".into()])
            .unwrap()
            .job()
            .is_err());
        assert_eq!(dd_size("2b").unwrap(), 1024);
        assert_eq!(dd_size("64kB").unwrap(), 64000);
    }
}
