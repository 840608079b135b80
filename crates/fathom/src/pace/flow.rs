//! flow=: jobs of a flow group kept at their relative rates by a shared counter.

use std::sync::atomic::Ordering;

/// A clone's membership of a flow group (fio's flow control): it may issue while its
/// share of the group's I/Os is at most its share of the group's weight.
pub(crate) struct FlowMember<'a> {
    pub(crate) flow: &'a crate::plan::Flow,
    pub(crate) weight: u64,
    pub(crate) own: u64,
}

impl<'a> FlowMember<'a> {
    /// Join: the clone's weight was counted in the group before the phase's threads
    /// started ([`FlowWeight`]), as fio counts every member's at set-up, so a member that
    /// starts first does not run alone while the others are still starting.
    pub(crate) fn join(flow: &'a crate::plan::Flow, weight: u32) -> FlowMember<'a> {
        FlowMember {
            flow,
            weight: weight as u64,
            own: 0,
        }
    }
    /// True when this member has done more than its share.
    pub(crate) fn ahead(&self) -> bool {
        let total = self.flow.counter.load(Ordering::Relaxed).max(1) as f64;
        let weights = self.flow.total_weight.load(Ordering::Relaxed).max(1) as f64;
        self.own as f64 / total > self.weight as f64 / weights
    }
    /// Count one I/O.
    pub(crate) fn issued(&mut self) {
        self.flow.counter.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
    }
}

impl Drop for FlowMember<'_> {
    fn drop(&mut self) {
        // Leaving: the group's count goes on as if this member had never been in it (its
        // weight leaves with its thread: [`FlowWeight`]).
        self.flow.counter.fetch_sub(self.own, Ordering::Relaxed);
    }
}

/// A clone's weight in its flow group, counted from before its phase's threads start
/// until its thread ends (however it ends: a clone that fails before its first I/O takes
/// its weight away too).
pub(crate) struct FlowWeight {
    flow: std::sync::Arc<crate::plan::Flow>,
    weight: u64,
}

impl FlowWeight {
    pub(crate) fn count(flow: std::sync::Arc<crate::plan::Flow>, weight: u32) -> FlowWeight {
        flow.total_weight
            .fetch_add(u64::from(weight), Ordering::Relaxed);
        FlowWeight {
            flow,
            weight: u64::from(weight),
        }
    }
}

impl Drop for FlowWeight {
    fn drop(&mut self) {
        self.flow
            .total_weight
            .fetch_sub(self.weight, Ordering::Relaxed);
    }
}
