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
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 10485760);
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
    for (args, want) in [
        (vec!["if=a", "of=b", "count=1"], "measures one side"),
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

fathomtest!(cdm_prints_crystaldiskmark_s_table, |env| {
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
    assert!(stderr(&o).contains("available: dd, cdm"), "{}", stderr(&o));
});
