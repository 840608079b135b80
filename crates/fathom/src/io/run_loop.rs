//! A clone's timing loop: its start ([`Loop::new`]), the loop itself ([`Loop::run`]: issue
//! while there are free slots, submit, reap), the verify backlog check, the measured
//! window's restart, and the end of the run ([`Loop::finish`]: drain, read back, fsync,
//! close, logs). The loop's state is in [`super::state`], issuing one I/O in
//! [`super::issue`], reaping in [`super::reap`].

use crate::io::cmdprio::PrioPick;
use crate::io::openset::end_fsync;
use crate::io::prepare::Prepared;
use crate::io::sampler::{sample_interval, Sampler};
use crate::io::source::Source;
use crate::io::state::{fail, Loop};
use crate::io::sync::SyncState;
use crate::io::thread::exec_hook;
use crate::pace::flow::FlowMember;
use crate::pace::latency_target::{LatTarget, LtEvent};
use crate::pace::{MinRate, Thinker};
use crate::plan::{PlannedClone, PlannedJob};
use crate::record::outcome::CloneOutcome;
use crate::verify::readback::{verify_chunks, Backlog, ReadBack, VerifyLog, STOP_TOLERATED};
use fathom_engine::OpenOptions;
use fathom_stats::CpuUsage;
use fathom_workload::replay::ReplayCursor;
use fathom_workload::Generator;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The clone's offsets: its replayed log, or the generator (None, with the error in
/// `out`, when the generator cannot be made).
fn source(
    spec: &fathom_job::JobSpec,
    clone: &PlannedClone,
    out: &mut CloneOutcome,
) -> Option<Source> {
    if let (Some(order), None) = (&spec.io_order, &clone.replay) {
        // The job's own order: one direction, the job's block size.
        let k = spec.rw.kind;
        let ddir = if k.writes() {
            fathom_job::Ddir::Write
        } else if k.reads() {
            fathom_job::Ddir::Read
        } else {
            fathom_job::Ddir::Trim
        };
        if (k.reads() && k.writes()) || spec.time_based {
            fail(
                out,
                libc::EINVAL,
                "an I/O order (JobSpec::io_order) takes one direction and no time_based".into(),
            );
            return None;
        }
        return Some(Source::Ordered {
            order: order.clone(),
            k: 0,
            limit: spec.number_ios,
            ddir,
            len: spec.bs.0[ddir.index()],
        });
    }
    Some(match &clone.replay {
        Some(log) => Source::Replay {
            timed: !spec.replay.no_stall && log.timed(),
            cursor: ReplayCursor::new(log.clone()),
        },
        None => match Generator::new(clone.params.clone()) {
            Ok(mut g) => {
                // (A time-based job that verifies each pass keeps its passes: fio's
                // asynchronous verify phase comes every `size` bytes issued.)
                if spec.time_based && spec.verify.do_verify && spec.verify.kind.is_some() {
                    g.keep_passes_at_ends();
                }
                match clone.params.range_wrap {
                    Some(w) => Source::Wrapped(g, w),
                    None if clone.params.concat.is_some() => {
                        let ends = clone.params.concat.clone().unwrap_or_default();
                        Source::Concat(g, ends)
                    }
                    None if rate_steered(spec) => Source::RateSteered { g, next: [None; 2] },
                    None => Source::Gen(g),
                }
            }
            Err(e) => {
                fail(out, libc::EINVAL, e.to_string());
                return None;
            }
        },
    })
}

/// A read/write mix with a rate limit per direction (not vdbench's one schedule for both):
/// its directions are steered by which is due, as fio's.
fn rate_steered(spec: &fathom_job::JobSpec) -> bool {
    spec.rw.kind.reads()
        && spec.rw.kind.writes()
        && !spec.control.rate_combined
        && (spec.rate.0[..2].iter().any(|&r| r > 0) || spec.rate_iops.0[..2].iter().any(|&r| r > 0))
}

/// The job's priority in every slot: reported under it, and put in each command by
/// io_uring (as fio).
fn job_prio(spec: &fathom_job::JobSpec, p: &mut Prepared) {
    for s in p.slots.iter_mut() {
        s.stat_prio = spec.logs.ioprio;
        s.ioprio = if spec.ioengine == "io_uring" {
            spec.logs.ioprio
        } else {
            0
        };
    }
}

impl<'a> Loop<'a> {
    /// The loop's state at the start of the clone's I/O; the outcome back when the
    /// generator cannot be made.
    pub(crate) fn new(
        job: &'a PlannedJob,
        clone: &'a PlannedClone,
        cancel: &'a AtomicBool,
        live: Option<&'a crate::record::live::LiveClone>,
        (mut out, t_start): (CloneOutcome, Instant),
        p: Prepared,
    ) -> Result<Loop<'a>, Box<CloneOutcome>> {
        let spec = &job.spec;
        let k = spec.rw.kind;
        let Some(gen) = source(spec, clone, &mut out) else {
            return Err(Box::new(out));
        };
        let dirs = match &clone.replay {
            Some(log) => log.ios().map(|n| n > 0),
            // A write job's chained reads (vdbench's pre-reads, reads after writes) are
            // reads of the job's: sampled too.
            None => [
                k.reads() || spec.control.verify_pre_read || spec.control.verify_read_after_write,
                k.writes(),
                k.trims(),
            ],
        };
        let ramp = spec.ramp_time;
        let io_start = crate::clock::now();
        let sampling = (dirs, sample_interval(spec), spec.control.live_samples);
        let meta_op = job.caps.metadata;
        let mut p = p;
        let depth = p.depth;
        // cmdprio: each I/O's own priority; every I/O reports under the job's otherwise.
        let prio = PrioPick::new(spec, clone.params.seed);
        let prio_values = prio.as_ref().map(|p| [p.values(0), p.values(1)]);
        job_prio(spec, &mut p);
        // As fio, a verifying job reads each loop's writes back before the next loop
        // (experimental_verify replays them all at the end; a time-based job has no loops).
        let p_verifies_each_loop = p.verifier.is_some()
            && crate::verify::readback::reads_back(spec)
            && !spec.verify.only
            && !spec.verify.experimental
            && !spec.time_based;
        let sync_each_pass = (spec.end_fsync || spec.fsync_on_close)
            && !spec.control.sync_at_end_only
            && k.writes()
            && job.caps.metadata.is_none()
            && clone.replay.is_none()
            && !(spec.time_based && (clone.files.len() == 1 || k.is_random()));
        let p_verifies_each_pass = p.verifier.is_some()
            && crate::verify::readback::reads_back(spec)
            && !spec.verify.only
            && !spec.verify.experimental
            && spec.time_based
            && job.caps.is_async;
        let mut lp = Loop {
            job,
            clone,
            spec,
            cancel,
            live,
            out,
            t_start,
            p,
            refill: job.buffers.refills(),
            draw: fathom_workload::Rng::new(clone.params.seed ^ 0xb0f),
            dedupe_set: crate::io::prepare::dedupe_set(job, clone),
            uniques: 0,
            writes: 0,
            backlog: Backlog::for_clone(spec, &clone.params),
            held: None,
            held_at: None,
            held_steered: false,
            zbd: crate::io::zbd::ZbdClone::new(job, clone),
            wake: None,
            gen,
            schedule: job
                .rate
                .is_limited()
                .then(|| fathom_workload::Schedule::new(job.rate, clone.params.seed)),
            sched_origin: io_start,
            thinker: Thinker::new(job.thinktime),
            flow: job.flow.as_deref().map(|f| FlowMember::join(f, spec.flow)),
            depth: job
                .depth_group
                .as_deref()
                .zip(spec.control.depth_share.as_ref())
                .map(|(g, d)| crate::pace::depth::DepthMember::join(g, d.priority)),
            before_queue: job.depth_group.is_some()
                || spec.control.delete_before_write
                || spec.control.verify_pre_read,
            chain: crate::io::chain::Chain::of(spec),
            chained: false,
            chain_ready: false,
            io_start,
            lt: LatTarget::new(spec, depth as u32, io_start),
            quiesce: false,
            draining: false,
            ramping: !ramp.is_zero(),
            ramp_end: io_start + ramp,
            measure_start: io_start,
            deadline: spec.runtime.map(|r| io_start + ramp + r),
            iolog: spec.logs.any().then(|| crate::record::logs::IoLog {
                events: Vec::new(),
                sync: !job.caps.is_async,
            }),
            wlog: spec
                .logs
                .iolog
                .as_deref()
                .map(|p| crate::record::iolog::IologWriter::new(p, &clone.files)),
            cpu_start: CpuUsage::current_thread(),
            sampling,
            sampler: Sampler::new(io_start, sampling, live),
            min_rate: MinRate::new(spec, io_start),
            syncs: SyncState {
                ranges: vec![None; clone.files.len()],
                fio_queue: (job.caps.is_async && spec.ioengine == "libaio")
                    .then(|| crate::io::sync::FioQueue::new(depth)),
                ..Default::default()
            },
            // (A replay makes the log's syncs only: fio's replay decides no cadence.)
            sync_cadence: (spec.fsync > 0 || spec.fdatasync > 0 || spec.sync_file_range.is_some())
                && clone.replay.is_none(),
            wrote: false,
            now: io_start,
            free: (0..depth).rev().collect(),
            pending: Vec::with_capacity(depth),
            inflight: 0,
            comps: Vec::with_capacity(depth),
            stopping: false,
            engine_broken: false,
            meta_op,
            stat_dir: if k.reads() || !k.writes() { 0 } else { 1 },
            meta_left: match meta_op {
                Some(_) => vec![0; clone.files.len()],
                None => Vec::new(),
            },
            prio,
            prio_values,
            cur_loop: 0,
            loop_turn: false,
            verify_each_loop: p_verifies_each_loop,
            verify_each_pass: p_verifies_each_pass,
            turns: spec.control.unlink_each_loop
                || p_verifies_each_loop
                || p_verifies_each_pass
                || sync_each_pass,
            sync_each_pass,
            cur_pass: 1,
            drop_cache_each_pass: spec.invalidate
                && !spec.control.pre_read
                && !spec.direct
                && !job.caps.diskless
                && job.caps.metadata.is_none()
                && clone.replay.is_none(),
            cache_pass: 1,
            cache_whole: 1,
            cache_dropped: vec![true; clone.files.len()],
            cache_left: 0,
            new_loop: false,
            verify_time: std::time::Duration::ZERO,
            work_done: false,
        };
        lp.seed_prios();
        // Control::file_gate: a clone waiting for a free file stops at the run's end.
        let until = lp.deadline;
        lp.gen.set_gate_until(until);
        lp.seed_ops();
        lp.sample_ops();
        Ok(lp)
    }

    /// The timing loop: issue while there are free slots (and, after the queue filled
    /// up, once it has drained to iodepth_low), submit, reap; until the work is done,
    /// the time is up, the job is stopped or an error ends it.
    pub(crate) fn run(&mut self) {
        loop {
            if self.spec.verify.only {
                // verify_only: nothing is written; the check at the end reads it all back.
                break;
            }
            if self.draining && self.inflight <= self.p.low {
                self.draining = false;
            }
            if self.quiesce && self.inflight == 0 {
                self.quiesce = false;
                if self.loop_turn {
                    self.turn_loop();
                }
            }
            if self.backlog.due && self.inflight == 0 {
                self.verify_backlog();
            }
            self.issue();
            if !self.pending.is_empty() && !self.engine_broken {
                self.submit_pending();
            }
            if self.inflight == 0 {
                if self.stopping {
                    break;
                }
                continue;
            }
            if self.engine_broken || !self.reap() {
                break;
            }
            if let Some(l) = self.lt.as_mut().filter(|_| !self.stopping) {
                let before = l.qd;
                match l.check(self.now, &self.out.stats) {
                    LtEvent::Reset => {
                        self.restart_window(self.now);
                        self.quiesce = true;
                    }
                    LtEvent::Done => self.stopping = true,
                    LtEvent::None => self.quiesce |= l.qd < before,
                }
            }
            self.sampler.tick(self.now, &mut self.out.stats);
            if let Some(text) = self.min_rate.check(self.now, &self.out.stats) {
                fail(&mut self.out, libc::EIO, text);
                self.stopping = true;
            }
        }
    }

    /// Between two loops (nothing in flight): a verifying job reads the last loop's
    /// writes back; unlink_each_loop closes each file, removes it and opens it anew,
    /// empty, at the same index.
    #[cold]
    fn turn_loop(&mut self) {
        self.loop_turn = false;
        // As fio: its loop's end syncs the files (end_fsync, fsync_on_close) before the
        // loop's verify phase.
        if self.sync_each_pass && self.wrote && self.out.error_text.is_none() {
            self.end_fsync_files(self.completes_inline());
            self.now = crate::clock::now();
            if self.out.error_text.is_some() {
                self.stopping = true;
                return;
            }
        }
        if self.verify_each_loop || self.verify_each_pass {
            // fio reopens the files for its verify phase: their cache is dropped.
            self.drop_all_cache();
            let v = self.p.verifier.as_mut().expect("verifying");
            let batch = v.unchecked_all();
            v.clear_order();
            // (fio closes the files before the verify phase; its reads open them again.)
            if let Some(w) = &mut self.wlog {
                w.close_all();
            }
            // Those waiting for a backlog check are among them.
            self.backlog.chunks.clear();
            let t = crate::clock::now();
            self.check_now(batch);
            self.verify_time += self.now.saturating_duration_since(t);
            if self.stopping {
                return;
            }
        }
        if !self.spec.control.unlink_each_loop || !self.new_loop {
            return;
        }
        let opts = OpenOptions {
            create: true,
            ..self.p.opts
        };
        // Close all, remove each path once, then reopen all (a path may stand for several
        // of the clone's files, as IOR's segments).
        let files = &self.clone.files;
        let closed = (0..files.len()).try_for_each(|i| self.p.engine.close_file(i));
        let removed = closed.and_then(|()| {
            files
                .iter()
                .try_for_each(|f| crate::io::state::remove_if_there(&f.path))
        });
        let made = removed.and_then(|()| {
            files
                .iter()
                .enumerate()
                .try_for_each(|(i, f)| self.p.engine.reopen_file(i, &f.path, &opts))
        });
        if let Err(e) = made {
            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            fail(&mut self.out, errno, format!("unlink_each_loop: {e}"));
            self.stopping = true;
            return;
        }
        self.now = crate::clock::now();
    }

    /// end_fsync / fsync_on_close at a loop's or the job's end. `found_done`: fio asked
    /// once more for an I/O, found the files done and closed them, so its sync opens
    /// each again and closes it (the write_iolog shows it).
    fn end_fsync_files(&mut self, found_done: bool) {
        if found_done {
            if let Some(w) = &mut self.wlog {
                w.close_all();
            }
        }
        end_fsync(
            &mut *self.p.engine,
            self.p.openset.as_ref(),
            self.clone,
            self.spec,
            &self.p.opts,
            (&mut self.out, self.wlog.as_mut()),
        );
    }

    /// verify_backlog: every write of the batch has completed; check them now.
    fn verify_backlog(&mut self) {
        let batch = self.backlog.take();
        self.check_now(batch);
    }

    /// Read back and check these completed writes (file, offset, length) now, in the
    /// middle of the run (nothing in flight); a failure stops the job.
    fn check_now(&mut self, batch: Vec<(usize, u64, u64)>) {
        let spec = self.spec;
        if let Some(os) = &mut self.p.openset {
            if let Err(e) = os.open_all(&mut *self.p.engine, &self.clone.files, &self.p.opts) {
                fail(
                    &mut self.out,
                    libc::EIO,
                    format!("verify: reopening the files: {e}"),
                );
                self.stopping = true;
            }
        }
        let vf = self
            .p
            .verifier
            .as_mut()
            .expect("a backlog needs a verifier");
        let mut bufs: Vec<&mut fathom_engine::AlignedBuf> =
            self.p.slots.iter_mut().map(|s| &mut s.buf).collect();
        // (Checks during the ramp are not in the latency logs, as the ramp's I/O is not;
        // write_iolog has every I/O.)
        let log = if self.ramping {
            None
        } else {
            self.iolog.take().map(std::cell::RefCell::new)
        };
        if let Some(w) = &mut self.wlog {
            let gen = &self.gen;
            w.retired(gen.retired(), |fi| gen.is_done(fi));
        }
        let wlog = self.wlog.take().map(std::cell::RefCell::new);
        if let Err((errno, text)) = verify_chunks(
            &mut *self.p.engine,
            &mut bufs,
            &ReadBack {
                v: vf,
                files: &self.clone.files,
                known: true,
                spec,
                stop: self.cancel,
                log: VerifyLog {
                    lat: log.as_ref().map(|l| (l, self.measure_start)),
                    iolog: wlog.as_ref(),
                },
            },
            &batch,
            &mut self.out.stats,
        ) {
            if errno != STOP_TOLERATED {
                fail(&mut self.out, errno, text);
            }
            self.stopping = true;
        }
        if let Some(l) = log {
            self.iolog = Some(l.into_inner());
        }
        self.wlog = wlog.map(std::cell::RefCell::into_inner);
        for &(file, offset, _) in &batch {
            vf.checked(file, offset);
        }
        vf.prune_order();
        self.now = crate::clock::now();
    }

    /// The end of the run: the last sample, the read-back check, end_fsync, the totals,
    /// closing the files, the logs and exec_postrun.
    pub(crate) fn finish(mut self) -> CloneOutcome {
        let spec = self.spec;
        let cancel = self.cancel;
        if self.engine_broken && self.inflight > 0 {
            // The engine cannot tell us when the kernel is done with these buffers: keep
            // them allocated for the rest of the process rather than risk a use after free.
            std::mem::forget(std::mem::take(&mut self.p.slots));
        }
        // Control::count_opens: a clone whose work is done (a format's writes) closes its
        // last file, timed and counted with the others, in the last interval; one the
        // clock stopped closes it after its last interval, uncounted (as vdbench counts
        // them: a format's eight files, eight closes; a timed run's last files' closes
        // come after its last interval's statistics).
        if spec.control.count_opens && self.work_done && self.out.error_text.is_none() {
            if let Some(os) = self.p.openset.as_mut() {
                if let Err(e) = os.close_open_timed(&mut *self.p.engine, spec) {
                    self.out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
                    self.out.error_text = Some(format!("closing the last file: {e}"));
                }
                self.record_opens();
            }
        }
        if spec.control.final_sample && !self.ramping {
            self.sampler
                .finish(crate::clock::now(), &mut self.out.stats);
        }
        if let Some(z) = self.zbd.take() {
            self.out.stats.zone_resets = z.resets;
        }
        // Control::file_gate: the file held goes back for the clones still running.
        self.out.stats.file_busy = self.gen.file_busy_draws();
        self.gen.leave_gate();
        // A job that ended during its ramp_time keeps what it recorded, as fio reports it
        // (the ramp never ended, so nothing was set aside).
        // As fio: the last loop's end_fsync, then its verify phase.
        if self.wrote && (spec.end_fsync || spec.fsync_on_close) && self.out.error_text.is_none() {
            // (Short of its budget, fio asked once more and found the files done first,
            // as at a loop's end.)
            let found_done =
                self.completes_inline() && !self.gen.is_replay() && self.short_of_budget();
            self.end_fsync_files(found_done);
        }
        if self.p.verifier.is_some() && crate::verify::readback::reads_back(spec) {
            self.drop_all_cache();
        }
        let out = &mut self.out;
        if let Some(v) = &self.p.verifier {
            // A job stopped (a signal, exitall) does not read its writes back, as fio; nor
            // does one whose runtime ran out before its work was done (a time-based job
            // always): fio skips the verify phase of a job it ended (its backlog checks
            // are what a time-based job verifies).
            let ran_out =
                !self.work_done && self.deadline.is_some_and(|d| crate::clock::now() >= d);
            let can_read = !self.engine_broken
                && self.inflight == 0
                && !cancel.load(Ordering::Relaxed)
                && !ran_out;
            let t = crate::clock::now();
            let mut bufs: Vec<&mut fathom_engine::AlignedBuf> =
                self.p.slots.iter_mut().map(|s| &mut s.buf).collect();
            let log = self.iolog.take().map(std::cell::RefCell::new);
            // (fio closes the files before its verify phase; its reads open them again.)
            let wlog = self.wlog.take().map(|mut w| {
                w.close_all();
                std::cell::RefCell::new(w)
            });
            let logs = VerifyLog {
                lat: log.as_ref().map(|l| (l, self.measure_start)),
                iolog: wlog.as_ref(),
            };
            crate::verify::readback::after_run(
                v,
                (self.clone, spec),
                (&mut *self.p.engine, &mut bufs),
                (self.p.openset.as_mut(), &self.p.opts),
                (can_read, logs),
                cancel,
                out,
            );
            self.iolog = log.map(std::cell::RefCell::into_inner);
            self.wlog = wlog.map(std::cell::RefCell::into_inner);
            if can_read && crate::verify::readback::reads_back(spec) {
                self.verify_time += t.elapsed();
            }
        }
        let end = crate::clock::now();
        if let Some(l) = &self.lt {
            out.stats.latency_depth = l.qd;
        }
        out.stats.finish();
        out.stats.runtime = end.duration_since(self.measure_start);
        if !self.verify_time.is_zero() {
            // As fio: the verify phases count for the reads only; the writes (and trims)
            // ran in the rest, as did the job's own reads.
            let (all, checks) = (out.stats.runtime, self.verify_time.min(out.stats.runtime));
            let main = all - checks;
            let kind = spec.rw.kind;
            let of = |yes: bool| if yes { main } else { std::time::Duration::ZERO };
            out.stats.dir_runtime = Some([
                of(kind.reads()) + checks,
                of(kind.writes()),
                of(kind.trims()),
            ]);
        }
        out.stats.cpu = CpuUsage::current_thread().since(&self.cpu_start);
        if let Err(e) = self.p.engine.close_files() {
            if out.error_text.is_none() {
                out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
                out.error_text = Some(format!("close: {e}"));
            }
        }
        let Loop {
            clone,
            p,
            mut out,
            wlog,
            iolog,
            deadline,
            measure_start,
            t_start,
            ..
        } = self;
        // The engine goes before the buffers it may still point into.
        let Prepared { engine, slots, .. } = p;
        drop(engine);
        drop(slots);
        let deadline_ns =
            deadline.map(|d| d.saturating_duration_since(measure_start).as_nanos() as u64);
        crate::record::logs::finish(
            (wlog, iolog.as_ref()),
            spec,
            clone.index,
            (deadline_ns, measure_start),
            &mut out,
        );
        if let Some(cmd) = &spec.control.exec_postrun {
            // As fio, a failing postrun command is reported but does not fail the job.
            if let Err(text) = exec_hook(&spec.name, "postrun", cmd, cancel) {
                out.notes.push(text);
            }
        }
        out.elapsed = t_start.elapsed();
        out
    }
}
