//! `mmap`: map the file and copy between the mapping and the I/O buffer; fsync is
//! msync(MS_SYNC). Files up to [`WHOLE_FILE_LIMIT`] are mapped whole; larger ones (or
//! block devices) through a sliding window of [`WINDOW`] bytes, so any size works within
//! a fixed address-space budget.

use crate::sys::{close, device_size, open};
use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use std::io;
use std::path::Path;

/// Files up to this size are mapped in one piece.
pub const WHOLE_FILE_LIMIT: u64 = 16 << 30;
/// Window size for larger files.
pub const WINDOW: u64 = 1 << 30;

struct Map {
    /// File offset of the mapping's first byte.
    start: u64,
    len: u64,
    ptr: *mut u8,
}

struct MapFile {
    fd: std::os::fd::OwnedFd,
    size: u64,
    write: bool,
    advice: crate::Advice,
    /// `thp`: ask for transparent huge pages on each mapping.
    thp: bool,
    map: Option<Map>,
}

impl MapFile {
    fn unmap(&mut self) {
        if let Some(m) = self.map.take() {
            // SAFETY: unmapping a mapping we created with this length.
            unsafe { libc::munmap(m.ptr.cast(), m.len as usize) };
        }
    }

    /// A pointer to file offset `off`, valid for `len` bytes.
    fn at(&mut self, off: u64, len: u64) -> io::Result<*mut u8> {
        if off + len > self.size {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let covered = self
            .map
            .as_ref()
            .is_some_and(|m| off >= m.start && off + len <= m.start + m.len);
        if !covered {
            self.unmap();
            let page = page_size();
            let (start, end) = if self.size <= WHOLE_FILE_LIMIT {
                (0, self.size)
            } else {
                let s = off / page * page;
                (s, (s + WINDOW).max(off + len).min(self.size))
            };
            let prot = libc::PROT_READ | if self.write { libc::PROT_WRITE } else { 0 };
            // SAFETY: mapping a range of an fd we own; the result is checked.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    (end - start) as usize,
                    prot,
                    libc::MAP_SHARED,
                    std::os::fd::AsRawFd::as_raw_fd(&self.fd),
                    start as i64,
                )
            };
            if p == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let how = match self.advice {
                crate::Advice::Random => Some(libc::MADV_RANDOM),
                crate::Advice::Sequential => Some(libc::MADV_SEQUENTIAL),
                crate::Advice::None | crate::Advice::NoReuse => None,
            };
            // thp: huge pages asked for too (a file system without huge pages for its page
            // cache keeps small ones).
            let thp = self.thp.then_some(libc::MADV_HUGEPAGE);
            for how in how.into_iter().chain(thp) {
                // SAFETY: advice on the mapping just made, of this length; advisory only.
                unsafe { libc::madvise(p, (end - start) as usize, how) };
            }
            self.map = Some(Map {
                start,
                len: end - start,
                ptr: p.cast(),
            });
        }
        let m = self.map.as_ref().expect("mapped above");
        Ok(m.ptr.wrapping_add((off - m.start) as usize))
    }
}

fn page_size() -> u64 {
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE);
    page.ok().flatten().unwrap_or(4096).max(4096) as u64
}

/// The mmap engine.
#[derive(Default)]
pub struct Mmap {
    files: Vec<MapFile>,
    /// `thp`: MADV_HUGEPAGE on the mappings.
    thp: bool,
}

impl Mmap {
    /// The engine with the job's options (`thp`).
    pub fn new(o: &crate::EngineOptions) -> Mmap {
        Mmap {
            files: Vec::new(),
            thp: o.job.thp,
        }
    }
}

// SAFETY: the mappings are owned by the engine and used by one thread at a time.
unsafe impl Send for Mmap {}

impl IoEngine for Mmap {
    fn name(&self) -> &'static str {
        "mmap"
    }
    fn caps(&self) -> Caps {
        Caps::default()
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        let fd = open(path, opts)?;
        let size = match std::fs::metadata(path) {
            Ok(m) if !std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) => m.len(),
            _ => device_size(std::os::fd::AsRawFd::as_raw_fd(&fd))?,
        };
        self.files.push(MapFile {
            fd,
            size,
            write: opts.write,
            advice: opts.advice,
            thp: self.thp,
            map: None,
        });
        Ok(self.files.len() - 1)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let f = &mut self.files[io.file];
        let res = match io.ddir {
            Ddir::Trim => crate::sys::trim(std::os::fd::AsFd::as_fd(&f.fd), io.offset, io.len),
            d => match f.at(io.offset, io.len as u64) {
                Ok(p) => {
                    // SAFETY: `p` is valid for io.len bytes of the mapping (checked in
                    // `at`), the caller guarantees io.buf for io.len bytes, and a mapping
                    // never overlaps a heap buffer.
                    unsafe {
                        if d == Ddir::Read {
                            std::ptr::copy_nonoverlapping(p, io.buf, io.len);
                        } else {
                            std::ptr::copy_nonoverlapping(io.buf, p, io.len);
                        }
                    }
                    io.len as i64
                }
                Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
            },
        };
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short: 0,
        }))
    }
    fn raw_fd(&self, file: usize) -> Option<i32> {
        Some(std::os::fd::AsRawFd::as_raw_fd(&self.files[file].fd))
    }
    fn sync_file(&mut self, file: usize, _data_only: bool) -> io::Result<()> {
        let f = &self.files[file];
        if let Some(m) = &f.map {
            // SAFETY: syncing a live mapping.
            if unsafe { libc::msync(m.ptr.cast(), m.len as usize, libc::MS_SYNC) } < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        let mut first = Ok(());
        for mut f in self.files.drain(..) {
            f.unmap();
            if let Err(e) = close(f.fd) {
                first = first.and(Err(e));
            }
        }
        first
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        for f in &mut self.files {
            f.unmap();
        }
    }
}
