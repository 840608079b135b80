//! zonemode=zbd: zones emulated over a regular file, as fio 3.33 emulates them. Each
//! case runs fio and fathom side by side on the same job over a 64 MiB file made first
//! (fio needs the file to exist to size its zones) and compares the I/O counts per
//! direction, equal, and where they follow from the job alone the zone resets and the
//! offsets I/O by I/O.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

const FILE: usize = 64 << 20;

/// (reads, writes, trims, zone resets) over a run's jobs, from fio's normal output
/// (`issued rwts` and `; N zone resets` lines), or fathom's.
fn tally(text: &str) -> [u64; 4] {
    let mut t = [0u64; 4];
    for l in text.lines() {
        if let Some(rest) = l.trim().strip_prefix("issued rwts: total=") {
            let n: Vec<u64> = rest
                .split(' ')
                .next()
                .unwrap()
                .split(',')
                .map(|x| x.parse().unwrap())
                .collect();
            for d in 0..3 {
                t[d] += n[d];
            }
        }
        if let Some(i) = l.find(" zone resets") {
            let head = &l[..i];
            let n = head.rsplit(' ').next().unwrap();
            t[3] += n.parse::<u64>().unwrap();
        }
    }
    t
}

/// Runs `args` (with the zone options) in fio and in fathom, each in its own folder over
/// a fresh 64 MiB file `data`; returns both tallies.
fn both(args: &[&str]) -> Option<([u64; 4], [u64; 4])> {
    let fio = fio()?;
    let env = Env::new();
    let (fdir, adir) = (env.path().join("fio"), env.path().join("fathom"));
    let mut out = Vec::new();
    for d in [&fdir, &adir] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::File::create(d.join("data"))
            .unwrap()
            .set_len(FILE as u64)
            .unwrap();
    }
    let common = [
        "--filename=data",
        "--size=64m",
        "--bs=4k",
        "--zonemode=zbd",
        "--zonesize=4m",
    ];
    let o = fio_ok(&fio, &fdir, &[&common[..], args].concat());
    out.push(tally(&stdout(&o)));
    let o = env
        .cmd()
        .current_dir(&adir)
        .args(common)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "fathom {args:?}: {}", stderr(&o));
    out.push(tally(&stdout(&o)));
    Some((out[0], out[1]))
}

/// The same I/O counts (and zone resets, with `resets`) as fio.
fn same(args: &[&str], resets: bool) {
    let Some((f, a)) = both(args) else { return };
    assert_eq!(
        f[..3],
        a[..3],
        "reads, writes, trims for {args:?}: fio, fathom"
    );
    if resets {
        assert_eq!(
            f[3], a[3],
            "zone resets for {args:?}: fio {f:?}, fathom {a:?}"
        );
    }
}

/// A mixed job: the same total (the split follows each tool's random generator).
fn same_total(args: &[&str]) {
    let Some((f, a)) = both(args) else { return };
    let total = |t: [u64; 4]| t[0] + t[1] + t[2];
    assert_eq!(
        total(f),
        total(a),
        "I/Os for {args:?}: fio {f:?}, fathom {a:?}"
    );
    assert!(a[0] > 0 && a[1] > 0, "{a:?}");
}

#[test]
fn writes_and_reads_count_as_in_fio() {
    same(&["--name=w", "--rw=write"], true);
    same(&["--name=w", "--rw=randwrite"], true);
    // Reads stay below the write pointers: a run that only reads finds every zone empty.
    same(&["--name=r", "--rw=read"], false);
    same(&["--name=r", "--rw=randread"], false);
    // The first reads of a mixed job become writes while no zone holds data.
    same_total(&["--name=m", "--rw=randrw"]);
    // A job reads what an earlier one wrote: all of it, or a sequential reader up to the
    // write pointers and a random one within the zones written.
    same(
        &[
            "--name=w",
            "--rw=write",
            "--name=r",
            "--stonewall",
            "--rw=read",
        ],
        false,
    );
    for rw in ["read", "randread"] {
        let r = format!("--rw={rw}");
        same(
            &[
                "--name=w",
                "--rw=write",
                "--io_size=10m",
                "--name=r",
                "--stonewall",
                &r,
            ],
            false,
        );
    }
    same(
        &[
            "--name=w",
            "--rw=write",
            "--io_size=10m",
            "--name=r",
            "--stonewall",
            "--rw=randread",
            "--read_beyond_wp=1",
        ],
        false,
    );
}

#[test]
fn zone_capacity_limits_and_resets_count_as_in_fio() {
    // A sequential writer goes on at the next zone when it reaches a zone's capacity:
    // three quarters of the file, in one pass, two, or a count.
    same(&["--name=w", "--rw=write", "--zonecapacity=3m"], true);
    same(
        &["--name=w", "--rw=write", "--zonecapacity=3m", "--loops=2"],
        true,
    );
    same(
        &[
            "--name=w",
            "--rw=write",
            "--zonecapacity=3m",
            "--number_ios=1000",
        ],
        true,
    );
    // A random writer fills each zone's capacity, then resets it (once per zone here).
    same(&["--name=w", "--rw=randwrite", "--zonecapacity=3m"], true);
    // Open-zone limits and the reset threshold: the counts are the job's; which zones
    // fill first follows each tool's own random generator.
    same(&["--name=w", "--rw=randwrite", "--max_open_zones=4"], false);
    same(
        &[
            "--name=w",
            "--rw=randwrite",
            "--max_open_zones=4",
            "--zonecapacity=3m",
        ],
        false,
    );
    same(
        &[
            "--name=w",
            "--rw=randwrite",
            "--zone_reset_threshold=0.5",
            "--zone_reset_frequency=0.1",
        ],
        false,
    );
    // A trim resets its zone: a random trimmer finds the zones holding data.
    same(
        &[
            "--name=w",
            "--rw=write",
            "--io_size=8m",
            "--name=t",
            "--stonewall",
            "--rw=randtrim",
            "--bs=4m",
        ],
        false,
    );
}

#[test]
fn clones_and_queues_share_the_zones_as_in_fio() {
    // Several clones on one file's zones, an open-zone limit, I/Os in flight: one I/O per
    // zone at a time, the counts the job's.
    same(
        &[
            "--name=w",
            "--rw=randwrite",
            "--numjobs=4",
            "--max_open_zones=8",
            "--group_reporting",
        ],
        false,
    );
    for engine in ["--ioengine=io_uring", "--ioengine=libaio"] {
        same(
            &[
                "--name=w",
                "--rw=randwrite",
                engine,
                "--iodepth=8",
                "--numjobs=2",
                "--max_open_zones=4",
            ],
            false,
        );
        same(&["--name=w", "--rw=write", engine, "--iodepth=16"], true);
    }
}

/// Every write's offset, in order, from a completion-latency log with offsets.
fn offsets(dir: &Path) -> Vec<u64> {
    std::fs::read_to_string(dir.join("z_clat.1.log"))
        .unwrap()
        .lines()
        .map(|l| l.split(',').nth(4).unwrap().trim().parse().unwrap())
        .collect()
}

#[test]
fn a_sequential_writer_skips_each_zones_gap_as_fio_io_by_io() {
    let Some(fio) = fio() else { return };
    let env = Env::new();
    let args = [
        "--name=z",
        "--filename=data",
        "--size=16m",
        "--bs=64k",
        "--rw=write",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--zonecapacity=640k",
        "--offset=1500k",
        "--write_lat_log=z",
        "--log_offset=1",
    ];
    let (fdir, adir) = (env.path().join("fio"), env.path().join("fathom"));
    for d in [&fdir, &adir] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::File::create(d.join("data"))
            .unwrap()
            .set_len(16 << 20)
            .unwrap();
    }
    fio_quiet(&fio, &fdir, &args);
    let o = env
        .cmd()
        .current_dir(&adir)
        .args(args)
        .arg("--warnings")
        .output()
        .unwrap();
    assert!(o.status.success(), "fathom: {}", stderr(&o));
    // The region rounded to whole zones, said as fio says it.
    let e = stderr(&o);
    assert!(
        e.contains("rounded up offset from 1536000 to 2097152"),
        "{e}"
    );
    let (f, a) = (offsets(&fdir), offsets(&adir));
    assert_eq!(f.len(), 14 * 10, "fio wrote 10 blocks in each of 14 zones");
    assert_eq!(f, a, "every write's offset: fio, then fathom");
}

fathomtest!(zone_options_are_checked_as_fio_checks_them, |env| {
    let run = |extra: &[&str]| {
        let mut a = vec![
            "--name=z",
            "--filename=data",
            "--size=8m",
            "--rw=write",
            "--zonemode=zbd",
        ];
        a.extend_from_slice(extra);
        env.run(&a)
    };
    for (extra, says) in [
        (&[][..], "needs zonesize"),
        (&["--zonesize=256"][..], "at least 512 bytes"),
        (
            &["--zonesize=1m", "--zonecapacity=2m"][..],
            "larger than zonesize",
        ),
        (
            &["--zonesize=1m", "--job_max_open_zones=2"][..],
            "needs max_open_zones",
        ),
        (&["--zonesize=1m", "--zoneskip=1m"][..], "not supported yet"),
        (
            &["--zonesize=1m", "--bs=2m"][..],
            "larger than the zone size",
        ),
        (
            &["--zonesize=1m", "--rw=trim", "--bs=4k"][..],
            "not the zone size",
        ),
        (
            &["--zonesize=1m", "--verify=crc32c"][..],
            "not supported yet",
        ),
        (
            &["--zonesize=1m", "--max_open_zones=5000"][..],
            "max_open_zones",
        ),
    ] {
        let o = run(extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let e = stderr(&o);
        assert!(e.contains(says), "{extra:?}: {e}");
    }
    // Two jobs on one file must agree on its zones.
    let o = env.run(&[
        "--filename=data",
        "--size=8m",
        "--rw=write",
        "--zonemode=zbd",
        "--name=a",
        "--zonesize=1m",
        "--name=b",
        "--zonesize=2m",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("one zone table"), "{}", stderr(&o));
    // A job that only reads says why it read nothing.
    let o = env.run(&[
        "--name=r",
        "--filename=data",
        "--size=8m",
        "--rw=read",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--warnings",
        "--output-format=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["jobs"][0]["read"]["total_ios"], 0);
    assert!(
        stderr(&o).contains("no zone holds data to read"),
        "{}",
        stderr(&o)
    );
});

/// One of fio's zbd example files (Debian's fio-examples), scaled to a 64 MiB file with
/// 4 MiB zones and buffered I/O: each line whose key is in `edits` becomes the given line
/// (an empty one drops it); None without fio or its examples.
fn example(name: &str, edits: &[(&str, &str)]) -> Option<String> {
    let path = fio_example_files()?
        .into_iter()
        .find(|p| p.ends_with(name))?;
    let text = std::fs::read_to_string(path).unwrap();
    Some(
        text.lines()
            .map(|l| {
                let key = l.split('=').next().unwrap_or("");
                match edits.iter().find(|(k, _)| *k == key) {
                    Some((_, line)) => line.to_string(),
                    None => l.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Runs a job file's text in fio and fathom over a fresh 64 MiB `data` each.
fn both_file(text: &str) -> Option<([u64; 4], [u64; 4])> {
    let fio = fio()?;
    let env = Env::new();
    let mut out = Vec::new();
    for (tool, dir) in [("fio", "f"), ("fathom", "a")] {
        let d = env.path().join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::File::create(d.join("data"))
            .unwrap()
            .set_len(FILE as u64)
            .unwrap();
        std::fs::write(d.join("job.fio"), text).unwrap();
        let mut c = if tool == "fio" {
            Command::new(&fio)
        } else {
            env.cmd()
        };
        let o = c.current_dir(&d).arg("job.fio").output().unwrap();
        assert!(
            o.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.push(tally(&stdout(&o)));
    }
    Some((out[0], out[1]))
}

#[test]
fn fios_zbd_examples_scaled_down_do_the_same_io() {
    // 4 clones writing at random to at most 8 open zones, to the end of their I/O.
    let edits = [
        ("filename", "filename=data"),
        ("zonesize", "zonesize=4m"),
        ("max_open_zones", "max_open_zones=8"),
        ("numjobs", "numjobs=4"),
        ("direct", "direct=0"),
        ("time_based", ""),
        ("runtime", "size=64m"),
    ];
    let Some(text) = example("zbd-rand-write.fio", &edits) else {
        return;
    };
    let (f, a) = both_file(&text).unwrap();
    assert_eq!(f[..3], a[..3], "zbd-rand-write: fio {f:?}, fathom {a:?}");
    assert_eq!(a[1], 4 * 128);
    // A sequential reader of a file nothing wrote in the run: nothing to read, in both.
    let edits = [
        ("filename", "filename=data"),
        ("zonesize", "zonesize=4m"),
        ("offset", "offset=16m"),
        ("size", "size=32m"),
        ("bs", "bs=64k"),
        ("direct", "direct=0"),
    ];
    let text = example("zbd-seq-read.fio", &edits).unwrap();
    let (f, a) = both_file(&text).unwrap();
    assert_eq!(f, a, "zbd-seq-read: fio, fathom");
    assert_eq!(a[0], 0);
}
