//! The rig's own tests: each fault does exactly what it says, and only where it is aimed.

use faultfs::*;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A backing dir and a mount point under the target dir; skips (or, with
/// FATHOM_REQUIRE_FUSE=1, fails) where FUSE cannot be mounted.
fn rig() -> Option<(tempfile::TempDir, Mounted)> {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let backing = dir.path().join("backing");
    std::fs::create_dir(&backing).unwrap();
    match FaultFs::mount(&backing, dir.path().join("mnt")) {
        Ok(m) => Some((dir, m)),
        Err(e) => {
            assert!(
                std::env::var_os("FATHOM_REQUIRE_FUSE").is_none(),
                "cannot mount faultfs: {e}"
            );
            eprintln!("cannot mount FUSE here ({e}): not tested");
            None
        }
    }
}

fn write_file(p: &Path, data: &[u8]) {
    let mut f = File::create(p).unwrap();
    f.write_all(data).unwrap();
}

#[test]
fn a_clean_mount_passes_data_through() {
    let Some((dir, m)) = rig() else { return };
    let p = m.path().join("a");
    let data: Vec<u8> = (0..65536u32).map(|i| (i * 7) as u8).collect();
    write_file(&p, &data);
    assert_eq!(std::fs::read(&p).unwrap(), data);
    assert_eq!(std::fs::read(dir.path().join("backing/a")).unwrap(), data);
    std::fs::create_dir(m.path().join("sub")).unwrap();
    std::fs::rename(&p, m.path().join("sub/b")).unwrap();
    let names: Vec<_> = std::fs::read_dir(m.path().join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["b"]);
    std::fs::remove_file(m.path().join("sub/b")).unwrap();
    std::fs::remove_dir(m.path().join("sub")).unwrap();
    assert!(m.counters().writes.load(Ordering::Relaxed) > 0);
}

#[test]
fn errors_strike_only_their_range_and_operation() {
    let Some((_dir, m)) = rig() else { return };
    let p = m.path().join("e");
    write_file(&p, &[1u8; 16384]);
    m.add(
        Rule::new(Fault::Error {
            errno: libc::EIO,
            on: Op::Read,
        })
        .file("e")
        .range(8192..12288),
    );
    let f = File::open(&p).unwrap();
    let mut b = [0u8; 4096];
    f.read_exact_at(&mut b, 0).unwrap();
    let e = f.read_exact_at(&mut b, 8192).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EIO));
    // Writes to the same range still work.
    let w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    w.write_all_at(&[2u8; 4096], 8192).unwrap();
    m.clear();
    m.add(
        Rule::new(Fault::Error {
            errno: libc::ENOSPC,
            on: Op::Write,
        })
        .times(1),
    );
    assert_eq!(
        w.write_at(&[3u8; 10], 0).unwrap_err().raw_os_error(),
        Some(libc::ENOSPC)
    );
    w.write_all_at(&[3u8; 10], 0).unwrap(); // the rule was used up
}

#[test]
fn lost_torn_misdirected_and_flipped_writes_store_what_they_say() {
    let Some((dir, m)) = rig() else { return };
    let p = m.path().join("w");
    write_file(&p, &[0u8; 32768]);
    let w = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    m.add(Rule::new(Fault::DropWrite).range(0..4096));
    m.add(Rule::new(Fault::Tear { keep: 512 }).range(4096..8192));
    m.add(Rule::new(Fault::Misdirect { delta: 8192 }).range(8192..12288));
    m.add(Rule::new(Fault::FlipBit { at: 20000, bit: 3 }).range(16384..20480));
    for k in 0..5u64 {
        assert_eq!(
            w.write_at(&[0xAB; 4096], k * 4096).unwrap(),
            4096,
            "acknowledged in full"
        );
    }
    let back = std::fs::read(dir.path().join("backing/w")).unwrap();
    assert!(back[..4096].iter().all(|&b| b == 0), "lost");
    assert!(
        back[4096..4608].iter().all(|&b| b == 0xAB) && back[4608..8192].iter().all(|&b| b == 0),
        "torn"
    );
    assert!(
        back[8192..12288].iter().all(|&b| b == 0),
        "misdirected away"
    );
    assert!(
        back[16384..20480].iter().enumerate().all(|(i, &b)| {
            let want = if 16384 + i == 20000 { 0xAB ^ 8 } else { 0xAB };
            b == want
        }),
        "flipped"
    );
    assert!(
        back[12288..16384].iter().all(|&b| b == 0xAB),
        "misdirected here"
    );
}

#[test]
fn short_reads_and_latency() {
    let Some((_dir, m)) = rig() else { return };
    let p = m.path().join("s");
    write_file(&p, &[9u8; 8192]);
    m.add(Rule::new(Fault::Short {
        keep: 100,
        on: Op::Read,
    }));
    let mut f = File::open(&p).unwrap();
    let mut b = [0u8; 4096];
    assert_eq!(f.read(&mut b).unwrap(), 100);
    m.clear();
    m.add(Rule::new(Fault::Latency {
        min: Duration::from_millis(20),
        max: Duration::from_millis(20),
        on: Op::Read,
    }));
    f.seek(SeekFrom::Start(0)).unwrap();
    let t = std::time::Instant::now();
    f.read_exact(&mut b).unwrap();
    assert!(t.elapsed() >= Duration::from_millis(20));
}
