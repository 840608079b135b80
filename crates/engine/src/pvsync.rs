//! `pvsync`: preadv(2)/pwritev(2) with one iovec per I/O.

use crate::sys::{full_transfer, iov, ret, trim_done, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

/// The pvsync engine.
#[derive(Default)]
pub struct Pvsync {
    fds: Fds,
}

impl IoEngine for Pvsync {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "pvsync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let fd = self.fds[io.file];
        let write = match io.ddir {
            Ddir::Read => false,
            Ddir::Write => true,
            Ddir::Trim => return Ok(trim_done(fd, io)),
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
}
