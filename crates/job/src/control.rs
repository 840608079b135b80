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
    /// zonemode=zbd's options (zonesize stays on the job with the strided mode's).
    pub zbd: Zbd,
    /// `serialize_overlap`: an I/O that overlaps one in flight waits for it.
    pub serialize_overlap: bool,
    /// `lockfile`: how I/O to a file the job shares with other clones is serialized.
    pub lockfile: LockMode,
    /// IOR's `--posix.rangelocks` (no job option; set by the IOR suite): each transfer
    /// holds a byte-range lock over its range while it is done (a write lock for writes,
    /// a read lock for reads), taken with fcntl on the clone's own open file, so clones
    /// and processes contend as IOR's tasks do. Synchronous engines.
    pub range_locks: bool,
    /// `disk_util=0`: leave this job's devices out of the disk utilisation report.
    pub no_disk_util: bool,
    /// `allow_file_create=0`: a file the job names must exist already.
    pub no_file_create: bool,
    /// `fill_device` / `fill_fs`: write until the file system is full (ENOSPC or EDQUOT
    /// ends the job without error).
    pub fill_device: bool,
    /// `error_dump=1`: print the errors continue_on_error/ignore_error tolerate.
    pub error_dump: bool,
    /// `fadvise_hint`: the access advice given for each file when it is opened.
    pub fadvise_hint: FadviseHint,
    /// `numa_cpu_nodes`: run on the CPUs of these NUMA nodes (None: `all`, unchanged).
    pub numa_cpu_nodes: Option<Vec<u32>>,
    /// `numa_mem_policy`: the memory policy of the job's threads, set before its buffers
    /// are allocated.
    pub numa_mem_policy: Option<NumaPolicy>,
    /// `bwavgtime`: the bandwidth sampling interval (bw_min/max/dev/samples).
    pub bwavgtime: Option<Duration>,
    /// `iopsavgtime`: the IOPS sampling interval (fathom samples both together, at the
    /// shorter of the two).
    pub iopsavgtime: Option<Duration>,
    /// Library setting (no job-file option): also record the last, partial sampling
    /// interval when the job ends, so the samples add up to the whole run (fio keeps
    /// whole windows only). The vdbench front end sets it for its per-interval lines.
    pub final_sample: bool,
    /// Library setting (no job-file option): one rate schedule for reads and writes
    /// together, from the read rate (vdbench's iorate= is the total, with reads and
    /// writes drawn by rdpct); fio's rate_iops holds each direction to its own rate, so
    /// a mixed job falls a few percent short of the sum.
    pub rate_combined: bool,
    /// Library setting (no job-file option): a verifying job that also writes checks
    /// each read of a chunk it wrote during the run, against the generation written last
    /// (vdbench's data validation; fio checks reads only in read-only jobs). Set it with
    /// `serialize_overlap`, so no read overlaps a write in flight.
    pub verify_mixed_reads: bool,
    /// Library setting (no job-file option): with `verify_mixed_reads`, a write to
    /// chunks the job wrote before is preceded by a read of the same blocks, checked and
    /// counted as a read (vdbench's pre-read, which `-vw` turns off). Not paced: a
    /// rate-limited job issues more I/Os than its rate, as vdbench's. Set it with
    /// `serialize_overlap`.
    pub verify_pre_read: bool,
    /// Library setting (no job-file option): with `verify_mixed_reads`, each completed
    /// write is read back at once, checked and counted as a read (vdbench's `-vr`,
    /// validate=read_after_write). Not paced.
    pub verify_read_after_write: bool,
    /// Library setting (no job-file option): vdbench's data-validation map, one per file
    /// for a whole execution. A verifying job starts knowing what earlier jobs sharing
    /// the maps wrote to its files (their generations), and leaves what it wrote there
    /// when it ends; its data is made the same whoever writes it (no per-job seed), so a
    /// later job checks an earlier one's blocks. None: the job knows only its own writes.
    pub key_maps: Option<KeyMaps>,
    /// Library setting (no job-file option): hand each interval sample to the run's live
    /// board as it is taken (the live board's `samples`), so a front
    /// end can print intervals while the run goes on (vdbench's console lines).
    pub live_samples: bool,
    /// Library setting (no job-file option): the sizes a filetree job's creates give the
    /// tree's files, as (size, percent) laid over the files in order (vdbench's
    /// `sizes=`: the first percent of the files get the first size, and so on). Empty:
    /// `filesize`.
    pub file_sizes: Vec<(u64, f64)>,
    /// Library setting (no job-file option): vdbench's dedup. Each `unit`-byte block of a
    /// file is, by its offset, unique (new content every write) or, with `dup_ppm` parts
    /// per million, a member of one of `sets` duplicate sets (one content per set).
    pub dedup_units: Option<DedupUnits>,
    /// Library setting (no job-file option): vdbench's `stride=(min,max)`: a random
    /// pattern's new offsets skip on from the last I/O by a random multiple of its length
    /// between these bytes (skip-sequential) instead of being drawn anywhere.
    pub stride: Option<(u64, u64)>,
    /// Library setting (no job-file option): vdbench's `hotband=`: random offsets follow
    /// vdbench's hot-band curve over the region (most I/O near its start, writes a
    /// hundredth of the band on from the reads) instead of being uniform.
    pub hotband: bool,
    /// Library setting (no job-file option): vdbench's sequential walk: a mixed job's
    /// reads and writes go along one position in each file (fio keeps one per direction),
    /// moved only by sequential I/Os (in fio a random I/O moves it too).
    pub one_position: bool,
    /// Library setting (no job-file option): vdbench's `range=` ending past 100%: the
    /// generator's region reaches `extra` bytes past the job's region (which ends where
    /// the file or SD ends), and an I/O reaching past that end moves back `back` bytes
    /// (the SD's size rounded down to its largest transfer), to the SD's start.
    pub range_wrap: Option<(u64, u64)>,
    /// Library setting (no job-file option): `end_fsync` / `fsync_on_close` sync the files
    /// once, at the job's end, as the tools whose runs fathom's suites make do (sysbench's
    /// --file-fsync-end, IOR's -e, vdbench's openflags=fsync); fio syncs them at the end
    /// of each of its loops (each loop, each io_size pass).
    pub sync_at_end_only: bool,
    /// Library setting (no job-file option): vdbench's `concatenatesds=yes`: the job's
    /// files, in order, are one address space laid end to end, each for the bytes given
    /// here in order (none given: its whole size); they must exist and hold that much.
    /// `offset=`, `size=` and `offset_increment=` are of that space; an I/O reaching past
    /// a file's end goes to the next file's start, and one at a file's start moves one
    /// I/O length in (vdbench never touches a concatenated SD's first block). Not with
    /// verify= or io_size=N% (refused).
    pub concat: Option<Vec<u64>>,
    /// Library setting (no job-file option): vdbench's WD `priority=`: jobs naming the
    /// same group share its I/Os in flight (`depth` in all, as an SD's threads are shared
    /// by its workloads), and a job's next I/O is started before any of a job of a lower
    /// priority (a larger number) that waits too.
    pub depth_share: Option<DepthShare>,
    /// Library setting (no job-file option): vdbench's `fileio=(sequential,delete)`: a
    /// write that starts a file's region (nothing of the job's in flight) first removes
    /// the file and makes it anew, empty; both are recorded as operations (`delete`,
    /// `create`) with their times.
    pub delete_before_write: bool,
    /// Library setting (no job-file option): vdbench's file-system reads and writes.
    /// One file is open at a time: each file a clone picks (the same one picked again
    /// included) is opened and the one it leaves is closed during the run, both recorded
    /// as operations (`open`, `close`) with their times, as vdbench opens a file each
    /// time it picks it. The file choice stays the job's `file_service_type`.
    pub count_opens: bool,
    /// Library setting (no job-file option): vdbench's busy files. The clones of every
    /// job with this set whose files are the same list (the same paths in the same
    /// order) share them, each file used by one clone at a time: at each file change a
    /// clone draws a file (random, or the list's next for all of them together under
    /// `file_service_type=sequential`) until it finds a free one, waiting 200 µs after
    /// each busy draw, which it counts (`ThreadStats::file_busy`).
    pub file_gate: bool,
    /// Library setting (no job-file option): a read/write mix draws each I/O's direction
    /// on its own (vdbench's rdpct), not fio's way of keeping a direction until its share
    /// catches up.
    pub independent_mix: bool,
    /// Library setting (no job-file option): sysbench's `--file-fsync-freq`: `fsync=N` /
    /// `fdatasync=N` make one sync after every Nth write's completion, whatever comes
    /// next (fio decides before each I/O: in a mix it syncs again before each read that
    /// follows the Nth write, until the next write).
    pub sync_per_nth_write: bool,
    /// `unlink_each_loop`: between two loops (`loops=`) the job's files are removed and
    /// made anew by its writes.
    pub unlink_each_loop: bool,
    /// `file_append`: each regular file's I/O region starts at its end (its size before
    /// the run), as an offset= of that size.
    pub file_append: bool,
    /// `opendir`: the job's files are every regular file below this folder.
    pub opendir: Option<String>,
    /// `rate_ignore_thinktime`: after a think time the rate schedule goes on from where
    /// the stall ended instead of catching up on the I/Os it would have issued meanwhile.
    pub rate_ignore_thinktime: bool,
}

/// A group of jobs sharing I/Os in flight, with priorities (see [`Control::depth_share`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepthShare {
    /// The group's name: jobs naming it share its depth.
    pub group: String,
    /// I/Os in flight for the whole group.
    pub depth: u32,
    /// This job's priority: 1 first.
    pub priority: u32,
}

/// Data-validation maps shared by the jobs of one execution (see [`Control::key_maps`]):
/// for each file, by path, the generation last written to each table unit.
#[derive(Clone, Default)]
pub struct KeyMaps(
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, KeyMap>>>,
);

/// One file's map in [`KeyMaps`]: its table unit in bytes, and each unit's generation from
/// the file's start (0: not known to hold data this execution wrote).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyMap {
    /// Bytes per entry.
    pub unit: u64,
    /// Generation per entry.
    pub gens: Vec<u32>,
}

impl KeyMap {
    /// Its entries in `unit`-byte units, at least `len` of them (a map kept in another
    /// unit starts over: its entries meant other blocks).
    pub fn entries(&mut self, unit: u64, len: usize) -> &mut [u32] {
        if self.unit != unit {
            *self = KeyMap {
                unit,
                gens: Vec::new(),
            };
        }
        if self.gens.len() < len {
            self.gens.resize(len, 0);
        }
        &mut self.gens
    }
}

impl KeyMaps {
    /// Act on the maps (under their lock).
    pub fn with<R>(
        &self,
        f: impl FnOnce(&mut std::collections::HashMap<std::path::PathBuf, KeyMap>) -> R,
    ) -> R {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut m)
    }
}

impl std::fmt::Debug for KeyMaps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyMaps({} files)", self.with(|m| m.len()))
    }
}

impl PartialEq for KeyMaps {
    fn eq(&self, o: &KeyMaps) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &o.0)
    }
}

/// vdbench's dedup layout of a file's blocks (see [`Control::dedup_units`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DedupUnits {
    /// dedupunit: the block size dedup matches on.
    pub unit: u64,
    /// Blocks that are duplicates, per million.
    pub dup_ppm: u32,
    /// Duplicate sets.
    pub sets: u64,
}

/// fio's `fadvise_hint`: what the kernel is told of a file's access pattern at each open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FadviseHint {
    /// `0`: nothing.
    None,
    /// `1` (the default): random for random patterns, sequential otherwise.
    #[default]
    ByPattern,
    /// `random`.
    Random,
    /// `sequential`.
    Sequential,
    /// `noreuse`.
    NoReuse,
}

/// fio's `numa_mem_policy`: a set_mempolicy(2) mode and its nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaPolicy {
    /// The mode.
    pub mode: NumaMode,
    /// The nodes (empty for `default` and `local`; one for `prefer`).
    pub nodes: Vec<u32>,
}

/// The modes of [`NumaPolicy`], as set_mempolicy(2) numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumaMode {
    /// MPOL_DEFAULT.
    Default = 0,
    /// MPOL_PREFERRED: one node first.
    Prefer = 1,
    /// MPOL_BIND: only these nodes.
    Bind = 2,
    /// MPOL_INTERLEAVE: pages round-robin over these nodes.
    Interleave = 3,
    /// MPOL_LOCAL: the node of the CPU that allocates.
    Local = 4,
}

/// fio's `lockfile`: locking of a file around each I/O to it, across every clone that
/// names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LockMode {
    /// No locking (the default).
    #[default]
    None,
    /// One I/O at a time to the file, whatever its direction.
    Exclusive,
    /// Reads together, a write (or trim) alone.
    ReadWrite,
}

/// File `k` of `total`'s size under a `(size, percent)` distribution laid over the files in
/// order (the first percent of the files get the first size, and so on; vdbench's
/// `sizes=`); 0 for an empty distribution.
pub fn size_of_file(sizes: &[(u64, f64)], k: u64, total: u64) -> u64 {
    let at = (k as f64 + 0.5) / total.max(1) as f64 * 100.0;
    let mut acc = 0.0;
    for (s, p) in sizes {
        acc += p;
        if at < acc {
            return *s;
        }
    }
    sizes.last().map_or(0, |s| s.0)
}

/// zonemode=zbd: zones emulated over a regular file or a device without zones, each with
/// a write pointer (writes go to it, reads stay below it), as fio emulates them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Zbd {
    /// `zonecapacity` (0: the zone size): the bytes of each zone that can be written.
    pub capacity: u64,
    /// `read_beyond_wp`: reads may go past a zone's write pointer.
    pub read_beyond_wp: bool,
    /// `max_open_zones` (0: no limit): zones open for writing at once, per file.
    pub max_open_zones: u32,
    /// `job_max_open_zones` (0: no limit): zones one clone has open at once.
    pub job_max_open_zones: u32,
    /// `ignore_zone_limits`: a device's own open-zone limit is not asked for.
    pub ignore_zone_limits: bool,
    /// `zone_reset_threshold`: the share of the job's range holding data above which
    /// zones are reset as `zone_reset_frequency` says.
    pub reset_threshold: f64,
    /// `zone_reset_frequency`: the share of writes, above the threshold, that first reset
    /// their zone (0: none).
    pub reset_frequency: f64,
}
