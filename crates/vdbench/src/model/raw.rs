//! Raw I/O definitions: open flags, SD, transfer sizes, seekpct, WD and its parameters.
use super::*;

/// Open flags.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Flags {
    /// o_direct / directio.
    pub direct: bool,
    /// o_dsync.
    pub dsync: bool,
    /// o_sync.
    pub sync: bool,
    /// fsync: fsync the file when it is closed.
    pub fsync: bool,
}

impl Flags {
    /// The flags an `openflags=` item names.
    pub(super) fn parse(it: &Item) -> Result<Flags, VdbError> {
        let mut f = Flags::default();
        f.apply(it)?;
        Ok(f)
    }
    pub(super) fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
        *self = Flags::default();
        for w in &it.list {
            match w.to_ascii_lowercase().as_str() {
                "o_direct" | "directio" => self.direct = true,
                "o_dsync" => self.dsync = true,
                "o_sync" | "o_rsync" => self.sync = true,
                "fsync" => self.fsync = true,
                "none" => {}
                other => {
                    return Err(it
                        .err(format!("open flag '{other}' is not implemented"))
                        .hint("use o_direct, directio, o_dsync, o_sync or fsync"))
                }
            }
        }
        Ok(())
    }
    /// Any set.
    pub fn any(&self) -> bool {
        self.direct || self.dsync || self.sync || self.fsync
    }
    /// As vdbench writes them.
    pub fn show(&self) -> String {
        let mut v = Vec::new();
        if self.direct {
            v.push("o_direct");
        }
        if self.dsync {
            v.push("o_dsync");
        }
        if self.sync {
            v.push("o_sync");
        }
        if self.fsync {
            v.push("fsync");
        }
        v.join(",")
    }
}

/// A storage definition.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sd {
    /// Name.
    pub name: String,
    /// The device or file.
    pub lun: String,
    /// Size (a missing file is created at it).
    pub size: Option<u64>,
    /// Outstanding I/Os.
    pub threads: u32,
    /// Open flags.
    pub flags: Flags,
    /// Bytes skipped at the start.
    pub offset: u64,
    /// Alignment of random offsets (0: the transfer size).
    pub align: u64,
    /// `range=(from,to)`: percent up to 100, bytes past (see `range_pct`).
    pub range: Option<(f64, f64)>,
    /// Host.
    pub host: Option<String>,
    /// Cache hit area.
    pub hitarea: Option<u64>,
    /// `journal=`: the folder for this SD's journal (with `-j`).
    pub journal: Option<String>,
}

pub(super) const SD_KEYS: &[&str] = &[
    "lun",
    "size",
    "threads",
    "openflags",
    "offset",
    "align",
    "range",
    "count",
    "host",
    "hd",
    "hitarea",
    "journal",
];

/// `range=(from,to)` (and `hotband=`) as vdbench reads it: a value up to 100 is a
/// percentage of the SD, a larger one bytes (`range=(1g,2g)`; the end only past 200: an
/// end between 100 and 200 is a percentage past the SD's end, where the range wraps
/// round to the SD's start, as vdbench's; less than 100% in all, as vdbench demands).
pub(super) fn range_pct(it: &Item) -> Result<(f64, f64), VdbError> {
    let v = expand(it, crate::value::number_or_size)?;
    let (a, b) = match v.as_slice() {
        [b] => (0.0, *b),
        [a, b] => (*a, *b),
        _ => return Err(it.err(format!("{}=(from,to), percentages of the size", it.key))),
    };
    if b <= a {
        return Err(it.err(format!("{}=(from,to) needs from < to", it.key)));
    }
    let wraps = b > 100.0 && b <= 200.0;
    if wraps && it.key != "range" {
        return Err(it
            .err(format!(
                "{}=({},{}) wraps round the SD's end, which fathom implements for range= only",
                it.key,
                crate::value::show_num(a),
                crate::value::show_num(b)
            ))
            .hint("give the hot band within the SD (an end up to 100)"));
    }
    if wraps && a < 100.0 && b < 200.0 && b - a >= 100.0 {
        return Err(it.err(format!(
            "range=({},{}) may not cover 100% or more of the SD (as in vdbench)",
            crate::value::show_num(a),
            crate::value::show_num(b)
        )));
    }
    Ok((a, b))
}

/// Where a range value points in `avail` bytes: percent up to `pct_max`, else bytes.
pub fn range_bytes(v: f64, pct_max: f64, avail: u64) -> u64 {
    if v <= pct_max {
        (avail as f64 * v / 100.0) as u64
    } else {
        v as u64
    }
}

impl Sd {
    pub(super) fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
        match it.key.as_str() {
            "lun" => self.lun = it.one()?.to_string(),
            "size" => self.size = Some(bytes(it)?),
            "threads" => self.threads = positive(it)?,
            "openflags" => self.flags.apply(it)?,
            "offset" => self.offset = bytes(it)?,
            "align" => self.align = bytes(it)?,
            "range" => self.range = Some(range_pct(it)?),
            "host" | "hd" => self.host = Some(it.one()?.to_string()),
            "hitarea" => self.hitarea = Some(bytes(it)?),
            "journal" => self.journal = Some(it.one()?.to_string()),
            "count" => {}
            _ => return Err(refuse_or_unknown(it, "SD", SD_KEYS)),
        }
        Ok(())
    }
}

pub(crate) fn positive(it: &Item) -> Result<u32, VdbError> {
    let v = num(it)?;
    if v < 1.0 || v.fract() != 0.0 || v > 65536.0 {
        return Err(it.err("a whole number from 1 to 65536"));
    }
    Ok(v as u32)
}

/// Transfer sizes.
#[derive(Debug, Clone, PartialEq)]
pub enum Xfer {
    /// One size.
    Fixed(u64),
    /// Sizes with percentages.
    Split(Vec<(u64, f64)>),
    /// A random size from min to max, a multiple of align.
    Range(u64, u64, u64),
}

impl Xfer {
    pub(super) fn parse(it: &Item) -> Result<Xfer, VdbError> {
        let w = &it.list;
        if w.len() == 1 {
            return Ok(Xfer::Fixed(bytes(it)?));
        }
        let sz = |s: &str| size(s).map_err(|e| it.err(e));
        if w.len() == 3 {
            let (a, b, c) = (sz(&w[0])?, sz(&w[1])?, sz(&w[2])?);
            if a == 0 || b < a || c == 0 {
                return Err(it.err("xfersize=(min,max,align) needs 0 < min <= max and align > 0"));
            }
            return Ok(Xfer::Range(a, b, c));
        }
        if w.len() % 2 != 0 {
            return Err(
                it.err("a distribution is pairs of size and percent, e.g. xfersize=(4k,30,64k,70)")
            );
        }
        let mut v = Vec::new();
        for p in w.chunks(2) {
            v.push((sz(&p[0])?, number(&p[1]).map_err(|e| it.err(e))?));
        }
        let total: f64 = v.iter().map(|p| p.1).sum();
        if (total - 100.0).abs() > 0.01 {
            return Err(it.err(format!("the percentages add up to {total}, not 100")));
        }
        Ok(Xfer::Split(v))
    }
    /// The mean size (for the flat file's xfersize column, and rates in bytes).
    pub fn mean(&self) -> f64 {
        match self {
            Xfer::Fixed(v) => *v as f64,
            Xfer::Split(v) => v.iter().map(|(s, p)| *s as f64 * p / 100.0).sum(),
            Xfer::Range(a, b, _) => (*a + *b) as f64 / 2.0,
        }
    }
    /// The largest size.
    pub fn max(&self) -> u64 {
        match self {
            Xfer::Fixed(v) => *v,
            Xfer::Split(v) => v.iter().map(|p| p.0).max().unwrap_or(0),
            Xfer::Range(_, b, _) => *b,
        }
    }
    /// The smallest size.
    pub fn min(&self) -> u64 {
        match self {
            Xfer::Fixed(v) => *v,
            Xfer::Split(v) => v.iter().map(|p| p.0).min().unwrap_or(0),
            Xfer::Range(a, _, _) => *a,
        }
    }
    /// As written in a banner.
    pub fn show(&self) -> String {
        match self {
            Xfer::Fixed(v) => crate::value::show_size(*v),
            Xfer::Split(v) => format!(
                "({})",
                v.iter()
                    .map(|(s, p)| format!(
                        "{},{}",
                        crate::value::show_size(*s),
                        crate::value::show_num(*p)
                    ))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Xfer::Range(a, b, c) => format!(
                "({},{},{})",
                crate::value::show_size(*a),
                crate::value::show_size(*b),
                crate::value::show_size(*c)
            ),
        }
    }
}

/// seekpct.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Seek {
    /// Sequential, wrapping at the end.
    Seq,
    /// Sequential once through, then the run ends.
    Eof,
    /// This percent of I/Os seek (100: all random).
    Pct(f64),
}

impl Seek {
    pub(super) fn parse(it: &Item) -> Result<Seek, VdbError> {
        Ok(match it.one()?.to_ascii_lowercase().as_str() {
            "seq" | "sequential" | "0" => Seek::Seq,
            "eof" => Seek::Eof,
            "random" | "rand" => Seek::Pct(100.0),
            _ => Seek::Pct(pct(it)?),
        })
    }
    /// As the flat file shows it.
    pub fn show(&self) -> String {
        match self {
            Seek::Seq => "0".into(),
            Seek::Eof => "eof".into(),
            Seek::Pct(p) => crate::value::show_num(*p),
        }
    }
}

/// Workload parameters a WD sets and an RD (or its for-loops) may override.
#[derive(Debug, Clone, PartialEq)]
pub struct WdParams {
    /// Transfer size.
    pub xfer: Xfer,
    /// Read percentage.
    pub rdpct: f64,
    /// Seek percentage.
    pub seek: Seek,
    /// Read-hit and write-hit percentages.
    pub rhpct: f64,
    /// See `rhpct`.
    pub whpct: f64,
    /// Hit area size.
    pub hitarea: u64,
    /// Share of the run's rate, percent.
    pub skew: Option<f64>,
    /// Part of the SD, percent.
    pub range: Option<(f64, f64)>,
    /// Fixed rate of this WD.
    pub iorate: Option<f64>,
    /// Compression ratio of written data.
    pub compratio: Option<f64>,
    /// Open flags (WD or RD level).
    pub flags: Option<Flags>,
    /// Threads (RD level: overrides each SD's).
    pub threads: Option<u32>,
    /// stride=(min,max): skip-sequential steps instead of random seeks.
    pub stride: Option<(u64, u64)>,
    /// hotband=(from,to): the range, with random seeks on vdbench's hot-band curve.
    pub hotband: bool,
    /// priority= (1 first; WD only): the SD's threads go to the waiting I/O of the
    /// highest priority.
    pub priority: Option<u32>,
    /// threads= on the WD itself (only with `concatenatesds=yes`): the I/Os in flight on
    /// its concatenated SD (an RD's threads=, in `threads`, are shared by all of them).
    pub own_threads: Option<u32>,
    /// streams=N (WD only): the SD split into N equal parts, each walked sequentially
    /// by its share of the threads.
    pub streams: Option<u32>,
}

impl Default for WdParams {
    fn default() -> Self {
        WdParams {
            xfer: Xfer::Fixed(4096),
            rdpct: 100.0,
            seek: Seek::Pct(100.0),
            rhpct: 0.0,
            whpct: 0.0,
            hitarea: 1 << 20,
            skew: None,
            range: None,
            iorate: None,
            compratio: None,
            flags: None,
            threads: None,
            stride: None,
            hotband: false,
            priority: None,
            own_threads: None,
            streams: None,
        }
    }
}

impl WdParams {
    /// Apply a workload parameter; false when `it` is not one.
    pub fn apply(&mut self, it: &Item) -> Result<bool, VdbError> {
        match it.key.as_str() {
            "xfersize" | "transfersize" => self.xfer = Xfer::parse(it)?,
            "rdpct" | "readpct" => self.rdpct = pct(it)?,
            "writepct" | "wrpct" => self.rdpct = 100.0 - pct(it)?,
            "seekpct" | "seek" => self.seek = Seek::parse(it)?,
            "rhpct" => self.rhpct = pct(it)?,
            "whpct" => self.whpct = pct(it)?,
            "hitarea" => self.hitarea = bytes(it)?,
            "skew" => self.skew = Some(pct(it)?),
            "range" => self.range = Some(range_pct(it)?),
            "hotband" => {
                self.range = Some(range_pct(it)?);
                self.hotband = true;
            }
            "compratio" => self.compratio = Some(num(it)?.max(1.0)),
            "openflags" => self.flags = Some(Flags::parse(it)?),
            "stride" => {
                let v: Vec<u64> = it
                    .list
                    .iter()
                    .map(|w| size(w).map_err(|e| it.err(e)))
                    .collect::<Result<_, _>>()?;
                self.stride = match v.as_slice() {
                    [a, b] if a <= b => Some((*a, *b)),
                    [a] => Some((*a, *a)),
                    _ => return Err(it.err("stride=(min,max), min no larger than max")),
                };
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A workload definition.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Wd {
    /// Name.
    pub name: String,
    /// The SDs, resolved.
    pub sds: Vec<String>,
    /// Parameters.
    pub p: WdParams,
    /// Host.
    pub host: Option<String>,
}

pub(super) const WD_KEYS: &[&str] = &[
    "sd",
    "xfersize",
    "rdpct",
    "seekpct",
    "rhpct",
    "whpct",
    "hitarea",
    "skew",
    "range",
    "hotband",
    "iorate",
    "priority",
    "streams",
    "compratio",
    "openflags",
    "stride",
    "threads",
    "host",
    "hd",
];
