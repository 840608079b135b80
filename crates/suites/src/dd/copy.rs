//! dd's own block loop, for what is not one side of a copy: a copy between two files,
//! `ibs` other than `obs` (dd gathers the input blocks into output blocks), a partial last
//! block (a file that does not end on a block, `iflag=count_bytes`). Each input block is
//! read with one read() (`iflag=fullblock`: until it is whole or the input ends) and
//! written as it came (`bs=`) or in `obs` blocks; the records in and out are counted as
//! dd counts them, full and partial, and a partial last block written with `oflag=direct`
//! is written without O_DIRECT, as dd does. The latency line gives each input block's
//! read and write together.

use super::{closing, drop_cache, open_output, transfer_line, Dd, Records, Status};
use anyhow::{anyhow, Result};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

/// A buffer of `len` bytes at a 4 KiB boundary (what O_DIRECT needs).
struct Aligned {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Self {
        let buf = vec![0u8; len + 4096];
        let at = buf.as_ptr().align_offset(4096);
        Aligned { buf, at, len }
    }
    fn get(&mut self) -> &mut [u8] {
        &mut self.buf[self.at..self.at + self.len]
    }
}

/// The open(2) flags of `flags` (`direct`, `sync`, `dsync`).
fn open_flags(flags: &[String]) -> i32 {
    let mut f = 0;
    for x in flags {
        f |= match x.as_str() {
            "direct" => libc::O_DIRECT,
            "sync" => libc::O_SYNC,
            "dsync" => libc::O_DSYNC,
            _ => 0,
        };
    }
    f
}

/// One input block: one read(), or with `full` reads until `buf` is whole or the input
/// ends (`iflag=fullblock`); a read cut by a signal is tried again, as dd does.
fn read_block(f: &mut std::fs::File, buf: &mut [u8], full: bool) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => {
                got += n;
                if !full {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The output file and what was written to it.
struct Out {
    f: std::fs::File,
    name: String,
    direct: bool,
    /// Whole obs blocks of it (and shorter ones).
    records: Records,
    bytes: u64,
    obs: u64,
}

impl Out {
    /// Write one output block; a short one with O_DIRECT goes without it (as dd's last
    /// block).
    fn write(&mut self, data: &[u8]) -> Result<()> {
        if self.direct && data.len() as u64 != self.obs {
            use std::os::fd::AsRawFd;
            let fd = self.f.as_raw_fd();
            // SAFETY: fcntl on a descriptor this File owns.
            unsafe {
                let fl = libc::fcntl(fd, libc::F_GETFL);
                libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_DIRECT);
            }
            self.direct = false;
        }
        self.f
            .write_all(data)
            .map_err(|e| anyhow!("error writing '{}': {e}", self.name))?;
        self.records.add(data.len() as u64, self.obs);
        self.bytes += data.len() as u64;
        Ok(())
    }
}

/// Run dd's block loop over `len` bytes of input (fewer if the input ends first).
pub(super) fn run(dd: &Dd, len: u64) -> Result<super::super::Outcome> {
    let input = dd.input.as_deref().unwrap_or_default();
    let output = dd.output.as_deref().unwrap_or_default();
    let mut inp = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(open_flags(&dd.iflags))
        .open(input)
        .map_err(|e| anyhow!("failed to open '{input}': {e}"))?;
    let (in_off, out_off) = (dd.in_off(), dd.out_off());
    if in_off > 0 {
        inp.seek(SeekFrom::Start(in_off))
            .map_err(|e| anyhow!("'{input}': cannot skip to offset {in_off}: {e}"))?;
    }
    // dd creates the output and truncates a regular file at the seek point (not with
    // conv=notrunc).
    let notrunc = dd.conv.iter().any(|c| c == "notrunc");
    open_output(output, (!notrunc).then_some(out_off), dd.obs)?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(open_flags(&dd.oflags))
        .open(output)
        .map_err(|e| anyhow!("failed to open '{output}': {e}"))?;
    if out_off > 0 {
        f.seek(SeekFrom::Start(out_off))
            .map_err(|e| anyhow!("'{output}': cannot seek to offset {out_off}: {e}"))?;
    }
    let mut out = Out {
        f,
        name: output.to_string(),
        direct: dd.oflag("direct"),
        records: Records::default(),
        bytes: 0,
        obs: dd.obs,
    };
    let mut ibuf = Aligned::new(dd.ibs as usize);
    // dd gathers input into output blocks when ibs and obs differ.
    let reblock = dd.ibs != dd.obs;
    let mut obuf = Aligned::new(if reblock { dd.obs as usize } else { 0 });
    let mut pending = 0usize;
    let full = dd.iflag("fullblock");
    let mut rin = Records::default();
    let mut lat = fathom::LatStat::new();
    let mut error: Option<String> = None;
    let mut left = len;
    let t0 = Instant::now();
    let mut next_line = Duration::from_secs(1);
    while left > 0 && !super::super::stopped() {
        let start = Instant::now();
        let want = left.min(dd.ibs) as usize;
        let data = &mut ibuf.get()[..want];
        let n = match read_block(&mut inp, data, full) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                error = Some(format!("error reading '{input}': {e}"));
                break;
            }
        };
        rin.add(n as u64, dd.ibs);
        left -= n as u64;
        let data = &ibuf.get()[..n];
        let wrote = if reblock {
            let mut rest = data;
            let mut r = Ok(());
            while !rest.is_empty() && r.is_ok() {
                let take = (dd.obs as usize - pending).min(rest.len());
                obuf.get()[pending..pending + take].copy_from_slice(&rest[..take]);
                pending += take;
                rest = &rest[take..];
                if pending == dd.obs as usize {
                    r = out.write(obuf.get());
                    pending = 0;
                }
            }
            r
        } else {
            out.write(data)
        };
        if let Err(e) = wrote {
            error = Some(e.to_string());
            break;
        }
        lat.record(start.elapsed().as_nanos() as u64);
        if dd.status == Status::Progress && t0.elapsed() >= next_line {
            eprint!("\r{}", transfer_line(out.bytes, t0.elapsed().as_secs_f64()));
            next_line += Duration::from_secs(1);
        }
    }
    // What is left of the last output block goes out short.
    if pending > 0 && error.is_none() {
        if let Err(e) = out.write(&obuf.get()[..pending]) {
            error = Some(e.to_string());
        }
    }
    // dd's time covers the whole copy, the closing sync included.
    let sync = if error.is_none() && dd.conv.iter().any(|c| c == "fsync") {
        Some(out.f.sync_all())
    } else if error.is_none() && dd.conv.iter().any(|c| c == "fdatasync") {
        Some(out.f.sync_data())
    } else {
        None
    };
    if let Some(Err(e)) = sync {
        error = Some(format!("fsync failed for '{output}': {e}"));
    }
    let secs = t0.elapsed().as_secs_f64();
    if dd.status == Status::Progress && secs >= 1.0 {
        eprintln!();
    }
    if dd.iflag("nocache") {
        drop_cache(input, in_off, len - left)?;
    }
    if dd.oflag("nocache") {
        drop_cache(output, out_off, out.bytes)?;
    }
    let failed = error.is_some();
    let us = |ns: u64| ns as f64 / 1000.0;
    let mut s = String::new();
    if let Some(e) = &error {
        s.push_str(&format!("fathom dd: {e}\n"));
    }
    if lat.count() > 0 {
        s.push_str(&format!(
            "latency per block, read and write (us): min {:.1}, p50 {:.1}, p99 {:.1}, \
             p99.9 {:.1}, max {:.1}\n",
            us(lat.min()),
            us(lat.percentile(50.0)),
            us(lat.percentile(99.0)),
            us(lat.percentile(99.9)),
            us(lat.max())
        ));
    }
    s.push_str(&closing(dd.status, rin, out.records, out.bytes, secs));
    if dd.status == Status::None {
        // Errors still show, as dd's.
        s = error
            .map(|e| format!("fathom dd: {e}\n"))
            .unwrap_or_default();
    }
    eprint!("{s}");
    let metrics = vec![
        ("MB/s".to_string(), out.bytes as f64 / secs.max(1e-9) / 1e6),
        ("latency p99 (us)".to_string(), us(lat.percentile(99.0))),
    ];
    Ok((u8::from(failed), metrics))
}
