//! openfiles=N: which files are open, and the least recently used idle one closed to open the next.

use fathom_engine::OpenOptions;

/// openfiles: which of a clone's files are open, how recently each was used, and the
/// I/Os each has in flight (a file is closed only when idle).
pub(crate) struct OpenSet {
    pub(crate) limit: usize,
    /// The files open now (at most `limit`, more after a verify pass opened them all).
    pub(crate) opened: Vec<usize>,
    pub(crate) open: Vec<bool>,
    pub(crate) last: Vec<u64>,
    pub(crate) inflight: Vec<u32>,
    pub(crate) written: Vec<bool>,
    pub(crate) tick: u64,
    pub(crate) count: usize,
    /// `Control::count_opens`: the closes and opens `ensure` did, with their times (ns),
    /// for the caller to record as operations.
    pub(crate) timed: Option<Vec<(&'static str, u64)>>,
    /// `Control::count_opens`: the I/Os of each pick of a file (the file service's run),
    /// the file in hand and the I/Os done on it since it was picked: a new pick of the
    /// same file closes and opens it again, as vdbench's does.
    pub(crate) per_pick: u64,
    pub(crate) cur: Option<usize>,
    pub(crate) run: u64,
}

impl OpenSet {
    pub(crate) fn new(n: usize, limit: usize) -> OpenSet {
        OpenSet {
            limit,
            opened: (0..limit.min(n)).collect(),
            open: (0..n).map(|i| i < limit).collect(),
            last: vec![0; n],
            inflight: vec![0; n],
            written: vec![false; n],
            tick: 0,
            count: limit.min(n),
            timed: None,
            per_pick: u64::MAX,
            cur: None,
            run: 0,
        }
    }

    /// Every file closed (none opened before the clock): the first I/O opens its file.
    pub(crate) fn all_closed(&mut self) {
        self.opened.clear();
        self.open.fill(false);
        self.count = 0;
    }

    /// `Control::count_opens`: at the clone's end, close the files still open with
    /// nothing in flight, each close timed as an operation (vdbench's threads close
    /// their last file as the run ends, counted with the rest).
    pub(crate) fn close_open_timed(
        &mut self,
        engine: &mut dyn fathom_engine::IoEngine,
        spec: &fathom_job::JobSpec,
    ) -> std::io::Result<()> {
        if self.timed.is_none() {
            return Ok(());
        }
        let idle: Vec<usize> = self
            .opened
            .iter()
            .copied()
            .filter(|&f| self.inflight[f] == 0)
            .collect();
        for f in idle {
            if spec.fsync_on_close && self.written[f] {
                engine.sync_file(f, false)?;
            }
            let t0 = crate::clock::now();
            engine.close_file(f)?;
            self.stamp("close", Some(t0));
            self.open[f] = false;
            self.count -= 1;
        }
        let inflight = &self.inflight;
        self.opened.retain(|&f| inflight[f] != 0);
        self.cur = None;
        Ok(())
    }

    /// Open every closed file (a verify pass reads them all); later I/O closes the least
    /// recently used ones again down to the limit.
    pub(crate) fn open_all(
        &mut self,
        engine: &mut dyn fathom_engine::IoEngine,
        files: &[crate::plan::PlannedFile],
        opts: &OpenOptions,
    ) -> std::io::Result<()> {
        for (f, file) in files.iter().enumerate() {
            if !self.open[f] {
                engine.reopen_file(f, &file.path, opts)?;
                self.open[f] = true;
                self.opened.push(f);
                self.count += 1;
            }
        }
        Ok(())
    }

    /// `Control::count_opens`: note operation `op` begun at `t0` as done now; returns
    /// now (None, and no clock read, without `timed` or `t0`).
    fn stamp(
        &mut self,
        op: &'static str,
        t0: Option<std::time::Instant>,
    ) -> Option<std::time::Instant> {
        let (Some(t), Some(t0)) = (&mut self.timed, t0) else {
            return None;
        };
        let now = crate::clock::now();
        t.push((op, now.duration_since(t0).as_nanos() as u64));
        Some(now)
    }

    /// Make file `f` open for an I/O, closing the least recently used idle file when at
    /// the limit (after an fsync with fsync_on_close). False: every open file has I/O in
    /// flight, so nothing can be closed yet. A `chained` I/O (a validated write after its
    /// pre-read, a read after a write) is part of the operation before it: not counted
    /// in the pick's I/Os.
    pub(crate) fn ensure(
        &mut self,
        (f, chained): (usize, bool),
        engine: &mut dyn fathom_engine::IoEngine,
        files: &[crate::plan::PlannedFile],
        opts: &OpenOptions,
        spec: &fathom_job::JobSpec,
    ) -> std::io::Result<bool> {
        self.tick += 1;
        if self.timed.is_some() && !chained {
            let again = self.cur == Some(f) && self.run >= self.per_pick;
            if self.cur != Some(f) || again {
                self.run = 0;
            }
            // A new pick of the file in hand (nothing of it in flight): closed and
            // opened again.
            if again && self.inflight[f] == 0 && self.open[f] {
                if spec.fsync_on_close && self.written[f] {
                    engine.sync_file(f, false)?;
                }
                let t0 = crate::clock::now();
                engine.close_file(f)?;
                let t1 = self.stamp("close", Some(t0));
                engine.reopen_file(f, &files[f].path, opts)?;
                self.stamp("open", t1);
            }
            self.cur = Some(f);
            self.run += 1;
        }
        if !self.open[f] {
            // Down to the limit (more than one after a verify pass opened them all).
            // The search is over the open files only: its cost follows openfiles, not
            // the number of files.
            while self.count >= self.limit {
                let victim = (0..self.opened.len())
                    .filter(|&k| self.inflight[self.opened[k]] == 0)
                    .min_by_key(|&k| self.last[self.opened[k]]);
                let Some(k) = victim else {
                    return Ok(false);
                };
                let v = self.opened[k];
                // (As fio's close: a plain fsync, not one of the job's syncs.)
                if spec.fsync_on_close && self.written[v] {
                    engine.sync_file(v, false)?;
                }
                let t0 = self.timed.is_some().then(crate::clock::now);
                engine.close_file(v)?;
                self.stamp("close", t0);
                self.opened.swap_remove(k);
                self.open[v] = false;
                self.count -= 1;
            }
            let t0 = self.timed.is_some().then(crate::clock::now);
            engine.reopen_file(f, &files[f].path, opts)?;
            self.stamp("open", t0);
            self.open[f] = true;
            self.opened.push(f);
            self.count += 1;
        }
        self.last[f] = self.tick;
        Ok(true)
    }
}

/// Open the clone's files before its clock starts: pre_read each region first, open the
/// first `open_limit` (all without openfiles=) and register the rest closed, and drop
/// each file's cached pages for invalidate=1. An EMFILE names the descriptor limit. A stop
/// ends a pre_read at the next MiB.
pub(crate) fn open_files(
    engine: &mut dyn fathom_engine::IoEngine,
    job: &crate::plan::PlannedJob,
    clone: &crate::plan::PlannedClone,
    opts: &OpenOptions,
    open_limit: Option<usize>,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(), (i32, String)> {
    let spec = &job.spec;
    for (fi, f) in clone.files.iter().enumerate() {
        if spec.control.pre_read && !job.caps.diskless {
            // pre_read: the region through the page cache, before the clock (and no
            // invalidate after it, as in fio).
            crate::io::thread::pre_read(&f.path, f.region.start, f.region.len, stop).map_err(
                |e| {
                    (
                        e.raw_os_error().unwrap_or(libc::EIO),
                        format!("pre_read {}: {e}", f.path.display()),
                    )
                },
            )?;
        }
        let opened = match open_limit {
            Some(limit) if fi >= limit => engine.add_closed_file(&f.path, opts),
            _ => engine.open_file(&f.path, opts),
        };
        // invalidate=1: the job's region of the file (as fio: pages past it stay),
        // through the job's own descriptor where the engine has one.
        let invalidate = spec.invalidate && !spec.control.pre_read && !spec.direct;
        if invalidate && !job.caps.diskless && job.caps.metadata.is_none() {
            let (at, len) = (f.region.start, f.region.len);
            match opened.as_ref().ok().and_then(|&i| engine.raw_fd(i)) {
                Some(fd) if fd >= 0 => fathom_engine::layout::invalidate_fd(fd, at, len),
                _ => {
                    let _ = fathom_engine::layout::invalidate(&f.path, at, len);
                }
            }
        }
        if let Err(e) = opened {
            let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
            let hint = if errno == libc::EMFILE || errno == libc::ENFILE {
                format!(
                    " (the job has {} files; set openfiles= below the descriptor limit, {})",
                    clone.files.len(),
                    crate::plan::nofile_soft()
                )
            } else {
                String::new()
            };
            return Err((errno, format!("open: {e}{hint}")));
        }
    }
    Ok(())
}

/// `end_fsync` / `fsync_on_close` at the end of a clone that wrote: every file synced (a
/// file openfiles had closed through a fresh descriptor, unless it was synced when it was
/// closed). As fio, the closing sync is not one of the job's syncs (JSON `sync`): it is
/// timed into the runtime, not counted. The first failure is the clone's error.
pub(crate) fn end_fsync(
    engine: &mut dyn fathom_engine::IoEngine,
    openset: Option<&OpenSet>,
    clone: &crate::plan::PlannedClone,
    spec: &fathom_job::JobSpec,
    opts: &fathom_engine::OpenOptions,
    (out, mut wlog): (
        &mut crate::record::outcome::CloneOutcome,
        Option<&mut crate::record::iolog::IologWriter>,
    ),
) {
    for fi in 0..clone.files.len() {
        if let Some(os) = openset {
            if !os.open[fi] {
                if spec.fsync_on_close || !os.written[fi] {
                    continue;
                }
                if let Err(e) = engine.reopen_file(fi, &clone.files[fi].path, opts) {
                    out.stats.error = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                    out.error_text = Some(format!("end fsync: {e}"));
                    return;
                }
            }
        }
        // (write_iolog: a sync line, as fio's end_fsync/fsync_on_close unit makes one.)
        if let Some(w) = wlog.as_deref_mut() {
            w.sync_reopened(fi);
        }
        if let Err(e) = engine.sync_file(fi, false) {
            out.stats.error = e.raw_os_error().unwrap_or(libc::EIO);
            out.error_text = Some(format!("end fsync: {e}"));
            return;
        }
    }
}
