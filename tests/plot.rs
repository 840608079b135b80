//! `fathom plot` writes well-formed SVG charts from native and fio JSON+ results.

mod common;
use common::*;

fathomtest!(plot_writes_the_charts_of_native_results, |env| {
    let res = env.path().join("r.native");
    let o = env.run(&[
        "--output-format=native",
        &format!("--output={}", res.display()),
        "--name=rr",
        "--ioengine=null",
        "--rw=randrw",
        "--size=64m",
        "--time_based",
        "--runtime=1200ms",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = env.path().join("plots");
    let o = env.run(&["plot", res.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "bw-rr-read.svg",
            "bw-rr-write.svg",
            "compare-iops.svg",
            "iops-rr-read.svg",
            "iops-rr-write.svg",
            "latency-rr-read.svg",
            "latency-rr-write.svg",
            "spectrum-rr-read.svg",
            "spectrum-rr-write.svg"
        ]
    );
    for f in &files {
        let svg = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
    }
    assert!(stdout(&o).contains("spectrum-rr-read.svg"));
});

fathomtest!(plot_reads_fio_json_plus_and_refuses_other_files, |env| {
    let f = env.write(
        "fio.json",
        r#"{"fio version":"fio-3.33","jobs":[{"jobname":"f","job_runtime":1000,
        "read":{"total_ios":3,"io_bytes":12288,"clat_ns":{"bins":{"1000":2,"5000":1}}}}]}"#,
    );
    let dir = env.path().join("p");
    let o = env.run(&["plot", f.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("spectrum-f-read.svg").exists());
    let bad = env.write("x.txt", "hello");
    let o = env.run(&["plot", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("neither a native result"),
        "{}",
        stderr(&o)
    );
});
