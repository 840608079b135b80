//! Issuing I/O: while a slot is free, take the next I/O ([`Loop::next_req`]: ramp, flow,
//! think time, syncs, overlaps, open files), wait for its time ([`Loop::pace`]: rate,
//! replay), fill its buffer ([`Loop::fill_write`]) and queue it ([`Loop::queue_one`]); an
//! engine that completes at once is accounted here, as its completion comes back.

use super::state::{fail, Loop};
use crate::io::filelock::queue_locked;
use crate::io::slot::{complete, overlaps_inflight, submit, Recorder};
use crate::io::sync::{due_after, due_syncs, range_sync, Due};
use crate::io::zbd::Steer;
use crate::pace::latency_target::LtEvent;
use crate::pace::{sleep_cancellable, wait_until};
use crate::record::outcome::fills_device;
use crate::verify::readback::{after_io, STOP_TOLERATED};
use fathom_engine::Queued;
use fathom_job::Ddir;
use fathom_stats::{batch_index, depth_level_index};
use fathom_workload::IoReq;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Loop<'_> {
    /// Issue I/Os while slots are free and nothing holds the queue back.
    #[inline(always)]
    pub(crate) fn issue(&mut self) {
        while !self.stopping
            && !self.free.is_empty()
            && !self.draining
            && !self.quiesce
            && !self
                .backlog
                .wants(|| self.held.is_none() && self.gen.budget_spent())
            && self
                .lt
                .as_ref()
                .is_none_or(|l| self.inflight < l.qd as usize)
        {
            // Each step returns None (false) when the loop is to be left: to reap, or to
            // stop when `stopping` is set.
            let Some(req) = self.next_req() else { break };
            // A chained I/O (see `chain`) goes at once: its write's rate slot is spent.
            let chained = self.chained;
            let intended = if chained {
                self.chained = false;
                None
            } else {
                let Some(intended) = self.pace(req) else {
                    break;
                };
                intended
            };
            let req = match self.before_queue {
                true => match self.prepare_queue(req, intended, chained) {
                    Some(r) => r,
                    None => break,
                },
                false => req,
            };
            if !self.queue_one(req, intended) {
                break;
            }
        }
    }

    /// What some jobs do before an I/O is queued: take a depth group's place, renew a
    /// file (fileio=(sequential,delete)), read a write's known blocks first (vdbench's
    /// pre-read: the read is queued in its place). The I/O to queue; None when the loop
    /// is to be left.
    #[cold]
    #[inline(never)]
    fn prepare_queue(
        &mut self,
        req: IoReq,
        intended: Option<Instant>,
        chained: bool,
    ) -> Option<IoReq> {
        if self.depth.is_some() && !self.take_place(req, intended) {
            return None;
        }
        if self.spec.control.delete_before_write
            && req.ddir == Ddir::Write
            && req.offset == self.clone.files[req.file].region.start
            && !self.renew_file(req, intended)
        {
            return None;
        }
        match (&mut self.chain, &self.p.verifier) {
            (Some(c), Some(v)) if !chained => Some(c.before(req, || {
                v.chunks(req.offset, req.len)
                    .any(|(o, _)| v.generation(req.file, o) > 0)
            })),
            _ => Some(req),
        }
    }

    /// A depth group's place for this I/O; when there is none, the I/O is held (its
    /// intended time kept) until a place is free, waiting a moment if nothing of this
    /// job's is in flight to reap meanwhile.
    #[cold]
    #[inline(never)]
    fn take_place(&mut self, req: IoReq, intended: Option<Instant>) -> bool {
        if self.depth.as_mut().is_none_or(|d| d.take()) {
            return true;
        }
        self.held = Some(req);
        self.held_at = intended;
        self.held_steered = true;
        if self.inflight == 0 {
            std::thread::sleep(std::time::Duration::from_micros(20));
            self.now = crate::clock::now();
        }
        false
    }

    /// The next I/O to issue, after the stops, think time, ramp and flow checks, with
    /// its syncs done and its file open.
    #[inline(always)]
    fn next_req(&mut self) -> Option<IoReq> {
        let spec = self.spec;
        if !self.may_issue() {
            return None;
        }
        let from_held = self.held.is_some();
        let next = match if self.chain_ready {
            self.take_ready()
        } else {
            self.held.take()
        } {
            Some(r) => Some(r),
            None => {
                if self.sync_cadence && !self.syncs.decided && self.clone.files.len() > 1 {
                    self.sync_on_its_turn();
                }
                let next = self.gen.next_io(&mut self.syncs.due);
                if self.turns
                    && (self.gen.loop_no() != self.cur_loop
                        || ((self.verify_each_pass || self.sync_each_pass)
                            && self.gen.pass_no() != self.cur_pass))
                {
                    if let Some(r) = next {
                        return self.turn_loop_at(r);
                    }
                }
                next
            }
        };
        let Some(req) = next else {
            // A sync that took its turn (`sync_on_its_turn`) before an I/O that did not
            // come: fio's job had its bytes and asked for no unit (where it does ask,
            // `sync_at_end` decides, as before).
            if !self.gen.is_replay() && !self.syncs.due.is_empty() {
                self.syncs.due.clear();
                self.syncs.decided = false;
            }
            if let Some(err) = self.sync_at_end() {
                fail(&mut self.out, err.0, err.1);
            }
            // A replayed log's last syncs come after its last I/O.
            if self.gen.is_replay() && !self.syncs.due.is_empty() {
                self.log_syncs();
                if let Some(err) =
                    due_syncs(&mut *self.p.engine, &mut self.syncs, &mut self.out.stats)
                {
                    fail(&mut self.out, err.0, err.1);
                }
            }
            self.work_done = true;
            self.stopping = true;
            return None;
        };
        // After a loop's turn (its end_fsync, its verify phase), as fio drops the cache
        // when it opens the files for the next loop.
        if self.drop_cache_each_pass
            && (self.gen.cache_epoch() != self.cache_pass || self.cache_left > 0)
        {
            self.drop_cache(req.file);
        }
        let req = match self.zbd.is_some() {
            true => self.steer_zbd(req, from_held)?,
            false => req,
        };
        // fsync/fdatasync/sync_file_range every N writes: fio's choice before this I/O.
        if self.sync_cadence && !self.syncs.decided {
            self.syncs.decided = true;
            if let Some(err) = self.sync_before(req.file) {
                fail(&mut self.out, err.0, err.1);
                self.stopping = true;
                return None;
            }
        }
        if !self.syncs.due.is_empty() {
            self.log_syncs();
            if let Some(err) = due_syncs(&mut *self.p.engine, &mut self.syncs, &mut self.out.stats)
            {
                fail(&mut self.out, err.0, err.1);
                self.stopping = true;
                return None;
            }
            self.now = crate::clock::now();
        }
        // serialize_overlap: an I/O overlapping one in flight waits for it.
        if spec.control.serialize_overlap
            && self.inflight > 0
            && overlaps_inflight(&self.p.slots, &self.free, &req)
        {
            self.held = Some(req);
            self.held_steered = true;
            return None;
        }
        if let Some(os) = &mut self.p.openset {
            match os.ensure(
                (req.file, self.chained),
                &mut *self.p.engine,
                &self.clone.files,
                &self.p.opts,
                spec,
            ) {
                Ok(true) => {
                    os.written[req.file] |= req.ddir == Ddir::Write;
                    if os.timed.as_ref().is_some_and(|t| !t.is_empty()) {
                        self.record_opens();
                    }
                }
                // Every open file has I/O in flight: reap, then try again.
                Ok(false) => {
                    self.held = Some(req);
                    self.held_steered = true;
                    return None;
                }
                Err(e) => {
                    let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                    fail(&mut self.out, errno, format!("openfiles: {e}"));
                    self.stopping = true;
                    return None;
                }
            }
        }
        Some(req)
    }

    /// The chain's next I/O whose turn has come (see `chain`), marked as chained; else
    /// the held one.
    #[cold]
    #[inline(never)]
    fn take_ready(&mut self) -> Option<IoReq> {
        let c = self
            .chain
            .as_deref_mut()
            .expect("a chain when one is ready");
        let r = c.ready.pop_front();
        self.chain_ready = !c.ready.is_empty();
        match r {
            Some(r) => {
                self.chained = true;
                Some(r)
            }
            None => self.held.take(),
        }
    }

    /// zonemode=zbd: the I/O's zone is free again.
    #[cold]
    #[inline(never)]
    fn zbd_done(&mut self, req: &IoReq) {
        if let Some(z) = &mut self.zbd {
            z.done(req);
        }
    }

    /// zonemode=zbd: steer the generator's I/O to its zone (the next one when it is to be
    /// skipped). None when the issue loop is to be left: the zone is busy (drain, or wait
    /// for the clone holding it), or the clone's work or an error ends it.
    #[cold]
    #[inline(never)]
    fn steer_zbd(&mut self, mut req: IoReq, from_held: bool) -> Option<IoReq> {
        // An I/O held after it was steered (for its issue time, an overlap, an open file)
        // goes as it is.
        if from_held && (std::mem::take(&mut self.held_steered) || self.held_at.is_some()) {
            return Some(req);
        }
        loop {
            let z = self.zbd.as_mut().expect("a zoned clone");
            match z.steer(req) {
                Steer::Go(r) => return Some(r),
                Steer::Skip => {
                    // Not done, so not counted against the job's bytes.
                    self.gen.give_back(req.len);
                    match self.gen.next_io(&mut self.syncs.due) {
                        Some(r) => req = r,
                        None => {
                            self.stopping = true;
                            return None;
                        }
                    }
                }
                Steer::Busy => {
                    self.held = Some(req);
                    self.held_steered = false;
                    if self.inflight > 0 {
                        self.quiesce = true;
                    } else {
                        // Another clone's I/O holds the zone (nothing of ours is in
                        // flight, so no zone is ours any more).
                        z.release_all();
                        std::thread::yield_now();
                        self.now = crate::clock::now();
                    }
                    return None;
                }
                Steer::End(why) => {
                    let note = format!("zonemode=zbd: {why}");
                    if !self.out.notes.contains(&note) {
                        self.out.notes.push(note);
                    }
                    self.stopping = true;
                    return None;
                }
                Steer::Fail(errno, text) => {
                    fail(&mut self.out, errno, text);
                    self.stopping = true;
                    return None;
                }
            }
        }
    }

    /// The checks before each I/O: stop (signal, runtime), think time, the end of the
    /// ramp, the flow group's share. False when the issue loop is to be left; after a
    /// stall or a flow wait with nothing in flight, the timing loop comes straight back.
    #[inline(always)]
    fn may_issue(&mut self) -> bool {
        let spec = self.spec;
        if self.cancel.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| self.now >= d) {
            self.stopping = true;
            return false;
        }
        if self.thinker.due {
            self.think();
            return false;
        }
        if self.ramping && self.now >= self.ramp_end {
            self.end_ramp();
        }
        // (An I/O held for its issue time was counted by its flow group already.)
        if let Some(f) = self.flow.as_mut().filter(|_| self.held_at.is_none()) {
            if f.ahead() {
                // Ahead of this job's share of its flow group: wait, then reap or retry.
                if !spec.flow_sleep.is_zero() {
                    sleep_cancellable(spec.flow_sleep, self.cancel);
                } else {
                    std::thread::yield_now();
                }
                self.now = crate::clock::now();
                return false;
            }
            f.issued();
        }
        true
    }

    /// Ramp over: forget what was recorded and start the measured window.
    #[cold]
    fn end_ramp(&mut self) {
        self.ramping = false;
        self.gen.ramp_over();
        if let Some(z) = &mut self.zbd {
            z.resets = 0;
        }
        self.restart_window(self.now);
        self.deadline = self.spec.runtime.map(|r| self.now + r);
        if let Some(s) = &mut self.schedule {
            s.reset();
            self.sched_origin = self.now;
            self.gen.rate_next(s, self.now);
        }
    }

    /// unlink_each_loop or a verifying job's next loop: `req` is the next loop's first
    /// I/O; it waits while the queue drains, the last loop's writes are read back and the
    /// files are made anew ([`Loop::turn_loop`]).
    #[cold]
    fn turn_loop_at(&mut self, req: IoReq) -> Option<IoReq> {
        // A synchronous engine's fio asks once more at the old pass's end, before its
        // verify phase and the files' close: a sync due then comes first (fathom made it
        // after the pass's reads back).
        if self.sync_cadence && self.completes_inline() {
            if let Some(err) = self.sync_pass_turn() {
                fail(&mut self.out, err.0, err.1);
                self.stopping = true;
            }
        }
        self.new_loop = self.gen.loop_no() != self.cur_loop;
        self.cur_loop = self.gen.loop_no();
        self.cur_pass = self.gen.pass_no();
        self.held = Some(req);
        self.loop_turn = true;
        self.quiesce = true;
        None
    }

    /// invalidate=1, a new pass over the files: each file's cached pages are dropped
    /// before its first I/O of the pass, as fio drops them when it opens the file again
    /// for a loop (or an io_size pass), at a time-based job's wrap and when a random map
    /// starts over (`rw=read time_based` on a 4 MiB file reads from the device pass after
    /// pass, not from the cache); a file a non-uniform file choice starts over is dropped
    /// alone (fio closes and reopens it).
    #[cold]
    #[inline(never)]
    fn drop_cache(&mut self, file: usize) {
        let epoch = self.gen.cache_epoch();
        if epoch != self.cache_pass {
            self.cache_pass = epoch;
            let whole = self.gen.whole_epoch();
            if whole != self.cache_whole {
                // A pass or a wrap: every file.
                self.cache_whole = whole;
                self.cache_dropped.fill(false);
                self.cache_left = self.cache_dropped.len();
                self.gen.mark_restarted(&mut []);
            } else {
                // Files a non-uniform file choice started over: those alone, as fio
                // reopens them.
                self.cache_left += self.gen.mark_restarted(&mut self.cache_dropped);
            }
        }
        if self.cache_dropped.get(file).is_none_or(|&d| d) {
            return;
        }
        self.cache_dropped[file] = true;
        self.cache_left -= 1;
        self.drop_file_cache(file);
    }

    /// File `i`'s region dropped from the page cache (through the job's descriptor where
    /// the engine has one).
    fn drop_file_cache(&self, i: usize) {
        let f = &self.clone.files[i];
        let (at, len) = (f.region.start, f.region.len);
        match self.p.engine.raw_fd(i) {
            Some(fd) if fd >= 0 => fathom_engine::layout::invalidate_fd(fd, at, len),
            _ => {
                let _ = fathom_engine::layout::invalidate(&f.path, at, len);
            }
        }
    }

    /// invalidate=1 before a verify phase: every file's region dropped from the page
    /// cache, as fio drops it when it opens the files again to read them back (what a
    /// sync has made clean is then read from the device, not the cache).
    #[cold]
    pub(crate) fn drop_all_cache(&mut self) {
        if !self.drop_cache_each_pass {
            return;
        }
        for i in 0..self.clone.files.len() {
            self.drop_file_cache(i);
        }
    }

    /// thinktime: the queue drains first (fio quiesces), then the stall.
    #[cold]
    fn think(&mut self) {
        if self.inflight > 0 {
            self.quiesce = true;
            return;
        }
        let stalled = crate::clock::now();
        if !self.thinker.stall(self.cancel, self.deadline) {
            self.stopping = true;
            return;
        }
        self.now = crate::clock::now();
        if let Some(s) = self
            .schedule
            .as_mut()
            .filter(|_| self.spec.control.rate_ignore_thinktime)
        {
            // The rate goes on from here: the stall's I/Os are not caught up.
            s.skip(self.now.saturating_duration_since(stalled));
        }
    }

    /// The sync fio puts before the next I/O (to `file`), if one is due: fsync and
    /// fdatasync are queued in `due`, a sync_file_range is made here.
    #[cold]
    #[inline(never)]
    fn sync_before(&mut self, file: usize) -> Option<(i32, String)> {
        // fio's unit here is a pass over the files (a loop, or with io_size past the
        // size each pass of one): a new one starts with no sync behind it. Before it, a
        // synchronous engine's fio asks once more at the old pass's end (its byte count
        // spans the passes, so it is not done yet; the next offset is what fails).
        if let Some(err) = self.sync_pass_turn() {
            return Some(err);
        }
        self.syncs.last_file = file;
        self.sync_decision(file)
    }

    /// The engine completes each I/O as it is queued (the synchronous ones; null at
    /// depth 1, which fio runs as a synchronous engine): fio's sync cadence then asks once
    /// more at a pass's end and at the job's.
    pub(super) fn completes_inline(&self) -> bool {
        crate::plan::completes_inline(self.spec, self.job.caps)
    }

    /// The sync cadence's turn to a new pass, once: a synchronous engine's sync due at
    /// the old pass's end is made first; then the new pass starts with no sync behind it.
    fn sync_pass_turn(&mut self) -> Option<(i32, String)> {
        let l = self.gen.pass_no();
        if l == self.syncs.pass_no {
            return None;
        }
        let mut failed = None;
        if self.completes_inline() {
            failed = match self.sync_decision(self.syncs.last_file) {
                Some(err) => Some(err),
                None => self.issue_due(),
            };
        }
        self.syncs.pass_no = l;
        self.syncs.new_pass();
        failed
    }

    /// Over several files, a sync due now (fsync=N, fdatasync=N) takes the file
    /// service's turn, as fio's I/O unit picks its file before it finds the sync due: the
    /// sync goes to that file and the next I/O to the one after (fathom synced the next
    /// I/O's file and kept the turn for the I/O: `randwrite fdatasync=4 nrfiles=2` then
    /// wrote other files, at other offsets, than fio). Decided here, before the I/O is
    /// drawn; within a pass only (a pass's start is `sync_before`'s).
    #[cold]
    #[inline(never)]
    fn sync_on_its_turn(&mut self) {
        if self.syncs.last_was_sync
            || self.gen.pass_no() != self.syncs.pass_no
            || self.spec.control.sync_per_nth_write
        {
            return;
        }
        let writes = self.out.stats.issued[Ddir::Write.index()];
        if !matches!(
            due_after(self.spec, writes),
            Some(Due::Fsync | Due::Fdatasync)
        ) {
            return;
        }
        let Some(file) = self.gen.sync_turn() else {
            return;
        };
        self.syncs.decided = true;
        self.syncs.last_file = file;
        let _ = self.sync_decision(file);
    }

    /// The syncs queued in `due`, issued now (logged first). None: done.
    fn issue_due(&mut self) -> Option<(i32, String)> {
        if self.syncs.due.is_empty() {
            return None;
        }
        self.log_syncs();
        due_syncs(&mut *self.p.engine, &mut self.syncs, &mut self.out.stats)
    }

    /// At the job's end (the generator ran out): a synchronous engine's fio asks once
    /// more for an I/O when its byte and I/O counts over all loops are short of their
    /// limits (holes, sizes not a multiple of the block), and a sync due then is made.
    #[cold]
    #[inline(never)]
    fn sync_at_end(&mut self) -> Option<(i32, String)> {
        if !self.sync_cadence || !self.completes_inline() || self.gen.is_replay() {
            return None;
        }
        if !self.short_of_budget() {
            return None;
        }
        if let Some(err) = self.sync_decision(self.syncs.last_file) {
            return Some(err);
        }
        self.issue_due()
    }

    /// The job ran out with its byte and I/O counts over all loops short of fio's limits
    /// (holes, sizes not a multiple of the block): fio asks once more for an I/O and finds
    /// the files done.
    pub(super) fn short_of_budget(&self) -> bool {
        let p = &self.clone.params;
        let loops = u64::from(p.loops.max(1));
        let d = &self.out.stats.dirs;
        let rw = self.spec.rw.kind;
        let bytes = match (rw.reads(), rw.writes()) {
            (true, true) => d[0].bytes + d[1].bytes,
            (_, true) => d[1].bytes,
            (true, _) => d[0].bytes,
            _ => d[2].bytes,
        };
        let ios: u64 = d.iter().map(|d| d.ios).sum();
        // fio's limit: io_size (else size, else what the files give) times the loops.
        // (fio's size is at most what the files hold: `size=200k nrfiles=2
        // filesize=48k` is 96k, so a job that wrote them whole asks for nothing more.)
        let regions: u64 = p.files.iter().map(|f| f.len).sum();
        let size = match self.spec.size {
            Some(fathom_job::SizeSpec::Bytes(b)) if b > 0 => b.min(regions),
            _ => regions,
        };
        let io_size = match (self.spec.io_size, self.spec.io_size_percent) {
            (Some(b), _) if b > 0 => b,
            (_, Some(pct)) => size * pct / 100,
            _ => size,
        };
        // (number_ios is the whole job's when it spans the loops, else a loop's.)
        let ios_limit = match p.ios_span_loops {
            true => p.number_ios,
            false => p.number_ios.saturating_mul(loops),
        };
        bytes < io_size.saturating_mul(loops) && (p.number_ios == 0 || ios < ios_limit)
    }

    /// fio's choice of a sync before an I/O to `file`.
    fn sync_decision(&mut self, file: usize) -> Option<(i32, String)> {
        if self.syncs.last_was_sync {
            return None;
        }
        let due = due_after(self.spec, self.out.stats.issued[Ddir::Write.index()])?;
        match due {
            // (Made after the Nth write instead.)
            Due::Fsync | Due::Fdatasync if self.spec.control.sync_per_nth_write => {}
            Due::Fsync => self.syncs.due.push((file, false)),
            Due::Fdatasync => self.syncs.due.push((file, true)),
            Due::Range => {
                if let Some(w) = &mut self.wlog {
                    let from = self
                        .syncs
                        .ranges
                        .get(file)
                        .and_then(|r| *r)
                        .map_or(0, |r| r.0);
                    w.range_sync(file, from);
                }
                let flags = self.spec.sync_file_range.map_or(0, |(f, _)| f);
                let r = range_sync(
                    &mut *self.p.engine,
                    flags,
                    file,
                    &mut self.syncs,
                    &mut self.out.stats,
                );
                self.now = crate::clock::now();
                return r;
            }
        }
        None
    }

    /// write_iolog: the syncs about to be issued.
    fn log_syncs(&mut self) {
        if let Some(w) = &mut self.wlog {
            // A sync decided in a new pass comes after the files' close and open, as
            // fio's at a loop's start (one made at the old pass's end comes before).
            let pass = self.gen.pass_no();
            if self.syncs.pass_no == pass {
                w.pass(pass);
            }
            for &(f, data_only) in &self.syncs.due {
                w.sync(f, data_only);
            }
        }
    }

    /// Wait for `req`'s intended issue time (rate limit, timed replay): with I/Os in
    /// flight the loop reaps until then instead (sleeping would stamp their completions
    /// late). Also a metadata engine's file operation at the start of each pass. None
    /// when the loop is to be left.
    #[inline(always)]
    fn pace(&mut self, req: IoReq) -> Option<Option<Instant>> {
        let spec = self.spec;
        let intended = match (self.held_at.take(), &mut self.schedule) {
            (Some(at), _) => Some(at),
            (None, Some(s)) => {
                let at = s
                    .intended(
                        if spec.control.rate_combined {
                            0
                        } else {
                            req.ddir.index()
                        },
                        req.len,
                    )
                    .map(|t| self.sched_origin + t);
                self.gen.rate_next(s, self.sched_origin);
                at
            }
            (None, None) => None,
        };
        // A timed replay: the log's time for this I/O (the later, with a rate limit).
        let intended = match self.gen.due(self.io_start) {
            Some(due) => intended.max(Some(due)),
            None => intended,
        };
        if let Some(at) = intended {
            if at > self.now && self.inflight > 0 {
                self.held = Some(req);
                self.held_at = Some(at);
                self.wake = Some(at);
                return None;
            }
            if at > self.now {
                if !wait_until(at, self.cancel, self.deadline) {
                    self.stopping = true;
                    return None;
                }
                self.now = crate::clock::now();
            }
        }
        if let Some(op) = self.meta_op {
            // A metadata engine: opening the file is the operation (at its first I/O
            // and again after each full pass over it); its I/Os are fake.
            let left = &mut self.meta_left[req.file];
            if *left == 0 {
                match self.p.engine.file_op(req.file) {
                    Ok(ns) => self
                        .out
                        .stats
                        .record_op(op, Some(self.stat_dir), ns, 0, true),
                    Err(e) => {
                        let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                        fail(&mut self.out, errno, e.to_string());
                        self.stopping = true;
                        return None;
                    }
                }
                *left = self.clone.files[req.file].region.len.max(1);
            }
            *left = left.saturating_sub(req.len);
        }
        Some(intended)
    }

    /// A write's data: fresh contents (refill, dedupe, scramble) and the verify header,
    /// noted in the journal first. None when the journal cannot be written; else the
    /// moment the verify data began to be made (the I/O's start, as fio's: its total
    /// latency counts the making, its completion latency does not), if any.
    #[inline(always)]
    fn fill_write(&mut self, si: usize, req: IoReq) -> Option<Option<Instant>> {
        let slot = &mut self.p.slots[si];
        let content = &self.job.buffers;
        let data = &mut slot.buf.as_mut_slice()[..req.len as usize];
        if self.refill {
            let marks = (&mut self.draw, &mut self.uniques, &mut self.writes);
            super::refill::refill_write(
                content,
                self.dedupe_set.as_ref(),
                data,
                req.offset,
                self.clone.params.seed,
                marks,
            );
        } else if content.scramble {
            self.writes += 1;
            content.scramble(data, self.clone.params.seed ^ self.writes);
        }
        if let Some(f) = &self.spec.io_data {
            f.fill(data, req.offset);
        }
        let mut start = None;
        if let Some(v) = &mut self.p.verifier {
            start = Some(crate::clock::now());
            v.fill_noting(req.file, req.offset, data, &mut slot.gens);
            if let Some(j) = &mut self.p.journal {
                if let Err(e) = j.intent(req.file, &slot.gens, v.interval) {
                    fail(&mut self.out, libc::EIO, format!("verify_journal: {e}"));
                    return None;
                }
            }
        }
        Some(start)
    }

    /// Put `req` in a free slot and queue it to the engine; an I/O the engine completed
    /// at once is accounted now. False when the loop is to be left.
    #[inline(always)]
    fn queue_one(&mut self, req: IoReq, intended: Option<Instant>) -> bool {
        let spec = self.spec;
        let si = self.free.pop().expect("a free slot");
        let slot = &mut self.p.slots[si];
        slot.req = req;
        slot.done = 0;
        slot.short = 0;
        slot.intended = intended;
        if let Some(p) = &mut self.prio {
            (slot.ioprio, slot.stat_prio) = p.pick(req.ddir, req.len);
        }
        let mut start = None;
        if req.ddir == Ddir::Write {
            match self.fill_write(si, req) {
                Some(s) => start = s,
                None => {
                    self.free.push(si);
                    self.give_place();
                    self.stopping = true;
                    return false;
                }
            }
            // verify_backlog: fio logs a write for its check as it issues it.
            self.backlog.issued(req.file, req.offset, req.len);
        }
        let io = self.p.slots[si].unit(si, &self.clone.files);
        if let Some(w) = &mut self.wlog {
            w.pass(self.gen.pass_no());
            let gen = &self.gen;
            w.retired(gen.retired(), |fi| gen.is_done(fi));
            w.io(req.file, req.ddir, req.offset, req.len);
        }
        self.out.stats.issued[req.ddir.index()] += 1;
        self.syncs.decided = false;
        // SAFETY (both calls): the slot's buffer holds max_bs ≥ io.len bytes, is
        // 4096-aligned, and is neither touched nor freed until the I/O completes (the
        // slot is off the free list until then, and the loop drains every in-flight I/O
        // before exit).
        let (t0, queued) = if self.clone.locks.is_empty() && !spec.control.range_locks {
            let t0 = crate::clock::now();
            (t0, unsafe { self.p.engine.queue(&io) })
        } else {
            // lockfile: the file's lock, held while the I/O is submitted (not timed);
            // IOR's range locks: the transfer's range, held while it is done (timed, as
            // IOR's transfer time holds them).
            let (t0, queued, lock_err) = unsafe {
                queue_locked(
                    &mut *self.p.engine,
                    &io,
                    &self.clone.locks,
                    (spec.control.lockfile, spec.control.range_locks),
                )
            };
            if let Some(e) = lock_err {
                // As IOR: a warning, and the transfer goes on.
                let note = format!("posix.rangelocks: fcntl: {e}");
                if !self.out.notes.contains(&note) {
                    self.out.notes.push(note);
                }
            }
            (t0, queued)
        };
        self.p.slots[si].t_start = start.unwrap_or(t0);
        match queued {
            Ok(Queued::Done(c)) => {
                self.free.push(si);
                self.give_place();
                if !self.completed_at_once(si, &c, t0) {
                    self.stopping = true;
                    return false;
                }
            }
            Ok(Queued::Queued) => {
                if self.sync_cadence {
                    self.syncs.io_queued();
                }
                if self.thinker.t.on_issue {
                    self.thinker.count();
                }
                if let Some(os) = &mut self.p.openset {
                    os.inflight[req.file] += 1;
                }
                self.inflight += 1;
                self.out.stats.depth_levels[depth_level_index(self.inflight as u32)] += 1;
                self.pending.push(si);
                if self.inflight >= self.p.depth && self.p.low < self.p.depth {
                    self.draining = true;
                }
                if self.pending.len() >= self.p.batch && !self.submit_pending() {
                    return false;
                }
                return true;
            }
            Err(e) => {
                self.free.push(si);
                self.give_place();
                fail(
                    &mut self.out,
                    e.raw_os_error().unwrap_or(libc::EIO),
                    e.to_string(),
                );
                self.stopping = true;
                return false;
            }
        }
        if !self.after_io(si, req) {
            self.stopping = true;
            return false;
        }
        true
    }

    /// vdbench's fileio=(sequential,delete): before the write that starts a file, remove
    /// the file and make it anew, empty (timed, as a delete and a create). Waits for this
    /// job's I/Os in flight first (the I/O is held). False when the loop is to be left.
    #[cold]
    #[inline(never)]
    fn renew_file(&mut self, req: IoReq, intended: Option<Instant>) -> bool {
        if self.inflight > 0 {
            self.give_place();
            self.held = Some(req);
            self.held_at = intended;
            self.held_steered = true;
            return false;
        }
        let path = &self.clone.files[req.file].path;
        let t0 = crate::clock::now();
        let removed = self
            .p
            .engine
            .close_file(req.file)
            .and_then(|()| crate::io::state::remove_if_there(path));
        let t1 = crate::clock::now();
        let opts = fathom_engine::OpenOptions {
            create: true,
            ..self.p.opts
        };
        let made = removed.and_then(|()| self.p.engine.reopen_file(req.file, path, &opts));
        let t2 = crate::clock::now();
        if let Err(e) = made {
            self.give_place();
            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            fail(
                &mut self.out,
                errno,
                format!("fileio=(sequential,delete): {}: {e}", path.display()),
            );
            self.stopping = true;
            return false;
        }
        for (op, ns) in [
            ("delete", t1.duration_since(t0).as_nanos() as u64),
            ("create", t2.duration_since(t1).as_nanos() as u64),
        ] {
            self.out.stats.record_op(op, None, ns, 0, true);
            // (The interval's longest, for the operations' samples.)
            let k = self.out.stats.ops.iter().position(|o| o.name == op);
            if let (Some(s), Some(k)) = (&mut self.sampler.ops, k) {
                s.saw(k, ns);
            }
        }
        self.now = t2;
        true
    }

    /// `Control::count_opens`: the closes and opens the open set just did, recorded as
    /// operations with their times.
    #[cold]
    #[inline(never)]
    pub(crate) fn record_opens(&mut self) {
        let Some(done) = self.p.openset.as_mut().and_then(|os| os.timed.as_mut()) else {
            return;
        };
        for (op, ns) in std::mem::take(done) {
            self.out.stats.record_op(op, None, ns, 0, true);
            let k = self.out.stats.ops.iter().position(|o| o.name == op);
            if let (Some(s), Some(k)) = (&mut self.sampler.ops, k) {
                s.saw(k, ns);
            }
        }
        self.now = crate::clock::now();
    }

    /// A depth group's place back (an I/O ended or was never started).
    #[inline(always)]
    pub(crate) fn give_place(&mut self) {
        if self.before_queue {
            if let Some(d) = &mut self.depth {
                d.give();
            }
        }
    }

    /// Account an I/O the engine completed inside its queue call (synchronous engines):
    /// its latency, latency_target, samples, min rate and think time. False when the job
    /// must stop.
    #[inline(always)]
    fn completed_at_once(&mut self, si: usize, c: &fathom_engine::Completion, t0: Instant) -> bool {
        let spec = self.spec;
        self.now = crate::clock::now();
        let now = self.now;
        let st = &mut self.out.stats;
        st.depth_levels[depth_level_index(self.inflight as u32 + 1)] += 1;
        st.depth_submit[batch_index(1)] += 1;
        st.depth_complete[batch_index(1)] += 1;
        let clat = now.duration_since(t0).as_nanos() as u64;
        let mut rec = Recorder::new(
            &mut self.out,
            spec,
            self.iolog.as_mut().map(|l| (l, self.measure_start)),
        );
        rec.fake = self.meta_op.is_some();
        rec.no_data = self.job.caps.no_data;
        rec.sync_engine = !self.job.caps.is_async;
        // A verified write's data was made after it started (fio's total latency).
        let pre = t0
            .saturating_duration_since(self.p.slots[si].t_start)
            .as_nanos() as u64;
        rec.pre = pre;
        if let Some((errno, text)) = complete(
            &mut rec,
            &self.p.slots[si],
            c,
            None,
            clat,
            &self.clone.files,
        ) {
            if !fills_device(spec, errno) {
                fail(&mut self.out, errno, text);
            }
            return false;
        }
        if let Some(l) = &mut self.lt {
            if l.on_complete(pre + clat, now, &self.out.stats) {
                let text = l.fatal_text(pre + clat);
                fail(&mut self.out, libc::ETIMEDOUT, text);
                return false;
            }
            match l.check(now, &self.out.stats) {
                LtEvent::Reset => self.restart_window(now),
                LtEvent::Done => return false,
                LtEvent::None => {}
            }
        }
        self.sampler.tick(now, &mut self.out.stats);
        if let Some(text) = self.min_rate.check(now, &self.out.stats) {
            fail(&mut self.out, libc::EIO, text);
            return false;
        }
        // A synchronous I/O is issued and completed at once.
        self.thinker.count();
        true
    }

    /// After a completion: a write may call for a sync, and verify checks or notes the
    /// data. False when the job must stop (the first error is kept).
    #[inline(always)]
    pub(crate) fn after_io(&mut self, si: usize, req: IoReq) -> bool {
        let spec = self.spec;
        let mut ok = true;
        if self.zbd.is_some() {
            self.zbd_done(&req);
        }
        self.syncs.io_completed();
        if req.ddir == Ddir::Write {
            self.wrote = true;
            if self.sync_cadence {
                self.syncs.wrote(spec, req.file, req.offset, req.len);
            }
        }
        if let Some(v) = &mut self.p.verifier {
            let failed =
                |st: &fathom_stats::ThreadStats| st.verify.as_ref().map(|v| v.failed_reads);
            let before = self.chain.as_ref().map(|_| failed(&self.out.stats));
            let checked = after_io(
                v,
                self.p.journal.as_mut(),
                (req.ddir, req.file, req.offset, req.len),
                (
                    &self.p.slots[si].gens,
                    self.p.slots[si].buf.as_slice(),
                    &self.clone.files[req.file].path,
                ),
                spec,
                &mut self.backlog,
                &mut self.out.stats,
            );
            if let Some(c) = self.chain.as_deref_mut() {
                // A block found in error is not written over (vdbench's rule).
                let clean = before == Some(failed(&self.out.stats));
                c.done(req, checked.is_ok() && clean);
                self.chain_ready = !c.ready.is_empty();
            }
            if let Err((errno, text)) = checked {
                if errno != STOP_TOLERATED {
                    self.fail_first(errno, text);
                }
                ok = false;
            }
        }
        ok
    }

    /// Record a failure unless an earlier one is already recorded.
    #[cold]
    pub(crate) fn fail_first(&mut self, errno: i32, text: String) {
        if self.out.error_text.is_none() {
            fail(&mut self.out, errno, text);
        }
    }

    /// Submit the I/Os queued so far; on failure the engine is broken and the job stops.
    #[inline(always)]
    pub(crate) fn submit_pending(&mut self) -> bool {
        if submit(
            &mut *self.p.engine,
            &mut self.pending,
            &mut self.p.slots,
            &mut self.out,
        ) {
            return true;
        }
        self.stopping = true;
        self.engine_broken = true;
        false
    }
}
