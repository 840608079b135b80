//! Micro-benchmarks of the per-I/O hot path: histogram record, offset generation, clock
//! reads, and the whole per-I/O loop on the null engine.
//! Run with `cargo bench --bench hot_path`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fathom::{JobSet, JobSpec, Runner, SizeSpec};
use fathom_job::{Rw, RwKind};
use fathom_stats::{LatStat, ThreadStats};
use fathom_workload::{FileRegion, Generator, Params};
use std::time::Instant;

fn record(c: &mut Criterion) {
    let mut g = c.benchmark_group("record");
    g.throughput(Throughput::Elements(1));
    let mut h = LatStat::new();
    let mut x = 12345u64;
    g.bench_function("LatStat::record", |b| {
        b.iter(|| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            h.record(black_box(1000 + (x >> 50)));
        })
    });
    let mut t = ThreadStats::new();
    g.bench_function("ThreadStats::record_io_deferred (sync I/O)", |b| {
        b.iter(|| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            t.record_io_deferred(0, 4096, None, black_box(1000 + (x >> 50)));
        })
    });
    g.bench_function(
        "ThreadStats::record_io_deferred (async I/O, with slat)",
        |b| {
            b.iter(|| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                t.record_io_deferred(0, 4096, Some(500), black_box(1000 + (x >> 50)));
            })
        },
    );
    g.finish();
}

fn params(kind: RwKind, randommap: bool) -> Params {
    let mut p = Params::simple(
        Rw { kind, suffix: 0 },
        4096,
        FileRegion {
            start: 0,
            len: 1 << 30,
        },
        0x89,
    );
    p.rwmixread = 70;
    p.time_based = true;
    p.wrap = true;
    p.randommap = randommap;
    p
}

fn generate(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate");
    g.throughput(Throughput::Elements(1));
    for (name, kind, map) in [
        ("sequential read", RwKind::Read, true),
        ("random read, random map", RwKind::RandRead, true),
        ("random read, norandommap", RwKind::RandRead, false),
        ("randrw 70/30", RwKind::RandRw, true),
    ] {
        let mut gen = Generator::new(params(kind, map)).unwrap();
        g.bench_function(name, |b| b.iter(|| black_box(gen.next_io())));
    }
    // As the plan builds a random job: fio's map unit set (the smallest of the read and
    // write sizes), here the job's own, so the draw takes the usual path.
    let mut p = params(RwKind::RandRead, true);
    p.map_unit = 4096;
    let mut gen = Generator::new(p).unwrap();
    g.bench_function("random read, random map, map unit as planned", |b| {
        b.iter(|| black_box(gen.next_io()))
    });
    g.finish();
}

fn clock(c: &mut Criterion) {
    c.bench_function("Instant::now", |b| b.iter(|| black_box(Instant::now())));
}

fn null_loop(c: &mut Criterion) {
    let mut g = c.benchmark_group("null engine loop");
    g.sample_size(10);
    for depth in [1u32, 32] {
        let ios = 1u64 << 20;
        g.throughput(Throughput::Elements(ios));
        g.bench_function(format!("randread 4k qd{depth}, 1 Mi I/Os"), |b| {
            b.iter(|| {
                let job = JobSpec {
                    name: "bench".into(),
                    ioengine: "null".into(),
                    rw: Rw {
                        kind: RwKind::RandRead,
                        suffix: 0,
                    },
                    size: Some(SizeSpec::Bytes(ios * 4096)),
                    iodepth: depth,
                    ..Default::default()
                };
                let r = Runner::new(JobSet {
                    jobs: vec![job],
                    global_options: vec![],
                })
                .run()
                .unwrap();
                assert_eq!(r.jobs[0].stats.dirs[0].ios, ios);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, record, generate, clock, null_loop);
criterion_main!(benches);
