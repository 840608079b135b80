//! cpus_allowed (split), nice, prio and prioclass land on each clone's thread.

mod common;
use common::HookEngine;
use fathom::{register_engine, Engine, Job, Runner, RwKind};
use std::sync::Mutex;

/// What each clone's thread looked like: (allowed CPUs, nice, ioprio).
static SEEN: Mutex<Vec<(Vec<usize>, i32, i64)>> = Mutex::new(Vec::new());

/// Record how the calling (clone) thread is placed.
fn where_am_i() {
    // SAFETY: plain libc queries of the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
        let cpus = (0..64).filter(|&c| libc::CPU_ISSET(c, &set)).collect();
        let tid = libc::gettid();
        let nice = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
        let ioprio = libc::syscall(libc::SYS_ioprio_get, 1 as libc::c_long, tid as libc::c_long);
        SEEN.lock().unwrap().push((cpus, nice, ioprio));
    }
}

#[test]
fn each_clone_runs_where_and_how_it_was_told() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        eprintln!("one CPU: split placement not tested");
        return;
    }
    register_engine("where-am-i", |_| {
        Box::new(HookEngine::new("where-am-i").on_open(where_am_i))
    });
    let job = Job::builder("w")
        .engine(Engine::Custom("where-am-i".into()))
        .rw(RwKind::Read)
        .size(1 << 20)
        .numjobs(2)
        .option("cpus_allowed", "0-1")
        .option("cpus_allowed_policy", "split")
        .option("nice", "5")
        .option("prioclass", "2")
        .option("prio", "6")
        .build()
        .unwrap();
    let r = Runner::new(job).run().unwrap();
    assert!(
        r.jobs.iter().all(|j| j.error_text.is_none()),
        "{:?}",
        r.jobs[0].error_text
    );
    let mut seen = SEEN.lock().unwrap().clone();
    seen.sort();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].0, vec![0]);
    assert_eq!(seen[1].0, vec![1]);
    for s in &seen {
        assert_eq!(s.1, 5, "nice");
        assert_eq!(s.2, (2 << 13) | 6, "best-effort class, priority 6");
    }
    // A CPU the machine does not have is a clear error, not a silent no-op.
    let bad = Job::builder("b")
        .engine(Engine::Null)
        .size(1 << 20)
        .option("cpus_allowed", "1000")
        .build()
        .unwrap();
    let r = Runner::new(bad).run().unwrap();
    let e = r.jobs[0].error_text.clone().unwrap_or_default();
    assert!(
        e.contains("cpus_allowed") && e.contains("CPUs online"),
        "{e}"
    );
}
