//! fio's own example job files (Debian's fio-examples package), scaled down and run in fio
//! and in fathom side by side, each tool in its own folder: targets become local files,
//! sizes at most 8 MiB, runtimes 1 s, at most 2 clones and 4 files. Every file whose
//! engines fathom has must be refused by both tools or run in both with the same jobs;
//! where the job alone decides the work (no time_based), each job's reads, writes and
//! trims are equal, and where a random draw decides the block sizes or the mix, its
//! bytes are. The files left out are listed with why.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The engines fathom has (the others' files are fathom's refusals, counted elsewhere).
const ENGINES: &[&str] = &[
    "libaio",
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "io_uring",
    "mmap",
    "null",
    "cpuio",
    "posixaio",
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
    "falloc",
    "ftruncate",
];

/// Files not run, and why.
const LEFT_OUT: &[(&str, &str)] = &[
    (
        "1mbs_clients.fio",
        "rate-bound: 8 MiB at 1250 B/s takes hours in either tool",
    ),
    (
        "fixed-rate-submission.fio",
        "rate-bound: minutes at its rate in either tool",
    ),
    (
        "poisson-rate-submission.fio",
        "rate-bound: 2048 reads at 50 IOPS",
    ),
    (
        "surface-scan.fio",
        "fill_device=1 fills the file system the test runs on",
    ),
    (
        "enospc-pressure.fio",
        "races a trimmer and a writer on purpose: fio's own exit varies",
    ),
    ("numa.fio", "needs NUMA node 1"),
    (
        "exitwhat.fio",
        "clones at 300 B/s stopped by another job's end: counts follow timing",
    ),
];

/// Files whose counts a random draw decides (a read/write mix, random block sizes):
/// their bytes are compared.
const DRAWN: &[&str] = &["fsx.fio", "iometer-file-access-server.fio"];

fn size_bytes(v: &str) -> Option<u64> {
    let v = v.trim();
    let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: u64 = digits.parse().ok()?;
    let unit = v[digits.len()..].to_ascii_lowercase();
    let mult = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        "p" => 1 << 50,
        _ => return None,
    };
    Some(n * mult)
}

/// The example scaled down (see the module text).
fn scale(text: &str) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for l in text.lines() {
        let s = l.trim();
        let Some((k, v)) = s.split_once('=').filter(|_| !s.starts_with([';', '#'])) else {
            out.push(l.to_string());
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        let line = match k {
            "filename" => {
                let local: Vec<String> = v
                    .split(':')
                    .map(|p| {
                        let i = names.iter().position(|n| n == p).unwrap_or_else(|| {
                            names.push(p.to_string());
                            names.len() - 1
                        });
                        format!("data{i}")
                    })
                    .collect();
                format!("filename={}", local.join(":"))
            }
            "directory" | "opendir" | "startdelay" => String::new(),
            "write_bw_log" | "write_lat_log" | "write_iops_log" | "write_hist_log" => String::new(),
            "exec_prerun" | "exec_postrun" => String::new(),
            "size" | "io_size" | "io_limit" | "filesize" => match size_bytes(v) {
                Some(b) if b <= 8 << 20 => l.to_string(),
                _ => format!("{k}=8m"),
            },
            "offset" => match size_bytes(v) {
                Some(b) if b <= 4 << 20 => l.to_string(),
                _ => "offset=0".into(),
            },
            "runtime" => "runtime=1".into(),
            "ramp_time" => "ramp_time=0".into(),
            "loops" => "loops=1".into(),
            "numjobs" => format!("numjobs={}", v.parse::<u32>().map_or(1, |n| n.min(2))),
            "nrfiles" => format!("nrfiles={}", v.parse::<u32>().map_or(1, |n| n.min(4))),
            _ => l.to_string(),
        };
        out.push(line);
    }
    out.join("\n") + "\n"
}

/// Run `tool` on job.fio in `dir`: its JSON, or its error text.
fn run(cmd: &mut Command, dir: &Path) -> Result<Value, String> {
    let o = cmd
        .current_dir(dir)
        .arg("--output-format=json")
        .arg("job.fio")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    match (o.status.success(), s.find("{\n")) {
        (true, Some(i)) => serde_json::from_str(&s[i..]).map_err(|e| e.to_string()),
        _ => Err(format!(
            "exit {:?}: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        )),
    }
}

/// Per job: (name, reads, writes, trims, bytes).
fn jobs(v: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap_or(0);
            (
                j["jobname"].as_str().unwrap().to_string(),
                n("read", "total_ios"),
                n("write", "total_ios"),
                n("trim", "total_ios"),
                n("read", "io_bytes") + n("write", "io_bytes") + n("trim", "io_bytes"),
            )
        })
        .collect()
}

#[test]
fn fios_examples_scaled_down_do_the_same_work_in_both_tools() {
    let Some(fio) = fio() else { return };
    let Some(files) = fio_example_files() else {
        return;
    };
    let env = Env::new();
    let (mut same, mut refused_by_both, mut timed) = (0, 0, 0);
    let mut wrong = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(f).unwrap();
        let engines: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("ioengine="))
            .map(str::trim)
            .collect();
        if engines.iter().any(|e| !ENGINES.contains(e)) || LEFT_OUT.iter().any(|(n, _)| *n == name)
        {
            continue;
        }
        let scaled = scale(&text);
        let mut results = Vec::new();
        for (tool, sub) in [("fio", "f"), ("fathom", "a")] {
            let d = env.path().join(sub).join(&name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("job.fio"), &scaled).unwrap();
            let mut cmd = if tool == "fio" {
                Command::new(&fio)
            } else {
                env.cmd()
            };
            results.push(run(&mut cmd, &d));
        }
        match (&results[0], &results[1]) {
            (Err(_), Err(_)) => refused_by_both += 1,
            (Ok(a), Ok(b)) => {
                let (a, b) = (jobs(a), jobs(b));
                let names = |v: &[(String, u64, u64, u64, u64)]| {
                    v.iter().map(|j| j.0.clone()).collect::<Vec<_>>()
                };
                if names(&a) != names(&b) {
                    wrong.push(format!(
                        "{name}: jobs fio {:?}, fathom {:?}",
                        names(&a),
                        names(&b)
                    ));
                } else if text.lines().any(|l| l.trim() == "time_based") {
                    timed += 1;
                } else if DRAWN.contains(&name.as_str()) {
                    let bytes = |v: &[(String, u64, u64, u64, u64)]| {
                        v.iter().map(|j| j.4).collect::<Vec<_>>()
                    };
                    if bytes(&a) == bytes(&b) {
                        same += 1;
                    } else {
                        wrong.push(format!("{name}: bytes fio {a:?}, fathom {b:?}"));
                    }
                } else if a == b {
                    same += 1;
                } else {
                    wrong.push(format!("{name}: fio {a:?}, fathom {b:?}"));
                }
            }
            (a, b) => wrong.push(format!(
                "{name}: fio {}, fathom {}",
                a.as_ref().map_or_else(|e| e.clone(), |_| "ran".into()),
                b.as_ref().map_or_else(|e| e.clone(), |_| "ran".into())
            )),
        }
    }
    assert!(wrong.is_empty(), "differences:\n{}", wrong.join("\n"));
    eprintln!(
        "{same} examples do the same work, {timed} time-based ones run the same jobs, \
         {refused_by_both} are refused by both"
    );
    assert!(same >= 12, "{same}");
}
