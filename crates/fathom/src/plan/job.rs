//! One job's plan: its options checked against its engine and target, sizes, block sizes and verify interval resolved, its clones planned.

use super::clone::plan_clone;
use super::limits::physical_memory;
use super::types::*;
use crate::error::RunError;
use fathom_engine::Caps;
use fathom_job::JobSpec;
use std::path::Path;
use std::sync::Arc;

/// Refuse to write or trim a block device that holds data (see [`crate::plan::guard`]).
pub(crate) fn guard_job(job: &PlannedJob) -> Result<(), RunError> {
    let s = &job.spec;
    if !(s.rw.kind.writes() || s.rw.kind.trims()) || job.caps.diskless {
        return Ok(());
    }
    let mut seen: std::collections::HashSet<&Path> = std::collections::HashSet::new();
    // Regular files are read for disk-image signatures up to a bound (a job of many
    // files is not read whole before it starts); loop backing is checked for all.
    let mut probes = 0usize;
    for f in job.clones.iter().flat_map(|c| &c.files) {
        if !seen.insert(&f.path) {
            continue;
        }
        probes += 1;
        let findings = crate::plan::guard::check_target(&f.path, probes <= 16).map_err(|e| {
            RunError::Setup {
                job: s.name.clone(),
                path: f.path.clone(),
                source: e,
            }
        })?;
        if findings.is_empty() {
            continue;
        }
        let mounted = findings
            .iter()
            .any(|x| matches!(x, crate::plan::guard::Finding::Mounted(_)));
        if mounted && s.allow_mounted_write {
            continue;
        }
        let what: Vec<String> = findings.iter().map(|x| x.to_string()).collect();
        return Err(plan_err(
            s,
            format!(
                "refusing to {} {}: {}. Writing would destroy that data; if that is what you \
                 want, add --allow-destructive{}",
                if s.rw.kind.writes() {
                    "write to"
                } else {
                    "trim"
                },
                f.path.display(),
                what.join(", "),
                if mounted {
                    " (or allow_mounted_write=1)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// The engine can do what the job asks: replay, trim, files kept open, clones.
fn check_engine_fit(spec: &JobSpec, caps: Caps, replaying: bool) -> Result<(), RunError> {
    if replaying && (caps.metadata.is_some() || caps.no_data) {
        return Err(plan_err(
            spec,
            format!(
                "read_iolog replays I/O, which the {} engine does not do; use a data engine \
                 (psync, libaio, io_uring, null, ...)",
                spec.ioengine
            ),
        ));
    }
    let k = spec.rw.kind;
    if k.trims() && caps.no_trim {
        return Err(plan_err(
            spec,
            format!(
                "rw={} needs trim, which the {} engine cannot do",
                k.name(),
                spec.ioengine
            ),
        ));
    }
    let nfiles = if spec.filenames.is_empty() {
        spec.nrfiles
    } else {
        spec.filenames.len() as u32
    };
    // Metadata engines hold a file only for its operation; filetree's open table is
    // openfiles long.
    let reopen = caps.reopen && !(spec.ioengine == "io_uring" && spec.engine.registerfiles);
    if spec.openfiles.is_some_and(|o| o < nfiles) && caps.metadata.is_none() && !reopen {
        return Err(plan_err(
            spec,
            format!(
                "openfiles={} is below the job's {nfiles} files, and the {} engine{} keeps \
                 every file open; use psync, sync, vsync, pvsync, pvsync2, libaio or \
                 io_uring (without registerfiles), or drop openfiles",
                spec.openfiles.unwrap_or(0),
                spec.ioengine,
                if spec.engine.registerfiles {
                    " with registerfiles"
                } else {
                    ""
                }
            ),
        ));
    }
    if spec.numjobs == 0 {
        return Err(plan_err(spec, "numjobs must be at least 1"));
    }
    Ok(())
}

/// verify= and its options fit together and fit the engine and block sizes.
fn check_verify(spec: &JobSpec, caps: Caps) -> Result<(), RunError> {
    let vs = &spec.verify;
    if vs.kind.is_none()
        && (vs.backlog > 0
            || vs.only
            || vs.interval > 0
            || vs.offset > 0
            || vs.fatal
            || vs.journal.is_some())
    {
        return Err(plan_err(
            spec,
            "verify_backlog, verify_only, verify_interval, verify_offset, verify_fatal and \
             verify_journal need verify=TYPE (e.g. verify=crc32c)",
        ));
    }
    if let Some(kind) = spec.verify.kind {
        use fathom_job::VerifyKind;
        let why = if caps.metadata.is_some() {
            Some(format!(
                "the {} engine moves no data to verify",
                spec.ioengine
            ))
        } else if caps.diskless && kind != VerifyKind::Null {
            Some(format!(
                "the {} engine stores nothing to read back; use a real engine or verify=null",
                spec.ioengine
            ))
        } else if matches!(kind, VerifyKind::Pattern | VerifyKind::PatternHdr)
            && spec.verify.pattern.is_none()
        {
            Some(format!(
                "verify={} needs verify_pattern (e.g. verify_pattern=0xdeadbeef)",
                kind.name()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(plan_err(spec, why));
        }
        let iv = verify_interval(spec);
        let hdr = crate::verify::header_len(kind) as u64;
        if iv > 0 && iv < hdr {
            // fio takes 80 bytes (two of its 40-byte headers) and up; fathom's header
            // is larger for most digests.
            return Err(plan_err(
                spec,
                format!(
                    "verify_interval={iv} is shorter than fathom's verify={} header of {hdr} \
                     bytes (its place and digest): give verify_interval={hdr} or more",
                    kind.name()
                ),
            ));
        }
        if iv > 0 {
            for d in 0..3 {
                if let Some(b) = block_sizes(spec, d)
                    .into_iter()
                    .find(|&b| b > 0 && b % iv != 0)
                {
                    return Err(plan_err(
                        spec,
                        format!("verify_interval={iv} does not divide the block size {b}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// filetree's options only with filetree, and what a shared tree's clones can share.
fn check_filetree(spec: &JobSpec, caps: Caps) -> Result<(), RunError> {
    if caps.metadata == Some("mix") {
        let dir_ops = spec
            .meta_mix
            .iter()
            .any(|(o, _)| matches!(o, fathom_job::MetaOp::Mkdir | fathom_job::MetaOp::Rmdir));
        if dir_ops && spec.numjobs > 1 && !spec.tree.unique && !spec.tree.shared {
            return Err(plan_err(
                spec,
                "mkdir and rmdir change the directories every clone of a shared tree uses: \
                 add tree_shared=1 (one view of the tree for all clones), unique_dir=1 (a \
                 tree per clone) or use numjobs=1",
            ));
        }
        if spec.rate.0.iter().any(|&r| r > 0) {
            return Err(plan_err(
                spec,
                "a filetree job runs operations, not bytes: give its rate as rate_iops \
                 (operations per second)",
            ));
        }
    } else if !spec.meta_mix.is_empty() || spec.fileselect_sequential || spec.tree.format.is_some()
    {
        return Err(plan_err(
            spec,
            format!(
                "meta_mix, fileselect and tree_format are for ioengine=filetree, not {}",
                spec.ioengine
            ),
        ));
    }
    Ok(())
}

/// The I/O options against the engine and this machine: block sizes, the kernel's
/// support, NUMA nodes, per-I/O priorities, unlink_each_loop, polled and direct I/O.
fn check_io_options(
    spec: &JobSpec,
    caps: Caps,
    engine: &dyn fathom_engine::IoEngine,
    limits: Limits,
    warnings: &mut Vec<String>,
) -> Result<(), RunError> {
    let k = spec.rw.kind;
    if spec.lfsr && spec.norandommap && spec.rw.kind.is_random() {
        warnings.push(format!(
            "note: job '{}': random_generator=lfsr visits every block once per pass, which \
             fathom keeps with its random map (a bit per block) even with norandommap",
            spec.name
        ));
    }
    for (i, &bs) in spec.bs.0.iter().enumerate() {
        if bs == 0 && [k.reads(), k.writes(), k.trims()][i] {
            return Err(plan_err(spec, "bs must be greater than 0"));
        }
    }
    // The kernel's support is this machine's, not the job file's.
    let probed = if limits.parse_only {
        Ok(())
    } else {
        engine.probe()
    };
    if let Err(e) = probed {
        return Err(plan_err(spec, e.to_string()));
    }
    if !limits.parse_only {
        if let Some(n) = &spec.control.numa_cpu_nodes {
            crate::plan::numa::check("numa_cpu_nodes", n).map_err(|e| plan_err(spec, e))?;
        }
        if let Some(p) = &spec.control.numa_mem_policy {
            crate::plan::numa::check("numa_mem_policy", &p.nodes).map_err(|e| plan_err(spec, e))?;
        }
    }
    let cp = &spec.cmdprio;
    if cp.active() && !matches!(spec.ioengine.as_str(), "libaio" | "io_uring") {
        return Err(plan_err(
            spec,
            format!(
                "cmdprio_percentage, cmdprio_class, cmdprio and cmdprio_bssplit are options of \
                 the libaio and io_uring engines, not of {}; use ioengine=libaio or io_uring, \
                 or prio=/prioclass= for the priority of every I/O",
                spec.ioengine
            ),
        ));
    }
    if cp.bssplit.is_some() && cp.percentage.iter().any(|&p| p > 0) {
        return Err(plan_err(
            spec,
            "cmdprio_percentage and cmdprio_bssplit are mutually exclusive; keep one",
        ));
    }
    if spec.control.unlink_each_loop && spec.loops > 1 && !caps.diskless {
        unlink_each_loop_fits(spec, caps).map_err(|m| plan_err(spec, m))?;
    }
    let eo = &spec.engine;
    if eo.hipri && spec.ioengine == "io_uring" && !spec.direct {
        return Err(plan_err(
            spec,
            "hipri (IOPOLL) needs direct=1 on a device that supports polled I/O",
        ));
    }
    if spec.direct && caps.no_direct {
        return Err(plan_err(
            spec,
            format!(
                "the {} engine cannot do direct I/O (its data path copies through buffers \
                 it owns); use direct=0, or io_uring/libaio for direct I/O",
                spec.ioengine
            ),
        ));
    }
    Ok(())
}

/// The queue depth the engine runs at (synchronous engines: 1), with fio's notes.
fn effective_depth(spec: &JobSpec, caps: Caps, warnings: &mut Vec<String>) -> u32 {
    let effective_iodepth = if caps.is_async {
        spec.iodepth.max(1)
    } else {
        1
    };
    if spec.iodepth > 1 && !caps.is_async {
        warnings.push(format!(
            "note: job '{}': the {} engine is synchronous; iodepth={} is capped at 1",
            spec.name, spec.ioengine, spec.iodepth
        ));
    }
    if spec.iodepth > 1 && spec.ioengine == "libaio" && !spec.direct && !caps.diskless {
        warnings.push(format!(
            "note: job '{}': libaio without direct=1 completes buffered I/O inside io_submit, \
             so iodepth={} is rarely reached; add direct=1, or use io_uring for buffered \
             asynchronous I/O",
            spec.name, spec.iodepth
        ));
    }
    effective_iodepth
}

/// I/O buffers are allocated up front: refuse what the machine cannot hold.
fn check_memory(
    spec: &JobSpec,
    clones: &[PlannedClone],
    effective_iodepth: u32,
    limits: Limits,
) -> Result<(), RunError> {
    // Buffers are allocated up front: iodepth × largest block × clones. Refuse what the
    // machine cannot hold rather than run out of memory mid-run.
    let max_len = clones
        .first()
        .map(|c| (0..3).map(|d| c.params.len_range(d).1).max().unwrap_or(0))
        .unwrap_or(0);
    let need = (effective_iodepth as u128) * (max_len as u128) * (spec.numjobs as u128);
    let have = physical_memory();
    if need > (have as u128) / 2 && !limits.parse_only {
        return Err(plan_err(
            spec,
            format!(
                "I/O buffers would need {} bytes (iodepth {} × block {} × {} clones), more than \
                 half of this machine's {} bytes of memory; lower iodepth, bs or numjobs",
                need, effective_iodepth, max_len, spec.numjobs, have
            ),
        ));
    }
    Ok(())
}

pub(crate) fn plan_job(
    (ji, first_thread): (usize, u32),
    spec: &JobSpec,
    groupid: u32,
    phase: u32,
    limits: Limits,
    warnings: &mut Vec<String>,
    made: &Made,
) -> Result<PlannedJob, RunError> {
    let cpu;
    let spec = if spec.ioengine == "cpuio" {
        cpu = cpuio_spec(spec)?;
        &cpu
    } else {
        spec
    };
    // read_iolog: the logs decide the pattern, block sizes and files.
    let replay = super::replay::plan_replay(spec, limits, warnings)?;
    let spec = replay.as_ref().map_or(spec, |r| &r.spec);
    let engine = fathom_engine::create(&spec.ioengine).map_err(|e| RunError::Engine {
        job: spec.name.clone(),
        location: spec.origin.to_string(),
        source: e,
    })?;
    let caps = engine.caps();
    check_engine_fit(spec, caps, replay.is_some())?;
    check_verify(spec, caps)?;
    check_filetree(spec, caps)?;
    super::zones::check_zbd(spec)?;
    check_io_options(spec, caps, engine.as_ref(), limits, warnings)?;
    let effective_iodepth = effective_depth(spec, caps, warnings);
    let mut clones = Vec::with_capacity(spec.numjobs as usize);
    // As fio, which sets a job's clones up one after another: with a percentage offset a
    // clone takes it of a shared file as the clones before it laid it out (`size=4m
    // offset=25% numjobs=2`: the second clone's region is 1m..5m).
    let mut seen = std::borrow::Cow::Borrowed(made);
    let percent = matches!(spec.offset, fathom_job::SizeSpec::Percent(p) if p > 0.0)
        || matches!(spec.offset_increment, fathom_job::SizeSpec::Percent(p) if p > 0.0);
    let shared = percent && !spec.filenames.is_empty() && !caps.diskless && !limits.parse_only;
    for jobnum in 0..spec.numjobs {
        let clone = match &replay {
            Some(r) => super::replay::replay_clone(ji, spec, jobnum, &r.logs[jobnum as usize]),
            None => plan_clone(
                (ji, first_thread + jobnum),
                spec,
                jobnum,
                caps,
                (limits, &mut *warnings, &seen),
            )?,
        };
        if shared && replay.is_none() {
            super::note_made_clone(&clone, false, seen.to_mut());
        }
        clones.push(clone);
    }
    check_memory(spec, &clones, effective_iodepth, limits)?;
    let mut spec = spec.clone();
    spec.verify.interval = verify_interval(&spec);
    // The ioprio value the logs' priority column shows: fio's class << 13 | level (a
    // level alone is in the best-effort class).
    spec.logs.ioprio = match (spec.prioclass, spec.prio) {
        (Some(c), p) => ((c as u16 & 7) << 13) | p.unwrap_or(0) as u16 & 0x1fff,
        (None, Some(p)) => (2 << 13) | p as u16 & 0x1fff,
        (None, None) => 0,
    };
    let spec = &spec;
    Ok(PlannedJob {
        spec: Arc::new(spec.clone()),
        groupid,
        phase,
        caps,
        clones,
        effective_iodepth,
        engine_options: fathom_engine::EngineOptions {
            job: spec.engine,
            poll_reap: spec.iodepth_batch_complete_min == 0,
        },
        rate: fathom_workload::RateSpec {
            bytes_per_sec: spec.rate.0,
            iops: spec.rate_iops.0,
            process: if spec.rate_poisson {
                fathom_workload::RateProcess::Poisson
            } else {
                fathom_workload::RateProcess::Linear
            },
        },
        thinktime: ThinkTime {
            time: spec.thinktime,
            spin: spec.thinktime_spin,
            blocks: spec.thinktime_blocks,
            on_issue: spec.thinktime_on_issue,
            iotime: spec.thinktime_iotime,
        },
        buffers: fathom_engine::BufferContent {
            zero: spec.zero_buffers,
            refill: spec.refill_buffers,
            pattern: spec.buffer_pattern.clone(),
            compress_percentage: spec.buffer_compress_percentage,
            compress_chunk: spec.buffer_compress_chunk as usize,
            dedupe_percentage: spec.dedupe_percentage,
            scramble: spec.scramble_buffers,
            units: spec.control.dedup_units,
        },
        flow: None,
        depth_group: None,
        dedupe_peers: Arc::default(),
        zones: Arc::default(),
    })
}

/// A direction's block sizes: its bssplit entries, bsrange ends, or bs.
pub(crate) fn block_sizes(spec: &JobSpec, d: usize) -> Vec<u64> {
    if !spec.bssplit[d].is_empty() {
        spec.bssplit[d].iter().map(|b| b.0).collect()
    } else if let Some((lo, hi)) = spec.bsrange[d] {
        vec![lo, hi]
    } else {
        vec![spec.bs.0[d]]
    }
}

/// verify_interval as fio applies it: no larger than the smallest write (for a job that
/// reads, also read) block, and a factor of the smallest and largest write block (else
/// their greatest common divisor). 0 (unset) stays 0: each write is one chunk when all
/// writes have one size, else the smallest size.
pub(crate) fn verify_interval(spec: &JobSpec) -> u64 {
    let writes = block_sizes(spec, 1);
    let (lo, hi) = (
        writes.iter().copied().filter(|&b| b > 0).min().unwrap_or(0),
        writes.iter().copied().max().unwrap_or(0),
    );
    let mut iv = spec.verify.interval;
    if lo == 0 {
        return iv;
    }
    if iv == 0 && hi != lo {
        iv = lo;
    }
    if iv == 0 {
        return 0;
    }
    let read_lo = block_sizes(spec, 0).into_iter().filter(|&b| b > 0).min();
    if iv > lo {
        iv = lo;
    } else if let Some(r) = read_lo.filter(|&r| spec.rw.kind.reads() && iv > r) {
        iv = r;
    }
    if lo % iv != 0 || hi % iv != 0 {
        iv = gcd(lo, hi);
    }
    iv
}

pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A cpuio job as fio runs it: one burn per I/O and, after each, a pause that makes the
/// load `cpuload` percent (`cpuchunks` × (100 − load) / load, as think time after every
/// completion); no files; I/Os until the runtime, `number_ios` or a signal ends the job.
/// With `cpumode=qsort` the burn is one sort round, timed here once (fio re-times each).
fn cpuio_spec(spec: &JobSpec) -> Result<JobSpec, RunError> {
    let load = spec.engine.cpuload as u64;
    if load == 0 {
        return Err(plan_err(
            spec,
            "the cpuio engine needs cpuload= (the percent of a CPU to burn), e.g. cpuload=50",
        ));
    }
    let cycle_us = if spec.engine.cpumode_qsort {
        let mut e = fathom_engine::cpuio::CpuIo::new(0, true);
        (e.sort_round().as_micros() as u64).max(1)
    } else {
        spec.engine.cpuchunks
    };
    let mut s = spec.clone();
    s.engine.cpuchunks = cycle_us;
    s.thinktime = std::time::Duration::from_micros(cycle_us * (100 - load) / load);
    s.thinktime_spin = std::time::Duration::ZERO;
    s.thinktime_blocks = 1;
    s.thinktime_on_issue = false;
    s.nrfiles = 1;
    s.filenames.clear();
    // One nominal block of "file", gone round for as long as the job runs.
    let bs = s.bs.0.iter().copied().max().unwrap_or(4096).max(1);
    s.size = Some(fathom_job::SizeSpec::Bytes(bs));
    s.io_size = Some(u64::MAX / 4);
    Ok(s)
}

/// `unlink_each_loop` removes the files between loops: for a job that only writes (the
/// next loop's writes make them anew), through an engine that can reopen its files.
fn unlink_each_loop_fits(spec: &JobSpec, caps: Caps) -> Result<(), String> {
    if spec.rw.kind.reads() {
        return Err(
            "unlink_each_loop removes the files between loops, and this job reads \
                    them (fio's second loop fails on the missing files); use it with a job \
                    that only writes, or unlink=1 to remove the files once at the end"
                .into(),
        );
    }
    if !caps.reopen {
        return Err(format!(
            "unlink_each_loop reopens the files between loops, and the {} engine keeps them \
             open as they are (registerfiles); drop registerfiles or unlink_each_loop",
            spec.ioengine
        ));
    }
    if spec.openfiles.is_some() {
        return Err("unlink_each_loop with openfiles= is not built: drop one of them".into());
    }
    let checks = spec.verify.kind.is_some() || spec.verify.pattern.is_some();
    // Each loop's writes are read back before its files go (as fio), except with
    // experimental_verify (every write replayed at the end) and with a backlog that no
    // pass after each loop completes (do_verify=0, time_based).
    let per_loop = spec.verify.do_verify && !spec.verify.experimental && !spec.time_based;
    if checks && (spec.verify.experimental || (spec.verify.backlog > 0 && !per_loop)) {
        return Err(
            "unlink_each_loop removes what earlier loops wrote, and with experimental_verify \
             (or verify_backlog without a verify pass after each loop) the checks would read \
             files already removed: drop one of them (or use loops=1)"
                .into(),
        );
    }
    Ok(())
}
