//! File setup before the clock starts: create, preallocate, fill, invalidate.

use crate::buf::fill_random;
use fathom_job::Fallocate;
use std::fs::{File, OpenOptions as FsOpen};
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// What a job needs of one file before it starts.
#[derive(Clone, Copy, Debug)]
pub struct LayoutRequest {
    /// Bytes the file must have.
    pub size: u64,
    /// Write data over the whole file (the job reads, or `overwrite=1`), rather than only
    /// creating and sizing it.
    pub fill: bool,
    /// Give the file its size even without data (fio does so for reads, overwrite=1 and
    /// engines that cannot extend a file); else, as fio, a write-only job's file has the
    /// size its preallocation gives it (none with fallocate=none or keep) and grows by
    /// the job's writes.
    pub extend: bool,
    /// A file too small is removed and made anew rather than extended (fio's layout for a
    /// job that only writes it: its old data does not stay).
    pub replace: bool,
    /// How to preallocate.
    pub fallocate: Fallocate,
    /// Fill with zeroes instead of random data.
    pub zero: bool,
    /// Seed for random fill data.
    pub seed: u64,
    /// fsync the file when done (fio's `create_fsync`, on by default).
    pub fsync: bool,
}

/// What layout did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutOutcome {
    /// The file did not exist and was created.
    pub created: bool,
    /// Bytes of data written.
    pub written: u64,
    /// Stopped before the end (see [`layout_file_until`]).
    pub stopped: bool,
}

const CHUNK: usize = 1 << 20;

/// Make sure `path` exists with at least `req.size` bytes (and data in them when
/// `req.fill`). An existing regular file that is large enough is left as it is, as fio
/// does; block devices are never laid out.
pub fn layout_file(path: &Path, req: &LayoutRequest) -> io::Result<LayoutOutcome> {
    layout_file_until(path, req, &std::sync::atomic::AtomicBool::new(false))
}

/// [`layout_file`] that stops writing when `stop` is set (a signal): a file it created
/// is removed again, and the outcome says `stopped`.
pub fn layout_file_until(
    path: &Path,
    req: &LayoutRequest,
    stop: &std::sync::atomic::AtomicBool,
) -> io::Result<LayoutOutcome> {
    use std::os::unix::fs::FileTypeExt;
    let existing = match std::fs::metadata(path) {
        Ok(md) if md.file_type().is_block_device() || md.file_type().is_char_device() => {
            return Ok(LayoutOutcome::default())
        }
        Ok(md) => Some(md.len()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(with_path(e, path)),
    };
    let mut existing = existing;
    if let Some(len) = existing {
        if len >= req.size {
            return Ok(LayoutOutcome::default());
        }
        if req.replace {
            std::fs::remove_file(path).map_err(|e| with_path(e, path))?;
            existing = None;
        }
    }
    let f = FsOpen::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| with_path(e, path))?;
    let start = existing.unwrap_or(0);
    match preallocate(&f, start, req.size, req.fallocate) {
        Ok(()) => {}
        // Not enough room to reserve the whole file: for a write-only layout, size the
        // file sparsely instead, so the job runs and meets ENOSPC on a real write, where
        // it is reported with the file, offset and everything measured until then.
        Err(e) if e.raw_os_error() == Some(libc::ENOSPC) && !req.fill => {
            // Release whatever the failed call may have reserved.
            let _ = f.set_len(start);
        }
        Err(e) => return Err(with_path(e, path)),
    }
    let mut written = 0;
    if req.fill {
        use std::os::unix::fs::FileExt;
        // No bigger than the data to write: the cost of a small file stays small.
        let mut buf = vec![0u8; (req.size - start).min(CHUNK as u64) as usize];
        let mut state = req.seed;
        // Random data generated once; every 4 KiB block then gets its own 8-byte stamp
        // (its offset mixed with the seed), so no two blocks are equal (nothing for a
        // dedupe layer to fold) while the CPU cost is a copy, not a generator pass.
        if !req.zero {
            fill_random(&mut buf, &mut state);
        }
        let mut left = req.size - start;
        let mut at = start;
        while left > 0 {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                drop(f);
                if existing.is_none() {
                    let _ = std::fs::remove_file(path);
                }
                return Ok(LayoutOutcome {
                    created: false,
                    written,
                    stopped: true,
                });
            }
            let n = left.min(CHUNK as u64) as usize;
            if !req.zero {
                for (k, block) in buf[..n].chunks_mut(4096).enumerate() {
                    let off = at + (k as u64) * 4096;
                    let stamp = (off ^ req.seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let m = block.len().min(8);
                    block[..m].copy_from_slice(&stamp.to_le_bytes()[..m]);
                }
            }
            f.write_all_at(&buf[..n], at)
                .map_err(|e| with_path(e, path))?;
            at += n as u64;
            left -= n as u64;
            written += n as u64;
        }
    } else if req.extend && f.metadata().map(|m| m.len()).unwrap_or(0) < req.size {
        // Size the file without writing data (no or failed preallocation, or KEEP_SIZE).
        f.set_len(req.size).map_err(|e| with_path(e, path))?;
    }
    // fio's create_fsync=1: the laid-out data is on stable storage before the clock
    // starts (a file only sized or preallocated, as for a write job, is not synced).
    if req.fsync && written > 0 {
        f.sync_all().map_err(|e| with_path(e, path))?;
    }
    Ok(LayoutOutcome {
        created: existing.is_none(),
        written,
        stopped: false,
    })
}

fn preallocate(f: &File, start: u64, end: u64, how: Fallocate) -> io::Result<()> {
    if end <= start {
        return Ok(());
    }
    let len = (end - start) as i64;
    match how {
        Fallocate::None => Ok(()),
        Fallocate::Truncate => f.set_len(end),
        Fallocate::Posix => Ok(nix::fcntl::posix_fallocate(f, start as i64, len)?),
        Fallocate::Native | Fallocate::Keep => {
            use nix::fcntl::FallocateFlags;
            let mode = if how == Fallocate::Keep {
                FallocateFlags::FALLOC_FL_KEEP_SIZE
            } else {
                FallocateFlags::empty()
            };
            if let Err(e) = nix::fcntl::fallocate(f, mode, start as i64, len) {
                let e = io::Error::from(e);
                // fio's native mode falls back to no preallocation when unsupported.
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS)
                ) {
                    return Ok(());
                }
                return Err(e);
            }
            Ok(())
        }
    }
}

/// Drop the page cache for `len` bytes of a file from `offset` (fio's `invalidate=1`,
/// which drops the job's region of each file; `len` 0: to the end). Block devices and
/// files the kernel cannot advise are skipped silently, as fio does.
pub fn invalidate(path: &Path, offset: u64, len: u64) -> io::Result<()> {
    let f = File::open(path).map_err(|e| with_path(e, path))?;
    invalidate_fd(f.as_raw_fd(), offset, len);
    Ok(())
}

/// [`invalidate`] through a descriptor already open on the file.
pub fn invalidate_fd(fd: std::os::fd::RawFd, offset: u64, len: u64) {
    let (offset, len) = (
        i64::try_from(offset).unwrap_or(i64::MAX),
        i64::try_from(len).unwrap_or(0),
    );
    // SAFETY: posix_fadvise only advises the kernel; a bad fd is an error, not UB.
    unsafe { libc::posix_fadvise(fd, offset, len, libc::POSIX_FADV_DONTNEED) };
}

/// `e` with the file named; the system error stays reachable as its source (so the
/// errno is not lost).
fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(
        e.kind(),
        OnFile {
            path: path.to_path_buf(),
            source: e,
        },
    )
}

#[derive(Debug)]
struct OnFile {
    path: std::path::PathBuf,
    source: io::Error,
}

impl std::fmt::Display for OnFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for OnFile {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(size: u64, fill: bool) -> LayoutRequest {
        LayoutRequest {
            size,
            fill,
            extend: true,
            replace: false,
            fallocate: Fallocate::Native,
            zero: false,
            seed: 1,
            fsync: true,
        }
    }

    #[test]
    fn creates_and_fills_then_leaves_a_big_enough_file_alone() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let o = layout_file(&p, &req(3 << 20, true)).unwrap();
        assert_eq!(
            o,
            LayoutOutcome {
                created: true,
                written: 3 << 20,
                stopped: false,
            }
        );
        // Stopped: nothing more written, and a file it created is removed.
        let q = d.path().join("g");
        let stop = std::sync::atomic::AtomicBool::new(true);
        let o = layout_file_until(&q, &req(3 << 20, true), &stop).unwrap();
        assert!(o.stopped && !q.exists(), "{o:?}");
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 3 << 20);
        let data = std::fs::read(&p).unwrap();
        assert!(data.iter().filter(|&&b| b == 0).count() < data.len() / 100);
        let o = layout_file(&p, &req(1 << 20, true)).unwrap();
        assert_eq!(o, LayoutOutcome::default());
    }

    #[test]
    fn write_only_layout_sizes_without_writing() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let o = layout_file(&p, &req(1 << 20, false)).unwrap();
        assert_eq!(o.written, 0);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 1 << 20);
        // A write-only job's file without preallocation keeps the size it has (fio's).
        for how in [Fallocate::None, Fallocate::Keep] {
            let q = d.path().join(format!("{how:?}"));
            let r = LayoutRequest {
                extend: false,
                fallocate: how,
                ..req(1 << 20, false)
            };
            layout_file(&q, &r).unwrap();
            assert_eq!(std::fs::metadata(&q).unwrap().len(), 0, "{how:?}");
        }
        // A file too small for a write-only job is made anew (fio unlinks it).
        let q = d.path().join("old");
        std::fs::write(&q, [9u8; 4096]).unwrap();
        let r = LayoutRequest {
            extend: false,
            replace: true,
            fallocate: Fallocate::None,
            ..req(1 << 20, false)
        };
        let o = layout_file(&q, &r).unwrap();
        assert!(o.created);
        assert_eq!(std::fs::metadata(&q).unwrap().len(), 0);
    }
}
