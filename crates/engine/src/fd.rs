//! The five synchronous fd engines, one transfer path: they differ only in the system
//! call that moves the bytes.
//!
//! - `sync`: lseek(2) then read(2)/write(2); the seek is skipped when the file position
//!   is already at the I/O's offset, as fio does for sequential I/O.
//! - `psync`: pread(2)/pwrite(2) at each I/O's offset (fio's default engine).
//! - `vsync`: lseek(2) then readv(2)/writev(2) with one iovec per I/O. (fio's vsync also
//!   merges adjacent queued I/Os into one call at iodepth > 1; fathom's synchronous
//!   engines run at depth 1, so there is nothing to merge.)
//! - `pvsync`: preadv(2)/pwritev(2) with one iovec.
//! - `pvsync2`: preadv2(2)/pwritev2(2) with per-I/O flags: `hipri` → RWF_HIPRI (polled
//!   completion on devices that support it; on `hipri_percentage` of the I/Os, chosen at
//!   random), `nowait` → RWF_NOWAIT (fail with EAGAIN instead of blocking).
//!
//! Every one retries short transfers for the rest (counting them), retries EINTR, and
//! trims with the block device's discard (or a hole punch in a file).

use crate::sys::{full_transfer, iov, ret, Fds};
use crate::{Caps, Completion, EngineOptions, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

const RWF_HIPRI: i32 = 0x1;
const RWF_NOWAIT: i32 = 0x8;

/// The system call an fd engine moves its bytes with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Call {
    /// read/write at the file position (`sync`).
    ReadWrite,
    /// readv/writev at the file position (`vsync`).
    Vectored,
    /// pread/pwrite (`psync`).
    Positioned,
    /// preadv/pwritev (`pvsync`).
    PositionedVectored,
    /// preadv2/pwritev2 with RWF_* flags (`pvsync2`).
    PositionedVectored2(i32),
}

/// A synchronous fd engine: the job's files and the call that moves the bytes.
pub struct FdEngine {
    name: &'static str,
    call: Call,
    fds: Fds,
    /// pvsync2 with hipri under 100%: the share of I/Os with RWF_HIPRI, out of 2^32, and
    /// the state of the generator that picks them.
    hipri_share: Option<(u64, u64)>,
    /// IOR's -x: a short transfer is an error, not reissued.
    once: bool,
}

impl FdEngine {
    /// The fd engine called `name` (sync, psync, vsync, pvsync, pvsync2); None for another
    /// name. pvsync2 takes `hipri`/`nowait` from the engine options.
    pub fn named(name: &str, o: &EngineOptions) -> Option<FdEngine> {
        let (name, call) = match name {
            "sync" => ("sync", Call::ReadWrite),
            "psync" => ("psync", Call::Positioned),
            "vsync" => ("vsync", Call::Vectored),
            "pvsync" => ("pvsync", Call::PositionedVectored),
            "pvsync2" => {
                let mut flags = 0;
                if o.job.hipri {
                    flags |= RWF_HIPRI;
                }
                if o.job.nowait {
                    flags |= RWF_NOWAIT;
                }
                ("pvsync2", Call::PositionedVectored2(flags))
            }
            _ => return None,
        };
        let pct = o.job.hipri_percentage.min(100) as u64;
        let hipri_share = (name == "pvsync2" && o.job.hipri && pct < 100)
            .then_some(((pct << 32) / 100, 0x9e37_79b9_7f4a_7c15));
        Some(FdEngine {
            name,
            call,
            fds: Fds::default(),
            hipri_share,
            once: o.job.single_attempt,
        })
    }
}

impl IoEngine for FdEngine {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        self.name
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
            Ddir::Trim => return Ok(self.fds.trim_done(io)),
        };
        let (buf, len, offset) = (io.buf, io.len, io.offset);
        let (res, short) = match self.call {
            Call::ReadWrite => self.fds.at_position(
                io.file,
                // SAFETY: the caller guarantees buf..buf+len is valid for this transfer.
                |fd, b, n| unsafe {
                    if write {
                        libc::write(fd, b.cast(), n)
                    } else {
                        libc::read(fd, b.cast(), n)
                    }
                },
                (buf, len, offset),
                self.once,
            ),
            Call::Vectored => self.fds.at_position(
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
                (buf, len, offset),
                self.once,
            ),
            call => {
                let fd = self.fds[io.file];
                // hipri_percentage: this I/O polls or not (xorshift, one step per I/O).
                let call = match (call, &mut self.hipri_share) {
                    (Call::PositionedVectored2(f), Some((share, x))) => {
                        *x ^= *x << 13;
                        *x ^= *x >> 7;
                        *x ^= *x << 17;
                        if (*x >> 32) < *share {
                            Call::PositionedVectored2(f)
                        } else {
                            Call::PositionedVectored2(f & !RWF_HIPRI)
                        }
                    }
                    (c, _) => c,
                };
                full_transfer(
                    |b, n, off| {
                        let off = off as i64;
                        let v = iov(b, n);
                        // SAFETY: the caller guarantees the buffer is valid for this
                        // transfer; `v` describes that buffer and lives across the call.
                        ret(unsafe {
                            match (call, write) {
                                (Call::Positioned, true) => libc::pwrite(fd, b.cast(), n, off),
                                (Call::Positioned, false) => libc::pread(fd, b.cast(), n, off),
                                (Call::PositionedVectored, true) => libc::pwritev(fd, &v, 1, off),
                                (Call::PositionedVectored, false) => libc::preadv(fd, &v, 1, off),
                                (Call::PositionedVectored2(f), true) => {
                                    libc::pwritev2(fd, &v, 1, off, f)
                                }
                                (Call::PositionedVectored2(f), false) => {
                                    libc::preadv2(fd, &v, 1, off, f)
                                }
                                (Call::ReadWrite | Call::Vectored, _) => {
                                    unreachable!("handled at the file position above")
                                }
                            }
                        })
                    },
                    buf,
                    len,
                    offset,
                    self.once,
                )
            }
        };
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short,
        }))
    }
}
