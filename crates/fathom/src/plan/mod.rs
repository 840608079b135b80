//! Planning: groups, phases, clones, files and sizes, all decided before the clock starts.
//!
//! [`plan_with`] walks the job set: `job` checks each job and resolves its sizes,
//! `clone` lays out each clone's files, regions and generator parameters, `limits`
//! knows the machine's limits, [`guard`] refuses targets that hold data; `types` holds
//! what the plan is made of.

pub use clone::{expand_filename_format, expand_filename_format_rank};
pub use limits::nofile_soft;
pub use replay::merge_blktraces_only;
pub use types::*;

pub(crate) use clone::completes_inline;
pub(crate) use job::gcd;
use job::*;
use limits::*;

mod clone;
pub mod guard;
mod job;
mod limits;
pub(crate) mod numa;
mod replay;
mod types;
pub mod zones;

use crate::error::RunError;
use fathom_job::JobSet;
use std::path::PathBuf;
use std::sync::Arc;

/// Plan a job set: check every job against its engine and work out each clone's files,
/// regions and generator parameters.
pub fn plan(set: &JobSet) -> Result<Plan, RunError> {
    plan_with(set, Limits::default())
}

/// [`plan`] with run limits.
pub fn plan_with(set: &JobSet, limits: Limits) -> Result<Plan, RunError> {
    if limits.readonly {
        if let Some(j) = set
            .jobs
            .iter()
            .find(|j| j.rw.kind.writes() || j.rw.kind.trims())
        {
            return Err(plan_err(
                j,
                format!(
                    "rw={} writes or trims, and --readonly forbids that; use a read pattern",
                    j.rw.kind.name()
                ),
            ));
        }
    }
    let mut out = Plan {
        global_options: set.global_options.clone(),
        ..Default::default()
    };
    let mut groupid = 0u32;
    let mut phase = 0u32;
    let mut made = Made::default();
    for (ji, spec) in set.jobs.iter().enumerate() {
        if ji > 0 && (spec.stonewall || spec.new_group) {
            groupid += 1;
        }
        if ji > 0 && spec.stonewall {
            phase += 1;
        }
        // (fio numbers its threads from 1 in job order: the clones before this job's.)
        let first_thread = 1 + out.jobs.iter().map(|j| j.clones.len() as u32).sum::<u32>();
        let job = plan_job(
            (ji, first_thread),
            spec,
            groupid,
            phase,
            limits,
            &mut out.warnings,
            &made,
        )?;
        if !limits.allow_destructive && !limits.parse_only {
            guard_job(&job)?;
        }
        note_made(&job, &mut made);
        out.jobs.push(job);
    }
    check_wait_for(&out)?;
    if limits.readonly && !limits.parse_only {
        check_readonly(&out)?;
    }
    share_flows(&mut out);
    share_depths(&mut out);
    // cpuio's exit_on_io_done: the I/O clones of the whole run, counted down as they end.
    let io_clones: usize = out
        .jobs
        .iter()
        .filter(|j| !j.caps.no_data)
        .map(|j| j.clones.len())
        .sum();
    out.io_clones_left = Arc::new(io_clones.into());
    // Descriptors: jobs of many files (with no openfiles below that) keep them all open.
    let need: u64 = out
        .jobs
        .iter()
        .filter(|j| !j.caps.diskless && j.caps.metadata.is_none())
        .flat_map(|j| {
            let open = j.spec.openfiles.map_or(u64::MAX, u64::from);
            j.clones
                .iter()
                .map(move |c| (c.files.len() as u64).min(open))
        })
        .sum();
    if !limits.parse_only {
        out.warnings.extend(raise_nofile(need));
    }
    // Number the clones of the run from 1, in job order (log file names use it).
    let mut n = 0;
    for j in &mut out.jobs {
        for c in &mut j.clones {
            n += 1;
            c.index = n;
            // A read/write mix draws its directions from fio's generator seeded as fio
            // seeds its thread number `n` under randrepeat: fio's own sequence.
            if j.spec.randrepeat || j.spec.allrandrepeat {
                let s = |off| match j.spec.allrandrepeat {
                    true => fathom_workload::fio_all_seed(n, off),
                    false => fathom_workload::fio_seed(j.spec.randseed, n, off),
                };
                c.params.mix_seed = Some(s(fathom_workload::FIO_RAND_MIX_OFF) as u32);
                // Block sizes from fio's generators too: read, write and trim each its
                // own, as fio seeds them (a verifying job's writes share the reads' seed,
                // trimwrite's trims the writes').
                let read = s(0);
                let write = if j.spec.verify.kind.is_some() {
                    read
                } else {
                    s(1)
                };
                let k = j.spec.rw.kind;
                let trim = if k.writes() && k.trims() { write } else { s(2) };
                c.params.bs_seeds = Some([read, write, trim]);
                // (tausworthe64: fio's 64-bit generator for them, the mix's stays 32-bit.)
                c.params.rand64 = j.spec.rand64;
                // Uniform random offsets from fio's block generator, seeded as fio seeds
                // it under randrepeat (whatever randseed says).
                // Whether a partly random pattern's I/O is random: fio's deciders.
                c.params.seq_rand_seed = Some(s(FIO_RAND_SEQ_RAND_READ_OFF));
                // A random file service's picks: fio's FIO_RAND_FILE_OFF generator.
                c.params.file_seed = Some(s(5));
                // A zoned distribution's zone draws: fio's FIO_RAND_ZONE_OFF generator.
                c.params.zone_seed = Some(s(16));
                // (lfsr: fio's LFSR over each file's blocks, from the same seed.)
                // (allrandrepeat without randrepeat: the block generator's seed is one of
                // all the others, its index added.)
                let block_seed = match j.spec.randrepeat {
                    true => 0xb189_9bed_u64.wrapping_mul(u64::from(n)),
                    false => s(FIO_RAND_BLOCK_OFF),
                };
                if j.spec.lfsr {
                    c.params.lfsr_seed = Some(block_seed);
                } else {
                    c.params.offset_seed = Some(block_seed);
                }
            }
        }
    }
    share_locks(&mut out);
    share_gates(&mut out);
    mark_overlaps(&mut out);
    share_dedupe_set(&mut out);
    share_zones(&mut out)?;
    merge_file_needs(&mut out);
    Ok(out)
}

/// fio's index of the seed of its random-or-sequential deciders (`percentage_random`).
const FIO_RAND_SEQ_RAND_READ_OFF: u32 = 10;

/// fio's index of the seed of its random offsets' generator.
pub(crate) const FIO_RAND_BLOCK_OFF: u32 = 6;

/// The files a job lays out, as the jobs after it see them (fio sets its jobs up in
/// order, each laying out its files to its regions' ends): a later job without size=
/// reads what an earlier one wrote. unlink=1 removes them.
fn note_made(job: &PlannedJob, made: &mut Made) {
    if job.caps.diskless || job.caps.metadata.is_some() {
        return;
    }
    for c in &job.clones {
        note_made_clone(c, job.spec.unlink, made);
    }
}

/// The files one clone lays out (see [`note_made`]).
pub(crate) fn note_made_clone(c: &PlannedClone, unlink: bool, made: &mut Made) {
    // Files laid end to end are used as they are (their regions are their sizes).
    let concat: Vec<u64>;
    let file_ends = if c.params.concat.is_some() {
        concat = c.files.iter().map(|f| f.region.len).collect();
        &concat
    } else {
        &c.params.file_ends
    };
    for (f, &end) in c.files.iter().zip(file_ends) {
        let e = made.entry(made_key(&f.path)).or_insert(Some(0));
        *e = if unlink {
            None
        } else {
            Some(e.unwrap_or(0).max(end))
        };
    }
}

/// A file's key in [`Made`]: its path made absolute, `.` parts gone (`./a.0.0` and
/// `a.0.0` are one file).
pub(crate) fn made_key(path: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `--readonly` writes nothing: a file that would have to be laid out (missing, or shorter
/// than its job's region), a metadata engine that creates or removes, and `unlink=1` are
/// refused before anything is opened (fio refuses to extend a file under --readonly, and
/// its job then fails).
fn check_readonly(plan: &Plan) -> Result<(), RunError> {
    for j in &plan.jobs {
        let spec = &j.spec;
        if let Some(op) = j
            .caps
            .metadata
            .filter(|op| matches!(*op, "create" | "delete" | "mkdir" | "rmdir"))
        {
            return Err(plan_err(
                spec,
                format!(
                    "ioengine={} does {op} operations, and --readonly forbids changing \
                     anything; use filestat or dirstat, or drop --readonly",
                    spec.ioengine
                ),
            ));
        }
        if j.caps.diskless || j.caps.metadata.is_some() {
            continue;
        }
        if spec.unlink {
            return Err(plan_err(
                spec,
                "unlink=1 removes the job's files, and --readonly forbids changing \
                 anything; drop unlink or --readonly",
            ));
        }
        for f in j.clones.iter().flat_map(|c| &c.files) {
            let end = f.region.start + f.region.len;
            let why = match std::fs::metadata(&f.path) {
                Ok(m) if !m.is_file() || m.len() >= end => continue,
                Ok(m) => format!(
                    "has {} bytes, fewer than the job's region needs ({end}), so it would be \
                     extended (written)",
                    m.len()
                ),
                Err(_) => "does not exist, so it would be created and laid out (written)".into(),
            };
            return Err(plan_err(
                spec,
                format!(
                    "{} {why}, and --readonly forbids that; lay it out first (a run without \
                     --readonly), point filename= at existing data, or make size= smaller",
                    f.path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// wait_for names an earlier job.
fn check_wait_for(out: &Plan) -> Result<(), RunError> {
    for (ji, j) in out.jobs.iter().enumerate() {
        if let Some(w) = &j.spec.wait_for {
            if !out.jobs[..ji].iter().any(|o| &o.spec.name == w) {
                return Err(plan_err(
                    &j.spec,
                    format!(
                        "wait_for={w}: no job of that name before this one (have: {})",
                        out.jobs[..ji]
                            .iter()
                            .map(|o| o.spec.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Flow groups: one shared counter per flow_id.
fn share_flows(out: &mut Plan) {
    let mut flows: Vec<(u32, Arc<Flow>)> = Vec::new();
    for j in out.jobs.iter_mut().filter(|j| j.spec.flow > 0) {
        let id = j.spec.flow_id;
        let f = match flows.iter().find(|(i, _)| *i == id) {
            Some((_, f)) => f.clone(),
            None => {
                let f = Arc::new(Flow {
                    counter: 1.into(),
                    total_weight: 0.into(),
                });
                flows.push((id, f.clone()));
                f
            }
        };
        j.flow = Some(f);
    }
}

/// Depth groups (vdbench's WD priority=): one per group name, as deep as its deepest
/// member asks, with a waiting count for each priority its members use.
fn share_depths(out: &mut Plan) {
    use std::sync::atomic::AtomicU32;
    let mut groups: Vec<(&str, u32, u32)> = Vec::new();
    for d in out
        .jobs
        .iter()
        .filter_map(|j| j.spec.control.depth_share.as_ref())
    {
        match groups.iter_mut().find(|g| g.0 == d.group) {
            Some(g) => {
                g.1 = g.1.max(d.depth);
                g.2 = g.2.max(d.priority);
            }
            None => groups.push((&d.group, d.depth, d.priority)),
        }
    }
    let made: Vec<(String, Arc<DepthGroup>)> = groups
        .into_iter()
        .map(|(name, depth, top)| {
            let g = DepthGroup {
                inflight: AtomicU32::new(0),
                depth: depth.max(1),
                waiting: (0..=top).map(|_| AtomicU32::new(0)).collect(),
            };
            (name.to_string(), Arc::new(g))
        })
        .collect();
    for j in &mut out.jobs {
        if let Some(d) = &j.spec.control.depth_share {
            j.depth_group = made
                .iter()
                .find(|(n, _)| *n == d.group)
                .map(|(_, g)| g.clone());
        }
    }
}

/// lockfile: one lock per path, shared by every clone of every job that locks it.
fn share_locks(out: &mut Plan) {
    let mut locks: std::collections::HashMap<PathBuf, FileLock> = Default::default();
    for j in out
        .jobs
        .iter_mut()
        .filter(|j| j.spec.control.lockfile != fathom_job::LockMode::None && !j.caps.diskless)
    {
        for c in &mut j.clones {
            c.locks = c
                .files
                .iter()
                .map(|f| locks.entry(f.path.clone()).or_default().clone())
                .collect();
        }
    }
}

/// Control::file_gate: one gate per list of files, shared by every clone of every job
/// with the flag whose files are that list.
fn share_gates(out: &mut Plan) {
    let mut gates: std::collections::HashMap<
        Vec<PathBuf>,
        std::sync::Arc<fathom_workload::FileGate>,
    > = Default::default();
    for j in out
        .jobs
        .iter_mut()
        .filter(|j| j.spec.control.file_gate && !j.caps.diskless)
    {
        for c in &mut j.clones {
            let paths: Vec<PathBuf> = c.files.iter().map(|f| f.path.clone()).collect();
            let n = paths.len();
            let gate = gates
                .entry(paths)
                .or_insert_with(|| fathom_workload::FileGate::new(n))
                .clone();
            c.params.file_gate = Some(gate);
        }
    }
}

/// Mark each clone with a region that another clone's writes reach (the same path, the
/// regions overlapping); see [`PlannedClone::overlapped`].
fn mark_overlaps(out: &mut Plan) {
    // Per path: (start, end, clone's place in the run, writes).
    let mut by_path: std::collections::HashMap<PathBuf, Vec<(u64, u64, usize, bool)>> =
        Default::default();
    let mut n = 0;
    for j in &out.jobs {
        let writes = j.spec.rw.kind.writes() || j.spec.rw.kind.trims();
        for c in &j.clones {
            for f in &c.files {
                let r = f.region;
                by_path.entry(f.path.clone()).or_default().push((
                    r.start,
                    r.start + r.len,
                    n,
                    writes,
                ));
            }
            n += 1;
        }
    }
    let mut overlapped = vec![false; n];
    for mut v in by_path.into_values().filter(|v| v.len() > 1) {
        v.sort_unstable();
        // A writer that started before (or with) the region and reaches into it: the two
        // writers reaching furthest so far, of two clones.
        let mut far: [(u64, usize); 2] = [(0, usize::MAX); 2];
        for &(start, end, c, writes) in &v {
            if far
                .iter()
                .any(|&(e, w)| w != c && w != usize::MAX && e > start)
            {
                overlapped[c] = true;
            }
            if writes {
                if far[0].1 == c {
                    far[0].0 = far[0].0.max(end);
                } else if end > far[0].0 {
                    far = [(end, c), far[0]];
                } else if far[1].1 == c || end > far[1].0 {
                    far[1] = (far[1].0.max(end), c);
                }
            }
        }
        // A writer that starts inside the region (the writers by their start).
        let writers: Vec<(u64, usize)> = v.iter().filter(|x| x.3).map(|x| (x.0, x.2)).collect();
        for &(start, end, c, _) in &v {
            let first = writers.partition_point(|&(s, _)| s < start);
            if writers[first..]
                .iter()
                .take_while(|&&(s, _)| s < end)
                .any(|&(_, w)| w != c)
            {
                overlapped[c] = true;
            }
        }
    }
    for (c, o) in out
        .jobs
        .iter_mut()
        .flat_map(|j| j.clones.iter_mut())
        .zip(overlapped)
    {
        c.overlapped = o;
    }
}

/// A file's or device's size now (None: it does not exist).
pub(crate) fn file_size(path: &std::path::Path) -> Option<u64> {
    clone::size_of(path).ok().and_then(|s| s.0)
}

/// zonemode=zbd: one zone table per file for the whole run; the jobs sharing a file must
/// agree on its zones (as fio requires of max_open_zones).
fn share_zones(out: &mut Plan) -> Result<(), RunError> {
    let mut seen: std::collections::HashMap<&std::path::Path, &PlannedJob> = Default::default();
    for j in out
        .jobs
        .iter()
        .filter(|j| j.spec.zonemode == fathom_job::ZoneMode::Zbd)
    {
        for f in j.clones.iter().flat_map(|c| c.files.iter()) {
            let first = *seen.entry(&f.path).or_insert(j);
            let (a, b) = (&first.spec, &j.spec);
            if (
                a.zonesize,
                a.control.zbd.capacity,
                a.control.zbd.max_open_zones,
            ) != (
                b.zonesize,
                b.control.zbd.capacity,
                b.control.zbd.max_open_zones,
            ) {
                return Err(plan_err(
                    b,
                    format!(
                        "{}: jobs '{}' and '{}' give its zones different zonesize, \
                         zonecapacity or max_open_zones (with zonemode=zbd a file has one \
                         zone table)",
                        f.path.display(),
                        a.name,
                        b.name
                    ),
                ));
            }
        }
    }
    drop(seen);
    let reg: Arc<zones::ZoneRegistry> = Arc::default();
    for j in &mut out.jobs {
        j.zones = reg.clone();
    }
    Ok(())
}

/// dedupe_global: one working set over every participating clone, in plan order.
fn share_dedupe_set(out: &mut Plan) {
    let peers: Vec<u64> = out
        .jobs
        .iter()
        .filter(|j| j.spec.dedupe_global && j.spec.dedupe_working_set)
        .flat_map(|j| j.clones.iter().map(|c| c.params.seed))
        .collect();
    if !peers.is_empty() {
        let peers = std::sync::Arc::new(peers);
        for j in out
            .jobs
            .iter_mut()
            .filter(|j| j.spec.dedupe_global && j.spec.dedupe_working_set)
        {
            j.dedupe_peers = peers.clone();
        }
    }
}

/// The files each phase needs, merged by path: the largest size wins; filled if any job
/// reads them.
fn merge_file_needs(out: &mut Plan) {
    let mut need_at: std::collections::HashMap<(PathBuf, u32), usize> =
        std::collections::HashMap::new();
    for j in &out.jobs {
        if j.caps.diskless {
            continue;
        }
        let s = &j.spec;
        let fill = s.rw.kind.reads() || s.overwrite;
        // fio sizes a write-only job's file first only for engines that cannot extend it
        // (its mmap engine); other writes grow the file.
        let extend = fill || s.ioengine == "mmap";
        let replace = !fill && !s.control.file_append;
        if s.create_on_open || (s.control.fill_device && !fill) {
            // The files are created when the job opens them, not during setup: nothing is
            // laid out, also for a job that reads (fio's reads then end at the file's end,
            // with EIO); a fill_device write goes until the file system is full, into the
            // file as it is (fio lays nothing out for it either).
            continue;
        }
        for c in &j.clones {
            for f in &c.files {
                let size = f.region.start + f.region.len;
                if let Some(&i) = need_at.get(&(f.path.clone(), j.phase)) {
                    let n = &mut out.files[i];
                    n.size = n.size.max(size);
                    n.fill |= fill;
                    n.extend |= extend;
                    n.replace &= replace;
                    n.unlink |= s.unlink;
                    n.fsync |= s.create_fsync;
                } else {
                    need_at.insert((f.path.clone(), j.phase), out.files.len());
                    out.files.push(FileNeed {
                        path: f.path.clone(),
                        size,
                        fill,
                        extend,
                        replace,
                        zero: s.zero_buffers,
                        fallocate: s.fallocate,
                        unlink: s.unlink,
                        fsync: s.create_fsync,
                        phase: j.phase,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fathom_job::{JobSpec, Rw, RwKind, SizeSpec};
    use fathom_workload::FileRegion;

    fn job(name: &str) -> JobSpec {
        JobSpec {
            name: name.into(),
            size: Some(SizeSpec::Bytes(1 << 20)),
            directories: vec!["/nonexistent-dir".into()],
            ..Default::default()
        }
    }

    #[test]
    fn groups_and_phases_follow_stonewall_and_new_group() {
        let mut b = job("b");
        b.new_group = true;
        let mut c = job("c");
        c.stonewall = true;
        let set = JobSet {
            jobs: vec![job("a"), b, c],
            global_options: vec![],
        };
        let p = plan(&set).unwrap();
        let gp: Vec<_> = p.jobs.iter().map(|j| (j.groupid, j.phase)).collect();
        assert_eq!(gp, vec![(0, 0), (1, 0), (2, 1)]);
    }

    #[test]
    fn clones_get_their_own_files_and_offsets() {
        let mut a = job("a");
        a.numjobs = 2;
        a.nrfiles = 2;
        a.offset = SizeSpec::Bytes(4096);
        a.offset_increment = SizeSpec::Bytes(1 << 20);
        let p = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap();
        let c1 = &p.jobs[0].clones[1];
        assert_eq!(c1.files[1].path, PathBuf::from("/nonexistent-dir/a.1.1"));
        assert_eq!(
            c1.files[0].region,
            FileRegion {
                start: 4096 + (1 << 20),
                len: 1 << 19
            }
        );
        assert_eq!(p.files.len(), 4);
        assert_ne!(p.jobs[0].clones[0].params.seed, c1.params.seed);
    }

    #[test]
    fn files_laid_end_to_end_are_one_region_of_their_joined_space() {
        let d = tempfile::tempdir().unwrap();
        let (x, y) = (d.path().join("x"), d.path().join("y"));
        std::fs::write(&x, vec![1u8; 256 << 10]).unwrap();
        std::fs::write(&y, vec![1u8; 512 << 10]).unwrap();
        let mut a = job("a");
        a.directories.clear();
        a.filenames = vec![x.display().to_string(), y.display().to_string()];
        a.size = Some(SizeSpec::Bytes(128 << 10));
        a.offset = SizeSpec::Bytes(64 << 10);
        a.offset_increment = SizeSpec::Bytes(320 << 10);
        a.numjobs = 2;
        a.control.concat = Some(Vec::new());
        let set = |a: &JobSpec| JobSet {
            jobs: vec![a.clone()],
            global_options: vec![],
        };
        let p = plan(&set(&a)).unwrap();
        for (k, c) in p.jobs[0].clones.iter().enumerate() {
            // The real files, whole; the generator's one region of the 768k joined.
            let lens: Vec<u64> = c.files.iter().map(|f| f.region.len).collect();
            assert_eq!(lens, [256 << 10, 512 << 10]);
            assert_eq!(
                c.params.concat.as_deref(),
                Some(&[256 << 10, 768 << 10][..])
            );
            let start = (64 << 10) + k as u64 * (320 << 10);
            assert_eq!(
                c.params.files,
                [FileRegion {
                    start,
                    len: 128 << 10
                }]
            );
        }
        // Given sizes: no more than each file holds; verify is not implemented here.
        a.control.concat = Some(vec![256 << 10, 1 << 20]);
        assert!(plan(&set(&a))
            .unwrap_err()
            .to_string()
            .contains("never made or grown"));
        a.control.concat = Some(vec![128 << 10, 128 << 10]);
        a.offset_increment = SizeSpec::Bytes(0);
        assert!(plan(&set(&a)).is_ok());
        a.verify.kind = Some(fathom_job::VerifyKind::Crc32c);
        assert!(plan(&set(&a))
            .unwrap_err()
            .to_string()
            .contains("not implemented"));
    }

    #[test]
    fn a_shared_file_is_laid_out_once_at_the_largest_size() {
        let mut a = job("a");
        a.numjobs = 2;
        a.filenames = vec!["shared".into()];
        a.offset_increment = SizeSpec::Bytes(256 << 10);
        a.rw = Rw {
            kind: RwKind::Read,
            suffix: 0,
        };
        let p = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].size, (1 << 20) + (256 << 10));
        assert!(p.files[0].fill);
    }

    #[test]
    fn missing_size_and_file_is_a_clear_error() {
        let mut a = job("a");
        a.size = None;
        let e = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap_err();
        assert!(e.to_string().contains("set size="), "{e}");
    }

    #[test]
    fn sync_engines_cap_iodepth_with_a_note() {
        let mut a = job("a");
        a.iodepth = 32;
        let p = plan(&JobSet {
            jobs: vec![a],
            global_options: vec![],
        })
        .unwrap();
        assert_eq!(p.jobs[0].effective_iodepth, 1);
        assert!(p.warnings[0].contains("capped at 1"));
    }
}
