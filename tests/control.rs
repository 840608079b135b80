//! Job control: steady state, flow, latency_target, sync_file_range, offset_align,
//! bs_is_seq_rand and per-direction zones.

mod common;
use common::*;
use std::time::{Duration, Instant};

/// The tests here measure rates and shares: run them one at a time, so they do not
/// compete for the two CPUs with each other.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fathomtest!(a_steady_job_ends_early_with_its_window_in_json, |env| {
    let _g = serial();
    // A rate-limited null job is steady at once: it ends after the window, not at 30 s.
    let t = Instant::now();
    let o = env.run(&[
        "--name=s",
        "--ioengine=null",
        "--size=1g",
        "--bs=4k",
        "--rate_iops=5000",
        "--time_based",
        "--runtime=30",
        "--ss=iops:5%",
        "--ss_dur=2",
        "--ss_interval=500ms",
        "--output-format=json",
        "--output-normal=n.txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    let v = json(&o);
    let text = std::fs::read_to_string(env.path().join("n.txt")).unwrap();
    let ss = &v["jobs"][0]["steadystate"];
    assert_eq!(ss["attained"], 1, "{ss}");
    assert_eq!(ss["ss"], "iops:5.000000%");
    assert_eq!(ss["data"]["iops"].as_array().unwrap().len(), 4);
    let mean = ss["data"]["iops_mean"].as_u64().unwrap();
    assert!((4500..=5500).contains(&mean), "{mean}");
    assert!(text.contains("steadystate  : attained=yes"), "{text}");

    // A criterion that can never hold runs the whole time and says so.
    let o = env.run(&[
        "--name=s",
        "--ioengine=null",
        "--size=1g",
        "--bs=4k",
        "--rate_iops=2000",
        "--time_based",
        "--runtime=2",
        "--ss=bw_slope:0",
        "--ss_dur=1",
        "--ss_interval=250ms",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let ss = &v["jobs"][0]["steadystate"];
    assert_eq!(ss["attained"], 0, "{ss}");
    assert!(v["jobs"][0]["read"]["runtime"].as_u64().unwrap() >= 1900);
    // Bad criteria are refused with the metrics named.
    let o = env.run(&["--name=s", "--ioengine=null", "--size=1m", "--ss=speed:1%"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("iops_slope"), "{}", stderr(&o));
});

fathomtest!(
    sync_file_range_runs_every_n_writes_over_the_written_range,
    |env| {
        let _g = serial();
        let o = env.run(&[
            "--name=s",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--sync_file_range=wait_before,write:8",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        let j = &v["jobs"][0];
        assert_eq!(j["write"]["total_ios"], 256);
        // One call after every 8 writes, before the next I/O (none after the last), each
        // timed in the sync section; fio's `total_ios` counts its fsyncs alone (0 here,
        // as fio 3.33 reports this job).
        assert_eq!(j["sync"]["total_ios"], 0);
        assert_eq!(j["sync"]["lat_ns"]["N"], 31);
        let o = env.run(&["--name=s", "--size=1m", "--sync_file_range=flush:8"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("wait_before"), "{}", stderr(&o));
        // write_barrier: only fio's sg engine acts on it; every other engine does plain
        // writes, in fio and in fathom (it was refused, so fio job files with it failed).
        let o = env.run(&[
            "--name=s",
            "--size=1m",
            "--rw=write",
            "--write_barrier=4",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(json(&o)["jobs"][0]["write"]["total_ios"], 256);
    }
);

fathomtest!(flow_weights_share_a_flow_group_3_to_1, |env| {
    let _g = serial();
    let f = env.write(
        "flow.fio",
        "[global]\nioengine=null\nsize=100g\nbs=4k\ntime_based\nruntime=1\nflow_id=1\n\
         [a]\nflow=3\n[b]\nflow=1\n[c]\nflow_id=2\nflow=5\n",
    );
    let o = env.run(&[
        f.to_str().unwrap(),
        "--output-format=json",
        "--write_iops_log=fl",
        "--log_avg_msec=100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let ios: Vec<f64> = (0..3)
        .map(|i| v["jobs"][i]["read"]["total_ios"].as_f64().unwrap())
        .collect();
    // The share holds while every member runs: the windows from 0.2 s to 0.8 s (at the
    // ends one member may run alone for a moment — started first, or left last — and
    // with the null engine a millisecond alone is thousands of I/Os).
    let mid = |n: u32| -> f64 {
        let log = std::fs::read_to_string(env.path().join(format!("fl_iops.{n}.log"))).unwrap();
        log.lines()
            .filter_map(|l| {
                let mut f = l.split(',').map(|x| x.trim().parse::<f64>().unwrap());
                let (t, iops) = (f.next()?, f.next()?);
                (200.0..=800.0).contains(&t).then_some(iops)
            })
            .sum()
    };
    let ratio = mid(1) / mid(2);
    assert!((ratio - 3.0).abs() < 0.3, "a:b = {ratio} ({ios:?})");
    // Alone in its group, c is not held back by a and b.
    assert!(ios[2] > ios[1], "{ios:?}");
    let o = env.run(&["--name=x", "--ioengine=null", "--size=1m", "--flow=-2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("weight"), "{}", stderr(&o));
});

fathomtest!(
    latency_target_finds_a_depth_and_reports_its_last_window,
    |env| {
        let _g = serial();
        // The null engine meets any sane target: the search doubles to iodepth, runs one
        // final window with fresh statistics, and ends long before the runtime.
        let t = Instant::now();
        let o = env.run(&[
            "--name=l",
            "--ioengine=null",
            "--iodepth=32",
            "--size=1g",
            "--bs=4k",
            "--latency_target=10ms",
            "--latency_window=100ms",
            // One preempted I/O on a loaded CI machine must not end the search.
            "--latency_percentile=99",
            "--time_based",
            "--runtime=30",
            "--output-format=json",
            "--output-normal=n.txt",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(t.elapsed() < Duration::from_secs(15));
        let v = json(&o);
        let j = &v["jobs"][0];
        assert_eq!(j["latency_depth"], 32);
        assert_eq!(j["latency_target"], 10_000_000);
        assert_eq!(j["latency_window"], 100_000);
        assert_eq!(j["latency_percentile"], 99.0);
        let rt = j["read"]["runtime"].as_u64().unwrap();
        assert!(
            (100..400).contains(&rt),
            "only the final window is reported: {rt} ms"
        );
        let text = std::fs::read_to_string(env.path().join("n.txt")).unwrap();
        assert!(
            text.contains(
                "latency   : target=10000000, window=100000, percentile=99.00%, depth=32"
            ),
            "{text}"
        );
        // An unreachable target at depth 1 ends the job with ETIMEDOUT and says why.
        let o = env.run(&[
            "--name=l",
            "--rw=write",
            "--size=1m",
            "--bs=64k",
            "--sync=1",
            "--latency_target=1ns",
            "--output-format=json",
        ]);
        let v = json(&o);
        assert_eq!(v["jobs"][0]["error"], libc_etimedout());
    }
);

fn libc_etimedout() -> i64 {
    110
}

fathomtest!(openfiles_keeps_at_most_that_many_files_open, |env| {
    let _g = serial();
    let dir = env.path().join("of");
    let child = env
        .cmd()
        .args([
            "--name=o",
            "--rw=randread",
            "--bs=4k",
            "--size=6m",
            "--nrfiles=6",
            "--openfiles=2",
            "--rate_iops=400",
            "--time_based",
            "--runtime=2",
            "--output-format=json",
        ])
        .arg(format!("--directory={}", dir.display()))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let fds = format!("/proc/{}/fd", child.id());
    let mut most = 0;
    let mut samples = 0;
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(2500) {
        let Ok(rd) = std::fs::read_dir(&fds) else {
            break;
        };
        let open = rd
            .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .filter(|p| p.starts_with(&dir))
            .count();
        // Before the clock every file is laid out and opened in turn; count once I/O runs.
        if t.elapsed() > Duration::from_millis(500) {
            most = most.max(open);
            samples += 1;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert!(samples > 20);
    assert!(most <= 2, "{most} job files open at once");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 300);
    // An engine that keeps its files open refuses, naming the engines that can.
    let o = env.run(&[
        "--name=o",
        "--size=1m",
        "--nrfiles=4",
        "--openfiles=2",
        "--ioengine=mmap",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("libaio"), "{}", stderr(&o));
});

fathomtest!(segments_lay_a_shared_file_out_as_ior_does, |env| {
    // Two clones, 4 segments, 16 KiB blocks: clone c's block of segment s is at
    // s × 2 × 16 KiB + c × 16 KiB. The verify headers say who wrote each chunk.
    let o = env.run(&[
        "--name=ior",
        "--filename=shared",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--numjobs=2",
        "--segments=4",
        "--verify=crc32c",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    for j in v["jobs"].as_array().unwrap() {
        assert_eq!(j["write"]["io_bytes"], 65536);
        assert_eq!(j["verify"]["failures"], 0);
    }
    let data = std::fs::read(env.path().join("shared")).unwrap();
    assert_eq!(data.len(), 128 << 10);
    let writer = |chunk: usize| {
        u32::from_le_bytes(
            data[chunk * 4096 + 12..chunk * 4096 + 16]
                .try_into()
                .unwrap(),
        )
    };
    let offset = |chunk: usize| {
        u64::from_le_bytes(
            data[chunk * 4096 + 16..chunk * 4096 + 24]
                .try_into()
                .unwrap(),
        )
    };
    let first = writer(0);
    for chunk in 0..32 {
        let block = chunk / 4; // 16 KiB blocks
        let want = if block % 2 == 0 { first } else { first + 1 };
        assert_eq!(writer(chunk), want, "chunk {chunk}");
        assert_eq!(offset(chunk), chunk as u64 * 4096);
    }
    // segments needs a shared file.
    let o = env.run(&["--name=x", "--size=1m", "--segments=4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("filename="), "{}", stderr(&o));
});

fathomtest!(
    rate_limited_async_jobs_stamp_completions_when_they_happen,
    |env| {
        let _g = serial();
        // Between two rate-limited I/Os the job used to sleep with the first in flight, so
        // its completion was stamped at the next wake-up: half the gap on average, 10 ms at
        // 50 IOPS (fio: µs; io_uring's worker threads can add a millisecond on a loaded
        // machine). It now reaps while it waits.
        let f = env.path().join("rate.dat");
        std::fs::write(&f, vec![7u8; 4 << 20]).unwrap();
        let file = format!("--filename={}", f.display());
        for engine in ["libaio", "io_uring"] {
            let o = env.run(&[
                "--name=r",
                &file,
                &format!("--ioengine={engine}"),
                "--iodepth=4",
                "--rw=randread",
                "--rate_iops=50",
                "--time_based",
                "--runtime=2s",
                "--output-format=json",
            ]);
            if engine == "io_uring" && !o.status.success() && stderr(&o).contains("io_uring") {
                continue; // a kernel (or sandbox) without io_uring
            }
            assert!(o.status.success(), "{engine}: {}", stderr(&o));
            let v = json(&o);
            let read = &v["jobs"][0]["read"];
            let iops = read["iops"].as_f64().unwrap();
            assert!((40.0..=60.0).contains(&iops), "{engine}: {iops}");
            let mean_us = read["clat_ns"]["mean"].as_f64().unwrap() / 1e3;
            assert!(
                mean_us < 3000.0,
                "{engine}: mean clat {mean_us} µs at 50 IOPS on a cached file"
            );
        }
    }
);
