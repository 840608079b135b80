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
            ..Default::default()
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
        ..Default::default()
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
        ..Default::default()
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

/// The fixture's whole normal report, with the local-time ctime masked.
const FIXTURE_NORMAL: &str = "
known: (groupid=0, jobs=1): err= 0: pid=42: CTIME
  Description  : [known numbers]
  read: IOPS=500, BW=2000KiB/s (2048kB/s)(4000KiB/2000msec)
    clat (usec): min=50, max=149, avg=99.50, stdev=28.88
     lat (usec): min=50, max=149, avg=99.50, stdev=28.88
    clat percentiles (usec):
     |  1.00th=[   51],  5.00th=[   55], 10.00th=[   60], 20.00th=[   70],
     | 30.00th=[   80], 40.00th=[   90], 50.00th=[  100], 60.00th=[  110],
     | 70.00th=[  120], 80.00th=[  130], 90.00th=[  140], 95.00th=[  145],
     | 99.00th=[  149], 99.50th=[  149], 99.90th=[  149], 99.95th=[  149],
     | 99.99th=[  149]
   bw (  KiB/s): min= 2000, max= 2000, per=100.00%, avg=2000.00, stdev= 0.00, samples=4
   iops        : min=  500, max=  500, avg=500.00, stdev= 0.00, samples=4
  write: IOPS=250, BW=1000KiB/s (1024kB/s)(2000KiB/2000msec); 0 zone resets
    slat (nsec): min=2000, max=2000, avg=2000.00, stdev= 0.00
    clat (nsec): min=1000.0k, max=1000.0k, avg=1000000.00, stdev= 0.00
     lat (nsec): min=1002.0k, max=1002.0k, avg=1002000.00, stdev= 0.00
    clat percentiles (usec):
     |  1.00th=[ 1000],  5.00th=[ 1000], 10.00th=[ 1000], 20.00th=[ 1000],
     | 30.00th=[ 1000], 40.00th=[ 1000], 50.00th=[ 1000], 60.00th=[ 1000],
     | 70.00th=[ 1000], 80.00th=[ 1000], 90.00th=[ 1000], 95.00th=[ 1000],
     | 99.00th=[ 1000], 99.50th=[ 1000], 99.90th=[ 1000], 99.95th=[ 1000],
     | 99.99th=[ 1000]
  lat (usec)   : 100=33.33%, 250=33.33%
  lat (msec)   : 2=33.33%
  cpu          : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=0
  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%
     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%
     issued rwts: total=1000,500,0,0 short=0,0,0,0 dropped=0,0,0,0
     latency   : target=0, window=0, percentile=100.00%, depth=1

Run status group 0 (all jobs):
   READ: bw=2000KiB/s (2048kB/s), 2000KiB/s-2000KiB/s (2048kB/s-2048kB/s), io=4000KiB (4096kB), run=2000-2000msec
  WRITE: bw=1000KiB/s (1024kB/s), 1000KiB/s-1000KiB/s (1024kB/s-1024kB/s), io=2000KiB (2048kB), run=2000-2000msec
";

fn mask_ctime(t: &str) -> String {
    t.lines()
        .map(|l| match l.find(": pid=") {
            Some(i) => {
                let rest = &l[i + 6..];
                let pid_end = rest.find(": ").map(|j| i + 6 + j + 2).unwrap_or(l.len());
                format!("{}CTIME", &l[..pid_end])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn normal_output_is_fio_text_for_known_numbers() {
    // 1000 reads at 50..149 µs and 500 writes with 2 µs slat and 1 ms clat over 2 s.
    // Percentiles are rounded *up* to the unit as fio does (50 µs shows as 51 because
    // the histogram bucket holding 50 000 ns ends at 50 015 ns).
    assert_eq!(mask_ctime(&normal_text()), FIXTURE_NORMAL);
}

fn stats_with(dir: usize, ios: u64, bs: u64, runtime_ms: u64) -> ThreadStats {
    let mut s = ThreadStats::new();
    for _ in 0..ios {
        s.record_io(dir, bs, None, 20);
    }
    s.issued[dir] = ios;
    s.runtime = Duration::from_millis(runtime_ms);
    s
}

fn one_job(stats: ThreadStats, kb_base: u32) -> RunResult {
    let group = GroupResult::from_clones(0, kb_base, std::iter::once(&stats));
    RunResult {
        jobs: vec![JobResult {
            name: "j".into(),
            info: JobInfo {
                kb_base,
                iodepth: 1,
                ..Default::default()
            },
            stats,
            ..Default::default()
        }],
        groups: vec![group],
        version: "0.1.0".into(),
        ..Default::default()
    }
}

fn normal_of(run: &RunResult) -> String {
    let mut out = Vec::new();
    reporter(Format::Normal)
        .write_report(run, &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn line_starting<'a>(t: &'a str, prefix: &str) -> &'a str {
    t.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in\n{t}"))
}

#[test]
fn direction_lines_match_what_fio_printed_for_the_same_counts() {
    // fio 3.33 (tests/data/fio-3.33-multi.txt): 1992 reads of 4 KiB in 1 ms.
    let t = normal_of(&one_job(stats_with(0, 1992, 4096, 1), 1024));
    assert_eq!(
        line_starting(&t, "  read:"),
        "  read: IOPS=1992k, BW=7781MiB/s (8159MB/s)(7968KiB/1msec)"
    );
    // 2104 writes of 4 KiB in 1 ms; fio adds its zone-reset count to write lines.
    let t = normal_of(&one_job(stats_with(1, 2104, 4096, 1), 1024));
    assert_eq!(
        line_starting(&t, "  write:"),
        "  write: IOPS=2104k, BW=8219MiB/s (8618MB/s)(8416KiB/1msec); 0 zone resets"
    );
    // fio 3.33 (tests/data/fio-3.33-libaio.txt): 24611 reads of 4 KiB in 2007 ms.
    let t = normal_of(&one_job(stats_with(0, 24_611, 4096, 2007), 1024));
    assert_eq!(
        line_starting(&t, "  read:"),
        "  read: IOPS=12.3k, BW=47.9MiB/s (50.2MB/s)(96.1MiB/2007msec)"
    );
    assert_eq!(
        line_starting(&t, "   READ:"),
        "   READ: bw=47.9MiB/s (50.2MB/s), 47.9MiB/s-47.9MiB/s (50.2MB/s-50.2MB/s), io=96.1MiB (101MB), run=2007-2007msec"
    );
    // kb_base=1000 puts the SI units first.
    let t = normal_of(&one_job(stats_with(0, 24_611, 4096, 2007), 1000));
    assert_eq!(
        line_starting(&t, "  read:"),
        "  read: IOPS=12.3k, BW=50.2MB/s (47.9MiB/s)(101MB/2007msec)"
    );
}

#[test]
fn group_lines_match_fio_for_two_jobs() {
    // fio 3.33 group 0 of tests/data/fio-3.33-multi.txt: jobs of 7968 KiB and 8192 KiB
    // read in 1 ms each.
    let a = stats_with(0, 1992, 4096, 1);
    let b = stats_with(0, 128, 65_536, 1);
    let g = GroupResult::from_clones(0, 1024, [&a, &b].into_iter());
    let run = RunResult {
        jobs: vec![],
        groups: vec![g],
        ..Default::default()
    };
    assert_eq!(
        normal_of(&run),
        "\n\nRun status group 0 (all jobs):\n   READ: bw=15.4GiB/s (16.5GB/s), 7781MiB/s-8000MiB/s (8159MB/s-8389MB/s), io=15.8MiB (16.5MB), run=1-1msec\n"
    );
}

#[test]
fn jobs_follow_each_other_without_blank_lines_and_groups_are_separated() {
    let mut run = one_job(stats_with(0, 10, 4096, 10), 1024);
    let mut second = run.jobs[0].clone();
    second.name = "k".into();
    second.groupid = 1;
    run.jobs.push(second);
    let mut g1 = run.groups[0].clone();
    g1.groupid = 1;
    run.groups.push(g1);
    let t = normal_of(&run);
    assert!(
        t.starts_with("\nj: (groupid=0, jobs=1): err= 0: pid=0: "),
        "{t}"
    );
    assert!(t.contains("depth=1\nk: (groupid=1, jobs=1)"), "{t}");
    assert!(
        t.contains("depth=1\n\nRun status group 0 (all jobs):\n   READ: "),
        "{t}"
    );
    assert!(
        t.contains("msec\n\nRun status group 1 (all jobs):\n   READ: "),
        "{t}"
    );
}

#[test]
fn a_job_that_did_nothing_is_left_out_and_errors_show_their_text() {
    let mut run = one_job(ThreadStats::new(), 1024);
    assert_eq!(normal_of(&run), "\n\nRun status group 0 (all jobs):\n");
    let mut s = stats_with(1, 3, 4096, 5);
    s.error = 5;
    run = one_job(s, 1024);
    run.jobs[0].error_text = Some("file:x, func=io_u error, error=Input/output error".into());
    let t = normal_of(&run);
    assert!(
        t.starts_with("\nj: (groupid=0, jobs=1): err= 5 (file:x, func=io_u error, error=Input/output error): pid=0: "),
        "{t}"
    );
}

fn lat_of(values: impl IntoIterator<Item = u64>) -> fathom_stats::LatStat {
    let mut l = fathom_stats::LatStat::new();
    for v in values {
        l.record(v);
    }
    l
}

fn with_read_clat(l: fathom_stats::LatStat, info: JobInfo) -> RunResult {
    let mut s = ThreadStats::new();
    s.dirs[0].ios = l.count();
    s.dirs[0].bytes = l.count() * 4096;
    s.dirs[0].clat = l;
    s.issued[0] = s.dirs[0].ios;
    s.runtime = Duration::from_millis(1000);
    let mut run = one_job(s, 1024);
    run.jobs[0].info = info;
    run
}

#[test]
fn latency_lines_scale_only_when_fio_would() {
    // min > 2 µs, max > 99.999 µs and stddev > 1 µs: usec; min/max truncate.
    let t = normal_of(&with_read_clat(
        lat_of([41_900, 80_000, 1_152_999]),
        JobInfo::default(),
    ));
    assert_eq!(
        line_starting(&t, "    clat"),
        "    clat (usec): min=41, max=1152, avg=424.97, stdev=630.78"
    );
    // stddev under 1 µs keeps nsec even for ms values, and num2str keeps 6 figures.
    let t = normal_of(&with_read_clat(
        lat_of([1_000_000, 1_000_100]),
        JobInfo::default(),
    ));
    assert_eq!(
        line_starting(&t, "    clat"),
        "    clat (nsec): min=1000.0k, max=1000.1k, avg=1000050.00, stdev=70.71"
    );
    // Small values: fio's avg/stdev are %5.02f, padded to five characters.
    let t = normal_of(&with_read_clat(lat_of([18, 20, 22]), JobInfo::default()));
    assert_eq!(
        line_starting(&t, "    clat"),
        "    clat (nsec): min=18, max=22, avg=20.00, stdev= 2.00"
    );
    // msec: min > 2 ms, max > 99.999999 ms, stddev > 1 ms.
    let t = normal_of(&with_read_clat(
        lat_of([3_000_000, 150_000_000]),
        JobInfo::default(),
    ));
    assert_eq!(
        line_starting(&t, "    clat"),
        "    clat (msec): min=3, max=150, avg=76.50, stdev=103.94"
    );
}

#[test]
fn percentile_blocks_follow_fio_widths_precision_and_units() {
    let info = |list: Vec<f64>| JobInfo {
        percentile_list: list,
        clat_percentiles: true,
        ..Default::default()
    };
    // nsec (the smallest value is under 2 µs) with a 7-digit maximum: columns 7 wide,
    // three per line ((80 - 7) / (2 + 10 + 7)).
    let values = (1..=1000u64).map(|i| if i <= 500 { 100 } else { 5_000_000 });
    let t = normal_of(&with_read_clat(
        lat_of(values),
        info(vec![1.0, 50.0, 60.0, 99.0, 99.99]),
    ));
    let block: Vec<&str> = t
        .lines()
        .skip_while(|l| !l.starts_with("    clat percentiles"))
        .take(3)
        .collect();
    assert_eq!(
        block,
        [
            "    clat percentiles (nsec):",
            "     |  1.00th=[    100], 50.00th=[    100], 60.00th=[5000000],",
            "     | 99.00th=[5000000], 99.99th=[5000000]",
        ]
    );
    // A list typed without decimals prints without decimals; the list is sorted. (HDR
    // reports the top of the 256 ns bucket holding 500 µs, which rounds up to 501.)
    let t = normal_of(&with_read_clat(
        lat_of((1..=100u64).map(|i| i * 10_000)),
        info(vec![99.0, 50.0]),
    ));
    assert!(
        t.contains("    clat percentiles (usec):\n     |  50th=[  501],  99th=[  991]\n"),
        "{t}"
    );
    // msec when the smallest value is over 2 ms and the largest over 99.999999 ms;
    // values round up.
    let t = normal_of(&with_read_clat(
        lat_of([3_000_000, 150_000_000]),
        info(vec![50.0, 100.0]),
    ));
    assert!(
        t.contains("    clat percentiles (msec):\n     |  50th=[    4], 100th=[  150]\n"),
        "{t}"
    );
    // lat percentiles come after clat's when both are on.
    let mut i = info(vec![50.0]);
    i.lat_percentiles = true;
    let mut run = with_read_clat(lat_of([1000]), i);
    run.jobs[0].stats.dirs[0].lat = lat_of([1500]);
    let t = normal_of(&run);
    assert!(
        t.contains("    clat percentiles (nsec):\n     |  50th=[ 1000]\n    lat percentiles (nsec):\n     |  50th=[ 1500]\n"),
        "{t}"
    );
}

#[test]
fn bandwidth_lines_switch_to_mib_and_cap_the_group_share() {
    let mut s = stats_with(0, 1000, 1 << 20, 1000);
    // Two 500 ms samples of 1.5 and 2.5 GiB/s (mean 2 GiB/s > 1024² KiB/s).
    for (k, gib) in [(1u64, 3u64), (2, 5)] {
        s.dirs[0].samples.push(Sample {
            t_ms: 500 * k,
            len_ms: 500,
            bytes: gib << 28,
            ios: 1000 * k,
            ..Default::default()
        });
    }
    let mut run = one_job(s, 1024);
    let t = normal_of(&run);
    assert_eq!(
        line_starting(&t, "   bw ("),
        "   bw (  MiB/s): min= 1536, max= 2560, per=100.00%, avg=2048.00, stdev=724.08, samples=2"
    );
    assert_eq!(
        line_starting(&t, "   iops"),
        "   iops        : min= 2000, max= 4000, avg=3000.00, stdev=1414.21, samples=2"
    );
    // This job's share of a group whose aggregate is 4× its mean.
    run.groups[0].dirs[0].agg_bw = 4.0 * 2048.0 * 1048576.0;
    let t = normal_of(&run);
    assert!(line_starting(&t, "   bw (").contains("per=25.00%"), "{t}");
    // kb_base=1000: fio labels the (still KiB-based) samples kB.
    run.groups[0].kb_base = 1000;
    run.jobs[0].stats.dirs[0].samples.truncate(1);
    run.jobs[0].stats.dirs[0].samples[0].bytes = 4096 * 500;
    let t = normal_of(&run);
    assert!(
        line_starting(&t, "   bw (").starts_with("   bw (   kB/s): min= 4000,"),
        "{t}"
    );
}

#[test]
fn distribution_lines_use_fio_floors_and_five_per_line() {
    let mut s = stats_with(0, 10, 4096, 10);
    s.lat_buckets = [0; fathom_stats::LAT_BUCKETS];
    // usec buckets 20, 50, 100, 250, 500, 750, 1000 and one I/O in 20 000 at 4 ms.
    for (k, n) in [
        (13, 100),
        (14, 100),
        (15, 1000),
        (16, 8000),
        (17, 9000),
        (18, 1000),
        (19, 799),
        (21, 1),
    ] {
        s.lat_buckets[k] = n;
    }
    s.depth_levels = [1, 0, 0, 19_999, 0, 0, 0];
    let t = normal_of(&one_job(s, 1024));
    assert!(
        t.contains("  lat (usec)   : 20=0.50%, 50=0.50%, 100=5.00%, 250=40.00%, 500=45.00%\n  lat (usec)   : 750=5.00%, 1000=4.00%\n  lat (msec)   : 4=0.01%\n"),
        "{t}"
    );
    assert!(
        t.contains(
            "  IO depths    : 1=0.1%, 2=0.0%, 4=0.0%, 8=100.0%, 16=0.0%, 32=0.0%, >=64=0.0%\n"
        ),
        "{t}"
    );
}

#[test]
fn sync_block_comes_after_the_distribution_and_counts_in_issued() {
    let mut s = stats_with(1, 8, 4096, 10);
    // Two fsyncs and an fdatasync: the block holds all three, `issued` (fio's
    // total_io_u[sync]) the fsyncs.
    for _ in 0..3 {
        s.sync.record(20);
    }
    s.fsyncs = 2;
    let mut run = one_job(s, 1024);
    run.jobs[0].info.percentile_list = vec![50.0];
    let t = normal_of(&run);
    assert!(
        t.contains("  lat (nsec)   : 50=100.00%\n  fsync/fdatasync/sync_file_range:\n    sync (nsec): min=20, max=20, avg=20.00, stdev= 0.00\n    sync percentiles (nsec):\n     |  50th=[   20]\n  cpu          :"),
        "{t}"
    );
    assert!(t.contains("issued rwts: total=0,8,0,2 "), "{t}");
}

#[test]
fn json_has_fio_keys_units_and_consistent_numbers() {
    let v = json::document(&run());
    assert_eq!(v["fio version"], "fio-3.33-fathom-0.1.0");
    assert_eq!(v["fathom version"], "fathom-0.1.0");
    assert_eq!(v["global options"]["bs"], "4k");
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "fio version",
            "timestamp",
            "timestamp_ms",
            "time",
            "global options",
            "jobs",
            "disk_util",
            "fathom version"
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

fn keys_of(v: &serde_json::Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(|k| k.as_str()).collect()
}

#[test]
fn json_keys_come_in_fio_order() {
    let v = json::document(&run());
    let j = &v["jobs"][0];
    assert_eq!(
        keys_of(j),
        [
            "jobname",
            "groupid",
            "job_start",
            "error",
            "eta",
            "elapsed",
            "job options",
            "read",
            "write",
            "trim",
            "sync",
            "job_runtime",
            "usr_cpu",
            "sys_cpu",
            "ctx",
            "majf",
            "minf",
            "iodepth_level",
            "iodepth_submit",
            "iodepth_complete",
            "latency_ns",
            "latency_us",
            "latency_ms",
            "latency_depth",
            "latency_target",
            "latency_percentile",
            "latency_window",
            "desc",
            "layout_ms",
        ]
    );
    assert_eq!(
        keys_of(&j["trim"]),
        [
            "io_bytes",
            "io_kbytes",
            "bw_bytes",
            "bw",
            "iops",
            "runtime",
            "total_ios",
            "short_ios",
            "drop_ios",
            "slat_ns",
            "clat_ns",
            "lat_ns",
            "bw_min",
            "bw_max",
            "bw_agg",
            "bw_mean",
            "bw_dev",
            "bw_samples",
            "iops_min",
            "iops_max",
            "iops_mean",
            "iops_stddev",
            "iops_samples",
        ]
    );
    assert_eq!(
        keys_of(&j["trim"]["slat_ns"]),
        ["min", "max", "mean", "stddev", "N"]
    );
    assert_eq!(
        keys_of(&j["latency_ms"]),
        ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"]
    );
    assert_eq!(
        keys_of(&j["iodepth_submit"]),
        ["0", "4", "8", "16", "32", "64", ">=64"]
    );
    assert_eq!(
        keys_of(&j["iodepth_level"]),
        ["1", "2", "4", "8", "16", "32", ">=64"]
    );
}

#[test]
fn json_numbers_are_self_consistent() {
    let v = json::document(&run());
    for d in ["read", "write", "trim"] {
        let o = &v["jobs"][0][d];
        let (io, bw_bytes, bw, rt) = (
            o["io_bytes"].as_u64().unwrap(),
            o["bw_bytes"].as_u64().unwrap(),
            o["bw"].as_u64().unwrap(),
            o["runtime"].as_u64().unwrap(),
        );
        assert_eq!(o["io_kbytes"].as_u64().unwrap(), io >> 10, "{d}");
        assert_eq!(bw, bw_bytes / 1024, "{d}");
        assert_eq!(bw_bytes, (io * 1000).checked_div(rt).unwrap_or(0), "{d}");
        assert_eq!(o["clat_ns"]["N"], o["total_ios"], "{d}");
        assert_eq!(o["lat_ns"]["N"], o["total_ios"], "{d}");
        for l in ["slat_ns", "clat_ns", "lat_ns"] {
            let (min, max, mean) = (
                o[l]["min"].as_u64().unwrap() as f64,
                o[l]["max"].as_u64().unwrap() as f64,
                o[l]["mean"].as_f64().unwrap(),
            );
            assert!(min <= mean && mean <= max, "{d} {l}");
        }
    }
}

#[test]
fn json_bandwidth_is_kib_whatever_kb_base_and_the_group_share_is_capped() {
    let mut r = run();
    r.jobs[0].info.kb_base = 1000;
    r.groups[0].kb_base = 1000;
    // A group aggregate below this job's mean (clones ran at different times): fio caps.
    r.groups[0].dirs[0].agg_bw = 1_024_000.0;
    let v = json::document(&r);
    let read = &v["jobs"][0]["read"];
    assert_eq!(read["bw"], 2000, "bw is bw_bytes / 1024");
    assert_eq!(read["bw_mean"], 2000.0, "samples are KiB/s");
    assert_eq!(read["bw_agg"], 100.0);
    assert_eq!(v["jobs"][0]["write"]["bw_agg"], 0.0, "no samples, no share");
    // Half the group's aggregate: 50%.
    r.groups[0].dirs[0].agg_bw = 4_096_000.0;
    let v = json::document(&r);
    assert_eq!(v["jobs"][0]["read"]["bw_agg"], 50.0);
}

#[test]
fn json_leaves_out_empty_option_lists_and_sync_percentiles_follow_the_switches() {
    let mut r = run();
    r.global_options.clear();
    r.jobs[0].info.job_options.clear();
    r.jobs[0].stats.sync.record(20);
    r.jobs[0].stats.fsyncs = 1;
    let v = json::document(&r);
    assert!(v.get("global options").is_none());
    assert!(v["jobs"][0].get("job options").is_none());
    assert_eq!(v["jobs"][0]["sync"]["total_ios"], 1);
    assert_eq!(
        v["jobs"][0]["sync"]["lat_ns"]["percentile"]["50.000000"],
        20
    );
    r.jobs[0].info.clat_percentiles = false;
    let v = json::document(&r);
    assert!(v["jobs"][0]["sync"]["lat_ns"].get("percentile").is_none());
    assert!(v["jobs"][0]["read"]["clat_ns"].get("percentile").is_none());
}

#[test]
fn json_distributions_use_fio_floors() {
    let mut r = run();
    let s = &mut r.jobs[0].stats;
    s.lat_buckets = [0; fathom_stats::LAT_BUCKETS];
    s.lat_buckets[15] = 99_999;
    s.lat_buckets[31] = 1;
    s.depth_levels = [1, 0, 0, 0, 0, 0, 9999];
    let v = json::document(&r);
    let j = &v["jobs"][0];
    assert_eq!(j["latency_ms"][">=2000"], 0.01);
    assert!((j["latency_us"]["100"].as_f64().unwrap() - 99.999).abs() < 1e-9);
    assert_eq!(j["latency_ns"]["2"], 0.0);
    assert_eq!(j["iodepth_level"]["1"], 0.1);
    assert!((j["iodepth_level"][">=64"].as_f64().unwrap() - 99.99).abs() < 1e-9);
}

#[test]
fn formats_parse_and_refuse_what_is_not_there() {
    assert_eq!(
        parse_formats("normal,json,normal").unwrap(),
        vec![Format::Normal, Format::Json]
    );
    assert_eq!(
        parse_formats("terse,json+,csv,markdown,native").unwrap(),
        vec![
            Format::Terse(3),
            Format::JsonPlus,
            Format::Csv,
            Format::Markdown,
            Format::Native
        ]
    );
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
        "known: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n...\nfathom-0.1.0\nStarting 2 threads\n"
    );
}

#[test]
fn cpu_is_never_over_100_percent_per_thread() {
    let mut s = ThreadStats::new();
    s.clones = 1;
    s.runtime = std::time::Duration::from_millis(1);
    // Tick-based accounting charged 4 ms of CPU to a 1 ms run.
    s.cpu.usr = std::time::Duration::from_millis(3);
    s.cpu.sys = std::time::Duration::from_millis(1);
    let (usr, sys) = crate::cpu_percent(&s);
    assert!((usr + sys - 100.0).abs() < 1e-9, "{usr} + {sys}");
    assert!((usr / sys - 3.0).abs() < 1e-9, "the split is kept");
}

#[test]
fn a_groups_cpu_and_job_runtime_are_over_its_clones_runtimes_added_as_fio() {
    // Two clones of 1 s, each busy half the time in user space: fio's group says
    // usr_cpu=50% over job_runtime=2000 (its total_run_time), not 100% over 1000.
    let clone = || {
        let mut s = ThreadStats::new();
        s.runtime = std::time::Duration::from_millis(1000);
        s.cpu.usr = std::time::Duration::from_millis(500);
        s.record_io(0, 4096, None, 1000);
        s
    };
    let mut g = clone();
    g.merge(&clone());
    assert_eq!(g.total_run_time(), std::time::Duration::from_millis(2000));
    assert_eq!(crate::total_run_ms(&g), 2000);
    let (usr, sys) = crate::cpu_percent(&g);
    assert!((usr - 50.0).abs() < 1e-9 && sys == 0.0, "{usr} {sys}");
    // A single clone: its own runtime.
    assert_eq!(crate::total_run_ms(&clone()), 1000);
}

// fio's runtimes: each direction's own (a verify phase counts for the reads only), in
// whole ms rounded up from the microseconds; the group's run= and bandwidths from them.
#[test]
fn each_direction_has_its_own_runtime_rounded_up_as_fio() {
    let mut r = run();
    let s = &mut r.jobs[0].stats;
    s.runtime = Duration::from_micros(2_000_400);
    s.dir_runtime = Some([
        Duration::from_micros(1_500_001),
        Duration::from_micros(500_399),
        Duration::ZERO,
    ]);
    r.groups = vec![GroupResult::from_clones(
        0,
        1024,
        std::iter::once(&r.jobs[0].stats),
    )];
    let mut out = Vec::new();
    reporter(Format::Json).write_report(&r, &mut out).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let j = &v["jobs"][0];
    assert_eq!(j["read"]["runtime"], 1501);
    assert_eq!(j["write"]["runtime"], 501);
    // bw_bytes = io_bytes × 1000 / runtime, each over its own.
    assert_eq!(j["read"]["bw_bytes"], 1000 * 4096 * 1000u64 / 1501);
    assert_eq!(j["write"]["bw_bytes"], 500 * 4096 * 1000u64 / 501);
    let text = {
        let mut out = Vec::new();
        reporter(Format::Normal).write_report(&r, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    assert!(text.contains("run=1501-1501msec"), "{text}");
    assert!(text.contains("run=501-501msec"), "{text}");
    assert!(text.contains("B/1501msec)"), "{text}");
    // Without per-direction runtimes, every direction ran the whole (rounded up).
    r.jobs[0].stats.dir_runtime = None;
    let mut out = Vec::new();
    reporter(Format::Json).write_report(&r, &mut out).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["jobs"][0]["read"]["runtime"], 2001);
    assert_eq!(v["jobs"][0]["write"]["runtime"], 2001);
}
