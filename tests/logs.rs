//! Log files: fio's names and line formats (checked against fio 3.33 on the same job),
//! values that agree with the job's results, and fio's own log tools reading them.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::Path;

const JOB: [&str; 8] = [
    "--name=t",
    "--ioengine=null",
    "--rw=randrw",
    "--size=4m",
    "--time_based",
    "--runtime=1",
    "--rate_iops=1000",
    "--numjobs=2",
];

fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect()
}

fn columns(p: &Path) -> usize {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .next()
        .map_or(0, |l| l.split(", ").count())
}

/// The tests that time windows run one at a time: on a two-core machine their jobs
/// starved each other of the CPU for whole windows.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fathomtest!(log_names_and_columns_are_fio_s, |env| {
    let logs = [
        "--write_bw_log=x",
        "--write_iops_log=x",
        "--write_lat_log=x",
        "--write_hist_log=x",
        "--log_hist_msec=200",
    ];
    let ours = env.path().join("ours");
    std::fs::create_dir(&ours).unwrap();
    let o = env
        .cmd()
        .current_dir(&ours)
        .args(JOB)
        .args(logs)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let names = listing(&ours);
    let want: BTreeSet<String> = ["bw", "iops", "slat", "clat", "lat", "clat_hist"]
        .iter()
        .flat_map(|k| (1..=2).map(move |n| format!("x_{k}.{n}.log")))
        .collect();
    assert_eq!(names, want);
    assert_eq!(columns(&ours.join("x_bw.1.log")), 5);
    assert_eq!(columns(&ours.join("x_clat_hist.1.log")), 3 + 1856);
    // Per-I/O logs have a line per I/O.
    let lines = std::fs::read_to_string(ours.join("x_clat.1.log"))
        .unwrap()
        .lines()
        .count();
    // rate_iops applies to each direction: ~1000 reads and ~1000 writes.
    assert!(
        (1800..=2200).contains(&lines),
        "{lines} lines for ~2000 I/Os"
    );
    if let Some(fio) = fio() {
        let theirs = env.path().join("fio");
        std::fs::create_dir(&theirs).unwrap();
        let r = std::process::Command::new(fio)
            .current_dir(&theirs)
            .args(JOB)
            .args(logs)
            .output()
            .unwrap();
        assert!(r.status.success());
        assert_eq!(listing(&theirs), names, "the same files as fio");
        for f in &names {
            if std::fs::metadata(theirs.join(f)).unwrap().len() > 0 {
                assert_eq!(columns(&theirs.join(f)), columns(&ours.join(f)), "{f}");
            }
        }
    }
});

fathomtest!(averaged_logs_agree_with_the_job_s_rate, |env| {
    let _g = serial();
    let o = env.run(&[
        "--name=a",
        "--ioengine=null",
        "--rw=read",
        "--size=4m",
        "--time_based",
        "--runtime=1",
        "--rate_iops=2000",
        "--write_bw_log=a",
        "--write_iops_log=a",
        "--log_avg_msec=250",
        "--log_offset=1",
        "--per_job_logs=0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let iops = std::fs::read_to_string(env.path().join("a_iops.log")).unwrap();
    let rows: Vec<Vec<u64>> = iops
        .lines()
        .map(|l| l.split(", ").map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows[0][0], 250, "first window ends at 250 ms");
    assert_eq!(rows[0].len(), 6, "time, value, ddir, bs, offset, prio");
    for r in &rows[..3] {
        assert!(
            (r[1] as f64 - 2000.0).abs() <= 40.0,
            "2000 IOPS per window: {r:?}"
        );
    }
    let bw = std::fs::read_to_string(env.path().join("a_bw.log")).unwrap();
    let v: u64 = bw
        .lines()
        .next()
        .unwrap()
        .split(", ")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (v as f64 - 8000.0).abs() <= 160.0,
        "2000 x 4 KiB/s = 8000 KiB/s: {v}"
    );
});

fathomtest!(fio_s_log_tools_read_fathom_s_logs, |env| {
    let have = |t: &str| {
        std::process::Command::new("which")
            .arg(t)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("gnuplot") || !have("fio2gnuplot") {
        assert!(
            std::env::var_os("FATHOM_REQUIRE_GNUPLOT").is_none(),
            "gnuplot or fio2gnuplot missing"
        );
        eprintln!("gnuplot/fio2gnuplot not installed: not tested");
        return;
    }
    let o = env.run(&[
        "--name=g",
        "--ioengine=null",
        "--rw=randread",
        "--size=4m",
        "--time_based",
        "--runtime=1",
        "--rate_iops=1000",
        "--write_bw_log=g",
        "--write_lat_log=g",
        "--write_iops_log=g",
        "--log_avg_msec=100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = std::process::Command::new("timeout")
        .current_dir(env.path())
        .args(["120", "fio2gnuplot", "-b", "-g"])
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "fio2gnuplot: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        env.path().join("g_bw.1-2Draw.png").exists(),
        "{:?}",
        listing(env.path())
    );
    let r = std::process::Command::new("timeout")
        .current_dir(env.path())
        .args(["120", "fio_generate_plots", "fathom"])
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "fio_generate_plots: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    for kind in ["lat", "clat", "bw", "iops"] {
        let svg = env.path().join(format!("fathom-{kind}.svg"));
        assert!(
            svg.exists(),
            "{kind}: {:?}",
            std::fs::read_dir(env.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect::<Vec<_>>()
        );
    }
});

fathomtest!(bandwidth_log_adds_every_job_up, |env| {
    let _g = serial();
    let o = env.run(&[
        "--bandwidth-log",
        "--ioengine=null",
        "--rw=read",
        "--time_based",
        "--runtime=1",
        "--rate_iops=1000",
        "--size=4m",
        "--name=a",
        "--name=b",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let read = std::fs::read_to_string(env.path().join("agg-read_bw.log")).unwrap();
    let first: Vec<u64> = read
        .lines()
        .next()
        .unwrap()
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(first[2], 0);
    // Two jobs at 1000 x 4 KiB/s each: 8000 KiB/s together.
    assert!((first[1] as f64 - 8000.0).abs() < 400.0, "{read}");
    assert!(env.path().join("agg-write_bw.log").exists());
});

fathomtest!(logs_end_where_the_run_ends, |env| {
    let _g = serial();
    // An async engine at depth 32 drains I/Os after the deadline: they must not make a
    // window of their own (fio2gnuplot and fio-plot would draw a cliff and a spike).
    let o = env.run(&[
        "--name=e",
        "--ioengine=libaio",
        "--iodepth=32",
        "--rw=randread",
        "--filename=data",
        "--size=8m",
        "--time_based",
        "--runtime=1",
        "--write_bw_log=e",
        "--write_iops_log=e",
        "--write_lat_log=e",
        "--write_hist_log=e",
        "--log_hist_msec=250",
        "--log_avg_msec=250",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for kind in ["bw", "iops", "clat", "lat", "clat_hist"] {
        let text = std::fs::read_to_string(env.path().join(format!("e_{kind}.1.log"))).unwrap();
        let stamps: Vec<u64> = text
            .lines()
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            stamps,
            [250, 500, 750, 1000],
            "{kind}: windows up to runtime"
        );
    }
    // The last window of a rate log is a whole window at the job's rate, no cliff.
    let iops: Vec<u64> = std::fs::read_to_string(env.path().join("e_iops.1.log"))
        .unwrap()
        .lines()
        .map(|l| l.split(", ").nth(1).unwrap().parse().unwrap())
        .collect();
    let mean = iops.iter().sum::<u64>() as f64 / iops.len() as f64;
    assert!(
        *iops.last().unwrap() as f64 > mean / 3.0,
        "the last window falls off a cliff: {iops:?}"
    );
});

// A per-I/O bandwidth log (no log_avg_msec) gives each I/O's bytes over its completion
// latency, as fio's (KB/s = bytes × 10⁶ / clat in ns): with an async engine, whose lat
// adds the submission latency, the lat would give another figure.
fathomtest!(per_io_bandwidth_is_over_the_completion_latency, |env| {
    let dir = env.path().to_string_lossy().into_owned();
    let o = env.run(&[
        "--name=b",
        &format!("--directory={dir}"),
        "--size=256k",
        "--bs=4k",
        "--rw=write",
        "--ioengine=libaio",
        "--iodepth=4",
        "--write_bw_log=x",
        "--write_lat_log=x",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let values = |kind: &str| -> Vec<u64> {
        std::fs::read_to_string(env.path().join(format!("x_{kind}.1.log")))
            .unwrap()
            .lines()
            .map(|l| l.split(", ").nth(1).unwrap().parse().unwrap())
            .collect()
    };
    let (bw, clat, lat) = (values("bw"), values("clat"), values("lat"));
    assert_eq!(bw.len(), 64);
    assert_eq!(clat.len(), 64);
    for i in 0..64 {
        assert_eq!(bw[i], 4096 * 1_000_000 / clat[i].max(1), "I/O {i}");
    }
    assert!(
        lat.iter().zip(&clat).any(|(l, c)| l > c),
        "slat > 0 somewhere"
    );
});

// The verify phase's reads are in the logs, as fio's are (ordinary reads there): a
// written and verified file logs each write, then each read back at the same offsets
// (fathom logged the writes alone: 16 lines where fio writes 32). fio side by side when
// installed.
fathomtest!(verify_reads_are_logged_as_fio_logs_them, |env| {
    let job = [
        "--name=v",
        "--filename=data",
        "--size=64k",
        "--bs=4k",
        "--rw=write",
        "--verify=crc32c",
        "--ioengine=psync",
        "--write_lat_log=x",
        "--write_bw_log=x",
        "--log_offset=1",
    ];
    let lines = |dir: &Path, kind: &str| -> Vec<(u32, u64)> {
        std::fs::read_to_string(dir.join(format!("x_{kind}.1.log")))
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(", ").collect();
                (f[2].parse().unwrap(), f[4].parse().unwrap())
            })
            .collect()
    };
    let o = env.run(&job);
    assert!(o.status.success(), "{}", stderr(&o));
    let lat = lines(env.path(), "lat");
    let offsets: Vec<(u32, u64)> = (0..16).map(|i| (1, i * 4096)).collect();
    let reads: Vec<(u32, u64)> = offsets.iter().map(|&(_, o)| (0, o)).collect();
    assert_eq!(lat[..16], offsets[..]);
    assert_eq!(lat[16..], reads[..]);
    assert_eq!(lines(env.path(), "bw").len(), 32);
    if let Some(fio) = fio() {
        let fdir = env.path().join("fio");
        std::fs::create_dir_all(&fdir).unwrap();
        let o = std::process::Command::new(fio)
            .current_dir(&fdir)
            .args(job)
            .output()
            .unwrap();
        assert!(o.status.success(), "fio: {}", stderr(&o));
        assert_eq!(lines(&fdir, "lat"), lat, "fio, then fathom");
    }
});
