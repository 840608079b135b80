//! One test body runs on every file engine and must give identical bytes.

use fathom_engine::{create, AlignedBuf, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;

fn write_then_read(engine: &str) -> Vec<u8> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("data");
    let mut e = create(engine).unwrap();
    let f = e
        .open_file(
            &p,
            &OpenOptions {
                write: true,
                create: true,
                ..Default::default()
            },
        )
        .unwrap();
    let mut buf = AlignedBuf::new(4096, 4096);
    for i in 0..16u64 {
        buf.as_mut_slice().fill(i as u8 + 1);
        // Write blocks in a scattered order.
        let off = (i * 7 % 16) * 4096;
        let io = IoUnit {
            ddir: Ddir::Write,
            file: f,
            offset: off,
            buf: buf.as_mut_ptr(),
            len: 4096,
            tag: i,
            ioprio: 0,
        };
        // SAFETY: buf outlives the synchronous I/O.
        match unsafe { e.queue(&io) }.unwrap() {
            Queued::Done(c) => assert_eq!((c.tag, c.res), (i, 4096)),
            Queued::Queued => panic!("sync engine queued"),
        }
    }
    e.sync_file(f, false).unwrap();
    let mut out = Vec::new();
    for b in 0..16u64 {
        let io = IoUnit {
            ddir: Ddir::Read,
            file: f,
            offset: b * 4096,
            buf: buf.as_mut_ptr(),
            len: 4096,
            tag: b,
            ioprio: 0,
        };
        // SAFETY: as above.
        let c = unsafe { e.queue(&io) }.unwrap();
        assert!(matches!(c, Queued::Done(c) if c.res == 4096));
        out.extend_from_slice(buf.as_slice());
    }
    e.close_files().unwrap();
    out
}

#[test]
fn every_file_engine_writes_and_reads_the_same_bytes() {
    let psync = write_then_read("psync");
    let sync = write_then_read("sync");
    assert_eq!(psync, sync);
    assert_eq!(psync[0], 1);
    assert_eq!(psync[7 * 4096], 2, "block 7 was written second");
}

#[test]
fn reads_past_the_end_return_what_is_there() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("short");
    std::fs::write(&p, vec![9u8; 1000]).unwrap();
    let mut e = create("psync").unwrap();
    let f = e.open_file(&p, &OpenOptions::default()).unwrap();
    let mut buf = AlignedBuf::new(4096, 4096);
    let io = IoUnit {
        ddir: Ddir::Read,
        file: f,
        offset: 0,
        buf: buf.as_mut_ptr(),
        len: 4096,
        tag: 0,
        ioprio: 0,
    };
    // SAFETY: buf outlives the synchronous I/O.
    let c = unsafe { e.queue(&io) }.unwrap();
    assert!(matches!(c, Queued::Done(c) if c.res == 1000 && c.short == 1));
}

#[test]
fn unknown_and_unsupported_engines_are_named() {
    let e = create("bogus").err().unwrap().to_string();
    assert!(
        e.contains("unknown ioengine 'bogus'") && e.contains("psync"),
        "{e}"
    );
    let e = create("splice").err().unwrap().to_string();
    assert!(e.contains("not supported yet"), "{e}");
}

#[test]
fn trim_punches_a_hole_in_a_file_on_every_engine() {
    for engine in [
        "psync", "sync", "vsync", "pvsync", "pvsync2", "mmap", "libaio", "io_uring", "posixaio",
    ] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t");
        std::fs::write(&p, vec![7u8; 64 << 10]).unwrap();
        let mut e = create(engine).unwrap();
        let mut buf = AlignedBuf::new(4096, 4096);
        // SAFETY: the buffers outlive the engine.
        if unsafe { e.setup(1, &[]) }.is_err() {
            eprintln!("{engine}: unavailable here");
            continue;
        }
        let f = e
            .open_file(
                &p,
                &OpenOptions {
                    write: true,
                    ..Default::default()
                },
            )
            .unwrap();
        let io = IoUnit {
            ddir: Ddir::Trim,
            file: f,
            offset: 8192,
            buf: buf.as_mut_ptr(),
            len: 8192,
            tag: 0,
            ioprio: 0,
        };
        // SAFETY: trims do not touch the buffer.
        let c = unsafe { e.queue(&io) }.unwrap();
        assert!(
            matches!(c, Queued::Done(c) if c.res == 8192),
            "{engine}: {c:?}"
        );
        e.close_files().unwrap();
        let data = std::fs::read(&p).unwrap();
        assert_eq!(data.len(), 64 << 10, "KEEP_SIZE");
        assert!(
            data[8192..16384].iter().all(|&b| b == 0),
            "{engine}: hole reads as zeroes"
        );
        assert!(data[..8192].iter().all(|&b| b == 7) && data[16384..].iter().all(|&b| b == 7));
    }
}

/// Queue one read and wait for its result (a negated errno on failure).
fn one_read(
    e: &mut dyn fathom_engine::IoEngine,
    f: usize,
    buf: &mut AlignedBuf,
    ioprio: u16,
) -> i64 {
    let io = IoUnit {
        ddir: Ddir::Read,
        file: f,
        offset: 0,
        buf: buf.as_mut_ptr(),
        len: 4096,
        tag: 1,
        ioprio,
    };
    // SAFETY: buf outlives the I/O, which is reaped before returning.
    match unsafe { e.queue(&io) }.unwrap() {
        Queued::Done(c) => c.res,
        Queued::Queued => {
            // libaio refuses a bad command at submission, io_uring in its completion.
            if let Err(err) = e.commit() {
                return -(err.raw_os_error().unwrap() as i64);
            }
            let mut out = Vec::new();
            while out.is_empty() {
                e.reap(1, 1, &mut out).unwrap();
            }
            out[0].res
        }
    }
}

// cmdprio: libaio and io_uring hand each I/O's priority to the kernel: a valid one reads,
// a class the kernel does not have (5) is refused with EINVAL, which it could only be if
// the value reached the kernel.
#[test]
fn async_engines_put_the_io_priority_in_the_command() {
    for engine in ["libaio", "io_uring"] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p");
        std::fs::write(&p, vec![3u8; 8192]).unwrap();
        let mut e = create(engine).unwrap();
        // SAFETY: no registered buffers.
        if unsafe { e.setup(2, &[]) }.is_err() {
            eprintln!("{engine}: unavailable here");
            continue;
        }
        let f = e.open_file(&p, &OpenOptions::default()).unwrap();
        let mut buf = AlignedBuf::new(4096, 4096);
        assert_eq!(one_read(&mut *e, f, &mut buf, 0), 4096, "{engine}");
        // Best-effort class, level 3.
        assert_eq!(
            one_read(&mut *e, f, &mut buf, (2 << 13) | 3),
            4096,
            "{engine}"
        );
        assert_eq!(
            one_read(&mut *e, f, &mut buf, 5 << 13),
            -(libc::EINVAL as i64),
            "{engine}: an invalid class must reach the kernel and be refused"
        );
        e.close_files().unwrap();
    }
}
