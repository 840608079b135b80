//! `io_uring`: the kernel's submission/completion rings (io-uring crate). Honours
//! fixedbufs (registered buffers), registerfiles, sqthread_poll (+ _cpu), hipri
//! (IOPOLL), nonvectored and force_async.

use crate::sys::Fds;
use crate::{Caps, Completion, EngineBuf, EngineOptions, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use io_uring::{opcode, squeue, types, IoUring};
use std::io;
use std::path::Path;

/// The io_uring engine.
pub struct IoUringEngine {
    opts: EngineOptions,
    ring: Option<IoUring>,
    fds: Fds,
    /// Buffer registered for each slot (fixedbufs): the slot's base address.
    fixed: Vec<EngineBuf>,
    /// iovecs for the vectored opcodes, one per slot.
    iovecs: Vec<libc::iovec>,
    files_registered: bool,
    queued: usize,
    inflight: usize,
}

// SAFETY: the iovecs' raw pointers point into buffers the runner owns for the engine's
// lifetime; the engine is used by one thread at a time.
unsafe impl Send for IoUringEngine {}

impl IoUringEngine {
    /// A new, not yet set up engine.
    pub fn new(opts: EngineOptions) -> IoUringEngine {
        IoUringEngine {
            opts,
            ring: None,
            fds: Fds::default(),
            fixed: Vec::new(),
            iovecs: Vec::new(),
            files_registered: false,
            queued: 0,
            inflight: 0,
        }
    }

    fn ring(&mut self) -> &mut IoUring {
        self.ring.as_mut().expect("io_uring used before setup")
    }
    /// Up to `n` completions from the ring into `out`; how many.
    #[inline]
    fn take_completions(&mut self, n: usize, out: &mut Vec<Completion>) -> usize {
        let mut got = 0;
        for cqe in self.ring().completion().take(n) {
            out.push(Completion {
                tag: cqe.user_data(),
                res: cqe.result() as i64,
                short: 0,
            });
            got += 1;
        }
        got
    }

    fn register_files(&mut self) -> io::Result<()> {
        if self.opts.job.registerfiles && !self.files_registered && !self.fds.as_slice().is_empty()
        {
            let fds = self.fds.as_slice().to_vec();
            self.ring().submitter().register_files(&fds)?;
            self.files_registered = true;
        }
        Ok(())
    }
}

/// Explain io_uring_setup failures (kernel, seccomp, sysctl) instead of a bare errno.
fn setup_error(e: io::Error) -> io::Error {
    let why = match e.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel has no io_uring (ENOSYS)",
        Some(libc::EPERM) => {
            "io_uring is disabled (EPERM): see /proc/sys/kernel/io_uring_disabled, or a \
             seccomp/container policy blocks it"
        }
        Some(libc::ENOMEM) => "not enough locked memory for the rings (ENOMEM): raise ulimit -l",
        _ => "",
    };
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "io_uring is unavailable: {e}{}{why}; use ioengine=libaio or psync",
            if why.is_empty() { "" } else { ": " }
        ),
    )
}

impl IoEngine for IoUringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }
    fn caps(&self) -> Caps {
        Caps {
            is_async: true,
            reopen: !self.opts.job.registerfiles,
            ..Caps::default()
        }
    }
    fn probe(&self) -> io::Result<()> {
        IoUring::new(2).map(drop).map_err(setup_error)
    }
    unsafe fn setup(&mut self, depth: usize, bufs: &[EngineBuf]) -> io::Result<()> {
        let mut b = IoUring::builder();
        if self.opts.job.sqthread_poll {
            b.setup_sqpoll(1000);
            if let Some(cpu) = self.opts.job.sqthread_poll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        if self.opts.job.hipri {
            b.setup_iopoll();
        }
        let entries = (depth.max(1) as u32).next_power_of_two();
        // One thread submits and reaps: completion work runs when we ask for events,
        // not by interrupting us (fewer context switches). Older kernels refuse these
        // flags; then the ring is built without them.
        let mut fast = b.clone();
        // The taskrun flag tells us when completion work is pending (an I/O finished by
        // an io-wq worker, a buffered read of a hole): then a submit carries GETEVENTS,
        // and a reap that finds no completion enters the kernel to run it. Without it a
        // loop that always finds another completion ready never ran that work, and one
        // I/O sat finished but unseen until the job's end (seconds of completion latency
        // on a sparse file read at iodepth 2).
        fast.setup_coop_taskrun()
            .setup_taskrun_flag()
            .setup_single_issuer();
        // Deferred completion work runs only when we wait for events; polled reaping
        // never waits, so it keeps the kernel's default.
        if !self.opts.job.sqthread_poll && !self.opts.poll_reap {
            fast.setup_defer_taskrun();
        }
        let ring = match fast.build(entries) {
            Ok(r) => r,
            Err(_) => b.build(entries).map_err(setup_error)?,
        };
        self.ring = Some(ring);
        if self.opts.job.fixedbufs {
            let iov: Vec<libc::iovec> = bufs
                .iter()
                .map(|b| libc::iovec {
                    iov_base: b.ptr.cast(),
                    iov_len: b.len,
                })
                .collect();
            // SAFETY: the caller promises the buffers stay valid for the engine's life.
            unsafe { self.ring().submitter().register_buffers(&iov) }.map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "fixedbufs: registering {} buffers failed: {e}; raise ulimit -l",
                        bufs.len()
                    ),
                )
            })?;
        }
        self.fixed = bufs.to_vec();
        self.iovecs = vec![
            libc::iovec {
                iov_base: std::ptr::null_mut(),
                iov_len: 0
            };
            depth.max(1)
        ];
        Ok(())
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        if self.files_registered {
            return Err(io::Error::other(
                "io_uring: files must be opened before the first I/O",
            ));
        }
        self.fds.open(path, opts)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        if io.ddir == Ddir::Trim {
            // Trims are done synchronously (fallocate / BLKDISCARD).
            return Ok(self.fds.trim_done(io));
        }
        self.register_files()?;
        let slot = io.tag as usize;
        let fd = self.fds[io.file];
        let len = io.len as u32;
        let off = io.offset;
        let write = io.ddir == Ddir::Write;
        macro_rules! build {
            ($target:expr) => {{
                if self.opts.job.fixedbufs {
                    // The slot's registered buffer has index `slot`.
                    if write {
                        opcode::WriteFixed::new($target, io.buf, len, slot as u16)
                            .offset(off)
                            .ioprio(io.ioprio)
                            .build()
                    } else {
                        opcode::ReadFixed::new($target, io.buf, len, slot as u16)
                            .offset(off)
                            .ioprio(io.ioprio)
                            .build()
                    }
                } else if self.opts.job.nonvectored == 0 {
                    // nonvectored=0 asks for readv/writev; -1 (fio's default) and 1 use the
                    // plain opcodes, which every kernel with io_uring fathom supports has.
                    self.iovecs[slot] = libc::iovec {
                        iov_base: io.buf.cast(),
                        iov_len: io.len,
                    };
                    let iov: *const libc::iovec = &self.iovecs[slot];
                    if write {
                        opcode::Writev::new($target, iov, 1)
                            .offset(off)
                            .ioprio(io.ioprio)
                            .build()
                    } else {
                        opcode::Readv::new($target, iov, 1)
                            .offset(off)
                            .ioprio(io.ioprio)
                            .build()
                    }
                } else if write {
                    opcode::Write::new($target, io.buf, len)
                        .offset(off)
                        .ioprio(io.ioprio)
                        .build()
                } else {
                    opcode::Read::new($target, io.buf, len)
                        .offset(off)
                        .ioprio(io.ioprio)
                        .build()
                }
            }};
        }
        let mut sqe = if self.files_registered {
            build!(types::Fixed(io.file as u32))
        } else {
            build!(types::Fd(fd))
        };
        if self.opts.job.force_async {
            sqe = sqe.flags(squeue::Flags::ASYNC);
        }
        let sqe = sqe.user_data(io.tag);
        let ring = self.ring();
        // SAFETY: the SQE's buffer (and iovec in self.iovecs) stay valid until reaped
        // (queue's contract; iovecs live in the engine).
        if unsafe { ring.submission().push(&sqe) }.is_err() {
            // Queue full: submit what is there and try again.
            ring.submit()?;
            // SAFETY: as above.
            unsafe { ring.submission().push(&sqe) }
                .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        }
        self.queued += 1;
        Ok(Queued::Queued)
    }
    fn commit(&mut self) -> io::Result<usize> {
        if self.queued == 0 {
            return Ok(0);
        }
        let n = loop {
            match self.ring().submit() {
                Ok(n) => break n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => break 0,
                Err(e) => return Err(e),
            }
        };
        // With SQPOLL the kernel thread consumes entries itself: count all queued as submitted.
        let n = if self.opts.job.sqthread_poll {
            self.queued
        } else {
            n.min(self.queued)
        };
        let n = if n == 0 { self.queued } else { n };
        self.inflight += n;
        self.queued -= n.min(self.queued);
        Ok(n)
    }
    fn reap_until(
        &mut self,
        max: usize,
        out: &mut Vec<Completion>,
        wait: std::time::Duration,
    ) -> io::Result<usize> {
        let n = self.reap(0, max, out)?;
        if n > 0 || self.inflight == 0 || wait.is_zero() {
            return Ok(n);
        }
        let ts = io_uring::types::Timespec::new()
            .sec(wait.as_secs())
            .nsec(wait.subsec_nanos());
        let args = io_uring::types::SubmitArgs::new().timespec(&ts);
        match self.ring().submitter().submit_with_args(1, &args) {
            Ok(_) => {}
            // ETIME: the wait ran out; EINTR, EBUSY: try again later; EINVAL: a kernel
            // without timed waits (before 5.11), so the wait is a poll.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME) | Some(libc::EINTR) | Some(libc::EBUSY) | Some(libc::EINVAL)
                ) => {}
            Err(e) => return Err(e),
        }
        self.reap(0, max, out)
    }
    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        if self.inflight == 0 {
            return Ok(0);
        }
        let max = max.clamp(1, self.inflight);
        let want = min.min(max);
        let mut got = 0;
        loop {
            got += self.take_completions(max - got, out);
            if got >= want {
                // Completion work pending (the taskrun flag): run it and look again, so
                // that a finished I/O is not left unseen while others keep coming.
                if got < max && self.ring().submission().taskrun() {
                    match self.ring().submit_and_wait(0) {
                        Ok(_) => {}
                        Err(e)
                            if matches!(
                                e.raw_os_error(),
                                Some(libc::EINTR) | Some(libc::EBUSY)
                            ) => {}
                        Err(e) => return Err(e),
                    }
                    got += self.take_completions(max - got, out);
                }
                break;
            }
            match self.ring().submit_and_wait(want - got) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => return Err(e),
            }
        }
        self.inflight -= got;
        Ok(got)
    }
    fn close_file(&mut self, file: usize) -> io::Result<()> {
        if self.files_registered || self.opts.job.registerfiles {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "io_uring with registerfiles keeps its files open",
            ));
        }
        self.fds.close(file)
    }
    fn reopen_file(&mut self, file: usize, path: &Path, opts: &OpenOptions) -> io::Result<()> {
        self.fds.reopen(file, path, opts)
    }
    fn raw_fd(&self, file: usize) -> Option<i32> {
        Some(self.fds[file])
    }
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        self.fds.sync(file, data_only)
    }
    fn close_files(&mut self) -> io::Result<()> {
        if self.files_registered {
            let _ = self.ring().submitter().unregister_files();
            self.files_registered = false;
        }
        self.fds.close_all()
    }
}
