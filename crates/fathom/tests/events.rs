//! Runner events: interval progress and per-job results as jobs end.

use fathom::{Engine, Job, JobSpec, Progress, Runner, RwKind};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn null_job(name: &str) -> fathom::JobBuilder {
    Job::builder(name).engine(Engine::Null).rw(RwKind::RandRead)
}

#[test]
fn job_end_fires_once_per_job_in_the_order_jobs_end() {
    let first = null_job("first").size(4 << 20).build().unwrap();
    let second = null_job("second")
        .size(8 << 20)
        .flag("stonewall")
        .build()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let report = Runner::new(vec![first, second])
        .on_job_end(move |j| {
            s.lock()
                .unwrap()
                .push((j.name.clone(), j.stats.dirs[0].ios))
        })
        .run()
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![("first".to_string(), 1024), ("second".to_string(), 2048)]
    );
    assert_eq!(report.jobs.len(), 2);
}

#[test]
fn group_reporting_jobs_end_as_one_merged_result() {
    let job: JobSpec = null_job("clones")
        .size(4 << 20)
        .numjobs(3)
        .flag("group_reporting")
        .build()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    Runner::new(job)
        .on_job_end(move |j| s.lock().unwrap().push(j.stats.dirs[0].ios))
        .run()
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![3 * 1024]);
}

#[test]
fn interval_events_add_up_to_the_totals() {
    let job = null_job("timed")
        .size(64 << 20)
        .time_based()
        .runtime(Duration::from_millis(1600))
        .option("rate_iops", "20000")
        .build()
        .unwrap();
    let events: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let e = events.clone();
    let report = Runner::new(job)
        .on_interval(Duration::from_millis(250), move |p| {
            e.lock().unwrap().push(p.clone())
        })
        .run()
        .unwrap();
    let events = events.lock().unwrap();
    assert!(
        events.len() >= 4,
        "{} events in 1.6 s at 250 ms",
        events.len()
    );
    let mut sum = 0;
    for (i, p) in events.iter().enumerate() {
        assert_eq!(p.jobs.len(), 1);
        assert_eq!(p.jobs[0].name, "timed");
        sum += p.jobs[0].interval_ios[0];
        assert_eq!(
            sum, p.jobs[0].ios[0],
            "event {i}: intervals add up to the total"
        );
        assert!(p.interval > Duration::ZERO);
    }
    let done = report.jobs[0].stats.dirs[0].ios;
    assert!(events.last().unwrap().jobs[0].ios[0] <= done);
    // Progress was visible while running, not only at the end.
    assert!(events
        .iter()
        .any(|p| p.jobs[0].ios[0] > 0 && !p.jobs[0].done));
    let busy: Vec<f64> = events
        .iter()
        .filter(|p| p.jobs[0].interval_ios[0] > 0)
        .map(|p| p.interval_iops(0, 0))
        .collect();
    assert!(!busy.is_empty());
}
