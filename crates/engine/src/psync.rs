//! `psync`: pread(2)/pwrite(2) at each I/O's offset. fio's default engine.

use crate::sys::{full_transfer, ret, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

/// The psync engine.
#[derive(Default)]
pub struct Psync {
    fds: Fds,
}

impl IoEngine for Psync {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "psync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
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
}
