//! `psync`: pread(2)/pwrite(2) at each I/O's offset. fio's default engine.

use crate::sys::{full_transfer, open, ret, sync_fd};
use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use std::io;
use std::path::Path;

/// The psync engine.
#[derive(Default)]
pub struct Psync {
    fds: Vec<i32>,
}

impl IoEngine for Psync {
    fn name(&self) -> &'static str {
        "psync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        self.fds.push(open(path, opts)?);
        Ok(self.fds.len() - 1)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let fd = self.fds[io.file];
        let (res, short) = match io.ddir {
            Ddir::Read => full_transfer(
                // SAFETY: the caller guarantees buf..buf+len is valid for writes.
                |b, n, off| ret(unsafe { libc::pread(fd, b.cast(), n, off as i64) }),
                io.buf,
                io.len,
                io.offset,
            ),
            Ddir::Write => full_transfer(
                // SAFETY: the caller guarantees buf..buf+len is valid for reads.
                |b, n, off| ret(unsafe { libc::pwrite(fd, b.cast(), n, off as i64) }),
                io.buf,
                io.len,
                io.offset,
            ),
            Ddir::Trim => (crate::sys::trim(fd, io.offset, io.len), 0),
        };
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short,
        }))
    }
    fn close_file(&mut self, file: usize) -> io::Result<()> {
        crate::sys::close_at(&mut self.fds, file)
    }
    fn reopen_file(&mut self, file: usize, path: &Path, opts: &OpenOptions) -> io::Result<()> {
        crate::sys::reopen_at(&mut self.fds, file, path, opts)
    }
    fn raw_fd(&self, file: usize) -> Option<i32> {
        Some(self.fds[file])
    }
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        sync_fd(self.fds[file], data_only)
    }
    fn close_files(&mut self) -> io::Result<()> {
        crate::sys::close_all(&mut self.fds)
    }
}
