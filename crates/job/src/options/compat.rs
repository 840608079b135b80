//! fio's job-control options that came with running real fio job files: commands around
//! a job, its end on an error or a slow I/O, create_only, pre_read, slat percentiles,
//! epoch log stamps, and the options fathom accepts with a documented meaning because
//! its design makes them moot (its clock and histograms are cheap enough to keep on).

use super::{int, time, OptDef};
use crate::units::{parse_bool, TimeUnit};

const C: &str = "fio job control and compatibility";

/// An option accepted for fio job files that changes nothing in fathom: the value must
/// still be valid (`bool`), and the doc says why it is moot.
macro_rules! moot_bool {
    ($name:expr, $default:expr, $doc:expr) => {
        OptDef {
            name: $name,
            aliases: &[],
            category: C,
            ty: "bool",
            default: $default,
            doc: $doc,
            flag: true,
            apply: |_, v, _| parse_bool(v).map(|_| ()),
        }
    };
}

/// A NUMA node list, `0-1,3`.
fn node_list(v: &str) -> Result<Vec<u32>, String> {
    super::time::cpu_list(v)
        .map(|l| l.into_iter().map(|n| n as u32).collect())
        .map_err(|e| {
            e.replace("CPU", "node")
                .replace("cpus_allowed", "numa_cpu_nodes")
        })
}

fn nonzero(t: std::time::Duration) -> Result<std::time::Duration, String> {
    if t.is_zero() {
        Err("must be more than 0".into())
    } else {
        Ok(t)
    }
}

pub(super) static OPTS: &[OptDef] = &[
    OptDef {
        name: "slat_percentiles",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Report submission-latency percentiles too (engines that queue: libaio, io_uring, tokio)",
        flag: true,
        apply: |j, v, _| {
            j.control.slat_percentiles = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "exitall_on_error",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "When this job ends in an error, stop every job",
        flag: true,
        apply: |j, v, _| {
            j.control.exitall_on_error = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "create_only",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Lay the job's files out and do no I/O",
        flag: true,
        apply: |j, v, _| {
            j.control.create_only = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "exec_prerun",
        aliases: &[],
        category: C,
        ty: "command",
        default: "",
        doc: "Run this shell command before each clone starts (output in JOB.prerun.txt); a failure fails the clone",
        flag: false,
        apply: |j, v, _| {
            j.control.exec_prerun = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "exec_postrun",
        aliases: &[],
        category: C,
        ty: "command",
        default: "",
        doc: "Run this shell command after each clone ends (output in JOB.postrun.txt)",
        flag: false,
        apply: |j, v, _| {
            j.control.exec_postrun = Some(v.to_string());
            Ok(())
        },
    },
    OptDef {
        name: "max_latency",
        aliases: &[],
        category: C,
        ty: "time (us)",
        default: "0 (off)",
        doc: "End the job with ETIMEDOUT when an I/O's completion latency exceeds this",
        flag: false,
        apply: |j, v, c| {
            j.control.max_latency = time(v, TimeUnit::Micros, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "pre_read",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Read the files through the page cache before the clock starts (the cache is then kept, as invalidate=0)",
        flag: true,
        apply: |j, v, _| {
            j.control.pre_read = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_unix_epoch",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Log time stamps in ms since the Unix epoch instead of since the job began",
        flag: true,
        apply: |j, v, _| {
            j.logs.unix_epoch = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "lockmem",
        aliases: &[],
        category: C,
        ty: "size",
        default: "0",
        doc: "Pin this much memory with mlock(2) in each clone while it runs (to test with less memory for the page cache)",
        flag: false,
        apply: |j, v, c| {
            j.control.lockmem = super::size(v, c)?;
            Ok(())
        },
    },
    OptDef {
        name: "serialize_overlap",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "An I/O that overlaps one still in flight (same file, intersecting bytes) waits for it to complete",
        flag: true,
        apply: |j, v, _| {
            j.control.serialize_overlap = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "bwavgtime",
        aliases: &[],
        category: C,
        ty: "time (ms)",
        default: "500ms",
        doc: "How often bandwidth is sampled for bw_min/bw_max/bw_dev/bw_samples (with a bw log, its log_avg_msec when shorter)",
        flag: false,
        apply: |j, v, c| {
            j.control.bwavgtime = Some(nonzero(time(v, TimeUnit::Millis, c)?)?);
            Ok(())
        },
    },
    OptDef {
        name: "iopsavgtime",
        aliases: &[],
        category: C,
        ty: "time (ms)",
        default: "500ms",
        doc: "How often IOPS are sampled for iops_min/iops_max/iops_stddev/iops_samples (fathom samples both at bwavgtime when both are set)",
        flag: false,
        apply: |j, v, c| {
            j.control.iopsavgtime = Some(nonzero(time(v, TimeUnit::Millis, c)?)?);
            Ok(())
        },
    },
    OptDef {
        name: "log_alternate_epoch",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Log time stamps in ms from the epoch of the clock log_alternate_epoch_clock_id names",
        flag: true,
        apply: |j, v, _| {
            j.logs.alt_epoch = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_alternate_epoch_clock_id",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0",
        doc: "The clock_gettime clock whose epoch log_unix_epoch and log_alternate_epoch use (0 CLOCK_REALTIME, 1 CLOCK_MONOTONIC, 7 CLOCK_BOOTTIME)",
        flag: false,
        apply: |j, v, _| {
            let id = int(v)?;
            if ![0, 1, 4, 7].contains(&id) {
                return Err(format!(
                    "clock id {id}: use 0 (CLOCK_REALTIME), 1 (CLOCK_MONOTONIC), 4 (CLOCK_MONOTONIC_RAW) or 7 (CLOCK_BOOTTIME)"
                ));
            }
            j.logs.epoch_clock = id as i32;
            Ok(())
        },
    },
    OptDef {
        name: "log_prio",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "The log's priority column holds each I/O's ioprio value in hex (class << 13 | level), not 1 for the real-time class",
        flag: true,
        apply: |j, v, _| {
            j.logs.log_prio = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_issue_time",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "A last log column with each I/O's issue time in ns since the job began (clat and slat logs; 0 in the others), as fio 3.36+",
        flag: true,
        apply: |j, v, _| {
            j.logs.issue_time = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "log_compression",
        aliases: &[],
        category: C,
        ty: "size",
        default: "0",
        doc: "Accepted for fio job files: fio compresses logs in memory in chunks of this size; fathom keeps about 40 bytes per I/O and writes plain logs",
        flag: false,
        apply: |_, v, c| {
            let n = super::size(v, c)?;
            if !(1024..=512 << 20).contains(&n) {
                return Err(format!(
                    "{n} is outside fio's range for it, 1k to 512m (fio refuses 0 too: leave \
                     it out for no compression)"
                ));
            }
            Ok(())
        },
    },
    OptDef {
        name: "log_store_compressed",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "fathom writes plain logs: log_store_compressed=0 is accepted, 1 refused (compress the files after the run, e.g. with gzip)",
        flag: true,
        apply: |_, v, _| {
            if parse_bool(v)? {
                return Err(
                    "fathom writes plain log files; compress them after the run (gzip) \
                     and leave log_store_compressed=0"
                        .into(),
                );
            }
            Ok(())
        },
    },
    OptDef {
        name: "disk_util",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "Report the activity of the block devices under the job's files (normal output's Disk stats, JSON disk_util)",
        flag: true,
        apply: |j, v, _| {
            j.control.no_disk_util = !parse_bool(v)?;
            Ok(())
        },
    },
    moot_bool!(
        "stats",
        "1",
        "Accepted for fio job files: fathom always keeps every statistic (a clock read and a histogram add per I/O); stats=0 changes nothing"
    ),
    OptDef {
        name: "gtod_cpu",
        aliases: &[],
        category: C,
        ty: "int",
        default: "",
        doc: "Accepted for fio job files: fio gives a CPU to a thread that reads the clock for every job; fathom's clock reads are cheap enough for each I/O to take its own, so no such thread is started",
        flag: false,
        apply: |_, v, _| super::int(v).map(|_| ()),
    },
    OptDef {
        name: "write_barrier",
        aliases: &[],
        category: C,
        ty: "int",
        default: "0",
        doc: "Accepted for fio job files: fio marks every N-th write as a barrier only in its sg (SCSI generic) engine, which fathom does not have; every other engine, fio's and fathom's, issues plain writes, so the job does the same work. For ordered, durable writes use fsync=N, fdatasync=N or sync=dsync",
        flag: false,
        apply: |_, v, _| super::int(v).map(|_| ()),
    },
    OptDef {
        name: "log_entries",
        aliases: &[],
        category: C,
        ty: "int",
        default: "1024",
        doc: "Accepted for fio job files: fio's initial room in each log (it grows past it); fathom's logs grow as needed",
        flag: false,
        apply: |_, v, _| super::int_in(v, 1024, 1 << 20).map(|_| ()),
    },
    OptDef {
        name: "log_compression_cpus",
        aliases: &[],
        category: C,
        ty: "cpu list",
        default: "",
        doc: "Accepted for fio job files: the CPUs of fio's log compression threads; fathom does not compress logs in memory (see log_compression), so it starts none",
        flag: false,
        apply: |_, v, _| super::time::cpu_list(v).map(|_| ()),
    },
    OptDef {
        name: "hugepage-size",
        aliases: &[],
        category: C,
        ty: "size",
        default: "2m",
        doc: "Accepted for fio job files: the huge page size of mem=shmhuge and mem=mmaphuge, which fathom refuses (see mem); alone it changes nothing, in fio too",
        flag: false,
        apply: |_, v, c| super::size(v, c).map(|_| ()),
    },
    moot_bool!(
        "gtod_reduce",
        "0",
        "Accepted for fio job files: fio's way to save clock reads; fathom's clock is cheap enough to keep, so every latency is still measured"
    ),
    moot_bool!(
        "disable_lat",
        "0",
        "Accepted for fio job files: fathom still measures total latency (see gtod_reduce)"
    ),
    moot_bool!(
        "disable_clat",
        "0",
        "Accepted for fio job files: fathom still measures completion latency (see gtod_reduce)"
    ),
    moot_bool!(
        "disable_slat",
        "0",
        "Accepted for fio job files: fathom still measures submission latency (see gtod_reduce)"
    ),
    OptDef {
        aliases: &["disable_bw"],
        ..moot_bool!(
            "disable_bw_measurement",
            "0",
            "Accepted for fio job files: fathom still samples bandwidth (see gtod_reduce)"
        )
    },
    moot_bool!(
        "verifysort",
        "1",
        "Accepted for fio job files: fio itself keeps it only for old job files and ignores it"
    ),
    moot_bool!(
        "unique_filename",
        "1",
        "Accepted for fio job files: it only changes file names in fio's client/server mode, which fathom does not have"
    ),
    moot_bool!(
        "create_serialize",
        "1",
        "Accepted for fio job files: fathom lays out every job's files before any job starts (many small files several at a time), never while jobs run"
    ),
    OptDef {
        name: "allow_file_create",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "1",
        doc: "0: a file the job names must exist already (the job is refused rather than create it)",
        flag: true,
        apply: |j, v, _| {
            j.control.no_file_create = !parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "lockfile",
        aliases: &[],
        category: C,
        ty: "none|exclusive|readwrite",
        default: "none",
        doc: "Lock each file around every I/O to it, across all clones and jobs that use it (as fio: held while the I/O is submitted, so for synchronous engines until it completes): exclusive = one I/O at a time, readwrite = reads together and each write or trim alone",
        flag: false,
        apply: |j, v, _| {
            use crate::control::LockMode as L;
            j.control.lockfile = match v.trim() {
                "none" => L::None,
                "exclusive" => L::Exclusive,
                "readwrite" => L::ReadWrite,
                other => {
                    return Err(format!(
                        "unknown lockfile '{other}'; use none, exclusive or readwrite"
                    ))
                }
            };
            Ok(())
        },
    },
    OptDef {
        name: "fadvise_hint",
        aliases: &[],
        category: C,
        ty: "0|1|random|sequential|noreuse",
        default: "1",
        doc: "Advice given for each file when it is opened (posix_fadvise; madvise on the mmap engine's mappings): 1 = random for random patterns, sequential otherwise; 0 = none",
        flag: false,
        apply: |j, v, _| {
            use crate::control::FadviseHint as F;
            j.control.fadvise_hint = match v.trim() {
                "0" | "none" => F::None,
                "1" | "type" => F::ByPattern,
                "random" => F::Random,
                "sequential" => F::Sequential,
                "noreuse" => F::NoReuse,
                other => {
                    return Err(format!(
                        "unknown fadvise_hint '{other}'; use 0, 1, random, sequential or noreuse"
                    ))
                }
            };
            Ok(())
        },
    },
    OptDef {
        name: "iomem",
        aliases: &["mem"],
        category: C,
        ty: "malloc|shm|mmap|mmapshared",
        default: "malloc",
        doc: "Where I/O buffers come from. fathom allocates every buffer as zeroed, page-aligned anonymous memory (see iomem_align), which is what malloc, shm, mmap and mmapshared give an I/O too; huge-page types (shmhuge, mmaphuge), file-backed mmap:PATH and cudamalloc are refused with the reason",
        flag: false,
        apply: |_, v, _| {
            let v = v.trim();
            match v {
                "malloc" | "shm" | "mmap" | "mmapshared" => Ok(()),
                _ if v.starts_with("shmhuge") || v.starts_with("mmaphuge") => Err(
                    "huge-page buffers are not in fathom (its buffers are anonymous pages); \
                     use mem=malloc, with iomem_align=2m to align buffers to huge-page \
                     boundaries"
                        .into(),
                ),
                _ if v.starts_with("mmap:") || v.starts_with("mmapshared:") => Err(
                    "buffers mapped from a file are not in fathom; use mem=mmap (anonymous)"
                        .into(),
                ),
                "cudamalloc" => Err("GPU memory needs fio's CUDA engines, not in fathom".into()),
                other => Err(format!(
                    "unknown memory type '{other}'; use malloc, shm, mmap or mmapshared"
                )),
            }
        },
    },
    OptDef {
        name: "numa_cpu_nodes",
        aliases: &[],
        category: C,
        ty: "node list|all",
        default: "all",
        doc: "Run the job's threads on the CPUs of these NUMA nodes (0-1,3), from /sys/devices/system/node",
        flag: false,
        apply: |j, v, _| {
            j.control.numa_cpu_nodes = match v.trim() {
                "all" => None,
                list => Some(node_list(list)?),
            };
            Ok(())
        },
    },
    OptDef {
        name: "numa_mem_policy",
        aliases: &[],
        category: C,
        ty: "default|prefer:N|bind:LIST|interleave:LIST|local",
        default: "default",
        doc: "The memory policy of the job's threads (set_mempolicy), set before the I/O buffers are allocated",
        flag: false,
        apply: |j, v, _| {
            use crate::control::{NumaMode as M, NumaPolicy};
            let (mode, list) = match v.trim().split_once(':') {
                Some((m, l)) => (m.trim(), Some(l.trim())),
                None => (v.trim(), None),
            };
            let mode = match mode {
                "default" => M::Default,
                "prefer" => M::Prefer,
                "bind" => M::Bind,
                "interleave" => M::Interleave,
                "local" => M::Local,
                other => {
                    return Err(format!(
                        "unknown policy '{other}'; use default, prefer:N, bind:LIST, \
                         interleave:LIST or local"
                    ))
                }
            };
            let nodes = match (mode, list) {
                (M::Default | M::Local, None) => Vec::new(),
                (M::Default | M::Local, Some(_)) => {
                    return Err("default and local take no node list".into())
                }
                (_, None) => return Err("give the nodes, e.g. bind:0-1 or prefer:0".into()),
                (_, Some(l)) => node_list(l)?,
            };
            if mode == M::Prefer && nodes.len() != 1 {
                return Err("prefer takes one node, e.g. prefer:0".into());
            }
            j.control.numa_mem_policy = Some(NumaPolicy { mode, nodes });
            Ok(())
        },
    },
    OptDef {
        name: "fill_device",
        aliases: &["fill_fs"],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Without size=: size each file to the free space of its file system (the device's size for a device; with size=, that is the region, as fio); end the job without error when a write meets ENOSPC or EDQUOT: a write job that fills the file system",
        flag: true,
        apply: |j, v, _| {
            j.control.fill_device = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "error_dump",
        aliases: &[],
        category: C,
        ty: "bool",
        default: "0",
        doc: "Print each error that continue_on_error or ignore_error tolerates on stderr (the first 100 per thread; all are counted in total_err). Off by default, as in fio 3.33",
        flag: true,
        apply: |j, v, _| {
            j.control.error_dump = parse_bool(v)?;
            Ok(())
        },
    },
    OptDef {
        name: "io_submit_mode",
        aliases: &[],
        category: C,
        ty: "inline|offload",
        default: "inline",
        doc: "Accepted for fio job files: fathom submits from the job's own thread (inline). fio's offload, a submission thread pool, is meant for rate-driven tests whose latency should not depend on submission; fathom already measures paced I/O from its intended start (no coordinated omission), so offload runs as inline",
        flag: false,
        apply: |_, v, _| match v.trim() {
            "inline" | "offload" => Ok(()),
            other => Err(format!("unknown io_submit_mode '{other}'; use inline or offload")),
        },
    },
    OptDef {
        name: "threads",
        aliases: &[],
        category: C,
        ty: "int",
        default: "",
        doc: "Accepted for fio job files: the thread count of fio's tiobench profile, which fio takes in every job and where it has no effect (fathom has no profiles; see thread)",
        flag: false,
        apply: |_, v, _| int(v).map(|_| ()),
    },
    OptDef {
        name: "clocksource",
        aliases: &[],
        category: C,
        ty: "gettimeofday|clock_gettime|cpu",
        default: "clock_gettime",
        doc: "Accepted for fio job files: fathom always times with CLOCK_MONOTONIC through the vDSO",
        flag: false,
        apply: |_, v, _| match v.trim() {
            "gettimeofday" | "clock_gettime" | "cpu" => Ok(()),
            other => Err(format!(
                "unknown clocksource '{other}'; fio's are gettimeofday, clock_gettime, cpu"
            )),
        },
    },
];
