//! `posixaio`: POSIX asynchronous I/O (aio_read/aio_write, aio_error/aio_return,
//! aio_suspend), as fio's engine of that name. glibc runs these on its own helper
//! threads, so unlike libaio they are asynchronous on buffered files too.

use crate::sys::Fds;
use crate::{Caps, Completion, EngineBuf, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

/// The posixaio engine: one control block per I/O slot.
#[derive(Default)]
pub struct PosixAio {
    fds: Fds,
    /// One aiocb per I/O slot (tag), at a stable address while in flight.
    cbs: Vec<libc::aiocb>,
    /// Slots with an I/O in flight, in submission order.
    inflight: Vec<usize>,
}

// SAFETY: the control blocks are owned by this engine and used by one thread at a time;
// glibc's helper threads only touch a block between aio_read/aio_write and the
// aio_return that ends it.
unsafe impl Send for PosixAio {}

impl PosixAio {
    /// Completions of finished I/Os, at most `max`, in submission order.
    fn collect(&mut self, max: usize, out: &mut Vec<Completion>) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.inflight.len() && n < max {
            let slot = self.inflight[i];
            let cb: *mut libc::aiocb = &mut self.cbs[slot];
            // SAFETY: the block was submitted by queue and not yet returned.
            let err = unsafe { libc::aio_error(cb) };
            if err == libc::EINPROGRESS {
                i += 1;
                continue;
            }
            // SAFETY: the I/O is finished (aio_error is no longer EINPROGRESS);
            // aio_return is called once per I/O, as POSIX requires.
            let ret = unsafe { libc::aio_return(cb) };
            let res = if ret < 0 {
                -(err.max(1) as i64)
            } else {
                ret as i64
            };
            out.push(Completion {
                tag: slot as u64,
                res,
                short: 0,
            });
            self.inflight.remove(i);
            n += 1;
        }
        n
    }
}

impl IoEngine for PosixAio {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "posixaio"
    }
    fn caps(&self) -> Caps {
        Caps::async_fd()
    }
    unsafe fn setup(&mut self, depth: usize, _bufs: &[EngineBuf]) -> io::Result<()> {
        // SAFETY: an all-zero aiocb is a valid, idle control block.
        // The Vec is made once here and never grows, so each block keeps its address.
        self.cbs = (0..depth)
            .map(|_| unsafe { std::mem::zeroed::<libc::aiocb>() })
            .collect();
        self.inflight = Vec::with_capacity(depth);
        Ok(())
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let slot = io.tag as usize;
        if io.ddir == Ddir::Trim {
            // POSIX AIO has no discard: trims complete synchronously.
            return Ok(self.fds.trim_done(io));
        }
        let cb = &mut self.cbs[slot];
        // SAFETY: zeroing leaves no request in the block (it is idle: its slot is free).
        *cb = unsafe { std::mem::zeroed() };
        cb.aio_fildes = self.fds[io.file];
        cb.aio_buf = io.buf.cast();
        cb.aio_nbytes = io.len;
        cb.aio_offset = io.offset as libc::off_t;
        cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: the buffer stays valid until the I/O is reaped (queue's contract) and
        // the block lives in this engine's Vec, which never reallocates after setup.
        let r = unsafe {
            match io.ddir {
                Ddir::Read => libc::aio_read(cb),
                _ => libc::aio_write(cb),
            }
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        self.inflight.push(slot);
        Ok(Queued::Queued)
    }
    fn commit(&mut self) -> io::Result<usize> {
        // aio_read/aio_write start each I/O as it is queued.
        Ok(0)
    }
    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        if self.inflight.is_empty() {
            return Ok(0);
        }
        let max = max.clamp(1, self.inflight.len());
        let min = min.min(max);
        let mut got = self.collect(max, out);
        while got < min {
            let list: Vec<*const libc::aiocb> = self
                .inflight
                .iter()
                .map(|&s| &self.cbs[s] as *const libc::aiocb)
                .collect();
            // SAFETY: every block in the list is in flight and owned by this engine.
            let r = unsafe {
                libc::aio_suspend(list.as_ptr(), list.len() as libc::c_int, std::ptr::null())
            };
            if r != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINTR) {
                    return Err(e);
                }
            }
            got += self.collect(max - got, out);
        }
        Ok(got)
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        // Wait for any I/O still in flight: its buffer and block must outlive it.
        while !self.inflight.is_empty() {
            let mut sink = Vec::new();
            if self
                .reap(self.inflight.len(), self.inflight.len(), &mut sink)
                .is_err()
            {
                break;
            }
        }
    }
}
