//! The per-clone thread: open files, then the timing loop. Everything here is owned by
//! the thread: generator, engine, buffers and recorder; nothing is shared on the hot path
//! except the cancel flag (a relaxed atomic load per I/O).

use crate::io::cmdprio::PrioPick;
use crate::io::filelock::queue_locked;
use crate::io::prepare::{prepare, Prepared};
use crate::io::sampler::{epoch_ms, sample_interval, Sampler};
use crate::io::slot::{complete, overlaps_inflight, submit, Recorder};
use crate::io::source::Source;
use crate::io::sync::{due_syncs, end_fsync, sync_cadence, SyncState};
use crate::io::thread::{exec_hook, place_thread, LockedMem};
use crate::pace::flow::FlowMember;
use crate::pace::latency_target::{LatTarget, LtEvent};
use crate::pace::{sleep_cancellable, wait_until, MinRate, Thinker};
use crate::plan::{PlannedClone, PlannedJob};
use crate::record::outcome::{fills_device, CloneOutcome};
use crate::verify::readback::{after_io, verify_chunks, Backlog, ReadBack};
use fathom_engine::Queued;
use fathom_job::Ddir;
use fathom_stats::{batch_index, depth_level_index, CpuUsage, ThreadStats};
use fathom_workload::replay::ReplayCursor;
use fathom_workload::{Generator, IoReq};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Fresh data for one write (refill_buffers, compression, dedupe): a function of the seed
/// and the offset (with a dedupe working set: of how many unique writes came before, as
/// fio's; with vdbench's dedup: of the block's offset and the write), so the same job
/// writes the same bytes on every engine and at every depth. `marks` are the job's draw
/// generator, unique writes and writes so far.
#[inline(never)]
fn refill_write(
    content: &fathom_engine::BufferContent,
    set: Option<&fathom_engine::DedupeSet>,
    data: &mut [u8],
    offset: u64,
    seed: u64,
    (draw, uniques, writes): (&mut fathom_workload::Rng, &mut u64, &mut u64),
) {
    if content.units.is_some() {
        *writes += 1;
        return content.fill_units(data, offset, seed ^ *writes);
    }
    let d = draw.below(100);
    match set {
        Some(set) if d < content.dedupe_percentage as u64 => {
            // A duplicate: a buffer of the working set, picked at random.
            content.fill(data, set.pick(draw.below(1 << 62)), 100, None);
        }
        Some(_) => {
            let u = fathom_engine::DedupeSet::unique(seed, *uniques);
            *uniques += 1;
            content.fill(data, u, 100, None);
        }
        None => content.fill(
            data,
            seed ^ offset.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            d,
            None,
        ),
    }
}

/// Run one clone to completion.
pub fn run_clone(
    job: &PlannedJob,
    clone: &PlannedClone,
    cancel: &AtomicBool,
    live: Option<&crate::record::live::LiveClone>,
) -> CloneOutcome {
    let spec = &job.spec;
    let mut out = CloneOutcome {
        stats: ThreadStats {
            count_errors: spec.continue_on_error_set
                || spec.ignore_error.iter().any(|l| !l.is_empty()),
            ..ThreadStats::new()
        },
        start_ms: epoch_ms(),
        ..Default::default()
    };
    let t_start = crate::clock::now();
    // CPU affinity, nice value and I/O priority of this clone's thread.
    if let Err(text) = place_thread(spec, clone.jobnum) {
        out.stats.error = libc::EINVAL;
        out.error_text = Some(text);
        out.elapsed = t_start.elapsed();
        return out;
    }
    // Start delay (a random value in the range when one is given).
    let (lo, hi) = spec.startdelay;
    let delay = if hi > lo {
        let mut r = fathom_workload::Rng::new(clone.params.seed ^ 0xde1a);
        lo + Duration::from_nanos(r.below((hi - lo).as_nanos() as u64 + 1))
    } else {
        lo
    };
    if !delay.is_zero() && !sleep_cancellable(delay, cancel) {
        out.elapsed = t_start.elapsed();
        return out;
    }

    // lockmem: this clone pins that much memory while it runs.
    let _locked = match LockedMem::new(spec.control.lockmem) {
        Ok(l) => l,
        Err(text) => {
            out.stats.error = libc::ENOMEM;
            out.error_text = Some(text);
            out.elapsed = t_start.elapsed();
            return out;
        }
    };
    if spec.control.create_only {
        // The files were laid out before the clones started; no I/O.
        out.elapsed = t_start.elapsed();
        return out;
    }
    if let Some(cmd) = &spec.control.exec_prerun {
        if let Err(text) = exec_hook(&spec.name, "prerun", cmd, cancel) {
            if cancel.load(Ordering::Relaxed) {
                // Stopped while the command ran: an interrupted job, not a failed one.
                out.elapsed = t_start.elapsed();
                return out;
            }
            out.stats.error = libc::EINVAL;
            out.error_text = Some(text);
            out.elapsed = t_start.elapsed();
            return out;
        }
    }
    if let Some(t) = &clone.tree {
        return crate::meta::run(job, clone, t, cancel, live, out, t_start);
    }
    let fail = |out: &mut CloneOutcome, errno: i32, text: String| {
        out.stats.error = errno;
        out.error_text = Some(text);
    };

    let Prepared {
        mut engine,
        opts,
        depth,
        mut slots,
        batch,
        cmin,
        cmax,
        low,
        mut verifier,
        mut journal,
        mut openset,
    } = match prepare(job, clone, cancel, &mut out.stats) {
        Ok(p) => p,
        Err((errno, text)) => {
            fail(&mut out, errno, text);
            out.elapsed = t_start.elapsed();
            return out;
        }
    };
    let k = spec.rw.kind;
    let mut draining = false;
    let content = &job.buffers;
    let mut draw = fathom_workload::Rng::new(clone.params.seed ^ 0xb0f);
    let refill = content.refills();
    let dedupe_set = crate::io::prepare::dedupe_set(job, clone);
    let mut uniques = 0u64;
    let mut writes = 0u64;
    // verify: the completed writes waiting for a backlog check.
    let mut backlog = Backlog::default();
    let mut held: Option<IoReq> = None;
    // A held I/O's intended issue time (rate limits), taken from the schedule once.
    let mut held_at: Option<Instant> = None;
    // Reap until this time rather than sleep to it: the next I/O is due then.
    let mut wake: Option<Instant> = None;

    let mut gen = match &clone.replay {
        Some(log) => Source::Replay {
            timed: !spec.replay.no_stall && log.timed(),
            cursor: ReplayCursor::new(log.clone()),
        },
        None => match Generator::new(clone.params.clone()) {
            Ok(g) => Source::Gen(g),
            Err(e) => {
                fail(&mut out, libc::EINVAL, e.to_string());
                return out;
            }
        },
    };

    let mut schedule = job
        .rate
        .is_limited()
        .then(|| fathom_workload::Schedule::new(job.rate, clone.params.seed));
    let mut thinker = Thinker::new(job.thinktime);
    let dirs = match &clone.replay {
        Some(log) => log.ios().map(|n| n > 0),
        None => [k.reads(), k.writes(), k.trims()],
    };
    let ramp = spec.ramp_time;
    let runtime = spec.runtime;
    let mut flow = job.flow.as_deref().map(|f| FlowMember::join(f, spec.flow));
    let io_start = crate::clock::now();
    // latency_target: the queue-depth search (and, after a ramp down, a quiesce).
    let mut lt = LatTarget::new(spec, depth as u32, io_start);
    let mut quiesce = false;
    let mut ramping = !ramp.is_zero();
    let mut measure_start = io_start;
    // Per-I/O events, only when the job writes log files.
    let mut iolog = spec.logs.any().then(crate::record::logs::IoLog::default);
    // write_iolog: the issued I/Os in fio's replayable format.
    let mut wlog = spec
        .logs
        .iolog
        .as_deref()
        .map(|p| crate::record::iolog::IologWriter::new(p, &clone.files));
    let mut cpu_start = CpuUsage::current_thread();
    let sampling = (dirs, sample_interval(spec), spec.control.live_samples);
    let mut sampler = Sampler::new(io_start, sampling, live);
    let mut min_rate = MinRate::new(spec, io_start);
    let mut deadline = runtime.map(|r| io_start + ramp + r);
    let ramp_end = io_start + ramp;
    let mut syncs = SyncState {
        ranges: vec![None; clone.files.len()],
        ..Default::default()
    };
    let mut wrote = false;
    let mut now = io_start;

    let mut sched_origin = io_start;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut pending: Vec<usize> = Vec::with_capacity(depth);
    let mut inflight = 0usize;
    let mut stopping = false;
    let mut comps = Vec::with_capacity(depth);
    let mut engine_broken = false;
    // Metadata engines: the operation's name, the direction its time is reported in (as
    // fio: read if the job reads, else write), and what is left of each file's pass.
    let meta_op = job.caps.metadata;
    let stat_dir = if k.reads() || !k.writes() { 0 } else { 1 };
    let mut meta_left: Vec<u64> = match meta_op {
        Some(_) => vec![0; clone.files.len()],
        None => Vec::new(),
    };
    // cmdprio: each I/O's own priority; every I/O reports under the job's otherwise (and
    // io_uring puts the job's in each command, as fio).
    let mut prio = PrioPick::new(spec, clone.params.seed);
    let prio_values = prio.as_ref().map(|p| [p.values(0), p.values(1)]);
    for s in slots.iter_mut() {
        s.stat_prio = spec.logs.ioprio;
        s.ioprio = if spec.ioengine == "io_uring" {
            spec.logs.ioprio
        } else {
            0
        };
    }
    let seed_prios = |st: &mut ThreadStats| {
        for (d, v) in prio_values.iter().flatten().enumerate() {
            st.seed_prios(d, v);
        }
    };
    seed_prios(&mut out.stats);

    // Start the measured window afresh (after ramp_time, or for latency_target's final
    // window): forget what was recorded so far.
    macro_rules! restart_window {
        ($now:expr) => {{
            out.stats = ThreadStats::new();
            seed_prios(&mut out.stats);
            measure_start = $now;
            if let Some(l) = &mut iolog {
                l.events.clear();
            }
            cpu_start = CpuUsage::current_thread();
            sampler = Sampler::new($now, sampling, live);
            min_rate = MinRate::new(spec, $now);
        }};
    }

    'run: loop {
        if spec.verify.only {
            // verify_only: nothing is written; the check below reads everything back.
            break;
        }
        // Issue while there are free slots (and, after the queue filled up, once it has
        // drained to iodepth_low).
        if draining && inflight <= low {
            draining = false;
        }
        if quiesce && inflight == 0 {
            quiesce = false;
        }
        if backlog.due && inflight == 0 {
            // verify_backlog: every write of the batch has completed; check them now.
            backlog.due = false;
            let mut batch = std::mem::take(&mut backlog.chunks);
            if let Some(os) = &mut openset {
                if let Err(e) = os.open_all(&mut *engine, &clone.files, &opts) {
                    fail(
                        &mut out,
                        libc::EIO,
                        format!("verify: reopening the files: {e}"),
                    );
                    stopping = true;
                }
            }
            if spec.verify.backlog_batch > 0 && (spec.verify.backlog_batch as usize) < batch.len() {
                batch.drain(..batch.len() - spec.verify.backlog_batch as usize);
            }
            let vf = verifier.as_mut().expect("a backlog needs a verifier");
            if let Err((errno, text)) = verify_chunks(
                &mut *engine,
                &mut slots[0].buf,
                &ReadBack {
                    v: vf,
                    files: &clone.files,
                    known: true,
                    spec,
                    stop: cancel,
                },
                &batch,
                &mut out.stats,
            ) {
                fail(&mut out, errno, text);
                stopping = true;
            }
            for &(file, offset, _) in &batch {
                vf.checked(file, offset);
            }
            now = crate::clock::now();
        }
        while !stopping
            && !free.is_empty()
            && !draining
            && !quiesce
            && !backlog.due
            && lt.as_ref().is_none_or(|l| inflight < l.qd as usize)
        {
            if cancel.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
                stopping = true;
                break;
            }
            if thinker.due {
                // thinktime: the queue drains first (fio quiesces), then the stall.
                if inflight > 0 {
                    quiesce = true;
                    break;
                }
                let stalled = crate::clock::now();
                if !thinker.stall(cancel, deadline) {
                    stopping = true;
                    break;
                }
                now = crate::clock::now();
                if let Some(s) = schedule
                    .as_mut()
                    .filter(|_| spec.control.rate_ignore_thinktime)
                {
                    // The rate goes on from here: the stall's I/Os are not caught up.
                    s.skip(now.saturating_duration_since(stalled));
                }
                continue;
            }
            if ramping && now >= ramp_end {
                // Ramp over: forget what was recorded and start the measured window.
                ramping = false;
                restart_window!(now);
                deadline = runtime.map(|r| now + r);
                if let Some(s) = &mut schedule {
                    s.reset();
                    sched_origin = now;
                }
            }
            // (An I/O held for its issue time was counted by its flow group already.)
            if let Some(f) = flow.as_mut().filter(|_| held_at.is_none()) {
                if f.ahead() {
                    // Ahead of this job's share of its flow group: wait, or go reap.
                    if !spec.flow_sleep.is_zero() {
                        sleep_cancellable(spec.flow_sleep, cancel);
                    } else {
                        std::thread::yield_now();
                    }
                    now = crate::clock::now();
                    if inflight > 0 {
                        break;
                    }
                    continue;
                }
                f.issued();
            }
            let next = match held.take() {
                Some(r) => Some(r),
                None => gen.next_io(&mut syncs.due),
            };
            let Some(req) = next else {
                // A replayed log's last syncs come after its last I/O.
                if gen.is_replay() && !syncs.due.is_empty() {
                    if let Some(w) = &mut wlog {
                        for &(f, data_only) in &syncs.due {
                            w.sync(f, data_only);
                        }
                    }
                    if let Some(err) = due_syncs(&mut *engine, &mut syncs, &mut out.stats) {
                        fail(&mut out, err.0, err.1);
                    }
                }
                stopping = true;
                break;
            };
            if !syncs.due.is_empty() {
                if let Some(w) = &mut wlog {
                    for &(f, data_only) in &syncs.due {
                        w.sync(f, data_only);
                    }
                }
                if let Some(err) = due_syncs(&mut *engine, &mut syncs, &mut out.stats) {
                    fail(&mut out, err.0, err.1);
                    stopping = true;
                    break;
                }
                now = crate::clock::now();
            }
            // serialize_overlap: an I/O overlapping one in flight waits for it.
            if spec.control.serialize_overlap
                && inflight > 0
                && overlaps_inflight(&slots, &free, &req)
            {
                held = Some(req);
                break;
            }
            if let Some(os) = &mut openset {
                match os.ensure(
                    req.file,
                    &mut *engine,
                    &clone.files,
                    &opts,
                    spec,
                    &mut out.stats,
                ) {
                    Ok(true) => os.written[req.file] |= req.ddir == Ddir::Write,
                    // Every open file has I/O in flight: reap, then try again.
                    Ok(false) => {
                        held = Some(req);
                        break;
                    }
                    Err(e) => {
                        let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                        fail(&mut out, errno, format!("openfiles: {e}"));
                        stopping = true;
                        break;
                    }
                }
            }
            // Rate limit: wait for this I/O's intended issue time.
            let intended = match (held_at.take(), &mut schedule) {
                (Some(at), _) => Some(at),
                (None, Some(s)) => s
                    .intended(
                        if spec.control.rate_combined {
                            0
                        } else {
                            req.ddir.index()
                        },
                        req.len,
                    )
                    .map(|t| sched_origin + t),
                (None, None) => None,
            };
            // A timed replay: the log's time for this I/O (the later, with a rate limit).
            let intended = match gen.due(io_start) {
                Some(due) => intended.max(Some(due)),
                None => intended,
            };
            if let Some(at) = intended {
                if at > now && inflight > 0 {
                    // I/Os are in flight: reap them as they complete until this one is
                    // due (sleeping instead would stamp their completions late).
                    held = Some(req);
                    held_at = Some(at);
                    wake = Some(at);
                    break;
                }
                if at > now {
                    if !wait_until(at, cancel, deadline) {
                        stopping = true;
                        break;
                    }
                    now = crate::clock::now();
                }
            }
            if let Some(op) = meta_op {
                // A metadata engine: opening the file is the operation (at its first I/O
                // and again after each full pass over it); its I/Os are fake.
                let left = &mut meta_left[req.file];
                if *left == 0 {
                    match engine.file_op(req.file) {
                        Ok(ns) => out.stats.record_op(op, Some(stat_dir), ns, 0, true),
                        Err(e) => {
                            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                            fail(&mut out, errno, e.to_string());
                            stopping = true;
                            break;
                        }
                    }
                    *left = clone.files[req.file].region.len.max(1);
                }
                *left = left.saturating_sub(req.len);
            }
            let si = free.pop().expect("a free slot");
            let slot = &mut slots[si];
            slot.req = req;
            slot.done = 0;
            slot.short = 0;
            slot.intended = intended;
            if let Some(p) = &mut prio {
                (slot.ioprio, slot.stat_prio) = p.pick(req.ddir, req.len);
            }
            if req.ddir == Ddir::Write {
                let data = &mut slot.buf.as_mut_slice()[..req.len as usize];
                if refill {
                    let marks = (&mut draw, &mut uniques, &mut writes);
                    refill_write(
                        content,
                        dedupe_set.as_ref(),
                        data,
                        req.offset,
                        clone.params.seed,
                        marks,
                    );
                } else if content.scramble {
                    writes += 1;
                    content.scramble(data, clone.params.seed ^ writes);
                }
                if let Some(v) = &mut verifier {
                    v.fill_noting(req.file, req.offset, data, &mut slot.gens);
                    if let Some(j) = &mut journal {
                        if let Err(e) = j.intent(req.file, &slot.gens, v.interval) {
                            free.push(si);
                            fail(&mut out, libc::EIO, format!("verify_journal: {e}"));
                            stopping = true;
                            break;
                        }
                    }
                }
            }
            let io = slot.unit(si, &clone.files);
            if let Some(w) = &mut wlog {
                w.io(req.file, req.ddir, req.offset, req.len);
            }
            let st = &mut out.stats;
            st.issued[req.ddir.index()] += 1;
            // SAFETY (both calls): the slot's buffer holds max_bs ≥ io.len bytes, is
            // 4096-aligned, and is neither touched nor freed until the I/O completes (the
            // slot is off the free list until then, and the loop drains every in-flight I/O
            // before exit).
            let (t0, queued) = if clone.locks.is_empty() {
                let t0 = crate::clock::now();
                (t0, unsafe { engine.queue(&io) })
            } else {
                // lockfile: the file's lock, held while the I/O is submitted (not timed).
                unsafe { queue_locked(&mut *engine, &io, &clone.locks, spec.control.lockfile) }
            };
            slot.t_start = t0;
            match queued {
                Ok(Queued::Done(c)) => {
                    now = crate::clock::now();
                    st.depth_levels[depth_level_index(inflight as u32 + 1)] += 1;
                    st.depth_submit[batch_index(1)] += 1;
                    st.depth_complete[batch_index(1)] += 1;
                    let clat = now.duration_since(t0).as_nanos() as u64;
                    free.push(si);
                    let mut rec =
                        Recorder::new(&mut out, spec, iolog.as_mut().map(|l| (l, measure_start)));
                    rec.fake = meta_op.is_some();
                    rec.no_data = job.caps.no_data;
                    if let Some((errno, text)) =
                        complete(&mut rec, &slots[si], &c, None, clat, &clone.files)
                    {
                        if !fills_device(spec, errno) {
                            fail(&mut out, errno, text);
                        }
                        stopping = true;
                        break;
                    }
                    if let Some(l) = &mut lt {
                        if l.on_complete(clat, now, &out.stats) {
                            fail(&mut out, libc::ETIMEDOUT, l.fatal_text(clat));
                            stopping = true;
                            break;
                        }
                        match l.check(now, &out.stats) {
                            LtEvent::Reset => restart_window!(now),
                            LtEvent::Done => {
                                stopping = true;
                                break;
                            }
                            LtEvent::None => {}
                        }
                    }
                    sampler.tick(now, &mut out.stats);
                    if let Some(text) = min_rate.check(now, &out.stats) {
                        fail(&mut out, libc::EIO, text);
                        stopping = true;
                        break;
                    }
                    // A synchronous I/O is issued and completed at once.
                    thinker.count();
                }
                Ok(Queued::Queued) => {
                    if thinker.t.on_issue {
                        thinker.count();
                    }
                    if let Some(os) = &mut openset {
                        os.inflight[req.file] += 1;
                    }
                    inflight += 1;
                    st.depth_levels[depth_level_index(inflight as u32)] += 1;
                    pending.push(si);
                    if inflight >= depth && low < depth {
                        draining = true;
                    }
                    if pending.len() >= batch
                        && !submit(&mut *engine, &mut pending, &mut slots, &mut out)
                    {
                        stopping = true;
                        engine_broken = true;
                        break;
                    }
                    continue;
                }
                Err(e) => {
                    free.push(si);
                    fail(
                        &mut out,
                        e.raw_os_error().unwrap_or(libc::EIO),
                        e.to_string(),
                    );
                    stopping = true;
                    break;
                }
            }
            // Synchronous completion: writes may call for a sync.
            if req.ddir == Ddir::Write {
                wrote = true;
                if let Some(err) = sync_cadence(
                    &mut *engine,
                    spec,
                    (req.file, req.offset, req.len),
                    &mut syncs,
                    &mut out.stats,
                ) {
                    fail(&mut out, err.0, err.1);
                    stopping = true;
                    break;
                }
            }
            if let Some(v) = &mut verifier {
                if let Err((errno, text)) = after_io(
                    v,
                    journal.as_mut(),
                    (req.ddir, req.file, req.offset, req.len),
                    (
                        &slots[si].gens,
                        slots[si].buf.as_slice(),
                        &clone.files[req.file].path,
                    ),
                    spec,
                    &mut backlog,
                    &mut out.stats,
                ) {
                    fail(&mut out, errno, text);
                    stopping = true;
                    break;
                }
            }
        }
        if !pending.is_empty()
            && !engine_broken
            && !submit(&mut *engine, &mut pending, &mut slots, &mut out)
        {
            stopping = true;
            engine_broken = true;
        }
        if inflight == 0 {
            if stopping {
                break;
            }
            continue;
        }
        if engine_broken {
            break;
        }
        // Reap: wait for iodepth_batch_complete_min (0 = poll), take at most _max. When no
        // more I/O will be issued, wait for at least one.
        comps.clear();
        let min = if stopping { cmin.max(1) } else { cmin };
        let waited = match wake.take() {
            Some(at) if min == 0 => {
                // Never past the deadline: the job ends then.
                let until = deadline.map_or(at, |d| d.min(at));
                Some(engine.reap_until(cmax, &mut comps, until.saturating_duration_since(now)))
            }
            _ => None,
        };
        let n = match waited.unwrap_or_else(|| engine.reap(min, cmax, &mut comps)) {
            Ok(n) => n,
            Err(e) => {
                fail(
                    &mut out,
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!("reap: {e}"),
                );
                engine_broken = true;
                break;
            }
        };
        now = crate::clock::now();
        if n > 0 {
            out.stats.depth_complete[batch_index(n as u32)] += 1;
        }
        for &c0 in comps.iter() {
            let si = c0.tag as usize;
            let slot = &mut slots[si];
            let mut c = c0;
            // A short transfer: reissue the remainder from the same slot.
            if c.res > 0 && slot.done + (c.res as u64) < slot.req.len {
                slot.done += c.res as u64;
                slot.short += 1;
                let io = slot.unit(si, &clone.files);
                // SAFETY: as for the first submission of this slot.
                match unsafe { engine.queue(&io) } {
                    Ok(Queued::Queued) => {
                        pending.push(si);
                        continue;
                    }
                    Ok(Queued::Done(rest)) => c = rest,
                    Err(e) => {
                        c.res = -(e.raw_os_error().unwrap_or(libc::EIO) as i64);
                    }
                }
            }
            inflight -= 1;
            if let Some(os) = &mut openset {
                os.inflight[slot.req.file] -= 1;
            }
            let slat = slot.t_sub.duration_since(slot.t_start).as_nanos() as u64;
            let clat = now.duration_since(slot.t_sub).as_nanos() as u64;
            let ddir = slot.req.ddir;
            let file = slot.req.file;
            let (off, len) = (slot.req.offset, slot.req.len);
            free.push(si);
            let mut rec = Recorder::new(&mut out, spec, iolog.as_mut().map(|l| (l, measure_start)));
            rec.no_data = job.caps.no_data;
            if let Some((errno, text)) =
                complete(&mut rec, &slots[si], &c, Some(slat), clat, &clone.files)
            {
                if out.error_text.is_none() && !fills_device(spec, errno) {
                    fail(&mut out, errno, text);
                }
                stopping = true;
                continue;
            }
            if let Some(l) = &mut lt {
                let before = l.qd;
                if l.on_complete(slat + clat, now, &out.stats) {
                    if out.error_text.is_none() {
                        fail(&mut out, libc::ETIMEDOUT, l.fatal_text(slat + clat));
                    }
                    stopping = true;
                    continue;
                }
                // Ramped down: let the deeper queue drain before judging the new depth.
                quiesce |= l.qd < before;
            }
            if !thinker.t.on_issue {
                thinker.count();
            }
            if ddir == Ddir::Write {
                wrote = true;
                if let Some(err) = sync_cadence(
                    &mut *engine,
                    spec,
                    (file, off, len),
                    &mut syncs,
                    &mut out.stats,
                ) {
                    fail(&mut out, err.0, err.1);
                    stopping = true;
                }
            }
            if let Some(v) = &mut verifier {
                if let Err((errno, text)) = after_io(
                    v,
                    journal.as_mut(),
                    (ddir, file, off, len),
                    (
                        &slots[si].gens,
                        slots[si].buf.as_slice(),
                        &clone.files[file].path,
                    ),
                    spec,
                    &mut backlog,
                    &mut out.stats,
                ) {
                    if out.error_text.is_none() {
                        fail(&mut out, errno, text);
                    }
                    stopping = true;
                }
            }
        }
        if let Some(l) = lt.as_mut().filter(|_| !stopping) {
            let before = l.qd;
            match l.check(now, &out.stats) {
                LtEvent::Reset => {
                    restart_window!(now);
                    quiesce = true;
                }
                LtEvent::Done => stopping = true,
                LtEvent::None => quiesce |= l.qd < before,
            }
        }
        sampler.tick(now, &mut out.stats);
        if let Some(text) = min_rate.check(now, &out.stats) {
            fail(&mut out, libc::EIO, text);
            stopping = true;
        }
        if !pending.is_empty() {
            continue 'run;
        }
    }
    if engine_broken && inflight > 0 {
        // The engine cannot tell us when the kernel is done with these buffers: keep
        // them allocated for the rest of the process rather than risk a use after free.
        std::mem::forget(slots);
        slots = Vec::new();
    }
    if spec.control.final_sample && !ramping {
        sampler.finish(crate::clock::now(), &mut out.stats);
    }
    if ramping {
        // The job ended during ramp: nothing was measured.
        let v = out.stats.verify.take();
        out.stats = ThreadStats::new();
        out.stats.verify = v;
        measure_start = crate::clock::now();
    }
    if let Some(v) = &verifier {
        // A job stopped (a signal, exitall) does not read its writes back, as fio.
        let can_read = !engine_broken && inflight == 0 && !cancel.load(Ordering::Relaxed);
        crate::verify::readback::after_run(
            v,
            (clone, spec),
            (&mut *engine, &mut slots[0].buf),
            (openset.as_mut(), &opts),
            can_read,
            cancel,
            &mut out,
        );
    }
    if wrote && (spec.end_fsync || spec.fsync_on_close) && out.error_text.is_none() {
        end_fsync(&mut *engine, openset.as_ref(), clone, spec, &opts, &mut out);
    }
    let end = crate::clock::now();
    if let Some(l) = &lt {
        out.stats.latency_depth = l.qd;
    }
    out.stats.finish();
    out.stats.runtime = end.duration_since(measure_start);
    out.stats.cpu = CpuUsage::current_thread().since(&cpu_start);
    if let Err(e) = engine.close_files() {
        if out.error_text.is_none() {
            out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
            out.error_text = Some(format!("close: {e}"));
        }
    }
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
