//! vdbench's data validation in the library: key maps carry what a job wrote to the
//! jobs after it (a stale block is found, a block never written is not checked), and
//! a job reads a known block before writing it, or reads a write back, when asked.

use fathom::{Engine, Job, Runner, RwKind};
use fathom_job::KeyMaps;

fn job(dir: &std::path::Path, rw: RwKind, maps: Option<&KeyMaps>) -> fathom::JobSpec {
    job_with(dir, rw, maps, &[])
}

fn job_with(
    dir: &std::path::Path,
    rw: RwKind,
    maps: Option<&KeyMaps>,
    more: &[(&str, &str)],
) -> fathom::JobSpec {
    let mut b = Job::builder("k")
        .rw(rw)
        .bs(4096)
        .size(64 << 10)
        .engine(Engine::Psync)
        .directory(dir)
        .option("filename", "lun")
        .option("verify", "crc32c")
        .option("verify_interval", "4096")
        .option("do_verify", "0")
        .option("verify_state_save", "0")
        .option("serialize_overlap", "1");
    for (k, v) in more {
        b = b.option(*k, *v);
    }
    let mut spec = b.build().unwrap();
    spec.control.verify_mixed_reads = true;
    spec.control.key_maps = maps.cloned();
    spec
}

fn verify(r: &fathom::Report) -> fathom_stats::VerifyStats {
    r.jobs[0].stats.verify.clone().unwrap_or_default()
}

#[test]
fn a_later_job_checks_an_earlier_one_s_blocks_and_finds_a_stale_one() {
    let dir = tempfile::tempdir().unwrap();
    let maps = KeyMaps::default();
    let path = dir.path().join("lun");
    // Two passes of writes: the second's blocks are generation 2; keep the first's.
    Runner::new(job(dir.path(), RwKind::Write, Some(&maps)))
        .run()
        .unwrap();
    let first = std::fs::read(&path).unwrap();
    Runner::new(job(dir.path(), RwKind::Write, Some(&maps)))
        .run()
        .unwrap();
    let r = Runner::new(job(dir.path(), RwKind::Read, Some(&maps)))
        .run()
        .unwrap();
    let v = verify(&r);
    assert_eq!((v.blocks, v.failures), (16, 0), "{v:?}");
    // Block 3 as the first pass left it: whole and self-consistent, but a lost write.
    let mut data = std::fs::read(&path).unwrap();
    data[3 * 4096..4 * 4096].copy_from_slice(&first[3 * 4096..4 * 4096]);
    std::fs::write(&path, &data).unwrap();
    let r = Runner::new(job(dir.path(), RwKind::Read, Some(&maps)))
        .run()
        .unwrap();
    let v = verify(&r);
    assert_eq!(v.failures, 1, "{v:?}");
    assert!(v.first[0].contains("12288"), "{:?}", v.first);
    // Without the maps a reader knows nothing and passes the stale block.
    let r = Runner::new(job(dir.path(), RwKind::Read, None))
        .run()
        .unwrap();
    assert_eq!(verify(&r).failures, 0);
}

#[test]
fn blocks_never_written_are_read_unchecked() {
    let dir = tempfile::tempdir().unwrap();
    let maps = KeyMaps::default();
    std::fs::write(dir.path().join("lun"), vec![0u8; 64 << 10]).unwrap();
    // Half the file written, then all of it read: only the written half is checked.
    let w = job_with(
        dir.path(),
        RwKind::Write,
        Some(&maps),
        &[("io_size", "32k")],
    );
    Runner::new(w).run().unwrap();
    let r = Runner::new(job(dir.path(), RwKind::Read, Some(&maps)))
        .run()
        .unwrap();
    assert!(r.jobs[0].error_text.is_none(), "{:?}", r.jobs[0].error_text);
    let v = verify(&r);
    assert_eq!((v.blocks, v.failures), (8, 0), "{v:?}");
    assert_eq!(r.jobs[0].stats.dirs[0].ios, 16);
}

#[test]
fn known_blocks_are_read_before_they_are_written_and_writes_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let maps = KeyMaps::default();
    Runner::new(job(dir.path(), RwKind::Write, Some(&maps)))
        .run()
        .unwrap();
    // A second pass of writes over known blocks: each is read (and checked) first.
    let mut w = job(dir.path(), RwKind::Write, Some(&maps));
    w.control.verify_pre_read = true;
    let r = Runner::new(w).run().unwrap();
    let d = &r.jobs[0].stats.dirs;
    assert_eq!((d[0].ios, d[1].ios), (16, 16));
    assert_eq!(verify(&r).blocks, 16);
    // Read after write: each write read back at once, as well.
    let more = [("ioengine", "libaio"), ("iodepth", "4")];
    let mut w = job_with(dir.path(), RwKind::Write, Some(&maps), &more);
    w.control.verify_pre_read = true;
    w.control.verify_read_after_write = true;
    let r = Runner::new(w).run().unwrap();
    let d = &r.jobs[0].stats.dirs;
    assert_eq!((d[0].ios, d[1].ios), (32, 16));
    let v = verify(&r);
    assert_eq!((v.blocks, v.failures), (32, 0), "{v:?}");
    // The file holds the last pass's blocks: a reader finds them all.
    let r = Runner::new(job(dir.path(), RwKind::Read, Some(&maps)))
        .run()
        .unwrap();
    assert_eq!((verify(&r).blocks, verify(&r).failures), (16, 0));
}
