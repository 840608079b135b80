//! Data verification (fio's `verify` family, with vdbench's write generations).
//!
//! Every verified chunk (`verify_interval` bytes, by default each write) carries a header:
//! magic, format version, checksum kind, header length, chunk length, clone id, offset,
//! the clone's seed, the chunk's *generation* (how many times this run wrote it), a
//! timestamp, a CRC-32C of the header and the data's digest. The data is a function of
//! (seed, offset, generation), so a check can say exactly what is wrong:
//!
//! - **unwritten**: the chunk reads back as zeroes;
//! - **corrupt header**: bad magic, or the header's own CRC does not match;
//! - **misdirected**: a valid header for another offset (the write landed elsewhere);
//! - **lost write**: a valid header of an older generation (the newest write never
//!   reached the media);
//! - **torn write**: the data is the new generation up to a sector boundary and the old
//!   one (or zeroes) after it;
//! - **bit flip** / **corrupted data**: the digest does not match; the first differing
//!   byte is named.

pub mod journal;
pub(crate) mod readback;

use fathom_job::{VerifyKind, VerifySpec};
use std::fmt::Write as _;

const MAGIC: u32 = 0xFA7B_0E21;
const VERSION: u8 = 1;
/// Bytes of the header before the digest.
const FIXED: usize = 56;

/// The bytes of a chunk's header for `kind` (the fixed part and the digest, in whole
/// 8-byte words); `verify=pattern` writes none.
pub(crate) fn header_len(kind: VerifyKind) -> usize {
    if kind == VerifyKind::Pattern {
        return 0;
    }
    (FIXED + digest(kind, &[]).len()).div_ceil(8) * 8
}

/// The digest of `data` for `kind` (empty for kinds without one).
pub(crate) fn digest(kind: VerifyKind, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    match kind {
        VerifyKind::Md5 => md5::Md5::digest(data).to_vec(),
        VerifyKind::Crc64 => crc::Crc::<u64>::new(&crc::CRC_64_XZ)
            .checksum(data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Crc32c => crc32c::crc32c(data).to_le_bytes().to_vec(),
        VerifyKind::Crc32 => crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC)
            .checksum(data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Crc16 => crc::Crc::<u16>::new(&crc::CRC_16_ARC)
            .checksum(data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Crc7 => vec![crc::Crc::<u8>::new(&crc::CRC_7_MMC).checksum(data)],
        VerifyKind::Xxhash => xxhash_rust::xxh64::xxh64(data, 0).to_le_bytes().to_vec(),
        VerifyKind::Sha1 => sha1::Sha1::digest(data).to_vec(),
        VerifyKind::Sha256 => sha2::Sha256::digest(data).to_vec(),
        VerifyKind::Sha512 => sha2::Sha512::digest(data).to_vec(),
        VerifyKind::Sha3_224 => sha3::Sha3_224::digest(data).to_vec(),
        VerifyKind::Sha3_256 => sha3::Sha3_256::digest(data).to_vec(),
        VerifyKind::Sha3_384 => sha3::Sha3_384::digest(data).to_vec(),
        VerifyKind::Sha3_512 => sha3::Sha3_512::digest(data).to_vec(),
        VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::PatternHdr | VerifyKind::Null => {
            Vec::new()
        }
    }
}

fn kind_id(kind: VerifyKind) -> u8 {
    VerifyKind::NAMES
        .iter()
        .position(|(_, k)| *k == kind)
        .unwrap_or(0) as u8
}

/// A decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub kind: u8,
    pub hdr_len: usize,
    pub chunk_len: u32,
    pub clone: u32,
    pub offset: u64,
    pub seed: u64,
    pub generation: u64,
    pub time_ns: u64,
    pub digest: Vec<u8>,
}

impl Header {
    fn encode(&self, out: &mut [u8]) {
        out[..self.hdr_len].fill(0);
        out[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        out[4] = VERSION;
        out[5] = self.kind;
        out[6..8].copy_from_slice(&(self.hdr_len as u16).to_le_bytes());
        out[8..12].copy_from_slice(&self.chunk_len.to_le_bytes());
        out[12..16].copy_from_slice(&self.clone.to_le_bytes());
        out[16..24].copy_from_slice(&self.offset.to_le_bytes());
        out[24..32].copy_from_slice(&self.seed.to_le_bytes());
        out[32..40].copy_from_slice(&self.generation.to_le_bytes());
        out[40..48].copy_from_slice(&self.time_ns.to_le_bytes());
        out[52..54].copy_from_slice(&(self.digest.len() as u16).to_le_bytes());
        out[FIXED..FIXED + self.digest.len()].copy_from_slice(&self.digest);
        let crc = crc32c::crc32c(&out[..self.hdr_len]);
        out[48..52].copy_from_slice(&crc.to_le_bytes());
    }

    /// The header in `b`, or why there is none.
    fn decode(b: &[u8]) -> Result<Header, &'static str> {
        if b.len() < FIXED || u32::from_le_bytes(b[0..4].try_into().unwrap()) != MAGIC {
            return Err("bad magic");
        }
        let hdr_len = u16::from_le_bytes([b[6], b[7]]) as usize;
        let dlen = u16::from_le_bytes([b[52], b[53]]) as usize;
        if b[4] != VERSION || hdr_len < FIXED + dlen || hdr_len > b.len() {
            return Err("bad header layout");
        }
        let want = u32::from_le_bytes(b[48..52].try_into().unwrap());
        let mut copy = b[..hdr_len].to_vec();
        copy[48..52].fill(0);
        if crc32c::crc32c(&copy) != want {
            return Err("header checksum mismatch");
        }
        let u64at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        Ok(Header {
            kind: b[5],
            hdr_len,
            chunk_len: u32::from_le_bytes(b[8..12].try_into().unwrap()),
            clone: u32::from_le_bytes(b[12..16].try_into().unwrap()),
            offset: u64at(16),
            seed: u64at(24),
            generation: u64at(32),
            time_ns: u64at(40),
            digest: b[FIXED..FIXED + dlen].to_vec(),
        })
    }
}

/// What a failed check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Damage {
    Unwritten,
    CorruptHeader(&'static str),
    Misdirected { holds: u64 },
    Lost { found: u64, expected: u64 },
    Torn { at: u64 },
    BitFlip { at: u64, want: u8, got: u8 },
    Corrupted { at: u64, want: u8, got: u8 },
    PatternMismatch { at: u64, want: u8, got: u8 },
    Foreign { clone: u32, seed: u64 },
    NotZeroAfterTrim { at: u64, got: u8 },
}

impl Damage {
    /// The class, as reports name it.
    pub(crate) fn class(&self) -> &'static str {
        match self {
            Damage::Unwritten => "unwritten (zeroes)",
            Damage::CorruptHeader(_) => "corrupt header",
            Damage::Misdirected { .. } => "misdirected write",
            Damage::Lost { .. } => "lost write (stale generation)",
            Damage::Torn { .. } => "torn write",
            Damage::BitFlip { .. } => "checksum mismatch (bit flip)",
            Damage::Corrupted { .. } => "checksum mismatch (corrupted data)",
            Damage::PatternMismatch { .. } => "pattern mismatch",
            Damage::Foreign { .. } => "written by another job or run",
            Damage::NotZeroAfterTrim { .. } => "trimmed but not zero",
        }
    }
}

/// One failed chunk, with everything a report needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    pub offset: u64,
    pub len: u64,
    pub damage: Damage,
    pub expected_generation: Option<u64>,
    pub found: Option<Header>,
}

impl Failure {
    /// `verify: misdirected write in FILE at offset 409600 (0x64000), length 4096: …`.
    pub(crate) fn text(&self, file: &std::path::Path) -> String {
        let mut s = format!(
            "verify: {} in {} at offset {} (0x{:x}), length {}",
            self.damage.class(),
            file.display(),
            self.offset,
            self.offset,
            self.len
        );
        match &self.damage {
            Damage::CorruptHeader(why) => {
                let _ = write!(s, ": {why}");
            }
            Damage::Misdirected { holds } => {
                let _ = write!(
                    s,
                    ": it holds the block written for offset {holds} (0x{holds:x})"
                );
            }
            Damage::Lost { found, expected } => {
                let _ = write!(s, ": generation {found} read back, {expected} was written");
            }
            Damage::Torn { at } => {
                let _ = write!(
                    s,
                    ": new data up to byte {at} (0x{at:x}), the previous contents after it"
                );
            }
            Damage::BitFlip { at, want, got }
            | Damage::Corrupted { at, want, got }
            | Damage::PatternMismatch { at, want, got } => {
                let _ = write!(
                    s,
                    ": first differing byte at {at} (0x{at:x}): expected 0x{want:02x}, found 0x{got:02x}"
                );
            }
            Damage::Foreign { clone, seed } => {
                let _ = write!(s, ": header of clone {clone}, seed {seed:#x}");
            }
            Damage::NotZeroAfterTrim { at, got } => {
                let _ = write!(s, ": byte {at} (0x{at:x}) reads 0x{got:02x}");
            }
            Damage::Unwritten => {}
        }
        if let Some(h) = &self.found {
            let _ = write!(
                s,
                "; header found: offset {}, generation {}, clone {}, written at {} ns",
                h.offset, h.generation, h.clone, h.time_ns
            );
        }
        if let Some(g) = self.expected_generation {
            let _ = write!(s, "; expected generation {g}");
        }
        s
    }
}

/// What a journal records about a verifier.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct VerifierParts {
    pub kind: String,
    pub interval: u64,
    pub header_offset: u64,
    pub pattern: Vec<u8>,
    #[serde(default)]
    pub pattern_offsets: Vec<usize>,
    pub seed: u64,
    pub clone: u32,
    pub regions: Vec<(u64, u64)>,
    /// The table's unit (0 in older journals: the interval).
    #[serde(default)]
    pub unit: u64,
}

/// Per-clone verification: how chunks are laid out and which generation each holds.
pub(crate) struct Verifier {
    pub kind: VerifyKind,
    /// Chunk size: `verify_interval`, or the smallest block size.
    pub interval: u64,
    hdr_off: usize,
    pattern: Vec<u8>,
    /// Positions of `%o` in the pattern (the chunk's offset goes there).
    pattern_offsets: Vec<usize>,
    /// The job's data made per write (a pattern chunk holds the pattern with it applied).
    pub(crate) io_data: Option<fathom_job::IoData>,
    seed: u64,
    clone: u32,
    /// Granularity of the generation table: the chunk size, or the smallest block size.
    unit: u64,
    /// Per file: (region start, generation of each unit).
    gens: Vec<(u64, Vec<u32>)>,
    /// Per file: chunks whose last operation was a trim (they read back as zeroes).
    trimmed: Vec<Vec<bool>>,
    /// Another clone writes where this one's regions are (a shared file): a chunk another
    /// writer left whole passes, as in fio.
    pub(crate) shared: bool,
    /// The generations the job found in its key maps (`Control::key_maps`), per file;
    /// empty without them. Every job's data is then made alike, so another writer's
    /// chunk is no foreigner: with `shared`, a whole chunk of any generation passes.
    base: Vec<Vec<u32>>,
    /// Per file and unit: the length in units of the unchecked write that starts there
    /// (0: none). As fio's history of written blocks, a write replaces the ones that
    /// started inside it, and a check (verify_backlog) removes it.
    pending: Vec<Vec<u32>>,
    /// The longest write noted in `pending`, in units.
    longest: usize,
    /// A random job with the random map: every write (file, offset) in the order it was
    /// made, which is the order fio reads them back in (its history is then a list, not
    /// a tree by offset). None: read back in offset order.
    order: Option<Vec<(u32, u64)>>,
    /// The order's length after it last forgot its checked writes (`prune_order`).
    order_kept: usize,
}

/// A write of `len` bytes at unit `i` in a file's table of unchecked writes: it starts
/// there and replaces every earlier write it overlaps, as fio's history of written
/// blocks (its tree by offset) drops each entry a new write overlaps, whole: the writes
/// that started inside it, and one that started before it and reaches into it (that
/// one's other blocks are not read back, as in fio). `longest`: the longest write noted
/// so far, in units (how far back to look).
fn note_write(p: &mut [u32], i: usize, len: u64, unit: u64, longest: &mut usize) {
    let n = len.div_ceil(unit) as usize;
    let end = (i + n).min(p.len());
    let from = i.saturating_sub(*longest);
    for (j, run) in p[from..i].iter_mut().enumerate() {
        if *run > 0 && from + j + *run as usize > i {
            *run = 0;
        }
    }
    *longest = (*longest).max(end - i);
    p[i] = (end - i) as u32;
    p[i + 1..end].fill(0);
}

impl Verifier {
    /// A verifier for a clone's files (regions given as (start, len)), or an error text.
    pub(crate) fn new(
        spec: &VerifySpec,
        kind: VerifyKind,
        seed: u64,
        clone: u32,
        (min_bs, grain): (u64, u64),
        regions: &[(u64, u64)],
    ) -> Result<Verifier, String> {
        let interval = if spec.interval > 0 {
            spec.interval
        } else {
            min_bs.max(1)
        };
        // The table's unit: where a chunk may start (every write's offset is a multiple
        // of `grain` from its region's start).
        let unit = crate::plan::gcd(interval, grain.max(1));
        // (A finer table than the chunks holds a place per unit: kept smaller.)
        let chunks: u64 = regions.iter().map(|r| r.1 / unit).sum();
        let most: u64 = if unit < interval { 64 << 20 } else { 512 << 20 };
        if chunks > most {
            return Err(format!(
                "verify keeps a generation per {unit} bytes (where a chunk may start), \
                 {chunks} of them: more than this run should hold; use a smaller size, or \
                 block sizes, holes and blockalign that keep the writes on a coarser grid"
            ));
        }
        Ok(Verifier {
            kind,
            interval,
            hdr_off: spec.offset as usize,
            pattern: spec.pattern.clone().unwrap_or_else(|| vec![0xA5]),
            pattern_offsets: spec.pattern_offsets.clone(),
            io_data: None,
            seed,
            clone,
            unit,
            gens: regions
                .iter()
                .map(|&(start, len)| (start, vec![0; (len / unit) as usize]))
                .collect(),
            trimmed: regions
                .iter()
                .map(|&(_, len)| vec![false; (len / unit) as usize])
                .collect(),
            pending: regions
                .iter()
                .map(|&(_, len)| vec![0; (len / unit) as usize])
                .collect(),
            shared: false,
            base: Vec::new(),
            longest: 0,
            order: None,
            order_kept: 0,
        })
    }

    /// Key maps (`Control::key_maps`): start knowing what earlier jobs wrote to these
    /// files (`paths`, as the regions). A file whose region does not start on this
    /// table's grid, or whose map has another unit, starts unknown.
    pub(crate) fn import(&mut self, maps: &fathom_job::KeyMaps, paths: &[&std::path::Path]) {
        let unit = self.unit;
        maps.with(|m| {
            for (i, p) in paths.iter().enumerate() {
                let (start, g) = &mut self.gens[i];
                let Some(km) = m.get(*p).filter(|k| k.unit == unit && *start % unit == 0) else {
                    continue;
                };
                let from = (*start / unit) as usize;
                for (j, x) in g.iter_mut().enumerate() {
                    *x = km.gens.get(from + j).copied().unwrap_or(0);
                }
            }
        });
        self.base = self.gens.iter().map(|(_, g)| g.clone()).collect();
    }

    /// Key maps: leave what this job wrote (each unit whose generation it changed). A unit
    /// another job changed too since this one started is no longer known: which write
    /// landed last cannot be told.
    pub(crate) fn export(&self, maps: &fathom_job::KeyMaps, paths: &[&std::path::Path]) {
        let unit = self.unit;
        maps.with(|m| {
            for (i, p) in paths.iter().enumerate() {
                let ((start, g), base) = (&self.gens[i], &self.base[i]);
                if *start % unit != 0 || g == base {
                    continue;
                }
                let from = (*start / unit) as usize;
                let km = m.entry(p.to_path_buf()).or_default();
                let entries = km.entries(unit, from + g.len());
                for (j, (&now, &was)) in g.iter().zip(base).enumerate() {
                    let e = &mut entries[from + j];
                    if now != was {
                        *e = if *e == was { now } else { 0 };
                    }
                }
            }
        });
    }

    /// The chunks of an I/O: (offset, length) each.
    pub(crate) fn chunks(&self, offset: u64, len: u64) -> impl Iterator<Item = (u64, u64)> {
        let step = self.interval.max(1);
        (0..len.div_ceil(step)).map(move |k| (offset + k * step, step.min(len - k * step)))
    }

    fn slot(&mut self, file: usize, offset: u64) -> Option<&mut u32> {
        let (start, g) = &mut self.gens[file];
        let i = offset.checked_sub(*start)? / self.unit;
        g.get_mut(i as usize)
    }

    /// The generation last written to the chunk at `offset` (0: never in this run).
    pub(crate) fn generation(&self, file: usize, offset: u64) -> u32 {
        let (start, g) = &self.gens[file];
        offset
            .checked_sub(*start)
            .and_then(|o| g.get((o / self.unit) as usize))
            .copied()
            .unwrap_or(0)
    }

    /// Every chunk written so far: (offset, length) per file, in order.
    pub(crate) fn written(&self, file: usize) -> impl Iterator<Item = u64> + '_ {
        let (start, g) = &self.gens[file];
        let t = &self.trimmed[file];
        g.iter()
            .enumerate()
            .filter(|&(i, &n)| n > 0 || t[i])
            .map(move |(i, _)| start + i as u64 * self.unit)
    }

    /// What a verify pass reads: each write not yet checked, as (offset, length) of the
    /// whole block (fio reads back a block at a time), and each trimmed chunk outside one.
    pub(crate) fn unchecked(&self, file: usize) -> Vec<(u64, u64)> {
        let (start, _) = &self.gens[file];
        let (p, t) = (&self.pending[file], &self.trimmed[file]);
        let mut out = Vec::new();
        let mut i = 0;
        while i < p.len() {
            let at = start + i as u64 * self.unit;
            if p[i] > 0 {
                out.push((at, p[i] as u64 * self.unit));
                i += p[i] as usize;
            } else {
                if t[i] {
                    out.push((at, self.unit));
                }
                i += 1;
            }
        }
        out
    }

    /// The write at `offset` was checked (verify_backlog): the final pass skips it.
    pub(crate) fn checked(&mut self, file: usize, offset: u64) {
        if let Some(i) = self.index(file, offset) {
            self.pending[file][i] = 0;
        }
    }

    fn index(&self, file: usize, offset: u64) -> Option<usize> {
        let (start, g) = &self.gens[file];
        let i = (offset.checked_sub(*start)? / self.unit) as usize;
        (i < g.len()).then_some(i)
    }

    /// A trim of `len` bytes at `offset` completed: those chunks now read as zeroes.
    pub(crate) fn trimmed(&mut self, file: usize, offset: u64, len: u64) {
        let chunks: Vec<(u64, u64)> = self.chunks(offset, len).collect();
        for (o, _) in chunks {
            if let Some(i) = self.index(file, o) {
                self.trimmed[file][i] = true;
            }
        }
    }

    /// True if the chunk at `offset` was trimmed after its last write.
    pub(crate) fn is_trimmed(&self, file: usize, offset: u64) -> bool {
        self.index(file, offset)
            .is_some_and(|i| self.trimmed[file][i])
    }

    /// Check a trimmed chunk: it must read back as zeroes (trim_verify_zero).
    pub(crate) fn check_trimmed(&self, b: &[u8], offset: u64) -> Result<(), Box<Failure>> {
        match b.iter().position(|&x| x != 0) {
            None => Ok(()),
            Some(i) => Err(Box::new(Failure {
                offset,
                len: b.len() as u64,
                damage: Damage::NotZeroAfterTrim {
                    at: offset + i as u64,
                    got: b[i],
                },
                expected_generation: None,
                found: Header::decode(&b[self.header_at(b.len()).unwrap_or(0)..]).ok(),
            })),
        }
    }

    /// Fill a write's buffer: each chunk gets its next generation, its data and header.
    /// Fill a write's buffer (see [`Verifier::fill`]), noting each chunk's (offset,
    /// generation) in `gens`.
    pub(crate) fn fill_noting(
        &mut self,
        file: usize,
        offset: u64,
        buf: &mut [u8],
        gens: &mut Vec<(u64, u32)>,
    ) {
        gens.clear();
        self.fill(file, offset, buf);
        gens.extend(
            self.chunks(offset, buf.len() as u64)
                .map(|(o, _)| (o, self.generation(file, o))),
        );
    }

    /// The parts a journal needs to build this verifier again.
    pub(crate) fn parts(&self) -> VerifierParts {
        VerifierParts {
            kind: self.kind.name().to_string(),
            interval: self.interval,
            header_offset: self.hdr_off as u64,
            pattern: self.pattern.clone(),
            pattern_offsets: self.pattern_offsets.clone(),
            seed: self.seed,
            clone: self.clone,
            regions: self
                .gens
                .iter()
                .map(|(s, g)| (*s, g.len() as u64 * self.unit))
                .collect(),
            unit: self.unit,
        }
    }

    /// A verifier from a journal's parts.
    pub(crate) fn from_parts(p: &VerifierParts) -> Result<Verifier, String> {
        // A damaged or hand-made header must not panic or exhaust memory.
        if p.interval == 0 || p.interval > 1 << 30 {
            return Err(format!(
                "the journal's verify interval {} is not 1 byte to 1 GiB: the header is damaged",
                p.interval
            ));
        }
        if p.pattern.is_empty() {
            return Err("the journal's verify pattern is empty: the header is damaged".into());
        }
        if p.pattern_offsets
            .iter()
            .any(|&o| o.saturating_add(8) > p.pattern.len())
        {
            return Err("the journal's pattern offsets lie outside its pattern".into());
        }
        let kind = VerifyKind::NAMES
            .iter()
            .find(|(n, _)| *n == p.kind)
            .map(|(_, k)| *k)
            .ok_or_else(|| format!("unknown verify type '{}' in the journal", p.kind))?;
        let spec = VerifySpec {
            kind: Some(kind),
            interval: p.interval,
            offset: p.header_offset,
            pattern: Some(p.pattern.clone()),
            pattern_offsets: p.pattern_offsets.clone(),
            ..Default::default()
        };
        if p.unit > p.interval || (p.unit > 0 && p.interval % p.unit != 0) {
            return Err(format!(
                "the journal's table unit {} does not divide its interval {}: the header is \
                 damaged",
                p.unit, p.interval
            ));
        }
        let grain = if p.unit == 0 { p.interval } else { p.unit };
        Verifier::new(
            &spec,
            kind,
            p.seed,
            p.clone,
            (p.interval, grain),
            &p.regions,
        )
    }

    pub(crate) fn fill(&mut self, file: usize, offset: u64, buf: &mut [u8]) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let chunks: Vec<(u64, u64)> = self.chunks(offset, buf.len() as u64).collect();
        for (off, len) in chunks {
            let g = match self.slot(file, off) {
                Some(s) => {
                    *s += 1;
                    *s as u64
                }
                None => 1,
            };
            if let Some(i) = self.index(file, off) {
                self.trimmed[file][i] = false;
            }
            let b = &mut buf[(off - offset) as usize..(off - offset + len) as usize];
            self.fill_chunk(b, off, g, now);
        }
        if let Some(i) = self.index(file, offset) {
            note_write(
                &mut self.pending[file],
                i,
                buf.len() as u64,
                self.unit,
                &mut self.longest,
            );
            if let Some(o) = &mut self.order {
                o.push((file as u32, offset));
            }
        }
    }

    /// Read the writes back in the order they were made (a random job with the random
    /// map, as fio's list of them), not in offset order.
    pub(crate) fn keep_write_order(&mut self) {
        self.order = Some(Vec::new());
    }

    /// Every file's unchecked writes (file, offset, length) as fio reads them back: in
    /// the order they were made with [`Verifier::keep_write_order`] (each once), else
    /// file by file in offset order (trimmed chunks among them).
    pub(crate) fn unchecked_all(&self) -> Vec<(usize, u64, u64)> {
        let by_offset = || {
            (0..self.pending.len())
                .flat_map(|fi| self.unchecked(fi).into_iter().map(move |(o, n)| (fi, o, n)))
                .collect()
        };
        let Some(order) = &self.order else {
            return by_offset();
        };
        if self.trimmed.iter().any(|t| t.contains(&true)) {
            return by_offset();
        }
        let mut seen = std::collections::HashSet::with_capacity(order.len());
        order
            .iter()
            .filter_map(|&(f, off)| {
                let fi = f as usize;
                let i = self.index(fi, off)?;
                let n = self.pending[fi][i];
                (n > 0 && seen.insert((f, off))).then(|| (fi, off, u64::from(n) * self.unit))
            })
            .collect()
    }

    /// A pass's writes were all read back: the next pass's order starts afresh.
    pub(crate) fn clear_order(&mut self) {
        if let Some(o) = &mut self.order {
            o.clear();
        }
    }

    /// After checks in the run (verify_backlog): the order forgets the writes checked,
    /// once it has doubled since it last did, so it holds about what is left to check
    /// (as fio's list drops what it verified), at a cost spread over the writes.
    pub(crate) fn prune_order(&mut self) {
        let Some(mut o) = self.order.take() else {
            return;
        };
        if o.len() >= 2 * self.order_kept + 1024 {
            o.retain(|&(f, off)| {
                let fi = f as usize;
                self.index(fi, off).is_some_and(|i| self.pending[fi][i] > 0)
            });
            self.order_kept = o.len();
        }
        self.order = Some(o);
    }

    /// verify_only without a saved state: the blocks a writing job's dry run would have
    /// written (`writes`: file, offset, length in the job's order), as the verify pass
    /// reads them back: a block at a time, in offset order, a later write replacing the
    /// ones that started inside it (fio's history of written blocks).
    pub(crate) fn dry_run(
        &self,
        writes: impl Iterator<Item = (usize, u64, u64)>,
    ) -> Vec<(usize, u64, u64)> {
        let mut pending: Vec<Vec<u32>> = self.gens.iter().map(|g| vec![0; g.1.len()]).collect();
        let mut longest = 0;
        for (file, offset, len) in writes {
            if let Some(i) = self.index(file, offset) {
                note_write(&mut pending[file], i, len, self.unit, &mut longest);
            }
        }
        let mut out = Vec::new();
        for (file, p) in pending.iter().enumerate() {
            let start = self.gens[file].0;
            let mut i = 0;
            while i < p.len() {
                if p[i] > 0 {
                    out.push((file, start + i as u64 * self.unit, p[i] as u64 * self.unit));
                    i += p[i] as usize;
                } else {
                    i += 1;
                }
            }
        }
        out
    }

    fn payload(&self, b: &mut [u8], offset: u64, generation: u64) {
        if matches!(self.kind, VerifyKind::Pattern | VerifyKind::PatternHdr) {
            let p = self.stamped_pattern(offset);
            for c in b.chunks_mut(p.len()) {
                c.copy_from_slice(&p[..c.len()]);
            }
            if let Some(f) = &self.io_data {
                f.fill(b, offset);
            }
            return;
        }
        let mut st = self.seed
            ^ offset.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ generation.wrapping_mul(0xD1B5_4A32_D192_ED03);
        for c in b.chunks_mut(8) {
            let v = fathom_workload::splitmix64(&mut st).to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }

    /// The pattern with the chunk's offset in its `%o` places.
    fn stamped_pattern(&self, offset: u64) -> std::borrow::Cow<'_, [u8]> {
        if self.pattern_offsets.is_empty() {
            return std::borrow::Cow::Borrowed(&self.pattern);
        }
        let mut p = self.pattern.clone();
        for &at in &self.pattern_offsets {
            p[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        }
        std::borrow::Cow::Owned(p)
    }

    fn header_len(&self) -> usize {
        header_len(self.kind)
    }

    /// The header's place in a chunk of `len` bytes (None: no header).
    fn header_at(&self, len: usize) -> Option<usize> {
        if self.kind == VerifyKind::Pattern {
            return None;
        }
        let h = self.header_len();
        // A chunk too short for the header has none (a damaged journal's parameters).
        (len >= h).then(|| self.hdr_off.min(len - h))
    }

    /// The data of a chunk: everything but the header.
    fn data_of(&self, b: &[u8]) -> Vec<u8> {
        match self.header_at(b.len()) {
            Some(at) => {
                let h = self.header_len();
                let mut d = b[..at].to_vec();
                d.extend_from_slice(&b[at + h..]);
                d
            }
            None => b.to_vec(),
        }
    }

    fn fill_chunk(&self, b: &mut [u8], offset: u64, generation: u64, now: u64) {
        self.payload(b, offset, generation);
        let Some(at) = self.header_at(b.len()) else {
            return;
        };
        let h = Header {
            kind: kind_id(self.kind),
            hdr_len: self.header_len(),
            chunk_len: b.len() as u32,
            clone: self.clone,
            offset,
            seed: self.seed,
            generation,
            time_ns: now,
            digest: digest(self.kind, &self.data_of(b)),
        };
        h.encode(&mut b[at..]);
    }

    /// The expected bytes of a chunk with its header as found (for byte comparisons).
    fn expected(&self, len: usize, offset: u64, generation: u64, hdr: Option<&Header>) -> Vec<u8> {
        let mut e = vec![0u8; len];
        self.payload(&mut e, offset, generation);
        if let (Some(at), Some(h)) = (self.header_at(len), hdr) {
            h.encode(&mut e[at..]);
        }
        e
    }

    /// What a failed chunk should have held (for verify_dump): its expected generation's
    /// data and header (the write time is not known: the header found, or zero).
    pub(crate) fn expected_of(&self, f: &Failure, len: usize) -> Vec<u8> {
        let g = f
            .expected_generation
            .or(f.found.as_ref().map(|h| h.generation))
            .unwrap_or(1);
        let time = f.found.as_ref().map_or(0, |h| h.time_ns);
        self.written_chunk(len, f.offset, g, time)
    }

    /// A chunk as a write of generation `g` at `time_ns` put it down.
    fn written_chunk(&self, len: usize, offset: u64, g: u64, time_ns: u64) -> Vec<u8> {
        let mut b = vec![0u8; len];
        self.fill_chunk(&mut b, offset, g, time_ns);
        b
    }

    /// Save the generation table (verify_state_save).
    pub(crate) fn save_state(&self, path: &std::path::Path) -> std::io::Result<()> {
        let mut out = Vec::new();
        let head = serde_json::json!({
            "format": "fathom-verify-state",
            "version": 1,
            "unit": self.unit,
            "seed": self.seed,
            "files": self.gens.iter().map(|(s, g)| (s, g.len())).collect::<Vec<_>>(),
        });
        out.extend_from_slice(head.to_string().as_bytes());
        out.push(b'\n');
        for (_, g) in &self.gens {
            for x in g {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        std::fs::write(path, out)
    }

    /// Load a generation table saved by [`Verifier::save_state`] for the same job.
    pub(crate) fn load_state(&mut self, path: &std::path::Path) -> Result<(), String> {
        let all = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let nl = all
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| format!("{}: not a verify state file", path.display()))?;
        let head: serde_json::Value = serde_json::from_slice(&all[..nl])
            .map_err(|e| format!("{}: not a verify state file ({e})", path.display()))?;
        let files: Vec<(u64, usize)> = serde_json::from_value(head["files"].clone())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let mine: Vec<(u64, usize)> = self.gens.iter().map(|(s, g)| (*s, g.len())).collect();
        if head["format"] != "fathom-verify-state"
            || head["unit"] != self.unit
            || head["seed"] != self.seed
            || files != mine
        {
            return Err(format!(
                "{}: saved by a different job (files, sizes, verify_interval or seed differ)",
                path.display()
            ));
        }
        let mut words = all[nl + 1..].chunks_exact(4);
        for (_, g) in &mut self.gens {
            for x in g.iter_mut() {
                let w = words
                    .next()
                    .ok_or_else(|| format!("{}: truncated", path.display()))?;
                *x = u32::from_le_bytes(w.try_into().unwrap());
            }
        }
        Ok(())
    }

    /// Check a chunk read back from `offset`. `expected`: the generation this run wrote
    /// last (None: unknown, e.g. verify_only; the header must then be self-consistent).
    pub(crate) fn check(
        &self,
        b: &[u8],
        offset: u64,
        expected: Option<u64>,
    ) -> Result<(), Box<Failure>> {
        let fail = |damage: Damage, found: Option<Header>| {
            Box::new(Failure {
                offset,
                len: b.len() as u64,
                damage,
                expected_generation: expected,
                found,
            })
        };
        if self.kind == VerifyKind::Null {
            return Ok(());
        }
        // verify=pattern's data as it should be passes at once (a slice compare a
        // pattern's length at a time; the per-write data compared whole).
        if self.kind == VerifyKind::Pattern {
            let p = self.stamped_pattern(offset);
            let same = match &self.io_data {
                None => b.chunks(p.len()).all(|c| c == &p[..c.len()]),
                Some(_) => {
                    let mut want = vec![0u8; b.len()];
                    self.payload(&mut want, offset, 0);
                    b == want.as_slice()
                }
            };
            if same {
                return Ok(());
            }
        }
        if b.iter().all(|&x| x == 0) {
            return Err(fail(Damage::Unwritten, None));
        }
        let Some(at) = self.header_at(b.len()) else {
            // verify=pattern: the data is the pattern, byte for byte. A chunk of another
            // kind too short for its header (the tail of a write its interval does not
            // divide) holds the data of its generation: checked when that is known.
            let g = match (self.kind, expected) {
                (VerifyKind::Pattern | VerifyKind::PatternHdr, _) => 0,
                (_, Some(g)) => g,
                (_, None) => return Ok(()),
            };
            let mut want = vec![0u8; b.len()];
            self.payload(&mut want, offset, g);
            return match first_diff(b, &want, offset) {
                None => Ok(()),
                Some((at, want, got)) => Err(fail(Damage::PatternMismatch { at, want, got }, None)),
            };
        };
        let h = match Header::decode(&b[at..]) {
            Ok(h) => h,
            Err(why) => return Err(fail(self.bad_header(b, offset, at, expected, why), None)),
        };
        // Another writer's chunk, whole, passes where this clone cannot know who wrote
        // last: a read-only check (fio does not ask whose a block is there either), or a
        // region another clone writes too.
        // Under key maps every job writes alike: a shared region's older generation is
        // another job's write, as whole as a foreigner's.
        let any_generation = self.shared && !self.base.is_empty();
        let foreign = match self.header_mismatch(&h, offset, expected) {
            Some(Damage::Foreign { .. }) if expected.is_none() || self.shared => true,
            Some(Damage::Lost { .. }) if any_generation => true,
            Some(d) => return Err(fail(d, Some(h))),
            None => false,
        };
        let data_ok = match self.kind {
            VerifyKind::Meta => true,
            VerifyKind::PatternHdr => {
                let want = self.expected(b.len(), offset, h.generation, Some(&h));
                first_diff(b, &want, offset).is_none()
            }
            k => digest(k, &self.data_of(b)) == h.digest,
        };
        if data_ok && (foreign || any_generation || expected.is_none_or(|g| h.generation == g)) {
            return Ok(());
        }
        if data_ok {
            return Err(fail(
                Damage::CorruptHeader("generation newer than any write of this run"),
                Some(h),
            ));
        }
        if let Some(t) = self.torn(b, offset, h.generation) {
            return Err(fail(Damage::Torn { at: t }, Some(h)));
        }
        let want = self.expected(b.len(), offset, h.generation, Some(&h));
        Err(fail(damage_against(b, &want, offset), Some(h)))
    }

    /// A header that does not decode: a torn write (the old header left in place), one
    /// flipped bit, or a corrupt header.
    fn bad_header(
        &self,
        b: &[u8],
        offset: u64,
        at: usize,
        expected: Option<u64>,
        why: &'static str,
    ) -> Damage {
        // A torn write can leave the old header in place: see whether the chunk starts
        // as the expected generation and continues as the previous one.
        if let Some(g) = expected {
            if let Some(t) = self.torn(b, offset, g) {
                return Damage::Torn { at: t };
            }
        }
        // A bit flipped inside the header: rebuild the header this chunk should have (its
        // write time is the one thing not known: take the stored one) and compare the
        // whole chunk.
        let raw = |i: usize| {
            b.get(at + i..at + i + 8)
                .map(|x| u64::from_le_bytes(x.try_into().unwrap()))
                .unwrap_or(0)
        };
        let g = expected.unwrap_or_else(|| raw(32));
        let want = self.written_chunk(b.len(), offset, g, raw(40));
        let bits: u32 = b.iter().zip(&want).map(|(x, y)| (x ^ y).count_ones()).sum();
        if bits == 1 {
            let (at, w, got) = first_diff(b, &want, offset).expect("one bit differs");
            return Damage::BitFlip { at, want: w, got };
        }
        Damage::CorruptHeader(why)
    }

    /// A decoded header that is not this chunk's: another offset, another clone or run,
    /// or an older generation than the run wrote last.
    fn header_mismatch(&self, h: &Header, offset: u64, expected: Option<u64>) -> Option<Damage> {
        if h.offset != offset {
            return Some(Damage::Misdirected { holds: h.offset });
        }
        if h.seed != self.seed || h.clone != self.clone {
            return Some(Damage::Foreign {
                clone: h.clone,
                seed: h.seed,
            });
        }
        match expected {
            Some(g) if h.generation < g => Some(Damage::Lost {
                found: h.generation,
                expected: g,
            }),
            _ => None,
        }
    }

    /// If `b` is generation `g` up to a 512-byte boundary and generation `g - 1` (or
    /// zeroes, for the first write) after it, that boundary (absolute offset).
    fn torn(&self, b: &[u8], offset: u64, g: u64) -> Option<u64> {
        if g == 0 || b.len() <= 512 {
            return None;
        }
        // The new generation as it would have been written: its header is the one in
        // the chunk when that survived; otherwise compare the data outside the header.
        let hdr = self
            .header_at(b.len())
            .and_then(|at| Header::decode(&b[at..]).ok());
        let new = self.expected(b.len(), offset, g, hdr.as_ref());
        let old = if g > 1 {
            let old_hdr = hdr.as_ref().map(|h| Header {
                generation: g - 1,
                ..h.clone()
            });
            self.expected(b.len(), offset, g - 1, old_hdr.as_ref())
        } else {
            vec![0u8; b.len()]
        };
        let skip = |i: usize| {
            self.header_at(b.len())
                .is_some_and(|at| i >= at && i < at + self.header_len())
        };
        let same = |x: &[u8], i: usize| b[i] == x[i] || skip(i);
        let cut = (0..b.len()).find(|&i| !same(&new, i))?;
        let cut = cut / 512 * 512;
        if cut == 0 && b[..512].iter().enumerate().all(|(i, _)| same(&old, i)) {
            return None; // wholly old: a lost write, not a torn one
        }
        (cut..b.len())
            .all(|i| same(&old, i))
            .then_some(offset + cut as u64)
    }
}

/// The first byte of `b` (read from `offset`) that differs from `want`: its absolute
/// offset, the byte wanted and the byte found.
fn first_diff(b: &[u8], want: &[u8], offset: u64) -> Option<(u64, u8, u8)> {
    b.iter()
        .zip(want)
        .position(|(x, y)| x != y)
        .map(|i| (offset + i as u64, want[i], b[i]))
}

/// What damaged data is against what it should hold: one flipped bit, or corruption
/// from its first differing byte.
fn damage_against(b: &[u8], want: &[u8], offset: u64) -> Damage {
    let (at, w, g) = first_diff(b, want, offset).unwrap_or((offset, 0, 0));
    let bits: u32 = b.iter().zip(want).map(|(x, y)| (x ^ y).count_ones()).sum();
    if bits == 1 {
        Damage::BitFlip {
            at,
            want: w,
            got: g,
        }
    } else {
        Damage::Corrupted {
            at,
            want: w,
            got: g,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verifier(kind: VerifyKind) -> Verifier {
        let spec = VerifySpec {
            kind: Some(kind),
            pattern: Some(vec![0xde, 0xad, 0xbe, 0xef]),
            ..Default::default()
        };
        Verifier::new(&spec, kind, 0x5eed, 3, (4096, 4096), &[(0, 1 << 20)]).unwrap()
    }

    fn written(v: &mut Verifier, off: u64) -> Vec<u8> {
        let mut b = vec![0u8; 4096];
        v.fill(0, off, &mut b);
        b
    }

    #[test]
    fn another_writer_s_whole_chunk_passes_only_where_it_may_be_there() {
        // Clone 4 wrote the chunk; clone 3 checks it. Its own region alone: another
        // writer's data there is damage. A region shared with other clones, or a read-only
        // check (no generation known): it passes, as fio's check does.
        let spec = VerifySpec {
            kind: Some(VerifyKind::Crc32c),
            ..Default::default()
        };
        let mut other = Verifier::new(
            &spec,
            VerifyKind::Crc32c,
            0x5eed,
            4,
            (4096, 4096),
            &[(0, 1 << 20)],
        )
        .unwrap();
        let b = written(&mut other, 8192);
        let mut v = verifier(VerifyKind::Crc32c);
        let _ = written(&mut v, 8192);
        let err = v.check(&b, 8192, Some(1)).unwrap_err();
        assert!(
            matches!(err.damage, Damage::Foreign { clone: 4, .. }),
            "{:?}",
            err.damage
        );
        assert!(v.check(&b, 8192, None).is_ok());
        v.shared = true;
        assert!(v.check(&b, 8192, Some(1)).is_ok());
        // Still checked: another writer's chunk damaged fails.
        let mut bad = b.clone();
        bad[100] ^= 1;
        assert!(v.check(&bad, 8192, Some(1)).is_err());
    }

    #[test]
    fn a_chunk_shorter_than_its_header_is_checked_without_a_panic() {
        // Found by tests/fuzz: a journal header with a verify interval of 1 byte.
        let parts = VerifierParts {
            kind: "sha512".into(),
            interval: 1,
            header_offset: 0,
            pattern: vec![0],
            pattern_offsets: Vec::new(),
            seed: 1,
            clone: 0,
            regions: vec![(0, 4096)],
            unit: 0,
        };
        let v = Verifier::from_parts(&parts).unwrap();
        let b = [7u8; 1];
        let _ = v.check(&b, 0, Some(1));
        let mut w = [0u8; 1];
        v.fill_chunk(&mut w, 0, 1, 0);
        // A headerless chunk holds its generation's data: checked against it.
        let mut v = v;
        let mut w = [0u8; 1];
        v.fill(0, 100, &mut w);
        assert!(v.check(&w, 100, Some(1)).is_ok());
        assert!(v.check(&w, 100, Some(2)).is_err());
        // A unit that does not divide the interval is a damaged header.
        let bad = VerifierParts {
            interval: 4096,
            unit: 3000,
            ..parts
        };
        assert!(Verifier::from_parts(&bad).is_err());
    }

    #[test]
    fn a_finer_table_keeps_chunks_off_the_block_grid_apart() {
        // 16 KiB chunks every 24 KiB (holes): each in its own slot, each checked.
        let spec = VerifySpec {
            kind: Some(VerifyKind::Crc32c),
            ..Default::default()
        };
        let mut v = Verifier::new(
            &spec,
            VerifyKind::Crc32c,
            1,
            0,
            (16384, 8192),
            &[(0, 1 << 20)],
        )
        .unwrap();
        let mut bufs = Vec::new();
        for k in 0..10u64 {
            let mut b = vec![0u8; 16384];
            v.fill(0, k * 24576, &mut b);
            bufs.push(b);
        }
        let pending = v.unchecked(0);
        assert_eq!(pending.len(), 10);
        for (k, b) in bufs.iter().enumerate() {
            let off = k as u64 * 24576;
            assert_eq!(v.generation(0, off), 1);
            assert!(v.check(b, off, Some(1)).is_ok(), "chunk {k}");
        }
        // A write at 8k tears the one at 0 (off the 16k grid): that one is dropped.
        let mut b = vec![0u8; 16384];
        v.fill(0, 8192, &mut b);
        let pending = v.unchecked(0);
        assert!(pending.iter().all(|&(o, _)| o != 0), "{pending:?}");
        assert!(pending.contains(&(8192, 16384)));
    }

    #[test]
    fn every_kind_passes_clean_data_and_catches_a_flipped_byte() {
        for &(name, kind) in VerifyKind::NAMES {
            if kind == VerifyKind::Null {
                continue;
            }
            let mut v = verifier(kind);
            let mut b = written(&mut v, 409600);
            let g = v.generation(0, 409600) as u64;
            assert_eq!(g, 1);
            assert_eq!(v.check(&b, 409600, Some(g)), Ok(()), "{name}");
            // Flip a bit of the data, well past the header.
            b[1000] ^= 0x10;
            if kind == VerifyKind::Meta {
                // meta checks the header only (as fio's).
                assert!(v.check(&b, 409600, Some(g)).is_ok());
                continue;
            }
            let e = v.check(&b, 409600, Some(g)).unwrap_err();
            match e.damage {
                Damage::BitFlip { at, .. } | Damage::PatternMismatch { at, .. } => {
                    assert_eq!(at, 409600 + 1000, "{name}")
                }
                d => panic!("{name}: {d:?}"),
            }
        }
    }

    #[test]
    fn damage_is_classified() {
        let mut v = verifier(VerifyKind::Crc32c);
        let first = written(&mut v, 8192);
        let second = written(&mut v, 8192);
        assert_eq!(v.generation(0, 8192), 2);
        // Lost write: the first generation reads back.
        let e = v.check(&first, 8192, Some(2)).unwrap_err();
        assert_eq!(
            e.damage,
            Damage::Lost {
                found: 1,
                expected: 2
            }
        );
        // Misdirected: the block of 8192 read at 12288.
        let e = v.check(&second, 12288, None).unwrap_err();
        assert_eq!(e.damage, Damage::Misdirected { holds: 8192 });
        // Unwritten.
        let e = v.check(&[0u8; 4096], 0, Some(1)).unwrap_err();
        assert_eq!(e.damage, Damage::Unwritten);
        // Torn at 512: the new generation's first sector, the old one after it.
        let mut torn = first.clone();
        torn[..512].copy_from_slice(&second[..512]);
        let e = v.check(&torn, 8192, Some(2)).unwrap_err();
        assert_eq!(
            e.damage,
            Damage::Torn { at: 8192 + 512 },
            "{}",
            e.text("f".as_ref())
        );
        // A torn first write: new data then zeroes.
        let mut fresh = vec![0u8; 4096];
        let mut w = verifier(VerifyKind::Crc32c);
        w.fill(0, 0, &mut fresh);
        fresh[2048..].fill(0);
        let e = w.check(&fresh, 0, Some(1)).unwrap_err();
        assert_eq!(e.damage, Damage::Torn { at: 2048 });
        // One bit flipped in the header is still named as a bit flip, at its byte.
        let mut h = second.clone();
        h[20] ^= 1;
        let e = v.check(&h, 8192, Some(2)).unwrap_err();
        assert_eq!(
            e.damage,
            Damage::BitFlip {
                at: 8192 + 20,
                want: second[20],
                got: second[20] ^ 1
            }
        );
        // More damage there: a corrupt header.
        h[21] ^= 0xff;
        let e = v.check(&h, 8192, Some(2)).unwrap_err();
        assert!(
            matches!(e.damage, Damage::CorruptHeader(_)),
            "{:?}",
            e.damage
        );
        // Text names the class, the offset in decimal and hex, and the first bad byte.
        let mut f = second.clone();
        f[10] ^= 4;
        let t = v
            .check(&f, 8192, Some(2))
            .unwrap_err()
            .text("/mnt/x".as_ref());
        assert!(
            t.contains("bit flip") || t.contains("corrupt header"),
            "{t}"
        );
        assert!(t.contains("8192 (0x2000)"), "{t}");
    }

    #[test]
    fn a_pattern_with_the_offset_catches_a_block_in_the_wrong_place() {
        let spec = VerifySpec {
            kind: Some(VerifyKind::Pattern),
            pattern: Some(vec![0xff, 0, 0, 0, 0, 0, 0, 0, 0]),
            pattern_offsets: vec![1],
            ..Default::default()
        };
        let mut v = Verifier::new(
            &spec,
            VerifyKind::Pattern,
            1,
            0,
            (4096, 4096),
            &[(0, 1 << 20)],
        )
        .unwrap();
        let mut b = vec![0u8; 4096];
        v.fill(0, 8192, &mut b);
        assert_eq!(&b[..9], &[0xff, 0, 0x20, 0, 0, 0, 0, 0, 0]);
        assert!(v.check(&b, 8192, Some(1)).is_ok());
        let e = v.check(&b, 12288, Some(1)).unwrap_err();
        assert!(
            matches!(e.damage, Damage::PatternMismatch { at: 12290, .. }),
            "{:?}",
            e.damage
        );
    }

    #[test]
    fn trimmed_chunks_must_read_back_as_zeroes() {
        let mut v = verifier(VerifyKind::Crc32c);
        let b = written(&mut v, 4096);
        v.trimmed(0, 4096, 4096);
        assert!(v.is_trimmed(0, 4096));
        assert_eq!(v.written(0).collect::<Vec<_>>(), vec![4096]);
        assert!(v.check_trimmed(&[0u8; 4096], 4096).is_ok());
        let e = v.check_trimmed(&b, 4096).unwrap_err();
        assert!(matches!(e.damage, Damage::NotZeroAfterTrim { .. }));
        assert!(e.text("f".as_ref()).contains("trimmed but not zero"));
        // Written again: no longer trimmed.
        let _ = written(&mut v, 4096);
        assert!(!v.is_trimmed(0, 4096));
        assert_eq!(v.generation(0, 4096), 2);
    }

    #[test]
    fn intervals_split_writes_into_chunks_with_their_own_headers() {
        let spec = VerifySpec {
            kind: Some(VerifyKind::Md5),
            interval: 1024,
            offset: 100,
            ..Default::default()
        };
        let mut v =
            Verifier::new(&spec, VerifyKind::Md5, 1, 0, (4096, 4096), &[(0, 1 << 20)]).unwrap();
        let mut b = vec![0u8; 4096];
        v.fill(0, 4096, &mut b);
        for k in 0..4u64 {
            let c = &b[(k * 1024) as usize..((k + 1) * 1024) as usize];
            assert_eq!(v.check(c, 4096 + k * 1024, Some(1)), Ok(()));
            assert_eq!(u32::from_le_bytes(c[100..104].try_into().unwrap()), MAGIC);
        }
        assert_eq!(
            v.written(0).collect::<Vec<_>>(),
            vec![4096, 5120, 6144, 7168]
        );
    }

    #[test]
    fn writes_read_back_in_write_order_and_checked_ones_are_forgotten() {
        let mut v = verifier(VerifyKind::Crc32c);
        v.keep_write_order();
        let mut buf = vec![0u8; 4096];
        // 256 blocks written in a scattered order.
        let order: Vec<u64> = (0..256u64).map(|i| (i * 97 % 256) * 4096).collect();
        for &off in &order {
            v.fill(0, off, &mut buf);
        }
        let back: Vec<u64> = v.unchecked_all().iter().map(|x| x.1).collect();
        assert_eq!(back, order, "in the order written");
        // Checked (verify_backlog) writes leave the order once it has grown enough.
        for &off in &order[..200] {
            v.checked(0, off);
        }
        for _ in 0..20 {
            for &off in &order[200..] {
                v.fill(0, off, &mut buf);
            }
        }
        v.prune_order();
        let kept = v.order.as_ref().map_or(0, Vec::len);
        assert_eq!(kept, 56 * 21, "the 200 checked writes gone");
        let back: Vec<u64> = v.unchecked_all().iter().map(|x| x.1).collect();
        assert_eq!(back, order[200..].to_vec());
    }
}
