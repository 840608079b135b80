//! `--repeat=N` statistics and `fathom compare` verdicts and gates.

mod common;
use common::*;

fn native(env: &Env, name: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = env.path().join(name);
    let mut a = vec![
        "--output-format=native".to_string(),
        format!("--output={}", out.display()),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend(
        ["--name=j", "--ioengine=null", "--rw=randread", "--size=16m"]
            .iter()
            .map(|s| s.to_string()),
    );
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = env.run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

fathomtest!(repeat_runs_n_times_and_keeps_every_repetition, |env| {
    let p = native(&env, "r.native", &["--repeat=4"]);
    let (merged, reps) =
        fathom_report::native::read_full(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(reps.len(), 4);
    for r in &reps {
        assert_eq!(r.jobs[0].stats.dirs[0].ios, 4096);
    }
    assert_eq!(merged.jobs[0].stats.dirs[0].ios, 4 * 4096);
    let runtimes: std::time::Duration = reps.iter().map(|r| r.jobs[0].stats.runtime).sum();
    assert_eq!(
        merged.jobs[0].stats.runtime, runtimes,
        "repetitions follow each other"
    );
    // Normal output: each repetition, then the statistics table.
    let o = env.run(&[
        "--repeat=3",
        "--name=j",
        "--ioengine=null",
        "--rw=randread",
        "--size=4m",
    ]);
    let out = stdout(&o);
    assert_eq!(out.matches("--- repetition").count(), 3, "{out}");
    assert!(out.contains("Repetitions: 3 runs"), "{out}");
    assert!(out.contains("clat.p99.9"));
    // JSON: fio's object plus the statistics.
    let o = env.run(&[
        "--repeat=2",
        "--output-format=json",
        "--name=j",
        "--ioengine=null",
        "--size=4m",
    ]);
    let v = json(&o);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 2048);
    assert_eq!(v["fathom_repetitions"]["count"], 2);
    let s = &v["fathom_repetitions"]["summary"][0];
    assert_eq!(s["metric"], "iops");
    assert_eq!(s["values"].as_array().unwrap().len(), 2);
});

fathomtest!(
    a_result_compared_with_itself_is_within_noise_and_passes_the_gate,
    |env| {
        let a = native(&env, "a.native", &["--repeat=3"]);
        let o = env.run(&[
            "compare",
            "--fail-if-slower=1",
            a.to_str().unwrap(),
            a.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        assert_eq!(out.lines().count(), 7, "header and six metrics: {out}");
        assert!(
            out.lines().skip(1).all(|l| l.ends_with("within noise")),
            "{out}"
        );
    }
);

fathomtest!(a_clear_slowdown_is_slower_and_fails_the_gate, |env| {
    // Rate-limited runs are steady even on a busy machine: 20k IOPS against 5k.
    let a = native(
        &env,
        "a.native",
        &["--repeat=3", "--rate_iops=20000", "--io_size=4m"],
    );
    let b = native(
        &env,
        "b.native",
        &["--repeat=3", "--rate_iops=5000", "--io_size=4m"],
    );
    let o = env.run(&[
        "compare",
        "--format=json",
        "--fail-if-slower=iops=10",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["gate_failures"], 1, "the gate names iops only: {v}");
    let iops = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "iops")
        .unwrap();
    assert_eq!(iops["verdict"], "slower");
    assert_eq!(iops["test"], "welch (repetitions)");
    let change = iops["change_pct"].as_f64().unwrap();
    assert!((change + 75.0).abs() < 3.0, "20k → 5k IOPS is -75%: {iops}");
    assert!(stderr(&o).contains("over the --fail-if-slower limit"));
    // The same comparison under a gate on another metric only does not fail.
    let o = env.run(&[
        "compare",
        "--fail-if-slower=clat.p50=1000",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = env.run(&[
        "compare",
        "--format=markdown",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(stdout(&o).starts_with("| job | dir | metric |"));
    assert!(stdout(&o).contains("**slower**"));
});

fathomtest!(compare_explains_bad_input, |env| {
    let a = native(&env, "a.native", &[]);
    let o = env.run(&[
        "compare",
        "--fail-if-slower=fast",
        a.to_str().unwrap(),
        a.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a percentage"), "{}", stderr(&o));
    let f = env.write("x.json", "{}");
    let o = env.run(&["compare", a.to_str().unwrap(), f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a fathom native result"),
        "{}",
        stderr(&o)
    );
});

// fio's JSON and JSON+ are baselines: a rate-limited fio run (5k IOPS) against a fathom
// run (20k IOPS) is "faster" on IOPS by the interval test, the latency mean by Welch's
// test on fio's moments; percentiles get the histogram test only from JSON+ bins, and
// plain JSON says so. A gate works against a fio baseline.
fathomtest!(fio_json_and_json_plus_are_baselines, |env| {
    let Some(fio) = fio() else { return };
    let job = [
        "--name=j",
        "--ioengine=null",
        "--rw=randread",
        "--size=64m",
        "--time_based",
        "--runtime=2",
    ];
    let fio_out = |fmt: &str, file: &str| {
        let o = std::process::Command::new(&fio)
            .args(job)
            .args(["--rate_iops=5000", &format!("--output-format={fmt}")])
            .current_dir(env.path())
            .output()
            .unwrap();
        assert!(o.status.success());
        std::fs::write(env.path().join(file), &o.stdout).unwrap();
    };
    fio_out("json", "fio.json");
    fio_out("json+", "fio.jsonplus");
    let mut args: Vec<&str> = job.to_vec();
    args.extend([
        "--rate_iops=20000",
        "--output-format=json+",
        "--output=fa.jsonplus",
    ]);
    let o = env.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let row = |v: &serde_json::Value, m: &str| -> serde_json::Value {
        v["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == m)
            .unwrap_or_else(|| panic!("no {m} row: {v}"))
            .clone()
    };
    for (base, source) in [("fio.json", "fio JSON"), ("fio.jsonplus", "fio JSON+")] {
        let o = env.run(&["compare", "--format=json", base, "fa.jsonplus"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["base_source"], source);
        assert_eq!(v["new_source"], "fathom JSON+");
        let iops = row(&v, "iops");
        assert_eq!(iops["test"], "welch (intervals)");
        assert_eq!(iops["verdict"], "faster", "{iops}");
        let change = iops["change_pct"].as_f64().unwrap();
        assert!(
            (change - 300.0).abs() < 15.0,
            "5k → 20k IOPS is +300%: {iops}"
        );
        assert_eq!(row(&v, "clat.mean")["test"], "welch (every I/O)");
        let p99 = row(&v, "clat.p99");
        if source == "fio JSON" {
            assert!(p99["test"].as_str().unwrap().starts_with("none"), "{p99}");
            assert_eq!(p99["verdict"], "within_noise");
        } else {
            assert_eq!(p99["test"], "mann-whitney (histograms)");
        }
    }
    // The table says which tests the data allowed.
    let o = env.run(&["compare", "fio.json", "fa.jsonplus"]);
    let t = stdout(&o);
    assert!(t.contains("base: fio.json (fio JSON)"), "{t}");
    assert!(
        t.contains("no latency bins: use --output-format=json+"),
        "{t}"
    );
    // fathom slower than the fio baseline fails a gate (exit 3).
    let o = env.run(&[
        "compare",
        "--fail-if-slower=iops=10",
        "fa.jsonplus",
        "fio.jsonplus",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
});
