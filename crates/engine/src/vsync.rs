//! `vsync`: lseek(2) then readv(2)/writev(2) with one iovec per I/O. (fio's vsync also
//! merges adjacent queued I/Os into one call at iodepth > 1; fathom's runs at depth 1,
//! like the other synchronous engines, so there is nothing to merge.)

use crate::sys::{full_transfer, iov, ret, Fds};
use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use std::io;
use std::path::Path;

/// The vsync engine.
#[derive(Default)]
pub struct Vsync {
    fds: Fds,
    pos: Vec<u64>,
}

impl IoEngine for Vsync {
    fn name(&self) -> &'static str {
        "vsync"
    }
    fn caps(&self) -> Caps {
        Caps {
            reopen: true,
            ..Caps::default()
        }
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        self.pos.push(0);
        self.fds.open(path, opts)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let fd = self.fds[io.file];
        let pos = &mut self.pos[io.file];
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
                if *pos != off {
                    // SAFETY: lseek on an fd we own.
                    if unsafe { libc::lseek(fd, off as i64, libc::SEEK_SET) } < 0 {
                        *pos = u64::MAX;
                        return ret(-1);
                    }
                    *pos = off;
                }
                let v = iov(b, n);
                // SAFETY: the caller guarantees the buffer is valid for this transfer.
                let r = ret(unsafe {
                    if write {
                        libc::writev(fd, &v, 1)
                    } else {
                        libc::readv(fd, &v, 1)
                    }
                });
                *pos = if r >= 0 { off + r as u64 } else { u64::MAX };
                r
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
