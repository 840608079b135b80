//! Jobs of many files: existing files are not laid out again, the open-file limit is
//! raised, openfiles lets a job run with more files than descriptors, and a job stopped
//! by the limit still reports what it did.

mod common;
use common::*;
use std::process::Output;
use std::time::{Duration, SystemTime};

/// Run fathom under `sh` with the open-file limits set first (`ulimit` words, e.g.
/// "-Sn 128" for the soft limit only, "-n 256" for both).
fn run_limited(env: &Env, ulimit: &str, args: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_fathom");
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit {ulimit} && exec '{bin}' {}",
            quoted.join(" ")
        ))
        .current_dir(env.path())
        .output()
        .unwrap()
}

fn ios(job: &serde_json::Value, dir: &str) -> u64 {
    job[dir]["total_ios"].as_u64().unwrap()
}

/// Make `n` files `name.0.K` of `len` bytes with distinct contents and an old mtime.
fn make_files(env: &Env, name: &str, n: usize, len: usize) -> SystemTime {
    let old = SystemTime::now() - Duration::from_secs(86_400);
    for k in 0..n {
        let p = env.path().join(format!("{name}.0.{k}"));
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + k) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(old).unwrap();
    }
    old
}

fn untouched(env: &Env, name: &str, n: usize, len: usize, mtime: SystemTime) {
    for k in 0..n {
        let p = env.path().join(format!("{name}.0.{k}"));
        let data = std::fs::read(&p).unwrap();
        let want: Vec<u8> = (0..len).map(|i| (i * 7 + k) as u8).collect();
        assert!(data == want, "{} was rewritten", p.display());
        let m = std::fs::metadata(&p).unwrap().modified().unwrap();
        assert_eq!(m, mtime, "{} was written to (mtime changed)", p.display());
    }
}

fathomtest!(
    existing_files_of_the_right_size_are_not_laid_out_again,
    |env| {
        let old = make_files(&env, "a", 50, 8192);
        let dir = env.path().to_str().unwrap().to_string();
        let d = format!("--directory={dir}");
        for engine in ["psync", "filestat", "libaio", "io_uring", "mmap"] {
            let o = env.run(&[
                "--name=a",
                "--rw=read",
                "--nrfiles=50",
                "--filesize=8k",
                &d,
                &format!("--ioengine={engine}"),
                "--output-format=json",
            ]);
            assert!(o.status.success(), "{engine}: {}", stderr(&o));
            let j = json(&o);
            // filestat counts a stat per block, as fio does.
            assert_eq!(ios(&j["jobs"][0], "read"), 100, "{engine}");
            untouched(&env, "a", 50, 8192, old);
        }
        // A file that is too short is extended (fio's rule), the others stay as they are.
        std::fs::write(env.path().join("a.0.7"), b"short").unwrap();
        let o = env.run(&["--name=a", "--rw=read", "--nrfiles=50", "--filesize=8k", &d]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            std::fs::metadata(env.path().join("a.0.7")).unwrap().len(),
            8192
        );
        let m = std::fs::metadata(env.path().join("a.0.8"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(m, old);
    }
);

fathomtest!(the_open_file_limit_is_raised_to_the_hard_limit, |env| {
    // 300 files kept open against a soft limit of 128: runs because the soft limit is
    // raised (the hard limit is left as it is), and says so with --warnings.
    let d = format!("--directory={}", env.path().display());
    let o = run_limited(
        &env,
        "-Sn 128 && ulimit -Hn 1024",
        &[
            "--name=many",
            "--rw=read",
            "--nrfiles=300",
            "--filesize=4k",
            &d,
            "--warnings",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(ios(&json(&o)["jobs"][0], "read"), 300);
    let e = stderr(&o);
    assert!(
        e.contains("raised the open-file limit (RLIMIT_NOFILE) from 128 to 1024"),
        "{e}"
    );
});

fathomtest!(
    openfiles_runs_a_job_with_more_files_than_descriptors,
    |env| {
        let d = format!("--directory={}", env.path().display());
        for (rw, engine) in [
            ("randread", "psync"),
            ("write", "libaio"),
            ("randrw", "io_uring"),
        ] {
            let o = run_limited(
                &env,
                "-n 128",
                &[
                    "--name=many",
                    &format!("--rw={rw}"),
                    &format!("--ioengine={engine}"),
                    "--iodepth=4",
                    "--nrfiles=400",
                    "--filesize=8k",
                    "--openfiles=16",
                    "--file_service_type=random",
                    &d,
                    "--output-format=json",
                ],
            );
            assert!(o.status.success(), "{rw} {engine}: {}", stderr(&o));
            let j = json(&o);
            let job = &j["jobs"][0];
            assert_eq!(job["error"], 0, "{rw}");
            assert_eq!(ios(job, "read") + ios(job, "write"), 800, "{rw} {engine}");
        }
    }
);

fathomtest!(
    a_job_stopped_by_the_open_file_limit_reports_what_was_done,
    |env| {
        // Hard limit 128: the first job runs, the second (300 files, no openfiles) meets
        // EMFILE. The JSON has both, the first with its I/O, the second with errno 24; the
        // message names the limit and openfiles.
        let d = format!("--directory={}", env.path().display());
        let o = run_limited(
            &env,
            "-n 128",
            &[
                "--name=first",
                "--rw=read",
                "--size=1m",
                &d,
                "--name=many",
                "--rw=read",
                "--nrfiles=300",
                "--filesize=4k",
                &d,
                "--output-format=json",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let j = json(&o);
        assert_eq!(ios(&j["jobs"][0], "read"), 256);
        assert_eq!(j["jobs"][0]["error"], 0);
        assert_eq!(j["jobs"][1]["error"], 24);
        let e = stderr(&o);
        assert!(
            e.contains("Too many open files") && e.contains("openfiles="),
            "{e}"
        );
    }
);

fathomtest!(
    sixty_four_threads_at_depth_1024_take_no_more_memory_than_fio,
    |env| {
        // A read job's buffers are never touched (one lazily-zeroed mapping per thread,
        // filled only when the job writes), and a population's histogram is made on its
        // first sample: 64 x 1024 x 4 KiB of buffers once cost 604 MB of RSS.
        let job = [
            "--name=deep",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=1g",
            "--numjobs=64",
            "--iodepth=1024",
            "--time_based",
            "--runtime=1",
            "--output-format=json",
        ];
        // (The peak moves with how the 64 threads' starts fall — 66–78 MB for one
        // debug build on a quiet machine, more under load — so the lower of two runs.)
        let (a, st) = peak_rss_kib(env.cmd().args(job));
        assert!(st.success());
        let (b, st) = peak_rss_kib(env.cmd().args(job));
        assert!(st.success());
        let ours = a.min(b);
        assert!(ours < 128 * 1024, "fathom peak RSS {ours} KiB");
        if let Some(fio) = fio() {
            let (theirs, st) = peak_rss_kib(
                std::process::Command::new(fio)
                    .current_dir(env.path())
                    .args(job)
                    .arg("--thread"),
            );
            assert!(st.success());
            assert!(ours <= theirs, "fathom {ours} KiB, fio {theirs} KiB");
        }
        // A write job fills its buffers, as fio does: still bounded by them.
        let write: Vec<&str> = job
            .iter()
            .map(|a| {
                if *a == "--rw=randread" {
                    "--rw=randwrite"
                } else {
                    a
                }
            })
            .collect();
        let (w, st) = peak_rss_kib(env.cmd().args(&write));
        assert!(st.success());
        assert!(w < (256 + 128) * 1024, "fathom write job peak RSS {w} KiB");
    }
);
