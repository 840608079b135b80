//! fsync/fdatasync/sync_file_range every N writes, decided as fio decides them, and timed.
//!
//! fio decides before each new I/O (its `get_rw_ddir`): when the writes issued so far
//! (fio's `io_issues[WRITE]`, never reset between loops, reset when the ramp ends) are a
//! multiple of `fsync`'s N, that I/O's place goes to an fsync; else of `fdatasync`'s, to
//! an fdatasync; else of `sync_file_range`'s, to a sync_file_range — unless the last
//! completion was a sync's. Any other completion clears that (on libaio at depth, as fio's
//! queue hands it one: see [`FioQueue`]), and so does a new loop. So
//! one sync follows the Nth write; but in a mix the reads after it each find the count
//! still a multiple and a read's completion in between: each is preceded by a sync again,
//! until the next write (fio 3.33 does exactly this), and when two cadences fall due on
//! the same write only the first in that order is issued. A sync goes to the file of the
//! I/O it comes before. fio's JSON `sync.total_ios` counts the fsyncs alone; its latency
//! samples are of every kind.

use fathom_stats::ThreadStats;

/// The sync cadence's state: whether the last completion was a sync's, the loop it was
/// decided in, whether the I/O about to be issued was decided already (one held back and
/// taken up again is not decided twice), and per file the range written since its last
/// sync (sync_file_range's).
#[derive(Default)]
pub(crate) struct SyncState {
    /// Writes completed (`sync_per_nth_write`'s count).
    pub(crate) completed: u64,
    pub(crate) last_was_sync: bool,
    pub(crate) pass_no: u32,
    /// The file of the last I/O decided (a sync at a loop's or the job's end goes there).
    pub(crate) last_file: usize,
    pub(crate) decided: bool,
    pub(crate) ranges: Vec<Option<(u64, u64)>>,
    /// fsync/fdatasync calls due (file, data only), issued before the next I/O (a
    /// replayed log's, or the cadence's).
    pub(crate) due: Vec<(usize, bool)>,
    /// On a queueing engine, fio's own queue as it sees it, for `last_was_sync`: see
    /// [`FioQueue`]. None: each completion clears `last_was_sync` (an engine that
    /// completes each I/O as it is issued).
    pub(crate) fio_queue: Option<FioQueue>,
}

/// fio's libaio queue at depth as its `last_was_sync` sees it. fio reaps only once its
/// queue is full (all `iodepth` units in flight), one completion at a time (its default
/// `iodepth_batch_complete_min` and `_max` of 1), and libaio makes a sync at once, outside
/// the queue (Linux has no asynchronous fsync there); whether the last unit fio handled
/// was a sync decides the next sync. So `rw bs=4k size=64k loops=3 fsync=4` makes 12
/// fsyncs at depth 1 but 9 at depth 4: a read queued after a sync is not reaped before
/// fio decides the next unit (fathom decided by its own completions: 12 at any depth).
/// (On io_uring and posixaio fio queues the sync itself and its count follows when the
/// kernel completes it: it differs from run to run, and fathom keeps its own there.)
#[derive(Debug)]
pub(crate) struct FioQueue {
    depth: usize,
    /// Units in flight, as fio counts them (syncs are not).
    inflight: usize,
}

impl FioQueue {
    pub(crate) fn new(depth: usize) -> Self {
        FioQueue {
            depth: depth.max(1),
            inflight: 0,
        }
    }

    /// A read or write queued; true when fio, its queue full, reaps one.
    fn queued(&mut self) -> bool {
        self.inflight += 1;
        if self.inflight >= self.depth {
            self.inflight -= 1;
            return true;
        }
        false
    }
}

/// Which sync, if any, takes the place before the next I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    Fsync,
    Fdatasync,
    Range,
}

/// fio's choice for the next I/O after `writes` issued writes (None: the I/O itself).
#[inline]
pub(crate) fn due_after(spec: &fathom_job::JobSpec, writes: u64) -> Option<Due> {
    if writes == 0 {
        return None;
    }
    let every = |n: u32| n > 0 && writes % u64::from(n) == 0;
    if every(spec.fsync) {
        Some(Due::Fsync)
    } else if every(spec.fdatasync) {
        Some(Due::Fdatasync)
    } else if spec.sync_file_range.is_some_and(|(_, n)| every(n)) {
        Some(Due::Range)
    } else {
        None
    }
}

impl SyncState {
    /// A read or write queued: fio's view of the queue moves (see [`FioQueue`]).
    #[inline]
    pub(crate) fn io_queued(&mut self) {
        if self.fio_queue.as_mut().is_some_and(FioQueue::queued) {
            self.last_was_sync = false;
        }
    }

    /// A read or write completed: fio's last completion is no sync's — unless fio's own
    /// queue says when (see [`FioQueue`]).
    #[inline]
    pub(crate) fn io_completed(&mut self) {
        if self.fio_queue.is_none() {
            self.last_was_sync = false;
        }
    }

    /// A sync made: fio's last unit is a sync (libaio makes it at once).
    #[inline]
    fn synced(&mut self) {
        self.last_was_sync = true;
    }

    /// A new loop or pass: fio starts it with its queue drained and no sync behind it.
    pub(crate) fn new_pass(&mut self) {
        if let Some(q) = &mut self.fio_queue {
            q.inflight = 0;
        }
        self.last_was_sync = false;
    }

    /// A write to `file` completed: its range grows (for sync_file_range); with
    /// `sync_per_nth_write`, the Nth write's syncs are due before the next I/O.
    #[inline]
    pub(crate) fn wrote(&mut self, spec: &fathom_job::JobSpec, file: usize, offset: u64, len: u64) {
        let r = &mut self.ranges[file];
        *r = Some(match *r {
            Some((a, b)) => (a.min(offset), b.max(offset + len)),
            None => (offset, offset + len),
        });
        if spec.control.sync_per_nth_write {
            self.completed += 1;
            let every = |n: u32| n > 0 && self.completed % u64::from(n) == 0;
            if every(spec.fsync) {
                self.due.push((file, false));
            }
            if every(spec.fdatasync) {
                self.due.push((file, true));
            }
        }
    }
}

/// Issue the fsync/fdatasync calls due, timed and counted; returns (errno, text) on
/// failure.
#[inline]
pub(crate) fn due_syncs(
    engine: &mut dyn fathom_engine::IoEngine,
    s: &mut SyncState,
    st: &mut ThreadStats,
) -> Option<(i32, String)> {
    let mut due = std::mem::take(&mut s.due);
    let mut failed = None;
    for (file, data_only) in due.drain(..) {
        s.synced();
        if let Some(r) = s.ranges.get_mut(file) {
            *r = None;
        }
        if let Err(e) = timed_sync(engine, file, data_only, st) {
            let what = if data_only { "fdatasync" } else { "fsync" };
            failed = Some((
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("{what}: {e}"),
            ));
            break;
        }
    }
    // (The list's room is kept for the next ones.)
    due.clear();
    s.due = due;
    failed
}

/// sync_file_range over what was written to `file` since its last sync (as fio, a file
/// with nothing written since makes no call but counts as a sync, timed).
pub(crate) fn range_sync(
    engine: &mut dyn fathom_engine::IoEngine,
    flags: u32,
    file: usize,
    s: &mut SyncState,
    st: &mut ThreadStats,
) -> Option<(i32, String)> {
    s.synced();
    let t0 = crate::clock::now();
    if let Some((a, b)) = s.ranges.get_mut(file).and_then(Option::take) {
        if let Err(e) = engine.sync_range(file, a, b - a, flags) {
            return Some((
                fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
                format!("sync_file_range: {e}"),
            ));
        }
    }
    st.sync.record(t0.elapsed().as_nanos() as u64);
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
    if !data_only {
        st.fsyncs += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On libaio at depth 4 fio handles a completion only with its queue full: after a
    /// sync, three reads queued leave it the last unit handled; the fourth makes fio reap
    /// one, and the next sync is due again. Without the queue, each completion clears it.
    #[test]
    fn libaio_s_queue_keeps_a_sync_last_until_it_is_full() {
        let mut s = SyncState {
            fio_queue: Some(FioQueue::new(4)),
            ..Default::default()
        };
        s.synced();
        for _ in 0..3 {
            s.io_queued();
            s.io_completed();
            assert!(s.last_was_sync);
        }
        s.io_queued();
        assert!(!s.last_was_sync);
        s.synced();
        s.io_queued();
        assert!(
            !s.last_was_sync,
            "the queue stays full: each unit reaps one"
        );
        s.new_pass();
        s.synced();
        s.io_queued();
        assert!(s.last_was_sync, "a new pass starts with the queue drained");
        let mut plain = SyncState::default();
        plain.synced();
        plain.io_queued();
        assert!(plain.last_was_sync);
        plain.io_completed();
        assert!(!plain.last_was_sync);
    }

    #[test]
    fn fio_s_order_of_the_cadences_decides_which_sync_comes() {
        let spec = fathom_job::JobSpec {
            fsync: 3,
            fdatasync: 2,
            sync_file_range: Some((0, 5)),
            ..Default::default()
        };
        let got: Vec<_> = (0..=10).map(|w| due_after(&spec, w)).collect();
        use Due::*;
        assert_eq!(
            got,
            [
                None,
                None,
                Some(Fdatasync),
                Some(Fsync),
                Some(Fdatasync),
                Some(Range),
                Some(Fsync),
                None,
                Some(Fdatasync),
                Some(Fsync),
                Some(Fdatasync),
            ]
        );
    }
}
