//! Where a clone's next I/O comes from: its generator, or the log it replays
//! (`read_iolog`), whose I/Os each have a due time and whose syncs come in between.

use fathom_workload::replay::ReplayCursor;
use fathom_workload::{Generator, IoReq};
use std::time::{Duration, Instant};

/// A clone's source of I/Os. (One per clone, on its thread's stack: the generator stays
/// inline rather than boxed, as it is asked for every I/O.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Source {
    Gen(Generator),
    /// The generator over a region reaching past the SD's end, whose I/Os there move back
    /// to its start (vdbench's range= past 100%; see `Params::range_wrap`). A variant of
    /// its own, so that other jobs' path is untouched.
    Wrapped(Generator, (u64, u64)),
    /// The generator over files laid end to end (vdbench's concatenated SDs; see
    /// `Params::concat`): each I/O moved to its file. A variant of its own, so that other
    /// jobs' path is untouched.
    Concat(Generator, std::sync::Arc<[u64]>),
    /// The generator of a read/write mix with a rate limit per direction: before each
    /// I/O it is told which direction is due (see [`Generator::steer_rate`]), from when
    /// each direction's next I/O may go (`next`, kept by the issue loop as it paces; None:
    /// unlimited). A variant of its own, so that other jobs' path is untouched.
    RateSteered {
        g: Generator,
        next: [Option<Instant>; 2],
    },
    /// A replay; `timed`: its I/Os wait for their due times.
    Replay {
        cursor: ReplayCursor,
        timed: bool,
    },
    /// The job's own order (`JobSpec::io_order`): the k-th I/O's offset in the first
    /// file, of one length and direction, at most `limit` of them (0: no limit).
    Ordered {
        order: fathom_job::IoOrder,
        k: u64,
        limit: u64,
        ddir: fathom_job::Ddir,
        len: u64,
    },
}

impl Source {
    /// The next I/O, or None when the work is done. A replay pushes the syncs its log
    /// holds before that I/O (or, at its end, after the last one) to `syncs`.
    #[inline(always)]
    pub(crate) fn next_io(&mut self, syncs: &mut Vec<(usize, bool)>) -> Option<IoReq> {
        match self {
            Source::Gen(g) => g.next_io(),
            Source::Replay { cursor, .. } => replay_next(cursor, syncs),
            Source::Wrapped(g, wrap) => wrapped_next(g, *wrap),
            Source::Concat(g, ends) => concat_next(g, ends),
            Source::RateSteered { g, next } => steered_next(g, *next),
            Source::Ordered {
                order,
                k,
                limit,
                ddir,
                len,
            } => ordered_next(order, k, *limit, *ddir, *len),
        }
    }

    /// When the I/O last handed out is due (a timed replay), from `start`.
    #[inline(always)]
    pub(crate) fn due(&self, start: Instant) -> Option<Instant> {
        match self {
            Source::Gen(_)
            | Source::Wrapped(..)
            | Source::Concat(..)
            | Source::RateSteered { .. }
            | Source::Ordered { .. } => None,
            Source::Replay { cursor, timed } => replay_due(cursor, *timed, start),
        }
    }

    /// A rate-steered mix: when each direction's next I/O may go, as `schedule` (started
    /// at `origin`) now says: after an I/O is paced, and when the schedule starts over.
    /// Nothing for other sources.
    pub(crate) fn rate_next(&mut self, schedule: &fathom_workload::Schedule, origin: Instant) {
        if let Source::RateSteered { next, .. } = self {
            *next = [0, 1].map(|d| schedule.next_at(d).map(|t| origin + t));
        }
    }

    /// Take back an I/O handed out but not done (see [`Generator::give_back`]).
    pub(crate) fn give_back(&mut self, len: u64) {
        match self {
            Source::Gen(g)
            | Source::Wrapped(g, _)
            | Source::Concat(g, _)
            | Source::RateSteered { g, .. } => g.give_back(len),
            Source::Ordered { k, .. } => *k = k.saturating_sub(1),
            Source::Replay { .. } => {}
        }
    }

    /// The ramp is over (see [`Generator::ramp_over`]).
    pub(crate) fn ramp_over(&mut self) {
        if let Some(g) = self.generator_mut() {
            g.ramp_over();
        }
    }

    /// The generator behind the source (none for a replay or an I/O order).
    #[inline]
    fn generator(&self) -> Option<&Generator> {
        match self {
            Source::Gen(g)
            | Source::Wrapped(g, _)
            | Source::Concat(g, _)
            | Source::RateSteered { g, .. } => Some(g),
            Source::Replay { .. } | Source::Ordered { .. } => None,
        }
    }

    /// The generator behind the source, to change (none for a replay or an I/O order).
    fn generator_mut(&mut self) -> Option<&mut Generator> {
        match self {
            Source::Gen(g)
            | Source::Wrapped(g, _)
            | Source::Concat(g, _)
            | Source::RateSteered { g, .. } => Some(g),
            Source::Replay { .. } | Source::Ordered { .. } => None,
        }
    }

    /// See `Generator::set_gate_until`.
    pub(crate) fn set_gate_until(&mut self, t: Option<Instant>) {
        if let Some(g) = self.generator_mut() {
            g.set_gate_until(t);
        }
    }

    /// See `Generator::file_busy_draws`.
    pub(crate) fn file_busy_draws(&self) -> u64 {
        self.generator().map_or(0, Generator::file_busy_draws)
    }

    /// See `Generator::leave_gate`.
    pub(crate) fn leave_gate(&mut self) {
        if let Some(g) = self.generator_mut() {
            g.leave_gate();
        }
    }

    /// The loop the generator is in (a replay has one).
    pub(crate) fn loop_no(&self) -> u32 {
        self.generator().map_or(0, Generator::loop_no)
    }

    /// The file service's turn a sync takes (see `Generator::sync_turn`).
    pub(crate) fn sync_turn(&mut self) -> Option<usize> {
        self.generator_mut().and_then(Generator::sync_turn)
    }

    /// Changes each time a file is found done (see `Generator::retired`).
    pub(crate) fn retired(&self) -> u32 {
        self.generator().map_or(0, Generator::retired)
    }

    /// The job's budget is spent (see `Generator::budget_spent`); a
    /// replay's never is.
    pub(crate) fn budget_spent(&self) -> bool {
        self.generator().is_some_and(Generator::budget_spent)
    }

    /// File `fi` is done for this pass.
    pub(crate) fn is_done(&self, fi: usize) -> bool {
        self.generator().is_some_and(|g| g.is_done(fi))
    }

    /// The pass the generator is in (a replay has one).
    pub(crate) fn pass_no(&self) -> u32 {
        self.generator().map_or(1, Generator::passes)
    }

    /// Changes where fio drops the files' cache (see `Generator::cache_epoch`).
    pub(crate) fn cache_epoch(&self) -> u32 {
        self.generator().map_or(1, Generator::cache_epoch)
    }

    /// See `Generator::whole_epoch`.
    pub(crate) fn whole_epoch(&self) -> u32 {
        self.generator().map_or(1, Generator::whole_epoch)
    }

    /// Marks in `dropped` the files a non-uniform file choice started over (to be dropped
    /// again), all of them when more came than were kept; the number newly marked.
    pub(crate) fn mark_restarted(&mut self, dropped: &mut [bool]) -> usize {
        let (Source::Gen(g)
        | Source::Wrapped(g, _)
        | Source::Concat(g, _)
        | Source::RateSteered { g, .. }) = self
        else {
            return 0;
        };
        let mut n = 0;
        match g.take_restarted() {
            Some(files) => {
                for f in files {
                    if let Some(d) = dropped.get_mut(f).filter(|d| **d) {
                        *d = false;
                        n += 1;
                    }
                }
            }
            None => {
                for d in dropped.iter_mut().filter(|d| **d) {
                    *d = false;
                    n += 1;
                }
            }
        }
        n
    }

    /// A replay (whose log's syncs at its end are issued, not dropped).
    pub(crate) fn is_replay(&self) -> bool {
        matches!(self, Source::Replay { .. })
    }
}

/// As fio's `rate_ddir` (see [`Generator::steer_rate`]): the directions due now, and
/// whether the writes' next time comes first.
#[inline(never)]
fn steered_next(g: &mut Generator, next: [Option<Instant>; 2]) -> Option<IoReq> {
    let now = crate::clock::now();
    let due = next.map(|t| t.is_none_or(|t| t <= now));
    let write_first = match next {
        [Some(r), Some(w)] => w < r,
        [Some(_), None] => true,
        [None, _] => false,
    };
    g.steer_rate(due, write_first);
    g.next_io()
}

#[inline(never)]
fn wrapped_next(g: &mut Generator, wrap: (u64, u64)) -> Option<IoReq> {
    g.next_io().map(|r| fathom_workload::wrap_offset(r, wrap))
}

#[inline(never)]
fn concat_next(g: &mut Generator, ends: &[u64]) -> Option<IoReq> {
    g.next_io().map(|r| fathom_workload::concat_offset(r, ends))
}

#[inline(never)]
fn ordered_next(
    order: &fathom_job::IoOrder,
    k: &mut u64,
    limit: u64,
    ddir: fathom_job::Ddir,
    len: u64,
) -> Option<IoReq> {
    if limit > 0 && *k >= limit {
        return None;
    }
    let offset = order.at(*k)?;
    *k += 1;
    Some(IoReq {
        ddir,
        file: 0,
        offset,
        len,
    })
}

/// Kept out of line: the generator's path through [`Source`] stays a few instructions.
#[inline(never)]
fn replay_next(cursor: &mut ReplayCursor, syncs: &mut Vec<(usize, bool)>) -> Option<IoReq> {
    cursor.next_io(syncs)
}

#[inline(never)]
fn replay_due(cursor: &ReplayCursor, timed: bool, start: Instant) -> Option<Instant> {
    timed.then(|| start + Duration::from_micros(cursor.due_us()))
}
