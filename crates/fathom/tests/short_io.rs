//! Short transfers are reissued for the remainder and counted once, in short_ios.

use fathom::{JobSet, JobSpec, Runner, SizeSpec};
use fathom_engine::{Caps, Completion, EngineBuf, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::{Rw, RwKind};
use std::io;
use std::path::Path;

/// An async engine whose very first I/O completes half done.
#[derive(Default)]
struct HalfFirst {
    queued: Vec<Completion>,
    first: bool,
}

impl IoEngine for HalfFirst {
    fn name(&self) -> &'static str {
        "half-first"
    }
    fn caps(&self) -> Caps {
        Caps {
            is_async: true,
            diskless: true,
            ..Default::default()
        }
    }
    unsafe fn setup(&mut self, _depth: usize, _bufs: &[EngineBuf]) -> io::Result<()> {
        self.first = true;
        Ok(())
    }
    fn open_file(&mut self, _: &Path, _: &OpenOptions) -> io::Result<usize> {
        Ok(0)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let res = if std::mem::take(&mut self.first) {
            io.len as i64 / 2
        } else {
            io.len as i64
        };
        self.queued.push(Completion {
            tag: io.tag,
            res,
            short: 0,
        });
        Ok(Queued::Queued)
    }
    fn commit(&mut self) -> io::Result<usize> {
        Ok(self.queued.len())
    }
    fn reap(&mut self, _min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let n = max.min(self.queued.len());
        out.extend(self.queued.drain(..n));
        Ok(n)
    }
    fn sync_file(&mut self, _: usize, _: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_short_transfer_is_completed_and_counted_once() {
    fathom_engine::register_engine("half-first", |_| Box::new(HalfFirst::default()));
    let job = JobSpec {
        name: "short".into(),
        ioengine: "half-first".into(),
        rw: Rw {
            kind: RwKind::Read,
            suffix: 0,
        },
        size: Some(SizeSpec::Bytes(1 << 20)),
        iodepth: 1,
        ..Default::default()
    };
    let r = Runner::new(JobSet {
        jobs: vec![job],
        global_options: vec![],
    })
    .run()
    .unwrap();
    let d = &r.jobs[0].stats.dirs[0];
    assert_eq!(d.ios, 256);
    assert_eq!(d.bytes, 1 << 20, "the remainder was reissued");
    assert_eq!(
        d.short_ios, 1,
        "counted once, not again when the slot is reused"
    );
}
