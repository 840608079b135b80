//! The programs people point at fio run unchanged with fathom linked as `fio`: bench-fio
//! (a short benchmark series) and fio-plot (charts from its JSON and logs), both from
//! PyPI's fio-plot, and cdmpy (CrystalDiskMark-style runs with the posixaio engine).
//!
//! The clients live in a virtual environment whose `bin` folder FATHOM_PYCLIENTS names
//! (.ci/run makes it with pinned versions); without it the test says so and passes, and
//! with FATHOM_REQUIRE_PYCLIENTS=1 it fails instead.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The clients' bin folder, and a folder whose `fio` is this fathom.
fn clients(env: &Env) -> Option<(PathBuf, PathBuf)> {
    let Some(bin) = std::env::var_os("FATHOM_PYCLIENTS").map(PathBuf::from) else {
        assert!(
            std::env::var_os("FATHOM_REQUIRE_PYCLIENTS").is_none(),
            "FATHOM_PYCLIENTS is not set (the fio-plot/cdmpy virtual environment's bin)"
        );
        eprintln!("FATHOM_PYCLIENTS not set: the fio clients are not tested");
        return None;
    };
    let fio = env.path().join("fio-bin");
    std::fs::create_dir(&fio).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fathom"), fio.join("fio")).unwrap();
    Some((bin, fio))
}

fn run(tool: &Path, fio: &Path, dir: &Path, args: &[&str]) -> String {
    let path = format!(
        "{}:{}",
        fio.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(tool)
        .current_dir(dir)
        .env("PATH", path)
        .args(args)
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{} {args:?}:\n{out}", tool.display());
    out
}

fn pngs(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".png")
        })
        .count()
}

fathomtest!(bench_fio_and_fio_plot_run_on_fathom, |env| {
    let Some((bin, fio)) = clients(&env) else {
        return;
    };
    let data = env.path().join("data");
    let out = env.path().join("out");
    std::fs::create_dir(&data).unwrap();
    run(
        &bin.join("bench-fio"),
        &fio,
        env.path(),
        &[
            "-d",
            data.to_str().unwrap(),
            "-t",
            "directory",
            "-s",
            "8m",
            "-o",
            out.to_str().unwrap(),
            "-b",
            "4k",
            "--iodepth",
            "1",
            "4",
            "--numjobs",
            "1",
            "--runtime",
            "1",
            "--time-based",
            "--loginterval",
            "250",
            "-m",
            "randread",
            "-e",
            "libaio",
            "--direct",
            "1",
        ],
    );
    let results = out.join("data").join("4k");
    for qd in [1, 4] {
        let text = std::fs::read_to_string(results.join(format!("randread-{qd}-1.json"))).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(v["fio version"].as_str().unwrap().starts_with("fio-3."));
        assert!(v["jobs"][0]["read"]["iops"].as_f64().unwrap() > 0.0);
        // Logs end at the runtime: 250, 500, 750, 1000 ms.
        let log = std::fs::read_to_string(
            results.join(format!("randread-iodepth-{qd}-numjobs-1_iops.1.log")),
        )
        .unwrap();
        let last: u64 = log
            .lines()
            .last()
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(last <= 1000, "a log window after the runtime: {last}");
    }
    let r = results.to_str().unwrap();
    let plots = env.path().join("plots");
    std::fs::create_dir(&plots).unwrap();
    // Time series from the logs, and the iodepth line chart from the JSON.
    for args in [&["-g", "-t", "iops", "lat"][..], &["-l"][..]] {
        let mut a = vec![
            "-i", r, "-T", "fathom", "-r", "randread", "-d", "1", "4", "-n", "1",
        ];
        a.extend_from_slice(args);
        run(&bin.join("fio-plot"), &fio, &plots, &a);
    }
    assert_eq!(pngs(&plots), 2, "one chart per fio-plot run");
});

fathomtest!(cdmpy_runs_its_crystaldiskmark_set_on_fathom, |env| {
    let Some((bin, fio)) = clients(&env) else {
        return;
    };
    let data = env.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let out = run(
        &bin.join("cdm"),
        &fio,
        env.path(),
        &["-s", "8m", "-n", "1", data.to_str().unwrap()],
    );
    for row in ["SEQ1M Q8 T1", "SEQ1M Q1 T1", "RND4K Q32T8", "RND4K Q1 T1"] {
        let line = out
            .lines()
            .find(|l| l.contains(row))
            .unwrap_or_else(|| panic!("no {row} row:\n{out}"));
        let mbs: Vec<f64> = line
            .split('|')
            .filter_map(|c| c.trim().parse().ok())
            .collect();
        assert!(mbs.len() == 2 && mbs.iter().all(|&x| x > 0.0), "{line}");
    }
});
