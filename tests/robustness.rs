//! Signals, faults and bad input: results are kept, nothing is left behind, no panics.

mod common;
use common::*;
use std::time::{Duration, Instant};

fathomtest!(
    sigint_stops_within_a_second_and_reports_what_was_done,
    |env| {
        let child = env
            .cmd()
            .args([
                "--output-format=json",
                "--name=long",
                "--rw=randwrite",
                "--size=16m",
                "--runtime=60",
                "--time_based",
                "--unlink=1",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(2));
        let t = Instant::now();
        // SAFETY: sending SIGINT to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "took {:?}",
            t.elapsed()
        );
        assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["interrupted"], true);
        assert!(v["jobs"][0]["write"]["total_ios"].as_u64().unwrap() > 0);
        assert!(
            !env.path().join("long.0.0").exists(),
            "unlink=1 files are removed"
        );
    }
);

fathomtest!(a_job_file_of_random_bytes_is_a_clean_error, |env| {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(env.path().join("junk.fio"), &bytes).unwrap();
    let o = env.run(&["junk.fio"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("junk.fio"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
});

fathomtest!(readonly_refuses_writes_before_opening_anything, |env| {
    let o = env.run(&["--readonly", "--name=w", "--rw=randwrite", "--size=1m"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--readonly"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_dir(env.path()).unwrap().count(),
        0,
        "nothing created"
    );
    // A read job writes nothing either: its file is not created and laid out (fathom did,
    // 1 MiB; fio refuses the extend and its job fails).
    let read = ["--readonly", "--name=r", "--rw=randread", "--size=1m"];
    let o = env.run(&read);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(env.path()).unwrap().count(), 0);
    // Laid out by a run without --readonly, the file is read; a region past its end, a
    // job that removes its files and a metadata engine that creates are refused.
    let o = env.run(&read[1..]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = env.run(&read);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = env.run(&[&read[..3], &["--size=2m"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("would be extended"), "{}", stderr(&o));
    let o = env.run(&[&read[..], &["--unlink=1"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unlink=1"), "{}", stderr(&o));
    let o = env.run(&[
        "--readonly",
        "--name=c",
        "--ioengine=filecreate",
        "--nrfiles=4",
        "--filesize=4k",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("create"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_dir(env.path()).unwrap().count(),
        1,
        "r.0.0 only"
    );
});

fathomtest!(absurd_buffer_requests_are_refused_with_the_figure, |env| {
    let o = env.run(&[
        "--name=m",
        "--ioengine=libaio",
        "--iodepth=4096",
        "--bs=1g",
        "--size=2g",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("4398046511104 bytes") && e.contains("lower iodepth"),
        "{e}"
    );
});

fathomtest!(unlink_never_removes_a_file_that_was_there_before, |env| {
    std::fs::write(env.path().join("mine"), vec![1u8; 1 << 20]).unwrap();
    let o = env.run(&["--name=r", "--filename=mine", "--rw=read", "--unlink=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        env.path().join("mine").exists(),
        "a file fathom did not create stays"
    );
});

fathomtest!(enospc_keeps_the_results_and_names_the_file, |env| {
    let Some(fs) = SmallFs::new("2m") else { return };
    let dir = fs.dir.path().to_string_lossy().into_owned();
    let o = env.run(&[
        "--output-format=json",
        "--name=full",
        "--rw=write",
        "--bs=64k",
        "--size=8m",
        &format!("--directory={dir}"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 28, "ENOSPC");
    let written = j["write"]["io_bytes"].as_u64().unwrap();
    assert!(written > 0 && written <= 2 << 20, "{written}");
    let e = stderr(&o);
    assert!(e.contains("full.0.0") && e.contains("No space left"), "{e}");
});

/// A loop device over a file in the test's directory, detached on drop.
struct Loop {
    dev: String,
    img: std::path::PathBuf,
}

impl Loop {
    fn new(env: &Env, size: u64) -> Option<Loop> {
        let img = env.path().join("disk.img");
        std::fs::File::create(&img).unwrap().set_len(size).unwrap();
        match std::process::Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&img)
            .output()
        {
            Ok(o) if o.status.success() => Some(Loop {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_string(),
                img,
            }),
            other => {
                if std::env::var_os("FATHOM_REQUIRE_LOOP").is_some() {
                    panic!("loop devices are required (FATHOM_REQUIRE_LOOP): {other:?}");
                }
                eprintln!("no loop device (needs root and losetup): not tested here");
                None
            }
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.dev).output();
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
    }
}

fathomtest!(
    a_device_with_a_file_system_is_refused_and_left_byte_identical,
    |env| {
        let Some(l) = Loop::new(&env, 32 << 20) else {
            return;
        };
        let write = |extra: &[&str]| {
            let mut args = vec!["--name=w", "--rw=write", "--bs=64k", "--direct=1"];
            let f = format!("--filename={}", l.dev);
            args.push(&f);
            args.extend_from_slice(extra);
            env.run(&args)
        };
        // A blank device is written.
        let o = write(&[]);
        assert!(o.status.success(), "{}", stderr(&o));
        // With an ext4 file system it is refused, and not one byte changes.
        let mk = std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F", &l.dev])
            .status()
            .unwrap();
        assert!(mk.success());
        std::process::Command::new("sync").status().unwrap();
        let before = std::fs::read(&l.dev).unwrap();
        let o = write(&[]);
        assert_eq!(o.status.code(), Some(2));
        let e = stderr(&o);
        assert!(
            e.contains(&l.dev) && e.contains("ext2/3/4") && e.contains("--allow-destructive"),
            "{e}"
        );
        assert!(
            std::fs::read(&l.dev).unwrap() == before,
            "the device is byte-identical"
        );
        // Mounted: refused and named.
        let mnt = env.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        if std::process::Command::new("mount")
            .arg(&l.dev)
            .arg(&mnt)
            .status()
            .unwrap()
            .success()
        {
            let o = write(&[]);
            assert_eq!(o.status.code(), Some(2));
            assert!(stderr(&o).contains("mounted at"), "{}", stderr(&o));
            std::process::Command::new("umount")
                .arg(&mnt)
                .status()
                .unwrap();
        }
        // The override writes it.
        let o = write(&["--allow-destructive"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            std::fs::read(&l.dev).unwrap() != before,
            "--allow-destructive wrote the device"
        );
        let _ = &l.img;
    }
);

fathomtest!(continue_on_error_counts_errors_and_goes_on, |env| {
    let Some(fs) = SmallFs::new("1m") else { return };
    let dir = fs.dir.path().to_string_lossy().into_owned();
    let run = |policy: &[&str]| {
        let mut args = vec![
            "--output-format=json,normal",
            "--name=full",
            "--rw=write",
            "--bs=64k",
            "--size=4m",
        ];
        args.extend_from_slice(policy);
        let d = format!("--directory={dir}");
        args.push(&d);
        let o = env.run(&args);
        let _ = std::fs::remove_file(fs.dir.path().join("full.0.0"));
        let out = stdout(&o);
        // The normal preamble comes first, then the JSON document, then the normal report.
        let start = out.find("\n{").unwrap() + 1;
        let end = out.rfind("\n}\n").unwrap() + 3;
        let v: serde_json::Value = serde_json::from_str(&out[start..end]).unwrap();
        (o, v["jobs"][0].clone(), out)
    };
    // ENOSPC is tolerated only where a list names it: fio's default list is EIO, EILSEQ.
    for policy in [
        &["--continue_on_error=write", "--ignore_error=,ENOSPC"][..],
        &["--ignore_error=EIO,ENOSPC"],
        &[
            "--continue_on_error=all",
            "--ignore_error=EIO:ENOSPC,ENOSPC",
        ],
    ] {
        let (o, j, out) = run(policy);
        assert!(o.status.success(), "{policy:?}: {}", stderr(&o));
        // As fio: the job's error is the first tolerated one (the exit code stays 0), and
        // every write issued counts in total_ios, the failed ones too.
        assert_eq!(j["error"], 28, "{policy:?}");
        assert_eq!(j["write"]["total_ios"], 64, "{policy:?}");
        let ok = j["write"]["clat_ns"]["N"].as_u64().unwrap();
        assert_eq!(ok + j["total_err"].as_u64().unwrap(), 64, "{policy:?}");
        assert_eq!(j["write"]["io_bytes"].as_u64().unwrap(), ok << 16);
        assert_eq!(j["first_error"], 28, "{policy:?}");
        assert!(out.contains("     errors    : total="), "{policy:?}");
        assert!(out.contains("err=28 (tolerated: "), "{policy:?}: {out}");
        // Said in the job's JSON notes (on stderr only with --warnings, as fio is silent).
        assert!(
            j["notes"].to_string().contains("tolerated"),
            "{policy:?}: {j}"
        );
    }
    // Where the class is on but its list does not name ENOSPC, the first ENOSPC ends the
    // job, counted in total_err (fio's continue_on_error=all, ignore_error=EIO on reads).
    for policy in [
        &["--continue_on_error=all"][..],
        &["--continue_on_error=write", "--ignore_error=,EIO"],
        &["--ignore_error=,ENOSPC", "--continue_on_error=read"],
        &["--ignore_error=ENOSPC"],
    ] {
        let (o, j, _) = run(policy);
        assert_eq!(o.status.code(), Some(1), "{policy:?}");
        assert_eq!(j["error"], 28, "{policy:?}");
        let ok = j["write"]["clat_ns"]["N"].as_u64().unwrap();
        assert_eq!(j["write"]["total_ios"], ok + 1, "{policy:?}");
        let counted = policy
            .iter()
            .any(|p| p.contains("=write") || p.contains("=all"));
        assert_eq!(j["total_err"], u64::from(counted), "{policy:?}: {j}");
    }
});

fathomtest!(sigusr1_prints_a_status_block_and_the_run_goes_on, |env| {
    let child = env
        .cmd()
        .args([
            "--output-format=json",
            "--name=s",
            "--ioengine=null",
            "--size=1g",
            "--runtime=3",
            "--time_based",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: sending SIGUSR1 to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGUSR1) };
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("fathom status at") && e.contains("s #0: read: ios="),
        "{e}"
    );
    let v = json(&o);
    assert!(v.get("interrupted").is_none());
    let rt = v["jobs"][0]["read"]["runtime"].as_u64().unwrap();
    assert!(rt >= 2900, "the run went on: {rt} ms");
});

fathomtest!(hostile_inputs_get_clear_errors_not_hangs_or_aborts, |env| {
    // Each case: arguments, and what the error says. None of them may panic (exit 101),
    // abort (134) or read without end.
    env.write("inc.fio", "[a]\ninclude /dev/zero\n");
    env.write(
        "deep.fio",
        &format!(
            "[a]\nioengine=null\nsize={}1m{}\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
    );
    env.write(
        "long.fio",
        &format!("[a]\nioengine=null\nsize=1m\n{}=1\n", "x".repeat(1_000_000)),
    );
    let cases: &[(&[&str], &str)] = &[
        (&["inc.fio"], "include /dev/zero: not a regular file"),
        (&["/dev/zero"], "not a regular file"),
        (&["merge", "/dev/zero"], "not a regular file"),
        (
            &["--parse-only", "deep.fio"],
            "nested deeper than 256 levels",
        ),
        (&["--parse-only", "long.fio"], "(1000000 characters)"),
        (
            &["--name=a", "--ioengine=null", "--bs=", "--size=1m"],
            "'bs' requires a value",
        ),
        (
            &["--name=a", "--ioengine=null", "--rw=randread", "--size=1p"],
            "add norandommap",
        ),
        (
            &["--name=a", "--ioengine=null", "--size=18446744073709551615"],
            "more than the 8 EiB",
        ),
        (
            &["--name=a", "--ioengine=null", "--size=8e"],
            "more than the 8 EiB",
        ),
        (
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--iomem_align=1t",
            ],
            "at most 64 MiB",
        ),
        (
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--iomem_align=4294967296",
            ],
            "at most 64 MiB",
        ),
    ];
    for (args, says) in cases {
        let o = env.run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(
            e.len() < 2000,
            "{args:?}: a short message, not the input back"
        );
    }
});

fathomtest!(fill_device_writes_until_the_file_system_is_full, |env| {
    let Some(fs) = SmallFs::new("1m") else { return };
    let d = fs.dir.path();
    // Alone: the file is sized to the free space and written whole.
    let o = env.run(&[
        "--name=a",
        "--rw=write",
        "--bs=64k",
        &format!("--filename={}", d.join("a").display()),
        "--fill_device=1",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["jobs"][0]["error"], 0);
    assert_eq!(j["jobs"][0]["write"]["io_bytes"], 1 << 20);
    std::fs::remove_file(d.join("a")).unwrap();
    // Beside a job that takes half the space first: ENOSPC ends it, without error.
    let o = env.run(&[
        "--name=b",
        "--rw=write",
        "--bs=64k",
        "--size=512k",
        &format!("--filename={}", d.join("b").display()),
        "--name=a",
        "--rw=write",
        "--bs=64k",
        &format!("--filename={}", d.join("a").display()),
        "--fill_fs=1",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["jobs"][1]["error"], 0);
    assert_eq!(j["jobs"][1]["write"]["io_bytes"], 512 << 10);
    // A read pattern cannot fill: refused with the way to do it.
    let o = env.run(&[
        "--name=r",
        "--rw=read",
        &format!("--filename={}", d.join("a").display()),
        "--fill_device=1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("surface-scan"), "{}", stderr(&o));
});

fathomtest!(error_dump_prints_each_tolerated_error, |env| {
    let Some(fs) = SmallFs::new("1m") else { return };
    let f = format!("--filename={}", fs.dir.path().join("f").display());
    let args = |dump: &str| {
        vec![
            "--name=e".to_string(),
            "--rw=write".into(),
            "--bs=64k".into(),
            "--size=2m".into(),
            "--fallocate=none".into(),
            f.clone(),
            "--continue_on_error=write".into(),
            "--ignore_error=,ENOSPC".into(),
            format!("--error_dump={dump}"),
            "--output-format=json".into(),
        ]
    };
    let o = env.cmd().args(args("1")).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["jobs"][0]["total_err"], 16);
    let e = stderr(&o);
    assert_eq!(e.matches("(tolerated)").count(), 16, "{e}");
    assert!(e.contains("No space left on device"), "{e}");
    // Off by default, as in fio 3.33 (its option's default is 0).
    let mut without = args("0");
    without.retain(|a| !a.starts_with("--error_dump"));
    for a in [args("0"), without] {
        let o = env.cmd().args(&a).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(json(&o)["jobs"][0]["total_err"], 16);
        assert!(!stderr(&o).contains("(tolerated)"), "{}", stderr(&o));
    }
});

fathomtest!(
    sigint_during_layout_stops_at_once_and_removes_the_partial_file,
    |env| {
        // A 4 GiB file to lay out for reading: SIGINT a moment in stops the layout within a
        // second, exit 130, and the half-written file fathom created is gone.
        let child = env
            .cmd()
            .args([
                "--name=big",
                "--rw=read",
                "--size=4g",
                "--filename=big",
                "--output-format=json",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(700));
        let t = std::time::Instant::now();
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        assert!(
            t.elapsed() < std::time::Duration::from_secs(1),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
        assert!(
            !env.path().join("big").exists(),
            "the partial layout is removed"
        );
        assert_eq!(json(&o)["jobs"][0]["read"]["total_ios"], 0);
    }
);

fathomtest!(
    a_disk_image_or_a_loop_backing_file_is_refused_as_a_device_is,
    |env| {
        // A regular file holding an ext4 image: refused, byte-identical; --allow-destructive
        // writes it.
        let img = env.path().join("fs.img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(32 << 20)
            .unwrap();
        let mk = std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&img)
            .status();
        if mk.is_ok_and(|s| s.success()) {
            let before = std::fs::read(&img).unwrap();
            let f = format!("--filename={}", img.display());
            let o = env.run(&["--name=w", "--rw=write", "--size=1m", &f]);
            assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
            assert!(stderr(&o).contains("ext2/3/4"), "{}", stderr(&o));
            assert!(std::fs::read(&img).unwrap() == before, "byte-identical");
            let o = env.run(&[
                "--name=w",
                "--rw=write",
                "--size=1m",
                &f,
                "--allow-destructive",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
        }
        // The backing file of an attached loop device (blank): refused, naming the device.
        let Some(l) = Loop::new(&env, 8 << 20) else {
            return;
        };
        let f = format!("--filename={}", l.img.display());
        let o = env.run(&["--name=w", "--rw=write", "--size=1m", &f]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("backing file of {}", l.dev)),
            "{}",
            stderr(&o)
        );
        // Reading it is fine.
        let o = env.run(&["--name=r", "--rw=read", "--size=1m", &f]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
);

fathomtest!(every_wait_stops_on_sigint_at_once, |env| {
    // Each job waits most of its time (a start delay, rate pacing, think time, a steady
    // state window, a verify backlog, a prerun command): SIGINT half a second in ends it
    // within a quarter second (about 20-70 ms here), exit 130 with valid JSON.
    let cases: &[&[&str]] = &[
        &["--ioengine=null", "--size=1g", "--startdelay=30"],
        &["--ioengine=psync", "--size=16m", "--rate_iops=1"],
        &[
            "--ioengine=libaio",
            "--iodepth=4",
            "--size=16m",
            "--rate_iops=1",
        ],
        &[
            "--ioengine=io_uring",
            "--iodepth=4",
            "--size=16m",
            "--thinktime=5s",
        ],
        &[
            "--ioengine=psync",
            "--size=16m",
            "--rate=4k",
            "--rate_process=poisson",
        ],
        &[
            "--ioengine=psync",
            "--size=16m",
            "--ss=iops:1%",
            "--ss_dur=60",
            "--rate_iops=1000",
            "--time_based",
            "--runtime=100",
        ],
        &[
            "--rw=randwrite",
            "--size=16m",
            "--verify=crc32c",
            "--verify_backlog=16",
            "--rate_iops=10",
        ],
        &[
            "--ioengine=null",
            "--size=16m",
            "--exec_prerun=sleep 30; touch late",
        ],
    ];
    for case in cases {
        let mut cmd = env.cmd();
        cmd.args(["--output-format=json", "--name=w", "--rw=read"])
            .args(*case);
        let (o, took) = interrupt(cmd, Duration::from_millis(500));
        assert!(took < Duration::from_millis(250), "{case:?}: took {took:?}");
        assert_eq!(o.status.code(), Some(130), "{case:?}: {}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["interrupted"], true, "{case:?}");
        assert_eq!(v["jobs"][0]["error"], 0, "{case:?}: {v}");
    }
    // The prerun command was ended with its process group: it never got to `touch`.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!env.path().join("late").exists());
});
