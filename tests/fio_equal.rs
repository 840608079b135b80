//! fathom does the same work as fio on size-bounded jobs: the same io counts and bytes,
//! equal, not close. Each case runs fio and fathom on the same command-line job in
//! separate directories.

mod common;
use common::*;
use serde_json::Value;

fn fio_json(fio: &std::path::Path, dir: &std::path::Path, args: &[&str]) -> Value {
    let o = fio_ok(fio, dir, &[&["--output-format=json"], args].concat());
    let s = String::from_utf8_lossy(&o.stdout);
    // fio may print a "note:" line before its JSON.
    let start = s.find('{').expect("fio printed JSON");
    serde_json::from_str(&s[start..]).unwrap()
}

/// fio run on a command-line job in `dir`, whatever its outcome.
fn fio_run(fio: &std::path::Path, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(fio)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// fathom's JSON for a command-line job run in `dir` (which must succeed).
fn fathom_json(env: &Env, dir: &std::path::Path, args: &[&str]) -> Value {
    let o = env
        .cmd()
        .current_dir(dir)
        .arg("--output-format=json")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "fathom failed: {}", stderr(&o));
    json(&o)
}

/// Run a command-line job in `dir` (which must succeed), its report thrown away (the
/// files it writes are what a test reads), as `fio_quiet`.
fn fathom_quiet(env: &Env, dir: &std::path::Path, args: &[&str]) {
    let o = env.cmd().current_dir(dir).args(args).output().unwrap();
    assert!(o.status.success(), "fathom {args:?}: {}", stderr(&o));
}

/// fathom refuses a command-line job in `dir` as a usage error (exit 2) saying `says`.
fn fathom_refuses(env: &Env, dir: &std::path::Path, args: &[&str], says: &str) {
    let o = env.cmd().current_dir(dir).args(args).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
}

/// (read ios, write ios, read bytes, write bytes) summed over jobs.
fn counts(v: &Value) -> [u64; 4] {
    let mut c = [0u64; 4];
    for j in v["jobs"].as_array().unwrap() {
        c[0] += j["read"]["total_ios"].as_u64().unwrap();
        c[1] += j["write"]["total_ios"].as_u64().unwrap();
        c[2] += j["read"]["io_bytes"].as_u64().unwrap();
        c[3] += j["write"]["io_bytes"].as_u64().unwrap();
    }
    c
}

/// A scratch environment with a directory for fio's run and one for fathom's.
fn side_by_side() -> (Env, std::path::PathBuf, std::path::PathBuf) {
    let env = Env::new();
    let fdir = env.path().join("fio");
    let adir = env.path().join("fathom");
    std::fs::create_dir_all(&fdir).unwrap();
    std::fs::create_dir_all(&adir).unwrap();
    (env, fdir, adir)
}

/// (fio's counts, fathom's) for one command-line job, each run in a scratch directory of
/// its own.
fn both_counts(fio: &std::path::Path, args: &[&str]) -> ([u64; 4], [u64; 4]) {
    let (env, fdir, adir) = side_by_side();
    let f = counts(&fio_json(fio, &fdir, args));
    (f, counts(&fathom_json(&env, &adir, args)))
}

fn compare(args: &[&str], mixed: bool) {
    compare_on(args, mixed, None)
}

/// As `compare`, with a file `data` of `existing` bytes made first in both directories.
fn compare_on(args: &[&str], mixed: bool, existing: Option<usize>) {
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    if let Some(n) = existing {
        for d in [&fdir, &adir] {
            std::fs::write(d.join("data"), vec![b'x'; n]).unwrap();
        }
    }
    let f = counts(&fio_json(&fio, &fdir, args));
    let a = counts(&fathom_json(&env, &adir, args));
    if mixed {
        // The read/write split comes from each tool's own random generator; the totals
        // must still be equal.
        assert_eq!(
            f[0] + f[1],
            a[0] + a[1],
            "total ios for {args:?}: fio {f:?} fathom {a:?}"
        );
        assert_eq!(f[2] + f[3], a[2] + a[3], "total bytes for {args:?}");
    } else {
        assert_eq!(
            f, a,
            "ios/bytes for {args:?} (read ios, write ios, read B, write B)"
        );
    }
}

#[test]
fn randrw_70_30_16m_4k_psync_matches_fio() {
    compare(
        &[
            "--name=m",
            "--ioengine=psync",
            "--rw=randrw",
            "--rwmixread=70",
            "--bs=4k",
            "--size=16m",
        ],
        true,
    );
}

#[test]
fn sequential_read_and_write_match_fio() {
    compare(&["--name=r", "--rw=read", "--bs=4k", "--size=1m"], false);
    compare(&["--name=w", "--rw=write", "--bs=64k", "--size=1m"], false);
    compare(&["--name=rw", "--rw=rw", "--bs=4k", "--size=1m"], true);
}

#[test]
fn offset_matches_fio() {
    compare(
        &[
            "--name=o",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--offset=512k",
        ],
        false,
    );
}

#[test]
fn several_files_match_fio() {
    compare(
        &[
            "--name=n",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--nrfiles=3",
        ],
        false,
    );
    compare(
        &[
            "--name=n",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--nrfiles=3",
        ],
        false,
    );
    compare(
        &[
            "--name=f",
            "--rw=read",
            "--bs=4k",
            "--filesize=1m",
            "--nrfiles=2",
        ],
        false,
    );
}

/// A sequential mix with loops and io_size past its size, side by side: fio ends each pass
/// when either direction reaches the end and decides after each pass (its loops, then more
/// passes while short of io_size), and starts each pass's random draws over. The split is
/// each tool's own draw, so the passes are compared: the direction that reached the end
/// moved a whole number of passes (in bytes), the same in both, and the totals are close.
/// A bssplit's sizes are rounded down to a multiple of its smallest, as fio rounds each
/// drawn size (a power of two masks, another takes off the remainder): `4k/50:6k/50`
/// writes 4 KiB blocks only, `6k/30:9k/70` 6 KiB ones (fathom wrote 6k and 9k blocks:
/// the same bytes in fewer, larger I/Os).
#[test]
fn bssplit_sizes_round_to_the_smallest_as_fio() {
    for split in ["4k/50:6k/50", "6k/30:9k/70"] {
        let s = format!("--bssplit={split}");
        compare(
            &["--name=b", "--rw=write", "--size=1m", "--filename=data", &s],
            false,
        );
    }
}

#[test]
fn a_sequential_mix_with_loops_and_io_size_makes_fios_passes() {
    let Some(fio) = fio() else { return };
    // (case, ended by io_size × loops in mid-pass: then the totals are equal)
    for (extra, budget) in [
        ("--io_size=3m --loops=2", false),
        ("--io_size=3m --loops=3", false),
        ("--io_size=5m --loops=2", false),
        ("--io_size=3m --loops=2 --rwmixread=70", false),
        ("--io_size=2500k --loops=2 --bs=4k,16k", false),
        ("--io_size=1500k --loops=2", true),
        ("--loops=3", true),
    ] {
        let mut args = vec!["--name=m", "--rw=rw", "--bs=4k", "--size=1m"];
        args.extend(extra.split(' '));
        let (f, a) = both_counts(&fio, &args);
        let (ft, at) = (f[2] + f[3], a[2] + a[3]);
        if budget {
            assert_eq!(ft, at, "{extra}: fio {f:?} fathom {a:?}");
            continue;
        }
        let passes = |c: [u64; 4]| c[2].max(c[3]);
        assert_eq!(passes(f), passes(a), "{extra}: fio {f:?} fathom {a:?}");
        assert!(
            ft.abs_diff(at) * 100 <= ft * 6,
            "{extra}: fio {f:?} fathom {a:?}"
        );
    }
}

#[test]
fn io_size_loops_and_number_ios_match_fio() {
    compare(
        &[
            "--name=i",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--io_size=3m",
        ],
        false,
    );
    compare(
        &[
            "--name=i",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--io_size=3m",
        ],
        false,
    );
    compare(
        &[
            "--name=l",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--loops=2",
        ],
        false,
    );
    compare(
        &[
            "--name=n",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--loops=3",
            "--number_ios=100",
        ],
        false,
    );
}

/// size, filesize, io_size, nrfiles, offset (bytes and %), offset_increment, number_ios,
/// loops and size=N%, alone and together, with and without an existing file: the same
/// I/O as fio. (fio: size bounds the I/O when filesize sets the files; a filesize region
/// runs from the offset to the file's end; number_ios does not end a time-based job.)
#[test]
fn size_like_options_match_fio() {
    const EIGHT_MIB: usize = 8 << 20;
    let cases: &[(&str, Option<usize>)] = &[
        ("--rw=read --filesize=16m --size=4m", None),
        ("--rw=randread --filesize=16m --size=4m", None),
        ("--rw=write --filesize=16m --size=4m", None),
        ("--rw=randrw --filesize=16m --size=4m", None),
        ("--rw=read --filesize=4m --size=16m", None),
        ("--rw=read --filesize=1m --nrfiles=4 --size=2m", None),
        ("--rw=randwrite --filesize=1m --nrfiles=4 --size=2m", None),
        ("--rw=read --filesize=1m-3m --nrfiles=4 --size=2m", None),
        ("--rw=read --filesize=16m --size=4m --io_size=8m", None),
        ("--rw=read --filesize=16m --io_size=8m", None),
        ("--rw=read --filesize=16m --size=4m --offset=2m", None),
        ("--rw=read --filesize=16m --offset=2m", None),
        ("--rw=read --filesize=16m --size=4m --number_ios=100", None),
        ("--rw=read --filesize=16m --size=4m --loops=2", None),
        ("--rw=write --filesize=16m --size=4m --numjobs=2", None),
        (
            "--rw=write --filesize=16m --size=4m --numjobs=2 --offset_increment=4m",
            None,
        ),
        ("--rw=read --filesize=16m --size=50%", None),
        ("--rw=read --size=8200k --nrfiles=3", None),
        ("--rw=read --size=8m --nrfiles=3 --bs=64k", None),
        ("--rw=read --size=16m --io_limit=3m", None),
        (
            "--rw=read --size=16m --offset=20% --numjobs=2 --offset_increment=10%",
            None,
        ),
        (
            "--rw=randread --filesize=4m --nrfiles=4 --size=6m --file_service_type=random",
            None,
        ),
        (
            "--rw=read --filesize=4m --nrfiles=4 --size=6m --file_service_type=sequential",
            None,
        ),
        ("--rw=read --filename=data --size=50%", Some(EIGHT_MIB)),
        (
            "--rw=read --filename=data --size=50% --offset=6m",
            Some(EIGHT_MIB),
        ),
        ("--rw=read --filename=data --offset=25%", Some(EIGHT_MIB)),
        ("--rw=read --filename=data --filesize=16m", Some(EIGHT_MIB)),
        (
            "--rw=read --filename=data --filesize=4m-16m",
            Some(EIGHT_MIB),
        ),
        (
            "--rw=read --filename=data --filesize=8m --offset=1m",
            Some(EIGHT_MIB),
        ),
        ("--rw=read --filename=data --size=4m", Some(EIGHT_MIB)),
        ("--rw=read --filename=data --offset=3m", Some(EIGHT_MIB)),
        // A byte offset after a percentage leaves the percentage in force (fio's rule).
        (
            "--rw=read --filename=data --offset=50% --offset=0",
            Some(EIGHT_MIB),
        ),
        (
            "--rw=randread --filename=data --size=2m --numjobs=3 --offset_increment=2m",
            Some(EIGHT_MIB),
        ),
    ];
    for (case, existing) in cases {
        let mut args = vec!["--name=s", "--ioengine=psync", "--bs=4k"];
        args.extend(case.split(' '));
        compare_on(&args, case.contains("randrw"), *existing);
    }
}

/// Verification reads count as reads, as in fio: a mixed job that verifies reads back each
/// block it wrote once (verify_backlog checks some during the run, the final pass the
/// rest), one read per block whatever verify_interval is; verify_interval larger than the
/// block is the block. Mixed jobs: the read/write split is each tool's own random draw,
/// but reads = (size/bs − writes) + writes = size/bs in both.
#[test]
fn verification_reads_count_as_fio_s() {
    let Some(fio) = fio() else { return };
    for (case, mixed) in [
        ("--rw=randrw --verify=crc32c --verify_backlog=16", true),
        ("--rw=readwrite --verify=crc32c --do_verify=1", true),
        (
            "--rw=randrw --verify=md5 --verify_backlog=7 --verify_backlog_batch=3",
            true,
        ),
        ("--rw=randwrite --verify=md5 --verify_interval=8k", false),
        ("--rw=randwrite --verify=md5 --verify_interval=1k", false),
        (
            "--rw=randwrite --verify=crc32c --bs=16k --verify_interval=4k --verify_backlog=16",
            false,
        ),
        (
            "--rw=write --verify=meta --verify_pattern=0xdeadbeef --ioengine=libaio --iodepth=16",
            false,
        ),
        ("--rw=randwrite --verify=crc32c --numjobs=2", false),
        // No backlog reads where fio logs no writes for them: do_verify=0, and
        // experimental_verify (it replays every write at the end).
        (
            "--rw=write --verify=crc32c --verify_backlog=16 --do_verify=0",
            false,
        ),
        (
            "--rw=randwrite --verify=crc32c --verify_backlog=16 --experimental_verify=1",
            false,
        ),
    ] {
        let mut args = vec!["--name=v", "--ioengine=psync", "--bs=4k", "--size=4m"];
        args.extend(case.split(' '));
        if !mixed {
            compare(&args, false);
            continue;
        }
        let (f, a) = both_counts(&fio, &args);
        assert_eq!(
            (f[0], f[2]),
            (1024, 4 << 20),
            "fio's reads for {case}: {f:?}"
        );
        assert_eq!(
            (a[0], a[2]),
            (f[0], f[2]),
            "reads for {case}: fio {f:?} fathom {a:?}"
        );
    }
    // Mixed block sizes with the random map: each block written (and read back) once, so
    // the bytes equal fio's exactly (the counts depend on each tool's random draws).
    let args = [
        "--name=m",
        "--rw=randwrite",
        "--size=4m",
        "--bssplit=4k/50:16k/50",
        "--verify=crc32c",
        "--verify_backlog=8",
    ];
    let (f, a) = both_counts(&fio, &args);
    assert_eq!((a[2], a[3]), (f[2], f[3]), "bytes: fio {f:?} fathom {a:?}");
    assert_eq!(a[0], a[1], "one verify read per write");
}

/// verify_state_save/load across runs, as fio: a write job that verifies leaves
/// `local-NAME-N-verify.state` behind; a verify_only run that loads it checks what was
/// written, clone by clone (each clone's own seed).
#[test]
fn verify_state_carries_across_runs_as_in_fio() {
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let job = [
        "--name=s",
        "--rw=randwrite",
        "--bs=4k",
        "--size=2m",
        "--verify=crc32c",
        "--numjobs=2",
    ];
    let write: Vec<&str> = job
        .iter()
        .copied()
        .chain(["--do_verify=0", "--number_ios=100"])
        .collect();
    let check: Vec<&str> = job
        .iter()
        .copied()
        .chain(["--verify_only", "--verify_state_load=1"])
        .collect();
    fio_json(&fio, &fdir, &write);
    let f = counts(&fio_json(&fio, &fdir, &check));
    fathom_json(&env, &adir, &write);
    let v = fathom_json(&env, &adir, &check);
    // fio also counts the verify_only run's replayed writes as writes, though none is
    // issued; fathom reports the writes it did: none.
    let a = counts(&v);
    assert_eq!((a[0], a[2]), (f[0], f[2]), "reads: fio {f:?} fathom {a:?}");
    assert_eq!((a[1], a[3]), (0, 0));
    for j in v["jobs"].as_array().unwrap() {
        assert_eq!(j["verify"]["failures"], 0);
        assert_eq!(j["verify"]["blocks"], 100);
    }
    for n in 0..2 {
        assert!(adir.join(format!("local-s-{n}-verify.state")).exists());
    }
}

/// fsync=N as fio: issued before the next I/O (none after the last write), and end_fsync
/// not counted among the job's syncs. With fdatasync and sync_file_range beside it, only
/// the first cadence due in fio's order (fsync, fdatasync, sync_file_range) is issued;
/// `total_ios` counts the fsyncs, the latencies every sync. A pass starts with no sync
/// behind it, and a synchronous engine asks once more at a pass's end (a sync due then is
/// made) and at the job's end when the files gave fewer bytes than size × loops (holes,
/// sizes not a multiple of the block); an asynchronous one does not.
#[test]
fn fsync_cadence_and_end_fsync_count_as_fio() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--fsync=64"][..],
        &["--fsync=64", "--end_fsync=1"],
        &["--fsync=1"],
        &["--end_fsync=1"],
        &["--fsync=7", "--bs=8k"],
        &["--fsync=3", "--fdatasync=2", "--sync_file_range=write:5"],
        &["--fsync=1", "--fdatasync=2"],
        &["--fsync=3", "--fdatasync=2", "--loops=3", "--bs=16k"],
        &["--fsync=4", "--loops=2", "--io_size=4m", "--bs=16k"],
        &["--fsync=4", "--loops=2", "--number_ios=20"],
        &["--fsync=2", "--rw=write:8k"],
        &["--fsync=2", "--bs=12k"],
        &["--fsync=4", "--loops=2", "--ioengine=libaio", "--iodepth=4"],
        &["--fdatasync=4", "--nrfiles=3", "--loops=2", "--bs=16k"],
    ] {
        let mut args = vec!["--name=f", "--rw=write", "--size=1m"];
        if !extra.iter().any(|a| a.starts_with("--nrfiles")) {
            args.push("--filename=data");
        }
        args.extend_from_slice(extra);
        let (env, fdir, adir) = side_by_side();
        let f = fio_json(&fio, &fdir, &args);
        let a = fathom_json(&env, &adir, &args);
        for key in ["total_ios", "lat_ns.N"] {
            let get = |v: &Value| match key {
                "total_ios" => v["jobs"][0]["sync"]["total_ios"].clone(),
                _ => v["jobs"][0]["sync"]["lat_ns"]["N"].clone(),
            };
            assert_eq!(get(&f), get(&a), "sync {key} for {extra:?}");
        }
    }
}

/// In a read/write mix fio decides a sync before every I/O while the writes issued are a
/// multiple of N and the last completion was not a sync's: after the Nth write each read
/// until the next write comes after a sync of its own. fathom's write_iolog shows the same
/// rule on a random mix (fio's own mix is drawn with its own generator, so the two are
/// compared by the rule, not I/O for I/O).
#[test]
fn a_mix_syncs_before_each_io_until_the_next_write_as_fio() {
    let env = Env::new();
    let o = env
        .cmd()
        .current_dir(env.path())
        .args([
            "--name=m",
            "--rw=rw",
            "--rwmixread=70",
            "--bs=4k",
            "--size=512k",
        ])
        .args(["--filename=data", "--fsync=4", "--write_iolog=m.log"])
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let log = std::fs::read_to_string(env.path().join("m.log")).unwrap();
    let (mut writes, mut last_sync, mut syncs, mut followed) = (0u64, false, 0u64, 0u64);
    for l in log.lines() {
        // (fio's iolog v3: time, file, action, offset, length.)
        let op = match l.split_whitespace().nth(2) {
            Some(op @ ("read" | "write" | "sync")) => op,
            _ => continue,
        };
        let due = writes > 0 && writes % 4 == 0 && !last_sync;
        if op == "sync" {
            assert!(due, "a sync after {writes} writes, not due: {log}");
            syncs += 1;
            last_sync = true;
            continue;
        }
        assert!(!due, "no sync before a {op} after {writes} writes: {log}");
        followed += u64::from(op == "read" && writes % 4 == 0 && writes > 0);
        last_sync = false;
        writes += u64::from(op == "write");
    }
    assert!(
        followed > syncs / 4,
        "the mix put reads after the Nth writes"
    );
    assert_eq!(v["jobs"][0]["sync"]["total_ios"], syncs);
    assert_eq!(v["jobs"][0]["write"]["total_ios"], writes);
}

/// fsync=N at depth on libaio, and at a loop's turn: fio decides each sync by whether the
/// last unit it handled was a sync, and on libaio (which makes the sync at once) it
/// handles a completion only once its queue is full, one at a time; so at depth fewer
/// reads after the Nth write get a sync of their own (`rw bs=4k size=64k loops=3 fsync=4
/// iodepth=4`: 9 fsyncs, fathom made 12). A sync at a new loop's start comes after the
/// files' close and open, and a synchronous engine's sync at a pass's end before its
/// verify phase. The write_iolog is fio's line for line (syncs' offsets aside: at depth
/// fio's is whatever its unit held before).
#[test]
fn syncs_at_depth_and_at_a_loop_s_turn_are_fio_s() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--rw=rw", "--loops=3", "--ioengine=libaio", "--iodepth=4"][..],
        &["--rw=rw", "--loops=3", "--ioengine=libaio", "--iodepth=2"],
        &[
            "--rw=write",
            "--loops=2",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &["--rw=write", "--loops=3", "--ioengine=psync"],
        &["--rw=rw", "--loops=3", "--ioengine=psync"],
        &[
            "--rw=write",
            "--loops=2",
            "--ioengine=psync",
            "--verify=md5",
        ],
        &[
            "--rw=write",
            "--loops=2",
            "--ioengine=libaio",
            "--iodepth=4",
            "--verify=md5",
        ],
        // null at depth 1 is one of fio's synchronous engines: the sync due at a loop's
        // end is made before the files' close (fathom left it out).
        &["--rw=write", "--loops=3", "--ioengine=null"],
        &["--rw=randrw", "--loops=2", "--ioengine=null"],
    ] {
        let args: Vec<&str> = [
            "--name=s",
            "--bs=4k",
            "--size=64k",
            "--fsync=4",
            "--write_iolog=io.log",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect();
        let (env, fdir, adir) = side_by_side();
        let f = fio_json(&fio, &fdir, &args);
        let a = fathom_json(&env, &adir, &args);
        let syncs = |v: &Value| v["jobs"][0]["sync"]["total_ios"].clone();
        assert_eq!(syncs(&f), syncs(&a), "{args:?}: fsyncs");
        assert_eq!(
            iolog_syncs_aside(&fdir),
            iolog_syncs_aside(&adir),
            "{args:?}"
        );
    }
}

#[test]
fn number_ios_does_not_end_a_time_based_job() {
    let env = Env::new();
    let o = env
        .cmd()
        .args(["--name=t", "--ioengine=null", "--size=4m", "--rw=read"])
        .args(["--time_based", "--runtime=300ms", "--number_ios=50"])
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let ios = json(&o)["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(
        ios > 1000,
        "a time-based job ran {ios} I/Os, as if number_ios stopped it"
    );
}

#[test]
fn numjobs_and_offset_increment_match_fio() {
    compare(
        &[
            "--name=c",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--numjobs=2",
            "--offset_increment=256k",
            "--filename=shared",
        ],
        false,
    );
    compare(
        &[
            "--name=g",
            "--rw=randwrite",
            "--bs=8k",
            "--size=1m",
            "--numjobs=3",
            "--group_reporting",
        ],
        false,
    );
}

#[test]
fn sequential_holes_match_fio() {
    compare(&["--name=h", "--rw=read:4k", "--bs=4k", "--size=1m"], false);
}

/// Holes (`rw=write:508k`) wrap as fio 3.33's do: round to the start only when the region
/// is the whole file; when the file goes on past the region (a larger file, an offset,
/// offset_increment's clones) the walk makes one pass. fathom did 256 I/Os in each of these
/// jobs where fio does 2 (or 4). Known truths, then fio side by side.
#[test]
fn holes_make_one_pass_when_the_file_goes_on_as_in_fio() {
    let job = ["--name=h", "--ioengine=psync", "--size=1M", "--bs=4k"];
    let cases: Vec<(Vec<&str>, Option<usize>, u64)> = vec![
        // The region is the whole file: round and round until 1 MiB is done.
        (vec!["--rw=write:508k"], None, 256),
        // A 4 MiB file: one pass over the region, wherever it starts.
        (vec!["--filename=data", "--rw=read:508k"], Some(4 << 20), 2),
        (
            vec!["--filename=data", "--rw=read:508k", "--offset=1M"],
            Some(4 << 20),
            2,
        ),
        (
            vec!["--filename=data", "--rw=read:508k", "--offset=3M"],
            Some(4 << 20),
            2,
        ),
        // offset_increment's clones lay out files that go on before their regions: the
        // first clone goes round, the others make one pass (the runbook's fill pattern).
        (
            vec!["--rw=write:508k", "--numjobs=4", "--offset_increment=4k"],
            None,
            256 + 3 * 2,
        ),
        // A step past the file's end lands `offset` bytes into the region (fio's sum).
        (vec!["--rw=write:300k", "--offset=100k"], None, 256),
        (vec!["--rw=write:300k", "--offset=600k"], None, 4),
    ];
    let fio = fio();
    for (extra, existing, want) in &cases {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        let (env, fdir, adir) = side_by_side();
        if let Some(n) = existing {
            for d in [&fdir, &adir] {
                std::fs::write(d.join("data"), vec![b'x'; *n]).unwrap();
            }
        }
        let a = counts(&fathom_json(&env, &adir, &args));
        assert_eq!(a[0] + a[1], *want, "fathom {args:?}: {a:?}");
        if let Some(fio) = &fio {
            let f = counts(&fio_json(fio, &fdir, &args));
            assert_eq!(f, a, "fio, then fathom, for {args:?}");
        }
    }
}

/// Each case's job (`job` then the case's options) in fathom: its reads and writes as
/// the case says (a known truth); then, with fio, fio's counts equal to fathom's.
fn reads_and_writes_then_fio(job: &[&str], cases: &[(Vec<&str>, [u64; 2])]) {
    let fio = fio();
    for (extra, want) in cases {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        let (env, fdir, adir) = side_by_side();
        let a = counts(&fathom_json(&env, &adir, &args));
        assert_eq!([a[0], a[1]], *want, "fathom {args:?}: {a:?}");
        if let Some(fio) = &fio {
            let f = counts(&fio_json(fio, &fdir, &args));
            assert_eq!(f, a, "fio, then fathom, for {args:?}");
        }
    }
}

/// fio's do_io on an engine that completes each I/O as it is issued (psync here) limits a
/// loop only by the job's budget (size × loops) and by its files being done; an
/// asynchronous engine's loop also stops at `size` bytes of its own. So a walk that goes
/// round its file (holes that wrap, strided zones) does every loop's I/O in the first,
/// verifies once and ends, while a file done early ends each loop and is verified each
/// time. fathom verified after each loop whatever the engine (39 reads where fio makes
/// 13, and 4 where fio makes 12). Known truths, then fio side by side.
#[test]
fn synchronous_loops_run_to_the_jobs_budget_and_verify_as_fio() {
    let job = ["--name=l", "--bs=4k", "--loops=3", "--verify=crc32c"];
    // (options, fathom's reads and writes)
    let cases: Vec<(Vec<&str>, [u64; 2])> = vec![
        // 64 writes a loop go round the 256 KiB file at 13 places; fio writes all 192 in
        // its first loop and reads the 13 back once.
        (vec!["--size=256k", "--rw=write:16k"], [13, 192]),
        (vec!["--size=256k", "--rw=write:4k"], [32, 192]),
        // Strided zones wrap at the file's end too.
        (
            vec![
                "--size=256k",
                "--rw=write",
                "--zonemode=strided",
                "--zonesize=16k",
                "--zoneskip=16k",
            ],
            [32, 192],
        ),
        (
            vec!["--size=256k", "--rw=write:8k", "--nrfiles=2"],
            [22, 192],
        ),
        // The walk reaches the file's end after 4 writes: each loop is verified.
        (vec!["--size=64k", "--rw=write:16k"], [12, 12]),
        // An asynchronous engine's loop stops at size: each loop is verified.
        (
            vec!["--size=256k", "--rw=write:16k", "--ioengine=libaio"],
            [39, 192],
        ),
        // A file done at size, as always.
        (vec!["--size=256k", "--rw=write"], [192, 192]),
    ];
    reads_and_writes_then_fio(&job, &cases);
    // A random job without the random map draws on through the loops (fathom drew the
    // first loop's offsets again in each, randrepeat's new seed) and reads each block it
    // wrote back once: at most the file's 64 blocks (fathom read about 123), about 61.
    let args = [
        "--name=r",
        "--bs=4k",
        "--loops=3",
        "--verify=crc32c",
        "--size=256k",
        "--rw=randwrite",
        "--norandommap",
    ];
    let (env, _, adir) = side_by_side();
    let a = counts(&fathom_json(&env, &adir, &args));
    assert_eq!(a[1], 192, "{a:?}");
    assert!((40..=64).contains(&a[0]), "{a:?}");
    // And with a percentage offset: the first loop writes size × loops (fathom's second
    // loop ended at its first draw past the file's end: 40 writes where fio makes 75).
    let job = ["--name=o", "--bs=8k", "--loops=2", "--size=300k"];
    reads_and_writes_then_fio(
        &job,
        &[(
            vec!["--rw=randwrite", "--norandommap", "--offset=25%"],
            [0, 75],
        )],
    );
}

/// io_size with holes: a pass over the file moves less than its size (`rw=write:8k bs=4k
/// size=256k`: 22 blocks) or goes round it until the budget is spent; fio decides the
/// passes one by one until io_size (× loops) is moved, the verify reads counted, each
/// pass verified. fathom made one pass (44 writes where fio makes 132, 54 and 24 reads
/// where fio makes 132 and 132). Known truths, then fio side by side.
#[test]
fn io_size_with_holes_makes_fios_passes() {
    let job = ["--name=h", "--bs=4k"];
    // (options, fathom's reads and writes)
    let cases: Vec<(Vec<&str>, [u64; 2])> = vec![
        (
            vec![
                "--rw=write:8k",
                "--size=256k",
                "--io_size=512k",
                "--loops=2",
            ],
            [0, 132],
        ),
        (
            vec![
                "--rw=write:8k",
                "--size=256k",
                "--io_size=512k",
                "--verify=crc32c",
            ],
            [66, 66],
        ),
        (
            vec![
                "--rw=write:8k",
                "--size=64k",
                "--io_size=1m",
                "--verify=crc32c",
            ],
            [132, 132],
        ),
        (
            vec![
                "--rw=write:16k",
                "--size=256k",
                "--io_size=512k",
                "--verify=crc32c",
                "--loops=2",
            ],
            [13, 256],
        ),
        (
            vec!["--rw=read:8k", "--size=256k", "--io_size=300k", "--loops=2"],
            [88, 0],
        ),
        // Without io_size, a pass verified starts the files over: more passes follow
        // while the job has moved (written and read back) less than size.
        (
            vec!["--rw=write:8k", "--size=1m", "--verify=md5"],
            [172, 172],
        ),
        (
            vec!["--rw=write:16k", "--size=1m", "--verify=md5"],
            [156, 156],
        ),
        // number_ios stops those passes where fio's count (the reads in it) does, not
        // after the first (fathom made one pass of 4 writes and their reads).
        (
            vec![
                "--rw=write:8k",
                "--size=200k",
                "--filesize=40k",
                "--number_ios=12",
                "--verify=crc32c",
            ],
            [8, 8],
        ),
        (
            vec![
                "--rw=write:8k",
                "--size=1m",
                "--verify=md5",
                "--number_ios=250",
            ],
            [164, 164],
        ),
        // Files done end each loop, and each loop is verified, on any engine.
        (
            vec![
                "--rw=write:8k",
                "--size=1m",
                "--verify=md5",
                "--loops=2",
                "--ioengine=libaio",
                "--iodepth=4",
            ],
            [172, 172],
        ),
    ];
    reads_and_writes_then_fio(&job, &cases);
}

/// verify_backlog where a write lands on one still waiting for its check: fio keeps the
/// writes of a job without its random map in a tree by offset, the newer replacing the
/// older, so fewer wait and only the newer is read back. `rw=write:16k bs=4k size=256k
/// verify_backlog=20` goes round its 13 places: the backlog never holds 20, the 13 are
/// read back at the end (fathom read back all 64 writes). A random job without the map
/// reads back about 61 of its 64 (a distribution; fathom-only bound here).
#[test]
fn a_write_over_one_waiting_for_its_check_replaces_it_as_fio() {
    let job = [
        "--name=b",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--rw=write:16k",
        "--verify_backlog=20",
    ];
    for extra in [&[][..], &["--loops=2"], &["--verify_backlog=4"]] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        let (env, fdir, adir) = side_by_side();
        let a = counts(&fathom_json(&env, &adir, &args));
        if extra.is_empty() {
            assert_eq!([a[0], a[1]], [13, 64], "{a:?}");
        }
        if let Some(fio) = fio() {
            let f = counts(&fio_json(&fio, &fdir, &args));
            assert_eq!(f, a, "fio, then fathom, for {args:?}");
        }
    }
    let args = [
        "--name=r",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--rw=randwrite",
        "--norandommap",
        "--verify_backlog=16",
        "--loops=2",
    ];
    let (env, _, adir) = side_by_side();
    let a = counts(&fathom_json(&env, &adir, &args));
    assert_eq!(a[1], 128, "{a:?}");
    assert!(
        (90..128).contains(&a[0]),
        "some writes replace waiting ones: {a:?}"
    );
}

/// Every I/O's direction and offset, in order, from a per-I/O completion-latency log
/// (`write_lat_log` with `log_offset=1`; fio and fathom write the same columns).
fn offsets(dir: &std::path::Path, prefix: &str) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(dir.join(format!("{prefix}_clat.1.log"))).unwrap();
    text.lines()
        .map(|l| {
            let c: Vec<u64> = l.split(',').map(|x| x.trim().parse().unwrap()).collect();
            (c[2], c[4])
        })
        .collect()
}

/// Runs fio and fathom on one job and compares the order of its offsets, I/O by I/O.
fn compare_offsets(args: &[&str]) {
    compare_offsets_on(args, None);
}

/// compare_offsets, each tool's folder holding a file `data` of `existing` bytes first.
fn compare_offsets_on(args: &[&str], existing: Option<usize>) {
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    if let Some(n) = existing {
        for d in [&fdir, &adir] {
            std::fs::write(d.join("data"), vec![b'x'; n]).unwrap();
        }
    }
    let log = ["--write_lat_log=seq", "--log_offset=1", "--ioengine=psync"];
    let all: Vec<&str> = args.iter().chain(log.iter()).copied().collect();
    fio_quiet(&fio, &fdir, &all);
    let o = env
        .cmd()
        .current_dir(&adir)
        .args(args)
        .args(log)
        .output()
        .unwrap();
    assert!(o.status.success(), "fathom: {}", stderr(&o));
    let (f, a) = (offsets(&fdir, "seq"), offsets(&adir, "seq"));
    assert!(!f.is_empty());
    assert_eq!(
        f, a,
        "(ddir, offset) of every I/O for {args:?}: fio, then fathom"
    );
}

#[test]
fn backward_and_strided_walks_match_fio_io_by_io() {
    let job = ["--name=b", "--filename=data", "--size=64k"];
    for extra in [
        // Backwards: the first I/O at 0, then down from the end (iozone's read backwards).
        &["--rw=read:-8k", "--bs=4k"][..],
        &["--rw=write:-16k", "--bs=4k"],
        &["--rw=read:-4k", "--bs=8k"],
        // A stride larger than the file: one I/O.
        &["--rw=read:-128k", "--bs=4k"],
        // Strided (iozone's stride read): holes; a walk that ends exactly at the end of
        // the file stops there, one that ends short of it wraps to the start.
        &["--rw=read:8k", "--bs=4k"],
        &["--rw=read:12k", "--bs=4k"],
        &["--rw=read:5k", "--bs=4k"],
        // Loops go on from where the last one stopped unless the file was exhausted.
        &["--rw=read:-8k", "--bs=4k", "--loops=2"],
        &["--rw=read", "--bs=4k", "--io_size=40k", "--loops=2"],
        &["--rw=read:4k", "--bs=4k", "--io_size=40k", "--loops=2"],
        &["--rw=write", "--bs=4k", "--number_ios=20", "--loops=2"],
        // A pass that ends before its loop's budget starts another, up to `loops`
        // passes in all.
        &["--rw=read", "--bs=4k", "--number_ios=10", "--loops=3"],
        &["--rw=read:8k", "--bs=4k", "--number_ios=4", "--loops=3"],
        &["--rw=read:16k", "--bs=4k", "--loops=2"],
        // A backward walk in a region past the file's start steps back from the
        // region's length taken as a position (fio 3.33): `offset` bytes short of the
        // region's end, so a block larger than the step does not fit there.
        &["--rw=read:-8k", "--bs=4k", "--offset=16k"],
        &["--rw=read:-8k", "--bs=4k", "--offset=10%", "--loops=2"],
        &["--rw=write:-4k", "--bs=8k", "--offset=16k", "--size=200k"],
        // A backward walk never reaches its end: on a synchronous engine its first loop
        // runs to the job's budget (the later loops' percentage offsets never apply).
        &["--rw=read:-8k", "--bs=4k", "--offset=25%", "--loops=3"],
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        compare_offsets(&args);
    }
    // So a block larger than the step does not fit at all: fio does no I/O (and with
    // offset_increment, the second job five reads).
    compare(
        &[
            "--name=b",
            "--rw=read:-4k",
            "--bs=16k",
            "--size=200k",
            "--offset=4k",
        ],
        false,
    );
    compare(
        &[
            "--name=b",
            "--rw=read:-4k",
            "--bs=16k",
            "--size=200k",
            "--numjobs=2",
            "--offset_increment=64k",
        ],
        false,
    );
    // On an asynchronous engine each loop is a loop: a later loop's percentage offset
    // moves the region's start but not its length, and the walk ends at the file's end.
    compare(
        &[
            "--name=b",
            "--rw=read:-12k",
            "--bs=4k",
            "--size=64k",
            "--loops=3",
            "--ioengine=io_uring",
            "--iodepth=2",
            "--offset=10%",
        ],
        false,
    );
}

#[test]
fn block_size_per_direction_matches_fio() {
    // bs=R,W: a read job uses the first size, a write job the second.
    compare(
        &[
            "--name=r",
            "--ioengine=null",
            "--rw=read",
            "--bs=8k,16k",
            "--size=4m",
        ],
        false,
    );
    compare(
        &[
            "--name=w",
            "--ioengine=psync",
            "--rw=write",
            "--bs=4k,16k",
            "--size=4m",
        ],
        false,
    );
    compare(
        &[
            "--name=rr",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k,16k",
            "--size=4m",
        ],
        false,
    );
}

#[test]
fn percentage_offsets_round_up_to_offset_align_as_fio() {
    compare(
        &[
            "--name=p",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--offset=33%",
            "--offset_align=64k",
        ],
        false,
    );
    compare(
        &[
            "--name=q",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--offset=10%",
            "--numjobs=2",
            "--offset_increment=100k",
        ],
        false,
    );
}

#[test]
fn bs_is_seq_rand_matches_fio() {
    // Random reads take the write size, sequential writes the read size. (norandommap:
    // fio's random map counts blocks of the smallest size of any direction, 4k here,
    // which makes its 16k random reads stop early; that is a separate matter.)
    compare(
        &[
            "--name=r",
            "--rw=randread",
            "--bs=4k,16k",
            "--size=4m",
            "--bs_is_seq_rand=1",
            "--norandommap",
        ],
        false,
    );
    compare(
        &[
            "--name=w",
            "--rw=write",
            "--bs=4k,16k",
            "--size=4m",
            "--bs_is_seq_rand=1",
        ],
        false,
    );
}

#[test]
fn falloc_and_ftruncate_match_fio() {
    compare(
        &[
            "--name=f",
            "--ioengine=falloc",
            "--rw=randwrite",
            "--bs=64k",
            "--size=4m",
        ],
        false,
    );
    compare(
        &[
            "--name=t",
            "--ioengine=ftruncate",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
        ],
        false,
    );
}

#[test]
fn openfiles_below_nrfiles_matches_fio() {
    for extra in [
        &["--rw=randread", "--nrfiles=8", "--openfiles=2"][..],
        &["--rw=write", "--nrfiles=4", "--openfiles=1"][..],
        &[
            "--rw=randwrite",
            "--nrfiles=6",
            "--openfiles=3",
            "--file_service_type=random",
            "--ioengine=libaio",
            "--iodepth=8",
        ][..],
    ] {
        let mut args = vec!["--name=o", "--bs=4k", "--size=4m"];
        args.extend_from_slice(extra);
        compare(&args, false);
    }
}

#[test]
fn sequential_file_service_over_two_files_matches_fio() {
    compare(
        &[
            "--name=q",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--nrfiles=2",
            "--file_service_type=sequential",
        ],
        false,
    );
}

#[test]
fn strided_zones_match_fio_io_by_io() {
    // zonemode=strided (fio's disk-zone-profile.fio): zonesize bytes in each zone of
    // zonerange bytes, zoneskip between zones, wrapping at the file's end; a loop ended
    // by its bytes is followed by one that goes on from the zone where it stopped.
    for case in [
        "--size=64k --rw=read --zonesize=8k --zoneskip=8k",
        // zonesize above zonerange goes round each zone again; below, a part of each.
        "--size=64k --rw=read --zonesize=16k --zonerange=8k --zoneskip=8k",
        "--size=64k --rw=read --zonesize=4k --zonerange=16k --zoneskip=0",
        "--size=64k --rw=write --zonesize=12k --zonerange=32k --zoneskip=4k",
        // Holes within a zone, an offset, io_size and loops.
        "--size=64k --rw=read:4k --zonesize=12k --zoneskip=20k",
        "--size=64k --rw=read --zonesize=8k --zoneskip=24k --offset=8k",
        "--size=64k --rw=read --zonesize=8k --zoneskip=8k --io_size=160k",
        "--size=48k --rw=read --zonesize=8k --zoneskip=4k --loops=2",
        "--size=64k --rw=write --zonesize=8k --zoneskip=8k --loops=2",
        // A block larger than what is left of the zone still goes there; a zone cut by the
        // file's end ends the walk there.
        "--size=64k --rw=read --zonesize=24k --zoneskip=0 --bs=16k",
        "--size=64k --rw=read --zonesize=32k --zoneskip=4k",
        // A walk that reaches the file's end inside a zone ends the loop; the next
        // starts at the first zone (it went round the cut zone again, an I/O too many).
        "--size=200k --rw=write --zonesize=32k --zoneskip=16k --loops=2",
        "--size=256k --rw=read --zonesize=32k --zoneskip=16k --loops=2 --offset=64k",
        // A percentage offset's later start: the zones end at the file's end, not past
        // it (fathom read past it: EIO).
        "--size=256k --rw=read --zonesize=64k --offset=25% --loops=2 --bs=1k",
    ] {
        let job = "--name=z --filename=data --bs=4k --zonemode=strided";
        let args: Vec<&str> = job.split(' ').chain(case.split(' ')).collect();
        compare_offsets(&args);
    }
    // Several files: the zone's bytes are the thread's, and the file whose I/O comes
    // when they are done moves to its next zone (fathom left zones out with more than
    // one file: 63 reads where fio makes 64, 93 where it makes 175 with io_size).
    for case in [
        "--size=256k --rw=write --zonesize=16k --zoneskip=16k",
        "--size=256k --rw=read --zonesize=8k --zoneskip=24k --file_service_type=roundrobin:4",
        "--size=256k --rw=read --zonesize=16k --zonerange=32k --zoneskip=0",
        "--size=200k --rw=read --zonesize=32k --zoneskip=16k --loops=2",
        "--size=512k --rw=read --zonesize=64k --zoneskip=64k --bs=8k --nrfiles=3",
        "--size=512k --rw=read --zonesize=64k --zoneskip=64k --bs=8k --nrfiles=3 --io_size=700k",
    ] {
        let job = "--name=z --bs=4k --zonemode=strided --nrfiles=2";
        let args: Vec<&str> = job.split(' ').chain(case.split(' ')).collect();
        compare_offsets(&args);
        compare(&args, false);
    }
    // Random offsets: fio's draws over the zone's blocks. With mixed sizes and the map,
    // an I/O is cut where it meets a taken block (fathom took it whole: 451 writes
    // where fio makes 832).
    let job = "--name=z --filename=data --bs=4k --zonemode=strided --size=256k \
               --rw=randread --zonesize=64k --loops=2";
    let args: Vec<&str> = job.split_whitespace().collect();
    compare_offsets(&args);
    // (With a percentage offset fio's second loop goes on with the first's draws from
    // the later start; fathom's draws start over there: the counts agree.)
    let job = "--name=z --filename=data --bs=4k --zonemode=strided --size=256k \
               --rw=randread --zonesize=64k --offset=25% --loops=2";
    let args: Vec<&str> = job.split_whitespace().collect();
    compare(&args, false);
    let job = "--name=z --filename=data --zonemode=strided --size=8m --rw=randwrite \
               --bssplit=4k/50:16k/30:64k/20 --zonesize=1m --zoneskip=1m";
    let args: Vec<&str> = job.split_whitespace().collect();
    compare(&args, false);
}

// Strided zones over a larger existing file: fio's zones go on past the region's end
// where the file does, until the job has done its size (`size=300k zonesize=64k
// zoneskip=32k` on a 1 MiB file writes 300k through five zones; fathom stopped at the
// region's end, 204k), and a loop's walk ends at the file's end, not the region's.
#[test]
fn strided_zones_go_on_past_the_region_in_a_larger_file_as_fio() {
    for case in [
        "--rw=write --size=300k --zonesize=64k --zoneskip=32k",
        "--rw=read --bs=8k --size=300k --zonesize=64k --zoneskip=32k",
        "--rw=write --bs=8k,4k --size=10k --loops=3 --zonesize=32k --zoneskip=32k",
        "--rw=read:4k --size=256k --zonesize=32k --zoneskip=64k --loops=2",
        "--rw=read --size=100k --zonesize=16k --zoneskip=0 --zonerange=128k --offset=64k",
    ] {
        let job = "--name=z --filename=data --bs=4k --zonemode=strided";
        let args: Vec<&str> = job.split(' ').chain(case.split(' ')).collect();
        compare_offsets_on(&args, Some(1 << 20));
        compare_on(&args, false, Some(1 << 20));
    }
    // The verify phase reads back every write, past the region too (fathom read back 33
    // of 64); random draws in zones agree in their counts with a seed of each tool's.
    for case in [
        "--rw=write --size=256k --zonesize=32k --zoneskip=32k --verify=crc32c",
        "--rw=randwrite --size=256k --zonesize=32k --zoneskip=32k --verify=crc32c",
        "--rw=randread --size=64k --zonesize=28k --zonerange=32k --zoneskip=4k --io_size=56k",
    ] {
        let job = "--name=z --filename=data --bs=4k --zonemode=strided";
        let args: Vec<&str> = job.split(' ').chain(case.split(' ')).collect();
        compare_on(&args, false, Some(1 << 20));
    }
}

/// filesize= ranges: each file's size is fio's draw (its file-size generator, seeded as
/// fio seeds each thread), and a file that exists with a size in the range keeps it
/// (fathom drew sizes of its own: 892 writes where fio makes 733).
#[test]
fn file_size_ranges_draw_fio_s_sizes() {
    for job in [
        "--name=s --filename=data --filesize=2m-8m --rw=randwrite --nrfiles=3",
        "--name=s --directory=. --filesize=1m-3m --nrfiles=4 --rw=write --numjobs=2",
        "--name=a --directory=. --filesize=100k-900k --nrfiles=3 --rw=read \
         --name=b --filesize=1m-2m --rw=write",
    ] {
        let args: Vec<&str> = job.split_whitespace().collect();
        compare(&args, false);
    }
    // An existing file of 1 MiB in a range of 512k-2m keeps its size: 256 reads.
    let args = [
        "--name=s",
        "--filename=data",
        "--filesize=512k-2m",
        "--rw=read",
    ];
    compare_on(&args, false, Some(1 << 20));
}

/// Random writes without the map overlap: fio's history of writes drops every earlier
/// write a new one overlaps, whole, and the verify phase reads back what is left (fathom
/// kept a write that began before a later one and read it in its place: 167 reads where
/// fio makes 176).
#[test]
fn overlapping_writes_are_read_back_as_fio_keeps_them() {
    for extra in [
        "--bssplit=4k/50:16k/30:64k/20 --size=8m",
        "--bsrange=4k-16k --size=1m",
        "--bsrange=4k-16k --size=1m --io_size=3m",
        "--bs=8k --blockalign=4k --size=1m",
    ] {
        let job = "--name=o --filename=data --rw=randwrite --norandommap --verify=crc32c";
        let args: Vec<&str> = job.split(' ').chain(extra.split(' ')).collect();
        compare(&args, false);
    }
}

/// random_generator=lfsr starts an I/O at each block once a pass and keeps no map of
/// what the I/Os cover: mixed sizes overlap as in fio until the job has its bytes
/// (fathom cut them where they met a taken block: 672 reads where fio makes 377), and
/// the verify phase reads back what fio's history keeps of overlapping writes.
#[test]
fn lfsr_lets_mixed_sizes_overlap_as_fio() {
    for (rw, extra) in [
        ("--rw=randread", "--bssplit=4k/50:16k/30:64k/20"),
        ("--rw=randread", "--bsrange=4k-64k"),
        ("--rw=randwrite", "--bs=4k"),
        ("--rw=randwrite", "--bssplit=4k/50:16k/30:64k/20"),
    ] {
        let verify = if rw.ends_with("write") {
            "--verify=crc32c"
        } else {
            "--verify=0"
        };
        let args = [
            "--name=l",
            "--filename=data",
            "--size=8m",
            rw,
            "--random_generator=lfsr",
            verify,
            extra,
        ];
        compare(&args, false);
    }
}

/// fio 3.33 turns the random map off when blockalign differs from the smallest block size
/// (and says so): 1 MiB of 8k reads on 4k alignment is 128 reads of 8k, some blocks twice.
/// fathom kept the map and cut I/Os to 4k at its holes (141 reads, 26 of 4k).
#[test]
fn blockalign_below_bs_turns_the_random_map_off_as_in_fio() {
    let args = [
        "--name=ba",
        "--rw=randread",
        "--size=1m",
        "--bs=8k",
        "--ba=4k",
    ];
    let (env, fdir, adir) = side_by_side();
    let a = counts(&fathom_json(&env, &adir, &args));
    assert_eq!(a, [128, 0, 1 << 20, 0], "fathom");
    if let Some(fio) = fio() {
        assert_eq!(counts(&fio_json(&fio, &fdir, &args)), a, "fio, then fathom");
    }
    // The map stays when blockalign is the smallest size (bsrange's low end).
    let args = [
        "--name=bb",
        "--rw=randread",
        "--size=1m",
        "--bsrange=4k-4k",
        "--ba=4k",
    ];
    assert_eq!(
        counts(&fathom_json(&env, &adir, &args)),
        [256, 0, 1 << 20, 0]
    );
}

/// With a non-uniform file choice (zipf, pareto, normal/gauss) fio starts an exhausted file
/// over instead of marking it done, so the job does all its bytes: 3 files of 349525
/// bytes hold 255 blocks of 4k, and fio does 256 writes (one file twice over), as
/// fathom now does (it stopped at 255). Uniform choices stop at 255 in both.
#[test]
fn a_non_uniform_file_choice_starts_exhausted_files_over_as_fio() {
    for (fst, want) in [
        ("zipf:1.1", 256),
        ("pareto:0.5", 256),
        ("normal:50", 256),
        ("random", 255),
        ("roundrobin", 255),
    ] {
        let fst = format!("--file_service_type={fst}");
        for rw in ["--rw=write", "--rw=randwrite"] {
            let args = ["--name=f", rw, "--bs=4k", "--size=1m", "--nrfiles=3", &fst];
            let (env, fdir, adir) = side_by_side();
            let a = counts(&fathom_json(&env, &adir, &args));
            assert_eq!(a[1], want, "fathom {args:?}");
            if let Some(fio) = fio() {
                assert_eq!(counts(&fio_json(&fio, &fdir, &args)), a, "fio, then fathom");
            }
        }
    }
}

/// The share of I/Os each file gets under a distribution is fio's: zipf over 1024 ranges
/// per file (the hot file 86% at θ=1.1; a plain zipf over 8 files gave it 40%, and a
/// size-bounded job gave every file the same share), fio's bell for normal. Per-file read
/// counts from both tools' iologs, within 4% of the job's I/Os.
#[test]
fn a_file_choice_by_distribution_shares_the_ios_as_fio() {
    let Some(fio) = fio() else { return };
    let per_file = |dir: &std::path::Path| {
        let log = std::fs::read_to_string(dir.join("io.log")).unwrap();
        let mut n = [0i64; 8];
        for l in log.lines().filter(|l| l.contains(" read ")) {
            let name = l.split_whitespace().nth(1).unwrap();
            n[name.rsplit('.').next().unwrap().parse::<usize>().unwrap()] += 1;
        }
        n
    };
    for fst in [
        "zipf:1.1:0.5",
        "zipf:2:0.25",
        "normal:10",
        "normal:50",
        "normal:10:0.2",
    ] {
        let fst = format!("--file_service_type={fst}");
        let args = [
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--filesize=1m",
            "--nrfiles=8",
            "--size=8m",
            "--write_iolog=io.log",
            &fst,
        ];
        let (env, fdir, adir) = side_by_side();
        fio_quiet(&fio, &fdir, &args);
        fathom_quiet(&env, &adir, &args);
        let (f, a) = (per_file(&fdir), per_file(&adir));
        assert_eq!(a.iter().sum::<i64>(), 2048);
        for i in 0..8 {
            assert!((f[i] - a[i]).abs() < 82, "{fst}: fio {f:?} fathom {a:?}");
        }
    }
}

/// How skewed random offsets are under each distribution is fio's: the blocks touched and
/// the share of the hottest half, from both tools' iologs of 16384 reads over 1024
/// blocks. (fathom's normal was a true normal of sd dev%: normal:50 nearly uniform, 1024
/// blocks and 61% where fio touches 868 and puts 79% on the hottest half.)
#[test]
fn random_distributions_are_as_skewed_as_fio_s() {
    let Some(fio) = fio() else { return };
    let skew = |dir: &std::path::Path| {
        let log = std::fs::read_to_string(dir.join("io.log")).unwrap();
        let mut hits = std::collections::HashMap::<u64, u64>::new();
        for l in log.lines().filter(|l| l.contains(" read ")) {
            *hits
                .entry(l.split_whitespace().nth(3).unwrap().parse().unwrap())
                .or_default() += 1;
        }
        let mut c: Vec<u64> = hits.into_values().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        let half: u64 = c[..c.len() / 2].iter().sum();
        (c.len() as f64, half as f64 / c.iter().sum::<u64>() as f64)
    };
    for dist in ["normal:10", "normal:50", "zipf:1.2", "pareto:0.2"] {
        let dist = format!("--random_distribution={dist}");
        let args = [
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--size=4m",
            "--io_size=64m",
            "--write_iolog=io.log",
            &dist,
        ];
        let (env, fdir, adir) = side_by_side();
        fio_quiet(&fio, &fdir, &args);
        fathom_quiet(&env, &adir, &args);
        let (f, a) = (skew(&fdir), skew(&adir));
        assert!(
            (f.0 - a.0).abs() < 60.0,
            "{dist}: blocks touched fio {f:?} fathom {a:?}"
        );
        assert!(
            (f.1 - a.1).abs() < 0.03,
            "{dist}: hottest half fio {f:?} fathom {a:?}"
        );
    }
}

/// verify_offset must leave room for fio's 40-byte header: fio refuses less (0 too), and so
/// does fathom now (it took any value); 64 verifies.
#[test]
fn verify_offset_below_the_header_is_refused_as_in_fio() {
    let (env, fdir, adir) = side_by_side();
    let job = [
        "--name=v",
        "--rw=write",
        "--bs=8k",
        "--size=64k",
        "--verify=crc32c",
    ];
    for off in [
        "--verify_offset=0",
        "--verify_offset=16",
        "--verify_offset=39",
    ] {
        let args: Vec<&str> = job.iter().copied().chain([off]).collect();
        fathom_refuses(&env, &adir, &args, "40-byte");
        if let Some(fio) = fio() {
            let o = fio_run(&fio, &fdir, &args);
            assert!(
                String::from_utf8_lossy(&o.stderr).contains("40 min"),
                "fio {off}"
            );
        }
    }
    let args: Vec<&str> = job.iter().copied().chain(["--verify_offset=64"]).collect();
    let v = fathom_json(&env, &adir, &args);
    assert_eq!(counts(&v), [8, 8, 65536, 65536]);
}

/// Values at the edges of fio's ranges are taken or refused as fio 3.33 takes them
/// (`--parse-only`, fio side by side): 0 for loops, openfiles and thinktime_blocks means
/// what it means in fio (one loop, every file, each block) where fathom refused it, and
/// log_entries/log_compression outside fio's ranges are refused where fathom took them.
#[test]
fn option_values_at_the_edges_are_taken_as_fio_takes_them() {
    let env = Env::new();
    for (opt, ok) in [
        ("--loops=0", true),
        ("--openfiles=0", true),
        ("--thinktime_blocks=0", true),
        ("--log_entries=1024", true),
        ("--log_entries=100", false),
        ("--log_entries=1048577", false),
        ("--log_compression=1024", true),
        ("--log_compression=0", false),
        ("--log_compression=600m", false),
        ("--verify_offset=39", false),
        ("--verify_interval=0", false),
        ("--verify=null --verify_interval=64", false),
        ("--verify=null --verify_interval=80", true),
        ("--verify=null --verify_interval=256", true),
        ("--ba=0", false),
        ("--ba=1", true),
        ("--replay_align=0", false),
        ("--ignore_error=0", false),
        ("--ignore_error=EIO:0", false),
        ("--ignore_error=-5", true),
        ("--rwmixread=101", false),
        ("--iodepth=0", false),
        // fio options fathom does not take, set to their default (off): nothing asked.
        ("--trim_percentage=0", true),
        ("--trim_backlog=0", true),
        ("--atomic=0", true),
        ("--block_error_percentiles=0", true),
        ("--cgroup_nodelete=0", true),
        ("--prioclass=0", true),
    ] {
        // (The option before --parse-only: fio 3.33 passes `--parse-only
        // --ignore_error=0`, though it fails to parse it in a run.)
        let mut args = vec!["--name=x", "--ioengine=null", "--size=1m"];
        args.extend(opt.split(' '));
        args.push("--parse-only");
        let o = env.run(&args);
        assert_eq!(o.status.success(), ok, "fathom {opt}: {}", stderr(&o));
        if let Some(fio) = fio() {
            let o = fio_run(&fio, env.path(), &args);
            assert_eq!(o.status.success(), ok, "fio {opt}");
        }
    }
}

/// fio 3.33 reads a size with a decimal point only up to the point, dropping the unit:
/// `bs=2.0k` is 2 bytes (32768 I/Os over 64 KiB), `rate=1.5m` 1 byte/s. fathom read them
/// as meant (2048, 1.5 MiB/s): a silent difference either way, so fathom refuses them with
/// what fio reads and the size meant; `4096.0` (a whole number of bytes) is read alike.
#[test]
fn decimal_sizes_fio_truncates_are_refused_with_what_fio_reads() {
    let (env, fdir, adir) = side_by_side();
    let job = ["--name=d", "--rw=write", "--size=64k"];
    // Sizes, and times too: fio runs `runtime=1.5` for 1 s and `ramp_time=0.5s` not at all.
    for bad in [
        "--bs=2.0k",
        "--bs=1.5k",
        "--rate=1.5m",
        "--size=0.5m",
        "--runtime=1.5",
        "--ramp_time=0.5s",
        "--thinktime=1.5ms",
    ] {
        let args: Vec<&str> = job.iter().copied().chain([bad]).collect();
        fathom_refuses(&env, &adir, &args, "stops at the '.'");
    }
    if let Some(fio) = fio() {
        let args = [
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=1.5",
        ];
        let ms = fio_json(&fio, &fdir, &args)["jobs"][0]["read"]["runtime"]
            .as_u64()
            .unwrap();
        assert!((1000..1400).contains(&ms), "fio's runtime=1.5 ran {ms} ms");
    }
    let args: Vec<&str> = job.iter().copied().chain(["--bs=4096.0"]).collect();
    assert_eq!(counts(&fathom_json(&env, &adir, &args))[1], 16);
    if let Some(fio) = fio() {
        let args: Vec<&str> = job.iter().copied().chain(["--bs=2.0k"]).collect();
        assert_eq!(
            counts(&fio_json(&fio, &fdir, &args))[1],
            32768,
            "fio's 2-byte I/Os"
        );
    }
}

/// A rate-limited read/write mix keeps each direction's own rate, as fio's `rate_ddir`
/// does: the mix's draw goes when its direction is due, else the other direction if due,
/// else the one due first. fathom let the mix decide and the rate only cap, so
/// `rate_iops=100,100 --rwmixread=90` did 200 reads and 16 writes in 2 s (fio 200 + 200)
/// and `rate_iops=200,100` 199 + 200 (fio 400 + 200); a direction without a limit runs
/// flat out in fio while the other waits.
#[test]
fn a_rate_limited_mix_keeps_each_direction_s_rate_as_fio() {
    let job = [
        "--name=r",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=1g",
        "--runtime=2",
        "--time_based",
    ];
    let (env, fdir, adir) = side_by_side();
    for (extra, want) in [
        (&["--rate_iops=200,100"][..], [400u64, 200]),
        (&["--rate_iops=100,100", "--rwmixread=90"], [200, 200]),
        (&["--rate_iops=100,300", "--rwmixread=90"], [200, 600]),
        (&["--rate=400k,800k"], [200, 400]),
        (&["--rate_iops=100"], [200, 200]),
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        let a = counts(&fathom_json(&env, &adir, &args));
        let theirs = fio().map(|f| counts(&fio_json(&f, &fdir, &args)));
        for d in 0..2 {
            // Within 2% (and an I/O) of the rate's count: timers differ by a tick.
            let near = |n: u64| n.abs_diff(want[d]) <= want[d] / 50 + 1;
            assert!(near(a[d]), "fathom {extra:?}: {a:?}, want {want:?}");
            if let Some(f) = theirs {
                assert!(near(f[d]), "fio {extra:?}: {f:?}, want {want:?}");
            }
        }
    }
    // One direction limited: the other goes as fast as it can meanwhile.
    let args: Vec<&str> = job.iter().copied().chain(["--rate_iops=200,"]).collect();
    let a = counts(&fathom_json(&env, &adir, &args));
    assert!(a[0].abs_diff(400) <= 9 && a[1] > 10_000, "{a:?}");
}

/// zonemode is none unless set (fio's default), and fio refuses zonesize with it: a job
/// with zonesize alone is an error in both, not a strided run in one of them.
#[test]
fn zonesize_without_zonemode_is_refused_as_in_fio() {
    let (env, fdir, adir) = side_by_side();
    let args = [
        "--name=z",
        "--rw=read",
        "--size=64k",
        "--zonesize=8k",
        "--zoneskip=8k",
    ];
    fathom_refuses(&env, &adir, &args, "zonemode=strided");
    if let Some(fio) = fio() {
        assert!(!fio_run(&fio, &fdir, &args).status.success(), "fio ran it");
    }
}

#[test]
fn random_io_in_strided_zones_stays_in_its_zones_as_fio() {
    // Random offsets differ between the tools; the blocks each zone gets do not: every
    // block of the two 8k zones in each 16k, twice over 128k of reads.
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let args = [
        "--name=z",
        "--filename=data",
        "--bs=4k",
        "--size=64k",
        "--io_size=128k",
        "--rw=randread",
        "--zonemode=strided",
        "--zonesize=8k",
        "--zoneskip=8k",
        "--write_lat_log=seq",
        "--log_offset=1",
        "--ioengine=psync",
    ];
    fio_quiet(&fio, &fdir, &args);
    let o = env.cmd().current_dir(&adir).args(args).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let blocks = |dir: &std::path::Path| {
        let mut v: Vec<u64> = offsets(dir, "seq").iter().map(|x| x.1).collect();
        v.sort_unstable();
        v
    };
    let (f, a) = (blocks(&fdir), blocks(&adir));
    assert_eq!(f.len(), 32);
    assert_eq!(f, a, "the offsets each tool read, sorted");
}

#[test]
fn an_iolog_fathom_writes_replays_in_fio_io_for_io() {
    // write_iolog is fio's version 3 format: fio --read_iolog replays it, every I/O (and
    // every fsync) in the order fathom issued them.
    let Some(fio) = fio() else { return };
    let (env, _, dir) = side_by_side();
    let o = env
        .cmd()
        .current_dir(&dir)
        .args([
            "--output-format=json",
            "--name=w",
            "--rw=randrw",
            "--bs=4k",
            "--size=1m",
            "--ioengine=psync",
            "--fsync=16",
            "--write_iolog=w.iolog",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let ours = counts(&json(&o));
    let syncs = json(&o)["jobs"][0]["sync"]["total_ios"].clone();
    assert!(syncs.as_u64().unwrap() > 0);
    let log = std::fs::read_to_string(dir.join("w.iolog")).unwrap();
    assert!(log.starts_with("fio version 3 iolog\n"), "{log}");
    let issued: Vec<(u64, u64)> = log
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            match w.get(2) {
                Some(&"read") => Some((0, w[3].parse().unwrap())),
                Some(&"write") => Some((1, w[3].parse().unwrap())),
                _ => None,
            }
        })
        .collect();
    assert_eq!(issued.len() as u64, ours[0] + ours[1]);
    let v = fio_json(
        &fio,
        &dir,
        &[
            "--name=r",
            "--read_iolog=w.iolog",
            "--ioengine=psync",
            "--write_lat_log=seq",
            "--log_offset=1",
        ],
    );
    assert_eq!(counts(&v), ours, "fio's replay: reads, writes, bytes");
    assert_eq!(
        v["jobs"][0]["sync"]["total_ios"], syncs,
        "the fsyncs replayed too"
    );
    assert_eq!(offsets(&dir, "seq"), issued, "I/O by I/O");
}

#[test]
fn mixed_block_sizes_fill_a_sequential_region_as_fio() {
    // fio draws a mixed block size again until it fits what is left of the region, so a
    // sequential job moves its whole size (fio's t/jobs/t0002 pattern); fathom stopped at
    // the first size that did not fit and left up to a block unwritten.
    let Some(fio) = fio() else { return };
    for mix in [
        "--bssplit=512/50:1M/50",
        "--bsrange=4k-1m",
        "--bssplit=1M/50:4k/50",
    ] {
        let args = ["--name=m", "--rw=write", "--size=8m", mix];
        let (f, a) = both_counts(&fio, &args);
        assert_eq!(f[3], 8 << 20, "fio {mix}: {f:?}");
        assert_eq!(
            a[3], f[3],
            "bytes written with {mix}: fio {f:?}, fathom {a:?}"
        );
    }
}

#[test]
fn random_writes_with_mixed_sizes_take_as_many_ios_as_fio() {
    // fio draws a random offset first and then a size that fits the region's rest (the
    // blocks near the end take the small sizes), and a size covers only the free blocks
    // from its offset. fathom cut a large size short at the region's end, so its random
    // jobs with a mix made about half fio's I/Os (0.45 to 0.7 of fio's over these sizes).
    // Each tool's count swings with its random numbers; summed over 21 file sizes the
    // two stay within 25% of each other.
    let Some(fio) = fio() else { return };
    for mix in ["--bssplit=4k/50:1M/50", "--bssplit=1M/40:4k/60"] {
        let (env, fdir, adir) = side_by_side();
        let (mut f, mut a) = (0, 0);
        for mib in (5..=65).step_by(3) {
            let size = format!("--size={mib}m");
            let args = ["--name=r", "--ioengine=null", "--rw=randwrite", &size, mix];
            f += counts(&fio_json(&fio, &fdir, &args))[1];
            a += counts(&fathom_json(&env, &adir, &args))[1];
        }
        let ratio = a as f64 / f as f64;
        assert!(
            (0.75..=1.33).contains(&ratio),
            "{mix}: fathom {a} I/Os, fio {f} (ratio {ratio:.2})"
        );
    }
}

/// The verify phase as fio runs it: after each loop (loops=8 reads back 8 passes), in
/// rounds of a pass written and read back while io_size (which counts the reads) is not
/// reached, and not at all for a job its runtime ended (a time-based job verifies only
/// with verify_backlog). fathom read back once at the end, every block of the last pass
/// or of io_size, and after a time-based job too.
#[test]
fn the_verify_phase_runs_when_fio_s_does() {
    let Some(fio) = fio() else { return };
    for case in [
        "--rw=randwrite --size=1m --loops=8",
        "--rw=write --size=1m --loops=3 --bs=64k",
        "--rw=randwrite --size=1m --io_size=4m",
        "--rw=write --size=1m --io_size=3m",
        "--rw=randwrite --size=1m --io_size=10m --loops=2",
        "--rw=write --size=1m --io_size=4m --verify_backlog=16",
        "--rw=randwrite --size=1m --loops=3 --unlink_each_loop=1",
        "--rw=randwrite --size=1m --loops=2 --unlink_each_loop=1 --do_verify=0",
    ] {
        let mut args = vec!["--name=v", "--ioengine=psync", "--verify=md5"];
        args.extend(case.split(' '));
        compare(&args, false);
    }
    // Time-based: no verify pass in either (a backlog's checks still run).
    let args = [
        "--name=v",
        "--ioengine=psync",
        "--verify=crc32c",
        "--rw=randwrite",
        "--size=1m",
        "--time_based",
        "--runtime=1",
    ];
    let (f, a) = both_counts(&fio, &args);
    assert_eq!(f[0], 0, "fio read back a time-based job: {f:?}");
    assert_eq!(a[0], 0, "fathom read back a time-based job: {a:?}");
    assert!(a[1] > 256, "wrote for a second: {a:?}");
}

/// Jobs that trim and write, as fio runs them: their size counts the writes (1 MiB trimmed
/// and 1 MiB written; fathom counted both and did half); randtrimwrite writes the whole
/// range it trimmed; trimwrite with other write sizes follows fio's rule (a trim when the
/// last write started where the last trim did); io_size counts the trims too, in passes.
#[test]
fn trimming_and_writing_jobs_move_what_fio_s_do() {
    for case in [
        "--rw=randtrimwrite",
        "--rw=trimwrite --nrfiles=2",
        "--rw=trimwrite --bs=4k,4k,8k",
        "--rw=trimwrite --bs=4k,8k,4k",
        "--rw=randtrimwrite --bs=4k,4k,8k --norandommap",
        "--rw=trimwrite --io_size=3m",
        "--rw=randtrimwrite --io_size=3m",
    ] {
        let Some(fio) = fio() else { return };
        let mut args = vec!["--name=t", "--ioengine=null", "--size=1m"];
        args.extend(case.split(' '));
        let (env, fdir, adir) = side_by_side();
        let moved = |v: &Value| {
            let j = &v["jobs"][0];
            ["read", "write", "trim"].map(|d| {
                (
                    j[d]["total_ios"].as_u64().unwrap(),
                    j[d]["io_bytes"].as_u64().unwrap(),
                )
            })
        };
        let f = moved(&fio_json(&fio, &fdir, &args));
        let a = moved(&fathom_json(&env, &adir, &args));
        assert_eq!(a, f, "{case}: (ios, bytes) read, write, trim");
    }
}

/// io_size larger than the region with loops, as fio: `loops` passes, then more while
/// what was moved is short of io_size, every pass whole (fio's limit within a pass is
/// io_size × loops); fathom did io_size in every loop (2 loops of 3 MiB: 6 MiB for fio's 3).
#[test]
fn io_size_with_loops_makes_whole_passes_as_fio() {
    for case in [
        "--rw=randread --io_size=3m --loops=5",
        "--rw=randread --io_size=5m --loops=2",
        "--rw=read --io_size=2500k --loops=2",
        "--rw=randrw --io_size=2500k --loops=2",
        "--rw=read --io_size=2500k",
        "--rw=read --io_size=512k --loops=3",
    ] {
        let mut args = vec!["--name=l", "--ioengine=null", "--size=1m"];
        args.extend(case.split(' '));
        compare(&args, case.contains("randrw"));
    }
}

/// A job that ends within its ramp_time reports what it did, as fio does (fathom reported
/// nothing); `io_size=0` means size, as in fio (fathom did nothing).
#[test]
fn a_job_ended_in_its_ramp_and_io_size_zero_count_as_fio() {
    for case in ["--ramp_time=5", "--io_size=0"] {
        compare(
            &[
                "--name=r",
                "--ioengine=null",
                "--rw=read",
                "--size=1m",
                case,
            ],
            false,
        );
    }
}

/// kb_base as fio parses it: on the command line only the options after it take it
/// (`--size=1M --kb_base=1000` is 1 MiB); in a job file it holds for the whole section
/// and the sections after it (a global one's for its jobs, not a job's for the global
/// sizes), and a command-line kb_base reaches the file's sizes, while a file's kb_base
/// does not reach a command-line `--size`. Known truths (bs 1000: 1 MiB rounds down to 1048000),
/// then fio side by side.
#[test]
fn kb_base_applies_where_fio_applies_it() {
    let env = Env::new();
    let file = |name: &str, kb: bool, size: bool| {
        let text = format!(
            "[x]\nioengine=null\nrw=read\nbs=1000\n{}{}",
            if kb { "kb_base=1000\n" } else { "" },
            if size { "size=1M\n" } else { "" }
        );
        env.write(name, &text).display().to_string()
    };
    let plain = file("plain.fio", false, true);
    let kb_only = file("kb.fio", true, false);
    // size=1M written before kb_base=1000 in the file: the file's kb_base holds.
    let before = env.write(
        "before.fio",
        "[x]\nioengine=null\nrw=read\nbs=1000\nsize=1M\nkb_base=1000\n",
    );
    let before = before.display().to_string();
    // A global section's kb_base holds for its jobs; a job's does not reach the global
    // section's size.
    let job = "ioengine=null\nrw=read\nbs=1000\n";
    let global_kb = env.write(
        "gkb.fio",
        &format!("[global]\nkb_base=1000\n[x]\nsize=1M\n{job}"),
    );
    let job_kb = env.write(
        "jkb.fio",
        &format!("[global]\nsize=1M\n[x]\nkb_base=1000\n{job}"),
    );
    let (global_kb, job_kb) = (
        global_kb.display().to_string(),
        job_kb.display().to_string(),
    );
    let cli = ["--name=x", "--ioengine=null", "--rw=read", "--bs=1000"];
    let cases: Vec<(Vec<&str>, u64)> = vec![
        (
            [&cli[..], &["--size=1M", "--kb_base=1000"]].concat(),
            1_048_000,
        ),
        (
            [&cli[..], &["--kb_base=1000", "--size=1M"]].concat(),
            1_000_000,
        ),
        (vec![before.as_str()], 1_000_000),
        (vec![plain.as_str(), "--kb_base=1000"], 1_000_000),
        (vec!["--kb_base=1000", plain.as_str()], 1_000_000),
        (vec![kb_only.as_str(), "--size=1M"], 1_048_000),
        (vec![global_kb.as_str()], 1_000_000),
        (vec![job_kb.as_str()], 1_048_000),
    ];
    let fio = fio();
    for (args, want) in &cases {
        let ours = counts(&fathom_json(&env, env.path(), args))[2];
        assert_eq!(ours, *want, "fathom {args:?}");
        if let Some(fio) = &fio {
            let theirs = counts(&fio_json(fio, env.path(), args))[2];
            assert_eq!(theirs, *want, "fio {args:?}");
        }
    }
}

/// fio sizes a file before the job only when the job reads, asks for `overwrite=1` or
/// uses an engine that cannot extend files (mmap); a write-only job's file has the size
/// its preallocation gives it and grows by the writes (`fallocate=none` or `keep`: only
/// what was written). fathom sized it to the job's size in every mode. And with
/// `create_on_open=1` nothing is laid out, reads included: a read past the file's end
/// moves nothing, which is fio's EIO ("full resid"), where fathom extended the file (wrote
/// 1016 KiB into it) and read it all. Checked against known sizes and fio side by side.
#[test]
fn files_are_sized_and_read_to_their_end_as_fio_does() {
    let (env, fdir, adir) = side_by_side();
    let len = |d: &std::path::Path| std::fs::metadata(d.join("f")).unwrap().len();
    let write10 = "--rw=write --number_ios=10 --fallocate=";
    let cases: Vec<(Option<usize>, String, u64)> = vec![
        // Write-only: the size preallocation gives (none with none and keep).
        (None, format!("{write10}none"), 40960),
        (None, format!("{write10}keep"), 40960),
        (None, format!("{write10}posix"), 1 << 20),
        (None, format!("{write10}native"), 1 << 20),
        (None, format!("{write10}truncate"), 1 << 20),
        // A file too small for a write-only job is made anew (fio unlinks it): 5 writes
        // leave 20 KiB, not the old 256 KiB.
        (
            Some(262144),
            "--rw=write --number_ios=5 --fallocate=none".into(),
            20480,
        ),
        // fill_device with size=: the region is the size (a random write stays in 1 MiB;
        // it was the file system's free space, a sparse file of tens of GiB), the file is
        // written as it is (an existing 4 MiB file stays 4 MiB).
        (None, "--fill_device=1 --rw=randwrite".into(), 1 << 20),
        (Some(4 << 20), "--fill_device=1 --rw=write".into(), 4 << 20),
        // offset=50% of a file that does not exist yet is 0, as fio takes it (fathom wrote
        // at 512 KiB, a 1.5 MiB file).
        (None, "--offset=50% --rw=write".into(), 1 << 20),
        (Some(4 << 20), "--offset=50% --rw=write".into(), 4 << 20),
    ];
    for (pre, extra, want) in cases {
        let mut args = vec!["--name=x", "--bs=4k", "--size=1m", "--filename=f"];
        args.extend(extra.split(' '));
        for d in [&fdir, &adir] {
            let _ = std::fs::remove_file(d.join("f"));
            if let Some(n) = pre {
                std::fs::write(d.join("f"), vec![7u8; n]).unwrap();
            }
        }
        let a = counts(&fathom_json(&env, &adir, &args));
        assert_eq!(len(&adir), want, "fathom {extra} on {pre:?}");
        if let Some(fio) = fio() {
            assert_eq!(
                counts(&fio_json(&fio, &fdir, &args)),
                a,
                "{extra} on {pre:?}"
            );
            assert_eq!(len(&fdir), want, "fio {extra} on {pre:?}");
        }
    }
    // create_on_open=1 with a read longer than the file: 8 KiB read, then EIO.
    let args = [
        "--name=x",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--create_on_open=1",
        "--filename=f",
        "--output-format=json",
    ];
    for d in [&fdir, &adir] {
        std::fs::write(d.join("f"), vec![7u8; 8192]).unwrap();
    }
    let o = env.cmd().current_dir(&adir).args(args).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["jobs"][0]["error"], 5, "{v}");
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 8192);
    assert!(
        stderr(&o).contains("past the end of the file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(len(&adir), 8192, "the file is left as it was");
    if let Some(fio) = fio() {
        let o = fio_run(&fio, &fdir, &args);
        let s = String::from_utf8_lossy(&o.stdout);
        let v: Value = serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
        assert_eq!(v["jobs"][0]["error"], 5);
        assert_eq!(v["jobs"][0]["read"]["io_bytes"], 8192);
        assert_eq!(len(&fdir), 8192);
    }
}

/// What a job's errors did, as fio's JSON tells it: exit success, error, total_err and
/// first_error (null without continue_on_error), total_ios, completions (clat N), bytes.
fn error_outcome(o: &std::process::Output, d: &str) -> (bool, Value, Value, Value, Value, Value) {
    let s = String::from_utf8_lossy(&o.stdout);
    let v: Value = serde_json::from_str(&s[s.find('{').expect("JSON")..]).unwrap();
    let j = &v["jobs"][0];
    let nonzero = |x: &Value| x.as_u64().is_some_and(|n| n > 0).then(|| x.clone());
    (
        o.status.success(),
        j["error"].clone(),
        // fio 3.33 prints total_err only where continue_on_error is on.
        j.get("total_err").cloned().unwrap_or(Value::Null),
        j["first_error"].clone(),
        j[d]["total_ios"].clone(),
        // (fio's bytes of a continued job that then ended are odd: compared elsewhere.)
        nonzero(&j[d]["clat_ns"]["N"]).unwrap_or(Value::Null),
    )
}

#[test]
fn errors_go_on_or_end_the_job_as_in_fio() {
    // A 1 MiB tmpfs takes 256 of a 2 MiB job's 4 KiB writes; the rest fail with ENOSPC.
    // fio goes on only after an error of a class continue_on_error names AND on that
    // class's list (EIO, EILSEQ unless ignore_error gives one); every write issued counts
    // in total_ios, the failed ones too; a fatal error of a named class counts in
    // total_err on the sync engines; with errors tolerated, the job's error is the first.
    let Some(fio) = fio() else { return };
    let Some(fs) = SmallFs::new("1m") else { return };
    let env = Env::new();
    let f = fs.dir.path().join("g");
    let file = format!("--filename={}", f.display());
    let cases: &[&[&str]] = &[
        &[],
        &["--continue_on_error=all"],
        &["--continue_on_error=write", "--ignore_error=EIO,ENOSPC"],
        &["--ignore_error=ENOSPC"],
        &["--ignore_error=,ENOSPC", "--continue_on_error=read"],
        &["--continue_on_error=read", "--ignore_error=,ENOSPC"],
        &["--continue_on_error=verify", "--ignore_error=EIO,ENOSPC"],
        &["--continue_on_error=all", "--fill_device=1"],
        &[
            "--continue_on_error=io",
            "--ioengine=libaio",
            "--iodepth=4",
            "--ignore_error=,28",
        ],
        &[
            "--continue_on_error=all",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
    ];
    for extra in cases {
        let args = [
            &[
                "--name=x",
                "--rw=write",
                "--bs=4k",
                "--size=2m",
                "--fallocate=none",
                "--output-format=json",
                file.as_str(),
            ][..],
            extra,
        ]
        .concat();
        let _ = std::fs::remove_file(&f);
        let a = error_outcome(&env.cmd().args(&args).output().unwrap(), "write");
        let _ = std::fs::remove_file(&f);
        let o = fio_run(&fio, env.path(), &args);
        assert_eq!(a, error_outcome(&o, "write"), "{extra:?}");
    }
    // Reads past the end of a file (create_on_open leaves it short): a sync engine's read
    // that moves nothing is fio's "full resid" EIO, fatal whatever continue_on_error says;
    // an async engine's counts as a read of 0 bytes.
    let g = env.path().join("short");
    for extra in [
        &[][..],
        &["--continue_on_error=all"],
        &["--ioengine=libaio", "--iodepth=4"],
        &["--ioengine=io_uring", "--iodepth=2"],
    ] {
        let args = [
            &[
                "--name=x",
                "--rw=read",
                "--bs=4k",
                "--size=1m",
                "--create_on_open=1",
                "--output-format=json",
                "--filename=short",
            ][..],
            extra,
        ]
        .concat();
        std::fs::write(&g, vec![7u8; 20480]).unwrap();
        let a = error_outcome(
            &env.cmd()
                .current_dir(env.path())
                .args(&args)
                .output()
                .unwrap(),
            "read",
        );
        std::fs::write(&g, vec![7u8; 20480]).unwrap();
        let o = fio_run(&fio, env.path(), &args);
        let f = error_outcome(&o, "read");
        // fio 3.33 exits 0 (and reports 0 bytes) after the full-resid EIO under
        // continue_on_error, though the job ended on it: fathom exits 1, as for any job an
        // error ended.
        assert_eq!(a.0, a.1 == 0, "{extra:?}");
        assert_eq!(
            (&a.1, &a.2, &a.3, &a.4, &a.5),
            (&f.1, &f.2, &f.3, &f.4, &f.5),
            "{extra:?}"
        );
    }
}

#[test]
fn a_verify_failure_ends_the_job_as_in_fio() {
    // Each tool writes its own verified file; two blocks are damaged behind its back;
    // a read with verify then ends at the first damaged block (fio: 5 reads), or, with
    // continue_on_error=verify, reads on and counts both (with verify_fatal=1 as well,
    // ends at the first and counts it, exiting 0).
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let write = [
        "--name=w",
        "--filename=v.dat",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        "--verify=crc32c",
        "--do_verify=0",
        "--output-format=json",
    ];
    let damage = |d: &std::path::Path| {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("v.dat"))
            .unwrap();
        f.write_all_at(b"XXXXXXXX", 20000).unwrap();
        f.write_all_at(b"XXXXXXXX", 120000).unwrap();
    };
    for extra in [
        &[][..],
        &["--continue_on_error=verify"],
        &["--ioengine=libaio", "--iodepth=8"],
        // verify_fatal stops even a tolerating job, the failure still tolerated: exit 0.
        &["--continue_on_error=verify", "--verify_fatal=1"],
    ] {
        let read = [
            &[
                "--name=w",
                "--filename=v.dat",
                "--rw=read",
                "--bs=4k",
                "--size=256k",
                "--verify=crc32c",
                "--output-format=json",
            ][..],
            extra,
        ]
        .concat();
        fio_ok(&fio, &fdir, &write);
        damage(&fdir);
        let f = error_outcome(&fio_run(&fio, &fdir, &read), "read");
        let o = env.cmd().current_dir(&adir).args(write).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        damage(&adir);
        let a = error_outcome(
            &env.cmd().current_dir(&adir).args(&read).output().unwrap(),
            "read",
        );
        assert_eq!(a, f, "{extra:?}");
    }
}

#[test]
fn verify_only_and_verify_errors_count_reads_as_in_fio() {
    // A file written in 16 KiB blocks with a header every 4 KiB. verify_only reads it
    // back in the job's own blocks (fio's dry run of the job: 16 reads of 16 KiB, or 32
    // of 8 KiB; fathom read every 4 KiB chunk apart, 64 reads). Under
    // continue_on_error=verify a read with two damaged chunks is one error, as in fio.
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let common = [
        "--name=v",
        "--filename=v.dat",
        "--size=256k",
        "--verify_interval=4k",
        "--verify=crc32c",
        "--output-format=json",
    ];
    let write = [&common[..], &["--rw=write", "--bs=16k", "--do_verify=0"]].concat();
    fio_ok(&fio, &fdir, &write);
    let o = env.cmd().current_dir(&adir).args(&write).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let reads = |o: &std::process::Output| {
        let s = String::from_utf8_lossy(&o.stdout);
        let v: Value = serde_json::from_str(&s[s.find('{').expect("JSON")..]).unwrap();
        let j = &v["jobs"][0];
        (
            o.status.success(),
            j["error"].clone(),
            j["read"]["total_ios"].clone(),
            j["read"]["io_bytes"].clone(),
        )
    };
    for extra in [
        &["--rw=write", "--bs=16k"][..],
        &["--rw=randwrite", "--bs=16k"],
        &["--rw=read", "--bs=16k"],
        &["--rw=write", "--bs=8k"],
        &["--rw=randwrite", "--bs=32k"],
    ] {
        let args = [&common[..], extra, &["--verify_only"]].concat();
        let f = reads(&fio_run(&fio, &fdir, &args));
        let a = reads(&env.cmd().current_dir(&adir).args(&args).output().unwrap());
        assert_eq!(a, f, "{extra:?}");
        assert!(f.0, "{extra:?}: {f:?}");
    }
    // Headers damaged: two chunks of the second block, the last chunk of the fifth.
    for d in [&fdir, &adir] {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("v.dat"))
            .unwrap();
        for at in [16384, 20480, 65536 + 12288] {
            f.write_all_at(b"XXXXXXXX", at).unwrap();
        }
    }
    let read = [
        &common[..],
        &["--rw=read", "--bs=16k", "--continue_on_error=verify"],
    ]
    .concat();
    let f = error_outcome(&fio_run(&fio, &fdir, &read), "read");
    let a = error_outcome(
        &env.cmd().current_dir(&adir).args(&read).output().unwrap(),
        "read",
    );
    assert_eq!(a, f);
    assert_eq!(f.2, 2, "{f:?}");
}

#[test]
fn clones_sharing_a_file_verify_as_in_fio() {
    // numjobs clones writing one file (and several readers checking it): each verifies
    // what is there, whichever clone wrote it last, as fio does (fathom's header names
    // the clone, and a chunk another clone left was taken for damage). Clones with
    // regions of their own (offset_increment) still verify only their own. (Random
    // writers sharing a file are left out: fio's check compares the I/O's number, so
    // whether it passes depends on which clone wrote a block last.)
    let common = ["--filename=f", "--size=256k", "--bs=4k", "--verify=crc32c"];
    for extra in [
        &["--name=w", "--rw=write", "--numjobs=2"][..],
        &[
            "--name=w",
            "--rw=write",
            "--numjobs=2",
            "--offset_increment=256k",
        ],
        &["--name=w", "--rw=write", "--name=v", "--rw=write"],
    ] {
        compare(&[&common[..], extra].concat(), false);
    }
    // Readers: a file one job wrote, checked by two clones.
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let write = [&common[..], &["--name=w", "--rw=write", "--do_verify=0"]].concat();
    let read = [&common[..], &["--name=r", "--rw=read", "--numjobs=2"]].concat();
    fio_ok(&fio, &fdir, &write);
    let f = counts(&fio_json(&fio, &fdir, &read));
    fathom_json(&env, &adir, &write);
    let a = counts(&fathom_json(&env, &adir, &read));
    assert_eq!(a, f);
}

#[test]
fn io_size_is_one_budget_over_the_loops_and_takes_a_percentage_as_in_fio() {
    // fio's io_size with loops is one budget, io_size × loops, for the whole job: each
    // loop is a pass that ends at the region's end or where the budget is spent. With
    // io_size below a pass, fathom made every loop its own io_size (6 random blocks
    // written twice where fio writes 12 in its first loop; 7 + 7 sequential writes where
    // fio makes 13 of io_size=26k). io_size=N% takes that share of each file's region.
    let common = ["--name=a", "--filename=f", "--size=256k", "--bs=4k"];
    for extra in [
        &["--rw=write", "--io_size=26k", "--loops=2"][..],
        &["--rw=write", "--io_size=26k", "--loops=3"],
        &["--rw=randwrite", "--io_size=200k", "--loops=2"],
        &["--rw=randread", "--io_size=100k", "--loops=3"],
        &[
            "--rw=write",
            "--io_size=100k",
            "--loops=3",
            "--verify=crc32c",
        ],
        &["--rw=write", "--io_size=10%"],
        &["--rw=randread", "--io_size=25%"],
        &["--rw=write", "--io_size=10%", "--loops=2"],
    ] {
        compare(&[&common[..], extra].concat(), false);
    }
    compare(
        &[
            "--name=a",
            "--nrfiles=3",
            "--size=300k",
            "--bs=4k",
            "--rw=write",
            "--io_size=33%",
        ],
        false,
    );
    // Which blocks: 12 different ones in both (fathom wrote 6, twice).
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let job = [
        &common[..],
        &[
            "--rw=randwrite",
            "--io_size=24k",
            "--loops=2",
            "--write_iolog=log",
        ],
    ]
    .concat();
    fio_ok(&fio, &fdir, &job);
    fathom_json(&env, &adir, &job);
    for d in [&fdir, &adir] {
        let log = std::fs::read_to_string(d.join("log")).unwrap();
        let mut offs: Vec<&str> = log
            .lines()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.get(2) == Some(&"write")).then(|| w[3])
            })
            .collect();
        assert_eq!(offs.len(), 12, "{log}");
        offs.sort_unstable();
        offs.dedup();
        assert_eq!(offs.len(), 12, "{}: {log}", d.display());
    }
}

// A percentage offset in the loops after the first: fio takes it again of the file's size
// after its layout (the first loop's was of a file not there yet: 0) and ends the loop at
// the first I/O past the file's end; sequential I/O by I/O, random by count.
#[test]
fn percentage_offsets_are_taken_again_in_later_loops_as_fio() {
    for rw in ["write", "read"] {
        let args = [
            "--name=l",
            &format!("--rw={rw}"),
            "--bs=4k",
            "--size=1m",
            "--offset=25%",
            "--loops=3",
        ];
        compare_offsets(&args);
        compare(&args, false);
    }
    compare(
        &[
            "--name=l",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--offset=25%",
            "--loops=2",
        ],
        false,
    );
    compare(
        &[
            "--name=l",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--offset=25%",
            "--loops=2",
            "--numjobs=2",
            "--offset_increment=10%",
        ],
        false,
    );
    // With io_size the loops, and the passes after them while the job is short of it, each
    // start at the percentage taken again (`size=1m io_size=2m loops=2`: 1 MiB, then 768
    // KiB twice; in one loop fio's budget is io_size and cuts the third pass).
    for (loops, io_size) in [("1", "2m"), ("2", "2m"), ("2", "1m"), ("3", "3m")] {
        for rw in ["read", "write"] {
            let args = [
                "--name=l",
                &format!("--rw={rw}"),
                "--bs=4k",
                "--size=1m",
                "--offset=25%",
                &format!("--loops={loops}"),
                &format!("--io_size={io_size}"),
            ];
            compare_offsets(&args);
            compare(&args, false);
        }
    }
    compare_on(
        &[
            "--name=l",
            "--filename=data",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--offset=25%",
            "--loops=2",
            "--io_size=2m",
        ],
        false,
        Some(1 << 20),
    );
    // On an existing file of 1.25 MiB: the first loop extends it, the second starts at a
    // quarter of its new size.
    compare_on(
        &[
            "--name=l",
            "--filename=data",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--offset=25%",
            "--loops=2",
        ],
        false,
        Some(1280 << 10),
    );
}

// number_ios with loops is one count for the whole job in fio (number_ios × loops), the
// verify reads in it: each loop runs until its pass is over or the count is reached, so
// `size=1m number_ios=100 loops=3 verify=crc32c` writes 256 blocks (fathom wrote 300), and
// with a percentage offset on a new file the second loop's writes stay in the first
// pass (fathom cut them at the file's end: 54 writes where fio makes 100).
#[test]
fn number_ios_counts_over_the_loops_with_the_verify_reads_as_fio() {
    for extra in [
        &[
            "--rw=write",
            "--loops=3",
            "--number_ios=100",
            "--verify=crc32c",
        ][..],
        &[
            "--rw=randwrite",
            "--loops=2",
            "--number_ios=200",
            "--verify=crc32c",
        ],
        &[
            "--rw=randwrite",
            "--loops=2",
            "--number_ios=300",
            "--verify=crc32c",
            "--verify_backlog=16",
        ],
        &[
            "--rw=write",
            "--loops=2",
            "--number_ios=300",
            "--verify=crc32c",
            "--verify_backlog=16",
            "--verify_backlog_batch=8",
        ],
        &[
            "--rw=randwrite",
            "--loops=2",
            "--number_ios=50",
            "--offset=10%",
        ],
        &["--rw=read", "--loops=3", "--number_ios=200", "--offset=25%"],
    ] {
        let args: Vec<&str> = ["--name=n", "--filename=data", "--bs=4k", "--size=1m"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        compare(&args, false);
    }
    // A sequential mix over two files: a direction at a file's end makes the file done
    // and the loop ends when both are; each loop is seeded again. The same reads and
    // writes as fio (268 and 250; fathom made 255 and 258 when its loops went on).
    compare(
        &[
            "--name=n",
            "--rw=rw",
            "--bs=4k,8k",
            "--size=1m",
            "--loops=3",
            "--number_ios=300",
            "--nrfiles=2",
        ],
        false,
    );
}

// fio reads an integer option through its size parser: `iodepth=1k` is a depth of 1024
// (fathom refused it); a suffix fio would drop (`numjobs=2x`) is refused, naming it.
#[test]
fn integer_options_take_size_suffixes_as_fio() {
    compare(
        &[
            "--name=i",
            "--ioengine=null",
            "--rw=randread",
            "--size=1m",
            "--iodepth=1k",
            "--iodepth_batch_submit=1k",
        ],
        false,
    );
    let (env, _, adir) = side_by_side();
    fathom_refuses(
        &env,
        &adir,
        &["--name=i", "--ioengine=null", "--size=1m", "--numjobs=2x"],
        "fio would read 2 and ignore 'x'",
    );
}

// With a percentage offset, an I/O that would cross its file's end makes that file done
// and the job's other files go on, as in fio (three files of 1100k/3, not a whole number
// of blocks, taken one after another: fathom ended the loop at the first file's end and
// wrote a third of what fio writes).
#[test]
fn a_file_an_io_would_cross_the_end_of_is_done_and_the_others_go_on_as_fio() {
    for rw in ["write", "read"] {
        compare(
            &[
                "--name=c",
                &format!("--rw={rw}"),
                "--bs=4k",
                "--size=1100k",
                "--offset=25%",
                "--loops=3",
                "--nrfiles=3",
                "--file_service_type=sequential",
            ],
            false,
        );
    }
}

// A random job's passes after the first, with a percentage offset and io_size, on a file
// it lays out: the first pass covers the file (its offset was of 0 bytes), each later one
// starts a quarter in and ends at its first draw past the file's end, and with randrepeat
// they repeat the same draws (fio 3.33: 256 writes, then a few, then the same few).
#[test]
fn random_passes_with_a_percentage_offset_and_io_size_are_cut_as_fio() {
    let Some(fio) = fio() else { return };
    let args = [
        "--name=p",
        "--filename=data",
        "--rw=randwrite",
        "--bs=4k",
        "--size=1m",
        "--offset=25%",
        "--io_size=600k",
        "--loops=3",
        "--write_lat_log=p",
        "--log_offset=1",
        "--ioengine=psync",
    ];
    let (env, fdir, adir) = side_by_side();
    fio_quiet(&fio, &fdir, &args);
    fathom_quiet(&env, &adir, &args);
    for (tool, dir) in [("fio", &fdir), ("fathom", &adir)] {
        let offs: Vec<u64> = offsets(dir, "p").iter().map(|x| x.1).collect();
        // Every block once in the first pass (its budget is io_size times loops).
        let mut first = offs[..256.min(offs.len())].to_vec();
        first.sort_unstable();
        first.dedup();
        assert_eq!(first.len(), 256, "{tool}: {} I/Os", offs.len());
        let rest = &offs[256..];
        assert!(
            rest.len() % 2 == 0 && rest.len() < 2 * 192,
            "{tool}: {offs:?}"
        );
        let (a, b) = rest.split_at(rest.len() / 2);
        assert_eq!(a, b, "{tool}: the later passes repeat their draws");
        assert!(
            rest.iter().all(|&o| (256 << 10..1 << 20).contains(&o)),
            "{tool}"
        );
    }
    // Block sizes are fitted to the offset taken of the file as laid out (a quarter
    // past the region), so the first I/O that would cross the file's end ends the job
    // short of the file: sequentially and at random.
    for rw in ["write", "randwrite"] {
        let args = [
            "--name=p",
            "--filename=data",
            &format!("--rw={rw}"),
            "--bsrange=4k-64k",
            "--size=1m",
            "--offset=25%",
        ];
        let (f, a) = both_counts(&fio, &args);
        assert!(
            f[3] < 1 << 20 && a[3] < 1 << 20,
            "{rw}: fio {f:?}, fathom {a:?}"
        );
    }
    // Clones sharing a file each take the percentage of the file as the clones set up
    // before them left it (the second clone's region starts a quarter into 4 MiB), and
    // again in later loops of the file as each laid it out.
    for (rw, offset) in [("write", "10%"), ("read", "25%")] {
        compare(
            &[
                "--name=s",
                "--filename=shared",
                &format!("--rw={rw}"),
                "--bs=4k",
                "--size=4m",
                &format!("--offset={offset}"),
                "--numjobs=2",
                "--loops=2",
            ],
            false,
        );
    }
}

// fio sets its jobs up in order: a later job sees the files the earlier ones laid out, so
// one without size= reads what an earlier job wrote (stonewalled or not), a percentage
// size or offset is of that file, and unlink=1 takes the file away again.
#[test]
fn a_later_job_sees_the_files_earlier_jobs_made_as_in_fio() {
    let w = [
        "--name=w",
        "--filename=f",
        "--rw=write",
        "--bs=4k",
        "--size=1280k",
    ];
    for tail in [
        &["--name=r", "--filename=f", "--rw=read", "--bs=4k"][..],
        &[
            "--name=r",
            "--stonewall",
            "--filename=f",
            "--rw=read",
            "--bs=4k",
        ],
        &[
            "--name=r",
            "--stonewall",
            "--filename=f",
            "--rw=randread",
            "--bs=4k",
            "--size=50%",
        ],
        &[
            "--name=r",
            "--stonewall",
            "--filename=f",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--offset=25%",
            "--loops=2",
        ],
    ] {
        compare(&[&w[..], tail].concat(), false);
    }
    // The same files named two ways (a directory of `.`, a file name format).
    compare(
        &[
            "--name=a",
            "--directory=.",
            "--rw=write",
            "--bs=4k",
            "--size=512k",
            "--nrfiles=2",
            "--name=b",
            "--stonewall",
            "--rw=read",
            "--bs=4k",
            "--filename_format=a.0.$filenum",
            "--nrfiles=2",
        ],
        false,
    );
    // unlink=1: the file is gone when the next job is set up, in both tools.
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    let args = [
        &w[..],
        &[
            "--unlink=1",
            "--name=r",
            "--stonewall",
            "--filename=f",
            "--rw=read",
            "--bs=4k",
        ],
    ]
    .concat();
    assert!(!fio_run(&fio, &fdir, &args).status.success());
    let o = env.cmd().current_dir(&adir).args(&args).output().unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no size given and f does not exist"),
        "{}",
        stderr(&o)
    );
}

// A file smaller than the largest size of a block-size mix: fio draws the sizes that fit
// (fathom refused the job); the same bytes in both, the sizes drawn by each tool's own
// generator.
#[test]
fn files_smaller_than_the_largest_block_size_of_a_mix_run_as_in_fio() {
    let Some(fio) = fio() else { return };
    for args in [
        &[
            "--name=s",
            "--rw=randwrite",
            "--bsrange=4k-512k",
            "--filesize=300k",
            "--nrfiles=4",
        ][..],
        &[
            "--name=s",
            "--rw=write",
            "--bsrange=4k-512k",
            "--filesize=300k",
            "--nrfiles=4",
        ],
        &[
            "--name=s",
            "--rw=randread",
            "--bssplit=4k/50:1m/50",
            "--size=512k",
        ],
    ] {
        let (f, a) = both_counts(&fio, args);
        assert_eq!(
            (f[2], f[3]),
            (a[2], a[3]),
            "bytes for {args:?}: fio {f:?} fathom {a:?}"
        );
        assert!(a[0] + a[1] > 0, "{args:?}");
    }
}

// A time-based writing job that verifies: on an asynchronous engine fio reads each pass's
// writes back before the next pass (it breaks out to verify once it has issued `size`
// bytes, which it counts for queued I/O only), so its reads trail its writes by at most a
// pass; on a synchronous engine it never verifies. fathom does the same (the rates
// differ, so the shape is compared, not the counts).
#[test]
fn a_time_based_job_verifies_each_pass_on_async_engines_as_fio() {
    let Some(fio) = fio() else { return };
    for (engine, verifies) in [("libaio", true), ("io_uring", true), ("psync", false)] {
        let args = [
            "--name=t",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--time_based",
            "--runtime=1",
            &format!("--ioengine={engine}"),
            "--iodepth=4",
        ];
        let (f, a) = both_counts(&fio, &args);
        for (who, c) in [("fio", f), ("fathom", a)] {
            if verifies {
                assert!(c[0] > 0, "{who} {engine}: reads {c:?}");
                assert!(c[1] >= c[0] && c[1] - c[0] <= 64, "{who} {engine}: {c:?}");
            } else {
                assert_eq!(c[0], 0, "{who} {engine}: {c:?}");
            }
        }
    }
}

// Several values given to an option that takes one: fio checks each and keeps the first
// (the last for size, offset, io_size, rwmixread, …); the same I/O in both.
#[test]
fn several_values_of_a_one_value_option_do_what_fio_does() {
    compare(
        &[
            "--name=m",
            "--rw=write",
            "--bs=4k",
            "--size=256k,512k",
            "--offset=64k:128k",
            "--io_size=384k,128k",
            "--loops=2:3",
            "--iodepth=4,8",
        ],
        false,
    );
    compare(
        &[
            "--name=m",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--number_ios=10,20",
        ],
        false,
    );
    // A per-direction list splits at ':' or '-' where it has no comma: `bs=2k-8k` is
    // 2k reads and 8k writes in fio (not a range: that is bsrange=).
    for (rw, bs) in [("write", "2k-8k"), ("read", "4k:8k"), ("write", "4k:16k")] {
        compare(
            &[
                "--name=m",
                &format!("--rw={rw}"),
                &format!("--bs={bs}"),
                "--size=256k",
            ],
            false,
        );
    }
}

// file_append with loops: a later loop's region starts at the file's end again, where the
// first loop left it, so fio's later loops do no I/O (a new file and an existing one;
// norandommap's walk never ends, so its first loop runs to the budget).
#[test]
fn file_append_loops_after_the_first_do_nothing_as_fio() {
    let job = [
        "--name=a",
        "--bs=4k",
        "--size=100k",
        "--file_append=1",
        "--loops=2",
    ];
    for extra in [
        &["--rw=write"][..],
        &["--rw=randwrite"],
        &["--rw=write", "--ioengine=libaio", "--iodepth=4"],
        &["--rw=write", "--nrfiles=2"],
        &["--rw=randwrite", "--norandommap"],
        &["--rw=write", "--verify=crc32c"],
        // Holes that go round the file: the first loop runs to the job's budget.
        &["--rw=write:4k"],
        &["--rw=write:-8k"],
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        compare(&args, false);
        compare_on(
            &[&args[..], &["--filename=data"]].concat(),
            false,
            Some(100 << 10),
        );
    }
}

// A fixed block size is fitted to the file, not to the region: on a larger existing file
// a region that is not a whole number of blocks takes its last block past its end (fio's
// `size=10k bs=4k` reads 12k), its verify reads that block back, and io_size counts such
// passes; fio's keep_running ends a job with less than its largest block left of io_size
// (`size=8k io_size=50k`: six passes, 48k).
#[test]
fn a_fixed_block_size_runs_past_the_region_into_the_file_as_fio() {
    let job = ["--name=x", "--filename=data", "--bs=4k"];
    for extra in [
        &["--rw=read", "--size=10k"][..],
        &["--rw=write", "--size=10k"],
        &["--rw=read", "--size=10k", "--offset=4k"],
        &["--rw=read", "--size=10k", "--loops=2"],
        &["--rw=read", "--bs=4k,8k", "--size=10k"],
        &[
            "--rw=read",
            "--size=10k",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &["--rw=write", "--size=10k", "--verify=md5"],
        &[
            "--rw=write",
            "--size=10k",
            "--io_size=50k",
            "--verify=crc32c",
        ],
        &["--rw=read", "--size=8k", "--io_size=50k"],
        &["--rw=read", "--size=10k", "--io_size=49k"],
        &["--rw=read", "--bs=4k,16k", "--size=8k", "--io_size=60k"],
        &["--rw=write:-8k", "--bs=8k", "--size=10k", "--offset=4k"],
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        compare_on(&args, false, Some(1 << 20));
    }
}

// An asynchronous engine's loops: each loop ends at its files' end or its size, and the
// whole job where all it queued reaches size × loops — fio's issued bytes are never reset
// between loops, so a loop that went past its size (its last block fits the file, not the
// region) ends the last loop short: `size=250k bs=4k loops=2` reads 63 blocks, then 62.
// The engines that complete each I/O as they issue it run on the same budget.
#[test]
fn asynchronous_loops_and_passes_as_fio() {
    let job = ["--name=x", "--filename=data", "--bs=4k", "--size=250k"];
    for extra in [
        &["--rw=read", "--loops=2", "--ioengine=libaio"][..],
        &[
            "--rw=read",
            "--loops=3",
            "--ioengine=io_uring",
            "--iodepth=8",
        ],
        &[
            "--rw=write",
            "--loops=3",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &["--rw=read", "--loops=2", "--ioengine=psync"],
        &[
            "--rw=read",
            "--loops=2",
            "--offset=10%",
            "--ioengine=libaio",
        ],
        &["--rw=read", "--bs=4k,8k", "--loops=2", "--ioengine=libaio"],
        &[
            "--rw=randread",
            "--norandommap",
            "--loops=3",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &[
            "--rw=write",
            "--loops=2",
            "--ioengine=libaio",
            "--verify=md5",
        ],
        &[
            "--rw=write",
            "--loops=2",
            "--ioengine=libaio",
            "--verify=md5",
            "--verify_backlog=8",
        ],
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        compare_on(&args, false, Some(1 << 20));
    }
    // fio's passes with io_size: an asynchronous engine's pass ends once it has queued
    // the job's size, though a walk with holes goes round the file, and its verify phase
    // reads back the places written, once each (64 writes, 13 reads a pass here), so
    // more passes follow while the job is short of io_size.
    for engine in ["--ioengine=libaio", "--ioengine=psync"] {
        for loops in ["--loops=1", "--loops=2"] {
            let args = [
                "--name=x",
                "--filename=data",
                "--bs=4k",
                "--size=256k",
                "--rw=write:16k",
                "--io_size=512k",
                "--verify=crc32c",
                "--iodepth=4",
                engine,
                loops,
            ];
            compare_on(&args, false, Some(1 << 20));
        }
    }
    // Mixes: each tool draws the directions from its own generator; the totals agree.
    for rw in ["--rw=rw", "--rw=randrw"] {
        let args: Vec<&str> = job
            .iter()
            .chain(&[rw, "--loops=2", "--ioengine=libaio"])
            .copied()
            .collect();
        compare_on(&args, true, Some(1 << 20));
    }
}

// number_ios with io_size and loops: one count of number_ios × loops for the whole job
// (fio checks it against its loops option, not the passes io_size makes).
#[test]
fn number_ios_with_io_size_and_loops_counts_as_fio() {
    let job = [
        "--name=x",
        "--bs=4k",
        "--size=256k",
        "--io_size=2m",
        "--loops=2",
    ];
    for extra in [
        &["--rw=write", "--number_ios=100"][..],
        &["--rw=write:4k", "--number_ios=100"],
        &["--rw=randwrite", "--number_ios=100"],
        &["--rw=read", "--number_ios=100", "--ioengine=libaio"],
        &["--rw=write", "--number_ios=100", "--verify=crc32c"],
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        compare(&args, false);
    }
}

// A random pass over the map moves its region's whole blocks (`size=10k offset=5k bs=4k`:
// 8k), so io_size's passes are counted in those (`io_size=50k`: six passes of two, with
// loops too); a number_ios is counted over io_size's passes and loops together, the
// verify reads in it; and fio stops a job with number_ios and loops at whichever of the
// count and the bytes' budget comes first. On an existing 64 KiB file.
#[test]
fn random_passes_io_size_and_number_ios_count_as_fio() {
    let job = ["--name=x", "--filename=data", "--rw=randwrite"];
    for extra in [
        &[
            "--bs=4k",
            "--size=10k",
            "--offset=5k",
            "--io_size=50k",
            "--loops=3",
        ][..],
        &[
            "--bs=4k",
            "--size=10k",
            "--offset=5k",
            "--io_size=50k",
            "--loops=3",
            "--number_ios=5",
        ],
        &[
            "--bs=8k",
            "--size=20k",
            "--io_size=100k",
            "--number_ios=9",
            "--ioengine=io_uring",
            "--verify=crc32c",
        ],
        &[
            "--bs=8k",
            "--size=50k",
            "--io_size=33k",
            "--loops=2",
            "--number_ios=9",
            "--verify=crc32c",
        ],
        &[
            "--bs=2k,8k",
            "--size=10k",
            "--offset=7k",
            "--loops=2",
            "--number_ios=5",
        ],
        &[
            "--bs=3k",
            "--size=20k",
            "--offset=5k",
            "--loops=4",
            "--number_ios=5",
            "--verify=crc32c",
        ],
    ] {
        let args: Vec<&str> = job.iter().chain(extra).copied().collect();
        compare_on(&args, false, Some(64 << 10));
    }
}

/// number_ios with io_size's passes over a walk that does not end at the file's end by
/// itself (holes, strided zones) or a sequential mix: fio's passes go on until io_size
/// (× loops) or the count of number_ios × loops (verify reads in it) is reached,
/// whichever comes first. fathom made one pass whenever number_ios was set (`rw=write
/// zonemode=strided zonesize=16k zoneskip=8k io_size=1m number_ios=20`: 11 writes
/// where fio makes 20). The write_iolog is fio's line for line.
#[test]
fn number_ios_with_io_size_passes_counts_as_fio() {
    let Some(fio) = fio() else { return };
    let strided = |more: &[&'static str]| {
        let z = [
            "--rw=write",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zoneskip=8k",
        ];
        [&z[..], more].concat()
    };
    let cases: Vec<Vec<&str>> = vec![
        strided(&["--io_size=1m", "--number_ios=20"]),
        strided(&["--io_size=1m", "--number_ios=20", "--ioengine=libaio"]),
        strided(&[
            "--io_size=1m",
            "--number_ios=20",
            "--fsync=5",
            "--ioengine=null",
        ]),
        strided(&["--io_size=300k", "--number_ios=40"]),
        vec![
            "--rw=write:8k",
            "--io_size=300k",
            "--number_ios=30",
            "--verify=md5",
        ],
        vec![
            "--rw=write:8k",
            "--io_size=300k",
            "--number_ios=30",
            "--loops=2",
        ],
        vec![
            "--rw=write:8k",
            "--io_size=300k",
            "--number_ios=30",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        vec![
            "--rw=read:16k",
            "--io_size=300k",
            "--number_ios=30",
            "--loops=2",
        ],
        vec!["--rw=rw", "--io_size=1m", "--number_ios=50", "--verify=md5"],
        vec![
            "--rw=rw",
            "--io_size=1m",
            "--number_ios=50",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        vec![
            "--rw=rw",
            "--io_size=300k",
            "--number_ios=80",
            "--loops=2",
            "--verify=crc32c",
        ],
    ];
    let cases: Vec<&[&str]> = cases.iter().map(Vec::as_slice).collect();
    iolog_cases(
        &fio,
        &["--name=n", "--bs=8k", "--size=128k", "--write_iolog=io.log"],
        &cases,
        15,
    );
}

/// allrandrepeat is an option of its own (fathom took it for randrepeat): with it every
/// one of fio's generators is seeded from the thread's number alone — the mix's
/// directions and the block sizes change, the offsets stay — and a job with
/// randrepeat=0 is repeatable all the same; allrandrepeat=0 is fio's default (fathom
/// turned randrepeat off with it). The write_iolog is fio's line for line.
#[test]
fn allrandrepeat_seeds_as_fio() {
    let Some(fio) = fio() else { return };
    iolog_cases(
        &fio,
        &[
            "--name=a",
            "--rw=randrw",
            "--bs=4k,8k",
            "--size=200k",
            "--write_iolog=io.log",
        ],
        &[
            &["--allrandrepeat=1"][..],
            &["--allrandrepeat=0"],
            &["--allrandrepeat=1", "--randrepeat=0"],
            &["--allrandrepeat=1", "--randrepeat=0", "--loops=2"],
            &["--allrandrepeat=1", "--rw=randwrite", "--bsrange=4k-16k"],
            &[
                "--allrandrepeat=1",
                "--randrepeat=0",
                "--filesize=16k-64k",
                "--nrfiles=3",
            ],
            &[
                "--allrandrepeat=1",
                "--randrepeat=0",
                "--random_distribution=zoned:50/10:50/90",
            ],
        ],
        15,
    );
}

/// blockalign above the smallest block over a region that is not a multiple of it: fio
/// counts its places as the region in blockalign units (`blockalign=8k` over 21845
/// bytes: 0 and 8k), fathom counted one more and read at 16k. The write_iolog is fio's
/// line for line.
#[test]
fn blockalign_places_over_a_partial_region_are_fio_s() {
    let Some(fio) = fio() else { return };
    iolog_cases(
        &fio,
        &[
            "--name=b",
            "--rw=randread",
            "--size=64k",
            "--blockalign=8k",
            "--write_iolog=io.log",
        ],
        &[
            &["--bssplit=4k/50:16k/50", "--nrfiles=3"][..],
            &["--bs=4k", "--nrfiles=3", "--rw=randwrite"],
            &["--bs=4k", "--size=60k"],
            &["--bs=4k", "--size=61k", "--norandommap"],
            &["--bsrange=4k-16k", "--size=61k", "--rw=randrw"],
        ],
        7,
    );
}

/// A random pattern's count suffix is read as fio's atoi reads it: `randwrite:8k` takes
/// a new random offset every 8 I/Os (fathom read 8192: one random offset, then
/// sequential writes); with percentage_random, as fio's. The write_iolog is fio's line
/// for line.
#[test]
fn a_random_pattern_s_count_with_a_unit_is_fio_s() {
    let Some(fio) = fio() else { return };
    iolog_cases(
        &fio,
        &["--name=c", "--bs=4k", "--size=200k", "--write_iolog=io.log"],
        &[
            &["--rw=randwrite:8k"][..],
            &["--rw=randrw:16k"],
            &["--rw=randread:4k", "--nrfiles=2"],
            // With percentage_random only the I/O that takes a new offset asks the decider
            // (fathom asked at every I/O, and stepped its sequential ones by the count as
            // if it were holes: writes at 16386, 20484, ...).
            &["--rw=randwrite:2", "--percentage_random=30"],
            &["--rw=randwrite:8k", "--percentage_random=50"],
            &["--rw=randrw:3", "--percentage_random=60"],
            &[
                "--rw=randread:2",
                "--percentage_random=40",
                "--rw_sequencer=identical",
            ],
            &[
                "--rw=randwrite:2",
                "--bsrange=4k-16k",
                "--percentage_random=40",
            ],
        ],
        20,
    );
}

// A random pass over a map in smaller units than its blocks moves what its draws make it
// (`bs=2k,8k rw=randwrite size=13k`: two or three 8k writes a pass), so io_size's passes
// are decided one by one as fio's keep_running does: passes until the job is within a
// block of io_size. Both tools' writes land in that band (fathom's passes once counted
// as 13k made 8 passes, 128k or more).
#[test]
fn random_passes_over_a_finer_map_end_within_a_block_of_io_size_as_fio() {
    let Some(fio) = fio() else { return };
    let (env, fdir, adir) = side_by_side();
    for d in [&fdir, &adir] {
        std::fs::write(d.join("data"), vec![b'x'; 64 << 10]).unwrap();
    }
    let args = [
        "--name=x",
        "--filename=data",
        "--rw=randwrite",
        "--bs=2k,8k",
        "--size=13k",
        "--io_size=100k",
    ];
    let f = counts(&fio_json(&fio, &fdir, &args));
    let a = counts(&fathom_json(&env, &adir, &args));
    for (who, c) in [("fio", f), ("fathom", a)] {
        // The last pass starts below 92k (100k less a block) and adds at most three 8k
        // writes.
        assert!(
            (92 << 10..116 << 10).contains(&c[3]),
            "{who} wrote {} bytes for {args:?}",
            c[3]
        );
    }
}

// Regions shorter than a block over existing files: `size=10k` over three files of
// 300000 bytes is 3413 bytes each, and fio's fixed-size walk still takes a block in each
// (the block fits the file); a size smaller than the smallest block is refused by both.
#[test]
fn regions_shorter_than_a_block_run_on_existing_files_as_fio() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--rw=read", "--bs=4k,8k", "--size=10k", "--offset=4k"][..],
        &["--rw=read:4k", "--bs=8k", "--size=10k"],
        &["--rw=write:-8k", "--bs=8k", "--size=10k", "--verify=crc32c"],
        &["--rw=write", "--bs=4k", "--size=64k"],
    ] {
        let (env, fdir, adir) = side_by_side();
        for d in [&fdir, &adir] {
            for n in ["a", "b", "c"] {
                std::fs::write(d.join(n), vec![0u8; 300_000]).unwrap();
            }
        }
        let args: Vec<&str> = ["--name=x", "--filename=a:b:c"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        let f = counts(&fio_json(&fio, &fdir, &args));
        let a = counts(&fathom_json(&env, &adir, &args));
        assert_eq!(f, a, "{args:?}: fio, then fathom");
    }
    let (env, fdir, adir) = side_by_side();
    for d in [&fdir, &adir] {
        std::fs::write(d.join("data"), vec![0u8; 1 << 20]).unwrap();
    }
    let args = [
        "--name=x",
        "--filename=data",
        "--rw=read",
        "--bs=4k",
        "--size=3k",
    ];
    assert!(!fio_run(&fio, &fdir, &args).status.success());
    fathom_refuses(&env, &adir, &args, "smaller than the smallest block size");
}

// A read/write mix draws its directions as fio does (fio's generator, seeded as fio
// seeds each thread under randrepeat, and fio's rule of keeping a direction until its
// share catches up): the same reads and writes as fio, I/O for I/O, where fathom's own
// draws came within a few percent (randrw rwmixread=70 over 64m: fio 11457/4927,
// fathom 11357/5027). Block-size ranges and splits too, where the offsets do not decide
// a redraw (a random offset near the end that a drawn size does not fit makes fio draw
// again: its offsets are not fio's, so such jobs differ by a few I/Os).
#[test]
fn a_read_write_mix_draws_fio_s_directions() {
    let Some(fio) = fio() else { return };
    for extra in [
        &[
            "--ioengine=null",
            "--rw=randrw",
            "--rwmixread=70",
            "--size=64m",
        ][..],
        &[
            "--ioengine=null",
            "--rw=randrw",
            "--rwmixread=10",
            "--size=16m",
            "--io_size=64m",
        ],
        &["--rw=randrw", "--size=1m", "--numjobs=3"],
        &["--rw=randrw", "--size=1m", "--rwmixread=30", "--loops=3"],
        &["--rw=randrw", "--size=1m", "--randseed=1234"],
        &["--rw=randrw", "--size=1m", "--number_ios=100"],
        &["--rw=rw", "--size=1m", "--rwmixread=75", "--loops=2"],
        &[
            "--rw=rw",
            "--bs=8k",
            "--size=13k",
            "--loops=2",
            "--number_ios=5",
        ],
        &["--rw=rw", "--bs=8k", "--size=24k", "--loops=2"],
        &[
            "--ioengine=libaio",
            "--iodepth=16",
            "--direct=1",
            "--rw=randrw",
            "--size=4m",
        ],
        // Block sizes drawn from fio's generators too (sequential: where each I/O lands
        // does not decide a size).
        &[
            "--ioengine=null",
            "--rw=write",
            "--bsrange=4k-16k",
            "--size=1m",
        ],
        &[
            "--ioengine=null",
            "--rw=write",
            "--bsrange=4k-12k",
            "--size=1m",
        ],
        &[
            "--ioengine=null",
            "--rw=read",
            "--bssplit=4k/50:64k/50",
            "--size=16m",
        ],
        &[
            "--ioengine=null",
            "--rw=randrw",
            "--bsrange=4k-16k",
            "--size=1m",
            "--norandommap",
        ],
    ] {
        let args: Vec<&str> = ["--name=m", "--filename=data", "--bs=4k"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        let (f, a) = both_counts(&fio, &args);
        assert_eq!(f, a, "{args:?}: fio {f:?}, fathom {a:?}");
    }
}

/// The I/Os of a write_iolog (time dropped, files by name): `file op offset length`.
fn iolog_ios(dir: &std::path::Path, log: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(log)).unwrap();
    text.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let io = w.len() == 5 && ["read", "write", "trim"].contains(&w[2]);
            let name = w.get(1)?.rsplit('/').next()?;
            io.then(|| format!("{name} {} {} {}", w[2], w[3], w[4]))
        })
        .collect()
}

// A sequential mix over several files, I/O for I/O as fio's: when the direction drawn for
// a file is at its end, fio marks the file done and makes the next file's I/O afresh,
// drawing its direction again (fathom went on with the direction it had: one I/O short
// there); a loop ends when every file is done, each loop seeded again, a time-based job
// too (fathom made a sequential mix's done files a new pass of the same loop, with the
// mix going on: `rw=rw bs=4k,8k nrfiles=2 loops=3 number_ios=300` did 255/258 where fio
// does 268/250); and a loop on an engine that queues starts its walks over, as fio's
// reopened files do (`filesize=1m size=128k loops=2` on libaio read 128k–256k in its
// second loop where fio reads 0–128k again).
#[test]
fn a_mix_over_several_files_makes_fio_s_ios_in_fio_s_order() {
    let Some(fio) = fio() else { return };
    for (extra, first) in [
        (
            &[
                "--rw=rw",
                "--bs=4k,8k",
                "--size=1m",
                "--nrfiles=2",
                "--loops=3",
                "--number_ios=300",
            ][..],
            usize::MAX,
        ),
        (
            &[
                "--rw=rw",
                "--size=1m",
                "--nrfiles=4",
                "--rwmixread=90",
                "--loops=2",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=rw",
                "--size=128k",
                "--nrfiles=2",
                "--loops=2",
                "--ioengine=libaio",
                "--iodepth=4",
            ],
            usize::MAX,
        ),
        // Sizes from fio's 64-bit generator with tausworthe64; a bssplit size that does
        // not fit what is left gives way to the next one that does, without a new draw.
        (
            &[
                "--rw=read",
                "--bssplit=4k/50:64k/30:128k/20",
                "--size=16m",
                "--ioengine=null",
                "--random_generator=tausworthe64",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=rw",
                "--bsrange=4k-64k",
                "--size=4m",
                "--ioengine=null",
                "--random_generator=tausworthe64",
            ],
            usize::MAX,
        ),
        // Random offsets: fio's block generator, seeded as fio seeds it, scaled to the
        // blocks as fio scales it, and the random map's next free block when busy (a
        // full file's failed draw taken too; a time-based one starts over in place).
        (
            &["--rw=randrw", "--size=4m", "--nrfiles=3", "--loops=2"][..],
            usize::MAX,
        ),
        (
            &[
                "--rw=randwrite",
                "--bsrange=4k-16k",
                "--size=1m",
                "--norandommap",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randwrite",
                "--bs=2k,8k",
                "--size=1m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randread",
                "--size=1m",
                "--ioengine=null",
                "--random_generator=tausworthe64",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randread",
                "--size=4m",
                "--nrfiles=2",
                "--ioengine=null",
                "--time_based",
                "--runtime=300ms",
            ],
            5000,
        ),
        // A random offset near the end whose bssplit size does not fit: fio's walk over
        // the entries goes on from the same draw to one that fits (no new draw).
        (
            &[
                "--rw=randwrite",
                "--bssplit=4k/50:16k/30:64k/20",
                "--size=8m",
                "--norandommap",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randrw",
                "--bssplit=4k/50:16k/30:64k/20",
                "--size=8m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // A file found done (its map full) draws no size, as fio's: the next file's
        // I/O takes the draw.
        (
            &[
                "--rw=randwrite",
                "--bssplit=4k/50:64k/50",
                "--size=8m",
                "--nrfiles=4",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // A partly random walk: a sequential turn that does not fit short of the file's
        // end makes the file done (a random place only at the end: fathom read on,
        // 1024 reads where fio makes 742), and that place is not marked in the map.
        (
            &[
                "--rw=randread",
                "--percentage_random=50",
                "--size=4m",
                "--nrfiles=3",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randrw",
                "--percentage_random=50",
                "--size=4m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // randread:N: fio's count of turns goes on over files, files found done and
        // passes; a sequential turn at the end takes an unmarked random place.
        (
            &[
                "--rw=randwrite:3",
                "--bssplit=4k/50:64k/50",
                "--size=4m",
                "--nrfiles=3",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randread:4",
                "--bsrange=4k-16k",
                "--size=4m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randread:3",
                "--size=1m",
                "--loops=3",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // Time-based: a walk over one file wraps at its end; files done end a pass,
        // and the next is seeded again.
        (
            &[
                "--rw=randread:4",
                "--size=1m",
                "--ioengine=null",
                "--time_based",
                "--runtime=300ms",
            ],
            5000,
        ),
        (
            &[
                "--rw=randread",
                "--percentage_random=50",
                "--size=4m",
                "--nrfiles=3",
                "--ioengine=null",
                "--time_based",
                "--runtime=300ms",
            ],
            5000,
        ),
        // A random file service: fio's picks (the first I/O's file drawn too, a done
        // file drawn again), each file for its run of I/Os.
        (
            &[
                "--rw=randrw",
                "--bsrange=4k-16k",
                "--size=8m",
                "--nrfiles=4",
                "--file_service_type=random:4",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=write",
                "--size=4m",
                "--nrfiles=4",
                "--file_service_type=random",
                "--loops=2",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // random_distribution=zoned (fio's examples/rand-zones.fio): fio's zone draws,
        // then its uniform draw within the zone.
        (
            &[
                "--rw=randread",
                "--norandommap",
                "--random_distribution=zoned:50/5:30/15:20/",
                "--size=8m",
                "--nrfiles=2",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randwrite",
                "--norandommap",
                "--bsrange=4k-16k",
                "--random_distribution=zoned:60/10:40/90",
                "--size=8m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // At the file's end fio's place comes first, then a size that fits there (fathom
        // moved a drawn 12k write down to end at the file's end).
        (
            &[
                "--rw=randwrite",
                "--bsrange=4k-16k",
                "--random_distribution=zoned:50/10:50/90",
                "--size=128k",
                "--loops=5",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // random_generator=lfsr: fio's LFSR over each file's blocks, seeded as fio's.
        (
            &[
                "--rw=randread",
                "--bsrange=4k-16k",
                "--size=4m",
                "--nrfiles=2",
                "--random_generator=lfsr",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // Strided zones: fio's draw over the zone's blocks, its map by zone.
        (
            &[
                "--rw=randrw",
                "--size=8m",
                "--zonemode=strided",
                "--zonesize=1m",
                "--zonerange=2m",
                "--zoneskip=1m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=randwrite",
                "--bssplit=4k/50:16k/30:64k/20",
                "--norandommap",
                "--size=8m",
                "--zonemode=strided",
                "--zonesize=1m",
                "--zoneskip=1m",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // percentage_random: fio's deciders per direction; its sequential I/Os neither
        // check nor mark the random map.
        (
            &[
                "--rw=randread",
                "--size=4m",
                "--percentage_random=20",
                "--ioengine=null",
            ],
            usize::MAX,
        ),
        // Sizes drawn as fio draws them: none for a file found done at its end.
        (
            &[
                "--rw=rw",
                "--bsrange=4k-16k",
                "--size=256k",
                "--nrfiles=2",
                "--loops=2",
            ],
            usize::MAX,
        ),
        (
            &[
                "--rw=read",
                "--filesize=1m",
                "--size=128k",
                "--loops=2",
                "--ioengine=libaio",
            ],
            usize::MAX,
        ),
        // Time-based: the first 2000 I/Os (fio's passes over the files, each seeded
        // again).
        (
            &[
                "--rw=rw",
                "--size=64k",
                "--nrfiles=2",
                "--ioengine=null",
                "--time_based",
                "--runtime=300ms",
            ],
            2000,
        ),
    ] {
        let args: Vec<&str> = ["--name=m", "--bs=4k", "--write_iolog=io.log"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        let (env, fdir, adir) = side_by_side();
        fio_quiet(&fio, &fdir, &args);
        fathom_quiet(&env, &adir, &args);
        let (f, a) = (iolog_ios(&fdir, "io.log"), iolog_ios(&adir, "io.log"));
        let n = first.min(f.len());
        assert!(
            n > 50 && a.len() >= n,
            "{args:?}: fio {} fathom {}",
            f.len(),
            a.len()
        );
        if first == usize::MAX {
            assert_eq!(f.len(), a.len(), "{args:?}: I/Os, fio then fathom");
        }
        if let Some(i) = (0..n).find(|&i| f[i] != a[i]) {
            panic!("{args:?}: I/O {i}: fio {:?}, fathom {:?}", f[i], a[i]);
        }
    }
}

/// zipf, pareto and normal offsets are fio's, I/O for I/O: fio's generators of them (its
/// zipf approximation, its pareto power, its bell of twelve draws), seeded per file as
/// fio seeds them (the hash of the file's name as fio spells it, times the thread
/// number; with randseed=, the block generator's seed), ranks scattered by fio's hash
/// and turned by its first draw or the center; a skewed file choice likewise (fathom drew
/// its own places with the same shape). zoned_abs draws fio's zone and then its uniform
/// block in it. And randseed= makes fio's draws go on through the loops (randrepeat off
/// once the seeds are made), where fathom started each loop's draws over.
#[test]
fn skewed_and_zoned_distributions_draw_fio_s_offsets_io_for_io() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--rw=randread", "--random_distribution=zipf:1.2"][..],
        &["--rw=randread", "--random_distribution=zipf:0.8:0.3"],
        &["--rw=randread", "--random_distribution=pareto:0.3"],
        &["--rw=randwrite", "--random_distribution=normal:10"],
        &["--rw=randread", "--random_distribution=normal:20:0.2"],
        &[
            "--rw=randrw",
            "--bssplit=4k/50:16k/30:64k/20",
            "--random_distribution=zipf:1.2",
        ],
        &[
            "--rw=randread",
            "--nrfiles=3",
            "--size=6m",
            "--random_distribution=pareto:0.2",
            "--file_service_type=zipf:1.1",
        ],
        &["--rw=read", "--nrfiles=4", "--file_service_type=normal:20"],
        &[
            "--rw=randread",
            "--directory=./",
            "--random_distribution=zipf:1.1",
        ],
        &[
            "--rw=randread",
            "--norandommap",
            "--randseed=42",
            "--random_distribution=zipf:1.2",
        ],
        &[
            "--rw=randread",
            "--random_distribution=zoned_abs:60/1m:30/1m:10/2m",
        ],
        &[
            "--rw=randread",
            "--loops=2",
            "--random_distribution=zipf:1.2",
        ],
        &["--rw=randrw", "--size=1m", "--loops=2", "--randseed=42"],
    ] {
        let args: Vec<&str> = [
            "--name=m",
            "--bs=4k",
            "--size=4m",
            "--ioengine=null",
            "--write_iolog=io.log",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect();
        let (env, fdir, adir) = side_by_side();
        fio_quiet(&fio, &fdir, &args);
        fathom_quiet(&env, &adir, &args);
        let (f, a) = (iolog_ios(&fdir, "io.log"), iolog_ios(&adir, "io.log"));
        assert!(f.len() > 200, "{args:?}: fio {}", f.len());
        assert_eq!(f.len(), a.len(), "{args:?}: I/Os, fio then fathom");
        if let Some(i) = (0..f.len()).find(|&i| f[i] != a[i]) {
            panic!("{args:?}: I/O {i}: fio {:?}, fathom {:?}", f[i], a[i]);
        }
    }
}

/// Every line of a write_iolog but its time, the file by its name: the I/Os, syncs,
/// opens and closes in order.
fn iolog_lines(dir: &std::path::Path, log: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(log)).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let name = w.get(1)?.rsplit('/').next()?;
            Some(format!("{name} {}", w[2..].join(" ")))
        })
        .collect()
}

/// fio and fathom run the job `base` + `extra` (which write `io.log`) side by side, and
/// their logs are alike line for line, fio's with more than `min` lines.
fn iolog_side_by_side(fio: &std::path::Path, base: &[&str], extra: &[&str], min: usize) {
    let args: Vec<&str> = base.iter().chain(extra).copied().collect();
    let (env, fdir, adir) = side_by_side();
    fio_quiet(fio, &fdir, &args);
    fathom_quiet(&env, &adir, &args);
    iologs_alike(&fdir, &adir, &args, min);
}

/// `iolog_side_by_side` for each of `cases` (the extra arguments of one job each).
fn iolog_cases(fio: &std::path::Path, base: &[&str], cases: &[&[&str]], min: usize) {
    for extra in cases {
        iolog_side_by_side(fio, base, extra, min);
    }
}

/// `args` run in both tools: their `io.log`s (more than `min` lines) alike, syncs'
/// offsets aside.
fn iologs_alike_syncs_aside(fio: &std::path::Path, args: &[&str], min: usize) {
    let (env, fdir, adir) = side_by_side();
    fio_quiet(fio, &fdir, args);
    fathom_quiet(&env, &adir, args);
    let (f, a) = (iolog_syncs_aside(&fdir), iolog_syncs_aside(&adir));
    assert!(f.len() > min, "{args:?}: fio {}", f.len());
    assert_eq!(f, a, "{args:?}");
}

/// `io.log`'s lines in `dir` with each sync's offset left out (at depth fio's is whatever
/// its unit held before).
fn iolog_syncs_aside(dir: &std::path::Path) -> Vec<String> {
    iolog_lines(dir, "io.log")
        .into_iter()
        .map(|l| match l.rsplit_once(" sync ") {
            Some((head, _)) => format!("{head} sync"),
            None => l,
        })
        .collect()
}

/// The `io.log` fio wrote in `fdir` (more than `min` lines) and fathom's in `adir` are
/// alike line for line, times aside.
fn iologs_alike(fdir: &std::path::Path, adir: &std::path::Path, args: &[&str], min: usize) {
    let (f, a) = (iolog_lines(fdir, "io.log"), iolog_lines(adir, "io.log"));
    assert!(f.len() > min, "{args:?}: fio {}", f.len());
    if let Some(i) = (0..f.len().max(a.len())).find(|&i| f.get(i) != a.get(i)) {
        panic!(
            "{args:?}: line {i} of {} and {}: fio {:?}, fathom {:?}",
            f.len(),
            a.len(),
            f.get(i),
            a.get(i)
        );
    }
}

/// A write_iolog is fio's line for line (times aside): a verifying job's reads back are
/// in it (fathom left them out: a replay of its log did less than the job), in fio's
/// order — a random job with the random map reads its writes back in the order it made
/// them, as fio's list of them (fathom read them in offset order: sequentially where fio
/// reads randomly) — each file is opened at its first I/O and closed when found done, at
/// a loop's end and before the verify phase (fathom opened them all at the start and
/// closed them at the end), a sync carries the offset of the I/O before it, as fio's,
/// and over several files a sync takes its file's turn.
#[test]
fn a_write_iolog_is_fio_s_line_for_line() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--rw=randwrite", "--verify=crc32c", "--loops=2"][..],
        &["--rw=randwrite", "--verify=md5", "--nrfiles=3"],
        &[
            "--rw=randwrite",
            "--verify=crc32c",
            "--random_distribution=zipf:1.2",
        ],
        &["--rw=write", "--fsync=8"],
        // end_fsync's and fsync_on_close's syncs are lines of the log too.
        &["--rw=write", "--end_fsync=1"],
        &["--rw=write", "--fsync_on_close=1", "--nrfiles=2"],
        &["--rw=randwrite", "--fdatasync=4"],
        // Over several files a sync takes the file service's turn: the next I/O goes to
        // the file after it (fathom kept the turn for the I/O: other files and offsets).
        &["--rw=randwrite", "--fdatasync=4", "--nrfiles=2"],
        &[
            "--rw=randrw",
            "--fsync=5",
            "--nrfiles=4",
            "--file_service_type=random",
        ],
        &[
            "--rw=write",
            "--fsync=4",
            "--nrfiles=2",
            "--file_service_type=roundrobin:3",
        ],
        &["--rw=rw", "--nrfiles=2", "--file_service_type=sequential"],
        &["--rw=randread", "--nrfiles=4", "--file_service_type=random"],
        &["--rw=randread", "--nrfiles=2", "--openfiles=1"],
        // A drawn file service under openfiles: fio's draws over all the files, a file
        // not open opened while fewer than the limit are, else drawn again (fathom drew
        // among the first files only); a file a distribution starts over is closed and
        // opened again.
        &[
            "--rw=read",
            "--nrfiles=4",
            "--openfiles=2",
            "--file_service_type=random",
        ],
        &[
            "--rw=randwrite",
            "--nrfiles=5",
            "--openfiles=3",
            "--file_service_type=random:4",
        ],
        &[
            "--rw=read",
            "--nrfiles=6",
            "--openfiles=2",
            "--file_service_type=normal:20",
        ],
        &["--rw=read", "--nrfiles=4", "--file_service_type=normal:20"],
        &[
            "--rw=randread",
            "--loops=2",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        // verify_backlog as fio's: writes waiting in offset order where they replace each
        // other (fathom read them in write order), a batch smaller than the backlog taken
        // from the oldest (fathom read the newest and left the rest to the end), one
        // after each batch's worth of writes; a check due as the job's budget is spent
        // is the verify phase's (files closed and opened first).
        &[
            "--rw=randwrite",
            "--norandommap",
            "--verify=crc32c",
            "--verify_backlog=16",
        ],
        &[
            "--rw=randwrite",
            "--norandommap",
            "--verify=crc32c",
            "--verify_backlog=16",
            "--verify_backlog_batch=4",
        ],
        &[
            "--rw=write",
            "--verify=md5",
            "--verify_backlog=16",
            "--verify_backlog_batch=4",
        ],
        &[
            "--rw=randrw",
            "--verify=crc32c",
            "--verify_backlog=16",
            "--verify_backlog_batch=4",
        ],
        // A random writer whose map is in smaller units than its writes ends its pass
        // early (`bs=4k,8k`: 51 writes of 8k over 1 MiB); after the verify phase fio goes
        // on with another pass while the job has moved less than its size.
        &["--rw=randwrite", "--bs=4k,8k", "--verify=md5"],
        // A sequential mix that verifies with io_size: each pass read back, the reads in
        // the budget, more passes while short of it, later ones from a percentage
        // offset's later start (fathom wrapped through one pass and verified at the end).
        &["--rw=rw", "--size=128k", "--io_size=1m", "--verify=crc32c"],
        &[
            "--rw=rw",
            "--size=128k",
            "--io_size=1m",
            "--offset=10%",
            "--verify=crc32c",
        ],
        // A pass over files whose size is not a multiple of the block moves the whole
        // blocks each file holds (fathom counted the files' bytes: one pass fewer).
        &[
            "--rw=write",
            "--size=64k",
            "--nrfiles=3",
            "--io_size=1m",
            "--verify=crc32c",
        ],
        // A batch due as a pass ends, short of fio's issue limit ((io_size or size) ×
        // loops in writes): a backlog check, not the verify phase.
        &[
            "--rw=write",
            "--size=256k",
            "--io_size=512k",
            "--verify=crc32c",
            "--verify_backlog=16",
        ],
        // number_ios counts verify_backlog's reads in one loop too (fathom wrote 40 and
        // read 40 where fio writes 24 and reads 24).
        &[
            "--rw=randwrite",
            "--verify=crc32c",
            "--verify_backlog=16",
            "--number_ios=40",
        ],
    ] {
        iolog_side_by_side(
            &fio,
            &[
                "--name=m",
                "--bs=4k",
                "--size=1m",
                "--ioengine=psync",
                "--write_iolog=io.log",
            ],
            extra,
            40,
        );
    }
}

/// Strided zones walk fio's zones through wraps and loops, line for line in the
/// write_iolog. A percentage offset is taken of the file as it is when the walk wraps
/// at the file's end: fio's first pass over a new file starts at 0 (the file was empty
/// when the offset was taken), an existing file's first pass where the percentage of
/// its old size puts it, and every wrap and later loop where the percentage of the
/// laid-out file does (fathom went round from the first pass's start, and ended its
/// first loop at the file's end: `offset=10% zonesize=8k zoneskip=24k loops=2` read 79
/// blocks where fio read 46). A loop starts the zones over at the region's first zone
/// with a whole zone's bytes, wherever the last loop's bytes ended (fathom went on from
/// the zone where it stopped).
#[test]
fn strided_zones_walk_fio_s_zones_through_wraps_and_loops() {
    let Some(fio) = fio() else { return };
    for (existing, extra) in [
        (false, &["--rw=read", "--offset=25%", "--loops=3"][..]),
        (true, &["--rw=read", "--offset=25%", "--loops=3"]),
        (
            false,
            &["--rw=write", "--offset=25%", "--loops=2", "--verify=crc32c"],
        ),
        (true, &["--rw=randwrite", "--offset=25%", "--loops=3"]),
        (
            false,
            &[
                "--rw=randread",
                "--offset=10%",
                "--zonesize=8k",
                "--zoneskip=24k",
                "--loops=2",
            ],
        ),
        (
            true,
            &[
                "--rw=rw",
                "--offset=25%",
                "--zonesize=12k",
                "--zonerange=16k",
                "--zoneskip=8k",
                "--loops=2",
            ],
        ),
        (
            true,
            &["--rw=randrw", "--offset=50%", "--size=200k", "--loops=2"],
        ),
        (false, &["--rw=write", "--offset=25%", "--io_size=600k"]),
        (
            false,
            &[
                "--rw=randread",
                "--ioengine=libaio",
                "--iodepth=4",
                "--loops=3",
            ],
        ),
        // A loop ended by its bytes in the middle of a zone: the next starts over.
        (
            false,
            &[
                "--rw=read",
                "--size=248k",
                "--filesize=256k",
                "--zoneskip=8k",
                "--ioengine=libaio",
                "--loops=3",
            ],
        ),
    ] {
        let args: Vec<&str> = [
            "--name=z",
            "--bs=4k",
            "--size=256k",
            "--ioengine=psync",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zoneskip=16k",
            "--write_iolog=io.log",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect();
        let (env, fdir, adir) = side_by_side();
        if existing {
            // The file as fio lays it out for the job, before the job's run.
            let mut lay: Vec<&str> = args
                .iter()
                .filter(|a| !a.starts_with("--write_iolog"))
                .copied()
                .collect();
            lay.push("--create_only=1");
            fio_quiet(&fio, &fdir, &lay);
            fio_quiet(&fio, &adir, &lay);
        }
        fio_quiet(&fio, &fdir, &args);
        fathom_quiet(&env, &adir, &args);
        iologs_alike(&fdir, &adir, &args, 40);
    }
}

/// A sequential mix with a percentage offset on a new file: its first loop runs from 0
/// (the file had no size to take the share of) until its reads reach the file's end, 14
/// blocks of 8k in a 64k file, and the loops after it, from the share of the laid-out
/// file, have what is left of size × loops, as fio counts its issued bytes across loops
/// (fathom cut each loop at size: 8 blocks, three times). With io_size and number_ios
/// the passes after the first start there too, number_ios counting over them all.
#[test]
fn a_sequential_mix_with_a_percentage_offset_shares_its_budget_across_loops() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--offset=10%", "--loops=3"][..],
        &["--offset=50%", "--loops=2", "--verify=crc32c"],
        &["--offset=30%", "--loops=5", "--rwmixread=80"],
        &["--offset=10%", "--loops=3", "--rw=rw:16k", "--nrfiles=2"],
        &[
            "--offset=20%",
            "--loops=3",
            "--rw=readwrite",
            "--percentage_random=50",
        ],
        // With io_size and number_ios: io_size's passes from the later start, the count
        // over them all (fathom kept the first loop's start then).
        &["--offset=10%", "--io_size=300k", "--number_ios=20"],
        &[
            "--offset=10%",
            "--io_size=300k",
            "--number_ios=30",
            "--loops=2",
        ],
        &[
            "--offset=10%",
            "--io_size=300k",
            "--number_ios=30",
            "--rw=randwrite",
            "--verify=md5",
            "--loops=2",
        ],
    ] {
        iolog_side_by_side(
            &fio,
            &[
                "--name=m",
                "--rw=rw",
                "--bs=8k",
                "--size=64k",
                "--ioengine=psync",
                "--write_iolog=io.log",
            ],
            extra,
            15,
        );
    }
}

/// end_fsync and fsync_on_close sync the files at each loop's end, on null too (fathom
/// synced null's files at the job's end only); on an engine that completes each I/O as it
/// is queued fio has closed the files it found done first, so its sync opens each again
/// and closes it, and so at the job's end when its budget was not met (files not a
/// multiple of the block). The write_iolog is fio's line for line.
#[test]
fn end_fsync_at_each_loop_s_end_is_fio_s() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--end_fsync=1", "--loops=2"][..],
        &["--fsync_on_close=1", "--loops=2"],
        &["--end_fsync=1", "--loops=3", "--nrfiles=2"],
        &["--end_fsync=1", "--io_size=128k"],
        &["--end_fsync=1", "--fsync=5", "--loops=2"],
        &[
            "--end_fsync=1",
            "--loops=2",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &["--end_fsync=1", "--loops=2", "--size=63k"],
    ] {
        for engine in ["--ioengine=psync", "--ioengine=null", "--ioengine=mmap"] {
            let base = [
                "--name=e",
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                engine,
                "--write_iolog=io.log",
            ];
            let args: Vec<&str> = base.iter().chain(extra).copied().collect();
            // (A sync's offset aside: past a partial block fio's is the offset it tried.)
            iologs_alike_syncs_aside(&fio, &args, 30);
        }
    }
}

/// A job whose size is more than its files hold (`size=200k nrfiles=2 filesize=48k`):
/// fio's size is what the files hold, so a job that wrote them whole asks for nothing
/// more and makes no sync after its last write; fathom counted it short of size=200k
/// and made one (a sync fio does not make, on every engine that completes inline).
#[test]
fn no_sync_after_the_last_write_when_the_files_are_whole() {
    let Some(fio) = fio() else { return };
    iolog_cases(
        &fio,
        &["--name=w", "--size=200k", "--write_iolog=io.log"],
        &[
            &[
                "--rw=randwrite",
                "--bs=8k",
                "--nrfiles=2",
                "--filesize=48k",
                "--fsync=3",
            ],
            &[
                "--rw=randwrite",
                "--bs=8k",
                "--nrfiles=2",
                "--filesize=48k",
                "--fsync=3",
                "--ioengine=null",
            ],
            &["--rw=write", "--bs=4k", "--filesize=64k", "--fsync=4"],
            &[
                "--rw=randwrite",
                "--bs=4k",
                "--filesize=64k",
                "--fdatasync=4",
            ],
        ],
        15,
    );
}

/// A sequential mix with io_size above its size on a queueing engine: each pass ends once
/// it has queued the size and the next starts the files over, as fio's do_io (fathom
/// wrapped each direction at the file's end in one pass, as a synchronous engine's fio
/// does).
#[test]
fn an_asynchronous_sequential_mix_with_io_size_starts_over_at_its_size() {
    let Some(fio) = fio() else { return };
    for extra in [
        &[][..],
        &["--fsync=4"],
        &["--bs=4k,8k", "--rwmixread=30"],
        &["--nrfiles=2"],
        &["--ioengine=io_uring", "--iodepth=1"],
        &["--rw=readwrite", "--percentage_random=30"],
    ] {
        let args: Vec<&str> = [
            "--name=q",
            "--rw=rw",
            "--bs=4k",
            "--size=64k",
            "--io_size=300k",
            "--ioengine=libaio",
            "--iodepth=4",
            "--write_iolog=io.log",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect();
        iologs_alike_syncs_aside(&fio, &args, 50);
    }
}

/// A random mix (randrw) that verifies, with io_size above its size: each pass ends where
/// the random map is full and its writes are read back, the reads counted in io_size,
/// and another pass follows while the job is short of it, as fio's keep_running (`randrw
/// size=128k io_size=1m verify=md5`: fio 294 I/Os; fathom went on through the passes
/// unverified and read back once at the end, 273).
#[test]
fn a_verifying_random_mix_with_io_size_makes_fio_s_passes() {
    let Some(fio) = fio() else { return };
    for extra in [
        &["--size=128k", "--bs=4k", "--io_size=1m", "--verify=md5"][..],
        &["--io_size=300k", "--loops=2"],
        &["--io_size=300k", "--bs=4k,8k", "--offset=10%"],
        &["--io_size=300k", "--ioengine=libaio", "--iodepth=4"],
        &["--io_size=300k", "--nrfiles=2", "--rwmixread=80"],
        &["--io_size=300k", "--number_ios=25"],
    ] {
        iolog_side_by_side(
            &fio,
            &[
                "--name=r",
                "--rw=randrw",
                "--bs=8k",
                "--size=64k",
                "--ioengine=psync",
                "--verify=crc32c",
                "--write_iolog=io.log",
            ],
            extra,
            25,
        );
    }
}

/// io_size above the size for a random walk that never ends by itself (norandommap, or a
/// skewed distribution, for which fio keeps no random map): on a synchronous engine one
/// pass to io_size × loops (fathom made a pass of the size each, a third of the I/O with
/// zipf and loops=3), on a queueing one passes of the size (a writer's: io_size), loops
/// first, while short of io_size (fathom made three passes of io_size without the map).
#[test]
fn endless_random_walks_with_io_size_make_fio_s_passes() {
    let Some(fio) = fio() else { return };
    for extra in [
        &[
            "--rw=randread",
            "--random_distribution=zipf:1.2",
            "--loops=3",
        ][..],
        &[
            "--rw=randwrite",
            "--random_distribution=zoned:50/10:50/90",
            "--loops=2",
        ],
        &["--rw=randread", "--norandommap", "--loops=3"],
        &[
            "--rw=randread",
            "--norandommap",
            "--loops=3",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
        &[
            "--rw=randwrite",
            "--random_distribution=pareto:0.5",
            "--loops=2",
            "--ioengine=libaio",
        ],
        &[
            "--rw=randrw",
            "--random_distribution=zipf:1.1",
            "--loops=3",
            "--ioengine=libaio",
            "--iodepth=4",
        ],
    ] {
        iolog_side_by_side(
            &fio,
            &[
                "--name=e",
                "--bs=4k",
                "--size=128k",
                "--io_size=1m",
                "--ioengine=psync",
                "--write_iolog=io.log",
            ],
            extra,
            200,
        );
    }
}
