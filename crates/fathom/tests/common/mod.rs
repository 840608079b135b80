//! A diskless test engine whose opens and I/Os run the test's hooks: for engines that are
//! slow, change speed, or look at the thread they run on.
#![allow(dead_code)]

use fathom::engine::{Caps, Completion, IoUnit, OpenOptions, Queued};
use fathom::IoEngine;

type Hook = Box<dyn FnMut() + Send>;

/// Completes every I/O in full, synchronously, after running `on_queue`; runs `on_open`
/// for every file it opens (on the clone's own thread).
pub struct HookEngine {
    pub name: &'static str,
    pub on_open: Hook,
    pub on_queue: Hook,
}

impl HookEngine {
    /// An engine with no hooks yet.
    pub fn new(name: &'static str) -> HookEngine {
        HookEngine {
            name,
            on_open: Box::new(|| {}),
            on_queue: Box::new(|| {}),
        }
    }
    /// Run `f` for every file opened.
    pub fn on_open(mut self, f: impl FnMut() + Send + 'static) -> HookEngine {
        self.on_open = Box::new(f);
        self
    }
    /// Run `f` before completing each I/O.
    pub fn on_queue(mut self, f: impl FnMut() + Send + 'static) -> HookEngine {
        self.on_queue = Box::new(f);
        self
    }
}

impl IoEngine for HookEngine {
    fn name(&self) -> &'static str {
        self.name
    }
    fn caps(&self) -> Caps {
        Caps {
            diskless: true,
            ..Default::default()
        }
    }
    fn open_file(&mut self, _: &std::path::Path, _: &OpenOptions) -> std::io::Result<usize> {
        (self.on_open)();
        Ok(0)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> std::io::Result<Queued> {
        (self.on_queue)();
        Ok(Queued::Done(Completion {
            tag: io.tag,
            res: io.len as i64,
            short: 0,
        }))
    }
    fn sync_file(&mut self, _: usize, _: bool) -> std::io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Run one job and return the result; every job of it must end without an error.
pub fn run(spec: fathom::JobSpec) -> fathom::RunResult {
    let r = fathom::Runner::new(fathom::JobSet {
        jobs: vec![spec],
        global_options: vec![],
    })
    .run()
    .unwrap();
    for j in &r.jobs {
        assert_eq!(j.stats.error, 0, "{}: {:?}", j.name, j.error_text);
    }
    r
}
