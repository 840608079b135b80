//! `pvsync2`: preadv2(2)/pwritev2(2) with per-I/O flags: `hipri` → RWF_HIPRI (polled
//! completion on devices that support it), `nowait` → RWF_NOWAIT (fail with EAGAIN
//! instead of blocking).

use crate::sys::{full_transfer, iov, ret, trim_done, Fds};
use crate::{Caps, Completion, EngineOptions, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

const RWF_HIPRI: i32 = 0x1;
const RWF_NOWAIT: i32 = 0x8;

/// The pvsync2 engine.
pub struct Pvsync2 {
    fds: Fds,
    flags: i32,
}

impl Pvsync2 {
    /// With `hipri`/`nowait` from the engine options.
    pub fn new(o: &EngineOptions) -> Pvsync2 {
        let mut flags = 0;
        if o.job.hipri {
            flags |= RWF_HIPRI;
        }
        if o.job.nowait {
            flags |= RWF_NOWAIT;
        }
        Pvsync2 {
            fds: Fds::default(),
            flags,
        }
    }
}

impl IoEngine for Pvsync2 {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "pvsync2"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let fd = self.fds[io.file];
        let flags = self.flags;
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
                        libc::pwritev2(fd, &v, 1, off as i64, flags)
                    } else {
                        libc::preadv2(fd, &v, 1, off as i64, flags)
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
