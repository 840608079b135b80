//! Golden layout tests: fathom's normal output for a run shaped like a captured fio 3.33
//! run (same jobs, directions, counts and latency ranges) must have fio's lines in fio's
//! order with fio's words, separators and paddings. Only the numbers differ: each is
//! replaced by `#` before comparing (see tests/data/README.md for the captures).

use fathom_report::{reporter, write_preamble, Format};
use fathom_stats::{GroupResult, JobInfo, JobResult, RunResult, Sample, ThreadStats, LAT_BUCKETS};
use std::time::Duration;

/// A line with every number replaced by `#`, the padding before a number dropped and the
/// local time after `pid=` masked.
fn skeleton(line: &str) -> String {
    let line = match line.find(": pid=") {
        Some(i) => format!("{}: pid=#: TIME", &line[..i]),
        None => line.to_string(),
    };
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || *c == '.')
            {
                chars.next();
            }
            // Padding belongs to the number: "=[   51]" and "min= 9506" → "=[#]", "min=#".
            while out.ends_with(' ') && !out.trim_end().ends_with(',') {
                out.pop();
            }
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

fn skeletons(text: &str) -> Vec<String> {
    text.lines().map(skeleton).collect()
}

/// Lines of a capture from the first job block on (start-up lines dropped).
fn report_part(capture: &str) -> &str {
    let i = capture.find("\n\n").map(|i| i + 1).unwrap_or(0);
    &capture[i..]
}

fn normal(run: &RunResult) -> String {
    let mut out = Vec::new();
    reporter(Format::Normal)
        .write_report(run, &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

fn info(rw: &str, engine: &str, iodepth: u32) -> JobInfo {
    JobInfo {
        rw: rw.into(),
        bs: [(4096, 4096); 3],
        ioengine: engine.into(),
        iodepth,
        percentile_list: PERCENTILES.to_vec(),
        clat_percentiles: true,
        lat_percentiles: false,
        kb_base: 1024,
        description: None,
        job_options: vec![],
        ..Default::default()
    }
}

/// `n` I/Os of `bs` bytes in direction `dir` with the given slat/clat per I/O index.
fn record(
    s: &mut ThreadStats,
    dir: usize,
    n: u64,
    bs: u64,
    lat: impl Fn(u64) -> (Option<u64>, u64),
) {
    for i in 0..n {
        let (slat, clat) = lat(i);
        s.record_io(dir, bs, slat, clat);
    }
    s.issued[dir] += n;
}

fn samples(s: &mut ThreadStats, dir: usize, kib_per_s: &[u64]) {
    for (k, &kib) in kib_per_s.iter().enumerate() {
        s.dirs[dir].samples.push(Sample {
            t_ms: 500 * (k as u64 + 1),
            len_ms: 500,
            bytes: kib * 512,
            ios: kib / 8,
            ..Default::default()
        });
    }
}

/// Buckets non-empty where fio's were: (index into LAT_BUCKET_BOUNDS_NS order, count).
fn buckets(s: &mut ThreadStats, set: &[(usize, u64)]) {
    s.lat_buckets = [0; LAT_BUCKETS];
    for &(k, n) in set {
        s.lat_buckets[k] = n;
    }
}

fn job(name: &str, groupid: u32, info: JobInfo, stats: ThreadStats) -> JobResult {
    JobResult {
        name: name.into(),
        groupid,
        info,
        stats,
        job_start_ms: 1_700_000_000_000,
        pid: 4242,
        ..Default::default()
    }
}

fn assert_same_layout(fio: &str, ours: &str) {
    let (f, o) = (skeletons(fio), skeletons(ours));
    for (i, (a, b)) in f.iter().zip(&o).enumerate() {
        assert_eq!(a, b, "line {} differs\nfio:\n{fio}\nfathom:\n{ours}", i + 1);
    }
    assert_eq!(f.len(), o.len(), "line count\nfio:\n{fio}\nfathom:\n{ours}");
}

#[test]
fn a_psync_random_read_is_laid_out_as_fio_lays_it_out() {
    let fio = include_str!("data/fio-3.33-normal.txt");
    let mut s = ThreadStats::new();
    record(&mut s, 0, 24_792, 4096, |i| {
        (None, 41_000 + (i % 1000) * 80)
    });
    buckets(
        &mut s,
        &[
            (14, 150),
            (15, 22_000),
            (16, 2500),
            (17, 100),
            (18, 40),
            (20, 2),
        ],
    );
    samples(&mut s, 0, &[50_592, 52_360, 50_976]);
    s.depth_levels[0] = 24_792;
    s.depth_submit[1] = 24_792;
    s.depth_complete[1] = 24_792;
    s.runtime = Duration::from_millis(2001);
    let group = GroupResult::from_clones(0, 1024, std::iter::once(&s));
    let run = RunResult {
        jobs: vec![job("p", 0, info("randread", "psync", 1), s)],
        groups: vec![group],
        version: "0.1.0".into(),
        threads: 1,
        ..Default::default()
    };
    // The capture starts at the job line, after fio's leading empty line.
    assert_same_layout(fio, &normal(&run)[1..]);
}

#[test]
fn three_jobs_in_two_groups_with_fsync_are_laid_out_as_fio_lays_them_out() {
    let fio = include_str!("data/fio-3.33-multi.txt");
    let nsec = |i: u64| (None, 18 + i % 40);

    let mut a = ThreadStats::new();
    record(&mut a, 0, 1992, 4096, nsec);
    record(&mut a, 1, 2104, 4096, nsec);
    buckets(
        &mut a,
        &[(3, 400), (4, 3600), (5, 1), (6, 1), (11, 1), (12, 1)],
    );
    a.depth_levels[0] = 4096;
    a.runtime = Duration::from_millis(1);

    let mut b = ThreadStats::new();
    record(&mut b, 0, 128, 65_536, nsec);
    buckets(&mut b, &[(3, 59), (4, 68), (12, 1)]);
    b.depth_levels[0] = 128;
    b.runtime = Duration::from_millis(1);

    let mut c = ThreadStats::new();
    record(&mut c, 1, 1024, 4096, nsec);
    for i in 0..255 {
        c.sync.record(18 + i % 5);
    }
    buckets(&mut c, &[(3, 136), (4, 887), (13, 1)]);
    c.depth_levels[0] = 1279;
    c.runtime = Duration::from_millis(1);

    let g0 = GroupResult::from_clones(0, 1024, [&a, &b].into_iter());
    let g1 = GroupResult::from_clones(1, 1024, std::iter::once(&c));
    let mut info_c = info("write", "null", 1);
    info_c.description = Some("hello there".into());
    let mut info_b = info("read", "null", 1);
    info_b.bs = [(65_536, 65_536); 3];
    let run = RunResult {
        jobs: vec![
            job("a", 0, info("randrw", "null", 1), a),
            job("b", 0, info_b.clone(), b),
            job("c", 1, info_c.clone(), c),
        ],
        groups: vec![g0, g1],
        version: "0.1.0".into(),
        threads: 3,
        ..Default::default()
    };
    assert_same_layout(report_part(fio), &normal(&run));

    // The start-up lines: fio's words, with fathom's name and threads for processes.
    let mut out = Vec::new();
    write_preamble(
        &[
            ("a".into(), 0, info("randrw", "null", 1), 1),
            ("b".into(), 0, info_b, 1),
            ("c".into(), 1, info_c, 1),
        ],
        "0.1.0",
        3,
        &mut out,
    )
    .unwrap();
    let ours = String::from_utf8(out).unwrap();
    let theirs = &fio[..fio.find("\n\n").unwrap() + 1];
    assert_eq!(
        ours,
        theirs
            .replace("fio-3.33", "fathom-0.1.0")
            .replace("processes", "threads")
    );
}

#[test]
fn an_async_job_with_slat_and_lat_percentiles_is_laid_out_as_fio_lays_it_out() {
    let fio = include_str!("data/fio-3.33-libaio.txt");
    let mut s = ThreadStats::new();
    record(&mut s, 0, 24_611, 4096, |i| {
        (Some(34_000 + (i % 100) * 700), 15_000 + (i % 1000) * 30_000)
    });
    record(&mut s, 1, 24_542, 4096, |i| {
        (Some(1314 + (i % 100) * 1000), 15_000 + (i % 1000) * 30_000)
    });
    buckets(
        &mut s,
        &[
            (13, 300),
            (14, 100),
            (15, 2200),
            (16, 21_000),
            (17, 23_900),
            (18, 1450),
            (19, 60),
            (20, 30),
            (21, 20),
            (23, 5),
            (24, 35),
        ],
    );
    samples(&mut s, 0, &[38_024, 53_960, 50_000, 54_856]);
    samples(&mut s, 1, &[37_136, 54_192, 50_000, 54_992]);
    s.depth_levels = [10, 10, 10, 49_123, 0, 0, 0];
    s.depth_submit[1] = 12_000;
    s.depth_complete = [0, 12_000, 10, 0, 0, 0, 0];
    s.runtime = Duration::from_millis(2007);
    let group = GroupResult::from_clones(0, 1024, std::iter::once(&s));
    let mut info = info("randrw", "libaio", 8);
    info.lat_percentiles = true;
    let run = RunResult {
        jobs: vec![job("aio", 0, info, s)],
        groups: vec![group],
        version: "0.1.0".into(),
        threads: 1,
        ..Default::default()
    };
    assert_same_layout(report_part(fio), &normal(&run));
}
