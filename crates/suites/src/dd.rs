//! `fathom suite dd`: dd's operands and its familiar closing lines, with latency
//! percentiles added: a queue-depth-1 throughput and latency check.
//!
//! fathom measures one side of the copy: `if=/dev/zero of=FILE` writes FILE (zeroes, as
//! dd; `if=/dev/urandom` fresh random blocks),
//! `if=FILE of=/dev/null` reads it. Operands: `bs` (default 512), `count`, `skip`, `seek`,
//! `iflag`/`oflag` (`direct`, `dsync`, `sync`, `nocache`: the page cache of what was
//! moved is dropped, `fullblock`: fathom's reads of a file are whole blocks already), `conv`
//! (`fdatasync`, `fsync`, `notrunc`: without it a regular output file is truncated at the
//! seek point, as dd does), `status` (`none`, `noxfer`, `progress`). `count=0` moves
//! nothing (with `nocache`, it drops the whole file's cache).

use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, RwKind};

/// Parsed dd operands.
#[derive(Debug, Default, PartialEq)]
pub struct Dd {
    input: Option<String>,
    output: Option<String>,
    bs: u64,
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
            bs: 512,
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
                "bs" | "obs" | "ibs" => d.bs = dd_size(v)?,
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
        for f in d.iflags.iter().chain(&d.oflags) {
            if !["direct", "dsync", "sync", "fullblock", "nocache"].contains(&f.as_str()) {
                bail!(
                    "flag '{f}' is not supported (use direct, dsync, sync, nocache or fullblock)"
                );
            }
        }
        for c in &d.conv {
            if !["fdatasync", "fsync", "notrunc"].contains(&c.as_str()) {
                bail!("conv={c} is not supported (use fdatasync, fsync or notrunc)");
            }
        }
        if d.bs == 0 {
            bail!("bs must be greater than 0");
        }
        Ok(d)
    }

    /// The side of the copy fathom measures: (writing, the file, its flags, the blocks
    /// skipped or sought before it).
    fn side(&self) -> Result<(bool, &str, &[String], u64)> {
        let zero = |s: &Option<String>| {
            matches!(
                s.as_deref(),
                Some("/dev/zero" | "/dev/urandom" | "/dev/random")
            )
        };
        let null = |s: &Option<String>| s.as_deref() == Some("/dev/null");
        Ok(match (&self.input, &self.output) {
            (i, Some(o)) if zero(i) && !null(&self.output) => (true, o, &self.oflags, self.seek),
            (Some(i), o) if null(o) && !zero(&self.input) => (false, i, &self.iflags, self.skip),
            // count=0 moves nothing, so the other side (stdin, stdout) does not matter.
            (None, Some(o)) if self.count == Some(0) => (true, o, &self.oflags, self.seek),
            (Some(i), None) if self.count == Some(0) => (false, i, &self.iflags, self.skip),
            _ => bail!(
                "fathom's dd measures one side: write with if=/dev/zero (or /dev/urandom) \
                 of=FILE, or read with if=FILE of=/dev/null"
            ),
        })
    }

    /// True when the input is the kernel's random source: each block written is new
    /// random data (fathom makes it itself, without reading /dev/urandom).
    fn random_input(&self) -> bool {
        matches!(self.input.as_deref(), Some("/dev/urandom" | "/dev/random"))
    }

    /// The fathom job that does the same I/O.
    pub fn job(&self) -> Result<(fathom::JobSpec, bool)> {
        let (writing, path, flags, blocks_off) = self.side()?;
        let count = match self.count {
            Some(c) => c,
            None if writing => bail!("give count= when writing (dd would fill the device)"),
            None => {
                let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                (len / self.bs).saturating_sub(self.skip)
            }
        };
        if count == 0 {
            bail!("nothing to transfer (count=0)");
        }
        let mut b = Job::builder("dd")
            .engine(Engine::Psync)
            .rw(if writing { RwKind::Write } else { RwKind::Read })
            .bs(self.bs)
            .filename(path)
            .offset(blocks_off * self.bs)
            .size(count * self.bs)
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

/// dd's three closing lines for `blocks` full blocks of `bytes` in `secs`.
pub fn closing_lines(blocks: u64, partial: u64, bytes: u64, secs: f64) -> String {
    format!(
        "{blocks}+{partial} records in\n{blocks}+{partial} records out\n{}\n",
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
fn closing(status: Status, blocks: u64, partial: u64, bytes: u64, secs: f64) -> String {
    match status {
        Status::None => String::new(),
        Status::Noxfer => {
            format!("{blocks}+{partial} records in\n{blocks}+{partial} records out\n")
        }
        Status::Default | Status::Progress => closing_lines(blocks, partial, bytes, secs),
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
/// (`Some(at)`) unless `conv=notrunc` (None).
fn open_output(path: &str, truncate_at: Option<u64>) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(path)
        .map_err(|e| anyhow!("{path}: {e}"))?;
    if let Some(at) = truncate_at.filter(|_| f.metadata().is_ok_and(|m| m.is_file())) {
        f.set_len(at)
            .map_err(|e| anyhow!("{path}: cannot truncate at {at}: {e}"))?;
    }
    Ok(())
}

/// `--help`: the operands and flags fathom's dd takes.
pub const HELP: &str = "usage: fathom suite dd OPERAND...   (or fathom linked as dd)
fathom's dd measures one side of a copy: writing a file from /dev/zero, or reading one
to /dev/null (a copy between two files is refused, nothing is written).
  if=FILE         read from FILE (/dev/zero when writing)
  of=FILE         write to FILE (/dev/null when reading)
  bs=BYTES        block size [512]; ibs=, obs= set it too
  count=N         blocks to move (required when writing; reading: to the end of the file)
  skip=N          blocks skipped at the start of the input (iseek=)
  seek=N          blocks skipped at the start of the output (oseek=)
  iflag=FLAGS     direct, dsync, sync, nocache, fullblock (comma-separated)
  oflag=FLAGS     direct, dsync, sync, nocache
  conv=CONVS      fdatasync, fsync (sync the output at the end), notrunc (do not truncate
                  the output at the seek point)
  status=LEVEL    none, noxfer, progress
BYTES and N take dd's suffixes: c=1, w=2, b=512, kB=1000, K=KiB=1024, MB, M, GB, G, TB, T.
dd's closing lines go to stderr, last, as dd's do; before them the latency per block
(min, p50, p99, p99.9, max). if=/dev/zero writes zeroes, as dd; if=/dev/urandom writes
fresh random blocks, made by fathom (the rate is the storage's, not the random source's).
e.g. fathom suite dd if=/dev/zero of=/mnt/test bs=1G count=1 oflag=dsync";

/// Run `fathom suite dd OPERANDS...`; dd's lines and the latency go to stderr, as dd's do.
pub fn run(args: &[String]) -> Result<super::Outcome> {
    if args.iter().any(|a| a == "--help") {
        println!("{HELP}");
        return Ok((0, Vec::new()));
    }
    let dd = Dd::parse(args)?;
    let (writing, path, flags, blocks_off) = dd.side()?;
    let nocache = flags.iter().any(|f| f == "nocache");
    let truncate = writing && !dd.conv.iter().any(|c| c == "notrunc");
    if dd.count == Some(0) {
        // dd copies nothing; with nocache it drops the file's cache (a common idiom:
        // `dd of=FILE oflag=nocache conv=notrunc,fdatasync count=0`).
        let t0 = std::time::Instant::now();
        if writing {
            open_output(path, truncate.then_some(blocks_off * dd.bs))?;
        }
        if nocache {
            drop_cache(path, 0, 0)?;
        }
        eprint!(
            "{}",
            closing(dd.status, 0, 0, 0, t0.elapsed().as_secs_f64())
        );
        return Ok((0, Vec::new()));
    }
    let (job, writing) = dd.job()?;
    if truncate {
        open_output(path, Some(blocks_off * dd.bs))?;
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
    let blocks = d.bytes / dd.bs;
    let partial = u64::from(d.bytes % dd.bs != 0);
    // dd's time covers the whole copy, the closing fsync included.
    let secs = j.elapsed.as_secs_f64().max(j.stats.runtime.as_secs_f64());
    if nocache {
        drop_cache(path, blocks_off * dd.bs, d.bytes)?;
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
    s.push_str(&closing(dd.status, blocks, partial, d.bytes, secs));
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
        assert_eq!((d.bs, d.count), (1 << 20, Some(8)));
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
