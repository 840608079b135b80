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
pub(crate) fn hold(locks: &[FileLock], mode: LockMode, file: usize, ddir: Ddir) -> Held<'_> {
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
