//! The command line: help, version, parse-only, errors and exit codes.

mod common;
use common::*;
use std::time::{Duration, Instant};

fathomtest!(version_prints_the_version, |env| {
    let o = env.run(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains(env!("CARGO_PKG_VERSION")));
});

fathomtest!(help_lists_flags_and_exit_codes, |env| {
    let o = env.run(&["--help"]);
    assert!(o.status.success());
    let s = stdout(&o);
    for w in [
        "--output-format",
        "--parse-only",
        "--section",
        "--cmdhelp",
        "Exit codes",
    ] {
        assert!(s.contains(w), "--help lacks {w}:\n{s}");
    }
});

fathomtest!(no_jobs_is_a_usage_error, |env| {
    let o = env.run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no jobs to run"), "{}", stderr(&o));
});

fathomtest!(parse_only_prints_nothing_and_succeeds, |env| {
    env.write("a.fio", "[global]\nbs=4k\n[a]\nrw=randread\nsize=1m\n");
    let o = env.run(&["--parse-only", "a.fio"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
    assert_eq!(
        std::fs::read_dir(env.path()).unwrap().count(),
        1,
        "no files created"
    );
});

fathomtest!(
    an_unknown_option_is_reported_with_its_file_and_line,
    |env| {
        env.write(
            "bad.fio",
            "[global]\nbs=4k\n[job]\nbogus_option=1\nsize=1m\n",
        );
        let o = env.run(&["bad.fio"]);
        assert_eq!(o.status.code(), Some(2));
        let e = stderr(&o);
        assert!(e.contains("bad.fio:4"), "{e}");
        assert!(e.contains("bogus_option"), "{e}");
        assert!(o.stdout.is_empty(), "nothing on stdout for a bad job file");
    }
);

fathomtest!(an_unsupported_fio_option_is_rejected_not_ignored, |env| {
    env.write("v.fio", "[job]\nsize=1m\natomic=1\n");
    let o = env.run(&["v.fio"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("v.fio:3") && e.contains("not supported yet"),
        "{e}"
    );
});

fathomtest!(a_bad_output_format_is_a_usage_error, |env| {
    let o = env.run(&[
        "--output-format=xml",
        "--name=a",
        "--size=1m",
        "--ioengine=null",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("xml"), "{}", stderr(&o));
});

fathomtest!(cmdhelp_comes_from_the_option_table, |env| {
    let o = env.run(&["--cmdhelp"]);
    assert!(o.status.success());
    let s = stdout(&o);
    for opt in ["rwmixread", "filename_format", "percentile_list", "kb_base"] {
        assert!(s.contains(opt), "--cmdhelp lacks {opt}");
    }
    let o = env.run(&["--cmdhelp=bs"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("blocksize"), "{}", stdout(&o));
    let o = env.run(&["--cmdhelp=bss"]);
    assert_eq!(o.status.code(), Some(2));
});

fathomtest!(enghelp_lists_the_engines, |env| {
    let o = env.run(&["--enghelp"]);
    assert!(o.status.success());
    let s = stdout(&o);
    for e in ["psync", "sync", "null"] {
        assert!(s.contains(e));
    }
});

fathomtest!(a_missing_size_names_the_file_and_the_fix, |env| {
    let o = env.run(&["--name=a", "--rw=read"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("size="), "{}", stderr(&o));
});

fathomtest!(an_unknown_engine_is_named, |env| {
    let o = env.run(&["--name=a", "--size=1m", "--ioengine=splice"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("splice") && e.contains("not supported yet"),
        "{e}"
    );
    let o = env.run(&["--name=a", "--size=1m", "--ioengine=bogus"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("unknown ioengine 'bogus'") && e.contains("io_uring"),
        "{e}"
    );
});

fathomtest!(output_to_a_file_leaves_stdout_empty, |env| {
    let o = env.run(&[
        "--output=r.json",
        "--output-format=json",
        "--name=a",
        "--ioengine=null",
        "--size=1m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(env.path().join("r.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
});

fathomtest!(enghelp_describes_an_engine_and_its_options, |env| {
    let o = env.run(&["--enghelp=io_uring"]);
    assert!(o.status.success());
    let s = stdout(&o);
    for w in ["fixedbufs", "sqthread_poll", "registerfiles", "hipri"] {
        assert!(s.contains(w), "{s}");
    }
    let o = env.run(&["--enghelp=nosuch"]);
    assert_eq!(o.status.code(), Some(2));
});

fathomtest!(io_uring_options_from_a_job_file_run, |env| {
    env.write(
        "u.fio",
        "[global]\nioengine=io_uring\ndirect=1\niodepth=16\nbs=4k\nsize=8m\n\
         [w]\nrw=randwrite\nfixedbufs\nregisterfiles\nsqthread_poll\n\
         [r]\nstonewall\nrw=randread\nfilename=w.0.0\nnonvectored=1\niodepth_batch_submit=4\n",
    );
    let o = env.run(&["--output-format=json", "u.fio"]);
    if stderr(&o).contains("io_uring is unavailable")
        && std::env::var_os("FATHOM_REQUIRE_ALL_ENGINES").is_none()
    {
        eprintln!("io_uring unavailable here: not tested");
        return;
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["jobs"][0]["write"]["total_ios"], 2048);
    assert_eq!(v["jobs"][1]["read"]["total_ios"], 2048);
    assert!(v["jobs"][1]["read"]["slat_ns"]["N"].as_u64().unwrap() == 2048);
    let depth16 = v["jobs"][1]["iodepth_level"]["16"].as_f64().unwrap();
    assert!(depth16 > 50.0, "depth 16 dominates: {depth16}");
});

fathomtest!(hipri_without_direct_is_refused_before_starting, |env| {
    let o = env.run(&["--name=h", "--ioengine=io_uring", "--hipri", "--size=1m"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("direct=1"), "{}", stderr(&o));
});

fathomtest!(libaio_direct_records_slat_and_depth_16, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--name=a",
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=16",
        "--rw=randread",
        "--size=16m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["total_ios"], 4096);
    assert_eq!(r["slat_ns"]["N"], 4096);
    assert!(v["jobs"][0]["iodepth_level"]["16"].as_f64().unwrap() > 50.0);
});

fathomtest!(
    a_misspelt_option_on_the_command_line_gets_a_suggestion,
    |env| {
        let o = env.run(&["--ioengnie=null", "--name=a"]);
        assert_eq!(o.status.code(), Some(2));
        let e = stderr(&o);
        assert!(e.contains("unknown option '--ioengnie'"), "{e}");
        assert!(
            e.contains("did you mean the job option '--ioengine'"),
            "{e}"
        );
        let o = env.run(&["--outptu-format=json"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("did you mean '--output-format'"),
            "{}",
            stderr(&o)
        );
    }
);

fathomtest!(advice_goes_to_stderr_only_with_warnings, |env| {
    let dir = format!("--directory={}", env.path().display());
    let job = [
        "--output-format=json",
        &dir,
        "--name=a",
        "--ioengine=libaio",
        "--iodepth=8",
        "--size=1m",
    ];
    // As fio: nothing on stderr (bench-fio takes any stderr output as a failure).
    let o = env.run(&job);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "stderr as quiet as fio's");
    json(&o);
    let o = env.run(&[&["--warnings"], &job[..]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("add direct=1"), "{}", stderr(&o));
    json(&o); // stdout is still pure JSON
              // A rate the target cannot reach: a note in the job's JSON, not on stderr.
    let o = env.run(&[
        "--output-format=json",
        "--name=r",
        "--ioengine=null",
        "--size=4m",
        "--rw=read",
        "--rate_iops=1000000000",
        "--number_ios=20000",
    ]);
    assert_eq!(stderr(&o), "");
    let notes = json(&o)["jobs"][0]["notes"].to_string();
    assert!(notes.contains("could not keep up"), "{notes}");
});

fathomtest!(assert_conditions_gate_the_exit_code, |env| {
    let base = ["--name=g", "--ioengine=null", "--rw=randread", "--size=4m"];
    let run = |extra: &[&str]| {
        let mut a: Vec<&str> = vec!["--output-format=json"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&base);
        env.run(&a)
    };
    let o = run(&["--assert=read.ios==1024,read.clat.p99<=1s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("assert ok: job 'g': read.ios==1024 (measured 1024.0)"),
        "{}",
        stderr(&o)
    );
    json(&o);
    let o = run(&["--assert=read.ios>=2000"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("assert FAILED: job 'g': read.ios>=2000 (measured 1024.0)"),
        "{}",
        stderr(&o)
    );
    json(&o); // results are still complete on stdout
    let o = run(&["--assert=read.iops=>5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("option 'assert'"), "{}", stderr(&o));
});

#[cfg(not(feature = "mpi"))]
fathomtest!(
    under_mpirun_without_mpi_support_fathom_says_how_to_build_it,
    |env| {
        let o = env
            .cmd()
            .env("OMPI_COMM_WORLD_SIZE", "3")
            .args(["--name=m", "--ioengine=null", "--size=1m"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("--features mpi"), "{}", stderr(&o));
    }
);

fathomtest!(stonewall_time_stops_every_job_after_t, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--stonewall-time=300ms",
        "--name=s",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=60",
        "--rate_iops=1000",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ms = json(&o)["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!((290..=400).contains(&ms), "{ms} ms");
});

fathomtest!(
    random_generator_names_are_accepted_and_lfsr_keeps_its_promise,
    |env| {
        for g in ["tausworthe", "tausworthe64", "lfsr"] {
            let o = env.run(&[
                "--output-format=json",
                &format!("--random_generator={g}"),
                "--name=r",
                "--ioengine=null",
                "--rw=randread",
                "--size=1m",
            ]);
            assert!(o.status.success(), "{g}: {}", stderr(&o));
            assert_eq!(
                json(&o)["jobs"][0]["read"]["total_ios"],
                256,
                "{g}: every block once"
            );
        }
        // lfsr with norandommap (fio takes it: lfsr visits every block once per pass):
        // each block once, written to a log to see the offsets.
        let o = env.run(&[
            "--random_generator=lfsr",
            "--norandommap",
            "--name=r",
            "--rw=randread",
            "--size=1m",
            "--filename=lf",
            "--write_lat_log=lf",
            "--log_offset=1",
            "--warnings",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("random map"), "{}", stderr(&o));
        let log = std::fs::read_to_string(env.path().join("lf_lat.1.log")).unwrap();
        let mut offs: Vec<&str> = log.lines().filter_map(|l| l.split(", ").nth(4)).collect();
        assert_eq!(offs.len(), 256, "{log}");
        offs.sort_unstable();
        offs.dedup();
        assert_eq!(offs.len(), 256, "every block once");
        let o = env.run(&[
            "--random_generator=mt19937",
            "--name=r",
            "--ioengine=null",
            "--size=1m",
        ]);
        assert_eq!(o.status.code(), Some(2));
    }
);

fathomtest!(thinktime_iotime_stalls_after_that_much_io_time, |env| {
    // 200 ms of I/O, then a 100 ms stall, over 1 s: stalls start near 200, 500, 800 ms.
    let o = env.run(&[
        "--name=t",
        "--ioengine=null",
        "--rw=read",
        "--size=64m",
        "--time_based",
        "--runtime=1",
        "--rate_iops=2000",
        "--thinktime=100ms",
        "--thinktime_iotime=200ms",
        "--write_lat_log=t",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let log = std::fs::read_to_string(env.path().join("t_clat.1.log")).unwrap();
    let times: Vec<u64> = log
        .lines()
        .map(|l| l.split(", ").next().unwrap().parse().unwrap())
        .collect();
    let gaps: Vec<u64> = times
        .windows(2)
        .filter(|w| w[1] - w[0] >= 80)
        .map(|w| w[0])
        .collect();
    assert!((2..=4).contains(&gaps.len()), "stalls after {gaps:?}");
    assert!(
        (150..=260).contains(&gaps[0]),
        "first stall after ~200 ms: {gaps:?}"
    );
    // thinktime_blocks_type=issue counts issued I/Os (an async engine at depth 8).
    let o = env.run(&[
        "--output-format=json",
        "--name=i",
        "--ioengine=null",
        "--iodepth=8",
        "--rw=randread",
        "--size=1m",
        "--thinktime=2ms",
        "--thinktime_blocks=32",
        "--thinktime_blocks_type=issue",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
    // 256 issued I/Os in blocks of 32: a 2 ms stall before each next block, 7 in all
    // (as fio, none after the last I/O).
    assert!(
        v["jobs"][0]["job_runtime"].as_u64().unwrap() >= 13,
        "{}",
        v["jobs"][0]["job_runtime"]
    );
});

fathomtest!(thinktime_stops_at_the_deadline_and_on_a_signal, |env| {
    // An async engine at depth 8 with a 1 s stall per I/O over 3 s: fio's semantics (the
    // queue drains, then one stall before the next I/O) end near 3 s, not one stall per
    // I/O still in flight (that took 11 s).
    let started = Instant::now();
    let o = env.run(&[
        "--output-format=json",
        "--name=t",
        "--ioengine=libaio",
        "--iodepth=8",
        "--rw=randread",
        "--filename=data",
        "--size=1m",
        "--thinktime=1s",
        "--time_based",
        "--runtime=3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "took {took:?}");
    let rt = json(&o)["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!((2_900..=3_600).contains(&rt), "runtime {rt} ms");
    // SIGINT in the middle of a 30 s stall ends the job at once.
    let child = env
        .cmd()
        .args([
            "--name=s",
            "--ioengine=libaio",
            "--iodepth=32",
            "--rw=randread",
        ])
        .args([
            "--filename=data",
            "--size=1m",
            "--thinktime=30s",
            "--time_based",
        ])
        .args(["--runtime=120", "--output-format=json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(3),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(o.status.code(), Some(130));
    assert!(json(&o)["jobs"][0]["read"]["total_ios"].as_u64().unwrap() >= 1);
});

fathomtest!(exitall_stops_the_other_jobs_as_exit_what_says, |env| {
    let run = |what: &str| {
        let o = env.run(&[
            "--output-format=json",
            "--ioengine=null",
            "--rw=read",
            &format!("--exit_what={what}"),
            "--name=short",
            "--size=4m",
            "--rate_iops=2000",
            "--exitall",
            "--name=long",
            "--size=64m",
            "--time_based",
            "--runtime=20",
            "--name=later",
            "--stonewall",
            "--size=4m",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        json(&o)
    };
    let v = run("group");
    let jobs = v["jobs"].as_array().unwrap();
    let long = jobs.iter().find(|j| j["jobname"] == "long").unwrap();
    let ms = long["job_runtime"].as_u64().unwrap();
    assert!(
        ms < 1500,
        "long stopped when short ended (~0.5 s), not after 20 s: {ms} ms"
    );
    assert!(
        jobs.iter().any(|j| j["jobname"] == "later"),
        "a later phase still runs"
    );
    let v = run("all");
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["short", "long"],
        "exit_what=all: later phases do not start"
    );
});

fathomtest!(
    rate_min_fails_a_job_that_falls_below_it_after_settling,
    |env| {
        let job = |min: &str| {
            env.run(&[
                "--output-format=json",
                "--name=m",
                "--ioengine=null",
                "--rw=read",
                "--size=64m",
                "--time_based",
                "--runtime=3500ms",
                "--rate_iops=1000",
                &format!("--rate_iops_min={min}"),
                "--rate_cycle=500",
            ])
        };
        // 1000 IOPS against a floor of 800: fine.
        let o = job("800");
        assert!(o.status.success(), "{}", stderr(&o));
        // Against a floor of 2000: fails once the 2 s of settling are over.
        let o = job("2000");
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("below rate_iops_min 2000"),
            "{}",
            stderr(&o)
        );
        let ms = json(&o)["jobs"][0]["job_runtime"].as_u64().unwrap();
        assert!(
            (2400..3400).contains(&ms),
            "failed at the first checked cycle: {ms} ms"
        );
    }
);

fathomtest!(
    file_service_type_distributions_run_and_cover_every_block,
    |env| {
        let dir = format!("--directory={}", env.path().display());
        let o = env.run(&[
            "--output-format=json",
            &dir,
            "--name=z",
            "--rw=randread",
            "--nrfiles=4",
            "--size=1m",
            "--file_service_type=zipf:1.5",
            "--unlink=1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(json(&o)["jobs"][0]["read"]["total_ios"], 256);
        let o = env.run(&[
            "--file_service_type=pareto:2",
            "--name=z",
            "--ioengine=null",
            "--size=1m",
        ]);
        assert_eq!(o.status.code(), Some(2), "pareto h must be in (0, 1)");
    }
);

fathomtest!(wait_for_starts_a_job_when_the_named_one_has_ended, |env| {
    let o = env.run(&[
        "--output-format=json",
        "--ioengine=null",
        "--rw=read",
        "--name=first",
        "--size=2m",
        "--rate_iops=1000",
        "--name=after",
        "--size=1m",
        "--wait_for=first",
        "--name=alongside",
        "--size=1m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let start = |n: &str| {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["jobname"] == n)
            .unwrap()["job_start"]
            .as_u64()
            .unwrap()
    };
    // 512 reads at 1000 IOPS take ~0.5 s.
    assert!(
        start("after") >= start("first") + 400,
        "after waits for first"
    );
    assert!(
        start("alongside") < start("first") + 200,
        "alongside does not wait"
    );
    let o = env.run(&[
        "--ioengine=null",
        "--name=a",
        "--size=1m",
        "--wait_for=nobody",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("wait_for=nobody: no job of that name"),
        "{}",
        stderr(&o)
    );
});

fathomtest!(linked_as_fio_it_answers_version_in_fio_s_form, |env| {
    let link = env.path().join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fathom"), &link).unwrap();
    let o = std::process::Command::new(&link)
        .arg("--version")
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    // Scripts parse `fio-X.Y`; a person still sees what ran.
    assert!(text.starts_with("fio-3."), "{text}");
    assert!(text.contains("(fathom "), "{text}");
    let o = env.run(&["--version"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("fathom "));
    // The JSON says so too: fio's key first, fathom's identity in its value and own key.
    let o = env.run(&[
        "--output-format=json",
        "--name=v",
        "--ioengine=null",
        "--size=1m",
    ]);
    let v = json(&o);
    assert!(v["fio version"].as_str().unwrap().starts_with("fio-3."));
    assert!(v["fathom version"].as_str().unwrap().starts_with("fathom-"));
});

/// (read ios, write ios, read bytes, write bytes) of one JSON report, all jobs.
fn io_counts(v: &serde_json::Value) -> [u64; 4] {
    let mut c = [0; 4];
    for j in v["jobs"].as_array().unwrap() {
        for (i, (d, k)) in [
            ("read", "total_ios"),
            ("write", "total_ios"),
            ("read", "io_bytes"),
            ("write", "io_bytes"),
        ]
        .iter()
        .enumerate()
        {
            c[i] += j[d][k].as_u64().unwrap();
        }
    }
    c
}

fathomtest!(fio_s_getopt_long_only_forms_run_as_in_fio, |env| {
    // fio reads its command line with getopt_long_only: runbooks and blogs write every
    // option with one dash (`fio -filename=/dev/sdb -direct=1 -iodepth 1 -thread ...`),
    // shorten long names (`--runt`) and use fio's letters (`-o FILE`, `-m`).
    let lines: Vec<(Vec<&str>, u64)> = vec![
        (
            vec![
                "-filename=blog.dat",
                "-direct=1",
                "-iodepth",
                "1",
                "-thread",
                "-rw=randread",
                "-ioengine=psync",
                "-bs=16k",
                "-size=2M",
                "-numjobs=2",
                "-group_reporting",
                "-name=mytest",
            ],
            256,
        ),
        (
            vec![
                "-thread",
                "-name=test",
                "-direct=1",
                "-ioengine=psync",
                "-fsync_on_close=1",
                "-size=1M",
                "-bs=4k",
                "-rw=write:508k",
                "-numjobs=4",
                "-offset_increment=4k",
                "-group_reporting",
            ],
            262,
        ),
        (
            vec![
                "--name=s",
                "--ioeng=null",
                "--size=1m",
                "--readwr=read",
                "--blocksize",
                "64k",
            ],
            16,
        ),
    ];
    let fio = fio();
    for (args, ios) in &lines {
        for name in ["ours", "fio"] {
            let dir = env.path().join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let all = [&["-output-format=json"][..], args].concat();
            let got = if name == "ours" {
                let o = env.cmd().current_dir(&dir).args(&all).output().unwrap();
                assert!(o.status.success(), "{args:?}: {}", stderr(&o));
                io_counts(&json(&o))
            } else if let Some(fio) = &fio {
                let o = fio_ok(fio, &dir, &all);
                let s = stdout(&o);
                io_counts(&serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap())
            } else {
                continue;
            };
            assert_eq!(got[0] + got[1], *ios, "{name} {args:?}: {got:?}");
        }
    }
    // fio's one-letter flags, bundled or with the value joined or next, and a flag's
    // value as the next argument.
    let out = env.path().join("m.txt");
    let o = env.run(&[
        "-o",
        out.to_str().unwrap(),
        "-m",
        "--status-interval",
        "1",
        "-name=t",
        "-ioengine=null",
        "-size=64k",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("3;"), "{text}");
    let o = env.run(&["-P", "-name=t", "-size=1m"]);
    assert!(
        o.status.success() && stdout(&o).is_empty(),
        "{}",
        stderr(&o)
    );
    let o = env.run(&["-cbs"]);
    assert!(stdout(&o).starts_with("bs:"), "{}", stdout(&o));
    // A shortened name that fits several options is an error naming them, as fio's.
    let o = env.run(&["--name=t", "--iodep=4", "--size=1m"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("ambiguous") && e.contains("--iodepth_batch"),
        "{e}"
    );
    // fio's flags fathom lacks, refused by name in any form.
    let o = env.run(&["-d", "io", "-name=t"]);
    assert!(
        stderr(&o).contains("--debug is not supported"),
        "{}",
        stderr(&o)
    );
    let o = env.run(&["-latency-log", "x", "-name=t"]);
    assert!(stderr(&o).contains("--latency-log"), "{}", stderr(&o));
    // After `--` nothing is read as an option.
    let o = env.run(&["--name=t", "--size=1m", "--", "-thread"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
});

fathomtest!(
    fio_s_command_line_flags_work_or_are_refused_by_name,
    |env| {
        // fio's getopt form: `--opt value`, and integers written as decimals.
        let o = env.run(&[
            "--output-format",
            "json",
            "--name",
            "g",
            "--ioengine",
            "null",
            "--size",
            "1m",
            "--rw",
            "randrw",
            "--rwmixread=70.0",
            "--iodepth=8.0",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        let j = &v["jobs"][0];
        assert_eq!(
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap(),
            256
        );
        // --max-jobs (fio ignores it; cdmpy passes --max-jobs=1 with several jobs),
        // --warnings-fatal, --append-terse.
        let o = env.run(&[
            "--max-jobs=1",
            "--name=m",
            "--ioengine=null",
            "--size=1m",
            "--numjobs=3",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let dir = format!("--directory={}", env.path().display());
        let o = env.run(&[
            "--warnings-fatal",
            &dir,
            "--name=w",
            "--iodepth=4",
            "--size=1m",
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("capped at 1"), "{}", stderr(&o));
        let o = env.run(&[
            "--append-terse",
            "--alloc-size=32768",
            "--output-format=json",
            "--name=t",
            "--ioengine=null",
            "--size=1m",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.lines().last().unwrap().starts_with("3;"), "{out}");
        // fio's server/client and tool flags are refused by name, with what to use instead.
        for (flag, says) in [
            ("--server=args", "mpirun"),
            ("--client=host", "mpirun"),
            ("--debug=io", "--warnings"),
            ("--crctest", "checksum"),
        ] {
            let o = env.run(&[flag, "--name=x", "--ioengine=null", "--size=1m"]);
            assert_eq!(o.status.code(), Some(2), "{flag}");
            let e = stderr(&o);
            assert!(
                e.contains("is not supported") && e.contains(says),
                "{flag}: {e}"
            );
        }
    }
);

fathomtest!(showcmd_prints_the_command_line_fio_prints, |env| {
    env.write(
        "s.fio",
        "[global]\nsize=1m\nioengine=null\n[a]\nrw=randrw\nrwmixread=70.0\n\
         [global]\nbs=8k\n[b]\nrw=read\nstonewall\n[c]\ntime_based\n",
    );
    let o = env.run(&["--showcmd", "s.fio"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ours = stdout(&o);
    assert_eq!(
        ours,
        "fathom --size=1m --ioengine=null --name=a --rw=randrw --rwmixread=70.0 \
         --size=1m --ioengine=null --bs=8k --name=b --rw=read --stonewall --name=c \
         --time_based \n"
    );
    if let Some(fio) = fio() {
        let f = std::process::Command::new(fio)
            .current_dir(env.path())
            .args(["--showcmd", "s.fio"])
            .output()
            .unwrap();
        let theirs = String::from_utf8_lossy(&f.stdout);
        assert_eq!(ours.strip_prefix("fathom"), theirs.strip_prefix("fio"));
    }
});

fathomtest!(a_usage_error_leaves_stdout_empty_in_every_format, |env| {
    // Nothing ran: no half report for a parser to choke on, the error on stderr (as fio).
    for fmt in ["json", "json+", "terse", "normal,json"] {
        let o = env.run(&[
            &format!("--output-format={fmt}"),
            "--name=a",
            "--rw=read",
            "--size=1m",
            "--offset=8e",
        ]);
        assert_eq!(o.status.code(), Some(2), "{fmt}");
        assert_eq!(stdout(&o), "", "{fmt}");
        assert!(stderr(&o).contains("option 'offset'"), "{}", stderr(&o));
    }
});
