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
