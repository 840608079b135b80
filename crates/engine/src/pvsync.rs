//! `pvsync`: preadv(2)/pwritev(2) with one iovec per I/O.

use crate::sys::{full_transfer, iov, ret, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use std::io;
use std::path::Path;

/// The pvsync engine.
#[derive(Default)]
pub struct Pvsync {
    fds: Fds,
}

impl IoEngine for Pvsync {
    fn name(&self) -> &'static str {
        "pvsync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        self.fds.open(path, opts)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let fd = self.fds.0[io.file];
        let write = match io.ddir {
            Ddir::Read => false,
            Ddir::Write => true,
            Ddir::Trim => {
                let res = crate::sys::trim(fd, io.offset, io.len);
                return Ok(Queued::Done(Completion {
                    tag: io.tag,
                    res,
                    short: 0,
                }));
            }
        };
        let (res, short) = full_transfer(
            |b, n, off| {
                let v = iov(b, n);
                // SAFETY: the caller guarantees the buffer is valid for this transfer.
                ret(unsafe {
                    if write {
                        libc::pwritev(fd, &v, 1, off as i64)
                    } else {
                        libc::preadv(fd, &v, 1, off as i64)
                    }
                })
            },
            io.buf,
            io.len,
            io.offset,
        );
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short,
        }))
    }
    fn close_file(&mut self, file: usize) -> io::Result<()> {
        crate::sys::close_at(&mut self.fds.0, file)
    }
    fn reopen_file(&mut self, file: usize, path: &Path, opts: &OpenOptions) -> io::Result<()> {
        crate::sys::reopen_at(&mut self.fds.0, file, path, opts)
    }
    fn raw_fd(&self, file: usize) -> Option<i32> {
        Some(self.fds.0[file])
    }
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        self.fds.sync(file, data_only)
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.fds.close_all()
    }
}
