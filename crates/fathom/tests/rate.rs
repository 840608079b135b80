//! Rate control on the null engine: achieved rates match the request; response latency
//! is measured from the intended issue time.

mod common;
use common::HookEngine;
use fathom::{JobSet, JobSpec, Runner, SizeSpec};
use fathom_job::{Rw, RwKind};
use fathom_workload::{RateProcess, RateSpec};
use std::time::Duration;

fn rated(process: RateProcess, iops: u64, secs: u64) -> fathom::RunResult {
    let job = JobSpec {
        name: "rate".into(),
        ioengine: "null".into(),
        rw: Rw {
            kind: RwKind::RandRead,
            suffix: 0,
        },
        size: Some(SizeSpec::Bytes(1 << 30)),
        time_based: true,
        runtime: Some(Duration::from_secs(secs)),
        ..Default::default()
    };
    let runner = Runner::new(JobSet {
        jobs: vec![job],
        global_options: vec![],
    });
    let mut plan = runner.plan().unwrap();
    plan.jobs[0].rate = RateSpec {
        iops: [iops, 0, 0],
        process,
        ..Default::default()
    };
    runner.run_planned(&plan).unwrap()
}

#[test]
fn linear_and_poisson_rates_are_within_one_percent_over_3s() {
    for process in [RateProcess::Linear, RateProcess::Poisson] {
        let r = rated(process, 20_000, 3);
        let s = &r.jobs[0].stats;
        let achieved = s.dirs[0].ios as f64 / s.runtime.as_secs_f64();
        assert!(
            (achieved / 20_000.0 - 1.0).abs() < 0.01,
            "{process:?}: {achieved} IOPS"
        );
        let d = &s.dirs[0];
        assert_eq!(d.resp.count(), d.ios, "every I/O has a response time");
        assert!(d.resp.min() >= d.lat.min() && d.resp.max() >= d.lat.max());
    }
}

#[test]
fn a_slow_target_cannot_hide_behind_the_rate_limiter() {
    // A device whose every I/O takes 1 ms.
    fathom_engine::register_engine("slow-test", |_| {
        Box::new(
            HookEngine::new("slow-test").on_queue(|| std::thread::sleep(Duration::from_millis(1))),
        )
    });
    let job = JobSpec {
        name: "slow".into(),
        ioengine: "slow-test".into(),
        rw: Rw {
            kind: RwKind::RandRead,
            suffix: 0,
        },
        size: Some(SizeSpec::Bytes(1 << 30)),
        time_based: true,
        runtime: Some(Duration::from_secs(1)),
        ..Default::default()
    };
    let runner = Runner::new(JobSet {
        jobs: vec![job],
        global_options: vec![],
    });
    let mut plan = runner.plan().unwrap();
    // 2000 IOPS asked of a device that does at most ~1000.
    plan.jobs[0].rate = RateSpec {
        iops: [2000, 0, 0],
        ..Default::default()
    };
    let r = runner.run_planned(&plan).unwrap();
    let d = &r.jobs[0].stats.dirs[0];
    assert!(d.clat.percentile(50.0) >= 1_000_000, "service time ≥ 1 ms");
    // Queueing delay grows through the run: the median response is far above service.
    assert!(
        d.resp.percentile(50.0) > 3 * d.clat.percentile(50.0),
        "resp p50 {} clat p50 {}",
        d.resp.percentile(50.0),
        d.clat.percentile(50.0)
    );
    assert!(d.resp.min() >= d.lat.min());
    assert!(
        r.jobs[0]
            .notes
            .iter()
            .any(|n| n.contains("could not keep up")),
        "{:?}",
        r.jobs[0].notes
    );
}
