//! `read_iolog`: fathom replays fio's iologs (and blktrace traces) I/O for I/O, in both
//! directions with fio, with the log's times and fio's `replay_*` adjustments.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// The operations of an iolog, without their stamps and file actions: (file, action,
/// offset, length).
fn ops(path: &Path) -> Vec<(String, String, u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.starts_with("fio version 3 iolog\n"), "{text}");
    text.lines()
        .filter(|l| !l.starts_with("fio version"))
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.get(2) {
                Some(&("add" | "open" | "close")) | None => None,
                // fio logs a sync with the offset of the I/O before it; fathom with 0.
                // (sync_file_range too: fio logs the offset of the I/O before it, fathom
                // the synced range's start.)
                Some(&a) if a.ends_with("sync") || a == "sync_file_range" => {
                    Some((w[1].to_string(), a.into(), 0, 0))
                }
                Some(a) => Some((
                    w[1].to_string(),
                    a.to_string(),
                    w[3].parse().unwrap(),
                    w[4].parse().unwrap(),
                )),
            }
        })
        .collect()
}

/// (read ios, write ios, trim ios, fsyncs) of a job's JSON (fio's sync total_ios: the
/// fsyncs alone).
fn counts(v: &Value) -> [u64; 4] {
    let j = &v["jobs"][0];
    [
        j["read"]["total_ios"].as_u64().unwrap(),
        j["write"]["total_ios"].as_u64().unwrap(),
        j["trim"]["total_ios"].as_u64().unwrap(),
        j["sync"]["total_ios"].as_u64().unwrap_or(0),
    ]
}

fn ok_json(env: &Env, args: &[&str]) -> Value {
    let o = env
        .cmd()
        .arg("--output-format=json")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "fathom failed: {}", stderr(&o));
    json(&o)
}

fn job_ms(v: &Value) -> u64 {
    v["jobs"][0]["job_runtime"].as_u64().unwrap()
}

#[test]
fn a_log_fio_writes_replays_in_fathom_io_for_io() {
    let Some(fio) = fio() else { return };
    let env = Env::new();
    // fio's own log: two files, mixed random I/O of mixed sizes, an fsync every 5 writes.
    let o = Command::new(&fio)
        .current_dir(env.path())
        .args([
            "--name=w",
            "--rw=randrw",
            "--bsrange=4k-16k",
            "--size=512k",
            "--nrfiles=2",
            "--fsync=5",
            "--ioengine=psync",
            "--write_iolog=fio.iolog",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let logged = ops(&env.path().join("fio.iolog"));
    assert!(
        logged.iter().any(|x| x.1 == "sync"),
        "fio logged its fsyncs"
    );
    // fathom replays it, logging what it issues.
    let v = ok_json(
        &env,
        &[
            "--name=r",
            "--read_iolog=fio.iolog",
            "--ioengine=psync",
            "--write_iolog=fathom.iolog",
        ],
    );
    assert_eq!(ops(&env.path().join("fathom.iolog")), logged, "I/O for I/O");
    let n = |a: &str| logged.iter().filter(|x| x.1 == a).count() as u64;
    assert_eq!(counts(&v), [n("read"), n("write"), 0, n("sync")]);
    let bytes: u64 = logged.iter().filter(|x| x.1 == "read").map(|x| x.3).sum();
    assert_eq!(v["jobs"][0]["read"]["io_bytes"].as_u64(), Some(bytes));
    // And fio, replaying the same log, counts the same.
    let o = Command::new(&fio)
        .current_dir(env.path())
        .args([
            "--name=r",
            "--read_iolog=fio.iolog",
            "--ioengine=psync",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    let f: Value = serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
    assert_eq!(counts(&f), counts(&v), "fio's replay and fathom's");
}

fathomtest!(
    a_log_fathom_writes_replays_in_fathom_with_trims_and_two_clones,
    |env| {
        // Two clones append their blocks to one log (each stamped from its own start); a
        // replay walks it in order, trims and fdatasyncs included.
        let v = ok_json(
            &env,
            &[
                "--name=w",
                "--rw=randtrimwrite",
                "--bs=4k",
                "--size=64k",
                "--numjobs=2",
                "--fdatasync=3",
                "--ioengine=psync",
                "--write_iolog=a.iolog",
            ],
        );
        let logged = ops(&env.path().join("a.iolog"));
        assert!(logged.iter().any(|x| x.1 == "trim"));
        assert!(logged.iter().any(|x| x.1 == "datasync"));
        let n = |a: &str| logged.iter().filter(|x| x.1 == a).count() as u64;
        let w: u64 = v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["write"]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(n("write"), w);
        let v = ok_json(
            &env,
            &[
                "--name=r",
                "--read_iolog=a.iolog",
                "--ioengine=psync",
                "--write_iolog=b.iolog",
            ],
        );
        assert_eq!(ops(&env.path().join("b.iolog")), logged);
        // fio's sync total_ios counts fsyncs; its latencies are of every sync.
        assert_eq!(counts(&v), [0, n("write"), n("trim"), n("sync")]);
        assert_eq!(
            v["jobs"][0]["sync"]["lat_ns"]["N"].as_u64(),
            Some(n("sync") + n("datasync"))
        );
    }
);

fathomtest!(two_clones_replay_a_log_each_and_stdin_is_a_log, |env| {
    env.write(
        "a.log",
        "fio version 2 iolog\nx add\nx open\nx write 0 4096\nx write 4096 4096\nx close\n",
    );
    env.write(
        "b.log",
        "fio version 2 iolog\ny add\ny open\ny write 0 8192\nx close\n",
    );
    let v = ok_json(
        &env,
        &[
            "--name=r",
            "--read_iolog=a.log:b.log",
            "--numjobs=3",
            "--group_reporting",
            "--ioengine=psync",
        ],
    );
    // Clones 0 and 2 replay a.log (round robin), clone 1 b.log.
    assert_eq!(v["jobs"][0]["write"]["total_ios"].as_u64(), Some(5));
    assert_eq!(
        v["jobs"][0]["write"]["io_bytes"].as_u64(),
        Some(4 * 4096 + 8192)
    );
    let mut c = env.cmd();
    c.args([
        "--output-format=json",
        "--name=r",
        "--read_iolog=-",
        "--ioengine=psync",
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"fio version 3 iolog\n0 x add\n5 x read 0 4096\n9 x read 4096 4096\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(counts(&json(&o)), [2, 0, 0, 0]);
});

fathomtest!(a_replay_keeps_the_logs_times_scaled_or_not, |env| {
    // Eleven reads 30 ms apart: 300 ms of log.
    let mut log = String::from("fio version 3 iolog\n1 /dev/null-target add\n");
    for i in 0..11u64 {
        log.push_str(&format!(
            "{} /dev/null-target read {} 4096\n",
            1 + i * 30_000,
            i * 4096
        ));
    }
    env.write("t.log", &log);
    let base = ["--name=r", "--read_iolog=t.log", "--ioengine=null"];
    let v = ok_json(&env, &base);
    assert_eq!(counts(&v)[0], 11);
    let ms = job_ms(&v);
    assert!((300..1000).contains(&ms), "the log's 300 ms took {ms} ms");
    // Each I/O is issued at its time: none is late by much on an idle null engine.
    let v = ok_json(&env, &[&base[..], &["--replay_time_scale=400"]].concat());
    let ms = job_ms(&v);
    assert!((75..300).contains(&ms), "at 400% the log took {ms} ms");
    let v = ok_json(&env, &[&base[..], &["--replay_no_stall=1"]].concat());
    let ms = job_ms(&v);
    assert!(ms < 75, "without stalls the log took {ms} ms");
});

fathomtest!(replay_redirect_scale_align_and_skip_shape_the_log, |env| {
    env.write(
        "s.log",
        "fio version 3 iolog\n0 /nonexistent/a add\n0 /nonexistent/b add\n\
         10 /nonexistent/a read 12288 4096\n20 /nonexistent/b write 40960 4096\n\
         30 /nonexistent/b read 20480 8192\n40 /nonexistent/a sync 0 0\n",
    );
    let v = ok_json(
        &env,
        &[
            "--name=r",
            "--read_iolog=s.log",
            "--ioengine=psync",
            "--replay_redirect=target",
            "--replay_scale=2",
            "--replay_align=4096",
            "--replay_skip=write,sync",
            "--write_iolog=out.iolog",
        ],
    );
    assert_eq!(counts(&v), [2, 0, 0, 0]);
    let target = "target".to_string();
    assert_eq!(
        ops(&env.path().join("out.iolog")),
        [
            (target.clone(), "read".into(), 4096, 4096),
            (target, "read".into(), 8192, 8192)
        ]
    );
});

/// A blktrace record (little-endian).
fn rec(time: u64, sector: u64, bytes: u32, action: u32) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(0x6561_7407u32.to_le_bytes());
    v.extend(0u32.to_le_bytes());
    v.extend(time.to_le_bytes());
    v.extend(sector.to_le_bytes());
    v.extend(bytes.to_le_bytes());
    v.extend(action.to_le_bytes());
    v.extend(99u32.to_le_bytes());
    v.extend(((8u32 << 20) | 0xfff).to_le_bytes());
    v.extend(0u32.to_le_bytes());
    v.extend(0u16.to_le_bytes());
    v.extend(0u16.to_le_bytes());
    v
}

const QUEUE: u32 = 1 | (1 << 20);
const READ: u32 = 1 << 16;
const WRITE: u32 = 1 << 17;
const FLUSH: u32 = 1 << 18;
const COMPLETE: u32 = 8 | (1 << 23);

fathomtest!(blktrace_traces_replay_and_merge, |env| {
    let mut t = Vec::new();
    t.extend(rec(1_000, 0, 4096, QUEUE | READ));
    t.extend(rec(2_000, 8, 4096, QUEUE | READ));
    t.extend(rec(2_500, 64, 8192, QUEUE | WRITE));
    t.extend(rec(3_000, 0, 0, QUEUE | WRITE | FLUSH));
    t.extend(rec(4_000, 16, 4096, QUEUE | READ));
    t.extend(rec(5_000, 0, 4096, COMPLETE | READ));
    std::fs::write(env.path().join("a.blk"), &t).unwrap();
    // The trace's device (8:4095) is on no machine: replay_redirect names the target.
    let o = env.run(&["--name=r", "--read_iolog=a.blk", "--ioengine=psync"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("replay_redirect"), "{}", stderr(&o));
    let v = ok_json(
        &env,
        &[
            "--name=r",
            "--read_iolog=a.blk",
            "--replay_redirect=disk",
            "--ioengine=psync",
            "--write_iolog=a.iolog",
        ],
    );
    assert_eq!(counts(&v), [3, 1, 0, 1]);
    let disk = "disk".to_string();
    let got = ops(&env.path().join("a.iolog"));
    assert_eq!(got[2], (disk.clone(), "write".into(), 32768, 8192));
    assert_eq!(got[3], (disk, "sync".into(), 0, 0));
    // Merged with itself at half speed and twice over: queue events only, by time.
    let v = ok_json(
        &env,
        &[
            "--name=m",
            "--read_iolog=a.blk:a.blk",
            "--merge_blktrace_file=m.blk",
            "--merge_blktrace_scalars=100:50",
            "--merge_blktrace_iters=1:2",
            "--replay_redirect=disk",
            "--ioengine=psync",
        ],
    );
    assert_eq!(
        std::fs::metadata(env.path().join("m.blk")).unwrap().len(),
        15 * 48
    );
    // Three runs of the trace: its queue events (the flush too), its completion left out.
    assert_eq!(counts(&v), [9, 3, 0, 3]);
    // --merge-blktrace-only (as fio's): the merged trace is written, nothing runs.
    std::fs::remove_file(env.path().join("m.blk")).unwrap();
    std::fs::remove_file(env.path().join("disk")).unwrap();
    let o = env.run(&[
        "--merge-blktrace-only",
        "--name=m",
        "--read_iolog=a.blk:a.blk",
        "--merge_blktrace_file=m.blk",
        "--replay_redirect=disk",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert_eq!(
        std::fs::metadata(env.path().join("m.blk")).unwrap().len(),
        10 * 48
    );
    assert!(!env.path().join("disk").exists(), "no I/O");
    let o = env.run(&["--merge-blktrace-only", "--name=m", "--read_iolog=a.blk"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("merge_blktrace_file"), "{}", stderr(&o));
});

fathomtest!(bad_logs_and_conflicts_are_clear_errors, |env| {
    env.write(
        "bad.log",
        "fio version 3 iolog\n0 f add\n5 f read 4k 4096\n",
    );
    let o = env.run(&["--name=r", "--read_iolog=bad.log", "--ioengine=psync"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("read_iolog=bad.log") && e.contains("line 3") && e.contains("'4k'"),
        "{e}"
    );
    let o = env.run(&["--name=r", "--read_iolog=missing.log", "--ioengine=psync"]);
    assert!(stderr(&o).contains("missing.log"), "{}", stderr(&o));
    // --parse-only reads no log (as fio's): a job file is checkable without its inputs.
    let o = env.run(&["--parse-only", "--name=r", "--read_iolog=missing.log"]);
    assert!(o.status.success(), "{}", stderr(&o));
    env.write("w.log", "fio version 2 iolog\nf add\nf write 0 4096\n");
    let o = env.run(&[
        "--readonly",
        "--name=r",
        "--read_iolog=w.log",
        "--ioengine=psync",
    ]);
    assert!(stderr(&o).contains("replay_skip=write"), "{}", stderr(&o));
    let o = env.run(&["--name=r", "--read_iolog=w.log", "--verify=crc32c"]);
    assert!(stderr(&o).contains("drop verify="), "{}", stderr(&o));
    let o = env.run(&["--name=r", "--replay_skip=flush", "--read_iolog=w.log"]);
    assert!(stderr(&o).contains("'flush'"), "{}", stderr(&o));
});

fathomtest!(large_trims_in_a_log_need_no_data_buffers, |env| {
    // fio's t/jobs/t0038 case: a log of 1 GiB trims and 4 KiB writes at iodepth=128 needs
    // buffers for the writes only (not 128 × 1 GiB).
    let mut log = String::from("fio version 2 iolog\n/dev/nvme0n1 add\n/dev/nvme0n1 open\n");
    for i in 0..64u64 {
        log.push_str(&format!("/dev/nvme0n1 trim {} {}\n", i << 30, 1u64 << 30));
        log.push_str(&format!("/dev/nvme0n1 write {} 4096\n", i << 30));
    }
    env.write("t.log", &log);
    let v = ok_json(
        &env,
        &[
            "--name=test",
            "--read_iolog=t.log",
            "--ioengine=null",
            "--iodepth=128",
        ],
    );
    assert_eq!(counts(&v), [0, 64, 64, 0]);
    assert_eq!(v["jobs"][0]["trim"]["io_bytes"].as_u64(), Some(64u64 << 30));
});

/// sync_file_range in iologs as fio has them: written where fio writes them (before the
/// I/O after every Nth write), and skipped on replay as fio's replay skips them (fathom
/// refused the whole log: "unknown action").
#[test]
fn sync_file_range_is_logged_and_skipped_on_replay_as_fio() {
    let env = Env::new();
    let job = [
        "--name=w",
        "--filename=data",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--sync_file_range=write:4",
        "--ioengine=psync",
        "--write_iolog=fathom.iolog",
    ];
    ok_json(&env, &job);
    let mine = ops(&env.path().join("fathom.iolog"));
    let n = |l: &[(String, String, u64, u64)], a: &str| l.iter().filter(|x| x.1 == a).count();
    assert_eq!((n(&mine, "write"), n(&mine, "sync_file_range")), (16, 3));
    let v = ok_json(
        &env,
        &["--name=r", "--read_iolog=fathom.iolog", "--ioengine=psync"],
    );
    assert_eq!(counts(&v), [0, 16, 0, 0]);
    assert_eq!(v["jobs"][0]["sync"]["lat_ns"]["N"], 0);
    // A replay makes the log's syncs only: `fsync=` decides nothing there (fio 3.33: 0).
    let v = ok_json(
        &env,
        &[
            "--name=r",
            "--read_iolog=fathom.iolog",
            "--ioengine=psync",
            "--fsync=4",
        ],
    );
    assert_eq!(counts(&v), [0, 16, 0, 0]);
    let Some(fio) = fio() else { return };
    let fio_job: Vec<&str> = job
        .iter()
        .map(|a| {
            if a.starts_with("--write_iolog") {
                "--write_iolog=fio.iolog"
            } else {
                a
            }
        })
        .collect();
    let o = Command::new(&fio)
        .current_dir(env.path())
        .args(&fio_job)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        ops(&env.path().join("fio.iolog")),
        mine,
        "the same log as fio's"
    );
    let v = ok_json(
        &env,
        &["--name=r", "--read_iolog=fio.iolog", "--ioengine=psync"],
    );
    assert_eq!(counts(&v), [0, 16, 0, 0], "fio's log replays in fathom");
}

fathomtest!(a_logs_last_syncs_are_replayed_and_logged, |env| {
    // Syncs after a log's last I/O are issued (and written to write_iolog) too.
    env.write(
        "s.log",
        "fio version 3 iolog\n0 f add\n1 f write 0 4096\n2 f sync 0 0\n3 f datasync 0 0\n",
    );
    let v = ok_json(
        &env,
        &[
            "--name=r",
            "--read_iolog=s.log",
            "--ioengine=psync",
            "--write_iolog=o.log",
        ],
    );
    // (total_ios: the fsync; the latencies: both.)
    assert_eq!(counts(&v), [0, 1, 0, 1]);
    assert_eq!(v["jobs"][0]["sync"]["lat_ns"]["N"], 2);
    let got: Vec<String> = ops(&env.path().join("o.log"))
        .into_iter()
        .map(|o| o.1)
        .collect();
    assert_eq!(got, ["write", "sync", "datasync"]);
});
