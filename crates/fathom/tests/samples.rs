//! Interval samples carry each interval's own latency percentiles.

use fathom::engine::{Caps, Completion, IoUnit, OpenOptions, Queued};
use fathom::{register_engine, Engine, IoEngine, Job, Runner, RwKind};
use std::time::{Duration, Instant};

/// 2 ms per I/O for the first 700 ms of its life, then instant.
struct SlowThenFast(Instant);

impl IoEngine for SlowThenFast {
    fn name(&self) -> &'static str {
        "slow-then-fast"
    }
    fn caps(&self) -> Caps {
        Caps {
            diskless: true,
            ..Default::default()
        }
    }
    fn open_file(&mut self, _: &std::path::Path, _: &OpenOptions) -> std::io::Result<usize> {
        Ok(0)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> std::io::Result<Queued> {
        if self.0.elapsed() < Duration::from_millis(700) {
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res: io.len as i64,
            short: 0,
        }))
    }
    fn sync_file(&mut self, _: usize, _: bool) -> std::io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn each_interval_has_its_own_latency_percentiles() {
    register_engine("slow-then-fast", |_| Box::new(SlowThenFast(Instant::now())));
    let job = Job::builder("s")
        .engine(Engine::Custom("slow-then-fast".into()))
        .rw(RwKind::RandRead)
        .size(1 << 30)
        .time_based()
        .runtime(Duration::from_millis(1600))
        .build()
        .unwrap();
    let r = Runner::new(job).run().unwrap();
    let samples = &r.jobs[0].stats.dirs[0].samples;
    assert!(samples.len() >= 3, "{samples:?}");
    // The first 500 ms: every I/O took ≥ 2 ms.
    assert!(samples[0].clat_p50 >= 2_000_000, "{:?}", samples[0]);
    // The last interval: no sleeping at all.
    let last = samples.last().unwrap();
    assert!(last.clat_p99 < 500_000, "{last:?}");
    assert!(last.clat_max <= r.jobs[0].stats.dirs[0].clat.max());
}
