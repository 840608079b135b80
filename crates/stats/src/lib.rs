//! fathom-stats: what fathom records while it runs, and how it merges.
//!
//! Each job clone owns a [`ThreadStats`]: per direction, HDR histograms in nanoseconds for
//! slat, clat and lat (with exact min/max/mean/stddev kept beside them), byte and I/O
//! counters, and interval samples for bandwidth and IOPS. Nothing is shared between
//! threads while they run; afterwards clones merge exactly with [`ThreadStats::merge`].
//!
//! ```
//! use fathom_stats::ThreadStats;
//! let mut a = ThreadStats::new();
//! a.record_io(0, 4096, None, 25_000);
//! let mut b = ThreadStats::new();
//! b.record_io(0, 4096, None, 75_000);
//! a.merge(&b);
//! assert_eq!(a.dirs[0].ios, 2);
//! assert_eq!(a.dirs[0].clat.mean(), 50_000.0);
//! ```
#![deny(missing_docs)]

mod facts;
pub mod fio_bins;
mod lat;
mod result;
mod thread;

pub use facts::{HostFacts, TargetFacts};
pub use lat::{LatStat, SIGFIGS};
pub use result::{
    fio_ms, DiskUtil, GroupDir, GroupResult, JobInfo, JobResult, MergedSource, RunResult,
    SteadyState,
};
pub use thread::{
    batch_index, depth_level_index, lat_bucket, CpuUsage, DirStats, OpStats, PrioLat, Sample,
    SampleSummary, ThreadStats, VerifyStats, LAT_BUCKETS, LAT_BUCKET_BOUNDS_NS,
    VERIFY_FAILURES_KEPT,
};
