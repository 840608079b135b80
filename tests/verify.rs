//! Data verification: clean runs pass with the amount verified stated; every damage class
//! the faultfs rig injects (bit flip, lost, misdirected, torn, unwritten) is caught and
//! named with its exact offset, on psync, libaio and io_uring.

mod common;
use common::*;
use faultfs::{Fault, Mounted, Rule};

/// One FUSE rig at a time in this file (mounts are cheap, two CPUs are not).
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run a job in `dir`; returns the JSON document and the exit code.
fn run(env: &Env, dir: &std::path::Path, args: &[&str]) -> (serde_json::Value, i32) {
    let d = format!("--directory={}", dir.display());
    let mut a = vec!["--output-format=json", d.as_str()];
    a.extend_from_slice(args);
    let o = env.run(&a);
    (json(&o), o.status.code().unwrap_or(-1))
}

fn verify_of(v: &serde_json::Value) -> &serde_json::Value {
    &v["jobs"][0]["verify"]
}

fn first_failure(v: &serde_json::Value) -> String {
    verify_of(v)["first_failures"][0]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Flip bits of the byte at `at` of `path` behind fathom's back.
fn flip(path: &std::path::Path, at: u64, mask: u8) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut b = [0u8; 1];
    f.read_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ mask], at).unwrap();
}

fathomtest!(a_clean_randwrite_verifies_every_block_it_wrote, |env| {
    for kind in [
        "crc32c", "md5", "sha256", "xxhash", "crc64", "sha3-512", "meta",
    ] {
        let (v, code) = run(
            &env,
            env.path(),
            &[
                "--name=c",
                "--rw=randwrite",
                "--bs=4k",
                "--size=2m",
                &format!("--verify={kind}"),
            ],
        );
        assert_eq!(code, 0, "{kind}: {v}");
        let vs = verify_of(&v);
        assert_eq!(vs["blocks"], 512, "{kind}");
        assert_eq!(vs["bytes"], 2 << 20, "{kind}");
        assert_eq!(vs["failures"], 0, "{kind}");
        // The read-back counts as reads, as in fio.
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 512);
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 512);
    }
    // experimental_verify replays the writes in their order: the same blocks checked.
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=x",
            "--rw=randwrite",
            "--bs=4k",
            "--size=2m",
            "--verify=crc32c",
            "--experimental_verify=1",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(verify_of(&v)["blocks"], 512);
});

// Writes that do not start on a grid of whole chunks — holes (`write:8k` with 16k
// blocks), bs_unaligned sizes, blockalign below the block, a bssplit whose sizes are not
// multiples of each other, a verify_interval that does not divide the block — verify
// clean, as in fio (they failed: the generation table was kept per chunk-sized step, so
// chunks off that grid shared a slot, and a chunk too short for its header was checked
// as generation 0). The last run also overwrites its writes at random.
fathomtest!(writes_off_the_chunk_grid_verify_clean, |env| {
    for job in [
        &["--rw=write:8k", "--bs=16k"][..],
        &["--rw=write:-8k", "--bs=16k"],
        &["--rw=write", "--bsrange=4000-16000", "--bs_unaligned"],
        &["--rw=randwrite", "--bsrange=4000-16000", "--bs_unaligned"],
        &["--rw=randwrite", "--bs=16k", "--blockalign=4k"],
        &["--rw=write", "--bssplit=4k/50:6k/50", "--bs_unaligned"],
        &["--rw=write", "--bs=4k", "--verify_interval=1000"],
        &["--rw=write:3k", "--bsrange=4k-16k", "--verify=md5"],
        &[
            "--rw=randwrite",
            "--bsrange=4000-16000",
            "--bs_unaligned",
            "--norandommap",
            "--io_size=2m",
        ],
    ] {
        for seed in ["1", "2", "3"] {
            let mut args = vec!["--name=g", "--size=1m", "--verify=crc32c"];
            args.push(if seed == "1" {
                "--randseed=1"
            } else {
                "--randrepeat=0"
            });
            args.extend_from_slice(job);
            let (v, code) = run(&env, env.path(), &args);
            assert_eq!(code, 0, "{job:?}: {}", first_failure(&v));
            assert_eq!(verify_of(&v)["failures"], 0, "{job:?}");
            assert!(verify_of(&v)["blocks"].as_u64() > Some(0), "{job:?}");
        }
    }
});

fathomtest!(
    zero_false_alarms_with_backlog_clones_and_mixed_sizes,
    |env| {
        let (v, code) = run(
            &env,
            env.path(),
            &[
                "--name=b",
                "--rw=randwrite",
                "--bsrange=4k-64k",
                "--size=16m",
                "--numjobs=2",
                "--group_reporting",
                "--ioengine=libaio",
                "--iodepth=16",
                "--direct=1",
                "--verify=crc32c",
                "--verify_interval=4k",
                "--verify_backlog=32",
                "--loops=2",
            ],
        );
        assert_eq!(code, 0, "{v}");
        let vs = verify_of(&v);
        assert_eq!(vs["failures"], 0);
        // Two clones, each block of 4 KiB checked at least once at the end.
        assert!(vs["blocks"].as_u64().unwrap() >= 2 * 4096, "{vs}");
        // randrw with a backlog, four clones of psync and io_uring: still no false alarm.
        for engine in ["psync", "io_uring"] {
            let (v, code) = run(
                &env,
                env.path(),
                &[
                    "--name=m",
                    &format!("--ioengine={engine}"),
                    "--rw=randrw",
                    "--bssplit=4k/50:16k/50",
                    "--size=8m",
                    "--numjobs=4",
                    "--iodepth=4",
                    "--verify=md5",
                    "--verify_backlog=8",
                    "--verify_backlog_batch=4",
                    "--time_based",
                    "--runtime=1",
                ],
            );
            assert_eq!(code, 0, "{engine}: {v}");
            assert_eq!(verify_of(&v)["failures"], 0, "{engine}");
            assert!(verify_of(&v)["blocks"].as_u64().unwrap() > 100, "{engine}");
        }
    }
);

fathomtest!(
    one_flipped_byte_is_named_at_its_block_on_every_engine,
    |env| {
        let _t = turn();
        let Some(m) = faultfs_rig(&env) else { return };
        let runs = ["psync", "libaio", "io_uring"]
            .iter()
            .flat_map(|e| [(*e, "0"), (*e, "1")]);
        for (i, (engine, direct)) in runs.enumerate() {
            let name = format!("f{i}");
            // The file exists already, so no layout write meets the fault first.
            std::fs::write(m.path().join(format!("{name}.0.0")), vec![0u8; 1 << 20]).unwrap();
            m.add(
                Rule::new(Fault::FlipBit { at: 409610, bit: 0 })
                    .file(format!("{name}.0.0"))
                    .range(409600..413696)
                    .times(1),
            );
            let (v, code) = run(
                &env,
                m.path(),
                &[
                    &format!("--name={name}"),
                    &format!("--ioengine={engine}"),
                    &format!("--direct={direct}"),
                    "--rw=write",
                    "--bs=4k",
                    "--size=1m",
                    "--verify=crc32c",
                ],
            );
            assert_eq!(code, 1, "{engine}: {v}");
            assert_eq!(v["jobs"][0]["error"], libc::EILSEQ, "{engine}");
            let t = first_failure(&v);
            assert!(t.contains("checksum mismatch (bit flip)"), "{engine}: {t}");
            assert!(
                t.contains("at offset 409600 (0x64000), length 4096"),
                "{engine}: {t}"
            );
            assert!(
                t.contains("first differing byte at 409610 (0x6400a)"),
                "{engine}: {t}"
            );
            assert_eq!(verify_of(&v)["failures"], 1, "{engine}");
            // As fio, the job ends at the failing block: 100 good ones checked before it.
            assert_eq!(verify_of(&v)["blocks"], 101, "{engine}");
        }
    }
);

fathomtest!(each_checksum_and_pattern_catches_damage, |env| {
    let _t = turn();
    let Some(m) = faultfs_rig(&env) else { return };
    for kind in ["md5", "sha256", "xxhash", "crc64", "pattern", "pattern_hdr"] {
        let name = format!("k{}", kind.replace(['-', '_'], ""));
        std::fs::write(m.path().join(format!("{name}.0.0")), vec![0u8; 256 << 10]).unwrap();
        m.add(
            Rule::new(Fault::FlipBit {
                at: 8192 + 3000,
                bit: 5,
            })
            .file(format!("{name}.0.0"))
            .range(8192..12288)
            .times(1),
        );
        let (v, code) = run(
            &env,
            m.path(),
            &[
                &format!("--name={name}"),
                "--rw=write",
                "--bs=4k",
                "--size=256k",
                &format!("--verify={kind}"),
                "--verify_pattern=0x5a",
            ],
        );
        assert_eq!(code, 1, "{kind}: {v}");
        let t = first_failure(&v);
        assert!(t.contains("at offset 8192 (0x2000)"), "{kind}: {t}");
        assert!(t.contains("11192 (0x2bb8)"), "{kind}: {t}");
        assert_eq!(verify_of(&v)["failures"], 1, "{kind}");
    }
});

/// A rig job writing `name.0.0` sequentially twice (generations 1 and 2).
fn twice(
    env: &Env,
    m: &Mounted,
    name: &str,
    engine: &str,
    direct: &str,
) -> (serde_json::Value, i32) {
    run(
        env,
        m.path(),
        &[
            &format!("--name={name}"),
            &format!("--ioengine={engine}"),
            &format!("--direct={direct}"),
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--loops=2",
            "--verify=xxhash",
        ],
    )
}

fathomtest!(
    lost_misdirected_torn_and_unwritten_blocks_are_classified,
    |env| {
        let _t = turn();
        let Some(m) = faultfs_rig(&env) else { return };
        for (engine, direct) in [
            ("psync", "0"),
            ("psync", "1"),
            ("libaio", "0"),
            ("libaio", "1"),
            ("io_uring", "0"),
            ("io_uring", "1"),
        ] {
            // Lost: the second write of block 8192 is acknowledged but not stored.
            let name = format!("lost{engine}{direct}");
            m.add(
                Rule::new(Fault::DropWrite)
                    .file(format!("{name}.0.0"))
                    .range(8192..12288)
                    .skip(1)
                    .times(1),
            );
            let (v, code) = twice(&env, &m, &name, engine, direct);
            assert_eq!(code, 1, "{v}");
            let t = first_failure(&v);
            assert!(t.contains("lost write (stale generation)"), "{t}");
            assert!(t.contains("offset 8192 (0x2000)"), "{t}");
            assert!(t.contains("generation 1 read back, 2 was written"), "{t}");

            // Misdirected: the write for 20480 lands on 16384; 20480 stays unwritten.
            let name = format!("mis{engine}{direct}");
            m.add(
                Rule::new(Fault::Misdirect { delta: -4096 })
                    .file(format!("{name}.0.0"))
                    .range(20480..24576)
                    .times(1),
            );
            let (v, code) = run(
                &env,
                m.path(),
                &[
                    &format!("--name={name}"),
                    &format!("--ioengine={engine}"),
                    &format!("--direct={direct}"),
                    "--rw=write",
                    "--bs=4k",
                    "--size=256k",
                    "--verify=crc32c",
                    // Every failure named (fio's default, too, ends at the first).
                    "--continue_on_error=verify",
                ],
            );
            assert_eq!(code, 0, "{v}");
            assert_eq!(v["jobs"][0]["total_err"], 2, "{v}");
            let vs = verify_of(&v);
            assert_eq!(vs["failures"], 2, "{vs}");
            let t0 = vs["first_failures"][0].as_str().unwrap();
            let t1 = vs["first_failures"][1].as_str().unwrap();
            assert!(
                t0.contains("misdirected write") && t0.contains("offset 16384"),
                "{t0}"
            );
            assert!(t0.contains("written for offset 20480 (0x5000)"), "{t0}");
            assert!(
                t1.contains("unwritten (zeroes)") && t1.contains("offset 20480"),
                "{t1}"
            );

            // Torn: only the first 512 bytes of the second write of block 40960 are stored.
            let name = format!("torn{engine}{direct}");
            m.add(
                Rule::new(Fault::Tear { keep: 512 })
                    .file(format!("{name}.0.0"))
                    .range(40960..45056)
                    .skip(1)
                    .times(1),
            );
            let (v, code) = twice(&env, &m, &name, engine, direct);
            assert_eq!(code, 1, "{v}");
            let t = first_failure(&v);
            assert!(
                t.contains("torn write") && t.contains("offset 40960 (0xa000)"),
                "{t}"
            );
            assert!(t.contains("new data up to byte 41472 (0xa200)"), "{t}");
        }
    }
);

fathomtest!(verify_only_and_read_jobs_check_an_earlier_run, |env| {
    let base = [
        "--name=o",
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        "--verify=sha1",
    ];
    let (v, code) = run(&env, env.path(), &base);
    assert_eq!(code, 0, "{v}");
    // verify_only writes nothing and checks every block.
    let (v, code) = run(&env, env.path(), &[&base[..], &["--verify_only"]].concat());
    assert_eq!(code, 0, "{v}");
    assert_eq!(verify_of(&v)["blocks"], 256);
    assert_eq!(v["jobs"][0]["write"]["total_ios"], 0);
    // A read job with verify checks what it reads.
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=o",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--verify=sha1",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(verify_of(&v)["blocks"], 256);
    // Damage one block behind fathom's back: both notice, at that block.
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(env.path().join("o.0.0"))
            .unwrap();
        f.write_all_at(&[0u8; 4096], 12288).unwrap();
    }
    let (v, code) = run(&env, env.path(), &[&base[..], &["--verify_only"]].concat());
    assert_eq!(code, 1);
    let t = first_failure(&v);
    assert!(
        t.contains("unwritten (zeroes)") && t.contains("offset 12288 (0x3000)"),
        "{t}"
    );
    // verify_fatal stops at the first failure.
    let (v, _) = run(
        &env,
        env.path(),
        &[&base[..], &["--verify_only", "--verify_fatal=1"]].concat(),
    );
    assert_eq!(verify_of(&v)["failures"], 1);
    assert!(verify_of(&v)["blocks"].as_u64().unwrap() <= 4);
});

fathomtest!(verify_options_are_checked, |env| {
    let cases: &[(&[&str], &str)] = &[
        (&["--verify=crc99"], "unknown verify type"),
        (&["--verify=crc32c", "--ioengine=null"], "stores nothing"),
        (&["--verify=pattern"], "verify_pattern"),
        (&["--verify=md5", "--verify_interval=64"], "at least 80"),
        // fio takes 80 to 511 too; a chunk still needs room for fathom's header.
        (
            &["--verify=sha512", "--verify_interval=100", "--bs=4000"],
            "header of 120 bytes",
        ),
        (&["--verify_backlog=16"], "need verify=TYPE"),
    ];
    for (args, says) in cases {
        let o = env.run(&[&["--name=x", "--size=1m", "--bs=4k"][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // 128-byte chunks (fio's range starts at 80; fathom refused below 512): 8192 chunks
    // checked over 1 MiB, none failed.
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=s",
            "--rw=write",
            "--size=1m",
            "--bs=4k",
            "--verify=crc32c",
            "--verify_interval=128",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(verify_of(&v)["blocks"], 8192, "{}", verify_of(&v));
    assert_eq!(verify_of(&v)["failures"], 0);
    // As fio, a verify_interval that does not divide the block (or exceeds it) becomes the
    // block: 3k and 8k with bs=4k each check 256 blocks of 4k.
    for iv in ["--verify_interval=3k", "--verify_interval=8k"] {
        let (v, code) = run(
            &env,
            env.path(),
            &[
                "--name=i",
                "--rw=write",
                "--size=1m",
                "--bs=4k",
                "--verify=md5",
                iv,
            ],
        );
        assert_eq!(code, 0, "{iv}: {v}");
        assert_eq!(verify_of(&v)["blocks"], 256, "{iv}");
    }
    // Normal output says how much was verified.
    let o = env.run(&[
        "--name=n",
        "--rw=write",
        "--size=256k",
        "--bs=4k",
        "--verify=sha256",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("verify       : sha256, 64 chunks (256KiB) checked, 0 failed"),
        "{}",
        stdout(&o)
    );
});

fathomtest!(
    a_sigkilled_journaled_run_verifies_clean_then_catches_damage,
    |env| {
        let journal = env.path().join("soak.journal");
        let mut child = env
            .cmd()
            .args([
                "--name=j",
                "--rw=randwrite",
                "--bs=4k",
                "--size=8m",
                "--norandommap",
                "--ioengine=libaio",
                "--iodepth=8",
                "--verify=crc32c",
                "--time_based",
                "--runtime=60",
            ])
            .arg(format!("--verify_journal={}", journal.display()))
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Let it write for a while, then kill it without warning.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let check = |extra: &[&str]| {
            let mut a = vec!["verify", "--journal", journal.to_str().unwrap()];
            a.extend_from_slice(extra);
            env.run(&a)
        };
        let o = check(&[]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        let text = stdout(&o);
        let n: u64 = text
            .split_whitespace()
            .nth(1)
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        assert!(n > 50, "{text}");
        assert!(text.contains(" checked, 0 failed"), "{text}");
        // The acknowledged offsets, one per line.
        let o = check(&["--offsets"]);
        let offsets: Vec<u64> = stdout(&o).lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(offsets.len() as u64, n);
        // Damage one acknowledged block: the check names it.
        let victim = offsets[offsets.len() / 2];
        flip(&env.path().join("j.0.0"), victim + 2000, 0x40);
        let o = check(&[]);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        let text = stdout(&o);
        assert!(
            text.contains(&format!("at offset {victim} (0x{victim:x})")),
            "{text}"
        );
        assert!(text.contains("bit flip"), "{text}");
        assert!(text.contains(" checked, 1 failed"), "{text}");
    }
);

fathomtest!(async_checks_dumps_states_and_tolerated_failures, |env| {
    let base = [
        "--name=a",
        "--rw=write",
        "--bs=4k",
        "--size=2m",
        "--verify=crc32c",
    ];
    // verify_async: the same verdicts with the checks on two threads.
    let (v, code) = run(
        &env,
        env.path(),
        &[&base[..], &["--verify_async=2"]].concat(),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(verify_of(&v)["blocks"], 512);
    flip(&env.path().join("a.0.0"), 65536 + 700, 1);
    let only = [&base[..], &["--verify_only"]].concat();
    let (v, code) = run(
        &env,
        env.path(),
        &[&only[..], &["--verify_async=2"]].concat(),
    );
    assert_eq!(code, 1);
    assert_eq!(verify_of(&v)["blocks"], 512);
    assert_eq!(verify_of(&v)["failures"], 1);
    assert!(first_failure(&v).contains("offset 65536 (0x10000)"), "{v}");
    // verify_dump: the chunk as read and as expected, one bit apart.
    let (v, _) = run(
        &env,
        env.path(),
        &[&only[..], &["--verify_dump=1"]].concat(),
    );
    assert!(first_failure(&v).contains("dumped to"), "{v}");
    let got = std::fs::read(env.path().join("a.0.0.65536.received")).unwrap();
    let want = std::fs::read(env.path().join("a.0.0.65536.expected")).unwrap();
    assert_eq!(got.len(), 4096);
    let bits: u32 = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    assert_eq!(bits, 1);
    // continue_on_error=verify: counted, the job succeeds.
    let (v, code) = run(
        &env,
        env.path(),
        &[&only[..], &["--continue_on_error=verify"]].concat(),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["jobs"][0]["total_err"], 1);
    assert_eq!(v["jobs"][0]["first_error"], libc::EILSEQ);
});

fathomtest!(
    an_interrupted_write_phase_saves_its_state_for_a_later_check,
    |env| {
        let job = [
            "--name=s",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64m",
            "--verify=xxhash",
            "--rate_iops=2000",
            "--time_based",
            "--runtime=60",
        ];
        let mut child = env
            .cmd()
            .args(job)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1200));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        child.wait().unwrap();
        let state = env.path().join("local-s-0-verify.state");
        assert!(state.exists(), "verify_state_save wrote nothing");
        // verify_only with the state: exactly the written chunks, at their generations.
        let (v, code) = run(
            &env,
            env.path(),
            &[
                &job[..4],
                &["--verify=xxhash", "--verify_only", "--verify_state_load=1"],
            ]
            .concat(),
        );
        assert_eq!(code, 0, "{v}");
        let n = verify_of(&v)["blocks"].as_u64().unwrap();
        assert!(n > 500 && n < 16384, "{n} chunks");
        // A different job cannot use that state.
        let (v, code) = run(
            &env,
            env.path(),
            &[
                "--name=s",
                "--rw=randwrite",
                "--bs=8k",
                "--size=64m",
                "--verify=xxhash",
                "--verify_only",
                "--verify_state_load=1",
            ],
        );
        assert_eq!(code, 1, "{v}");
        assert!(
            v["jobs"][0]["error"] == libc::ENOENT,
            "{}",
            v["jobs"][0]["error"]
        );
    }
);

fathomtest!(trimmed_blocks_are_checked_for_zeroes, |env| {
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=t",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
        ],
    );
    assert_eq!(code, 0, "{v}");
    // Trim everything: every chunk must now read back as zeroes (trim_verify_zero).
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=t",
            "--rw=randtrim",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(verify_of(&v)["blocks"], 256);
    assert_eq!(v["jobs"][0]["trim"]["total_ios"], 256);
    // trimwrite: trimmed then written again, the headers are checked.
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=t",
            "--rw=trimwrite",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(verify_of(&v)["failures"], 0);
});

fathomtest!(verification_reopens_what_openfiles_closed, |env| {
    let (v, code) = run(
        &env,
        env.path(),
        &[
            "--name=o",
            "--rw=randwrite",
            "--bs=4k",
            "--size=4m",
            "--nrfiles=8",
            "--openfiles=2",
            "--verify=crc32c",
            "--verify_backlog=64",
        ],
    );
    assert_eq!(code, 0, "{v}");
    // Every write checked once, as in fio: by the backlog, or at the end if the backlog
    // had not come round to it.
    assert_eq!(verify_of(&v)["blocks"], 1024);
    assert_eq!(verify_of(&v)["failures"], 0);
});

/// Run a journaled random-write job at `depth` for a moment, SIGKILL it, and check.
fn kill_and_check(env: &Env, depth: &str, extra: &[&str]) -> std::process::Output {
    let journal = env.path().join("k.journal");
    let mut child = env
        .cmd()
        .args([
            "--name=k",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--norandommap",
            "--ioengine=libaio",
            "--direct=1",
            &format!("--iodepth={depth}"),
            "--verify=crc32c",
            "--time_based",
            "--runtime=60",
        ])
        .args(extra)
        .arg(format!("--verify_journal={}", journal.display()))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    env.run(&["verify", "--journal", journal.to_str().unwrap()])
}

fathomtest!(
    kill_and_check_rounds_report_nothing_on_a_healthy_disk,
    |env| {
        // Over 16 blocks at depth 64 and 256, two writes of one block are often in
        // flight together at the kill: either may have landed, and neither is a loss.
        for depth in ["1", "64", "256"] {
            for round in 0..5 {
                let o = kill_and_check(&env, depth, &[]);
                assert_eq!(
                    o.status.code(),
                    Some(0),
                    "depth {depth}, round {round}: {}{}",
                    stdout(&o),
                    stderr(&o)
                );
                assert!(stdout(&o).contains(" checked, 0 failed"), "{}", stdout(&o));
            }
        }
    }
);

fathomtest!(
    a_stale_block_is_a_lost_write_and_a_damaged_journal_is_said_to_be,
    |env| {
        // Two runs with the same seed: the first writes each block once (generation 1),
        // the second twice (generation 2). Put the first run's block 0 back under the
        // second run's journal: the check reports the lost write at offset 0.
        let job = |loops: &str, journal: &str| {
            let o = env.run(&[
                "--name=s",
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                "--verify=crc32c",
                "--do_verify=0",
                &format!("--loops={loops}"),
                &format!("--verify_journal={journal}"),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
        };
        job("1", "one.journal");
        let old = std::fs::read(env.path().join("s.0.0")).unwrap();
        job("2", "two.journal");
        let file = env.path().join("s.0.0");
        let mut now = std::fs::read(&file).unwrap();
        now[..4096].copy_from_slice(&old[..4096]);
        std::fs::write(&file, &now).unwrap();
        let two = env.path().join("two.journal");
        let o = env.run(&["verify", "--journal", two.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        let text = stdout(&o);
        assert!(text.contains("lost write (stale generation)"), "{text}");
        assert!(text.contains("offset 0 (0x0)"), "{text}");
        assert!(text.contains(" checked, 1 failed"), "{text}");

        // A bad record in the middle is damage to the journal, not to the device.
        let mut j = std::fs::read(&two).unwrap();
        let header = j.iter().position(|&b| b == b'\n').unwrap() + 1;
        j[header + 32 * 3 + 5] ^= 0xff;
        std::fs::write(&two, &j).unwrap();
        let o = env.run(&["verify", "--journal", two.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(
            stderr(&o).contains("the journal is damaged: record 3"),
            "{}",
            stderr(&o)
        );
        // A valid header followed by garbage: damaged, not "0 checked".
        let mut g = j[..header].to_vec();
        g.extend((0..32 * 64).map(|i| (i * 7 + 3) as u8));
        std::fs::write(&two, &g).unwrap();
        let o = env.run(&["verify", "--journal", two.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(
            stderr(&o).contains("the journal is damaged"),
            "{}",
            stderr(&o)
        );
        // A damaged header (interval 0) and a device file are refused, not a panic or a
        // read without end.
        let text = String::from_utf8(j[..header].to_vec()).unwrap();
        let zero = regex_lite::Regex::new(r#""interval":\d+"#)
            .unwrap()
            .replace(&text, "\"interval\":0")
            .to_string();
        std::fs::write(&two, zero).unwrap();
        let o = env.run(&["verify", "--journal", two.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("header is damaged"), "{}", stderr(&o));
        let o = env.run(&["verify", "--journal", "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    }
);

/// Kinds of damage the method table covers: (column heading, what the rig does to a
/// job writing a 64 KiB file of 4 KiB chunks, and whether the job writes it twice).
const DAMAGE: [&str; 7] = [
    "bit flip in data",
    "bit flip in header",
    "never written",
    "lost write",
    "torn write",
    "misdirected write",
    "swapped blocks",
];

/// Every verify method, in the order the README lists them.
const METHODS: [&str; 19] = [
    "md5",
    "crc64",
    "crc32c",
    "crc32c-intel",
    "crc32",
    "crc16",
    "crc7",
    "xxhash",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "meta",
    "pattern",
    "pattern_hdr",
    "null",
];

/// Run `method` with damage `d` injected by the rig; the classes of the failures found
/// (empty: the damage went unseen).
fn catches(env: &Env, m: &Mounted, method: &str, d: usize) -> Vec<String> {
    let name = format!("t{}d{d}", method.replace(['-', '_'], ""));
    let file = format!("{name}.0.0");
    std::fs::write(m.path().join(&file), vec![0u8; 64 << 10]).unwrap();
    let at = |r: std::ops::Range<u64>, f: Fault| Rule::new(f).file(file.clone()).range(r);
    let mut twice = false;
    match DAMAGE[d] {
        "bit flip in data" => m.add(
            at(
                8192..12288,
                Fault::FlipBit {
                    at: 8192 + 3000,
                    bit: 5,
                },
            )
            .times(1),
        ),
        "bit flip in header" => m.add(
            at(
                8192..12288,
                Fault::FlipBit {
                    at: 8192 + 20,
                    bit: 2,
                },
            )
            .times(1),
        ),
        "never written" => m.add(at(8192..12288, Fault::DropWrite).times(1)),
        "lost write" => {
            twice = true;
            m.add(at(8192..12288, Fault::DropWrite).skip(1).times(1))
        }
        "torn write" => {
            twice = true;
            m.add(at(8192..12288, Fault::Tear { keep: 512 }).skip(1).times(1))
        }
        // The write for 12288 lands on 8192 (written just before): 8192 holds another
        // block's data, 12288 stays unwritten.
        "misdirected write" => m.add(at(12288..16384, Fault::Misdirect { delta: -4096 }).times(1)),
        "swapped blocks" => {
            m.add(at(8192..12288, Fault::Misdirect { delta: 4096 }).times(1));
            m.add(at(12288..16384, Fault::Misdirect { delta: -4096 }).times(1));
        }
        other => unreachable!("{other}"),
    }
    let mut args = vec![
        format!("--name={name}"),
        "--rw=write".into(),
        "--bs=4k".into(),
        "--size=64k".into(),
        format!("--verify={method}"),
        format!("--loops={}", if twice { 2 } else { 1 }),
        // Every failure named, not only the first (where fio's default ends the job).
        "--continue_on_error=verify".into(),
    ];
    if method.starts_with("pattern") {
        args.push("--verify_pattern=0x5a".into());
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let (v, code) = run(env, m.path(), &args);
    let classes: Vec<String> = verify_of(&v)["first_failures"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str())
        .map(|t| {
            let t = t.trim_start_matches("verify: ");
            t[..t.find(" in ").unwrap_or(t.len())].to_string()
        })
        .collect();
    // Counted, not fatal: exit 0, each failure in total_err.
    assert_eq!(code, 0, "{method}, {}: {v}", DAMAGE[d]);
    assert_eq!(
        v["jobs"][0]["total_err"].as_u64().unwrap_or(0) > 0,
        !classes.is_empty(),
        "{method}, {}: {v}",
        DAMAGE[d]
    );
    classes
}

fathomtest!(what_each_verify_method_catches, |env| {
    // The README's table of verify methods x damage, cell by cell: each method runs once
    // per kind of damage on the faultfs rig, and the table of what it reported must be
    // the README's (rows with the same cells are merged).
    let _t = turn();
    let Some(m) = faultfs_rig(&env) else { return };
    let mut rows: Vec<(Vec<&str>, Vec<String>)> = Vec::new();
    for method in METHODS {
        let cells: Vec<String> = (0..DAMAGE.len())
            .map(|d| {
                let mut c = catches(&env, &m, method, d);
                c.dedup();
                match c.len() {
                    0 => "not seen".to_string(),
                    _ => c.join(", "),
                }
            })
            .collect();
        match rows.iter_mut().find(|(_, c)| *c == cells) {
            Some((names, _)) => names.push(method),
            None => rows.push((vec![method], cells)),
        }
    }
    let mut table = format!("| method | {} |\n|---|", DAMAGE.join(" | "));
    table.push_str(&"---|".repeat(DAMAGE.len()));
    table.push('\n');
    for (names, cells) in &rows {
        table.push_str(&format!(
            "| {} | {} |\n",
            names.join(", "),
            cells.join(" | ")
        ));
    }
    // What fio's methods are known to miss, as the issue states them.
    let row = |name: &str| &rows.iter().find(|(n, _)| n.contains(&name)).unwrap().1;
    assert_eq!(row("meta")[0], "not seen");
    assert_eq!(row("pattern")[6], "not seen");
    assert!(row("null").iter().all(|c| c == "not seen"));
    assert!(row("md5").iter().all(|c| c != "not seen"));
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "README.md's verify method table differs from what the methods caught:\n{table}"
    );
});

/// fathom with `args` and JSON output, SIGINTed after `after`: (JSON, exit code, seconds
/// from the signal to the exit).
fn interrupt_json(
    env: &Env,
    args: &[&str],
    after: std::time::Duration,
) -> (serde_json::Value, i32, f64) {
    let mut cmd = env.cmd();
    cmd.arg("--output-format=json").args(args);
    let (o, took) = interrupt(cmd, after);
    (json(&o), o.status.code().unwrap_or(-1), took.as_secs_f64())
}

fathomtest!(
    a_verify_job_stops_at_once_in_its_write_and_its_read_phase,
    |env| {
        let _t = turn();
        // The write phase (paced to last 50 s): SIGINT ends it without reading anything back.
        let (v, code, took) = interrupt_json(
            &env,
            &[
                "--name=w",
                "--rw=write",
                "--bs=4k",
                "--size=64m",
                "--verify=xxhash",
                "--rate_iops=300",
            ],
            std::time::Duration::from_millis(800),
        );
        assert_eq!(code, 130, "{v}");
        assert!(took < 0.5, "the write phase took {took:.3} s to stop");
        let j = &v["jobs"][0];
        assert_eq!(j["read"]["total_ios"], 0, "nothing read back: {j}");
        assert_eq!(j["error"], 0, "an interrupted job is not a failed one: {j}");
        assert!(j["write"]["total_ios"].as_u64().unwrap() > 100, "{j}");

        // The read phase, slowed by 2 ms per read on the rig: SIGINT ends the checks.
        let Some(m) = faultfs_rig(&env) else { return };
        let job = [
            "--name=r",
            "--rw=write",
            "--bs=4k",
            "--size=16m",
            "--verify=xxhash",
            "--do_verify=0",
        ];
        let (_, code) = run(&env, m.path(), &job);
        assert_eq!(code, 0);
        m.add(Rule::new(Fault::Latency {
            min: std::time::Duration::from_millis(2),
            max: std::time::Duration::from_millis(2),
            on: faultfs::Op::Read,
        }));
        let dir = format!("--directory={}", m.path().display());
        let (v, code, took) = interrupt_json(
            &env,
            &[&job[..5], &["--verify_only", &dir]].concat(),
            std::time::Duration::from_millis(1000),
        );
        assert_eq!(code, 130, "{v}");
        assert!(took < 0.5, "the read phase took {took:.3} s to stop");
        let n = verify_of(&v)["blocks"].as_u64().unwrap();
        assert!(n > 10 && n < 4096, "{n} chunks checked before the signal");
        assert_eq!(verify_of(&v)["failures"], 0);
    }
);

// The verify phase keeps the job's iodepth in flight on an asynchronous engine, as fio's
// does: every block is read back once (the reads are the job's reads), and one damaged
// block is still named at its offset whichever read completes first.
fathomtest!(
    a_verify_phase_at_depth_reads_each_block_once_and_names_damage,
    |env| {
        let _t = turn();
        let Some(m) = faultfs_rig(&env) else { return };
        for engine in ["libaio", "io_uring"] {
            let name = format!("d{engine}");
            let args = |extra: &'static str| {
                vec![
                    format!("--name={name}"),
                    format!("--ioengine={engine}"),
                    "--iodepth=8".into(),
                    "--rw=randwrite".into(),
                    "--bs=4k".into(),
                    "--size=1m".into(),
                    "--verify=crc32c".into(),
                    extra.into(),
                ]
            };
            let a = args("--verify_state_save=0");
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let (v, code) = run(&env, m.path(), &a);
            assert_eq!(code, 0, "{engine}: {v}");
            assert_eq!(v["jobs"][0]["read"]["total_ios"], 256, "{engine}: {v}");
            assert_eq!(verify_of(&v)["blocks"], 256, "{engine}");
            std::fs::write(m.path().join(format!("{name}.0.0")), vec![0u8; 1 << 20]).unwrap();
            m.add(
                Rule::new(Fault::FlipBit { at: 409610, bit: 0 })
                    .file(format!("{name}.0.0"))
                    .range(409600..413696)
                    .times(1),
            );
            let (v, code) = run(&env, m.path(), &a);
            m.clear();
            assert_eq!(code, 1, "{engine}: {v}");
            let t = first_failure(&v);
            assert!(
                t.contains("at offset 409600 (0x64000), length 4096"),
                "{engine}: {t}"
            );
            assert_eq!(verify_of(&v)["failures"], 1, "{engine}");
        }
    }
);
