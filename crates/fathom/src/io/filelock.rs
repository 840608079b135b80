//! `lockfile`: each I/O to a file holds the file's lock while it is submitted (for a
//! synchronous engine, until it completes), as fio does: `exclusive` takes it alone,
//! `readwrite` shares it among reads. The locks are one per path for the whole run.

use crate::plan::FileLock;
use fathom_job::{Ddir, LockMode};
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

/// A held file lock (released when dropped).
pub(crate) enum Held<'a> {
    None,
    Shared(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Alone(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

/// Take `file`'s lock for an I/O of direction `ddir` (nothing when the job does not lock).
#[inline]
fn hold(locks: &[FileLock], mode: LockMode, file: usize, ddir: Ddir) -> Held<'_> {
    let Some(l) = locks.get(file) else {
        return Held::None;
    };
    // A panic elsewhere cannot leave the () it guards inconsistent: take it anyway.
    match (mode, ddir) {
        (LockMode::None, _) => Held::None,
        (LockMode::ReadWrite, Ddir::Read) => {
            Held::Shared(l.read().unwrap_or_else(|e| e.into_inner()))
        }
        _ => Held::Alone(l.write().unwrap_or_else(|e| e.into_inner())),
    }
}

/// Queue `io` holding its file's lock (the wait for the lock is not timed): the time the
/// I/O was handed to the engine, and what the engine did. With `range` (IOR's
/// `--posix.rangelocks`), the I/O's byte range is locked with an open-file-description
/// fcntl lock on the engine's descriptor first (that wait timed, as IOR times it) and
/// unlocked once the engine returns (a synchronous engine's I/O is done then); a failed
/// fcntl is returned and the I/O goes on, as IOR warns and goes on. Out of line: jobs that
/// lock nothing never come here.
///
/// # Safety
/// As [`fathom_engine::IoEngine::queue`].
#[cold]
#[inline(never)]
pub(crate) unsafe fn queue_locked(
    engine: &mut dyn fathom_engine::IoEngine,
    io: &fathom_engine::IoUnit,
    locks: &[FileLock],
    (mode, range): (LockMode, bool),
) -> (
    std::time::Instant,
    std::io::Result<fathom_engine::Queued>,
    Option<std::io::Error>,
) {
    let _held = hold(locks, mode, io.file, io.ddir);
    let t0 = crate::clock::now();
    let fd = if range { engine.raw_fd(io.file) } else { None };
    let mut err = None;
    if let Some(fd) = fd {
        let kind = match io.ddir {
            Ddir::Read => libc::F_RDLCK,
            _ => libc::F_WRLCK,
        };
        err = range_lock(fd, kind, io.offset, io.len as u64, libc::F_OFD_SETLKW).err();
    }
    // SAFETY: the caller's promise for `io`.
    let q = unsafe { engine.queue(io) };
    if let Some(fd) = fd {
        let e = range_lock(
            fd,
            libc::F_UNLCK,
            io.offset,
            io.len as u64,
            libc::F_OFD_SETLK,
        )
        .err();
        err = err.or(e);
    }
    (t0, q, err)
}

/// fcntl's byte-range lock `kind` over `len` bytes at `offset` (`cmd`: wait or not).
fn range_lock(fd: i32, kind: i32, offset: u64, len: u64, cmd: i32) -> std::io::Result<()> {
    // SAFETY: a plain-data struct; zero is a valid value of every field.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_start = offset as libc::off_t;
    fl.l_len = len as libc::off_t;
    // (l_pid must be 0 for open-file-description locks: it is.)
    loop {
        // SAFETY: `fl` lives across the call; fcntl only reads and writes it.
        if unsafe { libc::fcntl(fd, cmd, &mut fl) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
