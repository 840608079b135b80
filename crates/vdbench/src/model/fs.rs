//! File-system definitions: FSD (the tree) and FWD (the file workload).
use super::*;

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
    /// totalsize=: files are made (and used) in order until their sizes reach this.
    pub totalsize: Option<u64>,
    /// workingsetsize= (wss=): a run reads and writes only the first files, this much.
    pub wss: Option<u64>,
}

pub(super) const FSD_KEYS: &[&str] = &[
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
    "totalsize",
    "workingsetsize",
    "wss",
];

impl Fsd {
    pub(super) fn apply(&mut self, it: &Item) -> Result<(), VdbError> {
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
            "totalsize" | "total_size" => self.totalsize = Some(bytes(it)?),
            "workingsetsize" | "wss" => self.wss = Some(bytes(it)?),
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
    /// The operations (`operation=`, or the RD's `operations=` list; default read).
    pub operations: Vec<String>,
    /// Random I/O within a file.
    pub fileio_random: bool,
    /// `(random,shared)`: every thread may use every file (else a file is one thread's).
    pub fileio_shared: bool,
    /// `(sequential,delete)`: a file is removed and made anew before it is written.
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
            operations: vec!["read".into()],
            fileio_random: false,
            fileio_shared: false,
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
                let mut ops: Vec<String> = Vec::new();
                for w in &it.list {
                    let op = w.to_ascii_lowercase();
                    if !OPERATIONS.contains(&op.as_str()) {
                        return Err(it
                            .err(format!("unknown operation '{op}'"))
                            .hint(format!("use one of {}", OPERATIONS.join(", "))));
                    }
                    if !ops.contains(&op) {
                        ops.push(op);
                    }
                }
                if ops.is_empty() {
                    return Err(it.err("names no operation"));
                }
                self.operations = ops;
            }
            "fileio" => {
                let w: Vec<String> = it.list.iter().map(|s| s.to_ascii_lowercase()).collect();
                self.fileio_random = match w.first().map(String::as_str).unwrap_or("") {
                    "random" => true,
                    "sequential" | "seq" => false,
                    _ => {
                        return Err(it
                            .err("use sequential, random, (random,shared) or (sequential,delete)"))
                    }
                };
                self.fileio_shared = false;
                self.fileio_delete = false;
                for extra in w.iter().skip(1) {
                    match extra.as_str() {
                        "delete" if !self.fileio_random => self.fileio_delete = true,
                        "shared" if self.fileio_random => self.fileio_shared = true,
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
            "xfersize" | "xfersizes" | "transfersize" => self.xfer = Xfer::parse(it)?,
            "threads" => self.threads = positive(it)?,
            "rdpct" | "readpct" => self.rdpct = Some(pct(it)?),
            "skew" => self.skew = Some(pct(it)?),
            "stopafter" => self.stopafter = Some(num(it)? as u64),
            "openflags" | "openflag" => self.flags = Some(Flags::parse(it)?),
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

pub(super) const FWD_KEYS: &[&str] = &[
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
