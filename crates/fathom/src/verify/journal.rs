//! The crash-consistency journal (`verify_journal=PATH`, a fathom extension).
//!
//! Before a verified write is issued its *intent* (file, chunk offset, generation) is
//! appended to the journal; after it completes, its *acknowledgement*. The journal is
//! opened with O_DSYNC, so every record is on stable storage before the write it
//! announces is issued, and it is never behind what was acknowledged. After a crash
//! (SIGKILL, power cut) [`check`] replays it: a chunk some write of which was acknowledged
//! must hold one of the generations that may have landed last: any generation that was
//! issued and not surely overwritten, where a generation is surely overwritten once a
//! later one, issued after its acknowledgement, is acknowledged. Two writes of one chunk
//! in flight together may land in either order, so both stay legal.
//!
//! Layout: one JSON line (format, files, the verifier's parameters), then 32-byte records:
//! kind (1 intent, 2 ack), file index, generation, offset, length, CRC-32C. The records
//! are read as a stream. Records torn by the crash (the last write's, at the end) end the
//! replay; a bad record followed by good ones is damage to the journal, and said so.

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
    /// The most records one write appends (a crash can tear that many at the end); 0 in
    /// journals written before it was recorded.
    #[serde(default)]
    max_batch: u64,
}

/// Appends a clone's intents and acknowledgements.
pub(crate) struct JournalWriter {
    file: std::fs::File,
    buf: Vec<u8>,
}

impl JournalWriter {
    /// Start a journal at `path` (replacing an old one) for a clone's files.
    pub(crate) fn create(
        path: &Path,
        files: &[PathBuf],
        v: &Verifier,
        max_batch: u64,
    ) -> io::Result<Self> {
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
            max_batch,
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
    /// The acknowledged chunks found whole: (file, offset, the generation each holds),
    /// what a later job may go on from (see `Control::key_maps` and [`JournalReport::keep`]).
    pub known: Vec<(PathBuf, u64, u32)>,
    /// The generation table's unit of the journal's job (bytes).
    pub unit: u64,
}

impl JournalReport {
    /// Note what the journal's chunks were found holding in key maps, so the jobs after a
    /// recovery check them against it (vdbench goes on from its recovered map).
    pub fn keep(&self, maps: &fathom_job::KeyMaps) {
        let unit = self.unit.max(1);
        maps.with(|m| {
            for (p, off, g) in &self.known {
                let i = (off / unit) as usize;
                m.entry(p.clone()).or_default().entries(unit, i + 1)[i] = *g;
            }
        });
    }
}

/// One generation of a chunk that may still be what the chunk holds: when its intent
/// and its acknowledgement were recorded (record numbers).
#[derive(Clone, Copy)]
struct Live {
    generation: u32,
    intent: u64,
    ack: Option<u64>,
}

/// What the replay knows of one chunk.
#[derive(Default)]
struct Chunk {
    live: Vec<Live>,
    acked: bool,
}

impl Chunk {
    fn intent(&mut self, generation: u32, at: u64) {
        self.live.push(Live {
            generation,
            intent: at,
            ack: None,
        });
    }

    fn ack(&mut self, generation: u32, at: u64) {
        let Some(i) = self.live.iter().position(|l| l.generation == generation) else {
            return;
        };
        self.live[i].ack = Some(at);
        self.acked = true;
        // Every generation acknowledged before this one was issued landed before it.
        let issued = self.live[i].intent;
        self.live.retain(|l| l.ack.is_none_or(|a| a > issued));
    }
}

/// The largest header line a journal may have (files and verifier parameters).
const MAX_HEADER: u64 = 16 << 20;

/// Replay the journal at `path` and check every acknowledged chunk of its files.
pub fn check(path: &Path) -> Result<JournalReport, String> {
    let shown = path.display();
    let f = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let md = f.metadata().map_err(|e| format!("{shown}: {e}"))?;
    if !md.is_file() {
        return Err(format!(
            "{shown}: not a regular file; give the journal file"
        ));
    }
    let mut r = io::BufReader::with_capacity(1 << 20, f);
    let mut line = Vec::new();
    io::BufRead::read_until(&mut (&mut r).take(MAX_HEADER), b'\n', &mut line)
        .map_err(|e| format!("{shown}: {e}"))?;
    if line.last() != Some(&b'\n') {
        return Err(format!("{shown}: not a fathom verify journal"));
    }
    let header: JournalHeader = serde_json::from_slice(&line[..line.len() - 1])
        .map_err(|e| format!("{shown}: not a fathom verify journal ({e})"))?;
    if header.format != FORMAT || header.version != 1 {
        return Err(format!("{shown}: not a fathom verify journal"));
    }
    let v = Verifier::from_parts(&header.verifier).map_err(|e| format!("{shown}: {e}"))?;
    let chunks = replay(&mut r, &header, line.len() as u64, path)?;
    check_chunks(&chunks, &header, &v, path)
}

/// Every chunk the journal's records name, with its writes' intents and acknowledgements.
/// A torn tail (a crash in the last write) is allowed; a bad record before a good one, or
/// a bad tail longer than one write appends, is damage.
fn replay(
    r: &mut impl Read,
    header: &JournalHeader,
    header_len: u64,
    path: &Path,
) -> Result<HashMap<(u16, u64), Chunk>, String> {
    let shown = path.display();
    let mut chunks: HashMap<(u16, u64), Chunk> = HashMap::new();
    let mut rec = [0u8; RECORD];
    let (mut n, mut torn) = (0u64, None::<u64>);
    loop {
        match r.read_exact(&mut rec) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(format!("{shown}: {e}")),
        }
        let crc = u32::from_le_bytes(rec[24..28].try_into().expect("4 bytes"));
        let good = crc32c::crc32c(&rec[..24]) == crc && matches!(rec[0], INTENT | ACK);
        if !good {
            torn.get_or_insert(n);
            n += 1;
            continue;
        }
        if let Some(bad) = torn {
            return Err(format!(
                "{shown}: the journal is damaged: record {bad} (byte {}) fails its checksum \
                 but record {n} after it is good; a crash only tears the last records, so \
                 the journal itself was changed (the files were not checked)",
                header_len + bad * RECORD as u64
            ));
        }
        let file = u16::from_le_bytes([rec[2], rec[3]]);
        let g = u32::from_le_bytes(rec[4..8].try_into().expect("4 bytes"));
        let off = u64::from_le_bytes(rec[8..16].try_into().expect("8 bytes"));
        let c = chunks.entry((file, off)).or_default();
        if rec[0] == INTENT {
            c.intent(g, n);
        } else {
            c.ack(g, n);
        }
        n += 1;
    }
    if let Some(bad) = torn {
        // Only the last write's records can be torn: a longer bad tail is damage.
        if header.max_batch > 0 && n - bad > header.max_batch {
            return Err(format!(
                "{shown}: the journal is damaged: its last {} records (from record {bad}, \
                 byte {}) fail their checksums, more than the {} one write appends, so a \
                 crash cannot explain them (the files were not checked)",
                n - bad,
                header_len + bad * RECORD as u64,
                header.max_batch
            ));
        }
    }
    Ok(chunks)
}

/// Read back every acknowledged chunk, in file and offset order, and check it against
/// the generations it may legally hold.
fn check_chunks(
    chunks: &HashMap<(u16, u64), Chunk>,
    header: &JournalHeader,
    v: &Verifier,
    path: &Path,
) -> Result<JournalReport, String> {
    let shown = path.display();
    let mut keys: Vec<_> = chunks.keys().copied().collect();
    keys.sort_unstable();
    let mut report = JournalReport {
        unit: v.parts().unit,
        ..JournalReport::default()
    };
    let mut open: HashMap<u16, std::fs::File> = HashMap::new();
    for (file, off) in keys {
        let c = &chunks[&(file, off)];
        if c.live.iter().any(|l| l.ack.is_none()) {
            report.in_flight += 1;
        }
        if !c.acked {
            continue; // never acknowledged: its old contents are not ours to judge
        }
        let p = header
            .files
            .get(file as usize)
            .ok_or_else(|| format!("{shown}: record for unknown file {file}"))?;
        let fh = match open.get(&file) {
            Some(h) => h,
            None => {
                let h = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
                open.entry(file).or_insert(h)
            }
        };
        let mut b = vec![0u8; v.interval as usize];
        let got = fh
            .read_at(&mut b, off)
            .map_err(|e| format!("{}: read at {off}: {e}", p.display()))?;
        b.truncate(got);
        report.checked += 1;
        report.bytes += got as u64;
        report.acknowledged.push((p.clone(), off));
        // The newest legal generation first: its failure is the one reported.
        let mut legal: Vec<u32> = c.live.iter().map(|l| l.generation).collect();
        legal.sort_unstable_by(|a, b| b.cmp(a));
        let mut first = None;
        for g in legal {
            match v.check(&b, off, Some(g as u64)) {
                Ok(()) => {
                    first = None;
                    report.known.push((p.clone(), off, g));
                    break;
                }
                Err(f) => {
                    first.get_or_insert(f);
                }
            }
        }
        if let Some(f) = first {
            report.failures.push(f.text(p));
        }
    }
    Ok(report)
}

/// The journal of one clone at `path` (verify_journal=): `$jobnum` in the path, or a
/// `.N` suffix when the job has several clones, tells clones apart; its header records
/// the most records one write appends (a crash can tear that many at the end).
pub(crate) fn journal_for(
    clone: &crate::plan::PlannedClone,
    spec: &fathom_job::JobSpec,
    path: &str,
    v: &Verifier,
) -> Result<JournalWriter, (i32, String)> {
    let path = if path.contains("$jobnum") {
        path.replace("$jobnum", &clone.jobnum.to_string())
    } else if spec.numjobs > 1 {
        format!("{path}.{}", clone.jobnum)
    } else {
        path.to_string()
    };
    let files: Vec<PathBuf> = clone.files.iter().map(|f| f.path.clone()).collect();
    let max_len = (0..3)
        .map(|d| clone.params.len_range(d).1)
        .max()
        .unwrap_or(0);
    let batch = max_len.div_ceil(v.interval.max(1));
    JournalWriter::create(Path::new(&path), &files, v, batch).map_err(|e| {
        (
            fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
            format!("verify_journal {path}: {e}"),
        )
    })
}
