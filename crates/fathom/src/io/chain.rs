//! vdbench's data validation around each write: a write to blocks whose contents the job
//! knows is preceded by a read of the same blocks, checked (vdbench's pre-read), and with
//! read-after-write followed by one (`Control::verify_pre_read`,
//! `Control::verify_read_after_write`). Each is an I/O of its own, counted as a read, and
//! neither is paced: vdbench does both inside the one operation its rate schedules, so a
//! validating run reports more I/Os than its iorate=. The job serializes overlapping
//! I/Os, so nothing else touches the blocks between a pre-read and its write.

use fathom_job::Ddir;
use fathom_workload::IoReq;
use std::collections::VecDeque;

/// A clone's chained I/Os.
#[derive(Default)]
pub(crate) struct Chain {
    /// Read a write's blocks before it when they hold known data.
    pub(crate) pre_read: bool,
    /// Read a write's blocks back once it completed.
    pub(crate) read_after: bool,
    /// Writes whose pre-read is in flight.
    pub(crate) waiting: Vec<IoReq>,
    /// I/Os whose turn has come (a write after its pre-read, a read after its write):
    /// issued before any other.
    pub(crate) ready: VecDeque<IoReq>,
}

impl Chain {
    /// The chain of a job with these settings (None: neither).
    pub(crate) fn of(spec: &fathom_job::JobSpec) -> Option<Box<Chain>> {
        let c = &spec.control;
        (c.verify_pre_read || c.verify_read_after_write).then(|| {
            Box::new(Chain {
                pre_read: c.verify_pre_read,
                read_after: c.verify_read_after_write,
                ..Chain::default()
            })
        })
    }

    /// The I/O to issue in place of `req`: its pre-read when `known` says its blocks hold
    /// data the job can check (the write waits for it), else `req`.
    pub(crate) fn before(&mut self, req: IoReq, known: impl FnOnce() -> bool) -> IoReq {
        if !self.pre_read || req.ddir != Ddir::Write || !known() {
            return req;
        }
        self.waiting.push(req);
        IoReq {
            ddir: Ddir::Read,
            ..req
        }
    }

    /// An I/O completed (`ok`: and its check passed): a pre-read lets its write go (a
    /// failed one keeps it back, as vdbench never writes over a block in error); a write
    /// is read back with read-after-write.
    pub(crate) fn done(&mut self, req: IoReq, ok: bool) {
        match req.ddir {
            Ddir::Read => {
                let same = |w: &IoReq| w.file == req.file && w.offset == req.offset;
                if let Some(i) = self.waiting.iter().position(same) {
                    let w = self.waiting.swap_remove(i);
                    if ok {
                        self.ready.push_back(w);
                    }
                }
            }
            Ddir::Write if self.read_after && ok => self.ready.push_back(IoReq {
                ddir: Ddir::Read,
                ..req
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(ddir: Ddir, offset: u64) -> IoReq {
        IoReq {
            ddir,
            offset,
            len: 4096,
            file: 0,
        }
    }

    #[test]
    fn a_known_write_waits_for_its_read() {
        let mut c = Chain {
            pre_read: true,
            ..Chain::default()
        };
        // Unknown blocks, reads: as they are.
        assert_eq!(c.before(io(Ddir::Write, 0), || false).ddir, Ddir::Write);
        assert_eq!(c.before(io(Ddir::Read, 0), || true).ddir, Ddir::Read);
        assert!(c.waiting.is_empty());
        let r = c.before(io(Ddir::Write, 8192), || true);
        assert_eq!((r.ddir, r.offset), (Ddir::Read, 8192));
        // Another read completing lets nothing go; the pre-read does.
        c.done(io(Ddir::Read, 0), true);
        assert!(c.ready.is_empty());
        c.done(r, true);
        let w = c.ready.pop_front().unwrap();
        assert_eq!((w.ddir, w.offset), (Ddir::Write, 8192));
        // A failed pre-read keeps its write back; without read_after a write is the end.
        let r = c.before(io(Ddir::Write, 0), || true);
        c.done(r, false);
        c.done(io(Ddir::Write, 0), true);
        assert!(c.ready.is_empty() && c.waiting.is_empty());
    }

    #[test]
    fn a_write_is_read_back() {
        let mut c = Chain {
            read_after: true,
            ..Chain::default()
        };
        assert_eq!(c.before(io(Ddir::Write, 0), || true).ddir, Ddir::Write);
        c.done(io(Ddir::Write, 4096), true);
        c.done(io(Ddir::Write, 0), false);
        let r = c.ready.pop_front().unwrap();
        assert_eq!((r.ddir, r.offset), (Ddir::Read, 4096));
        assert!(c.ready.is_empty());
    }
}
