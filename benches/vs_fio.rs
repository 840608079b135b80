//! Side-by-side comparison of fathom and fio on identical jobs.
//!
//! `cargo bench --bench vs_fio` (or `-- --pairs 7 --runtime 3 --only null`) runs every
//! case as alternating pairs (fathom, fio, fathom, fio, ...), at least 5 pairs, and prints
//! per case the median ratio fathom/fio with its spread (min–max of the pair ratios), the
//! CPU time per I/O and the peak RSS of each tool. Needs `fio` on PATH; tmpfs cases use
//! /dev/shm, disk cases the target directory.

mod common;

use common::{median, which};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

struct Case {
    name: &'static str,
    /// Job options shared by both tools (fio command-line syntax).
    args: Vec<String>,
    /// Where the file lives.
    dir: Dir,
    /// What to compare: IOPS, or wall time (layout).
    metric: Metric,
}

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    None,
    Shm,
    Disk,
}

#[derive(Clone, Copy, PartialEq)]
enum Metric {
    Iops,
    Wall,
}

#[derive(Clone, Copy, Default, Debug)]
struct Sample {
    iops: f64,
    cpu_per_io_ns: f64,
    rss_kib: i64,
    wall: f64,
}

fn cases(runtime: u32) -> Vec<Case> {
    let rt = format!("--runtime={runtime}");
    let tb = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = vec!["--name=bench".into(), "--time_based".into(), rt.clone()];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    vec![
        Case {
            name: "null randread 4k qd1",
            args: tb(&[
                "--ioengine=null",
                "--rw=randread",
                "--bs=4k",
                "--size=1g",
                "--iodepth=1",
            ]),
            dir: Dir::None,
            metric: Metric::Iops,
        },
        Case {
            name: "null randread 4k qd32",
            args: tb(&[
                "--ioengine=null",
                "--rw=randread",
                "--bs=4k",
                "--size=1g",
                "--iodepth=32",
            ]),
            dir: Dir::None,
            metric: Metric::Iops,
        },
        Case {
            name: "psync randread 4k tmpfs",
            args: tb(&[
                "--ioengine=psync",
                "--rw=randread",
                "--bs=4k",
                "--size=256m",
            ]),
            dir: Dir::Shm,
            metric: Metric::Iops,
        },
        Case {
            name: "psync randwrite 4k tmpfs",
            args: tb(&[
                "--ioengine=psync",
                "--rw=randwrite",
                "--bs=4k",
                "--size=256m",
            ]),
            dir: Dir::Shm,
            metric: Metric::Iops,
        },
        Case {
            name: "io_uring randread 4k qd32 tmpfs",
            args: tb(&[
                "--ioengine=io_uring",
                "--rw=randread",
                "--bs=4k",
                "--size=256m",
                "--iodepth=32",
            ]),
            dir: Dir::Shm,
            metric: Metric::Iops,
        },
        Case {
            name: "libaio randread 4k qd32 tmpfs",
            args: tb(&[
                "--ioengine=libaio",
                "--rw=randread",
                "--bs=4k",
                "--size=256m",
                "--iodepth=32",
            ]),
            dir: Dir::Shm,
            metric: Metric::Iops,
        },
        Case {
            name: "io_uring direct randread 4k qd32 disk",
            args: tb(&[
                "--ioengine=io_uring",
                "--direct=1",
                "--rw=randread",
                "--bs=4k",
                "--size=512m",
                "--iodepth=32",
            ]),
            dir: Dir::Disk,
            metric: Metric::Iops,
        },
        Case {
            name: "libaio direct randread 4k qd32 disk",
            args: tb(&[
                "--ioengine=libaio",
                "--direct=1",
                "--rw=randread",
                "--bs=4k",
                "--size=512m",
                "--iodepth=32",
            ]),
            dir: Dir::Disk,
            metric: Metric::Iops,
        },
        Case {
            name: "mmap randread 4k tmpfs",
            args: tb(&["--ioengine=mmap", "--rw=randread", "--bs=4k", "--size=256m"]),
            dir: Dir::Shm,
            metric: Metric::Iops,
        },
        Case {
            name: "libaio direct write 1m qd8 disk",
            args: tb(&[
                "--ioengine=libaio",
                "--direct=1",
                "--rw=write",
                "--bs=1m",
                "--size=512m",
                "--iodepth=8",
            ]),
            dir: Dir::Disk,
            metric: Metric::Iops,
        },
        Case {
            name: "libaio direct read 1m qd8 disk",
            args: tb(&[
                "--ioengine=libaio",
                "--direct=1",
                "--rw=read",
                "--bs=1m",
                "--size=512m",
                "--iodepth=8",
            ]),
            dir: Dir::Disk,
            metric: Metric::Iops,
        },
        Case {
            name: "null randread 4k numjobs=2",
            args: tb(&[
                "--ioengine=null",
                "--rw=randread",
                "--bs=4k",
                "--size=1g",
                "--numjobs=2",
                "--group_reporting",
            ]),
            dir: Dir::None,
            metric: Metric::Iops,
        },
        // Memory at depth: 64 threads x 1024 in flight; the rss column is the point
        // (a read job's 256 MiB of buffers are never touched by either tool).
        Case {
            name: "null randread 4k numjobs=64 qd1024",
            args: tb(&[
                "--ioengine=null",
                "--rw=randread",
                "--bs=4k",
                "--size=1g",
                "--numjobs=64",
                "--iodepth=1024",
            ]),
            dir: Dir::None,
            metric: Metric::Iops,
        },
        Case {
            name: "layout 1 GiB file",
            args: vec![
                "--name=layout".into(),
                "--rw=read".into(),
                "--bs=1m".into(),
                "--size=1g".into(),
                "--number_ios=1".into(),
            ],
            dir: Dir::Disk,
            metric: Metric::Wall,
        },
    ]
}

/// Run a command, returning (stdout, child CPU time, peak RSS KiB, wall seconds).
fn run(cmd: &mut Command) -> (String, Duration, i64, f64) {
    let t = Instant::now();
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id() as i32;
    let out = {
        use std::io::Read;
        let mut child = child;
        let mut s = String::new();
        child.stdout.take().unwrap().read_to_string(&mut s).unwrap();
        let mut e = String::new();
        child.stderr.take().unwrap().read_to_string(&mut e).unwrap();
        if !e.trim().is_empty() && !e.contains("note:") {
            eprintln!("  stderr: {}", e.trim());
        }
        std::mem::forget(child); // reaped below with wait4 for its rusage
        s
    };
    let mut status = 0;
    // SAFETY: wait4 fills the zeroed rusage for our own child.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::wait4(pid, &mut status, 0, &mut ru);
        ru
    };
    let wall = t.elapsed().as_secs_f64();
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    (out, tv(ru.ru_utime) + tv(ru.ru_stime), ru.ru_maxrss, wall)
}

fn total_ios_and_iops(json: &str) -> (f64, f64) {
    let start = json.find('{').unwrap_or(0);
    let v: serde_json::Value = match serde_json::from_str(&json[start..]) {
        Ok(v) => v,
        Err(_) => return (0.0, 0.0),
    };
    let (mut ios, mut iops) = (0.0, 0.0);
    for j in v["jobs"].as_array().into_iter().flatten() {
        for d in ["read", "write"] {
            ios += j[d]["total_ios"].as_f64().unwrap_or(0.0);
            iops += j[d]["iops"].as_f64().unwrap_or(0.0);
        }
    }
    (ios, iops)
}

fn sample(tool: &Path, case: &Case, dir: &Path, fio: bool) -> Sample {
    let mut c = Command::new(tool);
    c.current_dir(dir)
        .arg("--output-format=json")
        .args(&case.args);
    if fio {
        c.arg("--thread");
    }
    let (out, cpu, rss, wall) = run(&mut c);
    let (ios, iops) = total_ios_and_iops(&out);
    // Remove laid-out files so the layout case measures layout every time.
    if case.metric == Metric::Wall {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let _ = std::fs::remove_file(e.path());
        }
    }
    Sample {
        iops,
        cpu_per_io_ns: if ios > 0.0 {
            cpu.as_nanos() as f64 / ios
        } else {
            0.0
        },
        rss_kib: rss,
        wall,
    }
}

fn main() {
    let mut pairs = 5usize;
    let mut runtime = 3u32;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--pairs" => pairs = args.next().and_then(|v| v.parse().ok()).unwrap_or(5).max(1),
            "--runtime" => runtime = args.next().and_then(|v| v.parse().ok()).unwrap_or(3),
            "--only" => only = args.next(),
            "--bench" => {}
            _ => {}
        }
    }
    // `cargo bench` builds its own fathom (the bench profile, with the dev-dependencies'
    // features); FATHOM_BENCH_BIN measures another build, e.g. `cargo build --release`'s.
    // A relative FATHOM_BENCH_BIN is taken from the workspace root (cargo runs benches
    // from the package's folder, where `target/release/fathom` would not be found).
    let fathom = std::env::var_os("FATHOM_BENCH_BIN")
        .map(|p| Path::new(env!("CARGO_MANIFEST_DIR")).join(p))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_fathom")));
    if !fathom.is_file() {
        eprintln!(
            "vs_fio: no fathom binary at {} (FATHOM_BENCH_BIN)",
            fathom.display()
        );
        std::process::exit(1);
    }
    let Some(fio) = which("fio") else {
        eprintln!("vs_fio: fio is not on PATH (apt-get install fio)");
        std::process::exit(1);
    };
    let disk = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vs_fio");
    let shm = PathBuf::from("/dev/shm/fathom-vs-fio");
    let nproc = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    println!("fathom vs fio: {pairs} alternating pairs per case, {runtime} s runs, {nproc} CPUs");
    println!(
        "{:<40} {:>12} {:>12} {:>7} {:>13} {:>9} {:>9} {:>7}",
        "case", "fathom", "fio", "ratio", "spread", "cpu/io f", "cpu/io fio", "rss f/fio"
    );
    for case in cases(runtime) {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        let dir = match case.dir {
            Dir::Shm => shm.clone(),
            Dir::Disk | Dir::None => disk.clone(),
        };
        let (fa_dir, fi_dir) = (dir.join("fathom"), dir.join("fio"));
        std::fs::create_dir_all(&fa_dir).unwrap();
        std::fs::create_dir_all(&fi_dir).unwrap();
        let mut ratios = Vec::new();
        let (mut fa_v, mut fi_v, mut fa_cpu, mut fi_cpu, mut fa_rss, mut fi_rss) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..pairs {
            let a = sample(&fathom, &case, &fa_dir, false);
            let b = sample(&fio, &case, &fi_dir, true);
            let (va, vb) = match case.metric {
                Metric::Iops => (a.iops, b.iops),
                // For wall time smaller is better: report fio/fathom so > 1 means faster.
                Metric::Wall => (1.0 / a.wall, 1.0 / b.wall),
            };
            if vb > 0.0 {
                ratios.push(va / vb);
            }
            fa_v.push(match case.metric {
                Metric::Iops => a.iops,
                Metric::Wall => a.wall,
            });
            fi_v.push(match case.metric {
                Metric::Iops => b.iops,
                Metric::Wall => b.wall,
            });
            fa_cpu.push(a.cpu_per_io_ns);
            fi_cpu.push(b.cpu_per_io_ns);
            fa_rss.push(a.rss_kib as f64);
            fi_rss.push(b.rss_kib as f64);
        }
        let lo = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().cloned().fold(0.0, f64::max);
        let unit = if case.metric == Metric::Wall {
            "ms"
        } else {
            ""
        };
        println!(
            "{:<40} {:>10.0}{unit:<2} {:>10.0}{unit:<2} {:>6.2}x {:>6.2}-{:<6.2} {:>8.0}ns {:>8.0}ns {:>6.2}x",
            case.name,
            if case.metric == Metric::Wall { median(&mut fa_v) * 1000.0 } else { median(&mut fa_v) },
            if case.metric == Metric::Wall { median(&mut fi_v) * 1000.0 } else { median(&mut fi_v) },
            median(&mut ratios),
            lo,
            hi,
            median(&mut fa_cpu),
            median(&mut fi_cpu),
            median(&mut fa_rss) / median(&mut fi_rss).max(1.0),
        );
        let _ = std::fs::remove_dir_all(&fa_dir);
        let _ = std::fs::remove_dir_all(&fi_dir);
    }
    let _ = std::fs::remove_dir_all(&shm);
    println!("(layout: wall time in ms; ratio = fio time / fathom time, > 1 is faster)");
}
