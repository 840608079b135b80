//! The words every part of a job description shares: where an option was written
//! ([`Location`]), directions ([`Ddir`], [`PerDir`]), the I/O pattern ([`Rw`]), sizes
//! ([`SizeSpec`]), the input dialect ([`Dialect`]).

/// Where something was written: a job file (or `<command line>`) and a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The job file path as given, `<command line>` or `<builder>`.
    pub file: String,
    /// 1-based line number (0 when there is no line, e.g. the command line).
    pub line: u32,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}", self.file, self.line)
        } else {
            write!(f, "{}", self.file)
        }
    }
}

/// An I/O direction, indexed as fio does: read 0, write 1, trim 2.
///
/// A word wide, so that an I/O request (direction, file, offset, length) has no padding:
/// the timing loop copies requests, and a one-byte direction with seven bytes of padding
/// was copied in overlapping pieces that defeat store forwarding (about 3% of the null
/// engine's IOPS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u64)]
pub enum Ddir {
    /// Reads.
    Read = 0,
    /// Writes.
    Write = 1,
    /// Trims (discards).
    Trim = 2,
}

impl Ddir {
    /// All three directions in fio's order.
    pub const ALL: [Ddir; 3] = [Ddir::Read, Ddir::Write, Ddir::Trim];
    /// Index 0..3.
    pub fn index(self) -> usize {
        self as usize
    }
    /// Lower-case name as used in fio's JSON (`read`, `write`, `trim`).
    pub fn name(self) -> &'static str {
        match self {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
        }
    }
}

/// One value per direction (read, write, trim), as fio's `R,W,T` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PerDir<T>(pub [T; 3]);

impl<T: Copy> PerDir<T> {
    /// The same value for all three directions.
    pub fn all(v: T) -> Self {
        PerDir([v, v, v])
    }
    /// The value for one direction.
    pub fn get(&self, d: Ddir) -> T {
        self.0[d.index()]
    }
}

/// The access pattern (`rw=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RwKind {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Sequential trims.
    Trim,
    /// Random reads.
    RandRead,
    /// Random writes.
    RandWrite,
    /// Random trims.
    RandTrim,
    /// Sequential mixed reads and writes (`rw`, `readwrite`).
    ReadWrite,
    /// Random mixed reads and writes.
    RandRw,
    /// Sequential trim followed by write of the same block.
    TrimWrite,
    /// Random trim followed by write of the same block.
    RandTrimWrite,
}

impl RwKind {
    /// fio's name for the pattern (as printed in the job line).
    pub fn name(self) -> &'static str {
        match self {
            RwKind::Read => "read",
            RwKind::Write => "write",
            RwKind::Trim => "trim",
            RwKind::RandRead => "randread",
            RwKind::RandWrite => "randwrite",
            RwKind::RandTrim => "randtrim",
            RwKind::ReadWrite => "rw",
            RwKind::RandRw => "randrw",
            RwKind::TrimWrite => "trimwrite",
            RwKind::RandTrimWrite => "randtrimwrite",
        }
    }
    /// True for the random patterns.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwKind::RandRead
                | RwKind::RandWrite
                | RwKind::RandTrim
                | RwKind::RandRw
                | RwKind::RandTrimWrite
        )
    }
    /// True if the pattern issues reads.
    pub fn reads(self) -> bool {
        matches!(
            self,
            RwKind::Read | RwKind::RandRead | RwKind::ReadWrite | RwKind::RandRw
        )
    }
    /// True if the pattern issues writes.
    pub fn writes(self) -> bool {
        matches!(
            self,
            RwKind::Write
                | RwKind::RandWrite
                | RwKind::ReadWrite
                | RwKind::RandRw
                | RwKind::TrimWrite
                | RwKind::RandTrimWrite
        )
    }
    /// True if the pattern issues trims.
    pub fn trims(self) -> bool {
        matches!(
            self,
            RwKind::Trim | RwKind::RandTrim | RwKind::TrimWrite | RwKind::RandTrimWrite
        )
    }
}

/// `rw=` with its optional `:N` suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rw {
    /// The pattern.
    pub kind: RwKind,
    /// The `:N` suffix: for sequential patterns bytes added after each I/O (holes; a
    /// negative N moves back, as `read:-8k` with `bs=4k` reads a file backwards); for
    /// random patterns the number of I/Os per new random offset. 0 = none.
    pub suffix: i64,
}

impl Default for Rw {
    fn default() -> Self {
        Rw {
            kind: RwKind::Read,
            suffix: 0,
        }
    }
}

/// A size that may be given as a percentage of the file/device size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeSpec {
    /// An absolute number of bytes.
    Bytes(u64),
    /// A percentage (0..=100] of the available size.
    Percent(f64),
}

impl Default for SizeSpec {
    fn default() -> Self {
        SizeSpec::Bytes(0)
    }
}

impl SizeSpec {
    /// Resolve against a total size in bytes, aligning percentages down to `align` (>0).
    pub fn resolve(self, total: u64, align: u64) -> u64 {
        match self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => {
                let v = ((total as f64) * p / 100.0) as u64;
                if align > 1 {
                    v / align * align
                } else {
                    v
                }
            }
        }
    }
}

/// `fallocate=`: how files are allocated at layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallocate {
    /// Do not preallocate.
    None,
    /// posix_fallocate().
    Posix,
    /// fallocate() with mode 0, falling back to none if unsupported (fio's default).
    #[default]
    Native,
    /// fallocate() with FALLOC_FL_KEEP_SIZE.
    Keep,
    /// ftruncate() to the file size.
    Truncate,
}

/// The job-file dialect a value came from; decides unit rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// fio's INI dialect (and fio-style command-line options): fio's unit quirks.
    #[default]
    Fio,
    /// TOML: strict units, KiB = 1024 and kB = 1000.
    Toml,
}
