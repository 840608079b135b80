//! `null`: completes every I/O without moving data or opening files. It is the oracle
//! for the runner's own overhead and the base of deterministic tests. Like fio's null
//! engine it honours iodepth: at depth 1 it completes inside `queue`; deeper, I/Os are
//! queued, "submitted" by `commit` and handed back by `reap`, so the whole asynchronous
//! path of the runner is exercised.

use crate::{Caps, Completion, EngineBuf, IoEngine, IoUnit, OpenOptions, Queued};
use std::collections::VecDeque;
use std::io;
use std::path::Path;

/// The null engine.
#[derive(Default)]
pub struct Null {
    files: usize,
    depth: usize,
    queued: Vec<Completion>,
    done: VecDeque<Completion>,
}

impl IoEngine for Null {
    fn name(&self) -> &'static str {
        "null"
    }
    fn caps(&self) -> Caps {
        Caps {
            is_async: true,
            diskless: true,
            no_trim: false,
            no_direct: false,
            metadata: None,
            no_data: false,
            reopen: true,
        }
    }
    unsafe fn setup(&mut self, depth: usize, _bufs: &[EngineBuf]) -> io::Result<()> {
        self.depth = depth;
        self.queued = Vec::with_capacity(depth);
        self.done = VecDeque::with_capacity(depth);
        Ok(())
    }
    fn open_file(&mut self, _path: &Path, _opts: &OpenOptions) -> io::Result<usize> {
        self.files += 1;
        Ok(self.files - 1)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let c = Completion {
            tag: io.tag,
            res: io.len as i64,
            short: 0,
        };
        if self.depth <= 1 {
            return Ok(Queued::Done(c));
        }
        self.queued.push(c);
        Ok(Queued::Queued)
    }
    fn commit(&mut self) -> io::Result<usize> {
        let n = self.queued.len();
        self.done.extend(self.queued.drain(..));
        Ok(n)
    }
    fn reap(&mut self, _min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        let n = max.min(self.done.len());
        out.extend(self.done.drain(..n));
        Ok(n)
    }
    fn close_file(&mut self, _file: usize) -> io::Result<()> {
        Ok(())
    }
    fn reopen_file(&mut self, _file: usize, _path: &Path, _opts: &OpenOptions) -> io::Result<()> {
        Ok(())
    }
    fn sync_range(&mut self, _file: usize, _offset: u64, _len: u64, _flags: u32) -> io::Result<()> {
        Ok(())
    }
    fn sync_file(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.files = 0;
        Ok(())
    }
}
