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
    /// A replay; `timed`: its I/Os wait for their due times.
    Replay {
        cursor: ReplayCursor,
        timed: bool,
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
        }
    }

    /// When the I/O last handed out is due (a timed replay), from `start`.
    #[inline(always)]
    pub(crate) fn due(&self, start: Instant) -> Option<Instant> {
        match self {
            Source::Gen(_) => None,
            Source::Replay { cursor, timed } => replay_due(cursor, *timed, start),
        }
    }

    /// Take back an I/O handed out but not done (see [`Generator::give_back`]).
    pub(crate) fn give_back(&mut self, len: u64) {
        if let Source::Gen(g) = self {
            g.give_back(len);
        }
    }

    /// The loop the generator is in (a replay has one).
    pub(crate) fn loop_no(&self) -> u32 {
        match self {
            Source::Gen(g) => g.loop_no(),
            Source::Replay { .. } => 0,
        }
    }

    /// A replay (whose log's syncs at its end are issued, not dropped).
    pub(crate) fn is_replay(&self) -> bool {
        matches!(self, Source::Replay { .. })
    }
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
