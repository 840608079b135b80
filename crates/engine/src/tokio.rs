//! `tokio`: tokio's file API — `tokio::fs::File` with `seek` then `read_exact` /
//! `write_all` — the way most async Rust services do file I/O, with `iodepth`
//! operations in flight on a current-thread runtime owned by the job thread.
//!
//! What this measures: tokio's file operations run on its blocking thread pool (there is
//! no async file I/O in the kernel interface tokio uses), with a copy through tokio's own
//! buffer. Comparing it with `io_uring` at the same iodepth shows what a tokio service
//! pays for that. Each I/O slot opens its own file handle, since a seek on a shared
//! handle would race.

use crate::{Caps, Completion, IoEngine, IoUnit, OpenOptions, Queued};
use fathom_job::Ddir;
use std::io;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use tokio::sync::mpsc;

type Done = (u64, i64, usize, tokio::fs::File);

/// The tokio engine.
#[derive(Default)]
pub struct TokioEngine {
    rt: Option<tokio::runtime::Runtime>,
    paths: Vec<(PathBuf, OpenOptions)>,
    /// Per slot, per file: the slot's own handle (None while an I/O uses it).
    handles: Vec<Vec<Option<tokio::fs::File>>>,
    tx: Option<mpsc::UnboundedSender<Done>>,
    rx: Option<mpsc::UnboundedReceiver<Done>>,
    inflight: usize,
}

fn open_opts(o: &OpenOptions) -> tokio::fs::OpenOptions {
    let mut t = tokio::fs::OpenOptions::new();
    t.read(true).write(o.write).create(o.create);
    t
}

impl IoEngine for TokioEngine {
    fn name(&self) -> &'static str {
        "tokio"
    }
    fn caps(&self) -> Caps {
        Caps {
            is_async: true,
            no_direct: true,
            ..Caps::default()
        }
    }
    unsafe fn setup(&mut self, depth: usize, _bufs: &[crate::EngineBuf]) -> io::Result<()> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(depth.max(1))
            .build()?;
        self.rt = Some(rt);
        self.handles = (0..depth.max(1)).map(|_| Vec::new()).collect();
        let (tx, rx) = mpsc::unbounded_channel();
        self.tx = Some(tx);
        self.rx = Some(rx);
        Ok(())
    }
    fn open_file(&mut self, path: &Path, opts: &OpenOptions) -> io::Result<usize> {
        let rt = self.rt.as_ref().expect("tokio engine used before setup");
        // Open one handle per slot now, so no open happens inside the measured window.
        let mut opened = Vec::with_capacity(self.handles.len());
        for _ in 0..self.handles.len() {
            let f = rt
                .block_on(open_opts(opts).open(path))
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            crate::sys::advise(&f, opts.advice);
            opened.push(f);
        }
        for (slot, f) in opened.into_iter().enumerate() {
            self.handles[slot].push(Some(f));
        }
        self.paths.push((path.to_path_buf(), *opts));
        Ok(self.paths.len() - 1)
    }
    unsafe fn queue(&mut self, io: &IoUnit) -> io::Result<Queued> {
        let slot = io.tag as usize;
        if io.ddir == Ddir::Trim {
            // tokio has no trim; punch the hole through the slot's own descriptor.
            use std::os::fd::AsFd;
            let res = match &self.handles[slot][io.file] {
                Some(f) => crate::sys::trim(f.as_fd(), io.offset, io.len),
                None => -(libc::EBUSY as i64),
            };
            return Ok(Queued::Done(Completion {
                tag: io.tag,
                res,
                short: 0,
            }));
        }
        let mut f = self.handles[slot][io.file]
            .take()
            .ok_or_else(|| io::Error::other("tokio engine: slot handle in use"))?;
        let tx = self.tx.clone().expect("set up");
        let (tag, file, off, len, write) =
            (io.tag, io.file, io.offset, io.len, io.ddir == Ddir::Write);
        // SAFETY: the caller guarantees io.buf is valid for io.len bytes and untouched
        // until this I/O is reaped; the task ends (and drops the slice) before it sends
        // its completion, which `reap` waits for.
        let buf: &'static mut [u8] = unsafe { std::slice::from_raw_parts_mut(io.buf, len) };
        let rt = self.rt.as_ref().expect("set up");
        rt.spawn(async move {
            let r = async {
                f.seek(io::SeekFrom::Start(off)).await?;
                if write {
                    f.write_all(buf).await?;
                    f.flush().await?;
                } else {
                    f.read_exact(buf).await?;
                }
                Ok::<_, io::Error>(len as i64)
            }
            .await;
            let res = r.unwrap_or_else(|e| -(e.raw_os_error().unwrap_or(libc::EIO) as i64));
            let _ = tx.send((tag, res, file, f));
        });
        self.inflight += 1;
        Ok(Queued::Queued)
    }
    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }
    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        if self.inflight == 0 {
            return Ok(0);
        }
        let max = max.clamp(1, self.inflight);
        let min = min.clamp(1, max);
        let rt = self.rt.as_ref().expect("set up");
        let rx = self.rx.as_mut().expect("set up");
        let mut got = Vec::with_capacity(max);
        rt.block_on(async {
            while got.len() < min {
                match rx.recv().await {
                    Some(d) => got.push(d),
                    None => break,
                }
            }
            while got.len() < max {
                match rx.try_recv() {
                    Ok(d) => got.push(d),
                    Err(_) => break,
                }
            }
        });
        let n = got.len();
        for (tag, res, file, f) in got {
            self.handles[tag as usize][file] = Some(f);
            out.push(Completion { tag, res, short: 0 });
        }
        self.inflight -= n;
        Ok(n)
    }
    fn sync_file(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        let rt = self.rt.as_ref().expect("set up");
        if let Some(Some(f)) = self.handles.first().map(|h| &h[file]) {
            rt.block_on(async {
                if data_only {
                    f.sync_data().await
                } else {
                    f.sync_all().await
                }
            })?;
        }
        Ok(())
    }
    fn close_files(&mut self) -> io::Result<()> {
        self.handles.iter_mut().for_each(|h| h.clear());
        self.paths.clear();
        Ok(())
    }
}
