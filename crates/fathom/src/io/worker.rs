//! The per-clone thread: place it, wait its start delay, run its pre-run hook, set it up
//! (`io/prepare.rs`), then the timing loop (`io/run_loop.rs`). Everything
//! here is owned by the thread: generator, engine, buffers and recorder; nothing is
//! shared on the hot path except the cancel flag (a relaxed atomic load per I/O).

use crate::io::prepare::prepare;
use crate::io::sampler::epoch_ms;
use crate::io::state::{fail, Loop};
use crate::io::thread::{exec_hook, place_thread, LockedMem};
use crate::pace::sleep_cancellable;
use crate::plan::{PlannedClone, PlannedJob};
use crate::record::outcome::CloneOutcome;
use fathom_stats::ThreadStats;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

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
            count_errors: spec.errors.any(),
            ..ThreadStats::new()
        },
        start_ms: epoch_ms(),
        ..Default::default()
    };
    let t_start = crate::clock::now();
    // Held while the clone runs.
    let Some(_locked) = before_io(job, clone, cancel, &mut out) else {
        out.elapsed = t_start.elapsed();
        return out;
    };
    if let Some(t) = &clone.tree {
        return crate::meta::run(job, clone, t, cancel, live, out, t_start);
    }
    let prepared = match prepare(job, clone, cancel, &mut out.stats) {
        Ok(p) => p,
        Err((errno, text)) => {
            fail(&mut out, errno, text);
            out.elapsed = t_start.elapsed();
            return out;
        }
    };
    match Loop::new(job, clone, cancel, live, (out, t_start), prepared) {
        Ok(mut lp) => {
            lp.run();
            lp.finish()
        }
        Err(out) => *out,
    }
}

/// Before the clone's I/O: its CPU affinity, nice value and I/O priority, its start
/// delay, `lockmem` and `exec_prerun`. The memory it pins, if any (held while the clone runs), or
/// None when the clone ends here: an error recorded in `out`, a stop, or `create_only`.
fn before_io(
    job: &PlannedJob,
    clone: &PlannedClone,
    cancel: &AtomicBool,
    out: &mut CloneOutcome,
) -> Option<Option<LockedMem>> {
    let spec = &job.spec;
    if let Err(text) = place_thread(spec, clone.jobnum) {
        fail(out, libc::EINVAL, text);
        return None;
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
        return None;
    }
    // lockmem: this clone pins that much memory while it runs.
    let locked = match LockedMem::new(spec.control.lockmem) {
        Ok(l) => l,
        Err(text) => {
            fail(out, libc::ENOMEM, text);
            return None;
        }
    };
    if spec.control.create_only {
        // The files were laid out before the clones started; no I/O.
        return None;
    }
    if let Some(cmd) = &spec.control.exec_prerun {
        if let Err(text) = exec_hook(&spec.name, "prerun", cmd, cancel) {
            // Stopped while the command ran: an interrupted job, not a failed one.
            if !cancel.load(Ordering::Relaxed) {
                fail(out, libc::EINVAL, text);
            }
            return None;
        }
    }
    Some(locked)
}
