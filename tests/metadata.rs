//! Metadata workloads: fio's metadata engines (counts equal to fio's), directory trees,
//! and filetree operation mixes.

mod common;
use common::{fio, json, stderr, stdout, Env};
use std::path::Path;
use std::process::Command;

fn count_entries(dir: &Path, files: bool) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
                if !files {
                    n += 1;
                }
            } else if files {
                n += 1;
            }
        }
    }
    n
}

/// (read ios, write ios, read bytes, write bytes, clat samples of the job's direction).
fn counts(v: &serde_json::Value) -> (u64, u64, u64, u64, u64) {
    let j = &v["jobs"][0];
    let g = |d: &str, k: &str| j[d][k].as_u64().unwrap();
    let n =
        j["read"]["clat_ns"]["N"].as_u64().unwrap() + j["write"]["clat_ns"]["N"].as_u64().unwrap();
    (
        g("read", "total_ios"),
        g("write", "total_ios"),
        g("read", "io_bytes"),
        g("write", "io_bytes"),
        n,
    )
}

fn fio_json(dir: &Path, args: &[String]) -> serde_json::Value {
    let o = Command::new(fio().unwrap())
        .args(args)
        .arg("--output-format=json")
        .current_dir(dir)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout).into_owned();
    let start = s
        .find('{')
        .unwrap_or_else(|| panic!("fio printed no JSON: {s}"));
    serde_json::from_str(&s[start..]).unwrap()
}

#[test]
fn fio_metadata_engines_count_as_fio_does() {
    if fio().is_none() {
        return;
    }
    // (engine, extra options, is a directory engine, files exist before)
    let cases: &[(&str, &str, bool)] = &[
        ("filecreate", "--rw=write --nrfiles=500 --bs=4k", false),
        (
            "filecreate",
            "--rw=write --nrfiles=100 --size=1M --bs=4k",
            false,
        ),
        (
            "filecreate",
            "--rw=write --nrfiles=100 --filesize=16k --bs=4k",
            false,
        ),
        (
            "filecreate",
            "--rw=read --nrfiles=100 --bs=4k --loops=2 --openfiles=1",
            false,
        ),
        (
            "filecreate",
            "--rw=write --nrfiles=50 --io_size=400k --bs=4k",
            false,
        ),
        (
            "filestat",
            "--rw=read --nrfiles=200 --filesize=4k --bs=4k",
            true,
        ),
        (
            "filestat",
            "--rw=randread --nrfiles=100 --filesize=8k --bs=4k --stat_type=lstat --loops=3",
            true,
        ),
        (
            "filestat",
            "--rw=read --nrfiles=100 --filesize=4k --bs=4k --stat_type=statx",
            true,
        ),
        (
            "filedelete",
            "--rw=write --nrfiles=100 --size=1M --bs=4k",
            true,
        ),
        (
            "filedelete",
            "--rw=read --nrfiles=500 --filesize=4k --bs=4k",
            true,
        ),
    ];
    for (engine, extra, _) in cases {
        let env = Env::new();
        let args: Vec<String> = [
            "--name=m".to_string(),
            format!("--ioengine={engine}"),
            format!("--directory={}", env.path().join("fio").display()),
        ]
        .into_iter()
        .chain(extra.split(' ').map(String::from))
        .collect();
        std::fs::create_dir(env.path().join("fio")).unwrap();
        std::fs::create_dir(env.path().join("ours")).unwrap();
        let want = fio_json(env.path(), &args);
        let fio_left = count_entries(&env.path().join("fio"), true);
        let ours_args: Vec<String> = args
            .iter()
            .map(|a| a.replace("/fio", "/ours"))
            .chain(["--output-format=json".to_string()])
            .collect();
        let o = env.cmd().args(&ours_args).output().unwrap();
        assert!(o.status.success(), "{engine} {extra}: {}", stderr(&o));
        let got = json(&o);
        assert_eq!(counts(&got), counts(&want), "{engine} {extra}");
        assert_eq!(
            count_entries(&env.path().join("ours"), true),
            fio_left,
            "{engine} {extra}: files left"
        );
        // fio's metadata engines record clat only.
        let dir = if extra.contains("rw=write") {
            "write"
        } else {
            "read"
        };
        assert_eq!(got["jobs"][0][dir]["lat_ns"]["N"], 0, "{engine}");
        let op = got["jobs"][0]["ops"].as_object().unwrap();
        assert_eq!(op.len(), 1);
        let (_, o) = op.iter().next().unwrap();
        assert_eq!(o["ops"], got["jobs"][0][dir]["clat_ns"]["N"]);
    }
}

fathomtest!(file_engines_create_stat_and_remove_exactly_500, |env| {
    for (engine, op) in [
        ("filecreate", "create"),
        ("filestat", "stat"),
        ("filedelete", "delete"),
    ] {
        let o = env.run(&[
            "--name=f",
            &format!("--ioengine={engine}"),
            "--directory=d",
            "--nrfiles=500",
            "--filesize=4k",
            "--bs=4k",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let v = json(&o);
        let j = &v["jobs"][0];
        assert_eq!(j["ops"][op]["ops"], 500, "{engine}");
        assert_eq!(j["ops"][op]["errors"], 0, "{engine}");
        assert_eq!(j["read"]["clat_ns"]["N"], 500, "{engine}");
        let left = count_entries(&env.path().join("d"), true);
        assert_eq!(
            left,
            if engine == "filedelete" { 0 } else { 500 },
            "{engine}"
        );
    }
});

fathomtest!(dir_engines_create_stat_and_remove_exactly_500, |env| {
    for (engine, op) in [
        ("dircreate", "mkdir"),
        ("dirstat", "dirstat"),
        ("dirdelete", "rmdir"),
    ] {
        let o = env.run(&[
            "--name=d",
            &format!("--ioengine={engine}"),
            "--directory=t",
            "--nrfiles=500",
            "--rw=write",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let v = json(&o);
        let j = &v["jobs"][0];
        assert_eq!(j["ops"][op]["ops"], 500, "{engine}");
        assert_eq!(j["write"]["total_ios"], 500, "{engine}");
        assert_eq!(j["write"]["clat_ns"]["N"], 500, "{engine}");
        let dirs = count_entries(&env.path().join("t"), false);
        // dirstat makes its directories before the clock (they exist already here);
        // dirdelete makes them, then removes them in the measured window.
        assert_eq!(
            dirs,
            if engine == "dirdelete" { 0 } else { 500 },
            "{engine}"
        );
    }
    // A dircreate over existing directories over existing directories fails with EEXIST, named.
    let e = [
        "--name=e",
        "--ioengine=dircreate",
        "--directory=t",
        "--nrfiles=5",
    ];
    let o = env.run(&e);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = env.run(&e);
    assert!(!o.status.success());
    assert!(
        stdout(&o).contains("mkdir") || stderr(&o).contains("mkdir"),
        "{}",
        stdout(&o)
    );
});

fathomtest!(
    a_tree_of_depth_2_width_3_holds_9_leaves_and_36_files,
    |env| {
        // fio's filecreate over a tree.
        let o = env.run(&[
            "--name=c",
            "--ioengine=filecreate",
            "--directory=a",
            "--tree_depth=2",
            "--tree_width=3",
            "--nrfiles=4",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(json(&o)["jobs"][0]["ops"]["create"]["ops"], 36);
        assert_eq!(count_entries(&env.path().join("a"), true), 36);
        assert_eq!(count_entries(&env.path().join("a"), false), 12);
        for leaf in ["d0/d0", "d1/d2", "d2/d2"] {
            let n = std::fs::read_dir(env.path().join("a").join(leaf))
                .unwrap()
                .count();
            assert_eq!(n, 4, "{leaf}");
        }
        // filetree with a format phase, files in every directory (distribution=all).
        let o = env.run(&[
            "--name=t",
            "--ioengine=filetree",
            "--directory=b",
            "--tree_depth=2",
            "--tree_width=3",
            "--nrfiles=4",
            "--tree_distribution=all",
            "--tree_format=restart",
            "--meta_mix=stat",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["jobs"][0]["ops"]["stat"]["ops"], 48);
        assert_eq!(v["jobs"][0]["ops"]["stat"]["skipped"], 0);
        assert_eq!(count_entries(&env.path().join("b"), true), 48);
        assert_eq!(count_entries(&env.path().join("b"), false), 12);
        // The format is outside the measured window and shown as set-up time.
        assert!(v["jobs"][0]["layout_ms"].as_u64().is_some());
    }
);

fathomtest!(
    clones_of_a_shared_tree_build_use_and_remove_it_together,
    |env| {
        // Four clones share one vdbench-named tree (depth 2, width 3, 4 files a leaf):
        // each step runs every clone on the same view, so the counts are exact.
        let step = |mix: &str| {
            let o = env.run(&[
                "--name=t",
                "--ioengine=filetree",
                "--directory=v",
                "--tree_depth=2",
                "--tree_width=3",
                "--nrfiles=4",
                "--tree_names=vdbench",
                "--tree_shared=1",
                "--tree_format=no",
                "--numjobs=4",
                "--group_reporting",
                &format!("--meta_mix={mix}"),
                "--output-format=json",
            ]);
            assert!(o.status.success(), "{mix}: {}", stderr(&o));
            json(&o)["jobs"][0]["ops"].clone()
        };
        std::fs::create_dir(env.path().join("v")).unwrap();
        let ops = step("mkdir");
        assert_eq!(ops["mkdir"]["ops"], 12, "{ops}");
        assert_eq!(ops["mkdir"]["errors"], 0);
        assert!(env.path().join("v/vdb.1_3.dir/vdb.2_2.dir").is_dir());
        let ops = step("create");
        assert_eq!(ops["create"]["ops"], 36, "{ops}");
        assert_eq!(count_entries(&env.path().join("v"), true), 36);
        assert!(env
            .path()
            .join("v/vdb.1_2.dir/vdb.2_3.dir/vdb_f0004.file")
            .is_file());
        // Every operation found its target (no error), with per-interval samples.
        let ops = step("stat/50:access/50");
        for op in ["stat", "access"] {
            assert_eq!(ops[op]["errors"], 0, "{op}");
            assert!(ops[op]["ops"].as_u64().unwrap() > 0, "{op}");
        }
        let ops = step("delete");
        assert_eq!(ops["delete"]["ops"], 36, "{ops}");
        // rmdir takes a directory only once it is empty: the leaves first.
        let ops = step("rmdir");
        assert_eq!(ops["rmdir"]["ops"], 12, "{ops}");
        assert_eq!(ops["rmdir"]["errors"], 0);
        assert_eq!(count_entries(&env.path().join("v"), false), 0);
        // A copy needs a free name: with 2 files of 4 made, 2 copies fill the leaf.
        let o = env.run(&[
            "--name=c",
            "--ioengine=filetree",
            "--directory=w",
            "--nrfiles=4",
            "--tree_names=vdbench",
            "--tree_shared=1",
            "--filesize=8k",
            "--meta_mix=create",
            "--number_ios=2",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = env.run(&[
            "--name=c",
            "--ioengine=filetree",
            "--directory=w",
            "--nrfiles=4",
            "--tree_names=vdbench",
            "--tree_shared=1",
            "--tree_format=no",
            "--meta_mix=copy",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let ops = json(&o)["jobs"][0]["ops"].clone();
        assert_eq!(ops["copy"]["ops"], 2, "{ops}");
        assert_eq!(ops["copy"]["bytes"], 16384, "{ops}");
        for n in 1..=4 {
            let p = env.path().join(format!("w/vdb_f{n:04}.file"));
            assert_eq!(
                std::fs::metadata(&p).unwrap().len(),
                8192,
                "{}",
                p.display()
            );
        }
        // Sharing is for filetree; it and unique_dir exclude each other.
        let o = env.run(&[
            "--name=x",
            "--ioengine=filetree",
            "--directory=z",
            "--tree_shared=1",
            "--unique_dir=1",
        ]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains("contradict"), "{}", stderr(&o));
    }
);

fathomtest!(
    an_operation_mix_keeps_its_percentages_over_100k_operations,
    |env| {
        let o = env.run(&[
            "--name=mix",
            "--ioengine=filetree",
            "--directory=m",
            "--tree_depth=1",
            "--tree_width=10",
            "--nrfiles=200",
            "--tree_format=restart",
            "--meta_mix=create/10:stat/40:setattr/10:open/10:close/10:rename/5:delete/10:read/5",
            "--number_ios=100000",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        let ops = v["jobs"][0]["ops"].as_object().unwrap();
        let want = [
            ("create", 10.0),
            ("stat", 40.0),
            ("setattr", 10.0),
            ("open", 10.0),
            ("close", 10.0),
            ("rename", 5.0),
            ("delete", 10.0),
            ("read", 5.0),
        ];
        let mut total = 0;
        for (name, pct) in want {
            let o = &ops[name];
            let chosen = o["ops"].as_u64().unwrap() + o["skipped"].as_u64().unwrap();
            total += chosen;
            let got = chosen as f64 / 1000.0;
            assert!(
                (got - pct).abs() <= pct * 0.01,
                "{name}: {got}% of operations, want {pct}%"
            );
            assert_eq!(o["errors"], 0, "{name}");
            // With 2000 files and creates balancing deletes, almost nothing is skipped.
            assert!(o["skipped"].as_u64().unwrap() < 100, "{name}: {o}");
            assert!(o["lat_ns"]["N"].as_u64().unwrap() == o["ops"].as_u64().unwrap());
        }
        assert_eq!(total, 100_000);
        // Each kind has its rate and percentiles in normal output too.
        let o = env.run(&[
            "--name=mix",
            "--ioengine=filetree",
            "--directory=m",
            "--tree_depth=1",
            "--tree_width=10",
            "--nrfiles=200",
            "--meta_mix=stat/50:setattr/50",
            "--number_ios=2000",
        ]);
        let text = stdout(&o);
        assert!(text.contains("operations   :"), "{text}");
        for l in ["    stat       :", "    setattr    :"] {
            let line = text
                .lines()
                .find(|x| x.starts_with(l))
                .unwrap_or_else(|| panic!("{text}"));
            let cols: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(cols[2], "1000", "{line}");
        }
    }
);

fathomtest!(files_and_directories_are_left_only_when_asked, |env| {
    let base = [
        "--name=u",
        "--ioengine=filetree",
        "--tree_depth=2",
        "--tree_width=2",
        "--nrfiles=3",
        "--meta_mix=create/50:stat/50",
        "--number_ios=200",
    ];
    let o = env.run(&[&base[..], &["--directory=keep"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(count_entries(&env.path().join("keep"), true), 12);
    let o = env.run(&[&base[..], &["--directory=gone", "--unlink=1"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !env.path().join("gone").exists(),
        "unlink=1 leaves nothing behind"
    );
    // fio engines too: filecreate with unlink=1 removes its files and tree.
    let o = env.run(&[
        "--name=c",
        "--ioengine=filecreate",
        "--directory=fc",
        "--tree_depth=1",
        "--tree_width=3",
        "--nrfiles=5",
        "--unlink=1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !env.path().join("fc").exists() || count_entries(&env.path().join("fc"), true) == 0,
        "filecreate unlink=1 left files"
    );
    // A file that was there before is the user's: never removed.
    std::fs::create_dir(env.path().join("mine")).unwrap();
    std::fs::write(env.path().join("mine/f.0.0"), b"precious").unwrap();
    let o = env.run(&[
        "--name=u",
        "--ioengine=filetree",
        "--directory=mine",
        "--nrfiles=3",
        "--meta_mix=create",
        "--unlink=1",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["jobs"][0]["ops"]["create"]["ops"], 2);
    assert_eq!(
        std::fs::read(env.path().join("mine/f.0.0")).unwrap(),
        b"precious"
    );
});

fathomtest!(shared_and_unique_trees_and_mdtest_style_phases, |env| {
    // Three stonewalled phases over one shared tree, two clones each with their own
    // files: create, stat, delete (mdtest's phases).
    let job = "[global]\nioengine=filetree\ndirectory=md\ntree_depth=1\ntree_width=4\n\
               nrfiles=25\nnumjobs=2\ngroup_reporting\n\
               [create]\nmeta_mix=create\n\
               [stat]\nstonewall\nmeta_mix=stat\ntree_format=no\n\
               [delete]\nstonewall\nmeta_mix=delete\ntree_format=no\nunlink=1\n";
    let f = env.write("md.fio", job);
    let o = env.run(&[f.to_str().unwrap(), "--output-format=json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let jobs = v["jobs"].as_array().unwrap();
    for (j, op) in jobs.iter().zip(["create", "stat", "delete"]) {
        assert_eq!(j["ops"][op]["ops"], 200, "{op}: {j}");
        assert_eq!(j["ops"][op]["skipped"], 0, "{op}");
    }
    // unlink=1 in the delete phase removes the tree an earlier phase made.
    assert!(!env.path().join("md").exists());
    // unique_dir: a tree per clone.
    let o = env.run(&[
        "--name=u",
        "--ioengine=filetree",
        "--directory=uq",
        "--tree_depth=1",
        "--tree_width=2",
        "--nrfiles=5",
        "--numjobs=3",
        "--unique_dir=1",
        "--meta_mix=create/40:mkdir/30:rmdir/30",
        "--number_ios=100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for c in 0..3 {
        assert!(env.path().join(format!("uq/tree.{c}")).is_dir());
    }
    // mkdir/rmdir in a shared tree with several clones is refused, with the fix.
    let o = env.run(&[
        "--name=u",
        "--ioengine=filetree",
        "--directory=sh",
        "--numjobs=2",
        "--meta_mix=mkdir/50:rmdir/50",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unique_dir=1"), "{}", stderr(&o));
});

/// Peak resident memory of one run of the binary, KiB.
fn peak_rss_kib(env: &Env, args: &[&str]) -> (i64, std::process::ExitStatus) {
    common::peak_rss_kib(env.cmd().args(args))
}

fathomtest!(a_100k_file_tree_stays_within_its_memory_bound, |env| {
    // 100,000 files in 100 leaves: create them all, then a stat/rename/delete mix. The
    // documented bound (README): under 64 MiB of resident memory for the whole process.
    let base = [
        "--name=big",
        "--ioengine=filetree",
        "--directory=big",
        "--tree_depth=2",
        "--tree_width=10",
        "--nrfiles=1000",
    ];
    let (rss, st) = peak_rss_kib(&env, &[&base[..], &["--meta_mix=create"]].concat());
    assert!(st.success());
    assert_eq!(count_entries(&env.path().join("big"), true), 100_000);
    assert!(rss < 64 * 1024, "peak RSS {rss} KiB for 100k creates");
    let (rss, st) = peak_rss_kib(
        &env,
        &[
            &base[..],
            &[
                "--meta_mix=stat/60:rename/20:delete/20",
                "--number_ios=50000",
            ],
        ]
        .concat(),
    );
    assert!(st.success());
    assert!(rss < 64 * 1024, "peak RSS {rss} KiB for the mix");

    // fio's filecreate over the same 100k-file tree.
    let (rss, st) = peak_rss_kib(
        &env,
        &[
            "--name=fc",
            "--ioengine=filecreate",
            "--directory=fc",
            "--tree_depth=2",
            "--tree_width=10",
            "--nrfiles=1000",
            "--unlink=1",
        ],
    );
    assert!(st.success());
    assert!(
        rss < 96 * 1024,
        "peak RSS {rss} KiB for filecreate over 100k files"
    );
});

fathomtest!(metadata_options_are_checked, |env| {
    // (arguments, what the error must say)
    let cases: &[(&[&str], &str)] = &[
        (
            &["--ioengine=filetree", "--meta_mix=create/50:stat/40"],
            "add up to 90",
        ),
        (
            &["--ioengine=psync", "--size=1m", "--meta_mix=stat"],
            "ioengine=filetree",
        ),
        (
            &[
                "--ioengine=filestat",
                "--nrfiles=2",
                "--filesize=4k",
                "--direct=1",
            ],
            "direct",
        ),
        (
            &[
                "--ioengine=filetree",
                "--tree_depth=1",
                "--nrfiles=3",
                "--filename_format=same",
            ],
            "$filenum",
        ),
    ];
    for (args, says) in cases {
        let o = env.run(&[&["--name=x"][..], args].concat());
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
});

fathomtest!(
    a_mix_with_nothing_left_to_do_ends_instead_of_spinning,
    |env| {
        // 10 files to create, 30 s asked for: after the 10 creates a whole deck of skips
        // shows nothing can change, and the job ends at once.
        let t = std::time::Instant::now();
        let o = env.run(&[
            "--name=c",
            "--ioengine=filetree",
            "--directory=s",
            "--nrfiles=10",
            "--meta_mix=create",
            "--time_based",
            "--runtime=30",
            "--output-format=json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["jobs"][0]["ops"]["create"]["ops"], 10);
        assert_eq!(v["jobs"][0]["ops"]["create"]["skipped"], 100);
        assert!(t.elapsed() < std::time::Duration::from_secs(15));
    }
);

fathomtest!(
    operations_appear_in_csv_markdown_and_native_results,
    |env| {
        let args = [
            "--name=t",
            "--ioengine=filetree",
            "--directory=c",
            "--nrfiles=100",
            "--meta_mix=create/50:stat/50",
            "--number_ios=100",
        ];
        let o = env.run(&[&args[..], &["--output-format=csv,markdown"]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        let row = text
            .lines()
            .find(|l| l.starts_with("t,op:create,"))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(row.split(',').nth(2), Some("50"), "{row}");
        assert!(text.contains("| t | op:stat |"), "{text}");
        // Native results keep the operations, and merging two runs adds them.
        let o = env.run(&[&args[..], &["--output-format=native", "--output=a.native"]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let o = env.run(&["merge", "a.native", "a.native", "--output-format=json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        let ops = &v["jobs"][0]["ops"];
        let n = ops["create"]["ops"].as_u64().unwrap() + ops["create"]["skipped"].as_u64().unwrap();
        assert_eq!(n, 100, "50 creates chosen per run");
        assert_eq!(ops["create"]["lat_ns"]["N"], ops["create"]["ops"]);
    }
);
