//! The data-safety guard on a real loop device (losetup; CI runs as root with
//! FATHOM_REQUIRE_LOOP=1): blank, then ext4, then mounted — and the check itself never
//! changes a byte of the device.

use fathom::guard::{check_block_device, Finding};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Skip (or, under FATHOM_REQUIRE_LOOP, fail) when the machine cannot do this.
fn unavailable(why: &str) {
    if std::env::var_os("FATHOM_REQUIRE_LOOP").is_some_and(|v| v == "1") {
        panic!("loop devices are required (FATHOM_REQUIRE_LOOP=1) but {why}");
    }
    eprintln!("guard loop-device test not run: {why}");
}

/// A loop device over a 64 MiB file; unmounted and detached on drop, even on panic.
struct Loop {
    dev: PathBuf,
    mnt: Option<PathBuf>,
    dir: tempfile::TempDir,
}

impl Loop {
    fn new(size: u64) -> Result<Loop, String> {
        if !Path::new("/dev/loop-control").exists() {
            return Err("there is no /dev/loop-control".into());
        }
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).map_err(|e| e.to_string())?;
        let img = dir.path().join("img");
        let f = std::fs::File::create(&img).map_err(|e| e.to_string())?;
        f.set_len(size).map_err(|e| e.to_string())?;
        let o = Command::new("losetup")
            .args(["--find", "--show", "--sector-size", "512"])
            .arg(&img)
            .output()
            .map_err(|e| format!("losetup could not be run ({e})"))?;
        if !o.status.success() {
            return Err(format!(
                "losetup failed (needs root): {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Ok(Loop {
            dev: PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
            mnt: None,
            dir,
        })
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.dev).unwrap()
    }

    /// The findings, checking that looking changed nothing on the device.
    fn check(&self) -> Vec<Finding> {
        let before = self.bytes();
        let found = check_block_device(&self.dev).unwrap();
        assert!(
            self.bytes() == before,
            "checking changed the device's bytes"
        );
        found
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = self.mnt.take() {
            let _ = Command::new("umount").arg(&m).status();
        }
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-V").output().is_ok()
}

#[test]
fn guard_on_a_loop_device_blank_then_ext4_then_mounted() {
    if !have("mkfs.ext4") {
        return unavailable("mkfs.ext4 (e2fsprogs) is not installed");
    }
    let mut l = match Loop::new(64 << 20) {
        Ok(l) => l,
        Err(why) => return unavailable(&why),
    };
    let image = l.dir.path().join("img");
    let image_before = std::fs::read(&image).unwrap();

    // (a) Blank: nothing to protect.
    assert_eq!(l.check(), vec![]);

    // (b) An ext4 file system.
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&l.dev)
        .status()
        .unwrap();
    assert!(mk.success(), "mkfs.ext4 failed");
    assert!(std::fs::read(&image).unwrap() != image_before);
    let found = l.check();
    assert_eq!(found, vec![Finding::Signature("ext4")], "{found:?}");
    assert!(found[0].to_string().contains("ext4"), "{}", found[0]);

    // (c) Mounted: named by its mount point, and held (EBUSY on an exclusive open).
    let mnt = l.dir.path().join("mnt point");
    std::fs::create_dir(&mnt).unwrap();
    let o = Command::new("mount")
        .arg(&l.dev)
        .arg(&mnt)
        .output()
        .unwrap();
    if !o.status.success() {
        // Containers without the ext4 module or mount rights: (a) and (b) stand.
        eprintln!(
            "mount not possible here, mounted case not tested: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        );
        return;
    }
    l.mnt = Some(mnt.clone());
    let found = check_block_device(&l.dev).unwrap();
    let point = mnt.canonicalize().unwrap().to_string_lossy().into_owned();
    assert!(found.contains(&Finding::Signature("ext4")), "{found:?}");
    assert!(found.contains(&Finding::Mounted(point)), "{found:?}");
    assert!(found.contains(&Finding::Busy), "{found:?}");
}

#[test]
fn guard_finds_nothing_on_paths_that_are_not_block_devices() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("file");
    // A regular file holding an ext superblock magic is still just a file.
    let mut b = vec![0u8; 1 << 20];
    b[1080..1082].copy_from_slice(&[0x53, 0xef]);
    std::fs::write(&f, b).unwrap();
    for p in [
        f.as_path(),
        d.path(),
        &d.path().join("not yet created"),
        Path::new("/dev/null"),
    ] {
        assert_eq!(check_block_device(p).unwrap(), vec![], "{}", p.display());
    }
}
