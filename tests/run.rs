//! Running jobs end to end: counts, shares, the same job in three dialects, JSON
//! consistency, groups and files.

mod common;
use common::*;
use serde_json::Value;

const RANDRW_FIO: &str = "\
[global]
ioengine=psync
bs=4k
size=16m
[mixed]
rw=randrw
rwmixread=70
";

const RANDRW_TOML: &str = "\
[global]
ioengine = \"psync\"
bs = \"4KiB\"
size = \"16MiB\"

[[job]]
name = \"mixed\"
rw = \"randrw\"
rwmixread = 70
";

fn check_randrw(v: &Value) {
    let j = &v["jobs"][0];
    let r = j["read"]["total_ios"].as_u64().unwrap();
    let w = j["write"]["total_ios"].as_u64().unwrap();
    assert_eq!(r + w, 4096, "16 MiB of 4 KiB blocks, each exactly once");
    let share = r as f64 / 4096.0;
    assert!((0.67..=0.73).contains(&share), "read share {share}");
    check_consistent(j);
}

/// The numbers of one job must agree with each other.
fn check_consistent(j: &Value) {
    for dir in ["read", "write", "trim"] {
        let d = &j[dir];
        let ios = d["total_ios"].as_u64().unwrap();
        let bytes = d["io_bytes"].as_u64().unwrap();
        assert_eq!(d["io_kbytes"].as_u64().unwrap(), bytes >> 10);
        let clat = &d["clat_ns"];
        assert_eq!(clat["N"].as_u64().unwrap(), ios, "{dir}: N = total_ios");
        if ios == 0 {
            assert_eq!(bytes, 0);
            continue;
        }
        let bs = j["job options"]["bs"].as_str().map(|_| 0);
        let _ = bs;
        let runtime = d["runtime"].as_u64().unwrap();
        assert!(runtime > 0);
        let bw_bytes = d["bw_bytes"].as_u64().unwrap();
        let expect = bytes as f64 * 1000.0 / runtime as f64;
        assert!(
            (bw_bytes as f64 - expect).abs() <= 1.0 + expect * 1e-9,
            "{dir}: bw_bytes {bw_bytes} != io_bytes/runtime {expect}"
        );
        assert_eq!(
            d["bw"].as_u64().unwrap(),
            bw_bytes / 1024,
            "{dir}: bw = bw_bytes/1024"
        );
        let iops = d["iops"].as_f64().unwrap();
        let expect_iops = ios as f64 * 1000.0 / runtime as f64;
        assert!(
            (iops - expect_iops).abs() < 1e-6 * expect_iops.max(1.0),
            "{dir}: iops"
        );
        for lat in ["clat_ns", "lat_ns"] {
            let l = &d[lat];
            let (min, max, mean) = (
                l["min"].as_u64().unwrap() as f64,
                l["max"].as_u64().unwrap() as f64,
                l["mean"].as_f64().unwrap(),
            );
            assert!(
                min <= mean && mean <= max,
                "{dir} {lat}: {min} {mean} {max}"
            );
        }
        if let Some(p) = clat["percentile"].as_object() {
            let mut prev = 0;
            for (_, v) in p {
                let v = v.as_u64().unwrap();
                assert!(v >= prev, "percentiles are monotonic");
                prev = v;
            }
            assert!(prev <= clat["max"].as_u64().unwrap());
        }
    }
}

fathomtest!(
    randrw_70_30_on_psync_does_every_block_once_with_the_mix,
    |env| {
        env.write("j.fio", RANDRW_FIO);
        let o = env.run(&["--output-format=json", "j.fio"]);
        assert!(o.status.success(), "{}", stderr(&o));
        check_randrw(&json(&o));
        assert!(
            env.path().join("mixed.0.0").exists(),
            "unlink=0 keeps the file"
        );
    }
);

fathomtest!(the_same_job_in_toml_does_the_same_work, |env| {
    env.write("j.toml", RANDRW_TOML);
    let o = env.run(&["--output-format=json", "j.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    check_randrw(&json(&o));
});

fathomtest!(the_same_job_on_the_command_line_does_the_same_work, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--ioengine=psync",
        "--bs=4k",
        "--size=16m",
        "--name=mixed",
        "--rw=randrw",
        "--rwmixread=70",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    check_randrw(&json(&o));
});

fathomtest!(
    json_output_has_fio_top_level_keys_and_nothing_else_on_stdout,
    |env| {
        let o = env.run(&[
            "--output-format=json",
            "--name=n",
            "--ioengine=null",
            "--size=4m",
        ]);
        assert!(o.status.success());
        let v = json(&o);
        assert!(v["fio version"].as_str().unwrap().starts_with("fio-3."));
        for k in [
            "fio version",
            "fathom version",
            "timestamp",
            "timestamp_ms",
            "time",
            "jobs",
        ] {
            assert!(v.get(k).is_some(), "missing {k}");
        }
        assert_eq!(v["jobs"][0]["jobname"], "n");
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 1024);
        check_consistent(&v["jobs"][0]);
    }
);

fathomtest!(normal_output_shows_the_fio_summary, |env| {
    let o = env.run(&["--name=n", "--ioengine=null", "--size=4m", "--rw=randrw"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for w in [
        "n: (g=0): rw=randrw",
        "Starting 1 thread",
        "n: (groupid=0, jobs=1): err= 0",
        "read: IOPS=",
        "write: IOPS=",
        "clat percentiles",
        "IO depths    : 1=100.0%",
        "issued rwts: total=",
        "Run status group 0 (all jobs):",
        "READ: bw=",
        "WRITE: bw=",
    ] {
        assert!(s.contains(w), "normal output lacks {w:?}:\n{s}");
    }
});

fathomtest!(numjobs_with_group_reporting_merges_exactly, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--ioengine=null",
        "--size=4m",
        "--rw=randread",
        "--name=g",
        "--numjobs=3",
        "--group_reporting",
    ]);
    assert!(o.status.success());
    let v = json(&o);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["read"]["total_ios"], 3 * 1024);
    assert_eq!(jobs[0]["read"]["clat_ns"]["N"], 3 * 1024);
    let o = env.run(&[
        "--output-format=json",
        "--ioengine=null",
        "--size=4m",
        "--name=g",
        "--numjobs=3",
    ]);
    let v = json(&o);
    assert_eq!(
        v["jobs"].as_array().unwrap().len(),
        3,
        "one entry per clone"
    );
});

fathomtest!(stonewall_and_new_group_make_groups, |env| {
    env.write(
        "g.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\n[b]\n[c]\nstonewall\n[d]\nnew_group\n",
    );
    let o = env.run(&["--output-format=json", "g.fio"]);
    assert!(o.status.success());
    let v = json(&o);
    let g: Vec<u64> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["groupid"].as_u64().unwrap())
        .collect();
    assert_eq!(g, vec![0, 0, 1, 2]);
});

fathomtest!(section_runs_only_the_named_jobs, |env| {
    env.write("s.fio", "[global]\nioengine=null\nsize=1m\n[a]\n[b]\n[c]\n");
    let o = env.run(&[
        "--output-format=json",
        "--section=b",
        "--section=c",
        "s.fio",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let names: Vec<String> = json(&o)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, vec!["b", "c"]);
});

fathomtest!(
    unlink_removes_the_files_and_the_directory_fathom_made,
    |env| {
        let o = env.run(&[
            "--name=u",
            "--directory=scratch/deeper",
            "--size=1m",
            "--rw=write",
            "--unlink=1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            !env.path().join("scratch").exists(),
            "made directories removed when empty"
        );
    }
);

fathomtest!(
    a_write_job_writes_the_whole_region_with_sync_engine,
    |env| {
        let o = env.run(&[
            "--output-format=json",
            "--name=w",
            "--ioengine=sync",
            "--rw=write",
            "--bs=64k",
            "--size=2m",
            "--end_fsync=1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 32);
        // As fio: end_fsync syncs the file but is not one of the job's syncs.
        assert_eq!(v["jobs"][0]["sync"]["total_ios"], 0);
        assert_eq!(
            std::fs::metadata(env.path().join("w.0.0")).unwrap().len(),
            2 << 20
        );
    }
);

fathomtest!(time_based_runs_for_the_runtime, |env| {
    let t = std::time::Instant::now();
    let o = env.run(&[
        "--output-format=json",
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--runtime=1",
        "--time_based",
    ]);
    let el = t.elapsed();
    assert!(o.status.success());
    let v = json(&o);
    let rt = v["jobs"][0]["read"]["runtime"].as_u64().unwrap();
    assert!((990..=1100).contains(&rt), "runtime {rt} ms");
    assert!(el.as_secs_f64() < 5.0);
    let samples = v["jobs"][0]["read"]["bw_samples"].as_u64().unwrap();
    assert_eq!(samples, 2, "one bandwidth sample per 500 ms");
});

fathomtest!(every_engine_runs_from_the_command_line, |env| {
    for engine in [
        "sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "mmap", "null",
        "tokio", "posixaio",
    ] {
        let o = env.run(&[
            "--output-format=json",
            &format!("--name={engine}"),
            &format!("--ioengine={engine}"),
            "--rw=randrw",
            "--bs=4k",
            "--size=8m",
            "--iodepth=4",
        ]);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let v = json(&o);
        let j = &v["jobs"][0];
        let total =
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
        assert_eq!(total, 2048, "{engine}");
    }
});

fathomtest!(
    rate_iops_is_met_within_one_percent_and_reports_response_latency,
    |env| {
        for process in ["linear", "poisson"] {
            let o = env.run(&[
                "--output-format=json",
                "--name=r",
                "--ioengine=null",
                "--size=1g",
                "--time_based",
                "--runtime=3",
                "--rate_iops=20000",
                &format!("--rate_process={process}"),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let v = json(&o);
            let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
            assert!((iops / 20000.0 - 1.0).abs() < 0.01, "{process}: {iops}");
            let resp = &v["jobs"][0]["read"]["resp_ns"];
            assert_eq!(resp["N"], v["jobs"][0]["read"]["total_ios"]);
            assert!(resp["min"].as_u64() >= v["jobs"][0]["read"]["lat_ns"]["min"].as_u64());
            assert!(!stderr(&o).contains("could not keep up"), "{}", stderr(&o));
        }
    }
);

fathomtest!(bssplit_and_distributions_run_from_job_files, |env| {
    env.write(
        "p.fio",
        "[global]\nioengine=null\nsize=256m\nio_size=100g\nnumber_ios=100000\n\
         [split]\nrw=randread\nbssplit=4k/10:64k/50:32k/40\n\
         [zipf]\nrw=randread\nrandom_distribution=zipf:1.2\n\
         [mix]\nrw=randrw\nbsrange=4k-16k\nnorandommap\npercentage_random=50\n",
    );
    let o = env.run(&["--output-format=json", "p.fio"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let split = &v["jobs"][0]["read"];
    assert_eq!(split["total_ios"], 100_000);
    // The split draws 0.1×4k + 0.5×64k + 0.4×32k = 45.6 KiB on average, but with the
    // random map an I/O shrinks to the run of untouched blocks it lands in, as in fio:
    // fio 3.33 does 32.9 KiB per I/O on this job (32.7 to 33.1 over seeds: each pass over
    // the file repeats the first, as fio's randrepeat does, so this is one pass's draw).
    let mean = split["io_bytes"].as_f64().unwrap() / 100_000.0 / 1024.0;
    assert!((mean / 32.9 - 1.0).abs() < 0.03, "mean bs {mean} KiB");
    assert_eq!(v["jobs"][1]["read"]["total_ios"], 100_000);
    let m = &v["jobs"][2];
    assert_eq!(
        m["read"]["total_ios"].as_u64().unwrap() + m["write"]["total_ios"].as_u64().unwrap(),
        100_000
    );
});

fathomtest!(
    layout_time_is_reported_apart_from_the_measured_numbers,
    |env| {
        let o = env.run(&[
            "--output-format=json,normal",
            "--name=l",
            "--rw=read",
            "--size=64m",
            "--bs=1m",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("  layout       : "), "{out}");
        let start = out.find("\n{").unwrap() + 1;
        let end = out.rfind("\n}\n").unwrap() + 3;
        let v: serde_json::Value = serde_json::from_str(&out[start..end]).unwrap();
        assert!(v["jobs"][0]["layout_ms"].as_u64().is_some());
        // create_on_open: a write-only job's file is not made during setup.
        let o = env.run(&[
            "--output-format=json",
            "--name=c",
            "--rw=write",
            "--size=1m",
            "--create_on_open=1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(json(&o)["jobs"][0]["write"]["total_ios"], 256);
        assert_eq!(
            std::fs::metadata(env.path().join("c.0.0")).unwrap().len(),
            1 << 20
        );
    }
);

fathomtest!(unlink_removes_files_created_on_open_too, |env| {
    let o = env.run(&[
        "--name=c",
        "--rw=write",
        "--size=1m",
        "--create_on_open=1",
        "--unlink=1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!env.path().join("c.0.0").exists());
});

fathomtest!(cpuio_burns_its_share_of_a_cpu_and_moves_no_bytes, |env| {
    // fio's cpuio: 20 ms burns at cpuload=50, so a 20 ms pause after each: about 25 burns
    // in a second, each timed as the I/O's latency, no bytes, no files.
    let o = env.run(&[
        "--output-format=json",
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=20000",
        "--time_based",
        "--runtime=1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = &json(&o)["jobs"][0];
    let r = &j["read"];
    assert_eq!(r["io_bytes"], 0, "{j}");
    let n = r["total_ios"].as_u64().unwrap();
    assert!((10..=26).contains(&n), "{n} burns in a second");
    let clat = r["clat_ns"]["mean"].as_f64().unwrap();
    assert!(clat >= 20e6, "a burn lasts its chunk: {clat} ns");
    assert!(j["usr_cpu"].as_f64().unwrap() > 10.0, "{j}");
    assert_eq!(
        std::fs::read_dir(env.path()).unwrap().count(),
        0,
        "no files"
    );
    // number_ios ends it too; qsort mode times its sort round.
    let o = env.run(&[
        "--output-format=json",
        "--name=q",
        "--ioengine=cpuio",
        "--cpuload=100",
        "--cpumode=qsort",
        "--number_ios=3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["jobs"][0]["read"]["total_ios"], 3);
    // cpuload is required, as in fio.
    let o = env.run(&["--name=b", "--ioengine=cpuio", "--runtime=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs cpuload="), "{}", stderr(&o));
    // fio's own example, shortened.
    let ex = std::path::Path::new("/usr/share/doc/fio/examples/cpuio.fio");
    if ex.exists() {
        let o = env.run(&["--output-format=json", ex.to_str().unwrap(), "--runtime=1"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["jobs"].as_array().unwrap().len(), 4, "2 jobs × numjobs=2");
    }
});

fathomtest!(cpuio_with_exit_on_io_done_ends_with_the_io_jobs, |env| {
    // A burner set for 20 s ends when the run's I/O job (about 0.4 s at its rate) has
    // ended; without exit_on_io_done it would burn its 20 s.
    env.write(
        "j.fio",
        "[burn]\nioengine=cpuio\ncpuload=20\ncpuchunks=5000\ntime_based\nruntime=20\n\
         exit_on_io_done=1\n\n[io]\nrw=write\nsize=256k\nbs=4k\nrate_iops=160\n",
    );
    let t = std::time::Instant::now();
    let o = env.run(&["--output-format=json", "j.fio"]);
    let took = t.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        took < std::time::Duration::from_secs(10),
        "the run took {took:?}"
    );
    let v = json(&o);
    let ms = |i: usize| v["jobs"][i]["job_runtime"].as_u64().unwrap();
    assert!(ms(1) >= 350, "the I/O job keeps its rate: {} ms", ms(1));
    // The burner notices within one burn and pause (5 ms + 20 ms).
    assert!(
        ms(0) >= ms(1) && ms(0) <= ms(1) + 250,
        "burner {} ms, I/O job {} ms",
        ms(0),
        ms(1)
    );
});

// io_uring's deferred completion work: a buffered read the page cache does not hold
// (invalidate=1, fio's default, drops it) is finished by the kernel's worker, and its
// completion waits for us to enter the ring with GETEVENTS. A loop that always found the
// other I/O's completion ready never did, and that read sat finished but unseen until
// the job ended: a completion latency as long as the run, and a depth of one meanwhile
// (most such runs at iodepth=2). Every completion is now seen when it is ready: the
// longest stays far below the run's length, run after run.
fathomtest!(io_urings_deferred_completions_are_seen_when_ready, |env| {
    let f = env.write("data", &"fathom ".repeat(300_000));
    for _ in 0..4 {
        let o = env.run(&[
            "--output-format=json",
            "--name=s",
            &format!("--filename={}", f.display()),
            "--ioengine=io_uring",
            "--iodepth=2",
            "--rw=read",
            "--bs=64k",
            "--size=1m",
            "--time_based=1",
            "--runtime=1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        let max_ms = v["jobs"][0]["read"]["clat_ns"]["max"].as_f64().unwrap() / 1e6;
        assert!(
            max_ms < 400.0,
            "a completion seen {max_ms:.0} ms late in a 1 s run"
        );
    }
});
