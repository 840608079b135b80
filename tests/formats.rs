//! Output formats: terse (fio's field counts), json+ (read by fio's own tool), CSV,
//! Markdown, comma lists and --output-FORMAT files.

mod common;
use common::*;

const JOB: [&str; 4] = ["--name=t", "--ioengine=null", "--rw=randrw", "--size=4m"];

fn run_with(env: &Env, extra: &[&str]) -> std::process::Output {
    let mut a: Vec<&str> = extra.to_vec();
    a.extend_from_slice(&JOB);
    let o = env.run(&a);
    assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
    o
}

fathomtest!(terse_has_fio_s_field_count_in_every_version, |env| {
    let fio = fio();
    for v in 2..=5 {
        let tv = format!("--terse-version={v}");
        let o = run_with(&env, &["--minimal", &tv]);
        let out = stdout(&o);
        let line = out.lines().last().unwrap();
        let f: Vec<&str> = line.split(';').collect();
        let want = [161, 121, 162, 180][v - 2];
        assert_eq!(f.len(), want, "v{v}: {line}");
        assert_eq!(f[0], v.to_string());
        if let Some(fio) = &fio {
            let r = std::process::Command::new(fio)
                .current_dir(env.path())
                .args(["--minimal", &tv])
                .args(JOB)
                .output()
                .unwrap();
            let theirs = String::from_utf8_lossy(&r.stdout);
            let n = theirs.lines().last().unwrap().split(';').count();
            assert_eq!(f.len(), n, "v{v}: fio has {n} fields");
        }
        // Known truths from the null engine: 4 MiB of 4 KiB I/Os split between read and
        // write (v3: read io KiB is field 6, write's 41 fields later).
        if v == 3 {
            let r: u64 = f[5].parse().unwrap();
            let w: u64 = f[5 + 41].parse().unwrap();
            assert_eq!(r + w, 4096);
        }
    }
});

fathomtest!(json_plus_bins_are_read_by_fio_s_own_tool, |env| {
    let o = run_with(&env, &["--output-format=json+"]);
    let v = json(&o);
    let clat = &v["jobs"][0]["read"]["clat_ns"];
    let n = clat["N"].as_u64().unwrap();
    let bins: u64 = clat["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(bins, n, "every completion is in a bin");
    let tool = std::path::Path::new("/usr/bin/fio_jsonplus_clat2csv");
    if !tool.exists() {
        assert!(
            std::env::var_os("FATHOM_REQUIRE_FIO").is_none(),
            "fio's tools missing"
        );
        return;
    }
    let p = env.write("jp.json", &stdout(&o));
    let r = std::process::Command::new("python3")
        .current_dir(env.path())
        .args([tool.to_str().unwrap(), p.to_str().unwrap(), "out.csv"])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let csv = std::fs::read_to_string(env.path().join("out_job0.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(!rows.is_empty());
    // The read clat cumulative count reaches N.
    let header: Vec<&str> = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::trim)
        .collect();
    let col = header
        .iter()
        .position(|h| *h == "read_clat_ns_cumulative")
        .unwrap();
    let top = rows
        .iter()
        .filter_map(|r| r.split(',').map(str::trim).nth(col)?.parse::<u64>().ok())
        .max()
        .unwrap();
    assert_eq!(top, n);
});

// The syncs' latencies carry their bins in JSON+, as fio's: one per fsync.
fathomtest!(json_plus_bins_the_syncs_latencies, |env| {
    let o = env.run(&[
        "--output-format=json+",
        "--name=s",
        &format!("--filename={}", env.path().join("f").display()),
        "--size=256k",
        "--bs=4k",
        "--rw=write",
        "--fsync=8",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let sync = &v["jobs"][0]["sync"];
    // 64 writes, an fsync after each 8th but the last (the job ends there): 7, as fio.
    assert_eq!(sync["total_ios"], 7);
    let bins: u64 = sync["lat_ns"]["bins"]
        .as_object()
        .expect("bins")
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(bins, 7, "every fsync is in a bin");
});

fathomtest!(csv_and_markdown_have_a_row_per_job_and_direction, |env| {
    let o = run_with(&env, &["--output-format=csv"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("job,dir,ios,bytes,runtime_ms,iops"));
    let ios: u64 = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(ios, 1024);
    let o = run_with(&env, &["--output-format=markdown"]);
    let md = stdout(&o);
    assert!(md.starts_with("| job | dir | IOPS |"), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with("| t |")).count(), 2);
});

fathomtest!(
    several_formats_go_one_after_another_or_to_their_own_files,
    |env| {
        let jf = env.path().join("r.json");
        let o = run_with(
            &env,
            &[
                "--output-format=terse,csv",
                &format!("--output-json={}", jf.display()),
            ],
        );
        let out = stdout(&o);
        assert!(
            out.lines().next().unwrap().starts_with("3;fathom-"),
            "{out}"
        );
        assert!(out.contains("job,dir,ios"), "{out}");
        assert!(!out.contains('{'), "the JSON went to its file");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&jf).unwrap()).unwrap();
        assert_eq!(v["jobs"][0]["jobname"], "t");
        let o = env.run(&[
            "--output-format=xml",
            "--name=t",
            "--ioengine=null",
            "--size=1m",
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("available: normal, terse, json, json+, csv, markdown, native"));
    }
);

fathomtest!(first_and_last_done_show_when_jobs_end_apart, |env| {
    let o = env.run(&[
        "--ioengine=null",
        "--rw=read",
        "--rate_iops=1000",
        "--name=a",
        "--size=4m",
        "--name=b",
        "--size=8m",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains("first done:"))
        .unwrap_or_else(|| panic!("{out}"));
    // Both jobs at 1000 x 4 KiB/s until the first ends at ~1 s: ~8000 KiB/s; then the
    // whole run's 12 MiB over ~2 s: ~6000 KiB/s.
    let num = |after: &str| -> f64 {
        let i = line.find(after).unwrap() + after.len();
        line[i..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!((num("first done: bw=") - 8000.0).abs() < 400.0, "{line}");
    assert!((num("last done: bw=") - 6000.0).abs() < 300.0, "{line}");
    // Jobs that end together get no such line.
    let o = env.run(&["--ioengine=null", "--rw=read", "--name=a", "--size=4m"]);
    assert!(!stdout(&o).contains("first done"));
});

fathomtest!(
    unified_rw_reporting_unit_base_and_significant_figures_as_fio,
    |env| {
        let o = run_with(
            &env,
            &["--unified_rw_reporting=mixed", "--significant_figures=6"],
        );
        let out = stdout(&o);
        assert!(out.contains("  mixed: IOPS="), "{out}");
        assert!(
            !out.contains("  read: IOPS=") && !out.contains("  write: IOPS="),
            "{out}"
        );
        assert!(
            out.contains("(4096.0KiB/"),
            "six significant figures: {out}"
        );
        let o = run_with(&env, &["--unit_base=1"]);
        let out = stdout(&o);
        let line = out
            .lines()
            .find(|l| l.starts_with("  read: IOPS="))
            .unwrap();
        assert!(line.contains("bit/s ("), "bandwidth in bits: {line}");
        let o = run_with(
            &env,
            &["--unified_rw_reporting=both", "--output-format=json"],
        );
        let j = &json(&o)["jobs"][0];
        let sum =
            j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
        assert_eq!(j["mixed"]["total_ios"].as_u64().unwrap(), sum);
        assert_eq!(
            j["mixed"]["clat_ns"]["N"].as_u64().unwrap(),
            sum,
            "the mixed histogram holds both directions"
        );
        let o = run_with(&env, &["--unified_rw_reporting=1", "--output-format=json"]);
        let j = &json(&o)["jobs"][0];
        assert!(j.get("read").is_none() && j["mixed"]["total_ios"] == 1024);
    }
);
