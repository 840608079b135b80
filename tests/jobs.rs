//! The preset job library: every file in jobs/ parses, plans and runs briefly; each
//! `.toml` twin describes the same jobs as its `.fio` file; options after a job file
//! override it; `--list-jobs` and `--show-job` show the library.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn jobs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs")
}

fn presets() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [jobs_dir(), jobs_dir().join("suites")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fio" || e == "toml"))
        .collect();
    v.sort();
    v
}

fathomtest!(every_shipped_job_file_parses_and_plans, |env| {
    let all = presets();
    for p in &all {
        let o = env.run(&["--parse-only", p.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
    }
    assert!(all.len() >= 18, "the library has {} files", all.len());
});

fathomtest!(every_shipped_job_file_runs_briefly_with_overrides, |env| {
    // Small, short and buffered, in a scratch directory: every job of every preset does
    // real I/O through its own engine, and the overrides win over the file's values.
    let dir = env.path().join("scratch");
    let dir_opt = format!("--directory={}", dir.display());
    for p in presets() {
        let o = env.run(&[
            "--output-format=json",
            p.to_str().unwrap(),
            &dir_opt,
            "--size=2m",
            "--runtime=150ms",
            "--ramp_time=0",
            "--direct=0",
        ]);
        assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
        let v = json(&o);
        for job in v["jobs"].as_array().unwrap() {
            let ios: u64 = ["read", "write", "trim"]
                .iter()
                .map(|d| job[d]["total_ios"].as_u64().unwrap_or(0))
                .sum();
            // Metadata jobs do operations instead.
            let ops: u64 = job["ops"]
                .as_object()
                .map(|m| m.values().map(|o| o["ops"].as_u64().unwrap()).sum())
                .unwrap_or(0);
            assert!(
                ios + ops > 0,
                "{}: job {} did no I/O",
                p.display(),
                job["jobname"]
            );
            assert_eq!(job["job options"]["size"], "2m", "{}", p.display());
        }
        // unlink=1 in every preset: nothing is left behind.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{}: left {left:?}", p.display());
    }
});

#[test]
fn every_toml_twin_is_the_same_jobs_as_its_fio_file() {
    let mut pairs = 0;
    for fio in presets()
        .into_iter()
        .filter(|p| p.extension().unwrap() == "fio")
    {
        let toml = fio.with_extension("toml");
        if !toml.exists() {
            continue;
        }
        let a =
            fathom_job::parse_fio_str(&std::fs::read_to_string(&fio).unwrap(), "a.fio").unwrap();
        let b =
            fathom_job::parse_toml_str(&std::fs::read_to_string(&toml).unwrap(), "b.toml").unwrap();
        assert_eq!(a.jobs.len(), b.jobs.len(), "{}", fio.display());
        for (x, y) in a.jobs.iter().zip(&b.jobs) {
            let (mut x, mut y) = (x.clone(), y.clone());
            for j in [&mut x, &mut y] {
                j.origin = Default::default();
                j.job_options.clear();
            }
            assert_eq!(x, y, "{} vs its .toml", fio.display());
        }
        pairs += 1;
    }
    assert!(pairs >= 9, "{pairs} pairs");
}

fathomtest!(
    options_before_a_job_file_are_defaults_and_after_it_override,
    |env| {
        let f = env.write("j.fio", "[j]\nioengine=null\nrw=read\nsize=1m\nbs=4k\n");
        let f = f.to_str().unwrap();
        let ios = |args: &[&str]| {
            let mut a = vec!["--output-format=json"];
            a.extend_from_slice(args);
            let o = env.run(&a);
            assert!(o.status.success(), "{}", stderr(&o));
            json(&o)["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
        };
        assert_eq!(ios(&[f]), 256);
        assert_eq!(
            ios(&["--size=2m", f]),
            256,
            "before the file: the file's size wins"
        );
        assert_eq!(
            ios(&[f, "--size=2m"]),
            512,
            "after the file: the override wins"
        );
        assert_eq!(
            ios(&["--bs=8k", f, "--size=2m"]),
            512,
            "bs=4k in the file wins"
        );
        // After a --name the options belong to that command-line job, not the file's.
        let o = env.run(&[
            "--output-format=json",
            f,
            "--name=cli",
            "--ioengine=null",
            "--size=3m",
        ]);
        let v = json(&o);
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
        assert_eq!(v["jobs"][1]["read"]["total_ios"], 768);
        // A bad override names the command line.
        let o = env.run(&[f, "--size=lots"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("<command line>"), "{}", stderr(&o));
    }
);

fathomtest!(list_jobs_and_show_job_present_the_library, |env| {
    let o = env.run(&["--list-jobs"]);
    assert!(o.status.success());
    let out = stdout(&o);
    // `fathom jobs` says the same.
    assert_eq!(stdout(&env.run(&["jobs"])), out);
    for name in ["metadata-storm", "verify-soak", "ssd-precondition"] {
        assert!(out.contains(name), "{name}: {out}");
    }
    for name in [
        "quickstart",
        "oltp-8k",
        "redo-log",
        "cloud-iops",
        "randread-4k",
    ] {
        assert!(out.contains(name), "{name} missing from:\n{out}");
    }
    let o = env.run(&["--show-job=oltp-8k"]);
    assert_eq!(
        stdout(&o),
        std::fs::read_to_string(jobs_dir().join("oltp-8k.fio")).unwrap()
    );
    let o = env.run(&["--show-job=nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--list-jobs"));
});

fathomtest!(completions_and_man_page_are_generated, |env| {
    for (shell, needle) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef fathom"),
        ("fish", "complete -c fathom"),
    ] {
        let o = env.run(&[&format!("--completions={shell}")]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = stdout(&o);
        assert!(s.contains(needle), "{shell}: {}", &s[..s.len().min(300)]);
        assert!(
            s.contains("output-format"),
            "{shell} completes fathom's flags"
        );
    }
    let o = env.run(&["--man"]);
    let man = stdout(&o);
    assert!(
        man.starts_with(".ie") || man.contains(".TH fathom 1"),
        "{man}"
    );
    assert!(man.contains("list\\-jobs"));
});
