//! `showlba=yes`: vdbench's I/O trace of a raw run, one line per completed I/O —
//! `SD WD READ LBA MS` (READ 1 for a read, 0 for a write; LBA the byte offset in the SD;
//! MS the milliseconds since the run began) — in `HOST-0.showlba.txt` (`localhost-0` on
//! one host), as vdbench 5.04 writes it (read in its source; its ShowLba viewer reads these
//! lines). As in vdbench the file is made anew for each run (it holds the last raw run)
//! and file-system runs add nothing to it. fathom writes it in the output folder.
//!
//! The I/Os come from each job's per-I/O log (fio's iops log with `log_avg_msec=0`, the
//! offset column and Unix-epoch times), written to a folder of the output folder's and
//! removed once the trace is written; the lines are in completion order across the jobs.

use crate::jobs::JobTag;
use anyhow::{Context, Result};
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The run's trace: where the jobs' logs go and what each job is.
pub(super) struct Trace {
    logs: PathBuf,
    tags: Vec<JobTag>,
    /// The run's start, ms since the Unix epoch.
    start_ms: u64,
}

/// The trace file's name on this host.
pub(super) fn file_name(host: Option<&str>) -> String {
    format!("{}-0.showlba.txt", host.unwrap_or("localhost"))
}

impl Trace {
    /// Make every job log each I/O it completes; the logs go under `out_dir`.
    pub(super) fn arm(specs: &mut [(fathom::JobSpec, JobTag)], out_dir: &Path) -> Result<Trace> {
        let logs = out_dir.join(format!(".showlba.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&logs);
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("showlba: making {}", logs.display()))?;
        for (i, (spec, _)) in specs.iter_mut().enumerate() {
            spec.logs.iops = Some(logs.join(format!("j{i}")).display().to_string());
            spec.logs.avg_msec = 0;
            spec.logs.offset = true;
            spec.logs.unix_epoch = true;
            spec.logs.shared = false;
        }
        let start_ms = crate::report::now_ms();
        Ok(Trace {
            logs,
            tags: specs.iter().map(|(_, t)| t.clone()).collect(),
            start_ms,
        })
    }

    /// Write the trace to `path` from the jobs' logs (then removed).
    pub(super) fn write(self, path: &Path) -> Result<u64> {
        let written = self.write_lines(path);
        let _ = std::fs::remove_dir_all(&self.logs);
        written
    }

    fn write_lines(&self, path: &Path) -> Result<u64> {
        // (ms, job, read, offset) of every I/O, in completion order.
        let mut ios: Vec<(u64, u32, bool, u64)> = Vec::new();
        let mut entries: Vec<(usize, PathBuf)> = Vec::new();
        for e in std::fs::read_dir(&self.logs)
            .with_context(|| format!("showlba: reading {}", self.logs.display()))?
        {
            let p = e?.path();
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            // j{i}_iops.log or j{i}_iops.{clone}.log
            let Some(job) = name
                .strip_prefix('j')
                .and_then(|r| r.split('_').next())
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&j| j < self.tags.len() && name.contains("_iops"))
            else {
                continue;
            };
            entries.push((job, p));
        }
        entries.sort();
        for (job, p) in &entries {
            let f = std::fs::File::open(p)
                .with_context(|| format!("showlba: reading {}", p.display()))?;
            for line in std::io::BufReader::new(f).lines() {
                let line = line?;
                let mut cols = line.split(',').map(str::trim);
                let (Some(t), Some(_), Some(dir), Some(_), Some(off)) = (
                    cols.next(),
                    cols.next(),
                    cols.next(),
                    cols.next(),
                    cols.next(),
                ) else {
                    continue;
                };
                let (Ok(t), Ok(dir), Ok(off)) =
                    (t.parse::<u64>(), dir.parse::<u32>(), off.parse::<u64>())
                else {
                    continue;
                };
                ios.push((t.saturating_sub(self.start_ms), *job as u32, dir == 0, off));
            }
        }
        ios.sort_by_key(|x| x.0);
        let f = std::fs::File::create(path)
            .with_context(|| format!("showlba: writing {}", path.display()))?;
        let mut w = BufWriter::new(f);
        for &(ms, job, read, off) in &ios {
            let tag = &self.tags[job as usize];
            writeln!(w, "{} {} {} {off} {ms}", tag.sd, tag.wd, u8::from(read))?;
        }
        w.flush()
            .with_context(|| format!("showlba: writing {}", path.display()))?;
        Ok(ios.len() as u64)
    }
}
