//! One timed pass over a file, as iozone's tests make them: records in an order
//! (sequential, backward, strided, a permutation), by plain `pread`/`pwrite` or, with
//! `-k N`, POSIX asynchronous I/O with N in flight; `-p` touches a cache-sized buffer
//! before each record, `-Q` logs each record's offset and latency.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

/// How every pass is made.
#[derive(Debug, Clone, Default)]
pub struct Method {
    /// `-I`: O_DIRECT.
    pub direct: bool,
    /// `-e`: fsync inside the timing of a write pass.
    pub fsync: bool,
    /// `-k N`: POSIX asynchronous I/O, N in flight (0: plain calls).
    pub aio_depth: usize,
    /// `-p`: touch this many bytes of another buffer, a cache line at a time, before each
    /// record (iozone purges the processor cache so).
    pub purge: usize,
    /// `-p`'s step: the processor's cache line as iozone takes it (`-L`, 32 bytes unless
    /// given; 0 here means 32).
    pub purge_line: usize,
}

/// `-Q`: one line per record, `offset (kB) latency (µs) length (bytes)`, as iozone's
/// offset/latency files.
#[derive(Default)]
pub struct LatencyLog {
    pub lines: Vec<(u64, f64, u64)>,
}

impl LatencyLog {
    /// iozone's header line of the files.
    pub const HEADER: &'static str =
        "Offset in kBytes   Latency in microseconds  Transfer size in bytes";

    /// Append the records to `path`, with `header` when the file is new, and iozone's time
    /// line (`times`: the user and system CPU seconds, the real seconds) when given (a
    /// throughput test's per-child files have none).
    pub fn append_to(
        &mut self,
        path: &Path,
        header: &str,
        times: Option<((f64, f64), f64)>,
    ) -> Result<()> {
        let new = !path.exists();
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("-Q: {}", path.display()))?;
        let mut w = std::io::BufWriter::new(f);
        if new {
            writeln!(w, "{header}")?;
        }
        for (kb, us, len) in self.lines.drain(..) {
            writeln!(w, "{kb:>10} {us:>10.0} {len:>10}")?;
        }
        if let Some((cpu, real)) = times {
            writeln!(
                w,
                "\nSystem time {:>10.3} User time {:>10.3} Real {:>10.3}  (seconds)",
                cpu.1, cpu.0, real
            )?;
        }
        w.flush()?;
        Ok(())
    }
}

/// User and system CPU seconds of this process so far.
pub fn cpu_seconds() -> (f64, f64) {
    use nix::sys::resource::{getrusage, UsageWho};
    let Ok(ru) = getrusage(UsageWho::RUSAGE_SELF) else {
        return (0.0, 0.0);
    };
    let s = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    (s(ru.user_time()), s(ru.system_time()))
}

/// A fixed pseudo-random order of `n` records, every record once: `k·m + 7 mod n` with `m`
/// coprime to `n` (the random read and write tests).
pub(super) fn permutation(n: u64) -> impl Fn(u64) -> u64 + Copy {
    let coprime = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a == 1
    };
    let mut m = ((0x9E37_79B9u64 | 1) % n.max(1)).max(1);
    while n > 1 && !coprime(m, n) {
        m += 1;
    }
    move |k: u64| (k * m + 7) % n.max(1)
}

pub(super) fn open(p: &Path, write: bool, create: bool, direct: bool) -> Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(write).create(create).truncate(create);
    if direct {
        o.custom_flags(libc::O_DIRECT);
    }
    o.open(p)
        .with_context(|| format!("opening {}", p.display()))
}

/// A pass: `n` records of `rec` bytes at `order(k) * rec`.
pub struct Pass<'a> {
    pub path: &'a Path,
    pub write: bool,
    /// Create (truncate) the file first.
    pub create: bool,
    pub n: u64,
    pub rec: u64,
    pub order: &'a dyn Fn(u64) -> u64,
}

/// `-p`: read a cache line of `buf` at a time, `len` bytes, so the processor's cache holds
/// other data when the record is moved.
fn purge(buf: &[u8], len: usize, line: usize) -> u64 {
    let mut x = 0u64;
    let line = if line == 0 { 32 } else { line };
    for i in (0..len.min(buf.len())).step_by(line) {
        // black_box keeps the touch from being elided.
        x = x.wrapping_add(std::hint::black_box(buf[i]) as u64);
    }
    x
}

/// Time one pass: its duration (fsync included for a write pass with `-e`), each record's
/// latency logged to `q`.
pub fn timed(
    m: &Method,
    p: &Pass,
    buf: &mut fathom::engine::AlignedBuf,
    mut q: Option<&mut LatencyLog>,
) -> Result<Duration> {
    if m.aio_depth > 0 {
        return timed_aio(m, p, q);
    }
    let cache = vec![1u8; m.purge];
    let f = open(p.path, p.write, p.create, m.direct)?;
    let t = Instant::now();
    let mut sink = 0u64;
    for k in 0..p.n {
        super::super::check_stop()?;
        if m.purge > 0 {
            sink = sink.wrapping_add(purge(&cache, (p.rec as usize).min(m.purge), m.purge_line));
        }
        let off = (p.order)(k) * p.rec;
        let t0 = Instant::now();
        if p.write {
            f.write_all_at(&buf.as_slice()[..p.rec as usize], off)?;
        } else {
            f.read_exact_at(&mut buf.as_mut_slice()[..p.rec as usize], off)?;
        }
        if let Some(q) = q.as_deref_mut() {
            q.lines
                .push((off / 1024, t0.elapsed().as_secs_f64() * 1e6, p.rec));
        }
    }
    if p.write && m.fsync {
        f.sync_all()?;
    }
    std::hint::black_box(sink);
    Ok(t.elapsed())
}

/// [`timed`] with POSIX asynchronous I/O: `-k N` keeps N records in flight.
fn timed_aio(m: &Method, p: &Pass, mut q: Option<&mut LatencyLog>) -> Result<Duration> {
    use fathom::engine::{Completion, EngineBuf, IoUnit, OpenOptions, Queued};
    let depth = m.aio_depth.min(p.n.max(1) as usize).max(1);
    if p.create {
        // Truncated first, as the plain pass's open does.
        open(p.path, true, true, false)?;
    }
    let mut e = fathom::engine::create("posixaio").map_err(|e| anyhow::anyhow!("-k: {e}"))?;
    let mut bufs: Vec<fathom::engine::AlignedBuf> = (0..depth)
        .map(|_| fathom::engine::AlignedBuf::new(p.rec as usize, 4096))
        .collect();
    let ebufs: Vec<EngineBuf> = bufs
        .iter_mut()
        .map(|b| EngineBuf {
            ptr: b.as_mut_ptr(),
            len: b.len(),
        })
        .collect();
    // SAFETY: `bufs` outlives the engine (dropped at the end of this function, after it).
    unsafe { e.setup(depth, &ebufs)? };
    let file = e.open_file(
        p.path,
        &OpenOptions {
            write: p.write,
            direct: m.direct,
            ..Default::default()
        },
    )?;
    let cache = vec![1u8; m.purge];
    let mut sink = 0u64;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut started = vec![Instant::now(); depth];
    let mut at = vec![0u64; depth];
    let mut comps: Vec<Completion> = Vec::with_capacity(depth);
    let (mut next, mut done) = (0u64, 0u64);
    let t = Instant::now();
    let finish = |c: &Completion| -> Result<()> {
        if c.res < 0 {
            return Err(std::io::Error::from_raw_os_error((-c.res) as i32).into());
        }
        Ok(())
    };
    while done < p.n {
        super::super::check_stop()?;
        while next < p.n {
            let Some(slot) = free.pop() else { break };
            if m.purge > 0 {
                sink =
                    sink.wrapping_add(purge(&cache, (p.rec as usize).min(m.purge), m.purge_line));
            }
            at[slot] = (p.order)(next) * p.rec;
            started[slot] = Instant::now();
            let io = IoUnit {
                ddir: if p.write {
                    fathom::engine::Ddir::Write
                } else {
                    fathom::engine::Ddir::Read
                },
                file,
                offset: at[slot],
                buf: ebufs[slot].ptr,
                len: p.rec as usize,
                tag: slot as u64,
                ioprio: 0,
            };
            next += 1;
            // SAFETY: the slot's buffer holds rec bytes, 4096-aligned, untouched until its
            // completion comes back (the slot is off the free list until then).
            match unsafe { e.queue(&io)? } {
                Queued::Done(c) => comps.push(c),
                Queued::Queued => {}
            }
        }
        e.commit()?;
        if comps.is_empty() {
            e.reap(1, depth, &mut comps)?;
        }
        for c in comps.drain(..) {
            finish(&c)?;
            let slot = c.tag as usize;
            if let Some(q) = q.as_deref_mut() {
                q.lines.push((
                    at[slot] / 1024,
                    started[slot].elapsed().as_secs_f64() * 1e6,
                    p.rec,
                ));
            }
            free.push(slot);
            done += 1;
        }
    }
    if p.write && m.fsync {
        e.sync_file(file, false)?;
    }
    std::hint::black_box(sink);
    let took = t.elapsed();
    drop(e);
    drop(bufs);
    Ok(took)
}
