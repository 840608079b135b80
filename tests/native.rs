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
