//! Interval samples carry each interval's own latency percentiles.

mod common;
use common::HookEngine;
use fathom::{register_engine, Engine, Job, Runner, RwKind};
use std::time::{Duration, Instant};

#[test]
fn each_interval_has_its_own_latency_percentiles() {
    // 2 ms per I/O for the first 700 ms of the engine's life, then instant.
    register_engine("slow-then-fast", |_| {
        let born = Instant::now();
        Box::new(HookEngine::new("slow-then-fast").on_queue(move || {
            if born.elapsed() < Duration::from_millis(700) {
                std::thread::sleep(Duration::from_millis(2));
            }
        }))
    });
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
