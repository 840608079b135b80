//! I/O errors: the job stops with errno, file, offset and length; results so far are kept.

use fathom::{JobSet, JobSpec, Runner, SizeSpec};
use fathom_engine::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::{Rw, RwKind};
use std::io;
use std::path::Path;

/// Fails with EIO at byte offset 1 MiB, like a bad sector.
struct BadSector;

impl IoEngine for BadSector {
    fn name(&self) -> &'static str {
        "bad-sector"
    }
    fn caps(&self) -> Caps {
        Caps {
            diskless: true,
            ..Default::default()
        }
    }
    fn open_file(&mut self, _: &Path, _: &OpenOptions) -> io::Result<usize> {
        Ok(0)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let res = if io.offset == 1 << 20 {
            -(libc::EIO as i64)
        } else {
            io.len as i64
        };
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res,
            short: 0,
        }))
    }
    fn sync_file(&mut self, _: usize, _: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn job(cont: bool) -> JobSpec {
    JobSpec {
        name: "eio".into(),
        ioengine: "bad-sector".into(),
        rw: Rw {
            kind: RwKind::Read,
            suffix: 0,
        },
        size: Some(SizeSpec::Bytes(4 << 20)),
        filenames: vec!["disk".into()],
        errors: fathom_job::ErrorPolicy {
            classes: [cont; 3],
            lists: Default::default(),
        },
        ..Default::default()
    }
}

#[test]
fn eio_stops_the_job_with_where_and_keeps_the_results() {
    fathom_engine::register_engine("bad-sector", |_| Box::new(BadSector));
    let r = Runner::new(JobSet {
        jobs: vec![job(false)],
        global_options: vec![],
    })
    .run()
    .unwrap();
    let j = &r.jobs[0];
    assert_eq!(j.stats.error, libc::EIO);
    let t = j.error_text.as_deref().unwrap();
    assert!(
        t.contains("read error on disk at offset 1048576 (0x100000), length 4096"),
        "{t}"
    );
    assert_eq!(
        j.stats.dirs[0].bytes,
        256 * 4096,
        "the 256 blocks before the bad one are kept"
    );
    // As fio, the failed read counts in total_ios.
    assert_eq!(j.stats.dirs[0].ios, 257);
    assert_eq!(j.stats.issued[0], 257);
}

#[test]
fn eio_with_continue_on_error_is_counted_and_the_job_finishes() {
    fathom_engine::register_engine("bad-sector", |_| Box::new(BadSector));
    let r = Runner::new(JobSet {
        jobs: vec![job(true)],
        global_options: vec![],
    })
    .run()
    .unwrap();
    let s = &r.jobs[0].stats;
    assert_eq!(s.error, 0);
    assert_eq!(
        s.reported_error(),
        libc::EIO,
        "fio's error: the first tolerated"
    );
    assert_eq!((s.total_err, s.first_error), (1, libc::EIO));
    assert_eq!((s.dirs[0].ios, s.dirs[0].bytes), (1024, 1023 * 4096));
}
