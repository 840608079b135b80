//! The resolved job description: what a job does, after every option is parsed.

use crate::words::*;
use std::time::Duration;

/// Data made for each write from the offset it goes to: called on the write's buffer
/// (which holds the job's `buffer_pattern` or other contents) just before the write is
/// issued. With `verify=pattern`, a chunk read back must hold the pattern with this
/// function applied at the chunk's offset (so a verify_interval of the block size checks
/// each write whole).
#[derive(Clone)]
pub struct IoData(std::sync::Arc<IoDataFn>);

/// The function of an [`IoData`]: `f(buffer, offset)`.
pub type IoDataFn = dyn Fn(&mut [u8], u64) + Send + Sync;

impl IoData {
    /// `f(buffer, offset)` for each write.
    pub fn new(f: impl Fn(&mut [u8], u64) + Send + Sync + 'static) -> IoData {
        IoData(std::sync::Arc::new(f))
    }

    /// Fill `buf`, the data at `offset`.
    #[inline]
    pub fn fill(&self, buf: &mut [u8], offset: u64) {
        (self.0)(buf, offset)
    }
}

impl std::fmt::Debug for IoData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IoData(..)")
    }
}

impl PartialEq for IoData {
    /// The same function (two jobs sharing one).
    fn eq(&self, o: &IoData) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &o.0)
    }
}

/// The order of a job's I/Os given by a function: the offset of the k-th I/O (from 0)
/// in the clone's first file, None once the work is done. Each I/O is of the job's block
/// size and direction; the function is asked as the I/Os are issued, so an order of
/// billions costs nothing up front (IOR's `-z` over ten million segments).
#[derive(Clone)]
pub struct IoOrder(std::sync::Arc<IoOrderFn>);

/// The function of an [`IoOrder`]: `f(k)`, the k-th I/O's offset.
pub type IoOrderFn = dyn Fn(u64) -> Option<u64> + Send + Sync;

impl IoOrder {
    /// `f(k)` for each I/O.
    pub fn new(f: impl Fn(u64) -> Option<u64> + Send + Sync + 'static) -> IoOrder {
        IoOrder(std::sync::Arc::new(f))
    }

    /// The k-th I/O's offset (None: there is none).
    #[inline]
    pub fn at(&self, k: u64) -> Option<u64> {
        (self.0)(k)
    }
}

impl std::fmt::Debug for IoOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IoOrder(..)")
    }
}

impl PartialEq for IoOrder {
    /// The same function.
    fn eq(&self, o: &IoOrder) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &o.0)
    }
}

/// A fully resolved job: the options of one job section after `[global]` inheritance.
///
/// A job with `numjobs=N` is one `JobSpec`; the runner makes the N clones.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Job name (section name, or `name=`).
    pub name: String,
    /// Free text echoed in the report.
    pub description: Option<String>,
    /// Where the job's section starts.
    pub origin: Location,
    /// Index of the job file this job came from (0-based); jobs of files after the
    /// first get an implicit stonewall, as in fio.
    pub file_index: usize,
    /// Explicit file names (`filename=a:b`, `\:` unescaped). Empty = generated names.
    pub filenames: Vec<String>,
    /// Directories (`directory=a:b`); clones are spread over them round-robin. Empty = `.`.
    pub directories: Vec<String>,
    /// `filename_format` (default `$jobname.$jobnum.$filenum`).
    pub filename_format: String,
    /// `size`: total bytes of I/O region per job, divided over its files.
    pub size: Option<SizeSpec>,
    /// `filesize`: range of per-file sizes (lo, hi); lo == hi for a fixed size.
    pub filesize: Option<(u64, u64)>,
    /// `io_size`/`io_limit`: bytes of I/O to do (default = size).
    pub io_size: Option<u64>,
    /// `io_size=N%`: that share of each file's region, summed (fio's io_size_percent).
    pub io_size_percent: Option<u64>,
    /// `nrfiles`.
    pub nrfiles: u32,
    /// `openfiles` (None = nrfiles).
    pub openfiles: Option<u32>,
    /// `bs` per direction (default 4096).
    pub bs: PerDir<u64>,
    /// `rw`/`readwrite`.
    pub rw: Rw,
    /// `rwmixread` (percent of reads in a mixed workload; default 50).
    pub rwmixread: u32,
    /// `ioengine`, normalised (`aio`/`linuxaio` → `libaio`). Default `psync`.
    pub ioengine: String,
    /// `iodepth` (default 1).
    pub iodepth: u32,
    /// `direct` (O_DIRECT). `buffered=0` sets it too.
    pub direct: bool,
    /// `numjobs` (default 1).
    pub numjobs: u32,
    /// `thread` (accepted; fathom always uses threads).
    pub thread: bool,
    /// `runtime` (None = unlimited).
    pub runtime: Option<Duration>,
    /// `time_based`.
    pub time_based: bool,
    /// `ramp_time`.
    pub ramp_time: Duration,
    /// `steadystate` (`ss`): the criterion that ends the job once met.
    pub steadystate: SteadyCriterion,
    /// `steadystate_duration` (`ss_dur`): the rolling window; zero turns steady state off.
    pub ss_dur: Duration,
    /// `steadystate_ramp_time` (`ss_ramp`): time before samples are collected.
    pub ss_ramp: Duration,
    /// `steadystate_check_interval` (`ss_interval`): one sample per interval.
    pub ss_interval: Duration,
    /// `startdelay` range (lo, hi); lo == hi for a fixed delay.
    pub startdelay: (Duration, Duration),
    /// `loops` (default 1).
    pub loops: u32,
    /// `offset`.
    pub offset: SizeSpec,
    /// `offset_increment`.
    pub offset_increment: SizeSpec,
    /// `number_ios` (0 = off).
    pub number_ios: u64,
    /// `group_reporting`.
    pub group_reporting: bool,
    /// `stonewall`/`wait_for_previous`.
    pub stonewall: bool,
    /// `new_group`.
    pub new_group: bool,
    /// `randrepeat` (default true).
    pub randrepeat: bool,
    /// `allrandrepeat` (default false): every one of fio's generators seeded from the
    /// thread's number alone (fio's `0xb1899bed` × thread + the generator's index), not
    /// from randseed.
    pub allrandrepeat: bool,
    /// `randseed` (default 0x89).
    pub randseed: u64,
    /// `randseed` was given: fio then seeds a skewed distribution of offsets from its
    /// block generator's seed rather than from the file's name.
    pub randseed_set: bool,
    /// `fsync=N`: fsync after every N writes (0 = off).
    pub fsync: u32,
    /// `fdatasync=N`.
    pub fdatasync: u32,
    /// `sync_file_range=FLAGS:N`: (SYNC_FILE_RANGE_* flags, every N writes).
    pub sync_file_range: Option<(u32, u32)>,
    /// `end_fsync`.
    pub end_fsync: bool,
    /// `fsync_on_close`.
    pub fsync_on_close: bool,
    /// `unlink`: remove files at the end.
    pub unlink: bool,
    /// `create_on_open`.
    pub create_on_open: bool,
    /// `overwrite`: lay the file out fully before writing to it.
    pub overwrite: bool,
    /// `fallocate`.
    pub fallocate: Fallocate,
    /// `create_fsync` (default true): fsync a file laid out before the run.
    pub create_fsync: bool,
    /// `write_hint`: the write lifetime hint set on each file (F_SET_RW_HINT); None: leave
    /// it as it is.
    pub write_hint: Option<u64>,
    /// `invalidate` (default true): drop the page cache for the file before I/O.
    pub invalidate: bool,
    /// `zero_buffers`.
    pub zero_buffers: bool,
    /// `refill_buffers`.
    pub refill_buffers: bool,
    /// `percentile_list` (default fio's 17 values).
    pub percentile_list: Vec<f64>,
    /// `clat_percentiles` (default true).
    pub clat_percentiles: bool,
    /// `lat_percentiles` (default false).
    pub lat_percentiles: bool,
    /// `kb_base` (1024 or 1000).
    pub kb_base: u32,
    /// Options set explicitly in this job's own section, as typed (name, value), in order.
    /// Printed as fio's `"job options"`.
    pub job_options: Vec<(String, String)>,
    /// Engine-specific options (io_uring, libaio, pvsync2).
    pub engine: EngineOpts,
    /// libaio and io_uring: per-I/O priorities (`cmdprio_*`).
    pub cmdprio: crate::CmdPrio,
    /// fio's verify family.
    pub verify: VerifySpec,
    /// fathom extension: the directory tree of metadata jobs (tree_depth, tree_width, …).
    pub tree: TreeSpec,
    /// fathom extension (`filetree` engine): the metadata operation mix, in percent.
    pub meta_mix: Vec<(MetaOp, u32)>,
    /// fathom extension: pick files at random (`fileselect=random`, the default) or in
    /// order (`sequential`).
    pub fileselect_sequential: bool,
    /// `iodepth_batch_submit` (0 = iodepth): I/Os queued before one submit call.
    pub iodepth_batch_submit: u32,
    /// `iodepth_batch_complete_min` (0 = poll without waiting).
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max` (0 = same as the minimum).
    pub iodepth_batch_complete_max: u32,
    /// `iodepth_low`: once the queue is full, refill only when it drains to this (None =
    /// iodepth, i.e. refill at once).
    pub iodepth_low: Option<u32>,
    /// `sync`: O_SYNC / O_DSYNC on the files.
    pub sync: SyncMode,
    /// `iomem_align`: extra alignment of I/O buffers (0 = the page size).
    pub iomem_align: u64,
    /// `scramble_buffers` (default true).
    pub scramble_buffers: bool,
    /// `buffer_pattern`, as bytes.
    pub buffer_pattern: Option<Vec<u8>>,
    /// Data made for each write from its offset (no job file option: a suite's own
    /// layout, as IOR's offset-stamped packets, or a library user's). See [`IoData`].
    pub io_data: Option<IoData>,
    /// The I/Os' order given by a function (no job file option; a suite's or a library
    /// user's). See [`IoOrder`].
    pub io_order: Option<IoOrder>,
    /// `buffer_compress_percentage`.
    pub buffer_compress_percentage: Option<u32>,
    /// `buffer_compress_chunk` (default 512).
    pub buffer_compress_chunk: u64,
    /// `dedupe_percentage`.
    pub dedupe_percentage: u32,
    /// `dedupe_mode=working_set` (false: `repeat`).
    pub dedupe_working_set: bool,
    /// `dedupe_working_set_percentage` (default 5): the working set, in percent of `size`.
    pub dedupe_working_set_percentage: u32,
    /// `dedupe_global`: the working set is shared by every job that sets it.
    pub dedupe_global: bool,
    /// `norandommap`.
    pub norandommap: bool,
    /// `softrandommap`: a random map too large for this machine means no map, not an
    /// error.
    pub softrandommap: bool,
    /// `random_distribution` (of reads, and of every direction unless the next is set).
    pub random_distribution: RandomDist,
    /// Per-direction zones (`zoned:…,…,…`): read, write, trim; None is uniform.
    pub random_distribution_dirs: Option<[Option<RandomDist>; 3]>,
    /// `percentage_random` per direction.
    pub percentage_random: PerDir<u32>,
    /// `rw_sequencer=identical`.
    pub rw_sequencer_identical: bool,
    /// `zonemode`.
    pub zonemode: ZoneMode,
    /// `zonesize` (0: not set).
    pub zonesize: u64,
    /// `zonerange` (0: zonesize).
    pub zonerange: u64,
    /// `zoneskip`.
    pub zoneskip: u64,
    /// `file_service_type`: (kind, N).
    pub file_service: (FileServiceKind, u32),
    /// `bsrange` per direction (lo, hi); None = fixed `bs`.
    pub bsrange: [Option<(u64, u64)>; 3],
    /// What reading the job's options found worth saying (a value read as fio reads it
    /// rather than as written), each with its file and line: printed before the run.
    pub notes: Vec<String>,
    /// `bs_unaligned`.
    pub bs_unaligned: bool,
    /// `bssplit` per direction: (size, percent) with blank shares filled in.
    pub bssplit: [Vec<(u64, f64)>; 3],
    /// `blockalign`/`ba` per direction (0 = the block size).
    pub blockalign: PerDir<u64>,
    /// `bs_is_seq_rand`: sequential I/Os take the read block size, random ones the write
    /// block size, whatever their direction.
    pub bs_is_seq_rand: bool,
    /// `offset_align`: a percentage offset is rounded up to this (0: the minimum block size).
    pub offset_align: u64,
    /// `rate` per direction, bytes/s (0 = unlimited).
    pub rate: PerDir<u64>,
    /// `rate_iops` per direction (0 = unlimited).
    pub rate_iops: PerDir<u64>,
    /// `rate_process=poisson`.
    pub rate_poisson: bool,
    /// `thinktime`.
    pub thinktime: Duration,
    /// `thinktime_spin`.
    pub thinktime_spin: Duration,
    /// `thinktime_blocks`.
    pub thinktime_blocks: u32,
    /// `allow_mounted_write`: write to a mounted block device anyway.
    pub allow_mounted_write: bool,
    /// `continue_on_error` and `ignore_error`: which errors a job counts and goes on after.
    pub errors: ErrorPolicy,
    /// `assert` (fathom extension): conditions the results must meet.
    pub asserts: Vec<crate::gate::Assertion>,
    /// The job's log files (write_bw_log and friends).
    pub logs: LogSpec,
    /// `read_iolog` and the `replay_*` options: the job replays a recorded log.
    pub replay: ReplaySpec,
    /// `unit_base`: 1 reports bandwidth in bits, 8 (or 0) in bytes.
    pub unit_base: u32,
    /// `significant_figures` of the normal output's IOPS and bandwidth (1..=10, default 4).
    pub sig_figs: u32,
    /// `unified_rw_reporting`: 0 none, 1 mixed (read/write/trim reported as one), 2 both.
    pub unified_rw: u8,
    /// `random_generator=lfsr`: every block exactly once per pass is required.
    pub lfsr: bool,
    /// `random_generator=tausworthe64`: fio's 64-bit generator for the draws fathom makes
    /// as fio does (block sizes).
    pub rand64: bool,
    /// `wait_for=NAME`: start only when every clone of the job named NAME has ended.
    pub wait_for: Option<String>,
    /// `file_service_type=zipf|pareto|normal`: files drawn from this distribution.
    pub file_service_dist: Option<RandomDist>,
    /// `rate_min`: the least bandwidth per direction (bytes/s) over each rate_cycle.
    pub rate_min: PerDir<u64>,
    /// `rate_iops_min`: the least IOPS per direction over each rate_cycle.
    pub rate_iops_min: PerDir<u64>,
    /// `rate_cycle`: the window rate_min and rate_iops_min are checked over.
    pub rate_cycle: Duration,
    /// `exitall`: when this job ends, stop the others (which: `exit_what`).
    pub exitall: bool,
    /// fio's job-control extras: exec_prerun/postrun, exitall_on_error, create_only,
    /// max_latency, pre_read, slat_percentiles.
    pub control: crate::Control,
    /// `exit_what`: 0 the job's group, 1 its stonewall phase, 2 every job.
    pub exit_what: u8,
    /// `thinktime_blocks_type=issue`: count issued I/Os for the stall, not completed ones.
    pub thinktime_on_issue: bool,
    /// `thinktime_iotime`: stall after this much I/O time as well.
    pub thinktime_iotime: Duration,
    /// `latency_target`: the queue-depth search's latency limit (zero: off).
    pub latency_target: Duration,
    /// `latency_window`: how long each depth is tried.
    pub latency_window: Duration,
    /// `latency_percentile`: share of I/Os that must meet the target.
    pub latency_percentile: f64,
    /// `latency_run`: keep adjusting the depth instead of ending at the best one.
    pub latency_run: bool,
    /// `segments` (fathom extension): IOR's segmented layout of a shared file.
    pub segments: u32,
    /// `flow`: weight in the token-based flow control of jobs sharing a `flow_id`.
    pub flow: u32,
    /// `flow_id`: the flow group.
    pub flow_id: u32,
    /// `flow_sleep`: wait after finding the job ahead of its share.
    pub flow_sleep: Duration,
    /// `cpus_allowed`/`cpumask`: CPUs the job's threads may run on (None = any).
    pub cpus: Option<Vec<usize>>,
    /// `cpus_allowed_policy=split`: each clone gets one CPU of the set, in turn.
    pub cpus_split: bool,
    /// `nice`: the threads' nice value.
    pub nice: Option<i32>,
    /// `prioclass` (1 realtime, 2 best-effort, 3 idle) for the I/O priority.
    pub prioclass: Option<u32>,
    /// `prio` (0 highest .. 7 lowest) within the I/O priority class.
    pub prio: Option<u32>,
}

/// fio's `read_iolog` and `replay_*` options: replay a recorded iolog or blktrace trace.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySpec {
    /// `read_iolog=PATH[:PATH...]`: the log each clone replays (clone N takes the N-th
    /// name, round robin; `-` is standard input).
    pub read_iolog: Option<String>,
    /// `read_iolog_chunked`: accepted; fathom always holds the parsed log compactly.
    pub chunked: bool,
    /// `replay_no_stall`: ignore the log's times.
    pub no_stall: bool,
    /// `replay_time_scale`: percent of the log's speed.
    pub time_scale: u32,
    /// `replay_redirect`: every I/O to this file or device.
    pub redirect: Option<String>,
    /// `replay_align`: offsets rounded down to this power of two.
    pub align: u64,
    /// `replay_scale`: offsets divided by this.
    pub scale: u64,
    /// `replay_skip`: read, write, trim, sync left out.
    pub skip: [bool; 4],
    /// `merge_blktrace_file`: merge the traces `read_iolog` names into this file first.
    pub merge_file: Option<String>,
    /// `merge_blktrace_scalars`: per trace, percent of its speed in the merge.
    pub merge_scalars: Vec<f64>,
    /// `merge_blktrace_iters`: per trace, how many times it is merged in a row.
    pub merge_iters: Vec<u64>,
    /// `iodepth` was given (a blktrace replay otherwise takes the trace's depth, as fio).
    pub iodepth_given: bool,
}

impl Default for ReplaySpec {
    fn default() -> Self {
        ReplaySpec {
            read_iolog: None,
            chunked: false,
            no_stall: false,
            time_scale: 100,
            redirect: None,
            align: 0,
            scale: 1,
            skip: [false; 4],
            merge_file: None,
            merge_scalars: Vec::new(),
            merge_iters: Vec::new(),
            iodepth_given: false,
        }
    }
}

/// What a job logs to files, as fio's log options.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogSpec {
    /// `write_iolog=PATH`: every issued I/O, in fio's iolog version 3 format.
    pub iolog: Option<String>,
    /// `write_bw_log=NAME`: bandwidth log `NAME_bw.N.log`.
    pub bw: Option<String>,
    /// `write_iops_log=NAME`: `NAME_iops.N.log`.
    pub iops: Option<String>,
    /// `write_lat_log=NAME`: `NAME_slat.N.log`, `NAME_clat.N.log`, `NAME_lat.N.log`.
    pub lat: Option<String>,
    /// `write_hist_log=NAME`: `NAME_clat_hist.N.log`.
    pub hist: Option<String>,
    /// `log_avg_msec`: average (or max) over windows of this many ms; 0 logs every I/O.
    pub avg_msec: u32,
    /// `log_hist_msec`: histogram log interval (ms).
    pub hist_msec: u32,
    /// `log_hist_coarseness` 0..=6: merge 2^N histogram buckets.
    pub hist_coarseness: u32,
    /// `log_window_value=max`: log the window's maximum instead of its average.
    pub window_max: bool,
    /// `log_window_value=both`: log the window's average and maximum (two value columns).
    pub window_both: bool,
    /// `log_offset`: add the I/O's offset column.
    pub offset: bool,
    /// `per_job_logs=0`: one file for every clone (no `.N`).
    pub shared: bool,
    /// `log_unix_epoch`: time stamps in ms since the Unix epoch, not since the job began.
    pub unix_epoch: bool,
    /// `log_alternate_epoch`: time stamps from the epoch of the clock_gettime clock
    /// `epoch_clock` (with `log_unix_epoch` too, the clock is `epoch_clock`).
    pub alt_epoch: bool,
    /// `log_alternate_epoch_clock_id` (0, CLOCK_REALTIME: the Unix epoch).
    pub epoch_clock: i32,
    /// `log_prio`: the priority column holds the I/O's ioprio value (hex).
    pub log_prio: bool,
    /// `log_issue_time`: a last column with each I/O's issue time (ns, clat/slat logs).
    pub issue_time: bool,
    /// The job's ioprio value (class << 13 | level), for the priority column; set when
    /// the job is planned from `prioclass` and `prio`.
    pub ioprio: u16,
}

impl LogSpec {
    /// True when the job writes any log.
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some() || self.hist.is_some()
    }
}

/// `random_distribution` (the workload crate turns it into a sampler).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RandomDist {
    /// Uniform.
    #[default]
    Random,
    /// `zipf:theta[:center]` (no center: fio's random turn).
    Zipf(f64, Option<f64>),
    /// `pareto:h[:center]` (no center: fio's random turn).
    Pareto(f64, Option<f64>),
    /// `normal:dev[:center]` (also `gauss`).
    Normal(f64, f64),
    /// zoned:pct/range%:... — (percent of I/O, percent of the region).
    Zoned(Vec<(f64, f64)>),
    /// zoned_abs:pct/size:... — (percent of I/O, bytes).
    ZonedAbs(Vec<(f64, u64)>),
}

/// `zonemode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZoneMode {
    /// Not given: none, as fio (where zonesize alone is an error).
    #[default]
    Unset,
    /// `zonemode=none`.
    None,
    /// `zonemode=strided`.
    Strided,
    /// `zonemode=zbd`: zones with write pointers (see [`crate::Zbd`]).
    Zbd,
}

/// `file_service_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileServiceKind {
    /// Round robin (default).
    #[default]
    RoundRobin,
    /// Finish one file, then the next.
    Sequential,
    /// A random file.
    Random,
}

/// `sync=`: synchronous-write open flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncMode {
    /// No flag.
    #[default]
    None,
    /// O_SYNC.
    Sync,
    /// O_DSYNC.
    Dsync,
}

/// Engine-specific options, as fio's per-engine option tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOpts {
    /// io_uring: IOPOLL (polled completions; needs direct I/O on a device that polls);
    /// pvsync2: RWF_HIPRI.
    pub hipri: bool,
    /// io_uring: registered (fixed) buffers.
    pub fixedbufs: bool,
    /// io_uring: registered files.
    pub registerfiles: bool,
    /// io_uring: a kernel thread polls the submission queue.
    pub sqthread_poll: bool,
    /// io_uring: CPU for the polling thread.
    pub sqthread_poll_cpu: Option<u32>,
    /// io_uring: 0 uses readv/writev; -1 (fio's default: non-vectored where the kernel
    /// has it) and 1 use the plain read/write opcodes.
    pub nonvectored: i32,
    /// io_uring: IOSQE_ASYNC on every submission.
    pub force_async: bool,
    /// pvsync2 (and io_uring): RWF_NOWAIT, fail with EAGAIN rather than block.
    pub nowait: bool,
    /// libaio: reap completions from the shared ring without a syscall.
    pub userspace_reap: bool,
    /// filestat/dirstat: the system call that looks files up.
    pub stat_type: StatType,
    /// cpuio: percent of a CPU to burn (0: not set).
    pub cpuload: u32,
    /// cpuio: microseconds of each burn (`cpuchunks`).
    pub cpuchunks: u64,
    /// cpuio: `cpumode=qsort` (sorting) instead of `noop` (spinning).
    pub cpumode_qsort: bool,
    /// cpuio: `exit_on_io_done`: end when every I/O job of the run has ended.
    pub exit_on_io_done: bool,
    /// pvsync2: the percentage of I/Os that carry RWF_HIPRI when `hipri` is set.
    pub hipri_percentage: u32,
    /// mmap: ask for transparent huge pages on the mappings (MADV_HUGEPAGE).
    pub thp: bool,
    /// The fd engines (sync, psync, the vector ones): a transfer that comes back short
    /// is an error (EIO), its rest not asked for again — IOR's `-x`
    /// (singleXferAttempt); set by the IOR suite, no job option. Off: the rest is
    /// reissued until the transfer is whole, as fio does.
    pub single_attempt: bool,
}

/// How written data is checked (`verify=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyKind {
    /// MD5 of each block's data.
    Md5,
    /// CRC-64 (XZ).
    Crc64,
    /// CRC-32C (Castagnoli; hardware-accelerated where the CPU has it).
    Crc32c,
    /// CRC-32 (ISO-HDLC).
    Crc32,
    /// CRC-16 (ARC).
    Crc16,
    /// CRC-7 (MMC).
    Crc7,
    /// xxHash64.
    Xxhash,
    /// SHA-1.
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-512.
    Sha512,
    /// SHA3-224.
    Sha3_224,
    /// SHA3-256.
    Sha3_256,
    /// SHA3-384.
    Sha3_384,
    /// SHA3-512.
    Sha3_512,
    /// The header alone (offset, generation, …), no data checksum.
    Meta,
    /// The data is `verify_pattern`, compared byte for byte; no header.
    Pattern,
    /// A header, then `verify_pattern` as the data.
    PatternHdr,
    /// Read back without checking (fio's "pretend").
    Null,
}

impl VerifyKind {
    /// Every kind with its names (the first is the canonical one).
    pub const NAMES: &'static [(&'static str, VerifyKind)] = &[
        ("md5", VerifyKind::Md5),
        ("crc64", VerifyKind::Crc64),
        ("crc32c", VerifyKind::Crc32c),
        ("crc32c-intel", VerifyKind::Crc32c),
        ("crc32", VerifyKind::Crc32),
        ("crc16", VerifyKind::Crc16),
        ("crc7", VerifyKind::Crc7),
        ("xxhash", VerifyKind::Xxhash),
        ("sha1", VerifyKind::Sha1),
        ("sha256", VerifyKind::Sha256),
        ("sha512", VerifyKind::Sha512),
        ("sha3-224", VerifyKind::Sha3_224),
        ("sha3-256", VerifyKind::Sha3_256),
        ("sha3-384", VerifyKind::Sha3_384),
        ("sha3-512", VerifyKind::Sha3_512),
        ("meta", VerifyKind::Meta),
        ("pattern", VerifyKind::Pattern),
        ("pattern_hdr", VerifyKind::PatternHdr),
        ("null", VerifyKind::Null),
    ];
    /// The kind's name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, k)| *k == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

/// fio's verify options.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifySpec {
    /// `verify`: None is off.
    pub kind: Option<VerifyKind>,
    /// `verify_interval`: bytes per verified chunk (0: each write's length).
    pub interval: u64,
    /// `verify_offset`: where in each chunk the header sits.
    pub offset: u64,
    /// `verify_pattern`.
    pub pattern: Option<Vec<u8>>,
    /// Where `%o` stood in `verify_pattern`: byte positions of the chunk's offset (8
    /// bytes, little-endian) in each repetition of the pattern.
    pub pattern_offsets: Vec<usize>,
    /// `do_verify`: read back and check after the writes (default on).
    pub do_verify: bool,
    /// `verify_only`: do not write; check what an earlier run wrote.
    pub only: bool,
    /// `verify_backlog`: check the last N written blocks after every N writes.
    pub backlog: u64,
    /// `verify_backlog_batch`: how many of them (default: verify_backlog).
    pub backlog_batch: u64,
    /// `verify_fatal`: end the job at the first failure.
    pub fatal: bool,
    /// `verify_journal` (fathom extension): the crash-consistency journal's path.
    pub journal: Option<String>,
    /// `verify_dump`: write a failed chunk's received and expected bytes to files.
    pub dump: bool,
    /// `verify_async`: threads that check read-back chunks.
    pub async_threads: u32,
    /// `verify_async_cpus`: the CPUs the verify_async threads run on (None: any).
    pub async_cpus: Option<Vec<usize>>,
    /// `verify_state_save`: save the chunks' generations when the write phase is cut short.
    pub state_save: bool,
    /// `verify_state_load`: load them before checking (verify_only then knows them).
    pub state_load: bool,
    /// `trim_verify_zero`: trimmed chunks must read back as zeroes (default on).
    pub trim_zero: bool,
    /// `experimental_verify`: read back by replaying the writes in their order.
    pub experimental: bool,
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            kind: None,
            interval: 0,
            offset: 0,
            pattern: None,
            pattern_offsets: Vec::new(),
            do_verify: true,
            only: false,
            backlog: 0,
            backlog_batch: 0,
            fatal: false,
            journal: None,
            dump: false,
            async_threads: 0,
            async_cpus: None,
            state_save: true,
            state_load: false,
            trim_zero: true,
            experimental: false,
        }
    }
}

/// What `steadystate` watches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SteadyMetric {
    /// I/Os per second.
    #[default]
    Iops,
    /// Bytes per second.
    Bw,
    /// Mean completion latency.
    Lat,
}

/// fio's `steadystate=METRIC[_slope]:LIMIT[%]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyCriterion {
    /// The metric.
    pub metric: SteadyMetric,
    /// Judge the slope of a least-squares line through the window, not the largest
    /// deviation from its mean.
    pub slope: bool,
    /// The limit the criterion must stay under.
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    pub percent: bool,
}

impl Default for SteadyCriterion {
    /// fio's default, `iops_slope:0.01%`.
    fn default() -> Self {
        SteadyCriterion {
            metric: SteadyMetric::Iops,
            slope: true,
            limit: 0.01,
            percent: true,
        }
    }
}

impl SteadyCriterion {
    /// As fio writes it: `iops_slope:0.010000%`.
    pub fn text(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            match self.metric {
                SteadyMetric::Iops => "iops",
                SteadyMetric::Bw => "bw",
                SteadyMetric::Lat => "lat",
            },
            if self.slope { "_slope" } else { "" },
            self.limit,
            if self.percent { "%" } else { "" }
        )
    }
}

/// How `filestat`/`dirstat` (and `stat` in a `filetree` mix) look a file up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StatType {
    /// stat(2).
    #[default]
    Stat,
    /// lstat(2).
    Lstat,
    /// statx(2) with STATX_ALL.
    Statx,
}

/// A vdbench-style directory tree (fathom extension): `depth` levels of `width`
/// directories under the job's directory, `nrfiles` files in each leaf directory (or in
/// every directory with `all_levels`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeSpec {
    /// Levels of directories below the job's directory (0: the directory itself).
    pub depth: u32,
    /// Directories made in each directory of the level above.
    pub width: u32,
    /// Files in every directory of the tree (vdbench distribution=all), not only in the
    /// leaves (bottom).
    pub all_levels: bool,
    /// Each clone gets a tree of its own (mdtest -u); otherwise clones share one tree,
    /// each with its own files in it.
    pub unique: bool,
    /// What a filetree job makes before the clock starts (None: the default, dirs).
    pub format: Option<TreeFormat>,
    /// vdbench's names: `vdb.LEVEL_N.dir` directories and `vdb_fNNNN.file` files (N from 1
    /// within each parent), instead of fathom's `dN` and `filename_format`.
    pub vdbench_names: bool,
    /// filetree: the job's clones, and every other `tree_shared` job of the run on the same
    /// tree, share one view of it, each file and directory one clone's at a time
    /// (vdbench's threads); otherwise each clone has files of its own.
    pub shared: bool,
}

/// What a tree job makes before its measured window (vdbench's `format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeFormat {
    /// Nothing: the tree is used as it is found.
    No,
    /// The directories (missing ones); files are left as found.
    #[default]
    Dirs,
    /// The directories and the files that are missing.
    Restart,
    /// Remove the tree's files first, then make every directory and file.
    Yes,
}

/// One metadata operation of a `filetree` mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetaOp {
    /// Create a file (open O_CREAT|O_EXCL, write `filesize` bytes, close).
    Create,
    /// Open an existing file (it stays open until a `close`).
    Open,
    /// Close a file an `open` left open.
    Close,
    /// stat(2) (or stat_type) a file.
    Stat,
    /// Set a file's times to now (utimensat).
    Setattr,
    /// Open, read the whole file, close.
    Read,
    /// Open, rewrite `filesize` bytes, close.
    Write,
    /// Rename a file to a free name in the tree.
    Rename,
    /// unlink(2) a file.
    Delete,
    /// Make a missing directory of the tree.
    Mkdir,
    /// Remove an empty directory of the tree.
    Rmdir,
    /// access(2) an existing file for reading (vdbench's access).
    Access,
    /// Copy an existing file to a free name in the tree (create it, then copy the data).
    Copy,
}

impl MetaOp {
    /// Every operation, in reporting order.
    pub const ALL: [MetaOp; 13] = [
        MetaOp::Create,
        MetaOp::Open,
        MetaOp::Close,
        MetaOp::Stat,
        MetaOp::Setattr,
        MetaOp::Read,
        MetaOp::Write,
        MetaOp::Rename,
        MetaOp::Delete,
        MetaOp::Mkdir,
        MetaOp::Rmdir,
        MetaOp::Access,
        MetaOp::Copy,
    ];
    /// The operation's name in job files and results.
    pub fn name(self) -> &'static str {
        match self {
            MetaOp::Create => "create",
            MetaOp::Open => "open",
            MetaOp::Close => "close",
            MetaOp::Stat => "stat",
            MetaOp::Setattr => "setattr",
            MetaOp::Read => "read",
            MetaOp::Write => "write",
            MetaOp::Rename => "rename",
            MetaOp::Delete => "delete",
            MetaOp::Mkdir => "mkdir",
            MetaOp::Rmdir => "rmdir",
            MetaOp::Access => "access",
            MetaOp::Copy => "copy",
        }
    }
    /// The operation called `name` (`utime` is `setattr`, `unlink` is `delete`).
    pub fn parse(name: &str) -> Option<MetaOp> {
        match name {
            "utime" => Some(MetaOp::Setattr),
            "unlink" => Some(MetaOp::Delete),
            _ => MetaOp::ALL.into_iter().find(|o| o.name() == name),
        }
    }
}

impl Default for EngineOpts {
    fn default() -> Self {
        EngineOpts {
            hipri: false,
            fixedbufs: false,
            registerfiles: false,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            nonvectored: -1,
            force_async: false,
            nowait: false,
            userspace_reap: false,
            stat_type: StatType::Stat,
            cpuload: 0,
            cpuchunks: 50_000,
            cpumode_qsort: false,
            exit_on_io_done: false,
            hipri_percentage: 100,
            thp: false,
            single_attempt: false,
        }
    }
}

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            name: String::new(),
            description: None,
            origin: Location::default(),
            file_index: 0,
            filenames: Vec::new(),
            directories: Vec::new(),
            filename_format: "$jobname.$jobnum.$filenum".to_string(),
            size: None,
            filesize: None,
            io_size: None,
            io_size_percent: None,
            nrfiles: 1,
            openfiles: None,
            bs: PerDir::all(4096),
            rw: Rw::default(),
            rwmixread: 50,
            ioengine: "psync".to_string(),
            iodepth: 1,
            direct: false,
            numjobs: 1,
            thread: false,
            runtime: None,
            time_based: false,
            ramp_time: Duration::ZERO,
            steadystate: SteadyCriterion::default(),
            ss_dur: Duration::ZERO,
            ss_ramp: Duration::ZERO,
            ss_interval: Duration::from_secs(1),
            startdelay: (Duration::ZERO, Duration::ZERO),
            loops: 1,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            number_ios: 0,
            group_reporting: false,
            stonewall: false,
            new_group: false,
            randrepeat: true,
            allrandrepeat: false,
            randseed: 0x89,
            randseed_set: false,
            fsync: 0,
            fdatasync: 0,
            sync_file_range: None,
            end_fsync: false,
            fsync_on_close: false,
            unlink: false,
            create_on_open: false,
            overwrite: false,
            fallocate: Fallocate::Native,
            create_fsync: true,
            write_hint: None,
            invalidate: true,
            zero_buffers: false,
            refill_buffers: false,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            clat_percentiles: true,
            lat_percentiles: false,
            kb_base: 1024,
            job_options: Vec::new(),
            engine: EngineOpts::default(),
            cmdprio: crate::CmdPrio::default(),
            verify: VerifySpec::default(),
            tree: TreeSpec::default(),
            meta_mix: Vec::new(),
            fileselect_sequential: false,
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            iodepth_low: None,
            sync: SyncMode::None,
            iomem_align: 0,
            scramble_buffers: true,
            buffer_pattern: None,
            io_data: None,
            io_order: None,
            buffer_compress_percentage: None,
            buffer_compress_chunk: 512,
            dedupe_percentage: 0,
            dedupe_working_set: false,
            dedupe_working_set_percentage: 5,
            dedupe_global: false,
            norandommap: false,
            softrandommap: false,
            random_distribution: RandomDist::Random,
            random_distribution_dirs: None,
            percentage_random: PerDir::all(100),
            rw_sequencer_identical: false,
            zonemode: ZoneMode::Unset,
            zonesize: 0,
            zonerange: 0,
            zoneskip: 0,
            file_service: (FileServiceKind::RoundRobin, 1),
            bsrange: [None, None, None],
            notes: Vec::new(),
            bs_unaligned: false,
            bssplit: [Vec::new(), Vec::new(), Vec::new()],
            blockalign: PerDir::all(0),
            bs_is_seq_rand: false,
            offset_align: 0,
            rate: PerDir::all(0),
            rate_iops: PerDir::all(0),
            rate_poisson: false,
            thinktime: Duration::ZERO,
            thinktime_spin: Duration::ZERO,
            thinktime_blocks: 1,
            allow_mounted_write: false,
            errors: ErrorPolicy::default(),
            asserts: Vec::new(),
            logs: LogSpec::default(),
            replay: ReplaySpec::default(),
            unit_base: 0,
            sig_figs: 4,
            unified_rw: 0,
            lfsr: false,
            rand64: false,
            wait_for: None,
            file_service_dist: None,
            rate_min: PerDir([0; 3]),
            rate_iops_min: PerDir([0; 3]),
            rate_cycle: Duration::from_millis(1000),
            exitall: false,
            control: crate::Control::default(),
            exit_what: 0,
            thinktime_on_issue: false,
            thinktime_iotime: Duration::ZERO,
            latency_target: Duration::ZERO,
            latency_window: Duration::ZERO,
            latency_percentile: 100.0,
            latency_run: false,
            segments: 0,
            flow: 0,
            flow_id: 0,
            flow_sleep: Duration::ZERO,
            cpus: None,
            cpus_split: false,
            nice: None,
            prioclass: None,
            prio: None,
        }
    }
}

/// The result of parsing one or more job files / a command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobSet {
    /// Jobs in file order.
    pub jobs: Vec<JobSpec>,
    /// Options set in `[global]` sections, as typed (name, value), in order; printed as
    /// fio's `"global options"`.
    pub global_options: Vec<(String, String)>,
}

/// fio's error policy: `continue_on_error` names the classes of errors a job goes on
/// after (read, write, verify), and each class goes on only after the errnos of its list:
/// `ignore_error`'s list for the class, else fio's non-fatal ones, EIO and EILSEQ. So
/// `continue_on_error=all` still ends a job on ENOSPC, as in fio. A list given in
/// `ignore_error` turns its class on; a later `continue_on_error` sets the classes anew.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorPolicy {
    /// The classes errors are tolerated in: read (0), write (1: writes, trims, syncs) and
    /// verify (2: EILSEQ, a verification failure).
    pub classes: [bool; 3],
    /// `ignore_error`'s list per class; `None`: fio's non-fatal errors (EIO, EILSEQ).
    pub lists: [Option<Vec<i32>>; 3],
}

impl ErrorPolicy {
    /// fio's errors that are not fatal when no list is given.
    pub const NON_FATAL: [i32; 2] = [libc::EIO, libc::EILSEQ];

    /// The class of error `errno` on an I/O that read (`read`) or not, as fio sorts them:
    /// EILSEQ is verify's, the rest go by the I/O's direction.
    pub fn class(read: bool, errno: i32) -> usize {
        if errno == libc::EILSEQ {
            2
        } else if read {
            0
        } else {
            1
        }
    }

    /// Whether error `errno` of `class` is counted and the job goes on.
    pub fn tolerates(&self, class: usize, errno: i32) -> bool {
        self.classes[class]
            && match &self.lists[class] {
                Some(l) => l.contains(&errno),
                None => Self::NON_FATAL.contains(&errno),
            }
    }

    /// Some class is on: the job reports `total_err`/`first_error` (fio's
    /// `continue_on_error` bits are set).
    pub fn any(&self) -> bool {
        self.classes.iter().any(|&c| c)
    }
}
