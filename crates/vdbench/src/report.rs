//! vdbench's report lines: per interval and the `avg_F-N` line, on the console, in
//! summary.html, totals.html, the per-SD and per-WD reports, and as flatfile.html rows.

use fathom::JobResult;

/// vdbench's `-mb`: MB in the reports is 1000² bytes (set once, before the runs).
static DECIMAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Report MB as 1000² bytes (`true`, vdbench's `-mb`) or 1024² (the default).
pub fn set_decimal(on: bool) {
    DECIMAL.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Bytes in the reports' MB.
fn mb() -> f64 {
    if DECIMAL.load(std::sync::atomic::Ordering::Relaxed) {
        1e6
    } else {
        1048576.0
    }
}

/// One interval's counts (or several added together).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Iv {
    /// Length, seconds.
    pub secs: f64,
    /// I/Os: read, write.
    pub ios: [u64; 2],
    /// Bytes: read, write.
    pub bytes: [u64; 2],
    /// Sum of response times, ns.
    pub sum: [f64; 2],
    /// Sum of their squares, ns².
    pub sumsq: [f64; 2],
    /// Largest, ns.
    pub max: [u64; 2],
    /// Machine CPU busy % (user+sys) and sys % over the interval.
    pub cpu: Option<(f64, f64)>,
    /// Metadata operations by vdbench's column ([`META_COLS`]): count and sum of their
    /// times, ns.
    pub meta: [(u64, f64); META_COLS.len()],
    /// Requested metadata operations (vdbench's ReqstdOps beyond reads and writes):
    /// count, sum of times, sum of squares, longest.
    pub req: (u64, f64, f64, u64),
}

/// A format's work, interval by interval, as vdbench's format run reports it: each
/// directory made, file created, opened and closed in its column, each write a write
/// (the format's requested operations).
pub struct Recorder {
    t0: std::time::Instant,
    interval: f64,
    ivs: std::sync::Mutex<Vec<Iv>>,
}

impl Recorder {
    /// A recording from now, in `interval`-second intervals.
    pub fn new(interval: f64) -> Recorder {
        Recorder {
            t0: std::time::Instant::now(),
            interval: interval.max(0.001),
            ivs: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The interval that ends after `at` (growing the list to it).
    fn with(&self, at: std::time::Instant, f: impl FnOnce(&mut Iv)) {
        let k = (at.duration_since(self.t0).as_secs_f64() / self.interval) as usize;
        let mut ivs = self.ivs.lock().unwrap_or_else(|e| e.into_inner());
        if ivs.len() <= k {
            ivs.resize(k + 1, Iv::default());
        }
        f(&mut ivs[k]);
    }

    /// Metadata operation `op` (a [`META_COLS`] name), begun at `start`, done now.
    pub fn meta(&self, op: &str, start: std::time::Instant) {
        let now = std::time::Instant::now();
        let ns = now.duration_since(start).as_nanos() as f64;
        let col = meta_col(op).expect("a vdbench metadata column");
        self.with(now, |iv| {
            iv.meta[col].0 += 1;
            iv.meta[col].1 += ns;
        });
    }

    /// A write of `bytes`, begun at `start`, done now.
    pub fn write(&self, bytes: u64, start: std::time::Instant) {
        let now = std::time::Instant::now();
        let ns = now.duration_since(start).as_nanos() as u64;
        self.with(now, |iv| {
            iv.ios[1] += 1;
            iv.bytes[1] += bytes;
            iv.sum[1] += ns as f64;
            iv.sumsq[1] += (ns as f64) * (ns as f64);
            iv.max[1] = iv.max[1].max(ns);
        });
    }

    /// Writes done elsewhere (data validation's keyed format jobs): `ivs`, their first
    /// interval ending `offset` intervals after this recording's first.
    pub fn add(&self, offset: usize, ivs: &[Iv]) {
        let mut all = self.ivs.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() < offset + ivs.len() {
            all.resize(offset + ivs.len(), Iv::default());
        }
        for (k, iv) in ivs.iter().enumerate() {
            all[offset + k].add_side(iv);
        }
    }

    /// The interval now running, counted from 0.
    pub fn now_interval(&self) -> usize {
        (self.t0.elapsed().as_secs_f64() / self.interval) as usize
    }

    /// The intervals (at least one), each over the whole interval (vdbench's rates, the
    /// last one's too).
    pub fn finish(&self) -> Vec<Iv> {
        let mut ivs = self.ivs.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if ivs.is_empty() {
            ivs.push(Iv::default());
        }
        for iv in &mut ivs {
            iv.secs = self.interval;
        }
        ivs
    }
}

/// vdbench's metadata operation columns, in its order.
pub const META_COLS: [&str; 11] = [
    "mkdir", "rmdir", "create", "open", "close", "delete", "getattr", "setattr", "access", "copy",
    "move",
];

/// The column of a filetree operation (`stat` is getattr, `rename` is move).
pub fn meta_col(op: &str) -> Option<usize> {
    let v = match op {
        "stat" => "getattr",
        "rename" => "move",
        o => o,
    };
    META_COLS.iter().position(|c| *c == v)
}

impl Iv {
    /// Add another job's same interval (side by side: the length is the longer).
    pub fn add_side(&mut self, o: &Iv) {
        self.secs = self.secs.max(o.secs);
        for d in 0..2 {
            self.ios[d] += o.ios[d];
            self.bytes[d] += o.bytes[d];
            self.sum[d] += o.sum[d];
            self.sumsq[d] += o.sumsq[d];
            self.max[d] = self.max[d].max(o.max[d]);
        }
        for (m, x) in self.meta.iter_mut().zip(o.meta.iter()) {
            m.0 += x.0;
            m.1 += x.1;
        }
        self.req.0 += o.req.0;
        self.req.1 += o.req.1;
        self.req.2 += o.req.2;
        self.req.3 = self.req.3.max(o.req.3);
        if self.cpu.is_none() {
            self.cpu = o.cpu;
        }
    }
    /// Add a later interval (one after another: lengths add, CPU weighs by length).
    pub fn add_after(&mut self, o: &Iv) {
        let cpu = match (self.cpu, o.cpu) {
            (Some(a), Some(b)) if self.secs + o.secs > 0.0 => {
                let w = |x: f64, y: f64| (x * self.secs + y * o.secs) / (self.secs + o.secs);
                Some((w(a.0, b.0), w(a.1, b.1)))
            }
            (a, b) => a.or(b),
        };
        let secs = self.secs + o.secs;
        self.secs = 0.0;
        self.add_side(o);
        self.secs = secs;
        self.cpu = cpu;
    }
    /// I/Os (and requested metadata operations) per second.
    pub fn rate(&self) -> f64 {
        let n = (self.ios[0] + self.ios[1] + self.req.0) as f64;
        if self.secs > 0.0 {
            n / self.secs
        } else {
            0.0
        }
    }
    /// MB/s (1024², or 1000² after `-mb`).
    pub fn mbs(&self) -> f64 {
        if self.secs > 0.0 {
            (self.bytes[0] + self.bytes[1]) as f64 / self.secs / mb()
        } else {
            0.0
        }
    }
    /// Mean bytes per I/O.
    pub fn bytes_per_io(&self) -> u64 {
        let n = self.ios[0] + self.ios[1];
        (self.bytes[0] + self.bytes[1]).checked_div(n).unwrap_or(0)
    }
    /// Read percentage.
    pub fn readpct(&self) -> f64 {
        let n = self.ios[0] + self.ios[1];
        if n == 0 {
            0.0
        } else {
            self.ios[0] as f64 * 100.0 / n as f64
        }
    }
    /// Reads and writes per second, their mean response times (ms), and MB read and
    /// written per second: `[read rate, read resp, write rate, write resp, MB read,
    /// MB written]`.
    pub fn dir_figures(&self) -> [f64; 6] {
        let rate = |n: u64| {
            if self.secs > 0.0 {
                n as f64 / self.secs
            } else {
                0.0
            }
        };
        let r = self.resp();
        [
            rate(self.ios[0]),
            r[1],
            rate(self.ios[1]),
            r[2],
            rate(self.bytes[0]) / mb(),
            rate(self.bytes[1]) / mb(),
        ]
    }
    /// Metadata operation `k` ([`META_COLS`]): per second and mean time, ms.
    pub fn meta_figures(&self, k: usize) -> (f64, f64) {
        let (n, sum) = self.meta[k];
        let rate = if self.secs > 0.0 {
            n as f64 / self.secs
        } else {
            0.0
        };
        (rate, Self::mean_of(n, sum))
    }
    fn mean_of(n: u64, sum: f64) -> f64 {
        if n == 0 {
            0.0
        } else {
            sum / n as f64 / 1e6
        }
    }
    /// Mean response, ms (all requested operations, read, write).
    pub fn resp(&self) -> [f64; 3] {
        [
            Self::mean_of(
                self.ios[0] + self.ios[1] + self.req.0,
                self.sum[0] + self.sum[1] + self.req.1,
            ),
            Self::mean_of(self.ios[0], self.sum[0]),
            Self::mean_of(self.ios[1], self.sum[1]),
        ]
    }
    fn std_of(n: u64, sum: f64, sumsq: f64) -> f64 {
        if n < 2 {
            return 0.0;
        }
        let n = n as f64;
        ((sumsq - sum * sum / n) / (n - 1.0)).max(0.0).sqrt() / 1e6
    }
    /// Response standard deviation, ms (both, read, write).
    pub fn std(&self) -> [f64; 3] {
        [
            Self::std_of(
                self.ios[0] + self.ios[1] + self.req.0,
                self.sum[0] + self.sum[1] + self.req.1,
                self.sumsq[0] + self.sumsq[1] + self.req.2,
            ),
            Self::std_of(self.ios[0], self.sum[0], self.sumsq[0]),
            Self::std_of(self.ios[1], self.sum[1], self.sumsq[1]),
        ]
    }
    /// Largest response, ms (both, read, write).
    pub fn max_ms(&self) -> [f64; 3] {
        let m = |v: u64| v as f64 / 1e6;
        [
            m(self.max[0].max(self.max[1]).max(self.req.3)),
            m(self.max[0]),
            m(self.max[1]),
        ]
    }
    /// Mean I/Os in flight (Little's law: rate × response).
    pub fn queue_depth(&self) -> f64 {
        self.rate() * self.resp()[0] / 1e3
    }
}

/// Interval `k` from read and write samples (one clone's, or a job's), if there is one.
pub fn iv_of(samples: [&[fathom::Sample]; 2], k: usize) -> Option<Iv> {
    let mut iv = Iv::default();
    let mut any = false;
    for (d, dir) in samples.iter().enumerate() {
        if let Some(s) = dir.get(k) {
            any = true;
            iv.secs = iv.secs.max(s.len_ms as f64 / 1e3);
            iv.ios[d] += s.ios;
            iv.bytes[d] += s.bytes;
            iv.sum[d] += s.clat_sum as f64;
            iv.sumsq[d] += s.clat_sumsq;
            iv.max[d] = iv.max[d].max(s.clat_max);
        }
    }
    any.then_some(iv)
}

/// Interval `k` of a metadata job from its operations' samples (`ops[i]` for the i-th
/// operation of its mix; the first is the one requested), if there is one.
pub fn iv_of_meta(samples: &[(&str, &[fathom::Sample])], k: usize) -> Option<Iv> {
    let mut iv = Iv::default();
    let mut any = false;
    for (i, (op, ss)) in samples.iter().enumerate() {
        let Some(s) = ss.get(k) else { continue };
        any = true;
        iv.secs = iv.secs.max(s.len_ms as f64 / 1e3);
        if let Some(c) = meta_col(op) {
            iv.meta[c].0 += s.ios;
            iv.meta[c].1 += s.clat_sum as f64;
        }
        // A create writes its file whole: that data is in the write MB/sec, as vdbench
        // counts it (its writes are timed with the create, not one by one).
        if *op == "create" {
            iv.bytes[1] += s.bytes;
        }
        if i == 0 {
            iv.req = (s.ios, s.clat_sum as f64, s.clat_sumsq, s.clat_max);
        }
    }
    any.then_some(iv)
}

/// A job's intervals from its samples (reads and writes, or a metadata job's operations);
/// a last piece shorter than half an interval (I/Os completing after the deadline) joins
/// the interval before it.
pub fn intervals_of(j: &JobResult, interval: f64, planned: f64) -> Vec<Iv> {
    let dirs = [&j.stats.dirs[0].samples[..], &j.stats.dirs[1].samples[..]];
    let ops: Vec<(&str, &[fathom::Sample])> = j
        .stats
        .ops
        .iter()
        .map(|o| (o.name.as_str(), &o.samples[..]))
        .collect();
    let io = dirs.iter().any(|d| !d.is_empty());
    let mut out: Vec<Iv> = if ops.is_empty() {
        (0..).map_while(|k| iv_of(dirs, k)).collect()
    } else if io {
        // Reads and writes with operations beside them (fileio=(sequential,delete)'s
        // deletes and creates): the I/O makes the line, the operations their columns.
        (0..)
            .map_while(|k| {
                let mut iv = iv_of(dirs, k)?;
                for (op, ss) in &ops {
                    if let (Some(s), Some(c)) = (ss.get(k), meta_col(op)) {
                        iv.meta[c].0 += s.ios;
                        iv.meta[c].1 += s.clat_sum as f64;
                    }
                }
                Some(iv)
            })
            .collect()
    } else {
        (0..).map_while(|k| iv_of_meta(&ops, k)).collect()
    };
    // A job that ended within a millisecond of starting (a small format) took no
    // sample: its one interval is the whole job.
    if out.is_empty() && j.stats.dirs[..2].iter().any(|d| d.ios > 0) {
        let mut iv = Iv {
            secs: j.elapsed.as_secs_f64().max(0.001),
            ..Iv::default()
        };
        for (d, st) in j.stats.dirs[..2].iter().enumerate() {
            iv.ios[d] = st.ios;
            iv.bytes[d] = st.bytes;
            iv.sum[d] = st.clat.sum() as f64;
            iv.sumsq[d] = st.clat.sumsq() as f64;
            iv.max[d] = st.clat.max();
        }
        out.push(iv);
    }
    // A job that ran its time ends with a sliver past its last interval: part of it.
    let early = j.elapsed.as_secs_f64() + interval / 2.0 < planned;
    if !early && out.len() >= 2 && out[out.len() - 1].secs < interval / 2.0 {
        let tail = out.pop().expect("two or more");
        let last = out.last_mut().expect("one or more");
        last.add_after(&tail);
    }
    // vdbench reports an interval's counts over the whole interval, so a run that ended
    // before its time (sequential to the end, a format) shows its last interval's I/Os
    // over a full interval (5.04.06: a 20m format of 4k writes done in 0.46 s shows
    // 5120.00 I/Os a second for its one interval of 1 s).
    for iv in &mut out {
        iv.secs = iv.secs.max(interval);
    }
    out
}

/// Milliseconds since the epoch, now (the stamps of lines, folders and logs).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

/// Today's date as vdbench opens a header with it (`Nov 28, 2026`: its "MMM dd, yyyy").
pub fn header_date() -> String {
    fathom_report::units::local_time(now_ms(), c"%b %d, %Y")
}

/// The header lines, after an empty line, the first opening with the date as vdbench's
/// does (scripts read the run's date from it), the columns as vdbench 5.04.07 lays them
/// out (a 12-wide interval column after the time of day).
pub fn header() -> String {
    format!(
        "\n{date:<12}    interval        i/o   MB/sec   bytes   read     resp     read    write     read    write     resp  queue  cpu%  cpu%\n\
         {pad}                   rate  {unit}     i/o    pct     time     resp     resp      max      max   stddev  depth sys+u   sys\n",
        date = header_date(),
        pad = " ".repeat(12),
        unit = if mb() == 1e6 { "1000**2" } else { "1024**2" }
    )
}

/// One report line: `tod label rate MB/s bytes/io read% resp read write rmax wmax std qd cpu sys`.
pub fn line(tod: &str, label: &str, iv: &Iv) -> String {
    let r = iv.resp();
    let m = iv.max_ms();
    let (cpu, sys) = iv.cpu.unwrap_or((0.0, 0.0));
    format!(
        "{tod:<12}{label:>12}{:>11.1}{:>9.2}{:>8}{:>7.2}{:>9.3}{:>9.3}{:>9.3}{:>9.2}{:>9.2}{:>9.3}{:>7.1}{:>6.1}{:>6.1}\n",
        iv.rate(),
        iv.mbs(),
        iv.bytes_per_io(),
        iv.readpct(),
        r[0],
        r[1],
        r[2],
        m[1],
        m[2],
        iv.std()[0],
        iv.queue_depth(),
        cpu,
        sys
    )
}

/// A file-system line's column groups as vdbench 5.04.06 prints them: a header over one
/// or two columns, each column's name, width and decimals (its `%w.dF`).
type FsGroup = (&'static str, &'static [(&'static str, usize, usize)]);

const FS_BASE: &[FsGroup] = &[
    ("ReqstdOps.", &[("rate", 6, 1), ("resp", 6, 3)]),
    ("cpu%", &[("total", 5, 1), ("sys", 4, 2)]),
    (" read", &[("pct", 5, 1)]),
    ("read", &[("rate", 6, 1), ("resp", 6, 3)]),
    ("write", &[("rate", 6, 1), ("resp", 6, 3)]),
    ("mb/sec", &[("read", 5, 2), ("write", 5, 2)]),
    ("mb/sec", &[("total", 6, 2)]),
    ("xfer", &[("size", 7, 0)]),
];

/// A metadata operation's columns.
const FS_META: &[(&str, usize, usize)] = &[("rate", 5, 1), ("resp", 6, 3)];

/// The metadata operations vdbench prints only when the parameter file uses them
/// (getattr, setattr, access, copy, move: the last five of [`META_COLS`]).
pub const FS_OPTIONAL: usize = 5;

/// The file-system column groups printed: the base ones, mkdir through delete, then each
/// of getattr, setattr, access, copy and move the execution uses (`used`, in that order).
fn fs_groups(used: [bool; FS_OPTIONAL]) -> Vec<(FsGroup, Option<usize>)> {
    let mut g: Vec<(FsGroup, Option<usize>)> = FS_BASE.iter().map(|g| (*g, None)).collect();
    let first_optional = META_COLS.len() - FS_OPTIONAL;
    for (k, name) in META_COLS.iter().enumerate() {
        if k < first_optional || used[k - first_optional] {
            g.push(((name, FS_META), Some(k)));
        }
    }
    g
}

/// `v` with `d` decimals as Java's `%.df` writes it (vdbench's cells): the shortest
/// decimal that reads back as `v`, rounded half up (0.03125 and 0.35 give 0.0313 and
/// 0.4 where Rust's exact-value rounding gives 0.0312 and 0.3).
pub fn java_fixed(v: f64, d: usize) -> String {
    if !v.is_finite() {
        return format!("{v:.d$}");
    }
    // Rust's Display is the shortest round-trip decimal, never in exponent form.
    let s = format!("{}", v.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let mut digits: Vec<u8> = int
        .bytes()
        .chain(frac.bytes().chain(std::iter::repeat(b'0')).take(d))
        .collect();
    if frac.as_bytes().get(d).is_some_and(|c| *c >= b'5') {
        // Carry the round up through the kept digits.
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let n = digits.len() - d;
    let mut out = String::new();
    if v.is_sign_negative() && digits.iter().any(|c| *c != b'0') {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[..n]).expect("digits"));
    if d > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&digits[n..]).expect("digits"));
    }
    out
}

/// vdbench's `%w.dF`: the value in `w` columns with `d` decimals; a value too wide loses
/// its last decimals (cut, not rounded) until it fits, or all of them and is printed
/// wider.
pub fn fit(v: f64, w: usize, d: usize) -> String {
    let mut t = java_fixed(v, d);
    if d > 0 && t.len() > w {
        loop {
            t.pop();
            if t.ends_with('.') {
                continue;
            }
            if !t.contains('.') || t.len() <= w {
                break;
            }
        }
    }
    format!("{t:>w$}")
}

/// The header of a file-system run's lines (`used`: the optional operations the
/// execution uses), vdbench's two lines: each group's name centred in dots over its
/// columns, then the columns' names.
pub fn fs_header(used: [bool; FS_OPTIONAL]) -> String {
    let dots = |n: usize| ".".repeat(n);
    let mut top = format!("{:<12} .Interval.", header_date());
    let mut sub = " ".repeat(23);
    for ((name, cols), _) in fs_groups(used) {
        let width = match cols {
            [one] => one.1,
            [a, b] => a.1 + b.1 + 1,
            _ => unreachable!("one or two columns a group"),
        };
        let extra = width.saturating_sub(name.len());
        top.push_str(&format!(
            " {}{name}{}",
            dots(extra / 2),
            dots(extra - extra / 2)
        ));
        for (c, w, _) in cols {
            sub.push_str(&format!(" {c:>w$}"));
        }
    }
    format!("\n{top}\n{sub}\n")
}

/// One file-system run line (`used`: the optional operations the execution uses). The
/// metadata columns count the metadata operations done (a read or write run opens each
/// file it picks and closes the one it leaves, as vdbench's: those are its open and
/// close columns).
pub fn fs_line(tod: &str, label: &str, iv: &Iv, used: [bool; FS_OPTIONAL]) -> String {
    let (cpu, sys) = iv.cpu.unwrap_or((0.0, 0.0));
    let [rr, rresp, wr, wresp, mbr, mbw] = iv.dir_figures();
    let base = [
        iv.rate(),
        iv.resp()[0],
        cpu,
        sys,
        iv.readpct(),
        rr,
        rresp,
        wr,
        wresp,
        mbr,
        mbw,
        iv.mbs(),
        iv.bytes_per_io() as f64,
    ];
    let mut l = format!("{tod:<12} {label:>10}");
    let mut values = base.iter();
    for ((_, cols), meta) in fs_groups(used) {
        let pair: (f64, f64);
        let vals: Vec<f64> = match meta {
            None => cols
                .iter()
                .map(|_| *values.next().unwrap_or(&0.0))
                .collect(),
            Some(k) => {
                pair = iv.meta_figures(k);
                vec![pair.0, pair.1]
            }
        };
        for ((_, w, d), v) in cols.iter().zip(vals) {
            l.push(' ');
            l.push_str(&fit(v, *w, *d));
        }
    }
    l.push('\n');
    l
}

/// A raw (SD) execution's flat file columns after `tod` and `timestamp`, as vdbench
/// 5.04.06 names and orders them, with a line on each for the file's comment block.
pub const FLAT_COLUMNS: &[(&str, &str)] = &[
    ("Run", "the run's name (RD=)"),
    (
        "Interval",
        "interval number, or avg_F-N for the run's average",
    ),
    (
        "reqrate",
        "iorate= asked for (9999988 for max, 9999977 for a curve's max)",
    ),
    ("rate", "I/Os done per second"),
    (
        "MB/sec",
        "MB read and written per second (MB = 1024*1024 bytes)",
    ),
    ("bytes/io", "mean bytes per I/O"),
    ("read%", "reads among the I/Os, %"),
    ("resp", "mean response time, ms"),
    ("read_resp", "mean read response time, ms"),
    ("write_resp", "mean write response time, ms"),
    ("resp_max", "longest response time, ms"),
    ("resp_std", "standard deviation of the response times, ms"),
    (
        "xfersize",
        "xfersize= asked for (its first size; n/a when the WDs differ)",
    ),
    ("threads", "threads asked for (-1 when the SDs differ)"),
    ("rdpct", "rdpct= asked for (n/a when the WDs differ)"),
    ("rhpct", "rhpct= asked for (n/a when the WDs differ)"),
    ("whpct", "whpct= asked for (n/a when the WDs differ)"),
    (
        "seekpct",
        "seekpct= asked for (n/a for eof, or when the WDs differ)",
    ),
    (
        "lunsize",
        "GB of all the run's SDs (GB = 1024*1024*1024 bytes)",
    ),
    ("version", "not filled (n/a), as vdbench"),
    ("compratio", "compratio= asked for"),
    ("dedupratio", "dedupratio= asked for (n/a without dedup)"),
    ("queue_depth", "mean I/Os in flight"),
    ("cpu_used", "machine cpu busy, %"),
    ("cpu_user", "machine cpu in user mode, %"),
    ("cpu_kernel", "machine cpu in the kernel, %"),
    ("cpu_wait", "machine cpu waiting for I/O, %"),
    ("cpu_idle", "machine cpu idle, %"),
];

/// A file-system execution's flat file columns after `tod` and `timestamp`, as vdbench
/// 5.04.06 names and orders them (every metadata operation's pair, used or not), with a
/// line on each for the file's comment block.
pub const FS_FLAT_COLUMNS: &[(&str, &str)] = &[
    ("Run", "the run's name (RD=, or format_for_RD for a format)"),
    (
        "Interval",
        "interval number, or avg_F-N for the run's average",
    ),
    ("reqrate", "fwdrate= asked for (9999988 for max)"),
    ("rate", "requested operations done per second"),
    ("resp", "their mean response time, ms"),
    ("MB/sec", "MB read and written per second"),
    ("Read_rate", "reads per second"),
    ("Read_resp", "mean read response time, ms"),
    ("Write_rate", "writes per second"),
    ("Write_resp", "mean write response time, ms"),
    ("MB_read", "MB read per second"),
    ("MB_write", "MB written per second"),
    ("Xfersize", "mean bytes per read or write"),
    ("Mkdir_rate", "directories made per second"),
    ("Mkdir_resp", "mean mkdir time, ms"),
    ("Rmdir_rate", "directories removed per second"),
    ("Rmdir_resp", "mean rmdir time, ms"),
    ("Create_rate", "files created per second"),
    ("Create_resp", "mean create time, ms"),
    ("Open_rate", "opens per second"),
    ("Open_resp", "mean open time, ms"),
    ("Close_rate", "closes per second"),
    ("Close_resp", "mean close time, ms"),
    ("Delete_rate", "files deleted per second"),
    ("Delete_resp", "mean delete time, ms"),
    ("Getattr_rate", "getattrs per second"),
    ("Getattr_resp", "mean getattr time, ms"),
    ("Setattr_rate", "setattrs per second"),
    ("Setattr_resp", "mean setattr time, ms"),
    ("Access_rate", "access calls per second"),
    ("Access_resp", "mean access time, ms"),
    ("Copy_rate", "copies per second"),
    ("Copy_resp", "mean copy time, ms"),
    ("Move_rate", "moves per second"),
    ("Move_resp", "mean move time, ms"),
    ("compratio", "compratio= asked for"),
    ("dedupratio", "dedupratio= asked for (n/a without dedup)"),
    ("cpu_used", "machine cpu busy, %"),
    ("cpu_user", "machine cpu in user mode, %"),
    ("cpu_kernel", "machine cpu in the kernel, %"),
    ("cpu_wait", "machine cpu waiting for I/O, %"),
    ("cpu_idle", "machine cpu idle, %"),
];

/// A flat file's head for these columns (vdbench's raw or file-system ones), laid out
/// as vdbench's: a comment block (`*` lines, one per column), then the column names,
/// each right-aligned in 10 (the first line a parser reads starts with a blank, as
/// vdbench's).
pub fn flat_head(columns: &[(&str, &str)]) -> String {
    let mut h = String::from(
        "*\n* fathom vdbench flat file: one row per interval and one per run average \
         (Interval avg_F-N), columns separated by blanks; lines starting '*' are comments.\n*\n",
    );
    for (name, what) in columns {
        h.push_str(&format!("* {name:<16}: {what}\n"));
    }
    h.push_str("* 'n/a'           : not known, or not one value\n* \n");
    h.push_str(&format!("{:>12} {:>23} ", "tod", "timestamp"));
    for (name, _) in columns {
        h.push_str(&format!("{name:>10} "));
    }
    h.push('\n');
    h
}

/// A file-system execution's flat file head.
pub fn fs_flat_head() -> String {
    flat_head(FS_FLAT_COLUMNS)
}

/// A flat-file row as vdbench lays it out: the time of day in 12, the timestamp in 24,
/// then each cell in 10 and a blank (figures `%.4f` rounded as Java rounds, counts and
/// names as they are, `n/a` where nothing is known), the machine's cpu last.
struct FlatLine(String);

impl FlatLine {
    fn start(tod: &str, stamp: &str, run: &str, interval: &str) -> FlatLine {
        let mut l = format!("{tod:>12} {:>24}", format!("{stamp} "));
        l.push_str(&format!("{run:>10} {interval:>10} "));
        FlatLine(l)
    }
    fn text(&mut self, v: impl std::fmt::Display) {
        self.0.push_str(&format!("{v:>10} "));
    }
    fn num(&mut self, v: f64) {
        self.text(java_fixed(v, 4));
    }
    fn opt(&mut self, v: Option<f64>) {
        match v {
            Some(v) => self.num(v),
            None => self.text("n/a"),
        }
    }
    /// The cpu columns (used, user, kernel, wait, idle) and the line's end.
    fn end(mut self, iv: &Iv) -> String {
        let (cpu, sys) = iv.cpu.unwrap_or((0.0, 0.0));
        for v in [cpu, (cpu - sys).max(0.0), sys, 0.0, (100.0 - cpu).max(0.0)] {
            self.num(v);
        }
        self.0.push('\n');
        self.0
    }
}

/// One row of a file-system execution's flat file, in vdbench's cells (each in 10, figures `%.4f`;
/// the transfer size whole).
pub fn fs_flat_row(tod: &str, stamp: &str, interval: &str, f: &RunFacts, iv: &Iv) -> String {
    let mut l = FlatLine::start(tod, stamp, &f.run, interval);
    for v in [f.reqrate, iv.rate(), iv.resp()[0], iv.mbs()]
        .into_iter()
        .chain(iv.dir_figures())
    {
        l.num(v);
    }
    l.text(iv.bytes_per_io());
    for k in 0..META_COLS.len() {
        let (rate, resp) = iv.meta_figures(k);
        l.num(rate);
        l.num(resp);
    }
    l.num(f.compratio);
    l.opt(f.dedupratio);
    l.end(iv)
}

/// What the flat file says of the run beside the measured figures (None: `n/a`, the
/// WDs asking for different values).
#[derive(Debug, Clone, Default)]
pub struct RunFacts {
    /// Run name.
    pub run: String,
    /// Requested rate (vdbench's 9999988 for max, 9999977 for a curve's max run).
    pub reqrate: f64,
    /// xfersize requested (the first size of the first WD's list).
    pub xfersize: Option<u64>,
    /// Threads (-1 when the SDs differ).
    pub threads: i64,
    /// rdpct, rhpct, whpct requested.
    pub rdpct: Option<f64>,
    /// See rdpct.
    pub rhpct: Option<f64>,
    /// See rdpct.
    pub whpct: Option<f64>,
    /// seekpct requested (None for eof, as vdbench's -1).
    pub seekpct: Option<f64>,
    /// GiB of all luns.
    pub lunsize: f64,
    /// compratio.
    pub compratio: f64,
    /// dedupratio (None without dedup).
    pub dedupratio: Option<f64>,
}

/// One row of a raw execution's flat file, in vdbench's cells (each in 10, figures `%.4f`; counts
/// whole, `n/a` where the WDs differ, `version` never filled, as vdbench).
pub fn flat_row(tod: &str, stamp: &str, interval: &str, f: &RunFacts, iv: &Iv) -> String {
    let r = iv.resp();
    let mut l = FlatLine::start(tod, stamp, &f.run, interval);
    for v in [f.reqrate, iv.rate(), iv.mbs()] {
        l.num(v);
    }
    l.text(iv.bytes_per_io());
    for v in [iv.readpct(), r[0], r[1], r[2], iv.max_ms()[0], iv.std()[0]] {
        l.num(v);
    }
    match f.xfersize {
        Some(x) => l.text(x),
        None => l.text("n/a"),
    }
    l.text(f.threads);
    for v in [f.rdpct, f.rhpct, f.whpct, f.seekpct] {
        l.opt(v);
    }
    l.num(f.lunsize);
    l.text("n/a");
    l.num(f.compratio);
    l.opt(f.dedupratio);
    l.num(iv.queue_depth());
    l.end(iv)
}

/// vdbench's counters at the end of a file-system run (its `Miscellaneous statistics`),
/// those fathom keeps, in vdbench's order: its name, label, and the metadata column it
/// counts (None: counted apart).
pub const MISC_COUNTERS: [(&str, &str, Option<&str>); 12] = [
    ("FILE_CREATES", "Files created", Some("create")),
    ("DIRECTORY_CREATES", "Directories created", Some("mkdir")),
    ("FILE_DELETES", "Files deleted", Some("delete")),
    ("DIRECTORY_DELETES", "Directories deleted", Some("rmdir")),
    ("READ_OPENS", "Files opened for read activity", None),
    ("WRITE_OPENS", "Files opened for write activity", None),
    ("FILE_BUSY", "File busy", None),
    ("GET_ATTR", "Getattr requests", None),
    ("SET_ATTR", "Setattr requests", Some("setattr")),
    ("FILE_CLOSES", "Close requests", Some("close")),
    ("FILES_COPIED", "Files copied", Some("copy")),
    ("FILES_MOVED", "Files moved", Some("move")),
];

/// vdbench's `Miscellaneous statistics` block, each line stamped `tod`: the counters
/// not zero (`counts` in [`MISC_COUNTERS`]' order), each with its count and its count
/// per second over the run's `intervals` of `interval_secs` (whole numbers, divided as
/// vdbench divides them); or its one line when all are zero.
pub fn misc_statistics(tod: &str, counts: &[u64], intervals: u64, interval_secs: u64) -> String {
    if counts.iter().all(|c| *c == 0) {
        return format!("{tod} Miscellaneous statistics: All counters are zero\n");
    }
    let mut s = format!(
        "{tod} \n{tod} Miscellaneous statistics:\n{tod} (These statistics do not include \
         activity between the last reported interval and shutdown.)\n"
    );
    for ((name, label, _), c) in MISC_COUNTERS.iter().zip(counts) {
        if *c == 0 {
            continue;
        }
        let per_sec = *c / intervals.max(1) / interval_secs.max(1);
        let head = format!("{name:<20}{label}:");
        s.push_str(&format!(
            "{tod} {head:<60} {:>10} {:>10}/sec\n",
            crate::value::grouped(*c),
            crate::value::grouped(per_sec)
        ));
    }
    s.push_str(&format!("{tod} \n"));
    s
}

/// Response-time histogram of a run (histogram.html): buckets doubling from 1 µs.
pub fn histogram(lat: &fathom::LatStat) -> String {
    let n = lat.count();
    let mut s = String::from("     min(ms)      max(ms)       count     pct  cumulative\n");
    if n == 0 {
        return s;
    }
    let h = lat.histogram();
    let mut lo = 0u64;
    let mut hi = 1000u64;
    let mut cum = 0u64;
    while lo <= lat.max() {
        let c = h.count_between(lo, hi.saturating_sub(1));
        if c > 0 {
            cum += c;
            s.push_str(&format!(
                "{:>12.3} {:>12.3} {:>11} {:>7.2} {:>11.2}\n",
                lo as f64 / 1e6,
                hi as f64 / 1e6,
                c,
                c as f64 * 100.0 / n as f64,
                cum as f64 * 100.0 / n as f64
            ));
        }
        lo = hi;
        hi = hi.saturating_mul(2);
        if hi == u64::MAX {
            break;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_samples_fill_their_columns_and_the_requested_count() {
        let s = |ios: u64, sum: u64| fathom::Sample {
            len_ms: 1000,
            ios,
            clat_sum: sum,
            clat_sumsq: (sum as f64) * (sum as f64) / ios.max(1) as f64,
            clat_max: sum / ios.max(1),
            ..Default::default()
        };
        let open = [s(100, 100_000_000)];
        let close = [s(100, 10_000_000)];
        let iv = iv_of_meta(&[("open", &open[..]), ("close", &close[..])], 0).unwrap();
        // Both columns count; ReqstdOps is the open alone.
        assert_eq!(iv.meta[meta_col("open").unwrap()], (100, 1e8));
        assert_eq!(iv.meta[meta_col("close").unwrap()], (100, 1e7));
        assert_eq!(iv.rate(), 100.0);
        assert_eq!(iv.resp()[0], 1.0);
        assert_eq!(meta_col("stat"), meta_col("getattr"));
        assert_eq!(meta_col("rename"), Some(10));
        assert!(iv_of_meta(&[("open", &open[..])], 1).is_none());
        // The line: open 100/s at 1 ms, close 100/s at 0.1 ms.
        let l = fs_line("10:00:00.000", "1", &iv, [false; 5]);
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 2 + 25, "{l}");
        assert_eq!((f[2], f[3]), ("100.0", "1.000"), "{l}");
        assert_eq!((f[21], f[22]), ("100.0", "1.000"), "open: {l}");
        assert_eq!((f[23], f[24]), ("100.0", "0.100"), "close: {l}");
        // Each optional operation used adds its two columns.
        assert_eq!(
            fs_line("x", "1", &iv, [true, false, false, true, false])
                .split_whitespace()
                .count(),
            2 + 29
        );
        assert_eq!(
            fs_line("x", "1", &iv, [true; 5]).split_whitespace().count(),
            2 + 35
        );
        // An empty line, then the two header lines, the first opening with the date.
        let h = fs_header([true; 5]);
        assert_eq!(h.lines().count(), 3);
        assert!(h.lines().nth(1).unwrap().starts_with(&header_date()), "{h}");
        // vdbench 5.04.06's lines, from its console (a format run: 2 mkdirs; 8 creates, opens, closes).
        let h = fs_header([false; 5]);
        let date = header_date();
        assert_eq!(
            h,
            format!(
                "\n{date:<12} .Interval. .ReqstdOps... ...cpu%...  read ....read..... ....write.... \
                 ..mb/sec... mb/sec .xfer.. ...mkdir.... ...rmdir.... ...create... ....open.... \
                 ...close.... ...delete...\n                          rate   resp total  sys   pct   \
                 rate   resp   rate   resp  read write  total    size  rate   resp  rate   resp  \
                 rate   resp  rate   resp  rate   resp  rate   resp\n"
            )
        );
        let iv = format_iv((21.5, 3.54));
        assert_eq!(
            fs_line("23:56:12.096", "1", &iv, [false; 5]),
            "23:56:12.096          1   32.0  0.052  21.5 3.54   0.0    0.0  0.000   32.0  0.052  \
             0.00  2.00   2.00   65536   2.0  2.893   0.0  0.000   8.0  1.933   8.0  0.396   8.0  \
             0.087   0.0  0.000\n"
        );
        // Too wide for its column: the decimals go (cut), then the column widens.
        assert_eq!(fit(447223.04, 6, 1), "447223");
        assert_eq!(fit(12345.67, 6, 1), " 12345");
        assert_eq!(fit(123.4567, 6, 3), "123.45");
        assert_eq!(fit(1234567.0, 6, 1), "1234567");
        assert_eq!(fit(0.052, 6, 3), " 0.052");
        let r = header();
        assert!(
            r.starts_with(&format!("\n{}    interval", header_date())),
            "{r}"
        );
        // The raw line's interval column is 12 wide after the time of day (5.04.07's).
        let l = line("10:00:00.000", "avg_2-8", &iv);
        assert!(l.starts_with("10:00:00.000     avg_2-8 "), "{l}");
    }

    /// The interval of vdbench 5.04.06's format_for_rd1 (8 files of 256k in 64k writes,
    /// two directories; its flat file's figures), with the machine's cpu.
    fn format_iv(cpu: (f64, f64)) -> Iv {
        let mut iv = Iv {
            secs: 1.0,
            ios: [0, 32],
            bytes: [0, 32 * 65536],
            cpu: Some(cpu),
            ..Default::default()
        };
        iv.sum[1] = 32.0 * 0.0519e6;
        for (op, n, ms) in [
            ("mkdir", 2, 2.893),
            ("create", 8, 1.933),
            ("open", 8, 0.3958),
            ("close", 8, 0.0868),
        ] {
            iv.meta[meta_col(op).unwrap()] = (n, n as f64 * ms * 1e6);
        }
        iv
    }

    #[test]
    fn a_file_system_flat_row_is_vdbench_s() {
        // vdbench 5.04.06's format_for_rd1 row (8 files of 256k in 64k writes, two
        // directories), its cells byte for byte up to the cpu columns.
        let iv = format_iv((17.9293, 3.5354));
        let f = RunFacts {
            run: "format_for_rd1".into(),
            reqrate: 9_999_988.0,
            compratio: 1.0,
            ..Default::default()
        };
        let row = fs_flat_row("23:56:12.109", "11/28/2026-23:56:12-UTC", "1", &f, &iv);
        let vdbench = concat!(
            "23:56:12.109 11/28/2026-23:56:12-UTC format_for_rd1          1 9999988.0000    32.0000  ",
            "   0.0519     2.0000     0.0000     0.0000    32.0000     0.0519     0.0000     2.0000  ",
            "    65536     2.0000     2.8930     0.0000     0.0000     8.0000     1.9330     8.0000  ",
            "   0.3958     8.0000     0.0868     0.0000     0.0000     0.0000     0.0000     0.0000  ",
            "   0.0000     0.0000     0.0000     0.0000     0.0000     0.0000     0.0000     1.0000  ",
            "      n/a ",
        );
        assert!(row.starts_with(vdbench), "{row}");
        // Then cpu used, user, kernel, wait, idle.
        let cpu: Vec<&str> = row[vdbench.len()..].split_whitespace().collect();
        assert_eq!(cpu, ["17.9293", "14.3939", "3.5354", "0.0000", "82.0707"]);
        // The head: comment lines, then the names, each right-aligned in 10 after the
        // time of day and timestamp, as vdbench's.
        let h = fs_flat_head();
        let names = h.lines().last().unwrap();
        assert!(
            names.starts_with(
                "         tod               timestamp        Run   Interval    reqrate "
            ),
            "{names}"
        );
        assert!(names.ends_with("   cpu_wait   cpu_idle "), "{names}");
        assert_eq!(names.split_whitespace().count(), 2 + FS_FLAT_COLUMNS.len());
        assert!(h
            .lines()
            .take_while(|l| *l != names)
            .all(|l| l.starts_with('*')));
        assert_eq!(row.split_whitespace().count(), 2 + FS_FLAT_COLUMNS.len());
    }

    #[test]
    fn misc_statistics_are_vdbench_s_block() {
        let mut counts = [0u64; MISC_COUNTERS.len()];
        counts[4] = 31_234; // READ_OPENS
        counts[6] = 1_502; // FILE_BUSY
        counts[9] = 31_230; // FILE_CLOSES
        let b = misc_statistics("10:00:05.000", &counts, 5, 1);
        let lines: Vec<&str> = b.lines().collect();
        assert_eq!(lines[0], "10:00:05.000 ");
        assert_eq!(lines[1], "10:00:05.000 Miscellaneous statistics:");
        assert!(lines[2].starts_with("10:00:05.000 (These statistics do not include"));
        assert_eq!(
            lines[3],
            "10:00:05.000 READ_OPENS          Files opened for read activity:              31,234      6,246/sec"
        );
        assert!(lines[4].starts_with("10:00:05.000 FILE_BUSY           File busy:"));
        assert!(
            lines[4].ends_with("     1,502        300/sec"),
            "{}",
            lines[4]
        );
        assert!(lines[5].starts_with("10:00:05.000 FILE_CLOSES"));
        assert_eq!(lines[6], "10:00:05.000 ");
        assert_eq!(lines.len(), 7);
        assert_eq!(
            misc_statistics("t", &[0; MISC_COUNTERS.len()], 5, 1),
            "t Miscellaneous statistics: All counters are zero\n"
        );
    }

    #[test]
    fn cells_round_as_java_s_format() {
        // Java 17's String.format("%.Nf") on these: the shortest decimal, half up.
        assert_eq!(java_fixed(0.03125, 4), "0.0313");
        assert_eq!(java_fixed(0.15, 1), "0.2");
        assert_eq!(java_fixed(0.35, 1), "0.4");
        assert_eq!(java_fixed(2.00005, 4), "2.0001");
        assert_eq!(java_fixed(1.005, 2), "1.01");
        assert_eq!(java_fixed(0.25, 1), "0.3");
        assert_eq!(java_fixed(9.99995, 4), "10.0000");
        assert_eq!(java_fixed(99.96, 1), "100.0");
        assert_eq!(java_fixed(65536.0, 0), "65536");
        assert_eq!(java_fixed(9_999_988.0, 4), "9999988.0000");
        assert_eq!(java_fixed(-0.00001, 4), "0.0000");
        assert_eq!(java_fixed(-1.25, 1), "-1.3");
        assert_eq!(java_fixed(1e-7, 4), "0.0000");
    }

    #[test]
    fn a_raw_flat_row_is_vdbench_s() {
        // vdbench 5.04.06's raw columns and cells: names from Flat.java's order, doubles
        // in %10.4f, counts in %10d, n/a where the WDs differ or nothing is known; the
        // standard deviation over n-1 (SdStats.resptime_std).
        let iv = Iv {
            secs: 1.0,
            ios: [750, 250],
            bytes: [750 * 4096, 250 * 4096],
            sum: [750.0 * 1e6, 250.0 * 3e6],
            sumsq: [750.0 * 1e12, 250.0 * 9e12],
            max: [1_000_000, 3_000_000],
            cpu: Some((12.5, 2.5)),
            ..Iv::default()
        };
        let f = RunFacts {
            run: "rd1".into(),
            reqrate: 9_999_988.0,
            xfersize: Some(4096),
            threads: 8,
            rdpct: Some(75.0),
            rhpct: Some(0.0),
            whpct: Some(0.0),
            seekpct: Some(100.0),
            lunsize: 0.03125,
            compratio: 1.0,
            dedupratio: None,
        };
        let row = flat_row("10:00:01.000", "11/29/2026-10:00:01-UTC", "1", &f, &iv);
        let vdbench = concat!(
            "10:00:01.000 11/29/2026-10:00:01-UTC        rd1          1 9999988.0000  1000.0000 ",
            "    3.9063       4096    75.0000     1.5000     1.0000     3.0000     3.0000 ",
            "    0.8665       4096          8    75.0000     0.0000     0.0000   100.0000 ",
            "    0.0313        n/a     1.0000        n/a     1.5000    12.5000    10.0000 ",
            "    2.5000     0.0000    87.5000 \n",
        );
        assert_eq!(row, vdbench);
        // The WDs differ: n/a in their cells; seekpct=eof is n/a too (vdbench's -1).
        let g = RunFacts {
            xfersize: None,
            threads: -1,
            rdpct: None,
            seekpct: None,
            ..f
        };
        let cells: Vec<String> = flat_row("t", "s", "avg_2-3", &g, &iv)
            .split_whitespace()
            .map(String::from)
            .collect();
        let col = |name: &str| FLAT_COLUMNS.iter().position(|c| c.0 == name).unwrap() + 2;
        assert_eq!(cells[col("xfersize")], "n/a");
        assert_eq!(cells[col("threads")], "-1");
        assert_eq!(cells[col("rdpct")], "n/a");
        assert_eq!(cells[col("seekpct")], "n/a");
        assert_eq!(cells[col("Interval")], "avg_2-3");
        // The head: 30 names in vdbench's order, the first line a parser reads starting
        // with a blank.
        let h = flat_head(FLAT_COLUMNS);
        let names = h.lines().last().unwrap();
        assert!(
            names.starts_with(
                "         tod               timestamp        Run   Interval    reqrate       rate     MB/sec   bytes/io      read%       resp  read_resp write_resp   resp_max   resp_std   xfersize    threads      rdpct      rhpct      whpct    seekpct    lunsize    version  compratio dedupratio queue_depth   cpu_used "
            ),
            "{names}"
        );
        assert_eq!(names.split_whitespace().count(), 30);
    }

    #[test]
    fn figures_from_counts() {
        let iv = Iv {
            secs: 2.0,
            ios: [300, 100],
            bytes: [300 * 4096, 100 * 4096],
            sum: [300.0 * 1e6, 100.0 * 3e6],
            sumsq: [300.0 * 1e12, 100.0 * 9e12],
            max: [1_000_000, 3_000_000],
            cpu: Some((10.0, 4.0)),
            ..Iv::default()
        };
        assert_eq!(iv.rate(), 200.0);
        assert_eq!(iv.bytes_per_io(), 4096);
        assert_eq!(iv.readpct(), 75.0);
        assert_eq!(iv.resp(), [1.5, 1.0, 3.0]);
        assert!(iv.std()[1].abs() < 1e-9);
        assert!((iv.queue_depth() - 0.3).abs() < 1e-9);
        let l = line("10:00:00.000", "1", &iv);
        assert!(
            l.contains("   200.0     0.78    4096  75.00    1.500    1.000    3.000"),
            "{l}"
        );
        let f = flat_row(
            "t",
            "s",
            "avg_2-3",
            &RunFacts {
                run: "rd1".into(),
                ..Default::default()
            },
            &iv,
        );
        assert_eq!(f.split_whitespace().count(), 2 + FLAT_COLUMNS.len());
        let mut a = iv;
        a.add_after(&iv);
        assert_eq!(a.secs, 4.0);
        assert_eq!(a.rate(), 200.0);
    }
}
