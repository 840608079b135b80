//! Distributed runs under `mpirun` (built with `--features mpi`; CI runs these with Open MPI).
#![cfg(feature = "mpi")]

mod common;
use common::*;

fn mpirun(env: &Env, np: u32, args: &[&str]) -> std::process::Output {
    let mut c = std::process::Command::new("timeout");
    c.current_dir(env.path())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["120", "mpirun", "--oversubscribe", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_fathom"))
        .args(args);
    c.output().expect("mpirun (apt-get install openmpi-bin)")
}

fathomtest!(
    three_ranks_print_one_json_document_with_exactly_merged_totals,
    |env| {
        let dir = format!("--directory={}", env.path().join("D").display());
        let o = mpirun(
            &env,
            3,
            &[
                "--name=m",
                "--rw=randread",
                "--bs=4k",
                "--size=8m",
                &dir,
                "--output-format=json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o); // exactly one document on stdout
        let r = &v["jobs"][0]["read"];
        assert_eq!(r["total_ios"], 3 * 2048);
        assert_eq!(
            r["clat_ns"]["N"],
            3 * 2048,
            "histograms merged, not averaged"
        );
        let ranks = &v["fathom_ranks"];
        assert_eq!(ranks["ranks"], 3);
        for (i, pr) in ranks["per_rank"].as_array().unwrap().iter().enumerate() {
            assert_eq!(pr["rank"], i);
            assert_eq!(pr["jobs"][0]["read"]["total_ios"], 2048);
        }
        // Per-rank files by default.
        for rank in 0..3 {
            assert!(env.path().join(format!("D/m.0.0.{rank}")).exists());
        }
    }
);

fathomtest!(barriers_start_every_phase_together, |env| {
    let dir = format!("--directory={}", env.path().display());
    let o = mpirun(
        &env,
        3,
        &[
            "--output-format=json",
            &dir,
            "--ioengine=null",
            "--size=64m",
            "--name=a",
            "--rw=read",
            "--name=b",
            "--stonewall",
            "--rw=randread",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    for job in 0..2 {
        let starts: Vec<u64> = v["fathom_ranks"]["per_rank"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["jobs"][job]["job_start_ms"].as_u64().unwrap())
            .collect();
        let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
        assert!(
            spread <= 50,
            "job {job} starts {starts:?}: spread {spread} ms"
        );
    }
});

fathomtest!(ranks_sharing_a_named_file_write_their_own_regions, |env| {
    let f = format!("--filename={}", env.path().join("shared").display());
    let o = mpirun(
        &env,
        3,
        &[
            "--output-format=json",
            "--name=n1",
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            &f,
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], 3 << 20);
    assert_eq!(
        std::fs::metadata(env.path().join("shared")).unwrap().len(),
        3 << 20
    );
});

fathomtest!(a_failing_rank_fails_the_run_without_hanging, |env| {
    // Rank 1's file name is taken by a directory: only rank 1 fails to lay out.
    std::fs::create_dir_all(env.path().join("m.0.0.1")).unwrap();
    let dir = format!("--directory={}", env.path().display());
    let o = mpirun(&env, 3, &["--name=m", "--rw=write", "--size=1m", &dir]);
    assert_ne!(o.status.code(), Some(0));
    assert_ne!(o.status.code(), Some(124), "timed out: a rank hung");
    let e = stderr(&o);
    assert!(e.contains("rank 1 ("), "the failing rank names itself: {e}");
});

fathomtest!(mdtest_style_phases_across_ranks_share_one_tree, |env| {
    // Two ranks, one shared tree: each rank creates and then stats its own 2 × 2 × 10
    // files (names carry the rank); rank 0 reports the merged operation counts.
    let dir = format!("--directory={}", env.path().join("T").display());
    let common = [
        "--ioengine=filetree",
        dir.as_str(),
        "--tree_depth=1",
        "--tree_width=4",
        "--nrfiles=10",
    ];
    let args: Vec<&str> = ["--output-format=json", "--name=create", "--meta_mix=create"]
        .into_iter()
        .chain(common)
        .chain([
            "--name=stat",
            "--stonewall",
            "--meta_mix=stat",
            "--tree_format=no",
        ])
        .chain(common)
        .collect();
    let o = mpirun(&env, 2, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["jobs"][0]["ops"]["create"]["ops"], 80);
    assert_eq!(v["jobs"][1]["ops"]["stat"]["ops"], 80);
    assert_eq!(v["jobs"][1]["ops"]["stat"]["skipped"], 0);
    for rank in 0..2 {
        assert!(env.path().join(format!("T/d3/f.0.9.{rank}")).is_file());
    }
});

fathomtest!(
    ior_segments_interleave_every_rank_in_one_shared_file,
    |env| {
        // 3 ranks × 2 segments × 32 KiB blocks, each rank verifying what it wrote: no block
        // overlaps another rank's, and the file is exactly the sum.
        let file = format!("--filename={}", env.path().join("S").display());
        let o = mpirun(
            &env,
            3,
            &[
                "--output-format=json",
                "--name=s",
                &file,
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                "--segments=2",
                "--verify=crc32c",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["jobs"][0]["write"]["io_bytes"], 3 * 65536);
        assert_eq!(v["jobs"][0]["verify"]["failures"], 0);
        assert_eq!(v["jobs"][0]["verify"]["blocks"], 3 * 16);
        assert_eq!(
            std::fs::metadata(env.path().join("S")).unwrap().len(),
            3 * 65536
        );
    }
);

// vdbench parameter files with several hosts: one rank per hd= (mpirun -np N on one
// machine), work placed by host=, one merged report printed by rank 0.
fathomtest!(
    vdbench_hosts_are_ranks_and_rank_0_reports_them_merged,
    |env| {
        let anchor = env.path().join("tree");
        let p = env.write(
            "clients.vdb",
            &format!(
                "messagescan=no\n\
             hd=default,vdbench=/opt/vdbench,user=root,shell=ssh\n\
             hd=hd1,system=node1\nhd=hd2,system=node2\nhd=hd3,system=node3\n\
             fsd=fsd1,anchor={},depth=1,width=4,files=6,size=64k,shared=yes\n\
             fwd=format,threads=2,xfersize=64k\n\
             fwd=default,xfersize=16k,fileio=random,fileselect=random,rdpct=100,threads=2\n\
             fwd=fwd1,fsd=fsd1,host=hd1\nfwd=fwd2,fsd=fsd1,host=hd2\nfwd=fwd3,fsd=fsd1,host=hd3\n\
             rd=rd1,fwd=fwd*,fwdrate=max,format=restart,elapsed=2,interval=1\n",
                anchor.display()
            ),
        );
        let o = mpirun(
            &env,
            3,
            &["vdbench", "-f", p.to_str().unwrap(), "-o", "out"],
        );
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        let out = stdout(&o);
        assert_eq!(
            out.matches("Starting RD=rd1").count(),
            1,
            "only rank 0 prints: {out}"
        );
        assert_eq!(out.matches("avg_2-2").count(), 1, "{out}");
        let mut files = 0;
        for d in std::fs::read_dir(&anchor).unwrap().flatten() {
            if d.path().is_dir() {
                files += std::fs::read_dir(d.path()).unwrap().count();
            }
        }
        assert_eq!(files, 4 * 6, "the hosts built the shared tree between them");
        for f in ["fwd1.html", "fwd2.html", "fwd3.html", "flatfile.html"] {
            assert!(env.path().join("out").join(f).is_file(), "{f}");
        }
        // Every host's reads are in the merged result.
        let native = std::fs::read_to_string(env.path().join("out/rd1.fathom.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&native).unwrap();
        let jobs = v["result"]["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 3, "one job per FWD, one FWD per host");
        for j in jobs {
            assert!(
                j["stats"]["dirs"][0]["ios"].as_u64().unwrap() > 0,
                "{}",
                j["name"]
            );
        }

        // Raw: an SD per host; the run's iorate is the total over the hosts.
        let p = env.write(
            "raw.vdb",
            &format!(
                "hd=hd1,system=a\nhd=hd2,system=b\n\
             sd=default,size=8m,threads=2\nsd=sd1,host=hd1,lun={}\nsd=sd2,host=hd2,lun={}\n\
             wd=wd1,sd=sd*,xfersize=4k,rdpct=100\n\
             rd=rd1,wd=wd1,iorate=600,distribution=deterministic,elapsed=3,interval=1\n",
                env.path().join("a.lun").display(),
                env.path().join("b.lun").display()
            ),
        );
        let o = mpirun(
            &env,
            2,
            &["vdbench", "-f", p.to_str().unwrap(), "-o", "raw"],
        );
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        let avg = stdout(&o)
            .lines()
            .find(|l| l.contains("avg_2-3"))
            .unwrap()
            .to_string();
        let rate: f64 = avg.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!((570.0..=630.0).contains(&rate), "{avg}");
        // The wrong number of ranks is refused with the right one.
        let o = mpirun(
            &env,
            3,
            &["vdbench", "-f", p.to_str().unwrap(), "-o", "raw"],
        );
        assert!(!o.status.success());
        assert!(stderr(&o).contains("use mpirun -np 2"), "{}", stderr(&o));
    }
);

/// Start `fathom ARGS` on `np` ranks, SIGINT one rank (not mpirun) after `after`; the
/// output and the time from the signal to mpirun's end (the test fails after 30 s: a hang).
fn signal_one_rank(
    env: &Env,
    np: u32,
    args: &[&str],
    after: std::time::Duration,
    ready: impl Fn() -> bool,
) -> (std::process::Output, std::time::Duration) {
    let mut child = std::process::Command::new("mpirun")
        .current_dir(env.path())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_fathom"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun");
    std::thread::sleep(after);
    // On a loaded machine the ranks may still be starting: the signal goes once `ready`
    // says the run is under way (or after 20 s more).
    let by = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !ready() && std::time::Instant::now() < by {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let ranks = std::process::Command::new("pgrep")
        .args(["-P", &child.id().to_string(), "fathom"])
        .output()
        .unwrap();
    let pids: Vec<i32> = String::from_utf8_lossy(&ranks.stdout)
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), np as usize, "the ranks under mpirun");
    let t = std::time::Instant::now();
    // SAFETY: kill(2) with a live child's pid and a valid signal.
    unsafe { libc::kill(pids[pids.len() - 1], libc::SIGINT) };
    let deadline = t + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the run hung after one rank was stopped");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let took = t.elapsed();
    (child.wait_with_output().unwrap(), took)
}

fathomtest!(a_rank_stopped_alone_stops_the_run_without_hanging, |env| {
    // A signal to one rank only (not through mpirun): that rank stops and tells the
    // others, which stop their phase too (within a poll, not at its end 30 s later), and
    // rank 0 prints what was done. Before, the stopped rank went to the result gather
    // while the others waited for it at the next phase's barrier: the run hung; then the
    // others finished their phase first.
    env.write(
        "j.fio",
        &format!(
            "[global]\ndirectory={}\nsize=8m\nrw=randread\ntime_based\nruntime=30\n\n[a]\n\n[b]\nstonewall\n",
            env.path().display()
        ),
    );
    let (o, took) = signal_one_rank(
        &env,
        2,
        &["j.fio", "--output-format=json"],
        std::time::Duration::from_millis(1500),
        // Both ranks' files of job a laid out: the run has started.
        || {
            std::fs::read_dir(env.path()).is_ok_and(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("a."))
                    .filter(|e| e.metadata().is_ok_and(|m| m.len() == 8 << 20))
                    .count()
                    == 2
            })
        },
    );
    // The other rank ends phase a at once (not 28 s later), then both skip phase b (the
    // bound leaves room for a loaded machine: about 2 s here).
    assert!(took < std::time::Duration::from_secs(15), "took {took:?}");
    let v = json(&o);
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a"], "{}", stderr(&o));
    // Every rank leaves with the interrupted run's code, whichever rank was signalled.
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
});

fathomtest!(a_vdbench_host_stopped_alone_stops_every_host, |env| {
    // A signal to one host's rank ends the parameter file on every host: the current run
    // stops within a poll on every host (not 28 s later) and rd2 never starts.
    let p = env.write(
        "two.vdb",
        &format!(
            "hd=hd1,system=node1\nhd=hd2,system=node2\n\
             sd=sd1,lun={},size=4m\n\
             wd=wd1,sd=sd1,xfersize=4k,rdpct=100\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=30,interval=1\n\
             rd=rd2,wd=wd1,iorate=max,elapsed=3,interval=1\n",
            env.path().join("lun").display()
        ),
    );
    let (o, took) = signal_one_rank(
        &env,
        2,
        &["vdbench", "-f", p.to_str().unwrap(), "-o", "out"],
        std::time::Duration::from_millis(1500),
        || true,
    );
    assert!(took < std::time::Duration::from_secs(15), "took {took:?}");
    let out = stdout(&o);
    assert!(!out.contains("Starting RD=rd2"), "{out}{}", stderr(&o));
    assert_eq!(o.status.code(), Some(130), "{out}{}", stderr(&o));
});

/// `mpirun -np N -machinefile ./machinefile ./TOOL ARGS` in `env`, TOOL being fathom linked
/// under a tool's name (as runbooks write it).
fn mpirun_tool(env: &Env, np: u32, tool: &str, args: &[&str]) -> std::process::Output {
    mpirun_tool_env(env, np, tool, &[], args)
}

/// [`mpirun_tool`] with `vars` in mpirun's environment (which the ranks on this host get).
fn mpirun_tool_env(
    env: &Env,
    np: u32,
    tool: &str,
    vars: &[(&str, &str)],
    args: &[&str],
) -> std::process::Output {
    let bin = env.path().join("bin");
    if !bin.join(tool).exists() {
        let o = env.run(&["install-links", bin.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::write(env.path().join("machinefile"), "localhost slots=8\n").unwrap();
    }
    let mut c = std::process::Command::new("timeout");
    c.current_dir(env.path())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .envs(vars.iter().copied())
        .args(["120", "mpirun", "--oversubscribe", "-np", &np.to_string()])
        .args(["-machinefile", "./machinefile"])
        .arg(bin.join(tool))
        .args(args);
    c.output().expect("mpirun (apt-get install openmpi-bin)")
}

// IOR's runbook line (`mpirun -np 4 -machinefile ./machinefile ./IOR -a POSIX -b 64k -F
// -i 10 -s 200000 -t 4k`, scaled down) through a link named IOR: one report from rank 0
// for 4 tasks, a file per task; and the shared file laid out by every rank's tasks in
// IOR's segments, written whole (no hole, no overlap).
fathomtest!(ior_runs_across_ranks_as_one_ior_run, |env| {
    let o = mpirun_tool(
        &env,
        4,
        "IOR",
        &[
            "-a", "POSIX", "-b", "64k", "-F", "-i", "2", "-s", "4", "-t", "4k", "-o", "testFile",
            "-k",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("Summary of all tests:").count(), 1, "{out}");
    assert!(out.contains("tasks               : 4\n"), "{out}");
    assert!(out.contains("aggregate filesize  : 1 MiB"), "{out}");
    // IOR 4.0's summary line: 9 figures, the stonewall's NA, test 0, 4 tasks, 4 a node,
    // 2 repetitions, a file per process.
    let row = regex_lite::Regex::new(r"(?m)^write( +[\d.]+){9} +NA +NA +0 +4 +4 +2 +1 ").unwrap();
    assert!(row.is_match(&out), "{out}");
    for rank in 0..4 {
        let f = env.path().join(format!("testFile.{rank:08}"));
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 4 * 65536, "{f:?}");
    }
    // N-1: 4 ranks x 4 segments x 64 KiB blocks in 16 KiB transfers.
    let o = mpirun_tool(
        &env,
        4,
        "IOR",
        &[
            "-a", "POSIX", "-b", "64k", "-t", "16k", "-s", "4", "-o", "shared", "-k", "-w",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::metadata(env.path().join("shared")).unwrap();
    assert_eq!(md.len(), 4 * 4 * 65536);
    use std::os::unix::fs::MetadataExt;
    assert!(
        md.blocks() * 512 >= md.len(),
        "every block written: {} of {} bytes allocated",
        md.blocks() * 512,
        md.len()
    );
    // Without -k the shared file goes.
    let o = mpirun_tool(&env, 2, "IOR", &["-b", "64k", "-t", "64k", "-o", "gone"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!env.path().join("gone").exists());
    // A tool that is not an MPI program says so instead of running a copy per rank.
    let o = mpirun(&env, 2, &["suite", "dd", "if=/dev/zero", "of=x", "count=1"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not an MPI program"), "{}", stderr(&o));
    assert!(!env.path().join("x").exists());
});

// IOR's -z on a shared file under mpirun: each transfer goes to the task IOR's draws
// give it (glibc's random() from --random-offset-seed, alike on every rank), so the
// tasks write different numbers of transfers and every transfer once, as IOR 4.0.0 does
// (its order read from its system calls); -R checks them in the same order.
fathomtest!(ior_random_offsets_on_a_shared_file_are_ior_s, |env| {
    let args = [
        "-w",
        "-r",
        "-R",
        "-k",
        "-z",
        "--random-offset-seed=7",
        "-b",
        "64k",
        "-t",
        "4k",
        "-G",
        "5",
        "-o",
        "z",
    ];
    let o = mpirun_tool(&env, 3, "IOR", &args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("WARNING"), "{}", stdout(&o));
    let data = std::fs::read(env.path().join("z")).unwrap();
    assert_eq!(data.len(), 3 * 65536);
    // IOR's data names its task in each word's high half: the task IOR drew.
    for (transfer, task) in [(30, 0u32), (0, 0), (16, 1), (25, 1), (21, 2), (10, 2)] {
        let at = transfer * 4096 + 4;
        let got = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
        assert_eq!(got, task, "transfer {transfer}");
    }
});

// --randomPrefill across ranks on a segmented shared file: each rank prefills its own
// block of every segment (IOR's prefill offsets), its rank in the high half of the offset
// packets' stamps; one transfer a rank moves, the rest stays as the prefill wrote it.
fathomtest!(ior_random_prefill_fills_each_rank_s_blocks, |env| {
    let args = [
        "-w",
        "-k",
        "-z",
        "-l",
        "o",
        "-b",
        "64k",
        "-t",
        "4k",
        "-s",
        "2",
        "--randomPrefill=16k",
        "-O",
        "stoneWallingWearOutIterations=1",
        "-o",
        "p",
    ];
    let o = mpirun_tool(&env, 2, "IOR", &args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("WARNING: Using actual aggregate bytes moved = 8192\n"),
        "{}",
        stdout(&o)
    );
    let data = std::fs::read(env.path().join("p")).unwrap();
    assert_eq!(data.len(), 4 * 65536);
    let mut prefilled = 0;
    for (i, c) in data.chunks(4096).enumerate() {
        if c[8..].iter().all(|&b| b == 0xFF) {
            // Block i / 16 of the file: segment (i / 32), rank (i / 16) % 2.
            let rank = (i as u64 / 16) % 2;
            let write = (i / 4 * 16384) as u64;
            let k = (i % 4 + 1) as u64;
            let want = (rank << 32) | ((write * k) & 0xFFFF_FFFF);
            assert_eq!(c[..8], want.to_le_bytes(), "4 KiB block {i}");
            prefilled += 1;
        }
    }
    assert_eq!(prefilled, 64 - 2);
});

// IOR's test files on several file systems: `-o A/t@B/u` with -F puts task T's file on
// the (T mod 2)th (A/t.00000000, B/u.00000001, A/t.00000002, as IOR 4.0.0 does side by
// side); -vvv names each file removed before the write, as IOR; the shared file is the
// first name's.
fathomtest!(
    ior_places_task_files_on_several_file_systems_as_ior,
    |env| {
        for d in ["A", "B"] {
            std::fs::create_dir_all(env.path().join(d)).unwrap();
        }
        let args = [
            "-w", "-r", "-k", "-F", "-b", "64k", "-t", "16k", "-vvv", "-o", "A/t@B/u",
        ];
        for round in 0..2 {
            let o = mpirun_tool(&env, 3, "IOR", &args);
            assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
            let out = stdout(&o);
            for (r, f) in [
                (0, "A/t.00000000"),
                (1, "B/u.00000001"),
                (2, "A/t.00000002"),
            ] {
                assert_eq!(
                    std::fs::metadata(env.path().join(f)).map(|m| m.len()).ok(),
                    Some(64 << 10),
                    "{f}"
                );
                assert!(out.contains(&format!("task {r} writing {f}\n")), "{out}");
                // The second round finds the files there: IOR's warning and removal lines.
                let there = [
                    format!("WARNING: The file \"{f}\" exists already and will be overwritten\n"),
                    format!("task {r} removing {f}\n"),
                ];
                for l in there {
                    assert_eq!(out.contains(&l), round == 1, "{l}: {out}");
                }
            }
        }
        let o = mpirun_tool(
            &env,
            2,
            "IOR",
            &["-w", "-k", "-b", "64k", "-t", "16k", "-o", "A/s@B/s"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(env.path().join("A/s").exists() && !env.path().join("B/s").exists());
    }
);

// IOR's -C (reorderTasks): each task reads back the data of the task a node on, to get
// past a client's cache. IOR's own IOR_FAKE_TASK_PER_NODES makes the 4 ranks on this host
// two nodes of 2, as it does in IOR; -vvv prints the file each task reads (IOR's line), and
// -W/-R check the data read. -N takes the first N ranks as IOR's tasks (it ran N threads
// on every rank: N times the data); -Z -Z reads every task's data once, in a shuffle.
fathomtest!(ior_reorders_reads_and_takes_n_of_the_ranks_as_ior, |env| {
    let reads = |out: &str| -> Vec<String> {
        let mut v: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("task ") && l.contains(" reading "))
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    let args = [
        "-a", "POSIX", "-b", "64k", "-t", "16k", "-F", "-C", "-vvv", "-w", "-r", "-W", "-R", "-o",
        "tf",
    ];
    let fake = [("IOR_FAKE_TASK_PER_NODES", "2")];
    let o = mpirun_tool_env(&env, 4, "IOR", &fake, &args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    let want: Vec<String> = (0..4)
        .map(|r| format!("task {r} reading tf.{:08}", (r + 2) % 4))
        .collect();
    assert_eq!(reads(&out), want, "{out}");
    for line in [
        "Fake tasks per node: using 2\n",
        "ordering inter file : constant task offset\n",
        "task offset         : 1\n",
        "clients per node    : 2\n",
        "tasks               : 4\n",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    assert!(!out.contains("Incorrect data"), "{out}");
    assert!(out.contains("Max Read:"), "{out}");
    // Nothing left behind (-W/-R wrote no verify state file).
    let left: Vec<_> = std::fs::read_dir(env.path()).unwrap().flatten().collect();
    assert!(
        left.iter()
            .all(|e| e.file_name() == "bin" || e.file_name() == "machinefile"),
        "{left:?}"
    );
    // One node of 4 (no fake): -C moves nothing, each task reads its own file.
    let o = mpirun_tool(&env, 4, "IOR", &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let want: Vec<String> = (0..4)
        .map(|r| format!("task {r} reading tf.{r:08}"))
        .collect();
    assert_eq!(reads(&stdout(&o)), want);
    // -Z -Z: a shuffle, every file read once.
    let z = [
        "-b", "64k", "-t", "64k", "-F", "-Z", "-Z", "-X", "7", "-vvv", "-o", "tf",
    ];
    let o = mpirun_tool(&env, 4, "IOR", &z);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut files: Vec<String> = reads(&stdout(&o))
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().to_string())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["tf.00000000", "tf.00000001", "tf.00000002", "tf.00000003"],
        "{}",
        stdout(&o)
    );
    // -N 2 of 4 ranks: two tasks, two blocks (not 2 threads on each of 4 ranks).
    let n2 = [
        "-b", "64k", "-t", "16k", "-N", "2", "-o", "shared", "-k", "-w",
    ];
    let o = mpirun_tool(&env, 4, "IOR", &n2);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("tasks               : 2\n"), "{out}");
    assert!(out.contains("aggregate filesize  : 131072 bytes"), "{out}");
    let row = regex_lite::Regex::new(r"(?m)^write( +[\d.]+){9} +NA +NA +0 +2 +4 +1 ").unwrap();
    assert!(row.is_match(&out), "{out}");
    assert_eq!(
        std::fs::metadata(env.path().join("shared")).unwrap().len(),
        2 * 65536
    );
    // More than the ranks: IOR's warning, then every rank.
    let n8 = ["-b", "64k", "-t", "16k", "-N", "8", "-o", "shared", "-w"];
    let o = mpirun_tool(&env, 4, "IOR", &n8);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("More tasks requested (8) than available (4)"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("tasks               : 4\n"));
});

// IOR's stonewalling across ranks (IO500's form: -D with stoneWallingWearOut and a status
// file): at the deadline the ranks have done different counts; each goes on to the most
// any did, so every file holds the same count of transfers; IOR's stonewall line; the
// status file keeps the count, and a later read (-C: another rank's file) reads that many.
fathomtest!(
    ior_wears_out_a_stonewalled_phase_to_the_most_transfers,
    |env| {
        let st = env.path().join("stonewall");
        let st = format!("stoneWallingStatusFile={}", st.display());
        let w = [
            "-C",
            "-Q",
            "1",
            "-g",
            "-G",
            "271",
            "-k",
            "-e",
            "-o",
            "easy",
            "-O",
            &st,
            "-O",
            "stoneWallingWearOut=1",
            "-t",
            "4k",
            "-b",
            "16g",
            "-F",
            "-w",
            "-D",
            "1",
            "-Y",
            "-a",
            "POSIX",
        ];
        let o = mpirun_tool(&env, 3, "IOR", &w);
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        let out = stdout(&o);
        let c = regex_lite::Regex::new(r"stonewalling pairs accessed min: (\d+) max: (\d+) -- ")
            .unwrap()
            .captures(&out)
            .unwrap_or_else(|| panic!("{out}"));
        let (min, max): (u64, u64) = (c[1].parse().unwrap(), c[2].parse().unwrap());
        assert!(0 < min && min <= max, "{out}");
        assert_eq!(
            std::fs::read_to_string(env.path().join("stonewall")).unwrap(),
            max.to_string()
        );
        for r in 0..3 {
            let len = std::fs::metadata(env.path().join(format!("easy.{r:08}")))
                .unwrap()
                .len();
            assert_eq!(len, max * 4096, "rank {r}: {out}");
        }
        assert!(
            out.contains(&format!(
                "Using actual aggregate bytes moved = {}\n",
                3 * max * 4096
            )),
            "{out}"
        );
        let r = [
            "-C", "-Q", "1", "-g", "-G", "271", "-k", "-e", "-o", "easy", "-O", &st, "-t", "4k",
            "-b", "16g", "-F", "-r", "-a", "POSIX",
        ];
        let o = mpirun_tool(&env, 3, "IOR", &r);
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).contains(&format!("bytes moved = {}\n", 3 * max * 4096)),
            "{}",
            stdout(&o)
        );
    }
);

// IO500's ior-hard line (scaled down in time by stoneWallingWearOutIterations): ten
// million segments of one 47008-byte transfer, three tasks; each task's k-th transfer at
// (3k + task) x 47008 holding IOR's data of that task, read back and checked by -R.
fathomtest!(ior_runs_io500_s_hard_line_across_ranks, |env| {
    let st = format!(
        "stoneWallingStatusFile={}",
        env.path().join("hard.st").display()
    );
    let line = |rw: &[&str]| -> Vec<String> {
        [
            &[
                "-C", "-Q", "1", "-g", "-G", "27", "-k", "-e", "-o", "hard", "-O",
            ][..],
            &[
                &st, "-t", "47008", "-b", "47008", "-s", "10000000", "-a", "POSIX",
            ],
            rw,
        ]
        .concat()
        .into_iter()
        .map(String::from)
        .collect()
    };
    let w = line(&[
        "-w",
        "-D",
        "60",
        "-O",
        "stoneWallingWearOut=1",
        "-O",
        "stoneWallingWearOutIterations=20",
    ]);
    let o = mpirun_tool(
        &env,
        3,
        "IOR",
        &w.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let data = std::fs::read(env.path().join("hard")).unwrap();
    assert_eq!(data.len(), 3 * 20 * 47008);
    for k in 0..20usize {
        for task in 0..3u64 {
            let at = (3 * k + task as usize) * 47008;
            let w0 = u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
            assert_eq!(w0, task << 32 | 27, "transfer {k} of task {task}");
        }
    }
    let r = line(&["-r", "-R"]);
    let o = mpirun_tool(
        &env,
        3,
        "IOR",
        &r.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("bytes moved = {}\n", 60 * 47008)),
        "{out}"
    );
    assert!(!out.contains("Incorrect data"), "{out}");
});

// metarates' runbook line (`mpirun -np 4 -machinefile ./machinefile ./metarates -d junk -n
// 1000000 -C -U -S`, scaled down) through a link named metarates: rank 0 prints the run
// for 4 processes, each test's rates over the 4 (total = 4 x the slowest), the files are
// gone afterwards; a file count that does not divide stops every rank at once.
fathomtest!(metarates_runs_its_tests_on_every_rank_together, |env| {
    let o = mpirun_tool(
        &env,
        4,
        "metarates",
        &["-d", "junk", "-n", "400", "-C", "-U", "-S"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("run parameters:").count(), 1, "{out}");
    assert!(
        out.contains("number of files used per process in tests = 100"),
        "{out}"
    );
    let re = regex_lite::Regex::new(
        r"(?m)^max rate = ([\d.]+) (\w+) per second, min rate = ([\d.]+) \w+ per second,? avg rate = ([\d.]+) \w+ per second, total rate = ([\d.]+) \w+ per second$",
    )
    .unwrap();
    let mut words = Vec::new();
    for c in re.captures_iter(&out) {
        let f = |i: usize| c[i].parse::<f64>().unwrap();
        let (max, min, avg, total) = (f(1), f(3), f(4), f(5));
        assert!(max >= avg && avg >= min && min > 0.0, "{out}");
        assert!((total - 4.0 * min).abs() <= 1e-6 * total, "{out}");
        words.push(c[2].to_string());
    }
    assert_eq!(words, ["creates", "stats", "utimes"], "{out}");
    assert!(
        out.contains("rates at which files can be stat'd with 4 pes:"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_dir(env.path().join("junk")).unwrap().count(),
        0
    );
    let o = mpirun_tool(&env, 4, "metarates", &["-d", "junk", "-n", "402", "-C"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("number of files, 402, not divisible by number of processes 4"),
        "{}",
        stderr(&o)
    );
});

// The MPI suites stop together too: metarates on 2 ranks, one rank signalled alone in its
// create test (a million files a rank: minutes to go): both stop within a poll, and every
// file goes (the bound leaves room for a loaded machine: about 3 s here).
fathomtest!(metarates_stopped_on_one_rank_stops_every_rank, |env| {
    let junk = env.path().join("junk");
    let (o, took) = signal_one_rank(
        &env,
        2,
        &[
            "suite",
            "metarates",
            "-d",
            junk.to_str().unwrap(),
            "-n",
            "2000000",
            "-C",
        ],
        std::time::Duration::from_millis(1500),
        || true,
    );
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    assert!(!o.status.success());
    assert!(!stdout(&o).contains("total rate"), "{}", stdout(&o));
    assert_eq!(
        std::fs::read_dir(&junk).unwrap().count(),
        0,
        "files removed"
    );
});
