//! Scale, side by side with fio: how the wall time grows with the number of files, jobs
//! and queue depth.
//!
//! `cargo bench --bench scale` (options: `--pairs 3`, `--max 100000` for the largest file
//! count, `--only filestat`) runs each case at each size as alternating pairs (fathom,
//! fio, …) on tmpfs (/dev/shm) and prints per size the median wall times, their ratio
//! fathom/fio (< 1 is faster) and the IOPS each tool reports; per case the growth
//! exponent of each tool (the slope of log time over log size: 1.0 is linear). Files
//! that a case needs beforehand (filestat, filedelete) are made untimed before each run.

mod common;

use common::{median, which};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(Clone, Copy, PartialEq)]
enum Pre {
    /// Nothing before the timed run; files it leaves are removed after it.
    Clean,
    /// The files exist before the timed run (made untimed).
    Files,
}

struct Case {
    name: &'static str,
    /// Sizes (the number of files, jobs or the depth).
    sizes: Vec<u64>,
    /// The job for size `n` (fio command-line syntax, both tools).
    args: fn(u64) -> Vec<String>,
    pre: Pre,
    /// fio runs it too (fio has no directory trees).
    fio: bool,
}

fn files(n: u64, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "--name=s".to_string(),
        format!("--nrfiles={n}"),
        "--filesize=4k".into(),
        "--bs=4k".into(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn cases(max: u64) -> Vec<Case> {
    let counts: Vec<u64> = [1_000, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect();
    vec![
        Case {
            name: "layout + read of N 4k files (openfiles=64)",
            sizes: counts.clone(),
            args: |n| files(n, &["--rw=read", "--openfiles=64"]),
            pre: Pre::Clean,
            fio: true,
        },
        Case {
            name: "filecreate N files",
            sizes: counts.clone(),
            args: |n| files(n, &["--ioengine=filecreate"]),
            pre: Pre::Clean,
            fio: true,
        },
        Case {
            name: "filestat N existing files",
            sizes: counts.clone(),
            args: |n| files(n, &["--ioengine=filestat"]),
            pre: Pre::Files,
            fio: true,
        },
        Case {
            name: "filedelete N existing files",
            sizes: counts.clone(),
            args: |n| files(n, &["--ioengine=filedelete"]),
            pre: Pre::Files,
            fio: true,
        },
        Case {
            name: "tree of N files: depth 3, 100 files per leaf",
            // N files: width (N/100)^(1/3).
            sizes: [800, 12_500, 100_000]
                .into_iter()
                .filter(|&n| n <= max.max(800))
                .collect(),
            args: |n| {
                let w = ((n / 100) as f64).cbrt().round() as u64;
                vec![
                    "--name=tree".into(),
                    "--ioengine=filecreate".into(),
                    "--tree_depth=3".into(),
                    format!("--tree_width={w}"),
                    "--nrfiles=100".into(),
                    "--filesize=4k".into(),
                ]
            },
            pre: Pre::Clean,
            fio: false,
        },
        Case {
            name: "null engine, numjobs N, 20000 I/Os each",
            sizes: vec![1, 4, 16, 64, 256, 1024],
            args: |n| {
                vec![
                    "--name=j".into(),
                    "--ioengine=null".into(),
                    "--rw=randread".into(),
                    "--size=1g".into(),
                    "--number_ios=20000".into(),
                    format!("--numjobs={n}"),
                    "--group_reporting".into(),
                ]
            },
            pre: Pre::Clean,
            fio: true,
        },
        Case {
            name: "null engine, iodepth N, 2M I/Os",
            sizes: vec![1, 16, 256, 4096],
            args: |n| {
                vec![
                    "--name=d".into(),
                    "--ioengine=null".into(),
                    "--rw=randread".into(),
                    "--size=8g".into(),
                    "--number_ios=2000000".into(),
                    format!("--iodepth={n}"),
                ]
            },
            pre: Pre::Clean,
            fio: true,
        },
    ]
}

/// Wall seconds, the IOPS the tool reported (summed over jobs and directions) and
/// whether it succeeded.
fn timed(tool: &Path, dir: &Path, args: &[String], fio: bool) -> (f64, f64, bool) {
    let mut c = Command::new(tool);
    c.current_dir(dir)
        .arg(format!("--directory={}", dir.display()))
        .arg("--output-format=json")
        .args(args);
    if fio {
        c.arg("--thread");
    }
    let t = Instant::now();
    let out = c.output().expect("spawn");
    let wall = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        eprintln!(
            "  {} failed: {}",
            tool.display(),
            err.lines().last().unwrap_or("").trim()
        );
    }
    let start = text.find('{').unwrap_or(0);
    let iops = serde_json::from_str::<serde_json::Value>(&text[start..])
        .ok()
        .map(|v| {
            v["jobs"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|j| ["read", "write"].map(|d| j[d]["iops"].as_f64().unwrap_or(0.0)))
                .sum()
        })
        .unwrap_or(0.0);
    (wall, iops, out.status.success())
}

fn empty(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
}

/// Least-squares slope of log(time) over log(size).
fn exponent(points: &[(u64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(_, t)| *t > 0.0)
        .map(|&(n, t)| ((n as f64).ln(), t.ln()))
        .collect();
    if pts.len() < 2 {
        return f64::NAN;
    }
    let k = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / k,
        pts.iter().map(|p| p.1).sum::<f64>() / k,
    );
    let num: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let den: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    num / den
}

fn main() {
    let mut pairs = 3usize;
    let mut max = 100_000u64;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--pairs" => pairs = args.next().and_then(|v| v.parse().ok()).unwrap_or(3).max(1),
            "--max" => max = args.next().and_then(|v| v.parse().ok()).unwrap_or(max),
            "--only" => only = args.next(),
            _ => {}
        }
    }
    let fathom = PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    let fio = which("fio");
    if fio.is_none() {
        eprintln!("scale: fio is not on PATH (apt-get install fio); fathom only");
    }
    let base = PathBuf::from("/dev/shm/fathom-scale");
    println!("fathom vs fio at scale: {pairs} alternating pairs per size, tmpfs, wall time");
    println!(
        "{:<48} {:>8} {:>10} {:>10} {:>7} {:>11} {:>11}",
        "case", "N", "fathom s", "fio s", "ratio", "fathom IOPS", "fio IOPS"
    );
    for case in cases(max) {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        let (mut fa_pts, mut fi_pts) = (Vec::new(), Vec::new());
        for &n in &case.sizes {
            let args = (case.args)(n);
            let (mut fa, mut fi, mut fa_iops, mut fi_iops) = (vec![], vec![], vec![], vec![]);
            let mut failed = [false; 2];
            for _ in 0..pairs {
                let tools: Vec<(&Path, bool)> = std::iter::once((fathom.as_path(), false))
                    .chain(fio.as_deref().filter(|_| case.fio).map(|f| (f, true)))
                    .collect();
                for (tool, is_fio) in tools {
                    let dir = base.join(if is_fio { "fio" } else { "fathom" });
                    empty(&dir);
                    if case.pre == Pre::Files {
                        // Made by fathom for both tools, untimed (the same files either way).
                        let mut make: Vec<String> = files(n, &["--ioengine=filecreate"]);
                        make[0] = "--name=s".into();
                        timed(&fathom, &dir, &make, false);
                    }
                    let (wall, iops, ok) = timed(tool, &dir, &args, is_fio);
                    failed[usize::from(is_fio)] |= !ok;
                    if is_fio {
                        fi.push(wall);
                        fi_iops.push(iops);
                    } else {
                        fa.push(wall);
                        fa_iops.push(iops);
                    }
                }
            }
            let (a, b) = (median(&mut fa), median(&mut fi));
            fa_pts.push((n, a));
            if b > 0.0 {
                fi_pts.push((n, b));
            }
            let mark = |f: bool| if f { " (failed)" } else { "" };
            println!(
                "{:<48} {:>8} {:>10} {:>10} {:>7} {:>11.0} {:>11}",
                case.name,
                n,
                format!("{a:.3}{}", mark(failed[0])),
                if b > 0.0 {
                    format!("{b:.3}{}", mark(failed[1]))
                } else {
                    "-".into()
                },
                if b > 0.0 {
                    format!("{:.2}x", a / b)
                } else {
                    "-".into()
                },
                median(&mut fa_iops),
                if b > 0.0 {
                    format!("{:.0}", median(&mut fi_iops))
                } else {
                    "-".into()
                },
            );
        }
        println!(
            "{:<48} growth exponent: fathom {:.2}, fio {}",
            "",
            exponent(&fa_pts),
            if fi_pts.len() > 1 {
                format!("{:.2}", exponent(&fi_pts))
            } else {
                "-".into()
            }
        );
    }
    let _ = std::fs::remove_dir_all(&base);
    println!("(ratio = fathom time / fio time, < 1 is faster; exponent 1.00 = linear growth)");
}
