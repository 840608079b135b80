//! Report tests on hand-made results with known numbers.

use super::*;
use fathom_stats::{GroupResult, JobResult, Sample, ThreadStats};
use std::time::Duration;

fn run() -> RunResult {
    let mut s = ThreadStats::new();
    // 1000 reads of 4 KiB at 50..149 µs, 500 writes at 1 ms, over 2 s.
    for i in 0..1000u64 {
        s.record_io(0, 4096, None, 50_000 + (i % 100) * 1000);
        s.issued[0] += 1;
    }
    for _ in 0..500 {
        s.record_io(1, 4096, Some(2_000), 1_000_000);
        s.issued[1] += 1;
    }
    s.depth_levels[0] = 1500;
    s.depth_submit[1] = 1500;
    s.depth_complete[1] = 1500;
    s.runtime = Duration::from_millis(2000);
    for k in 0..4 {
        s.dirs[0].samples.push(Sample {
            t_ms: 500 * (k + 1),
            len_ms: 500,
            bytes: 250 * 4096,
            ios: 250,
        });
    }
    let info = JobInfo {
        rw: "randrw".into(),
        bs: [(4096, 4096); 3],
        ioengine: "psync".into(),
        iodepth: 1,
        percentile_list: fathom_stats_default_percentiles(),
        clat_percentiles: true,
        lat_percentiles: false,
        kb_base: 1024,
        description: Some("known numbers".into()),
        job_options: vec![("rw".into(), "randrw".into())],
    };
    let group = GroupResult::from_clones(0, 1024, std::iter::once(&s));
    RunResult {
        jobs: vec![JobResult {
            name: "known".into(),
            groupid: 0,
            info,
            stats: s,
            job_start_ms: 1_700_000_000_000,
            elapsed: Duration::from_millis(2100),
            pid: 42,
            ..Default::default()
        }],
        groups: vec![group],
        global_options: vec![("bs".into(), "4k".into())],
        timestamp_ms: 1_700_000_000_000,
        version: "0.1.0".into(),
        threads: 1,
        interrupted: false,
    }
}

fn fathom_stats_default_percentiles() -> Vec<f64> {
    vec![
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ]
}

fn normal_text() -> String {
    let mut out = Vec::new();
    reporter(Format::Normal)
        .write_report(&run(), &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn normal_output_has_fio_lines_with_the_right_numbers() {
    let t = normal_text();
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        lines[0].starts_with("known: (groupid=0, jobs=1): err= 0: pid=42: "),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1], "  Description  : [known numbers]");
    // 1000 reads in 2 s = 500 IOPS, 2000 KiB/s = 1.95 MiB/s.
    assert_eq!(
        lines[2],
        "  read: IOPS=500, BW=2000KiB/s (2048kB/s)(4000KiB/2000msec)"
    );
    assert!(
        t.contains("    clat (usec): min=50, max=149, avg=99.50, stdev=28.88"),
        "{t}"
    );
    assert!(t.contains("    clat percentiles (usec):\n     |  1.00th=[   50],  5.00th=[   54], 10.00th=[   59], 20.00th=[   69],"), "{t}");
    assert!(t.contains("     | 99.99th=[  149]\n"), "{t}");
    assert!(t.contains("   bw (  KiB/s): min= 2000, max= 2000, per=100.00%, avg=2000.00, stdev= 0.00, samples=4"), "{t}");
    assert!(
        t.contains("   iops        : min=  500, max=  500, avg=500.00, stdev= 0.00, samples=4"),
        "{t}"
    );
    assert!(
        t.contains("  write: IOPS=250, BW=1000KiB/s (1024kB/s)(2000KiB/2000msec)"),
        "{t}"
    );
    assert!(
        t.contains("    slat (usec): min=2, max=2, avg=2.00, stdev=0.00")
            || t.contains("    slat (nsec): min=2000, max=2000, avg=2000.00, stdev=0.00"),
        "{t}"
    );
    assert!(
        t.contains("  lat (usec)   : 100=33.33%, 250=33.33%\n"),
        "{t}"
    );
    assert!(t.contains("  lat (msec)   : 2=33.33%\n"), "{t}");
    assert!(t.contains(
        "  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%"
    ));
    assert!(t.contains("     submit    : 0=0.0%, 4=100.0%,"));
    assert!(t.contains("     issued rwts: total=1000,500,0,0 short=0,0,0,0 dropped=0,0,0,0"));
    assert!(t.contains("     latency   : target=0, window=0, percentile=100.00%, depth=1"));
    assert!(t.contains("depth=1\n\nRun status group 0 (all jobs):\n   READ: bw=2000KiB/s (2048kB/s), 2000KiB/s-2000KiB/s (2048kB/s-2048kB/s), io=4000KiB (4096kB), run=2000-2000msec\n  WRITE: bw=1000KiB/s (1024kB/s),"), "{t}");
}

#[test]
fn the_layout_matches_fio_3_33_line_by_line() {
    // Captured from fio 3.33 (psync randread, see tests/data/fio-3.33-normal.txt): the
    // numbers differ, the shape of each line must not.
    let fio = include_str!("../tests/data/fio-3.33-normal.txt");
    let shape = |l: &str| -> String {
        let l = l.replace("=  ", "=").replace("= ", "=");
        l.chars()
            .map(|c| {
                if c.is_ascii_digit() || c == '.' {
                    '9'
                } else {
                    c
                }
            })
            .collect::<String>()
            .split('9')
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("#")
    };
    let ours = normal_text();
    for key in [
        "    clat (usec)",
        "    clat percentiles",
        "   bw (  KiB/s)",
        "   iops        :",
        "  cpu          :",
        "  IO depths    :",
        "     submit    :",
        "     issued rwts:",
        "     latency   :",
        "   READ: bw=",
    ] {
        let f = fio
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("fio sample lacks {key}"));
        let o = ours
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("ours lacks {key}"));
        let (f, o) = (shape(f), shape(o));
        // Compare the words and separators, ignoring how wide the numbers are and units.
        let strip = |s: String| {
            s.replace("= ", "=")
                .replace("=  ", "=")
                .replace("KiB", "U")
                .replace("MiB", "U")
                .replace("kB", "U")
                .replace("MB", "U")
                .replace("k,", ",")
        };
        assert_eq!(strip(f), strip(o), "line {key:?}");
    }
}

#[test]
fn json_has_fio_keys_units_and_consistent_numbers() {
    let v = json::document(&run());
    assert_eq!(v["fathom version"], "fathom-0.1.0");
    assert_eq!(v["global options"]["bs"], "4k");
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "fathom version",
            "timestamp",
            "timestamp_ms",
            "time",
            "global options",
            "jobs",
            "disk_util"
        ]
    );
    let j = &v["jobs"][0];
    let jk: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(
        &jk[..7],
        [
            "jobname",
            "groupid",
            "job_start",
            "error",
            "eta",
            "elapsed",
            "job options"
        ]
    );
    assert_eq!(j["elapsed"], 3, "2.1 s rounds up as fio");
    let r = &j["read"];
    assert_eq!(r["io_bytes"], 4_096_000);
    assert_eq!(r["io_kbytes"], 4000);
    assert_eq!(r["bw_bytes"], 2_048_000);
    assert_eq!(r["bw"], 2000);
    assert_eq!(r["iops"], 500.0);
    assert_eq!(r["runtime"], 2000);
    assert_eq!(r["clat_ns"]["N"], 1000);
    assert_eq!(r["clat_ns"]["min"], 50_000);
    // p99 of 1000 samples is the 990th: 148 µs. HDR reports it within 0.1% above.
    let p99 = r["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap();
    assert!((148_000..=148_148).contains(&p99), "{p99}");
    assert!(r["lat_ns"].get("percentile").is_none());
    assert_eq!(r["bw_samples"], 4);
    assert_eq!(r["bw_mean"], 2000.0);
    assert_eq!(r["bw_agg"], 100.0);
    assert_eq!(j["write"]["slat_ns"]["mean"], 2000.0);
    assert_eq!(j["write"]["lat_ns"]["min"], 1_002_000);
    assert_eq!(j["trim"]["total_ios"], 0);
    assert_eq!(j["iodepth_level"]["1"], 100.0);
    assert_eq!(j["latency_us"]["100"].as_f64().unwrap().round(), 33.0);
    assert_eq!(j["latency_ms"]["2"].as_f64().unwrap().round(), 33.0);
    assert_eq!(j["desc"], "known numbers");
}

#[test]
fn formats_parse_and_refuse_what_is_not_there() {
    assert_eq!(
        parse_formats("normal,json,normal").unwrap(),
        vec![Format::Normal, Format::Json]
    );
    assert!(parse_formats("terse")
        .unwrap_err()
        .contains("not supported yet"));
    assert!(parse_formats("xml").unwrap_err().contains("unknown"));
}

#[test]
fn preamble_lines() {
    let mut out = Vec::new();
    let info = run().jobs[0].info.clone();
    write_preamble(&[("known".into(), 0, info, 2)], "0.1.0", 2, &mut out).unwrap();
    let t = String::from_utf8(out).unwrap();
    assert_eq!(
        t,
        "known: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n...\nfathom-0.1.0\nStarting 2 threads\n\n"
    );
}
