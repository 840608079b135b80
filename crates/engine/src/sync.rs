//! `sync`: lseek(2) then read(2)/write(2). The seek is skipped when the file position is
//! already at the I/O's offset, as fio does for sequential I/O.

use crate::sys::{trim_done, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

/// The sync engine.
#[derive(Default)]
pub struct Sync {
    fds: Fds,
}

impl IoEngine for Sync {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "sync"
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
            // SAFETY: the caller guarantees the buffer is valid for this transfer.
            |fd, b, n| unsafe {
                if write {
                    libc::write(fd, b.cast(), n)
                } else {
                    libc::read(fd, b.cast(), n)
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
