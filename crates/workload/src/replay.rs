//! Replay of recorded I/O: fio's text iologs (versions 2 and 3, as `write_iolog` writes
//! them) and blktrace's binary traces, as fio's `read_iolog` reads them.
//!
//! A log is parsed whole, before the clock starts, into a compact list of operations,
//! each with the time it is due at (microseconds from the start of the replay). Times
//! follow fio's: the gap between two stamped lines is a delay, scaled by
//! `replay_time_scale`; a stamp lower than the one before (a second job's block appended
//! to the log) is no delay; the first stamped line starts the clock. Where fio waits for
//! each gap after the previous I/O was issued (so a slow I/O pushes every later one back),
//! the due times here are absolute: an I/O that falls behind is issued at once, and the
//! runner measures its response time from when it was due, as with rate limits.
//!
//! ```
//! use fathom_workload::replay::{parse, ReplayOptions};
//! let log = b"fio version 3 iolog\n0 /f add\n0 /f open\n10 /f read 0 4096\n\
//!             60 /f write 8192 4096\n70 /f close\n";
//! let r = parse(log, &ReplayOptions::default()).unwrap();
//! assert_eq!(r.files, vec!["/f".to_string()]);
//! assert_eq!(r.ios(), [1, 1, 0]);
//! ```

use crate::gen::IoReq;
use fathom_job::Ddir;

/// How a log is replayed (fio's `replay_*` options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    /// `replay_no_stall`: issue everything as fast as possible, ignoring the log's times.
    pub no_stall: bool,
    /// `replay_time_scale`: percent of the log's speed (200: twice as fast).
    pub time_scale: u32,
    /// `replay_redirect`: every I/O goes to this file or device instead.
    pub redirect: Option<String>,
    /// `replay_align`: offsets rounded down to this power of two (blktrace lengths up).
    pub align: u64,
    /// `replay_scale`: offsets divided by this.
    pub scale: u64,
    /// `replay_skip`: operations left out (read, write, trim, sync).
    pub skip: Skip,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            no_stall: false,
            time_scale: 100,
            redirect: None,
            align: 0,
            scale: 1,
            skip: Skip::default(),
        }
    }
}

/// Which kinds of operation `replay_skip` leaves out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skip {
    /// Reads.
    pub read: bool,
    /// Writes.
    pub write: bool,
    /// Trims.
    pub trim: bool,
    /// fsyncs (fio's `sync`; `datasync` lines are kept, as fio keeps them).
    pub sync: bool,
}

impl Skip {
    /// Parse fio's list (`read,write`); the error names the bad word.
    pub fn parse(s: &str) -> Result<Skip, String> {
        let mut k = Skip::default();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "read" => k.read = true,
                "write" => k.write = true,
                "trim" => k.trim = true,
                "sync" => k.sync = true,
                _ => return Err(format!("'{w}' is not read, write, trim or sync")),
            }
        }
        Ok(k)
    }
}

/// What one replayed entry does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Trim,
    Sync,
    DataSync,
}

/// One operation, due at `due_us`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    due_us: u64,
    offset: u64,
    len: u32,
    file: u32,
    kind: Kind,
}

/// A parsed log, ready to replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replay {
    /// The files the log names, in the order they appear (one: the redirect target).
    pub files: Vec<String>,
    /// Per file: the end of the furthest byte any operation touches.
    pub extent: Vec<u64>,
    /// Per file: the end of the furthest byte read (what must exist before the replay).
    pub read_extent: Vec<u64>,
    /// The largest length per direction (read, write, trim).
    pub max_len: [u64; 3],
    /// blktrace: the deepest queue the trace shows (fio uses it when iodepth is not set).
    pub trace_depth: Option<u32>,
    /// Notes for the user (lines fio ignores, and so does fathom).
    pub notes: Vec<String>,
    entries: Vec<Entry>,
}

/// Why a log cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// The line (text logs) or record (blktrace) at fault, from 1; 0: the log as a whole.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.what)
        } else {
            f.write_str(&self.what)
        }
    }
}

impl std::error::Error for ReplayError {}

fn err(line: usize, what: impl Into<String>) -> ReplayError {
    ReplayError {
        line,
        what: what.into(),
    }
}

/// blktrace's magic (the low byte is the format version, 7).
const BLK_MAGIC: u32 = 0x6561_7400;

/// Whether `data` is a blktrace binary trace (in either byte order).
pub fn is_blktrace(data: &[u8]) -> bool {
    data.len() >= 48 && {
        let m = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
        m & 0xffff_ff00 == BLK_MAGIC || m.swap_bytes() & 0xffff_ff00 == BLK_MAGIC
    }
}

/// Parse a log: a blktrace binary trace, or fio's text iolog (version 2 or 3).
/// blktrace names devices by number: `device` turns a (major, minor) pair into a path
/// (not called with `replay_redirect`).
pub fn parse_with(
    data: &[u8],
    o: &ReplayOptions,
    device: &mut dyn FnMut(u32, u32) -> Option<String>,
) -> Result<Replay, ReplayError> {
    if is_blktrace(data) {
        parse_blktrace(data, o, device)
    } else {
        parse_text(data, o)
    }
}

/// [`parse_with`] for a text log (a blktrace's devices are not looked up).
pub fn parse(data: &[u8], o: &ReplayOptions) -> Result<Replay, ReplayError> {
    parse_with(data, o, &mut |_, _| None)
}

/// Builds a [`Replay`] entry by entry.
struct Builder<'a> {
    o: &'a ReplayOptions,
    r: Replay,
    /// The gaps between stamps so far, in stamp units (unscaled).
    gaps: u128,
    /// A v2 `wait`: nothing is due before this (stamp units).
    floor: u128,
    /// The last stamp seen (0: none yet, as fio: the clock starts at the first).
    last_stamp: u64,
    /// Units of a stamp per microsecond (1 for iologs, 1000 for blktrace's nanoseconds).
    per_us: u64,
}

impl<'a> Builder<'a> {
    fn new(o: &'a ReplayOptions, per_us: u64) -> Builder<'a> {
        let mut r = Replay::default();
        if let Some(t) = &o.redirect {
            r.files.push(t.clone());
            r.extent.push(0);
            r.read_extent.push(0);
        }
        Builder {
            o,
            r,
            gaps: 0,
            floor: 0,
            last_stamp: 0,
            per_us,
        }
    }

    /// A line's stamp moves the clock on.
    fn stamp(&mut self, t: u64) {
        if self.last_stamp != 0 && t > self.last_stamp && !self.o.no_stall {
            self.gaps += (t - self.last_stamp) as u128;
        }
        self.last_stamp = t;
    }

    /// A v2 `wait`: nothing is issued before `ms` milliseconds from the start.
    fn wait_until_ms(&mut self, ms: u64) {
        if !self.o.no_stall {
            self.floor = self.floor.max(ms as u128 * 1000 * self.per_us as u128);
        }
    }

    /// When the next entry is due, in microseconds.
    fn due_us(&self) -> u64 {
        let scaled = self.gaps * 100 / self.o.time_scale.max(1) as u128;
        (scaled.max(self.floor) / self.per_us as u128).min(u64::MAX as u128) as u64
    }

    /// The index of a file, added when new (or the redirect target).
    fn file(&mut self, name: &str) -> u32 {
        if self.o.redirect.is_some() {
            return 0;
        }
        match self.r.files.iter().position(|f| f == name) {
            Some(i) => i as u32,
            None => {
                self.r.files.push(name.to_string());
                self.r.extent.push(0);
                self.r.read_extent.push(0);
                (self.r.files.len() - 1) as u32
            }
        }
    }

    fn skipped(&self, kind: Kind) -> bool {
        let s = &self.o.skip;
        match kind {
            Kind::Read => s.read,
            Kind::Write => s.write,
            Kind::Trim => s.trim,
            Kind::Sync => s.sync,
            Kind::DataSync => false,
        }
    }

    fn push(
        &mut self,
        line: usize,
        file: u32,
        kind: Kind,
        offset: u64,
        len: u64,
    ) -> Result<(), ReplayError> {
        let (offset, len) = match kind {
            Kind::Sync | Kind::DataSync => (0, 0),
            _ => {
                if len == 0 {
                    return Err(err(line, "an I/O of 0 bytes"));
                }
                let len = u32::try_from(len)
                    .map_err(|_| err(line, format!("an I/O of {len} bytes (4 GiB at most)")))?;
                let mut off = offset / self.o.scale.max(1);
                if self.o.align > 1 {
                    off &= !(self.o.align - 1);
                }
                (off, len)
            }
        };
        let f = file as usize;
        let end = offset.saturating_add(len as u64);
        self.r.extent[f] = self.r.extent[f].max(end);
        let d = match kind {
            Kind::Read => Some(0),
            Kind::Write => Some(1),
            Kind::Trim => Some(2),
            _ => None,
        };
        if let Some(d) = d {
            self.r.max_len[d] = self.r.max_len[d].max(len as u64);
            if d == 0 {
                self.r.read_extent[f] = self.r.read_extent[f].max(end);
            }
        }
        self.r.entries.push(Entry {
            due_us: self.due_us(),
            offset,
            len,
            file,
            kind,
        });
        Ok(())
    }

    fn finish(self) -> Result<Replay, ReplayError> {
        if self.r.entries.is_empty() {
            return Err(err(0, "the log holds no I/O to replay"));
        }
        Ok(self.r)
    }
}

fn parse_text(data: &[u8], o: &ReplayOptions) -> Result<Replay, ReplayError> {
    let text = std::str::from_utf8(data).map_err(|e| {
        err(
            0,
            format!("neither a blktrace trace nor a text iolog ({e})"),
        )
    })?;
    let mut lines = text.lines();
    let version = iolog_version(lines.next())?;
    let mut b = Builder::new(o, 1);
    let mut ranges_skipped = 0u64;
    for (i, l) in lines.enumerate() {
        let n = i + 2;
        let w: Vec<&str> = l.split_whitespace().collect();
        // Jobs sharing one write_iolog each append a block with its own header.
        if w.is_empty() || l.trim_start().starts_with("fio version") {
            continue;
        }
        let num = |s: &str, what: &str| -> Result<u64, ReplayError> {
            s.parse::<u64>()
                .map_err(|_| err(n, format!("{what} '{s}' is not a whole number")))
        };
        let w = if version == 3 {
            let t = num(w[0], "the time stamp")?;
            if w.get(2) == Some(&"wait") {
                // As fio: waits belong to version 2 logs; a version 3 log's stamps time it.
                b.r.notes.push(format!(
                    "line {n}: a 'wait' in a version 3 iolog is ignored (its stamps time it)"
                ));
                continue;
            }
            b.stamp(t);
            &w[1..]
        } else {
            &w[..]
        };
        let (name, act) = match w {
            [name, act, ..] => (*name, *act),
            _ => return Err(err(n, format!("'{l}': expected a file name and an action"))),
        };
        // fio writes its sync_file_range calls to its logs and skips them on replay (with
        // "bad iolog file action"): so does fathom, saying so once.
        if act == "sync_file_range" {
            ranges_skipped += 1;
            b.file(name);
            continue;
        }
        let kind = iolog_action(act, version, n)?;
        match kind {
            Some(k) => {
                let (off, len) = match w {
                    [_, _, off, len, ..] => (num(off, "the offset")?, num(len, "the length")?),
                    _ => return Err(err(n, format!("'{l}': {act} needs an offset and a length"))),
                };
                let f = b.file(name);
                if !b.skipped(k) {
                    b.push(n, f, k, off, len)?;
                }
            }
            None if act == "wait" => {
                let ms = match w {
                    [_, _, ms, ..] => num(ms, "the wait")?,
                    _ => return Err(err(n, "wait needs a time (milliseconds from the start)")),
                };
                b.wait_until_ms(ms);
            }
            None => {
                // add/open/close: the files are opened once, before the replay starts, and
                // stay open to its end.
                b.file(name);
            }
        }
    }
    if ranges_skipped > 0 {
        b.r.notes.push(format!(
            "{ranges_skipped} sync_file_range line(s) not replayed, as fio's replay skips them"
        ));
    }
    b.finish()
}

/// The iolog version its first line gives (2 or 3; fio reads no other).
fn iolog_version(first: Option<&str>) -> Result<u32, ReplayError> {
    Ok(match first.map(str::trim) {
        Some(h) if h.starts_with("fio version 2 iolog") => 2,
        Some(h) if h.starts_with("fio version 3 iolog") => 3,
        Some(h) if h.starts_with("fio version") => {
            return Err(err(
                1,
                format!("'{h}': only iolog versions 2 and 3 are known"),
            ))
        }
        _ => {
            return Err(err(
                1,
                "not an iolog: the first line must be 'fio version 2 iolog' or 'fio version 3 \
                 iolog' (fio no longer reads version 1 logs either), and it is no blktrace \
                 trace",
            ))
        }
    })
}

/// What an iolog line's action does: an I/O of a kind, or None (wait, add, open, close).
fn iolog_action(act: &str, version: u32, n: usize) -> Result<Option<Kind>, ReplayError> {
    Ok(match act {
        "read" => Some(Kind::Read),
        "write" => Some(Kind::Write),
        "trim" => Some(Kind::Trim),
        "sync" => Some(Kind::Sync),
        "datasync" => Some(Kind::DataSync),
        "wait" | "add" | "open" | "close" => None,
        _ => {
            return Err(err(
                n,
                format!(
                    "unknown action '{act}' (known: add, open, close, read, write, trim, \
                     sync, datasync{})",
                    if version == 2 { ", wait" } else { "" }
                ),
            ))
        }
    })
}

/// blktrace's category bits (the action's upper 16 bits).
const TC_READ: u32 = 1 << 16;
const TC_WRITE: u32 = 1 << 17;
const TC_FLUSH: u32 = 1 << 18;
const TC_NOTIFY: u32 = 1 << 26;
const TC_DISCARD: u32 = 1 << 29;
/// blktrace's action numbers (the action's lower 16 bits).
const TA_QUEUE: u32 = 1;
const TA_BACKMERGE: u32 = 2;
const TA_FRONTMERGE: u32 = 3;
const TA_COMPLETE: u32 = 8;

/// One blktrace record's fields fathom uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Nanoseconds since the trace started.
    pub time: u64,
    /// In 512-byte sectors.
    pub sector: u64,
    /// Length in bytes.
    pub bytes: u32,
    /// Action number and category bits.
    pub action: u32,
    /// Device: major << 20 | minor.
    pub device: u32,
}

/// Walk a blktrace trace's records: (record number from 1, record, its bytes).
pub fn blktrace_records(
    data: &[u8],
) -> impl Iterator<Item = Result<(usize, Trace, &[u8]), ReplayError>> + '_ {
    let swap = data.len() >= 4
        && u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0xffff_ff00 != BLK_MAGIC;
    let mut at = 0usize;
    let mut n = 0usize;
    std::iter::from_fn(move || {
        if at >= data.len() {
            return None;
        }
        n += 1;
        let rest = &data[at..];
        if rest.len() < 48 {
            at = data.len();
            return Some(Err(err(
                n,
                format!("the trace ends in a partial record ({} bytes)", rest.len()),
            )));
        }
        let u32_at = |i: usize| {
            let v = u32::from_le_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&rest[i..i + 8]);
            let v = u64::from_le_bytes(b);
            if swap {
                v.swap_bytes()
            } else {
                v
            }
        };
        let magic = u32_at(0);
        if magic & 0xffff_ff00 != BLK_MAGIC {
            at = data.len();
            return Some(Err(err(n, format!("bad blktrace magic {magic:#x}"))));
        }
        if magic & 0xff != 7 {
            at = data.len();
            return Some(Err(err(
                n,
                format!(
                    "blktrace format version {} (fathom reads version 7)",
                    magic & 0xff
                ),
            )));
        }
        let pdu = {
            let v = u16::from_le_bytes([rest[46], rest[47]]);
            (if swap { v.swap_bytes() } else { v }) as usize
        };
        let whole = 48 + pdu;
        if rest.len() < whole {
            at = data.len();
            return Some(Err(err(n, "the trace ends inside a record's payload")));
        }
        let t = Trace {
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            device: u32_at(36),
        };
        at += whole;
        Some(Ok((n, t, &rest[..whole])))
    })
}

/// The fields of a 48-byte blktrace record as (offset, width), for byte swapping.
const FIELDS: [(usize, usize); 11] = [
    (0, 4),
    (4, 4),
    (8, 8),
    (16, 8),
    (24, 4),
    (28, 4),
    (32, 4),
    (36, 4),
    (40, 4),
    (44, 2),
    (46, 2),
];

/// fio's `merge_blktrace_file`: merge several traces into one, by time. Only queue events
/// of reads, writes and discards are kept (without their payloads); trace `i`'s times are
/// scaled to `scalars[i]` percent, and it runs `iters[i]` times back to back (each run
/// after the last event of the one before). Empty lists mean 100 and 1 for every trace.
/// The merged trace is little-endian. An error names the trace (from 0).
pub fn merge_blktrace(
    traces: &[&[u8]],
    scalars: &[f64],
    iters: &[u64],
) -> Result<Vec<u8>, (usize, ReplayError)> {
    let n = traces.len();
    for (what, len) in [
        ("merge_blktrace_scalars", scalars.len()),
        ("merge_blktrace_iters", iters.len()),
    ] {
        if len != 0 && len != n {
            return Err((
                0,
                err(
                    0,
                    format!("{what} has {len} values for {n} traces: give one per trace"),
                ),
            ));
        }
    }
    // (time, trace, sequence, record) for every kept event of every iteration.
    let mut all: Vec<(u64, usize, usize, [u8; 48])> = Vec::new();
    for (ti, data) in traces.iter().enumerate() {
        if !is_blktrace(data) {
            return Err((
                ti,
                err(
                    0,
                    "not a blktrace trace (merge_blktrace_file merges blktrace traces only)",
                ),
            ));
        }
        let swap =
            u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0xffff_ff00 != BLK_MAGIC;
        let mut kept: Vec<(u64, [u8; 48])> = Vec::new();
        let mut length = 0u64;
        for rec in blktrace_records(data) {
            let (_, t, raw) = rec.map_err(|e| (ti, e))?;
            length = length.max(t.time);
            let ddir = t.action & (TC_READ | TC_WRITE | TC_DISCARD) != 0;
            if t.action & 0xffff != TA_QUEUE || t.action & TC_NOTIFY != 0 || !ddir {
                continue;
            }
            let mut le = [0u8; 48];
            for (at, w) in FIELDS {
                let f = &raw[at..at + w];
                if swap {
                    le[at..at + w]
                        .iter_mut()
                        .zip(f.iter().rev())
                        .for_each(|(d, s)| *d = *s);
                } else {
                    le[at..at + w].copy_from_slice(f);
                }
            }
            le[46..48].copy_from_slice(&0u16.to_le_bytes());
            kept.push((t.time, le));
        }
        let scalar = scalars.get(ti).copied().unwrap_or(100.0);
        let runs = iters.get(ti).copied().unwrap_or(1).max(1);
        for it in 0..runs {
            for (seq, (time, rec)) in kept.iter().enumerate() {
                let raw = (*time as f64 + (it as f64) * length as f64) * scalar / 100.0;
                let t = raw.min(u64::MAX as f64) as u64;
                let mut r = *rec;
                r[8..16].copy_from_slice(&t.to_le_bytes());
                all.push((t, ti, it as usize * kept.len() + seq, r));
            }
        }
    }
    all.sort_by_key(|x| (x.0, x.1, x.2));
    let mut out = Vec::with_capacity(all.len() * 48);
    for (.., r) in all {
        out.extend_from_slice(&r);
    }
    Ok(out)
}

fn parse_blktrace(
    data: &[u8],
    o: &ReplayOptions,
    device: &mut dyn FnMut(u32, u32) -> Option<String>,
) -> Result<Replay, ReplayError> {
    let mut b = Builder::new(o, 1000);
    // Devices seen: (device number, file index).
    let mut devs: Vec<(u32, u32)> = Vec::new();
    // Queue depth per direction: now, and the most seen between completions (as fio).
    let mut depth_now = [0i64; 3];
    let mut depth_max = [0i64; 3];
    let mut ios = [0u64; 4];
    let mut zero_noted = false;
    for rec in blktrace_records(data) {
        let (n, t, _) = rec?;
        let act = t.action & 0xffff;
        track_depth(t.action, &mut depth_now, &mut depth_max);
        // Only queue events are replayed: the rest are the block layer's own doings.
        if act != TA_QUEUE || t.action & TC_NOTIFY != 0 {
            continue;
        }
        b.stamp(t.time);
        let kind = if t.action & TC_DISCARD != 0 {
            Kind::Trim
        } else if t.action & TC_FLUSH != 0 {
            Kind::Sync
        } else if t.action & TC_WRITE != 0 {
            Kind::Write
        } else {
            Kind::Read
        };
        if b.skipped(kind) {
            continue;
        }
        let mut bytes = t.bytes as u64;
        if matches!(kind, Kind::Read | Kind::Write) && bytes == 0 {
            if !zero_noted {
                zero_noted = true;
                b.r.notes.push(format!(
                    "record {n}: queue events of zero bytes are left out (as fio does)"
                ));
            }
            continue;
        }
        if o.align > 1 {
            bytes = (bytes + o.align - 1) & !(o.align - 1);
        }
        let file = trace_file(&mut b, &mut devs, t.device, n, o, device)?;
        ios[match kind {
            Kind::Read => 0,
            Kind::Write => 1,
            Kind::Trim => 2,
            _ => 3,
        }] += 1;
        b.push(n, file, kind, t.sector.saturating_mul(512), bytes)?;
    }
    let mut depth = 0i64;
    for d in 0..3 {
        let v = match depth_max[d] {
            v if v > 1024 => 1024,
            0 if ios[d] > 0 => 1,
            v => v,
        };
        depth = depth.max(v);
    }
    b.r.trace_depth = Some(depth.max(1) as u32);
    b.finish()
}

/// A trace event's effect on the queue depth per direction: now, and the most seen
/// between completions (as fio reckons a trace's depth).
fn track_depth(action: u32, depth_now: &mut [i64; 3], depth_max: &mut [i64; 3]) {
    let act = action & 0xffff;
    let dir = if action & TC_READ != 0 {
        Some(0)
    } else if action & TC_WRITE != 0 {
        Some(1)
    } else if action & TC_DISCARD != 0 {
        Some(2)
    } else {
        None
    };
    if action & TC_NOTIFY == 0 {
        if let Some(d) = dir {
            match act {
                TA_QUEUE => depth_now[d] += 1,
                TA_BACKMERGE | TA_FRONTMERGE => depth_now[d] -= 1,
                TA_COMPLETE => {
                    depth_max[d] = depth_max[d].max(depth_now[d]);
                    depth_now[d] = 0;
                }
                _ => {}
            }
        }
    }
}

/// The file index of a trace's device: the block device with its number under /dev (or
/// replay_redirect's target), added to the replay's files when first seen.
fn trace_file(
    b: &mut Builder,
    devs: &mut Vec<(u32, u32)>,
    device_no: u32,
    n: usize,
    o: &ReplayOptions,
    device: &mut dyn FnMut(u32, u32) -> Option<String>,
) -> Result<u32, ReplayError> {
    Ok(match devs.iter().find(|d| d.0 == device_no) {
        Some(d) => d.1,
        None => {
            let (maj, min) = (device_no >> 20, device_no & 0xfffff);
            let f = if o.redirect.is_some() {
                0
            } else {
                let path = device(maj, min).ok_or_else(|| {
                    err(
                        n,
                        format!(
                            "the trace's device {maj}:{min} is not on this machine (no \
                             block device with that number under /dev); name the target \
                             with replay_redirect=PATH"
                        ),
                    )
                })?;
                b.file(&path)
            };
            devs.push((device_no, f));
            f
        }
    })
}

impl Replay {
    /// I/Os per direction (read, write, trim).
    pub fn ios(&self) -> [u64; 3] {
        let mut n = [0; 3];
        for e in &self.entries {
            match e.kind {
                Kind::Read => n[0] += 1,
                Kind::Write => n[1] += 1,
                Kind::Trim => n[2] += 1,
                _ => {}
            }
        }
        n
    }

    /// Bytes moved in all.
    pub fn bytes(&self) -> u64 {
        self.entries.iter().map(|e| e.len as u64).sum()
    }

    /// fsync and fdatasync calls.
    pub fn syncs(&self) -> u64 {
        self.entries
            .iter()
            .filter(|e| matches!(e.kind, Kind::Sync | Kind::DataSync))
            .count() as u64
    }

    /// When the last operation is due (microseconds from the start).
    pub fn span_us(&self) -> u64 {
        self.entries.last().map_or(0, |e| e.due_us)
    }

    /// Whether any operation is timed (not every one due at once).
    pub fn timed(&self) -> bool {
        self.span_us() > 0
    }
}

/// A clone's walk through a [`Replay`].
#[derive(Clone, Debug)]
pub struct ReplayCursor {
    log: std::sync::Arc<Replay>,
    next: usize,
    due_us: u64,
}

impl ReplayCursor {
    /// From the start of `log`.
    pub fn new(log: std::sync::Arc<Replay>) -> ReplayCursor {
        ReplayCursor {
            log,
            next: 0,
            due_us: 0,
        }
    }

    /// The next I/O, or None at the log's end. The syncs the log holds before it are
    /// pushed to `syncs` as (file, data only), to be issued before it.
    #[inline]
    pub fn next_io(&mut self, syncs: &mut Vec<(usize, bool)>) -> Option<IoReq> {
        while let Some(e) = self.log.entries.get(self.next) {
            self.next += 1;
            let ddir = match e.kind {
                Kind::Read => Ddir::Read,
                Kind::Write => Ddir::Write,
                Kind::Trim => Ddir::Trim,
                Kind::Sync | Kind::DataSync => {
                    syncs.push((e.file as usize, e.kind == Kind::DataSync));
                    continue;
                }
            };
            self.due_us = e.due_us;
            return Some(IoReq {
                ddir,
                file: e.file as usize,
                offset: e.offset,
                len: e.len as u64,
            });
        }
        None
    }

    /// When the I/O last handed out is due (microseconds from the start).
    #[inline]
    pub fn due_us(&self) -> u64 {
        self.due_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o() -> ReplayOptions {
        ReplayOptions::default()
    }

    /// Each I/O of a replay with its due time and the syncs before it.
    type Walked = Vec<(IoReq, u64, Vec<(usize, bool)>)>;

    fn walk(r: Replay) -> Walked {
        let mut c = ReplayCursor::new(std::sync::Arc::new(r));
        let mut out = Vec::new();
        loop {
            let mut s = Vec::new();
            match c.next_io(&mut s) {
                Some(io) => out.push((io, c.due_us(), s)),
                None => {
                    if !s.is_empty() {
                        out.push((
                            IoReq {
                                ddir: Ddir::Read,
                                file: usize::MAX,
                                offset: 0,
                                len: 0,
                            },
                            0,
                            s,
                        ));
                    }
                    return out;
                }
            }
        }
    }

    const V3: &[u8] = b"fio version 3 iolog\n12 /a add\n13 /b add\n66 /a open\n\
        100 /a read 0 4096\n300 /b write 8192 8192\n250 /a write 4096 512\n\
        1300 /a sync 0 0\n1400 /a datasync 0 0\n1500 /b trim 0 4096\n1600 /a close\n";

    #[test]
    fn version_3_times_are_gaps_between_stamps_from_the_first() {
        let r = parse(V3, &o()).unwrap();
        assert_eq!(r.files, ["/a", "/b"]);
        assert_eq!(r.ios(), [1, 2, 1]);
        assert_eq!(r.syncs(), 2);
        assert_eq!(r.max_len, [4096, 8192, 4096]);
        assert_eq!(r.extent, [4608, 16384]);
        assert_eq!(r.read_extent, [4096, 0]);
        let w = walk(r);
        let got: Vec<_> = w.iter().map(|x| (x.0.file, x.0.offset, x.1)).collect();
        // 12 starts the clock; 250 < 300 is no delay; the sync lines ride with the trim.
        assert_eq!(
            got,
            [(0, 0, 88), (1, 8192, 288), (0, 4096, 288), (1, 0, 1538)]
        );
        assert_eq!(w[3].2, [(0, false), (0, true)]);
    }

    #[test]
    fn time_scale_no_stall_skip_scale_align_and_redirect() {
        let mut p = o();
        p.time_scale = 200;
        let w = walk(parse(V3, &p).unwrap());
        assert_eq!(w[1].1, 144);
        p.no_stall = true;
        assert!(walk(parse(V3, &p).unwrap()).iter().all(|x| x.1 == 0));
        let mut p = o();
        p.skip = Skip::parse("write,sync").unwrap();
        let r = parse(V3, &p).unwrap();
        assert_eq!((r.ios(), r.syncs()), ([1, 0, 1], 1));
        let mut p = o();
        p.scale = 2;
        p.align = 4096;
        p.redirect = Some("/dev/x".into());
        let r = parse(V3, &p).unwrap();
        assert_eq!(r.files, ["/dev/x"]);
        let offs: Vec<_> = walk(r).iter().map(|x| (x.0.file, x.0.offset)).collect();
        assert_eq!(offs, [(0, 0), (0, 4096), (0, 0), (0, 0)]);
        assert!(Skip::parse("flush").unwrap_err().contains("flush"));
    }

    #[test]
    fn version_2_waits_are_milliseconds_from_the_start() {
        let log = b"fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n/f wait 300 0\n\
            /f write 4096 8192\n/f close\n";
        let w = walk(parse(log, &o()).unwrap());
        assert_eq!(w.iter().map(|x| x.1).collect::<Vec<_>>(), [0, 300_000]);
    }

    #[test]
    fn bad_logs_name_the_line() {
        let e = parse(b"fio version 3 iolog\n1 /f add\n2 /f read x 4096\n", &o()).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.to_string().contains("offset 'x'"), "{e}");
        let e = parse(b"fio version 3 iolog\n1 /f frobnicate\n", &o()).unwrap_err();
        assert!(e.to_string().contains("unknown action 'frobnicate'"), "{e}");
        let e = parse(b"0 /f read 0 4096\n", &o()).unwrap_err();
        assert!(e.to_string().contains("not an iolog"), "{e}");
        let e = parse(b"fio version 3 iolog\n1 /f add\n", &o()).unwrap_err();
        assert!(e.to_string().contains("no I/O"), "{e}");
        let e = parse(b"fio version 3 iolog\n1 /f read 0 0\n", &o()).unwrap_err();
        assert!(e.to_string().contains("0 bytes"), "{e}");
    }

    /// A blktrace record, little-endian (or swapped).
    pub(crate) fn rec(
        t: u64,
        sector: u64,
        bytes: u32,
        action: u32,
        dev: u32,
        pdu: &[u8],
    ) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend((BLK_MAGIC | 7).to_le_bytes());
        v.extend(0u32.to_le_bytes());
        v.extend(t.to_le_bytes());
        v.extend(sector.to_le_bytes());
        v.extend(bytes.to_le_bytes());
        v.extend(action.to_le_bytes());
        v.extend(1234u32.to_le_bytes());
        v.extend(dev.to_le_bytes());
        v.extend(0u32.to_le_bytes());
        v.extend(0u16.to_le_bytes());
        v.extend((pdu.len() as u16).to_le_bytes());
        v.extend(pdu);
        v
    }

    #[test]
    fn blktrace_replays_queue_events_of_each_device() {
        let q = TA_QUEUE | (1 << 20);
        let dev = (8 << 20) | 16;
        let mut t = Vec::new();
        t.extend(rec(0, 0, 0, 1 | TC_NOTIFY, dev, b"proc\0"));
        t.extend(rec(1_000, 8, 4096, q | TC_READ, dev, &[]));
        t.extend(rec(2_000, 8, 4096, TA_COMPLETE | TC_READ, dev, &[]));
        t.extend(rec(5_000, 16, 8192, q | TC_WRITE, dev, &[]));
        t.extend(rec(5_500, 32, 4096, q | TC_WRITE, dev, &[]));
        t.extend(rec(5_600, 48, 4096, TA_BACKMERGE | TC_WRITE, dev, &[]));
        t.extend(rec(9_000, 0, 0, q | TC_WRITE | TC_FLUSH, dev, &[]));
        t.extend(rec(
            10_000,
            64,
            4096,
            q | TC_DISCARD | TC_WRITE,
            (8 << 20) | 32,
            &[],
        ));
        t.extend(rec(11_000, 0, 4096, TA_COMPLETE | TC_WRITE, dev, &[]));
        assert!(is_blktrace(&t));
        let mut asked = Vec::new();
        let r = parse_with(&t, &o(), &mut |a, b| {
            asked.push((a, b));
            Some(format!("/dev/d{b}"))
        })
        .unwrap();
        assert_eq!(asked, [(8, 16), (8, 32)]);
        assert_eq!(r.files, ["/dev/d16", "/dev/d32"]);
        assert_eq!(r.ios(), [1, 2, 1]);
        assert_eq!(r.syncs(), 1);
        assert_eq!(r.trace_depth, Some(3));
        let w = walk(r);
        let got: Vec<_> = w
            .iter()
            .map(|x| (x.0.ddir, x.0.file, x.0.offset, x.0.len, x.1))
            .collect();
        assert_eq!(
            got,
            [
                (Ddir::Read, 0, 4096, 4096, 0),
                (Ddir::Write, 0, 8192, 8192, 4),
                (Ddir::Write, 0, 16384, 4096, 4),
                (Ddir::Trim, 1, 32768, 4096, 9),
            ]
        );
        assert_eq!(w[3].2, [(0, false)]);
        // Byte-swapped traces read the same; a missing device names replay_redirect.
        let mut swapped = Vec::new();
        let mut at = 0;
        while at < t.len() {
            let pdu = u16::from_le_bytes([t[at + 46], t[at + 47]]) as usize;
            for (i, w) in FIELDS {
                swapped.extend(t[at + i..at + i + w].iter().rev());
            }
            swapped.extend(&t[at + 48..at + 48 + pdu]);
            at += 48 + pdu;
        }
        let mut named = |_: u32, b: u32| Some(format!("/dev/d{b}"));
        let a = parse_with(&t, &o(), &mut named).unwrap();
        assert_eq!(parse_with(&swapped, &o(), &mut named).unwrap(), a);
        let e = parse(&t, &o()).unwrap_err();
        assert!(e.to_string().contains("replay_redirect"), "{e}");
        let mut p = o();
        p.redirect = Some("/tmp/x".into());
        assert_eq!(parse(&t, &p).unwrap().files, ["/tmp/x"]);
        let e = parse(&t[..60], &p).unwrap_err();
        assert!(e.to_string().contains("partial record"), "{e}");
        // Merging: queue events of both traces by time, the second scaled and run twice.
        let a: Vec<u8> = [
            rec(1_000, 8, 4096, q | TC_READ, dev, &[]),
            rec(7_000, 16, 4096, q | TC_READ, dev, &[]),
        ]
        .concat();
        let b: Vec<u8> = [
            rec(2_000, 80, 4096, q | TC_WRITE, dev, b"xx"),
            rec(4_000, 88, 4096, TA_COMPLETE | TC_WRITE, dev, &[]),
        ]
        .concat();
        let m = merge_blktrace(&[&a, &swapped], &[], &[]).unwrap();
        assert_eq!(m.len() % 48, 0);
        let m = merge_blktrace(&[&a, &b], &[100.0, 50.0], &[1, 2]).unwrap();
        let times: Vec<(u64, u64)> = blktrace_records(&m)
            .map(|r| r.unwrap().1)
            .map(|t| (t.time, t.sector))
            .collect();
        // b: 2000 and 2000+4000 (its length) at half time: 1000 and 3000.
        assert_eq!(times, [(1_000, 8), (1_000, 80), (3_000, 80), (7_000, 16)]);
        let e = merge_blktrace(&[&a, &b], &[100.0], &[]).unwrap_err();
        assert!(e.1.to_string().contains("one per trace"), "{}", e.1);
        let e = merge_blktrace(&[&a, b"fio version 3 iolog\n"], &[], &[]).unwrap_err();
        assert_eq!(e.0, 1);
    }
}
