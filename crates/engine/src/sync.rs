//! `sync`: lseek(2) then read(2)/write(2). The seek is skipped when the file position is
//! already at the I/O's offset, as fio does for sequential I/O.

use crate::sys::{full_transfer, ret, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use std::io;
use std::path::Path;

/// The sync engine.
#[derive(Default)]
pub struct Sync {
    fds: Fds,
    /// Last known file position per file (u64::MAX = unknown).
    pos: Vec<u64>,
}

impl IoEngine for Sync {
    fn name(&self) -> &'static str {
        "sync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        let i = self.fds.open(path, opts)?;
        self.pos.push(0);
        Ok(i)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let fd = self.fds[io.file];
        let pos = &mut self.pos[io.file];
        let (res, short) = match io.ddir {
            Ddir::Trim => (crate::sys::trim(fd, io.offset, io.len), 0),
            dir => {
                // `full_transfer` hands each piece its own offset; keep the file position in
                // step with it, seeking only when it differs.
                let op = |b: *mut u8, n: usize, off: u64| -> i64 {
                    if *pos != off {
                        // SAFETY: lseek on an fd we own.
                        let r = unsafe { libc::lseek(fd, off as i64, libc::SEEK_SET) };
                        if r < 0 {
                            *pos = u64::MAX;
                            return ret(-1);
                        }
                        *pos = off;
                    }
                    // SAFETY: the caller guarantees the buffer is valid for this transfer.
                    let r = ret(unsafe {
                        if dir == Ddir::Read {
                            libc::read(fd, b.cast(), n)
                        } else {
                            libc::write(fd, b.cast(), n)
                        }
                    });
                    if r >= 0 {
                        *pos = off + r as u64;
                    } else {
                        *pos = u64::MAX;
                    }
                    r
                };
                full_transfer(op, io.buf, io.len, io.offset)
            }
        };
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short,
        }))
    }
    fn close_file(&mut self, file: usize) -> io::Result<()> {
        self.fds.close(file)
    }
    fn reopen_file(&mut self, file: usize, path: &Path, opts: &OpenOptions) -> io::Result<()> {
        self.pos[file] = 0;
        self.fds.reopen(file, path, opts)
    }
    fn raw_fd(&self, file: usize) -> Option<i32> {
        Some(self.fds[file])
    }
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        self.fds.sync(file, data_only)
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.pos.clear();
        self.fds.close_all()
    }
}
