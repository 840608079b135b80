//! The same raw workload as a vdbench parameter file (`fathom vdbench`) and as the
//! equivalent fio job file (run by fio), side by side: I/O counts and rates.
//!
//! `cargo bench --bench vdbench` (options: `--pairs 3`, `--secs 5`) runs, on tmpfs
//! (/dev/shm), alternating pairs of each case and prints the median I/Os and rate of each
//! tool and their ratio (vdbench file / fio file; 1.00 is the same):
//!
//! - a 64 MiB sequential write in 64 KiB transfers (`seekpct=eof` / `rw=write`): the
//!   count must be equal, 1024 I/Os;
//! - 4 KiB random reads at a fixed 5000 I/Os per second (`iorate=5000` with
//!   `distribution=deterministic` / `rate_iops=5000`): equal rates;
//! - 4 KiB random 70/30 reads and writes with 8 in flight at the maximum rate
//!   (`iorate=max` / `iodepth=8`): rates within noise.
//!
//! The rate comes from the vdbench run's `avg_2-N` line (the first interval left out, as
//! vdbench does) and from fio's JSON (the whole run), so the maximum-rate case differs by
//! the first second's warm-up; the other two have no warm-up to speak of.

mod common;

use common::{median, which};
use std::path::{Path, PathBuf};
use std::process::Command;

struct Case {
    name: &'static str,
    /// (the parameter file, the fio job file), for a lun path and a duration.
    files: fn(&Path, u64) -> (String, String),
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "64 MiB sequential write, 64k (count)",
            files: |lun, _| {
                (
                    format!(
                        "sd=sd1,lun={},size=64m,threads=4\nwd=wd1,sd=sd1,xfersize=64k,seekpct=eof,rdpct=0\n\
                         rd=rd1,wd=wd1,iorate=max,elapsed=60,interval=1\n",
                        lun.display()
                    ),
                    format!(
                        "[w]\nfilename={}\nsize=64m\nbs=64k\nrw=write\nioengine=io_uring\niodepth=4\n",
                        lun.display()
                    ),
                )
            },
        },
        Case {
            name: "4k random read at 5000/s (rate)",
            files: |lun, secs| {
                (
                    format!(
                        "sd=sd1,lun={},size=64m,threads=4\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\n\
                         rd=rd1,wd=wd1,iorate=5000,distribution=deterministic,elapsed={},interval=1\n",
                        lun.display(),
                        secs + 1
                    ),
                    format!(
                        "[r]\nfilename={}\nsize=64m\nbs=4k\nrw=randread\nioengine=io_uring\niodepth=4\n\
                         rate_iops=5000\ntime_based\nruntime={secs}\n",
                        lun.display()
                    ),
                )
            },
        },
        Case {
            name: "4k random 70/30, 8 in flight, max (rate)",
            files: |lun, secs| {
                (
                    format!(
                        "sd=sd1,lun={},size=64m,threads=8\nwd=wd1,sd=sd1,xfersize=4k,rdpct=70\n\
                         rd=rd1,wd=wd1,iorate=max,elapsed={},interval=1\n",
                        lun.display(),
                        secs + 1
                    ),
                    format!(
                        "[m]\nfilename={}\nsize=64m\nbs=4k\nrw=randrw\nrwmixread=70\nioengine=io_uring\n\
                         iodepth=8\ntime_based\nruntime={secs}\n",
                        lun.display()
                    ),
                )
            },
        },
    ]
}

/// (I/Os, rate) of a vdbench run from its flat file's average row.
fn vdbench_run(fathom: &Path, parm: &Path, out: &Path) -> (f64, f64) {
    let o = Command::new(fathom)
        .args(["vdbench", "-f"])
        .arg(parm)
        .arg("-o")
        .arg(out)
        .output()
        .expect("fathom runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let native = std::fs::read_to_string(out.join("rd1.fathom.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&native).unwrap();
    let dirs = &v["result"]["jobs"][0]["stats"]["dirs"];
    let ios = dirs[0]["ios"].as_f64().unwrap() + dirs[1]["ios"].as_f64().unwrap();
    let flat = std::fs::read_to_string(out.join("flatfile.html")).unwrap();
    let mut lines = flat.lines().filter(|l| !l.starts_with('*'));
    let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    let rate_col = head.iter().position(|h| *h == "rate").unwrap();
    let avg = lines.find(|l| l.contains(" avg_")).unwrap();
    let rate: f64 = avg
        .split_whitespace()
        .nth(rate_col)
        .unwrap()
        .parse()
        .unwrap();
    (ios, rate)
}

/// (I/Os, rate) of a fio run.
fn fio_run(fio: &Path, job: &Path) -> (f64, f64) {
    let o = Command::new(fio)
        .arg("--output-format=json")
        .arg(job)
        .output()
        .expect("fio runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let j = &v["jobs"][0];
    let ios = j["read"]["total_ios"].as_f64().unwrap() + j["write"]["total_ios"].as_f64().unwrap();
    let rate = j["read"]["iops"].as_f64().unwrap() + j["write"]["iops"].as_f64().unwrap();
    (ios, rate)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str, def: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(def)
    };
    let pairs = opt("--pairs", 3);
    let secs = opt("--secs", 5);
    let Some(fio) = which("fio") else {
        println!("fio is not on PATH: nothing to compare with");
        return;
    };
    let fathom = PathBuf::from(env!("CARGO_BIN_EXE_fathom"));
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("fathom-bench-vdbench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "{:<44} {:>12} {:>12} {:>11} {:>11} {:>7} {:>7}",
        "case", "I/Os vdb", "I/Os fio", "rate vdb", "rate fio", "ios", "rate"
    );
    for c in cases() {
        let lun = dir.join("lun");
        let (parm, job) = (c.files)(&lun, secs);
        let parm_p = dir.join("p.vdb");
        let job_p = dir.join("j.fio");
        std::fs::write(&parm_p, parm).unwrap();
        std::fs::write(&job_p, job).unwrap();
        let (mut vi, mut vr, mut fi, mut fr) = (vec![], vec![], vec![], vec![]);
        for _ in 0..pairs {
            let _ = std::fs::remove_file(&lun);
            let (i, r) = vdbench_run(&fathom, &parm_p, &dir.join("out"));
            vi.push(i);
            vr.push(r);
            let _ = std::fs::remove_file(&lun);
            let (i, r) = fio_run(&fio, &job_p);
            fi.push(i);
            fr.push(r);
        }
        let (vi, fi, vr, fr) = (
            median(&mut vi),
            median(&mut fi),
            median(&mut vr),
            median(&mut fr),
        );
        println!(
            "{:<44} {:>12.0} {:>12.0} {:>11.1} {:>11.1} {:>7.3} {:>7.3}",
            c.name,
            vi,
            fi,
            vr,
            fr,
            vi / fi.max(1.0),
            vr / fr.max(1e-9)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
