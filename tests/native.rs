//! The native format keeps everything, and `fathom merge` adds runs exactly.

mod common;
use common::*;

fn native_run(env: &Env, size: &str, out: &str) -> fathom::Report {
    let out = env.path().join(out);
    let o = env.run(&[
        "--output-format=native",
        &format!("--output={}", out.display()),
        &format!("--directory={}", env.path().display()),
        "--name=j",
        "--rw=randread",
        "--unlink=1",
        &format!("--size={size}"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    fathom_report::native::read(&std::fs::read_to_string(out).unwrap()).unwrap()
}

fathomtest!(
    native_results_carry_histograms_host_and_target_facts,
    |env| {
        let r = native_run(&env, "2m", "a.native");
        let d = &r.jobs[0].stats.dirs[0];
        assert_eq!(d.ios, 512);
        assert_eq!(d.clat.count(), 512, "the whole histogram came back");
        assert!(d.clat.percentile(99.0) >= d.clat.percentile(50.0));
        assert_eq!(r.host.os, "Linux");
        assert!(r.host.cpus >= 1 && !r.host.kernel.is_empty());
        let t = &r.targets[0];
        assert_eq!((t.job.as_str(), t.kind.as_str()), ("j", "file"));
        assert_eq!(t.size, 2 << 20, "facts are taken before unlink");
        assert!(!t.fs_type.is_empty() && !t.device.is_empty(), "{t:?}");
        assert_eq!(
            r.jobs[0].info.job_options,
            vec![
                ("name".to_string(), "j".to_string()),
                ("rw".to_string(), "randread".to_string()),
                ("unlink".to_string(), "1".to_string()),
                ("size".to_string(), "2m".to_string()),
            ]
        );
    }
);

fathomtest!(merge_adds_runs_exactly_and_renders_any_format, |env| {
    let a = native_run(&env, "2m", "a.native");
    let b = native_run(&env, "4m", "b.native");
    let (pa, pb) = (env.path().join("a.native"), env.path().join("b.native"));
    let o = env.run(&["merge", pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = fathom_report::native::read(&stdout(&o)).unwrap();
    let (da, db, dm) = (
        &a.jobs[0].stats.dirs[0],
        &b.jobs[0].stats.dirs[0],
        &m.jobs[0].stats.dirs[0],
    );
    assert_eq!(dm.ios, 512 + 1024);
    assert_eq!(dm.clat.count(), da.clat.count() + db.clat.count());
    assert_eq!(dm.clat.min(), da.clat.min().min(db.clat.min()));
    assert_eq!(dm.clat.max(), da.clat.max().max(db.clat.max()));
    assert_eq!(dm.clat.sum(), da.clat.sum() + db.clat.sum());
    let mut both = da.clat.clone();
    both += &db.clat;
    assert_eq!(dm.clat.percentile(99.9), both.percentile(99.9));
    assert_eq!(m.merged_from.len(), 2);
    // The merged result in fio's JSON.
    let o = env.run(&[
        "merge",
        "--output-format=json",
        pa.to_str().unwrap(),
        pb.to_str().unwrap(),
    ]);
    assert_eq!(json(&o)["jobs"][0]["read"]["total_ios"], 1536);
    // A merged result merges again.
    let pm = env.write(
        "m.native",
        &stdout(&env.run(&["merge", pa.to_str().unwrap(), pb.to_str().unwrap()])),
    );
    let o = env.run(&["merge", pm.to_str().unwrap(), pa.to_str().unwrap()]);
    let m2 = fathom_report::native::read(&stdout(&o)).unwrap();
    assert_eq!(m2.jobs[0].stats.dirs[0].ios, 2048);
    assert_eq!(m2.merged_from.len(), 3);
});

fathomtest!(merge_refuses_what_is_not_a_native_result, |env| {
    let f = env.write("fio.json", r#"{"fio version":"fio-3.33","jobs":[]}"#);
    let o = env.run(&["merge", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--output-format=native"),
        "{}",
        stderr(&o)
    );
    let o = env.run(&["merge"]);
    assert_eq!(o.status.code(), Some(2));
});

fathomtest!(merge_adds_fio_json_plus_runs_and_fathom_runs, |env| {
    // Two fio runs of one job (JSON+, as a CI keeps them) and a fathom run of it merge
    // into one result: counts add, clat's moments are fio's exact ones combined, its
    // percentiles come from fio's bins.
    let Some(fio) = fio() else { return };
    let mut parsed = Vec::new();
    for (i, size) in ["1m", "2m"].iter().enumerate() {
        let out = env.path().join(format!("fio{i}.json"));
        let o = std::process::Command::new(&fio)
            .current_dir(env.path())
            .args([
                "--name=j",
                "--rw=randread",
                "--ioengine=psync",
                "--filename=data",
                &format!("--size={size}"),
                "--output-format=json+",
                &format!("--output={}", out.display()),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
        parsed.push(v["jobs"][0]["read"]["clat_ns"].clone());
    }
    let o = env.run(&["merge", "--output-format=json", "fio0.json", "fio1.json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = &json(&o)["jobs"][0]["read"]["clat_ns"];
    let n: Vec<f64> = parsed.iter().map(|p| p["N"].as_f64().unwrap()).collect();
    assert_eq!(n, [256.0, 512.0]);
    assert_eq!(c["N"].as_f64(), Some(768.0));
    let mean = (parsed[0]["mean"].as_f64().unwrap() * n[0]
        + parsed[1]["mean"].as_f64().unwrap() * n[1])
        / (n[0] + n[1]);
    assert!((c["mean"].as_f64().unwrap() - mean).abs() < 0.01, "{c}");
    let min = parsed.iter().map(|p| p["min"].as_u64().unwrap()).min();
    let max = parsed.iter().map(|p| p["max"].as_u64().unwrap()).max();
    assert_eq!((c["min"].as_u64(), c["max"].as_u64()), (min, max));
    // A percentile of the merge lies between those of its parts.
    let p = |v: &serde_json::Value| v["percentile"]["50.000000"].as_f64().unwrap();
    let (lo, hi) = (
        p(&parsed[0]).min(p(&parsed[1])),
        p(&parsed[0]).max(p(&parsed[1])),
    );
    assert!(
        p(c) >= lo * 0.99 && p(c) <= hi * 1.01,
        "{} not in {lo}..{hi}",
        p(c)
    );
    // With a fathom native run of the same job: one job, all three runs' I/Os.
    native_run(&env, "1m", "a.native");
    let o = env.run(&[
        "merge",
        "--output-format=json",
        "fio0.json",
        "fio1.json",
        "a.native",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256 + 512 + 256);
    // The normal report renders it; plain JSON (no bins) is refused, naming json+.
    let o = env.run(&["merge", "--output-format=normal", "fio0.json", "fio1.json"]);
    assert!(
        // (The unit follows the latencies measured: usec or, on a fast run, nsec.)
        stdout(&o).contains("clat percentiles (usec)")
            || stdout(&o).contains("clat percentiles (nsec)"),
        "{}",
        stdout(&o)
    );
    let o = std::process::Command::new(&fio)
        .current_dir(env.path())
        .args([
            "--name=j",
            "--rw=read",
            "--filename=data",
            "--size=64k",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    env.write("plain.json", &String::from_utf8_lossy(&o.stdout));
    let o = env.run(&["merge", "plain.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--output-format=json+"),
        "{}",
        stderr(&o)
    );
});
