//! Block devices as targets: a loop device (losetup; CI runs as root) with direct=1 on
//! psync, libaio and io_uring; size from BLKGETSIZE64.

mod common;
use common::run;
use fathom::{JobSet, JobSpec, Runner, SizeSpec};
use fathom_job::{PerDir, Rw, RwKind};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A loop device over a file, detached on drop.
struct Loop {
    dev: PathBuf,
    _dir: tempfile::TempDir,
}

impl Loop {
    fn new(size: u64) -> Option<Loop> {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let img = dir.path().join("img");
        std::fs::File::create(&img).unwrap().set_len(size).unwrap();
        let out = Command::new("losetup")
            .args(["--find", "--show", "--sector-size", "512"])
            .arg(&img)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Loop {
                dev: PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
                _dir: dir,
            }),
            other => {
                let why = match other {
                    Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                    Err(e) => e.to_string(),
                };
                if std::env::var_os("FATHOM_REQUIRE_LOOP").is_some() {
                    panic!(
                        "loop devices are required (FATHOM_REQUIRE_LOOP) but losetup failed: {why}"
                    );
                }
                eprintln!("no loop device (needs root and losetup): {why}; not tested here");
                None
            }
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

fn job(dev: &Path, engine: &str, kind: RwKind, size: Option<u64>) -> JobSpec {
    JobSpec {
        name: format!("{engine}-{}", kind.name()),
        ioengine: engine.into(),
        rw: Rw { kind, suffix: 0 },
        bs: PerDir::all(4096),
        size: size.map(SizeSpec::Bytes),
        iodepth: 16,
        direct: true,
        refill_buffers: true,
        filenames: vec![dev.to_string_lossy().into_owned()],
        ..Default::default()
    }
}

#[test]
fn direct_io_on_a_loop_device_gives_the_same_bytes_on_every_engine() {
    let Some(l) = Loop::new(16 << 20) else { return };
    let mut reference: Option<Vec<u8>> = None;
    for engine in ["psync", "libaio", "io_uring"] {
        // No size: the device's own size (16 MiB = 4096 blocks).
        let w = run(job(&l.dev, engine, RwKind::RandWrite, None));
        assert_eq!(w.jobs[0].stats.dirs[1].ios, 4096, "{engine}");
        let r = run(job(&l.dev, engine, RwKind::Read, None));
        assert_eq!(r.jobs[0].stats.dirs[0].bytes, 16 << 20, "{engine}");
        let data = std::fs::read(&l.dev).unwrap();
        match &reference {
            None => reference = Some(data),
            Some(d) => assert!(d == &data, "{engine} wrote different bytes"),
        }
    }
}

#[test]
fn a_region_past_the_end_of_a_device_is_refused() {
    let Some(l) = Loop::new(4 << 20) else { return };
    let e = Runner::new(JobSet {
        jobs: vec![job(&l.dev, "psync", RwKind::Read, Some(8 << 20))],
        global_options: vec![],
    })
    .plan()
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("has only") && e.contains(&*l.dev.to_string_lossy()),
        "{e}"
    );
}
