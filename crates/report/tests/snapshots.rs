//! Every output format, snapshotted (insta) on one result with scripted latencies: a
//! change to any format shows as a reviewed diff (`cargo insta review`).

use fathom_report::{reporter, Format};
use fathom_stats::{GroupResult, JobInfo, JobResult, RunResult, Sample, ThreadStats};
use std::time::Duration;

/// Two jobs with known numbers: a randrw job (reads 100..=1099 µs-ish clat, writes
/// slower) and a read job with slat (an async engine), over 2 s.
fn run() -> RunResult {
    // Timestamps print in local time: pin the zone.
    std::env::set_var("TZ", "UTC");
    let mut a = ThreadStats::new();
    for i in 0..1000u64 {
        a.record_io(0, 4096, None, 100_000 + i * 1_000);
        if i % 3 == 0 {
            a.record_io(1, 4096, None, 2_000_000 + i * 7_000);
        }
    }
    a.runtime = Duration::from_millis(2000);
    for d in [0, 1] {
        a.dirs[d].samples = (0..4)
            .map(|k| Sample {
                t_ms: k * 500,
                len_ms: 500,
                bytes: a.dirs[d].bytes / 4,
                ios: a.dirs[d].ios / 4,
                ..Default::default()
            })
            .collect();
    }
    a.finish();
    let mut b = ThreadStats::new();
    for i in 0..500u64 {
        b.record_io(0, 65536, Some(2_000 + i), 50_000 + i * 150);
    }
    b.runtime = Duration::from_millis(2000);
    b.finish();
    let info = |rw: &str, engine: &str| JobInfo {
        rw: rw.into(),
        bs: [(4096, 4096); 3],
        ioengine: engine.into(),
        iodepth: 1,
        percentile_list: vec![1.0, 5.0, 10.0, 50.0, 90.0, 99.0, 99.9],
        clat_percentiles: true,
        kb_base: 1024,
        ..Default::default()
    };
    let group = GroupResult::from_clones(0, 1024, [&a, &b].into_iter());
    RunResult {
        jobs: vec![
            JobResult {
                name: "mixed".into(),
                info: info("randrw", "psync"),
                stats: a,
                job_start_ms: 1_700_000_000_000,
                elapsed: Duration::from_millis(2000),
                pid: 4242,
                ..Default::default()
            },
            JobResult {
                name: "reader".into(),
                info: info("read", "libaio"),
                stats: b,
                job_start_ms: 1_700_000_000_000,
                elapsed: Duration::from_millis(2000),
                pid: 4242,
                ..Default::default()
            },
        ],
        groups: vec![group],
        timestamp_ms: 1_700_000_000_000,
        version: "0.1.0".into(),
        threads: 2,
        ..Default::default()
    }
}

fn render(f: Format) -> String {
    let mut out = Vec::new();
    reporter(f).write_report(&run(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn normal() {
    insta::assert_snapshot!(render(Format::Normal));
}

#[test]
fn terse_v3_and_v5() {
    insta::assert_snapshot!(render(Format::Terse(3)));
    insta::assert_snapshot!("terse_v5", render(Format::Terse(5)));
}

#[test]
fn json() {
    insta::assert_snapshot!(render(Format::Json));
}

#[test]
fn json_plus() {
    insta::assert_snapshot!(render(Format::JsonPlus));
}

#[test]
fn csv() {
    insta::assert_snapshot!(render(Format::Csv));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render(Format::Markdown));
}

#[test]
fn native() {
    insta::assert_snapshot!(render(Format::Native));
}
