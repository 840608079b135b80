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
    pub(crate) fn join(flow: &'a crate::plan::Flow, weight: u32) -> FlowMember<'a> {
        flow.total_weight
            .fetch_add(weight as u64, Ordering::Relaxed);
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
        // Leaving: the group goes on as if this member had never been in it.
        self.flow.counter.fetch_sub(self.own, Ordering::Relaxed);
        self.flow
            .total_weight
            .fetch_sub(self.weight, Ordering::Relaxed);
    }
}
