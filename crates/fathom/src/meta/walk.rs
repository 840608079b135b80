//! A `filetree` clone's run: its tree formatted before the clock, then one metadata
//! operation after another (each to a target it can act on), paced, sampled and
//! recorded, until its work, its runtime or a fatal error ends it.

use super::{act, format, lock, remove_tree, state_for, OpSampler, Shared, Target};
use crate::plan::{PlannedClone, PlannedJob, TreePlan};
use crate::record::live::LiveClone;
use crate::record::outcome::CloneOutcome;
use fathom_engine::{fsop, StatType};
use fathom_job::{JobSpec, MetaOp};
use fathom_stats::{CpuUsage, ThreadStats};
use fathom_workload::{OpMix, Rng, Schedule};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Run one `filetree` clone. `out` already holds the clone's start (placement and start
/// delay are done).
pub(crate) fn run(
    job: &PlannedJob,
    clone: &PlannedClone,
    t: &TreePlan,
    cancel: &AtomicBool,
    live: Option<&LiveClone>,
    mut out: CloneOutcome,
    t_start: Instant,
) -> CloneOutcome {
    let spec = &job.spec;
    // Format, before the clock.
    let t_fmt = Instant::now();
    let root_made = !t.root.exists();
    let mut w = match Walk::start(spec, clone, t) {
        Ok(w) => w,
        Err(e) => {
            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            out.stats.error = errno;
            out.error_text = Some(format!("format: {e}"));
            out.elapsed = t_start.elapsed();
            return out;
        }
    };
    out.setup = t_fmt.elapsed();
    // As fio: the work is one operation per file (× loops) unless number_ios says
    // otherwise; runtime caps it, time_based repeats it until the runtime is over.
    let total: u64 = if spec.number_ios > 0 {
        spec.number_ios
    } else if spec.time_based {
        u64::MAX
    } else {
        t.tree.files().max(1) * spec.loops.max(1) as u64
    };
    let mut thinker = crate::pace::Thinker::new(job.thinktime);
    out.stats = w.fresh();
    let mut flow = job
        .flow
        .as_deref()
        .map(|f| crate::pace::flow::FlowMember::join(f, spec.flow));
    let mut c = Clock::start(job, clone);
    let mut done = 0u64;
    while done < total {
        let now = crate::clock::now();
        if cancel.load(Ordering::Relaxed) || c.deadline.is_some_and(|d| now >= d) {
            break;
        }
        if c.ramping && now >= c.ramp_end {
            c.measure_from(now, spec);
            out.stats = w.fresh();
        }
        if !c.ramping {
            c.sampler.tick(now, &mut out.stats, live);
        }
        if !c.wait_turn(now, cancel) {
            break;
        }
        if let Some(l) = live {
            c.publish(now, &out.stats, l);
        }
        if let Some(f) = &mut flow {
            if f.ahead() {
                if !spec.flow_sleep.is_zero() {
                    std::thread::sleep(spec.flow_sleep);
                } else {
                    std::thread::yield_now();
                }
                continue;
            }
            f.issued();
        }
        done += 1;
        if !w.step(&mut out, &mut c.sampler) {
            break;
        }
        if thinker.count() && !thinker.stall(cancel, c.deadline) {
            break;
        }
    }
    w.leave();
    if c.ramping {
        out.stats = w.fresh();
        c.measure_start = crate::clock::now();
    }
    c.finish(spec, &mut out, live);
    for (_, fd) in w.open.drain(..) {
        let _ = fsop::close(fd);
    }
    if spec.unlink {
        let mut st = lock(&w.state);
        // A shared tree is removed by the last clone to leave it.
        if !spec.tree.shared || st.running == 0 {
            remove_tree(&mut st, t, root_made);
        }
    }
    out.elapsed = t_start.elapsed();
    out
}

/// The clone's clock: ramp, measured span, deadline, rate schedule, samples and the live
/// board's updates.
struct Clock {
    ramp_end: Instant,
    ramping: bool,
    measure_start: Instant,
    deadline: Option<Instant>,
    cpu_start: CpuUsage,
    schedule: Option<Schedule>,
    sched_origin: Instant,
    live_next: Instant,
    every: Duration,
    sampler: OpSampler,
    mix_len: usize,
}

impl Clock {
    fn start(job: &PlannedJob, clone: &PlannedClone) -> Clock {
        let spec = &job.spec;
        let schedule = {
            let r = spec.rate_iops.0.iter().copied().max().unwrap_or(0);
            (r > 0).then(|| {
                Schedule::new(
                    fathom_workload::RateSpec {
                        bytes_per_sec: [0; 3],
                        iops: [r, 0, 0],
                        process: job.rate.process,
                    },
                    clone.params.seed,
                )
            })
        };
        let io_start = crate::clock::now();
        let ramp_end = io_start + spec.ramp_time;
        let every = crate::io::sampler::sample_interval(spec);
        let mix_len = mix_of(spec).len();
        Clock {
            ramp_end,
            ramping: !spec.ramp_time.is_zero(),
            measure_start: io_start,
            deadline: spec.runtime.map(|r| ramp_end + r),
            cpu_start: CpuUsage::current_thread(),
            schedule,
            sched_origin: io_start,
            live_next: io_start,
            every,
            sampler: OpSampler::new(io_start, every, mix_len, spec.control.live_samples),
            mix_len,
        }
    }

    /// The ramp is over: measuring starts now.
    fn measure_from(&mut self, now: Instant, spec: &JobSpec) {
        self.ramping = false;
        self.measure_start = now;
        self.sampler = OpSampler::new(now, self.every, self.mix_len, spec.control.live_samples);
        self.cpu_start = CpuUsage::current_thread();
        self.deadline = spec.runtime.map(|r| now + r);
        if let Some(s) = &mut self.schedule {
            s.reset();
            self.sched_origin = now;
        }
    }

    /// Wait for the next operation's turn under rate_iops; false when the run ends first.
    fn wait_turn(&mut self, now: Instant, cancel: &AtomicBool) -> bool {
        let origin = self.sched_origin;
        match self
            .schedule
            .as_mut()
            .and_then(|s| s.intended(0, 0))
            .map(|d| origin + d)
        {
            Some(at) if at > now => crate::pace::wait_until(at, cancel, self.deadline),
            _ => true,
        }
    }

    /// The live board's count, every 50 ms.
    fn publish(&mut self, now: Instant, stats: &ThreadStats, l: &LiveClone) {
        if now >= self.live_next {
            let ops: u64 = stats.ops.iter().map(|o| o.ops).sum();
            let ms = now.duration_since(self.measure_start).as_millis() as u64;
            l.publish([ops, 0, 0], [0; 3], ms.max(1));
            self.live_next = now + Duration::from_millis(50);
        }
    }

    /// The last sample, the runtime and CPU, and the live board's final count.
    fn finish(&mut self, spec: &JobSpec, out: &mut CloneOutcome, live: Option<&LiveClone>) {
        let end = crate::clock::now();
        // The last, partial interval: kept when it lasted a millisecond or did anything
        // (a run whose work is all done within its first interval still has one).
        let unsampled = out
            .stats
            .ops
            .iter()
            .zip(&self.sampler.last)
            .any(|(o, l)| o.ops > l.0);
        if !self.ramping
            && spec.control.final_sample
            && (unsampled || end.duration_since(self.sampler.last_at) >= Duration::from_millis(1))
        {
            self.sampler.sample(end, &mut out.stats, live);
        }
        out.stats.runtime = end.duration_since(self.measure_start);
        out.stats.cpu = CpuUsage::current_thread().since(&self.cpu_start);
        if let Some(l) = live {
            let ops: u64 = out.stats.ops.iter().map(|o| o.ops).sum();
            l.publish(
                [ops, 0, 0],
                [0; 3],
                out.stats.runtime.as_millis().max(1) as u64,
            );
        }
    }
}

/// The job's operation mix (create alone when it names none).
fn mix_of(spec: &JobSpec) -> Vec<(MetaOp, u32)> {
    if spec.meta_mix.is_empty() {
        vec![(MetaOp::Create, 100)]
    } else {
        spec.meta_mix.clone()
    }
}

/// The clone's walk over its tree: what each operation needs.
struct Walk<'a> {
    spec: &'a JobSpec,
    t: &'a TreePlan,
    state: Shared,
    mix_spec: Vec<(MetaOp, u32)>,
    mix: OpMix,
    rng: Rng,
    buf: Vec<u8>,
    /// Files held open (open and close operations), at most `open_max`.
    open: Vec<(u64, std::os::fd::OwnedFd)>,
    open_max: usize,
    stat_type: StatType,
    /// A created file's size range.
    sizes: (u64, u64),
    tolerate: bool,
    /// A skip changes nothing, so a whole deck of skips (every operation of the mix tried
    /// on an unchanged tree) means no operation can ever be done: the job ends. On a
    /// shared tree that holds only while no other clone is at work on it.
    skips_in_a_row: u32,
    /// The tree's version when this clone found nothing to do.
    stalled_at: Option<u64>,
}

impl<'a> Walk<'a> {
    /// The clone's view of the tree, formatted (or found) as the job says.
    fn start(spec: &'a JobSpec, clone: &PlannedClone, t: &'a TreePlan) -> std::io::Result<Self> {
        let sizes = spec.filesize.unwrap_or((0, 0));
        let bs = spec.bs.0[1].max(spec.bs.0[0]).max(512) as usize;
        let mut buf = vec![0u8; bs];
        let mut fill_seed = clone.params.seed;
        fathom_engine::fill_random(&mut buf, &mut fill_seed);
        let mut rng = Rng::new(clone.params.seed ^ 0x7ee);
        let how = spec.tree.format.unwrap_or_default();
        let state = state_for(t, spec.tree.shared, &mut |st| {
            format(st, t, how, &buf, sizes, &mut rng)
        })?;
        let mix_spec = mix_of(spec);
        Ok(Walk {
            spec,
            t,
            state,
            mix: OpMix::new(&mix_spec),
            mix_spec,
            rng,
            buf,
            open: Vec::new(),
            open_max: spec.openfiles.map_or(1024, |o| o.max(1) as usize),
            stat_type: spec.engine.stat_type,
            sizes,
            tolerate: spec.errors.any(),
            skips_in_a_row: 0,
            stalled_at: None,
        })
    }

    /// Statistics with a slot for each operation of the mix, in its order.
    fn fresh(&self) -> ThreadStats {
        let mut s = ThreadStats::new();
        s.count_errors = self.tolerate;
        for (op, _) in &self.mix_spec {
            s.op_mut(op.name());
        }
        s
    }

    /// One operation of the mix to a target it can act on (or a skip when none can);
    /// false when the clone's run is over.
    fn step(&mut self, out: &mut CloneOutcome, sampler: &mut OpSampler) -> bool {
        let (spec, tree) = (self.spec, &self.t.tree);
        let op = self.mix.pick(&mut self.rng);
        let k = self
            .mix_spec
            .iter()
            .position(|(o, _)| *o == op)
            .unwrap_or(0);
        let (lo, hi) = self.sizes;
        let size = if hi > lo {
            lo + self.rng.below(hi - lo + 1)
        } else {
            lo
        };
        let Some(target) = self.reserve(op) else {
            out.stats.op_mut(op.name()).skipped += 1;
            return self.skipped();
        };
        self.skips_in_a_row = 0;
        // vdbench's sizes=: a created file's size by its place in the tree.
        let size = match target {
            Target::File(i) if op == MetaOp::Create && !spec.control.file_sizes.is_empty() => {
                fathom_job::size_of_file(&spec.control.file_sizes, i, tree.files())
            }
            _ => size,
        };
        let len = if size > 0 {
            size
        } else {
            self.buf.len() as u64
        };
        let (ns, bytes, r) = act(
            self.t,
            op,
            target,
            &mut self.open,
            self.stat_type,
            &mut self.buf,
            len,
            size,
        );
        lock(&self.state).release(tree, op, target, r.is_ok());
        sampler.saw(k, ns);
        let name = op.name();
        match r {
            Ok(()) => out.stats.record_op(name, None, ns, bytes, true),
            Err(e) => {
                out.stats.record_op(name, None, ns, bytes, false);
                let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                // An operation that changes nothing is of fio's read class, the rest write.
                let read = matches!(op, MetaOp::Stat | MetaOp::Read | MetaOp::Access);
                let class = fathom_job::ErrorPolicy::class(read, errno);
                if spec.errors.tolerates(class, errno) {
                    out.stats.total_err += 1;
                    if out.stats.first_error == 0 {
                        out.stats.first_error = errno;
                        out.first_error_text = Some(e.to_string());
                    }
                } else {
                    out.stats.error = errno;
                    out.error_text = Some(e.to_string());
                    return false;
                }
            }
        }
        true
    }

    /// A target for `op`, marked busy; None when the tree has none (this clone is then
    /// counted as stalled on the tree's present version).
    fn reserve(&mut self, op: MetaOp) -> Option<Target> {
        let mut st = lock(&self.state);
        let seq = self.spec.fileselect_sequential;
        let r = st.reserve(
            &self.t.tree,
            op,
            seq,
            &mut self.rng,
            &self.open,
            self.open_max,
        );
        if r.is_some() {
            if self.stalled_at.take().is_some() {
                st.stalled -= 1;
            }
        } else if self.stalled_at.is_none() {
            self.stalled_at = Some(st.version);
            st.stalled += 1;
        }
        r
    }

    /// After a skip: false when no operation can ever be done any more.
    fn skipped(&mut self) -> bool {
        self.skips_in_a_row += 1;
        if self.skips_in_a_row < 100 {
            return true;
        }
        if !self.spec.tree.shared {
            return false;
        }
        // Nothing to do here unless another clone changes the tree: wait while any is
        // at work (or the tree changed since this clone stalled).
        let st = lock(&self.state);
        if st.stalled >= st.running && self.stalled_at == Some(st.version) {
            return false;
        }
        // The tree changed since: look again from here.
        self.stalled_at = Some(st.version);
        drop(st);
        std::thread::sleep(Duration::from_micros(200));
        true
    }

    /// The clone leaves the tree (for the others sharing it).
    fn leave(&mut self) {
        let mut st = lock(&self.state);
        if self.stalled_at.is_some() {
            st.stalled -= 1;
        }
        st.running -= 1;
    }
}
