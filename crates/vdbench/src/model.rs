//! Typed definitions: general parameters, HD, SD, WD, FSD, FWD and RD, with `default`
//! definitions applied, names resolved (`sd=sd*`, `wd=(wd1,wd2)`), and every keyword
//! either understood or refused by name.

use crate::parse::{Def, Item, Kind, ParmFile, VdbError};
use crate::value::{expand, number, secs, size, size_f};

/// vdbench keywords fathom knows but does not implement, with why or what to use.
const REFUSED: &[(&str, &str)] = &[
    ("dedupratio", "deduplicated data patterns are not implemented; remove it (dedupratio=1 is accepted)"),
    ("dedupunit", "deduplicated data patterns are not implemented"),
    ("dedupsets", "deduplicated data patterns are not implemented"),
    ("dedupflipflop", "deduplicated data patterns are not implemented"),
    ("dedupdirectory", "deduplicated data patterns are not implemented"),
    ("streams", "independent sequential streams are not implemented"),
    ("stride", "strided sequential access is not implemented"),
    ("priority", "WD priorities are not implemented; give each WD its own skew= instead"),
    ("replay", "I/O replay is not implemented; fathom runs fio iologs (read_iolog=) instead"),
    ("rg", "replay groups are not implemented"),
    ("concatenatesds", "concatenated SDs are not implemented"),
    ("showlba", "showlba is not implemented"),
    ("jvms", "fathom runs one process per host; remove jvms="),
    ("port", "fathom's many-host runs use MPI, not vdbench's port"),
    ("monitor", "monitor files are not implemented"),
    ("loop", "repeating the whole parameter file is not implemented; use fathom's --repeat on a job file"),
    ("patterns", "data pattern files are not implemented"),
    ("pattern", "data pattern files are not implemented"),
    ("timeout", "timeout= is not implemented"),
    ("swat", "SWAT replay is not implemented"),
    ("tape", "tape testing is not implemented"),
    ("resetbus", "bus resets are not implemented"),
    ("formatxfersize", "formatsds= is not implemented; run a sequential write RD first (seekpct=eof,rdpct=0)"),
    ("mirror", "mirrored SDs are not implemented"),
    ("hotband", "hot bands are not implemented"),
    ("fwd_thread_adjust", "fwd_thread_adjust is not implemented"),
    ("clean_port_on_exit", "vdbench's many-host ports are not used"),
    ("compression", "compression= was replaced by compratio= in vdbench 5.03"),
];

fn refuse_or_unknown(it: &Item, kind: &str, known: &[&str]) -> VdbError {
    if let Some((_, why)) = REFUSED.iter().find(|(k, _)| *k == it.key) {
        return it
            .err(format!("vdbench's {} is not implemented by fathom", it.key))
            .hint(*why);
    }
    let mut best: Option<(usize, &str)> = None;
    for c in known {
        let d = strsim::levenshtein(&it.key, c);
        if d <= (it.key.len() / 3).max(2) && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    let e = it.err(format!("not a vdbench {kind} parameter"));
    match best {
        Some((_, c)) => e.hint(format!("did you mean {c}=?")),
        None => e.hint(format!("{kind} parameters: {}", known.join(", "))),
    }
}

/// General parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct General {
    /// Stop after this many data validation errors.
    pub data_errors: u64,
    /// Requested compression ratio (data pattern).
    pub compratio: f64,
    /// `validate=yes`: as `-v`.
    pub validate: bool,
    /// `journal=yes` or a folder: as `-j`.
    pub journal: Option<String>,
    /// `create_anchors=yes`: make missing FSD anchors.
    pub create_anchors: bool,
    /// `startcmd=` / `endcmd=`: shell commands before the first and after the last run.
    pub startcmd: Option<String>,
    /// See `startcmd`.
    pub endcmd: Option<String>,
}

impl Default for General {
    fn default() -> Self {
        General {
            data_errors: 50,
            compratio: 1.0,
            validate: false,
            journal: None,
            create_anchors: false,
            startcmd: None,
            endcmd: None,
        }
    }
}

const GENERAL_KEYS: &[&str] = &[
    "data_errors",
    "compratio",
    "dedupratio",
    "validate",
    "journal",
    "messagescan",
    "histogram",
    "report",
    "create_anchors",
    "startcmd",
    "start_cmd",
    "endcmd",
    "end_cmd",
    "formatsds",
    "debug",
    "include",
    "abort_failed_skew",
    "fwd_thread_adjust",
    "showlba",
];

fn yes(it: &Item) -> Result<bool, VdbError> {
    match it.one()?.to_ascii_lowercase().as_str() {
        "yes" | "y" | "true" | "1" => Ok(true),
        "no" | "n" | "false" | "0" => Ok(false),
        _ => Err(it.err("use yes or no")),
    }
}

fn num(it: &Item) -> Result<f64, VdbError> {
    number(it.one()?).map_err(|e| it.err(e))
}

fn pct(it: &Item) -> Result<f64, VdbError> {
    let v = num(it)?;
    if v > 100.0 {
        return Err(it.err("a percentage, 0 to 100"));
    }
    Ok(v)
}

fn bytes(it: &Item) -> Result<u64, VdbError> {
    size(it.one()?).map_err(|e| it.err(e))
}

impl General {
    fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
        match it.key.as_str() {
            "data_errors" => self.data_errors = num(it)? as u64,
            "compratio" => {
                self.compratio = num(it)?;
                if self.compratio < 1.0 {
                    return Err(it.err("a ratio of at least 1 (compratio=2 is 2:1)"));
                }
            }
            "dedupratio" => {
                if num(it)? != 1.0 {
                    return Err(refuse_or_unknown(it, "general", GENERAL_KEYS));
                }
            }
            "validate" => {
                self.validate = match it.one()?.to_ascii_lowercase().as_str() {
                    "no" => false,
                    "yes" | "read_after_write" | "continue_old_map" => true,
                    v => {
                        return Err(it
                            .err(format!("validate={v} is not implemented"))
                            .hint("use validate=yes or -v"))
                    }
                }
            }
            "journal" => {
                let v = it.one()?;
                self.journal = match v.to_ascii_lowercase().as_str() {
                    "no" => None,
                    "yes" | "recover" | "noflush" | "maponly" => Some(String::new()),
                    _ => Some(v.to_string()),
                };
            }
            "messagescan" | "debug" | "abort_failed_skew" => {}
            "histogram" => {
                if it.list.first().map(String::as_str) != Some("default") {
                    return Err(it.err("only histogram=default is implemented (fathom's histograms are exact to 0.1%)"));
                }
            }
            "report" => {
                for w in &it.list {
                    if !matches!(
                        w.as_str(),
                        "host_detail"
                            | "slave_detail"
                            | "sd_detail"
                            | "no_sd_detail"
                            | "run_detail"
                            | "all"
                    ) {
                        return Err(it.err(format!("report={w} is not implemented")));
                    }
                }
            }
            "create_anchors" => self.create_anchors = yes(it)?,
            "startcmd" | "start_cmd" => self.startcmd = Some(it.raw.trim_matches('"').to_string()),
            "endcmd" | "end_cmd" => self.endcmd = Some(it.raw.trim_matches('"').to_string()),
            "formatsds" => {
                if yes(it)? {
                    return Err(it.err("formatsds=yes is not implemented").hint("run a sequential write RD first: rd=format,wd=...,seekpct=eof,rdpct=0,iorate=max"));
                }
            }
            _ => return Err(refuse_or_unknown(it, "general", GENERAL_KEYS)),
        }
        Ok(())
    }
}

/// A host.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hd {
    /// Name.
    pub name: String,
    /// `system=`: the host's address.
    pub system: Option<String>,
}

const HD_KEYS: &[&str] = &[
    "system", "vdbench", "user", "shell", "jvms", "clients", "mount",
];

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
    fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
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
    /// `range=(from,to)` in percent.
    pub range: Option<(f64, f64)>,
    /// Host.
    pub host: Option<String>,
    /// Cache hit area.
    pub hitarea: Option<u64>,
    /// `journal=`: the folder for this SD's journal (with `-j`).
    pub journal: Option<String>,
}

const SD_KEYS: &[&str] = &[
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

fn range_pct(it: &Item) -> Result<(f64, f64), VdbError> {
    let v = expand(it, number)?;
    let (a, b) = match v.as_slice() {
        [b] => (0.0, *b),
        [a, b] => (*a, *b),
        _ => return Err(it.err("range=(from,to), percentages of the size")),
    };
    if b <= a || b > 100.0 {
        return Err(it.err("range=(from,to) needs from < to <= 100"));
    }
    Ok((a, b))
}

impl Sd {
    fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
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

fn positive(it: &Item) -> Result<u32, VdbError> {
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
    fn parse(it: &Item) -> Result<Xfer, VdbError> {
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
    fn parse(it: &Item) -> Result<Seek, VdbError> {
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
        }
    }
}

impl WdParams {
    /// Apply a workload parameter; false when `it` is not one.
    pub fn apply(&mut self, it: &Item) -> Result<bool, VdbError> {
        match it.key.as_str() {
            "xfersize" | "transfersize" => self.xfer = Xfer::parse(it)?,
            "rdpct" | "readpct" => self.rdpct = pct(it)?,
            "seekpct" | "seek" => self.seek = Seek::parse(it)?,
            "rhpct" => self.rhpct = pct(it)?,
            "whpct" => self.whpct = pct(it)?,
            "hitarea" => self.hitarea = bytes(it)?,
            "skew" => self.skew = Some(pct(it)?),
            "range" => self.range = Some(range_pct(it)?),
            "compratio" => self.compratio = Some(num(it)?.max(1.0)),
            "openflags" => {
                let mut f = Flags::default();
                f.apply(it)?;
                self.flags = Some(f);
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

const WD_KEYS: &[&str] = &[
    "sd",
    "xfersize",
    "rdpct",
    "seekpct",
    "rhpct",
    "whpct",
    "hitarea",
    "skew",
    "range",
    "iorate",
    "compratio",
    "openflags",
    "host",
    "hd",
];

/// File system definition.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fsd {
    /// Name.
    pub name: String,
    /// The directory the tree goes in.
    pub anchor: String,
    /// Levels of directories.
    pub depth: u32,
    /// Directories per directory.
    pub width: u32,
    /// Files per (bottom) directory.
    pub files: u32,
    /// File sizes with percentages.
    pub sizes: Vec<(u64, f64)>,
    /// Files in every directory (distribution=all).
    pub all: bool,
    /// Hosts share the tree.
    pub shared: bool,
    /// Open flags.
    pub flags: Flags,
    /// Host.
    pub host: Option<String>,
}

const FSD_KEYS: &[&str] = &[
    "anchor",
    "depth",
    "width",
    "files",
    "size",
    "sizes",
    "distribution",
    "shared",
    "openflags",
    "openflag",
    "count",
    "host",
    "hd",
    "journal",
    "total_size",
    "workingsetsize",
];

impl Fsd {
    fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
        match it.key.as_str() {
            "anchor" => self.anchor = it.one()?.to_string(),
            "shared" => self.shared = yes(it)?,
            "openflags" | "openflag" => self.flags.apply(it)?,
            "host" | "hd" => self.host = Some(it.one()?.to_string()),
            "journal" | "count" => {}
            "distribution" => {
                self.all = match it.one()?.to_ascii_lowercase().as_str() {
                    "bottom" => false,
                    "all" => true,
                    _ => return Err(it.err("use bottom or all")),
                }
            }
            "total_size" | "workingsetsize" => {
                return Err(it
                    .err(format!("{} is not implemented", it.key))
                    .hint("give files= and size="))
            }
            _ => {
                if !self.apply_shape(it)? {
                    return Err(refuse_or_unknown(it, "FSD", FSD_KEYS));
                }
            }
        }
        Ok(())
    }
    /// The tree's shape (also what `fordepth=` etc. set).
    pub fn apply_shape(&mut self, it: &Item) -> Result<bool, VdbError> {
        match it.key.as_str() {
            "depth" => self.depth = num(it)? as u32,
            "width" => self.width = positive(it)?,
            "files" => self.files = positive(it)?,
            "size" | "sizes" | "filesize" | "filesizes" => {
                if it.list.len() == 1 {
                    self.sizes = vec![(bytes(it)?, 100.0)];
                } else {
                    if it.list.len() % 2 != 0 {
                        return Err(it.err("sizes=(size,percent,...) pairs"));
                    }
                    let mut v = Vec::new();
                    for p in it.list.chunks(2) {
                        v.push((
                            size(&p[0]).map_err(|e| it.err(e))?,
                            number(&p[1]).map_err(|e| it.err(e))?,
                        ));
                    }
                    let t: f64 = v.iter().map(|p| p.1).sum();
                    if (t - 100.0).abs() > 0.01 {
                        return Err(it.err(format!("the percentages add up to {t}, not 100")));
                    }
                    self.sizes = v;
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
    /// Directories at the bottom level.
    pub fn leaves(&self) -> u64 {
        (self.width as u64).pow(self.depth)
    }
    /// Files in the tree.
    pub fn total_files(&self) -> u64 {
        if self.all {
            (0..=self.depth)
                .map(|d| (self.width as u64).pow(d))
                .sum::<u64>()
                * self.files as u64
        } else {
            self.leaves() * self.files as u64
        }
    }
}

/// File operations.
pub const OPERATIONS: &[&str] = &[
    "read", "write", "create", "delete", "mkdir", "rmdir", "open", "close", "getattr", "setattr",
    "access", "copy", "move",
];

/// File workload parameters (FWD, and what RD overrides).
#[derive(Debug, Clone, PartialEq)]
pub struct FwdParams {
    /// The operation (None: read).
    pub operation: String,
    /// Random I/O within a file.
    pub fileio_random: bool,
    /// `(seq,delete)`: a file is deleted before it is written again.
    pub fileio_delete: bool,
    /// Pick files in order.
    pub fileselect_seq: bool,
    /// Transfer size.
    pub xfer: Xfer,
    /// Threads.
    pub threads: u32,
    /// Reads within a file, percent (None: the operation alone).
    pub rdpct: Option<f64>,
    /// Share of the rate.
    pub skew: Option<f64>,
    /// I/Os to a file before another is picked (random fileio).
    pub stopafter: Option<u64>,
    /// Open flags.
    pub flags: Option<Flags>,
}

impl Default for FwdParams {
    fn default() -> Self {
        FwdParams {
            operation: "read".into(),
            fileio_random: false,
            fileio_delete: false,
            fileselect_seq: false,
            xfer: Xfer::Fixed(128 << 10),
            threads: 1,
            rdpct: None,
            skew: None,
            stopafter: None,
            flags: None,
        }
    }
}

impl FwdParams {
    /// Apply a file workload parameter; false when `it` is not one.
    pub fn apply(&mut self, it: &Item) -> Result<bool, VdbError> {
        match it.key.as_str() {
            "operation" | "operations" => {
                let op = it.one()?.to_ascii_lowercase();
                if !OPERATIONS.contains(&op.as_str()) {
                    return Err(it
                        .err(format!("unknown operation '{op}'"))
                        .hint(format!("use one of {}", OPERATIONS.join(", "))));
                }
                self.operation = op;
            }
            "fileio" => {
                let w: Vec<String> = it.list.iter().map(|s| s.to_ascii_lowercase()).collect();
                self.fileio_random = match w[0].as_str() {
                    "random" => true,
                    "sequential" | "seq" => false,
                    _ => {
                        return Err(it
                            .err("use sequential, random, (random,shared) or (sequential,delete)"))
                    }
                };
                self.fileio_delete = false;
                for extra in &w[1..] {
                    match extra.as_str() {
                        "delete" if !self.fileio_random => self.fileio_delete = true,
                        "shared" => {
                            return Err(it
                                .err("fileio=(random,shared) is not implemented")
                                .hint("each thread works on files of its own"))
                        }
                        "noshared" => {}
                        _ => return Err(it.err(format!("'{extra}' is not a fileio option"))),
                    }
                }
            }
            "fileselect" => {
                self.fileselect_seq = match it.one()?.to_ascii_lowercase().as_str() {
                    "random" => false,
                    "sequential" | "seq" => true,
                    _ => return Err(it.err("use random or sequential")),
                }
            }
            "xfersize" | "transfersize" => self.xfer = Xfer::parse(it)?,
            "threads" => self.threads = positive(it)?,
            "rdpct" => self.rdpct = Some(pct(it)?),
            "skew" => self.skew = Some(pct(it)?),
            "stopafter" => self.stopafter = Some(num(it)? as u64),
            "openflags" | "openflag" => {
                let mut f = Flags::default();
                f.apply(it)?;
                self.flags = Some(f);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A file workload definition.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fwd {
    /// Name.
    pub name: String,
    /// The FSDs, resolved.
    pub fsds: Vec<String>,
    /// Parameters.
    pub p: FwdParams,
    /// Host.
    pub host: Option<String>,
}

const FWD_KEYS: &[&str] = &[
    "fsd",
    "operation",
    "fileio",
    "fileselect",
    "xfersize",
    "threads",
    "rdpct",
    "skew",
    "stopafter",
    "openflags",
    "host",
    "hd",
];

/// The I/O rate of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Rate {
    /// As fast as it goes.
    Max,
    /// I/Os (or operations) per second; a list makes one run each.
    Fixed(Vec<f64>),
    /// A max run, then these percentages of it.
    Curve,
}

/// Arrival times of a fixed rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Exponential (vdbench's default): Poisson arrivals.
    Exponential,
    /// Evenly spaced.
    Deterministic,
}

/// What an RD does to an FSD's tree before it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Format {
    /// Nothing.
    No,
    /// Delete and rebuild.
    Yes,
    /// Build what is missing.
    Restart,
    /// Build, then skip the run.
    Only,
    /// Build what is missing, then skip the run.
    RestartOnly,
    /// Delete the tree, no run.
    Clean,
}

/// A run definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Rd {
    /// Name.
    pub name: String,
    /// WDs, resolved.
    pub wds: Vec<String>,
    /// `sd=` without `wd=`: a workload over these SDs, resolved.
    pub sds: Vec<String>,
    /// FWDs, resolved.
    pub fwds: Vec<String>,
    /// Workload overrides.
    pub wdp: Vec<Item>,
    /// File workload overrides.
    pub fwdp: Vec<Item>,
    /// FSD shape overrides.
    pub fsdp: Vec<Item>,
    /// Rate.
    pub rate: Rate,
    /// Curve points, percent.
    pub curve: Vec<f64>,
    /// End a curve once the response time passes this, ms.
    pub stopcurve: Option<f64>,
    /// Seconds measured.
    pub elapsed: f64,
    /// Reporting interval, seconds.
    pub interval: f64,
    /// Warmup seconds (reported, excluded from the average).
    pub warmup: f64,
    /// Pause after the run, seconds.
    pub pause: f64,
    /// Stop after this many bytes (a value up to 100: that many times the SDs' size).
    pub maxdata: Option<f64>,
    /// Arrivals.
    pub arrival: Arrival,
    /// File-system format.
    pub format: Format,
    /// For-loops in the order written: (keyword without `for`, values as written).
    pub loops: Vec<(String, Vec<String>)>,
}

impl Default for Rd {
    fn default() -> Self {
        Rd {
            name: String::new(),
            wds: vec![],
            sds: vec![],
            fwds: vec![],
            wdp: vec![],
            fwdp: vec![],
            fsdp: vec![],
            rate: Rate::Max,
            curve: vec![10.0, 50.0, 70.0, 80.0, 90.0, 100.0],
            stopcurve: None,
            elapsed: 30.0,
            interval: 1.0,
            warmup: 0.0,
            pause: 0.0,
            maxdata: None,
            arrival: Arrival::Exponential,
            format: Format::No,
            loops: vec![],
        }
    }
}

const RD_KEYS: &[&str] = &[
    "wd",
    "sd",
    "fwd",
    "iorate",
    "fwdrate",
    "curve",
    "stopcurve",
    "elapsed",
    "interval",
    "warmup",
    "pause",
    "maxdata",
    "distribution",
    "threads",
    "format",
    "openflags",
    "operations",
    "operation",
    "xfersize",
    "rdpct",
    "seekpct",
    "rhpct",
    "whpct",
    "hitarea",
    "compratio",
    "fileio",
    "fileselect",
    "skew",
    "forxfersize",
    "forthreads",
    "forrdpct",
    "forseekpct",
    "forrhpct",
    "forwhpct",
    "forhitarea",
    "forcompratio",
    "foriorate",
    "foroperations",
    "fordepth",
    "forwidth",
    "forfiles",
    "forsizes",
    "fortotal",
    "forworkingsetsize",
];

/// Every for-loop keyword, and the parameter it varies.
pub const FOR_KEYS: &[(&str, &str)] = &[
    ("forxfersize", "xfersize"),
    ("forthreads", "threads"),
    ("forrdpct", "rdpct"),
    ("forseekpct", "seekpct"),
    ("forrhpct", "rhpct"),
    ("forwhpct", "whpct"),
    ("forhitarea", "hitarea"),
    ("forcompratio", "compratio"),
    ("foriorate", "iorate"),
    ("foroperations", "operation"),
    ("fordepth", "depth"),
    ("forwidth", "width"),
    ("forfiles", "files"),
    ("forsizes", "sizes"),
];

fn rate(it: &Item) -> Result<Rate, VdbError> {
    match it.list.first().map(|s| s.to_ascii_lowercase()).as_deref() {
        Some("max") if it.list.len() == 1 => Ok(Rate::Max),
        Some("curve") if it.list.len() == 1 => Ok(Rate::Curve),
        _ => {
            let v = expand(it, number)?;
            if v.iter().any(|r| *r <= 0.0) {
                return Err(it.err("a rate above 0, max or curve"));
            }
            Ok(Rate::Fixed(v))
        }
    }
}

impl Rd {
    fn apply(&mut self, it: &Item, names: &Names) -> Result<(), VdbError> {
        match it.key.as_str() {
            "wd" => self.wds = names.resolve(it, &names.wd, "WD")?,
            "sd" => self.sds = names.resolve(it, &names.sd, "SD")?,
            "fwd" => self.fwds = names.resolve(it, &names.fwd, "FWD")?,
            "iorate" | "fwdrate" => self.rate = rate(it)?,
            "curve" => {
                self.curve = expand(it, number)?;
                if self.curve.is_empty() || self.curve.iter().any(|p| *p <= 0.0) {
                    return Err(it.err("curve percentages must be above 0"));
                }
            }
            "stopcurve" => self.stopcurve = Some(num(it)?),
            "elapsed" => self.elapsed = secs(it.one()?).map_err(|e| it.err(e))?,
            "interval" => self.interval = secs(it.one()?).map_err(|e| it.err(e))?,
            "warmup" => self.warmup = secs(it.one()?).map_err(|e| it.err(e))?,
            "pause" => self.pause = secs(it.one()?).map_err(|e| it.err(e))?,
            "maxdata" => {
                // A plain number keeps its fraction (maxdata=1.2: 1.2 times the SDs).
                let v = it.one()?;
                self.maxdata = Some(match v.parse::<f64>() {
                    Ok(n) if n > 0.0 && n.is_finite() => n,
                    _ => size(v).map_err(|e| it.err(e))? as f64,
                });
            }
            "distribution" => {
                self.arrival = match it.list[0].to_ascii_lowercase().as_str() {
                    "exponential" => Arrival::Exponential,
                    "deterministic" => Arrival::Deterministic,
                    "uniform" => {
                        return Err(it
                            .err("distribution=uniform is not implemented")
                            .hint("use exponential (Poisson) or deterministic"))
                    }
                    _ => return Err(it.err("use exponential, uniform or deterministic")),
                }
            }
            "format" => {
                let w: Vec<String> = it.list.iter().map(|s| s.to_ascii_lowercase()).collect();
                let w: Vec<&str> = w.iter().map(String::as_str).collect();
                self.format = match w.as_slice() {
                    ["no"] => Format::No,
                    ["yes"] => Format::Yes,
                    ["restart"] => Format::Restart,
                    ["only"] | ["yes", "only"] | ["only", "yes"] => Format::Only,
                    ["restart", "only"] | ["only", "restart"] => Format::RestartOnly,
                    ["clean"] => Format::Clean,
                    _ => return Err(it.err("use no, yes, restart, only, (restart,only) or clean")),
                }
            }
            "threads" => {
                self.wdp.push(it.clone());
                self.fwdp.push(it.clone());
            }
            "operations" => {
                let mut x = it.clone();
                x.key = "operation".into();
                self.fwdp.push(x);
            }
            k if k.starts_with("for") => {
                let Some((_, param)) = FOR_KEYS.iter().find(|(f, _)| *f == k) else {
                    return Err(refuse_or_unknown(it, "RD", RD_KEYS));
                };
                let values = loop_values(it, param)?;
                self.loops.push((param.to_string(), values));
            }
            _ => {
                // Workload parameters, checked now, applied per run.
                let mut p = WdParams::default();
                let mut f = FwdParams::default();
                let mut s = Fsd::default();
                let w = p.apply(it)?;
                let fw = !w && f.apply(it)?;
                let sh = !w && !fw && s.apply_shape(it)?;
                if w {
                    self.wdp.push(it.clone());
                } else if fw {
                    self.fwdp.push(it.clone());
                } else if sh {
                    self.fsdp.push(it.clone());
                } else {
                    return Err(refuse_or_unknown(it, "RD", RD_KEYS));
                }
            }
        }
        Ok(())
    }
}

/// A for-loop's values, as words a parameter takes (ranges expanded).
fn loop_values(it: &Item, param: &str) -> Result<Vec<String>, VdbError> {
    Ok(match param {
        "xfersize" | "hitarea" => expand(it, size_f)?
            .into_iter()
            .map(|v| crate::value::show_size(v as u64))
            .collect(),
        "sizes" => {
            if it.list.iter().any(|w| w.contains('-')) {
                expand(it, size_f)?
                    .into_iter()
                    .map(|v| crate::value::show_size(v as u64))
                    .collect()
            } else {
                it.list.clone()
            }
        }
        "operation" => {
            for w in &it.list {
                if !OPERATIONS.contains(&w.to_ascii_lowercase().as_str()) {
                    return Err(it.err(format!("unknown operation '{w}'")));
                }
            }
            it.list.clone()
        }
        "seekpct" => it.list.clone(),
        _ => expand(it, number)?
            .into_iter()
            .map(crate::value::show_num)
            .collect(),
    })
}

/// Known names by kind, for resolving `sd=sd*` and `wd=(wd1,wd2)`.
#[derive(Debug, Default)]
struct Names {
    sd: Vec<String>,
    wd: Vec<String>,
    fsd: Vec<String>,
    fwd: Vec<String>,
}

fn glob(pat: &str, name: &str) -> bool {
    match pat.split_once('*') {
        None => pat == name,
        Some((a, b)) => name.len() >= a.len() + b.len() && name.starts_with(a) && name.ends_with(b),
    }
}

impl Names {
    fn resolve(&self, it: &Item, known: &[String], kind: &str) -> Result<Vec<String>, VdbError> {
        let mut out: Vec<String> = Vec::new();
        for w in &it.list {
            let hits: Vec<&String> = known.iter().filter(|n| glob(w, n)).collect();
            if hits.is_empty() {
                let e = it.err(format!("no {kind} named '{w}'"));
                return Err(if known.is_empty() {
                    e.hint(format!("define the {kind}s before the lines that use them"))
                } else {
                    e.hint(format!("{kind}s defined above: {}", known.join(", ")))
                });
            }
            for h in hits {
                if !out.contains(h) {
                    out.push(h.clone());
                }
            }
        }
        Ok(out)
    }
}

/// A whole parameter file, typed.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// General parameters.
    pub general: General,
    /// Hosts.
    pub hds: Vec<Hd>,
    /// Storage.
    pub sds: Vec<Sd>,
    /// Workloads.
    pub wds: Vec<Wd>,
    /// File systems.
    pub fsds: Vec<Fsd>,
    /// File workloads (`format` excluded).
    pub fwds: Vec<Fwd>,
    /// `fwd=format`: how trees are built.
    pub format_fwd: Option<FwdParams>,
    /// Runs.
    pub rds: Vec<Rd>,
}

impl Model {
    /// Type a parameter file.
    pub fn from_parm(pf: &ParmFile) -> Result<Model, VdbError> {
        let mut m = Model::default();
        for it in &pf.general {
            m.general.apply(it)?;
        }
        let mut names = Names::default();
        let (mut sd_def, mut wd_def, mut fsd_def, mut fwd_def) = (
            Sd {
                threads: 8,
                ..Sd::default()
            },
            Wd::default(),
            Fsd {
                depth: 1,
                width: 1,
                files: 1,
                sizes: vec![(0, 100.0)],
                ..Fsd::default()
            },
            Fwd::default(),
        );
        let mut rd_def = Rd::default();
        let mut rank = 0;
        for d in &pf.defs {
            let r = match d.kind {
                Kind::Hd => 0,
                Kind::Sd | Kind::Fsd => 1,
                Kind::Wd | Kind::Fwd => 2,
                Kind::Rd => 3,
            };
            if r < rank && d.name != "default" {
                return Err(VdbError::new(&d.at, Some(d.kind.word()), format!("{}={} comes after a later kind of definition", d.kind.word(), d.name))
                    .hint("order the file: general parameters, then HD, then SD/FSD, then WD/FWD, then RD"));
            }
            rank = rank.max(r);
            let dup = |list: &[String]| -> Result<(), VdbError> {
                if d.name != "default" && list.contains(&d.name) {
                    return Err(VdbError::new(
                        &d.at,
                        Some(d.kind.word()),
                        format!("'{}' is defined twice", d.name),
                    ));
                }
                Ok(())
            };
            match d.kind {
                Kind::Hd => {
                    let mut h = Hd {
                        name: d.name.clone(),
                        system: None,
                    };
                    for it in &d.items {
                        match it.key.as_str() {
                            "system" => h.system = Some(it.one()?.to_string()),
                            "vdbench" | "user" | "shell" | "clients" | "mount" => {}
                            _ => return Err(refuse_or_unknown(it, "HD", HD_KEYS)),
                        }
                    }
                    if d.name != "default" {
                        m.hds.push(h);
                    }
                }
                Kind::Sd => {
                    let mut sd = sd_def.clone();
                    sd.name = d.name.clone();
                    let mut count = None;
                    for it in &d.items {
                        sd.apply(it)?;
                        if it.key == "count" {
                            let v = expand(it, number)?;
                            let [a, n] = v.as_slice() else {
                                return Err(it.err("count=(start,number)"));
                            };
                            count = Some((*a as u64, *n as u64));
                        }
                    }
                    if d.name == "default" {
                        sd_def = sd;
                        continue;
                    }
                    let made: Vec<Sd> = match count {
                        None => vec![sd],
                        Some((a, n)) => (a..a + n)
                            .map(|i| Sd {
                                name: format!("{}{i}", sd.name),
                                lun: format!("{}{i}", sd.lun),
                                ..sd.clone()
                            })
                            .collect(),
                    };
                    for s in made {
                        dup(&names.sd)?;
                        if s.lun.is_empty() {
                            return Err(VdbError::new(
                                &d.at,
                                Some("lun"),
                                format!("sd={} has no lun=", s.name),
                            )
                            .hint(
                                "name the device or file: lun=/dev/sdb or lun=/data/file,size=10g",
                            ));
                        }
                        names.sd.push(s.name.clone());
                        m.sds.push(s);
                    }
                }
                Kind::Wd => {
                    let mut wd = wd_def.clone();
                    wd.name = d.name.clone();
                    for it in &d.items {
                        match it.key.as_str() {
                            "sd" => wd.sds = names.resolve(it, &names.sd, "SD")?,
                            "host" | "hd" => wd.host = Some(it.one()?.to_string()),
                            "iorate" => wd.p.iorate = Some(num(it)?),
                            "threads" => {
                                return Err(
                                    it.err("threads= belongs on the SD or the RD, not the WD")
                                )
                            }
                            _ => {
                                if !wd.p.apply(it)? {
                                    return Err(refuse_or_unknown(it, "WD", WD_KEYS));
                                }
                            }
                        }
                    }
                    if d.name == "default" {
                        wd_def = wd;
                        continue;
                    }
                    dup(&names.wd)?;
                    if wd.sds.is_empty() {
                        if names.sd.len() == 1 {
                            wd.sds = names.sd.clone();
                        } else {
                            return Err(VdbError::new(
                                &d.at,
                                Some("sd"),
                                format!("wd={} names no SD", wd.name),
                            )
                            .hint("add sd=sd1 (or sd=sd* for all)"));
                        }
                    }
                    names.wd.push(wd.name.clone());
                    m.wds.push(wd);
                }
                Kind::Fsd => {
                    let mut f = fsd_def.clone();
                    f.name = d.name.clone();
                    for it in &d.items {
                        f.apply(it)?;
                    }
                    if d.name == "default" {
                        fsd_def = f;
                        continue;
                    }
                    dup(&names.fsd)?;
                    if f.anchor.is_empty() {
                        return Err(VdbError::new(
                            &d.at,
                            Some("anchor"),
                            format!("fsd={} has no anchor=", f.name),
                        )
                        .hint("anchor=/mnt/test/dir"));
                    }
                    names.fsd.push(f.name.clone());
                    m.fsds.push(f);
                }
                Kind::Fwd => {
                    let mut f = fwd_def.clone();
                    f.name = d.name.clone();
                    for it in &d.items {
                        match it.key.as_str() {
                            "fsd" => f.fsds = names.resolve(it, &names.fsd, "FSD")?,
                            "host" | "hd" => f.host = Some(it.one()?.to_string()),
                            _ => {
                                if !f.p.apply(it)? {
                                    return Err(refuse_or_unknown(it, "FWD", FWD_KEYS));
                                }
                            }
                        }
                    }
                    match d.name.as_str() {
                        "default" => fwd_def = f,
                        "format" => m.format_fwd = Some(f.p),
                        _ => {
                            dup(&names.fwd)?;
                            if f.fsds.is_empty() {
                                if names.fsd.len() == 1 {
                                    f.fsds = names.fsd.clone();
                                } else {
                                    return Err(VdbError::new(
                                        &d.at,
                                        Some("fsd"),
                                        format!("fwd={} names no FSD", f.name),
                                    )
                                    .hint("add fsd=fsd1"));
                                }
                            }
                            names.fwd.push(f.name.clone());
                            m.fwds.push(f);
                        }
                    }
                }
                Kind::Rd => {
                    let mut rd = rd_def.clone();
                    rd.name = d.name.clone();
                    for it in &d.items {
                        rd.apply(it, &names)?;
                    }
                    if d.name == "default" {
                        rd_def = rd;
                        continue;
                    }
                    if m.rds.iter().any(|r| r.name == rd.name) {
                        return Err(VdbError::new(
                            &d.at,
                            Some("rd"),
                            format!("'{}' is defined twice", rd.name),
                        ));
                    }
                    if rd.wds.is_empty() && rd.sds.is_empty() && rd.fwds.is_empty() {
                        if !names.wd.is_empty() {
                            rd.wds = names.wd.clone();
                        } else if !names.fwd.is_empty() {
                            rd.fwds = names.fwd.clone();
                        } else {
                            return Err(VdbError::new(
                                &d.at,
                                Some("rd"),
                                format!("rd={} runs no workload", rd.name),
                            )
                            .hint("add wd=wd1, sd=* or fwd=fwd1"));
                        }
                    }
                    if !rd.fwds.is_empty() && (!rd.wds.is_empty() || !rd.sds.is_empty()) {
                        return Err(VdbError::new(
                            &d.at,
                            Some("rd"),
                            "one RD runs raw (wd=, sd=) or file-system (fwd=) workloads, not both",
                        ));
                    }
                    let iv = rd.interval;
                    if iv <= 0.0 {
                        return Err(VdbError::new(&d.at, Some("interval"), "must be above 0"));
                    }
                    if rd.elapsed / iv < 2.0
                        && rd.format != Format::Only
                        && rd.format != Format::RestartOnly
                        && rd.format != Format::Clean
                    {
                        return Err(VdbError::new(
                            &d.at,
                            Some("elapsed"),
                            format!(
                                "elapsed={} must be at least twice interval={}",
                                rd.elapsed, iv
                            ),
                        )
                        .hint("vdbench refuses it too"));
                    }
                    if (rd.elapsed / iv).fract().abs() > 1e-9 {
                        return Err(VdbError::new(
                            &d.at,
                            Some("elapsed"),
                            format!(
                                "elapsed={} must be a multiple of interval={}",
                                rd.elapsed, iv
                            ),
                        ));
                    }
                    if (rd.warmup / iv).fract().abs() > 1e-9 {
                        return Err(VdbError::new(
                            &d.at,
                            Some("warmup"),
                            format!("warmup={} must be a multiple of interval={}", rd.warmup, iv),
                        ));
                    }
                    m.rds.push(rd);
                }
            }
        }
        if m.rds.is_empty() {
            return Err(VdbError::new(
                &crate::parse::At {
                    file: pf
                        .defs
                        .first()
                        .map(|d| d.at.file.clone())
                        .unwrap_or_default(),
                    line: 0,
                },
                Some("rd"),
                "no run definition (rd=)",
            )
            .hint("end the file with e.g. rd=rd1,wd=wd1,iorate=max,elapsed=30,interval=1"));
        }
        Ok(m)
    }

    /// The SD named `n`.
    pub fn sd(&self, n: &str) -> &Sd {
        self.sds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved SD names exist")
    }
    /// The WD named `n`.
    pub fn wd(&self, n: &str) -> &Wd {
        self.wds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved WD names exist")
    }
    /// The FSD named `n`.
    pub fn fsd(&self, n: &str) -> &Fsd {
        self.fsds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved FSD names exist")
    }
    /// The FWD named `n`.
    pub fn fwd(&self, n: &str) -> &Fwd {
        self.fwds
            .iter()
            .find(|s| s.name == n)
            .expect("resolved FWD names exist")
    }
}

/// Split a general parameter file's definitions by kind (for the `-s` listing).
pub fn count_kind(pf: &ParmFile, k: Kind) -> usize {
    pf.defs
        .iter()
        .filter(|d: &&Def| d.kind == k && d.name != "default")
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::Path;

    fn model(s: &str) -> Result<Model, VdbError> {
        Model::from_parm(&crate::parse::read_str(Path::new("t"), s, &HashMap::new())?)
    }

    #[test]
    fn defaults_wildcards_and_overrides() {
        let m = model(
            "sd=default,size=1m,threads=4\nsd=sd1,lun=/tmp/a\nsd=sd2,lun=/tmp/b,threads=2\n\
             wd=wd1,sd=sd*,xfersize=(4k,30,64k,70),rdpct=70\nrd=rd1,wd=wd*,iorate=curve,forthreads=(1-4,d)\n",
        )
        .unwrap();
        assert_eq!(m.sds.len(), 2);
        assert_eq!(m.sds[0].threads, 4);
        assert_eq!(m.sds[1].threads, 2);
        assert_eq!(m.sds[1].size, Some(1 << 20));
        assert_eq!(m.wds[0].sds, vec!["sd1", "sd2"]);
        assert_eq!(
            m.wds[0].p.xfer,
            Xfer::Split(vec![(4096, 30.0), (65536, 70.0)])
        );
        assert_eq!(m.rds[0].rate, Rate::Curve);
        assert_eq!(
            m.rds[0].loops,
            vec![(
                "threads".to_string(),
                vec!["1".into(), "2".into(), "4".into()]
            )]
        );
    }

    #[test]
    fn refused_and_unknown_keywords_are_named() {
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,stride=(4k,8k)\nrd=rd1,wd=wd1\n").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("stride"));
        assert!(e.to_string().contains("not implemented"), "{e}");
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1,rdpc=50\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("did you mean rdpct="), "{e}");
        assert_eq!(e.at.line, 2);
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd9\nrd=rd1,wd=wd1\n").unwrap_err();
        assert!(e.to_string().contains("no SD named 'sd9'"), "{e}");
        let e = model("sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,elapsed=1,interval=1\n")
            .unwrap_err();
        assert!(e.to_string().contains("at least twice"), "{e}");
    }

    #[test]
    fn count_makes_numbered_sds() {
        let m = model("sd=sd,lun=/dev/loop,count=(0,3)\nwd=wd1,sd=sd*\nrd=r,wd=wd1\n").unwrap();
        let luns: Vec<&str> = m.sds.iter().map(|s| s.lun.as_str()).collect();
        assert_eq!(luns, vec!["/dev/loop0", "/dev/loop1", "/dev/loop2"]);
    }

    #[test]
    fn fs_tree_counts() {
        let m = model("fsd=fsd1,anchor=/tmp/t,depth=2,width=3,files=4,size=8k\nfwd=fwd1,fsd=fsd1,operation=read\nrd=rd1,fwd=fwd1,format=yes\n").unwrap();
        assert_eq!(m.fsds[0].total_files(), 36);
        assert_eq!(m.rds[0].format, Format::Yes);
    }
}
