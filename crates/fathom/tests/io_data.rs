//! A job's own per-write data (`JobSpec::io_data`): every write carries it, and a read
//! with `verify=pattern` checks against it (a damaged byte is found).

use fathom::{Engine, IoData, Job, Runner, RwKind};

fn stamp(buf: &mut [u8], offset: u64) {
    // The offset in the first 8 bytes of each write, the rest left as the pattern.
    buf[..8].copy_from_slice(&offset.to_le_bytes());
}

#[test]
fn writes_carry_the_job_s_data_and_reads_check_it() {
    let dir = tempfile::tempdir().unwrap();
    let job = |rw, verify: bool| {
        let mut b = Job::builder("d")
            .rw(rw)
            .bs(4096)
            .size(64 << 10)
            .engine(Engine::Psync)
            .directory(dir.path())
            .option("buffer_pattern", "0x5a");
        if verify {
            b = b
                .option("verify", "pattern")
                .option("verify_pattern", "0x5a")
                .option("verify_state_save", "0");
        }
        let mut spec = b.build().unwrap();
        spec.io_data = Some(IoData::new(stamp));
        spec
    };
    let r = Runner::new(job(RwKind::Write, false)).run().unwrap();
    assert_eq!(r.jobs[0].stats.dirs[1].ios, 16);
    let path = dir.path().join("d.0.0");
    let mut data = std::fs::read(&path).unwrap();
    for k in 0..16u64 {
        let at = (k * 4096) as usize;
        assert_eq!(&data[at..at + 8], &(k * 4096).to_le_bytes(), "write {k}");
        assert!(data[at + 8..at + 4096].iter().all(|&b| b == 0x5a));
    }
    let r = Runner::new(job(RwKind::Read, true)).run().unwrap();
    assert!(r.jobs[0].error_text.is_none(), "{:?}", r.jobs[0].error_text);
    assert_eq!(r.jobs[0].stats.verify.as_ref().unwrap().failures, 0);
    // One stamp damaged: its read fails the check.
    data[5 * 4096 + 1] ^= 1;
    std::fs::write(&path, &data).unwrap();
    let r = Runner::new(job(RwKind::Read, true)).run().unwrap();
    assert_eq!(r.jobs[0].stats.verify.as_ref().unwrap().failures, 1);
}

#[test]
fn an_io_order_gives_each_io_s_offset_as_it_is_issued() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("order.log");
    let mut spec = Job::builder("o")
        .rw(RwKind::RandWrite)
        .bs(4096)
        .size(64 << 10)
        .engine(Engine::Psync)
        .directory(dir.path())
        .option("norandommap", "1")
        .option("write_iolog", log.to_str().unwrap())
        .build()
        .unwrap();
    // Backwards, every other block: 8 writes.
    spec.io_order = Some(fathom::IoOrder::new(|k| {
        (k < 8).then(|| (14 - 2 * k) * 4096)
    }));
    let r = Runner::new(spec).run().unwrap();
    assert!(r.jobs[0].error_text.is_none(), "{:?}", r.jobs[0].error_text);
    assert_eq!(r.jobs[0].stats.dirs[1].ios, 8);
    let offsets: Vec<u64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" write "))
        .map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        offsets,
        (0..8).map(|k| (14 - 2 * k) * 4096).collect::<Vec<u64>>()
    );
}
