//! An I/O slot (buffer and request), submitting and committing batches, and accounting each completion: latency, bytes, errors.

use crate::record::outcome::{errno_text, CloneOutcome};
use fathom_engine::{AlignedBuf, IoUnit};
use fathom_job::Ddir;
use fathom_stats::{batch_index, ThreadStats};
use fathom_workload::IoReq;
use std::time::Instant;

/// One I/O slot: its buffer and the I/O using it.
pub(crate) struct Slot {
    pub(crate) buf: AlignedBuf,
    pub(crate) req: IoReq,
    /// Bytes already done (short transfers are reissued for the rest).
    pub(crate) done: u64,
    pub(crate) short: u32,
    /// Start of submission.
    pub(crate) t_start: Instant,
    /// When the engine accepted it (end of the submit call).
    pub(crate) t_sub: Instant,
    /// Intended issue time from the rate schedule.
    pub(crate) intended: Option<Instant>,
    /// verify: the (offset, generation) of each chunk this slot's write carries.
    pub(crate) gens: Vec<(u64, u32)>,
    /// The I/O's priority in the command (cmdprio; 0: the thread's) and the priority its
    /// latency is reported under.
    pub(crate) ioprio: u16,
    pub(crate) stat_prio: u16,
}

impl Slot {
    /// `depth` slots with buffers of `len` bytes aligned to `align`, from one mapping.
    pub(crate) fn many(depth: usize, len: usize, align: usize) -> Vec<Slot> {
        AlignedBuf::many(depth, len, align)
            .into_iter()
            .map(Slot::new)
            .collect()
    }
    pub(crate) fn new(buf: AlignedBuf) -> Slot {
        let now = crate::clock::now();
        Slot {
            buf,
            req: IoReq {
                ddir: Ddir::Read,
                file: 0,
                offset: 0,
                len: 0,
            },
            done: 0,
            short: 0,
            t_start: now,
            t_sub: now,
            intended: None,
            gens: Vec::new(),
            ioprio: 0,
            stat_prio: 0,
        }
    }
    #[inline]
    pub(crate) fn unit(&mut self, si: usize, _files: &[crate::plan::PlannedFile]) -> IoUnit {
        IoUnit {
            ddir: self.req.ddir,
            file: self.req.file,
            offset: self.req.offset + self.done,
            buf: self.buf.as_mut_ptr().wrapping_add(self.done as usize),
            len: (self.req.len - self.done) as usize,
            tag: si as u64,
            ioprio: self.ioprio,
        }
    }
}

/// True when `req` overlaps an I/O still in flight (a slot not in `free`) on its file.
#[inline]
pub(crate) fn overlaps_inflight(slots: &[Slot], free: &[usize], req: &IoReq) -> bool {
    let idle: std::collections::HashSet<usize> = free.iter().copied().collect();
    slots.iter().enumerate().any(|(i, s)| {
        !idle.contains(&i)
            && s.req.file == req.file
            && s.req.offset < req.offset + req.len
            && req.offset < s.req.offset + s.req.len
    })
}

/// Submit what is pending; on failure record it in the outcome and return false.
#[inline]
pub(crate) fn submit(
    engine: &mut dyn fathom_engine::IoEngine,
    pending: &mut Vec<usize>,
    slots: &mut [Slot],
    out: &mut CloneOutcome,
) -> bool {
    match commit(engine, pending, slots, &mut out.stats) {
        Ok(()) => true,
        Err(e) => {
            out.stats.error = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            out.error_text = Some(format!("submit: {e}"));
            false
        }
    }
}

/// Submit what is pending; stamps each I/O's submission time.
#[inline]
pub(crate) fn commit(
    engine: &mut dyn fathom_engine::IoEngine,
    pending: &mut Vec<usize>,
    slots: &mut [Slot],
    st: &mut ThreadStats,
) -> std::io::Result<()> {
    let n = engine.commit()?;
    let t = crate::clock::now();
    st.depth_submit[batch_index(n as u32)] += 1;
    for si in pending.drain(..) {
        slots[si].t_sub = t;
    }
    Ok(())
}

/// How many tolerated errors `error_dump` prints per clone.
pub(crate) const ERROR_DUMP_MAX: u64 = 100;

/// The recorder with the job's error policy.
pub(crate) struct Recorder<'a> {
    pub(crate) stats: &'a mut ThreadStats,
    pub(crate) errors: &'a fathom_job::ErrorPolicy,
    /// `fill_device`: ENOSPC (or EDQUOT) ends the job without an error.
    pub(crate) fill_device: bool,
    pub(crate) first_error_text: &'a mut Option<String>,
    /// Per-I/O events for the job's log files, with the time they count from.
    pub(crate) log: Option<(&'a mut crate::record::logs::IoLog, Instant)>,
    /// The I/Os are a metadata engine's fake ones: counted, without latency.
    pub(crate) fake: bool,
    /// The engine moves no bytes (cpuio): I/Os counted and timed, bytes 0.
    pub(crate) no_data: bool,
    /// The engine completes each I/O as it issues it (fio's sync engines). As in fio, its
    /// I/O that moved nothing is an EIO ("full resid"; an asynchronous engine's counts as
    /// an I/O of 0 bytes), and its fatal error counts in total_err.
    pub(crate) sync_engine: bool,
    /// `max_latency` in ns (0: none): a slower I/O ends the job with ETIMEDOUT.
    pub(crate) max_lat: u64,
    /// `error_dump`: print each tolerated error (the first 100) on stderr, as fio does.
    pub(crate) dump: bool,
    pub(crate) job: &'a str,
    /// cmdprio: record each I/O's latency under its priority too: its total latency
    /// (true, with lat_percentiles) or its completion latency, as fio.
    pub(crate) prio_lat: Option<bool>,
    /// A synchronous engine's I/O: the ns between its start and its issue (a verified
    /// write's data being made), in its total latency, not its completion latency.
    pub(crate) pre: u64,
}

impl<'a> Recorder<'a> {
    #[inline]
    pub(crate) fn new(
        out: &'a mut CloneOutcome,
        spec: &'a fathom_job::JobSpec,
        log: Option<(&'a mut crate::record::logs::IoLog, Instant)>,
    ) -> Recorder<'a> {
        Recorder {
            stats: &mut out.stats,
            errors: &spec.errors,
            fill_device: spec.control.fill_device,
            first_error_text: &mut out.first_error_text,
            log,
            fake: false,
            no_data: false,
            sync_engine: true,
            max_lat: spec.control.max_latency.as_nanos() as u64,
            dump: spec.control.error_dump,
            job: &spec.name,
            pre: 0,
            prio_lat: spec.cmdprio.active().then_some(spec.lat_percentiles),
        }
    }
}

/// Record a completed I/O; returns (errno, text) if it failed and the failure ends the
/// job (errors tolerated by continue_on_error/ignore_error are counted instead).
#[inline]
pub(crate) fn complete(
    st: &mut Recorder<'_>,
    slot: &Slot,
    c: &fathom_engine::Completion,
    slat: Option<u64>,
    clat: u64,
    files: &[crate::plan::PlannedFile],
) -> Option<(i32, String)> {
    let req = &slot.req;
    // fio's "full resid": a synchronous engine's read or write that moved nothing (a
    // read at the end of the file) is an EIO error, not a transfer of 0 bytes.
    let nothing =
        st.sync_engine && c.res == 0 && req.len > 0 && matches!(req.ddir, Ddir::Read | Ddir::Write);
    let res = if nothing { -(libc::EIO as i64) } else { c.res };
    if res < 0 {
        let errno = (-res) as i32;
        let f = &files[req.file].path;
        let text = format!(
            "{} error on {} at offset {} (0x{:x}), length {}: {}{}",
            req.ddir.name(),
            f.display(),
            req.offset,
            req.offset,
            req.len,
            errno_text(errno),
            if nothing {
                " (nothing transferred: past the end of the file?)"
            } else {
                ""
            }
        );
        let d = req.ddir.index();
        // As fio, a failed I/O was issued all the same: it counts in total_ios (and so in
        // the IOPS), not in the bytes or the latencies.
        st.stats.dirs[d].ios += 1;
        let class = fathom_job::ErrorPolicy::class(req.ddir == Ddir::Read, errno);
        // fio's "full resid" ends the job whatever continue_on_error says.
        if !nothing && st.errors.tolerates(class, errno) {
            // continue_on_error / ignore_error: count it and go on.
            st.stats.total_err += 1;
            if st.dump && st.stats.total_err <= ERROR_DUMP_MAX {
                eprintln!("fathom: job '{}': {text} (tolerated)", st.job);
                if st.stats.total_err == ERROR_DUMP_MAX {
                    eprintln!(
                        "fathom: job '{}': further tolerated errors are counted, not printed",
                        st.job
                    );
                }
            }
            if st.stats.first_error == 0 {
                st.stats.first_error = errno;
                *st.first_error_text = Some(text);
            }
            return None;
        }
        // A synchronous engine's fatal error of a class continue_on_error names is
        // counted too, as in fio (not the ENOSPC that ends a fill_device job).
        let full = st.fill_device && (errno == libc::ENOSPC || errno == libc::EDQUOT);
        if st.sync_engine && st.errors.classes[class] && !full {
            st.stats.total_err += 1;
            if st.stats.first_error == 0 {
                st.stats.first_error = errno;
            }
        }
        return Some((errno, text));
    }
    if st.fake {
        st.stats
            .record_fake_io(req.ddir.index(), slot.done + c.res as u64);
        return None;
    }
    // The time before the issue: the submission latency, or a synchronous engine's
    // verified write's making of its data.
    let before = slat.unwrap_or(st.pre);
    if let Some((log, origin)) = &mut st.log {
        let lat = before + clat;
        log.events.push(crate::record::logs::LogEvent {
            t_ns: slot.t_start.saturating_duration_since(*origin).as_nanos() as u64 + lat,
            ddir: req.ddir.index() as u8,
            bs: (slot.done + c.res as u64) as u32,
            offset: req.offset,
            slat: before,
            clat,
            ioprio: slot.stat_prio,
        });
    }
    let max_lat = st.max_lat;
    let no_data = st.no_data;
    // (fio keeps per-priority latencies for reads and writes, not trims.)
    if let Some(total) = st.prio_lat.filter(|_| req.ddir != Ddir::Trim) {
        let ns = if total { before + clat } else { clat };
        st.stats.record_prio(req.ddir.index(), slot.stat_prio, ns);
    }
    let st = &mut st.stats;
    let bytes = if no_data { 0 } else { slot.done + c.res as u64 };
    if c.short > 0 || slot.short > 0 {
        st.dirs[req.ddir.index()].short_ios += 1;
    }
    if slat.is_none() && before > 0 {
        st.record_io_started(req.ddir.index(), bytes, before, clat);
    } else {
        st.record_io_deferred(req.ddir.index(), bytes, slat, clat);
    }
    let lat = before + clat;
    if let Some(at) = slot.intended {
        // Response time from the intended issue time; never less than lat.
        let resp = (slot.t_start.saturating_duration_since(at).as_nanos() as u64) + lat;
        st.dirs[req.ddir.index()].resp.record(resp);
    }
    if max_lat > 0 && lat > max_lat {
        // max_latency: as fio, the job ends with ETIMEDOUT (this I/O is counted).
        return Some((
            libc::ETIMEDOUT,
            format!(
                "latency of {lat} ns exceeds max_latency ({max_lat} ns): {} at offset {} of {}",
                req.ddir.name(),
                req.offset,
                files[req.file].path.display()
            ),
        ));
    }
    None
}
