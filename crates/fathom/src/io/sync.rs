//! fsync/fdatasync/sync_file_range cadence (every N writes) and their timing.

use fathom_stats::ThreadStats;

/// fsync=N / fdatasync=N after writes; returns (errno, text) on failure.
/// Writes since each kind of sync, and per file the range written since its last
/// sync_file_range.
#[derive(Default)]
pub(crate) struct SyncState {
    pub(crate) since_fsync: u32,
    pub(crate) since_fdatasync: u32,
    pub(crate) since_range: u32,
    pub(crate) ranges: Vec<Option<(u64, u64)>>,
    /// fsync/fdatasync calls due (file, data only): as fio, each is issued before the
    /// job's next I/O, so a job that has no next I/O ends without it (end_fsync syncs).
    pub(crate) due: Vec<(usize, bool)>,
}

/// Issue the fsync/fdatasync calls `sync_cadence` found due, timed and counted.
#[inline]
pub(crate) fn due_syncs(
    engine: &mut dyn fathom_engine::IoEngine,
    s: &mut SyncState,
    st: &mut ThreadStats,
) -> Option<(i32, String)> {
    for (file, data_only) in s.due.drain(..) {
        if let Err(e) = timed_sync(engine, file, data_only, st) {
            let what = if data_only { "fdatasync" } else { "fsync" };
            return Some((
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("{what}: {e}"),
            ));
        }
    }
    None
}

pub(crate) fn sync_cadence(
    engine: &mut dyn fathom_engine::IoEngine,
    spec: &fathom_job::JobSpec,
    (file, offset, len): (usize, u64, u64),
    s: &mut SyncState,
    st: &mut ThreadStats,
) -> Option<(i32, String)> {
    if let Some((flags, every)) = spec.sync_file_range {
        let r = &mut s.ranges[file];
        *r = Some(match *r {
            Some((a, b)) => (a.min(offset), b.max(offset + len)),
            None => (offset, offset + len),
        });
        s.since_range += 1;
        if s.since_range >= every {
            s.since_range = 0;
            if let Some((a, b)) = r.take() {
                let t0 = crate::clock::now();
                if let Err(e) = engine.sync_range(file, a, b - a, flags) {
                    return Some((
                        fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
                        format!("sync_file_range: {e}"),
                    ));
                }
                st.sync.record(t0.elapsed().as_nanos() as u64);
            }
        }
    }
    if spec.fsync > 0 {
        s.since_fsync += 1;
        if s.since_fsync >= spec.fsync {
            s.since_fsync = 0;
            s.due.push((file, false));
        }
    }
    if spec.fdatasync > 0 {
        s.since_fdatasync += 1;
        if s.since_fdatasync >= spec.fdatasync {
            s.since_fdatasync = 0;
            s.due.push((file, true));
        }
    }
    None
}

pub(crate) fn timed_sync(
    engine: &mut dyn fathom_engine::IoEngine,
    file: usize,
    data_only: bool,
    st: &mut ThreadStats,
) -> std::io::Result<()> {
    let t0 = crate::clock::now();
    engine.sync_file(file, data_only)?;
    st.sync.record(t0.elapsed().as_nanos() as u64);
    Ok(())
}
