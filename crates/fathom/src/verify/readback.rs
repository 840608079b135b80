//! Reading written data back and checking it: after each I/O (journal, backlog), the verify pass, verify_async threads.

use crate::plan::PlannedClone;
use crate::record::outcome::{errno_text, CloneOutcome};
use fathom_engine::{AlignedBuf, IoUnit, Queued};
use fathom_job::Ddir;
use fathom_stats::ThreadStats;

/// verify_backlog as fio keeps it: the writes issued and not yet checked (fio's io_hist:
/// logged as each write is issued), and fio's rule for when to read some back — at the
/// next I/O, once their number is a multiple of verify_backlog and the I/O completed last
/// was not a read, a batch of verify_backlog_batch (default verify_backlog) is taken, the
/// oldest first (or, where writes replace each other, the lowest offsets first, fio's
/// tree), one a turn until the batch is done; those left wait for the next batch or the
/// verify phase.
#[derive(Default)]
pub(crate) struct Backlog {
    pub(crate) chunks: Vec<(usize, u64, u64)>,
    /// A batch is being taken: the issue loop stops and, once nothing is in flight, the
    /// run loop checks it (`take`).
    pub(crate) due: bool,
    /// fio keeps a job's writes in a tree by offset unless the job has its random map (a
    /// sequential job, norandommap, a non-uniform distribution, lfsr): a write over one
    /// still waiting for its check replaces it, so the waiting writes are fewer and only
    /// the newer one is read back (`randwrite norandommap verify_backlog=4` over 64
    /// blocks reads back about 61 of its 64 writes, as fio's).
    pub(crate) replaces: bool,
    /// verify_backlog (0: none).
    every: u64,
    /// The batch's size.
    batch: u64,
    /// What is left of the batch being taken (fio's verify_batch).
    batch_left: u64,
    /// The last I/O completed was a read (fio's last_ddir): no new batch then.
    pub(crate) last_read: bool,
}

impl Backlog {
    /// The backlog of a clone with these generator parameters, as fio keeps it.
    pub(crate) fn for_clone(spec: &fathom_job::JobSpec, p: &fathom_workload::Params) -> Backlog {
        let listed = spec.rw.kind.is_random() && p.randommap && !spec.lfsr && p.uniform_offsets();
        // fio logs writes for their check only when it verifies them in this job, and
        // not for experimental_verify (which replays every write at the end): without
        // that, verify_backlog reads nothing (`do_verify=0 verify_backlog=16` read the
        // file back as it went; fio reads nothing).
        let v = &spec.verify;
        let logged = v.do_verify && v.kind.is_some() && !v.experimental && spec.rw.kind.writes();
        let every = if logged { v.backlog } else { 0 };
        let batch = match spec.verify.backlog_batch {
            0 => every,
            b => b,
        };
        Backlog {
            replaces: !listed,
            every,
            batch,
            ..Backlog::default()
        }
    }

    /// A write issued: it waits for its check (over any it replaces).
    pub(crate) fn issued(&mut self, file: usize, offset: u64, len: u64) {
        if self.every == 0 {
            return;
        }
        if self.replaces {
            let end = offset + len;
            self.chunks
                .retain(|&(f, o, n)| f != file || o >= end || o + n <= offset);
        }
        self.chunks.push((file, offset, len));
    }

    /// fio's check at each I/O it is about to issue: true when writes are to be read
    /// back first (then `due` stays set until they are taken). `spent`: the job asks
    /// for no more I/O (fio's issue limit is reached), so fio starts no batch: the
    /// verify phase reads them.
    #[inline]
    pub(crate) fn wants(&mut self, spent: impl FnOnce() -> bool) -> bool {
        if self.due {
            return true;
        }
        if self.every == 0 || self.chunks.is_empty() {
            return false;
        }
        if self.batch_left == 0 {
            if self.last_read || self.chunks.len() as u64 % self.every != 0 || spent() {
                return false;
            }
            self.batch_left = self.batch;
        }
        self.due = true;
        true
    }

    /// The writes to read back now (fio takes them one a turn until its batch is done
    /// or no write waits): the oldest, or the lowest offsets where writes replace each
    /// other.
    pub(crate) fn take(&mut self) -> Vec<(usize, u64, u64)> {
        self.due = false;
        if self.replaces {
            self.chunks.sort_unstable_by_key(|&(f, o, _)| (f, o));
        }
        let n = (self.batch_left as usize).min(self.chunks.len());
        self.batch_left -= n as u64;
        // (The reads complete before the next I/O is issued: fio's last_ddir is a read.)
        self.last_read = n > 0 || self.last_read;
        self.chunks.drain(..n).collect()
    }
}

/// After a completed I/O of a verifying job, on either completion path: a write is
/// acknowledged in the journal (verify_journal) and joins the backlog (a full backlog asks
/// for a check); a read of a read-only job is checked at once, and with
/// `verify_mixed_reads` a read of a chunk the job wrote.
pub(crate) fn after_io(
    v: &mut crate::verify::Verifier,
    journal: Option<&mut crate::verify::journal::JournalWriter>,
    (ddir, file, offset, len): (Ddir, usize, u64, u64),
    (gens, data, path): (&[(u64, u32)], &[u8], &std::path::Path),
    spec: &fathom_job::JobSpec,
    backlog: &mut Backlog,
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let k = spec.rw.kind;
    if let (Some(j), Ddir::Write) = (journal, ddir) {
        j.ack(file, gens, v.interval)
            .map_err(|e| (libc::EIO, format!("verify_journal: {e}")))?;
    }
    // (A write joined the backlog as it was issued: `Backlog::issued`.)
    backlog.last_read = ddir == Ddir::Read;
    if ddir == Ddir::Trim {
        v.trimmed(file, offset, len);
    } else if ddir == Ddir::Read && !k.writes() && !spec.control.verify_mixed_reads {
        let data = &data[..len as usize];
        one_read(st, |st| {
            for (off, n) in v.chunks(offset, len) {
                let b = &data[(off - offset) as usize..(off - offset + n) as usize];
                check_chunk(v, (path, b, off), None, spec, st)?;
            }
            Ok(())
        })?;
    } else if ddir == Ddir::Read && spec.control.verify_mixed_reads {
        // vdbench's validation: chunks written (this run, or before it with key maps)
        // hold their last generation; the others are not known.
        let data = &data[..len as usize];
        one_read(st, |st| {
            for (off, n) in v.chunks(offset, len) {
                let g = v.generation(file, off);
                if g > 0 {
                    let b = &data[(off - offset) as usize..(off - offset + n) as usize];
                    check_chunk(v, (path, b, off), Some(g as u64), spec, st)?;
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// The checks of one read's chunks: a read with a failed chunk is one verify error
/// (`failed_reads`, what `total_err` counts under continue_on_error, as fio counts a
/// failed read once however many of its `verify_interval` chunks failed).
fn one_read(
    st: &mut ThreadStats,
    checks: impl FnOnce(&mut ThreadStats) -> Result<(), (i32, String)>,
) -> Result<(), (i32, String)> {
    let failures = |st: &ThreadStats| st.verify.as_ref().map_or(0, |v| v.failures);
    let before = failures(st);
    let r = checks(st);
    if failures(st) > before {
        if let Some(vs) = st.verify.as_mut() {
            vs.failed_reads += 1;
        }
    }
    r
}

/// Record the check of one chunk; Err ends the job (a failure fio does not go on after).
pub(crate) fn check_chunk(
    v: &crate::verify::Verifier,
    (path, b, offset): (&std::path::Path, &[u8], u64),
    expected: Option<u64>,
    spec: &fathom_job::JobSpec,
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let r = v.check(b, offset, expected);
    record_check(v, (path, b.len(), Some(b)), r, spec, st)
}

/// The errno of an `Err` that ends the job without failing it: verify_fatal after a
/// failure that continue_on_error tolerates (fio stops the job and exits 0).
pub(crate) const STOP_TOLERATED: i32 = 0;

/// Count a chunk's check (done here or by a verify_async thread); Err ends the job (a
/// failure not tolerated, or verify_fatal: then [`STOP_TOLERATED`]). verify_dump writes
/// a failed chunk as read and as expected.
pub(crate) fn record_check(
    v: &crate::verify::Verifier,
    (path, len, data): (&std::path::Path, usize, Option<&[u8]>),
    r: Result<(), Box<crate::verify::Failure>>,
    spec: &fathom_job::JobSpec,
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let vs = st.verify.get_or_insert_with(Default::default);
    vs.blocks += 1;
    vs.bytes += len as u64;
    if let Err(f) = r {
        vs.failures += 1;
        let mut text = f.text(path);
        if let (true, Some(b)) = (spec.verify.dump, data) {
            let base = format!("{}.{}", path.display(), f.offset);
            let expected = v.expected_of(&f, b.len());
            let wrote = std::fs::write(format!("{base}.received"), b)
                .and_then(|_| std::fs::write(format!("{base}.expected"), expected));
            text.push_str(&match wrote {
                Ok(()) => format!("; dumped to {base}.received and {base}.expected"),
                Err(e) => format!("; verify_dump failed: {e}"),
            });
        }
        if vs.first.len() < fathom_stats::VERIFY_FAILURES_KEPT {
            vs.first.push(text.clone());
        }
        // As fio: a failure ends the job (reads stop there) unless continue_on_error
        // goes on after verification errors (then each is counted and named); verify_fatal
        // ends it even then, the failure still tolerated (counted, not the job's error).
        if !spec.errors.tolerates(2, libc::EILSEQ) {
            return Err((libc::EILSEQ, text));
        }
        if spec.verify.fatal {
            return Err((STOP_TOLERATED, text));
        }
    }
    Ok(())
}

/// Read back and check chunks (file, offset, length) through the engine, as fio's verify
/// phase does: up to one read per buffer in flight on an asynchronous engine (the job's
/// iodepth), one at a time on a synchronous one; the reads count as reads of the job, as
/// in fio. With `checkers`, each chunk goes to the verify_async threads instead of being
/// checked here.
pub(crate) fn read_and_check(
    engine: &mut dyn fathom_engine::IoEngine,
    bufs: &mut [&mut AlignedBuf],
    rb: &ReadBack<'_>,
    list: &[(usize, u64, u64)],
    st: &mut ThreadStats,
    checkers: Option<&std::sync::mpsc::SyncSender<CheckItem>>,
) -> Result<(), (i32, String)> {
    let ReadBack {
        v,
        files,
        spec,
        stop,
        ..
    } = *rb;
    let depth = if engine.caps().is_async {
        bufs.len().max(1)
    } else {
        1
    };
    // Per buffer: the read it holds (its index in `list`), when it was queued and when
    // it was submitted.
    let mut busy: Vec<Option<(usize, std::time::Instant, Option<std::time::Instant>)>> =
        vec![None; depth];
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut comps = Vec::with_capacity(depth);
    let mut queued = Vec::with_capacity(depth);
    let (mut next, mut inflight) = (0usize, 0usize);
    let mut result: Result<(), (i32, String)> = Ok(());
    // A verify_async thread is gone: no more reads, and no error.
    let mut ended = false;
    let io_err = |e: std::io::Error, path: &std::path::Path, offset: u64| {
        (
            fathom_engine::errno_of(&e).unwrap_or(libc::EIO),
            format!("verify read of {} at offset {offset}: {e}", path.display()),
        )
    };
    loop {
        while result.is_ok() && !ended && next < list.len() && !free.is_empty() {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                next = list.len();
                break;
            }
            let (file, offset, len) = list[next];
            // trim_verify_zero=0: trimmed chunks are not checked.
            if !spec.verify.trim_zero && v.chunks(offset, len).all(|(o, _)| v.is_trimmed(file, o)) {
                next += 1;
                continue;
            }
            let s = free.pop().expect("a free buffer");
            let io = IoUnit {
                ddir: Ddir::Read,
                file,
                offset,
                buf: bufs[s].as_mut_ptr(),
                len: len as usize,
                tag: s as u64,
                ioprio: 0,
            };
            if let Some(w) = rb.log.iolog {
                w.borrow_mut().io(file, Ddir::Read, offset, len);
            }
            let t0 = crate::clock::now();
            // SAFETY: the buffer holds at least `len` bytes (a block is at most the largest
            // block size), is aligned for the files' open mode, and no other I/O uses it.
            match unsafe { engine.queue(&io) } {
                Err(e) => {
                    free.push(s);
                    result = Err(io_err(e, &files[file].path, offset));
                }
                Ok(Queued::Done(c)) => {
                    free.push(s);
                    let total = crate::clock::now().duration_since(t0).as_nanos() as u64;
                    let r = checked(
                        v,
                        rb,
                        (next, list[next]),
                        (c.res, None, total),
                        bufs[s],
                        st,
                        checkers,
                    );
                    settle(r, &mut ended, &mut result);
                }
                Ok(Queued::Queued) => {
                    busy[s] = Some((next, t0, None));
                    queued.push(s);
                    inflight += 1;
                }
            }
            next += 1;
        }
        if !queued.is_empty() {
            if let Err(e) = engine.commit() {
                // Not submitted: these reads are not in flight.
                let (file, offset, _) = list[busy[queued[0]].expect("queued").0];
                if result.is_ok() {
                    result = Err(io_err(e, &files[file].path, offset));
                }
                for s in queued.drain(..) {
                    busy[s] = None;
                    free.push(s);
                    inflight -= 1;
                }
            }
            let t_sub = crate::clock::now();
            for s in queued.drain(..) {
                if let Some(b) = &mut busy[s] {
                    b.2 = Some(t_sub);
                }
            }
        }
        if inflight == 0 {
            if result.is_err() || ended || next >= list.len() {
                break;
            }
            continue;
        }
        comps.clear();
        if let Err(e) = engine.reap(1, inflight, &mut comps) {
            // The reads in flight cannot be told apart any more: give up here.
            let (file, offset, _) = list[busy.iter().flatten().next().expect("in flight").0];
            return Err(result
                .err()
                .unwrap_or_else(|| io_err(e, &files[file].path, offset)));
        }
        let done = crate::clock::now();
        for c in &comps {
            let s = c.tag as usize;
            let Some((read, t0, t_sub)) = busy.get_mut(s).and_then(Option::take) else {
                continue;
            };
            inflight -= 1;
            free.push(s);
            if result.is_err() || ended {
                continue;
            }
            let total = done.duration_since(t0).as_nanos() as u64;
            let slat = t_sub.map(|t| t.duration_since(t0).as_nanos() as u64);
            let r = checked(
                v,
                rb,
                (read, list[read]),
                (c.res, slat, total),
                bufs[s],
                st,
                checkers,
            );
            settle(r, &mut ended, &mut result);
        }
    }
    result
}

/// A read's outcome into the pass's state: the verify_async threads gone (`ended`), or
/// the pass's error.
fn settle(
    r: Result<bool, (i32, String)>,
    ended: &mut bool,
    result: &mut Result<(), (i32, String)>,
) {
    match r {
        Ok(true) => {}
        Ok(false) => *ended = true,
        Err(e) => *result = Err(e),
    }
}

/// One read back: its result checked (a short or failed read is the job's error), its
/// latency recorded, its chunks checked (or sent to the verify_async threads: false when
/// they are gone).
#[allow(clippy::too_many_arguments)]
fn checked(
    v: &crate::verify::Verifier,
    rb: &ReadBack<'_>,
    (read, (file, offset, len)): (usize, (usize, u64, u64)),
    (res, slat, total): (i64, Option<u64>, u64),
    buf: &AlignedBuf,
    st: &mut ThreadStats,
    checkers: Option<&std::sync::mpsc::SyncSender<CheckItem>>,
) -> Result<bool, (i32, String)> {
    let ReadBack {
        files,
        known,
        spec,
        log,
        ..
    } = *rb;
    let path = &files[file].path;
    if res != len as i64 {
        let errno = if res < 0 { (-res) as i32 } else { libc::EIO };
        return Err((
            errno,
            format!(
                "verify read of {} at offset {offset} (0x{offset:x}), length {len}: {}",
                path.display(),
                if res < 0 {
                    errno_text(errno)
                } else {
                    format!("short read of {res} bytes")
                }
            ),
        ));
    }
    st.record_io_deferred(0, len, slat, total.saturating_sub(slat.unwrap_or(0)));
    if let Some((log, origin)) = log.lat {
        let before = slat.unwrap_or(0);
        log.borrow_mut().events.push(crate::record::logs::LogEvent {
            t_ns: crate::clock::now()
                .saturating_duration_since(origin)
                .as_nanos() as u64,
            ddir: 0,
            bs: len as u32,
            offset,
            slat: before,
            clat: total.saturating_sub(before),
            ioprio: 0,
        });
    }
    let mut sent = true;
    one_read(st, |st| {
        for (off, n) in v.chunks(offset, len) {
            let at = (off - offset) as usize;
            let data = &buf.as_slice()[at..at + n as usize];
            if v.is_trimmed(file, off) {
                if spec.verify.trim_zero {
                    let r = v.check_trimmed(data, off);
                    record_check(v, (path, data.len(), Some(data)), r, spec, st)?;
                }
                continue;
            }
            let expected = known.then(|| v.generation(file, off) as u64);
            match checkers {
                Some(tx) => {
                    if tx.send((file, off, expected, data.to_vec(), read)).is_err() {
                        sent = false;
                        break;
                    }
                }
                None => check_chunk(v, (path, data, off), expected, spec, st)?,
            }
        }
        Ok(())
    })?;
    Ok(sent)
}

/// verify_state_save/load's file: `local-JOB-N-verify.state` in the working directory.
pub(crate) fn state_path(spec: &fathom_job::JobSpec, jobnum: u32) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("local-{}-{jobnum}-verify.state", spec.name))
}

/// What a read-back pass checks against: the verifier, the clone's files, whether the
/// expected generations are known, and the job.
#[derive(Clone, Copy)]
pub(crate) struct ReadBack<'a> {
    pub(crate) v: &'a crate::verify::Verifier,
    pub(crate) files: &'a [crate::plan::PlannedFile],
    pub(crate) known: bool,
    pub(crate) spec: &'a fathom_job::JobSpec,
    /// The job's stop flag (a signal, exitall): the reads end at the next chunk.
    pub(crate) stop: &'a std::sync::atomic::AtomicBool,
    /// The clone's latency and rate logs, and when its measurement started: the verify
    /// reads are logged as the job's other reads are (fio's are ordinary reads there).
    pub(crate) log: VerifyLog<'a>,
}

/// The clone's logs for the verify reads (see [`ReadBack::log`]).
#[derive(Clone, Copy, Default)]
pub(crate) struct VerifyLog<'a> {
    /// The latency and rate logs, and when the measurement started.
    pub(crate) lat: Option<(
        &'a std::cell::RefCell<crate::record::logs::IoLog>,
        std::time::Instant,
    )>,
    /// write_iolog: each read back is a read there, logged as it is issued (fio's
    /// verify reads are I/Os of the job, which its replay repeats).
    pub(crate) iolog: Option<&'a std::cell::RefCell<crate::record::iolog::IologWriter>>,
}

/// A chunk for a verify_async thread: (file, offset, expected generation, data, the
/// index of the read it came in).
pub(crate) type CheckItem = (usize, u64, Option<u64>, Vec<u8>, usize);

/// [`read_and_check`] with verify_async: the reads stay on this thread, the checks run
/// on `spec.verify.async_threads` threads; results are counted here, in read order.
pub(crate) fn verify_chunks(
    engine: &mut dyn fathom_engine::IoEngine,
    buf: &mut [&mut AlignedBuf],
    rb: &ReadBack<'_>,
    list: &[(usize, u64, u64)],
    st: &mut ThreadStats,
) -> Result<(), (i32, String)> {
    let ReadBack { v, files, spec, .. } = *rb;
    let threads = spec.verify.async_threads as usize;
    if threads == 0 {
        return read_and_check(engine, buf, rb, list, st, None);
    }
    // (file, length, result, the data when the check failed, the read's index)
    type Checked = (
        usize,
        usize,
        Result<(), Box<crate::verify::Failure>>,
        Option<Vec<u8>>,
        usize,
    );
    // verify_async_cpus: where the checking threads run (every CPU named must be online).
    let pin = match &spec.verify.async_cpus {
        Some(cpus) => {
            let online = std::thread::available_parallelism().map_or(1, |n| n.get());
            let mut set = nix::sched::CpuSet::new();
            for &c in cpus {
                if c >= online || set.set(c).is_err() {
                    return Err((
                        libc::EINVAL,
                        format!(
                            "verify_async_cpus {cpus:?}: CPU {c} is not online (the machine has {online})"
                        ),
                    ));
                }
            }
            Some(set)
        }
        None => None,
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<CheckItem>(threads * 4);
    let rx = std::sync::Mutex::new(rx);
    let (rtx, rrx) = std::sync::mpsc::channel::<Checked>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (rx, rtx, pin) = (&rx, rtx.clone(), pin);
            s.spawn(move || {
                if let Some(set) = pin {
                    // The CPUs were checked above; a failure leaves the thread where it is.
                    let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set);
                }
                loop {
                    let item = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((file, off, expected, data, read)) = item else {
                        break;
                    };
                    let r = v.check(&data, off, expected);
                    let keep = r.is_err().then_some(data.clone());
                    if rtx.send((file, data.len(), r, keep, read)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(rtx);
        // Results are counted as they come; a fatal failure stops the reads.
        let read = read_and_check(engine, buf, rb, list, st, Some(&tx));
        drop(tx);
        let mut outcome = read;
        // A read whose chunks fail on several threads is one failed read.
        let mut failed_reads = std::collections::HashSet::new();
        for (file, len, r, data, read) in rrx {
            if r.is_err() && failed_reads.insert(read) {
                if let Some(vs) = st.verify.as_mut() {
                    vs.failed_reads += 1;
                }
            }
            let at = (files[file].path.as_path(), len, data.as_deref());
            if let Err(e) = record_check(v, at, r, spec, st) {
                if outcome.is_ok() {
                    outcome = Err(e);
                }
            }
        }
        outcome
    })
}

/// The clone's verifier (None when the job does not verify), with its verify statistics
/// started and, for verify_state_load, the saved state loaded.
pub(crate) fn verifier_for(
    clone: &PlannedClone,
    spec: &fathom_job::JobSpec,
    stats: &mut ThreadStats,
) -> Result<Option<crate::verify::Verifier>, (i32, String)> {
    let Some(kind) = spec.verify.kind else {
        return Ok(None);
    };
    let min_bs = (0..3)
        .filter(|&d| clone.params.len_range(d).0 > 0)
        .map(|d| clone.params.len_range(d).0)
        .min()
        .unwrap_or(4096);
    // A write may run past its region's end by up to a block (fio fits a fixed block
    // size to the file, not the region): room for it in the verify tables.
    let max_bs = (0..3)
        .map(|d| clone.params.len_range(d).1)
        .max()
        .unwrap_or(0);
    // Strided zones go on past the region where the file does, as far as the job's
    // bytes take them through its zones (bounded so, not by the file: a device's whole
    // size would be a table too large for a small job).
    let p = &clone.params;
    let zone_reach = p.zones.map(|z| {
        let bytes = p
            .io_bytes
            .max(p.pass_floor)
            .saturating_mul(u64::from(p.loops.max(1)));
        (bytes / z.size.max(1) + 2).saturating_mul(z.range + z.skip)
    });
    let regions: Vec<(u64, u64)> = clone
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut len = f.region.len + max_bs;
            if let Some(reach) = zone_reach {
                let end = p
                    .file_ends
                    .get(i)
                    .copied()
                    .unwrap_or(f.region.start + f.region.len);
                len = len.max(reach.min(end.saturating_sub(f.region.start)));
            }
            (f.region.start, len)
        })
        .collect();
    // With key maps every job makes a block's data alike (one seed, one clone), so one
    // job checks what another wrote.
    let keyed = spec.control.key_maps.as_ref();
    let (seed, index) = match keyed {
        Some(_) => (KEY_MAP_SEED, 0),
        None => (clone.params.seed, clone.index),
    };
    let mut v = crate::verify::Verifier::new(
        &spec.verify,
        kind,
        seed,
        index,
        (min_bs, offset_grain(&clone.params)),
        &regions,
    )
    .map_err(|text| (libc::EINVAL, text))?;
    v.shared = clone.overlapped;
    if let Some(maps) = keyed {
        v.import(maps, &file_paths(clone));
    }
    v.io_data = spec.io_data.clone();
    // fio keeps a random job's writes in a list when it has the random map (none of
    // them can overlap another in a pass), and reads them back in that order: as
    // randomly as they were written. Otherwise its tree reads them back by offset. (A
    // time-based job has no verify phase to order: it keeps no list.)
    let p = &clone.params;
    if spec.rw.kind.is_random()
        && p.randommap
        && !spec.lfsr
        && p.dist.is_uniform()
        && !spec.time_based
    {
        v.keep_write_order();
    }
    stats.verify = Some(fathom_stats::VerifyStats {
        kind: kind.name().to_string(),
        ..Default::default()
    });
    if spec.verify.state_load {
        v.load_state(&state_path(spec, clone.jobnum))
            .map_err(|text| (libc::ENOENT, format!("verify_state_load: {text}")))?;
    }
    Ok(Some(v))
}

/// The data seed of every job that shares key maps (`Control::key_maps`).
const KEY_MAP_SEED: u64 = 0x7664_6265_6e63_6821;

/// A clone's files' paths, in its order.
fn file_paths(clone: &PlannedClone) -> Vec<&std::path::Path> {
    clone.files.iter().map(|f| f.path.as_path()).collect()
}

/// Where a write may start in its region: every offset the generator makes is a multiple
/// of this from the region's start (the block sizes, a bssplit's every size, any byte
/// with bs_unaligned; holes, blockalign, zones, percentage starts, vdbench's wrap).
fn offset_grain(p: &fathom_workload::Params) -> u64 {
    use crate::plan::gcd;
    use fathom_workload::BsMix;
    let mut g = 0;
    for d in 0..3 {
        let sizes = match &p.bs_mix[d] {
            Some(BsMix::Range {
                unaligned: true, ..
            }) => 1,
            Some(BsMix::Range { lo, .. }) => *lo,
            Some(BsMix::Split(v)) => v.iter().fold(0, |a, x| gcd(a, x.0)),
            None => p.bs[d],
        };
        g = gcd(gcd(g, sizes), p.blockalign[d]);
    }
    // Holes (a sequential pattern's `:N`), which may wrap to the region's start.
    if !p.rw.kind.is_random() && p.rw.suffix != 0 {
        g = gcd(g, p.rw.suffix.unsigned_abs());
        g = p.files.iter().fold(g, |g, f| gcd(g, f.start));
    }
    if let Some(z) = &p.zones {
        g = gcd(gcd(gcd(g, z.size), z.range), z.skip);
    }
    g = p.later_starts.iter().fold(g, |g, &s| gcd(g, s));
    // vdbench's range past 100% moves an I/O back by `back` bytes (its strides skip by
    // multiples of the I/O's own length: on the grid already).
    if let Some((_, back)) = p.range_wrap {
        g = gcd(g, back);
    }
    g.max(1)
}

/// verify_state_save: as fio, a verifying job that writes leaves what it wrote,
/// generation by generation, for a later verify_state_load (a run cut short included).
pub(crate) fn save_state(
    v: &crate::verify::Verifier,
    spec: &fathom_job::JobSpec,
    jobnum: u32,
    out: &mut CloneOutcome,
) {
    let p = state_path(spec, jobnum);
    if let Err(e) = v.save_state(&p) {
        if out.error_text.is_none() {
            out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
            out.error_text = Some(format!("verify_state_save {}: {e}", p.display()));
        }
    }
}

/// Whether the job reads back at its end: a verifying job that writes or trims, or
/// verify_only.
pub(crate) fn reads_back(spec: &fathom_job::JobSpec) -> bool {
    let k = spec.rw.kind;
    (spec.verify.do_verify && (k.writes() || k.trims())) || spec.verify.only
}

/// A verifying clone's end: its verify state saved (`verify_state_save`), the files
/// openfiles had closed opened again, and its writes read back and checked when
/// `can_read` (the run ended cleanly: not stopped, not cut short by its runtime, nothing
/// left in flight).
#[allow(clippy::too_many_arguments)]
pub(crate) fn after_run(
    v: &crate::verify::Verifier,
    (clone, spec): (&PlannedClone, &fathom_job::JobSpec),
    (engine, buf): (&mut dyn fathom_engine::IoEngine, &mut [&mut AlignedBuf]),
    (openset, opts): (
        Option<&mut crate::io::openset::OpenSet>,
        &fathom_engine::OpenOptions,
    ),
    (can_read, log): (bool, VerifyLog<'_>),
    stop: &std::sync::atomic::AtomicBool,
    out: &mut CloneOutcome,
) {
    if spec.verify.state_save && spec.rw.kind.writes() && !spec.verify.only {
        save_state(v, spec, clone.jobnum, out);
    }
    if let Some(maps) = &spec.control.key_maps {
        v.export(maps, &file_paths(clone));
    }
    let pass = reads_back(spec);
    if let (Some(os), true) = (openset, pass) {
        // The check reads every file: open the ones openfiles had closed.
        if let Err(e) = os.open_all(engine, &clone.files, opts) {
            out.stats.error = libc::EIO;
            out.error_text = Some(format!("verify: reopening the files: {e}"));
        }
    }
    verify_pass(v, (clone, spec), (engine, buf), (can_read, log), stop, out);
}

/// What the verify pass reads, (file, offset, length) a block at a time: each write not
/// yet checked (verify_backlog checked the others); experimental_verify: the job's writes
/// replayed from its seed in the order they were written (as many as were written);
/// verify_only: the job's I/Os as it would have made them (fio's dry run) — a writing
/// job's writes in offset order, a reading job's reads in its own order — or with a
/// loaded state, every chunk it knows.
fn pass_reads(
    v: &crate::verify::Verifier,
    clone: &PlannedClone,
    spec: &fathom_job::JobSpec,
    writes: u64,
) -> Vec<(usize, u64, u64)> {
    let replay = |time_based: bool| {
        let mut p = clone.params.clone();
        p.time_based &= time_based;
        let mut g = fathom_workload::Generator::new(p)
            .expect("the generator was built from these parameters before");
        std::iter::from_fn(move || g.next_io())
    };
    let files = 0..clone.files.len();
    if spec.verify.only && spec.verify.state_load {
        files
            .flat_map(|fi| v.written(fi).map(move |o| (fi, o, v.interval)))
            .collect()
    } else if spec.verify.only && spec.rw.kind.writes() {
        v.dry_run(
            replay(false)
                .filter(|io| io.ddir == Ddir::Write)
                .map(|io| (io.file, io.offset, io.len)),
        )
    } else if spec.verify.only {
        replay(false)
            .filter(|io| io.ddir == Ddir::Read)
            .map(|io| (io.file, io.offset, io.len))
            .collect()
    } else if spec.verify.experimental {
        replay(true)
            .filter(|io| io.ddir == Ddir::Write)
            .take(writes as usize)
            .map(|io| (io.file, io.offset, io.len))
            .collect()
    } else {
        v.unchecked_all()
    }
}

/// The verify pass (when `can_read`: the job ended cleanly, neither stopped nor cut short
/// by its runtime, and nothing is in flight): read back what [`pass_reads`] lists and
/// check it; then the verdict — failures end the job with EILSEQ unless tolerated, and a
/// job that ended cleanly having checked nothing is an error.
pub(crate) fn verify_pass(
    v: &crate::verify::Verifier,
    (clone, spec): (&PlannedClone, &fathom_job::JobSpec),
    (engine, buf): (&mut dyn fathom_engine::IoEngine, &mut [&mut AlignedBuf]),
    (can_read, log): (bool, VerifyLog<'_>),
    stop: &std::sync::atomic::AtomicBool,
    out: &mut CloneOutcome,
) {
    let fail = |out: &mut CloneOutcome, errno: i32, text: String| {
        out.stats.error = errno;
        out.error_text = Some(text);
    };
    let pass = reads_back(spec);
    if pass && can_read && out.error_text.is_none() {
        let list = pass_reads(v, clone, spec, out.stats.issued[1]);
        let known = !spec.verify.only || spec.verify.state_load;
        if let Err((errno, text)) = verify_chunks(
            engine,
            buf,
            &ReadBack {
                v,
                files: &clone.files,
                known,
                spec,
                stop,
                log,
            },
            &list,
            &mut out.stats,
        ) {
            if errno != STOP_TOLERATED {
                fail(out, errno, text);
            }
        }
    }
    let vs = out.stats.verify.clone().unwrap_or_default();
    let tolerated = spec.errors.tolerates(2, libc::EILSEQ);
    if vs.failures > 0 && out.error_text.is_none() && tolerated {
        // continue_on_error=verify / ignore_error=,,EILSEQ: counted, not fatal.
        out.stats.count_errors = true;
        out.stats.total_err += vs.failed_reads;
        if out.stats.first_error == 0 {
            out.stats.first_error = libc::EILSEQ;
            out.first_error_text = vs.first.first().cloned();
        }
    } else if vs.failures > 0 && out.error_text.is_none() {
        let more = if vs.failures > 1 {
            format!(" (and {} more failed chunks)", vs.failures - 1)
        } else {
            String::new()
        };
        let first = vs.first.first().cloned().unwrap_or_default();
        fail(out, libc::EILSEQ, format!("{first}{more}"));
    } else if vs.blocks == 0
        && out.error_text.is_none()
        && (pass || (spec.verify.backlog > 0 && spec.verify.do_verify))
        && can_read
        && !stop.load(std::sync::atomic::Ordering::Relaxed)
    {
        fail(
            out,
            libc::EINVAL,
            format!(
                "verify={} checked nothing: no written (or, with trim_verify_zero, \
                 trimmed) chunk to read back",
                vs.kind
            ),
        );
    }
}
