//! fio's job-control options from real job files: each does what fio does, is accepted
//! with its meaning documented (docs/options.md), or is refused by name with the reason.

mod common;
use common::*;

fn run_json(env: &Env, args: &[&str]) -> (serde_json::Value, i32, String) {
    let dir = format!("--directory={}", env.path().display());
    let mut a = vec!["--output-format=json", dir.as_str()];
    a.extend_from_slice(args);
    let o = env.run(&a);
    (json(&o), o.status.code().unwrap_or(-1), stderr(&o))
}

fathomtest!(slat_percentiles_report_submission_percentiles, |env| {
    let (v, code, e) = run_json(
        &env,
        &[
            "--name=s",
            "--ioengine=libaio",
            "--iodepth=4",
            "--rw=randread",
            "--size=2m",
            "--slat_percentiles=1",
        ],
    );
    assert_eq!(code, 0, "{e}");
    let slat = &v["jobs"][0]["read"]["slat_ns"];
    assert!(slat["percentile"]["99.000000"].as_u64().is_some(), "{slat}");
    // Off by default, as in fio.
    let (v, _, _) = run_json(
        &env,
        &[
            "--name=s",
            "--ioengine=libaio",
            "--rw=randread",
            "--size=2m",
        ],
    );
    assert!(v["jobs"][0]["read"]["slat_ns"].get("percentile").is_none());
});

fathomtest!(
    max_latency_ends_the_job_and_exitall_on_error_stops_the_rest,
    |env| {
        let started = std::time::Instant::now();
        let (v, code, e) = run_json(
            &env,
            &[
                "--name=slow",
                "--rw=randread",
                "--size=2m",
                "--max_latency=1ns",
                "--exitall_on_error",
                "--name=long",
                "--ioengine=null",
                "--size=1m",
                "--time_based",
                "--runtime=30",
            ],
        );
        assert_eq!(code, 1, "{e}");
        assert_eq!(v["jobs"][0]["error"], libc::ETIMEDOUT);
        assert!(e.contains("exceeds max_latency"), "{e}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "the 30 s job was not stopped"
        );
    }
);

fathomtest!(create_only_lays_out_and_does_no_io, |env| {
    let (v, code, e) = run_json(
        &env,
        &["--name=c", "--rw=read", "--size=1m", "--create_only=1"],
    );
    assert_eq!(code, 0, "{e}");
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 0);
    assert_eq!(
        std::fs::metadata(env.path().join("c.0.0")).unwrap().len(),
        1 << 20
    );
});

fathomtest!(exec_prerun_and_postrun_run_around_each_clone, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--exec_prerun=echo before",
        "--exec_postrun=echo after",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let pre = std::fs::read_to_string(env.path().join("x.prerun.txt")).unwrap();
    let post = std::fs::read_to_string(env.path().join("x.postrun.txt")).unwrap();
    assert_eq!((pre.as_str(), post.as_str()), ("before\n", "after\n"));
    // A failing prerun fails the clone, as in fio.
    let o = env.run(&[
        "--output-format=json",
        "--name=y",
        "--ioengine=null",
        "--size=1m",
        "--exec_prerun=exit 3",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("exec_prerun 'exit 3' failed"),
        "{}",
        stderr(&o)
    );
});

fathomtest!(pre_read_and_log_unix_epoch, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--name=p",
        "--rw=read",
        "--size=2m",
        "--pre_read=1",
        "--write_lat_log=p",
        "--log_unix_epoch=1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["jobs"][0]["read"]["total_ios"], 512);
    let log = std::fs::read_to_string(env.path().join("p_clat.1.log")).unwrap();
    let t: u64 = log.split(',').next().unwrap().parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(
        t > now - 60_000 && t <= now,
        "{t} is not a recent epoch time in ms"
    );
});

fathomtest!(
    moot_options_are_accepted_and_refusals_name_the_reason,
    |env| {
        env.write(
            "m.fio",
            "[global]\nstats=0\ngtod_reduce=1\ndisable_lat=1\ndisable_clat=1\ndisable_slat=1\n\
         disable_bw_measurement=1\nverifysort=1\nunique_filename=0\ncreate_serialize=0\n\
         clocksource=cpu\ndisk_util=0\n[j]\nioengine=null\nsize=1m\n",
        );
        let o = env.run(&["--output-format=json", "m.fio"]);
        assert!(o.status.success(), "{}", stderr(&o));
        // Every figure is still measured.
        assert!(
            json(&o)["jobs"][0]["read"]["clat_ns"]["N"]
                .as_u64()
                .unwrap()
                > 0
        );
        if let Some(fio) = fio() {
            let f = std::process::Command::new(fio)
                .current_dir(env.path())
                .args(["--parse-only", "m.fio"])
                .output()
                .unwrap();
            assert!(f.status.success(), "fio takes the same file");
        }
        for (opt, says) in [
            ("--uid=0", "sudo -u"),
            ("--cgroup=x", "systemd-run"),
            ("--ioscheduler=none", "/sys/block"),
            ("--clocksource=tsc", "clock_gettime"),
        ] {
            let o = env.run(&["--name=r", "--ioengine=null", "--size=1m", opt]);
            assert_eq!(o.status.code(), Some(2), "{opt}");
            assert!(stderr(&o).contains(says), "{opt}: {}", stderr(&o));
        }
    }
);

fathomtest!(log_priority_issue_time_and_alternate_epoch_columns, |env| {
    let job = [
        "--name=p",
        "--rw=randread",
        "--size=1m",
        "--filename=data",
        "--write_lat_log=p",
        "--log_offset=1",
        "--number_ios=3",
        "--output=/dev/null",
    ];
    let lines = |extra: &[&str], tool: Option<&std::path::Path>| -> Vec<String> {
        let _ = std::fs::remove_file(env.path().join("p_clat.1.log"));
        let o = match tool {
            Some(fio) => std::process::Command::new(fio)
                .current_dir(env.path())
                .args(job)
                .args(extra)
                .output()
                .unwrap(),
            None => env.cmd().args(job).args(extra).output().unwrap(),
        };
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(env.path().join("p_clat.1.log"))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let last = |l: &str| l.rsplit(", ").next().unwrap().to_string();
    // log_prio: fio's hex ioprio value (best effort = class 2, level 4: 0x4004).
    let ours = lines(&["--prioclass=2", "--prio=4", "--log_prio=1"], None);
    assert_eq!(last(&ours[0]), "0x4004", "{ours:?}");
    // Without it: 1 for the real-time class, else 0.
    let rt = lines(&["--prioclass=1", "--prio=0"], None);
    assert_eq!(last(&rt[0]), "1", "{rt:?}");
    // log_issue_time: one more column, the issue time in ns.
    let issue = lines(&["--log_issue_time=1"], None);
    assert_eq!(issue[0].split(", ").count(), 7, "{issue:?}");
    // log_alternate_epoch with CLOCK_MONOTONIC: stamps near the machine's uptime.
    let mono = lines(
        &[
            "--log_alternate_epoch=1",
            "--log_alternate_epoch_clock_id=1",
        ],
        None,
    );
    let t: f64 = mono[0].split(", ").next().unwrap().parse().unwrap();
    let up: f64 = std::fs::read_to_string("/proc/uptime")
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((t / 1000.0 - up).abs() < 60.0, "{t} ms vs uptime {up} s");
    if let Some(fio) = fio() {
        for extra in [
            &["--prioclass=2", "--prio=4", "--log_prio=1"][..],
            &["--prioclass=1"],
        ] {
            let theirs = lines(extra, Some(&fio));
            let ours = lines(extra, None);
            assert_eq!(last(&theirs[0]), last(&ours[0]), "{extra:?}");
            assert_eq!(
                theirs[0].split(", ").count(),
                ours[0].split(", ").count(),
                "{extra:?}"
            );
        }
    }
});

fathomtest!(posixaio_runs_at_depth_verifies_and_counts_as_fio, |env| {
    // Buffered random writes at depth 16, each block checked afterwards.
    let (v, code, e) = run_json(
        &env,
        &[
            "--name=p",
            "--ioengine=posixaio",
            "--iodepth=16",
            "--rw=randwrite",
            "--bs=4k",
            "--size=4m",
            "--verify=crc32c",
        ],
    );
    assert_eq!(code, 0, "{e}");
    let j = &v["jobs"][0];
    assert_eq!(j["write"]["total_ios"], 1024);
    assert_eq!(j["read"]["total_ios"], 1024, "one verify read per block");
    assert_eq!(j["verify"]["failures"], 0);
    // It really keeps I/Os in flight: most I/Os are issued at depth 16.
    let at16 = j["iodepth_level"]["16"].as_f64().unwrap();
    assert!(at16 > 50.0, "{}", j["iodepth_level"]);
    if let Some(fio) = fio() {
        let args = [
            "--name=c",
            "--ioengine=posixaio",
            "--iodepth=8",
            "--rw=randrw",
            "--bs=4k",
            "--size=2m",
            "--output-format=json",
        ];
        let o = std::process::Command::new(fio)
            .current_dir(env.path())
            .args(args)
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&o.stdout);
        let f: serde_json::Value = serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
        let o = env.run(&args);
        let a = json(&o);
        let total = |v: &serde_json::Value| {
            v["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
                + v["jobs"][0]["write"]["total_ios"].as_u64().unwrap()
        };
        assert_eq!(total(&f), total(&a), "the same I/O as fio");
    }
});

fathomtest!(
    bandwidth_is_sampled_at_bwavgtime_or_the_log_interval,
    |env| {
        let samples = |extra: &[&str]| -> u64 {
            let mut a = vec![
                "--output-format=json",
                "--name=s",
                "--ioengine=null",
                "--size=1m",
                "--rw=read",
                "--time_based",
                "--runtime=1",
                "--rate_iops=2000",
            ];
            a.extend_from_slice(extra);
            let o = env.run(&a);
            assert!(o.status.success(), "{}", stderr(&o));
            json(&o)["jobs"][0]["read"]["bw_samples"].as_u64().unwrap()
        };
        // fio's default: every 500 ms (the one at the deadline may miss, as in fio).
        let n = samples(&[]);
        assert!((1..=2).contains(&n), "{n} samples at 500 ms over 1 s");
        // bwavgtime, and a bw log's interval (fio samples the job's bandwidth at it).
        let n = samples(&["--bwavgtime=100"]);
        assert!((8..=10).contains(&n), "{n} samples at 100 ms over 1 s");
        let n = samples(&["--write_bw_log=b", "--log_avg_msec=250"]);
        assert!((3..=4).contains(&n), "{n} samples at 250 ms over 1 s");
    }
);

fathomtest!(disk_stats_report_the_devices_under_the_files, |env| {
    let job = [
        "--name=d",
        "--rw=randread",
        "--size=4m",
        "--direct=1",
        "--filename=data",
        "--output-format=json,normal",
    ];
    let o = env.run(&job);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let start = out.find("\n{").map_or(0, |i| i + 1);
    let end = out.rfind("\n}\n").unwrap() + 3;
    let v: serde_json::Value = serde_json::from_str(&out[start..end]).unwrap();
    let disks = v["disk_util"].as_array().unwrap();
    let on_disk = std::fs::metadata(env.path())
        .map(|m| std::os::unix::fs::MetadataExt::dev(&m))
        .is_ok_and(|dev| {
            std::path::Path::new(&format!(
                "/sys/dev/block/{}:{}",
                libc::major(dev),
                libc::minor(dev)
            ))
            .exists()
        });
    if !on_disk {
        assert!(
            disks.is_empty(),
            "no block device under this folder: {disks:?}"
        );
        assert!(!out.contains("Disk stats"));
        return;
    }
    // Direct reads all reach the device (other processes may add their own).
    let d = &disks[0];
    assert!(d["read_ios"].as_u64().unwrap() >= 1024, "{d}");
    let util = d["util"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&util), "{d}");
    let name = d["name"].as_str().unwrap();
    assert!(
        out.contains(&format!("Disk stats (read/write):\n  {name}: ios=")),
        "{out}"
    );
    // disk_util=0 leaves them out, as in fio.
    let o = env.run(&[&job[..], &["--disk_util=0"]].concat());
    assert!(!stdout(&o).contains("Disk stats"));
});

fathomtest!(
    percentiles_and_json_plus_bins_appear_where_fio_writes_them,
    |env| {
        let shape = |v: &serde_json::Value| -> Vec<(bool, bool)> {
            let r = &v["jobs"][0]["read"];
            ["slat_ns", "clat_ns", "lat_ns"]
                .iter()
                .map(|k| (r[k].get("bins").is_some(), r[k].get("percentile").is_some()))
                .collect()
        };
        // (bins, percentiles) for slat, clat and lat.
        type Shape = [(bool, bool); 3];
        let cases: [(&[&str], Shape); 4] = [
            (&[], [(false, false), (true, true), (false, false)]),
            (
                &["--lat_percentiles=1"],
                [(false, false), (true, true), (true, true)],
            ),
            (
                &["--clat_percentiles=0", "--lat_percentiles=1"],
                [(false, false), (false, false), (true, true)],
            ),
            (
                &["--ioengine=libaio", "--slat_percentiles=1"],
                [(true, true), (true, true), (false, false)],
            ),
        ];
        for (extra, want) in cases {
            let mut args = vec![
                "--name=j",
                "--rw=randread",
                "--size=1m",
                "--filename=data",
                "--output-format=json+",
            ];
            args.extend_from_slice(extra);
            let o = env.run(&args);
            assert!(o.status.success(), "{}", stderr(&o));
            assert_eq!(shape(&json(&o)), want, "{extra:?}");
            if let Some(fio) = fio() {
                let f = std::process::Command::new(fio)
                    .current_dir(env.path())
                    .args(&args)
                    .output()
                    .unwrap();
                let s = String::from_utf8_lossy(&f.stdout);
                let v: serde_json::Value =
                    serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
                assert_eq!(shape(&v), want, "fio, {extra:?}");
            }
        }
    }
);

fathomtest!(group_reporting_group_lines_are_the_merged_job_s, |env| {
    let o = env.run(&[
        "--name=g",
        "--ioengine=null",
        "--size=32m",
        "--numjobs=3",
        "--group_reporting",
        "--rw=read",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let job_bw = out
        .lines()
        .find(|l| l.trim_start().starts_with("read: IOPS="))
        .and_then(|l| l.split("BW=").nth(1))
        .and_then(|r| r.split(' ').next())
        .unwrap()
        .to_string();
    let group = out
        .lines()
        .find(|l| l.trim_start().starts_with("READ: bw="))
        .unwrap();
    // As fio: the group's bandwidth is the merged job's, its range one value, its run
    // one runtime.
    let bw = group
        .split("bw=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(bw, job_bw, "{group}");
    let range = group.split(", ").nth(1).unwrap().split(' ').next().unwrap();
    let (lo, hi) = range.split_once('-').unwrap();
    assert_eq!(lo, hi, "{group}");
    let run = group
        .rsplit("run=")
        .next()
        .unwrap()
        .trim_end_matches("msec");
    let (a, b) = run.split_once('-').unwrap();
    assert_eq!(a, b, "{group}");
});

fathomtest!(serialize_overlap_and_lockmem, |env| {
    // Random writes at depth 16 over 16 blocks without the random map: overlaps galore.
    // Each I/O's [issue, completion] span comes from the clat log (issue time + clat).
    let overlaps = |serialize: &str| -> usize {
        let _ = std::fs::remove_file(env.path().join("o_clat.1.log"));
        let o = env.run(&[
            "--name=o",
            "--ioengine=libaio",
            "--direct=1",
            "--iodepth=16",
            "--rw=randwrite",
            "--norandommap",
            "--bs=4k",
            "--filename=data",
            "--size=64k",
            "--io_size=4m",
            "--write_lat_log=o",
            "--log_offset=1",
            "--log_issue_time=1",
            &format!("--serialize_overlap={serialize}"),
            "--output=/dev/null",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let log = std::fs::read_to_string(env.path().join("o_clat.1.log")).unwrap();
        // (offset, issue, completion) of every write.
        let mut ios: Vec<(u64, u64, u64)> = log
            .lines()
            .map(|l| {
                let f: Vec<u64> = l.split(", ").map(|x| x.parse().unwrap()).collect();
                (f[4], f[6], f[6] + f[1])
            })
            .collect();
        assert_eq!(ios.len(), 1024);
        ios.sort_unstable();
        ios.windows(2)
            .filter(|w| w[0].0 == w[1].0 && w[1].1 < w[0].2)
            .count()
    };
    assert_eq!(
        overlaps("1"),
        0,
        "no two writes to one block in flight at once"
    );
    assert!(
        overlaps("0") > 0,
        "without it, writes to one block do overlap"
    );
    // lockmem pins memory per clone (root here); an impossible amount is a clear error.
    let (_, code, e) = run_json(
        &env,
        &["--name=l", "--ioengine=null", "--size=1m", "--lockmem=8m"],
    );
    assert_eq!(code, 0, "{e}");
    let (_, code, e) = run_json(
        &env,
        &["--name=l", "--ioengine=null", "--size=1m", "--lockmem=64t"],
    );
    assert_ne!(code, 0);
    assert!(e.contains("lockmem"), "{e}");
});

/// fio's own example job files (Debian's fio-examples package): `fathom --parse-only`
/// agrees with `fio --parse-only` on each, where refusing a file because it needs an fio
/// engine fathom does not have (named in the message) counts as agreement. Nothing on this
/// machine is looked at: the files name /dev/nvme0n1, /dev/sda, /dev/XXX and sizes that
/// only those devices have. The files fathom still refuses for want of an option are
/// listed here, so the list can only shrink.
#[test]
fn parse_only_agrees_with_fio_on_fios_example_files() {
    let Some(fio) = fio() else { return };
    let Some(files) = fio_example_files() else {
        return;
    };
    // None left: zonemode=zbd (the last) came in with its emulated zones.
    let known_gaps: [&str; 0] = [];
    let env = Env::new();
    assert!(files.len() > 50, "{} example files", files.len());
    let (mut agree, mut by_engine) = (0, 0);
    let mut disagree = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let theirs = std::process::Command::new(&fio)
            .current_dir(env.path())
            .arg("--parse-only")
            .arg(f)
            .output()
            .unwrap();
        let ours = env.run(&["--parse-only", f.to_str().unwrap()]);
        let err = stderr(&ours);
        assert!(
            ours.status.code().is_some_and(|c| c == 0 || c == 2),
            "{name}: exit {:?}: {err}",
            ours.status.code()
        );
        let engine_named =
            err.contains("which fathom does not have") || err.contains("unknown ioengine");
        if ours.status.success() == theirs.status.success() {
            agree += 1;
        } else if !ours.status.success() && engine_named {
            by_engine += 1;
        } else {
            disagree.push(format!(
                "{name}: fio {:?}, fathom: {err}",
                theirs.status.code()
            ));
        }
    }
    let gaps: Vec<&str> = disagree
        .iter()
        .map(|d| d.split(':').next().unwrap())
        .collect();
    assert_eq!(gaps, known_gaps, "disagreements:\n{}", disagree.join("\n"));
    eprintln!(
        "{} files: {agree} agree, {by_engine} need an engine fathom lacks (named), {} known gaps",
        files.len(),
        known_gaps.len()
    );
}

fathomtest!(options_from_real_job_files_act_as_in_fio, |env| {
    // A zone with no size takes the rest of the region (fio's examples/rand-zones.fio).
    let o = env.run(&[
        "--name=z",
        "--ioengine=null",
        "--rw=randread",
        "--size=64m",
        "--norandommap",
        "--random_distribution=zoned:50/5:30/15:20/",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // threads= is the tiobench profile's option (no effect on a job), io_submit_mode
    // takes inline and offload, create_serialize is moot.
    for opt in [
        "--threads=1",
        "--io_submit_mode=offload",
        "--create_serialize=0",
    ] {
        let o = env.run(&["--name=m", "--ioengine=null", "--size=1m", opt]);
        assert!(o.status.success(), "{opt}: {}", stderr(&o));
    }
    let o = env.run(&[
        "--name=m",
        "--ioengine=null",
        "--size=1m",
        "--io_submit_mode=x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    // allow_file_create=0: a missing file is refused, an existing one used.
    let args = |f: &str| {
        vec![
            "--name=a".to_string(),
            format!("--filename={f}"),
            "--size=64k".into(),
            "--rw=write".into(),
            "--allow_file_create=0".into(),
        ]
    };
    let o = env.cmd().args(args("missing")).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("allow_file_create=0"), "{}", stderr(&o));
    assert!(!env.path().join("missing").exists());
    std::fs::write(env.path().join("there"), vec![0u8; 65536]).unwrap();
    let o = env.cmd().args(args("there")).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // An option of an engine fathom lacks names the engine.
    let o = env.run(&["--name=n", "--size=1m", "--hostname=h"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("hostname") && e.contains("net") && e.contains("which fathom does not have"),
        "{e}"
    );
    // falloc with direct=1 opens with O_DIRECT, as fio (the target dir is on disk).
    let o = env.run(&[
        "--name=f",
        "--ioengine=falloc",
        "--direct=1",
        "--size=1m",
        "--rw=write",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["jobs"][0]["write"]["total_ios"], 256);
});

/// fadvise_hint, seen with strace: the advice given at open is the one fio gives for the
/// same job (random for random patterns, sequential otherwise, none with 0).
#[test]
fn fadvise_hint_gives_the_advice_fio_gives() {
    let Some(fio) = fio_and_strace() else {
        return;
    };
    let env = Env::new();
    let advice = |tool: &std::path::Path, args: &[&str]| -> Vec<String> {
        let o = std::process::Command::new("strace")
            .args(["-f", "-e", "trace=fadvise64"])
            .arg(tool)
            .args(["--name=a", "--size=256k", "--filename=adv"])
            .args(args)
            .current_dir(env.path())
            .output()
            .unwrap();
        let mut v: Vec<String> = String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter_map(|l| l.split("POSIX_FADV_").nth(1))
            .map(|r| r.split(')').next().unwrap().to_string())
            .filter(|a| a != "DONTNEED")
            .collect();
        v.dedup();
        v
    };
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    for args in [
        &["--rw=randread"][..],
        &["--rw=read"],
        &["--rw=randwrite", "--ioengine=libaio"],
        &["--rw=read", "--fadvise_hint=0"],
        &["--rw=randread", "--fadvise_hint=sequential"],
        &["--rw=read", "--fadvise_hint=random", "--ioengine=mmap"],
    ] {
        let (a, b) = (advice(&ours, args), advice(&fio, args));
        assert_eq!(a, b, "{args:?}: fathom {a:?}, fio {b:?}");
    }
    assert_eq!(advice(&ours, &["--rw=randread"]), ["RANDOM"]);
}

/// invalidate=1, seen with strace beside fio: the page cache of each file's region (and
/// only that) is dropped when the job opens it, again at each pass over it — each loop,
/// each io_size pass — and before each verify phase, as fio drops it when it opens the
/// files again: a buffered job's later passes and its read-back read from the device,
/// not the cache (what an end_fsync made clean, before the read-back).
#[test]
fn invalidate_drops_each_region_at_each_pass_as_fio() {
    let Some(fio) = fio_and_strace() else {
        return;
    };
    let env = Env::new();
    env.write("inv1", &"fathom ".repeat(150_000));
    env.write("inv2", &"fathom ".repeat(150_000));
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    let drops = |tool: &std::path::Path, args: &[&str]| -> Vec<String> {
        let mut all = vec!["--name=a", "--bs=64k", "--ioengine=psync"];
        all.extend_from_slice(args);
        traced(env.path(), tool, "fadvise64", &all)
            .lines()
            .filter(|l| l.contains("POSIX_FADV_DONTNEED"))
            .map(|l| {
                // fadvise64(FD, OFFSET, LEN, ...): the range, whatever the descriptor.
                let args = l.split("fadvise64(").nth(1).unwrap();
                args.split(", ")
                    .skip(1)
                    .take(2)
                    .collect::<Vec<_>>()
                    .join("+")
            })
            .collect()
    };
    for args in [
        &["--filename=inv1", "--rw=read", "--size=512k", "--loops=3"][..],
        &[
            "--filename=inv1",
            "--rw=read",
            "--size=256k",
            "--io_size=768k",
        ],
        &[
            "--filename=inv1",
            "--rw=randread",
            "--size=512k",
            "--loops=2",
        ],
        &[
            "--filename=inv1:inv2",
            "--rw=read",
            "--size=1m",
            "--loops=2",
        ],
        &[
            "--filename=inv1",
            "--rw=write",
            "--offset=256k",
            "--size=256k",
            "--loops=2",
        ],
        &[
            "--filename=inv1",
            "--rw=read",
            "--size=512k",
            "--loops=2",
            "--invalidate=0",
        ],
        // The verify phase reads back what the cache no longer holds (fio reopens).
        &[
            "--filename=inv1",
            "--rw=write",
            "--size=512k",
            "--verify=crc32c",
        ],
        &[
            "--filename=inv1",
            "--rw=randwrite",
            "--size=256k",
            "--verify=crc32c",
            "--loops=2",
        ],
        &[
            "--filename=inv1",
            "--rw=write",
            "--size=512k",
            "--verify=crc32c",
            "--end_fsync=1",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
    ] {
        let (a, b) = (drops(&ours, args), drops(&fio, args));
        assert_eq!(a, b, "{args:?}: fathom {a:?}, fio {b:?}");
    }
    assert_eq!(
        drops(
            &ours,
            &[
                "--filename=inv1",
                "--rw=read",
                "--offset=256k",
                "--size=256k",
                "--loops=2"
            ]
        ),
        ["262144+262144", "262144+262144"]
    );
}

/// A time-based read/write mix over one file, seen with strace beside fio: each direction
/// goes round the file on its own, the other going on where it is, and the file's cache
/// is dropped at each direction's wrap — one drop for each region's worth moved by either
/// direction (fathom ended a pass where either direction reached the end, both starting
/// over: half the drops, and reads from a cache fio had emptied).
#[test]
fn a_time_based_mix_drops_the_cache_at_each_directions_wrap_as_fio() {
    let Some(fio) = fio_and_strace() else {
        return;
    };
    let env = Env::new();
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    for (t, tool) in [&ours, &fio].into_iter().enumerate() {
        let out = format!("mix{t}.json");
        let trace = traced(
            env.path(),
            tool,
            "fadvise64",
            &[
                "--name=a",
                &format!("--filename=mix{t}"),
                "--rw=rw",
                "--bs=64k",
                "--size=1m",
                "--ioengine=psync",
                "--time_based",
                "--runtime=500ms",
                "--output-format=json",
                &format!("--output={out}"),
            ],
        );
        let drops = trace.matches("POSIX_FADV_DONTNEED").count() as f64;
        let text = std::fs::read_to_string(env.path().join(&out)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
        let job = &v["jobs"][0];
        let moved = (job["read"]["io_bytes"].as_u64().unwrap()
            + job["write"]["io_bytes"].as_u64().unwrap()) as f64
            / (1u64 << 20) as f64;
        assert!(moved > 20.0, "tool {t}: only {moved} MiB moved");
        // One drop a wrap (the layout's and the first open's drops besides).
        let per_region = drops / moved;
        assert!(
            (0.85..1.15).contains(&per_region),
            "tool {t}: {drops} drops for {moved:.0} MiB moved over a 1 MiB file"
        );
    }
}

/// A non-uniform file choice (zipf, pareto, normal) starts an exhausted file over, which
/// fio does by closing and reopening it: its cache is dropped there, that file's alone.
/// Two existing 512 KiB files read for 3 MiB: six file passes, each with its drop, in
/// both tools (fathom dropped only at the first open: 2).
#[test]
fn a_file_a_non_uniform_choice_starts_over_is_dropped_from_the_cache_as_fio() {
    let Some(fio) = fio_and_strace() else {
        return;
    };
    let env = Env::new();
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    for fs in ["zipf:1.2", "pareto:0.9"] {
        for (t, tool) in [&ours, &fio].into_iter().enumerate() {
            let (a, b) = (format!("nu{t}a"), format!("nu{t}b"));
            env.write(&a, &"fathom ".repeat(524_288 / 7 + 1)[..524_288]);
            env.write(&b, &"fathom ".repeat(524_288 / 7 + 1)[..524_288]);
            let trace = traced(
                env.path(),
                tool,
                "fadvise64",
                &[
                    "--name=a",
                    &format!("--filename={a}:{b}"),
                    "--rw=read",
                    "--bs=64k",
                    "--size=1m",
                    "--io_size=3m",
                    "--ioengine=psync",
                    &format!("--file_service_type={fs}"),
                ],
            );
            let drops = trace.matches("POSIX_FADV_DONTNEED").count();
            assert!(
                (6..=9).contains(&drops),
                "tool {t}, {fs}: {drops} drops for six passes over a file"
            );
        }
    }
}

/// end_fsync, seen with strace beside fio: the files are synced at the end of each of
/// fio's loops (each loop, each io_size pass), not once at the job's end; a write job's
/// file, only preallocated before it, is not synced then (create_fsync syncs laid-out
/// data).
#[test]
fn end_fsync_syncs_at_each_loops_end_as_fio() {
    let Some(fio) = fio_and_strace() else {
        return;
    };
    let env = Env::new();
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    let syncs = |tool: &std::path::Path, args: &[&str]| -> usize {
        for f in ["es1", "es2"] {
            let _ = std::fs::remove_file(env.path().join(f));
        }
        let mut all = vec!["--name=a", "--bs=64k", "--size=1m", "--ioengine=psync"];
        all.extend_from_slice(args);
        traced(env.path(), tool, "fsync,fdatasync", &all)
            .lines()
            .filter(|l| l.contains("fsync(") && !l.contains("resumed"))
            .count()
    };
    for (args, want) in [
        (
            &["--filename=es1", "--rw=write", "--loops=3", "--end_fsync=1"][..],
            3,
        ),
        (
            &[
                "--filename=es1",
                "--rw=write",
                "--io_size=3m",
                "--end_fsync=1",
            ],
            3,
        ),
        (&["--filename=es1", "--rw=write", "--loops=3"], 0),
        (
            &[
                "--filename=es1:es2",
                "--rw=write",
                "--loops=2",
                "--end_fsync=1",
            ],
            4,
        ),
        (
            &[
                "--filename=es1",
                "--rw=randwrite",
                "--loops=2",
                "--end_fsync=1",
                "--ioengine=libaio",
                "--iodepth=4",
            ],
            2,
        ),
        (
            &["--filename=es1", "--rw=read", "--loops=2", "--end_fsync=1"],
            1,
        ),
    ] {
        let (a, b) = (syncs(&ours, args), syncs(&fio, args));
        assert_eq!(a, b, "{args:?}: fathom {a}, fio {b}");
        assert_eq!(a, want, "{args:?}");
    }
}

/// fio, when it and strace are installed (both required with FATHOM_REQUIRE_FIO=1): the
/// comparisons that watch both tools' system calls.
fn fio_and_strace() -> Option<std::path::PathBuf> {
    let fio = fio()?;
    if std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_err()
    {
        if std::env::var_os("FATHOM_REQUIRE_FIO").is_some() {
            panic!("strace is required for this comparison: apt-get install strace");
        }
        return None;
    }
    Some(fio)
}

/// `strace -f -e trace=CALLS` of a tool's run in `dir`: the trace (strace's stderr).
fn traced(dir: &std::path::Path, tool: &std::path::Path, calls: &str, args: &[&str]) -> String {
    let o = std::process::Command::new("strace")
        .args(["-f", "-e", &format!("trace={calls}")])
        .arg(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// create_fsync, thp and hipri_percentage, seen with strace beside fio: the same fsyncs
/// of a laid-out file, the same huge-page advice on mappings, and about the same share
/// of polled I/Os.
#[test]
fn create_fsync_thp_and_hipri_percentage_act_as_in_fio() {
    let Some(fio) = fio_and_strace() else {
        return;
    };
    let env = Env::new();
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    // A read job lays its file out first: fsync'd with create_fsync=1 (the default).
    for (k, (cf, want)) in [("1", 1), ("0", 0)].into_iter().enumerate() {
        for (t, tool) in [&ours, &fio].into_iter().enumerate() {
            let name = format!("cf{k}{t}");
            let trace = traced(
                env.path(),
                tool,
                "fsync,fdatasync",
                &[
                    "--name=a",
                    "--size=256k",
                    &format!("--filename={name}"),
                    "--rw=read",
                    &format!("--create_fsync={cf}"),
                ],
            );
            let n = trace.lines().filter(|l| l.contains("fsync(")).count();
            assert_eq!(n, want, "create_fsync={cf} ({}): {trace}", tool.display());
        }
    }
    // thp: the mmap engine asks for huge pages on its mappings.
    for tool in [&ours, &fio] {
        let trace = traced(
            env.path(),
            tool,
            "madvise",
            &[
                "--name=m",
                "--size=4m",
                "--filename=thp",
                "--rw=read",
                "--ioengine=mmap",
                "--thp=1",
            ],
        );
        assert!(
            trace.contains("MADV_HUGEPAGE"),
            "{}: {trace}",
            tool.display()
        );
    }
    // hipri_percentage=30: about 30% of pvsync2's reads carry RWF_HIPRI.
    for tool in [&ours, &fio] {
        let trace = traced(
            env.path(),
            tool,
            "preadv2",
            &[
                "--name=h",
                "--size=4m",
                "--bs=4k",
                "--filename=hipri",
                "--rw=randread",
                "--ioengine=pvsync2",
                "--hipri=1",
                "--hipri_percentage=30",
            ],
        );
        let calls = trace.lines().filter(|l| l.contains("preadv2(")).count();
        let hipri = trace.lines().filter(|l| l.contains("RWF_HIPRI")).count();
        assert_eq!(calls, 1024, "{}", tool.display());
        let share = hipri as f64 / calls as f64;
        assert!(
            (0.25..0.35).contains(&share),
            "{}: {hipri} of {calls}",
            tool.display()
        );
    }
}

// write_hint sets the lifetime hint on the file's inode, read back with F_GET_RW_HINT.
fathomtest!(write_hint_sets_the_files_lifetime_hint, |env| {
    let o = env.run(&[
        "--name=w",
        "--size=64k",
        "--filename=hinted",
        "--rw=write",
        "--write_hint=long",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let py = "import fcntl,sys\nf=open(sys.argv[1])\nb=fcntl.fcntl(f.fileno(),1035,bytes(8))\nprint(int.from_bytes(b,'little'))";
    let got = std::process::Command::new("python3")
        .args(["-c", py, env.path().join("hinted").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got.stdout).trim(),
        "4",
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    // A value fio does not take is refused with the ones it does.
    let o = env.run(&[
        "--name=w",
        "--size=64k",
        "--filename=x",
        "--write_hint=forever",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("none, short, medium, long or extreme"),
        "{}",
        stderr(&o)
    );
    // Options fathom does not take yet say why, and what to use.
    let o = env.run(&["--name=w", "--size=64k", "--filename=x", "--atomic=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not supported yet: O_ATOMIC"),
        "{}",
        stderr(&o)
    );
    // Accepted with their meaning documented: fathom has no clock thread, no log
    // compression threads, and logs that grow.
    let o = env.run(&[
        "--parse-only",
        "--name=w",
        "--size=64k",
        "--gtod_cpu=1",
        "--log_entries=4096",
        "--log_compression_cpus=0-1",
        "--hugepage-size=2m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
});

// softrandommap: a random map too large for the machine means no map, as fio goes on
// without one when it cannot allocate it; without it the job is refused with the advice.
fathomtest!(softrandommap_runs_without_a_map_that_would_not_fit, |env| {
    let args = |soft: &str| {
        vec![
            "--name=s".to_string(),
            "--ioengine=null".into(),
            "--size=8000T".into(),
            "--bs=512".into(),
            "--rw=randread".into(),
            "--runtime=200ms".into(),
            "--time_based".into(),
            format!("--softrandommap={soft}"),
            "--output-format=json".into(),
        ]
    };
    let run = |soft: &str| {
        let a = args(soft);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        env.run(&a)
    };
    let o = run("0");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("add norandommap"), "{}", stderr(&o));
    let o = run("1");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(json(&o)["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
});

/// dedupe_mode (repeat and working_set, with and without dedupe_global) beside fio on
/// fio's own dedupe-global example, scaled down: the share of distinct blocks in each
/// file and across the two files agrees with fio's to within 0.05 (fio's: about 0.5 per
/// file and together without a shared working set, 0.65 per file and 0.5 together with
/// one).
#[test]
fn dedupe_modes_give_the_dedupe_ratios_fio_gives() {
    let Some(fio) = fio() else { return };
    let env = Env::new();
    let ours = std::path::PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    for (mode, global) in [("working_set", "1"), ("working_set", "0"), ("repeat", "0")] {
        let job = format!(
            "[global]\nioengine=libaio\niodepth=16\nsize=8m\ndedupe_mode={mode}\n\
             dedupe_global={global}\ndedupe_percentage=50\nblocksize=4k\nrw=write\n\
             buffer_compress_percentage=50\ndedupe_working_set_percentage=50\n\n[a]\n\n[b]\n"
        );
        let p = env.write("dd.fio", &job);
        let mut got = Vec::new();
        for tool in [&ours, &fio] {
            for f in ["a.0.0", "b.0.0"] {
                let _ = std::fs::remove_file(env.path().join(f));
            }
            let o = std::process::Command::new(tool)
                .arg(&p)
                .arg("--output=/dev/null")
                .current_dir(env.path())
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            got.push(distinct_share(&[
                env.path().join("a.0.0"),
                env.path().join("b.0.0"),
            ]));
        }
        let ((ours_each, ours_all), (fio_each, fio_all)) = (&got[0], &got[1]);
        for (a, b) in ours_each.iter().zip(fio_each) {
            assert!(
                (a - b).abs() <= 0.05,
                "{mode} global={global}: a file {a} vs fio's {b}"
            );
        }
        assert!(
            (ours_all - fio_all).abs() <= 0.05,
            "{mode} global={global}: together {ours_all} vs fio's {fio_all}"
        );
        if mode == "working_set" && global == "1" {
            assert!(ours_each[0] > 0.6 && *ours_all < 0.55, "{got:?}");
        }
    }
}

// cmdprio: a share of the I/Os carries its own priority, and each priority's completion
// latencies are reported as fio reports them: `clat prio C/L` lines and percentile blocks
// in the normal output, a `prios` array in JSON (with bins in JSON+), the priority in the
// log's priority column. fio run side by side reports the same priorities.
fathomtest!(cmdprio_reports_latencies_per_priority_as_fio, |env| {
    let job = [
        "--name=p",
        "--ioengine=libaio",
        "--iodepth=4",
        "--rw=randread",
        "--bs=4k",
        "--size=8m",
        "--number_ios=4000",
        "--cmdprio_percentage=30",
        "--cmdprio_class=2",
        "--cmdprio=3",
    ];
    let (v, code, e) = run_json(&env, &job);
    assert_eq!(code, 0, "{e}");
    let read = &v["jobs"][0]["read"];
    let prios = read["prios"].as_array().expect("a prios array");
    let got: Vec<(u64, u64)> = prios
        .iter()
        .map(|p| {
            (
                p["prioclass"].as_u64().unwrap(),
                p["prio"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, vec![(0, 0), (2, 3)], "the job's own priority first");
    let n: Vec<u64> = prios
        .iter()
        .map(|p| p["clat_ns"]["N"].as_u64().unwrap())
        .collect();
    assert_eq!(n[0] + n[1], read["total_ios"].as_u64().unwrap());
    let share = n[1] as f64 / (n[0] + n[1]) as f64;
    assert!((0.26..0.34).contains(&share), "share {share}");
    assert!(prios[1]["clat_ns"]["percentile"]["99.000000"].is_u64());
    // Writes had no cmdprio share and read nothing: no array.
    assert!(v["jobs"][0]["write"].get("prios").is_none());

    // JSON+: the per-priority latencies carry their bins.
    let dir = format!("--directory={}", env.path().display());
    let mut a = vec!["--output-format=json+", dir.as_str()];
    a.extend_from_slice(&job);
    let plus = json(&env.run(&a));
    let bins = plus["jobs"][0]["read"]["prios"][1]["clat_ns"]["bins"]
        .as_object()
        .expect("bins");
    let in_bins: u64 = bins.values().map(|b| b.as_u64().unwrap()).sum();
    let n1 = plus["jobs"][0]["read"]["prios"][1]["clat_ns"]["N"].as_u64();
    assert_eq!(Some(in_bins), n1);

    // The normal output, and a latency log with each I/O's ioprio value.
    let mut a = vec![dir.as_str(), "--write_lat_log=pl", "--log_prio=1"];
    a.extend_from_slice(&job);
    let o = env.run(&a);
    let text = stdout(&o);
    assert!(text.contains("    clat prio 0/0 ("), "{text}");
    assert!(text.contains("    clat prio 2/3 ("), "{text}");
    assert!(text.contains("% of IOs) percentiles ("), "{text}");
    let log = std::fs::read_to_string(env.path().join("pl_clat.1.log"))
        .or_else(|_| std::fs::read_to_string("pl_clat.1.log"))
        .expect("the clat log");
    let tagged = log.lines().filter(|l| l.ends_with(", 0x4003")).count();
    let plain = log.lines().filter(|l| l.ends_with(", 0x0000")).count();
    assert_eq!(tagged + plain, log.lines().count(), "{log:.300}");
    assert!(tagged > 0 && plain > tagged, "{tagged} {plain}");

    // Not an option of the synchronous engines (fio refuses it there too).
    let o = env.run(&["--name=s", "--size=1m", "--cmdprio_percentage=30"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("libaio and io_uring"), "{e}");

    let Some(fio) = fio() else { return };
    let out = std::process::Command::new(&fio)
        .current_dir(env.path())
        .arg("--output-format=json")
        .args(job)
        .output()
        .unwrap();
    let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("fio's JSON");
    let tp = theirs["jobs"][0]["read"]["prios"]
        .as_array()
        .expect("fio's prios");
    let their: Vec<(u64, u64)> = tp
        .iter()
        .map(|p| {
            (
                p["prioclass"].as_u64().unwrap(),
                p["prio"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(their, got, "the same priorities, in the same order, as fio");
    assert_eq!(
        theirs["jobs"][0]["read"]["total_ios"], read["total_ios"],
        "the same number of I/Os"
    );
});

// fio's "job options" and "global options" hold the options written with a value; those
// written bare (stonewall, time_based, thread) are left out, as fio does.
fathomtest!(json_job_options_leave_out_bare_options_as_fio, |env| {
    let (v, code, e) = run_json(
        &env,
        &[
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--name=b",
            "--stonewall",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=1ms",
        ],
    );
    assert_eq!(code, 0, "{e}");
    let opts = v["jobs"][1]["job options"]
        .as_object()
        .expect("job options");
    let keys: Vec<&str> = opts.keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "ioengine", "size", "runtime"], "{opts:?}");
});

// fio names each option in "job options" and "global options" by its own name, not by
// the alias or the shortened name typed (readwrite → rw, blocksize → bs, --blocka → ba):
// tools that read fio's JSON look the options up by those names.
fathomtest!(json_options_are_named_as_fio_names_them, |env| {
    let job = "[global]\nioengine=null\nblocksize=4k\nreadwrite=read\nnr_files=1\n\
               timeout=10\n[a]\nsize=64k\nfileoffset=0\nio_limit=64k\nblockalign=4k\n\
               iomem=malloc\nmem_align=0\niodepth_batch_submit=1\n\
               iodepth_batch_complete=1\nallrandrepeat=1\ndisable_bw=0\nratecycle=1000\n";
    std::fs::write(env.path().join("j.fio"), job).unwrap();
    let cli = [
        "--name=c",
        "--ioengine=null",
        "--size=64k",
        "--blocka=4k",
        "--buffere=1",
        "--log_max=1",
        "--readwrite=write",
    ];
    let runs: [&[&str]; 2] = [&["j.fio"], &cli];
    for args in runs {
        let mut a = vec!["--output-format=json"];
        a.extend_from_slice(args);
        let o = env.run(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        let ours = json(&o);
        let names = |v: &serde_json::Value, at: &str| -> Vec<String> {
            let mut k: Vec<String> = v
                .pointer(at)
                .and_then(|o| o.as_object())
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        assert!(names(&ours, "/jobs/0/job options").contains(&"ba".to_string()));
        assert!(!names(&ours, "/jobs/0/job options").contains(&"blockalign".to_string()));
        let Some(fio) = fio() else { continue };
        let o = std::process::Command::new(fio)
            .current_dir(env.path())
            .args(&a)
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&o.stdout);
        let theirs: serde_json::Value =
            serde_json::from_str(&t[t.find('{').expect("fio's JSON")..]).unwrap();
        for at in ["/global options", "/jobs/0/job options"] {
            assert_eq!(names(&ours, at), names(&theirs, at), "{args:?} {at}");
            assert_eq!(ours.pointer(at), theirs.pointer(at), "{args:?} {at}");
        }
    }
});

// A verified write starts before its data (and checksum) are made, as in fio: the making
// is in its total latency (and an async engine's submission latency), not in its
// completion latency. A sync engine shows no submission latency still.
fathomtest!(
    a_verified_writes_lat_counts_the_making_of_its_data_as_fio,
    |env| {
        let job = [
            "--name=v",
            "--filename=f",
            "--size=8m",
            "--bs=1m",
            "--rw=write",
            "--verify=sha512",
            "--do_verify=0",
        ];
        let runs = fathom_and_fio(&env, &job);
        for (v, who) in &runs {
            let w = &v["jobs"][0]["write"];
            let mean = |k: &str| w[k]["mean"].as_f64().unwrap();
            assert_eq!(w["lat_ns"]["N"], 8, "{who}");
            assert_eq!(w["clat_ns"]["N"], 8, "{who}");
            assert_eq!(w["slat_ns"]["N"], 0, "{who}: a sync engine has no slat");
            // A MiB's SHA-512 takes far more than a microsecond.
            assert!(
                mean("lat_ns") > mean("clat_ns") + 1000.0,
                "{who}: lat {} clat {}",
                mean("lat_ns"),
                mean("clat_ns")
            );
        }
        // Without verify, a sync engine's lat is its clat.
        let (v, code, e) = run_json(&env, &job[..5]);
        assert_eq!(code, 0, "{e}");
        let w = &v["jobs"][0]["write"];
        assert_eq!(w["lat_ns"]["mean"], w["clat_ns"]["mean"]);
        // An async engine: the making is in the submission latency.
        let mut aio = job.to_vec();
        aio.extend(["--ioengine=libaio", "--iodepth=2"]);
        let (v, code, e) = run_json(&env, &aio);
        assert_eq!(code, 0, "{e}");
        let w = &v["jobs"][0]["write"];
        assert!(w["slat_ns"]["min"].as_u64().unwrap() > 1000, "{w}");
    }
);

// Each direction has its own runtime, as fio's: a writing job's verify phase counts for
// its reads only, so the write bandwidth is over the writing time (fathom gave both
// directions the whole run, the write bandwidth too low by the verify's share).
fathomtest!(
    a_verify_phase_counts_for_the_reads_runtime_only_as_fio,
    |env| {
        let job = [
            "--name=v",
            "--filename=f",
            "--size=16m",
            "--bs=1m",
            "--rw=write",
            "--verify=md5",
        ];
        let runs = fathom_and_fio(&env, &job);
        for (v, who) in &runs {
            let j = &v["jobs"][0];
            let rt = |d: &str| j[d]["runtime"].as_u64().unwrap();
            let whole = j["job_runtime"].as_u64().unwrap();
            assert_eq!(j["read"]["total_ios"], 16, "{who}");
            assert!(rt("write") < whole && rt("read") < whole, "{who}: {j}");
            // The two phases make the whole (each rounded up to a ms).
            assert!(
                rt("write") + rt("read") >= whole && rt("write") + rt("read") <= whole + 3,
                "{who}: write {} + read {} vs {whole}",
                rt("write"),
                rt("read")
            );
            let bw = j["write"]["bw_bytes"].as_u64().unwrap();
            assert_eq!(bw, (16u64 << 20) * 1000 / rt("write"), "{who}");
        }
    }
);

/// A command-line job's JSON from fathom and, when installed, from fio, both run in the
/// test's folder (fathom's first), each with its tool's name.
fn fathom_and_fio(env: &Env, job: &[&str]) -> Vec<(serde_json::Value, &'static str)> {
    let mut runs = vec![(run_json(env, job).0, "fathom")];
    if let Some(fio) = fio() {
        let o = std::process::Command::new(fio)
            .current_dir(env.path())
            .arg("--output-format=json")
            .args(job)
            .output()
            .unwrap();
        let t = String::from_utf8_lossy(&o.stdout);
        runs.push((
            serde_json::from_str(&t[t.find('{').expect("fio's JSON")..]).unwrap(),
            "fio",
        ));
    }
    runs
}

/// Total I/Os of the first job, from a JSON document on stdout (fio's may follow notes).
fn total_ios(stdout: &[u8], dir: &str) -> u64 {
    let t = String::from_utf8_lossy(stdout);
    let v: serde_json::Value =
        serde_json::from_str(&t[t.find('{').expect("a JSON document")..]).expect("JSON");
    v["jobs"][0][dir]["total_ios"].as_u64().expect("total_ios")
}

/// The same job in fathom and, when installed, in fio: their I/O counts.
fn both_ios(env: &Env, args: &[&str], dir: &str) -> (u64, Option<u64>) {
    let mut a = vec!["--output-format=json"];
    a.extend_from_slice(args);
    let o = env.run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let ours = total_ios(&o.stdout, dir);
    let theirs = fio().map(|fio| {
        let o = std::process::Command::new(fio)
            .current_dir(env.path())
            .args(&a)
            .output()
            .unwrap();
        total_ios(&o.stdout, dir)
    });
    (ours, theirs)
}

// file_append: the I/O goes past each file's end (its region starts at the file's size),
// the existing bytes stay as they were.
fathomtest!(file_append_writes_past_the_end_as_fio, |env| {
    let orig: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 + 3) as u8).collect();
    for name in ["ours", "theirs"] {
        std::fs::write(env.path().join(name), &orig).unwrap();
    }
    let args = |f: &str| {
        vec![
            "--name=a".to_string(),
            format!("--filename={f}"),
            "--rw=write".into(),
            "--bs=64k".into(),
            "--size=1m".into(),
            "--file_append=1".into(),
        ]
    };
    let a = args("ours");
    let mut a: Vec<&str> = a.iter().map(String::as_str).collect();
    a.push("--output-format=json");
    let o = env.run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let ours = total_ios(&o.stdout, "write");
    assert_eq!(ours, 16);
    let data = std::fs::read(env.path().join("ours")).unwrap();
    assert_eq!(data.len(), 2 << 20, "appended a MiB");
    assert!(data[..1 << 20] == orig[..], "the existing MiB is untouched");
    if let Some(fio) = fio() {
        let o = std::process::Command::new(fio)
            .current_dir(env.path())
            .args(args("theirs"))
            .arg("--output-format=json")
            .output()
            .unwrap();
        assert_eq!(total_ios(&o.stdout, "write"), ours);
        let len = std::fs::metadata(env.path().join("theirs")).unwrap().len();
        assert_eq!(len, data.len() as u64, "fio's file ends where ours does");
    }
});

// opendir: every regular file below a folder, recursively; links are passed over.
fathomtest!(opendir_takes_every_file_below_the_folder_as_fio, |env| {
    let top = env.path().join("set");
    std::fs::create_dir_all(top.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(top.join("links")).unwrap();
    std::fs::write(top.join("a"), vec![1u8; 256 << 10]).unwrap();
    std::fs::write(top.join("sub/x"), vec![2u8; 512 << 10]).unwrap();
    std::fs::write(top.join("sub/deeper/y"), vec![3u8; 128 << 10]).unwrap();
    std::os::unix::fs::symlink(top.join("a"), top.join("links/l")).unwrap();
    let dir = format!("--opendir={}", top.display());
    let (ours, theirs) = both_ios(&env, &["--name=o", &dir, "--rw=read", "--bs=4k"], "read");
    assert_eq!(
        ours,
        (256 + 512 + 128) / 4,
        "each file read once, the link not at all"
    );
    if let Some(t) = theirs {
        assert_eq!(t, ours);
    }
    let e = stderr(&env.run(&["--name=o", "--opendir=/nonexistent/set", "--rw=read"]));
    assert!(
        e.contains("opendir=/nonexistent/set") && e.contains("cannot read"),
        "{e}"
    );
});

// rate_ignore_thinktime: after each stall the rate goes on from there (fio's first I/O
// after a stall goes at once) instead of catching up.
fathomtest!(rate_ignore_thinktime_does_not_catch_up_as_fio, |env| {
    let job = |ignore: &'static str| {
        [
            "--name=r",
            "--ioengine=null",
            "--size=1g",
            "--rw=randread",
            "--rate_iops=1000",
            "--thinktime=100ms",
            "--thinktime_blocks=100",
            "--time_based",
            "--runtime=2",
            ignore,
        ]
    };
    let (caught_up, _) = both_ios(&env, &job("--rate_ignore_thinktime=0"), "read");
    let (ours, theirs) = both_ios(&env, &job("--rate_ignore_thinktime=1"), "read");
    // 2 s at 1000/s with catching up; with the stalls skipped, about half.
    assert!((1800..=2000).contains(&caught_up), "{caught_up}");
    assert!((980..=1040).contains(&ours), "{ours}");
    if let Some(t) = theirs {
        assert!(ours.abs_diff(t) <= 15, "fathom {ours}, fio {t}");
    }
});

// unlink_each_loop: between loops the files are removed and the next loop's writes make
// them anew (a 4 MiB file written 1 MiB a loop ends 1 MiB long, as in fio); a job that
// reads them is refused before it starts (fio's second loop fails on the missing file).
fathomtest!(unlink_each_loop_makes_the_files_anew_as_fio, |env| {
    for name in ["ours", "theirs"] {
        std::fs::write(env.path().join(name), vec![0u8; 4 << 20]).unwrap();
    }
    let job = |f: &str| {
        vec![
            "--name=u".to_string(),
            format!("--filename={f}"),
            "--rw=randwrite".into(),
            "--bs=64k".into(),
            "--size=1m".into(),
            "--loops=3".into(),
            "--unlink_each_loop=1".into(),
            "--output-format=json".into(),
        ]
    };
    let a = job("ours");
    let o = env.run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(total_ios(&o.stdout, "write"), 48);
    let len = std::fs::metadata(env.path().join("ours")).unwrap().len();
    assert_eq!(len, 1 << 20, "the last loop's file, made anew");
    if let Some(fio) = fio() {
        let o = std::process::Command::new(fio)
            .current_dir(env.path())
            .args(job("theirs"))
            .output()
            .unwrap();
        assert_eq!(total_ios(&o.stdout, "write"), 48);
        let theirs = std::fs::metadata(env.path().join("theirs")).unwrap().len();
        assert_eq!(theirs, len);
    }
    let o = env.run(&[
        "--name=r",
        "--filename=ours",
        "--rw=read",
        "--size=1m",
        "--loops=2",
        "--unlink_each_loop=1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("this job reads them"), "{}", stderr(&o));
    // Each loop's writes are read back before its files go, as fio (2 loops: 2 passes
    // read); experimental_verify replays every write at the end, when the earlier loops'
    // files are gone: refused.
    let v = [
        "--name=v",
        "--filename=ours",
        "--rw=write",
        "--size=1m",
        "--loops=2",
        "--unlink_each_loop=1",
        "--verify=crc32c",
        "--output-format=json",
    ];
    let o = env.run(&v);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(total_ios(&o.stdout, "read"), 512, "each loop read back");
    let o = env.run(&[&v[..], &["--experimental_verify=1"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("experimental_verify"), "{}", stderr(&o));
});

// fio's own t/jobs (t0023, t0024) give bsrange a value in bssplit's form; fio reads its
// first two sizes as the range (512-1k here) and ignores the rest. fathom reads it so too
// and says so on stderr, with the file and line; other junk in a size stays an error.
fathomtest!(
    a_bsrange_written_as_a_split_is_read_as_fio_reads_it,
    |env| {
        let file = env.path().join("split.fio");
        std::fs::write(
        &file,
        "[j]\nioengine=null\nrw=randwrite\nsize=1m\nbsrange=512/25:1k:25:2k:25:4k/25\nwrite_iolog=j.log\n",
    )
    .unwrap();
        let o = env.run(&[file.to_str().unwrap(), "--output-format=json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
        err.contains("split.fio:5: bsrange=512/25:1k:25:2k:25:4k/25 is read as fio reads it, 512-1024 bytes"),
        "{err}"
    );
        let log = std::fs::read_to_string(env.path().join("j.log")).unwrap();
        let sizes: std::collections::BTreeSet<u64> = log
            .lines()
            .filter(|l| l.contains(" write "))
            .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(sizes.into_iter().collect::<Vec<_>>(), [512, 1024]);
        let o = env.run(&[
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--bsrange=1kfoo-4k",
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    }
);

fathomtest!(a_global_name_names_no_job_as_in_fio, |env| {
    // fio's examples set name= in [global] (zbd-rand-write.fio): the jobs keep their
    // section names; a name= in the job's own section wins.
    let file = env.path().join("names.fio");
    std::fs::write(
        &file,
        "[global]\nname=gname\nioengine=null\nsize=1m\n[sec1]\nrw=read\n[sec2]\nname=own\nrw=read\n",
    )
    .unwrap();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["jobname"].as_str().unwrap().to_string())
            .collect()
    };
    let o = env.run(&[file.to_str().unwrap(), "--output-format=json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(names(&json(&o)), ["sec1", "own"]);
    if let Some(fio) = fio() {
        let o = std::process::Command::new(fio)
            .arg(&file)
            .arg("--output-format=json")
            .output()
            .unwrap();
        let s = stdout(&o);
        let v: serde_json::Value = serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
        assert_eq!(names(&v), ["sec1", "own"], "fio's names");
    }
});

fathomtest!(a_groups_job_runtime_and_cpu_are_fios, |env| {
    // fio's group_reporting: job_runtime is the clones' runtimes added, and the CPU
    // shares are over that (an average of the clones), while each direction's runtime is
    // the group's span.
    let args = [
        "--name=g",
        "--ioengine=null",
        "--size=8m",
        "--rw=read",
        "--numjobs=2",
        "--group_reporting",
        "--time_based",
        "--runtime=1",
        "--output-format=json",
    ];
    let check = |v: &serde_json::Value, who: &str| {
        let j = &v["jobs"][0];
        let total = j["job_runtime"].as_u64().unwrap();
        let span = j["read"]["runtime"].as_u64().unwrap();
        assert!(
            (1990..=2010).contains(&total) && (990..=1010).contains(&span),
            "{who}: job_runtime {total}, read runtime {span}"
        );
        let cpu = j["usr_cpu"].as_f64().unwrap() + j["sys_cpu"].as_f64().unwrap();
        assert!(
            cpu > 30.0 && cpu <= 100.0,
            "{who}: usr+sys {cpu}% of each clone"
        );
    };
    let o = env.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    check(&json(&o), "fathom");
    if let Some(fio) = fio() {
        let o = std::process::Command::new(fio).args(args).output().unwrap();
        let s = stdout(&o);
        check(
            &serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap(),
            "fio",
        );
    }
});

fathomtest!(verify_backlog_takes_fios_size_suffixes, |env| {
    // fio's t/jobs/t0009 writes verify_backlog=1m (fio reads it as a value with a size
    // suffix: 1048576 writes).
    let o = env.run(&[
        "--parse-only",
        "--name=v",
        "--size=1m",
        "--verify=md5",
        "--verify_backlog=1m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
});
