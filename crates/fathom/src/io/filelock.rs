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
/// I/O was handed to the engine, and what the engine did. Out of line: jobs that lock no
/// file never come here.
///
/// # Safety
/// As [`fathom_engine::IoEngine::queue`].
#[cold]
#[inline(never)]
pub(crate) unsafe fn queue_locked(
    engine: &mut dyn fathom_engine::IoEngine,
    io: &fathom_engine::IoUnit,
    locks: &[FileLock],
    mode: LockMode,
) -> (std::time::Instant, std::io::Result<fathom_engine::Queued>) {
    let _held = hold(locks, mode, io.file, io.ddir);
    let t0 = crate::clock::now();
    // SAFETY: the caller's promise for `io`.
    (t0, unsafe { engine.queue(io) })
}
