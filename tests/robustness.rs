//! Signals, faults and bad input: results are kept, nothing is left behind, no panics.

mod common;
use common::*;
use std::time::{Duration, Instant};

fathomtest!(
    sigint_stops_within_a_second_and_reports_what_was_done,
    |env| {
        let child = env
            .cmd()
            .args([
                "--output-format=json",
                "--name=long",
                "--rw=randwrite",
                "--size=16m",
                "--runtime=60",
                "--time_based",
                "--unlink=1",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(2));
        let t = Instant::now();
        // SAFETY: sending SIGINT to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        assert!(
            t.elapsed() < Duration::from_millis(1500),
            "took {:?}",
            t.elapsed()
        );
        assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["interrupted"], true);
        assert!(v["jobs"][0]["write"]["total_ios"].as_u64().unwrap() > 0);
        assert!(
            !env.path().join("long.0.0").exists(),
            "unlink=1 files are removed"
        );
    }
);

fathomtest!(a_job_file_of_random_bytes_is_a_clean_error, |env| {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(env.path().join("junk.fio"), &bytes).unwrap();
    let o = env.run(&["junk.fio"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("junk.fio"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
});

fathomtest!(readonly_refuses_writes_before_opening_anything, |env| {
    let o = env.run(&["--readonly", "--name=w", "--rw=randwrite", "--size=1m"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--readonly"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_dir(env.path()).unwrap().count(),
        0,
        "nothing created"
    );
    let o = env.run(&["--readonly", "--name=r", "--rw=randread", "--size=1m"]);
    assert!(o.status.success(), "{}", stderr(&o));
});

fathomtest!(absurd_buffer_requests_are_refused_with_the_figure, |env| {
    let o = env.run(&[
        "--name=m",
        "--ioengine=libaio",
        "--iodepth=4096",
        "--bs=1g",
        "--size=2g",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("4398046511104 bytes") && e.contains("lower iodepth"),
        "{e}"
    );
});

fathomtest!(unlink_never_removes_a_file_that_was_there_before, |env| {
    std::fs::write(env.path().join("mine"), vec![1u8; 1 << 20]).unwrap();
    let o = env.run(&["--name=r", "--filename=mine", "--rw=read", "--unlink=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        env.path().join("mine").exists(),
        "a file fathom did not create stays"
    );
});

/// A small tmpfs mounted for the test, unmounted on drop.
struct SmallFs {
    dir: tempfile::TempDir,
}

impl SmallFs {
    fn new(size: &str) -> Option<SmallFs> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            if std::env::var_os("FATHOM_REQUIRE_LOOP").is_some() {
                panic!("mounting a tmpfs is required here (FATHOM_REQUIRE_LOOP) but failed");
            }
            eprintln!("cannot mount a tmpfs (needs root): not tested here");
            return None;
        }
        Some(SmallFs { dir })
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

fathomtest!(enospc_keeps_the_results_and_names_the_file, |env| {
    let Some(fs) = SmallFs::new("2m") else { return };
    let dir = fs.dir.path().to_string_lossy().into_owned();
    let o = env.run(&[
        "--output-format=json",
        "--name=full",
        "--rw=write",
        "--bs=64k",
        "--size=8m",
        &format!("--directory={dir}"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 28, "ENOSPC");
    let written = j["write"]["io_bytes"].as_u64().unwrap();
    assert!(written > 0 && written <= 2 << 20, "{written}");
    let e = stderr(&o);
    assert!(e.contains("full.0.0") && e.contains("No space left"), "{e}");
});
