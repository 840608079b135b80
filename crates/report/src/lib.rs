//! fathom-report: the report writers, one per format behind one trait, selected in one
//! place ([`reporter`]). `normal` is fio's human summary; `json` is fio's JSON with the
//! same keys and units, so scripts written for fio read it.
//!
//! ```
//! use fathom_report::{parse_formats, reporter, Format};
//! use fathom_stats::{JobResult, RunResult, ThreadStats};
//! let mut stats = ThreadStats::new();
//! stats.record_io(0, 4096, None, 50_000);
//! stats.runtime = std::time::Duration::from_millis(10);
//! let run = RunResult {
//!     jobs: vec![JobResult { name: "x".into(), stats, ..Default::default() }],
//!     version: "0.1.0".into(),
//!     ..Default::default()
//! };
//! assert_eq!(parse_formats("json").unwrap(), vec![Format::Json]);
//! let mut out = Vec::new();
//! reporter(Format::Json).write_report(&run, &mut out).unwrap();
//! let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
//! assert_eq!(v["jobs"][0]["read"]["total_ios"], 1);
//! ```
#![deny(missing_docs)]

/// The fio release whose output formats fathom writes (its JSON says `fio-3.33-fathom-…`).
pub const FIO_COMPAT: &str = "3.33";

pub mod compare;
pub mod figures;
pub mod fio_in;
pub mod json;
pub mod jsonplus;
pub mod native;
mod normal;
pub mod plot;
mod table;
pub mod terse;
pub mod units;

use fathom_stats::{JobInfo, RunResult, ThreadStats};
use std::io::{self, Write};

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// fio's human summary.
    Normal,
    /// fio's JSON.
    Json,
    /// fathom's lossless result format (see [`native`]).
    Native,
    /// fio's terse format, version 2 to 5.
    Terse(u32),
    /// fio's JSON plus latency histogram bins.
    JsonPlus,
    /// One CSV row per job and direction.
    Csv,
    /// A Markdown table per job and direction.
    Markdown,
}

impl Format {
    /// The format's name as `--output-format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Normal => "normal",
            Format::Json => "json",
            Format::Native => "native",
            Format::Terse(_) => "terse",
            Format::JsonPlus => "json+",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
        }
    }
    /// True for the formats programs read (they get stdout to themselves).
    pub fn is_machine(self) -> bool {
        !matches!(self, Format::Normal | Format::Markdown)
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "normal" => Ok(Format::Normal),
            "json" => Ok(Format::Json),
            "native" => Ok(Format::Native),
            "terse" | "minimal" => Ok(Format::Terse(3)),
            "json+" => Ok(Format::JsonPlus),
            "csv" => Ok(Format::Csv),
            "markdown" | "md" => Ok(Format::Markdown),
            f => Err(format!(
                "unknown output format '{f}' (available: normal, terse, json, json+, csv, \
                 markdown, native)"
            )),
        }
    }
}

/// Parse a comma list of formats (duplicates dropped, order kept).
pub fn parse_formats(list: &str) -> Result<Vec<Format>, String> {
    let mut out = Vec::new();
    for f in list.split(',') {
        let f: Format = f.parse()?;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

/// A report writer.
pub trait Reporter {
    /// Write the whole report of a run.
    fn write_report(&self, run: &RunResult, out: &mut dyn Write) -> io::Result<()>;
}

/// The writer for a format: the one place that selects.
pub fn reporter(format: Format) -> Box<dyn Reporter> {
    match format {
        Format::Normal => Box::new(normal::Normal),
        Format::Json => Box::new(json::Json),
        Format::Native => Box::new(native::Native),
        Format::Terse(version) => Box::new(terse::Terse { version }),
        Format::JsonPlus => Box::new(jsonplus::JsonPlus),
        Format::Csv => Box::new(table::Csv),
        Format::Markdown => Box::new(table::Markdown),
    }
}

/// fio's start-up lines for normal output, printed before the jobs run: one line per job
/// definition (`name: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) …, ioengine=psync,
/// iodepth=1`, block sizes as fio's `num2str`, `...` after it when it has clones), then
/// `fathom-<version>` and `Starting N thread(s)`. Each entry: (name, group id, job facts,
/// number of clones). The normal report itself starts with an empty line, as fio's does.
pub fn write_preamble(
    jobs: &[(String, u32, JobInfo, u32)],
    version: &str,
    threads: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    normal::preamble(jobs, version, threads, out)
}

/// fio's mixed direction (unified_rw_reporting): the longest direction's.
pub(crate) fn mixed_runtime_ms(s: &ThreadStats) -> u64 {
    (0..3).map(|i| runtime_ms(s, i)).max().unwrap_or(0)
}

/// Direction `dir`'s measured time in whole ms (fio's: its microseconds rounded up),
/// used for its rates: at least 1 ms when anything ran, so rates stay finite and
/// `bw_bytes = io_bytes × 1000 / runtime` holds exactly.
pub(crate) fn runtime_ms(s: &ThreadStats, dir: usize) -> u64 {
    let ms = fathom_stats::fio_ms(s.dir_runtime(dir));
    let any = s.dirs.iter().any(|d| d.ios > 0);
    if any {
        ms.max(1)
    } else {
        ms
    }
}

#[cfg(test)]
mod tests;

/// usr and sys CPU time as percentages of the job's runtime in ms (0 when nothing ran),
/// as fio computes `usr_cpu` and `sys_cpu`.
pub(crate) fn cpu_percent(s: &ThreadStats) -> (f64, f64) {
    let rt_ms = total_run_ms(s);
    if rt_ms == 0 {
        return (0.0, 0.0);
    }
    let pct = |d: std::time::Duration| d.as_secs_f64() * 1000.0 * 100.0 / rt_ms as f64;
    let (usr, sys) = (pct(s.cpu.usr), pct(s.cpu.sys));
    // A thread cannot use more than all of one CPU: on a run of a few ms the kernel's
    // tick-based accounting can charge more CPU time than wall time passed, so the
    // shares are scaled down to 100% (the CPU time is over the clones' runtimes added, as
    // fio's: a group's share is its clones' average).
    if usr + sys > 100.0 {
        let k = 100.0 / (usr + sys);
        (usr * k, sys * k)
    } else {
        (usr, sys)
    }
}

/// The clones' runtimes added, in ms (fio's total_run_time: a group's `job_runtime`).
pub(crate) fn total_run_ms(s: &ThreadStats) -> u64 {
    let ms = s.total_run_time().as_millis() as u64;
    if s.dirs.iter().any(|d| d.ios > 0) {
        ms.max(1)
    } else {
        ms
    }
}
