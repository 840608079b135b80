//! `fathom suite`: dd and CrystalDiskMark methods in their familiar formats.

mod common;
use common::*;

/// dd's closing lines (GNU coreutils form).
fn dd_lines_re() -> regex_lite::Regex {
    regex_lite::Regex::new(
        r"(?m)^(\d+)\+(\d+) records in\n(\d+)\+(\d+) records out\n(\d+) bytes \((\d+(?:\.\d)?) ([kMGT]?B), (\d+(?:\.\d)?) ([KMGT]iB)\) copied, ([0-9.e-]+) s, (\d+(?:\.\d)?) ([kMGT]?B)/s$",
    )
    .unwrap()
}

fathomtest!(dd_prints_dd_s_closing_lines_for_a_write_and_a_read, |env| {
    let _a = alone();
    let re = dd_lines_re();
    let f = env.path().join("ddfile");
    let of = format!("of={}", f.display());
    let o = env.run(&[
        "suite",
        "dd",
        "if=/dev/zero",
        &of,
        "bs=64K",
        "count=160",
        "conv=fdatasync",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    let c = re
        .captures(&e)
        .unwrap_or_else(|| panic!("not dd's form:\n{e}"));
    assert_eq!((&c[1], &c[2], &c[5]), ("160", "0", "10485760"));
    assert_eq!((&c[6], &c[7], &c[8], &c[9]), ("10", "MB", "10", "MiB"));
    assert!(e.contains("latency per block (us): min"), "{e}");
    // dd's three lines come last: scripts read the rate from the last line.
    assert!(
        e.lines().last().unwrap().contains(" copied, "),
        "not dd's last line:\n{e}"
    );
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 10485760);
    // if=/dev/zero writes zeroes, as dd does (compressing storage writes little of them).
    assert!(std::fs::read(&f).unwrap().iter().all(|&b| b == 0));
    // if=/dev/urandom: fresh random blocks (no two 4 KiB pieces alike), with a note
    // before dd's lines on what the rate is.
    let rf = env.path().join("random");
    let rof = format!("of={}", rf.display());
    let o = env.run(&["suite", "dd", "if=/dev/urandom", &rof, "bs=64k", "count=16"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("not read from /dev/urandom"), "{e}");
    assert!(e.lines().last().unwrap().contains(" copied, "), "{e}");
    let data = std::fs::read(&rf).unwrap();
    assert_eq!(data.len(), 1 << 20);
    let pieces: std::collections::HashSet<&[u8]> = data.chunks(4096).collect();
    assert_eq!(pieces.len(), 256);
    let inf = format!("if={}", f.display());
    let o = env.run(&["suite", "dd", &inf, "of=/dev/null", "bs=1M", "iflag=direct"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    let c = re.captures(&e).unwrap();
    assert_eq!((&c[1], &c[5]), ("10", "10485760"));
    // The real dd's lines have the same form (when dd is here, as on every Debian).
    if let Ok(real) = std::process::Command::new("dd")
        .args([&inf, "of=/dev/null", "bs=1M"])
        .output()
    {
        let r = String::from_utf8_lossy(&real.stderr).into_owned();
        let c = re
            .captures(&r)
            .unwrap_or_else(|| panic!("regex does not match real dd:\n{r}"));
        assert_eq!(&c[5], "10485760");
    }
});

fathomtest!(dd_refuses_what_it_does_not_do_with_a_reason, |env| {
    let _a = alone();
    for (args, want) in [
        (vec!["of=b", "count=1"], "needs if= and of="),
        (
            vec!["if=/dev/zero", "of=x", "count=1", "iflag=seek_bytes"],
            "iflag",
        ),
        (vec!["if=/dev/zero", "of=x"], "give count="),
        (
            vec!["if=/dev/zero", "of=x", "count=1", "bs=1Q"],
            "unknown dd size suffix",
        ),
        (
            vec!["if=/dev/zero", "of=x", "count=1", "oflag=append"],
            "not supported",
        ),
    ] {
        let mut a = vec!["suite", "dd"];
        a.extend(args.iter().copied());
        let o = env.run(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
});

// dd's own block loop, side by side with GNU dd: a copy between two files, ibs other
// than obs (dd gathers input blocks into output blocks), a file that does not end on a
// block (dd's `1+1 records`; fathom read only the whole blocks, 1 MiB of 1.5), count_bytes,
// skip_bytes and seek_bytes, direct I/O with a short last block, and the output's
// truncation at the seek point. Each case: the same records lines, and the same output
// file byte for byte.
fathomtest!(dd_copies_and_reblocks_as_dd_does, |env| {
    let _a = alone();
    let src = env.path().join("src");
    let data: Vec<u8> = (0..1_572_864u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&src, &data).unwrap();
    let records = |e: &str| -> String {
        e.lines()
            .filter(|l| l.contains(" records "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let cases: &[&[&str]] = &[
        &["if=SRC", "of=OUT", "bs=1M"],
        &["if=SRC", "of=OUT", "ibs=1M", "obs=700k"],
        &["if=SRC", "of=OUT", "bs=1M", "skip=1", "seek=2"],
        &[
            "if=SRC",
            "of=OUT",
            "bs=64k",
            "count=5",
            "skip=100",
            "iflag=skip_bytes",
        ],
        &[
            "if=SRC",
            "of=OUT",
            "bs=64k",
            "count=3",
            "seek=7",
            "oflag=seek_bytes",
        ],
        &["if=SRC", "of=OUT", "bs=1M", "iflag=direct", "oflag=direct"],
        &[
            "if=SRC",
            "of=OUT",
            "bs=4k",
            "count=10000",
            "iflag=count_bytes,fullblock",
        ],
        &["if=/dev/zero", "of=OUT", "ibs=1M", "obs=4k", "count=3"],
        &[
            "if=/dev/zero",
            "of=OUT",
            "bs=1M",
            "count=3",
            "iflag=count_bytes",
        ],
        &["if=SRC", "of=/dev/null", "bs=1M"],
        &[
            "if=SRC",
            "of=OUT",
            "bs=256k",
            "count=2",
            "conv=notrunc,fdatasync",
        ],
    ];
    for case in cases {
        let mut outs = Vec::new();
        for tool in ["fathom", "dd"] {
            let out = env.path().join(format!("out.{tool}"));
            // An older, longer output: truncated at the seek point unless notrunc.
            std::fs::write(&out, vec![7u8; 3 << 20]).unwrap();
            let args: Vec<String> = case
                .iter()
                .map(|a| {
                    a.replace("SRC", src.to_str().unwrap())
                        .replace("OUT", out.to_str().unwrap())
                })
                .collect();
            let o = if tool == "fathom" {
                let mut a = vec!["suite".to_string(), "dd".to_string()];
                a.extend(args);
                let a: Vec<&str> = a.iter().map(String::as_str).collect();
                env.run(&a)
            } else {
                std::process::Command::new("dd")
                    .args(&args)
                    .output()
                    .unwrap()
            };
            assert!(o.status.success(), "{tool} {case:?}: {}", stderr(&o));
            let e = stderr(&o);
            assert!(e.lines().last().unwrap().contains(" copied, "), "{e}");
            outs.push((records(&e), std::fs::read(&out).unwrap()));
        }
        assert_eq!(outs[0].0, outs[1].0, "{case:?}");
        assert!(outs[0].1 == outs[1].1, "{case:?}: the outputs differ");
    }
    // The copy's own latency line, before dd's lines.
    let (i, o) = (
        format!("if={}", src.display()),
        format!("of={}", env.path().join("c").display()),
    );
    let r = env.run(&["suite", "dd", &i, &o, "bs=512k"]);
    let e = stderr(&r);
    assert!(
        e.contains("latency per block, read and write (us): min"),
        "{e}"
    );
    assert!(
        e.contains("3+0 records in\n3+0 records out\n1572864 bytes"),
        "{e}"
    );
});

fathomtest!(cdm_prints_crystaldiskmark_s_table, |env| {
    let _a = alone();
    let dir = format!("--dir={}", env.path().display());
    let o = env.run(&[
        "suite",
        "cdm",
        &dir,
        "--size=16m",
        "--loops=1",
        "--runtime=200ms",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for label in ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("{out}"));
        let nums: Vec<f64> = line[label.len()..]
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(nums.len(), 4, "{line}");
        assert!(nums.iter().all(|&x| x > 0.0), "{line}");
        // MB/s = IOPS x block size / 1e6.
        let bs = if label.starts_with("SEQ1M") {
            1048576.0
        } else {
            4096.0
        };
        assert!(
            (nums[0] - nums[2] * bs / 1e6).abs() <= nums[0] * 0.001 + 0.01,
            "{line}"
        );
    }
    assert!(
        !env.path().join("fathom-cdm.tmp").exists(),
        "the test file is removed"
    );
    let o = env.run(&["suite", "cdm", "--profile=ssd"]);
    assert_eq!(o.status.code(), Some(2));
    let o = env.run(&["suite", "nosuch"]);
    assert!(
        stderr(&o).contains(
            "available: bonnie, curve, dbench, dd, ior, metarates, iozone, cdm, sysbench"
        ),
        "{}",
        stderr(&o)
    );
});

/// The numbers of a sysbench report: (reads/s, writes/s, events).
fn sysbench_figures(out: &str) -> (f64, f64, u64) {
    let num = |key: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("{key} in:\n{out}"));
        line.rsplit(' ')
            .next()
            .unwrap()
            .trim_end_matches('s')
            .parse()
            .unwrap()
    };
    (
        num("reads/s:"),
        num("writes/s:"),
        num("total number of events:") as u64,
    )
}

fathomtest!(sysbench_prepares_runs_and_cleans_up_like_sysbench, |env| {
    let _a = alone();
    let dir = format!("--dir={}", env.path().display());
    let common = [
        "suite",
        "sysbench",
        "fileio",
        &dir,
        "--file-total-size=32M",
        "--file-num=4",
    ];
    let run = |extra: &[&str]| {
        let mut a: Vec<&str> = common.to_vec();
        a.extend_from_slice(extra);
        let o = env.run(&a);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        stdout(&o)
    };
    let out = run(&["prepare"]);
    assert!(out.contains("Creating file test_file.3"), "{out}");
    assert!(out.contains("33554432 bytes written in"), "{out}");
    for i in 0..4 {
        assert_eq!(
            std::fs::metadata(env.path().join(format!("test_file.{i}")))
                .unwrap()
                .len(),
            8 << 20
        );
    }
    let zeroes = |i: u32| {
        std::fs::read(env.path().join(format!("test_file.{i}")))
            .unwrap()
            .iter()
            .all(|&b| b == 0)
    };
    // sysbench writes zeroes (prepare and run; sysbench 1.0 leaves its files all zero).
    assert!((0..4).all(zeroes), "prepare wrote other data than zeroes");
    let out = run(&["--file-test-mode=rndrw", "--time=1", "run"]);
    assert!((0..4).all(zeroes), "the run wrote other data than zeroes");
    for section in [
        "File operations:",
        "Throughput:",
        "General statistics:",
        "Latency (ms):",
        "95th percentile:",
        "Threads fairness:",
    ] {
        assert!(out.contains(section), "{section}:\n{out}");
    }
    let (r, w, events) = sysbench_figures(&out);
    // rw-ratio 1.5: 60% reads.
    assert!((r / (r + w) - 0.6).abs() < 0.02, "{r} {w}");
    assert!(events > 0);
    let out = run(&[
        "--file-test-mode=seqrd",
        "--threads=2",
        "--events=400",
        "--time=0",
        "run",
    ]);
    let (_, _, events) = sysbench_figures(&out);
    assert_eq!(events, 400, "max events split over the threads:\n{out}");
    run(&["cleanup"]);
    assert!(!env.path().join("test_file.0").exists());
    // Side by side with the real sysbench on the same files: the same order of magnitude.
    let have = std::process::Command::new("sysbench")
        .arg("--version")
        .output()
        .is_ok();
    if !have {
        assert!(
            std::env::var_os("FATHOM_REQUIRE_SYSBENCH").is_none(),
            "sysbench is not installed"
        );
        eprintln!("sysbench not installed: side-by-side check skipped");
        return;
    }
    run(&["prepare"]);
    let out = run(&["--file-test-mode=rndrd", "--time=1", "run"]);
    let (ours, _, _) = sysbench_figures(&out);
    let real = std::process::Command::new("sysbench")
        .current_dir(env.path())
        .args([
            "fileio",
            "--file-total-size=32M",
            "--file-num=4",
            "--file-test-mode=rndrd",
            "--time=1",
            "run",
        ])
        .output()
        .unwrap();
    let (theirs, _, _) = sysbench_figures(&String::from_utf8_lossy(&real.stdout));
    assert!(
        ours / theirs > 0.2 && ours / theirs < 5.0,
        "fathom {ours} reads/s, sysbench {theirs}"
    );
});

fathomtest!(
    bonnie_prints_bonnie_s_table_and_a_csv_line_bon_csv2txt_reads,
    |env| {
        let _a = alone();
        let dir = format!("--dir={}", env.path().display());
        let args = [
            "suite",
            "bonnie",
            &dir,
            "--size=8",
            "--ram=4",
            "--files=1",
            "--machine=ci",
            "--seeks=500",
        ];
        let o = env.run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.starts_with("Version 2.00a       ------Sequential Output------"),
            "{out}"
        );
        assert!(
            out.lines()
                .any(|l| l.starts_with("ci") && l.len() > 19 && l[..19].ends_with(" 8M")),
            "the name and size in bonnie's 19 columns: {out}"
        );
        assert!(out.contains("\nci                  -Create--"), "{out}");
        assert!(out.contains("              files  /sec %CP"), "{out}");
        let csv = out.lines().last().unwrap().to_string();
        let f: Vec<&str> = csv.split(',').collect();
        assert_eq!(f.len(), 50, "bonnie's 1.98 CSV has 50 fields: {csv}");
        assert_eq!(
            (f[0], f[2], f[5], f[7], f[21]),
            ("1.98", "ci", "8M", "8192", "1")
        );
        assert!(f[38].ends_with("us") || f[38].ends_with("ms"), "{csv}");
        // Nothing left behind.
        let left: Vec<_> = std::fs::read_dir(env.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        // The real bonnie++ writes the same shape of line, and bon_csv2txt reads ours.
        let real = std::process::Command::new("bonnie++")
            .args([
                "-d",
                env.path().to_str().unwrap(),
                "-s",
                "16",
                "-r",
                "8",
                "-n",
                "1",
                "-u",
                "root",
                "-m",
                "ci",
                "-q",
            ])
            .output();
        match real {
            Ok(r) if r.status.success() => {
                let line = String::from_utf8_lossy(&r.stdout)
                    .lines()
                    .last()
                    .unwrap_or("")
                    .to_string();
                let g: Vec<&str> = line.split(',').collect();
                assert_eq!(g.len(), f.len(), "real: {line}\nours: {csv}");
                let empties = |v: &[&str]| v.iter().map(|x| x.is_empty()).collect::<Vec<_>>();
                assert_eq!(empties(&g), empties(&f), "the same fields are empty");
                // bonnie++ -q writes its table on stderr: the same header lines as ours.
                let table = String::from_utf8_lossy(&r.stderr).to_string();
                let headers = |t: &str| -> Vec<String> {
                    t.lines()
                        .filter(|l| {
                            !l.starts_with("Latency") && !l.contains("+++") && !l.contains(',')
                        })
                        .filter(|l| l.contains("Version") || l.contains("--") || l.contains("/sec"))
                        .map(str::to_string)
                        .collect()
                };
                assert_eq!(headers(&table), headers(&out), "bonnie++'s table layout");
            }
            _ => assert!(
                std::env::var_os("FATHOM_REQUIRE_BONNIE").is_none(),
                "bonnie++ missing"
            ),
        }
        let txt = std::process::Command::new("bon_csv2txt")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn();
        if let Ok(mut c) = txt {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(csv.as_bytes()).unwrap();
            let r = c.wait_with_output().unwrap();
            let t = String::from_utf8_lossy(&r.stdout);
            assert!(
                r.status.success() && t.contains("ci ") && t.contains("Latency"),
                "{t}"
            );
        }
    }
);

fathomtest!(
    bonnie_fast_mode_skips_the_per_character_tests_as_bonnie_does,
    |env| {
        let _a = alone();
        let dir = format!("--dir={}", env.path().display());
        let o = env.run(&[
            "suite",
            "bonnie",
            &dir,
            "--size=8",
            "--ram=4",
            "--files=0",
            "--seeks=200",
            "-f",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let ours: Vec<String> = out
            .lines()
            .last()
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect();
        // Per-character write and read (fields 10-11 and 16-17) are empty, the rest measured.
        assert_eq!(
            (
                ours[9].as_str(),
                ours[10].as_str(),
                ours[15].as_str(),
                ours[16].as_str()
            ),
            ("", "", "", ""),
            "{out}"
        );
        assert!(!ours[11].is_empty(), "{out}");
        let real = std::process::Command::new("bonnie++")
            .args([
                "-d",
                env.path().to_str().unwrap(),
                "-s",
                "16",
                "-r",
                "8",
                "-n",
                "0",
            ])
            .args(["-u", "root", "-f", "-q"])
            .output();
        match real {
            Ok(r) if r.status.success() => {
                let line = String::from_utf8_lossy(&r.stdout)
                    .lines()
                    .last()
                    .unwrap_or("")
                    .to_string();
                let theirs: Vec<&str> = line.split(',').collect();
                let empties = |v: &[&str]| v.iter().map(|x| x.is_empty()).collect::<Vec<_>>();
                let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
                assert_eq!(
                    empties(&theirs),
                    empties(&ours),
                    "real: {line}\nours: {ours:?}"
                );
            }
            _ => assert!(
                std::env::var_os("FATHOM_REQUIRE_BONNIE").is_none(),
                "bonnie++ missing"
            ),
        }
    }
);

/// The suite tests run one at a time: each is a whole benchmark, and the curve's points
/// are paced rates that a bonnie++ or dbench run beside them took from under the 50%
/// point on the 2-core machine.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static M: std::sync::Mutex<()> = std::sync::Mutex::new(());
    M.lock().unwrap_or_else(|e| e.into_inner())
}

fathomtest!(
    curve_runs_max_then_fractions_and_stops_on_response_time,
    |env| {
        let _a = alone();
        let svg = env.path().join("c.svg");
        let svg_opt = format!("--svg={}", svg.display());
        let o = env.run(&[
            "suite",
            "curve",
            "--rw=randread",
            "--ioengine=null",
            "--size=64m",
            // 50 µs of think time per I/O: a modest maximum that the rate-limited
            // points reach even on a busy machine.
            "--thinktime=50",
            "--runtime=300ms",
            "--points=10,50,200,300",
            // Far above what a met point shows even on a loaded machine (a 50% point once
            // showed 6 ms there), far below what 200% builds up in 300 ms.
            "--stop-curve=20ms",
            &svg_opt,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let rows: Vec<Vec<String>> = out
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect();
        assert_eq!(rows[0][0], "max");
        let max: f64 = rows[0][2].parse().unwrap();
        // 10% and 50% are met within 5%.
        for (row, pct) in [(1, 0.1), (2, 0.5)] {
            let iops: f64 = rows[row][2].parse().unwrap();
            assert!((iops / (max * pct) - 1.0).abs() < 0.05, "{out}");
        }
        // 200% of max cannot be met: response time explodes and the curve stops there.
        assert_eq!(rows.len(), 4, "stopped after the 200% point: {out}");
        assert!(stderr(&o).contains("over --stop-curve"), "{}", stderr(&o));
        let s = std::fs::read_to_string(&svg).unwrap();
        assert!(s.starts_with("<svg") && s.contains("polyline"));
        // A read/write mix: the rate is the job's total, as vdbench's iorate= (it was
        // given to each direction, so a 50% point ran at twice its target).
        let o = env.run(&[
            "suite",
            "curve",
            "--rw=randrw",
            "--rwmixread=70",
            "--ioengine=null",
            "--size=64m",
            "--thinktime=50",
            "--runtime=300ms",
            "--points=50",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let iops = |row: usize| -> f64 {
            out.lines()
                .nth(row)
                .unwrap()
                .split_whitespace()
                .nth(2)
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!((iops(2) / (iops(1) * 0.5) - 1.0).abs() < 0.05, "{out}");
        let o = env.run(&["suite", "curve", "--rw=randread"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("give the target"));
    }
);

fathomtest!(
    ior_writes_and_reads_n_1_segmented_and_n_n_layouts_completely,
    |env| {
        let _a = alone();
        let dir = env.path().join("ior");
        let d = dir.to_str().unwrap();
        // N-1 segmented: every block of the shared file written, and nothing more.
        let o = env.run(&[
            "suite", "ior", "--dir", d, "-N", "3", "-b", "64k", "-t", "64k", "-s", "4", "-i", "2",
            "-k",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        // Two iterations' rows and the summary's.
        assert_eq!(
            out.lines().filter(|l| l.starts_with("write ")).count(),
            3,
            "{out}"
        );
        // IOR 4.0's report: the Max lines only with -v, then the summary and the end.
        assert!(
            !out.contains("Max Write:")
                && out.contains("Summary of all tests:")
                && out.contains("\nFinished            : "),
            "{out}"
        );
        let data = std::fs::read(dir.join("testFile")).unwrap();
        assert_eq!(data.len(), 3 * 4 * 65536);
        assert!(
            data.chunks(65536).all(|b| b.iter().any(|&x| x != 0)),
            "every block written"
        );
        // N-N: a file per task, block x segments each; removed without -k.
        let o = env.run(&[
            "suite", "ior", "--dir", d, "-N", "2", "-b", "256k", "-t", "64k", "-s", "2", "-F", "-k",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        for t in 0..2 {
            assert_eq!(
                std::fs::metadata(dir.join(format!("testFile.{t:08}")))
                    .unwrap()
                    .len(),
                512 << 10
            );
        }
        let o = env.run(&[
            "suite", "ior", "--dir", d, "-N", "2", "-b", "256k", "-t", "64k", "-F",
        ]);
        assert!(o.status.success());
        assert!(!dir.join("testFile.00000000").exists());
        let o = env.run(&["suite", "ior", "-b", "100k", "-t", "64k"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("multiple of --transfer"));
    }
);

fathomtest!(
    iozone_runs_its_matrix_and_writes_table_csv_and_heat_maps,
    |env| {
        let _a = alone();
        let dir = env.path().join("z");
        let svg = env.path().join("svg");
        let o = env.run(&[
            "suite",
            "iozone",
            "-a",
            "-n",
            "64k",
            "-g",
            "256k",
            "-y",
            "16k",
            "-q",
            "64k",
            "--dir",
            dir.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let rows: Vec<Vec<u64>> = out
            .lines()
            .filter(|l| {
                l.trim_start()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            })
            .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
            .collect();
        // File sizes 64, 128, 256 kB x records 16, 32, 64 kB: 9 rows of 2 + 13 figures.
        assert_eq!(rows.len(), 9, "{out}");
        assert!(
            rows.iter()
                .all(|r| r.len() == 15 && r[2..].iter().all(|&v| v > 0)),
            "{out}"
        );
        assert_eq!(
            (rows[0][0], rows[0][1], rows[8][0], rows[8][1]),
            (64, 16, 256, 64)
        );
        for t in ["write", "random-read", "stride-read", "freread"] {
            let s = std::fs::read_to_string(svg.join(format!("iozone-{t}.svg"))).unwrap();
            assert!(s.starts_with("<svg") && s.contains("<rect"), "{t}");
        }
        // CSV and a subset of tests.
        let o = env.run(&[
            "suite",
            "iozone",
            "-s",
            "128k",
            "-r",
            "32k",
            "-i",
            "0",
            "-i",
            "2",
            "--csv",
            "-f",
            dir.to_str().unwrap(),
        ]);
        let csv = stdout(&o);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0].split(',').count(), 15, "{csv}");
        let f: Vec<&str> = lines[1].split(',').collect();
        assert_eq!((f[0], f[1]), ("128", "32"));
        assert!(
            !f[2].is_empty() && !f[6].is_empty() && f[4].is_empty(),
            "only tests 0 and 2 ran: {csv}"
        );
        // Throughput mode.
        let o = env.run(&[
            "suite",
            "iozone",
            "-s",
            "256k",
            "-r",
            "64k",
            "-t",
            "2",
            "-f",
            dir.to_str().unwrap(),
        ]);
        let out = stdout(&o);
        assert!(
            out.contains("Children see throughput for  2 initial writers"),
            "{out}"
        );
        assert!(out.contains("re-readers"), "{out}");
        assert!(
            std::fs::read_dir(&dir).unwrap().next().is_none(),
            "temporary files removed"
        );
    }
);

fathomtest!(
    any_suite_repeats_and_summarizes_its_headline_figures,
    |env| {
        let _a = alone();
        let d = env.path().join("r");
        let o = env.run(&[
            "suite",
            "ior",
            "--repeat=3",
            "-o",
            d.to_str().unwrap(),
            "-N",
            "2",
            "-b",
            "256k",
            "-t",
            "64k",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert_eq!(out.matches("--- repetition").count(), 3, "{out}");
        assert!(out.contains("Repetitions: 3 runs"), "{out}");
        for figure in ["Max Write (MiB/s)", "Max Read (MiB/s)"] {
            let line = out
                .lines()
                .find(|l| l.trim_start().starts_with(figure))
                .unwrap();
            let nums: Vec<f64> = line[line.find(')').unwrap() + 1..]
                .split_whitespace()
                .take(4)
                .map(|x| x.parse().unwrap())
                .collect();
            let (mean, min, max) = (nums[0], nums[2], nums[3]);
            assert!(min <= mean && mean <= max && min > 0.0, "{line}");
        }
        let o = env.run(&[
            "suite",
            "dd",
            "--repeat=0",
            "if=/dev/zero",
            "of=x",
            "count=1",
        ]);
        assert_eq!(o.status.code(), Some(2));
    }
);

// A runbook's bonnie++ line, scaled down, runs as written: -u, -x (a CSV header, then a
// line per run, no table), -n num:max:min:dirs, -s size:chunk, -q (the table on stderr).
// With bonnie++ installed the same argv runs in both and the CSV lines have the same
// shape (the same fields empty and filled).
fathomtest!(bonnie_takes_bonnie_plus_plus_s_own_command_line, |env| {
    let _a = alone();
    let me = libc_getuid();
    let d = env.path().to_str().unwrap().to_string();
    let argv = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "-d",
            &d,
            "-s",
            "16:4096",
            "-r",
            "8",
            "-n",
            "1:4k:1k:2",
            "-m",
            "raid10",
            "-u",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push(me.to_string());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let mut a = vec!["suite".to_string(), "bonnie".into()];
    a.extend(argv(&["-x", "2", "-f"]));
    let o = env.cmd().args(&a).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("format_version,bonnie_version,name"));
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 50, "{l}");
        assert_eq!(
            (f[2], f[5], f[21], f[22], f[23], f[24], f[25]),
            ("raid10", "16M", "1", "4096", "1024", "", "2"),
            "{l}"
        );
    }
    assert!(
        stderr(&o).contains(&format!("Using uid:{me}")),
        "{}",
        stderr(&o)
    );
    // -q: the CSV line alone on stdout, the table on stderr.
    let mut a = vec!["suite".to_string(), "bonnie".into()];
    a.extend(argv(&["-q", "-f"]));
    let o = env.cmd().args(&a).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    assert!(stderr(&o).contains("Version 2.00a"));
    let ours = stdout(&o).trim().to_string();
    assert!(std::fs::read_dir(env.path()).unwrap().next().is_none());
    // --help, and flags fathom does not take are refused with the way to do it.
    let o = env.run(&["suite", "bonnie", "--help"]);
    assert!(o.status.success() && stdout(&o).contains("-x number-of-tests"));
    let o = env.run(&["suite", "bonnie", "-p", "3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("one `fathom suite bonnie` per process"));
    if let Ok(r) = std::process::Command::new("bonnie++")
        .args(argv(&["-q", "-f"]))
        .output()
    {
        if r.status.success() {
            let theirs = String::from_utf8_lossy(&r.stdout).trim().to_string();
            let empties = |l: &str| l.split(',').map(str::is_empty).collect::<Vec<_>>();
            assert_eq!(
                empties(&theirs),
                empties(&ours),
                "\nbonnie++: {theirs}\nfathom:   {ours}"
            );
        }
    }
});

fn libc_getuid() -> u32 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

// IOR's own command line from a runbook (`IOR -a POSIX -b 64k -F -i 10 -s 200000 -t 4k`,
// scaled down): -o names the test file, -F makes FILE.TASK, -w -k then -r reads what was
// kept, -a MMAP maps, -z randomises, other APIs are refused by name.
// IOR's -o A@B (files on several file systems): the shared file is the first name's;
// -F places a task's file by its rank, so one process's -N threads are refused, as is
// -u, by IOR's rule.
fathomtest!(ior_takes_several_file_names_as_ior, |env| {
    let _a = alone();
    for d in ["A", "B"] {
        std::fs::create_dir_all(env.path().join(d)).unwrap();
    }
    let o = env
        .cmd()
        .current_dir(env.path())
        .args([
            "suite", "ior", "-w", "-k", "-b", "64k", "-t", "16k", "-o", "A/s@B/s",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("test filename       : A/s@B/s\n"),
        "{}",
        stdout(&o)
    );
    assert!(env.path().join("A/s").exists() && !env.path().join("B/s").exists());
    for (extra, msg) in [
        (&["-N", "2"][..], "run the tasks as ranks under mpirun"),
        (
            &["-u"][..],
            "cannot use multiple file names with unique directories",
        ),
    ] {
        let o = env
            .cmd()
            .current_dir(env.path())
            .args([
                "suite", "ior", "-w", "-F", "-b", "64k", "-t", "16k", "-o", "A/t@B/u",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&o).contains(msg), "{}", stderr(&o));
    }
});

// IOR's -M (memoryPerNode: as IOR 4.0 reads it, the leading number is a percentage of
// the node's memory, so "1g" is 1%), -O memoryPerTask, -j (outlierThreshold) and
// --random-offset-seed (-z with -R needs it, IOR's rule), each shown where IOR shows it.
fathomtest!(ior_hogs_memory_and_takes_ior_s_other_options, |env| {
    let _a = alone();
    let f = env.path().join("m");
    let f = f.to_str().unwrap();
    let getconf = |k: &str| -> u64 {
        let o = std::process::Command::new("getconf")
            .arg(k)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    };
    let phys = getconf("PAGE_SIZE") * getconf("_PHYS_PAGES");
    let node = phys / 100;
    for m in ["1%", "1g"] {
        let o = env.run(&[
            "suite", "ior", "-w", "-r", "-b", "64k", "-t", "16k", "-M", m, "-vvv", "-o", f,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        for l in [
            format!("memoryPerNode       : {node}\n"),
            format!("This node hogging {node} bytes of memory\nThis task hogging {node} bytes of memory\n"),
        ] {
            assert!(out.contains(&l), "{m}: {l}: {out}");
        }
    }
    let o = env.run(&[
        "suite",
        "ior",
        "-w",
        "-r",
        "-b",
        "64k",
        "-t",
        "16k",
        "-O",
        "memoryPerTask=10m",
        "-j",
        "5",
        "-O",
        "summaryFormat=JSON",
        "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &v["tests"][0]["Parameters"];
    assert_eq!(
        (
            &p["memoryPerTask"],
            &p["memoryPerNode"],
            &p["outlierThreshold"]
        ),
        (
            &serde_json::json!(10 << 20),
            &serde_json::json!(0),
            &serde_json::json!(5)
        ),
        "{p}"
    );
    // -z with -R: the offsets' seed must be given; with it the read checks clean.
    let z = [
        "suite", "ior", "-w", "-r", "-R", "-z", "-b", "64k", "-t", "16k", "-G", "3", "-o", f,
    ];
    let o = env.run(&z);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("random offset with read check option requires to set the random seed"),
        "{}",
        stderr(&o)
    );
    let o = env.run(&[&z[..], &["--random-offset-seed=11"]].concat());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("WARNING"), "{}", stdout(&o));
    // -vvv: IOR's six times of each phase on each task, then its line.
    let o = env.run(&[
        "suite", "ior", "-w", "-r", "-b", "64k", "-t", "16k", "-vvv", "-o", f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for access in ["write", "read"] {
        let times: Vec<f64> = [
            "open start",
            "open stop",
            "start",
            "stop",
            "close start",
            "close stop",
        ]
        .iter()
        .map(|what| {
            let tail = format!(", {access} {what}\n");
            let at = out.find(&tail).unwrap_or_else(|| panic!("{tail}: {out}"));
            let line = &out[out[..at].rfind('\n').unwrap() + 1..at];
            let t = line.strip_prefix("Test 0: Iter=0, Task=0, Time=").unwrap();
            t.parse().unwrap()
        })
        .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    }
    // -y (IOR's dual mount, -F only): each task's file on its NUMA node's mount,
    // FILE<node>/data.TASK.
    let dm = env.path().join("dm");
    let dm = dm.to_str().unwrap();
    let o = env.run(&[
        "suite", "ior", "-w", "-k", "-y", "-b", "64k", "-t", "16k", "-o", dm,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Dual Mount can only be used with File Per Process"));
    let o = env.run(&[
        "suite", "ior", "-w", "-k", "-F", "-y", "-b", "64k", "-t", "16k", "-o", dm,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("test filename       : {dm}\n")),
        "{}",
        stdout(&o)
    );
    let mounts: Vec<String> = std::fs::read_dir(env.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix("dm")
                .is_some_and(|d| d.parse::<u32>().is_ok())
        })
        .collect();
    assert_eq!(mounts.len(), 1, "{mounts:?}");
    assert!(env.path().join(&mounts[0]).join("data.00000000").exists());
});

// IOR's --warningAsErrors (a warning ends the run, as IOR's error), -O interIODelay
// (microseconds after each write and read transfer, within the phase's time) and
// -O saveRankPerformanceDetailsCSV (IOR's head, a line per task and phase, C's %.10e).
fathomtest!(
    ior_takes_ior_s_warning_delay_and_rank_csv_directives,
    |env| {
        let _a = alone();
        let f = env.path().join("w");
        let f = f.to_str().unwrap();
        let csv = env.path().join("ranks.csv");
        let o = env.run(&[
            "suite",
            "ior",
            "-w",
            "-r",
            "-k",
            "-b",
            "64k",
            "-t",
            "16k",
            "-O",
            "interIODelay=20000",
            "-O",
            &format!("saveRankPerformanceDetailsCSV={}", csv.display()),
            "-o",
            f,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        // 4 transfers a phase, 20 ms after each: the transfers' time (wr/rd) is 80 ms or more.
        for row in stdout(&o)
            .lines()
            .filter(|l| l.starts_with("write ") || l.starts_with("read "))
            .take(2)
        {
            let rdwr: f64 = row.split_whitespace().nth(7).unwrap().parse().unwrap();
            assert!(rdwr >= 0.08, "{row}");
        }
        let text = std::fs::read_to_string(&csv).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(
            lines[0],
            "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput"
        );
        for (line, access) in lines[1..].iter().zip(["write", "read"]) {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(&cells[..2], &[access, "0"], "{line}");
            for c in &cells[2..] {
                // C's %.10e: a digit, ten decimals, a signed exponent of two digits or more.
                let (m, e) = c.split_once('e').unwrap();
                assert!(m.len() == 12 && m.as_bytes()[1] == b'.', "{c}");
                assert!(
                    (e.starts_with('+') || e.starts_with('-')) && e.len() >= 3,
                    "{c}"
                );
            }
            let runtime: f64 = cells[3].parse().unwrap();
            assert!(runtime >= 0.08, "{line}");
        }
        // The file is there now: its warning is an error with --warningAsErrors.
        let o = env.run(&[
            "suite",
            "ior",
            "-w",
            "-b",
            "64k",
            "-t",
            "16k",
            "--warningAsErrors",
            "-o",
            f,
        ]);
        assert_ne!(o.status.code(), Some(0));
        assert!(
            stderr(&o).contains("exists already and will be overwritten (--warningAsErrors)"),
            "{}",
            stderr(&o)
        );
        assert!(!stdout(&o).contains("write "), "{}", stdout(&o));
    }
);

fathomtest!(ior_takes_ior_s_own_command_line, |env| {
    let _a = alone();
    let f = env.path().join("testFile");
    let f = f.to_str().unwrap();
    let o = env.run(&[
        "suite", "ior", "-a", "POSIX", "-b", "64k", "-F", "-i", "2", "-s", "4", "-t", "4k", "-N",
        "2", "-o", f, "-C", "-g", "-e",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("access              : file-per-process"),
        "{out}"
    );
    assert!(out.contains("aggregate filesize  : 524288 bytes"), "{out}");
    assert_eq!(
        out.matches("\nwrite ").count() + out.matches("\nread ").count(),
        6,
        "{out}"
    );
    // The summary's lines of both operations (with IOR's API column).
    for op in ["write ", "read "] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(op) && l.contains(" POSIX ")),
            "{out}"
        );
    }
    assert!(
        std::fs::read_dir(env.path()).unwrap().next().is_none(),
        "files removed"
    );
    // -w -k writes and keeps (FILE.0, FILE.1), -r alone reads them back.
    let o = env.run(&[
        "suite", "ior", "-a", "MMAP", "-b", "64k", "-t", "4k", "-F", "-N", "2", "-w", "-k", "-o", f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stdout(&o).lines().any(|l| l.starts_with("read ")),
        "{}",
        stdout(&o)
    );
    for t in 0..2 {
        // IOR's names: the task's number in eight digits.
        let len = std::fs::metadata(format!("{f}.{t:08}")).unwrap().len();
        assert_eq!(len, 64 << 10);
    }
    let o = env.run(&[
        "suite", "ior", "-b", "64k", "-t", "4k", "-F", "-N", "2", "-r", "-z", "-o", f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("read "))
            && !out.lines().any(|l| l.starts_with("write ")),
        "{out}"
    );
    assert!(
        !std::path::Path::new(&format!("{f}.00000000")).exists(),
        "removed without -k"
    );
    // IOR's letter groups: -wr and -vv one by one, -b64k and -t16k a letter and its value.
    let o = env.run(&[
        "suite", "ior", "-wr", "-vv", "-b64k", "-t16k", "-s2", "-F", "-N", "2", "-o", f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("aggregate filesize  : 262144 bytes"), "{out}");
    assert!(out.contains("xfersize            : 16384 bytes"), "{out}");
    // -vv: IOR's Max lines and its machine line with the kernel's release.
    assert!(
        out.contains("Max Write: ") && out.contains("Max Read:  "),
        "{out}"
    );
    assert!(out.contains("Participating tasks : 2\n"), "{out}");
    // -Z among one process's threads would move them: refused with the way out.
    let o = env.run(&["suite", "ior", "-Z", "-N", "2", "-o", f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("mpirun"), "{}", stderr(&o));
    let o = env.run(&["suite", "ior", "-a", "MPIIO"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-a MPIIO"), "{}", stderr(&o));
    let o = env.run(&["suite", "ior", "-r", "-o", f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-w -k"), "{}", stderr(&o));
    let o = env.run(&["suite", "ior", "--help"]);
    assert!(o.status.success() && stdout(&o).contains("-a POSIX|MMAP"));
    // -u: a folder per task (IOR's DIR/TASK/testFile.TASK); -O directives and IOR's long
    // names stand for the flags.
    let u = env.path().join("u");
    std::fs::create_dir(&u).unwrap();
    let uf = u.join("testFile");
    let uf = uf.to_str().unwrap();
    let o = env.run(&[
        "suite",
        "ior",
        "-b",
        "64k",
        "-t",
        "16k",
        "-F",
        "-u",
        "-N",
        "2",
        "-w",
        "-o",
        uf,
        "-O",
        "keepFile=1,segmentCount=2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for t in 0..2 {
        let p = u.join(t.to_string()).join(format!("testFile.{t:08}"));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 2 * 65536, "{p:?}");
    }
    let o = env.run(&[
        "suite",
        "ior",
        "--blockSize=64k",
        "--transferSize=16k",
        "--filePerProc",
        "-u",
        "--numTasks=2",
        "-o",
        uf,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_dir(&u).unwrap().count(),
        0,
        "files and folders removed"
    );
    // -W checks what was written (not timed); a damaged transfer is counted and fails
    // the run with IOR's exit status (twice the count of wrong transfers).
    let wf = u.join("checked");
    let wf = wf.to_str().unwrap();
    let o = env.run(&[
        "suite", "ior", "-b", "64k", "-t", "16k", "-s", "2", "-N", "2", "-w", "-W", "-k", "-o", wf,
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("WARNING"), "{}", stdout(&o));
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(wf).unwrap();
        f.write_all_at(&[0xa5; 8], 70000).unwrap();
    }
    // -K keeps the files when the check found errors (IOR's keepFileWithError).
    let o = env.run(&[
        "suite", "ior", "-b", "64k", "-t", "16k", "-s", "2", "-N", "2", "-W", "-K", "-o", wf,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(std::path::Path::new(wf).exists(), "-K keeps it");
    let o = env.run(&[
        "suite", "ior", "-b", "64k", "-t", "16k", "-s", "2", "-N", "2", "-W", "-o", wf,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stdout(&o)
            .contains("WARNING: Incorrect data on write (1 errors found).\n\nUsed Time Stamp "),
        "{}",
        stdout(&o)
    );
    assert!(
        !std::path::Path::new(wf).exists(),
        "removed without -k or -K"
    );
    // -m: a file per repetition (testFile.REP); -c warns and goes on, as IOR with POSIX.
    let mf = u.join("multi");
    let mf = mf.to_str().unwrap();
    let o = env.run(&[
        "suite", "ior", "-b", "64k", "-t", "16k", "-i", "3", "-m", "-k", "-c", "-o", mf,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("collective not available in POSIX"),
        "{}",
        stderr(&o)
    );
    for r in 0..3 {
        assert!(
            std::path::Path::new(&format!("{mf}.{r}")).exists(),
            "{mf}.{r}"
        );
    }
    let o = env.run(&["suite", "ior", "-O", "keepFiles=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean 'keepfile'?"),
        "{}",
        stderr(&o)
    );
});

// IOR's stonewalling: -D stops each phase at its deadline (the file holds what was
// written: IOR does not preallocate, so -b 16g reserves nothing), with IOR's file size
// warnings; -O stoneWallingWearOutIterations (or a status file) caps the transfers per task;
// IOR 4.0's report in its three formats, line by line as IOR 4.0.0 (built from its
// source, github.com/hpc/ior tag 4.0.0) prints them side by side: the text's header,
// options, results table with open/wr-rd/close times and summary; -v's lines; JSON and
// CSV with -O summaryFormat; -O summaryFile.
fathomtest!(ior_reports_in_ior_4_s_formats, |env| {
    let _a = alone();
    let f = env.path().join("t");
    let f = f.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec![
            "suite", "ior", "-w", "-r", "-b", "64k", "-t", "16k", "-i", "2",
        ];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["-o", f]);
        let o = env.run(&a);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        stdout(&o)
    };
    let out = run(&[]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("IOR-4.0.0: MPI Coordinated Test of Parallel I/O"));
    let keys: Vec<&str> = lines[1..8].iter().map(|l| &l[..22]).collect();
    assert_eq!(
        keys,
        [
            "Began               : ",
            "Command line        : ",
            "Machine             : ",
            "TestID              : ",
            "StartTime           : ",
            "Path                : ",
            "FS                  : "
        ]
    );
    assert_eq!(lines[6], format!("Path                : {f}"));
    for want in [
        "\nOptions: \napi                 : POSIX\napiVersion          : \n",
        &format!("test filename       : {f}\naccess              : single-shared-file\n"),
        "type                : independent\nsegments            : 1\n",
        "repetitions         : 2\nxfersize            : 16384 bytes\n\
         blocksize           : 65536 bytes\naggregate filesize  : 65536 bytes\n\nResults: \n\n\
         access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n\
         ------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----\n",
        "\nSummary of all tests:\nOperation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum\n",
    ] {
        assert!(out.contains(want), "{want}\n---\n{out}");
    }
    let row = regex_lite::Regex::new(
        r"(?m)^(write|read) {5,6}[\d.]+ +[\d.]+ +[\d.]+ +64\.00 +16\.00 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +[01] +$",
    )
    .unwrap();
    assert_eq!(row.find_iter(&out).count(), 4, "{out}");
    let sum = regex_lite::Regex::new(
        r"(?m)^(write|read) +([\d.]+ +){9}NA +NA +0 +1 +1 +2 +0 +0 +1 +0 +0 +1 +65536 +16384 +0\.1 POSIX +0$",
    )
    .unwrap();
    assert_eq!(sum.find_iter(&out).count(), 2, "{out}");
    assert!(lines.last().unwrap().starts_with("Finished            : "));
    assert!(!out.contains("Max Write"), "only with -v: {out}");
    // -v: IOR's progress, remove and Max lines.
    let out = run(&["-v"]);
    assert_eq!(
        out.matches("Commencing write performance test: ").count(),
        2
    );
    assert_eq!(out.matches("Commencing read performance test: ").count(), 2);
    assert_eq!(
        out.matches("\nremove    -          -   ").count(),
        2,
        "{out}"
    );
    assert!(out.contains("Participating tasks : 1\n") && out.contains("verbose             : 1\n"));
    assert!(
        out.contains("\nMax Write: ") && out.contains("\nMax Read:  "),
        "{out}"
    );
    // -O summaryalways=1 (with -v): the test's summary lines after it, no Max lines.
    let out = run(&["-v", "-O", "summaryalways=1"]);
    assert_eq!(out.matches("Operation   Max(MiB)").count(), 2, "{out}");
    assert!(!out.contains("Max Write"), "{out}");
    // -vvv: the environment, the Parameters block, what each task does.
    let out = run(&["-vvv"]);
    for want in [
        "STARTING ENVIRON LOOP\n",
        "ENDING ENVIRON LOOP\n",
        "\nParameters: \ntestID              : 0\n",
        "deadlineForStonewall: 0\n",
        &format!("task 0 writing {f}\nCommencing write performance test: "),
        &format!("task 0 reading {f}\nCommencing read performance test: "),
        &format!("task 0 removing {f}\nremove    "),
    ] {
        assert!(out.contains(want), "{want}\n---\n{out}");
    }
    // JSON: one document on standard output, IOR's keys.
    let out = run(&["-O", "summaryFormat=JSON"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["Version"], "4.0.0");
    let t = &v["tests"][0];
    assert_eq!(t["Options"]["xfersize"], "16384 bytes");
    assert_eq!(t["Parameters"]["blockSize"], 65536);
    assert_eq!(t["Path"], f);
    let res = t["Results"].as_array().unwrap();
    assert_eq!(res.len(), 4);
    assert_eq!(res[0]["access"], "write");
    assert_eq!(res[1]["access"], "read");
    for k in [
        "bwMiB",
        "iops",
        "latency",
        "openTime",
        "wrRdTime",
        "closeTime",
        "totalTime",
    ] {
        assert!(res[0][k].as_f64().is_some(), "{k}: {out}");
    }
    let s = v["summary"].as_array().unwrap();
    assert_eq!(
        (s[0]["operation"].as_str(), s[1]["operation"].as_str()),
        (Some("write"), Some("read"))
    );
    assert!(s[0]["bwMaxMIB"].as_f64().unwrap() > 0.0);
    assert_eq!(s[0]["xsizeMiB"], 0.0625);
    // CSV: the results table.
    let out = run(&["-O", "summaryFormat=CSV"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter"
    );
    assert_eq!(lines.len(), 5, "{out}");
    assert!(
        lines[1].starts_with("write,") && lines[1].ends_with(",1,0"),
        "{out}"
    );
    assert!(
        lines[4].starts_with("read,") && lines[4].ends_with(",1,1"),
        "{out}"
    );
    // -O summaryFile: the results in the file, IOR's line on standard output.
    let sf = env.path().join("summary.json");
    let out = run(&[
        "-O",
        &format!("summaryFile={},summaryFormat=json", sf.display()),
    ]);
    assert_eq!(out, format!("Writing output to {}\n", sf.display()));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sf).unwrap()).unwrap();
    assert_eq!(v["summary"].as_array().unwrap().len(), 2);
    let o = env.run(&["suite", "ior", "-O", "summaryFormat=xml", "-o", f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("Unknown summaryFormat"),
        "{}",
        stderr(&o)
    );
});

// -x (singleXferAttempt): a POSIX transfer that comes back short is an error, its rest
// not asked for again (IOR aborts: "cannot write to file"); without it the rest is
// reissued and the phase completes. (fathom refused -x.)
fathomtest!(ior_single_transfer_attempt_fails_a_short_write, |env| {
    let _a = alone();
    let Some(m) = faultfs_rig(&env) else { return };
    let f = m.path().join("x");
    let run = |extra: &[&str]| {
        m.add(
            faultfs::Rule::new(faultfs::Fault::Short {
                keep: 4096,
                on: faultfs::Op::Write,
            })
            .times(1),
        );
        let mut args: Vec<&str> = "suite ior -w -b 64k -t 16k".split(' ').collect();
        args.extend_from_slice(&["-o", f.to_str().unwrap()]);
        args.extend_from_slice(extra);
        env.run(&args)
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["-x"]);
    assert!(!o.status.success(), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("Input/output error"), "{err}");
});

// --posix.rangelocks (IOR 4.0's POSIX backend): each transfer holds an fcntl byte-range
// lock over its range while it is done (a read lock for reads). A write lock another
// process holds over the file makes the read phase wait for it; without the option the
// phase goes through at once. (fathom refused the option.)
fathomtest!(ior_range_locks_wait_for_a_conflicting_lock, |env| {
    let _a = alone();
    let f = env.path().join("locked");
    std::fs::write(&f, vec![7u8; 64 << 10]).unwrap();
    let run = |extra: &[&str]| {
        // This process holds a write lock over the file's second 4 KiB for a while.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&f)
            .unwrap();
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        fl.l_start = 4096;
        fl.l_len = 4096;
        use std::os::fd::AsRawFd;
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &mut fl) };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
        let released = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = released.clone();
        let holder = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(3));
            r.store(true, std::sync::atomic::Ordering::SeqCst);
            drop(file);
        });
        let mut args = vec![
            "suite",
            "ior",
            "-r",
            "-k",
            "-b",
            "64k",
            "-t",
            "4k",
            "-o",
            f.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = env.run(&args);
        let done_before_release = !released.load(std::sync::atomic::Ordering::SeqCst);
        holder.join().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        done_before_release
    };
    assert!(
        !run(&["--posix.rangelocks"]),
        "the read of the locked range waited for the lock"
    );
    assert!(run(&[]), "without range locks nothing waits");
});

// --randomPrefill (IOR 4.0): before -z's random transfers the write phase writes each
// task's blocks whole in writes of the prefill's size, IOR's prefill buffer (0xFF bytes,
// the offset packets' stamps on it), timed with the phase but not counted in its bytes. A
// phase cut after one transfer leaves the rest of the block as the prefill wrote it.
fathomtest!(ior_random_prefill_writes_each_block_first, |env| {
    let _a = alone();
    let f = env.path().join("t");
    let f = f.to_str().unwrap();
    let file = format!("{f}.00000000");
    let run = |packet: &str| {
        let _ = std::fs::remove_file(&file);
        env.run(&[
            "suite",
            "ior",
            "-w",
            "-z",
            "-F",
            "-k",
            "-vv",
            "-l",
            packet,
            "-b",
            "64k",
            "-t",
            "4k",
            "--randomPrefill=16k",
            "-O",
            "stoneWallingWearOutIterations=1",
            "-o",
            f,
        ])
    };
    let o = run("t");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        regex_lite::Regex::new(r"\nRandom prefill took: \d+\.\d{6}s\n")
            .unwrap()
            .is_match(&out),
        "{out}"
    );
    // One transfer moved (the prefill is not counted), the file whole.
    assert!(
        out.contains("WARNING: Stat() of aggregate file size      = 65536\n"),
        "{out}"
    );
    assert!(
        out.contains("WARNING: Using actual aggregate bytes moved = 4096\n"),
        "{out}"
    );
    let data = std::fs::read(&file).unwrap();
    assert_eq!(data.len(), 64 << 10);
    let ff = data.chunks(4096).filter(|c| c.iter().all(|&b| b == 0xFF));
    assert_eq!(ff.count(), 15, "all but the one transfer");
    // The offset packets: the word at each 4 KiB of a 16 KiB prefill write at offset P
    // is P × k (k = 1..4), the rest 0xFF; the transfer's own 4 KiB holds IOR's data.
    let o = run("o");
    assert!(o.status.success(), "{}", stderr(&o));
    let data = std::fs::read(&file).unwrap();
    let mut prefilled = 0;
    for (i, c) in data.chunks(4096).enumerate() {
        if c[8..].iter().all(|&b| b == 0xFF) {
            let write = (i / 4 * 16384) as u64;
            let k = (i % 4 + 1) as u64;
            assert_eq!(c[..8], (write * k).to_le_bytes(), "4 KiB block {i}");
            prefilled += 1;
        }
    }
    assert_eq!(prefilled, 15);
});

// IOR's -f scripts as IOR 4.0 reads them: the tests between IOR START and IOR STOP, each
// from the one before it, RUN twice a test run twice, comments and indented lines, and a
// directive's 0 turning off what the command line turned on; one report, every test's
// summary lines with its number.
fathomtest!(ior_runs_the_tests_of_a_script, |env| {
    let _a = alone();
    let f = env.path().join("t");
    let f = f.to_str().unwrap();
    let script = env.path().join("tests.ior");
    std::fs::write(
        &script,
        "lines before the start are not read\nIOR START\n  api=posix\n\
         \tblockSize=64k, transferSize=16k  # two on a line\n   # a comment\n\
         writeFile=1\nRUN\n  filePerProc=1\n\trepetitions=2\nrun\nRUN\n\
         readFile=0\nkeepFile=1\nRUN\nior stop\nnot read: bogus=1\n",
    )
    .unwrap();
    let o = env.run(&[
        "suite",
        "ior",
        "-r",
        "-f",
        script.to_str().unwrap(),
        "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("\nTestID              : ").count(), 4, "{out}");
    assert_eq!(out.matches("\nOptions: \n").count(), 4, "{out}");
    assert_eq!(
        out.matches("api                 : posix\n").count(),
        4,
        "{out}"
    );
    // The summary: test 0 shared (write, read), 1 and 2 a file per task twice, 3 writes
    // only (readFile=0 turned off the command line's -r).
    let sum =
        regex_lite::Regex::new(r"(?m)^(write|read) +([\d.]+ +){9}NA +NA +(\d) +1 +1 +(\d) +(\d) ")
            .unwrap();
    let rows: Vec<(String, String, String, String)> = sum
        .captures_iter(&out)
        .map(|c| (c[1].into(), c[3].into(), c[4].into(), c[5].into()))
        .collect();
    let want: Vec<(String, String, String, String)> = [
        ("write", "0", "1", "0"),
        ("read", "0", "1", "0"),
        ("write", "1", "2", "1"),
        ("read", "1", "2", "1"),
        ("write", "2", "2", "1"),
        ("read", "2", "2", "1"),
        ("write", "3", "2", "1"),
    ]
    .iter()
    .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
    .collect();
    assert_eq!(rows, want, "{out}");
    // Test 3 kept its files (keepFile=1), named as IOR names them.
    assert!(std::path::Path::new(&format!("{f}.00000000")).exists());
    // An unknown directive is named with the script's line.
    std::fs::write(
        &script,
        "IOR START\nblockSize=64k\nbogus=1\nRUN\nIOR STOP\n",
    )
    .unwrap();
    let o = env.run(&["suite", "ior", "-f", script.to_str().unwrap(), "-o", f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("tests.ior:3: "), "{}", stderr(&o));
});

// IOR's data, byte for byte as IOR 4.0.0 writes it (compared side by side with IOR built
// from its source): every transfer word i is rank << 32 | (signature + i), the
// signature -G's value (else the repetition's time); -R checks it in a later run, and a
// wrong signature is found.
fathomtest!(ior_writes_ior_s_data_and_checks_it, |env| {
    let _a = alone();
    let f = env.path().join("d");
    let f = f.to_str().unwrap();
    let o = env.run(&[
        "suite", "ior", "-w", "-b", "32k", "-t", "16k", "-s", "2", "-k", "-G", "1234", "-vv", "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Using Time Stamp 1234 (0x4d2) for Data Signature\n"),
        "{}",
        stdout(&o)
    );
    let data = std::fs::read(f).unwrap();
    assert_eq!(data.len(), 64 << 10);
    let want: Vec<u8> = (0..2048u64)
        .flat_map(|i| (1234 + i).to_le_bytes())
        .collect();
    for (k, t) in data.chunks(16 << 10).enumerate() {
        assert!(t == want.as_slice(), "transfer {k} is not IOR's data");
    }
    let check = |g: &str| {
        env.run(&[
            "suite", "ior", "-r", "-R", "-b", "32k", "-t", "16k", "-s", "2", "-k", "-G", g, "-o", f,
        ])
    };
    let o = check("1234");
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("WARNING"), "{}", stdout(&o));
    let o = check("1235");
    assert_eq!(o.status.code(), Some(8));
    // IOR 4.0 checks as the read phase reads: its warning and the signature come before
    // the phase's line of the table.
    let out = stdout(&o);
    let warn = out
        .find(
            "WARNING: Incorrect data on read (4 errors found).\n\n\
             Used Time Stamp 1235 (0x4d3) for Data Signature\nread ",
        )
        .unwrap_or_else(|| panic!("{out}"));
    assert!(out[..warn].contains("------ "), "{out}");
    // -R without -r: a read phase all the same (its line in the table), but no read line
    // in the summary (IOR's summary follows -w/-r); a write of a file there already says
    // so, once, before the table.
    let o = env.run(&[
        "suite", "ior", "-w", "-R", "-b", "32k", "-t", "16k", "-s", "2", "-k", "-G", "7", "-o", f,
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    let rows = |prefix: &str| out.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!((rows("write "), rows("read ")), (2, 1), "{out}");
    let exists = format!(
        "Results: \nWARNING: The file \"{f}\" exists already and will be overwritten\n\naccess "
    );
    assert!(out.contains(&exists), "{out}");
    // IOR's options fathom does not take say so by name (an unknown packet type too).
    for (extra, msg) in [
        (&["-l", "x"][..], "-l x: unknown packet type \"x\""),
        (&["--dryRun"], "--dryRun is not supported"),
        (
            &["--randomPrefill=16k"],
            "Setting the randomPrefill option without using random is not useful",
        ),
        (
            &["-z", "--randomPrefill=24k"],
            "The randomPrefill option must divide the blockSize",
        ),
        (
            &["-z", "--randomPrefill=16k", "-D", "1", "-s", "2"],
            "--randomPrefill with -D and several segments (-s 2) is not supported",
        ),
        (
            &["-O", "minTimeDuration=5", "-D", "1"],
            "-O minTimeDuration with -D",
        ),
    ] {
        let o = env.run(
            &[
                &["suite", "ior", "-w", "-b", "32k", "-t", "16k", "-o", f][..],
                extra,
            ]
            .concat(),
        );
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&o).contains(msg), "{extra:?}: {}", stderr(&o));
    }
    let o = env.run(&[
        "suite",
        "ior",
        "-w",
        "-l",
        "t",
        "-O",
        "singleXferAttempt=0",
        "--randomPrefill=0",
        "-b",
        "32k",
        "-t",
        "16k",
        "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // -O minTimeDuration: the phase goes through its transfers again, whole passes, until
    // it has run that long; IOR's file size warning gives the bytes moved.
    let o = env.run(&[
        "suite",
        "ior",
        "-w",
        "-O",
        "minTimeDuration=1",
        "-b",
        "32k",
        "-t",
        "16k",
        "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let row = out.lines().find(|l| l.starts_with("write ")).unwrap();
    let total: f64 = row.split_whitespace().nth(9).unwrap().parse().unwrap();
    assert!(total >= 1.0, "{row}");
    let moved: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("WARNING: Using actual aggregate bytes moved = "))
        .unwrap_or_else(|| panic!("{out}"))
        .parse()
        .unwrap();
    assert!(
        moved > 32 << 10 && moved % (32 << 10) == 0,
        "whole passes: {moved}"
    );
    // IOR's rule: a check without a write compares with -G's signature.
    let o = env.run(&["suite", "ior", "-R", "-b", "32k", "-t", "16k", "-o", f]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("using readCheck only requires to write a timeStampSignature -- use -G"),
        "{}",
        stderr(&o)
    );
});

// IOR 4.0's -l packets, byte for byte: the words here are read from files IOR 4.0.0 wrote
// with the same command line (-G 1234567, 8200-byte transfers, one task). Each check
// passes on the data written, and a stamp damaged fails its transfer.
fathomtest!(ior_writes_and_checks_ior_s_data_packets, |env| {
    let _a = alone();
    let f = env.path().join("p");
    let f = f.to_str().unwrap();
    let word = |d: &[u8], at: usize| u64::from_le_bytes(d[at..at + 8].try_into().unwrap());
    let run = |l: &str, rw: &[&str]| {
        env.run(
            &[
                &[
                    "suite", "ior", "-l", l, "-t", "8200", "-b", "32800", "-s", "2",
                ][..],
                &["-G", "1234567", "-k", "-o", f],
                rw,
            ]
            .concat(),
        )
    };
    for (l, want) in [
        // (offset, word) pairs IOR wrote.
        (
            "o",
            &[
                (0, 0),
                (8, 0x12d688),
                (16, 0x12d689),
                (12296, 0x4010),
                (12304, 0x12d888),
            ][..],
        ),
        (
            "i",
            &[
                (0, 0),
                (8, 0x0cc0_45cb_13c9_905d),
                (12296, 0x4010),
                (12304, 0x0cc0_45cb_13c9_905d),
            ],
        ),
        (
            "r",
            &[
                (0, 0x11cc_f99f_deb2_88b9),
                (8, 0x0838_afda_b779_d117),
                (16, 0x06fa_ba3e_6e63_ba22),
                (8200, 0x092f_f99f_1af0_39aa),
                (8208, 0x157c_71bb_c689_0735),
            ],
        ),
        (
            "t",
            &[(0, 0x12d687), (8200, 0x12d687), (12296, 0x12d687 + 512)],
        ),
    ] {
        let o = run(l, &["-w", "-r", "-W", "-R"]);
        assert!(o.status.success(), "-l {l}: {}{}", stdout(&o), stderr(&o));
        assert!(
            !stdout(&o).contains("WARNING: Incorrect"),
            "-l {l}: {}",
            stdout(&o)
        );
        let d = std::fs::read(f).unwrap();
        assert_eq!(d.len(), 65600);
        for &(at, w) in want {
            assert_eq!(word(&d, at), w, "-l {l}: the word at {at}");
        }
    }
    // The offset packets: each 4 KiB's first word is the transfer's offset times its
    // place (the third transfer, at 16400: 16400, 32800, 49200 at its 4 KiB marks).
    let o = run("o", &["-w"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut d = std::fs::read(f).unwrap();
    for (k, at) in [16400usize, 20496, 24592].into_iter().enumerate() {
        assert_eq!(word(&d, at), 16400 * (k as u64 + 1), "stamp {k}");
    }
    // A stamp damaged: that transfer fails the check, the others pass.
    d[20496] ^= 1;
    std::fs::write(f, &d).unwrap();
    let o = run("o", &["-r", "-R"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("WARNING: Incorrect data on read (1 errors found)."),
        "{}",
        stdout(&o)
    );
    // Checked as timestamp packets, the stamped words differ: the check fails.
    let o = run("t", &["-r", "-R"]);
    let found: u32 = stdout(&o)
        .split("Incorrect data on read (")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", stdout(&o)));
    assert_eq!(
        o.status.code(),
        Some((found * 2 % 256) as i32),
        "{}",
        stdout(&o)
    );
    // IOR shows the packet type in its JSON summary by its own (shifted) names.
    let o = env.run(&[
        "suite",
        "ior",
        "-w",
        "-l",
        "o",
        "-t",
        "8k",
        "-b",
        "32k",
        "-O",
        "summaryFormat=JSON",
        "--warningAsErrors",
        "-o",
        &format!("{f}.json"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for line in [
        "\"dataPacketType\": 1",
        "\"data packet type\": \"t\"",
        "\"warningAsErrors\": 1",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
});

// IO500's IOR lines (its ior-hard and ior-rnd4K phases, scaled down in time): ten
// million segments of one 47008-byte transfer (the layout as strided zones, nothing made
// per segment), and -z with stonewalling's wear-out in IOR's own random order.
fathomtest!(ior_runs_io500_s_hard_and_random_lines, |env| {
    let _a = alone();
    let d = env.path();
    let st = format!("stoneWallingStatusFile={}", d.join("hard.st").display());
    let hard = d.join("hard");
    let hard = hard.to_str().unwrap();
    let line = |rw: &[&str]| -> Vec<String> {
        [
            &[
                "suite", "ior", "-C", "-Q", "1", "-g", "-G", "27", "-k", "-e", "-o", hard,
            ][..],
            &[
                "-O", &st, "-t", "47008", "-b", "47008", "-s", "10000000", "-a", "POSIX",
            ],
            rw,
        ]
        .concat()
        .into_iter()
        .map(String::from)
        .collect()
    };
    let w = line(&[
        "-w",
        "-D",
        "30",
        "-O",
        "stoneWallingWearOut=1",
        "-O",
        "stoneWallingWearOutIterations=300",
    ]);
    let o = env.run(&w.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains(
            "WARNING: Expected aggregate file size       = 470080000000
"
        ),
        "{}",
        stdout(&o)
    );
    assert_eq!(std::fs::metadata(hard).unwrap().len(), 300 * 47008);
    let r = line(&["-r", "-R"]);
    let o = env.run(&r.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "bytes moved = 14102400
"
        ),
        "{out}"
    );
    assert!(!out.contains("Incorrect data"), "{out}");
    // ior-rnd4K's line (fewer segments): -z, -D and the wear-out.
    let rnd = d.join("rnd");
    let o = env.run(&[
        "suite",
        "ior",
        "--dataPacketType=timestamp",
        "-Q=1",
        "-g",
        "-G=1339064511",
        "-z",
        "--random-offset-seed=123",
        "-e",
        &format!("-o={}", rnd.display()),
        "-O",
        &format!("stoneWallingStatusFile={}", d.join("rnd.st").display()),
        "-t",
        "4096",
        "-b",
        "1048576",
        "-s",
        "4",
        "-w",
        "-D",
        "30",
        "-a",
        "POSIX",
        "-O",
        "stoneWallingWearOut=1",
        "-k",
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("stonewalling pairs accessed min: 1024 max: 1024 -- "),
        "{out}"
    );
    assert_eq!(std::fs::metadata(&rnd).unwrap().len(), 4 << 20);
    // Its ten million segments of 256 transfers (2.56e9 a task): the order is made as it
    // goes, so the deadline ends the phase, and the read checks what the write left.
    let st = format!("stoneWallingStatusFile={}", d.join("rnd2.st").display());
    let line = |rw: &[&str]| -> Vec<String> {
        [
            &[
                "suite",
                "ior",
                "-z",
                "--random-offset-seed=123",
                "-G=5",
                "-t=4096",
            ][..],
            &[
                "-b=1048576",
                "-s=10000000",
                "-k",
                "-O",
                &st,
                "-o",
                rnd.to_str().unwrap(),
            ],
            rw,
        ]
        .concat()
        .into_iter()
        .map(String::from)
        .collect()
    };
    let w = line(&["-w", "-D", "1", "-O", "stoneWallingWearOut=1"]);
    let o = env.run(&w.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let pairs: u64 = std::fs::read_to_string(d.join("rnd2.st"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(pairs > 0, "{}", stdout(&o));
    let r = line(&["-r", "-R"]);
    let o = env.run(&r.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("bytes moved = {}\n", pairs * 4096)),
        "{out}"
    );
    assert!(!out.contains("Incorrect data"), "{out}");
});

// IOR's rules on the directives; -A's refnum, -B's O_DIRECT (IOR 3), -G seeds the data.
fathomtest!(ior_stonewalls_at_a_deadline_as_ior, |env| {
    let _a = alone();
    let f = env.path().join("sw");
    let f = f.to_str().unwrap();
    // fsync after every write (-Y) keeps the bytes written in a second small.
    let o = env.run(&[
        "suite", "ior", "-b", "16g", "-t", "4k", "-Y", "-w", "-D", "1", "-k", "-A", "42", "-o", f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // -A's reference number ends the summary's line.
    assert!(
        out.lines()
            .any(|l| l.starts_with("write ") && l.ends_with(" POSIX     42")),
        "{out}"
    );
    for line in [
        "stonewallingTime    : 1\n",
        "stoneWallingWearOut : 0\n",
        "WARNING: Expected aggregate file size       = 17179869184\n",
        "WARNING: Maybe caused by deadlineForStonewalling\n",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    let moved: u64 = regex_lite::Regex::new(r"Using actual aggregate bytes moved = (\d+)")
        .unwrap()
        .captures(&out)
        .unwrap_or_else(|| panic!("{out}"))[1]
        .parse()
        .unwrap();
    let len = std::fs::metadata(f).unwrap().len();
    assert!(moved > 0 && moved < 1 << 34, "{out}");
    assert_eq!(len, moved, "the file holds what was written, no more");
    let secs: f64 = out
        .lines()
        .find(|l| l.starts_with("write "))
        .and_then(|l| l.split_whitespace().nth(9)?.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!((0.9..5.0).contains(&secs), "{secs}: {out}");
    // (On a loaded machine the second of fsynced writes may have written fewer than the
    // 25 transfers read below: the file is made long enough for them.)
    let len = len.max(32 * 4096);
    std::fs::OpenOptions::new()
        .write(true)
        .open(f)
        .unwrap()
        .set_len(len)
        .unwrap();
    // Read back 10 transfers of it: IOR's cap, and its warnings on the size.
    let o = env.run(&[
        "suite",
        "ior",
        "-b",
        "16g",
        "-t",
        "4k",
        "-r",
        "-k",
        "-B",
        "-O",
        "stoneWallingWearOutIterations=10",
        "-o",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("api                 : POSIX\n"), "{out}");
    assert!(
        out.contains("Using actual aggregate bytes moved = 40960\n"),
        "{out}"
    );
    // A status file holds the pairs a stonewalled write left for a later read.
    std::fs::write(env.path().join("status"), "25").unwrap();
    let st = format!(
        "stoneWallingStatusFile={}",
        env.path().join("status").display()
    );
    let o = env.run(&[
        "suite", "ior", "-b", "16g", "-t", "4k", "-r", "-k", "-O", &st, "-o", f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("bytes moved = 102400\n"),
        "{}",
        stdout(&o)
    );
    // The reads went through the file as it is: nothing laid out or extended.
    assert_eq!(std::fs::metadata(f).unwrap().len(), len);
    // Reading all 16g of it fails as IOR's "cannot read from file" does, with the way out.
    let o = env.run(&["suite", "ior", "-b", "16g", "-t", "1m", "-r", "-k", "-o", f]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("stoneWallingStatusFile"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::metadata(f).unwrap().len(), len);
    // IOR's rules.
    for (args, says) in [
        (
            vec!["-O", "stoneWallingWearOut=1"],
            "setting a stonewall deadline with -D",
        ),
        (vec!["-D", "1", "-O", &st], "please use -k"),
        (
            vec!["-D", "1", "-k", "-O", &st],
            "only sensible for a write test when using stoneWallingWearOut",
        ),
        (
            vec!["-D", "1", "-z", "-N", "2", "-O", "stoneWallingWearOut=1"],
            "stoneWallingWearOut with -N threads in one process is not supported",
        ),
    ] {
        let mut a = vec!["suite", "ior", "-b", "64k", "-t", "4k", "-o", f];
        a.extend(args.iter().copied());
        let o = env.run(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
});

// SIGINT and SIGTERM stop a suite as they stop a run: what was finished is printed, the
// suite's files are removed, and the exit code is 130 or 143.
fathomtest!(
    suites_stop_on_a_signal_with_a_partial_report_and_no_files_left,
    |env| {
        let _a = alone();
        let d = env.path().to_str().unwrap().to_string();
        let tf = format!("{d}/testFile");
        let cases: Vec<(Vec<String>, i32, &str)> = vec![
            (
                [
                    "bonnie", "-d", &d, "-s", "4g", "-r", "2g", "-n", "4", "-m", "sig",
                ]
                .map(String::from)
                .to_vec(),
                libc::SIGINT,
                "Version 2.00a",
            ),
            (
                [
                    "ior", "-a", "POSIX", "-b", "1g", "-t", "4k", "-N", "2", "-i", "3", "-o", &tf,
                ]
                .map(String::from)
                .to_vec(),
                libc::SIGTERM,
                "Summary of all tests:",
            ),
            (
                ["iozone", "-a", "-n", "1m", "-g", "1g", "-f", &d]
                    .map(String::from)
                    .to_vec(),
                libc::SIGINT,
                "reclen",
            ),
            (
                [
                    "cdm",
                    &format!("--dir={d}"),
                    "--size=64m",
                    "--loops=3",
                    "--runtime=2",
                ]
                .map(String::from)
                .to_vec(),
                libc::SIGINT,
                "Read MB/s",
            ),
            (
                ["dbench", "-t", "600", "-D", &d, "2"]
                    .map(String::from)
                    .to_vec(),
                libc::SIGINT,
                "Throughput",
            ),
        ];
        for (args, sig, shows) in cases {
            let child = env
                .cmd()
                .arg("suite")
                .args(&args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(1500));
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.id() as i32, sig) };
            let t = std::time::Instant::now();
            let o = child.wait_with_output().unwrap();
            assert!(
                t.elapsed() < std::time::Duration::from_secs(10),
                "{}: took {:?} to stop",
                args[0],
                t.elapsed()
            );
            assert_eq!(
                o.status.code(),
                Some(128 + sig),
                "{}: {}",
                args[0],
                stderr(&o)
            );
            assert!(stdout(&o).contains(shows), "{}: {}", args[0], stdout(&o));
            let left: Vec<_> = std::fs::read_dir(env.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert!(left.is_empty(), "{}: left {left:?}", args[0]);
        }
    }
);

// fathom under a classic tool's name runs that tool's suite with the line as written:
// `fathom install-links DIR` makes the links; sysbench's own form with the test name,
// bonnie++'s and dd's lines run through them; an existing file is left alone.
fathomtest!(linked_under_a_tools_name_fathom_is_that_tool, |env| {
    let _a = alone();
    let bin = env.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(bin.join("dd"), "mine").unwrap();
    let o = env.run(&["install-links", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(bin.join("dd")).unwrap(), "mine");
    std::fs::remove_file(bin.join("dd")).unwrap();
    let o = env.run(&["install-links", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let work = env.path().join("w");
    std::fs::create_dir(&work).unwrap();
    let tool = |name: &str, args: &[&str]| {
        std::process::Command::new(bin.join(name))
            .args(args)
            .current_dir(&work)
            .output()
            .unwrap()
    };
    let common = ["fileio", "--file-total-size=8M", "--file-num=2"];
    let o = tool("sysbench", &[&common[..], &["prepare"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = tool(
        "sysbench",
        &[
            &common[..],
            &[
                "--file-test-mode=rndrw",
                "--time=1",
                "--max-requests=0",
                "run",
            ],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Throughput:"), "{}", stdout(&o));
    let o = tool("sysbench", &[&common[..], &["cleanup"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let me = libc_getuid().to_string();
    let w = work.to_str().unwrap();
    let o = tool(
        "bonnie++",
        &[
            "-d", w, "-s", "16", "-r", "8", "-n", "0", "-u", &me, "-q", "-f",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("1.98,2.00a,"), "{}", stdout(&o));
    let of = format!("of={w}/x");
    let o = tool("dd", &["if=/dev/zero", &of, "bs=64k", "count=4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("4+0 records out"), "{}", stderr(&o));
    // A copy, as dd makes it (512-byte blocks by default).
    let o = tool("dd", &[&format!("if={w}/x"), &format!("of={w}/y")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("512+0 records out"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(work.join("y")).unwrap(),
        std::fs::read(work.join("x")).unwrap()
    );
});

// iozone's runbook line (`iozone -Rb spreadsheet_output_4K.wks -O -i 0 -i 1 -i 2 -e -+n
// -r 4K -s 16G`, scaled down): clustered flags, ops/s, no re-tests, the -R report and a
// real spreadsheet (an xlsx zip with the report's cells), -f as the temporary file.
/// The iozone runbook line's flags after `-Rb BOOK` (its size and file are each test's).
const IOZONE_RUNBOOK: &[&str] = &[
    "-O", "-i", "0", "-i", "1", "-i", "2", "-e", "-+n", "-r", "4K",
];

fathomtest!(iozone_takes_iozone_s_own_command_line, |env| {
    let _a = alone();
    let book = env.path().join("spreadsheet_output_4K.wks");
    let tmp = env.path().join("iozone.tmp");
    let o = env.run(
        &[
            &["suite", "iozone", "-Rb", book.to_str().unwrap()][..],
            IOZONE_RUNBOOK,
            &["-s16m", "-f", tmp.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("OPS Mode. Output is in operations per second."),
        "{out}"
    );
    assert!(out.contains("No retest option selected"), "{out}");
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("16384"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    // kB, reclen, write, rewrite, read, reread, random read, random write: the re-tests
    // -+n leaves out show 0, as iozone prints them.
    assert_eq!(cells.len(), 8, "{row}");
    assert_eq!((cells[3], cells[5]), ("0", "0"), "{row}");
    for title in [
        "\"Writer report\"",
        "\"Re-writer report\"",
        "\"Reader report\"",
        "\"Random write report\"",
    ] {
        assert!(out.contains(title), "{title}: {out}");
    }
    // iozone's lines about the options, in their order, and its last line.
    assert!(
        out.contains(
            "\tExcel chart generation enabled\n\tOPS Mode. Output is in operations per second.\n\
             \tInclude fsync in write timing\n\tNo retest option selected\n\tRecord Size 4 kB\n\
             \tFile size set to 16384 kB\n\tCommand line used: "
        ),
        "{out}"
    );
    assert!(
        out.contains("\n\niozone test complete.\nExcel output is below:\n"),
        "{out}"
    );
    assert!(!tmp.exists(), "the temporary file is removed");
    let bytes = std::fs::read(&book).unwrap();
    assert_eq!(&bytes[..2], b"PK", "an xlsx (zip) spreadsheet");
    // The workbook read back with openpyxl (Debian's python3-openpyxl; whatever the file's
    // name): each report's block holds the text report's numbers, as numbers.
    let py = if std::path::Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let read = std::process::Command::new(py)
        .args([
            "-c",
            "import sys,openpyxl\n\
             wb=openpyxl.load_workbook(open(sys.argv[1],'rb'))\n\
             for r in wb.worksheets[0].iter_rows(values_only=True):\n\
             \tprint('|'.join('' if c is None else repr(c) for c in r))",
            book.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    if !read.status.success() {
        assert!(
            std::env::var_os("FATHOM_REQUIRE_OPENPYXL").is_none(),
            "openpyxl: {}",
            String::from_utf8_lossy(&read.stderr)
        );
        eprintln!("openpyxl not installed (apt-get install python3-openpyxl): not read back");
    } else {
        let rows = String::from_utf8_lossy(&read.stdout).into_owned();
        let lines: Vec<&str> = rows.lines().collect();
        // kB, reclen, write, read, random read, random write in the text report.
        for (title, cell) in [
            ("Writer report (ops/s)", 2),
            ("Re-writer report (ops/s)", 3),
            ("Reader report (ops/s)", 4),
            ("Random read report (ops/s)", 6),
            ("Random write report (ops/s)", 7),
        ] {
            let at = lines
                .iter()
                .position(|l| l.starts_with(&format!("'{title}'")))
                .unwrap_or_else(|| panic!("{title} in\n{rows}"));
            assert_eq!(lines[at + 1], "|4", "{rows}");
            assert_eq!(
                lines[at + 2],
                format!("16384|{}", cells[cell]),
                "{title}: {rows}"
            );
        }
    }
    let o = env.run(&["suite", "iozone", "--help"]);
    assert!(o.status.success() && stdout(&o).contains("-Rb report.xlsx"));
});

/// The operation table of a dbench report: (name, count) in order.
fn dbench_table(out: &str) -> Vec<(String, u64)> {
    let row = regex_lite::Regex::new(r"^ (\w+) +(\d+) +(\d+\.\d{3}) +(\d+\.\d{3})$").unwrap();
    out.lines()
        .skip_while(|l| !l.starts_with(" Operation      Count    AvgLat    MaxLat"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let c = row.captures(l).unwrap_or_else(|| panic!("table row {l:?}"));
            (c[1].to_string(), c[2].parse().unwrap())
        })
        .collect()
}

fn dbench_throughput(out: &str) -> f64 {
    let re = regex_lite::Regex::new(
        r"(?m)^Throughput (\d+(\.\d+)?) MB/sec  (\d+) clients  (\d+) procs  max_latency=\d+\.\d{3} ms$",
    )
    .unwrap();
    let c = re
        .captures(out)
        .unwrap_or_else(|| panic!("no Throughput line:\n{out}"));
    c[1].parse().unwrap()
}

// dbench's runbook line (`./dbench 100 -t 36000`, scaled down): dbench 4.00's report, the
// clients' folders removed, and as a link named dbench.
fathomtest!(dbench_runs_dbench_s_command_line_and_report, |env| {
    let _a = alone();
    let dir = env.path().join("share");
    let d = dir.to_str().unwrap();
    let o = env.run(&["suite", "dbench", "3", "-t", "2", "--warmup=1", "-D", d]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let progress = regex_lite::Regex::new(
        r"(?m)^   3  +\d+  +\d+\.\d\d MB/sec  (warmup|execute) +\d+ sec  latency \d+\.\d{3} ms$",
    )
    .unwrap();
    assert!(progress.is_match(&out), "{out}");
    assert!(
        out.contains("Running for 2 seconds with load 'fathom's office session"),
        "{out}"
    );
    assert!(out.contains("   0  cleanup "), "{out}");
    let t = dbench_table(&out);
    let names: Vec<&str> = t.iter().map(|x| x.0.as_str()).collect();
    for op in [
        "NTCreateX",
        "Close",
        "ReadX",
        "WriteX",
        "Flush",
        "Find",
        "LockX",
    ] {
        assert!(names.contains(&op), "{op} in {names:?}");
    }
    assert!(dbench_throughput(&out) > 0.0);
    // Every client's folder is gone, and the empty `clients` folder with them.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // Under its own name.
    let bin = env.path().join("bin");
    let o = env.run(&["install-links", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = std::process::Command::new(bin.join("dbench"))
        .args(["-t", "1", "-D", d, "--skip-cleanup", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        dir.join("clients/client0/office").is_dir(),
        "--skip-cleanup"
    );
    let o = env.run(&["suite", "dbench", "--help"]);
    assert!(stdout(&o).contains("--loadfile"), "{}", stdout(&o));
});

fathomtest!(
    dbench_fails_a_client_whose_line_goes_other_than_expected,
    |env| {
        let _a = alone();
        // dbench's rule: an unlink the loadfile says succeeds fails the client when it does
        // not; the report is still printed and the exit is 1, the line named.
        let load = env.write(
            "bad.txt",
            "Mkdir \"\\clients\" NT_STATUS_OK\n\
         Mkdir \"\\clients\\client1\" NT_STATUS_OK\n\
         Unlink \"\\clients\\client1\\nothing\" 0x6 NT_STATUS_OK\n",
        );
        let d = env.path().to_str().unwrap();
        let o = env.run(&[
            "suite",
            "dbench",
            "-t",
            "1",
            "-D",
            d,
            "-c",
            load.to_str().unwrap(),
            "1",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("client 0 failed at line 3: unlink"),
            "{}",
            stderr(&o)
        );
        assert!(stdout(&o).contains("Throughput"), "{}", stdout(&o));
        let o = env.run(&[
            "suite",
            "dbench",
            "-c",
            load.to_str().unwrap(),
            "-B",
            "smb",
            "1",
        ]);
        assert_eq!(o.status.code(), Some(2));
    }
);

fathomtest!(dbench_side_by_side_with_the_real_dbench, |env| {
    let _a = alone();
    // Both replay dbench's own client.txt for 3 s with 2 clients: the same operations in
    // the same order, in the same proportions (the loadfile fixes them), and throughput of
    // the same order.
    let load = std::path::Path::new("/usr/share/dbench/client.txt");
    let have = std::process::Command::new("dbench")
        .arg("--help")
        .output()
        .is_ok();
    if !have || !load.exists() {
        assert!(
            std::env::var_os("FATHOM_REQUIRE_DBENCH").is_none(),
            "dbench is not installed"
        );
        eprintln!("dbench not installed: side-by-side check skipped");
        return;
    }
    let (a, b) = (env.path().join("a"), env.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let args = |d: &std::path::Path| {
        [
            "-t",
            "3",
            "-c",
            load.to_str().unwrap(),
            "-D",
            d.to_str().unwrap(),
            "2",
        ]
        .map(String::from)
    };
    let real = std::process::Command::new("dbench")
        .args(args(&a))
        .output()
        .unwrap();
    assert!(
        real.status.success(),
        "{}",
        String::from_utf8_lossy(&real.stdout)
    );
    let theirs_out = String::from_utf8_lossy(&real.stdout).into_owned();
    let o = env.run(
        &[
            &["suite", "dbench"][..],
            &args(&b).each_ref().map(|s| s.as_str()),
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ours_out = stdout(&o);
    let (theirs, ours) = (dbench_table(&theirs_out), dbench_table(&ours_out));
    let names = |t: &[(String, u64)]| t.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&ours),
        names(&theirs),
        "rows:\n{ours_out}\n{theirs_out}"
    );
    let share = |t: &[(String, u64)], op: &str| {
        let total: u64 = t.iter().map(|x| x.1).sum();
        t.iter().find(|x| x.0 == op).unwrap().1 as f64 / total as f64
    };
    for op in [
        "NTCreateX",
        "Close",
        "ReadX",
        "WriteX",
        "Qpathinfo",
        "Find",
        "Unlink",
    ] {
        let (x, y) = (share(&ours, op), share(&theirs, op));
        assert!(
            (x / y - 1.0).abs() < 0.1,
            "{op}: {x:.4} of fathom's ops, {y:.4} of dbench's"
        );
    }
    let (x, y) = (dbench_throughput(&ours_out), dbench_throughput(&theirs_out));
    assert!(
        x / y > 0.25 && x / y < 4.0,
        "fathom {x} MB/s, dbench {y} MB/s"
    );
});

// iozone's less common flags: -A, -j, -k, -p, -Q, -l/-u with -T, -x and -+u, -U, -+m.
fathomtest!(
    iozone_takes_its_async_stride_latency_and_throughput_flags,
    |env| {
        let _a = alone();
        let tmp = env.path().join("t.tmp");
        let t = tmp.to_str().unwrap();
        // -A: the auto matrix with the write and read tests only.
        let o = env.run(&[
            "suite", "iozone", "-A", "-n", "64k", "-g", "128k", "-y", "16k", "-q", "32k", "-f", t,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let rows: Vec<usize> = stdout(&o)
            .lines()
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .map(|l| l.split_whitespace().count())
            .collect();
        assert_eq!(rows, [6, 6, 6, 6], "{}", stdout(&o));
        // -Q with -k 4 (POSIX aio) and -p: one latency line per record in wol/rwol/rol/rrol.dat
        // (the current directory), sequential offsets in kB, then iozone's time line.
        let o = env.run(&[
            "suite", "iozone", "-s", "256k", "-r", "16k", "-i", "0", "-i", "1", "-i", "5", "-j",
            "3", "-Q", "-k", "4", "-p", "-f", t,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        for f in ["wol.dat", "rwol.dat", "rol.dat", "rrol.dat"] {
            let text = std::fs::read_to_string(env.path().join(f)).unwrap();
            let mut lines = text.lines();
            assert_eq!(
                lines.next(),
                Some("Offset in kBytes   Latency in microseconds  Transfer size in bytes")
            );
            let recs: Vec<Vec<u64>> = lines
                .clone()
                .take_while(|l| !l.is_empty())
                .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
                .collect();
            assert_eq!(recs.len(), 16, "{f}: {text}");
            let mut offs: Vec<u64> = recs.iter().map(|r| r[0]).collect();
            offs.sort_unstable();
            assert_eq!(offs, (0..16).map(|k| k * 16).collect::<Vec<_>>(), "{f}");
            assert!(recs.iter().all(|r| r[2] == 16384), "{f}");
            assert!(text.contains("\nSystem time "), "{f}");
        }
        // A throughput test's files, per child and test, as iozone 3.471 writes them: no
        // time line, and the initial writers' header one blank shorter.
        let q = env.run(&[
            "suite",
            "iozone",
            "-Q",
            "-t",
            "2",
            "-s",
            "64k",
            "-r",
            "16k",
            "-i",
            "0",
            "-f",
            env.path().to_str().unwrap(),
        ]);
        assert!(q.status.success(), "{}", stderr(&q));
        for (f, header) in [
            (
                "Child_0_wol.dat",
                "Offset in kBytes   Latency in microseconds Transfer size in bytes",
            ),
            (
                "Child_1_rwol.dat",
                "Offset in kBytes   Latency in microseconds  Transfer size in bytes",
            ),
        ] {
            let text = std::fs::read_to_string(env.path().join(f)).unwrap();
            assert_eq!(text.lines().next(), Some(header), "{f}");
            assert!(!text.contains("System time"), "{f}: {text}");
        }
        let stride = stdout(&o)
            .lines()
            .find(|l| l.trim_start().starts_with("256"))
            .unwrap()
            .split_whitespace()
            .count();
        assert_eq!(
            stride,
            7,
            "write, rewrite, read, reread, stride read: {}",
            stdout(&o)
        );
        // -l 1 -u 3 -T -x -+u: three throughput tests; without stonewalling every thread
        // moves its whole file.
        let o = env.run(&[
            "suite",
            "iozone",
            "-l",
            "1",
            "-u",
            "3",
            "-T",
            "-x",
            "-+u",
            "-R",
            "-b",
            "tp.xls",
            "-s",
            "128k",
            "-r",
            "32k",
            "-i",
            "0",
            "-f",
            env.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        // -R: iozone's throughput report, a figure per count, then the CPU report.
        let row = out
            .lines()
            .find(|l| l.starts_with("\"  Initial write \""))
            .unwrap_or_else(|| panic!("{out}"));
        // The label (4 words with its quotes), then a figure per count.
        assert_eq!(row.split_whitespace().count(), 4 + 3, "{row}");
        assert!(
            out.contains(
                "\n\"Throughput report Y-axis is type of test X-axis is number of threads\"\n\
             \"Record size = 32 kBytes \"\n\"Output is in kBytes/sec\"\n\n"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "\"CPU utilization report Y-axis is type of test X-axis is number of threads\"\n"
            ),
            "{out}"
        );
        assert!(out.ends_with("\n\n\niozone test complete.\n"), "{out}");
        // -b: the same report as a spreadsheet (xlsx, whatever the name).
        let book = std::fs::read(env.path().join("tp.xls")).unwrap();
        assert_eq!(&book[..2], b"PK", "an xlsx (zip) spreadsheet");
        // As iozone: the first count's line once, then a block per count.
        assert_eq!(out.matches("\tThroughput test with").count(), 1, "{out}");
        assert!(
            out.contains("\tMin thread = 1 \n\tMax thread = 3 \n\tThroughput test with 1 thread\n"),
            "{out}"
        );
        assert_eq!(
            out.matches("\tEach thread writes a 128 kByte file").count(),
            3,
            "{out}"
        );
        assert_eq!(
            out.matches("Children see throughput for").count(),
            6,
            "{out}"
        );
        assert_eq!(
            out.matches("\tMin xfer \t\t\t\t\t=     128.00 kB").count(),
            6,
            "{out}"
        );
        assert_eq!(
            out.matches("\tCPU Utilization: Wall").count()
                + out.matches("\tCPU utilization: Wall").count(),
            6,
            "{out}"
        );
        // -U needs the mount point's fstab entry; with throughput tests it is refused.
        let o = env.run(&[
            "suite",
            "iozone",
            "-s",
            "64k",
            "-U",
            "/nonexistent-mount",
            "-f",
            t,
        ]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("umount /nonexistent-mount"),
            "{}",
            stderr(&o)
        );
        let o = env.run(&["suite", "iozone", "-t", "2", "-U", "/mnt", "-s", "64k"]);
        assert!(stderr(&o).contains("cannot be combined"), "{}", stderr(&o));
        // Throughput mode: -w keeps each child's file (as iozone); --csv is the matrix's.
        let kw = env.path().join("kw");
        std::fs::create_dir(&kw).unwrap();
        let o = env.run(&[
            "suite",
            "iozone",
            "-w",
            "-t",
            "2",
            "-s",
            "64k",
            "-i",
            "0",
            "-f",
            kw.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        for f in ["iozone.DUMMY.0", "iozone.DUMMY.1"] {
            assert_eq!(
                std::fs::metadata(kw.join(f)).unwrap().len(),
                64 << 10,
                "{f}"
            );
        }
        // -F names each child's file (after -t, as iozone requires).
        let (fa, fb) = (kw.join("fa"), kw.join("fb"));
        let o = env.run(&[
            "suite",
            "iozone",
            "-w",
            "-t",
            "2",
            "-s",
            "64k",
            "-i",
            "0",
            "-F",
            fa.to_str().unwrap(),
            fb.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(std::fs::metadata(&fa).unwrap().len(), 64 << 10);
        assert_eq!(std::fs::metadata(&fb).unwrap().len(), 64 << 10);
        let o = env.run(&["suite", "iozone", "-t", "3", "-s", "64k", "-F", "a", "b"]);
        assert!(
            stderr(&o).contains("-F: not enough file names for 3 children"),
            "{}",
            stderr(&o)
        );
        // -i 8 (mixed workload: -+p's share of the children read, the others write), -i 9
        // and -i 10 (pwrite, pread), in iozone's order.
        let o = env.run(&[
            "suite",
            "iozone",
            "-t",
            "2",
            "-s",
            "64k",
            "-i",
            "10",
            "-i",
            "0",
            "-i",
            "8",
            "-+p",
            "50",
            "-i",
            "9",
            "-f",
            kw.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let tests: Vec<String> = stdout(&o)
            .lines()
            .filter_map(|l| l.strip_prefix("\tChildren see throughput for "))
            .map(|l| l.split('=').next().unwrap().trim().to_string())
            .collect();
        assert_eq!(
            tests,
            [
                "2 initial writers",
                "2 rewriters",
                "2 mixed workload",
                "2 pwrite writers",
                "2 pread readers"
            ],
            "{}",
            stdout(&o)
        );
        assert!(stdout(&o).contains("\tPercent read in mix test is 50\n"));
        let o = env.run(&["suite", "iozone", "--csv", "-t", "2", "-s", "64k"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("--csv and --svg are fathom's views"),
            "{}",
            stderr(&o)
        );
    }
);

// iozone's cluster mode, as a runbook writes it: `iozone -+m clientfile -t N ...` starts a
// child on each client of the file over $RSH (here a remote shell that runs the command on
// this host), each in its own working directory; iozone's distributed lines (no parent's
// line); the first child to finish stops the others' reads (stonewalling) unless -x.
fathomtest!(iozone_cluster_mode_runs_a_child_on_each_client, |env| {
    let _a = alone();
    let Some(m) = faultfs_rig(&env) else { return };
    let bin = env.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let iozone = bin.join("iozone");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fathom"), &iozone).unwrap();
    let rsh = env.write(
        "rsh-here",
        "#!/bin/sh\n# host -n 'command': the command, run on this host\nshift\n[ \"$1\" = -n ] && shift\nexec sh -c \"$*\" </dev/null\n",
    );
    std::fs::set_permissions(&rsh, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let a = env.path().join("a");
    std::fs::create_dir(&a).unwrap();
    // Client 0 through `iozone` (fathom linked), client 1 through the binary's own name,
    // working on the FUSE mount, its test file named by the fourth field.
    env.write(
        "clients",
        &format!(
            "# client  workdir  path_to_iozone\nlocalhost {}  {}\nlocalhost {} {} mine.dat\n",
            a.display(),
            iozone.display(),
            m.path().display(),
            env!("CARGO_BIN_EXE_fathom"),
        ),
    );
    let run = |args: &[&str]| {
        std::process::Command::new(&iozone)
            .args(args)
            .env("RSH", &rsh)
            .current_dir(env.path())
            .output()
            .unwrap()
    };
    let o = run(&[
        "-+m", "clients", "-t", "2", "-s", "1m", "-r", "16k", "-i", "0", "-i", "1", "-+u", "-x",
        "-w",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("\tNetwork distribution mode enabled.\n\tFile size set to 1024 kB\n")
            && out.contains("\tThroughput test with 2 processes\n"),
        "{out}"
    );
    assert!(
        out.ends_with("\n\tTest cleanup:\n\n\niozone test complete.\n"),
        "{out}"
    );
    assert_eq!(
        out.matches("\n\tTest running:\n\tChildren see throughput for")
            .count(),
        4,
        "{out}"
    );
    for t in ["initial writers", "rewriters", "readers", "re-readers"] {
        assert!(
            out.contains(&format!(
                "Children see throughput for {} {t}",
                if t == "re-readers" { "2" } else { " 2" }
            )),
            "{t}: {out}"
        );
    }
    assert!(!out.contains("Parent sees"), "{out}");
    // -x: every child moved its whole file in every test.
    assert_eq!(
        out.matches("\tMin xfer \t\t\t\t\t=    1024.00 kB").count(),
        4,
        "{out}"
    );
    assert_eq!(
        out.matches("\tCPU Utilization: Wall").count()
            + out.matches("\tCPU utilization: Wall").count(),
        4,
        "{out}"
    );
    // -w: each client's file is kept where its line says.
    assert_eq!(
        std::fs::metadata(a.join("iozone.DUMMY.0")).unwrap().len(),
        1 << 20
    );
    assert_eq!(
        std::fs::metadata(m.path().join("mine.dat")).unwrap().len(),
        1 << 20
    );
    // Stonewalling: client 1's reads are slow (50 ms each at the FUSE file system); client
    // 0 reads from the page cache, finishes first and stops client 1's reads early.
    m.add(faultfs::Rule::new(faultfs::Fault::Latency {
        min: std::time::Duration::from_millis(50),
        max: std::time::Duration::from_millis(50),
        on: faultfs::Op::Read,
    }));
    let o = run(&[
        "-+m", "clients", "-t", "2", "-s", "1m", "-r", "16k", "-i", "0", "-i", "1", "-+n",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let min_xfer: Vec<f64> = out
        .lines()
        .filter(|l| l.contains("Min xfer"))
        .map(|l| {
            l.split('=')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(min_xfer.len(), 2, "{out}");
    assert_eq!(min_xfer[0], 1024.0, "writers finish their files: {out}");
    assert!(min_xfer[1] < 1024.0, "client 1's reads were stopped: {out}");
    m.clear();
    // Without -w the clients remove their files.
    assert!(!a.join("iozone.DUMMY.0").exists());
    assert!(!m.path().join("mine.dat").exists());
    // More children than clients; a client that cannot start; a working directory that
    // does not exist; no -t.
    let o = run(&["-+m", "clients", "-t", "3", "-s", "64k"]);
    assert!(
        stderr(&o).contains("3 children asked for (-t/-u) but the client file lists 2 clients"),
        "{}",
        stderr(&o)
    );
    env.write("bad", "localhost /nonexistent-dir /nonexistent/iozone\n");
    let o = run(&["-+m", "bad", "-t", "1", "-s", "64k"]);
    assert!(
        stderr(&o).contains("client 0 (localhost) ended (exit status: 127) before it joined"),
        "{}",
        stderr(&o)
    );
    env.write(
        "nodir",
        &format!("localhost /nonexistent-dir {}\n", iozone.display()),
    );
    let o = run(&["-+m", "nodir", "-t", "1", "-s", "64k"]);
    assert!(
        stderr(&o).contains("-+m: client 0 (localhost): its working directory /nonexistent-dir"),
        "{}",
        stderr(&o)
    );
    let o = run(&["-+m", "clients", "-s", "64k"]);
    assert!(stderr(&o).contains("give -t N"), "{}", stderr(&o));
    env.write("short", "localhost /tmp\n");
    let o = run(&["-+m", "short", "-t", "1"]);
    assert!(
        stderr(&o).contains("short:1: 'localhost /tmp'"),
        "{}",
        stderr(&o)
    );
});

/// metarates' rate lines in its output: (test word, [max, min, avg, total]).
fn metarates_rates(out: &str) -> Vec<(String, [f64; 4])> {
    let re = regex_lite::Regex::new(
        r"(?m)^max rate = (\d+\.\d{6}) (\w+) per second, min rate = (\d+\.\d{6}) \w+ per second,? avg rate = (\d+\.\d{6}) \w+ per second, total rate = (\d+\.\d{6}) \w+ per second$",
    )
    .unwrap();
    re.captures_iter(out)
        .map(|c| {
            let f = |i: usize| c[i].parse::<f64>().unwrap();
            (c[2].to_string(), [f(1), f(3), f(4), f(5)])
        })
        .collect()
}

// metarates' runbook line (`metarates -d junk -n 1000000 -C -U -S`, scaled down): its run
// parameters, a line per test with the four rates, the files gone afterwards; -k keeps
// them under metarates' names, -u in a folder per process; and as a link named metarates.
fathomtest!(metarates_runs_metarates_command_line_and_report, |env| {
    let _a = alone();
    let junk = env.path().join("junk");
    let d = junk.to_str().unwrap();
    let o = env.run(&["suite", "metarates", "-d", d, "-n", "300", "-C", "-U", "-S"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for line in [
        "run parameters:",
        &format!("dirname = {d}"),
        "total number of files used in tests = 300",
        "number of files used per process in tests = 300",
        "a common directory will be used by all processes",
        "test files will be removed between tests and at the end",
        "file creation rates will be measured",
        "\tfsync will not be called prior to close call",
        "file stat rates will be measured",
        "file utime rates will be measured",
        "rates at which files can be created and closed with 1 pes:",
        "rates at which files can be stat'd with 1 pes:",
        "rates at which files can be utime'd with 1 pes:",
    ] {
        assert!(out.contains(line), "{line:?} in\n{out}");
    }
    let rates = metarates_rates(&out);
    let words: Vec<&str> = rates.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(words, ["creates", "stats", "utimes"], "{out}");
    for (_, [max, min, avg, total]) in &rates {
        // One process: its rate is every one of the four.
        assert!(
            *max > 0.0 && max == min && min == avg && avg == total,
            "{out}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&junk).unwrap().count(),
        0,
        "files removed"
    );
    // -k keeps metarates' files (n RANK f INDEX); -u puts them in a folder per process;
    // getopt's bundled flags.
    let o = env.run(&["suite", "metarates", "-d", d, "-n", "5", "-CSk", "-u"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("unique subdirectories will be used by each process"));
    assert!(stdout(&o).contains("test files will NOT be removed"));
    let mut kept: Vec<String> = std::fs::read_dir(junk.join("0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    assert_eq!(kept, ["n0f0", "n0f1", "n0f2", "n0f3", "n0f4"]);
    std::fs::remove_dir_all(junk.join("0")).unwrap();
    // Under its own name, from a runbook.
    let bin = env.path().join("bin");
    let o = env.run(&["install-links", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = std::process::Command::new(bin.join("metarates"))
        .args(["-d", d, "-n", "40", "-C", "-s"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\tfsync will be called prior to close call"));
    assert_eq!(metarates_rates(&stdout(&o)).len(), 1);
    assert_eq!(std::fs::read_dir(&junk).unwrap().count(), 0);
    // What it refuses, and its help.
    let o = env.run(&["suite", "metarates", "-n", "10", "-C"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("-d dirname is needed"),
        "{}",
        stderr(&o)
    );
    let o = env.run(&["suite", "metarates", "-d", d, "-n", "10"]);
    assert!(stderr(&o).contains("no test chosen"), "{}", stderr(&o));
    let o = env.run(&["suite", "metarates", "--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("-n numfiles"), "{}", stdout(&o));
});

// A misspelt flag names the nearest one, as clap does, in every suite's own syntax; dd
// takes status=none|noxfer|progress as dd does.
fathomtest!(suites_suggest_the_nearest_flag_and_dd_takes_status, |env| {
    for (line, says) in [
        ("ior --blok=64k", "did you mean '--block'?"),
        ("bonnie --sise=4", "did you mean '--size'?"),
        ("iozone -Z", "did you mean '-z'?"),
        (
            "sysbench --file-totl-size=1G run",
            "did you mean '--file-total-size'?",
        ),
        ("dd bs=1M cuont=3", "did you mean 'count'?"),
        ("dbench --timelimt=3 1", "did you mean '--timelimit'?"),
        ("metarates -d x -n 1 -c", "did you mean '-C'?"),
        ("cdm --sise=1", "did you mean '--size'?"),
        ("curve --stop-curv=5ms", "did you mean '--stop-curve'?"),
        ("curve --rwmixred=5", "did you mean '--rwmixread'?"),
    ] {
        let args: Vec<&str> = std::iter::once("suite").chain(line.split(' ')).collect();
        let o = env.run(&args);
        assert_eq!(o.status.code(), Some(2), "{line}");
        assert!(stderr(&o).contains(says), "{line}: {}", stderr(&o));
    }
    // Every suite answers --help with its tool's options (and as the tool does: sysbench
    // takes `fileio help`).
    for (suite, says) in [
        ("bonnie", "-n number-to-stat"),
        ("iozone", "-r record"),
        ("ior", "-b blockSize"),
        ("sysbench", "--file-test-mode"),
        ("dd", "oflag=FLAGS"),
        ("dbench", "--loadfile"),
        ("metarates", "-n numfiles"),
        ("cdm", "--profile=NAME"),
        ("curve", "--stop-curve=TIME"),
    ] {
        let o = env.run(&["suite", suite, "--help"]);
        assert!(o.status.success(), "{suite}: {}", stderr(&o));
        assert!(stdout(&o).contains(says), "{suite}: {}", stdout(&o));
    }
    let o = env.run(&["suite", "sysbench", "fileio", "help"]);
    assert!(
        stdout(&o).contains("--file-fsync-all[=on|off]"),
        "{}",
        stdout(&o)
    );
    let of = format!("of={}", env.path().join("x").display());
    let dd = |status: &str| {
        let o = env.run(&[
            "suite",
            "dd",
            "if=/dev/zero",
            &of,
            "bs=4k",
            "count=8",
            status,
        ]);
        assert!(o.status.success(), "{status}: {}", stderr(&o));
        stderr(&o)
    };
    assert_eq!(dd("status=none"), "");
    let e = dd("status=noxfer");
    assert!(
        e.starts_with("latency") && e.ends_with("\n8+0 records in\n8+0 records out\n"),
        "{e}"
    );
    let e = dd("status=progress");
    assert!(e.contains("32768 bytes (33 kB, 32 KiB) copied"), "{e}");
    let o = env.run(&["suite", "dd", "if=/dev/zero", &of, "count=1", "status=loud"]);
    assert!(
        stderr(&o).contains("invalid status level"),
        "{}",
        stderr(&o)
    );
});

/// Pages of `path` in the page cache, as util-linux's fincore counts them.
fn cached_pages(path: &std::path::Path) -> u64 {
    let o = std::process::Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output=PAGES"])
        .arg(path)
        .output()
        .expect("fincore (util-linux)");
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o).trim().parse().unwrap()
}

// dd's output file handling: truncated at the seek point unless conv=notrunc; nocache
// drops what was written from the page cache (fincore sees it), and the idiom `dd
// of=FILE oflag=nocache conv=notrunc,fdatasync count=0` drops a whole file's cache.
fathomtest!(
    dd_truncates_unless_notrunc_and_nocache_drops_the_cache,
    |env| {
        let f = env.path().join("f");
        let of = format!("of={}", f.display());
        let dd = |args: &[&str]| {
            let all: Vec<&str> = ["suite", "dd"].iter().chain(args).copied().collect();
            let o = env.run(&all);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            stderr(&o)
        };
        std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
        dd(&["if=/dev/zero", &of, "bs=64k", "count=2"]);
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 128 << 10);
        dd(&[
            "if=/dev/zero",
            &of,
            "bs=64k",
            "count=1",
            "seek=4",
            "conv=notrunc",
        ]);
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 320 << 10);
        dd(&["if=/dev/zero", &of, "bs=64k", "count=1", "seek=1"]);
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 128 << 10);
        // 4 MiB written through the cache stay in it; with nocache (after fdatasync) none do.
        dd(&["if=/dev/zero", &of, "bs=64k", "count=64", "conv=fdatasync"]);
        assert!(cached_pages(&f) > 0);
        dd(&[
            "if=/dev/zero",
            &of,
            "bs=64k",
            "count=64",
            "conv=fdatasync",
            "oflag=nocache",
        ]);
        assert_eq!(cached_pages(&f), 0);
        // Read back into the cache, then dropped by the count=0 idiom (no if=).
        let ifa = format!("if={}", f.display());
        dd(&[&ifa, "of=/dev/null", "bs=64k"]);
        assert!(cached_pages(&f) > 0);
        let e = dd(&[&of, "oflag=nocache", "conv=notrunc,fdatasync", "count=0"]);
        assert!(
            e.starts_with("0+0 records in\n0+0 records out\n0 bytes copied, "),
            "{e}"
        );
        assert_eq!(cached_pages(&f), 0);
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 4 << 20);
        // As dd, count=0 still opens (makes) the output.
        let new = env.path().join("new");
        let of_new = format!("of={}", new.display());
        dd(&[&of_new, "oflag=nocache", "conv=notrunc", "count=0"]);
        assert_eq!(std::fs::metadata(&new).unwrap().len(), 0);
    }
);

// The issue's runbook lines for iozone, bonnie++ and dd, scaled down, through links named
// after the tools (as a runbook runs them): `iozone -Rb spreadsheet_output_4K.wks -O -i 0
// -i 1 -i 2 -e -+n -r 4K -s 16G`, `iozone -i 0 -i 1 -s 160G -Rab /opt/HDDstress.xls`,
// `bonnie++ -d /mnt/raid -s 16g -r 8g -n 16 -m raid10 -u root -x 3`, `dd if=/dev/zero
// of=/mnt/test bs=1G count=1 oflag=dsync`.
fathomtest!(
    runbook_lines_run_through_links_named_after_the_tools,
    |env| {
        let _a = alone();
        let bin = env.path().join("bin");
        let o = env.run(&["install-links", bin.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let work = env.path().join("w");
        std::fs::create_dir(&work).unwrap();
        let tool = |name: &str, args: &[&str]| {
            std::process::Command::new(bin.join(name))
                .args(args)
                .current_dir(&work)
                .output()
                .unwrap()
        };
        let o = tool(
            "iozone",
            &[
                &["-Rb", "spreadsheet_output_4K.wks"][..],
                IOZONE_RUNBOOK,
                &["-s", "4m"],
            ]
            .concat(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("\"Writer report\""), "{}", stdout(&o));
        assert!(work.join("spreadsheet_output_4K.wks").is_file());
        let o = tool(
            "iozone",
            &["-i", "0", "-i", "1", "-s", "1m", "-Rab", "HDDstress.xls"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        // -a with -s: the sizes up to 1 MiB, every record size; -b's workbook written.
        assert!(stdout(&o).contains("\"Reader report\""), "{}", stdout(&o));
        let book = std::fs::read(work.join("HDDstress.xls")).unwrap();
        assert_eq!(&book[..2], b"PK");
        let me = libc_getuid().to_string();
        let w = work.to_str().unwrap();
        let o = tool(
            "bonnie++",
            &[
                "-d", w, "-s", "16", "-r", "8", "-n", "1", "-m", "raid10", "-u", &me, "-x", "2",
                "-f",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        // -x 2: bonnie's CSV header, then two CSV lines named by -m.
        assert_eq!(
            out.lines().filter(|l| l.contains(",raid10,")).count(),
            2,
            "{out}"
        );
        let o = tool(
            "dd",
            &[
                "if=/dev/zero",
                &format!("of={w}/test"),
                "bs=1M",
                "count=1",
                "oflag=dsync",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("1048576 bytes (1.0 MB, 1.0 MiB) copied"),
            "{}",
            stderr(&o)
        );
        assert_eq!(std::fs::metadata(work.join("test")).unwrap().len(), 1 << 20);
    }
);
