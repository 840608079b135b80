//! Depth groups (vdbench's WD priority=): jobs sharing their I/Os in flight, the waiting
//! job of the highest priority served first.

use std::sync::atomic::Ordering;

/// A clone's membership of a depth group.
pub(crate) struct DepthMember<'a> {
    group: &'a crate::plan::DepthGroup,
    /// This member's priority (1 first).
    prio: usize,
    /// Places this member holds now.
    own: u32,
    /// Counted as waiting at its priority.
    waiting: bool,
}

impl<'a> DepthMember<'a> {
    pub(crate) fn join(group: &'a crate::plan::DepthGroup, priority: u32) -> DepthMember<'a> {
        DepthMember {
            group,
            prio: (priority as usize).clamp(1, group.waiting.len().max(2) - 1),
            own: 0,
            waiting: false,
        }
    }

    /// Take a place for one I/O: false (and counted as waiting) when the group is full or
    /// a member of a higher priority waits for a place.
    pub(crate) fn take(&mut self) -> bool {
        let g = self.group;
        let ahead = g.waiting[1..self.prio]
            .iter()
            .any(|w| w.load(Ordering::Acquire) > 0);
        if !ahead {
            let mut cur = g.inflight.load(Ordering::Acquire);
            while cur < g.depth {
                match g.inflight.compare_exchange_weak(
                    cur,
                    cur + 1,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => {
                        self.own += 1;
                        self.stop_waiting();
                        return true;
                    }
                    Err(now) => cur = now,
                }
            }
        }
        if !self.waiting {
            self.waiting = true;
            g.waiting[self.prio].fetch_add(1, Ordering::AcqRel);
        }
        false
    }

    /// Give a place back (its I/O ended, or was never started).
    pub(crate) fn give(&mut self) {
        if self.own > 0 {
            self.own -= 1;
            self.group.inflight.fetch_sub(1, Ordering::AcqRel);
        }
    }

    fn stop_waiting(&mut self) {
        if self.waiting {
            self.waiting = false;
            self.group.waiting[self.prio].fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Drop for DepthMember<'_> {
    fn drop(&mut self) {
        // Leaving (also after an engine failure with I/Os abandoned): the places it holds
        // go back so the other members do not wait for them forever.
        self.stop_waiting();
        self.group.inflight.fetch_sub(self.own, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::DepthGroup;
    use std::sync::atomic::AtomicU32;

    fn group(depth: u32, top: u32) -> DepthGroup {
        DepthGroup {
            inflight: AtomicU32::new(0),
            depth,
            waiting: (0..=top).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    #[test]
    fn places_are_shared_and_a_waiting_higher_priority_goes_first() {
        let g = group(2, 2);
        let mut hi = DepthMember::join(&g, 1);
        let mut lo = DepthMember::join(&g, 2);
        assert!(lo.take() && lo.take());
        // Full: the high-priority member waits; a freed place is not the low one's.
        assert!(!hi.take());
        lo.give();
        assert!(!lo.take());
        assert!(hi.take());
        // Nobody of a higher priority waits now: the low member may take a freed place.
        hi.give();
        assert!(lo.take());
        assert_eq!(g.inflight.load(Ordering::Relaxed), 2);
        drop(lo);
        assert_eq!(g.inflight.load(Ordering::Relaxed), 0);
        assert!(g.waiting.iter().all(|w| w.load(Ordering::Relaxed) == 0));
    }
}
