//! `write_iolog=PATH`: every issued I/O in fio's iolog version 3 format, which
//! `fio --read_iolog` replays:
//!
//! ```text
//! fio version 3 iolog
//! 0 /mnt/a.0.0 add
//! 17 /mnt/a.0.0 open
//! 17 /mnt/a.0.0 write 8192 4096
//! ...
//! 90211 /mnt/a.0.0 close
//! ```
//!
//! Times are microseconds since the clone started. Lines are kept in memory while the clone
//! runs (about 40 bytes per I/O) and appended to PATH as one block when it ends, so the
//! hot path writes no file; several clones of one job append their blocks one after
//! another (fio interleaves them: it asks for one file per job).

use fathom_job::Ddir;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// A clone's iolog.
pub(crate) struct IologWriter {
    path: PathBuf,
    start: Instant,
    names: Vec<String>,
    text: String,
    /// Per file: an `open` line stands without its `close` yet.
    open: Vec<bool>,
    /// The generator's pass of the last I/O (a new one closes the files first).
    pass: u32,
    /// The generator's count of files found done, as last seen.
    retired: u32,
    /// The offset of the last I/O logged (fio's sync line carries its I/O unit's last
    /// offset: at depth 1, this).
    last_offset: u64,
}

impl IologWriter {
    /// For a clone's files: each `add`ed now, `open`ed at its first I/O (as fio opens
    /// them).
    pub(crate) fn new(path: &str, files: &[crate::plan::PlannedFile]) -> IologWriter {
        let names: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        let mut text = String::from("fio version 3 iolog\n");
        for n in &names {
            text.push_str(&format!("0 {n} add\n"));
        }
        IologWriter {
            path: PathBuf::from(path),
            start: Instant::now(),
            open: vec![false; names.len()],
            names,
            text,
            pass: 1,
            retired: 0,
            last_offset: 0,
        }
    }

    /// The generator's pass of the next I/O: a new pass (fio's next loop) closes the
    /// open files first, as fio's loop does; its I/Os open them again.
    #[inline]
    pub(crate) fn pass(&mut self, pass: u32) {
        if pass != self.pass {
            self.pass = pass;
            self.close_all();
        }
    }

    /// Files found done since the last look (`retired`: the generator's count): those
    /// open are closed now, as fio closes a file it finds done.
    #[inline]
    pub(crate) fn retired(&mut self, retired: u32, is_done: impl Fn(usize) -> bool) {
        if retired == self.retired {
            return;
        }
        self.retired = retired;
        let t = self.now_us();
        for (i, (n, open)) in self.names.iter().zip(&mut self.open).enumerate() {
            if *open && is_done(i) {
                *open = false;
                self.text.push_str(&format!("{t} {n} close\n"));
            }
        }
    }

    /// `close` for every open file (fio closes them all at a loop's end and before its
    /// verify phase).
    pub(crate) fn close_all(&mut self) {
        let t = self.now_us();
        for (n, open) in self.names.iter().zip(&mut self.open) {
            if std::mem::take(open) {
                self.text.push_str(&format!("{t} {n} close\n"));
            }
        }
    }

    /// `open` for a file about to take an I/O, when it is not open.
    #[inline]
    fn opened(&mut self, file: usize, t: u128) {
        if !self.open[file] {
            self.open[file] = true;
            self.text
                .push_str(&format!("{t} {} open\n", self.names[file]));
        }
    }

    fn now_us(&self) -> u128 {
        self.start.elapsed().as_micros()
    }

    /// An I/O, as it is issued.
    #[inline]
    pub(crate) fn io(&mut self, file: usize, ddir: Ddir, offset: u64, len: u64) {
        use std::fmt::Write as _;
        let what = match ddir {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
        };
        let t = self.now_us();
        self.opened(file, t);
        self.last_offset = offset;
        let _ = writeln!(self.text, "{t} {} {what} {offset} {len}", self.names[file]);
    }

    /// An fsync (`data_only`: fdatasync) of a file.
    pub(crate) fn sync(&mut self, file: usize, data_only: bool) {
        use std::fmt::Write as _;
        let t = self.now_us();
        self.opened(file, t);
        let what = if data_only { "datasync" } else { "sync" };
        let at = self.last_offset;
        let _ = writeln!(self.text, "{t} {} {what} {at} 0", self.names[file]);
    }

    /// An end_fsync's (or fsync_on_close's) sync of a file: one closed in the log is
    /// opened for it and closed again, as fio's end of a loop does.
    pub(crate) fn sync_reopened(&mut self, file: usize) {
        let was_open = self.open[file];
        self.sync(file, false);
        if !was_open {
            let t = self.now_us();
            self.open[file] = false;
            self.text
                .push_str(&format!("{t} {} close\n", self.names[file]));
        }
    }

    /// A sync_file_range of `file` from `offset`, as fio logs one (length 0; fio's own
    /// replay skips these lines, and so does fathom's).
    pub(crate) fn range_sync(&mut self, file: usize, offset: u64) {
        use std::fmt::Write as _;
        let t = self.now_us();
        let _ = writeln!(
            self.text,
            "{t} {} sync_file_range {offset} 0",
            self.names[file]
        );
    }

    /// Close the open files and append the block to the log.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.close_all();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        f.write_all(self.text.as_bytes())
    }
}
