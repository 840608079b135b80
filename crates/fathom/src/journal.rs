//! The crash-consistency journal (`verify_journal=PATH`, a fathom extension).
//!
//! Before a verified write is issued its *intent* (file, chunk offset, generation) is
//! appended to the journal; after it completes, its *acknowledgement*. The journal is
//! opened with O_DSYNC, so every record is on stable storage before the write it
//! announces is issued, and it is never behind what was acknowledged. After a crash
//! (SIGKILL, power cut) [`check`] replays it: every acknowledged chunk must hold its
//! acknowledged generation, or a newer one whose write was in flight; a chunk in flight
//! may hold the old or the new data, never anything else.
//!
//! Layout: one JSON line (format, files, the verifier's parameters), then 32-byte records:
//! kind (1 intent, 2 ack), file index, generation, offset, length, CRC-32C. A record
//! torn by the crash ends the replay.

use crate::verify::{Verifier, VerifierParts};
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

const FORMAT: &str = "fathom-verify-journal";
const RECORD: usize = 32;
const INTENT: u8 = 1;
const ACK: u8 = 2;

#[derive(serde::Serialize, serde::Deserialize)]
struct JournalHeader {
    format: String,
    version: u32,
    files: Vec<PathBuf>,
    verifier: VerifierParts,
}

/// Appends a clone's intents and acknowledgements.
pub(crate) struct JournalWriter {
    file: std::fs::File,
    buf: Vec<u8>,
}

impl JournalWriter {
    /// Start a journal at `path` (replacing an old one) for a clone's files.
    pub(crate) fn create(path: &Path, files: &[PathBuf], v: &Verifier) -> io::Result<Self> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_DSYNC)
            .open(path)?;
        let header = JournalHeader {
            format: FORMAT.into(),
            version: 1,
            files: files
                .iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .collect(),
            verifier: v.parts(),
        };
        let mut line = serde_json::to_vec(&header).map_err(io::Error::other)?;
        line.push(b'\n');
        file.write_all(&line)?;
        Ok(JournalWriter {
            file,
            buf: Vec::with_capacity(RECORD * 16),
        })
    }

    fn record(&mut self, kind: u8, file: usize, chunks: &[(u64, u32)], len: u64) -> io::Result<()> {
        self.buf.clear();
        for &(off, g) in chunks {
            let mut r = [0u8; RECORD];
            r[0] = kind;
            r[2..4].copy_from_slice(&(file as u16).to_le_bytes());
            r[4..8].copy_from_slice(&g.to_le_bytes());
            r[8..16].copy_from_slice(&off.to_le_bytes());
            r[16..20].copy_from_slice(&(len as u32).to_le_bytes());
            let crc = crc32c::crc32c(&r[..24]);
            r[24..28].copy_from_slice(&crc.to_le_bytes());
            self.buf.extend_from_slice(&r);
        }
        // One O_DSYNC write: on stable storage when it returns.
        self.file.write_all(&self.buf)
    }

    /// Chunks about to be written (before the write is issued).
    pub(crate) fn intent(
        &mut self,
        file: usize,
        chunks: &[(u64, u32)],
        len: u64,
    ) -> io::Result<()> {
        self.record(INTENT, file, chunks, len)
    }

    /// Chunks whose write completed.
    pub(crate) fn ack(&mut self, file: usize, chunks: &[(u64, u32)], len: u64) -> io::Result<()> {
        self.record(ACK, file, chunks, len)
    }
}

/// What a journal check found.
#[derive(Debug, Default)]
pub struct JournalReport {
    /// Acknowledged chunks checked.
    pub checked: u64,
    /// Bytes of them.
    pub bytes: u64,
    /// Chunks whose last write was in flight at the crash (old or new data allowed).
    pub in_flight: u64,
    /// Failures, described.
    pub failures: Vec<String>,
    /// Acknowledged chunks: (file, offset).
    pub acknowledged: Vec<(PathBuf, u64)>,
}

/// Replay the journal at `path` and check every acknowledged chunk of its files.
pub fn check(path: &Path) -> Result<JournalReport, String> {
    let mut f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut all = Vec::new();
    f.read_to_end(&mut all)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let nl = all
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| format!("{}: not a fathom verify journal", path.display()))?;
    let header: JournalHeader = serde_json::from_slice(&all[..nl])
        .map_err(|e| format!("{}: not a fathom verify journal ({e})", path.display()))?;
    if header.format != FORMAT || header.version != 1 {
        return Err(format!("{}: not a fathom verify journal", path.display()));
    }
    let v = Verifier::from_parts(&header.verifier)?;
    // Per (file, chunk): the last acknowledged generation and the newest intended one.
    let mut state: HashMap<(u16, u64), (u32, u32, u32)> = HashMap::new();
    for r in all[nl + 1..].chunks_exact(RECORD) {
        let crc = u32::from_le_bytes(r[24..28].try_into().unwrap());
        if crc32c::crc32c(&r[..24]) != crc {
            break; // torn by the crash: nothing after it was written
        }
        let file = u16::from_le_bytes([r[2], r[3]]);
        let g = u32::from_le_bytes(r[4..8].try_into().unwrap());
        let off = u64::from_le_bytes(r[8..16].try_into().unwrap());
        let len = u32::from_le_bytes(r[16..20].try_into().unwrap());
        let e = state.entry((file, off)).or_insert((0, 0, len));
        match r[0] {
            INTENT => e.1 = e.1.max(g),
            ACK => e.0 = e.0.max(g),
            _ => return Err(format!("{}: unknown record kind {}", path.display(), r[0])),
        }
    }
    let mut keys: Vec<_> = state.keys().copied().collect();
    keys.sort();
    let mut report = JournalReport::default();
    let mut open: HashMap<u16, std::fs::File> = HashMap::new();
    for (file, off) in keys {
        let (acked, intended, _) = state[&(file, off)];
        let in_flight = intended > acked;
        if in_flight {
            report.in_flight += 1;
        }
        if acked == 0 {
            continue; // never acknowledged: its old contents are not ours to judge
        }
        let p = header
            .files
            .get(file as usize)
            .ok_or_else(|| format!("{}: record for unknown file {file}", path.display()))?;
        let fh = match open.get(&file) {
            Some(h) => h,
            None => {
                let h = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
                open.entry(file).or_insert(h)
            }
        };
        let n = v.interval as usize;
        let mut b = vec![0u8; n];
        let got = fh
            .read_at(&mut b, off)
            .map_err(|e| format!("{}: read at {off}: {e}", p.display()))?;
        b.truncate(got);
        report.checked += 1;
        report.bytes += got as u64;
        report.acknowledged.push((p.clone(), off));
        let ok = v.check(&b, off, Some(acked as u64));
        let ok = match ok {
            Err(_) if in_flight => v.check(&b, off, Some(intended as u64)),
            r => r,
        };
        if let Err(f) = ok {
            report.failures.push(f.text(p));
        }
    }
    Ok(report)
}
