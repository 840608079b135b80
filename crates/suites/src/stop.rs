//! Stopping a suite early: [`request`] (what the CLI's SIGINT/SIGTERM handler calls)
//! cancels the fathom run a suite has going and makes [`stopped`] true; the suite then
//! ends its current test, prints what it finished and removes its files.

use fathom::CancelHandle;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static STOP: AtomicBool = AtomicBool::new(false);

/// The run a suite has going (cancelled by [`request`]).
static RUN: Mutex<Option<CancelHandle>> = Mutex::new(None);

/// Ask the running suite to stop: its current run is cancelled, and it stops at its next
/// check. Not for a signal handler itself (it takes a lock): call it from a thread that
/// watches for the signal.
pub fn request() {
    STOP.store(true, Ordering::SeqCst);
    if let Some(h) = RUN.lock().ok().and_then(|g| g.clone()) {
        h.cancel();
    }
}

/// True once [`request`] asked the suite to stop.
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Inside a suite's own I/O loop: an error once the suite was asked to stop (the suite
/// then reports what it finished).
pub fn check_stop() -> anyhow::Result<()> {
    if stopped() {
        anyhow::bail!("stopped by a signal");
    }
    Ok(())
}

/// Run one fathom job for a suite, cancelled by [`request`] (the result then holds what
/// was done; the suite checks [`stopped`] after it).
pub fn run_job(job: impl Into<fathom::JobSet>) -> Result<fathom::Report, fathom::RunError> {
    run_runner(fathom::Runner::new(job))
}

/// [`run_job`] for a runner already set up (with its interval events).
pub fn run_runner(r: fathom::Runner) -> Result<fathom::Report, fathom::RunError> {
    run_runner_with(r, fathom::plan::Limits::default())
}

/// [`run_runner`] planned with `limits` (e.g. this process's MPI rank, so that the plan
/// lays files out and numbers clones across every rank of the run).
pub fn run_runner_with(
    r: fathom::Runner,
    limits: fathom::plan::Limits,
) -> Result<fathom::Report, fathom::RunError> {
    let h = r.cancel_handle();
    if let Ok(mut g) = RUN.lock() {
        *g = Some(h.clone());
    }
    // A request that came before the handle was registered.
    if stopped() {
        h.cancel();
    }
    let plan = r.plan_with(limits)?;
    r.run_planned(&plan)
}

/// Run a one-job step of a suite and take that job's result; the job's error, after
/// `what` (a phase's name, or nothing), is the step's error.
pub fn run_step(job: impl Into<fathom::JobSet>, what: &str) -> anyhow::Result<fathom::JobResult> {
    let r = run_job(job)?;
    let j = r
        .jobs
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("stopped before the run started"))?;
    match &j.error_text {
        Some(e) if what.is_empty() => anyhow::bail!("{e}"),
        Some(e) => anyhow::bail!("{what}: {e}"),
        None => Ok(j),
    }
}
