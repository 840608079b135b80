//! Job-control options that came with fio compatibility: commands around a job, its end
//! on an error or a slow I/O, files made but not used, and submission-latency percentiles.

use std::time::Duration;

/// A job's fio job-control extras (see `options::compat` for each option's text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Control {
    /// `slat_percentiles`: report submission-latency percentiles (async engines).
    pub slat_percentiles: bool,
    /// `exitall_on_error`: when this job ends in an error, stop every job.
    pub exitall_on_error: bool,
    /// `create_only`: lay the files out and do no I/O.
    pub create_only: bool,
    /// `exec_prerun`: a shell command run before each clone starts (its output goes to
    /// `JOB.prerun.txt`); if it fails, the clone fails.
    pub exec_prerun: Option<String>,
    /// `exec_postrun`: a shell command run after each clone ends (`JOB.postrun.txt`).
    pub exec_postrun: Option<String>,
    /// `max_latency`: an I/O whose completion latency exceeds this ends the job with
    /// ETIMEDOUT (zero: no limit).
    pub max_latency: Duration,
    /// `pre_read`: read the job's files through the page cache before the clock starts
    /// (and do not drop the cache, as with invalidate=0).
    pub pre_read: bool,
    /// `lockmem`: bytes each clone pins with mlock(2) while it runs (0: none), to leave the
    /// page cache less memory.
    pub lockmem: u64,
    /// `serialize_overlap`: an I/O that overlaps one in flight waits for it.
    pub serialize_overlap: bool,
    /// `disk_util=0`: leave this job's devices out of the disk utilisation report.
    pub no_disk_util: bool,
    /// `allow_file_create=0`: a file the job names must exist already.
    pub no_file_create: bool,
    /// `bwavgtime`: the bandwidth sampling interval (bw_min/max/dev/samples).
    pub bwavgtime: Option<Duration>,
    /// `iopsavgtime`: the IOPS sampling interval (fathom samples both together, at the
    /// shorter of the two).
    pub iopsavgtime: Option<Duration>,
}
