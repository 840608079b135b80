//! `vsync`: lseek(2) then readv(2)/writev(2) with one iovec per I/O. (fio's vsync also
//! merges adjacent queued I/Os into one call at iodepth > 1; fathom's runs at depth 1,
//! like the other synchronous engines, so there is nothing to merge.)

use crate::sys::{iov, trim_done, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

/// The vsync engine.
#[derive(Default)]
pub struct Vsync {
    fds: Fds,
}

impl IoEngine for Vsync {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "vsync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let write = match io.ddir {
            Ddir::Read => false,
            Ddir::Write => true,
            Ddir::Trim => return Ok(trim_done(self.fds[io.file], io)),
        };
        let (res, short) = self.fds.at_position(
            io.file,
            |fd, b, n| {
                let v = iov(b, n);
                // SAFETY: the caller guarantees the buffer is valid for this transfer.
                unsafe {
                    if write {
                        libc::writev(fd, &v, 1)
                    } else {
                        libc::readv(fd, &v, 1)
                    }
                }
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
