//! Reaping: wait for completions ([`Loop::reap`]: iodepth_batch_complete_min/max, or
//! until the next I/O is due), reissue the rest of a short transfer, and account each
//! completion ([`Loop::account`]: latency, latency_target, think time, sync cadence,
//! verify).

use super::state::{fail, Loop};
use crate::io::slot::{complete, Recorder};
use crate::record::outcome::fills_device;
use fathom_engine::{Completion, Queued};
use fathom_stats::batch_index;

impl Loop<'_> {
    /// Wait for iodepth_batch_complete_min completions (0 = poll), take at most _max, and
    /// account them. When no more I/O will be issued, wait for at least one. False when
    /// the engine failed (the loop ends).
    #[inline(always)]
    pub(crate) fn reap(&mut self) -> bool {
        self.comps.clear();
        let min = if self.stopping {
            self.p.cmin.max(1)
        } else {
            self.p.cmin
        };
        let waited = match self.wake.take() {
            Some(at) if min == 0 => {
                // Never past the deadline: the job ends then.
                let until = self.deadline.map_or(at, |d| d.min(at));
                Some(self.p.engine.reap_until(
                    self.p.cmax,
                    &mut self.comps,
                    until.saturating_duration_since(self.now),
                ))
            }
            _ => None,
        };
        let n =
            match waited.unwrap_or_else(|| self.p.engine.reap(min, self.p.cmax, &mut self.comps)) {
                Ok(n) => n,
                Err(e) => {
                    fail(
                        &mut self.out,
                        e.raw_os_error().unwrap_or(libc::EIO),
                        format!("reap: {e}"),
                    );
                    self.engine_broken = true;
                    return false;
                }
            };
        self.now = crate::clock::now();
        if n > 0 {
            self.out.stats.depth_complete[batch_index(n as u32)] += 1;
        }
        let comps = std::mem::take(&mut self.comps);
        for &c in &comps {
            self.account(c);
        }
        self.comps = comps;
        true
    }

    /// One completion: a short transfer is reissued for the rest from the same slot;
    /// otherwise the slot is freed and the I/O accounted.
    #[inline(always)]
    fn account(&mut self, c0: Completion) {
        let spec = self.spec;
        let si = c0.tag as usize;
        let slot = &mut self.p.slots[si];
        let mut c = c0;
        if c.res > 0 && slot.done + (c.res as u64) < slot.req.len {
            slot.done += c.res as u64;
            slot.short += 1;
            let io = slot.unit(si, &self.clone.files);
            // SAFETY: as for the first submission of this slot.
            match unsafe { self.p.engine.queue(&io) } {
                Ok(Queued::Queued) => {
                    self.pending.push(si);
                    return;
                }
                Ok(Queued::Done(rest)) => c = rest,
                Err(e) => {
                    c.res = -(e.raw_os_error().unwrap_or(libc::EIO) as i64);
                }
            }
        }
        self.inflight -= 1;
        if let Some(d) = &mut self.depth {
            d.give();
        }
        if let Some(os) = &mut self.p.openset {
            os.inflight[slot.req.file] -= 1;
        }
        let slat = slot.t_sub.duration_since(slot.t_start).as_nanos() as u64;
        let clat = self.now.duration_since(slot.t_sub).as_nanos() as u64;
        let req = slot.req;
        self.free.push(si);
        let mut rec = Recorder::new(
            &mut self.out,
            spec,
            self.iolog.as_mut().map(|l| (l, self.measure_start)),
        );
        rec.no_data = self.job.caps.no_data;
        rec.sync_engine = !self.job.caps.is_async;
        if let Some((errno, text)) = complete(
            &mut rec,
            &self.p.slots[si],
            &c,
            Some(slat),
            clat,
            &self.clone.files,
        ) {
            if !fills_device(spec, errno) {
                self.fail_first(errno, text);
            }
            self.stopping = true;
            return;
        }
        if let Some(l) = &mut self.lt {
            let before = l.qd;
            if l.on_complete(slat + clat, self.now, &self.out.stats) {
                let text = l.fatal_text(slat + clat);
                self.fail_first(libc::ETIMEDOUT, text);
                self.stopping = true;
                return;
            }
            // Ramped down: let the deeper queue drain before judging the new depth.
            self.quiesce |= l.qd < before;
        }
        if !self.thinker.t.on_issue {
            self.thinker.count();
        }
        if !self.after_io(si, req) {
            self.stopping = true;
        }
    }
}
