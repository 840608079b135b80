//! Before a clone's timing loop: its engine and open options, its I/O slots (buffers
//! aligned for O_DIRECT, filled when the job writes), fio's batching numbers, the
//! verifier and journal of a verifying job, and its files opened.

use crate::io::openset::{open_files, OpenSet};
use crate::io::slot::Slot;
use crate::plan::{PlannedClone, PlannedJob};
use crate::verify::journal::JournalWriter;
use crate::verify::Verifier;
use fathom_engine::{EngineBuf, IoEngine, OpenOptions};
use fathom_stats::ThreadStats;

/// What the timing loop starts from.
pub(crate) struct Prepared {
    pub(crate) engine: Box<dyn IoEngine>,
    pub(crate) opts: OpenOptions,
    /// I/Os in flight at most.
    pub(crate) depth: usize,
    /// One per I/O in flight; their buffers stay where they are until the engine is gone.
    pub(crate) slots: Vec<Slot>,
    /// fio's batching: I/Os per submit call, completions per reap (least, most), and the
    /// depth a full queue drains to before it is refilled.
    pub(crate) batch: usize,
    pub(crate) cmin: usize,
    pub(crate) cmax: usize,
    pub(crate) low: usize,
    pub(crate) verifier: Option<Verifier>,
    pub(crate) journal: Option<JournalWriter>,
    /// `openfiles` below the number of files: which are open.
    pub(crate) openset: Option<OpenSet>,
}

/// The open options of a job's files.
fn open_options(spec: &fathom_job::JobSpec) -> OpenOptions {
    let k = spec.rw.kind;
    OpenOptions {
        write: k.writes() || k.trims(),
        direct: spec.direct,
        // Files not laid out before the job (create_on_open, fill_device) are made as it
        // opens them (allow_file_create=0: never).
        create: (spec.create_on_open
            || (spec.control.fill_device && k.writes() && !k.reads() && !spec.overwrite))
            && !spec.control.no_file_create,
        sync: spec.sync == fathom_job::SyncMode::Sync,
        dsync: spec.sync == fathom_job::SyncMode::Dsync,
        advice: {
            use fathom_engine::Advice as A;
            use fathom_job::FadviseHint as F;
            match spec.control.fadvise_hint {
                F::None => A::None,
                F::ByPattern if k.is_random() => A::Random,
                F::ByPattern | F::Sequential => A::Sequential,
                F::Random => A::Random,
                F::NoReuse => A::NoReuse,
            }
        },
    }
}

/// `dedupe_mode=working_set`: the blocks a clone's deduplicated writes repeat (its own
/// first blocks, or with `dedupe_global` those of every participating clone).
pub(crate) fn dedupe_set(
    job: &PlannedJob,
    clone: &PlannedClone,
) -> Option<fathom_engine::DedupeSet> {
    let spec = &job.spec;
    if !spec.dedupe_working_set || spec.dedupe_percentage == 0 {
        return None;
    }
    let bs = clone.params.len_range(1).0.max(1);
    // fio sizes the working set from the job's size in its smallest writes.
    let size: u64 = clone.files.iter().map(|f| f.region.len).sum();
    let n = (size * spec.dedupe_working_set_percentage as u64 / 100 / bs).max(1);
    let (seeds, first) = if job.dedupe_peers.is_empty() {
        (vec![clone.params.seed], 0)
    } else {
        let peers = job.dedupe_peers.to_vec();
        let first = peers
            .iter()
            .position(|&s| s == clone.params.seed)
            .unwrap_or(0);
        (peers, first)
    };
    Some(fathom_engine::DedupeSet { n, seeds, first })
}

/// One buffer per I/O slot, aligned for O_DIRECT (to the largest of the files' logical
/// block size, the page size and iomem_align), allocated once; a job that writes fills
/// them up front (as fio: a read job's stay untouched until the engine reads into them).
fn slots_for(job: &PlannedJob, clone: &PlannedClone, depth: usize) -> Vec<Slot> {
    let spec = &job.spec;
    let max_bs = (0..3)
        .map(|d| clone.params.len_range(d).1)
        .max()
        .unwrap_or(4096) as usize;
    // O_DIRECT buffers: aligned to max(logical block size, page size, iomem_align).
    let lbs = clone
        .files
        .iter()
        .filter(|_| spec.direct)
        .filter_map(|f| fathom_engine::logical_block_size(&f.path))
        .max()
        .unwrap_or(0) as usize;
    let align = (spec.iomem_align as usize)
        .max(4096)
        .max(lbs.next_power_of_two());
    let mut slots = Slot::many(depth, max_bs, align);
    if spec.rw.kind.writes() {
        for (i, s) in slots.iter_mut().enumerate() {
            job.buffers.fill(
                s.buf.as_mut_slice(),
                clone.params.seed ^ (i as u64 + 1) << 48,
                100,
                None,
            );
        }
    }
    slots
}

/// Set a clone up; the error is (errno, text) for the clone's result.
pub(crate) fn prepare(
    job: &PlannedJob,
    clone: &PlannedClone,
    cancel: &std::sync::atomic::AtomicBool,
    stats: &mut ThreadStats,
) -> Result<Prepared, (i32, String)> {
    let spec = &job.spec;
    let mut engine = fathom_engine::create_with(&spec.ioengine, &job.engine_options)
        .map_err(|e| (libc::EINVAL, e.to_string()))?;
    let opts = open_options(spec);
    // Buffers: one per I/O slot, aligned for O_DIRECT, allocated once.
    let depth = job.effective_iodepth.max(1) as usize;
    let mut slots = slots_for(job, clone, depth);
    let batch = match spec.iodepth_batch_submit as usize {
        0 => depth,
        b => b.min(depth),
    };
    let cmin = (spec.iodepth_batch_complete_min as usize).min(depth);
    let cmax = match spec.iodepth_batch_complete_max as usize {
        0 => cmin.max(1),
        m => m.max(cmin).max(1),
    };
    let low = spec
        .iodepth_low
        .map(|l| l as usize)
        .unwrap_or(depth)
        .min(depth);
    // write_hint: the lifetime hint on each file's inode, before any write.
    if let Some(hint) = spec.write_hint {
        for f in &clone.files {
            fathom_engine::set_write_hint(&f.path, hint).map_err(|e| {
                (
                    fathom_engine::errno_of(&e).unwrap_or(libc::EINVAL),
                    format!("write_hint on {}: {e}", f.path.display()),
                )
            })?;
        }
    }
    // verify: the clone's verifier; verify_journal: intents and acknowledgements of its
    // writes.
    let verifier = crate::verify::readback::verifier_for(clone, spec, stats)?;
    let journal = match (&verifier, &spec.verify.journal) {
        (Some(v), Some(p)) => Some(crate::verify::journal::journal_for(clone, spec, p, v)?),
        _ => None,
    };
    let ebufs: Vec<EngineBuf> = slots
        .iter_mut()
        .map(|s| EngineBuf {
            ptr: s.buf.as_mut_ptr(),
            len: s.buf.len(),
        })
        .collect();
    // SAFETY: the slots (and so every buffer) are moved into `Prepared` with the engine
    // and live until after the engine is closed and dropped at the end of the clone's
    // run; moving the Vec does not move the buffers, which are never reallocated. On an
    // error return below, no I/O was ever queued into them.
    unsafe { engine.setup(depth, &ebufs) }
        .map_err(|e| (e.raw_os_error().unwrap_or(libc::EINVAL), e.to_string()))?;
    // openfiles below the number of files: only the first that many are opened now;
    // later the least recently used idle file makes way for the next.
    // Control::count_opens (vdbench's file-system I/O): one file open at a time, each
    // pick of a file an open (and the file left a close), timed; the file choice stays
    // the job's (not fio's openfiles, which also narrows the choice).
    let count_opens = spec.control.count_opens && job.caps.metadata.is_none();
    let open_limit = spec
        .openfiles
        .map(|o| o.max(1) as usize)
        .filter(|&l| l < clone.files.len() && job.caps.metadata.is_none())
        .or(count_opens.then_some(1));
    // count_opens: every file starts closed, so the first pick's open is timed and
    // counted as every later one (vdbench counts each thread's first open too).
    let first_open = if count_opens { Some(0) } else { open_limit };
    open_files(&mut *engine, job, clone, &opts, first_open, cancel)?;
    let openset = open_limit.map(|limit| {
        let mut os = OpenSet::new(clone.files.len(), limit);
        if count_opens {
            os.all_closed();
            os.timed = Some(Vec::new());
            os.per_pick = match spec.file_service {
                (fathom_job::FileServiceKind::Sequential, 0) => u64::MAX,
                (_, k) => u64::from(k.max(1)),
            };
        }
        os
    });
    Ok(Prepared {
        engine,
        opts,
        depth,
        slots,
        batch,
        cmin,
        cmax,
        low,
        verifier,
        journal,
        openset,
    })
}
