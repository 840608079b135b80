//! The live view: fio's progress line (--eta) and per-interval status blocks
//! (--status-interval).

mod common;
use common::*;

const JOB: [&str; 7] = [
    "--name=e",
    "--ioengine=null",
    "--rw=randread",
    "--size=64m",
    "--time_based",
    "--runtime=2",
    "--rate_iops=5000",
];

fathomtest!(
    the_eta_line_is_fio_s_and_only_shown_when_asked_off_a_terminal,
    |env| {
        let mut a = vec![
            "--output-format=json",
            "--eta=always",
            "--eta-interval=250ms",
        ];
        a.extend_from_slice(&JOB);
        let o = env.run(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        json(&o); // stdout is still only the JSON document
        let re = regex_lite::Regex::new(
        r"^Jobs: 1 \(f=1\): \[[rP_]\(1\)\]\[(\d+\.\d)%\]\[r=[^,]+,w=[^\]]+\]\[r=[^,]+,w=[^ ]+ IOPS\]\[eta (\d\d)m:(\d\d)s\]$",
    )
    .unwrap();
        let e = stderr(&o);
        let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("Jobs:")).collect();
        assert!(lines.len() >= 5, "{e}");
        let mut last = -1.0;
        for l in &lines {
            let c = re
                .captures(l)
                .unwrap_or_else(|| panic!("not fio's ETA line: {l}"));
            let pct: f64 = c[1].parse().unwrap();
            assert!(pct >= last, "progress goes forward: {e}");
            last = pct;
        }
        assert!(last > 50.0, "{e}");
        // The read IOPS of the intervals: their median is the job's 5000 (each interval is
        // measured from counters published every 50 ms, so single lines vary).
        let mut iops: Vec<f64> = lines
            .iter()
            .filter_map(|l| {
                let i = l.find("][r=")? + 4;
                let rest = &l[i..];
                let rest = &rest[rest.find("][r=")? + 4..];
                let v = &rest[..rest.find(',')?];
                match v.strip_suffix('k') {
                    Some(k) => k.parse::<f64>().ok().map(|x| x * 1000.0),
                    None => v.parse().ok(),
                }
            })
            .filter(|&v| v > 0.0)
            .collect();
        iops.sort_by(f64::total_cmp);
        assert!(!iops.is_empty(), "{e}");
        let median = iops[iops.len() / 2];
        assert!((median - 5000.0).abs() < 1000.0, "median {median}: {e}");
        // By default, off a terminal, nothing.
        let o = env.run(&JOB);
        assert!(!stderr(&o).contains("Jobs:"), "{}", stderr(&o));
    }
);

fathomtest!(status_intervals_carry_each_interval_s_numbers, |env| {
    let mut a = vec!["--output-format=json", "--status-interval=500ms"];
    a.extend_from_slice(&JOB);
    let o = env.run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let status: Vec<serde_json::Value> = out
        .lines()
        .filter(|l| l.starts_with("{\"fathom_status\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        (3..=5).contains(&status.len()),
        "{} status objects in 2 s at 500 ms",
        status.len()
    );
    let mut sum = 0;
    for s in &status {
        let r = &s["fathom_status"]["jobs"][0]["read"];
        sum += r["interval_ios"].as_u64().unwrap();
        assert_eq!(sum, r["total_ios"].as_u64().unwrap(), "intervals add up");
    }
    let mid = &status[1]["fathom_status"]["jobs"][0]["read"]["iops"];
    assert!((mid.as_f64().unwrap() - 5000.0).abs() < 1000.0, "{mid}");
    // The final report follows as one JSON document.
    let rest = &out[out.find("\n{\n").expect("the final document") + 1..];
    let v: serde_json::Value = serde_json::from_str(rest).unwrap();
    assert!(v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() >= sum);
    // Normal format: text blocks.
    let mut a = vec!["--status-interval=1s"];
    a.extend_from_slice(&JOB);
    let o = env.run(&a);
    assert!(
        stdout(&o).contains("fathom status at 1.0s (this interval: 1.0s):"),
        "{}",
        stdout(&o)
    );
});
