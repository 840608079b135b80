//! `libaio`: Linux native AIO through the raw syscalls (io_setup, io_submit,
//! io_getevents, io_destroy); no C library is needed. Aliases `aio`, `linuxaio`.
//!
//! Truly asynchronous only with `direct=1`: on buffered files the kernel completes the
//! I/O inside io_submit, as with fio.

use crate::sys::Fds;
use crate::{Caps, Completion, EngineBuf, IoEngine, IoUnit, Queued};
use fathom_job::Ddir;
use std::io;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
/// `aio_reqprio` holds the I/O's priority.
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// The kernel's `struct iocb` (little-endian layout).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// The kernel's `struct io_event`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

type AioContext = libc::c_ulong;

/// The libaio engine.
#[derive(Default)]
pub struct Libaio {
    ctx: AioContext,
    fds: Fds,
    /// One iocb per I/O slot (tag), stable in memory while in flight.
    iocbs: Vec<Iocb>,
    /// Pointers to iocbs queued but not yet submitted.
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    inflight: usize,
    userspace_reap: bool,
}

/// The kernel's completion ring header, mapped at the context address.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

// SAFETY: the raw pointers point into `iocbs`, owned by this engine; the engine is used
// by one thread at a time.
unsafe impl Send for Libaio {}

impl Libaio {
    /// A libaio engine; `userspace_reap` reads completions straight from the ring when
    /// polling (iodepth_batch_complete_min=0), as fio.
    pub fn new(o: &crate::EngineOptions) -> Libaio {
        let mut e = Libaio::default();
        e.userspace_reap = o.job.userspace_reap;
        e
    }

    /// Take up to `max` completions from the ring without a syscall.
    fn reap_ring(&mut self, max: usize, out: &mut Vec<Completion>) -> usize {
        use std::sync::atomic::{fence, Ordering};
        let ring = self.ctx as *mut AioRing;
        // SAFETY: the context id is the address of the kernel's mapped ring, which stays
        // mapped until io_destroy; head/tail are read and written as the kernel's ABI
        // documents (acquire the tail, release the head).
        unsafe {
            if (*ring).magic != AIO_RING_MAGIC {
                return 0;
            }
            let nr = (*ring).nr;
            let events = (ring as *mut u8).add(std::mem::size_of::<AioRing>()) as *const IoEvent;
            let mut head = std::ptr::read_volatile(&(*ring).head);
            let tail = std::ptr::read_volatile(&(*ring).tail);
            fence(Ordering::Acquire);
            let mut n = 0;
            while head != tail && n < max {
                let ev = *events.add(head as usize);
                out.push(Completion {
                    tag: ev.data,
                    res: ev.res,
                    short: 0,
                });
                head = (head + 1) % nr;
                n += 1;
            }
            fence(Ordering::Release);
            std::ptr::write_volatile(&mut (*ring).head, head);
            self.inflight -= n;
            n
        }
    }

    fn check(r: libc::c_long) -> io::Result<libc::c_long> {
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r)
        }
    }
}

impl IoEngine for Libaio {
    fd_file_methods!();
    fn name(&self) -> &'static str {
        "libaio"
    }
    fn caps(&self) -> Caps {
        Caps::async_fd()
    }
    unsafe fn setup(&mut self, depth: usize, _bufs: &[EngineBuf]) -> io::Result<()> {
        let mut ctx: AioContext = 0;
        // SAFETY: io_setup writes the new context id into `ctx`.
        let r = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        Self::check(r).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("io_setup({depth}) failed: {e}; check /proc/sys/fs/aio-max-nr"),
            )
        })?;
        self.ctx = ctx;
        self.iocbs = vec![Iocb::default(); depth];
        self.events = vec![IoEvent::default(); depth];
        self.pending = Vec::with_capacity(depth);
        Ok(())
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let slot = io.tag as usize;
        let op = match io.ddir {
            Ddir::Read => IOCB_CMD_PREAD,
            Ddir::Write => IOCB_CMD_PWRITE,
            // The kernel's AIO has no discard: trims complete synchronously.
            Ddir::Trim => return Ok(self.fds.trim_done(io)),
        };
        self.iocbs[slot] = Iocb {
            aio_data: io.tag,
            aio_lio_opcode: op,
            aio_fildes: self.fds[io.file] as u32,
            aio_buf: io.buf as u64,
            aio_nbytes: io.len as u64,
            aio_offset: io.offset as i64,
            // cmdprio: the I/O's own priority, which the kernel takes with this flag.
            aio_reqprio: io.ioprio as i16,
            aio_flags: if io.ioprio != 0 { IOCB_FLAG_IOPRIO } else { 0 },
            ..Iocb::default()
        };
        let p: *mut Iocb = &mut self.iocbs[slot];
        self.pending.push(p);
        Ok(Queued::Queued)
    }
    fn commit(&mut self) -> io::Result<usize> {
        let mut done = 0;
        while done < self.pending.len() {
            let n = self.pending.len() - done;
            // SAFETY: the pointers point at live iocbs in self.iocbs, whose buffers the
            // caller keeps valid until reaped (queue's contract).
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    n as libc::c_long,
                    self.pending.as_mut_ptr().add(done),
                )
            };
            match Self::check(r) {
                Ok(k) => done += k as usize,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) && self.inflight > 0 => {
                    // The kernel is out of resources: the caller must reap first.
                    self.pending.drain(..done);
                    self.inflight += done;
                    return Ok(done);
                }
                Err(e) => {
                    self.pending.clear();
                    return Err(e);
                }
            }
        }
        self.pending.clear();
        self.inflight += done;
        Ok(done)
    }
    fn reap_until(
        &mut self,
        max: usize,
        out: &mut Vec<Completion>,
        wait: std::time::Duration,
    ) -> io::Result<usize> {
        if self.inflight == 0 {
            return Ok(0);
        }
        let max = max.clamp(1, self.inflight);
        let ts = libc::timespec {
            tv_sec: wait.as_secs() as libc::time_t,
            tv_nsec: wait.subsec_nanos() as libc::c_long,
        };
        match self.getevents(1, max, &ts, out) {
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => Ok(0),
            r => r,
        }
    }
    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        if self.inflight == 0 {
            return Ok(0);
        }
        let max = max.clamp(1, self.inflight);
        let min = min.min(max);
        if self.userspace_reap && min == 0 {
            return Ok(self.reap_ring(max, out));
        }
        loop {
            match self.getevents(min, max, std::ptr::null(), out) {
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                r => return r,
            }
        }
    }
}

impl Libaio {
    /// io_getevents for `min..=max` completions (waiting at most `timeout`, or without
    /// limit when null), added to `out`.
    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: *const libc::timespec,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        // SAFETY: events has room for `inflight` ≥ max entries; the timeout (if any)
        // lives for the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min as libc::c_long,
                max as libc::c_long,
                self.events.as_mut_ptr(),
                timeout,
            )
        };
        let n = Self::check(r)? as usize;
        for ev in &self.events[..n] {
            out.push(Completion {
                tag: ev.data,
                res: ev.res,
                short: 0,
            });
        }
        self.inflight -= n;
        Ok(n)
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        if self.ctx != 0 {
            // SAFETY: destroys the context we created; waits for in-flight I/O.
            unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
        }
    }
}
