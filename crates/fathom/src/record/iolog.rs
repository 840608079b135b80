//! `write_iolog=PATH`: every issued I/O in fio's iolog version 3 format, which
//! `fio --read_iolog` replays:
//!
//! ```text
//! fio version 3 iolog
//! 0 /mnt/a.0.0 add
//! 0 /mnt/a.0.0 open
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
}

impl IologWriter {
    /// For a clone's files, opened now.
    pub(crate) fn new(path: &str, files: &[crate::plan::PlannedFile]) -> IologWriter {
        let names: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
        let mut text = String::from("fio version 3 iolog\n");
        for n in &names {
            text.push_str(&format!("0 {n} add\n"));
        }
        for n in &names {
            text.push_str(&format!("0 {n} open\n"));
        }
        IologWriter {
            path: PathBuf::from(path),
            start: Instant::now(),
            names,
            text,
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
        let _ = writeln!(self.text, "{t} {} {what} {offset} {len}", self.names[file]);
    }

    /// An fsync (`data_only`: fdatasync) of a file.
    pub(crate) fn sync(&mut self, file: usize, data_only: bool) {
        use std::fmt::Write as _;
        let t = self.now_us();
        let what = if data_only { "datasync" } else { "sync" };
        let _ = writeln!(self.text, "{t} {} {what} 0 0", self.names[file]);
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

    /// Close the files and append the block to the log.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let t = self.now_us();
        for n in &self.names {
            self.text.push_str(&format!("{t} {n} close\n"));
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        f.write_all(self.text.as_bytes())
    }
}
